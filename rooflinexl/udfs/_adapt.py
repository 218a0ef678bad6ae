"""The Excel edge: argument normalisation, broadcasting over ranges, error mapping.

Hosts deliver ints or floats, ``None`` for an empty cell, strings, booleans,
and 1-D or 2-D lists for ranges. Every function of :mod:`rooflinexl.udfs`
goes through :func:`call`, which

* turns each argument into an array (a 2-D list keeps its orientation),
* turns text, booleans and error values where a number belongs into that
  element's ``#VALUE!`` (or passes the input's error value through),
* fills blank optional elements with the api function's default (the rules
  and their messages, shared with :mod:`rooflinexl.batch`: :mod:`rooflinexl.api_args`),
* calls the chip-aware API with a :class:`rooflinexl.model.Checks` collector,
* and returns a plain value or a rectangular list whose bad elements are
  :class:`rooflinexl.errors.ExcelError` strings, never NaN, inf or None.

A bad call (chip table unusable, unknown keyword, shapes that do not
broadcast) raises :class:`RooflineInputError`, a subclass of xlwings'
``XlwingsError`` where xlwings is loaded, so xlwings Server and Lite show its
message.
"""
from __future__ import annotations

import math
import os
import sys

import numpy as np

from rooflinexl import api_args
from rooflinexl.chips import ChipTable
from rooflinexl.errors import EXCEL_ERRORS, ExcelError, RooflineError
from rooflinexl.model import Checks
from rooflinexl.models import ModelTable
from rooflinexl.prices import PriceTable


def _want_xlwings() -> bool:
    """Import xlwings only where a host uses it: it costs ~0.6 s and pulls in pandas.

    Hosts: xlwings already imported (classic add-in, Server), ``XLWINGS_ON_SERVER``
    set (xlwings Server and xlwings Lite set it before importing xlwings),
    Windows (classic COM), Pyodide (Lite), or ``ROOFLINEXL_XLWINGS=1``.
    """
    return ("xlwings" in sys.modules
            or os.environ.get("XLWINGS_ON_SERVER", "").lower() == "true"
            or sys.platform in ("win32", "emscripten")
            or os.environ.get("ROOFLINEXL_XLWINGS") == "1")


_xlwings = None
if _want_xlwings():
    try:
        import xlwings as _xlwings
    except ImportError:  # pragma: no cover - host without xlwings
        _xlwings = None

if _xlwings is not None:
    func, _xl_arg = _xlwings.func, _xlwings.arg
    _XlwingsError = _xlwings.XlwingsError
else:
    _xl_arg = None

    def func(f=None, *args, **kwargs):
        """No-op stand-in for ``xlwings.func`` where xlwings is absent."""
        return (lambda g: g) if f is None else f

    class _XlwingsError(Exception):
        """Stand-in for ``xlwings.XlwingsError`` where xlwings is absent."""


def arg(name: str, *args, **kwargs):
    """``xlwings.arg`` (where xlwings is loaded) that also records the argument's ``doc``.

    The docs are kept on the function (:func:`arg_docs`) for hosts that do not
    go through xlwings: the LibreOffice add-in's Function Wizard.
    """
    def deco(f):
        g = _xl_arg(name, *args, **kwargs)(f) if _xl_arg is not None else f
        if "doc" in kwargs:
            g.__dict__.setdefault("_rooflinexl_arg_docs", {})[name] = kwargs["doc"]
        return g
    return deco


def arg_docs(f) -> dict[str, str]:
    """``{argument: doc}`` of the ``@arg(name, doc=...)`` decorators of an Excel function."""
    return dict(getattr(f, "_rooflinexl_arg_docs", {}))


class RooflineInputError(RooflineError, _XlwingsError):
    """A bad call of an Excel function: its message names the argument and what is allowed."""


