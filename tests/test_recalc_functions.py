"""Excel functions the engine implements itself (issue 13, item 2's function list).

Expected values: Microsoft's function reference (read 2026-12-01), its worked examples
where it has them, else hand derivations written beside each case.
"""
from __future__ import annotations

import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula

from rooflinexl.recalc.book import recalc_book

ENGINES = ("auto", "cells")
CASES = {
    # SEQUENCE: "=SEQUENCE(4,5)" is 4 rows by 5 columns counting 1 to 20, row by row
    "=SUM(SEQUENCE(4))": 10,
    "=INDEX(SEQUENCE(4,5),3,2)": 12,  # row 3 starts at 11
    "=SUM(SEQUENCE(3,1,10,-2))": 24,  # 10 + 8 + 6
    "=SEQUENCE(1)": 1,
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"] = ArrayFormula("A1:E4", "=SEQUENCE(4,5)")  # Microsoft's example, spilled
    cells = {}
    for i, formula in enumerate(CASES, start=1):
        ws[f"H{i}"] = formula
        cells[formula] = f"H{i}"
    p = tmp_path_factory.mktemp("fn") / "f.xlsx"
    wb.save(p)
    return cells, {e: recalc_book(p, write=False, engine=e).evaluation for e in ENGINES}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got = evs[engine].value("S", cells[formula])
    assert got == CASES[formula] and not isinstance(got, bool), got


@pytest.mark.parametrize("engine", ENGINES)
def test_sequence_fills_its_array_range_row_by_row(evaluations, engine):
    _, evs = evaluations
    grid = [[evs[engine].value("S", f"{c}{r}") for c in "ABCDE"] for r in range(1, 5)]
    assert grid == [[5 * i + j + 1 for j in range(5)] for i in range(4)]
