"""Criteria of COUNTIF, COUNTIFS, SUMIF, ... as Excel documents them, and whole-column ranges
past the used area giving Excel's answer although the engine clips them (issue 13).

Sources, written into each case: Microsoft, "COUNTIF function" (its worked examples: apples,
oranges, peaches, apples / 32, 54, 75, 86), "COUNTIFS function" ("If the criteria argument
is a reference to an empty cell, the COUNTIFS function treats the empty cell as a 0 value"),
"SUMIF function", "AVERAGEIF function" (#DIV/0! when no cell meets the criteria), "MAXIFS
function" (0 when none does); ECMA-376 Part 4, COUNTIF (apples, oranges, grapes, melons:
``"*es"`` 3, ``"??a*"`` 2, ``"*l*"`` 2); the other expected values are counted by hand over
the data below.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

# column A: Microsoft's fruit, column B: its numbers (rows 2-5)
# column D rows 1-11: 1, 2, "x", "X", (blank), "abc", "2", TRUE, "a*c", (blank), 0
# column E rows 1-11: 1 ... 11; F1:I1 the ECMA example; nothing else below row 11
D = [1, 2, "x", "X", None, "abc", "2", True, "a*c", None, 0]
CASES = {
    # Microsoft's COUNTIF examples
    '=COUNTIF(A2:A5,"apples")': 2,
    "=COUNTIF(A2:A5,A4)": 1,
    "=COUNTIF(A2:A5,A2)+COUNTIF(A2:A5,A3)": 3,
    '=COUNTIF(B2:B5,">55")': 2,
    '=COUNTIF(B2:B5,"<>"&B4)': 3,
    '=COUNTIF(B2:B5,">=32")-COUNTIF(B2:B5,">85")': 3,
    '=COUNTIF(A2:A5,"*")': 4,
    '=COUNTIF(A2:A5,"?????es")': 2,
    # ECMA-376's examples
    '=COUNTIF(F1:I1,"*es")': 3,
    '=COUNTIF(F1:I1,"??a*")': 2,
    '=COUNTIF(F1:I1,"*l*")': 2,
    # "<>x" is every cell that is not x, blank cells included (11 cells, x and X out)
    '=COUNTIF(D1:D11,"<>x")': 9,
    '=COUNTIF(D1:D11,"x")': 2,  # case-insensitive
    '=COUNTIF(D1:D11,"")': 2,  # blank cells
    '=COUNTIF(D1:D11,"=")': 2,  # blank cells only
    '=COUNTIF(D1:D11,"<>")': 9,  # every cell that is not blank
    '=COUNTIF(D1:D11,"a*")': 2,  # abc, a*c
    '=COUNTIF(D1:D11,"a~*c")': 1,  # a literal star
    '=COUNTIF(D1:D11,"?")': 3,  # text of one character: x, X, "2"; numbers never
    "=COUNTIF(D1:D11,2)": 2,  # the number 2 and the text "2"
    '=COUNTIF(D1:D11,"2")': 2,
    # every cell but the number 2: the text "2" stays in, as Excel computes it (IronCalc's
    # COUNTIF.xlsx, saved by Excel, Rows!E2: COUNTIF over 23, "23", TRUE, 1, -23, "hey",
    # FALSE with "<>23" is 6; Rows!C2 with 23 is 2)
    '=COUNTIF(D1:D11,"<>2")': 10,
    '=COUNTIF(D1:D11,">1")': 1,  # numbers only: 2 (not the text "2", not TRUE)
    '=COUNTIF(D1:D11,">=0")': 3,  # 1, 2, 0
    "=COUNTIF(D1:D11,TRUE)": 1,
    "=COUNTIF(D1:D11,Z1)": 1,  # an empty criterion cell is 0: the one 0
    '=SUMIF(D1:D11,"<>x",E1:E11)': 59,  # 66 less rows 3 and 4
    '=SUMIF(D1:D11,"",E1:E11)': 15,  # rows 5 and 10
    '=SUMIF(B2:B5,">55")': 161,  # 75 + 86, the range summed itself
    '=COUNTIFS(D1:D11,"<>x",E1:E11,">2")': 7,  # rows 5-11
    '=SUMIFS(E1:E11,D1:D11,"<>x",E1:E11,">2")': 56,  # 5+...+11
    '=AVERAGEIF(B2:B5,">55")': 80.5,
    '=AVERAGEIF(B2:B5,">100")': "#DIV/0!",
    '=MAXIFS(B2:B5,A2:A5,"apples")': 86,
    '=MINIFS(B2:B5,A2:A5,"apples")': 32,
    '=MAXIFS(B2:B5,A2:A5,"kiwis")': 0,
    # an error as the criterion counts the cells holding it (none here), as Excel computes it
    # (IronCalc's COUNTIF.xlsx, saved by Excel, Rows!AA2: a criterion cell holding #N/A
    # over Y2:Y15, one #N/A there, gives 1; AA3, #DIV/0!, gives 1)
    '=COUNTIF(D1:D11,#N/A)': 0,
    # an operator with nothing after it (but = and <>) matches no cell (IronCalc's
    # COUNTIF.xlsx, saved by Excel, Rows!I10:L10: "<", "<=", ">", ">=" over G2:G15 are 0)
    '=COUNTIF(D1:D11,">=")': 0,
    '=COUNTIF(D1:D11,"<")': 0,
    # dates: M1:M3 = 2023-12-31, 2024-01-01, 2024-01-02 as serial numbers 45291 ... 45293;
    # date text in a criterion is its serial number
    '=COUNTIF(M1:M3,">1/1/2024")': 1,
    '=COUNTIF(M1:M3,"2024-01-01")': 1,
    '=COUNTIF(M1:M3,">="&DATE(2024,1,1))': 2,
    '=SUMIFS(E1:E3,M1:M3,"<=1-Jan-2024")': 3,  # rows 1 and 2
    # whole columns past the used area: the cells cut off are blank (1,048,576 rows)
    '=COUNTIF(D:D,"<>x")': 1048574,
    '=COUNTIF(D:D,"=")': 1048567,
    '=COUNTIFS(D:D,"",E:E,"")': 1048565,  # rows 5 and 10 have numbers in E
    '=SUMPRODUCT((D:D="")*1)': 1048567,
    '=SUMPRODUCT((D:D="")*(E:E=""))': 1048565,
    "=INDEX(D:D,1000)": 0,  # an empty cell
    "=ISBLANK(INDEX(D:D,1000))": True,
    "=INDEX(D:D,2)": 2,
    "=INDEX(D:D,1048577)": "#REF!",  # past the sheet
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, (a, b) in enumerate(zip(("apples", "oranges", "peaches", "apples"),
                                   (32, 54, 75, 86), strict=True), start=2):
        ws[f"A{r}"], ws[f"B{r}"] = a, b
    for c, v in zip("FGHI", ("apples", "oranges", "grapes", "melons"), strict=True):
        ws[f"{c}1"] = v
    for r, v in enumerate((45291, 45292, 45293), start=1):
        ws[f"M{r}"] = v
    for r, v in enumerate(D, start=1):
        if v is not None:
            ws[f"D{r}"] = v
        ws[f"E{r}"] = r
    return evaluate_cases(wb, ws, "K", CASES, tmp_path_factory.mktemp("crit"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got, want = evs[engine].value("S", cells[formula]), CASES[formula]
    assert matches_excel(got, want, rel=0), got
