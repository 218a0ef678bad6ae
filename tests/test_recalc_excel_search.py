"""Excel's approximate search on unsorted or mixed-type data (LOOKUP), INDEX over an array
constant, ISNUMBER of numeric text.

Expected values are Excel's cached values: formulas' test.xlsx, sheet LOOKUP, rows 56-63
(EUPL; saved by Microsoft Excel; C56 -1.1, E56 3, F56 4, G56 4.1, I56 "b", J56 TRUE are
copied as literals), pycel's lookup.xlsx, sheet Index, rows 40-45, and pycel's
information.xlsx (I14: ISNUMBER of a cell holding the text "1").
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel
from openpyxl.worksheet.formula import ArrayFormula

CASES = {
    "=LOOKUP(4.1,{\"b\",4.1,\"a\",1.1})": 4.1,
    "=LOOKUP(20,{\"b\",4.1,\"a\",1.1},{\"L\",\"ML\",\"MR\",\"R\"})": "R",
    "=LOOKUP(4,{\"b\",4.1,\"a\",1.1})": "#N/A",
    "=LOOKUP(\"b\",{\"b\",4.1,\"a\",1.1})": "a",
    "=LOOKUP(4.1,{\"\",4.1,\"a\",1.1})": 4.1,
    "=LOOKUP(4.1,{TRUE,4.1,FALSE,1.1})": 4.1,
    "=LOOKUP(TRUE,{TRUE,4.1,FALSE,1.1})": False,
    "=LOOKUP(20,{TRUE,4.1,FALSE,\"b\"},{\"L\",\"ML\",\"MR\",\"R\"})": "ML",
    "=LOOKUP(3,{\"a\",2.1,\"b\",4.1})": 2.1,
    "=LOOKUP(2,{\"a\",2.1,\"b\",4.1})": "#N/A",
    "=LOOKUP(4,{4.1,2.1,3.1,1.1})": 1.1,
    "=LOOKUP(3,{4.1,2.1,3.1,1.1})": 2.1,
    "=LOOKUP(2,{4.1,2.1,3.1,1.1})": "#N/A",
    # INDEX over an array constant (pycel lookup.xlsx, Index!C43, and plain cells)
    "=INDEX({1,2;3,4},3)": "#REF!",
    "=INDEX({1,2;3,4},2,2)": 4,
    "=INDEX({1,2,3},2)": 2,
    "=SUM(INDEX({1,2;3,4},0,2))": 6,
    "=ISNUMBER(Z1)": False,
    '=ISNUMBER("12")': False,
    "=ISNUMBER(Z2)": True,
}

#: array formulas (range, formula) -> Excel's cached values row by row (pycel lookup.xlsx,
#: sheet Index: C41:D41, H41:H42, K41:L42, C44:D45; B41 = 1, H40 = 1, K40 = 0, B44 = 0)
ARRAYS = {
    ("C1:D1", "=INDEX({1,2;3,4},1)"): [[1, 2]],
    ("F1:F2", "=INDEX({1,2;3,4},,1)"): [[1], [3]],
    ("H1:I2", "=INDEX({1,2;3,4},,0)"): [[1, 2], [3, 4]],
    ("K1:L2", "=INDEX({1,2;3,4},0)"): [[1, 2], [3, 4]],
    ("C4:G4", '=INDEX({1,2,3,4,5;6,"X",8,9,10},2,0)'): [[6, "X", 8, 9, 10]],
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["Z1"], ws["Z2"] = "1", 1
    for (ref, formula) in ARRAYS:
        ws[ref.split(":")[0]] = ArrayFormula(ref, formula)
    return evaluate_cases(wb, ws, "A", CASES, tmp_path_factory.mktemp("search"))


def _check(got, want):
    assert matches_excel(got, want), got


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got, want = evs[engine].value("S", cells[formula]), CASES[formula]
    assert matches_excel(got, want, rel=0), got


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("key", list(ARRAYS), ids=[k[1] for k in ARRAYS])
def test_array_formula(evaluations, engine, key):
    from openpyxl.utils.cell import range_boundaries

    _, evs = evaluations
    c1, r1, _, _ = range_boundaries(key[0])
    for i, row in enumerate(ARRAYS[key]):
        for j, want in enumerate(row):
            cell = openpyxl.utils.get_column_letter(c1 + j) + str(r1 + i)
            _check(evs[engine].value("S", cell), want)


# MATCH with match_type 1 searches as LOOKUP does (the same binary search): on the
# unsorted {4.1,2.1,3.1,1.1} Excel's LOOKUP gives 1.1 for 4 and 2.1 for 3 (test.xlsx
# LOOKUP!U59, T59), so MATCH gives their positions.
MATCH_CASES = {"=MATCH(4,{4.1,2.1,3.1,1.1})": 4, "=MATCH(3,{4.1,2.1,3.1,1.1},1)": 2,
               "=MATCH(20,{\"b\",4.1,\"a\",1.1})": 4, "=MATCH(4.1,{\"b\",4.1,\"a\",1.1})": 2,
               "=MATCH(2,{4.1,2.1,3.1,1.1})": "#N/A"}


@pytest.fixture(scope="module")
def match_evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, v in enumerate([4.1, 2.1, 3.1, 1.1], start=1):
        ws[f"Z{r}"] = v
    for r in range(1, 5):  # a block: MATCH filled down over a range
        ws[f"Y{r}"] = f"=MATCH(Z{r}+0.5,$Z$1:$Z$4)"
    return evaluate_cases(wb, ws, "A", MATCH_CASES, tmp_path_factory.mktemp("match"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(MATCH_CASES))
def test_match(match_evaluations, engine, formula):
    cells, evs = match_evaluations
    _check(evs[engine].value("S", cells[formula]), MATCH_CASES[formula])


@pytest.mark.parametrize("engine", ENGINES)
def test_match_block(match_evaluations, engine):
    # 4.6 -> 1.1 (4), 2.6 -> 2.1 (2), 3.6 -> 1.1 (4: probes 2.1, 3.1, 1.1), 1.6 -> #N/A
    _, evs = match_evaluations
    got = [evs[engine].value("S", f"Y{r}") for r in range(1, 5)]
    for g, w in zip(got, [4, 2, 4, "#N/A"], strict=True):
        _check(g, w)