# --------------------------------------------------------------------- inputs
def as_array(name: str, x) -> np.ndarray:
    """Object array of a host argument; a ragged range is a bad call."""
    if isinstance(x, np.ndarray):
        return x.astype(object)
    if isinstance(x, (list, tuple)):
        arr = np.empty(0, dtype=object)
        try:
            arr = np.array(x, dtype=object)
        except ValueError:
            pass
        if arr.ndim > 2 or arr.size and any(isinstance(v, (list, tuple)) for v in arr.flat):
            raise RooflineInputError(f"{name}: a range must be a rectangular 1-D or 2-D block")
        if arr.size == 0:
            raise RooflineInputError(f"{name}: the range is empty")
        return arr
    arr = np.empty((), dtype=object)
    arr[()] = x
    return arr


def _blank(v) -> bool:
    return v is None or (isinstance(v, str) and v.strip() == "")


class Call:
    """Arguments of one call of the api function ``fn`` and the per-element errors found in them.

    An argument's default is ``fn``'s (:func:`rooflinexl.api_args.default`).
    """

    def __init__(self, fn):
        self.fn = fn
        self.checks = Checks()
        self.shapes: list[tuple] = []

    def number(self, name: str, x):
        """Float array (or the default) of a numeric argument."""
        default = api_args.default(self.fn, name)
        optional = default is not api_args.REQUIRED
        if optional and x is None:
            return None if default is None else api_args.blank_number(default)
        if type(x) is float or type(x) is int:  # the common scalar cell
            v = float(x) if -1e308 < x < 1e308 else math.inf
            if v - v == 0.0:
                self.shapes.append(())
                return v
        arr = as_array(name, x)
        self.shapes.append(arr.shape)
        values = arr.reshape(-1).tolist()
        if set(map(type, values)) <= {float, int}:  # the common case: every cell a number
            try:
                out = np.array(values, dtype=float)
            except OverflowError:  # an int beyond float range: element by element below
                pass
            else:
                bad = ~np.isfinite(out)
                if bad.any():
                    out[bad] = api_args.STAND_IN
                    self.checks.add(bad.reshape(arr.shape), *api_args.not_finite(name))
                return out.reshape(arr.shape)
        out = np.empty(arr.shape, dtype=float)
        flat = out.reshape(-1)
        bad: dict[tuple, list] = {}
        for i, v in enumerate(values):
            if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
                    v, (bool, np.bool_)):
                try:
                    v = float(v)
                except OverflowError:
                    v = math.inf
                if math.isfinite(v):
                    flat[i] = v
                    continue
                key = api_args.not_finite(name)
            elif _blank(v):
                if optional:
                    flat[i] = api_args.blank_number(default, name)
                    continue
                key = api_args.blank_required(name)
            elif isinstance(v, str) and v in EXCEL_ERRORS:
                key = (str(v), getattr(v, "reason", "") or f"{name} is {v}")
            elif isinstance(v, (bool, np.bool_)):
                key = api_args.boolean(name, v)
            else:
                key = api_args.not_a_number(name, v)
            bad.setdefault(key, []).append(i)
            flat[i] = api_args.STAND_IN
        for (code, reason), idx in bad.items():
            mask = np.zeros(arr.size, dtype=bool)
            mask[idx] = True
            self.checks.add(mask.reshape(arr.shape), code, reason)
        return out

    def text(self, name: str, x, required: bool = False):
        """Keyword or chip argument: None (blank) or a str / object array of str-or-None.

        A ``required`` keyword (``kind``, ``field``) has no default: where some cells of
        a range are blank, those elements are ``#VALUE!`` (the others compute); a blank
        cell alone, or a range of blanks, is None like an omitted argument.
        """
        if x is None:
            return None
        if type(x) is str:  # the common scalar cell
            self.shapes.append(())
            return None if x.strip() == "" else x
        arr = as_array(name, x)
        self.shapes.append(arr.shape)
        if arr.ndim == 0:
            v = arr.item()
            return None if _blank(v) else v
        values = [None if _blank(v) else v for v in arr.reshape(-1).tolist()]
        if required and None in values:
            given = [v for v in values if v is not None]
            if not given:
                return None
            blank = np.array([v is None for v in values]).reshape(arr.shape)
            self.checks.add(blank, *api_args.blank_keyword(name))
            values = [given[0] if v is None else v for v in values]
        return np.array(values, dtype=object).reshape(arr.shape)

    def chip(self, x):
        """Chip names: blanks stay None (an unknown chip: ``#N/A``)."""
        if x is None:
            return None
        return self.text("chip", x)


