"""Scenario tables, vectorised: one row per scenario, results appended as columns.

:func:`evaluate` takes a table of scenarios (a pandas DataFrame, or a dask
DataFrame for tables larger than one machine's memory) and returns it with the
result columns appended; :func:`sweep` evaluates the cartesian product of
parameter lists. The CLI twins are ``rooflinexl batch`` and ``rooflinexl sweep``
(docs/batch.md).

Columns are recognised by the catalogue's argument names, case-insensitively
(``chip``, ``op``, ``B``, ``D``, ``F``, ``E``, ``k``, ``n_chips``, ``dtype``,
``weight_dtype``, ``shard``, ``tier``, ``flops``, ``bytes``, ``kind``,
``n_params``, ``layers``, ``kv_heads``, ``head_dim``, ``tokens``, ``batch``,
``mfu``, ``T``, ``S``, ``G``, and for whole models ``model``, ``context``, ``prompt``,
``kv_dtype``, ``mbu``, ``seq_len``; spaces and hyphens count as ``_``). A column
that is no argument of the ops in the table is an error naming it and the
nearest argument (``n_chip``: did you mean ``n_chips``?), unless it is
declared with ``passthrough=`` (CLI ``--pass-through``) or is a label column
(``label``, ``name``, ``scenario``); those pass through untouched. An input
column named like a result column is replaced, so evaluating a result table
again gives the same table.

``op`` selects what a row computes (:data:`OPS`); without an ``op`` column,
or in a blank ``op`` cell, a table with ``B``, ``D`` and ``F`` columns means
``matmul``. Every number comes from :mod:`rooflinexl.api` (the formulas live
in :mod:`rooflinexl.model`): rows are grouped by op with numpy masks and each
group is one vectorised call per function; nothing loops over rows in Python.

A bad row never stops or drops the others: its result cells are NaN (empty
in CSV/xlsx) and the ``error`` column holds the Excel error value and the
reason, e.g. ``#N/A: unknown chip 'B900' (known: ...)``, ``#NUM!: k (experts
per token) must not exceed E (experts)``, ``#VALUE!: B: 'abc' is not a
number``. An error of a secondary result (``crit_batch`` of a matmul row that
no batch makes compute-bound) leaves the row's other results and names the
column: ``#NUM!: crit_batch: no batch size reaches the roof ...``. The
``error`` cell of a good row is empty (None). This is a table, not a
spreadsheet: NaN marks a missing value, where an Excel cell would show the
error value itself.
"""
from __future__ import annotations

import contextlib
import difflib
import io
import math
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rooflinexl import api, api_args
from rooflinexl.chips import ChipTable, load_chips
from rooflinexl.dtypes import TIER_BOUND, Keyword, normalize_keyword, resolve_dtype, resolve_tier
from rooflinexl.errors import RooflineError
from rooflinexl.model import Checks, Run
from rooflinexl.models import ModelTable, load_models
from rooflinexl.ooxml import atomic_write

__all__ = ["evaluate", "sweep", "product_frame", "parse_values", "read_table", "write_table",
           "check_columns", "neutralise_csv", "OPS", "OUTPUTS", "ARGUMENTS", "LABEL_COLUMNS",
           "BatchInputError"]


class BatchInputError(RooflineError, ValueError):
    """A table that cannot be evaluated at all (two columns for one argument, no op to infer)."""


#: result columns in the order they are appended (those of the ops present, then ``error``)
OUTPUTS = ("t_math", "t_hbm", "t_comms", "time", "upper", "bound", "intensity", "flops_per_s",
           "tokens_per_s", "crit_intensity", "crit_batch", "moe_min_batch", "net_critical_d",
           "kv_cache_bytes", "usd_per_1e18_flop", "error")
_TEXT_OUTPUTS = ("bound", "error")
#: dtype of the text results: pandas' nullable string (missing is ``pd.NA``), so a dask
#: meta and a parquet schema know the column is text even when every row is missing
TEXT_DTYPE = pd.StringDtype()
#: columns that name a scenario (chart labels, :func:`rooflinexl.plot.points_from_results`):
#: they pass through without being declared
LABEL_COLUMNS = ("label", "name", "scenario")


@dataclass(frozen=True)
class Op:
    """One value of the ``op`` column: what it reads and the result columns it fills."""

    name: str
    aliases: tuple
    inputs: str
    outputs: tuple
    run: Callable


def column_key(name) -> str:
    """A column name as batch matches it: trimmed, case-folded, spaces and dashes as ``_``.

    >>> column_key(" Weight-Dtype ")
    'weight_dtype'
    """
    return re.sub(r"[\s\-]+", "_", str(name).strip()).casefold()




