"""Constructs that used to go to the per-cell engine (``formulas``), now the block path's:
SHEET, SHEETS and INFO (Microsoft's "SHEET function", "SHEETS function", "INFO function",
read 2026-12-02), ``ROW(INDIRECT(..))`` of a plain cell, sheet-scope defined names
(Microsoft, "Define and use names in formulas": a worksheet-level name is known on its
sheet only), ``Sheet!#REF!``.

Excel is the oracle: IronCalc's Excel-saved books (``tests/data/per-cell-gone``, MIT;
see its README; ROW_COLUM.xlsx in ``tests/data/ironcalc-dynamic``) cell by cell, and
workbooks built here whose values are Microsoft's documented ones or derived by hand in
the test.
"""
from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from excel_oracle import assert_matches_excel, workbooks

from rooflinexl.recalc.blocks import evaluate_blocks

DATA = Path(__file__).resolve().parent / "data" / "per-cell-gone"
BOOKS = workbooks(DATA)

#: (workbook, sheet, cell) -> (Excel's value, ours today, why). Nothing else may differ.
KNOWN: dict = {}  # filters!C12, SUBTOTAL(109,INDIRECT("B2"):INDIRECT("B6")), is Excel's 4 now


def test_the_corpus_is_complete():
    assert [p.name for p in BOOKS] == ["defined_names.xlsx", "tables.xlsx"]
    assert (DATA / "LICENSE-ironcalc-MIT.txt").is_file()


@pytest.mark.parametrize("path", BOOKS, ids=[p.name for p in BOOKS])
def test_every_formula_cell_equals_excels_cached_value(path):
    assert_matches_excel(path, KNOWN)


ROW_COLUM = DATA.parent / "ironcalc-dynamic" / "ROW_COLUM.xlsx"  # compared there


@pytest.mark.parametrize("path", [*BOOKS, ROW_COLUM], ids=[p.name for p in [*BOOKS, ROW_COLUM]])
def test_these_constructs_stay_on_the_block_path(path):
    ev = evaluate_blocks(path)
    reasons = [why for _cell, _n, why in ev.paths.unsupported]
    assert not [r for r in reasons if any(k in r for k in (
        "INDIRECT", "SHEET", "unknown name", "sheet-scoped"))], reasons


def _evaluate(tmp_path, build, **kw):
    wb = openpyxl.Workbook()
    build(wb)
    path = tmp_path / "b.xlsx"
    wb.save(path)
    return evaluate_blocks(path, **kw)


def _value(ev, sheet, cell):
    v = ev.cells[(sheet, cell)].value
    return str(v) if hasattr(v, "reason") or type(v).__name__ == "ExcelError" else v


def test_sheet_and_sheets(tmp_path):
    """Microsoft, "SHEET function": SHEET(QSalesByRegion) is the number of the sheet the
    name refers to, SHEET(Table1) that of the table's sheet, SHEET("Stuff") that of the
    sheet named Stuff (hidden sheets count), "badSheetName" #N/A; "SHEETS function":
    SHEETS() is the number of sheets of the workbook (3 in its example), SHEETS(ref) of
    a one-sheet reference 1. Sheets here: A, B (hidden), C: so 1, 2, 3 by position."""
    def build(wb):
        a = wb.active
        a.title = "A"
        b = wb.create_sheet("B")
        b.sheet_state = "hidden"
        wb.create_sheet("C")
        a["A1"] = "=_xlfn.SHEET()"
        a["A2"] = '=_xlfn.SHEET("c")'
        a["A3"] = "=_xlfn.SHEET(B!C5)"
        a["A4"] = "=_xlfn.SHEETS()"
        a["A5"] = "=_xlfn.SHEETS(C!A1:B2)"
        a["A6"] = '=_xlfn.SHEET("nope")'
        a["B1"] = "B"
        a["A7"] = '=_xlfn.SHEET(B1&"")'  # the text in B1 names sheet B (B1 itself: A)
        a["A8"] = "=_xlfn.SHEET(1)"  # a number names no sheet: IronCalc's tables.xlsx #N/A
        b["A1"] = "=_xlfn.SHEET()"

    ev = _evaluate(tmp_path, build)
    got = [_value(ev, "A", f"A{i}") for i in range(1, 9)]
    assert got == [1.0, 3.0, 2.0, 3.0, 1.0, "#N/A", 2.0, "#N/A"]
    assert _value(ev, "B", "A1") == 2.0
    assert ev.paths.unsupported_cells == 0


