"""Dynamic references (INDIRECT, OFFSET with computed arguments) and the chains of slow
books, through every engine.

Expected values are Excel's: cached values of Excel-saved books (the formulas copied
with them, cited per test), Microsoft's documented examples ("INDIRECT function",
"OFFSET function"), or hand derivations written next to the case.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES

from rooflinexl.recalc.book import recalc_book


def _recalc(wb, folder, engine):
    path = folder / "book.xlsx"
    wb.save(path)
    return recalc_book(path, write=False, engine=engine).evaluation


@pytest.mark.parametrize("engine", ENGINES)
def test_concatenate_chain_down_a_column(tmp_path, engine):
    # SheetJS's large_strings.xlsx: =CONCATENATE(A1,"a") filled down, each row the one
    # above with "a" appended (Excel cached "a"*n there); by hand: row n is
    # "x" followed by n-1 "a", and the & form likewise
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "x"
    ws["B1"] = 1  # a number above the chain: CONCATENATE(1,"a") is "1a"
    ws["C1"] = "p"
    for r in range(2, 301):
        ws[f"A{r}"] = f'=CONCATENATE(A{r - 1},"a")'
        ws[f"B{r}"] = f'=CONCATENATE(B{r - 1},"a")'
        ws[f"C{r}"] = f'=C{r - 1}&"-"&D{r}'
        ws[f"D{r}"] = "q" if r % 2 else None
    ev = _recalc(wb, tmp_path, engine)
    for r in (2, 3, 150, 300):
        assert ev.cells[(ws.title, f"A{r}")].value == "x" + "a" * (r - 1)
        assert ev.cells[(ws.title, f"B{r}")].value == "1" + "a" * (r - 1)
    want = "p" + "".join("-q" if r % 2 else "-" for r in range(2, 301))
    assert ev.cells[(ws.title, "C300")].value == want
    if engine == "auto":
        assert ev.paths.unsupported_cells == 0


def _indirect_book():
    # Microsoft's "INDIRECT function" example: data in A2:B5, the name George = B4
    from openpyxl.workbook.defined_name import DefinedName

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    for r, (a, b) in enumerate([("B2", 1.333), ("B3", 45), ("George", 10), (5, 62)], start=2):
        ws[f"A{r}"] = a
        ws[f"B{r}"] = b
    wb.defined_names["George"] = DefinedName("George", attr_text="Sheet1!$B$4")
    return wb, ws


#: the per-cell engine (formulas) has no INDIRECT of a computed text nor OFFSET with computed
#: offsets (#NAME?, "unknown function"): the block path only
BLOCKS = ("auto",)


@pytest.mark.parametrize("engine", BLOCKS)
def test_indirect_microsoft_example(tmp_path, engine):
    wb, ws = _indirect_book()
    cases = {  # formula: Excel's result as Microsoft documents it
        "=INDIRECT(A2)": 1.333, "=INDIRECT(A3)": 45, "=INDIRECT(A4)": 10,
        '=INDIRECT("B"&A5)': 62,
    }
    for i, f in enumerate(cases, start=1):
        ws[f"D{i}"] = f
    ev = _recalc(wb, tmp_path, engine)
    for i, want in enumerate(cases.values(), start=1):
        assert ev.cells[("Sheet1", f"D{i}")].value == want


@pytest.mark.parametrize("engine", BLOCKS)
def test_offset_microsoft_example(tmp_path, engine):
    # Microsoft's "OFFSET function" example: data in B6:C8; OFFSET(D3,3,-2,1,1) is B6 (4),
    # SUM(OFFSET(D3:F5,3,-2,3,3)) sums B6:D8 (34), OFFSET(D3,-3,-3) is off the sheet (#REF!).
    # The offsets come from cells (E1:E3), so they are computed, not written in
    wb = openpyxl.Workbook()
    ws = wb.active
    for r, (b, c) in enumerate([(4, 10), (8, 3), (3, 6)], start=6):
        ws[f"B{r}"], ws[f"C{r}"] = b, c
    ws["E1"], ws["E2"], ws["E3"] = 3, -2, -3
    ws["G1"] = "=OFFSET(D3,E1,E2,1,1)"
    ws["G2"] = "=SUM(OFFSET(D3:F5,E1,E2,3,3))"
    ws["G3"] = "=OFFSET(D3,E3,E3)"
    ev = _recalc(wb, tmp_path, engine)
    assert ev.cells[(ws.title, "G1")].value == 4
    assert ev.cells[(ws.title, "G2")].value == 34
    assert str(ev.cells[(ws.title, "G3")].value) == "#REF!"
    if engine == "auto":
        assert ev.paths.unsupported_cells == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_names_that_are_constants(tmp_path, engine):
    # ClosedXML's DrawingSizeInPx.xlsx defines Is_Beta as FALSE and reads it in
    # IF(ISERROR(IF(Is_Beta,TRUE)),...); by hand: a constant name is its value
    from openpyxl.workbook.defined_name import DefinedName

    wb = openpyxl.Workbook()
    ws = wb.active
    for name, text in (("Is_Beta", "FALSE"), ("Rate", "0.05"), ("Who", '"Ann"')):
        wb.defined_names[name] = DefinedName(name, attr_text=text)
    ws["A1"] = '=IF(ISERROR(IF(Is_Beta,TRUE)),"error",IF(Is_Beta,"beta","production"))'
    ws["A2"] = "=Rate*100"
    ws["A3"] = '=Who&"!"'
    ev = _recalc(wb, tmp_path, engine)
    assert ev.cells[(ws.title, "A1")].value == "production"
    assert ev.cells[(ws.title, "A2")].value == 5
    assert ev.cells[(ws.title, "A3")].value == "Ann!"
    if engine == "auto":
        assert ev.paths.unsupported_cells == 0


@pytest.mark.parametrize("engine", BLOCKS)
def test_indirect_running_counter(tmp_path, engine):
    # POI's StructuredRefs-lots-with-lookups.xlsx, Query!A:
    # =IF(<this row matches>,INDIRECT("A"&ROW(<this row>)-1)+1,0) filled down 3,798 rows, the
    # row above read through INDIRECT (Excel cached 1, 2, 3 ... per run of matches there).
    # By hand: the count of consecutive "x" in B up to each row
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = 0
    marks = ["x" if (r % 7) else "" for r in range(2, 402)]
    for r, m in enumerate(marks, start=2):
        ws[f"B{r}"] = m or None
        ws[f"A{r}"] = f'=IF(B{r}="x",INDIRECT("A"&ROW(B{r})-1)+1,0)'
    ev = _recalc(wb, tmp_path, engine)
    run = 0
    for r, m in enumerate(marks, start=2):
        run = run + 1 if m else 0
        assert ev.cells[(ws.title, f"A{r}")].value == run, r
    assert ev.paths.unsupported_cells == 0


@pytest.mark.parametrize("engine", BLOCKS)
def test_indirect_text_forms(tmp_path, engine):
    # Microsoft's "INDIRECT function": ref_text an A1 or R1C1 reference (a1 FALSE), a
    # reference to another sheet, or a name; "If ref_text is not a valid cell reference,
    # INDIRECT returns the #REF! error value". By hand over the data written here
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Main"
    data = wb.create_sheet("My Data")
    for r, v in enumerate([10, 20, 30], start=1):
        data[f"B{r}"] = v
    ws["C2"] = 7
    ws["D7"] = 4.5
    cases = {
        "=INDIRECT(\"'My Data'!B2\")": 20,
        "=SUM(INDIRECT(\"'my data'!B1:B3\"))": 60,
        '=INDIRECT("R2C3",FALSE)': 7,
        '=INDIRECT("R[-1]C[1]",FALSE)': 4.5,  # in C8: one row up, one column right (D7)
        '=INDIRECT("$C$2")*2': 14,
        '=COUNT(INDIRECT("\'My Data\'!B1:B3"))': 3,
        '=MAX(INDIRECT("\'My Data\'!B:B"))': 30,
        '=INDIRECT("Nope!A1")': "#REF!",
        '=INDIRECT("not a reference")': "#REF!",
        '=INDIRECT("")': "#REF!",
        '=IFERROR(INDIRECT("A0"),-1)': -1,
    }
    for i, f in enumerate(cases, start=5):
        ws[f"C{i}"] = f
    ev = _recalc(wb, tmp_path, engine)
    for i, want in enumerate(cases.values(), start=5):
        got = ev.cells[("Main", f"C{i}")].value
        if isinstance(want, str):
            assert str(got) == want, (i, got)
        else:
            assert got == want, (i, got)
    assert ev.paths.unsupported_cells == 0


@pytest.mark.parametrize("engine", BLOCKS)
def test_offset_running_sum_filled_down(tmp_path, engine):
    # =SUM(OFFSET($B$1,0,0,ROW(),1)) filled down: the sum of B1 down to this row (Microsoft's
    # "OFFSET function": height rows from the reference); by hand 1+2+...+r
    wb = openpyxl.Workbook()
    ws = wb.active
    for r in range(1, 101):
        ws[f"B{r}"] = r
        ws[f"A{r}"] = f"=SUM(OFFSET($B$1,0,0,ROW(B{r}),1))"
    ev = _recalc(wb, tmp_path, engine)
    for r in (1, 2, 50, 100):
        assert ev.cells[(ws.title, f"A{r}")].value == r * (r + 1) / 2
    assert ev.paths.unsupported_cells == 0


@pytest.mark.parametrize("engine", BLOCKS)
def test_indirect_of_text_the_block_itself_computes(tmp_path, engine):
    # A2 =INDIRECT(A1) filled down, A1 holding "B1": each row names the cell its row
    # above computed ("B1", then B1's own text ...). By hand: B1 is "C1", C1 is 5, so A2
    # is "C1" and A3 is 5
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "B1"
    ws["B1"] = "C1"
    ws["C1"] = 5
    ws["A2"] = "=INDIRECT(A1)"
    ws["A3"] = "=INDIRECT(A2)"
    ev = _recalc(wb, tmp_path, engine)
    assert ev.cells[(ws.title, "A2")].value == "C1"
    assert ev.cells[(ws.title, "A3")].value == 5


#: (workbook, sheet, cell) -> (Excel's value, ours today, why) in IronCalc's ROW_COLUM.xlsx
KNOWN = {
    # OFFSET with written numbers is rewritten before evaluating: a negative size is
    # #VALUE! in Excel, a size of 0.9 one column
    ("ROW_COLUM.xlsx", "OFFSET", "K38"): ("#VALUE!", "#REF!", "negative height"),
    ("ROW_COLUM.xlsx", "OFFSET", "K39"): ("#VALUE!", "#REF!", "negative width"),
    ("ROW_COLUM.xlsx", "OFFSET", "K48"): (50.0, "#REF!", "fractional width"),
}


def test_ironcalc_row_column_indirect_offset_book():
    # IronCalc's LOOKUP_AND_REFERENCE/ROW_COLUM.xlsx (MIT, tests/data/ironcalc-dynamic):
    # INDIRECT and OFFSET with offsets and sizes read from cells, nested
    # (OFFSET(INDIRECT(A42),B42,C42)), under ROW, COLUMN, ROWS, COLUMNS and SUM; every
    # formula cell equals Excel's cached value but the KNOWN ones (137 of 175 before)
    from pathlib import Path

    from excel_oracle import assert_matches_excel

    path = Path(__file__).resolve().parent / "data" / "ironcalc-dynamic" / "ROW_COLUM.xlsx"
    assert (path.parent / "LICENSE-ironcalc-MIT.txt").is_file()
    assert_matches_excel(path, KNOWN)
