"""SUBTOTAL and AGGREGATE (issue 13, item 2's function list).

Expected values: Microsoft, "SUBTOTAL function" (A2:A5 = 120, 10, 150, 23:
``=SUBTOTAL(9,A2:A5)`` is 303, ``=SUBTOTAL(1,A2:A5)`` 75.75; nested subtotals are left out;
101-111 leave out hidden rows) and "AGGREGATE function" (its worked example below:
``=AGGREGATE(4,6,A1:A11)`` 96, ``=AGGREGATE(14,6,A1:A11,3)`` 72,
``=AGGREGATE(15,6,A1:A11)`` #VALUE!, ``=AGGREGATE(12,6,A1:A11,B1:B11)`` 68), read
2026-12-01; the hidden-row and nested cases by hand beside them.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import matches_excel

from rooflinexl.recalc.book import recalc_book

ENGINES = ("auto", "cells")
# Microsoft's AGGREGATE data (rows 1-11 here)
AGG_A = ["#DIV/0!", 72, 30, "#NUM!", 31, 96, 32, 81, 33, 53, 34]
AGG_B = [82, 65, 95, 63, 53, 71, 55, 83, 100, 91, 89]
CASES = {
    "D1": ("=SUBTOTAL(9,C2:C5)", 303),
    "D2": ("=SUBTOTAL(1,C2:C5)", 75.75),
    "D3": ("=AGGREGATE(4,6,A1:A11)", 96),
    "D4": ("=AGGREGATE(14,6,A1:A11,3)", 72),
    "D5": ("=AGGREGATE(15,6,A1:A11)", "#VALUE!"),
    "D6": ("=AGGREGATE(12,6,A1:A11,B1:B11)", 68),
    "D7": ("=MAX(A1:A2)", "#DIV/0!"),
    # F1:F6 = 1, 2, SUBTOTAL(9,F1:F2) = 3, 10, 20, SUBTOTAL(9,F4:F5) = 30; row 4 hidden
    "D8": ("=SUBTOTAL(9,F1:F6)", 33),  # the two nested subtotals left out
    "D9": ("=SUBTOTAL(109,F1:F6)", 23),  # and the hidden row 4 (10)
    "D10": ("=SUBTOTAL(2,F1:F6)", 4),  # COUNT of 1, 2, 10, 20
    "D11": ("=AGGREGATE(9,4,F1:F6)", 66),  # option 4 ignores nothing
    "D12": ("=AGGREGATE(9,5,F1:F6)", 56),  # option 5: hidden rows only
    "D13": ("=SUBTOTAL(9,A1:A11)", "#DIV/0!"),  # an error in the reference
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, (a, b) in enumerate(zip(AGG_A, AGG_B, strict=True), start=1):
        ws[f"A{r}"] = "=1/0" if a == "#DIV/0!" else ("=SQRT(-1)" if a == "#NUM!" else a)
        ws[f"B{r}"] = b
    for r, v in enumerate((120, 10, 150, 23), start=2):
        ws[f"C{r}"] = v
    for r, v in enumerate((1, 2, "=SUBTOTAL(9,F1:F2)", 10, 20, "=SUBTOTAL(9,F4:F5)"), 1):
        ws[f"F{r}"] = v
    ws.row_dimensions[4].hidden = True
    for cell, (formula, _) in CASES.items():
        ws[cell] = formula
    p = tmp_path_factory.mktemp("sub") / "s.xlsx"
    wb.save(p)
    return {e: recalc_book(p, write=False, engine=e).evaluation for e in ENGINES}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("cell", list(CASES))
def test_excel_answer(evaluations, engine, cell):
    got, want = evaluations[engine].value("S", cell), CASES[cell][1]
    assert matches_excel(got, want, rel=1e-12), got


def test_block_path_when_nothing_is_left_out(tmp_path):
    """A filled-down SUBTOTAL over rows with no hidden row and no nested subtotal is the
    plain function of its range, computed as a block; where a reference holds a hidden
    row or a nested SUBTOTAL, the block path takes them out of it as Excel leaves them
    out (values by hand: A1:A10 = 1..10, row 7 hidden; E1 = SUBTOTAL(9,A1:A2) = 3)."""
    from rooflinexl.recalc.blocks import evaluate_blocks

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(1, 11):
        ws[f"A{r}"] = r
        if r <= 4:  # rows 1-4: a three-row window that never reaches row 7
            ws[f"B{r}"] = f"=SUBTOTAL(109,A{r}:A{r + 2})"
        ws[f"C{r}"] = f"=SUBTOTAL(109,A1:A{r})"  # reaches row 7 from row 7 on
    ws.row_dimensions[7].hidden = True
    ws["E1"] = "=SUBTOTAL(9,A1:A2)"
    ws["E2"] = 100
    ws["F1"] = "=SUBTOTAL(9,E1:E2)"  # E1 left out: 100
    ws["G1"] = "=AGGREGATE(9,4,E1:E2)"  # option 4 keeps nested subtotals: 103
    ws["H1"] = "=SUBTOTAL(9,A1:A10)"
    for r, (formula, arg) in enumerate((("=SUBTOTAL(I1,A1:A10)", 109),
                                        ("=SUBTOTAL(I2,A1:A10)", 9),
                                        ("=AGGREGATE(9,I3,A1:A10)", 5),
                                        ("=AGGREGATE(9,I4,A1:A10)", 4)), 1):
        ws[f"H{r + 1}"] = formula  # computed function number or options
        ws[f"I{r}"] = arg
    wf = wb.create_sheet("F")
    for r in range(1, 11):
        wf[f"A{r}"] = r
    wf.auto_filter.ref = "A1:A10"
    wf.auto_filter.add_filter_column(0, ["1", "2", "3", "4", "5", "6", "8", "9", "10"])
    wf.row_dimensions[7].hidden = True
    wf["C1"] = "=SUBTOTAL(9,A1:A10)"
    wf["C2"] = "=SUBTOTAL(109,A1:A10)"
    p = tmp_path / "s.xlsx"
    wb.save(p)
    ev = evaluate_blocks(p)
    assert [ev.value("S", f"B{r}") for r in range(1, 5)] == [6, 9, 12, 15]
    # 1+..+r, leaving out 7 from row 7 on
    assert [ev.value("S", f"C{r}") for r in range(1, 11)] == [
        1, 3, 6, 10, 15, 21, 21, 29, 38, 48]
    assert (ev.value("S", "F1"), ev.value("S", "G1")) == (100, 103)
    assert ev.value("S", "H1") == 55  # a row hidden by hand is kept by 9 (no filter)
    assert [ev.value("S", f"H{r}") for r in range(2, 6)] == [48, 55, 48, 55]
    # sheet F: the same rows under an autoFilter with criteria, row 7 hidden: filtered
    assert (ev.value("F", "C1"), ev.value("F", "C2")) == (48, 48)
    assert not ev.paths.unsupported  # the hidden row and the nested subtotal taken out


def test_computed_function_number_and_options(tmp_path):
    """Nested subtotals left out on the block path also where the function number or the
    options come from a cell (ClosedXML's functions-excel-2010.xlsx writes
    ``AGGREGATE(C$14,$A17,$C$1:$C$11)``): options 0-3 leave them out, 4-7 keep them;
    SUBTOTAL always leaves them out; the array form leaves them out of its array only.
    By hand: A1:A6 = 1, 2, SUBTOTAL(9,A1:A2) = 3, 10, 20, SUBTOTAL(9,A4:A5) = 30."""
    from rooflinexl.recalc.blocks import evaluate_blocks

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, v in enumerate((1, 2, "=SUBTOTAL(9,A1:A2)", 10, 20, "=SUBTOTAL(9,A4:A5)"), 1):
        ws[f"A{r}"] = v
    for r in range(1, 9):
        ws[f"B{r}"] = r - 1  # options 0..7
        ws[f"C{r}"] = f"=AGGREGATE(9,B{r},$A$1:$A$6)"
        ws[f"D{r}"] = f"=AGGREGATE($E$1,B{r},$A$1:$A$6)"
    ws["E1"] = 9
    ws["F1"] = "=SUBTOTAL(E1,A1:A6)"
    ws["F2"] = "=AGGREGATE(14,0,A1:A6,2)"  # LARGE of 1, 2, 10, 20: 10
    ws["F3"] = "=AGGREGATE(14,4,A1:A6,2)"  # LARGE of 1, 2, 3, 10, 20, 30: 20
    p = tmp_path / "s.xlsx"
    wb.save(p)
    ev = evaluate_blocks(p)
    want = [33] * 4 + [66] * 4
    assert [ev.value("S", f"C{r}") for r in range(1, 9)] == want
    assert [ev.value("S", f"D{r}") for r in range(1, 9)] == want
    assert [ev.value("S", f"F{r}") for r in range(1, 4)] == [33, 10, 20]
    assert ev.paths.unsupported_cells == 0


def test_error_values(tmp_path):
    """Error values as EPPlus's FormulaTest.xlsx (saved by Excel) caches them:
    SUBTOTAL(103, ...) over 28 cells, one #DIV/0!, is 28 (COUNTA counts an error value);
    COUNT passes over it; an error value given as the reference is the result
    (``SUBTOTAL(2,#REF!)`` and ``SUBTOTAL(1,#REF!:B4)`` are #REF!); SUM meets it."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, v in enumerate((1, "=1/0", 3, "x"), 1):
        ws[f"A{r}"] = v
    ws["C1"] = "=SUBTOTAL(103,A1:A4)"
    ws["C2"] = "=SUBTOTAL(2,A1:A4)"
    ws["C3"] = "=SUBTOTAL(9,A1:A4)"
    ws["C4"] = "=SUBTOTAL(2,#REF!)"
    ws["C5"] = "=SUBTOTAL(1,#REF!:B4)"
    p = tmp_path / "s.xlsx"
    wb.save(p)
    ev = recalc_book(p, write=False).evaluation
    got = [ev.value("S", f"C{r}") for r in range(1, 6)]
    assert [x if isinstance(x, float) else str(x) for x in got] == [
        4, 2, "#DIV/0!", "#REF!", "#REF!"]
