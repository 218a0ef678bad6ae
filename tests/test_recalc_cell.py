"""CELL(info_type, reference) for the info types that depend on the reference only.

Expected values are Excel's cached values in IronCalc's CELL.xlsx (MIT; saved by
Excel), sheet CELL: its column A is copied into column A here, the formulas of column B
into column B (without the array-formula wrapping, which does not change a single value).
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, matches_excel

from rooflinexl.recalc.book import recalc_book

A = {2: "=1/0", 3: 1, 4: 2, 5: 3, 7: 3, 8: 4, 10: 3.4, 12: "=1/0", 13: "=NA()", 14: 3,
     20: 9, 21: 10, 22: 10, 24: "hola", 25: True, 26: 0, 27: 0, 28: "=1/0", 29: "=NA()",
     33: '"address"'}
B = {  # row: (formula, Excel's value)
    2: ('=CELL("address",A2)', "$A$2"), 4: ('=CELL("address",A2:A4)', "$A$2"),
    5: ('=CELL("address",A5:A5)', "$A$5"), 7: ('=CELL("col",A7)', 1),
    8: ('=CELL("col",A8:C8)', 1), 10: ('=CELL("contents",A10)', 3.4),
    11: ('=CELL("contents",A11)', 0), 12: ('=CELL("contents",A12)', "#DIV/0!"),
    14: ('=CELL("contents",A10:A14)', 3.4), 20: ('=CELL("row",A20)', 20),
    21: ('=CELL("row",A11:A21)', 11), 22: ('=CELL("type",A22)', "v"),
    23: ('=CELL("type",A23)', "b"), 24: ('=CELL("type",A24)', "l"),
    25: ('=CELL("type",A25)', "v"), 27: ('=CELL("TYPE",A27)', "v"),
    28: ('=CELL("type",A28)', "v"), 33: ("=CELL(A33,A33)", "#VALUE!"),
    34: ('=CELL("hello")', "#VALUE!"), 35: ("=CELL(TRUE)", "#VALUE!"),
    36: ("=CELL(2)", "#VALUE!"),
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "CELL"
    for r, v in A.items():
        ws[f"A{r}"] = v
    for r, (f, _) in B.items():
        ws[f"B{r}"] = f
    path = tmp_path_factory.mktemp("cell") / "cell.xlsx"
    wb.save(path)
    return {e: recalc_book(path, write=False, engine=e).evaluation for e in ENGINES}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("row", list(B))
def test_excel_answer(evaluations, engine, row):
    got, want = evaluations[engine].value("CELL", f"B{row}"), B[row][1]
    assert matches_excel(got, want, rel=0), got
