"""Cells the engine computed as a plausible wrong number, each against Excel's answer.

Every expected value is Excel's: a cached value of a workbook saved by Excel (named at
each case) or a rule of Microsoft's function documentation (read 2026-12-01) applied by
hand to the cells written here. Each case runs through both engine paths.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

# B3:B7 = 1, 3, 5, 7, 8 and C3:C7 = 10, 30, 50, 70, 80 (the layout of EPPlus's
# FormulaTest.xlsx, saved by Excel, whose cached VLOOKUP(8,B3:B7,FALSE) is #VALUE!)
LOOKUP_CASES = {
    "=VLOOKUP(8,B3:B7,FALSE)": "#VALUE!",   # EPPlus FormulaTest.xlsx: FALSE is 0, < 1
    "=VLOOKUP(8,B3:B7,0)": "#VALUE!",       # Microsoft: col_index_num < 1 is #VALUE!
    "=VLOOKUP(9,B3:B7,0,FALSE)": "#N/A",    # EPPlus FormulaTest.xlsx: not found comes first
    "=VLOOKUP(8,B3:C7,-1,FALSE)": "#VALUE!",
    "=VLOOKUP(8,B3:C7,3)": "#REF!",         # Microsoft: more than the table's columns
    "=VLOOKUP(8,B3:C7,TRUE)": 8,            # TRUE is 1: the first column
    "=VLOOKUP(8,B3:C7,2.9)": 80,            # a fraction is truncated
    '=VLOOKUP(8,B3:C7,"2")': 80,            # numeric text is its number
    '=VLOOKUP(8,B3:C7,"two")': "#VALUE!",
    "=VLOOKUP(4,B3:C7,2)": 30,              # approximate: the largest value <= 4 is 3
    "=VLOOKUP(4,B3:C7,2,FALSE)": "#N/A",
    "=VLOOKUP(5,B3:C7,2,0)": 50,
    '=VLOOKUP(4,B3:C7,2,"maybe")': "#VALUE!",  # range_lookup text that is no boolean
    "=HLOOKUP(1,B3:C4,FALSE)": "#VALUE!",   # row_index_num as VLOOKUP's col_index_num
    "=HLOOKUP(1,B3:C4,3)": "#REF!",
    "=HLOOKUP(10,B3:C4,2,FALSE)": 30,
}


def _lookup_sheet(ws):
    for r, (b, c) in enumerate(zip((1, 3, 5, 7, 8), (10, 30, 50, 70, 80), strict=True), 3):
        ws[f"B{r}"], ws[f"C{r}"] = b, c


@pytest.fixture(scope="module")
def lookups(tmp_path_factory):
    wb = openpyxl.Workbook()
    _lookup_sheet(wb.active)
    return evaluate_cases(wb, wb.active, "F", LOOKUP_CASES, tmp_path_factory.mktemp("lookup"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(LOOKUP_CASES))
def test_lookup_index_arguments(lookups, engine, formula):
    cells, evs = lookups
    got = evs[engine].value("Sheet", cells[formula])
    assert matches_excel(got, LOOKUP_CASES[formula]), got


# Microsoft, "POISSON.DIST function": x is truncated to an integer. ClosedXML's
# functions-excel-2010.xlsx (saved by Excel) caches POISSON.DIST(20/15, 2, 0) as
# 0.27067056647322535 (= 2 e^-2, x = 1) and the cumulative one as 0.40600584970983811
# (= 3 e^-2); POI's FormulaEvalTestData_Copy.xlsx POISSON(2, 5, FALSE) 0.084224337488568335.
DIST_CASES = {
    "=_xlfn.POISSON.DIST(20/15,2,0)": 0.27067056647322535,
    "=_xlfn.POISSON.DIST(20/15,2,1)": 0.40600584970983811,
    "=POISSON(2.9,2,FALSE)": 0.27067056647322535,   # x 2.9 is 2: 2^2/2! e^-2 = 2 e^-2
    "=POISSON(2,5,FALSE)": 0.084224337488568335,
    "=POISSON(2,5,TRUE)": 0.12465201948308113,
    "=_xlfn.POISSON.DIST(-1,2,0)": "#NUM!",
}


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    wb = openpyxl.Workbook()
    return evaluate_cases(wb, wb.active, "A", DIST_CASES, tmp_path_factory.mktemp("dist"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(DIST_CASES))
def test_distribution_integer_arguments(dists, engine, formula):
    cells, evs = dists
    got = evs[engine].value("Sheet", cells[formula])
    assert matches_excel(got, DIST_CASES[formula], rel=1e-12), got