# ---------------------------------------------------------------- input columns
class _Numbers:
    """A numeric column parsed once: floats, plus per-row problems (``#VALUE!``/``#NUM!``)."""

    def __init__(self, name: str, series: pd.Series):
        self.name = name
        self.blank = None
        self.problems: list = []  # (mask, code, reason or reason array)
        if pd.api.types.is_bool_dtype(series.dtype):
            vals = np.full(len(series), api_args.STAND_IN)
            self.problems.append((np.ones(len(series), bool), *api_args.boolean(name)))
        elif pd.api.types.is_numeric_dtype(series.dtype):
            vals = series.to_numpy(dtype=float, na_value=np.nan)
        else:
            vals = pd.to_numeric(series, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            text = np.isnan(vals) & ~pd.isna(series).to_numpy()
            if text.any():
                codes, uniq = pd.factorize(series[text])
                blank_u = np.array([isinstance(u, str) and not u.strip() for u in uniq])
                found = [api_args.not_a_number(name, u) for u in uniq]
                why = np.array([reason for _, reason in found], dtype=object)
                idx = np.flatnonzero(text)
                is_text = ~blank_u[codes]
                mask = np.zeros(len(series), bool)
                mask[idx[is_text]] = True
                reasons = np.full(len(series), None, dtype=object)
                reasons[idx[is_text]] = why[codes[is_text]]
                self.problems.append((mask, found[0][0], reasons))
                vals = np.where(mask, api_args.STAND_IN, vals)
        self.values = vals
        if not vals.size or (np.isfinite(np.min(vals)) and np.isfinite(np.max(vals))):
            return  # every row a finite number (one reduction each way; NaN fails it)
        blank = np.isnan(vals)
        for mask, _, _ in self.problems:
            blank &= ~mask
        nonfinite = np.isinf(vals)
        if nonfinite.any():
            self.problems.append((nonfinite, *api_args.not_finite(name)))
            self.values = np.where(nonfinite, api_args.STAND_IN, vals)
        self.blank = blank if blank.any() else None


class _Keywords:
    """A text column factorised once: codes into its distinct values.

    ``canon[j]`` is the canonical keyword of distinct value j (None where blank),
    ``bad[j]`` the reason it is no valid keyword (None where fine).
    """

    def __init__(self, name: str, series: pd.Series, resolve: Callable | None):
        self.name = name
        codes, uniq = pd.factorize(series, use_na_sentinel=True)
        uniq = list(uniq)
        codes = np.asarray(codes, dtype=np.intp)
        if (codes < 0).any():  # missing cells: one more distinct value, blank
            codes = np.where(codes < 0, len(uniq), codes)
            uniq.append(None)
        self.codes = codes
        self.canon: list = []
        self.bad: list = []
        for u in uniq:
            text = u if isinstance(u, str) else (None if u is None or (
                isinstance(u, float) and math.isnan(u)) else str(u))
            if text is not None and not text.strip():
                text = None
            if resolve is None or text is None:
                self.canon.append(text)
                self.bad.append(None)
                continue
            try:
                self.canon.append(resolve(text))
                self.bad.append(None)
            except RooflineError as exc:
                self.canon.append(None)
                self.bad.append(str(exc))


_RESOLVERS = {
    "dtype": resolve_dtype, "weight_dtype": resolve_dtype, "kv_dtype": resolve_dtype,
    "tier": resolve_tier,
    "shard": api.lookup_keyword(api.SHARDS, "shard"),
    "kind": api.lookup_keyword(api.COLLECTIVES, "kind"),
    "chip": None,
}


class _Table:
    """The recognised columns of a scenario table, parsed once for all op groups."""

    def __init__(self, frame: pd.DataFrame, table: ChipTable, models: ModelTable | None = None):
        self.table = table
        self.models = models
        self.n = len(frame)
        self.columns: dict[str, object] = {}
        seen: dict[str, object] = {}
        for col in frame.columns:
            arg = ARGUMENTS.get(column_key(col))
            if arg is None:
                continue
            if arg in seen:
                raise BatchInputError(
                    f"columns {seen[arg]!r} and {col!r} both give the argument {arg!r}")
            seen[arg] = col
        self.names = seen
        self._frame = frame

    def keywords(self, arg) -> _Keywords | None:
        if arg not in self.columns:
            col = self.names.get(arg)
            self.columns[arg] = None if col is None else _Keywords(
                arg, self._frame[col], _RESOLVERS.get(arg))
        return self.columns[arg]

    def numbers(self, arg) -> _Numbers | None:
        if arg not in self.columns:
            col = self.names.get(arg)
            self.columns[arg] = None if col is None else _Numbers(arg, self._frame[col])
        return self.columns[arg]


# ------------------------------------------------------------------- op groups
class _Group:
    """The rows of one op: gathers their inputs, runs api calls, scatters results."""

    def __init__(self, t: _Table, rows: np.ndarray | None, out: dict, op: Op):
        self.t, self.rows, self.out, self.op = t, rows, out, op
        self.n = t.n if rows is None else len(rows)
        self.problems: list = []  # input errors of these rows, first wins

    def _take(self, a):
        return a if self.rows is None else a[self.rows]

    def _problem(self, mask, code, reason):
        if mask is True or (isinstance(mask, np.ndarray) and mask.any()):
            self.problems.append((np.broadcast_to(mask, (self.n,)), code, reason))

    def num(self, arg, fn=None):
        """Float array of a numeric argument; blanks get ``fn``'s default or are errors."""
        default = api_args.REQUIRED if fn is None else api_args.default(fn, arg)
        col = self.t.numbers(arg)
        if col is None:
            if default is api_args.REQUIRED:
                self._problem(True, *api_args.blank_required(arg, f" (no {arg} column)"))
                return api_args.STAND_IN
            return default
        vals = self._take(col.values)
        for mask, code, reason in col.problems:
            m = self._take(mask)
            if m.any():
                self._problem(m, code, self._take(reason) if isinstance(reason, np.ndarray)
                              else reason)
        if col.blank is not None:
            blank = self._take(col.blank)
            if blank.any():
                vals = vals.copy()
                if default is api_args.REQUIRED:
                    self._problem(blank, *api_args.blank_required(arg))
                    vals[blank] = api_args.STAND_IN
                else:
                    vals[blank] = api_args.blank_number(default, arg)
        return vals

    def _codes(self, arg):
        col = self.t.keywords(arg)
        return None if col is None else (col, self._take(col.codes))

    def kw(self, arg, fn=None, fallback=None, required=None):
        """A keyword argument as a str (one value in the group) or a str array.

        Blanks take ``fn``'s default for ``arg``, or ``fallback`` (weight_dtype:
        the row's dtype); an invalid keyword is that row's ``#VALUE!``. With
        ``required`` (a valid stand-in value) a blank is that row's ``#VALUE!``.
        """
        default = required if required is not None else None if fn is None else api_args.default(
            fn, arg)
        got = self._codes(arg)
        if got is None:
            if required is not None:
                self._problem(True, *api_args.blank_keyword(arg, f" (no {arg} column)"))
            return fallback if fallback is not None else default
        col, codes = got
        present = (np.ones(len(col.canon), bool) if self.rows is None  # factorized: all seen
                   else np.bincount(codes, minlength=len(col.canon)) > 0)
        bad = np.array([b is not None for b in col.bad], dtype=bool)
        if (bad & present).any():
            why = np.array(col.bad, dtype=object)
            m = bad[codes]
            self._problem(m, "#VALUE!", np.where(m, why[codes], None))
        blank = np.array([c is None for c in col.canon], dtype=bool) & present
        if required is not None and (blank & ~bad).any():
            m = (blank & ~bad)[codes]
            self._problem(m, *api_args.blank_keyword(arg))
        if arg == "chip":  # api: a blank or non-text chip is "no chip name given"
            values = ["" if c is None else c for c in col.canon]
            return _materialise(values, codes)
        values = [default if c is None else c for c in col.canon]
        if fallback is not None and blank.any():
            if isinstance(fallback, str):
                values = [fallback if c is None else v
                          for c, v in zip(col.canon, values, strict=True)]
            else:  # fallback array: blank rows take the fallback's value
                fb_codes, fb_values = api.codes_of(
                    fallback if isinstance(fallback, api.Coded)
                    else np.asarray(fallback, dtype=object))
                is_blank = blank[codes]
                codes = np.where(is_blank, len(values) + fb_codes, codes)
                values = values + list(fb_values)
        return _materialise(values, codes)

    def checks(self) -> Checks:
        """A collector holding these rows' input errors (they win over formula errors)."""
        return Checks(items=list(self.problems))

    def put(self, checks: Checks, prefix: str = "", **results):
        """Scatter results into the output columns; failed rows get NaN and their error.

        Error codes and reasons are worked out for the failed rows only, so
        bad rows cost in proportion to their number.
        """
        sel = None
        if checks.items:
            bad = np.zeros(self.n, dtype=bool)
            for mask, _, _ in checks.items:
                bad |= np.broadcast_to(mask, (self.n,))
            if bad.any():
                sel = np.flatnonzero(bad)
                sub = Checks(items=[
                    (np.broadcast_to(m, (self.n,))[sel], exc,
                     np.broadcast_to(r, (self.n,))[sel] if isinstance(r, np.ndarray) else r)
                    for m, exc, r in checks.items])
                codes, why = sub.codes((sel.size,))
        for name, value in results.items():
            if isinstance(value, api.Coded) and self.rows is None:  # text by codes: kept so
                text = np.broadcast_to(value.codes, (self.n,))     # (see _text_column)
                if sel is not None:  # failed rows: one more value, empty
                    text = text.copy()
                    text[sel] = len(value.values)
                self.out[name] = api.Coded(text, (*value.values, None))
                continue
            dtype = object if name in _TEXT_OUTPUTS else float
            value = np.asarray(value, dtype=dtype)
            if value.shape != (self.n,):
                value = np.broadcast_to(value, (self.n,))
            infinite = np.zeros(0, dtype=np.intp)
            # NaN stays: not applicable (t_hbm of an ici roofline); an inf is an error, looked
            # for element by element only where the NaN-ignoring extremes show one
            if dtype is float and value.size and (np.isinf(np.fmax.reduce(value))
                                                  or np.isinf(np.fmin.reduce(value))):
                inf = np.isinf(value)
                if sel is not None:
                    inf[sel] = False
                infinite = np.flatnonzero(inf)
                if infinite.size:
                    k = infinite.size
                    self._error(infinite, np.full(k, "#NUM!", dtype=object),
                                np.full(k, f"{name}: the result is infinite", dtype=object), "")
            if sel is not None or infinite.size:
                value = value.copy()  # never write into an array the api returned
                empty = None if dtype is object else np.nan
                if sel is not None:
                    value[sel] = empty
                value[infinite] = empty
            if self.rows is None:  # the only group: keep a fresh array, no copy
                fresh = value.base is None and value.flags.writeable
                self.out[name] = value if fresh else value.copy()
            else:
                _column(self.out, name, self.t.n)[self.rows] = value
        if sel is not None:
            self._error(sel, codes, why, prefix)

    def _error(self, sel, codes, why, prefix):
        """Error text of rows ``sel`` of the group, unless an earlier call already set one."""
        err = _column(self.out, "error", self.t.n)
        where = sel if self.rows is None else self.rows[sel]
        free = np.equal(err[where], None).astype(bool)
        if not free.any():
            return
        reason = np.where(np.equal(why, None).astype(bool), codes, why)[free]
        err[where[free]] = codes[free] + (": " + prefix) + reason


def _column(out: dict, name: str, n: int) -> np.ndarray:
    """Result column ``name`` of ``out``, made empty (NaN or None) when no group filled it yet."""
    col = out.get(name)
    if col is None:
        col = out[name] = np.full(n, None if name in _TEXT_OUTPUTS else np.nan,
                                  dtype=object if name in _TEXT_OUTPUTS else float)
    return col


def _text_column(values, index) -> pd.Series:
    """A text result column as a :data:`TEXT_DTYPE` Series.

    ``values``: an object array of str and None, an :class:`api.Coded` of
    them, or None where every row is empty (no row has an error). Built
    straight from Arrow when pandas stores strings in Arrow (pandas >= 3 with
    pyarrow), a coded column by one ``take`` from its distinct values:
    pandas' own conversion checks every element again and costs ten times
    more at a million rows.
    """
    if TEXT_DTYPE.storage == "pyarrow" and int(pd.__version__.split(".")[0]) >= 3:
        import pyarrow as pa

        if values is None:
            arr = pa.nulls(len(index), pa.large_string())
        elif isinstance(values, api.Coded):
            arr = pa.array(list(values.values), type=pa.large_string()).take(
                pa.array(values.codes))
        else:
            arr = pa.array(values, type=pa.large_string(), from_pandas=True)
        return pd.Series(pd.arrays.ArrowStringArray(arr), index=index, copy=False)
    values = np.full(len(index), None, dtype=object) if values is None else api.plain(values)
    return pd.Series(values, index=index, dtype=TEXT_DTYPE, copy=False)


def _materialise(values: list, codes: np.ndarray):
    """One str where every row has the same value, else an array the api will not re-hash
    (a :class:`rooflinexl.api.Coded` where all values are str)."""
    if codes.size and codes.min() == codes.max():
        return values[int(codes[0])]
    if not codes.size:
        return np.empty(0, dtype=object)
    coded = api.Coded(codes, tuple(values))
    return coded if coded.all_str() else coded.array


# ------------------------------------------------------------------- the ops
def _matmul(g: _Group):
    chip = g.kw("chip")
    dt = g.kw("dtype", api.matmul_time)
    wdt = g.kw("weight_dtype", fallback=dt)
    B, D, F = g.num("B"), g.num("D"), g.num("F")
    n, shard = g.num("n_chips", api.matmul_time), g.kw("shard", api.matmul_time)
    ck = g.checks()
    _, v, flops = api.matmul_parts(Run(ck), chip, B, D, F, dt, wdt, n, shard, "bound",
                                    g.t.table)
    with np.errstate(all="ignore"):
        per_s = np.divide(flops, v["time"])
    g.put(ck, t_math=v["math"], t_hbm=v["hbm"], t_comms=v["comms"], time=v["time"],
          upper=v["upper"], bound=v["bound"], intensity=v["intensity"], flops_per_s=per_s)
    tier = g.kw("tier", api.crit_batch)
    ck = g.checks()
    cb = api.crit_batch(chip, D, F, dt, wdt, tier, chips=g.t.table, checks=ck)
    g.put(ck, "crit_batch: ", crit_batch=cb)


def _crit(g: _Group):
    chip = g.kw("chip")
    dt = g.kw("dtype", api.crit_batch)
    tier = g.kw("tier", api.crit_batch)
    ck = g.checks()
    g.put(ck, crit_intensity=api.crit_intensity(chip, tier, dt, chips=g.t.table, checks=ck))
    D, F = g.num("D", api.crit_batch), g.num("F", api.crit_batch)
    wdt = g.kw("weight_dtype", fallback=dt)
    ck = g.checks()
    cb = api.crit_batch(chip, D, F, dt, wdt, tier, chips=g.t.table, checks=ck)
    g.put(ck, "crit_batch: ", crit_batch=cb)


def _moe(g: _Group):
    chip, fn = g.kw("chip"), api.moe_min_batch
    dt = g.kw("dtype", fn)
    E, k = g.num("E"), g.num("k")
    wdt, tier = g.kw("weight_dtype", fallback=dt), g.kw("tier", fn)
    ck = g.checks()
    g.put(ck, moe_min_batch=fn(chip, E, k, dt, wdt, tier, chips=g.t.table, checks=ck))


def _net(g: _Group):
    chip, fn = g.kw("chip"), api.net_critical_d
    n, dt, tier = g.num("n_chips", fn), g.kw("dtype", fn), g.kw("tier", fn)
    ck = g.checks()
    g.put(ck, net_critical_d=fn(chip, n, dt, tier, chips=g.t.table, checks=ck))


def _roofline(g: _Group):
    chip, fn = g.kw("chip"), api.roofline_time
    flops, nbytes = g.num("flops"), g.num("bytes")
    tier, dt = g.kw("tier", fn), g.kw("dtype", fn)
    ck = g.checks()
    _, v, tier = api.roofline_parts(Run(ck), chip, flops, nbytes, tier, dt, "bound",
                                     g.t.table)
    memory = np.asarray(api.plain(api.map_keyword(tier, TIER_BOUND)), dtype=object) == "memory"
    with np.errstate(all="ignore"):
        per_s = np.divide(flops, v["time"])
    g.put(ck, t_math=v["math"], t_hbm=np.where(memory, v["hbm"], np.nan),
          t_comms=np.where(memory, np.nan, v["comms"]), time=v["time"], upper=v["upper"],
          bound=v["bound"], flops_per_s=per_s)
    ck = g.checks()
    g.put(ck, "intensity: ", intensity=api.arith_intensity(flops, nbytes, checks=ck))


def _collective(g: _Group):
    chip, fn = g.kw("chip"), api.collective_time
    kind = g.kw("kind", required="allreduce")
    nbytes, n, tier = g.num("bytes"), g.num("n_chips", fn), g.kw("tier", fn)
    ck = g.checks()
    t = fn(chip, kind, nbytes, n, tier, chips=g.t.table, checks=ck)
    g.put(ck, t_comms=t, time=t)


def _weight_load(g: _Group):
    chip, fn = g.kw("chip"), api.weight_load_time
    p, dt, n = g.num("n_params"), g.kw("dtype", fn), g.num("n_chips", fn)
    ck = g.checks()
    t = fn(chip, p, dt, n, chips=g.t.table, checks=ck)
    g.put(ck, t_hbm=t, time=t)


def _kv_cache(g: _Group):
    fn = api.kv_cache_bytes
    args = [g.num(a) for a in ("layers", "kv_heads", "head_dim", "tokens")]
    args += [g.num("batch", fn), g.kw("dtype", fn)]
    ck = g.checks()
    g.put(ck, kv_cache_bytes=fn(*args, checks=ck))


def _cost(g: _Group):
    chip, fn = g.kw("chip"), api.cost_per_flop
    mfu, dt = g.num("mfu", fn), g.kw("dtype", fn)
    ck = g.checks()
    usd = fn(chip, dt, mfu, chips=g.t.table, checks=ck)
    g.put(ck, usd_per_1e18_flop=np.multiply(usd, 1e18))


def _attention(g: _Group):
    T, S, G = g.num("T"), g.num("S"), g.num("G")
    ck = g.checks()
    g.put(ck, intensity=api.attn_intensity(T, S, G, checks=ck))


def _model_step(g: _Group, parts, fn, tokens_arg: str):
    chip, model_name = g.kw("chip"), g.kw("model")
    dt = g.kw("dtype", fn)
    wdt = g.kw("weight_dtype", fallback=dt)
    kdt = g.kw("kv_dtype", fallback=dt)
    tokens, batch, n = g.num(tokens_arg), g.num("batch", fn), g.num("n_chips", fn)
    mbu, mfu = g.num("mbu", fn), g.num("mfu", fn)
    ck = g.checks()
    _, v = parts(Run(ck), chip, model_name, tokens, batch, n, dt, wdt, kdt, mbu, mfu, "bound",
                 g.t.table, g.t.models)
    with np.errstate(all="ignore"):
        per_s = np.divide(v["flops"], v["time"])
        made = batch if tokens_arg == "context" else np.multiply(batch, tokens)
        tok_s = np.divide(made, v["time"])
    g.put(ck, t_math=v["math"], t_hbm=v["hbm"], t_comms=v["comms"], time=v["time"],
          upper=v["upper"], bound=v["bound"], intensity=np.divide(v["flops"], v["bytes"]),
          flops_per_s=per_s, tokens_per_s=tok_s)


def _decode(g: _Group):
    _model_step(g, api.decode_parts, api.decode_time, "context")


def _prefill(g: _Group):
    _model_step(g, api.prefill_parts, api.prefill_time, "prompt")


def _train(g: _Group):
    fn = api.train_time
    chip, model_name = g.kw("chip"), g.kw("model")
    tokens, n = g.num("tokens"), g.num("n_chips")
    mfu, dt, seq = g.num("mfu", fn), g.kw("dtype", fn), g.num("seq_len", fn)
    ck = g.checks()
    t = fn(chip, model_name, tokens, n, mfu, dt, seq, chips=g.t.table, models=g.t.models,
           checks=ck)
    g.put(ck, t_math=t, time=t, bound=np.where(np.isfinite(t), "compute", None))


def _inputs(*fns, skip=()) -> str:
    """The columns an op computing ``fns`` reads, from their one description
    (:func:`rooflinexl.api_args.arguments`): ``"required, ...; optional, ..."``, each in
    order of first appearance; an argument is required where any of ``fns`` requires it.
    Tables (the op's ``chips=``/``models=``) and ``result`` (an op fills every result
    column) are no columns, nor is what ``skip`` names.
    """
    required: dict[str, bool] = {}
    for fn in fns:
        for a in api_args.arguments(fn):
            if a.kind != api_args.TABLE and a.name not in ("result", *skip):
                required[a.name] = required.get(a.name, False) or not a.optional
    return "; ".join(", ".join(n for n, r in required.items() if r is want)
                     for want in (True, False) if want in required.values())


#: the values of the ``op`` column (aliases: the catalogue's function names)
OPS: dict[str, Op] = {op.name: op for op in (
    Op("matmul", ("matmul_time",), _inputs(api.matmul_time, api.crit_batch),
       ("t_math", "t_hbm", "t_comms", "time", "upper", "bound", "intensity", "flops_per_s",
        "crit_batch"), _matmul),
    Op("crit", ("crit_batch", "crit_intensity"), _inputs(api.crit_batch, api.crit_intensity),
       ("crit_intensity", "crit_batch"), _crit),
    Op("moe", ("moe_min_batch",), _inputs(api.moe_min_batch),
       ("moe_min_batch",), _moe),
    Op("net", ("net_critical_d",), _inputs(api.net_critical_d), ("net_critical_d",), _net),
    Op("roofline", ("roofline_time",), _inputs(api.roofline_time, api.arith_intensity),
       ("t_math", "t_hbm", "t_comms", "time", "upper", "bound", "intensity", "flops_per_s"),
       _roofline),
    Op("collective", ("collective_time",), _inputs(api.collective_time),
       ("t_comms", "time"), _collective),
    Op("weight_load", ("weight_load_time",), _inputs(api.weight_load_time),
       ("t_hbm", "time"), _weight_load),
    Op("kv_cache", ("kv_cache_bytes",), _inputs(api.kv_cache_bytes),
       ("kv_cache_bytes",), _kv_cache),
    Op("cost", ("cost_per_flop",), _inputs(api.cost_per_flop, skip=("price",)),
       ("usd_per_1e18_flop",), _cost),
    Op("attention", ("attn_intensity",), _inputs(api.attn_intensity), ("intensity",),
       _attention),
    Op("decode", ("decode_time",), _inputs(api.decode_time),
       ("t_math", "t_hbm", "t_comms", "time", "upper", "bound", "intensity", "flops_per_s",
        "tokens_per_s"), _decode),
    Op("prefill", ("prefill_time",), _inputs(api.prefill_time),
       ("t_math", "t_hbm", "t_comms", "time", "upper", "bound", "intensity", "flops_per_s",
        "tokens_per_s"), _prefill),
    Op("train", ("train_time",), _inputs(api.train_time),
       ("t_math", "time", "bound"), _train),
)}
#: recognised argument columns (``op`` and what the ops read): canonical name by lookup key
ARGUMENTS = {a.casefold(): a for a in (
    "op", *(a.strip() for op in OPS.values() for a in op.inputs.replace(";", ",").split(",")))}
_resolve_op = Keyword("op", {normalize_keyword(k): op.name for op in OPS.values()
                            for k in (op.name, *op.aliases)}, error=BatchInputError)


def _output_columns(ops) -> list[str]:
    wanted = {c for op in ops for c in OPS[op].outputs}
    return [c for c in OUTPUTS if c in wanted or c == "error"]


def _infer_ok(names) -> bool:
    return all(a in names for a in ("B", "D", "F"))


# ------------------------------------------------------------ unknown columns
def _reads(op: str) -> list[str]:
    """The argument names an op reads, in its documented order."""
    return [a.strip() for a in OPS[op].inputs.replace(";", ",").split(",") if a.strip()]


def check_columns(columns, ops, passthrough=()) -> None:
    """Refuse a column that is no argument of ``ops`` and not declared as a pass-through.

    Parameters
    ----------
    columns : iterable of str
        The scenario table's column names (or a sweep's parameter names).
    ops : iterable of str
        The ops the table computes (:data:`OPS` names).
    passthrough : iterable of str or True
        Columns to carry through untouched (matched like arguments: any case,
        spaces and hyphens as ``_``); ``True`` lets every other column through.
        The result columns (:data:`OUTPUTS`, replaced) and the label columns
        (:data:`LABEL_COLUMNS`) always pass.

    Raises
    ------
    BatchInputError
        Naming every unknown column, the nearest argument of the ops for each
        (``n_chip``: did you mean ``n_chips``?), the ops' arguments, and how
        to declare a pass-through column. A misspelt argument would otherwise
        be ignored and every row computed with the default (1 chip, bf16).

    Examples
    --------
    >>> try:
    ...     check_columns(["chip", "B", "D", "F", "n_chip"], ["matmul"])
    ... except BatchInputError as exc:
    ...     print(str(exc).split(":")[0])
    unknown column 'n_chip' (did you mean 'n_chips'?)
    """
    if passthrough is True:
        return
    ops = list(ops)
    reads = list(dict.fromkeys(a for op in ops for a in _reads(op)))
    allowed = {column_key(a) for a in (*reads, "op", *OUTPUTS, *LABEL_COLUMNS)}
    allowed |= {column_key(c) for c in (passthrough or ())}
    problems = []
    for col in columns:
        key = column_key(col)
        if key in allowed:
            continue
        arg = ARGUMENTS.get(key)
        if arg is not None:
            users = [o for o in OPS if arg in _reads(o)]
            problems.append(f"column {str(col)!r} is an argument of {', '.join(users)}, "
                            f"not of {', '.join(ops) or 'the ops in the table'}")
            continue
        near = difflib.get_close_matches(key, [column_key(a) for a in reads] or list(ARGUMENTS),
                                         n=1, cutoff=0.6)
        hint = ""
        if near:
            hint = f" (did you mean {(ARGUMENTS.get(near[0]) or near[0])!r}?)"
        problems.append(f"unknown column {str(col)!r}{hint}")
    if problems:
        what = "; ".join(f"{op} reads {', '.join(_reads(op))}" for op in ops)
        raise BatchInputError(f"{'; '.join(problems)}: {what}; declare other columns as "
                              "pass-through (--pass-through NAME; Python: passthrough=[...])")


# -------------------------------------------------------------------- evaluate
def _evaluate_frame(frame: pd.DataFrame, table: ChipTable, ops,
                    models: ModelTable | None = None, passthrough=()) -> pd.DataFrame:
    t = _Table(frame, table, models)
    n = len(frame)
    inferable = _infer_ok(t.names)
    if "op" not in t.names and not inferable:
        raise BatchInputError(
            "no op column, and no B, D and F columns to infer op 'matmul': add an op column "
            f"({', '.join(OPS)}); recognised columns: {', '.join(ARGUMENTS.values())}")
    opcol = t.keywords("op") if "op" in t.names else None
    if opcol is None:
        op_codes, op_names, op_bad = np.zeros(n, np.intp), ["matmul"], [None]
    else:
        op_codes, op_names, op_bad = opcol.codes, [], []
        for canon in opcol.canon:
            if canon is None:
                name, why = ("matmul", None) if inferable else (None, "op is blank: one of "
                                                                + ", ".join(OPS))
            else:
                try:
                    name, why = _resolve_op(canon), None
                except BatchInputError as exc:
                    name, why = None, str(exc)
            op_names.append(name)
            op_bad.append(why)
    seen = np.bincount(op_codes, minlength=len(op_names)) > 0
    present = sorted({name for name, s in zip(op_names, seen, strict=True) if s} - {None},
                     key=list(OPS).index) if opcol is not None else ["matmul"]
    ops = present if ops is None else list(ops)
    missing = set(present) - set(ops)
    if missing:
        raise BatchInputError(f"ops {sorted(missing)} appear in the table but not in ops={ops}")
    check_columns(frame.columns, ops, passthrough)
    columns = _output_columns(ops)
    out: dict[str, np.ndarray] = {}  # result columns, made by the groups that fill them
    bad_op = np.array([w is not None for w in op_bad], dtype=bool)[op_codes]
    if bad_op.any():
        why = np.array(op_bad, dtype=object)[op_codes[bad_op]]
        _column(out, "error", n)[bad_op] = "#VALUE!: " + why
    by_op: dict[str, list[int]] = {}
    for j, name in enumerate(op_names):
        if name is not None and seen[j]:
            by_op.setdefault(name, []).append(j)
    for name, codes in by_op.items():
        if len(by_op) == 1 and not bad_op.any():
            rows = None
        else:
            rows = np.flatnonzero(np.isin(op_codes, codes))
            if not rows.size:
                continue
        OPS[name].run(_Group(t, rows, out, OPS[name]))
    result = frame.drop(columns=[c for c in frame.columns if c in columns])
    new = pd.DataFrame({c: _text_column(out.get(c), frame.index) if c in _TEXT_OUTPUTS
                        else pd.Series(_column(out, c, n), index=frame.index, copy=False)
                        for c in columns}, index=frame.index, copy=False)
    return pd.concat([result, new], axis=1)


def _ops_of_column(values, inferable: bool) -> list[str]:
    """Valid ops among the distinct values of an op column (blank: matmul if inferable)."""
    found = set()
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)) or (
                isinstance(v, str) and not v.strip()):
            if inferable:
                found.add("matmul")
            continue
        try:
            found.add(_resolve_op(str(v)))
        except BatchInputError:
            pass
    return [op for op in OPS if op in found]


