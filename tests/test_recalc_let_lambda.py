"""LET, LAMBDA and named LAMBDAs (issue 13, item 2).

Expected values: Microsoft, "LET function" (``=LET(x, 5, SUM(x, 1))`` is 6; later names may
use earlier ones) and "LAMBDA function" (``=LAMBDA(x, x+1)(1)`` is 2; a named LAMBDA
``ToCelsius = LAMBDA(temp, (5/9) * (temp-32))`` gives ``ToCelsius(104)`` = 40), read
2026-12-01; the rest by hand beside each case. Excel writes ``_xlfn.LET(_xlpm.x, ...)`` in
files, so both spellings are checked, on both evaluation paths.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel
from openpyxl.workbook.defined_name import DefinedName

CASES = {
    "=LET(x, 5, SUM(x, 1))": 6,  # Microsoft
    "=_xlfn.LET(_xlpm.x,5,SUM(_xlpm.x,1))": 6,  # the same as Excel saves it
    "=LET(x,A1,y,x+1,x*y)": 30,  # A1 = 5: 5 * 6
    "=LET(x,1,LET(x,x+1,x))": 2,  # the inner x hides the outer one
    '=LET(x,"a",x&"x")': "ax",  # a name inside a string literal stays text
    "=LAMBDA(x, x+1)(1)": 2,  # Microsoft
    "=_xlfn.LAMBDA(_xlpm.x,_xlpm.x+1)(2)": 3,
    "=ToCelsius(104)": 40,  # Microsoft's named LAMBDA
    "=Hyp(3,4)": 5,
    "=Fact(5)": 120,  # a named LAMBDA calling itself
    "=LAMBDA(x,x)(1,2)": "#VALUE!",  # wrong number of arguments
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"] = 5
    for name, text in {
        "ToCelsius": "_xlfn.LAMBDA(_xlpm.temp,(5/9)*(_xlpm.temp-32))",
        "Hyp": "LAMBDA(a,b,SQRT(a^2+b^2))",
        "Fact": "LAMBDA(n,IF(n<=1,1,n*Fact(n-1)))",
    }.items():
        wb.defined_names[name] = DefinedName(name, attr_text=text)
    return evaluate_cases(wb, ws, "C", CASES, tmp_path_factory.mktemp("let"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got, want = evs[engine].value("S", cells[formula]), CASES[formula]
    assert matches_excel(got, want, rel=1e-12), got
