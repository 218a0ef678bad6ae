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

import contextvars
import math
import os
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
    #: :class:`rooflinexl.recalc.blocks.PathCounts`)
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


# ------------------------------------------------------------- evaluation state

#: the cell being calculated (read by the function adapters)
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


# ------------------------------------------------------ host <-> engine values


def to_host(arg: Any, in_errors: list[ExcelError]) -> Any:
    """An argument (the engine's value or array) as a host passes it: scalar or 2-D list
    of lists, ``None`` for an empty cell."""
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

    from rooflinexl.recalc.values import BLANK

    if isinstance(x, np.ndarray) and x.ndim == 0:
        return _host_elem(x.item(), in_errors)
    if x is BLANK or x is None:
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
    """A value given to SUM, COUNT ... (not a reference) as :func:`~rooflinexl.recalc.
    functions.excel_numbers` takes it: an array of more than one value is
    ``(False, rows)``; a single value, typed or computed (a 1x1 array), ``(True, value)``."""
    import numpy as np

    if isinstance(arg, np.ndarray) and arg.size != 1:
        return False, to_host(arg, in_errors)
    return True, to_host(arg, in_errors)


# ----------------------------------------------------------------------- evaluation


def py_value(x: Any) -> Any:
    """A result element (the engine's value) as a plain Python value."""
    import numpy as np

    from rooflinexl.recalc.values import BLANK

    if type(x) is ExcelError:
        return ExcelError(str(x))
    if x is BLANK or x is None:
        return None
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
