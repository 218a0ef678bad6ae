"""Complex results: a part of decimal exponent -5 in plain notation; IMCSC and IMLOG2
rounded as Excel rounds them.

Expected values are Excel's cached values in the `formulas` project's test.xlsx (EUPL; saved
by Microsoft Excel for Mac), sheet ENGINEERING: S35 ``=IMCOT(D35)`` and S53 ``=IMTAN(D53)``
with D35 = D53 = "13+5j"; S37 (``1.28233995888454E-06+...``) shows exponent -6 keeps E notation.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

from rooflinexl.recalc.functions import complex_text

CASES = {
    '=IMCOT("13+5j")': "0.0000692442674613868-1.00005873951153j",
    '=IMTAN("13+5j")': "0.0000692361330972509+0.999941259144671j",
    # test.xlsx ENGINEERING!T36, T42, R36, U36
    '=IMCSC("3.1+2j")': "0.0118908807944521+0.275445903842597j",
    '=IMLOG2("3.1+2j")': "1.88329758086464+0.826615412942814j",
    '=IMCSC("7+25j")': "1.82483860060804E-11-2.09403043759793E-11j",
    '=IMCSC("-3+2i")': "-0.0403005788568915+0.27254866146294i",
    # IronCalc's COMPLEXs.xlsx (MIT; saved by Excel for Mac), Sheet1 V15/W15, V22, AH12/AI12
    '=IMREAL(IMCSC("7-12.6i"))': 4.43073763907424e-06,
    '=IMCSC("0")': "#NUM!",
    '=IMAGINARY(IMLOG2("-12"))': 4.53236014182719,
    '=IMLOG2("0")': "#NUM!",
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    return evaluate_cases(wb, ws, "A", CASES, tmp_path_factory.mktemp("complex"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got = evs[engine].value("S", cells[formula])
    assert matches_excel(got, CASES[formula]), got


def test_exponent_minus_six_stays_scientific():
    # test.xlsx ENGINEERING!S37: "1.28233995888454E-06+4.33496947416312E-06j"
    assert complex_text(1.28233995888454e-06, 4.33496947416312e-06, "j") == \
        "1.28233995888454E-06+4.33496947416312E-06j"
