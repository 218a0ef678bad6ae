"""Reading a package back: the formula text and the cached value of every formula cell.

:func:`formula_cells` and :func:`read_cached_values` are what ``recalc --check``,
``diff`` and the tests compare against (Excel-saved cached values are the oracle).
"""
from __future__ import annotations

from rooflinexl.ooxml.package import Limits, names_map, open_package, sheet_members
from rooflinexl.ooxml.sheetxml import (
    T_VAL,
    attr_value,
    child_res,
    covered,
    decode_value,
    inline_text,
    scan_sheet,
    shared_strings,
    split_ref,
    unescape_xml,
)

# --------------------------------------------------------------------------
# reading back
# --------------------------------------------------------------------------


def formula_cells(path, *, limits: Limits = Limits()) -> dict[str, dict[str, str]]:
    """Formula text of every formula cell, per worksheet.

    Parameters
    ----------
    path : str or os.PathLike
        An .xlsx/.xlsm workbook; checked with :func:`check_package` first.
    limits : Limits, optional
        Passed to :func:`check_package`.

    Returns
    -------
    dict of str to dict of str to str
        ``{sheet: {"B7": formula}}`` for every worksheet (empty dict when a
        sheet has no formula). The formula is the text of ``<f>`` as stored
        (no leading ``=``), XML-unescaped; ``''`` for the child cells of a
        shared formula (``<f t="shared" si="0"/>``).

    Examples
    --------
    >>> import openpyxl, tempfile, os
    >>> wb = openpyxl.Workbook(); ws = wb.active; ws["A1"] = 2; ws["B1"] = '=A1&"<x>"'
    >>> p = os.path.join(tempfile.mkdtemp(), "b.xlsx"); wb.save(p)
    >>> formula_cells(p)
    {'Sheet': {'B1': 'A1&"<x>"'}}
    """
    with open_package(path, limits) as zf:
        out: dict[str, dict[str, str]] = {}
        for sheet, member in sheet_members(zf).items():
            cells, _ = scan_sheet(zf.read(member), member)
            out[sheet] = {
                ref.decode("ascii"): unescape_xml((fm.group("t") or b"").decode("utf-8"))
                for ref, _p, _a, _b, fm in cells if fm is not None
            }
        return out


def read_cached_values(path, *, limits: Limits = Limits()) -> dict[str, dict[str, object]]:
    """Cached values of the formula cells, per worksheet.

    Parameters
    ----------
    path : str or os.PathLike
        An .xlsx/.xlsm workbook; checked with :func:`check_package` first.
    limits : Limits, optional
        Passed to :func:`check_package`.

    Returns
    -------
    dict of str to dict of str to object
        ``{sheet: {"B7": value}}`` for every formula cell and every existing
        cell inside an array formula's range (the spilled results): ``float``
        for numbers, ``bool``, ``str`` (``t="str"``, ``t="s"`` resolved through
        the shared strings, inline strings), :class:`~rooflinexl.errors.ExcelError`
        for ``t="e"`` (a plain ``str`` for an error code outside
        :data:`~rooflinexl.errors.EXCEL_ERRORS`), ``None`` when uncached.

    Examples
    --------
    >>> import openpyxl, tempfile, os
    >>> wb = openpyxl.Workbook(); ws = wb.active; ws["B1"] = "=1/0"
    >>> p = os.path.join(tempfile.mkdtemp(), "b.xlsx"); wb.save(p)
    >>> read_cached_values(p)
    {'Sheet': {'B1': None}}
    """
    with open_package(path, limits) as zf:
        names = names_map(zf)
        shared: list[str] | None = None
        out: dict[str, dict[str, object]] = {}
        for sheet, member in sheet_members(zf, names).items():
            cells, ranges = scan_sheet(zf.read(member), member)
            spilled = covered(ranges, [(*split_ref(c[0]), c[0]) for c in cells
                                        if c[4] is None]) if ranges else set()
            vals: dict[str, object] = {}
            for ref, p, attrs, body, fm in cells:
                if fm is None and ref not in spilled:
                    continue
                t = attr_value(T_VAL, attrs) if attrs else None
                text = None
                if body:
                    _f, v_re, is_re = child_res(p)
                    vm = v_re.search(body)
                    if vm is not None:
                        text = (vm.group("t") or b"").decode("utf-8")
                    elif t == b"inlineStr":
                        im = is_re.search(body)
                        if im is not None:
                            text = inline_text(im.group(0))
                if t == b"s" and shared is None:
                    shared = shared_strings(zf, names)
                vals[ref.decode("ascii")] = decode_value(t, text, shared)
            out[sheet] = vals
        return out


