"""Excel functions the engine implements itself (issue 13, item 2's function list).

Expected values: Microsoft's function reference (read 2026-12-01), its worked examples
where it has them, else hand derivations written beside each case.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel
from openpyxl.worksheet.formula import ArrayFormula

from rooflinexl.recalc.book import recalc_book

CASES = {
    # SEQUENCE: "=SEQUENCE(4,5)" is 4 rows by 5 columns counting 1 to 20, row by row
    "=SUM(SEQUENCE(4))": 10,
    "=INDEX(SEQUENCE(4,5),3,2)": 12,  # row 3 starts at 11
    "=SUM(SEQUENCE(3,1,10,-2))": 24,  # 10 + 8 + 6
    "=SEQUENCE(1)": 1,
    # dynamic-array functions over A1:A5 = 1..5, B = 10 x A, C = a..e, D = 1, 2, 1, 3, 2
    # (hand derivations from Microsoft's definitions)
    "=ROWS(VSTACK(A1:A2,A3:A5))": 5,  # 2 + 3 rows
    "=SUM(VSTACK(A1:A2,A3:A5))": 15,
    "=INDEX(VSTACK(A1:A2,B1:B2),3)": 10,
    "=COLUMNS(HSTACK(A1:A2,B1:B2))": 2,
    "=INDEX(SORT(A1:A5,,-1),1)": 5,  # descending
    "=INDEX(SORT(C1:C5),1)": "a",
    "=INDEX(SORTBY(C1:C5,A1:A5,-1),1)": "e",  # by A, descending
    "=INDEX(SORT(A1:B5,2,-1),1,2)": 50,  # by the second column
    "=INDEX(SORTBY(C1:C5,D1:D5,1,A1:A5,-1),1)": "c",  # D = 1 for a and c; then A down
    "=INDEX(UNIQUE(D1:D5),2)": 2,  # 1, 2, 3 in order of appearance
    "=ROWS(UNIQUE(D1:D5))": 3,
    "=SUM(FILTER(A1:A5,D1:D5=1))": 4,  # 1 + 3
    "=SUM(TAKE(A1:A5,-2))": 9,  # 4 + 5
    "=SUM(DROP(A1:A5,2))": 12,  # 3 + 4 + 5
    "=SUM(CHOOSECOLS(A1:B5,2))": 150,
    '=XLOOKUP("c",C1:C5,B1:B5)': 30,
    '=XLOOKUP("z",C1:C5,B1:B5,"none")': "none",  # if_not_found
    "=XLOOKUP(2.5,A1:A5,B1:B5,,1)": 30,  # exact match or next larger
    "=XLOOKUP(2.5,A1:A5,B1:B5,,-1)": 20,  # exact match or next smaller
    '=XMATCH("d",C1:C5)': 4,
    '=INDEX(TEXTSPLIT("a,b;c,d",",",";"),2,1)': "c",
    "=SUMPRODUCT((A1:A5>2)*B1:B5)": 120,  # 30 + 40 + 50
    '=SUMIFS(B1:B5,A1:A5,">2")': 120,
    '=AVERAGEIFS(B1:B5,A1:A5,">2")': 40,
    "=MAXIFS(B1:B5,D1:D5,1)": 30,
    # OFFSET with numbers written: Microsoft's examples over B6:D8 = 1 ... 9 (row by row)
    "=OFFSET(D3,3,-2,1,1)": 1,  # the value in B6
    "=SUM(OFFSET(D3:F5,3,-2,3,3))": 45,  # the sum of B6:D8
    "=OFFSET(D3,-3,-3)": "#REF!",  # off the sheet
    # spill references (M1# as Excel saves it) to the SEQUENCE(4,5) array in M1:Q4
    "=SUM(_xlfn.ANCHORARRAY(M1))": 210,  # 1 + ... + 20
    "=ROWS(_xlfn.ANCHORARRAY(M1))": 4,
    "=SUM(_xlfn.ANCHORARRAY(A1))": "#REF!",  # A1 holds no array
    # the prefixes Excel writes before newer functions
    "=INDEX(_xlfn._xlws.SORT(A1:A5,1,-1),2)": 4,
    "=_xlfn.MAXIFS(B1:B5,D1:D5,2)": 50,
    # ROUND and its kin: Microsoft's examples, and the decimal Excel holds (1.005 is 1.01)
    "=ROUND(2.15,1)": 2.2,
    "=ROUND(2.149,1)": 2.1,
    "=ROUND(-1.475,2)": -1.48,
    "=ROUND(21.5,-1)": 20,
    "=ROUND(626.3,-3)": 1000,
    "=ROUND(1.98,-1)": 0,
    "=ROUND(-50.55,-2)": -100,
    "=ROUND(1.005,2)": 1.01,
    "=ROUND(A1*1.005,2)": 1.01,  # A1 = 1, on the block path
    "=ROUNDUP(3.14159,3)": 3.142,
    "=ROUNDUP(-3.14159,1)": -3.2,
    "=ROUNDUP(31415.92654,-2)": 31500,
    "=ROUNDUP(0.1+0.2,1)": 0.3,
    "=ROUNDDOWN(76.9,0)": 76,
    "=ROUNDDOWN(-3.14159,1)": -3.1,
    "=ROUNDDOWN(31415.92654,-2)": 31400,
    "=MROUND(10,3)": 9,
    "=MROUND(-10,-3)": -9,
    "=MROUND(1.3,0.2)": 1.4,
    "=MROUND(5,2)": 6,  # half away from zero
    "=MROUND(5,-2)": "#NUM!",
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["M1"] = ArrayFormula("M1:Q4", "=_xlfn.SEQUENCE(4,5)")  # Microsoft's, spilled
    for i in range(1, 6):
        ws[f"A{i}"], ws[f"B{i}"], ws[f"C{i}"] = i, 10 * i, "abcde"[i - 1]
        ws[f"D{i}"] = (1, 2, 1, 3, 2)[i - 1]
    for k in range(9):
        ws.cell(6 + k // 3, 2 + k % 3, k + 1)
    for r in range(1, 5):
        ws[f"J{r}"] = f"=OFFSET(A{r},1,0)"  # filled down: each row reads the row below
    return evaluate_cases(wb, ws, "H", CASES, tmp_path_factory.mktemp("fn"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got, want = evs[engine].value("S", cells[formula]), CASES[formula]
    assert matches_excel(got, want, rel=0), (got, evs[engine].cells[("S", cells[formula])].reason)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_filled_down_offset_reads_relative_to_each_row(evaluations, engine):
    _, evs = evaluations
    assert [evs[engine].value("S", f"J{r}") for r in range(1, 5)] == [2, 3, 4, 5]


@pytest.mark.parametrize("engine", ENGINES)
def test_sequence_fills_its_array_range_row_by_row(evaluations, engine):
    _, evs = evaluations
    grid = [[evs[engine].value("S", f"{c}{r}") for c in "MNOPQ"] for r in range(1, 5)]
    assert grid == [[5 * i + j + 1 for j in range(5)] for i in range(4)]


def test_implicit_intersection_of_ordinary_formulas(tmp_path):
    # Microsoft, "Implicit intersection operator: @": where one value belongs, a range in
    # an ordinary (not array) formula is the cell in the formula's row (a column range) or
    # column (a row range); none is #VALUE!. B1:B5 = 10 ... 50.
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for i in range(1, 6):
        ws[f"B{i}"] = 10 * i
        ws.cell(8, 2 + i, i)  # C8:G8 = 1 ... 5
    ws["D3"] = "=B1:B5*2"  # B3 * 2
    ws["D4"] = "=B1:B5"  # B4
    ws["D9"] = "=B1:B5"  # row 9 meets nothing
    ws["E2"] = "=C8:G8+1"  # column E: E8 + 1
    ws["D5"] = "=SUM(B1:B5)"  # inside a function: the range itself
    p = tmp_path / "i.xlsx"
    wb.save(p)
    for engine in ENGINES:
        ev = recalc_book(p, write=False, engine=engine).evaluation
        assert [ev.value("S", c) for c in ("D3", "D4", "E2", "D5")] == [60, 40, 4, 150]
        assert str(ev.value("S", "D9")) == "#VALUE!"


def test_round_filled_down_is_one_block_with_excels_digits(tmp_path):
    # B2:B5001 = k + 0.005 (k = 1 ... 5000): ROUND(B, 2) is k + 0.01, as Excel's decimal
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(2, 5002):
        ws[f"B{r}"] = (r - 1) + 0.005
        ws[f"C{r}"] = f"=ROUND(B{r},2)"
    p = tmp_path / "r.xlsx"
    wb.save(p)
    ev = recalc_book(p, write=False, engine="blocks").evaluation
    assert all(ev.value("S", f"C{r}") == pytest.approx((r - 1) + 0.01, abs=1e-9)
               for r in range(2, 5002))


def test_gcd_lcm_as_excel():
    """Microsoft, "GCD function" / "LCM function" examples (GCD(5,2)=1, GCD(24,36)=12,
    GCD(7,1)=1, GCD(5,0)=5; LCM(5,2)=10, LCM(24,36)=72) and Excel's cached values in
    IronCalc's GCD_LCM.xlsx (saved by Excel): decimals truncated (LCM(7.5,4.5,7.7)=28),
    a negative #NUM!, text "8" is 8, a boolean #VALUE!, LCM(123456789,1000)=123456789000,
    LCM(2^31-1, 2^30-1, 2) >= 2^53 #NUM!."""
    from rooflinexl.recalc.functions import BUILTINS

    gcd, lcm = BUILTINS["GCD"], BUILTINS["LCM"]
    assert [gcd(5, 2), gcd(24, 36), gcd(7, 1), gcd(5, 0)] == [1.0, 12.0, 1.0, 5.0]
    assert [lcm(5, 2), lcm(24, 36)] == [10.0, 72.0]
    assert lcm(7.5, 4.5, 7.7) == 28.0
    assert str(gcd(-7.5, 5)) == "#NUM!"
    assert lcm("8", 2) == 8.0
    assert str(lcm(True, 2)) == "#VALUE!"
    assert lcm(123456789, 1000) == 123456789000.0
    assert str(lcm(2 ** 31 - 1, 2 ** 30 - 1, 2)) == "#NUM!"


