"""BESSELI and BESSELK as Excel computes them (Abramowitz and Stegun's approximations).

Expected values are Excel's cached values in IronCalc's BESSEL.xlsx (MIT; saved by Excel
for Mac), sheets BESSELI and BESSELK (x in column A; n = 0, 1, -1, 7, 10).
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

CASES = {
    "=BESSELI(0.2,0)": 1.0100250221205638, "=BESSELI(0.2,1)": 0.10050083385903322,
    "=BESSELI(0.2,7)": 1.9866085100212153e-11, "=BESSELI(2.9,10)": 1.3686046214390991e-05,
    "=BESSELI(-32,0)": 5590908218797.506, "=BESSELI(-32,1)": -5502845662755.76,
    "=BESSELI(-32,7)": -2576524402069.303, "=BESSELI(0,1)": 0, "=BESSELI(0.2,-1)": "#NUM!",
    "=BESSELK(0.2,0)": 1.752703846153972, "=BESSELK(0.2,10)": 1812385260963317.5,
    "=BESSELK(1.4,1)": 0.32083590550458985, "=BESSELK(2.9,7)": 19.02623265816727,
    "=BESSELK(0,0)": "#NUM!", "=BESSELK(-32,1)": "#NUM!", '=BESSELK("x",1)': "#VALUE!",
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    return evaluate_cases(wb, ws, "A", CASES, tmp_path_factory.mktemp("bessel"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got, want = evs[engine].value("S", cells[formula]), CASES[formula]
    assert matches_excel(got, want, rel=1e-14), got
