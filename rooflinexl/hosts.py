"""How each Excel host spells rooflinexl's functions in a saved workbook; ``rooflinexl convert``.

* **classic** xlwings (desktop Excel on Windows, VBA wrappers): ``CRIT_BATCH(…)``.
* **server** and **lite** (xlwings Server and xlwings Lite, Office.js custom
  functions): Excel shows ``=ROOFLINE.CRIT_BATCH(…)`` (the namespace is
  ``rooflinexl.udfs.__xlwings_func_namespace__``) and *stores* it in the file as
  ``_xldudf_ROOFLINE_CRIT_BATCH(…)``: Excel saves a JavaScript custom function
  with the ``_xldudf_`` prefix, the dots of its name as underscores, and only
  a call stored that way is bound to the add-in's function when the file opens
  (a call typed into the file as ``ROOFLINE.CRIT_BATCH(`` stays uncalculated
  until it is re-entered). Sources: Microsoft's answer in
  OfficeDev/Excel-Custom-Functions#108 (2019-02-06: "For Javascript Custom
  Functions, we by default save out with a different prefix _xldudf"), and the
  form of Excel-saved files, e.g. ``_xldudf_CX_GET(…)`` for ``CX.GET``
  (OfficeDev/office-js#5611, #6655).

The headless engine reads every spelling. :func:`convert_workbook` rewrites
the calls of rooflinexl's functions, and nothing else, from any spelling to a
host's, with the engine's formula scanner.
"""
from __future__ import annotations

from rooflinexl.ooxml import Limits, rewrite_formulas

__all__ = ["HOSTS", "convert_formula", "convert_workbook", "spell"]

#: the hosts a workbook can be written for
HOSTS = ("classic", "server", "lite")


def _namespace() -> str:
    from rooflinexl import udfs

    return udfs.__xlwings_func_namespace__


def spell(name: str, host: str) -> str:
    """How ``host`` stores the call name of rooflinexl function ``name`` in a file.

    Parameters
    ----------
    name : str
        The function's Excel name, upper case (``CRIT_BATCH``).
    host : {"classic", "server", "lite"}
        The Excel host.

    Returns
    -------
    str
        ``name`` for classic xlwings; ``_xldudf_ROOFLINE_`` + ``name`` for
        xlwings Server and Lite (shown in Excel as ``ROOFLINE.`` + ``name``).

    Raises
    ------
    ValueError
        For another host.

    Examples
    --------
    >>> spell("CRIT_BATCH", "classic"), spell("CRIT_BATCH", "lite")
    ('CRIT_BATCH', '_xldudf_ROOFLINE_CRIT_BATCH')
    """
    if host == "classic":
        return name
    if host in ("server", "lite"):
        return f"_xldudf_{_namespace()}_{name}"
    raise ValueError(f"host {host!r} is not one of {', '.join(HOSTS)}")


def convert_formula(formula: str, host: str) -> str:
    """``formula`` with every call of a rooflinexl function spelt for ``host``.

    Any spelling is read (``CRIT_BATCH(``, ``ROOFLINE.CRIT_BATCH(``,
    ``_xludf.CRIT_BATCH(``, ``_xldudf_ROOFLINE_CRIT_BATCH(`` …); string
    literals, sheet names, other functions and add-in-qualified calls
    (``[1]!CRIT_BATCH(``) are kept character for character.

    Raises
    ------
    ValueError
        For an unknown host.

    Examples
    --------
    >>> convert_formula('=CRIT_BATCH(Chips,"CRIT_BATCH(",8192)+SUM(1)', "lite")
    '=_xldudf_ROOFLINE_CRIT_BATCH(Chips,"CRIT_BATCH(",8192)+SUM(1)'
    >>> convert_formula("=ROOFLINE.CRIT_BATCH('ROOFLINE.X'!A1)", "classic")
    "=CRIT_BATCH('ROOFLINE.X'!A1)"
    """
    from rooflinexl.recalc.prepass import rename_functions  # the engine's scanner
    from rooflinexl.udfs import FUNCTIONS

    spell("X", host)  # validates host
    return rename_functions(formula, FUNCTIONS, lambda name: spell(name, host))


def convert_workbook(src, dst, host: str, *, limits: Limits = Limits()) -> int:
    """Write ``src`` to ``dst`` with rooflinexl's function calls spelt for ``host``.

    Parameters
    ----------
    src, dst : str or os.PathLike
        The workbook and where to write it (may be the same file; written
        atomically, with ``dst``'s permissions when it exists).
    host : {"classic", "server", "lite"}
        The Excel host to spell the calls for.
    limits : Limits, optional
        Package limits (zip-bomb protection).

    Returns
    -------
    int
        Number of formulas (cells and defined names) that changed.

    Raises
    ------
    ValueError
        For an unknown host.
    UnusableWorkbookError
        When ``src`` is not a readable workbook.

    Notes
    -----
    Only the text of the changed formulas changes: cached values (what every
    reader shows until the host recalculates), every other byte of the sheet
    parts and every other zip member stay as they were.

    Examples
    --------
    >>> import openpyxl, tempfile, os
    >>> from rooflinexl.ooxml import formula_cells
    >>> wb = openpyxl.Workbook(); wb.active["A1"] = '=VERSION()&"VERSION()"'
    >>> p = os.path.join(tempfile.mkdtemp(), "b.xlsx"); wb.save(p)
    >>> convert_workbook(p, p, "lite"), formula_cells(p)
    (1, {'Sheet': {'A1': '_xldudf_ROOFLINE_VERSION()&"VERSION()"'}})
    """
    spell("X", host)
    return rewrite_formulas(src, dst, lambda f: convert_formula(f, host), limits=limits)
