"""A lookup whose table (or lookup array) argument is an error value, not a range, is that
error, as Excel gives it: MiniExcel's TestIssue772.xlsx, saved by Excel, caches #REF! for
``=VLOOKUP($C11,#REF!,MATCH(N$4,#REF!,0)-12,0)`` (a deleted sheet's references) in some
17,000 cells; the engine gave #VALUE!. The lookup value's own error comes first."""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, matches_excel

from rooflinexl.recalc.book import recalc_book

CASES = {
    "=VLOOKUP(A1,#REF!,2,0)": "#REF!",
    "=HLOOKUP(A1,#REF!,2,0)": "#REF!",
    "=MATCH(A1,#REF!,0)": "#REF!",
    "=VLOOKUP(#N/A,#REF!,2,0)": "#N/A",
    "=VLOOKUP($A1,#REF!,MATCH(A$1,#REF!,0)-12,0)": "#REF!",
    "=VLOOKUP(A1,A1:B2,2,0)": 2,
}


@pytest.mark.parametrize("engine", ENGINES)
def test_an_error_for_the_table_is_that_error(tmp_path, engine):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["B1"] = 1, 2
    for i, f in enumerate(CASES, start=1):
        ws[f"C{i}"] = f
    path = tmp_path / "lookup.xlsx"
    wb.save(path)
    cells = recalc_book(path, write=False, engine=engine).evaluation.cells
    for i, (formula, want) in enumerate(CASES.items(), start=1):
        got = cells[("Sheet", f"C{i}")].value
        assert matches_excel(got, want), (formula, got, want)
