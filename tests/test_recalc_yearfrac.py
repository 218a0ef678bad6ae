"""YEARFRAC in every basis as Excel computes it.

Expected values are Excel's cached values in pycel's yearfrac.xlsx (saved by Excel; the
dates and the results are copied, not the file): rows 3, 6, 7, 20, 300, 371 of its
table (start, end, then bases 0-4) and its error table (K3:U9).
"""
from __future__ import annotations

import datetime

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases

from rooflinexl.errors import ExcelError

ROWS = [  # start, end, YEARFRAC for basis 0, 1, 2, 3, 4
    ((2001, 1, 31), (2001, 3, 31),
     [0.16666666666666666, 0.16164383561643836, 0.1638888888888889, 0.16164383561643836,
      0.16666666666666666]),
    ((2004, 2, 29), (2005, 2, 28),
     [1, 0.9972677595628415, 1.0138888888888888, 1, 0.9972222222222222]),
    ((2001, 2, 28), (2004, 2, 29),
     [3, 3.0006844626967832, 3.0444444444444443, 3.0027397260273974, 3.0027777777777778]),
    ((2003, 1, 13), (2001, 3, 3),
     [1.8611111111111112, 1.8657534246575342, 1.8916666666666666, 1.8657534246575342,
      1.8611111111111112]),
    ((2003, 10, 20), (2005, 1, 1),
     [1.1972222222222222, 1.2016423357664234, 1.2194444444444446, 1.2027397260273973,
      1.1972222222222222]),
    ((2003, 12, 30), (2005, 12, 22),
     [1.9777777777777779, 1.9790145985401462, 2.0083333333333333, 1.9808219178082191,
      1.9777777777777779]),
]

CASES = {
    # the error table: serials 1 and 200 (1 Jan and 18 Jul 1900), 0 (1900-01-00)
    "=YEARFRAC(1,200,0)": 0.5472222222222223, "=YEARFRAC(1,200,4)": 0.5472222222222223,
    "=YEARFRAC(1,0,0)": 0.002777777777777778, "=YEARFRAC(2958465,200,0)": 8099.452777777778,
    "=YEARFRAC(2958465,200,4)": 8099.45, "=YEARFRAC(1,2958465,4)": 8099.997222222222,
    "=YEARFRAC(1,2958465,0)": 8100, "=YEARFRAC(-1,200,0)": "#NUM!",
    "=YEARFRAC(2958466,200,0)": "#NUM!", "=YEARFRAC(1,200,-1)": "#NUM!",
    "=YEARFRAC(1,200,5)": "#NUM!", "=YEARFRAC(1/0,200,-1)": "#NUM!",
    "=YEARFRAC(1/0,200,0)": "#DIV/0!", '=YEARFRAC(1/0,200,"plugh")': "#VALUE!",
    "=YEARFRAC(1,200,Z1)": "#VALUE!", "=YEARFRAC(1,200,Z2)": 0.5472222222222223,
    # date-time text is its serial, truncated: 10 Dec 1900 (345) to 1 Jan 1987 in 30/360
    # is 87*360 - 11*30 - 9 days (formulas' test.xlsx, DATE & TIME!X27: 86.0583333)
    '=YEARFRAC("1/1/1987 05:00 AM",345,0)': (87 * 360 - 11 * 30 - 9) / 360,
    '=YEARFRAC(1,200,"1/1/1987")': "#NUM!",  # a date as basis: 31778, not 0-4
    "=YEARFRAC(1987,345,1)": 4.496576905522592,  # test.xlsx, DATE & TIME!R27
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["Z1"] = True  # Z2 blank: basis 0
    cases = dict(CASES)
    for i, (s, e, results) in enumerate(ROWS, start=1):
        ws[f"X{i}"], ws[f"Y{i}"] = datetime.datetime(*s), datetime.datetime(*e)
        for b, want in enumerate(results):
            cases[f"=YEARFRAC(X{i},Y{i},{b})"] = want
    return cases, evaluate_cases(wb, ws, "A", cases, tmp_path_factory.mktemp("yearfrac"))


@pytest.mark.parametrize("engine", ENGINES)
def test_excel_answers(evaluations, engine):
    cases, (cells, evs) = evaluations
    bad = []
    for formula, want in cases.items():
        got = evs[engine].value("S", cells[formula])
        if isinstance(want, str):
            ok = isinstance(got, ExcelError) and str(got) == want
        else:
            ok = not isinstance(got, (bool, str, ExcelError)) and got == pytest.approx(
                want, rel=1e-14)
        if not ok:
            bad.append((formula, want, got))
    assert not bad