def _ops_present(frame) -> list[str]:
    names = {ARGUMENTS.get(column_key(c)): c for c in frame.columns}
    if "op" not in names:
        return ["matmul"]
    col = frame[names["op"]]
    if _is_dask(col):  # distinct values per partition, then of their union: no shuffle
        col = col.map_partitions(lambda s: s.drop_duplicates(), meta=col._meta).compute()
    return _ops_of_column(col.drop_duplicates().tolist(), _infer_ok(names))


def _is_dask(obj) -> bool:
    return type(obj).__module__.split(".")[0] in ("dask", "dask_expr")


def evaluate(scenarios, chips=None, *, models=None, ops=None, chunk_rows: int | None = None,
             progress: bool = False, passthrough=()):
    """Evaluate a table of scenarios: the input with result columns appended.

    Parameters
    ----------
    scenarios : pandas.DataFrame, dask.dataframe.DataFrame, or a mapping of columns
        One row per scenario; columns named as the catalogue's arguments
        (case-insensitive). See the module doc.
    chips : ChipTable, path, DataFrame or 2-D list, optional
        Chip table; default the packaged one.
    models : ModelTable, path, DataFrame or 2-D list, optional
        Model table of the ``decode``, ``prefill`` and ``train`` rows; default
        the packaged one.
    ops : iterable of str, optional
        Result columns to produce: those of these ops (:data:`OPS`). Default:
        the ops present in the table. Give it to get the same columns from
        tables of different content (chunks, partitions).
    chunk_rows : int, optional
        Evaluate this many rows at a time (same result; bounds the temporaries).
    progress : bool
        Show a tqdm progress bar over the rows (on stderr; with ``chunk_rows``).
    passthrough : iterable of str or True
        Columns that are no argument but are carried through untouched
        (``True``: every such column). See :func:`check_columns`.

    Returns
    -------
    DataFrame
        The input's columns and index, in the input's order, then the result
        columns: ``t_math``, ``t_hbm``, ``t_comms``, ``time``, ``upper`` (s),
        ``bound`` (compute/memory/network), ``intensity`` (FLOP/byte),
        ``flops_per_s`` (achieved per chip), ``crit_intensity``, ``crit_batch``,
        ``moe_min_batch``, ``net_critical_d``, ``kv_cache_bytes``,
        ``usd_per_1e18_flop`` (those of the ops present), and ``error``.
        A dask input gives a dask DataFrame (lazy; call ``.compute()``).

    Raises
    ------
    BatchInputError
        Two columns for one argument, neither an op column nor B, D, F, or a
        column that is no argument of the table's ops and not declared in
        ``passthrough`` (a misspelt ``n_chip`` names ``n_chips``).

    Notes
    -----
    Beyond one machine: a dask DataFrame is evaluated partition by partition
    with ``map_partitions`` through exactly this function, so a result is the
    same as the pandas one. Use it when the scenarios do not fit in memory
    (one pandas evaluation peaks at about 210 bytes per matmul row on top of
    the input, so from about a hundred million rows on a laptop) or already live in a parquet
    dataset or a dask cluster; below that pandas is faster, since one process
    evaluates a million matmul rows in well under a second. The ops present
    are found first with one pass over the op column (pass ``ops=`` to skip it).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"chip": ["H100", "B900"], "B": [256, 256], "D": 8192, "F": 8192})
    >>> out = evaluate(df)
    >>> out.loc[0, "bound"], round(float(out.loc[0, "crit_batch"]), 2)
    ('memory', 318.16)
    >>> out.loc[1, "error"].split(" (")[0]
    "#N/A: unknown chip 'B900'"
    """
    table = load_chips(chips)
    mtable = load_models(models)
    if _is_dask(scenarios):
        ops = _ops_present(scenarios) if ops is None else list(ops)
        meta = _evaluate_frame(scenarios._meta, table, ops, mtable, passthrough)
        return scenarios.map_partitions(_evaluate_frame, table, ops, mtable, passthrough, meta=meta)
    if not isinstance(scenarios, pd.DataFrame):
        scenarios = pd.DataFrame(scenarios)
    n = len(scenarios)
    step = min(chunk_rows or n, n)
    if not n or (step == n and not progress):
        return _evaluate_frame(scenarios, table, ops, mtable, passthrough)
    if step < n and ops is None:  # every chunk gets the same result columns
        ops = _ops_present(scenarios)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=n, unit="row", unit_scale=True, desc="scenarios")
    parts = []
    for s in range(0, n, step):
        parts.append(_evaluate_frame(scenarios.iloc[s:s + step], table, ops, mtable, passthrough))
        if bar is not None:
            bar.update(len(parts[-1]))
    if bar is not None:
        bar.close()
    return pd.concat(parts, axis=0)


