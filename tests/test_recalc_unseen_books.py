"""Structures of Excel-saved workbooks from other projects' test suites that the engine
crashed on, refused, or computed wrongly (issue 13, "no crash or refusal").

Each test builds the smallest workbook with the structure and asserts the value Excel
cached in the original book (named in the test), through both engines.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES
from openpyxl.workbook.defined_name import DefinedName

from rooflinexl.recalc.book import recalc_book


def _values(path, engine):
    ev = recalc_book(path, write=False, engine=engine).evaluation
    return {k: r.value for k, r in ev.cells.items()}


@pytest.fixture(scope="module")
def relative_names_book(tmp_path_factory):
    """EPPlus's DefinedNameRelative.xlsx (Excel-saved): names whose references are relative
    are read relative to the cell that uses them, wrapping round the sheet's edge."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws["H8"], ws["I8"], ws["L11"] = 1, 2, "L11"
    for r in range(9, 17):
        ws[f"H{r}"] = r - 8  # H9=1 ... H16=8
    names = {
        "FixedFormula": "Sheet1!$H$8+Sheet1!$I$8",
        "RelativeName": "Sheet1!XFD1048576+Sheet1!A1048576",
        "Relative": "Sheet1!$I1+1",
        "RelativeRow": "Sheet1!$H1",
    }
    for name, text in names.items():
        wb.defined_names[name] = DefinedName(name, attr_text=text)
    ws["I9"] = "=RelativeName"  # Excel: 3 (H8+I8: XFD wraps to H, A moves to I)
    ws["I10"] = "=FixedFormula"  # Excel: 3
    ws["K11"] = "=RelativeName"  # Excel: 5 (J10+K10 here: H10 is 2 ... see below)
    ws["J10"], ws["K10"] = 2, 3
    ws["I12"] = "=RelativeRow"  # Excel: 1 (H12 in the original; here H12 = 4)
    ws["I16"] = "=RelativeRow+2"  # Excel's I16: H16 + 2
    ws["J13"] = "=Relative*10"  # $I13 + 1, times 10
    ws["I13"] = 6
    path = tmp_path_factory.mktemp("relnames") / "relative.xlsx"
    wb.save(path)
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_relative_defined_names(relative_names_book, engine):
    v = _values(relative_names_book, engine)
    assert v[("Sheet1", "I9")] == 3  # cached by Excel in DefinedNameRelative.xlsx
    assert v[("Sheet1", "I10")] == 3
    assert v[("Sheet1", "K11")] == 5  # J10 + K10, as RelativeName in K11 reads
    assert v[("Sheet1", "I12")] == 4  # H12 (not H1, which is empty)
    assert v[("Sheet1", "I16")] == 10  # H16 + 2
    assert v[("Sheet1", "J13")] == 70  # (I13 + 1) * 10


def _with_merge(path, ref):
    """Add ``<mergeCells>`` with ``ref`` to the first sheet of ``path`` (openpyxl would
    build every merged cell to write it)."""
    import shutil
    import zipfile

    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w") as dst:
        for item in src.infolist():
            data = src.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b"</sheetData>", b'</sheetData><mergeCells count="1">'
                                    b'<mergeCell ref="' + ref.encode() + b'"/></mergeCells>')
            dst.writestr(item, data)
    shutil.move(tmp, path)


