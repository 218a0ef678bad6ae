"""Chip-aware Python API: resolve chips and keywords in a ChipTable, call the model.

Each function is the Excel function's name in lower case, with the chip first
and the table as the keyword ``chips`` (default: the packaged table). Every
argument broadcasts like numpy (and like Excel over ranges): an array of chip
names gives one result per chip, an array of dtypes one per dtype.

Errors raise precise exceptions (:mod:`rooflinexl.errors`): an unknown chip
:class:`UnknownChipError`, a blank field the formula needs
:class:`MissingSpecError` ("TPU v5e has no fp4_flops"), a value outside the
domain :class:`DomainError`, an unknown keyword :class:`KeywordError`. Passing
``checks=`` (a :class:`rooflinexl.model.Checks`) collects per-element errors
instead of raising them; the Excel adapters use it.

The vectorised core that :mod:`rooflinexl.batch` shares with these functions is
public too: :class:`Coded` arrays, :func:`plain`, :func:`lookup_keyword`,
:func:`codes_of`, :func:`map_keyword`, and the ``*_parts`` functions
(:func:`matmul_parts`, :func:`roofline_parts`, :func:`decode_parts`,
:func:`prefill_parts`) that return a function's terms before its ``result``
keyword picks one.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from rooflinexl import model
from rooflinexl.chips import ChipTable, load_chips
from rooflinexl.dtypes import (
    DTYPES,
    SCALEUP_TIERS,
    TIER_BOUND,
    TIER_LATENCY,
    TIERS,
    Keyword,
    normalize_keyword,
    resolve_dtype,
    resolve_tier,
)
from rooflinexl.errors import KeywordError, MissingSpecError, UnknownChipError, UnknownModelError
from rooflinexl.model import Checks, Run
from rooflinexl.models import ModelTable, load_models
from rooflinexl.prices import PRICING, load_prices, lookup
from rooflinexl.tables import factorize
from rooflinexl.units import parse_header

__all__ = [
    "Chip", "Coded", "arith_intensity", "crit_intensity", "crit_batch", "matmul_time",
    "moe_min_batch", "COLLECTIVE_NAMES",
    "net_critical_d", "roofline_flops", "roofline_time", "attn_intensity", "collective_time",
    "weight_load_time", "kv_cache_bytes", "cost_per_flop", "chip_price", "chip_spec",
    "MATMUL_RESULTS", "ROOFLINE_RESULTS", "SHARDS", "COLLECTIVES", "PRICE_RESULTS",
    "model_spec", "decode_time", "prefill_time", "train_time", "max_batch", "MODEL_RESULTS",
    "MODEL_DERIVED",
]

#: ``result`` keyword values of MATMUL_TIME
MATMUL_RESULTS = ("time", "upper", "math", "hbm", "comms", "bound", "intensity")
#: ``result`` keyword values of ROOFLINE_TIME (``hbm`` and ``comms`` both mean bytes / bandwidth)
ROOFLINE_RESULTS = MATMUL_RESULTS
SHARDS = {"none": "none", "d": "D", "f": "F"}
COLLECTIVES = {"allgather": "allgather", "reducescatter": "reducescatter",
               "allreduce": "allreduce", "alltoall": "alltoall"}
#: how the ``kind`` keyword values are written in messages and docs
COLLECTIVE_NAMES = ("AllGather", "ReduceScatter", "AllReduce", "AllToAll")


class Chip:
    """One row of a ChipTable, usable wherever a chip name is: ``Chip("H100")``.

    Examples
    --------
    >>> Chip("h100-sxm").name
    'H100'
    """

    def __init__(self, name: str, chips=None):
        self.table = load_chips(chips)
        row = self.table.row_of(name)
        if row is None:
            raise UnknownChipError(self.table.unknown_message(name))
        self.row = row
        self.name = self.table.names[row]

    def __getitem__(self, field):
        return self.table.field(self.name, field)

    def __repr__(self):
        return f"Chip({self.name!r})"


# --------------------------------------------------------------------- helpers
@dataclass(frozen=True, eq=False)
class Coded:
    """An array given as integer codes into its distinct values (like pandas.Categorical).

    ``np.asarray(values, dtype=object)[codes]`` is the array. Accepted wherever
    a chip name array or a keyword array is; keyword and chip arrays built
    from codes (here, and by :mod:`rooflinexl.batch`) are then never hashed
    again: each lookup works on the distinct values and reuses the codes.

    Examples
    --------
    >>> c = Coded(np.array([0, 1, 0]), ("H100", "TPU v5e"))
    >>> c.array.tolist()
    ['H100', 'TPU v5e', 'H100']
    >>> [round(x) for x in crit_intensity(c)]
    [295, 240, 295]
    """

    codes: np.ndarray
    values: tuple

    @functools.cached_property
    def array(self) -> np.ndarray:
        """The object array ``values[codes]`` (built once)."""
        vals = np.empty(len(self.values), dtype=object)
        for j, v in enumerate(self.values):
            vals[j] = v
        return vals[self.codes.reshape(-1)].reshape(np.shape(self.codes))

    def __array__(self, dtype=None, copy=None):
        if dtype is None or np.dtype(dtype) == object:
            return self.array
        return self.array.astype(dtype)

    def all_str(self) -> bool:
        return all(isinstance(v, str) for v in self.values)


def plain(value):
    """``value`` itself, or the object array of a :class:`Coded`."""
    return value.array if isinstance(value, Coded) else value


def _keyword(value, resolve, default):
    """Canonical keyword(s): a str for a scalar, else an object array or a :class:`Coded`."""
    if value is None:
        return default
    if isinstance(value, Coded):  # resolve each distinct value once
        try:
            canon = tuple(resolve(v) for v in value.values) if value.all_str() else None
        except Exception:  # an invalid (maybe unused) value: the array's own path decides
            canon = None
        if canon is not None and np.ndim(value.codes):
            # already canonical: a keyword array built here or by batch
            return value if canon == value.values else Coded(value.codes, canon)
        value = value.array
    arr = np.asarray(value, dtype=object)
    if arr.ndim == 0:
        v = arr.item()
        return default if v is None and default is not None else resolve(v)
    fast = factorize(value if isinstance(value, np.ndarray) and value.dtype.kind == "U" else arr)
    if fast is not None:  # large all-str array: resolve each distinct value once
        codes, uniq = fast
        return Coded(codes, tuple(resolve(v) for v in uniq))
    cache: dict = {}
    out = np.empty(arr.shape, dtype=object)
    flat = out.ravel()
    for i, v in enumerate(arr.ravel().tolist()):
        key = v if isinstance(v, (str, type(None))) else repr(v)
        if key not in cache:
            cache[key] = default if v is None and default is not None else resolve(v)
        flat[i] = cache[key]
    return out


def lookup_keyword(mapping: dict, what: str) -> Keyword:
    """The :class:`~rooflinexl.dtypes.Keyword` resolver of ``mapping`` (normalised -> canonical)."""
    return Keyword(what, mapping)


def codes_of(arr) -> tuple[np.ndarray, list]:
    """(codes, values) of a :class:`Coded` or an array of hashable values.

    ``uniq[codes]`` is ``arr``.
    """
    if isinstance(arr, Coded):
        return arr.codes, list(arr.values)
    fast = factorize(arr)
    if fast is not None:
        return fast
    flat = arr.ravel().tolist()
    index = dict.fromkeys(flat)
    for j, k in enumerate(index):
        index[k] = j
    codes = np.fromiter(map(index.__getitem__, flat), dtype=np.intp, count=len(flat))
    return codes.reshape(arr.shape), list(index)


def map_keyword(keys, table: dict, pos: int | None = None, dtype=object):
    """Apply a dict to a keyword (str) or keyword array, elementwise (one lookup per key)."""
    get = (lambda k: table[k]) if pos is None else (lambda k: table[k][pos])
    if isinstance(keys, str):
        return get(keys)
    codes, uniq = codes_of(keys)
    vals = np.empty(len(uniq), dtype=dtype)
    for j, k in enumerate(uniq):
        vals[j] = get(k)
    if dtype is object and all(isinstance(v, str) for v in vals):
        return Coded(codes, tuple(vals))
    return vals[codes]


class _Chips:
    """Chips of one call: row indices, unknown mask, and gathered spec columns."""

    def __init__(self, chip, chips, checks: Checks):
        self.checks = checks
        if isinstance(chip, Chip):
            self.table, self.idx = chip.table, np.asarray(chip.row)
            self.unknown = np.zeros((), bool)
            self.names = np.asarray(chip.name, dtype=object)
            return
        self.table: ChipTable = load_chips(chips)
        if isinstance(chip, Coded) and chip.all_str():
            fast = chip.codes, chip.values
        else:
            self.names = np.asarray(plain(chip), dtype=object)
            fast = factorize(
                chip if isinstance(chip, np.ndarray) and chip.dtype.kind == "U" else self.names)
        if fast is not None:  # large all-str array: look up and explain each distinct name once
            codes, uniq = fast
            rows = [self.table.row_of(u) for u in uniq]
            rows_u = np.array([-1 if j is None else j for j in rows], dtype=np.intp)
            self.idx = rows_u[codes]
            # no unknown name among the distinct ones: one False for all, no pass over the rows
            self.unknown = self.idx < 0 if (rows_u < 0).any() else np.zeros((), bool)
            if self.unknown.any():
                why = np.empty(len(uniq), dtype=object)
                for j, (u, r) in enumerate(zip(uniq, rows, strict=True)):
                    why[j] = None if r is not None else self.table.unknown_message(u)
                checks.add(self.unknown, UnknownChipError, why[codes])
            return
        self.idx, self.unknown = self.table.index(self.names)
        if self.unknown.any():
            why = np.full(self.names.shape, None, dtype=object)
            for name in {n for n in self.names[self.unknown].tolist() if isinstance(n, str)} | {
                    None}:
                msg = self.table.unknown_message(name)
                if name is None:
                    m = self.unknown & np.vectorize(lambda v: not isinstance(v, str),
                                                    otypes=[bool])(self.names)
                else:
                    m = self.unknown & (self.names == name)
                why[m] = msg
            checks.add(self.unknown, UnknownChipError, why)

    @functools.cached_property
    def safe(self) -> np.ndarray:
        """Row indices with unknown chips at row 0 (their values are never used)."""
        return np.where(self.unknown, 0, self.idx) if self.unknown.any() else self.idx

    def spec(self, column, where=True) -> np.ndarray:
        """Float values of ``column`` (a str or an object array of column names).

        A blank value is recorded as a missing spec where ``where`` is true.
        """
        safe = self.safe
        if isinstance(column, str):
            vals = self.table.numeric(column)[safe]
            codes, cols = np.zeros((), dtype=np.intp), [column]
        else:
            codes, cols = codes_of(column if isinstance(column, Coded)
                                 else np.asarray(column, dtype=object))
            safe, codes = np.broadcast_arrays(safe, codes)
            # one gather from a (distinct columns x chips) matrix
            vals = np.stack([self.table.numeric(c) for c in cols])[codes, safe]
        missing = np.isnan(vals)
        if missing.any():
            missing = missing & ~self.unknown & where  # where may be larger than vals
        if missing.any():
            safe_b, codes_b, _ = np.broadcast_arrays(safe, codes, missing)
            # one reason per distinct (chip row, column) pair among the missing elements
            pairs, inverse = np.unique(safe_b[missing] * len(cols) + codes_b[missing],
                                       return_inverse=True)
            reasons = np.empty(len(pairs), dtype=object)
            for i, p in enumerate(pairs.tolist()):
                reasons[i] = f"{self.table.names[p // len(cols)]} has no {cols[p % len(cols)]}"
            why = np.full(missing.shape, None, dtype=object)
            why[missing] = reasons[inverse.reshape(-1)]
            self.checks.add(missing, MissingSpecError, why)
        return vals


@dataclass
class _Net:
    """Link parameters of one tier per element (see :func:`_network`)."""

    bw: np.ndarray
    latency: np.ndarray
    domain: np.ndarray
    out_bw: np.ndarray
    out_latency: np.ndarray
    torus: np.ndarray
    base_latency: np.ndarray


def _network(ch: _Chips, tier, n, needs_torus=False, where=True) -> _Net:
    """Bandwidth, latency and scale-up domain of ``tier`` for a collective over ``n`` chips.

    On a scale-up tier (``ici``, ``ici_egress``) the domain is the chip's
    ``scaleup_size`` (blank: no limit) and, where ``n`` exceeds it, the outer
    level runs on ``dcn_bw`` / ``dcn_latency`` (a blank ``dcn_bw`` is then a
    missing spec). Other tiers have no domain limit. Blank latencies (the
    per-step columns and ``collective_latency``) are 0.
    ``needs_torus`` marks elements that need ``scaleup_topology`` (AllToAll on
    a scale-up tier): blank there is a missing spec.
    """
    tier_col = map_keyword(tier, TIERS)
    bw = ch.spec(tier_col, where=where)
    lat_col = map_keyword(tier, {t: TIER_LATENCY.get(t, "") for t in TIERS})
    lat = np.nan_to_num(ch.spec(lat_col, where=False), nan=0.0)
    scaleup = np.asarray(plain(map_keyword(tier, {t: t in SCALEUP_TIERS for t in TIERS},
                                     dtype=bool)), dtype=bool)
    domain = np.where(scaleup, ch.spec("scaleup_size", where=False), np.nan)
    domain = np.where(np.isnan(domain), np.inf, domain)
    n = np.asarray(n, dtype=float) if not isinstance(n, np.ndarray) else n
    with np.errstate(invalid="ignore"):
        beyond = np.asarray(n > domain) & where
    out_bw = ch.spec("dcn_bw", where=beyond)
    out_lat = np.nan_to_num(ch.spec("dcn_latency", where=False), nan=0.0)
    base = np.nan_to_num(ch.spec("collective_latency", where=False), nan=0.0)
    safe = ch.safe
    topo = np.asarray(ch.table.text("scaleup_topology"), dtype=object)[safe]
    need = np.asarray(needs_torus) & scaleup & ~beyond & where
    blank = (topo == "") & need & ~ch.unknown
    if np.any(blank):
        why = np.empty(len(ch.table), dtype=object)
        for j, name in enumerate(ch.table.names):
            why[j] = f"{name} has no scaleup_topology (switch or torus), needed for AllToAll"
        ch.checks.add(blank, MissingSpecError, np.broadcast_to(why[safe], np.shape(blank)))
    return _Net(bw, lat, domain, out_bw, out_lat, np.asarray(topo == "torus") & scaleup, base)


def _dtype(dtype, default="bf16"):
    return _keyword(dtype, resolve_dtype, default)


def _tier(tier, default):
    return _keyword(tier, resolve_tier, default)


def _peak(ch: _Chips, dt):
    return ch.spec(map_keyword(dt, DTYPES, 1))


def _bytes(dt):
    return np.asarray(map_keyword(dt, DTYPES, 0, dtype=float), dtype=float)


def _select(result, values: dict):
    """Pick ``values[result]`` elementwise (result: a str or an object array)."""
    if isinstance(result, str):
        return plain(values[result])
    result = plain(result)
    shape = np.broadcast_shapes(result.shape, *(np.shape(v) for v in values.values()))
    out = np.empty(shape, dtype=object)
    res = np.broadcast_to(result, shape)
    for r in set(res.ravel().tolist()):
        out[res == r] = np.broadcast_to(np.asarray(values[r], dtype=object), shape)[res == r]
    return out


def _finish(run: Run, value):
    if run.own:
        run.checks.raise_first()
    if isinstance(value, (np.ndarray, np.generic)):
        return value.item() if value.ndim == 0 else value
    return value


# ------------------------------------------------------------------- functions
def arith_intensity(flops, bytes, *, checks=None):
    """Arithmetic intensity, FLOP/byte: :func:`rooflinexl.model.arith_intensity`.

    Examples
    --------
    A bf16 dot product of N-element vectors: N FLOPs (about 2N), 4N bytes read
    (reference section 4: intensity 1/2):

    >>> arith_intensity(2 * 4096, 4 * 4096)
    0.5
    """
    return model.arith_intensity(flops, bytes, checks=checks)


def crit_intensity(chip, tier="hbm", dtype="bf16", *, chips=None, checks=None):
    r"""Critical intensity (ridge point) of a chip: peak(dtype) / bandwidth(tier).

    Parameters
    ----------
    chip : str, Chip or array_like of str
        Chip name or alias (``"H100"``, ``"tpu-v5e"``).
    tier : str or array_like
        ``hbm``, ``vmem``, ``ici``, ``dcn``, ``pcie`` (and aliases such as
        ``nvlink``, ``ib``).
    dtype : str or array_like
        Compute dtype: ``bf16``, ``fp16``, ``fp8``, ``int8``, ``int4``, ``fp4``,
        ``fp32`` (vector unit).
    chips : ChipTable, path, DataFrame or 2-D list, optional
        Spec table; default the packaged one.

    Returns
    -------
    float or ndarray
        FLOP/byte, broadcast over all arguments.

    Raises
    ------
    UnknownChipError, MissingSpecError, KeywordError

    Notes
    -----
    .. math:: I_\mathrm{crit} = \mathrm{peak}(\mathrm{dtype}) / \mathrm{bw}(\mathrm{tier})

    References
    ----------
    Reference sections 2 and 7 ("H100：HBM 约 300，NVLink 约 2,200，IB 约 2 万").

    Examples
    --------
    >>> [round(crit_intensity("H100", t)) for t in ("hbm", "nvlink", "nic")]
    [295, 2198, 19780]
    """
    run = Run(checks)
    ch = _Chips(chip, chips, run.checks)
    peak = _peak(ch, _dtype(dtype))
    bw = ch.spec(map_keyword(_tier(tier, "hbm"), TIERS))
    return _finish(run, model.critical_intensity(peak, bw, checks=run.checks))


def crit_batch(chip, D=None, F=None, dtype="bf16", weight_dtype=None, tier="hbm", *,
               chips=None, checks=None):
    r"""Critical token batch of ``X[B, D] @ W[D, F]`` on a chip.

    Parameters
    ----------
    chip : str, Chip or array_like of str
        Chip name or alias.
    D, F : array_like, optional
        Contracting and output dimensions (elements); omitted, their terms vanish.
    dtype : str or array_like
        Compute and activation dtype (peak and a).
    weight_dtype : str or array_like, optional
        Weight storage dtype (w); default ``dtype``. Changes bytes only.
    tier : str or array_like
        Where the weights stream from; default ``hbm``.
    chips : table, optional
        Spec table; default the packaged one.

    Returns
    -------
    float or ndarray
        Tokens.

    Raises
    ------
    UnknownChipError, MissingSpecError, KeywordError
    DomainError
        Non-positive D or F, or no batch reaches the roof.

    Notes
    -----
    :func:`rooflinexl.model.crit_batch` with I = peak(dtype) / bw(tier),
    a = bytes(dtype), w = bytes(weight_dtype).

    References
    ----------
    Reference section 5 (精确的临界值与形状的影响, 量化).

    Examples
    --------
    H100, bf16 (reference: 319, 345, 698 for D = F = 8192, 4096, 1024):

    >>> [round(crit_batch("H100", d, d), 1) for d in (8192, 4096, 1024)]
    [318.2, 344.9, 697.3]

    TPU v5e, int8 weights with bf16 compute (reference: "B > 120"):

    >>> round(crit_batch("TPU v5e", weight_dtype="int8"), 1)
    120.1
    """
    run = Run(checks)
    ch = _Chips(chip, chips, run.checks)
    dt = _dtype(dtype)
    wdt = dt if weight_dtype is None else _dtype(weight_dtype)
    i = model.critical_intensity(_peak(ch, dt), ch.spec(map_keyword(_tier(tier, "hbm"), TIERS)),
                                 checks=run.checks)
    a = _bytes(dt)
    w = a if wdt is dt else _bytes(wdt)
    return _finish(run, model.crit_batch(i, D, F, a, w, checks=run.checks))


def _bound(t_math, t_mem, t_net, mem_label="memory") -> Coded:
    """Which term bounds each element, as codes into ("compute", mem_label, "network")."""
    t_math, t_mem, t_net = np.broadcast_arrays(t_math, t_mem, t_net)
    code = np.where(t_math >= np.maximum(t_mem, t_net), np.int8(0),
                    np.where(t_mem >= t_net, np.int8(1), np.int8(2)))
    return Coded(code, ("compute", mem_label, "network"))


def matmul_time(chip, B, D, F, dtype="bf16", weight_dtype=None, n_chips=1, shard="none",
                result="time", *, chips=None, checks=None):
    r"""Time (or another roofline quantity) of ``X[B, D] @ W[D, F]`` on n chips.

    Parameters
    ----------
    chip : str, Chip or array_like of str
        Chip name or alias.
    B, D, F : array_like
        Tokens, contracting and output dimensions (elements).
    dtype, weight_dtype : str or array_like
        Compute/activation dtype and weight dtype (default ``dtype``).
    n_chips : array_like
        Chips, whole number >= 1.
    shard : {"none", "D", "F"} or array_like
        Which dimension is split over the chips (see
        :func:`rooflinexl.model.matmul_terms`).
    result : str or array_like
        ``time`` = max(T_math, T_hbm, T_comms) (full overlap, the lower bound),
        ``upper`` = their sum, ``math``, ``hbm``, ``comms`` (seconds),
        ``bound`` (``compute``/``memory``/``network``), ``intensity``
        (per-chip FLOPs / per-chip HBM bytes).
    chips : table, optional

    Returns
    -------
    float, str or ndarray

    Raises
    ------
    UnknownChipError, MissingSpecError, KeywordError, DomainError

    Notes
    -----
    :func:`rooflinexl.model.matmul_terms` with peak(dtype), hbm_bw, and for
    the shard-D AllReduce ici_bw, ici_latency, collective_latency,
    scaleup_size, dcn_bw and dcn_latency (two-level beyond the scale-up
    domain, as :func:`collective_time`).

    References
    ----------
    Reference section 6 (矩阵乘法耗时计算器).

    Examples
    --------
    bf16 [B=256, 8192] @ [8192, 8192] on an H100 is memory-bound (B < 318):

    >>> matmul_time("H100", 256, 8192, 8192, result="bound")
    'memory'
    """
    run = Run(checks)
    res, values, _ = matmul_parts(run, chip, B, D, F, dtype, weight_dtype, n_chips, shard,
                                   result, chips)
    return _finish(run, _select(res, values))


def matmul_parts(run: Run, chip, B, D, F, dtype, weight_dtype, n_chips, shard, result, chips):
    """Body of :func:`matmul_time`: (canonical result, {result: value}, per-chip FLOPs).

    Every ``result`` value is computed (``bound`` only where asked for);
    :mod:`rooflinexl.batch` uses them all from one evaluation.
    """
    ch = _Chips(chip, chips, run.checks)
    dt = _dtype(dtype)
    wdt = dt if weight_dtype is None else _dtype(weight_dtype)
    sh = _keyword(shard, lookup_keyword(SHARDS, "shard"), "none")
    res = _keyword(result, lookup_keyword({r: r for r in MATMUL_RESULTS}, "result"), "time")
    n = np.asarray(1.0 if n_chips is None else n_chips, dtype=float)
    sh = plain(sh)
    needs_ici = np.asarray(np.asarray(sh, dtype=object) == "D") & (n > 1)
    if needs_ici.any():
        net = _network(ch, "ici", n, where=needs_ici)
        ici, lat, dom, dcn, dcn_lat, base = net.bw, net.latency, net.domain, net.out_bw, \
            net.out_latency, net.base_latency
    else:
        ici, lat, dom, dcn, dcn_lat, base = np.nan, 0.0, np.inf, np.nan, 0.0, 0.0
    a = _bytes(dt)
    t_math, t_hbm, t_comms, flops, per_chip = model.matmul_terms(
        B, D, F, _peak(ch, dt), ch.spec("hbm_bw"), ici, a, a if wdt is dt else _bytes(wdt), n, sh,
        lat, dom, dcn, dcn_lat, base_latency=base, checks=run.checks)
    with np.errstate(all="ignore"):
        values = {
            "time": np.maximum(np.maximum(t_math, t_hbm), t_comms),
            "upper": np.add(np.add(t_math, t_hbm), t_comms),
            "math": t_math, "hbm": t_hbm, "comms": t_comms,
            "intensity": np.divide(flops, per_chip),
        }
    if not isinstance(res, str) or res == "bound":
        values["bound"] = _bound(t_math, t_hbm, t_comms)
    return res, values, flops


def moe_min_batch(chip, E, k, dtype="bf16", weight_dtype=None, tier="hbm", *, chips=None,
                  checks=None):
    r"""Minimum tokens per step for an MoE layer's expert matmuls to be compute-bound.

    Parameters
    ----------
    chip : str, Chip or array_like of str
    E, k : array_like
        Experts and experts per token (whole numbers, 1 <= k <= E).
    dtype, weight_dtype : str or array_like
        Compute dtype (peak) and weight dtype (bytes streamed; default dtype).
    tier : str or array_like
        Where the weights stream from; default ``hbm``.
    chips : table, optional

    Returns
    -------
    float or ndarray
        Tokens per step.

    Raises
    ------
    UnknownChipError, MissingSpecError, KeywordError
    DomainError
        k > E, k <= 0, E <= 0.

    Notes
    -----
    :func:`rooflinexl.model.moe_min_batch`: I·E·w / (2k).

    References
    ----------
    Reference section 5 (MoE).

    Examples
    --------
    DeepSeek-V3 (E = 256, k = 8) on TPU v5e with int8 weights and bf16
    compute (reference: "B > 3840" with I = 240):

    >>> round(moe_min_batch("TPU v5e", 256, 8, weight_dtype="int8"), 1)
    3843.9
    """
    run = Run(checks)
    ch = _Chips(chip, chips, run.checks)
    dt = _dtype(dtype)
    wdt = dt if weight_dtype is None else _dtype(weight_dtype)
    i = model.critical_intensity(_peak(ch, dt), ch.spec(map_keyword(_tier(tier, "hbm"), TIERS)),
                                 checks=run.checks)
    return _finish(run, model.moe_min_batch(i, E, k, _bytes(wdt), checks=run.checks))


def net_critical_d(chip, n_chips, dtype="bf16", tier="ici", *, chips=None, checks=None):
    r"""Contracting dimension D above which a D-sharded matmul over n chips is compute-bound.

    Parameters
    ----------
    chip : str, Chip or array_like of str
    n_chips : array_like
        Chips in the ring (whole number >= 1).
    dtype : str or array_like
        Dtype of the partial sums and the peak.
    tier : str or array_like
        Link the AllReduce runs on; default ``ici`` (NVLink on GPUs). On
        ``ici``/``ici_egress``, n beyond the chip's ``scaleup_size`` runs the
        outer level of a two-level AllReduce over ``dcn_bw`` (n must then be
        a multiple of ``scaleup_size``, else ``DomainError``/``#NUM!``).
    chips : table, optional

    Returns
    -------
    float or ndarray
        Elements of D.

    Raises
    ------
    UnknownChipError, MissingSpecError, KeywordError, DomainError

    Notes
    -----
    :func:`rooflinexl.model.net_critical_d`: a·(n−1)·peak / bw(tier) within
    one scale-up domain, the two-level form beyond it.

    References
    ----------
    Reference section 7 (网络的 roofline); How to Scale Your Model Part 12
    (cross-node collectives).

    Examples
    --------
    >>> round(net_critical_d("TPU v5e", 2), 1)
    8755.6

    16 H100s are two 8-GPU NVLink domains joined by 400 Gb/s NICs:

    >>> round(net_critical_d("H100", 16))
    61538
    """
    run = Run(checks)
    ch = _Chips(chip, chips, run.checks)
    dt = _dtype(dtype)
    n = np.asarray(n_chips, dtype=float)
    net = _network(ch, _tier(tier, "ici"), n)
    return _finish(run, model.net_critical_d(_peak(ch, dt), net.bw, n, _bytes(dt), net.domain,
                                             net.out_bw, checks=run.checks))


def roofline_flops(chip, intensity, tier="hbm", dtype="bf16", *, chips=None, checks=None):
    r"""Attainable FLOP/s at an arithmetic intensity: min(peak, intensity · bw).

    Parameters
    ----------
    chip : str, Chip or array_like of str
    intensity : array_like
        FLOP/byte, >= 0.
    tier, dtype : str or array_like
    chips : table, optional

    Returns
    -------
    float or ndarray
        FLOP/s.

    Raises
    ------
    UnknownChipError, MissingSpecError, KeywordError, DomainError

    Notes
    -----
    :func:`rooflinexl.model.roofline_flops`.

    References
    ----------
    Reference section 3.

    Examples
    --------
    A dot product (intensity 1/2) on an H100 reaches 0.5 x 3.35e12 FLOP/s:

    >>> roofline_flops("H100", 0.5)
    1675000000000.0
    """
    run = Run(checks)
    ch = _Chips(chip, chips, run.checks)
    bw = ch.spec(map_keyword(_tier(tier, "hbm"), TIERS))
    return _finish(run, model.roofline_flops(_peak(ch, _dtype(dtype)), bw, intensity,
                                             checks=run.checks))


def roofline_time(chip, flops, bytes, tier="hbm", dtype="bf16", result="time", *, chips=None,
                  checks=None):
    r"""Roofline time of an operation of given FLOPs and bytes on a chip.

    Parameters
    ----------
    chip : str, Chip or array_like of str
    flops : array_like
        FLOPs, >= 0.
    bytes : array_like
        Bytes over the tier, >= 0.
    tier, dtype : str or array_like
        Bandwidth tier of the bytes; dtype of the peak (``fp32`` = vector unit).
    result : str or array_like
        ``time`` = max(T_math, T_comms), ``upper`` = sum, ``math``, ``hbm`` or
        ``comms`` (both bytes / bw(tier)), ``bound`` (``compute``, or
        ``memory`` for hbm/vmem, ``network`` for ici/dcn/pcie), ``intensity``.
    chips : table, optional

    Returns
    -------
    float, str or ndarray

    Raises
    ------
    UnknownChipError, MissingSpecError, KeywordError, DomainError

    Notes
    -----
    :func:`rooflinexl.model.roofline_terms`.

    References
    ----------
    Reference sections 1 and 4.

    Examples
    --------
    fp32 add of 65,536 elements on an H100 (reference: about 0.23 µs):

    >>> round(roofline_time("H100", 65536, 12 * 65536, dtype="fp32") * 1e6, 2)
    0.23
    """
    run = Run(checks)
    res, values, _ = roofline_parts(run, chip, flops, bytes, tier, dtype, result, chips)
    return _finish(run, _select(res, values))


def roofline_parts(run: Run, chip, flops, bytes, tier, dtype, result, chips):
    """Body of :func:`roofline_time`: (canonical result, {result: value}, canonical tier)."""
    ch = _Chips(chip, chips, run.checks)
    tr = _tier(tier, "hbm")
    res = _keyword(result, lookup_keyword({r: r for r in ROOFLINE_RESULTS}, "result"), "time")
    bw = ch.spec(map_keyword(tr, TIERS))
    t_math, t_comms = model.roofline_terms(flops, bytes, _peak(ch, _dtype(dtype)), bw,
                                           checks=run.checks)
    values = {"time": np.maximum(t_math, t_comms), "upper": np.add(t_math, t_comms),
              "math": t_math, "hbm": t_comms, "comms": t_comms}
    if not isinstance(res, str) or res == "intensity":
        values["intensity"] = model.arith_intensity(flops, bytes, checks=run.checks)
    if not isinstance(res, str) or res == "bound":
        label = map_keyword(tr, TIER_BOUND)
        mem = np.broadcast_to(np.asarray(plain(label), dtype=object), np.shape(t_comms))
        values["bound"] = np.where(np.asarray(t_math) >= t_comms, "compute", mem).astype(object)
    return res, values, tr


def attn_intensity(T, S, G, *, checks=None):
    """Intensity of GQA attention: :func:`rooflinexl.model.attn_intensity`.

    Examples
    --------
    Prefill, T = S = 4096, G = 8: SG / (G + 1):

    >>> round(attn_intensity(4096, 4096, 8), 1)
    3640.9
    """
    return model.attn_intensity(T, S, G, checks=checks)


def collective_time(chip, kind, bytes, n_chips, tier="ici", *, chips=None, checks=None):
    r"""Time of a collective over n chips of a chip: α–β ring model, tier- and domain-aware.

    Parameters
    ----------
    chip : str, Chip or array_like of str
    kind : str or array_like
        ``AllGather``, ``ReduceScatter``, ``AllReduce`` or ``AllToAll`` (case,
        spaces, hyphens ignored).
    bytes : array_like
        Size of the full array, all shards together (bytes): an AllGather's
        output, a ReduceScatter's input, the array an AllReduce reduces on
        every chip, the sum of all chips' AllToAll buffers (each chip holds
        ``bytes / n`` and sends ``(n-1)/n`` of it).
    n_chips : array_like
        Chips taking part (whole number >= 1).
    tier : str or array_like
        Link; default ``ici`` (NVLink on GPUs), latency ``ici_latency``.
        On ``ici``/``ici_egress``, n beyond the chip's ``scaleup_size`` is
        two-level: rings inside each domain and over ``dcn_bw`` /
        ``dcn_latency`` between domains (n must be a multiple of
        ``scaleup_size``). ``dcn``: one ring over the NICs, ``dcn_latency``.
    chips : table, optional
    checks : Checks, optional
        Collect per-element errors instead of raising (the Excel adapters).

    Returns
    -------
    float or ndarray
        Seconds.

    Raises
    ------
    UnknownChipError, KeywordError
    MissingSpecError
        A blank bandwidth of the tier, a blank ``dcn_bw`` beyond the domain,
        a blank ``scaleup_topology`` for an AllToAll inside the domain.
    DomainError
        Negative bytes, n not a whole number >= 1, n beyond the domain but
        not a multiple of ``scaleup_size``.

    Notes
    -----
    :func:`rooflinexl.model.collective_seconds` with the chip's columns:
    ``bw(tier)``, the tier's latency column per ring step plus
    ``collective_latency`` once per call (blank = 0; both blank is the
    bandwidth-only bound), ``scaleup_size``, ``scaleup_topology`` (AllToAll:
    ``switch`` (n−1)/n², ``torus`` ring (n−1)/(2n) of bytes/bw), ``dcn_bw``,
    ``dcn_latency``. On GPUs the latency columns are NCCL's small-message
    (Ring/LL) figures: latency only matters for small messages. Broadcasts
    over every argument: the building block for whole-model plans (one call
    per collective and parallelism axis).

    References
    ----------
    Reference section 7; How to Scale Your Model Part 12 (intra- and
    cross-node collectives).

    Examples
    --------
    AllReduce of a bf16 [8192, 8192] array over 8 H100s: 2·7/8·134 MB /
    450 GB/s, plus the latency, collective_latency + 14 NVLink steps of
    ici_latency:

    >>> t = collective_time("H100", "AllReduce", 2 * 8192 * 8192, 8)
    >>> lat = chip_spec("H100", "collective_latency") + 14 * chip_spec("H100", "ici_latency")
    >>> round((t - lat) * 1e3, 3)
    0.522

    A tiny AllReduce (one decode token's 8192 bf16 activations) is all
    latency: NCCL's Ring/LL model, 6.6 µs + 14 x 0.6 µs = 15.0 µs, plus
    2·7/8·16384 B / 450 GB/s = 0.064 µs:

    >>> round(collective_time("H100", "AllReduce", 2 * 8192, 8) * 1e6, 2)
    15.06
    """
    run = Run(checks)
    ch = _Chips(chip, chips, run.checks)
    kd = _keyword(kind, lookup_keyword(COLLECTIVES, "kind"), None)
    if kd is None:
        raise KeywordError("kind is required: one of " + ", ".join(COLLECTIVE_NAMES))
    kd = plain(kd)
    n = np.asarray(n_chips, dtype=float)
    net = _network(ch, _tier(tier, "ici"), n, needs_torus=np.asarray(kd, dtype=object) ==
                   "alltoall")
    return _finish(run, model.collective_seconds(kd, bytes, n, net.bw, net.latency, net.domain,
                                                 net.out_bw, net.out_latency, net.torus,
                                                 base_latency=net.base_latency,
                                                 checks=run.checks))


def weight_load_time(chip, n_params, dtype="bf16", n_chips=1, *, chips=None, checks=None):
    r"""Time to read all weights from HBM once (the decode-step lower bound).

    Parameters
    ----------
    chip : str, Chip or array_like of str
    n_params : array_like
        Parameters.
    dtype : str or array_like
        Weight dtype (bytes per parameter).
    n_chips : array_like
        Chips the weights are split over.
    chips : table, optional

    Returns
    -------
    float or ndarray
        Seconds.

    Raises
    ------
    UnknownChipError, MissingSpecError, KeywordError, DomainError

    Notes
    -----
    :func:`rooflinexl.model.weight_load_time`.

    References
    ----------
    Reference section 5.

    Examples
    --------
    200B bf16 parameters over 32 TPU v4 (reference: about 10 ms):

    >>> round(weight_load_time("TPU v4", 200e9, n_chips=32) * 1e3, 1)
    10.4
    """
    run = Run(checks)
    ch = _Chips(chip, chips, run.checks)
    return _finish(run, model.weight_load_time(n_params, _bytes(_dtype(dtype)),
                                               1 if n_chips is None else n_chips,
                                               ch.spec("hbm_bw"), checks=run.checks))


def kv_cache_bytes(layers, kv_heads, head_dim, tokens, batch=1, dtype="bf16", *, checks=None):
    """KV-cache bytes: :func:`rooflinexl.model.kv_cache_bytes` with a = bytes(dtype).

    Examples
    --------
    >>> kv_cache_bytes(80, 8, 128, 8192, dtype="fp8") / 1e9
    1.34217728
    """
    return model.kv_cache_bytes(layers, kv_heads, head_dim, tokens,
                                1 if batch is None else batch, _bytes(_dtype(dtype)),
                                checks=checks)


#: ``result`` values of :func:`chip_price`
PRICE_RESULTS = ("price", "date", "source")


def _list_price(run: Run, ch: _Chips, provider, pricing, prices, result="price", where=True):
    """Price per chip-hour (or its date or source): the chip table's ``price_per_hour``
    (provider None) or the price table's latest ``pricing`` row of ``provider``; a missing
    price is a MissingSpecError where ``where`` is true."""
    default = provider is None or (isinstance(provider, str) and not provider.strip())
    if default:
        price = ch.spec("price_per_hour", where=where)
    else:
        if not isinstance(provider, str):
            raise KeywordError(f"provider must be text, one provider per call; got {provider!r}")
        kind = "on-demand" if pricing is None else lookup_keyword(
            {normalize_keyword(k): k for k in PRICING}, "pricing")(pricing)
        if not isinstance(kind, str):
            raise KeywordError("pricing must be one value per call")
        safe = ch.safe
        names = np.asarray(np.asarray(ch.table.names, dtype=object)[safe], dtype=object)
        table = load_prices(prices)
        price, why = lookup(table, names, provider.strip(), kind, ch.table)
        run.checks.add(np.isnan(price) & ~ch.unknown & where, MissingSpecError, why)
    if result == "price":
        return price
    safe = np.where(ch.unknown | np.isnan(price), 0, ch.idx)
    if default:
        col = {"date": "price_date", "source": "price_source"}[result]
        return np.asarray(np.asarray(ch.table.text(col), dtype=object)[safe], dtype=object)
    out = np.empty(np.shape(names), dtype=object)
    for name in set(np.ravel(names).tolist()):
        row = table.find(name, provider.strip(), kind, ch.table)
        out[names == name] = "" if row is None else row[result]
    return out


def chip_price(chip, provider=None, pricing="on-demand", result="price", *, prices=None,
               chips=None, checks=None):
    r"""USD per chip-hour of a chip (or its date or source): the default price or a provider's.

    Parameters
    ----------
    chip : str, Chip or array_like of str
    provider : str, optional
        A provider of the price table (``"Google Cloud"``, ``"AWS"``, ``"CoreWeave"``
        ...; case ignored). None: the chip table's ``price_per_hour`` (the
        default provider, named in its ``price_source``).
    pricing : str
        ``on-demand`` (default), ``spot``, ``capacity-block``, ``1-year``,
        ``3-year``. The latest-dated row of that kind is used.
    result : {"price", "date", "source"}
        What to return: USD per chip-hour, the price's date (YYYY-MM text) or
        its source.
    prices : PriceTable, path, DataFrame or 2-D list, optional
        Default: the packaged ``rooflinexl/data/prices.csv``.
    chips : table, optional

    Returns
    -------
    float, str or ndarray
        USD per chip-hour (or text).

    Raises
    ------
    UnknownChipError, KeywordError
    MissingSpecError
        No price for that chip (from that provider and pricing kind); the
        message lists the prices the table has for the chip.

    Examples
    --------
    >>> chip_price("TPU v6e", "Google Cloud", "3-year")
    1.22
    >>> chip_price("H100", "CoreWeave"), chip_price("H100", "CoreWeave", result="date")
    (4.25, '2024-02-07')
    """
    run = Run(checks)
    ch = _Chips(chip, chips, run.checks)
    res = lookup_keyword({r: r for r in PRICE_RESULTS}, "result")("price" if result is None
                                                            else result)
    return _finish(run, _list_price(run, ch, provider, pricing, prices, res))


def cost_per_flop(chip, dtype="bf16", mfu=1, price=None, *, provider=None, pricing=None,
                  prices=None, chips=None, checks=None):
    r"""USD per FLOP of a chip at a price per chip-hour and an MFU.

    Parameters
    ----------
    chip : str, Chip or array_like of str
    dtype : str or array_like
        Dtype of the peak.
    mfu : array_like
        Fraction of peak achieved, (0, 1].
    price : array_like, optional
        A typed quote, USD per chip-hour; NaN or None elements (blank cells)
        fall back to the list price. A quote prices a chip that has no list
        price.
    provider, pricing, prices
        Which list price (see :func:`chip_price`); default the chip table's
        ``price_per_hour``.
    chips : table, optional

    Returns
    -------
    float or ndarray
        USD per FLOP.

    Raises
    ------
    UnknownChipError, KeywordError, DomainError
    MissingSpecError
        No quote and no list price.

    Notes
    -----
    :func:`rooflinexl.model.cost_per_flop`: price / (3600 · peak · mfu).

    References
    ----------
    Reference section 12; prices dated in the chip and price tables.

    Examples
    --------
    H200 vs TPU v5p per 1e18 bf16 FLOP at peak (Google Cloud list prices):

    >>> [round(cost_per_flop(c) * 1e18, 2) for c in ("H200", "TPU v5p")]
    [2.81, 2.54]

    A B200 quote of 6 USD per GPU-hour (no Google Cloud list price):

    >>> round(cost_per_flop("B200", price=6.0) * 1e18, 3)
    0.741
    """
    run = Run(checks)
    ch = _Chips(chip, chips, run.checks)
    quote = np.asarray(np.nan if price is None else price, dtype=float)
    need_list = np.isnan(quote)
    if need_list.any():
        listed = _list_price(run, ch, provider, pricing, prices, where=need_list)
        quote = np.where(need_list, listed, quote)
    return _finish(run, model.cost_per_flop(quote, _peak(ch, _dtype(dtype)),
                                            1 if mfu is None else mfu, checks=run.checks))


def chip_spec(chip, field, *, chips=None, checks=None):
    """One field of a chip's row (``chip_spec("H200", "hbm_bw")``): float or str.

    Raises
    ------
    UnknownChipError
    MissingSpecError
        The field is blank for that chip.
    KeywordError
        ``field`` is not a column of the table.

    Examples
    --------
    >>> chip_spec("H200", "hbm_bw")
    4800000000000.0
    """
    run = Run(checks)
    ch = _Chips(chip, chips, run.checks)
    table = ch.table

    def resolve(f):
        if f is None:
            raise KeywordError(f"field is required: one of {', '.join(table.columns)}")
        key = f.strip().casefold() if isinstance(f, str) else None
        if key not in table.columns:
            raise KeywordError(f"field {f!r} is not one of {', '.join(table.columns)}")
        return key
    fd = _keyword(field, resolve, None)
    if fd is None:
        raise KeywordError(f"field is required: one of {', '.join(table.columns)}")
    safe = ch.safe
    fields = np.asarray(plain(fd), dtype=object)
    safe_b, fields_b = np.broadcast_arrays(safe, fields)
    out = np.empty(safe_b.shape, dtype=object)
    for f in sorted(set(fields_b.ravel().tolist())):
        m = fields_b == f
        if not table.is_numeric(f):
            col = np.asarray(table.text(f), dtype=object)
            vals = col[safe_b[m]]
            out[m] = vals
            blank = np.zeros(out.shape, bool)
            blank[m] = vals == ""
        else:
            vals = ch.spec(f, where=m)
            vals = np.broadcast_to(vals, out.shape)
            out[m] = vals[m]
            blank = np.zeros(out.shape, bool)
        if blank.any():
            why = np.full(out.shape, None, dtype=object)
            for j in set(safe_b[blank].tolist()):
                why[blank & (safe_b == j)] = f"{table.names[j]} has no {f}"
            run.checks.add(blank & ~np.broadcast_to(ch.unknown, out.shape), MissingSpecError, why)
    if out.ndim == 0:
        v = out.item()
        return _finish(run, float(v) if isinstance(v, (float, np.floating)) else v)
    return _finish(run, out)


# ------------------------------------------------------------- whole models
#: ``result`` keyword values of DECODE_TIME and PREFILL_TIME
MODEL_RESULTS = ("time", "upper", "math", "hbm", "comms", "bound", "flops", "bytes", "weights",
                 "kv")
_MODEL_RESULT = lookup_keyword({r: r for r in MODEL_RESULTS}, "result")
#: MODEL_SPEC fields computed from the row (besides the table's own columns)
MODEL_DERIVED = ("active_params", "kv_per_token")


class _Models:
    """Models of one call: row indices, unknown mask, and gathered columns."""

    def __init__(self, model, models, checks: Checks):
        self.table: ModelTable = load_models(models)
        self.names = np.asarray(plain(model), dtype=object)
        self.idx, self.unknown = self.table.index(self.names)
        self.safe = np.where(self.unknown, 0, self.idx)
        if self.unknown.any():
            why = np.full(self.names.shape, None, dtype=object)
            for i in np.ndindex(self.names.shape):
                if self.unknown[i]:
                    why[i] = self.table.unknown_message(self.names[i])
            checks.add(self.unknown, UnknownModelError, why)

    def col(self, column: str, blank=np.nan) -> np.ndarray:
        """Float values of ``column`` per element; ``blank`` where the cell is empty."""
        v = self.table.numeric(column)[self.safe]
        return np.where(np.isnan(v), blank, v)

    def shape(self) -> dict:
        """The columns the whole-model formulas need (dense rows: no experts)."""
        moe = ~np.isnan(self.col("experts"))
        return {
            "P": self.col("params"), "L": self.col("layers"), "d": self.col("d_model"),
            "nh": self.col("n_heads"), "K": self.col("kv_heads"), "H": self.col("head_dim"),
            "V": self.col("vocab"), "tied": self.col("tied_embeddings", 0.0),
            "PE": np.where(moe, self.col("expert_params", 0.0), 0.0),
            "E": self.col("experts", 1.0), "k": np.where(moe, self.col("active_experts", 1.0),
                                                        1.0),
            "moe": moe, "r": self.col("kv_lora_rank"), "q": self.col("qk_rope_dim"),
        }


def _params(run: Run, m: dict, tokens=None):
    """Active parameters of model row ``m`` (``tokens`` None), or the parameters a step of
    ``tokens`` tokens reads: an MoE's touched fraction of its experts
    (:func:`rooflinexl.model.moe_expert_fraction`, :func:`rooflinexl.model.model_params`)."""
    frac = None if tokens is None else model.moe_expert_fraction(m["k"], m["E"], tokens,
                                                                  checks=run.checks)
    return model.model_params(m["P"], m["V"], m["d"], m["tied"], m["PE"], m["E"], m["k"], frac,
                              checks=run.checks)


def _model_setup(run, chip, model_name, chips, models, dtype, weight_dtype, kv_dtype):
    ch = _Chips(chip, chips, run.checks)
    md = _Models(model_name, models, run.checks)
    dt = _dtype(dtype)
    wdt = dt if weight_dtype is None else _dtype(weight_dtype)
    kdt = dt if kv_dtype is None else _dtype(kv_dtype)
    m = md.shape()
    m["active"] = _params(run, m)
    m["kv"] = model.kv_values_per_token(m["L"], m["K"], m["H"], m["r"], m["q"],
                                        checks=run.checks)
    return ch, m, dt, wdt, kdt


def _tp_comms(run: Run, ch: _Chips, m: dict, tokens, a, n) -> np.ndarray:
    """Communication of a step on n chips (zero on one chip), not overlapped.

    Dense layers, tensor-parallel (Megatron-style): the attention output and the
    MLP output are summed over the chips, two AllReduces of tokens x d_model x a
    bytes per layer. An MoE: one AllReduce (attention) and, expert-parallel,
    two AllToAlls (dispatch and combine) of tokens x k x d_model x a bytes per
    layer (every layer counted as MoE). Both on the scale-up tier (``ici``)
    with its latency, two-level beyond ``scaleup_size``
    (:func:`rooflinexl.model.collective_seconds`).
    """
    n = np.asarray(n, dtype=float)
    multi = n > 1
    if not np.any(multi):
        return np.zeros(np.shape(n))
    moe = m["moe"]
    net = _network(ch, "ici", n, needs_torus=moe & multi, where=multi)
    with np.errstate(all="ignore"):
        x = np.asarray(tokens, dtype=float) * m["d"] * a
        bw = np.where(multi, net.bw, 1.0)
        args = (n, bw, net.latency, net.domain, net.out_bw, net.out_latency, net.torus)
        kw = {"base_latency": net.base_latency, "checks": run.checks}
        ar = model.collective_seconds("allreduce", x, *args, **kw)
        a2a = model.collective_seconds("alltoall", x * m["k"], *args, **kw)
        per_layer = np.where(moe, ar + 2.0 * a2a, 2.0 * ar)
    return np.where(multi, m["L"] * per_layer, 0.0)


def _model_values(res, run, ch, m, dt, flops, nbytes, n, mfu, mbu, t_comms, w, kv_bytes):
    t_math, t_hbm = model.step_terms(flops, nbytes, n, _peak(ch, dt), ch.spec("hbm_bw"),
                                     mfu, mbu, checks=run.checks)
    with np.errstate(all="ignore"):
        values = {"weights": np.divide(m["P"] * w, n), "kv": np.divide(kv_bytes, n),
                  "time": np.maximum(t_math, t_hbm) + t_comms,
                  "upper": np.add(np.add(t_math, t_hbm), t_comms),
                  "math": t_math, "hbm": t_hbm, "comms": np.broadcast_to(t_comms,
                                                                         np.shape(t_math)),
                  "flops": np.divide(flops, n), "bytes": np.divide(nbytes, n)}
    if not isinstance(res, str) or res == "bound":
        values["bound"] = _bound(t_math, t_hbm, t_comms)
    return values


def _num(x, default):
    return default if x is None else x


def decode_time(chip, model_name, context, batch=1, n_chips=1, dtype="bf16", weight_dtype=None,
                kv_dtype=None, mbu=1, mfu=1, result="time", *, chips=None, models=None,
                checks=None):
    r"""Seconds of one decode step of a whole model (time per output token).

    Parameters
    ----------
    chip : str, Chip or array_like of str
        Chip name or alias.
    model_name : str or array_like of str
        Model name or alias in the model table.
    context : array_like
        Tokens cached per sequence (the prompt plus the tokens generated so far).
    batch : array_like
        Sequences decoded together (>= 1); default 1.
    n_chips : array_like
        Chips of one replica, tensor-parallel within the scale-up domain; default 1.
    dtype : str or array_like
        Compute dtype (the peak) and activation dtype (the AllReduce bytes).
    weight_dtype, kv_dtype : str or array_like, optional
        Storage dtypes of the weights and of the KV cache; default ``dtype``.
    mbu, mfu : array_like
        Achieved fractions of HBM bandwidth and of peak FLOP/s, (0, 1];
        default 1 (the roofline bound).
    result : str or array_like
        ``time`` (default), ``upper``, ``math``, ``hbm``, ``comms``, ``bound``,
        ``flops`` and ``bytes`` (moved per chip in the step), ``weights`` (bytes
        of all weights held per chip, the input embedding too) and ``kv``
        (KV-cache bytes per chip of ``batch`` sequences of ``context`` tokens).
    chips, models : tables, optional
        Chip and model tables; default the packaged ones.

    Returns
    -------
    float, str or ndarray

    Raises
    ------
    UnknownChipError, UnknownModelError, MissingSpecError, KeywordError, DomainError

    Notes
    -----
    Bytes: the weights read (every weight but the input embedding; an MoE's
    non-expert weights plus the touched fraction 1 - (1 - k/E)^batch of
    ``expert_params``) in ``weight_dtype``, plus the KV cache of ``batch``
    sequences of ``context`` tokens in ``kv_dtype``
    (:func:`rooflinexl.model.decode_flops_bytes`). FLOPs: 2 per active
    parameter per token (active experts only) plus attention over the
    context, 4 L S n_h H per token. Both divided evenly over ``n_chips``.

    .. math:: T = \max\!\left(\frac{\mathrm{FLOPs}}{n\,\mathrm{peak}\,\mathrm{mfu}},
              \frac{\mathrm{bytes}}{n\,\mathrm{hbm\_bw}\,\mathrm{mbu}}\right)
              + T_\mathrm{comms}

    The collectives are not overlapped: each sits between the matmul that
    produces its input and the one that needs its result. Dense models: two
    tensor-parallel AllReduces of batch x d_model x a bytes per layer; an MoE:
    one AllReduce (attention) and two expert-parallel AllToAlls (dispatch,
    combine) of batch x k x d_model x a bytes per layer; on ``ici`` with its
    latency, two-level beyond ``scaleup_size``
    (:func:`rooflinexl.model.collective_seconds`). ``upper`` adds all three
    terms. Not modelled: ``sliding_window`` (every layer attends to the whole
    context: an upper bound for sliding-window models), activations, and the
    few dense layers of an MoE (counted as MoE for the communication).

    References
    ----------
    Reference section 5; How to Scale Your Model Part 7 (inference) and
    Part 12 (GPU collectives).

    Examples
    --------
    Llama 3.1 8B on one H100, batch 1, 4096 tokens of context, bf16:
    (2 x 7.5047e9 + 4096 x 65536 x 2) bytes / 3.35e12 B/s (the tests' hand
    derivation):

    >>> round(decode_time("H100", "Llama 3.1 8B", 4096) * 1e3, 3)
    4.641
    """
    run = Run(checks)
    res, values = decode_parts(run, chip, model_name, context, batch, n_chips, dtype,
                                weight_dtype, kv_dtype, mbu, mfu, result, chips, models)
    return _finish(run, _select(res, values))


def decode_parts(run, chip, model_name, context, batch, n_chips, dtype, weight_dtype, kv_dtype,
                  mbu, mfu, result, chips, models):
    """Body of :func:`decode_time`: (canonical result, {result: value}); batch uses them all."""
    ch, m, dt, wdt, kdt = _model_setup(run, chip, model_name, chips, models, dtype,
                                       weight_dtype, kv_dtype)
    res = _keyword(result, _MODEL_RESULT, "time")
    B, n = _num(batch, 1.0), _num(n_chips, 1.0)
    read = _params(run, m, B)
    flops, nbytes = model.decode_flops_bytes(m["active"], read, m["kv"], m["L"], m["nh"],
                                             m["H"], context, B, _bytes(wdt), _bytes(kdt),
                                             checks=run.checks)
    comms = _tp_comms(run, ch, m, B, _bytes(dt), n)
    with np.errstate(all="ignore"):
        kv_bytes = np.multiply(np.multiply(B, context), m["kv"]) * _bytes(kdt)
    return res, _model_values(res, run, ch, m, dt, flops, nbytes, n, _num(mfu, 1.0),
                              _num(mbu, 1.0), comms, _bytes(wdt), kv_bytes)


def prefill_time(chip, model_name, prompt, batch=1, n_chips=1, dtype="bf16", weight_dtype=None,
                 kv_dtype=None, mbu=1, mfu=1, result="time", *, chips=None, models=None,
                 checks=None):
    r"""Seconds to prefill ``prompt`` tokens of ``batch`` sequences (time to first token).

    Parameters
    ----------
    chip : str, Chip or array_like of str
    model_name : str or array_like of str
    prompt : array_like
        Prompt tokens per sequence (>= 1).
    batch, n_chips, dtype, weight_dtype, kv_dtype, mbu, mfu, result, chips, models
        As in :func:`decode_time`.

    Returns
    -------
    float, str or ndarray

    Raises
    ------
    UnknownChipError, UnknownModelError, MissingSpecError, KeywordError, DomainError

    Notes
    -----
    FLOPs: 2 per active parameter per token except the output projection,
    which runs for the last token of each sequence only, plus causal attention
    2 x 2 x T^2/2 x n_h x H per layer and sequence
    (:func:`rooflinexl.model.prefill_flops_bytes`). Bytes: the weights read once
    (an MoE: the fraction touched by ``batch x prompt`` tokens) and the KV cache
    written. Time as in :func:`decode_time`, the AllReduces carrying
    ``batch x prompt x d_model`` activations.

    References
    ----------
    Reference section 5 (prefill); How to Scale Your Model Part 7.

    Examples
    --------
    Llama 3.1 8B, 8192-token prompt on one H100: compute-bound,
    (2 x 6.979e9 x 8192 + 2 x 0.525e9 + 2 x 32 x 8192^2 x 32 x 128) / 9.89e14
    = 1.3194e14 / 9.89e14:

    >>> round(prefill_time("H100", "Llama 3.1 8B", 8192), 4)
    0.1334
    """
    run = Run(checks)
    res, values = prefill_parts(run, chip, model_name, prompt, batch, n_chips, dtype,
                                 weight_dtype, kv_dtype, mbu, mfu, result, chips, models)
    return _finish(run, _select(res, values))


def prefill_parts(run, chip, model_name, prompt, batch, n_chips, dtype, weight_dtype, kv_dtype,
                   mbu, mfu, result, chips, models):
    """Body of :func:`prefill_time`: (canonical result, {result: value})."""
    ch, m, dt, wdt, kdt = _model_setup(run, chip, model_name, chips, models, dtype,
                                       weight_dtype, kv_dtype)
    res = _keyword(result, _MODEL_RESULT, "time")
    B, n = _num(batch, 1.0), _num(n_chips, 1.0)
    with np.errstate(all="ignore"):
        tokens = np.multiply(B, prompt)
    read = _params(run, m, tokens)
    flops, nbytes = model.prefill_flops_bytes(m["active"], read, m["V"] * m["d"], m["kv"],
                                              m["L"], m["nh"], m["H"], prompt, B, _bytes(wdt),
                                              _bytes(kdt), checks=run.checks)
    comms = _tp_comms(run, ch, m, tokens, _bytes(dt), n)
    with np.errstate(all="ignore"):
        kv_bytes = tokens * m["kv"] * _bytes(kdt)
    return res, _model_values(res, run, ch, m, dt, flops, nbytes, n, _num(mfu, 1.0),
                              _num(mbu, 1.0), comms, _bytes(wdt), kv_bytes)


def train_time(chip, model_name, tokens, n_chips, mfu=1, dtype="bf16", seq_len=0, *,
               chips=None, models=None, checks=None):
    r"""Seconds to train a model on ``tokens`` tokens with ``n_chips`` chips at an MFU.

    Parameters
    ----------
    chip : str, Chip or array_like of str
    model_name : str or array_like of str
    tokens : array_like
        Training tokens (>= 0).
    n_chips : array_like
        Chips (whole number >= 1).
    mfu : array_like
        Model FLOPs utilisation, (0, 1]; default 1.
    dtype : str or array_like
        Compute dtype of the peak; default bf16.
    seq_len : array_like, optional
        Sequence length: adds the causal attention FLOPs; 0 (default), 6ND only.
    chips, models : tables, optional

    Returns
    -------
    float or ndarray
        Seconds.

    Raises
    ------
    UnknownChipError, UnknownModelError, MissingSpecError, KeywordError, DomainError

    Notes
    -----
    .. math:: T = \frac{6 N D + 6 L S n_h H D}{n\,\mathrm{peak}\,\mathrm{mfu}}

    N: active parameters (every weight but the input embedding; an MoE's
    active experts only), :func:`rooflinexl.model.train_flops`.

    References
    ----------
    How to Scale Your Model Part 12, Q5.2 (Llama 3 70B, 15T tokens, 4096 H100
    at 45 % MFU: about 40 days).

    Examples
    --------
    >>> round(train_time("H100", "Llama 3.1 70B", 15e12, 4096, 0.45) / 86400, 1)
    39.7
    """
    run = Run(checks)
    ch, m, dt, _, _ = _model_setup(run, chip, model_name, chips, models, dtype, None, None)
    flops = model.train_flops(m["active"], tokens, m["L"], m["nh"], m["H"], _num(seq_len, 0.0),
                              checks=run.checks)
    t_math, _ = model.step_terms(flops, 0.0, n_chips, _peak(ch, dt), ch.spec("hbm_bw"),
                                 _num(mfu, 1.0), 1.0, checks=run.checks)
    return _finish(run, t_math)


def max_batch(chip, model_name, context, n_chips=1, weight_dtype="bf16", kv_dtype=None,
              usable=1, *, chips=None, models=None, checks=None):
    r"""Largest batch of ``context``-token sequences whose weights and KV cache fit in HBM.

    Parameters
    ----------
    chip : str, Chip or array_like of str
    model_name : str or array_like of str
    context : array_like
        Tokens per sequence at its longest (prompt + output), >= 1.
    n_chips : array_like
        Chips of the replica (their HBM adds up); default 1.
    weight_dtype, kv_dtype : str or array_like
        Storage dtypes; ``kv_dtype`` defaults to ``weight_dtype``.
    usable : array_like
        Share of HBM available for weights and KV cache, (0, 1]; default 1.
    chips, models : tables, optional

    Returns
    -------
    float or ndarray
        Sequences (whole number, 0 when the weights alone do not fit).

    Raises
    ------
    UnknownChipError, UnknownModelError, MissingSpecError (no hbm_bytes),
    KeywordError, DomainError

    Notes
    -----
    :func:`rooflinexl.model.max_batch` with capacity = n x hbm_bytes x usable,
    weights = params x bytes(weight_dtype) (all parameters are held, the
    input embedding too), KV per sequence = context x KV values per token x
    bytes(kv_dtype).

    References
    ----------
    Reference section 5.

    Examples
    --------
    Llama 3.1 70B, bf16, 8192-token sequences on 4 H200 of 141 GiB:
    floor((4 x 151,397,597,184 - 141.2e9) / 2,684,354,560) = floor(172.9989):

    >>> max_batch("H200", "Llama 3.1 70B", 8192, 4)
    172.0
    """
    run = Run(checks)
    ch, m, wdt, _, kdt = _model_setup(run, chip, model_name, chips, models, weight_dtype,
                                      None, kv_dtype)
    n = _num(n_chips, 1.0)
    u = np.asarray(_num(usable, 1.0), dtype=float)
    run.require(~((u > 0) & (u <= 1)), "usable must be in (0, 1]")
    run.integer("n_chips", np.asarray(n, dtype=float), 1)
    run.require(~(np.asarray(context, dtype=float) >= 1), "context must be >= 1")
    with np.errstate(all="ignore"):
        cap = np.multiply(n, ch.spec("hbm_bytes")) * u
        kv_seq = np.multiply(context, m["kv"]) * _bytes(kdt)
    return _finish(run, model.max_batch(cap, m["P"] * _bytes(wdt), kv_seq, checks=run.checks))


def model_spec(model_name, field, *, models=None, checks=None):
    """One field of a model's row (``model_spec("DeepSeek-V3", "experts")``): float or str.

    Besides the table's columns, ``active_params`` (parameters a token computes
    with: :func:`rooflinexl.model.model_params`) and ``kv_per_token`` (KV-cache
    values per token over all layers: :func:`rooflinexl.model.kv_values_per_token`).

    Raises
    ------
    UnknownModelError
    MissingSpecError
        The field is blank for that model.
    KeywordError
        ``field`` is not a column of the table nor a derived field.

    Examples
    --------
    >>> model_spec("DeepSeek-V3", "kv_per_token")
    35136.0
    >>> round(model_spec("Mixtral 8x7B", "active_params") / 1e9, 2)
    12.75

    (Mistral's 12.9B active counts the 0.13B input embedding, a lookup here.)
    """
    run = Run(checks)
    md = _Models(model_name, models, run.checks)
    table = md.table
    known = (*table.columns, *MODEL_DERIVED)

    def resolve(f):
        key = normalize_keyword(parse_header(f)[0]) if isinstance(f, str) else None
        for k in known:
            if key is not None and normalize_keyword(k) == key:
                return k
        raise KeywordError(f"field {f!r} is not one of {', '.join(known)}")
    fd = _keyword(field, resolve, None)
    if fd is None:
        raise KeywordError(f"field is required: one of {', '.join(known)}")
    m = md.shape()
    derived = {
        "active_params": lambda: _params(run, m),
        "kv_per_token": lambda: model.kv_values_per_token(m["L"], m["K"], m["H"], m["r"],
                                                          m["q"], checks=run.checks),
    }
    fields = np.asarray(plain(fd), dtype=object)
    idx, fields_b = np.broadcast_arrays(md.safe, fields)
    unknown = np.broadcast_to(md.unknown, idx.shape)
    out = np.empty(idx.shape, dtype=object)
    for f in sorted(set(fields_b.ravel().tolist())):
        sel = fields_b == f
        if f in derived:
            vals = np.broadcast_to(np.asarray(derived[f](), dtype=float), idx.shape)[sel]
            blank = np.zeros(vals.shape, bool)
        elif table.is_numeric(f):
            vals = table.numeric(f)[idx[sel]]
            blank = np.isnan(vals)
        else:
            vals = np.asarray(table.text(f), dtype=object)[idx[sel]]
            blank = vals == ""
        out[sel] = vals
        miss = np.zeros(idx.shape, bool)
        miss[sel] = blank
        miss &= ~unknown
        if miss.any():
            why = np.full(idx.shape, None, dtype=object)
            for j in set(idx[miss].tolist()):
                why[miss & (idx == j)] = f"{table.names[j]} has no {f}"
            run.checks.add(miss, MissingSpecError, why)
    if out.ndim == 0:
        v = out.item()
        return _finish(run, float(v) if isinstance(v, (float, np.floating)) else v)
    return _finish(run, out)
