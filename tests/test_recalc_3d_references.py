"""3-D references: ``Sheet1:Sheet3!A1`` is cell A1 of every sheet from Sheet1 to Sheet3 in
the workbook's order (Microsoft, "Create a 3-D reference to the same cell range on
multiple worksheets": SUM, AVERAGE, COUNT, COUNTA, MAX, MIN, PRODUCT, STDEV, VAR and
their A and .S/.P forms take them). Expected values by hand: A1 holds 1, 2 and 4 on the
three sheets, A2 holds 10 on Sheet2. The engine used to count 1 for COUNTA, a wrong
number, and #VALUE! for SUM."""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, matches_excel

from rooflinexl.recalc.book import recalc_book

CASES = {
    "=SUM(Sheet1:Sheet3!A1)": 7,
    "=COUNTA(Sheet1:Sheet3!A1)": 3,
    "=AVERAGE(Sheet1:Sheet3!A1)": pytest.approx(7 / 3, rel=1e-15),
    "=MAX(Sheet3:Sheet1!A1)": 4,  # either end first
    "=SUM('Sheet1:Sheet2'!A1:A2,100)": 113,
    "=COUNT(Sheet2:Sheet3!A1:A2)": 3,
    "=Sheet1:Sheet3!A1": "#VALUE!",  # not an argument of one of those functions
    "=SUM(Sheet1:Nope!A1)": "#REF!",  # no such sheet
}


@pytest.mark.parametrize("engine", ENGINES)
def test_3d_references(tmp_path, engine):
    wb = openpyxl.Workbook()
    s1 = wb.active
    s1.title = "Sheet1"
    s2, s3 = wb.create_sheet("Sheet2"), wb.create_sheet("Sheet3")
    out = wb.create_sheet("Out")
    s1["A1"], s2["A1"], s3["A1"], s2["A2"] = 1, 2, 4, 10
    for i, f in enumerate(CASES, start=1):
        out[f"A{i}"] = f
    path = tmp_path / "three_d.xlsx"
    wb.save(path)
    cells = recalc_book(path, write=False, engine=engine).evaluation.cells
    for i, (formula, want) in enumerate(CASES.items(), start=1):
        got = cells[("Out", f"A{i}")].value
        assert matches_excel(got, want), (formula, got, want)