@pytest.mark.parametrize("engine", ENGINES)
def test_merged_whole_column(tmp_path, engine):
    """ClosedXML's DrawingSizeInPx.xlsx merges B1:B1048576: openpyxl built a million
    cells (minutes, a timeout); a merge changes no value."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws["A1"], ws["A2"], ws["A3"] = 1, 2, 3
    ws["C1"] = "=SUBTOTAL(9,A1:A3)"  # per cell; Excel: 1 + 2 + 3
    ws["C2"] = "=A1*10"
    path = tmp_path / "merged.xlsx"
    wb.save(path)
    _with_merge(path, "B1:B1048576")
    v = _values(path, engine)
    assert v[("Sheet1", "C1")] == 6
    assert v[("Sheet1", "C2")] == 10


@pytest.mark.parametrize("engine", ENGINES)
def test_per_cell_reads_beside_unread_data(tmp_path, engine):
    """EPPlus's PivotTableCalculation.xlsx: a few per-cell formulas beside a large sheet of
    data. The per-cell copy keeps only what they read: a range, a name that is a formula
    (``IsBeta = FALSE``), a name that is a range, and everything when INDIRECT may read
    anywhere. Values by hand from the data written here."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    data = wb.create_sheet("Data")
    for r in range(1, 201):
        for c in range(1, 6):
            data.cell(r, c, r * c)  # Data!A1:E200: row * column
    wb.defined_names["IsBeta"] = DefinedName("IsBeta", attr_text="FALSE")
    wb.defined_names["SecondCol"] = DefinedName("SecondCol", attr_text="Data!$B$1:$B$4")
    ws["A1"] = "=IF(IsBeta,-1,SUBTOTAL(9,Data!A1:A3))"  # 1 + 2 + 3
    ws["A2"] = "=SUBTOTAL(9,Data!A1)+SUM(SecondCol)"  # 1 + (2 + 4 + 6 + 8)
    ws["A3"] = '=SUBTOTAL(9,INDIRECT("Data!E199:E200"))'  # 995 + 1000
    ws["A4"] = "=A1+Data!C10"  # on the block path after the per-cell A1: 6 + 30
    path = tmp_path / "data.xlsx"
    wb.save(path)
    v = _values(path, engine)
    assert v[("Sheet1", "A1")] == 6
    assert v[("Sheet1", "A2")] == 21
    assert v[("Sheet1", "A3")] == 1995
    assert v[("Sheet1", "A4")] == 36


def _rewrite_parts(path, edit, extra=None):
    """Rewrite every XML part of ``path`` with ``edit(name, bytes) -> bytes``; add the
    parts ``extra`` (name -> bytes)."""
    import shutil
    import zipfile

    tmp = path.with_suffix(".tmp")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w") as dst:
        for item in src.infolist():
            data = edit(item.filename, src.read(item.filename))
            if data is not None:  # None: the part is left out
                dst.writestr(item, data)
        for name, data in (extra or {}).items():
            dst.writestr(name, data)
    shutil.move(tmp, path)


_T = b"http://schemas.openxmlformats.org/"
_TO_STRICT = (
    (_T + b"spreadsheetml/2006/main", b"http://purl.oclc.org/ooxml/spreadsheetml/main"),
    (_T + b"officeDocument/2006/relationships",
     b"http://purl.oclc.org/ooxml/officeDocument/relationships"),
)


@pytest.mark.parametrize("engine", ENGINES)
def test_strict_open_xml(tmp_path, engine):
    """SheetJS's sheet_visibility_strict.xlsx, saved by Excel as "Strict Open XML
    Spreadsheet": refused before (openpyxl finds no sheet in the Strict namespaces)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Visible"
    ws["A1"], ws["A2"] = 2, 3
    ws["B1"] = "=SUBTOTAL(9,A1:A2)"  # per cell: 2 + 3
    ws["B2"] = "=A1*A2"  # blocks: 6
    path = tmp_path / "strict.xlsx"
    wb.save(path)

    def to_strict(name, data):
        if name.endswith((".xml", ".rels")) and name != "[Content_Types].xml":
            for old, new in _TO_STRICT:
                data = data.replace(old, new)
            if name == "xl/workbook.xml":
                data = data.replace(b"<workbook ", b'<workbook conformance="strict" ', 1)
        return data

    _rewrite_parts(path, to_strict)
    v = _values(path, engine)
    assert v[("Visible", "B1")] == 5
    assert v[("Visible", "B2")] == 6


@pytest.mark.parametrize("engine", ENGINES)
def test_dde_link_without_relationships(tmp_path, engine):
    """EPPlus's dde.xlsx (Excel-saved): a DDE external link has no relationship part;
    openpyxl's reader failed on it and the whole book was refused. The DDE cells are
    errors with a reason (Excel cached #REF! for them), the rest computes."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws["A1"] = 4
    ws["B1"] = "=SUBTOTAL(9,A1)*2"  # per cell: 8
    ws["B2"] = "=A1+1"  # 5
    ws["B3"] = "=[1]!'ES #F'"  # Excel: #REF! (the DDE server is not running)
    path = tmp_path / "dde.xlsx"
    wb.save(path)
    link = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<externalLink xmlns='
            b'"http://schemas.openxmlformats.org/spreadsheetml/2006/main"><ddeLink xmlns:r='
            b'"http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
            b'ddeService="WINROS" ddeTopic="LAST"><ddeItems><ddeItem name="ES #F" advise="1"/>'
            b"</ddeItems></ddeLink></externalLink>")
    rel_type = _T + b"officeDocument/2006/relationships/externalLink"
    ctype = b"application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"

    def add_link(name, data):
        if name == "xl/workbook.xml":
            data = data.replace(b"</sheets>", b'</sheets><externalReferences>'
                                b'<externalReference r:id="rIdX1"/></externalReferences>')
        elif name == "xl/_rels/workbook.xml.rels":
            data = data.replace(b"</Relationships>", b'<Relationship Id="rIdX1" Type="'
                                + rel_type + b'" Target="externalLinks/externalLink1.xml"/>'
                                b"</Relationships>")
        elif name == "[Content_Types].xml":
            data = data.replace(b"</Types>", b'<Override PartName="/xl/externalLinks/'
                                b'externalLink1.xml" ContentType="' + ctype + b'"/></Types>')
        return data

    _rewrite_parts(path, add_link, {"xl/externalLinks/externalLink1.xml": link})
    v = _values(path, engine)
    assert v[("Sheet1", "B1")] == 8
    assert v[("Sheet1", "B2")] == 5
    assert str(v[("Sheet1", "B3")]).startswith("#")  # an error value, never a number


