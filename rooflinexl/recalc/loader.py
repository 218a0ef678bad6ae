"""Read a workbook's cells, formulas, defined names and tables straight from the XML.

The block evaluator (:mod:`rooflinexl.recalc.blocks`) needs every cell's value
and formula, fast: openpyxl builds an object per cell (seconds for a
10,000-row plan), this module scans the sheet XML with one regular expression,
4 MB of rows at a time (the same byte-level approach as :mod:`rooflinexl.ooxml`,
whose package checks, parts and shared strings it reuses), classifies the cells
found in bulk (numbers parsed by numpy, each distinct inline string decoded once),
and falls back to :func:`rooflinexl.ooxml.sheetxml.iter_cells` for sheets written
in an unusual form.

Values are decoded as Excel reads them: shared strings with ``_xHHHH_`` escapes
resolved, numbers as the doubles written (:func:`excel_double`: not rounded, 1E-20 stays
1E-20), error constants as the engine's error values (``values.ERRORS``); dates stay
serial numbers.

Shared formulas (``<f t="shared" si=".." ref="..">``) are kept as a reference
to their master cell: the block evaluator groups cells by their relative form,
which every cell of a shared formula has in common, so the children never
need their own text (:func:`rooflinexl.recalc.refs.render` writes it on demand).
"""
from __future__ import annotations

import contextlib
import operator
import re
import zipfile
from dataclasses import dataclass, field, replace
from itertools import compress, repeat
from operator import truth
from pathlib import Path

import numpy as np

from rooflinexl.addresses import column_letters as col_letters
from rooflinexl.addresses import column_number as col_number
from rooflinexl.addresses import parse_range
from rooflinexl.ooxml import Limits, UnusableWorkbookError, open_package
from rooflinexl.ooxml.package import (
    application,
    external_cells,
    external_names,
    find_member,
    local_name,
    parse_xml,
    relationships,
    sheet_members,
    workbook_part,
)
from rooflinexl.ooxml.package import (
    names_map as names_map_of,
)
from rooflinexl.ooxml.sheetxml import (
    child_res,
    holds,
    inline_text,
    iso_date_serial,
    iter_cells,
    paused_gc,
    plain_cells_re,
    shared_strings,
    sheet_data_span,
    split_ref,
    unescape_xml,
    unescape_xstring,
)
from rooflinexl.recalc.functions import character_set
from rooflinexl.recalc.prepass import TableInfo

__all__ = ["Book", "FormulaCell", "Sheet", "decode", "defined_names", "excel_double",
           "malformed_xml", "read_book",
           "saved_character_set", "WorkbookInfo", "workbook_info"]



@dataclass
class FormulaCell:
    """One formula cell as stored: its own text, or a shared formula's master."""

    row: int
    col: int
    text: str | None  # '=A1*2' (with '='); None for a shared formula's child
    shared: int | None = None  # si of a shared formula (master and children)
    array_ref: tuple[int, int, int, int] | None = None  # (r0, c0, r1, c1) of t="array"
    kind: str = "normal"  # normal | shared | array | dataTable
    dynamic: bool = False  # an array formula that spills (cell metadata cm=): not legacy CSE
    #: t="dataTable": the <f> element's attributes (ref, dt2D, dtr, r1, r2, del1, del2)
    table: dict | None = None


@dataclass
class Sheet:
    """Cells of one worksheet, column-wise (parallel lists)."""

    name: str
    index: int
    #: constant cells (values as formulas sees them)
    const_rows: list[int] = field(default_factory=list)
    const_cols: list[int] = field(default_factory=list)
    const_vals: list[object] = field(default_factory=list)
    #: plain formula cells: text with '='
    f_rows: list[int] = field(default_factory=list)
    f_cols: list[int] = field(default_factory=list)
    f_texts: list[str] = field(default_factory=list)
    #: shared, array and data-table formula cells
    special: list[FormulaCell] = field(default_factory=list)
    #: shared formula masters: si -> (row, col, text)
    shared: dict[int, tuple[int, int, str]] = field(default_factory=dict)
    max_row: int = 0
    max_col: int = 0
    #: rows hidden (``<row hidden="1">``: by hand, by a filter or a collapsed outline),
    #: what SUBTOTAL and AGGREGATE may leave out; None where a hidden row's number is
    #: not written (SUBTOTAL over the sheet is then not supported)
    hidden_rows: frozenset[int] | None = frozenset()
    #: a filter is in effect on the sheet (an autoFilter or a table's, with criteria):
    #: Excel then takes every hidden row of it as filtered (SUBTOTAL leaves it out)
    filtered: bool = False

    @property
    def n_formulas(self) -> int:
        return len(self.f_rows) + len(self.special)


