"""The engine's results, its function registry and the host-call adapter.

:class:`CellResult` and :class:`Evaluation` are what an evaluation gives (one result per
formula cell, each cell of an array formula's range included: the value and, for an
error value, its reason); :func:`register_function` adds Excel functions for every later
evaluation; :func:`host_call` calls a function written for spreadsheet hosts (ranges as
lists of rows, ``None`` for empty cells) with the engine's values, its failures error
values with their reasons (:class:`State`); :func:`evaluate_workbook` computes a workbook
(:func:`rooflinexl.recalc.blocks.evaluate_blocks`). Writing the values back into the file
is not done here.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import os
import threading
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rooflinexl.errors import EXCEL_ERRORS, ExcelError, RooflineError
from rooflinexl.recalc.prepass import (
    OMITTED,
)

__all__ = [
    "CellResult",
    "EngineError",
    "Evaluation",
    "evaluate_workbook",
    "register_function",
    "registered_functions",
    "unregister_function",
]


class EngineError(RooflineError, RuntimeError):
    """The headless engine cannot load or compute the workbook."""


# --------------------------------------------------------------------------- results


@dataclass(slots=True)
class CellResult:
    """The computed value of one formula cell."""

    sheet: str  # sheet title as in the workbook
    cell: str  # 'B7' (no $)
    formula: str  # the formula as written in the workbook
    value: object  # float | int | bool | str | ExcelError | None
    reason: str = ""  # why, for an error value; never empty then
    array_ref: str | None = None  # 'D2:E3' when the cell belongs to an array formula

    @property
    def is_error(self) -> bool:
        return isinstance(self.value, ExcelError)

    @property
    def address(self) -> str:
        return f"{self.sheet}!{self.cell}"


@dataclass
class Evaluation:
    """Everything :func:`evaluate_workbook` computed."""

    cells: dict[tuple[str, str], CellResult]
    unknown_functions: set[str] = field(default_factory=set)
    #: what the pre-pass rewrote: (sheet, cell) or ("", "name:X") -> (before, after)
    rewrites: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    sheets: list[str] = field(default_factory=list)  # sheet titles in workbook order
    #: how many cells each evaluation path computed (set by the block evaluator,
    #: :class:`rooflinexl.recalc.blocks.PathCounts`); None from the per-cell engine alone
    paths: Any = None

    def errors(self) -> list[CellResult]:
        """The error cells, in workbook order."""
        own = getattr(self.cells, "errors", None)  # the block evaluator's cells find them
        if own is not None:
            return own()
        return [c for c in self.cells.values() if c.is_error]

    def by_sheet(self) -> dict[str, list[CellResult]]:
        """Formula cells per sheet (every sheet of the workbook, in order)."""
        out: dict[str, list[CellResult]] = {s: [] for s in self.sheets}
        for c in self.cells.values():
            out.setdefault(c.sheet, []).append(c)
        return out

    def value(self, sheet: str, cell: str) -> object:
        """Shortcut: ``cells[(sheet, cell)].value``."""
        return self.cells[(sheet, cell.replace("$", "").upper())].value


# ------------------------------------------------------------------------ registry

_REGISTRY: dict[str, Callable] = {}


def register_function(name: str, func: Callable) -> None:
    """Make ``func`` available as Excel function ``name`` to every later evaluation.

    The ``functions`` argument of :func:`evaluate_workbook` takes precedence
    over this registry for the same name. The registry starts empty.
    """
    if not callable(func):
        raise TypeError(f"{name}: {func!r} is not callable")
    _REGISTRY[name.upper()] = func


def unregister_function(name: str) -> None:
    """Forget a function registered with :func:`register_function` (no error if absent)."""
    _REGISTRY.pop(name.upper(), None)


def all_functions(functions: Mapping[str, Callable] | None = None) -> dict[str, Callable]:
    """The engine's function table for one evaluation: Excel built-ins it implements itself
    (:data:`rooflinexl.recalc.functions.BUILTINS`), then the registry, then ``functions``
    (upper-case names; a later one wins)."""
    from rooflinexl.recalc.functions import BUILTINS

    return {**BUILTINS, **_REGISTRY, **{k.upper(): v for k, v in (functions or {}).items()}}


def registered_functions() -> dict[str, Callable]:
    """A copy of the registry: upper-case name -> callable."""
    return dict(_REGISTRY)


# ---------------------------------------------------------------- formulas plumbing

_LOCK = threading.RLock()
#: the formulas node id of the cell being calculated (read by the function adapters)
CURRENT: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "rooflinexl_recalc_cell", default=None
)
#: the :class:`State` of the evaluation in progress
STATE: contextvars.ContextVar[State | None] = contextvars.ContextVar(
    "rooflinexl_recalc_state", default=None
)

#: what each Excel error value means, for messages
DESCRIPTIONS = {
    "#DIV/0!": "division by zero",
    "#N/A": "value not available (a lookup found no match, or NA())",
    "#VALUE!": "wrong type of argument or operand",
    "#NUM!": "invalid numeric value",
    "#REF!": "invalid cell reference",
    "#NULL!": "empty intersection of ranges",
    "#NAME?": "unknown name or function",
}



class State:
    """Per-evaluation bookkeeping shared with the function adapters: the reasons of the
    error values our functions return, by the cell computing (:data:`CURRENT`)."""

    def __init__(self) -> None:
        # the calling cell -> [(code, reason, (row, col) | None)]
        self.udf_errors: dict[str | None, list[tuple[str, str, tuple[int, int] | None]]] = {}

    def record(self, code: str, reason: str, pos: tuple[int, int] | None = None) -> None:
        self.udf_errors.setdefault(CURRENT.get(), []).append((code, reason, pos))


def _formulas():
    try:
        import formulas  # noqa: F401
        from formulas.functions import Array, get_functions, not_implemented, wrap_func
        from formulas.tokens.operand import Error, XlError
    except ImportError as ex:  # pragma: no cover - dependency missing
        raise EngineError(
            "headless recalculation needs the 'formulas' package: pip install 'rooflinexl[cli]'"
        ) from ex
    return types.SimpleNamespace(
        Array=Array, get_functions=get_functions, not_implemented=not_implemented,
        wrap_func=wrap_func, Error=Error, XlError=XlError,
    )


def _empty():
    import schedula as sh

    return sh.EMPTY


# ---------------------------------------------------------- host <-> formulas values


def to_host(arg: Any, in_errors: list[ExcelError]) -> Any:
    """A ``formulas`` argument as a host passes it: scalar or 2-D list of lists."""
    import numpy as np

    if isinstance(arg, np.ndarray):
        if arg.ndim == 0:
            return _host_elem(arg.item(), in_errors)
        if arg.ndim == 1:
            arg = arg.reshape(1, -1)
        if arg.shape == (1, 1):
            return _host_elem(arg[0, 0], in_errors)
        return [[_host_elem(x, in_errors) for x in row] for row in arg.tolist()]
    return _host_elem(arg, in_errors)


def _host_elem(x: Any, in_errors: list[ExcelError]) -> Any:
    import numpy as np

    from rooflinexl.recalc.values import BLANK, from_formulas

    if isinstance(x, np.ndarray) and x.ndim == 0:  # formulas' -1.1 in an array constant
        return _host_elem(x.item(), in_errors)
    if x is BLANK or x is None:
        return None
    x = from_formulas(x)  # a formulas value (the per-cell engine's): the engine's own
    if x is BLANK:
        return None
    if isinstance(x, ExcelError):
        written = getattr(x, "written", None) or str(x)
        code = written if written in EXCEL_ERRORS else "#VALUE!"
        err = ExcelError(code, "error value in an argument")
        if code != written:
            err.written = written  # #GETTING_DATA ...: ERROR.TYPE tells them apart
        in_errors.append(err)
        return err
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, str):
        return None if x == OMITTED else str(x)
    if hasattr(x, "ranges") and hasattr(x, "value"):  # a Ranges object nested in an array
        return to_host(x.value, in_errors)
    return x


def _error_code(x: Any) -> str | None:
    if isinstance(x, str) and x in EXCEL_ERRORS:
        return str(x)
    return None


def from_host(out: Any, name: str, state: State | None, in_errors: list[ExcelError],
              plain_text: bool = False) -> Any:
    """A host return value as the engine's value (:mod:`rooflinexl.recalc.values`: one of
    its ``ERRORS``, ``BLANK``, a scalar or an ``Array``). With ``plain_text`` (the
    engine's own functions, ``func.plain_text``) only an
    :class:`~rooflinexl.errors.ExcelError` is an error value, and the text ``"#DIV/0!"``
    stays text (``TRIM`` of a cell holding that text)."""
    import numpy as np

    from rooflinexl.recalc.values import BLANK, ERRORS, Array

    def elem(x: Any, pos: tuple[int, int] | None) -> Any:
        if isinstance(x, np.generic):
            x = x.item()
        code = None if plain_text and type(x) is str else _error_code(x)
        if code is not None:
            if not any(x is e for e in in_errors) and state is not None:
                reason = getattr(x, "reason", "") or f"{name} returned {code}"
                state.record(code, reason, pos)
            return ERRORS[code]
        if x is None or x is BLANK:
            return BLANK
        if isinstance(x, float) and not math.isfinite(x):
            if state is not None:
                state.record("#NUM!", f"{name} returned a non-finite number ({x})", pos)
            return ERRORS["#NUM!"]
        if isinstance(x, (bool, int, float, str)):
            return x
        if state is not None:
            state.record("#VALUE!", f"{name} returned an unsupported value {x!r}", pos)
        return ERRORS["#VALUE!"]

    if isinstance(out, np.ndarray):
        out = out.item() if out.ndim == 0 else out.tolist()
    if isinstance(out, tuple):
        out = list(out)
    if not isinstance(out, list):
        return elem(out, None)
    if not out:
        if state is not None:
            state.record("#VALUE!", f"{name} returned an empty array")
        return ERRORS["#VALUE!"]
    rows = out if all(isinstance(r, (list, tuple, np.ndarray)) for r in out) else [out]
    rows = [list(r) for r in rows]
    width = max(len(r) for r in rows)
    arr = np.empty((len(rows), max(width, 1)), object)
    arr[:, :] = ERRORS["#N/A"]  # ragged rows are padded like an Excel spill
    for i, r in enumerate(rows):
        for j, x in enumerate(r):
            arr[i, j] = elem(x, (i, j))
    return arr.view(Array)


def _is_omitted(x: Any) -> bool:
    """Whether ``x`` is an argument left out (:data:`OMITTED`, as the pre-pass writes it)."""
    import numpy as np

    if isinstance(x, np.ndarray) and x.size == 1:
        x = x.reshape(-1)[0]
    return isinstance(x, str) and x == OMITTED


def host_call(name: str, func: Callable) -> Callable:
    """``func`` (host conventions) as a function of the engine's values
    (:mod:`rooflinexl.recalc.values`): arguments through :func:`to_host`, the result
    through :func:`from_host`; a failure is an error value with its reason recorded."""
    from rooflinexl.recalc.values import ERRORS, Array

    def call(*args: Any) -> Any:
        state = STATE.get()
        in_errors: list[ExcelError] = []
        host_args = [omitted if omitted is not None and _is_omitted(a) else to_host(a, in_errors)
                     for a in args]
        try:
            out = func(*host_args)
        except Exception as ex:  # noqa: BLE001 - every failure becomes an error value
            code = getattr(ex, "excel", None) if isinstance(ex, RooflineError) else None
            if code not in EXCEL_ERRORS:
                code = "#VALUE!"
            msg = str(ex) or type(ex).__name__
            if not isinstance(ex, RooflineError):
                msg = f"{type(ex).__name__}: {msg}"
            if state is not None:
                state.record(code, f"{name}: {msg}")
            return ERRORS[code]
        res = from_host(out, name, state, in_errors, plain)
        if filler is not None and isinstance(res, Array):
            res._default = filler  # where an array formula's range is larger than the result
        return res

    filler = getattr(func, "array_filler", None)
    plain = getattr(func, "plain_text", False)
    omitted = getattr(func, "omitted", None)  # what it takes for an argument left out
    call.__name__ = call.__qualname__ = name
    return call


def host_numbers_arg(arg: Any, in_errors: list[ExcelError]) -> tuple[bool, Any]:
    """A ``formulas`` argument of SUM, COUNT ... as :func:`~rooflinexl.recalc.functions.
    excel_numbers` takes it: a reference (formulas' ``Ranges``, also INDEX's result) or an
    array of more than one value is ``(False, rows)``; a single value, typed or computed
    (formulas holds a computed one as a 1x1 array), is ``(True, value)``."""
    import numpy as np

    if hasattr(arg, "ranges") and hasattr(arg, "value"):
        value = np.asarray(arg.value, dtype=object)
        value = value.reshape(1, -1) if value.ndim < 2 else value
        return False, [[_host_elem(x, in_errors) for x in row] for row in value.tolist()]
    if isinstance(arg, np.ndarray) and arg.size != 1:
        return False, to_host(arg, in_errors)
    return True, to_host(arg, in_errors)


def _numbers_function(kind: str) -> Callable:
    """formulas-level SUM, PRODUCT, AVERAGE, MAX, MIN or COUNT with Excel's argument
    rules (:func:`rooflinexl.recalc.functions.excel_numbers`); it receives references
    unresolved, to tell a cell's ``"3"`` (skipped) from a typed ``"3"`` (a number)."""
    from rooflinexl.recalc.functions import excel_numbers
    from rooflinexl.recalc.values import to_formulas

    F = _formulas()

    def call(*args: Any) -> Any:
        in_errors: list[ExcelError] = []
        out = excel_numbers(kind, [host_numbers_arg(a, in_errors) for a in args])
        return to_formulas(from_host(out, kind, STATE.get(), in_errors))

    call.__name__ = call.__qualname__ = kind
    return F.wrap_func(call, ranges=True)


def formulas_overrides(table: Mapping[str, Any]) -> dict:
    """Excel's rules in place of formulas' INDEX (over an array) and TEXT, built from
    formulas' own entries in ``table``, and the functions of a list of numbers
    (:data:`~rooflinexl.recalc.functions.EXCEL_NUMBERS`: SUM, COUNT, COUNTA, MEDIAN,
    STDEV.S ..., also under the ``_xlfn.`` name Excel saves); the per-cell engine's table and
    the block path's (kernels) both take them."""

    from rooflinexl.recalc.functions import EXCEL_NUMBERS

    numbers = {f"{p}{name}": _numbers_function(name) for name in EXCEL_NUMBERS
               for p in ("", "_XLFN.")}
    return {**numbers, "INDEX": _index_function(table["INDEX"]), "TEXT": _text_function()}


def _text_function():
    """formulas' TEXT, with number, date and time formats as Excel writes them
    (:func:`rooflinexl.recalc.functions.text_format`, also for text and boolean values;
    an empty format is no format); a condition (``[>100]``) or a code it does not know
    stay formulas'."""
    import numpy as np
    from formulas.functions import text as ft

    from rooflinexl.recalc.functions import dates_from_1904, excel_numbers, text_format, value_text

    F = _formulas()

    def xtext(value, format_code):
        x = value.item() if isinstance(value, np.generic) else value
        if isinstance(x, str) and not isinstance(x, F.XlError) and x.strip():
            n = excel_numbers("SUM", [(True, x)])  # numeric (or date) text: its number
            if isinstance(n, float) and dates_from_1904():
                try:
                    float(x)
                except ValueError:  # read as a 1900-system date: never four years off
                    return F.Error.errors["#VALUE!"]
            x = n if isinstance(n, float) else x
        fmt = format_code.item() if isinstance(format_code, np.generic) else format_code
        if fmt is _empty() or fmt is None:  # an empty cell as the format: no format at all
            fmt = format_code = ""
        elif isinstance(fmt, (bool, int, float)):  # a number as the format: its text
            fmt = format_code = value_text(fmt)  # (15 digits; 0 and 0.0 alike "0")
        if x is _empty() or x is None:
            x = value = 0
        out = text_format(x, fmt) if isinstance(fmt, str) else None
        if isinstance(out, ExcelError):
            return F.Error.errors[str(out)]
        return ft.xtext(value, format_code) if out is None else out

    # empty arguments reach xtext as they are (an empty format is not the format "0")
    return ft.wrap_ufunc(xtext, input_parser=lambda *a: a, args_parser=lambda *a: a)


def _index_function(formulas_index: dict) -> dict:
    """formulas' INDEX, except over an array (not a reference) with one position value
    each: Excel's rules (:func:`rooflinexl.recalc.functions.index_array`: row or column
    0 the entire column or row, where formulas took the first element)."""
    import numpy as np
    from formulas.functions import wrap_impure_func

    from rooflinexl.recalc.functions import index_array
    from rooflinexl.recalc.values import to_formulas

    F = _formulas()
    inner = formulas_index["function"]

    def call(array, *pos):
        if hasattr(array, "ranges") or len(pos) not in (1, 2) or any(
                isinstance(p, np.ndarray) and p.ndim > 0 or hasattr(p, "ranges") and (
                    np.asarray(p.value).size != 1) for p in pos):
            return inner(False, array, *pos)
        in_errors: list[ExcelError] = []
        host = [to_host(p.value if hasattr(p, "ranges") else p, in_errors) for p in pos]
        grid = to_host(array, in_errors)
        out = index_array(grid if isinstance(grid, list) else [[grid]], *host)
        return to_formulas(from_host(out, "INDEX", STATE.get(), in_errors))

    return {**formulas_index, "function": wrap_impure_func(F.wrap_func(call, ranges=True))}


@contextlib.contextmanager
def excel_semantics(formulas_table: bool = True):
    """While active, ``formulas`` follows Excel where it did not: numbers and booleans
    become text as Excel writes them (:func:`rooflinexl.recalc.functions.value_text`: 15
    significant digits, ``TRUE``) in ``&``, ``LEN``, ``LEFT``, ``CONCAT`` ... (its own
    ``_str`` prints 17 digits and a numpy boolean as ``True``), the operators are the
    block path's own (:mod:`rooflinexl.recalc.operators`: ``0^-1`` is ``#DIV/0!`` ...;
    :func:`own_operators`), and ``--x`` is
    a number (``formulas`` reads it as ``+x``); complex numbers as text have 15
    significant digits per part; date text outside years 1900-9999 is no date.
    Both evaluation paths run inside it. ``formulas_table=False`` leaves formulas' own
    function table alone (loading it imports scipy.stats, a second or more): the block
    path does not read it (:func:`rooflinexl.recalc.kernels.BlockEval._fn` has its own,
    with the same fixes); the per-cell engine enters again with it."""
    import formulas.functions.date as fd
    import formulas.functions.eng as fe
    import formulas.functions.operators as fo
    import formulas.functions.text as ft
    import numpy as np
    from formulas.tokens.operator import Operator

    from rooflinexl.recalc.functions import complex_text, value_text

    plain_compile = Operator.compile

    def compile_operator(self):
        # formulas folds "--x" into a unary plus, which keeps TRUE as TRUE; Excel negates
        # twice, so the value becomes a number
        if self.name == "u+" and "-" in self.attr.get("sum_minus", ""):
            neg = fo.OPERATORS["U-"]
            return lambda x: neg(neg(x))
        return plain_compile(self)

    plain_complex = fe._fmt_complex
    plain_text2date = fd._text2datetime

    def text2date(text):
        date = plain_text2date(text)
        if not 1900 <= date[0] <= 9999:  # Excel reads no date text outside its calendar
            raise ValueError(f"{text!r} is not a date Excel knows")
        return date

    def fmt_complex(r, i, suffix="j"):
        if not (np.isfinite(r) and np.isfinite(i)):
            return plain_complex(r, i, suffix)  # formulas' #NUM!
        return complex_text(float(r), float(i), suffix)

    table = _formulas().get_functions() if formulas_table else {}
    table_fixes = table_fixes_of_formulas()
    with _LOCK:
        saved = (ft._str, fo._str, Operator.compile, fe._fmt_complex, fd._text2datetime)
        operators = own_operators()
        saved_operators = {k: fo.OPERATORS[k] for k in operators}
        saved_table = {k: table[k] for k in table_fixes if k in table}
        ft._str = fo._str = value_text
        fo.OPERATORS.update(operators)
        Operator.compile = compile_operator
        fe._fmt_complex = fmt_complex
        fd._text2datetime = text2date
        table.update(table_fixes)
        try:
            yield
        finally:
            (ft._str, fo._str, Operator.compile, fe._fmt_complex, fd._text2datetime) = saved
            fo.OPERATORS.update(saved_operators)
            for k in table_fixes:
                table.pop(k, None)
            table.update(saved_table)


@functools.cache
def own_operators() -> dict[str, Callable]:
    """The block path's operators (:mod:`rooflinexl.recalc.operators`) as entries of
    ``formulas``' operator table (``+``, ``U-``, ``&``, ``=`` ...), so that both paths
    compute an operator alike: ``formulas`` still brings the arguments to one shape,
    each element is turned into the engine's value and the result back
    (:func:`rooflinexl.recalc.values.from_formulas`, ``to_formulas``)."""
    import formulas.functions.operators as fo
    import numpy as np

    from rooflinexl.recalc.operators import BINARY, UNARY
    from rooflinexl.recalc.values import from_formulas, to_formulas

    def entry(op):
        def element(*vals):
            vals = [v.item() if isinstance(v, np.ndarray) and v.ndim == 0 else v
                    for v in vals]
            return to_formulas(op(*[from_formulas(v) for v in vals]))

        element.__name__ = op.__name__
        return fo.wrap_ufunc(element, input_parser=lambda *a: a,
                             args_parser=lambda *a: a, check_error=lambda *a: None)

    return {**{k: entry(op) for k, op in BINARY.items()},
            **{k.upper(): entry(op) for k, op in UNARY.items()}}


@functools.cache
def table_fixes_of_formulas() -> dict[str, Callable]:
    """Entries of ``formulas``' function table replaced while :func:`excel_semantics` is
    active. SCAN and MAP as ``formulas`` has them, but keeping an error value an error:
    its own build their result with ``np.asarray(values)``, which turns ``#VALUE!`` (an
    ``XlError``, a ``str``) into the text "#VALUE!" whenever every value is text or an
    error (``SCAN("a", {1;3}, LAMBDA(a, b, a+b^2))`` is two ``#VALUE!`` in Excel).
    (MINVERSE, IMCSC and IMLOG2 are our own: :mod:`rooflinexl.recalc.engineering`.)
    RANDBETWEEN an integer (formulas draws any number between the bounds). NOW and TODAY
    the recalculation's one moment (:func:`rooflinexl.recalc.kernels.now_serial`), as on
    the block path."""
    import formulas.functions as fu
    import numpy as np
    from formulas.functions import flatten, replace_empty

    from rooflinexl.recalc.kernels import now_serial

    F = _formulas()

    def first(v):
        return v.ravel()[0] if isinstance(v, np.ndarray) else v

    def scan(initial_value, array, func):
        array = np.atleast_2d(array)
        out, acc = [], replace_empty(initial_value)
        for x in flatten(array, None):
            acc = func(acc, x)
            out.append(first(acc))
        return np.asarray(out, object).reshape(array.shape).view(F.Array)

    def map_(array, func, *arrays):
        if arrays:  # MAP(array1, array2, ..., lambda)
            arrays = (func, *arrays)
            func, arrays = arrays[-1], arrays[:-1]
        array = np.atleast_2d(array)
        arrays = [array] + [np.atleast_2d(v) for v in arrays]
        if not callable(func) or any(v.shape != array.shape for v in arrays):
            return np.asarray([[F.Error.errors["#VALUE!"]]], object).view(F.Array)
        cols = [list(flatten(v, None)) for v in arrays]  # equal shapes: equal lengths
        out = [first(func(*args)) for args in zip(*cols, strict=True)]
        return np.asarray(out, object).reshape(array.shape).view(F.Array)

    scan_f, map_f = F.wrap_func(scan), F.wrap_func(map_)

    def randbetween_(bottom, top):
        # an integer from bottom to top (Microsoft: "the smallest integer RANDBETWEEN will
        # return", "the largest"): formulas returns any number in between
        if isinstance(bottom, bool) or isinstance(top, bool):
            return F.Error.errors["#VALUE!"]
        low, high = math.ceil(bottom), math.floor(top)
        if low > high:
            return F.Error.errors["#NUM!"]
        return float(np.random.randint(low, high + 1))

    return {"_XLFN.SCAN": scan_f, "SCAN": scan_f, "_XLFN.MAP": map_f, "MAP": map_f,
            "RANDBETWEEN": fu.wrap_ufunc(randbetween_, input_parser=lambda *a: a),
            "NOW": {"extra_inputs": {fu.COMPILING: False},
                    "function": fu.wrap_impure_func(fu.wrap_func(now_serial))},
            "TODAY": {"extra_inputs": {fu.COMPILING: False},
                      "function": fu.wrap_impure_func(fu.wrap_func(lambda: float(int(
                          now_serial()))))}}


# ----------------------------------------------------------------------- evaluation


def py_value(x: Any) -> Any:
    """A result element (the engine's value or a formulas one) as a plain Python value."""
    import sys

    import numpy as np

    from rooflinexl.recalc.values import BLANK

    if type(x) is ExcelError:
        return ExcelError(str(x))
    if x is BLANK or x is None:
        return None
    if "formulas" in sys.modules:
        F = _formulas()
        from formulas.excel import XlCircular

        if isinstance(x, XlCircular):
            return ExcelError("#VALUE!", "circular reference")
        if isinstance(x, F.XlError):
            code = str(x)
            return ExcelError(code if code in EXCEL_ERRORS else "#N/A")
        if x is _empty():
            return None
    if hasattr(x, "ranges") and hasattr(x, "value"):
        v = np.asarray(x.value)
        return py_value(v.flat[0]) if v.size else None
    if isinstance(x, np.ndarray):
        return py_value(x.flat[0]) if x.size else None
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, bool):
        return x
    if isinstance(x, float):
        if not math.isfinite(x):
            return ExcelError("#NUM!", "the result is not a finite number")
        return x
    if isinstance(x, int):
        return x
    if isinstance(x, str):
        return str(x)
    if isinstance(x, complex):
        return ExcelError("#NUM!", "the result is a complex number")
    return str(x)