def sweep(chips=None, *, models=None, **lists):
    """Evaluate the cartesian product of parameter lists (first argument varies slowest).

    Parameters
    ----------
    chips : table, optional
        Chip table; default the packaged one.
    **lists
        Argument name -> a value or a list of values, e.g. ``chip=["H100",
        "TPU v5e"], B=[64, 256, 1024], D=8192, F=8192`` (``op`` may be swept too).

    Returns
    -------
    DataFrame
        One row per combination, as :func:`evaluate` returns.

    Raises
    ------
    BatchInputError
        A name that is no argument of the swept ops (``n_chip=8``: did you
        mean ``n_chips``?), before anything is computed.

    Examples
    --------
    >>> out = sweep(chip=["H100", "TPU v5e"], B=[128, 512], D=8192, F=8192)
    >>> out[["chip", "B", "bound"]].values.tolist()  # doctest: +NORMALIZE_WHITESPACE
    [['H100', 128, 'memory'], ['H100', 512, 'compute'],
     ['TPU v5e', 128, 'memory'], ['TPU v5e', 512, 'compute']]
    """
    return evaluate(product_frame(**lists), chips, models=models)


def product_frame(**lists) -> pd.DataFrame:
    """The cartesian product of value lists as a DataFrame (first argument varies slowest)."""
    cols = {}
    values = []
    for name, v in lists.items():
        if isinstance(v, (str, bytes)) or not hasattr(v, "__len__"):
            v = [v]
        v = list(v)
        arr = np.asarray(v)
        if arr.dtype.kind in "OUS" or arr.ndim != 1:  # text or mixed: keep the values as given
            arr = np.empty(len(v), dtype=object)
            arr[:] = v
        values.append((name, arr))
    sizes = [len(a) for _, a in values]
    total = math.prod(sizes)
    for i, (name, arr) in enumerate(values):
        inner = math.prod(sizes[i + 1:])
        outer = math.prod(sizes[:i])
        idx = np.tile(np.repeat(np.arange(len(arr)), inner), outer)
        cols[name] = arr[idx] if total else arr[:0]
    return pd.DataFrame(cols)