def test_database_functions_as_excel():
    """Microsoft, "DSUM function" / "DAVERAGE function" example (read 2026-12-01): trees
    Apple 18/20/14/105, Pear 12/12/10/96, Cherry 13/14/9/105, Apple 14/15/10/75, Pear 9/8/8/
    76.8, Apple 8/9/6/45 (Tree, Height, Age, Yield, Profit); DSUM(A5:E11,"Profit",A1:A2)
    with Tree "Apple" is 225; DAVERAGE(A5:E11,"Yield",A1:B2) for Apple over 10 ft is 12;
    DAVERAGE(A5:E11,3,A5:E11) the average age of all trees, 13; DCOUNT with Apple,
    Height > 10 and < 16 over Age is 1; DMAX Profit is 105, DMIN Profit of Apple over 10 ft
    is 75."""
    from rooflinexl.recalc.functions import BUILTINS

    db = [["Tree", "Height", "Age", "Yield", "Profit"],
          ["Apple", 18, 20, 14, 105], ["Pear", 12, 12, 10, 96], ["Cherry", 13, 14, 9, 105],
          ["Apple", 14, 15, 10, 75], ["Pear", 9, 8, 8, 76.8], ["Apple", 8, 9, 6, 45]]
    apple = [["Tree"], ["Apple"]]
    tall_apple = [["Tree", "Height"], ["Apple", ">10"]]
    assert BUILTINS["DSUM"](db, "Profit", apple) == 225.0
    assert BUILTINS["DAVERAGE"](db, "Yield", tall_apple) == 12.0
    assert BUILTINS["DAVERAGE"](db, 3, db) == 13.0
    assert BUILTINS["DCOUNT"](db, "Age", [["Tree", "Height", "Height"],
                                           ["Apple", ">10", "<16"]]) == 1.0
    assert BUILTINS["DMAX"](db, "Profit", [["Tree"], [None]]) == 105.0
    assert BUILTINS["DMIN"](db, "Profit", tall_apple) == 75.0


def test_complex_as_excel():
    """Microsoft, "COMPLEX function" examples: COMPLEX(3,4) "3+4i", COMPLEX(3,4,"j") "3+4j",
    COMPLEX(0,1) "i", COMPLEX(1,0) "1"; Excel's cached value in IronCalc's COMPLEXs.xlsx
    (saved by Excel): COMPLEX(1.23, 9.5121, <empty cell>) is "1.23+9.5121i", and with 0 as
    the suffix #VALUE!."""
    from rooflinexl.recalc.functions import BUILTINS

    f = BUILTINS["COMPLEX"]
    assert [f(3, 4), f(3, 4, "j"), f(0, 1), f(1, 0)] == ["3+4i", "3+4j", "i", "1"]
    assert f(1.23, 9.5121, None) == "1.23+9.5121i"
    assert str(f(1, 2, 0)) == "#VALUE!"
