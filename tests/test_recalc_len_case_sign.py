"""LEN, UPPER, LOWER, SIGN and LOG10 of our own (issue 13 item 1: no function computed by
``formulas``), on both paths and over a filled-down column.

Expected values: Microsoft's function pages (read 2026-12-01): "LEN function"
(``LEN("Phoenix, AZ")`` 11, ``LEN("")`` 0, ``LEN("     One   ")`` 11), "UPPER function"
(``UPPER("total")`` TOTAL), "LOWER function" (``LOWER("E. E. Cummings")``), "SIGN
function" (10, 4-4, -0.00001: 1, 0, -1), "LOG10 function" (86: 1.934498451; 10: 1;
1E5: 5); a number is read as its text of 15 significant digits (``LEN(1/3)`` is 17, as
``&`` writes it), a boolean as TRUE/FALSE; LOG10 of 0 or less is #NUM!, of text that is
no number #VALUE!.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

CASES = {
    '=LEN("Phoenix, AZ")': 11,
    '=LEN("")': 0,
    '=LEN("     One   ")': 11,
    "=LEN(1/3)": 17,
    "=LEN(TRUE)": 4,
    "=LEN(Z1)": 0,
    '=UPPER("total")': "TOTAL",
    '=LOWER("E. E. Cummings")': "e. e. cummings",
    "=LOWER(TRUE)": "true",
    "=UPPER(1/4)": "0.25",
    "=SIGN(10)": 1,
    "=SIGN(4-4)": 0,
    "=SIGN(-0.00001)": -1,
    '=SIGN("x")': "#VALUE!",
    "=LOG10(10)": 1,
    "=LOG10(1E5)": 5,
    "=LOG10(0)": "#NUM!",
    "=LOG10(-1)": "#NUM!",
    "=LOG10(1/0)": "#DIV/0!",
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    return evaluate_cases(wb, wb.active, "A", CASES, tmp_path_factory.mktemp("lcs"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_documented_values(evaluations, engine, formula):
    cells, evs = evaluations
    got = evs[engine].value("Sheet", cells[formula])
    assert matches_excel(got, CASES[formula]), (formula, got)


def test_log10_of_86():
    """Microsoft's LOG10(86), 1.934498451 (rounded on the page)."""
    from rooflinexl.recalc.scalars import SCALARS

    assert SCALARS["LOG10"](86) == pytest.approx(1.934498451, abs=5e-10)


def test_filled_down_column_of_mixed_values(tmp_path):
    """A block over numbers, text, booleans, empty cells and an error value: one result
    per row, by the rules above, with no cell per cell."""
    from rooflinexl.recalc.blocks import evaluate_blocks

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    values = [1 / 3, "Total", True, None, "=1/0", -2.5]
    for r, v in enumerate(values, 1):
        if v is not None:
            ws[f"A{r}"] = v
        ws[f"B{r}"] = f"=LEN(A{r})"
        ws[f"C{r}"] = f"=UPPER(A{r})"
        ws[f"D{r}"] = f"=SIGN(A{r})"
    p = tmp_path / "m.xlsx"
    wb.save(p)
    ev = evaluate_blocks(p)
    col = lambda c: [ev.value("S", f"{c}{r}") for r in range(1, 7)]  # noqa: E731
    assert [x if isinstance(x, (int, float)) else str(x) for x in col("B")] == [
        17, 5, 4, 0, "#DIV/0!", 4]
    assert [str(x) for x in col("C")] == [
        "0.333333333333333", "TOTAL", "TRUE", "", "#DIV/0!", "-2.5"]
    assert [x if isinstance(x, (int, float)) else str(x) for x in col("D")] == [
        1, "#VALUE!", 1, 0, "#DIV/0!", -1]
    assert ev.paths.unsupported_cells == 0