def parse_values(text: str) -> list:
    """Values of one sweep parameter on the command line.

    Comma-separated items; an item ``START:STOP:*FACTOR`` is a geometric
    range and ``START:STOP:STEP`` an arithmetic one (both include STOP when
    they reach it). Numbers become int or float, anything else stays text.

    Examples
    --------
    >>> parse_values("H100, TPU v5e")
    ['H100', 'TPU v5e']
    >>> parse_values("1:64:*4,100")
    [1, 4, 16, 64, 100]
    >>> parse_values("0.5:1.5:0.5")
    [0.5, 1.0, 1.5]
    """
    out: list = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        parts = item.split(":")
        if len(parts) == 3 and all(parts):
            start, stop = _number(parts[0]), _number(parts[1])
            geometric = parts[2].startswith("*")
            step = _number(parts[2][1:] if geometric else parts[2])
            if not all(isinstance(x, (int, float)) for x in (start, stop, step)) or (
                    geometric and (start <= 0 or step <= 1)) or (not geometric and step <= 0):
                raise BatchInputError(f"bad range {item!r}: START:STOP:STEP with STEP > 0, or "
                                      "START:STOP:*FACTOR with START > 0 and FACTOR > 1")
            x, k = start, 0
            while x <= stop * (1 + 1e-12):
                out.append(x)
                k += 1
                x = start * step ** k if geometric else start + k * step
                if isinstance(start, int) and isinstance(step, int):
                    x = int(x)
                elif not geometric:
                    x = round(x, 12)
            continue
        out.append(_number(item))
    return out


