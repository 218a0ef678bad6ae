"""RANDBETWEEN returns an integer from bottom to top (Microsoft, "RANDBETWEEN function":
"Bottom: the smallest integer RANDBETWEEN will return. Top: the largest integer
RANDBETWEEN will return"; #NUM! when bottom is greater than top). Found on
PhpSpreadsheet's Excel-saved chart templates, where every cached value is a whole
number and the engine gave 91.346...
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES

from rooflinexl.errors import ExcelError
from rooflinexl.recalc.book import recalc_book


@pytest.mark.parametrize("engine", ENGINES)
def test_randbetween_gives_whole_numbers_between_the_bounds(tmp_path, engine):
    wb = openpyxl.Workbook()
    ws = wb.active
    for r in range(1, 101):
        ws[f"A{r}"] = "=RANDBETWEEN(1,6)"
        ws[f"B{r}"] = "=RANDBETWEEN(1.5,3.2)"  # the integers in between: 2 and 3
        ws[f"C{r}"] = f"=D{r}+RANDBETWEEN(20,50)"
        ws[f"D{r}"] = 100
    ws["E1"] = "=RANDBETWEEN(5,1)"
    path = tmp_path / "rand.xlsx"
    wb.save(path)
    cells = recalc_book(path, write=False, engine=engine).evaluation.cells
    for col, allowed in (("A", range(1, 7)), ("B", (2, 3)), ("C", range(120, 151))):
        got = [cells[("Sheet", f"{col}{r}")].value for r in range(1, 101)]
        assert all(float(v).is_integer() and int(v) in allowed for v in got), (col, got)
    assert len({cells[("Sheet", f"A{r}")].value for r in range(1, 101)}) > 1  # drawn per cell
    e1 = cells[("Sheet", "E1")].value
    assert isinstance(e1, ExcelError) and str(e1) == "#NUM!"


@pytest.mark.parametrize("engine", ENGINES)
def test_volatile_functions_per_row_and_one_clock(tmp_path, engine):
    """RAND and RANDBETWEEN filled down draw for every row (the block path once stretched a
    literal-argument call over the block); NOW and TODAY are one moment for the whole
    recalculation (Excel computes them at recalculation): TODAY is NOW's day, and the day
    is today's date counted from 1899-12-30 (Microsoft, "DATE function": 1 January 1900
    is 1)."""
    import datetime as dt

    wb = openpyxl.Workbook()
    ws = wb.active
    for r in range(1, 201):
        ws[f"A{r}"] = "=RAND()"
        ws[f"B{r}"] = "=RANDBETWEEN(1,1000000)"
        ws[f"C{r}"] = "=NOW()"
        ws[f"D{r}"] = "=TODAY()"
        ws[f"E{r}"] = f"=D{r}=INT(C{r})"
    path = tmp_path / "volatile.xlsx"
    wb.save(path)
    before = (dt.date.today() - dt.date(1899, 12, 30)).days
    res = recalc_book(path, write=False, engine=engine).evaluation
    after = (dt.date.today() - dt.date(1899, 12, 30)).days
    cells = res.cells
    a = [cells[("Sheet", f"A{r}")].value for r in range(1, 201)]
    b = [cells[("Sheet", f"B{r}")].value for r in range(1, 201)]
    assert all(0 <= x < 1 for x in a) and len(set(a)) > 150
    assert all(float(x).is_integer() and 1 <= x <= 1_000_000 for x in b) and len(set(b)) > 150
    assert len({cells[("Sheet", f"C{r}")].value for r in range(1, 201)}) == 1
    assert {cells[("Sheet", f"D{r}")].value for r in range(1, 201)} <= {before, after}
    assert all(cells[("Sheet", f"E{r}")].value is True for r in range(1, 201))
    if engine == "auto":
        assert res.paths.unsupported == []