def evaluate_workbook(
    path: str | os.PathLike,
    functions: Mapping[str, Callable] | None = None,
) -> Evaluation:
    """Compute every formula of the workbook at ``path``; the file is only read.

    Parameters
    ----------
    path : path-like
        An .xlsx or .xlsm workbook.
    functions : mapping of str to callable, optional
        Upper-case Excel names to Python callables that take arguments as spreadsheet
        hosts pass them (a range -> list of row lists with ``None`` for empty cells; a
        single cell or literal -> scalar; an omitted argument -> ``None``) and return a
        scalar or a list of row lists, with error values as
        :class:`~rooflinexl.errors.ExcelError` or strings like ``"#N/A"``. An exception
        raised by a function becomes ``#VALUE!`` (or the ``excel`` code of a rooflinexl
        exception) with the message as reason. Added to the Excel functions the engine
        implements and those of :func:`register_function`.

    Returns
    -------
    Evaluation
        One :class:`CellResult` per formula cell (each cell of an array formula's range
        included): the value and, for an error value, its reason.

    Raises
    ------
    EngineError
        The workbook does not exist.
    rooflinexl.ooxml.UnusableWorkbookError
        The file is not a workbook, is encrypted or over a limit.

    Notes
    -----
    The same evaluation as ``rooflinexl recalc`` (:func:`rooflinexl.recalc.blocks.
    evaluate_blocks`), without writing anything.
    """
    from rooflinexl.recalc.blocks import evaluate_blocks

    if not os.path.exists(path):
        raise EngineError(f"no such workbook: {path}")
    return evaluate_blocks(path, functions)
