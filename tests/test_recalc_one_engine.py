"""One engine (issue 13, item 1): every formula is computed by rooflinexl's own evaluator.

No ``formulas`` library: a formula the engine does not support is an error value whose
reason names what (never a guessed value), a cell is a block of one row
(``--engine cells``), and what fails only as a filled-down block is computed row by row.
Expected values: Microsoft's documentation (read 2026-12-02) and hand derivations written
here; the dev corpus' cached values are Excel's own.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest

from rooflinexl.recalc.book import recalc_book

ROOT = Path(__file__).resolve().parents[1]


def _save(wb, tmp_path, name="b.xlsx") -> Path:
    p = tmp_path / name
    wb.save(p)
    return p


def test_recalculates_excels_books_with_formulas_unimportable(tmp_path):
    """The dev corpus (Excel-saved, tests/data/excel-oracle-dev) in a fresh interpreter in
    which ``formulas`` and ``schedula`` cannot be imported: every formula cell equals
    Excel's cached value, as in tests/test_excel_oracle.py."""
    script = """
import json, sys
for m in ("formulas", "schedula"):
    sys.modules[m] = None  # import formulas -> ImportError
sys.path.insert(0, "tests")
from excel_oracle import compare_book, workbooks
total = same = 0
for path in workbooks("tests/data/excel-oracle-dev"):
    m = compare_book(path)
    assert not m.failure, (path, m.failure)
    total += m.cells
    same += m.matched
print(json.dumps([total, same]))
"""
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                         text=True, timeout=600, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    total, same = json.loads(out.stdout.strip().splitlines()[-1])
    assert total == 19_901 and same == total  # the corpus README: 19,901 formula cells