@dataclass(frozen=True)
class WorkbookInfo:
    """What SHEET, SHEETS and INFO tell of a workbook (:func:`workbook_info`)."""

    #: every sheet in tab order, worksheets, chart, macro and dialog sheets alike, hidden
    #: ones too (Microsoft, "SHEET function": SHEET counts them all)
    sheets: tuple[str, ...] = ()
    #: docProps/app.xml's ``<Application>`` (``Microsoft Macintosh Excel``), or None
    application: str | None = None
    #: the workbook's calculation mode is manual (``<calcPr calcMode="manual"/>``)
    manual: bool = False
    #: how many of the sheets are worksheets (INFO("numfile"))
    worksheets: int = 0


@dataclass
class Book:
    """What the block evaluator needs of a workbook."""

    path: Path
    sheets: list[Sheet]
    #: workbook-scope defined names (upper case) -> text, and sheet-scope ones
    names: dict[str, str]
    local_names: dict[tuple[str, str], str]  # (sheet, NAME) -> text
    tables: dict[str, TableInfo]
    name_case: dict[str, str] = field(default_factory=dict)  # NAME -> name as written
    #: (iterateCount, iterateDelta) when the workbook's calcPr enables iterative calculation
    iterate: tuple[int, float] | None = None
    #: the workbook counts dates from 1904 (``<workbookPr date1904="1"/>``, old Mac books)
    date1904: bool = False
    #: other workbooks' cached cells, (n, SHEET, "A1") -> value, for ``[n]Sheet!A1``
    #: (:func:`rooflinexl.ooxml.package.external_cells`)
    external: dict[tuple[int, str, str], object] = field(default_factory=dict)
    #: the sheets, the saving application and the calculation mode (SHEET, INFO)
    info: WorkbookInfo = field(default_factory=WorkbookInfo)
    #: other workbooks' defined names, (n, SHEET or "", NAME) -> refersTo
    #: (:func:`rooflinexl.ooxml.package.external_names`)
    external_names: dict = field(default_factory=dict)

    def sheet(self, name: str) -> Sheet | None:
        for s in self.sheets:
            if s.name == name:
                return s
        low = name.casefold()
        for s in self.sheets:
            if s.name.casefold() == low:
                return s
        return None


# ------------------------------------------------------------------- decoding

#: XML entities of element text (the package reader's one un-escaper)
unescape = unescape_xml


def _errors():
    from rooflinexl.recalc.values import ERRORS

    return ERRORS


def excel_double(text: str) -> float:
    """A number written in a cell as Excel reads it: the double written, all of it
    (``formulas`` rounded to 15 decimals, so 1E-20 was 0 and 1.234567E-9 1.235E-9; POI's
    FormulaEvalTestData_Copy.xlsx, saved by Excel, caches FV(2.95,13,13000,
    -17406.785214815641,1) as 333891.23010253906, which needs every digit).

    >>> excel_double("-17406.785214815641"), excel_double("1E-20"), excel_double("0.1")
    (-17406.78521481564, 1e-20, 0.1)
    """
    return float(text)


def _number(text: str):
    """A numeric cell value as Excel reads it (:func:`excel_double`)."""
    if "." in text or "E" in text or "e" in text:
        return excel_double(text)
    return float(int(text))