def _number(text: str):
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def read_table(path, sheet=None) -> pd.DataFrame:
    """Scenario table from a CSV, xlsx (first sheet unless ``sheet``) or parquet file."""
    suffix = str(path).lower().rsplit(".", 1)[-1]
    if suffix == "csv":
        return pd.read_csv(path)
    if suffix in ("xlsx", "xlsm"):
        return pd.read_excel(path, sheet_name=0 if sheet is None else sheet, engine="openpyxl")
    if suffix in ("parquet", "pq"):
        return pd.read_parquet(path)
    raise BatchInputError(f"{path}: give a .csv, .xlsx or .parquet file")


#: rows an xlsx sheet holds, header included
XLSX_MAX_ROWS = 1_048_576


#: leading characters that make a spreadsheet read a CSV cell as a formula (OWASP,
#: "CSV Injection"): = + - @, tab and carriage return
CSV_FORMULA_CHARS = ("=", "+", "-", "@", "\t", "\r")
#: RFC 4180 line end: with it the csv module quotes every field that holds a CR or LF (with
#: a bare "\n" a CR inside a text cell would be written unquoted and start a new row)
CSV_LINE_END = "\r\n"
_XL_UNSAFE = re.compile("_(?=x[0-9A-Fa-f]{4}_)|[\x00-\x08\x0b-\x0d\x0e-\x1f]")


