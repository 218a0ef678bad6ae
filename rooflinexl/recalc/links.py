"""References to other workbooks (external links), from the values the file keeps of them.

Excel keeps, for every other workbook a formula refers to (``[1]Sheet1!A1``,
``'[1]My sheet'!A1:B2``, ``[1]!Name``), the values of the cells it read in the package's
``xl/externalLinks/externalLinkN.xml`` (ECMA-376 Part 1, 18.14: ``<sheetDataSet>``), and
computes the formula from them until the link is refreshed; the engine never opens the other
workbook. The loader reads them once (:func:`rooflinexl.ooxml.package.external_cells`,
``Book.external``: ``(n, SHEET, "A1") -> value``, a name of one cell ``(n, "", NAME)`` or
``(n, SHEET, NAME)``). A reference the file holds no value for (a sheet whose refresh
failed, ``refreshError``; a name of a range or of ``#REF!``; a cell not cached) is
``#REF!`` with that reason, as Excel shows an unresolved link (the calamine project's
errors.xlsx caches ``#REF!`` for ``=[1]Feuil8!A1`` with that sheet's refresh failed). A
function of another workbook (an add-in's ``[1]!HsGetValue(..)``) is ``#NAME?``: its code
is not in the file. ``[0]`` is this workbook (the parser reads ``[0]!Name`` as ``Name``).
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from rooflinexl.addresses import column_letters, column_number
from rooflinexl.errors import ExcelError

__all__ = ["external_function", "external_reference", "kept_cells",
           "kept_sheet"]

_CELL = re.compile(r"^(\$?)([A-Za-z]{1,3})(\$?)([0-9]{1,7})$")
#: an external range larger than this is not written out as an array constant
_MAX_CELLS = 10_000
#: a filled-down block with cells not kept is one CHOOSE of this many values at most
_MAX_CHOICES = 2_000


def kept_sheet(n: int, sheet: str) -> str:
    """The name under which the evaluator's store holds the cells the file keeps of sheet
    ``sheet`` of other workbook ``n`` (no worksheet can have it: ``[`` is not allowed in a
    sheet name).

    >>> kept_sheet(1, "Data")
    '[1]DATA'
    """
    return f"[{n}]{sheet.upper()}"


def kept_cells(external: Mapping) -> dict[str, dict[int, tuple[list, list]]]:
    """The kept cells of other workbooks by :func:`kept_sheet` and column:
    ``{sheet: {col: (rows, values)}}`` (names left out).

    >>> kept_cells({(1, "D", "B2"): 5.0, (1, "", "RATE"): 1.0})
    {'[1]D': {2: ([2], [5.0])}}
    """
    out: dict[str, dict[int, tuple[list, list]]] = {}
    for (n, sheet, a1), v in external.items():
        m = _CELL.match(a1)
        if m is None or not sheet:
            continue
        rows, vals = out.setdefault(kept_sheet(n, sheet), {}).setdefault(
            column_number(m.group(2)), ([], []))
        rows.append(int(m.group(4)))
        vals.append(v)
    return out


def _corners(span: str):
    """((col, row, row fixed), ...) of the corners of an A1 span, or None."""
    out = []
    for part in span.split(":"):
        m = _CELL.match(part)
        if m is None:
            return None
        out.append((column_number(m.group(2)), int(m.group(4)), bool(m.group(3))))
    return out if len(out) in (1, 2) else None


def _missing(n: int, sheet: str, what: str) -> ExcelError:
    where = f"[{n}]{sheet}!{what}" if sheet else f"[{n}]!{what}"
    return ExcelError("#REF!", f"{where}: another workbook's value the file does not keep "
                      "(its link was never read, or its refresh failed)")


_REFERS = re.compile(r"^=(?:'((?:[^']|'')+)'|([^'!\[\]]+))!([$A-Za-z0-9]+(?::[$A-Za-z0-9]+)?)$")


def external_reference(external: Mapping, n: int, sheet: str, span: str,
                       rows: tuple[int, int] | None = None, names: Mapping | None = None):
    """The compiled node of the reference ``span`` (``$A$1``, ``A1:B2`` or a defined name)
    on ``sheet`` (``""``: a workbook-scope name) of other workbook ``n``, from the values
    ``external`` keeps of it.

    Parameters
    ----------
    external : mapping
        ``(n, SHEET, "A1") -> value`` (``Book.external``); sheet and name upper case.
    n : int
        The external link's number, as ``[n]`` is written.
    sheet, span : str
        The other workbook's sheet (as written) and the reference or name.
    rows : (first, last) or None
        The rows of the block the formula fills: a cell whose row is relative (``A2``) is
        each row's own cell there.
    names : mapping, optional
        The other workbooks' defined names
        (:func:`rooflinexl.ooxml.package.external_names`): a name of a range is that
        range's kept values, one kept without a reference ``#NAME?``.

    Returns
    -------
    Lit, Arr or Call
        A cell's value (``Lit``), a range's values as an array constant (``Arr``),
        a relative reference to the kept cells (:func:`kept_sheet`) when each row's cell is
        kept, else ``CHOOSE(ROW()-first+1, ...)``, or ``Lit(#REF!)`` naming what is
        missing.

    Examples
    --------
    >>> ext = {(1, "SHEET1", "A1"): 2.0, (1, "SHEET1", "B1"): "x", (1, "", "RATE"): 0.5}
    >>> external_reference(ext, 1, "Sheet1", "$A$1").value
    2.0
    >>> external_reference(ext, 1, "Sheet1", "A1:B1").text
    '{2,"x"}'
    >>> external_reference(ext, 1, "", "Rate").value
    0.5
    >>> str(external_reference(ext, 1, "Sheet1", "C9").value)
    '#REF!'
    """
    from rooflinexl.recalc.compile import Arr, Call, Lit, Rng, Unsupported

    up = sheet.upper()
    corners = _corners(span)
    if corners is None:  # a defined name of the other workbook: the sheet's, else its own
        for key in ((n, up, span.upper()), (n, "", span.upper())):
            if key in external:
                return Lit(external[key])
        for key in ((n, up, span.upper()), (n, "", span.upper())):
            if key not in (names or {}):
                continue
            if names[key] is None:
                return Lit(ExcelError("#NAME?", f"[{n}]!{span}: the other workbook's name "
                                      "is kept without what it refers to"))
            if names[key].lstrip("=").strip().upper() == "#REF!":
                return Lit(ExcelError("#REF!", f"[{n}]!{span}: the other workbook's name "
                                      "refers to deleted cells (#REF!)"))
            m = _REFERS.match(names[key])
            if m is not None:
                where = (m.group(1) or m.group(2)).replace("''", "'")
                return external_reference(external, n, where, m.group(3).replace("$", ""))
            break
        return Lit(_missing(n, sheet, span))
    if len(corners) == 1 and rows is not None and rows[1] > rows[0] and not corners[0][2]:
        col, row, _fixed = corners[0]
        keys = [(n, up, f"{column_letters(col)}{row + r - rows[0]}")
                for r in range(rows[0], rows[1] + 1)]
        if all(k in external for k in keys):  # the kept cells, read as a sheet's
            return Rng(kept_sheet(n, sheet), row - rows[0], col, row - rows[0], col, True, True)
        if len(keys) > _MAX_CHOICES:
            raise Unsupported(f"[{n}]{sheet}!{span} filled down {len(keys)} rows, some of "
                              "whose cells the file does not keep")
        pick = Call("+", [Call("ROW", [], "ROW"), Lit(float(1 - rows[0]))], "+")
        return Call("CHOOSE", [pick, *[Lit(external.get(k, _missing(*k))) for k in keys]],
                    "CHOOSE")
    (c1, r1, _), (c2, r2, _) = corners[0], corners[-1]
    c1, c2, r1, r2 = min(c1, c2), max(c1, c2), min(r1, r2), max(r1, r2)
    if (r2 - r1 + 1) * (c2 - c1 + 1) > _MAX_CELLS:
        return Lit(_missing(n, sheet, span))
    grid = []
    for r in range(r1, r2 + 1):
        line = []
        for c in range(c1, c2 + 1):
            a1 = f"{column_letters(c)}{r}"
            if (n, up, a1) not in external:
                return Lit(_missing(n, sheet, a1))
            line.append(external[(n, up, a1)])
        grid.append(line)
    if len(grid) == 1 and len(grid[0]) == 1:
        return Lit(grid[0][0])
    return Arr("{" + ";".join(",".join(_constant(v) for v in line) for line in grid) + "}")


def _constant(v) -> str:
    """A value as written in an array constant."""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, float):
        return repr(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v).upper()
    if isinstance(v, ExcelError):
        return str(v)
    return '"' + str(v).replace('"', '""') + '"'


def external_function(n: int, name: str):
    """``[n]!Name(..)``: a function of another workbook (an add-in's), ``#NAME?`` naming
    it: its code is not in the file.

    >>> str(external_function(1, "HsGetValue").value)
    '#NAME?'
    """
    from rooflinexl.recalc.compile import Lit

    return Lit(ExcelError("#NAME?", f"[{n}]!{name}: a function of another workbook, whose "
                          "code the file does not hold"))