def test_info_from_the_file(tmp_path):
    """Microsoft, "INFO function": "system" is "pcdos" on Windows (openpyxl's
    docProps/app.xml names "Microsoft Excel"; PhpSpreadsheet's issue.3658.xlsx, saved by
    Windows Excel, caches "pcdos"), "recalc" "Automatic" or "Manual", "numfile" the
    worksheets of the open workbooks (this one: 2), "memavail" #N/A (no longer
    supported); what only the running Excel knows ("release", "osversion") is #N/A with
    the reason; an unknown type_text #VALUE!."""
    def build(wb):
        s = wb.active
        s.title = "S"
        wb.create_sheet("T")
        for i, t in enumerate(["SYSTEM", "recalc", "numfile", "memavail", "release",
                               "osversion", "bogus"], 1):
            s[f"A{i}"] = f'=INFO("{t}")'
        s["B1"] = "system"
        s["A8"] = "=INFO(B1)"
        s["C1"] = ArrayFormula("C1:C2", '=INFO({"system";"recalc"})')  # element by element
        s["D1"] = ArrayFormula("D1:D2", '=_xlfn.SHEET({"t";"s"})')

    from openpyxl.worksheet.formula import ArrayFormula

    ev = _evaluate(tmp_path, build)
    got = [_value(ev, "S", f"A{i}") for i in range(1, 9)]
    assert got == ["pcdos", "Automatic", 2.0, "#N/A", "#N/A", "#N/A", "#VALUE!", "pcdos"]
    assert [_value(ev, "S", c) for c in ("C1", "C2", "D1", "D2")] == [
        "pcdos", "Automatic", 2.0, 1.0]
    assert "version of the Excel" in ev.cells[("S", "A5")].value.reason
    assert ev.paths.unsupported_cells == 0


def test_row_and_column_of_indirect_text(tmp_path):
    """ROW(INDIRECT(t)) is the row of the reference t names (Microsoft, "INDIRECT
    function", "ROW function"): of another sheet's cell its row (IronCalc's ROW_COLUM.xlsx
    caches 5 for "OTHER!D5"), of a sheet the workbook lacks #REF! ("NonExist!W3"); of a
    range in a plain cell's whole formula the first row, inside SUM every row
    (ROW of D5:E7 is 5, 6, 7: 18)."""
    def build(wb):
        s = wb.active
        s.title = "S"
        wb.create_sheet("Other")
        s["A1"] = '=ROW(INDIRECT("OTHER!D5"))'
        s["A2"] = '=COLUMN(INDIRECT("Other!D5"))'
        s["A3"] = '=ROW(INDIRECT("NonExist!W3"))'
        s["A4"] = '=ROW(INDIRECT("D5:E7"))'
        s["A5"] = '=SUM(ROW(INDIRECT("D5:E7")))'
        for r in range(6, 9):  # filled down: B6:B8 name C2, C3, C4
            s[f"B{r}"] = f"C{r - 4}"
            s[f"A{r}"] = f"=ROW(INDIRECT(B{r}))"

    ev = _evaluate(tmp_path, build)
    got = [_value(ev, "S", f"A{i}") for i in range(1, 9)]
    assert got == [5.0, 4.0, "#REF!", 5.0, 18.0, 2.0, 3.0, 4.0]
    assert ev.paths.unsupported_cells == 0


def test_sheet_scope_names(tmp_path):
    """A worksheet-level name is known on its own sheet only and wins there over a
    workbook-level name of the same spelling (Microsoft, "Define and use names in
    formulas"; IronCalc's defined_names.xlsx: ``=local`` is 5 on one sheet and 65 on
    another); elsewhere a name only sheets define is #NAME?; ``Sheet!Name`` reaches that
    sheet's name; ``Sheet1!#REF!`` (a name of a deleted cell) is #REF!."""
    from openpyxl.workbook.defined_name import DefinedName

    def build(wb):
        a = wb.active
        a.title = "A"
        b = wb.create_sheet("B")
        a["B1"], b["B1"] = 5, 65
        a["C1"] = 7
        a.defined_names["local"] = DefinedName("local", attr_text="A!$B$1")
        b.defined_names["local"] = DefinedName("local", attr_text="B!$B$1")
        wb.defined_names["glob"] = DefinedName("glob", attr_text="A!$C$1")
        b.defined_names["glob"] = DefinedName("glob", attr_text="B!$B$1")
        wb.defined_names["gone"] = DefinedName("gone", attr_text="A!#REF!")
        c = wb.create_sheet("C")
        a["A1"] = "=local+1"
        b["A1"] = "=local+1"
        c["A1"] = "=local+1"
        c["A2"] = "=B!local*2"
        a["A2"] = "=glob"
        b["A2"] = "=glob"
        c["A3"] = "=gone*2"

    ev = _evaluate(tmp_path, build)
    assert _value(ev, "A", "A1") == 6.0
    assert _value(ev, "B", "A1") == 66.0
    assert _value(ev, "C", "A1") == "#NAME?"
    assert _value(ev, "C", "A2") == 130.0
    assert _value(ev, "A", "A2") == 7.0
    assert _value(ev, "B", "A2") == 65.0
    assert _value(ev, "C", "A3") == "#REF!"
    assert ev.paths.unsupported_cells == 0


