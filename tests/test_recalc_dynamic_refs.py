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
        assert ev.paths.cell_cells == 0


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
        assert ev.paths.cell_cells == 0


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
        assert ev.paths.cell_cells == 0
