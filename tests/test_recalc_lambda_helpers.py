"""BYROW, BYCOL, SCAN, MAP, REDUCE with LAMBDAs and eta-reduced functions (issue 13).

Excel saves ``=BYROW(A1:C2, SUM)`` as ``_xlfn.BYROW(A1:C2,_xleta.SUM)``: the function
name is a value, not an undefined name. Expected values are Excel's cached values in the
``formulas`` project's regression workbook (test.xlsx, saved by Excel for Mac), sheet
LOGICAL rows 4-6 and 18-19, and INFORMATION!S24, with the same inputs written below;
the rest by hand beside each case. Both evaluation paths.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

SCAN_ = "_xlfn.SCAN({init},{{1;3}},_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a+_xlpm.b^2))"
CASES = {
    # LOGICAL!S5:S6: =BYROW(C4:E5,_xleta.SUM) over {0,1,2.3; 0,1,2.3} is {3.3; 3.3}
    "=INDEX(_xlfn.BYROW(A1:C2,_xleta.SUM),1,1)": 3.3,
    "=INDEX(_xlfn.BYROW(A1:C2,_xleta.SUM),2,1)": 3.3,
    # LOGICAL!X5:X6: empty, "0" and FALSE in a row sum to 0
    "=INDEX(_xlfn.BYROW(D1:F2,_xleta.SUM),2,1)": 0,
    # LOGICAL!Y5:Y6: the row with #VALUE! is #VALUE!, the other one still sums (2)
    "=INDEX(_xlfn.BYROW(E1:G2,_xleta.SUM),1,1)": "#VALUE!",
    "=INDEX(_xlfn.BYROW(E1:G2,_xleta.SUM),2,1)": 2,
    # by hand: the columns' maxima of {1,2;3,4} are {3,4}
    "=INDEX(_xlfn.BYCOL({1,2;3,4},_xleta.MAX),1,2)": 4,
    "=INDEX(_xlfn.BYROW({1,2;3,4},_xlfn.LAMBDA(_xlpm.r,SUM(_xlpm.r))),2,1)": 7,
    # INFORMATION!S24: a function is a value of type 128
    "=TYPE(_xleta.SUM)": 128,
    # LOGICAL!Y18:Y19: "a"+1^2 is #VALUE!, and so is every later step (an error, not text)
    "=INDEX(" + SCAN_.format(init='"a"') + ",1,1)": "#VALUE!",
    "=ISTEXT(INDEX(" + SCAN_.format(init='"a"') + ",2,1))": False,
    "=ERROR.TYPE(INDEX(" + SCAN_.format(init='"a"') + ",2,1))": 3,
    # LOGICAL!AB18: an error as the initial value is that error
    "=INDEX(" + SCAN_.format(init="#N/A") + ",2,1)": "#N/A",
    # by hand: 1+1^2 = 2, 2+3^2 = 11
    "=INDEX(" + SCAN_.format(init="1") + ",2,1)": 11,
    # LOGICAL!W18: MAP given two LAMBDAs is #VALUE!
    "=_xlfn.MAP({1,2;3,3},_xlfn.LAMBDA(_xlpm.a,_xlpm.a+1),_xlfn.LAMBDA(_xlpm.b,_xlpm.b+3))":
        "#VALUE!",
    "=INDEX(_xlfn.MAP({1,2;3,4},_xlfn.LAMBDA(_xlpm.a,_xlpm.a*10)),2,2)": 40,
    "=_xlfn.REDUCE(1,{1,2;3,4},_xleta.PRODUCT)": 24,
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for row in ([0, 1, 2.3, None, "0", False, "=1/0+#VALUE!"],
                [0, 1, 2.3, None, "0", False, 2]):
        ws.append(row)
    ws["G1"] = "=#VALUE!"
    return evaluate_cases(wb, ws, "K", CASES, tmp_path_factory.mktemp("lambda_helpers"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got, want = evs[engine].value("S", cells[formula]), CASES[formula]
    assert matches_excel(got, want, rel=1e-12), got