def _with_link(tmp_path, formulas: dict, link_cells: str, link_names: str = "") -> Path:
    """A workbook whose sheet S holds ``formulas`` and whose package keeps, as Excel
    writes it (ECMA-376 Part 1, 18.14), the cached cells of another workbook [1] with
    sheets Data and Gone (Gone's refresh failed)."""
    import zipfile

    from openpyxl.workbook.defined_name import DefinedName

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for cell, f in formulas.items():
        ws[cell] = f
    wb.defined_names["far"] = DefinedName("far", attr_text="[1]Data!$A$3")
    wb.defined_names["lost"] = DefinedName("lost", attr_text="'[1]Gone'!$A$1")
    src = tmp_path / "plain.xlsx"
    wb.save(src)
    out = tmp_path / "linked.xlsx"
    link = ('<externalLink xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
            '<externalBook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/'
            'relationships" r:id="rId1"><sheetNames><sheetName val="Data"/><sheetName '
            f'val="Gone"/></sheetNames><definedNames>{link_names}</definedNames>'
            f'<sheetDataSet><sheetData sheetId="0">{link_cells}</sheetData><sheetData '
            'sheetId="1" refreshError="1"/></sheetDataSet></externalBook></externalLink>')
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "xl/workbook.xml":
                data = data.replace(b"</sheets>", b'</sheets><externalReferences>'
                                    b'<externalReference r:id="rId99"/></externalReferences>')
            elif item.filename == "xl/_rels/workbook.xml.rels":
                data = data.replace(b"</Relationships>", b'<Relationship Id="rId99" Type="'
                                    b'http://schemas.openxmlformats.org/officeDocument/2006/'
                                    b'relationships/externalLink" Target="externalLinks/'
                                    b'externalLink1.xml"/></Relationships>')
            zout.writestr(item, data)
        zout.writestr("xl/externalLinks/externalLink1.xml", link)
        zout.writestr("xl/externalLinks/_rels/externalLink1.xml.rels", (
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
            'officeDocument/2006/relationships/externalLinkPath" Target="other.xlsx" '
            'TargetMode="External"/></Relationships>'))
    return out