class _RangeTables:
    """Tables parsed from host ranges, once per distinct range (the fingerprint: its cells).

    A host passes the same chip range on every call, as a fresh list of lists; the
    cells as a tuple of tuples are its fingerprint (hashing ~1,000 cells costs a few
    µs, parsing them a few hundred). Ranges holding NaN, or a cell that is not
    hashable, are parsed on every call: they never compare equal to themselves.
    """

    def __init__(self, name: str, parse, what: str, header: str, maxsize: int = 32):
        self.name, self.parse, self.what, self.header = name, parse, what, header
        self.maxsize = maxsize
        self.parsed: dict[tuple, object] = {}

    def __call__(self, rows):
        if type(rows) is list and rows and type(rows[0]) is list:
            try:
                key = tuple(map(tuple, rows))
                hit = self.parsed.get(key)
            except TypeError:  # an unhashable cell: no fingerprint
                key = hit = None
            if hit is not None:
                return hit
        else:
            key = None
        table = self._parse(rows)
        if key is not None:
            if len(self.parsed) >= self.maxsize:
                self.parsed.pop(next(iter(self.parsed)))
            self.parsed[key] = table
        return table

    def _parse(self, x):
        if x is None:
            raise RooflineInputError(f"{self.name}: give the {self.what}")
        rows = as_array(self.name, x)
        if rows.ndim != 2 or rows.shape[0] < 2:
            raise RooflineInputError(f"{self.name}: the {self.name[:-1]} table must be a range "
                                     f"of at least two rows, the header ({self.header}) first")
        cells = [[None if isinstance(v, float) and math.isnan(v) else v for v in row]
                 for row in rows.tolist()]
        try:
            return self.parse(cells)
        except RooflineError as exc:
            raise RooflineInputError(f"{self.name}: {exc}") from None


_chip_tables = _RangeTables("chips", ChipTable.from_rows, "chip table range with its header "
                            "row (in the shipped workbooks the name Chips)",
                            "chip, bf16_flops, hbm_bw, ...")
_model_tables = _RangeTables("models", ModelTable.from_rows, "model table range with its "
                             "header row (in the shipped workbooks the name Models)",
                             "model, params, layers, ...")
_price_tables = _RangeTables("prices", PriceTable.from_rows, "price table range with its header "
                             "row (in the shipped templates the name Prices)",
                             "chip, provider, pricing, date, price_per_hour, source", maxsize=8)


def table(chips) -> ChipTable:
    """ChipTable of the ``chips`` range (header row first), parsed once per distinct range."""
    return chips if isinstance(chips, ChipTable) else _chip_tables(chips)


def model_table(models) -> ModelTable:
    """ModelTable of the ``models`` range (header row first), parsed once per distinct range."""
    return models if isinstance(models, ModelTable) else _model_tables(models)


def price_table(prices) -> PriceTable:
    """PriceTable of the ``prices`` range (header row first), parsed once per distinct range."""
    return prices if isinstance(prices, PriceTable) else _price_tables(prices)


# -------------------------------------------------------------------- outputs
def _shape_error(call: Call) -> RooflineInputError:
    sizes = ", ".join("x".join(map(str, s)) for s in call.shapes if s)
    return RooflineInputError(f"ranges of sizes {sizes} cannot be combined: give ranges of the "
                              "same size, or one row and one column")


