"""SHEET, SHEETS and INFO: functions of the workbook and of the Excel computing it.

Microsoft, "SHEET function" (read 2026-12-02): ``SHEET(value)`` is the number of the sheet
``value`` (a reference, or the name of a sheet) is on, of the sheet holding the formula when
omitted; hidden sheets and chart, macro and dialog sheets count; an invalid value is
``#REF!``, the name of no sheet ``#N/A``. "SHEETS function": the number of sheets in a
reference (1 for a reference to one sheet), of the workbook when omitted. "INFO function":
``"system"`` is ``"mac"`` on a Macintosh and ``"pcdos"`` on Windows, ``"recalc"``
``"Automatic"`` or ``"Manual"``, ``"numfile"`` the number of worksheets in the open
workbooks, and ``"memavail"``, ``"memused"``, ``"totmem"`` are no longer supported
(``#N/A``). What the file tells is used: the Excel that saved it (docProps/app.xml), its
calculation mode (``calcPr``), its sheets (the workbook part), this workbook being the only
one open. What only the running copy of Excel knows (``"release"``, ``"osversion"``,
``"directory"``, ``"origin"``) is ``#N/A`` with that reason, never a guess.

The block compiler folds ``SHEET(reference)``, ``SHEET()``, ``SHEETS(reference)`` and
``SHEETS()`` into numbers (:func:`sheet_call`); ``SHEET`` of a computed value and ``INFO``
are functions of the engine's table, reading the workbook in evaluation
(:func:`use_workbook_info`).
"""
from __future__ import annotations

import contextlib
import contextvars

from rooflinexl.errors import ExcelError

__all__ = ["SHEET_NUMBER", "info", "set_workbook_info", "sheet_call", "sheet_number",
           "use_workbook_info"]

#: the engine's name of SHEET of a value computed when evaluating
SHEET_NUMBER = "_XLRX_SHEETNO"

_INFO: contextvars.ContextVar = contextvars.ContextVar("rooflinexl_workbook_info",
                                                       default=None)


@contextlib.contextmanager
def use_workbook_info(info):
    """Within the block: SHEET and INFO read the workbook ``info``
    (:class:`rooflinexl.recalc.loader.WorkbookInfo`, or None: none is being evaluated)."""
    token = _INFO.set(info)
    try:
        yield
    finally:
        _INFO.reset(token)


def set_workbook_info(info) -> None:
    """Within a :func:`use_workbook_info` block (which restores it on leaving): SHEET and
    INFO read the workbook ``info`` from now on."""
    _INFO.set(info)


def _current():
    info = _INFO.get()
    if info is None:
        raise LookupError("SHEET and INFO are evaluated only inside a workbook's evaluation")
    return info


def _one(x):
    """One value of an argument: a 1x1 range is its cell, a larger one None."""
    if isinstance(x, list):
        if len(x) == 1 and isinstance(x[0], list) and len(x[0]) == 1:
            return x[0][0]
        return None
    if hasattr(x, "shape"):  # a whole column from the block path: go row by row
        raise TypeError("scalar function")
    return x


def sheet_number(value):
    """SHEET of a value: the number of the sheet named ``value`` in the workbook being
    evaluated (:func:`use_workbook_info`), names compared regardless of case.

    Parameters
    ----------
    value : str, float, bool, ExcelError or a 1x1 nested list
        The sheet's name. A number or boolean is text that names no sheet.

    Returns
    -------
    float or ExcelError
        1 for the first sheet in tab order; ``#N/A`` when no sheet has that name
        (Microsoft: ``=SHEET("badSheetName")``; IronCalc's tables.xlsx caches ``#N/A`` for
        ``SHEET(1)``); ``#VALUE!`` for a range of several cells; an error value is itself.

    Examples
    --------
    >>> from rooflinexl.recalc.loader import WorkbookInfo
    >>> with use_workbook_info(WorkbookInfo(("Sheet1", "Hidden", "Filters"))):
    ...     sheet_number("filters"), str(sheet_number("Nope")), str(sheet_number(1.0))
    (3.0, '#N/A', '#N/A')
    """
    v = _one(value)
    if v is None and isinstance(value, list):
        return ExcelError("#VALUE!", "SHEET: a range where one value belongs")
    if isinstance(v, ExcelError):
        return v
    name = "" if v is None else v if isinstance(v, str) else _text(v)
    folded = name.casefold()
    for i, s in enumerate(_current().sheets, 1):
        if s.casefold() == folded:
            return float(i)
    return ExcelError("#N/A", f"SHEET: no sheet is named {name!r}")


def _text(v) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    from rooflinexl.recalc.functions import value_text

    return value_text(v)