@pytest.mark.parametrize("engine", ["auto", "cells"])
def test_the_same_formula_in_rows_apart_reads_its_own_row(tmp_path, engine):
    """``=B$1:B$15 A7:D7`` (the intersection operator) in G7 is B7 (Microsoft, "Calculation
    operators and precedence": ``=SUM(B5:B15 A7:D7)`` sums B7). The same formula in rows
    1, 3 and 7, not filled down between: each its own row (it was a wrong number before:
    the compiled G1 was used for G7)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(1, 16):
        for c in range(1, 5):
            ws.cell(r, c, c if r != 7 else r)  # B r is 2, B7 is 7
    for r in (1, 3, 7):
        ws[f"G{r}"] = f"=B$1:B$15 A{r}:D{r}"
    ev = recalc_book(_save(wb, tmp_path), write=False, engine=engine).evaluation
    assert [ev.value("S", f"G{r}") for r in (1, 3, 7)] == [2, 2, 7]


def test_what_fails_as_a_block_is_computed_row_by_row(tmp_path):
    """``CELL("row",A2)`` filled down (CELL's address is written in per row): Microsoft,
    "CELL function": "row" is the row number of the cell in reference."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(2, 7):
        ws[f"A{r}"] = r
        ws[f"B{r}"] = f'=CELL("row",A{r})*10'
    res = recalc_book(_save(wb, tmp_path), write=False)
    ev = res.evaluation
    assert [ev.value("S", f"B{r}") for r in range(2, 7)] == [20, 30, 40, 50, 60]
    assert ev.paths.unsupported_cells == 0 and res.exit_code == 0


def test_an_unsupported_construct_is_an_error_naming_it(tmp_path):
    """A formula the engine does not support: an error value whose reason names it, the
    cells reading it that error with where it came from, exit 1, and ``--engine blocks``
    refuses the book (DESIGN.md section 4: never a guessed value). A function Excel has and
    the engine does not is ``#NAME?`` (tests/test_recalc_unknown_functions.py)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"] = 4
    ws["B1"] = "=CONCAT((A1,A1))"  # a union given to CONCAT: Excel's "44", not supported
    ws["C1"] = "=B1&A1"
    ws["D1"] = "=A1*2"
    p = _save(wb, tmp_path)
    res = recalc_book(p, write=False)
    ev = res.evaluation
    b1, c1 = ev.cells[("S", "B1")], ev.cells[("S", "C1")]
    why = "a union of references outside AREAS, ISREF, SUM ..."
    assert str(b1.value) == "#VALUE!" and b1.reason == f"not supported by the engine: {why}"
    assert str(c1.value) == "#VALUE!" and c1.reason == (
        f"propagated from S!B1: not supported by the engine: {why}")
    assert ev.value("S", "D1") == 8
    assert res.exit_code == 1
    assert ev.paths.unsupported == [("S!B1", 1, why)]
    assert f"not supported: S!B1 (1 cells): {why}" in res.report()
    from rooflinexl.recalc.engine import EngineError

    with pytest.raises(EngineError, match="not supported by the engine"):
        recalc_book(p, write=False, engine="blocks")


def test_an_unparsable_formula_is_an_error_that_says_so(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "=SUM(1,"
    ev = recalc_book(_save(wb, tmp_path), write=False).evaluation
    a1 = ev.cells[("Sheet", "A1")]
    assert str(a1.value) == "#VALUE!"
    assert a1.reason.startswith("not supported by the engine: the formula cannot be parsed")


def test_a_missing_table_column_is_ref_with_the_reason_and_iferror_catches_it(tmp_path):
    """A structured reference to a column the table does not have (a damaged or
    hand-edited file; Excel refuses to enter one): #REF! with the reason, and like any
    error value IFERROR's value_if_error replaces it (Microsoft, "IFERROR function")."""
    from openpyxl.worksheet.table import Table

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"], ws["A2"], ws["A3"] = "x", 1, 2
    ws.add_table(Table(displayName="T", ref="A1:A3"))
    ws["C1"] = "=SUM(T[nope])"
    ws["C2"] = "=IFERROR(SUM(T[nope]),-1)"
    ws["C3"] = "=SUM(T[x])"
    ev = recalc_book(_save(wb, tmp_path), write=False).evaluation
    c1 = ev.cells[("S", "C1")]
    assert str(c1.value) == "#REF!" and "T[nope]" in c1.reason and "no column" in c1.reason
    assert ev.value("S", "C2") == -1
    assert ev.value("S", "C3") == 3


def test_a_union_where_a_function_takes_a_list_of_numbers(tmp_path):
    """RANK's ref and LARGE's/SMALL's array may be a union of references (Microsoft, "RANK
    function": "Ref: a reference to a list of numbers"; POI's 61063.xlsx, saved by Excel,
    caches 2 for ``=RANK(A1,(B1,B2,B3),1)``). By hand: 5 among 3, 5, 9 ascending is 2nd."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"], ws["B1"], ws["B2"], ws["B3"] = 5, 3, 5, 9
    ws["C1"] = "=RANK(A1,(B1,B2,B3),1)"
    ws["C2"] = "=LARGE((B1,B2:B3),1)"
    ws["C3"] = "=SMALL((B1:B2,B3),3)"
    ws["C4"] = "=_xlfn.RANK.EQ(A1,(B3,B2),0)"  # 5 among 9, 5 descending: 2nd
    ev = recalc_book(_save(wb, tmp_path), write=False).evaluation
    assert [ev.value("S", f"C{r}") for r in range(1, 5)] == [2, 9, 9, 2]


def test_a_range_with_the_sheet_written_at_both_ends(tmp_path):
    """``SUM(Imps!M4:'Imps'!M76)`` (umya-spreadsheet's issue_216.xlsx, saved by Excel: its
    cached value is the sum of the range): the range between the two cells of one sheet.
    By hand: 4 + 5 + 6 = 15."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    imps = wb.create_sheet("Imps")
    for r in range(1, 10):
        imps[f"M{r}"] = r
    ws["A1"] = "=SUM(Imps!M4:'Imps'!M6)"
    ev = recalc_book(_save(wb, tmp_path), write=False).evaluation
    assert ev.value("S", "A1") == 15


def test_engine_blocks_refuses_a_function_excel_has_and_the_engine_lacks(tmp_path):
    """``--engine blocks`` (a CI gate on books the engine supports whole) refuses a book
    calling a function Excel has that the engine does not implement; an unknown name is
    Excel's own #NAME? and is no reason to refuse."""
    from rooflinexl.recalc.engine import EngineError

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"] = '=GETPIVOTDATA("Sales",B1)'
    ws["A2"] = "=FOOBAR(1)"
    with pytest.raises(EngineError, match="function GETPIVOTDATA is not implemented"):
        recalc_book(_save(wb, tmp_path), write=False, engine="blocks")
    ws["A1"] = 1
    ev = recalc_book(_save(wb, tmp_path, "b2.xlsx"), write=False, engine="blocks").evaluation
    assert str(ev.value("S", "A2")) == "#NAME?"


def test_an_undefined_name_says_so(tmp_path):
    """A name the workbook does not define is #NAME? (Microsoft, "How to correct a #NAME?
    error": "the formula refers to a name that does not exist"), and the reason says so."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"], ws["B1"], ws["B2"] = 2, "=Tax_Rate*A1", "=B1+1"
    ev = recalc_book(_save(wb, tmp_path), write=False).evaluation
    assert str(ev.value("S", "B1")) == "#NAME?"
    assert ev.cells[("S", "B1")].reason == "a name the workbook does not define (Excel's #NAME?)"
    assert ev.cells[("S", "B2")].reason.startswith("propagated from S!B1: a name the workbook")


@pytest.mark.parametrize("engine", ["auto", "cells"])
def test_criteria_filled_down_over_a_column_of_criteria(tmp_path, engine):
    """SUMIFS, COUNTIF and AVERAGEIF filled down, each row's criterion its own (computed
    for the whole column at once, each distinct criterion matched once). Hand derivation:
    A = k0, k1, k2, k0, k1, k2 ...; D = 1, 2, 3 ... 12."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(1, 13):
        ws[f"A{r}"], ws[f"D{r}"] = f"k{(r - 1) % 3}", r
        ws[f"E{r}"] = f"=SUMIFS($D$1:$D$12,$A$1:$A$12,A{r})"
        ws[f"F{r}"] = f'=COUNTIF($D$1:$D$12,">"&D{r})'
        ws[f"G{r}"] = f"=AVERAGEIF($A$1:$A$12,A{r},$D$1:$D$12)"
    ev = recalc_book(_save(wb, tmp_path), write=False, engine=engine).evaluation
    sums = {0: 1 + 4 + 7 + 10, 1: 2 + 5 + 8 + 11, 2: 3 + 6 + 9 + 12}
    for r in range(1, 13):
        k = (r - 1) % 3
        assert ev.value("S", f"E{r}") == sums[k]
        assert ev.value("S", f"F{r}") == 12 - r
        assert ev.value("S", f"G{r}") == sums[k] / 4
