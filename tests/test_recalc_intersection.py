"""The intersection operator (a space) between references, on both engine paths.

Expected values: the formulas project's test.xlsx (EUPL; saved by Microsoft Excel for Mac),
sheet CORE, caches #NULL! for ``=J8:K10 L6:M7`` (K12). The overlapping range of a non-empty
intersection is Microsoft's definition ("Calculation operators and precedence in Excel",
read 2026-12-01: ``=SUM(B5:B15 A7:D7)`` sums B7), checked by hand on the cells written here.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

CASES = {
    "=J8:K10 L6:M7": "#NULL!",               # test.xlsx CORE!K12
    "=SUM(B5:B15 A7:D7)": 7,                 # B7 holds 7
    "=SUM(A1:C3 B2:D4)": 2 + 3 + 2 + 3,      # B2:C3: B2=2, C2=3, B3=2, C3=3 (row r: col c -> c)
    "=B1:B9 A3:C3": 2,                       # one cell: B3
    "=ROWS(A1:C3 B2:D2)": 1,
}
# filled down G1:G8, each row its own overlap (a hand derivation): B r is 2, B7 is 7
FILLED = {f"G{r}": (f"=B$1:B$15 A{r}:D{r}", 7 if r == 7 else 2) for r in range(1, 9)}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(1, 16):
        for c in range(1, 5):
            ws.cell(r, c, c if r != 7 else r)
    for cell, (formula, _want) in FILLED.items():
        ws[cell] = formula
    return evaluate_cases(wb, ws, "F", CASES, tmp_path_factory.mktemp("intersection"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got = evs[engine].value("S", cells[formula])
    assert matches_excel(got, CASES[formula]), got


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("cell", list(FILLED))
def test_filled_down(evaluations, engine, cell):
    _cells, evs = evaluations
    got = evs[engine].value("S", cell)
    assert matches_excel(got, FILLED[cell][1]), got