def sheet_call(name: str, args: list, sheet: str, sheets) -> object:
    """The compiled node of ``SHEET(...)`` or ``SHEETS(...)`` (``name``) with compiled
    arguments ``args`` in a formula on ``sheet``: a number where the reference or its
    absence tells it, else SHEET of the value when evaluating (:data:`SHEET_NUMBER`).

    Parameters
    ----------
    name : {"SHEET", "SHEETS"}
    args : list of compiled nodes (:mod:`rooflinexl.recalc.compile`)
    sheet : str
        The sheet holding the formula.
    sheets : sequence of str
        Every sheet of the workbook in tab order (chart sheets too).

    Returns
    -------
    Lit or Call
        ``Lit(n)``, ``Lit(error)`` or ``Call(SHEET_NUMBER, [value])``.

    Examples
    --------
    >>> from rooflinexl.recalc.compile import Rng
    >>> sheet_call("SHEET", [], "B", ("A", "B")).value
    2.0
    >>> sheet_call("SHEET", [Rng("A", 1, 1, 1, 1, False, False)], "B", ("A", "B")).value
    1.0
    >>> sheet_call("SHEETS", [], "B", ("A", "B")).value
    2.0
    """
    from rooflinexl.recalc.compile import Call, Lit, Rng, Unsupported
    from rooflinexl.recalc.values import ERR, ERRORS, kind_of

    def index(s: str) -> Lit:
        folded = [x.casefold() for x in sheets]
        return Lit(float(folded.index(s.casefold()) + 1) if s.casefold() in folded
                   else ERRORS["#REF!"])

    if len(args) > 1:
        raise Unsupported(f"{name} with {len(args)} arguments")
    if not args:
        return index(sheet) if name == "SHEET" else Lit(float(len(sheets)))
    arg = args[0]
    if isinstance(arg, Lit) and kind_of(arg.value) == ERR:
        return arg
    if isinstance(arg, Rng):
        return index(arg.sheet) if name == "SHEET" else Lit(1.0)
    if name == "SHEETS":
        if isinstance(arg, Call) and arg.name == "{union}":
            raise Unsupported("SHEETS of a union of references")
        return Lit(ERRORS["#REF!"])  # Microsoft: "not a valid value": #REF!
    if isinstance(arg, Call) and arg.name in ("INDEX", "OFFSET", "INDIRECT", "IF", "CHOOSE",
                                              "{union}", "XLOOKUP", "IFS", "SWITCH"):
        raise Unsupported(f"SHEET of what may be a reference ({arg.name})")
    return Call(SHEET_NUMBER, [arg], SHEET_NUMBER)


#: INFO's type_text values that only the running copy of Excel knows
_MACHINE = {
    "directory": "the current folder of the Excel computing it",
    "origin": "the window's scroll position in the Excel computing it",
    "osversion": "the operating system of the Excel computing it",
    "release": "the version of the Excel computing it",
}


def info(type_text):
    """INFO(type_text): what Microsoft's "INFO function" documents, from the workbook being
    evaluated (:func:`use_workbook_info`).

    Parameters
    ----------
    type_text : str (or a 1x1 nested list, an ExcelError)
        ``"system"``, ``"recalc"``, ``"numfile"`` ... in any case.

    Returns
    -------
    str, float or ExcelError
        ``"system"``: ``"mac"`` when Excel for Mac saved the workbook (docProps/app.xml
        ``Microsoft Macintosh Excel``), else ``"pcdos"`` (PhpSpreadsheet's issue.3658.xlsx,
        saved by Windows Excel, caches ``pcdos``); ``"recalc"``: ``"Manual"`` when the
        workbook's calcPr says so, else ``"Automatic"``; ``"numfile"``: the number of the
        workbook's worksheets (it being the only workbook open); ``"memavail"``,
        ``"memused"``, ``"totmem"``: ``#N/A`` (Microsoft: no longer supported);
        ``"directory"``, ``"origin"``, ``"osversion"``, ``"release"``: ``#N/A`` naming why
        (only the running Excel knows); any other text ``#VALUE!``.

    Examples
    --------
    >>> from rooflinexl.recalc.loader import WorkbookInfo
    >>> with use_workbook_info(WorkbookInfo(("S", "T"), "Microsoft Excel", False, 2)):
    ...     info("SYSTEM"), info("recalc"), info("numfile"), str(info("totmem"))
    ('pcdos', 'Automatic', 2.0, '#N/A')
    >>> with use_workbook_info(WorkbookInfo(("S",), "Microsoft Macintosh Excel", True)):
    ...     info("system"), info("Recalc"), str(info("release")), str(info("x"))
    ('mac', 'Manual', '#N/A', '#VALUE!')
    """
    v = _one(type_text)
    if v is None and isinstance(type_text, list):
        return ExcelError("#VALUE!", "INFO: a range where one value belongs")
    if isinstance(v, ExcelError):
        return v
    if not isinstance(v, str):
        what = "an empty cell" if v is None else repr(v)
        return ExcelError("#VALUE!", f"INFO: type_text {what} is not one Excel knows")
    key = v.strip().casefold()
    wb = _current()
    if key == "system":
        return "mac" if wb.application and "macintosh" in wb.application.casefold() else "pcdos"
    if key == "recalc":
        return "Manual" if wb.manual else "Automatic"
    if key == "numfile":
        return float(wb.worksheets)
    if key in ("memavail", "memused", "totmem"):
        return ExcelError("#N/A", f"INFO({v!r}) is no longer supported by Excel")
    if key in _MACHINE:
        return ExcelError("#N/A", f"INFO({v!r}) is {_MACHINE[key]}, which the file "
                          "does not record")
    return ExcelError("#VALUE!", f"INFO: type_text {v!r} is not one Excel knows")