@pytest.mark.parametrize("engine", ENGINES)
def test_name_of_a_range_is_intersected(tmp_path, engine):
    """koala's NamedRanges.xlsx / advanced.xlsx (Excel-saved): ``=D1+SINUS`` with SINUS =
    Sheet1!$C$1:$C$18 in row 2 reads C2, as the range itself would (Microsoft, "Implicit
    intersection operator: @"); the engine read the range's first cell (a wrong number:
    Excel cached =Liste*100+B2:B4 as 220, we gave 120)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    for r in range(1, 6):
        ws[f"C{r}"] = r * 10
    ws["B2"] = 7
    wb.defined_names["Liste"] = DefinedName("Liste", attr_text="Sheet1!$C$1:$C$5")
    ws["D2"] = "=Liste*100+B2"  # C2 * 100 + 7
    ws["D3"] = "=Liste"  # C3
    ws["D4"] = "=SUM(Liste)"  # a function reads the whole range
    ws["D5"] = "=-Liste"  # -C5
    ws["D7"] = "=Liste"  # row 7 meets no cell of C1:C5
    path = tmp_path / "names.xlsx"
    wb.save(path)
    v = _values(path, engine)
    assert v[("Sheet1", "D2")] == 2007
    assert v[("Sheet1", "D3")] == 30
    assert v[("Sheet1", "D4")] == 150
    assert v[("Sheet1", "D5")] == -50
    assert str(v[("Sheet1", "D7")]) == "#VALUE!"


@pytest.mark.parametrize("engine", ENGINES)
def test_1904_date_system_gives_no_wrong_date(tmp_path, engine):
    """SheetJS's 1904.xlsx, NPOI's DateFormatTests.xlsx (Excel-saved, ``date1904="1"``):
    Excel cached TEXT(1,"YYYY-MM-DD") as '1904-01-02'; the engine, which knows the 1900
    system only, gave '1900-01-01'. A date function is now #VALUE! with the reason there;
    arithmetic on serial numbers is the same in both systems."""
    from openpyxl.utils.datetime import CALENDAR_MAC_1904

    wb = openpyxl.Workbook()
    wb.epoch = CALENDAR_MAC_1904
    ws = wb.active
    ws.title = "Sheet1"
    ws["B1"] = 1
    ws["C1"] = '=TEXT(B1,"YYYY-MM-DD")'  # Excel: 1904-01-02
    ws["D1"] = "=YEAR(B1)"  # Excel: 1904
    ws["E1"] = "=B1+30"  # 31, whatever the date system
    ws["F1"] = '=TEXT(B1,"0.00")'  # no date in the format: 1.00
    ws["G1"], ws["G2"] = "yyyy", "=TEXT(B1,G1)"  # a date format in a cell: Excel 1904
    path = tmp_path / "mac.xlsx"
    wb.save(path)
    v = _values(path, engine)
    assert v[("Sheet1", "C1")] in ("1904-01-02", "#VALUE!")
    assert v[("Sheet1", "D1")] in (1904, "#VALUE!")
    assert v[("Sheet1", "E1")] == 31
    assert v[("Sheet1", "F1")] == "1.00"
    assert v[("Sheet1", "G2")] in ("1904", "#VALUE!")


#: Microsoft's documented examples ("CEILING.MATH function" ... "ISO.CEILING function") and
#: NPOI's FloorCeilingMath.xlsx (Excel-saved: CEILING.MATH(-3.8,-0.2,FALSE) cached as
#: -3.8000000000000003); ClosedXML's ceiling-floor.xlsx: CEILING.MATH of a negative number
#: came back positive
ROUNDING_CASES = {
    "=_xlfn.CEILING.MATH(24.3,5)": 25, "=_xlfn.CEILING.MATH(6.7)": 7,
    "=_xlfn.CEILING.MATH(-8.1,2)": -8, "=_xlfn.CEILING.MATH(-5.5,2,-1)": -6,
    "=_xlfn.CEILING.MATH(-3.8,-0.2,FALSE)": -3.8000000000000003,
    "=_xlfn.CEILING.MATH(-23.5)": -23,
    "=_xlfn.FLOOR.MATH(24.3,5)": 20, "=_xlfn.FLOOR.MATH(6.7)": 6,
    "=_xlfn.FLOOR.MATH(-8.1,2)": -10, "=_xlfn.FLOOR.MATH(-5.5,2,-1)": -4,
    "=_xlfn.CEILING.PRECISE(4.3)": 5, "=_xlfn.CEILING.PRECISE(-4.3)": -4,
    "=_xlfn.CEILING.PRECISE(4.3,-2)": 6, "=_xlfn.CEILING.PRECISE(-4.3,-2)": -4,
    "=_xlfn.FLOOR.PRECISE(-3.2,-1)": -4, "=_xlfn.FLOOR.PRECISE(3.2,-1)": 3,
    "=_xlfn.FLOOR.PRECISE(3.2)": 3,
    "=ISO.CEILING(4.3)": 5, "=ISO.CEILING(-4.3)": -4, "=ISO.CEILING(4.3,-2)": 6,
    "=_xlfn.CEILING.MATH(7,0)": 0,
}


def test_ceiling_floor_math_precise(tmp_path):
    from formula_cases import evaluate_cases

    wb = openpyxl.Workbook()
    cells, evs = evaluate_cases(wb, wb.active, "A", ROUNDING_CASES, tmp_path)
    for engine, ev in evs.items():
        for formula, expected in ROUNDING_CASES.items():
            got = ev.cells[(wb.active.title, cells[formula])].value
            assert got == expected, (engine, formula, got)


@pytest.mark.parametrize("engine", ENGINES)
def test_chartsheet_and_per_cell_formulas(tmp_path, engine):
    """POI's 47813.xlsx and stress024.xlsx (Excel-saved) have chart sheets: the per-cell
    engine's copy lost the chart sheet's relationships, or put a sheet's names on the chart
    sheet, and openpyxl refused to read the copy back."""
    import re

    from openpyxl.chart import BarChart, Reference

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    for r in range(1, 4):
        ws[f"A{r}"] = r
    ws["B1"] = "=SUBTOTAL(9,A1:A3)"  # per cell: 6
    ws["B2"] = "=A2*A3"  # 6
    chart = BarChart()
    chart.add_data(Reference(ws, min_col=1, min_row=1, max_row=3))
    wb.create_chartsheet("Chart", 0).add_chart(chart)  # first, as in POI's stress024.xlsx
    ws.defined_names["Three"] = DefinedName("Three", attr_text="Data!$A$3")  # sheet scope
    ws["B3"] = "=SUBTOTAL(9,A1)+Three"  # per cell: 1 + 3
    path = tmp_path / "chartsheet.xlsx"
    wb.save(path)

    def drop_chart(name, data):
        if name.startswith("xl/chartsheets/_rels/"):
            return None
        if name.startswith("xl/chartsheets/"):
            return re.sub(rb"<drawing [^>]*/>", b"", data)
        if name == "xl/workbook.xml":  # Excel counts the chart sheet (openpyxl does not)
            return data.replace(b'localSheetId="0"', b'localSheetId="1"')
        return data

    _rewrite_parts(path, drop_chart)
    v = _values(path, engine)
    assert v[("Data", "B1")] == 6
    assert v[("Data", "B2")] == 6
    assert v[("Data", "B3")] == 4
