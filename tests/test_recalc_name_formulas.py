"""Defined names that stand for a formula, not a range (``Is_Beta`` = ``=FALSE``).

Excel evaluates such a name where it is used, as if its formula were written there
(Microsoft, "Define and use names in formulas": a name can refer to a constant or a
formula). The block evaluator now compiles them instead of sending the cell per cell;
the expected values below are derived by hand from the name's formula.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, matches_excel
from openpyxl.workbook.defined_name import DefinedName

from rooflinexl.recalc.book import recalc_book

NAMES = {
    "IsBeta": "FALSE",
    "Rate": "0.25",
    "Half": "S!$A$2/4",
    "Tot": "SUM(S!$A$1:$A$5)",
    "Two": "Rate*8",
    "Txt": '"ab"',
    "Arr": "{1,2,3}",
}
# formula -> its value by hand (A1:A5 hold 1..5)
CASES = {
    "=IF(IsBeta,1,2)": 2,  # FALSE
    "=Rate*4": 1,  # 0.25 * 4
    "=Half+1": 1.5,  # 2 / 4 + 1
    "=Tot": 15,  # 1+2+3+4+5
    "=Two": 2,  # a name using a name: 0.25 * 8
    '=Txt&"c"': "abc",
    "=SUM(Arr)": 6,
    "=Tot*2": 30,
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for i in range(1, 6):
        ws[f"A{i}"] = i
    for k, v in NAMES.items():
        wb.defined_names[k] = DefinedName(k, attr_text=v)
    for i, f in enumerate(CASES, start=1):
        ws[f"C{i}"] = f
    ws["E1"] = "=A1*Rate"  # filled down: a block reading the name on every row
    for r in range(2, 6):
        ws[f"E{r}"] = f"=A{r}*Rate"
    path = tmp_path_factory.mktemp("names") / "names.xlsx"
    wb.save(path)
    return {e: recalc_book(path, write=False, engine=e).evaluation for e in ENGINES}


@pytest.mark.parametrize("engine", ENGINES)
def test_name_formulas_are_evaluated_where_used(results, engine):
    ev = results[engine]
    for i, (formula, want) in enumerate(CASES.items(), start=1):
        got = ev.cells[("S", f"C{i}")].value
        assert matches_excel(got, want), (formula, got, want)
    assert [ev.cells[("S", f"E{r}")].value for r in range(1, 6)] == [0.25, 0.5, 0.75, 1, 1.25]


def test_name_formulas_take_the_block_path(results):
    assert results["auto"].paths.unsupported == []


@pytest.mark.parametrize("engine", ENGINES)
def test_a_name_using_a_relative_name_is_evaluated_at_the_cell_using_it(tmp_path, engine):
    """PhpSpreadsheet's NamedFormulae.xlsx, saved by Excel (its cached values are the
    expected ones here): ``HOURS_PER_DAY = Worksheet!$B1`` is relative, written for A1,
    so ``DAILY_CHARGE = HOURS_PER_DAY*CHARGE_RATE`` in C5 reads B5; ``COLUMN_TOTALS =
    SUM(COLUMN_DATA_VALUES)`` with ``COLUMN_DATA_VALUES = Worksheet!A$4:A$8`` sums the
    column of the cell using it. (The block path used to give 56.25 on every row.)"""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Worksheet"
    names = {"CHARGE_RATE": "Worksheet!$B$1", "COLUMN_DATA_VALUES": "Worksheet!A$4:A$8",
             "COLUMN_TOTALS": "SUM(COLUMN_DATA_VALUES)",
             "DAILY_CHARGE": "HOURS_PER_DAY*CHARGE_RATE", "HOURS_PER_DAY": "Worksheet!$B1"}
    for k, v in names.items():
        wb.defined_names[k] = DefinedName(k, attr_text=v)
    ws["B1"] = 7.5
    for r, hours in zip(range(4, 9), (7.5, 7.25, 6.5, 7, 5.5), strict=True):
        ws[f"B{r}"] = hours
        ws[f"C{r}"] = "=DAILY_CHARGE"
    ws["B10"] = "=COLUMN_TOTALS"
    ws["C10"] = "=COLUMN_TOTALS"
    path = tmp_path / "named.xlsx"
    wb.save(path)
    cells = recalc_book(path, write=False, engine=engine).evaluation.cells
    got = [cells[("Worksheet", f"C{r}")].value for r in range(4, 9)]
    assert got == [56.25, 54.375, 48.75, 52.5, 41.25]
    assert cells[("Worksheet", "B10")].value == 33.75
    assert cells[("Worksheet", "C10")].value == 253.125
