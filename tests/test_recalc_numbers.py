"""SUM, PRODUCT, AVERAGE, MAX, MIN and COUNT read their arguments as Excel does.

Microsoft ("SUM function", "COUNT function", "AVERAGE function", read 2026-12-01): in a
reference or an array only numbers count (text, even "7", booleans and blanks are
skipped); a value typed or computed as an argument counts when it is a number, a boolean
or numeric text. Every expected value below is Excel's cached value in IronCalc's test
workbooks (MIT; saved by Excel): PRODUCT_SUM.xlsx, COUNT.xlsx, AVERAGE.xlsx and
MIN_MAX.xlsx; the input cells are copied from them.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

CASES = {
    # PRODUCT_SUM.xlsx: A1 7, A2 ="7", A3 "seven", A4 TRUE, A5 =1/0, A6 =A1
    "=SUM(7)": 7, '=SUM("7")': 7, '=SUM("seven")': "#VALUE!", "=SUM(TRUE)": 1,
    "=SUM(1/0)": "#DIV/0!", "=SUM(A1)": 7, "=SUM(A2)": 0, "=SUM(A3)": 0, "=SUM(A4)": 0,
    "=SUM(A5)": "#DIV/0!", "=SUM(A6)": 7, "=SUM(A7)": 0, "=SUM(A2:B2)": 0,
    "=SUM(A4:B4)": 0, "=SUM(A6:B6)": 7,
    '=PRODUCT("7")': 7, '=PRODUCT("seven")': "#VALUE!", "=PRODUCT(TRUE)": 1,
    "=PRODUCT(A2)": 0, "=PRODUCT(A3)": 0, "=PRODUCT(A4)": 0, "=PRODUCT(A5)": "#DIV/0!",
    "=PRODUCT(A7)": 0, "=PRODUCT(A1:B1)": 7,
    # COUNT.xlsx: C2:C10 = 1, FALSE, 0, TRUE, "Hola", blank, =1+2, "23", =1/0
    "=COUNT(C2:C10)": 3, "=COUNT(C2,C3,C4,C5,C6,C7,C8,C9,C10)": 3,
    "=COUNT(C2:C3,C4,C6:C9)": 3, "=COUNT(1)": 1, '=COUNT("Hola")': 0, "=COUNT(TRUE)": 1,
    '=COUNT("23")': 1, "=COUNT(#N/A)": 0,
    # AVERAGE.xlsx: the same C2:C10 with 12 in C10
    "=AVERAGE(D2:D10)": 4, "=AVERAGE(D2,D3,D4,D5,D6,D7,D8,D9,D10)": 4,
    "=AVERAGE(D2:D3,D4,D6:D9)": 4 / 3, "=AVERAGE(21)": 21, '=AVERAGE("Hola")': "#VALUE!",
    '=AVERAGE(1,2,TRUE,"5","CASE")': "#VALUE!", '=AVERAGE(1,2,"5",TRUE)': 2.25,
    "=AVERAGE(#N/A)": "#N/A", "=AVERAGE(A3)": "#DIV/0!",
    # MIN_MAX.xlsx: E2:E8 = 1, 2, 3, "hola", "-34", "300", FALSE; E11:E13 text
    "=MIN(E2,E3,E4,E5,E6,E7,E8)": 1, "=MAX(E2,E3,E4,E5,E6,E7,E8)": 3, "=MIN(E2:E8)": 1,
    "=MAX(E2:E8)": 3, "=MIN(E11,E12,E13)": 0, "=MAX(E11:E13)": 0,
    # a computed value is typed (Microsoft: "text representations of numbers that you
    # type directly into the list of arguments are counted"); computed: A2&"" is "7"
    '=SUM(A2&"")': 7, '=MAX(A3,A2&"",2)': 7,
    # typed date text is its serial number (formulas' test.xlsx, saved by Excel, sheet
    # STATISTICAL: MAX(...,"29/02/1900") 60, COUNT(...,TRUE,"26/08") counts both)
    '=MAX(1,"29/02/1900")': 60, '=COUNT(TRUE,"26/08")': 2, '=SUM("1/2/2024")': 45293,
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, v in enumerate([7, '="7"', "seven", True, "=1/0", "=A1"], start=1):
        ws[f"A{r}"] = v
    col = [1, False, 0, True, "Hola", None, "=1+2", "23"]
    for r, v in enumerate([*col, "=1/0"], start=2):
        ws[f"C{r}"] = v
    for r, v in enumerate([*col, 12], start=2):
        ws[f"D{r}"] = v
    for r, v in enumerate([1, 2, 3, "hola", "-34", "300", False], start=2):
        ws[f"E{r}"] = v
    for r, v in enumerate("abc", start=11):
        ws[f"E{r}"] = v
    return evaluate_cases(wb, ws, "H", CASES, tmp_path_factory.mktemp("numbers"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got, want = evs[engine].value("S", cells[formula]), CASES[formula]
    assert matches_excel(got, want, rel=1e-15), got