def neutralise_csv(frame: pd.DataFrame) -> pd.DataFrame:
    """The table with every text cell and header that starts with = + - @ tab or CR
    prefixed with ``'`` (OWASP's advice against CSV injection).

    Numbers stay numbers (``-5.0`` is written as is); only text is touched, and
    a spreadsheet shows the text after the quote.

    Examples
    --------
    >>> neutralise_csv(pd.DataFrame({"chip": ["=1+1", "H100", "-x"], "B": [-1.0, 2, 3]})
    ...                ).values.tolist()
    [["'=1+1", -1.0], ['H100', 2.0], ["'-x", 3.0]]
    """
    def guard(v):
        return "'" + v if isinstance(v, str) and v.startswith(CSV_FORMULA_CHARS) else v

    out = frame.copy(deep=False)
    for col in frame.columns:
        series = frame[col]
        if series.dtype != object and not pd.api.types.is_string_dtype(series.dtype):
            continue
        try:
            first = series.str[:1]
        except AttributeError:  # no text in this column
            continue
        mask = first.isin(CSV_FORMULA_CHARS).to_numpy(dtype=bool, na_value=False)
        if mask.any():
            series = series.copy()
            series[mask] = "'" + series[mask]
            out[col] = series
    out.columns = [guard(c) for c in frame.columns]
    return out