def _cell(v, code, why):
    if code is not None:
        return ExcelError(code, why or code)
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (float, int, np.floating, np.integer)):
        v = float(v)
        if not math.isfinite(v):
            return ExcelError("#NUM!", "the result is not a finite number")
        return v
    if isinstance(v, str):
        return v
    return ExcelError("#VALUE!", f"unexpected result {v!r}")


def finish(call: Call, value):
    """Host value of a result: a scalar, or a list (of lists) in the inputs' orientation."""
    if not call.checks.items and type(value) is float and not any(call.shapes):
        return _cell(value, None, None)  # a scalar call that computed: nothing to broadcast
    value = np.asarray(value, dtype=object if isinstance(value, np.ndarray)
                       and value.dtype == object else None)
    shapes = [value.shape] + call.shapes + [m.shape for m, _, _ in call.checks.items]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise _shape_error(call) from None
    codes, why = call.checks.codes(shape)
    vals = np.broadcast_to(value, shape)
    if vals.dtype.kind in "fiu":  # numbers: whole-array, same as _cell element by element
        numbers = vals.astype(float)
        out = numbers.astype(object)
        bad = ~np.isfinite(numbers)
        if bad.any():
            out[bad] = ExcelError("#NUM!", "the result is not a finite number")
    elif vals.dtype.kind == "b":
        out = vals.astype(object)
    else:
        out = np.empty(shape, dtype=object)
        for i in np.ndindex(shape):
            out[i] = _cell(vals[i], None, None)
    failed = codes != None  # noqa: E711 (elementwise on an object array)
    if failed.any():
        errors: dict[tuple, ExcelError] = {}
        flat_out, flat_codes, flat_why = out.reshape(-1), codes.reshape(-1), why.reshape(-1)
        for i in np.flatnonzero(failed):
            key = (flat_codes[i], flat_why[i])
            if key not in errors:
                errors[key] = ExcelError(key[0], key[1] or key[0])
            flat_out[i] = errors[key]
    return out.item() if out.ndim == 0 else out.tolist()


_TABLES = {"chips": table, "models": model_table, "prices": price_table}


def call_api(fn, given, single=()):
    """Call the api function ``fn`` with a host's arguments, each read as its description says.

    ``given`` maps every argument of ``fn``'s Excel function
    (:func:`rooflinexl.api_args.arguments`, e.g. the Excel function's
    ``locals()``) to what the host passed: a number argument goes through
    :meth:`Call.number`, a keyword, chip or model name through :meth:`Call.text`
    (a keyword without a default is required), a table range through
    :func:`table`, :func:`model_table` or :func:`price_table` (parsed after the
    other arguments). The arguments named in ``single`` must be one cell.
    """
    c = Call(fn)
    args, ranges = [], {}
    for a in api_args.arguments(fn):
        x = given[a.name]
        if a.kind == api_args.TABLE:
            ranges[a.name] = x
        elif a.kind == api_args.NUMBER:
            args.append(c.number(a.name, x))
        else:
            v = c.text(a.name, x, required=a.kind == api_args.KEYWORD and not a.optional)
            if a.name in single and v is not None and not isinstance(v, str):
                raise RooflineInputError(f"{a.name}: give one value (a cell), not a range")
            args.append(v)
    return call(c, *args, **{name: _TABLES[name](x) for name, x in ranges.items()})


def call(call: Call, *args, **kwargs):
    """Run the call's API function with per-element checks; bad calls: RooflineInputError."""
    try:
        value = call.fn(*args, checks=call.checks, **kwargs)
    except RooflineInputError:
        raise
    except RooflineError as exc:
        raise RooflineInputError(str(exc)) from None
    except ValueError as exc:
        if "broadcast" in str(exc):
            raise _shape_error(call) from None
        raise
    return finish(call, value)