def test_other_workbooks_from_the_values_the_file_keeps(tmp_path):
    """Excel computes ``[1]Data!A1`` from the values its externalLink part keeps until the
    link is refreshed (the formulas project's test.xlsx caches 3 for ``=[1]Sheet1!$A$1+1``
    with 2 kept; ClosedXML's external-refs.xlsx, saved by Excel, shows each kept text of a
    filled-down ``=[1]Sheet1!A1``). By hand from the cells kept here (A1=2, A2=5, A3=7,
    B1="x", name Rate = A2; this workbook's far = A3, lost = Gone!A1):

    * a filled-down relative reference reads each row's own cell (over B1:B2, B2 not
      kept: "x", #REF!);
    * a range sums 2+5+7 = 14; a name of a range (Both = A1:A2) its values, 2+5 = 7
      (EPPlus's ExtRef.xlsx caches 117 for ``=SUM([1]!RangeE1F2)``); a name of a cell
      its value; this workbook's name of the other's cell (far = [1]Data!$A$3) too;
    * a sheet whose refresh failed is #REF! (calamine's errors.xlsx caches #REF! for
      ``=[1]Feuil8!A1`` there), so is a cell not kept;
    * an add-in function of the other workbook is #NAME?; so is a name kept without a
      reference (the formulas project's test.xlsx, ``=[2]!A``) and a name this workbook
      (``[0]!``) lacks.
    """
    cells = ('<row r="1"><cell r="A1"><v>2</v></cell><cell r="B1" t="str"><v>x</v></cell>'
             '</row><row r="2"><cell r="A2"><v>5</v></cell></row><row r="3"><cell r="A3">'
             '<v>7</v></cell></row>')
    names = ('<definedName name="Rate" refersTo="=Data!$A$2"/><definedName name="Both" '
             'refersTo="=\'Data\'!$A$1:$A$2"/><definedName name="Blank"/>')
    formulas = {"C1": "=[1]Data!A1*10", "C2": "=[1]Data!A2*10", "C3": "=[1]Data!A3*10",
                "D1": "=SUM([1]Data!$A$1:$A$3)", "D2": "=[1]!Rate+1", "D3": "=[1]Data!B1&\"y\"",
                "D4": "=[1]Gone!A1", "D5": "=[1]Data!Z9", "D6": '=[1]!AddIn("q")',
                "D7": "=SUM([1]!Both)", "D8": "=[1]!Blank", "D9": "=[0]!nothere",
                "F1": "=[1]Data!B1", "F2": "=[1]Data!B2", "G1": "=far+1", "G2": "=lost"}
    path = _with_link(tmp_path, formulas, cells, names)
    ev = evaluate_blocks(path)
    got = {c: _value(ev, "S", c) for c in formulas}
    assert got == {"C1": 20.0, "C2": 50.0, "C3": 70.0, "D1": 14.0, "D2": 6.0, "D3": "xy",
                   "D4": "#REF!", "D5": "#REF!", "D6": "#NAME?",
                   "D7": 7.0, "D8": "#NAME?", "D9": "#NAME?", "F1": "x", "F2": "#REF!",
                   "G1": 8.0, "G2": "#REF!"}
    assert "refresh failed" in ev.cells[("S", "D4")].reason  # the reason names the cause
    assert "another workbook" in ev.cells[("S", "D6")].reason
    assert ev.paths.unsupported_cells == 0


def test_randarray_shape_bounds_and_whole_numbers(tmp_path):
    """Microsoft, "RANDARRAY function": rows x columns numbers between min and max (0 and
    1 when omitted), whole numbers with whole_number TRUE, min above max #VALUE!. Volatile:
    only the shape and the bounds can be checked (IronCalc's DynamicArrays.xlsx, saved by
    Excel, has ``{=RANDARRAY(3,3,0,100,TRUE)}`` over A19:C21)."""
    from openpyxl.worksheet.formula import ArrayFormula

    def build(wb):
        s = wb.active
        s.title = "S"
        s["A1"] = ArrayFormula("A1:C2", "=_xlfn.RANDARRAY(2,3,5,10,TRUE)")
        s["E1"] = ArrayFormula("E1:E4", "=_xlfn.RANDARRAY(3,,-1,1)")  # the 4th row: #N/A
        s["G1"] = "=_xlfn.RANDARRAY()"
        s["G2"] = "=_xlfn.RANDARRAY(1,1,3,2)"

    ev = _evaluate(tmp_path, build)
    whole = [_value(ev, "S", f"{c}{r}") for r in (1, 2) for c in "ABC"]
    assert all(isinstance(v, float) and v == int(v) and 5 <= v <= 10 for v in whole), whole
    col = [_value(ev, "S", f"E{r}") for r in range(1, 5)]
    assert all(isinstance(v, float) and -1 <= v < 1 for v in col[:3]) and col[3] == "#N/A"
    assert 0 <= _value(ev, "S", "G1") < 1
    assert _value(ev, "S", "G2") == "#VALUE!"
    assert ev.paths.unsupported_cells == 0


def test_dde_in_a_worksheet_is_name_error(tmp_path):
    """DDE is a macro-sheet function: in a worksheet Excel shows #NAME? (EPPlus's
    dde.xlsx, saved by Excel, caches #NAME? for ``{=DDE("RT","symbol","data_column")}``)."""
    def build(wb):
        wb.active.title = "S"
        wb.active["A1"] = '=DDE("RT","symbol","data_column")'
        wb.active["A2"] = '=ISERROR(DDE("RT","symbol","data_column"))'

    ev = _evaluate(tmp_path, build)
    assert [_value(ev, "S", "A1"), _value(ev, "S", "A2")] == ["#NAME?", True]
    assert ev.paths.unsupported_cells == 0