def _xlsx_text(value: str) -> str:
    """Text an xlsx cell can hold: control characters and CR (which an XML reader turns
    into LF), and a literal ``_xHHHH_``, as Excel's ``_xHHHH_`` escapes, which Excel turns
    back into the characters."""
    return _XL_UNSAFE.sub(lambda m: "_x005F_" if m.group() == "_" else f"_x{ord(m.group()):04X}_",
                          value)


def _write_xlsx(frame: pd.DataFrame, fh) -> None:
    """One sheet: a header row, then the rows; text always as text, never a formula."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("results")

    def text(v: str):
        cell = WriteOnlyCell(ws, value=None)
        cell._value = _xlsx_text(v) if _XL_UNSAFE.search(v) else v
        cell.data_type = "s"  # an inline string: '=HYPERLINK(...)' stays text
        return cell

    try:
        ws.append([text(str(c)) for c in frame.columns])
        kinds = [frame[c].dtype.kind for c in frame.columns]
        for row in frame.itertuples(index=False, name=None):
            out = []
            for v, kind in zip(row, kinds, strict=True):
                if isinstance(v, str):
                    out.append(text(v))
                elif v is None or (kind in "fcO" and isinstance(v, float) and v != v):
                    out.append(None)  # NaN: an empty cell
                elif kind == "O" and not isinstance(v, (bool, int, float, np.number)):
                    out.append(None if pd.isna(v) else text(str(v)))
                else:
                    out.append(v)
            ws.append(out)
        wb.save(fh)
    except BaseException:
        # openpyxl streams the rows through a temporary file of its own: close and remove
        # it now (else a failed write also prints a second error when Python exits)
        writer = getattr(ws, "_writer", None)
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.xf.close()
            with contextlib.suppress(Exception):
                writer.cleanup()
        raise


def write_table(frame: pd.DataFrame, path, *, formula_guard: bool = True, like=None) -> None:
    """Write a result table as CSV, xlsx or parquet by suffix (``-``: CSV on stdout).

    Parameters
    ----------
    frame : DataFrame
        The table.
    path : str or os.PathLike
        ``.csv``, ``.xlsx``/``.xlsm`` or ``.parquet``/``.pq``; ``-`` for CSV
        on stdout. Written atomically (:func:`rooflinexl.ooxml.atomic_write`):
        a failure (full disk, permission) leaves the previous file as it was.
    formula_guard : bool
        CSV only: prefix text cells starting with = + - @ tab or CR with
        ``'`` (:func:`neutralise_csv`), so that a spreadsheet opening the file
        runs no formula from the data. ``False`` writes them unchanged.
    like : str or os.PathLike, optional
        The input table: a new output file gets its permission bits (a
        private input never yields a readable result).

    Raises
    ------
    BatchInputError
        An unknown suffix, or too many rows for an xlsx sheet.
    rooflinexl.errors.WriteError
        The file could not be written (one line: the path and the reason).

    Notes
    -----
    Empty result cells are empty in CSV and xlsx, null in parquet. In xlsx
    every text cell is an inline string, never a formula, whatever it starts
    with. A text column that mixes numbers and text (a bad ``B`` cell) is
    written as text to parquet, which wants one type per column.
    """
    suffix = str(path).lower().rsplit(".", 1)[-1]
    if str(path) == "-":
        import sys

        (neutralise_csv(frame) if formula_guard else frame).to_csv(
            sys.stdout, index=False, lineterminator=CSV_LINE_END)
    elif suffix == "csv":
        data = neutralise_csv(frame) if formula_guard else frame

        def write(fh):
            text = io.TextIOWrapper(fh, encoding="utf-8", newline="")
            data.to_csv(text, index=False, lineterminator=CSV_LINE_END)
            text.flush()
            text.detach()

        atomic_write(path, write, like=like)
    elif suffix in ("xlsx", "xlsm"):
        if len(frame) + 1 > XLSX_MAX_ROWS:
            raise BatchInputError(f"{len(frame):,} rows do not fit in an xlsx sheet "
                                  f"({XLSX_MAX_ROWS - 1:,} at most): write .csv or .parquet")
        atomic_write(path, lambda fh: _write_xlsx(frame, fh), like=like)
    elif suffix in ("parquet", "pq"):
        frame = frame.copy(deep=False)
        for col in frame.columns:
            if frame[col].dtype == object and pd.api.types.infer_dtype(
                    frame[col], skipna=True) not in ("string", "empty"):
                text = frame[col].astype(str).astype(object)
                frame[col] = text.where(frame[col].notna(), None)
        atomic_write(path, lambda fh: frame.to_parquet(fh, index=False), like=like)
    else:
        raise BatchInputError(f"{path}: write .csv, .xlsx or .parquet")
