"""Blocks that read one another although no cell reads itself: a loan schedule's
beginning balance is INDEX(the ending-balance column, ROW()-k), the row above, and the
ending balance reads the beginning balance of its own row. Excel follows the cells a
formula really reads, so it computes the schedule (Microsoft's "Loan amortization
schedule" template, MiniExcel's TestIssue186_Template2.xlsx as saved by Excel, has every
value cached); the engine used to report a circular reference. A cell that does read
itself is still a circular reference: reported, exit status 1.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES

from rooflinexl.recalc.book import recalc_book

ROWS = 40


def _schedule(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    for r in range(2, ROWS + 2):
        ws[f"B{r}"] = f"=IF(ROW()=2,1000,INDEX($D$2:$D${ROWS + 1},ROW()-2))"
        ws[f"C{r}"] = f"=B{r}*0.01"
        ws[f"D{r}"] = f"=B{r}+C{r}-50"
    wb.save(path)


@pytest.mark.parametrize("engine", ["auto"])
def test_blocks_reading_the_row_above_of_each_other(tmp_path, engine):
    path = tmp_path / "loan.xlsx"
    _schedule(path)
    res = recalc_book(path, write=False, engine=engine)
    cells = res.evaluation.cells
    balance = 1000.0  # by hand: b(k+1) = b(k) + b(k) * 0.01 - 50
    for r in range(2, ROWS + 2):
        assert cells[("Sheet", f"B{r}")].value == pytest.approx(balance, rel=1e-12)
        interest = balance * 0.01
        assert cells[("Sheet", f"C{r}")].value == pytest.approx(interest, rel=1e-12)
        balance = balance + interest - 50
        assert cells[("Sheet", f"D{r}")].value == pytest.approx(balance, rel=1e-12)
    assert res.exit_code == 0
    assert res.evaluation.paths.unsupported == []


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("pair", [("=B1", "=A1+1"), ("=IFERROR(B1,0)", "=A1+1"),
                                  ("=ISERROR(B1)", "=A1*0"), ("=COUNT(B1:B3)", "=A1+1")])
def test_a_cell_reading_itself_is_still_a_circular_reference(tmp_path, engine, pair):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["B1"] = pair
    path = tmp_path / "cycle.xlsx"
    wb.save(path)
    res = recalc_book(path, write=False, engine=engine)
    assert res.exit_code == 1
    a1 = res.evaluation.cells[("Sheet", "A1")]
    assert a1.is_error and "circular" in a1.reason
