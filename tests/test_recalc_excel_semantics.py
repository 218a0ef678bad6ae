"""Excel's rules where the per-cell library (``formulas`` 1.3.4) differs (issue 13, item 2).

Every expected value is Excel's documented behaviour, written in the test, and both
evaluation paths (``auto``: blocks where possible; ``cells``: everything per cell)
must give it.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

CASES = {
    # a name nobody defined: #NAME? (formulas: #REF!)
    "=undefined_name": "#NAME?",
    "=undefined_name+1": "#NAME?",
    "=IFERROR(nope,7)": 7,
    "=Rate*2": 0.1,  # a defined name still reads its cell
    # text of numbers: 15 significant digits, E+nn beyond 1E+15; booleans in capitals
    '=1/3&""': "0.333333333333333",
    '=(0.1+0.2)&""': "0.3",
    '=2^60&""': "1.15292150460685E+18",
    '=123456789012345&""': "123456789012345",
    '=(1>0)&"x"': "TRUEx",
    "=LEN(1/3)": 17,
    # complex numbers as text: 15 significant digits per part
    "=COMPLEX(1/3,1)": "0.333333333333333+i",
    '=IMDIV("1","3")': "0.333333333333333",
    '=IMSUM("1+2i","0.1+0.2i")': "1.1+2.2i",
    # ^: 0 to a negative power is a division by zero, 0^0 has no value
    "=0^-1": "#DIV/0!",
    "=0^0": "#NUM!",
    "=(-8)^(1/3)": "#NUM!",
    # a double minus turns a boolean into a number
    '=--("A"="B")': 0,
    "=--TRUE": 1,
    # error literals stay themselves
    "=#N/A": "#N/A",
    "=IFERROR(#DIV/0!,#REF!)": "#REF!",
    # LOOKUP's array form: wider than tall searches the first row and returns from the
    # last row, otherwise the first column and the last column (Excel's cached values in
    # pycel's lookup.xlsx, sheet Lookup, rows 20, 24, 28 and 30: AD1:AH2 = 0..4 over a..u)
    "=LOOKUP(0.5,AD1:AH2)": "a",
    "=LOOKUP(4.5,AD1:AH2)": "u",
    '=LOOKUP("plugh",AD1:AH2)': "#N/A",
    "=LOOKUP(2,AD4:AE8)": "i",
    "=LOOKUP(3,AD4:AE8,AE4:AE8)": "o",
    "=LOOKUP(2,AD4:AE8,AD4:AE8)": "#N/A",  # a two-column result_vector
    # a negative number in an array constant (formulas' test.xlsx, sheet LOOKUP, S56)
    "=LOOKUP(2,{-1.1,2.1,3.1,4.1})": -1.1,
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    from openpyxl.workbook.defined_name import DefinedName

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["Z1"] = 0.05
    for j, (n, t) in enumerate(zip(range(5), "aeiou", strict=True)):
        ws.cell(1, 30 + j, n)  # AD1:AH2
        ws.cell(2, 30 + j, t)
        ws.cell(4 + j, 30, n)  # AD4:AE8
        ws.cell(4 + j, 31, t)
    wb.defined_names["Rate"] = DefinedName("Rate", attr_text="S!$Z$1")
    return evaluate_cases(wb, ws, "A", CASES, tmp_path_factory.mktemp("sem"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got, want = evs[engine].value("S", cells[formula]), CASES[formula]
    assert matches_excel(got, want, rel=1e-15), got