def decode(t: str, v: str | None, inline: str | None, strings: list[str],
           date1904: bool = False):
    """Python value of a constant cell (None for an empty one); ``date1904``: the workbook
    counts dates from 1904 (a ``t="d"`` date's serial number)."""
    if t == "inlineStr" or inline is not None:
        if inline is None:
            return None
        return inline_text(b"<is>" + inline.encode("utf-8") + b"</is>")  # the package reader's
    if v is None or v == "":
        return None
    if t in ("n", ""):
        try:
            return _number(v)
        except ValueError:
            return unescape(v)
    if t == "s":
        try:
            return strings[int(v)]
        except (ValueError, IndexError):
            return None
    if t == "b":
        return v.strip() in ("1", "true", "TRUE")
    if t == "e":
        code = unescape(v).strip()
        return _errors().get(code, code)
    if t == "str":  # a formula's text (the cached value of another writer's constant)
        return unescape_xstring(unescape(v))
    if t == "d":  # an ISO 8601 date (Strict Open XML): its serial number, 1900 system
        return iso_date_serial(unescape(v), date1904)
    return unescape(v)


# ------------------------------------------------------------------ sheet XML

_ATTR = re.compile(r"""(\w+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_T_IN = re.compile(r"""\st\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def _attrs(raw: str) -> dict[str, str]:
    return {m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
            for m in _ATTR.finditer(raw)}


def _formula(sheet: Sheet, row: int, col: int, fa: str, ft: str, arrays: list,
             dynamic: bool = False) -> None:
    """A formula cell with attributes on its <f> (shared, array, data table ...)."""
    attrs = _attrs(fa) if fa else {}
    ftype = attrs.get("t", "normal")
    text = unescape(ft) if ft else ""
    if text and not text.startswith("="):  # formulas: '==X' -> '=X'
        text = "=" + text
    special = sheet.special
    if ftype == "shared":
        try:
            si = int(attrs.get("si", "-1"))
        except ValueError:
            si = -1
        if text:
            sheet.shared.setdefault(si, (row, col, text))
            special.append(FormulaCell(row, col, text, si, None, "shared"))
        else:
            special.append(FormulaCell(row, col, None, si, None, "shared"))
    elif ftype == "array":
        ref = attrs.get("ref")
        rng = parse_range(ref) if ref else None
        rng = rng or (row, col, row, col)
        arrays.append(rng)
        special.append(FormulaCell(row, col, text or "=", None, rng, "array", dynamic))
    elif ftype == "dataTable":
        special.append(FormulaCell(row, col, text or "=", None, None, "dataTable",
                                   table=attrs))
    elif text:
        sheet.f_rows.append(row)
        sheet.f_cols.append(col)
        sheet.f_texts.append(text)


#: sheet XML scanned this many bytes at a time (cut after a row's end tag), so that the
#: scan's per-cell tuples never exist for a whole large sheet at once
_SCAN_BYTES = 1 << 22


@paused_gc()
def _read_sheet(sheet: Sheet, data: bytes, member: str, strings: list[str],
                date1904: bool = False) -> None:
    arrays: list[tuple[int, int, int, int]] = []
    lo, hi, pb = sheet_data_span(data, member)
    sheet.filtered = data.find(b"filterColumn", hi) >= 0  # <autoFilter> follows the data
    if lo == hi:
        return
    sheet.hidden_rows = _hidden_rows(data, lo, hi)
    p = pb.decode("ascii")
    rx = plain_cells_re(p)
    row_end = b"</" + pb + b"row>"
    state = _ScanState(date1904)
    chunks = []
    if not holds(data, lo, hi, b"<!"):
        pos = lo
        while pos < hi:
            end = data.find(row_end, min(pos + _SCAN_BYTES, hi), hi)
            end = hi if end < 0 else end + len(row_end)
            chunks.append((pos, end))
            pos = end
    for pos, end in chunks:
        text = data[pos:end].decode("utf-8")
        matches = rx.findall(text)
        # every cell start found? ('<c' alone counts no fewer: one count, mostly)
        if (len(matches) != text.count("<" + p + "c")
                and len(matches) != text.count("<" + p + "c ") + text.count("<" + p + "c>")):
            break  # an unusual form somewhere: the general scan of the whole sheet
        del text
        _take(sheet, matches, strings, arrays, state)
    else:
        if chunks:
            _bounds(sheet, arrays)
            return
    # the general scan, from a clean sheet
    sheet.const_rows, sheet.const_cols, sheet.const_vals = [], [], []
    sheet.f_rows, sheet.f_cols, sheet.f_texts = [], [], []
    sheet.special, sheet.shared, sheet.max_row, sheet.max_col = [], {}, 0, 0
    arrays.clear()
    _take(sheet, list(_general(data, lo, hi, pb)), strings, arrays, _ScanState(date1904))
    _bounds(sheet, arrays)


_ROW_ATTRS = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?row(\s[^>]*)?/?>")
_HIDDEN = re.compile(rb'\shidden\s*=\s*["\'](1|true)["\']')
_ROW_NUMBER = re.compile(rb'\sr\s*=\s*["\'](\d+)["\']')


def _hidden_rows(data: bytes, lo: int, hi: int) -> frozenset[int] | None:
    """The numbers of the rows ``<row ... hidden="1">`` between ``lo`` and ``hi`` (None when
    a hidden row does not say its number).

    >>> d = b'<row r="2" hidden="1"><c r="A2"/></row><row r="3"/><row hidden="true" r="9"/>'
    >>> sorted(_hidden_rows(d, 0, len(d)))
    [2, 9]
    """
    if data.find(b"hidden", lo, hi) < 0:
        return frozenset()
    out = set()
    for m in _ROW_ATTRS.finditer(data, lo, hi):
        attrs = m.group(1) or b""
        if b"hidden" in attrs and _HIDDEN.search(attrs):
            r = _ROW_NUMBER.search(attrs)
            if r is None:
                return None
            out.add(int(r.group(1)))
    return frozenset(out)


class _ScanState:
    """What a sheet's scan learns once and reuses in every chunk."""

    def __init__(self, date1904: bool = False):
        self.date1904 = date1904  # the workbook counts dates from 1904 (t="d" cells)
        self.col: dict[str, int] = {}  # column letters -> number
        self.type: dict[str, str] = {}  # the attributes of a cell -> its t
        self.number: dict[str, bool] = {}  # the attributes of a cell -> a number's t ("", "n")
        self.inline: dict[str, str | None] = {}  # <is> content -> its text


def _take(sheet: Sheet, matches: list, strings: list[str], arrays: list,
          state: _ScanState) -> None:
    """Add the cells the scan found (tuples of :func:`plain_cells_re`'s groups) to ``sheet``."""
    if not matches:
        return
    cols_s, rows_s, cas, fels, fas, fts, vs, iss = zip(*matches, strict=True)
    distinct = set(rows_s)
    rowmap = dict(zip(distinct, map(int, distinct), strict=True))  # one int a row, not a cell
    rows = list(map(rowmap.__getitem__, rows_s))
    colmap = state.col
    for c in set(cols_s).difference(colmap):
        colmap[c] = col_number(c)
    cols = list(map(colmap.__getitem__, cols_s))
    sheet.max_row = max(sheet.max_row, max(rows))
    sheet.max_col = max(sheet.max_col, max(map(colmap.__getitem__, set(cols_s))))
    tmap, nmap = state.type, state.number
    for ca in set(cas).difference(tmap):
        m = _T_IN.search(" " + ca) if "t=" in ca else None
        tmap[ca] = t = (m.group(1) or m.group(2) or "") if m else ""
        nmap[ca] = t == "" or t == "n"
    f_rows, f_cols, f_texts = sheet.f_rows, sheet.f_cols, sheet.f_texts
    c_rows, c_cols, c_vals = sheet.const_rows, sheet.const_cols, sheet.const_vals
    n = len(cas)
    has_f = any(fels)
    # formula cells, in document order: in bulk where all are the everyday <f>text</f>
    if any(fas):  # shared, array ... formulas among them: one by one
        for i in [i for i, fel in enumerate(fels) if fel]:
            if fas[i]:
                _formula(sheet, rows[i], cols[i], fas[i], fts[i], arrays, "cm=" in cas[i])
            elif fts[i]:
                ft = unescape(fts[i]) if "&" in fts[i] else fts[i]
                f_rows.append(rows[i])
                f_cols.append(cols[i])
                f_texts.append(ft if ft.startswith("=") else "=" + ft)
    elif has_f:  # (an <f>'s text is only ever found inside an <f>)
        texts = list(compress(fts, fts))
        if "&" in "".join(texts):
            texts = [unescape(t) if "&" in t else t for t in texts]
        f_rows.extend(compress(rows, fts))
        f_cols.extend(compress(cols, fts))
        f_texts.extend([t if t.startswith("=") else "=" + t for t in texts]
                       if any(map(str.startswith, texts, repeat("=")))
                       else map("=".__add__, texts))
    # constant cells by kind, as numpy masks made in C (a loop in Python over the cells
    # was a third of reading a plan)
    const = ~np.fromiter(map(truth, fels), bool, n) if has_f else np.ones(n, bool)
    has_v = np.fromiter(map(truth, vs), bool, n)
    number = const & has_v & np.fromiter(map(nmap.__getitem__, cas), bool, n)
    # the bulk of a sheet: numbers (no type or t="n"), parsed at once
    numeric = np.flatnonzero(number).tolist()
    if numeric:
        texts = _pick(vs, numeric)
        try:
            arr = np.array(texts, dtype=float)
        except ValueError:  # not all numbers: one by one
            values = [_constant(t) for t in texts]
        else:
            values = arr.tolist()
            if not np.isfinite(arr).all():  # 'inf', 'nan': as the cell-by-cell reading
                for k in np.flatnonzero(~np.isfinite(arr)).tolist():
                    values[k] = _constant(texts[k])
        c_rows.extend(_pick(rows, numeric))
        c_cols.extend(_pick(cols, numeric))
        c_vals.extend(values)
    memo = state.inline
    if any(iss):
        has_v |= np.fromiter(map(truth, iss), bool, n)
    others = np.flatnonzero(const & has_v & ~number).tolist()
    for i in others:
        v, t, is_ = vs[i], tmap[cas[i]], iss[i]
        if t == "" or t == "n":  # an <is> without a number: as _number("") reads it
            value = _constant(v)
        elif is_ or t == "inlineStr":
            value = memo.get(is_, memo)
            if value is memo:
                value = memo[is_] = decode(t, v or None, is_, strings)
        elif t == "s":
            try:
                value = strings[int(v)]
            except (ValueError, IndexError):
                continue
        else:
            value = decode(t, v or None, None, strings, state.date1904)
        if value is None:
            continue
        c_rows.append(rows[i])
        c_cols.append(cols[i])
        c_vals.append(value)


def _pick(seq, idx: list[int]) -> list:
    """``[seq[i] for i in idx]``, gathered in C."""
    if len(idx) <= 1:
        return [seq[i] for i in idx]
    return list(operator.itemgetter(*idx)(seq))


def _constant(v: str):
    """A number cell's value read one by one (text that is no number stays text)."""
    try:
        return _number(v)
    except ValueError:
        return unescape(v)


def _bounds(sheet: Sheet, arrays: list) -> None:
    """Array formulas' ranges: used, cached or not; cached results inside are no inputs."""
    for _r0, _c0, r1, c1 in arrays:
        sheet.max_row, sheet.max_col = max(sheet.max_row, r1), max(sheet.max_col, c1)
    if arrays:
        c_rows, c_cols, c_vals = sheet.const_rows, sheet.const_cols, sheet.const_vals
        keep = [not any(r0 <= r <= r1 and c0 <= c <= c1 for r0, c0, r1, c1 in arrays)
                for r, c in zip(c_rows, c_cols, strict=True)]
        if not all(keep):
            sheet.const_rows = [x for x, k in zip(c_rows, keep, strict=True) if k]
            sheet.const_cols = [x for x, k in zip(c_cols, keep, strict=True) if k]
            sheet.const_vals = [x for x, k in zip(c_vals, keep, strict=True) if k]


def _general(data: bytes, lo: int, hi: int, p: bytes):
    """The fast scan's tuples (as str), for any cell form the package reader's scanner accepts."""
    f_re, v_re, is_re = child_res(p)
    for ref, _p, ca, body, _m in iter_cells(data, lo, hi):
        row, col = split_ref(ref)
        fel = fa = ft = v = is_ = b""
        if body:
            fm = f_re.search(body)
            if fm is not None:
                fel, fa, ft = b"<f", fm.group("a") or b"", fm.group("t") or b""
            vm = v_re.search(body)
            if vm is not None:
                v = vm.group("t") or b""
            im = is_re.search(body)
            if im is not None:
                is_ = im.group("t") or b""
        yield (col_letters(col), str(row),
               *(x.decode("utf-8") for x in (ca or b"", fel, fa, ft, v, is_)))


# --------------------------------------------------------------- workbook part


def defined_names(zf, names_map):
    """Workbook-scope names (upper case) and sheet-scope ones keyed (sheet, NAME), each name's
    first spelling, and the iteration settings: ``(names, local, case, iterate)``."""
    wb = workbook_part(zf, names_map)
    root = parse_xml(zf.read(wb), wb)
    order = [el.get("name") or "" for el in root.iter() if local_name(el.tag) == "sheet"]
    names: dict[str, str] = {}
    local: dict[tuple[str, str], str] = {}
    case: dict[str, str] = {}
    iterate = None
    for el in root.iter():
        if local_name(el.tag) == "calcPr" and el.get("iterate") in ("1", "true"):
            iterate = (_attr_number(el.get("iterateCount"), 100, int),
                       _attr_number(el.get("iterateDelta"), 0.001, float))
        if local_name(el.tag) != "definedName":
            continue
        name, text = el.get("name"), el.text or ""
        if not name or not text:
            continue
        case.setdefault(name.upper(), name)
        lsid = el.get("localSheetId")
        if lsid is None:
            names[name.upper()] = text
            continue
        try:
            local[(order[int(lsid)], name.upper())] = text
        except (ValueError, IndexError):
            pass
    return names, local, case, iterate


def _attr_number(text, default, kind):
    """An attribute's number (ECMA-376 defaults when absent or not a number)."""
    try:
        v = kind(text) if text is not None else default
    except ValueError:
        return default
    return v if v >= 0 else default


def _tables(zf, names_map, sheet: Sheet, member: str) -> list[TableInfo]:
    out = []
    for _id, typ, part in relationships(zf, names_map, member):
        if not typ.endswith("/table"):
            continue
        tm = find_member(names_map, part)
        if tm is None:
            continue
        root = parse_xml(zf.read(tm), tm)
        if any(local_name(el.tag) == "filterColumn" for el in root.iter()):
            sheet.filtered = True
        ref = root.get("ref") or ""
        rng = parse_range(ref)
        if rng is None:
            continue
        r0, c0, r1, c1 = rng
        try:
            header = int(root.get("headerRowCount", "1"))
        except ValueError:
            header = 1
        try:
            totals = int(root.get("totalsRowCount", "0") or 0)
        except ValueError:
            totals = 0
        cols = [unescape_xstring(el.get("name") or "") for el in root.iter()
                if local_name(el.tag) == "tableColumn"]  # "Ending_x000a_balance": a line feed
        if len(cols) != c1 - c0 + 1:
            cells = zip(sheet.const_rows, sheet.const_cols, sheet.const_vals, strict=True)
            head = {c: v for r, c, v in cells if r == r0}
            cols = [str(head.get(c) if header else f"Column{c - c0 + 1}")
                    for c in range(c0, c1 + 1)]
        info = TableInfo(root.get("displayName") or root.get("name") or "", sheet.name,
                         r0, r1, c0, c1, header, totals, cols)
        out.append((root.get("name"), root.get("displayName"), info))
    return out


#: what reading a corrupt part raises, here or in openpyxl (its reader and, for data it
#: accepted, its writer): the package checks passed, the XML inside did not make sense
_MALFORMED = (SyntaxError, ValueError, AttributeError, IndexError, KeyError, TypeError)


def _part_of(exc: BaseException, members: set[str]) -> str | None:
    """The zip member being read when ``exc`` was raised (innermost frame that names one)."""
    if isinstance(exc, KeyError) and exc.args:
        hit = re.search(r"'([^']+)'", str(exc.args[0]))
        if hit:
            return hit.group(1).lstrip("/")
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        for value in frame.f_locals.values():
            if isinstance(value, str) and value.lstrip("/") in members:
                return value.lstrip("/")
    for frame in reversed(frames):  # openpyxl readers of parts at fixed names
        hit = _OPENPYXL_PARTS.get(frame.f_code.co_name)
        if hit:
            return hit
    return None


_OPENPYXL_PARTS = {"apply_stylesheet": "xl/styles.xml", "read_strings": "xl/sharedStrings.xml",
                   "read_workbook": "xl/workbook.xml"}


@contextlib.contextmanager
def malformed_xml(path, part: str | None = None):
    """Turn a crash while reading ``path`` (its ``part``, or the one found in the traceback)
    into :class:`~rooflinexl.UnusableWorkbookError`: a corrupt part that passed the
    package checks is a refusal with a remedy, not an internal error."""
    try:
        yield
    except UnusableWorkbookError:
        raise
    except _MALFORMED as exc:
        if part is None:
            try:
                with zipfile.ZipFile(path) as zf:
                    members = set(zf.namelist())
            except (OSError, zipfile.BadZipFile):
                members = set()
            part = _part_of(exc, members)
        reason = str(exc).splitlines()[0][:120] if str(exc) else ""
        reason = f"{type(exc).__name__}: {reason}" if reason else type(exc).__name__
        raise UnusableWorkbookError(
            f"{path}: malformed workbook XML in {part or 'a workbook part'} "
            f"({reason}): re-save it in Excel or LibreOffice") from None


def read_book(path, limits: Limits = Limits()) -> Book:
    """Read every worksheet of ``path`` (checked with :func:`rooflinexl.ooxml.check_package`)."""
    path = Path(path)
    with open_package(path, limits) as zf:
        names_map = names_map_of(zf)
        parts = sheet_members(zf, names_map)
        strings = shared_strings(zf, names_map)
        date1904 = uses_1904_dates(zf, names_map)
        sheets = []
        tables: dict[str, TableInfo] = {}
        for i, (name, member) in enumerate(parts.items()):
            sheet = Sheet(name, i)
            data = zf.read(member)
            with malformed_xml(path, member):
                _read_sheet(sheet, data, member, strings, date1904)
            del data
            sheets.append(sheet)
            for tname, dname, info in _tables(zf, names_map, sheet, member):
                for key in {tname, dname}:
                    if key:
                        tables[key.upper()] = info
        names, local, case, iterate = defined_names(zf, names_map)
        external = external_cells(zf, names_map)
        info = replace(workbook_info(zf, names_map), worksheets=len(sheets))
        ext_names = external_names(zf, names_map) if any(
            "externallink" in m for m in names_map) else {}
    return Book(path, sheets, names, local, tables, case, iterate, date1904, external, info,
                ext_names)


def workbook_info(zf, names_map) -> WorkbookInfo:
    """The workbook's sheets (``<sheet>`` in the workbook part, ECMA-376 Part 1, 18.2.19:
    every kind, in tab order), the application that saved it (docProps/app.xml) and
    whether its calculation mode is manual (``<calcPr calcMode="manual"/>``, 18.2.2).

    >>> import io, zipfile
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as z:
    ...     z.writestr("xl/workbook.xml", '<workbook><sheets><sheet name="A"/><sheet '
    ...                'name="Chart1"/></sheets><calcPr calcMode="manual"/></workbook>')
    >>> with zipfile.ZipFile(buf) as z:
    ...     workbook_info(z, names_map_of(z))
    WorkbookInfo(sheets=('A', 'Chart1'), application=None, manual=True, worksheets=0)
    """
    wb = workbook_part(zf, names_map)
    sheets: list[str] = []
    manual = False
    if wb is not None:
        for el in parse_xml(zf.read(wb), wb).iter():
            tag = local_name(el.tag)
            if tag == "sheet" and el.get("name") is not None:
                sheets.append(el.get("name"))
            elif tag == "calcPr":
                manual = (el.get("calcMode") or "").casefold() == "manual"
    return WorkbookInfo(tuple(sheets), application(zf, names_map), manual)


def uses_1904_dates(zf, names_map) -> bool:
    """Whether the workbook's dates count from 1904 (``workbookPr date1904``)."""
    wb = workbook_part(zf, names_map)
    for el in parse_xml(zf.read(wb), wb).iter():
        if local_name(el.tag) == "workbookPr":
            return el.get("date1904") in ("1", "true")
    return False


def saved_character_set(path, limits: Limits = Limits()) -> str:
    """The codec of CHAR and CODE for the workbook at ``path``: that of the Excel that saved
    it (:func:`rooflinexl.recalc.functions.character_set` of its docProps/app.xml)."""
    with open_package(path, limits) as zf:
        return character_set(application(zf, names_map_of(zf)))

