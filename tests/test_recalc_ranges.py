"""Ranges of any size, running totals and over-nested formulas (issue 16, items 1, 7, 11).

Each test reproduces a report of the adversarial pass on a small workbook and
asserts Excel's answer, worked out by hand in the test: a whole-column,
whole-row or whole-sheet range holds every cell of the sheet, formula cells
included; a range that includes its own cell is a circular reference; a
formula filled down that reads the rows above it (a running total) is
computed, on the block path; a formula nested deeper than Excel's 64 levels is
an error in that one cell. Both evaluation paths (``auto`` = blocks where
possible, ``cells`` = everything per cell) must give the same answer.
Time and memory are measured by ``benchmarks/recalc_ranges.py``, not here.
"""
from __future__ import annotations

import openpyxl
import pytest
from click.testing import CliRunner

from rooflinexl.cli import main
from rooflinexl.errors import ExcelError
from rooflinexl.recalc.book import recalc_book
from rooflinexl.recalc.prepass import MAX_NESTING, clip_ranges, rewrite_formula, tokenize

ENGINES = ("auto", "cells")


def _save(wb, tmp_path, name="b.xlsx"):
    p = tmp_path / name
    wb.save(p)
    return p


def _issue_book(tmp_path):
    """Sheet S: 21 in A1, =A1*2 in B1, =SUM(A:A) in B2 (the report's sheet)."""
    wb = openpyxl.Workbook()
    s = wb.active
    s.title = "S"
    s["A1"], s["B1"], s["B2"] = 21, "=A1*2", "=SUM(A:A)"
    o = wb.create_sheet("O")
    o["A1"] = "=SUM(S!A1:XFD1048576)"
    o["A2"] = "=COUNTA(S!A:XFD)"
    o["A3"] = "=SUM(S!1:1048576)"
    o["A4"] = "=SUM(S!A:XFD)"
    o["A5"] = "=SUM(S!B:B)"
    o["A6"] = "=SUM(S!1:1)"
    o["A7"] = "=SUMPRODUCT(S!A:A,S!A:A)"  # two whole columns keep the same shape
    o["A8"] = "=INDEX(S!B:B,2)"  # positions from the top are kept
    o["A9"] = "=ROWS(S!A:A)*COLUMNS(S!1:1)"  # the size is the sheet's, not the data's
    o["A10"] = "=COUNTBLANK(S!B:B)"  # every blank cell of the column
    o["A11"] = "=ROWS(S!A3:B1048576)"
    o["A12"] = '=COUNTIF(S!B:B,"")'  # blank cells match ""
    o["A13"] = '=COUNTIF(S!A:A,">0")'  # but not a number criterion
    return _save(wb, tmp_path)


@pytest.mark.parametrize("engine", ENGINES)
def test_whole_sheet_row_and_column_ranges_include_formula_cells(tmp_path, engine):
    ev = recalc_book(_issue_book(tmp_path), write=False, engine=engine).evaluation
    # S: A1 = 21, B1 = 42, B2 = SUM(A:A) = 21; every cell of S sums to 84, 3 non-empty
    assert ev.value("S", "B1") == 42
    assert ev.value("S", "B2") == 21
    assert ev.value("O", "A1") == 84
    assert ev.value("O", "A2") == 3
    assert ev.value("O", "A3") == 84
    assert ev.value("O", "A4") == 84
    assert ev.value("O", "A5") == 63  # 42 + 21
    assert ev.value("O", "A6") == 63  # row 1: 21 + 42
    assert ev.value("O", "A7") == 441  # 21 * 21
    assert ev.value("O", "A8") == 21
    assert ev.value("O", "A9") == 1048576 * 16384
    assert ev.value("O", "A10") == 1048576 - 2
    assert ev.value("O", "A11") == 1048576 - 2
    assert ev.value("O", "A12") == 1048576 - 2
    assert ev.value("O", "A13") == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_a_range_including_its_own_cell_is_a_circular_reference(tmp_path, engine):
    wb = openpyxl.Workbook()
    s = wb.active
    s.title = "S"
    s["A1"], s["B1"] = 21, "=A1*2"
    s["C1"] = "=COUNTA(1:1048576)"  # includes C1 itself
    s["C2"] = "=SUM(C:C)"  # includes C2 itself
    s["D1"] = "=SUM(A:A)"  # does not
    r = recalc_book(_save(wb, tmp_path), write=False, engine=engine)
    ev = r.evaluation
    for cell in ("C1", "C2"):
        v = ev.value("S", cell)
        assert isinstance(v, ExcelError), (cell, v)
        assert "circular" in ev.cells[("S", cell)].reason
    assert ev.value("S", "D1") == 21
    assert ev.value("S", "B1") == 42
    assert r.exit_code == 1


def test_ten_whole_column_totals_are_blocks(tmp_path):
    wb = openpyxl.Workbook()
    s = wb.active
    s.title = "S"
    expected = {}
    for j, col in enumerate("BCDEFGHIJK"):
        vals = [(r * 7 + j) % 13 + 0.25 for r in range(300)]
        for r, v in enumerate(vals, start=1):
            s[f"{col}{r}"] = v
        s[f"M{j + 1}"] = f"=SUM({col}:{col})"
        expected[f"M{j + 1}"] = sum(vals)
    ev = recalc_book(_save(wb, tmp_path), write=False, engine="blocks").evaluation
    assert ev.paths.unsupported_cells == 0
    for cell, want in expected.items():
        assert ev.value("S", cell) == pytest.approx(want, rel=1e-12)


def _running_book(tmp_path, rows=1000, with_error=False):
    wb = openpyxl.Workbook()
    s = wb.active
    s.title = "S"
    s["A1"] = 1
    for r in range(2, rows + 2):
        s[f"A{r}"] = f"=A{r - 1}+1"  # reads its own column one row up
        s[f"B{r}"] = r % 10
        s[f"C{r}"] = f"=SUM($B$2:B{r})"  # a growing range
        s[f"D{r}"] = f"=MAX($B$2:B{r})-MIN($B$2:B{r})+AVERAGE($B$2:B{r})"
        s[f"E{r}"] = f"=E{r - 1}+B{r}"  # the row above plus this row's input
        s[f"F{r}"] = f"=SUM($B$1:B{r - 1})"  # everything above this row
    if with_error:
        s["B6"] = "=1/0"
    return _save(wb, tmp_path)


def test_running_totals_are_computed_on_the_block_path(tmp_path):
    rows = 1000
    ev = recalc_book(_running_book(tmp_path, rows), write=False, engine="blocks").evaluation
    assert ev.paths.unsupported_cells == 0
    running = 0
    for r in range(2, rows + 2):
        b = [x % 10 for x in range(2, r + 1)]
        running += r % 10
        assert ev.value("S", f"A{r}") == r  # 1 + (r - 1)
        assert ev.value("S", f"C{r}") == running
        assert ev.value("S", f"E{r}") == running
        assert ev.value("S", f"F{r}") == running - r % 10
        want = max(b) - min(b) + sum(b) / len(b)
        assert ev.value("S", f"D{r}") == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_an_error_in_a_growing_range_reaches_the_rows_below_it_only(tmp_path, engine):
    ev = recalc_book(_running_book(tmp_path, 20, with_error=True), write=False,
                     engine=engine).evaluation
    assert ev.value("S", "C5") == 2 + 3 + 4 + 5
    assert ev.value("S", "E5") == 2 + 3 + 4 + 5
    for r in (6, 7, 21):
        assert str(ev.value("S", f"C{r}")) == "#DIV/0!"
        assert str(ev.value("S", f"D{r}")) == "#DIV/0!"
        assert str(ev.value("S", f"E{r}")) == "#DIV/0!"
    assert ev.value("S", "A21") == 21


def test_a_running_total_that_reads_its_own_row_stays_circular(tmp_path):
    wb = openpyxl.Workbook()
    s = wb.active
    for r in range(1, 6):
        s[f"B{r}"] = r
        s[f"A{r}"] = f"=SUM($A$1:A{r})+B{r}"  # includes its own cell
    ev = recalc_book(_save(wb, tmp_path), write=False).evaluation
    for r in range(1, 6):
        assert isinstance(ev.value("Sheet", f"A{r}"), ExcelError)
        assert "circular" in ev.cells[("Sheet", f"A{r}")].reason


def _nested(depth: int) -> str:
    return "=" + "ABS(" * depth + "A1" + ")" * depth


@pytest.mark.parametrize("engine", ENGINES)
def test_an_over_nested_formula_is_an_error_in_that_cell_only(tmp_path, engine):
    wb = openpyxl.Workbook()
    s = wb.active
    s["A1"] = -2
    s["B1"] = _nested(300)
    s["B2"] = _nested(MAX_NESTING)  # Excel's limit: still a formula
    s["C1"] = "=A1*3"
    s["C2"] = "=B1+1"
    p = _save(wb, tmp_path)
    r = recalc_book(p, write=False, engine=engine)
    ev = r.evaluation
    assert str(ev.value("Sheet", "B1")) == "#NUM!"
    assert ev.cells[("Sheet", "B1")].reason == (
        "the formula nests functions 300 levels deep; Excel allows 64")
    assert ev.value("Sheet", "B2") == 2
    assert ev.value("Sheet", "C1") == -6
    assert str(ev.value("Sheet", "C2")) == "#NUM!"
    assert r.exit_code == 1
    out = CliRunner().invoke(main, ["recalc", str(p), "-o", str(tmp_path / "o.xlsx")])
    assert out.exit_code == 1, out.output
    assert "300 levels deep" in out.output


def test_clipping_leaves_text_and_ordinary_ranges_alone():
    rw = rewrite_formula('="A:A"&SUM(A:A)+SUM(A1:B5)+SUM(2:2)+S!C3:C1048576', clip=(40, 3))
    assert rw.text == '="A:A"&SUM(A$1:A$40)+SUM(A1:B5)+SUM($A2:$C2)+S!C3:C40'
    # a range starting below the used area keeps its first row
    assert rewrite_formula("=SUM(A100:A1048576)", clip=(40, 3)).text == "=SUM(A100:A100)"
    assert rewrite_formula("=SUM($B:$D)", clip=(7, 2)).text == "=SUM($B$1:$D$7)"
    toks = tokenize("SUM(A1:B2)")
    assert not clip_ranges(toks, (5, 5))


@pytest.mark.parametrize("iterate", [True, False])
def test_cycles_iterate_only_when_the_workbook_enables_it(tmp_path, iterate):
    wb = openpyxl.Workbook()
    s = wb.active
    s["A1"], s["B1"] = "=B1/2+1", "=A1"  # x = x/2 + 1: the fixed point is 2
    s["C1"] = "=C1"  # reads itself: Excel iterates it to 0 from blank
    s["D1"] = "=A1*10"  # downstream of the cycle
    wb.calculation.iterate = iterate
    wb.calculation.iterateCount = 100
    wb.calculation.iterateDelta = 0.001
    r = recalc_book(_save(wb, tmp_path), write=False)
    ev = r.evaluation
    if iterate:
        # every round halves the distance to 2; rounds stop once a value moves < 0.001
        assert abs(ev.value("Sheet", "A1") - 2) < 0.002
        assert abs(ev.value("Sheet", "B1") - 2) < 0.002
        assert ev.value("Sheet", "C1") == 0
        assert ev.value("Sheet", "D1") == pytest.approx(10 * ev.value("Sheet", "A1"))
        assert r.exit_code == 0
    else:
        for cell in ("A1", "B1", "C1", "D1"):
            assert isinstance(ev.value("Sheet", cell), ExcelError)
            assert "circular" in ev.cells[("Sheet", cell)].reason
        assert r.exit_code == 1


def test_element_wise_array_formulas_are_blocks_with_excels_offsets(tmp_path):
    from openpyxl.worksheet.formula import ArrayFormula

    wb = openpyxl.Workbook()
    a = wb.active
    a.title = "A"
    for r in range(1, 4):
        a[f"A{r}"], a[f"B{r}"] = r, 10 * r
    a["A5"] = "h"
    b = wb.create_sheet("B")
    b["A1"] = ArrayFormula("A1:B3", "=A!A1:B3*2+1")  # cell by cell
    b["D1"] = ArrayFormula("D1:D3", "=A!A1:A3+A!B1")  # a column plus one cell
    b["F1"] = ArrayFormula("F1:H1", "=A!5:5")  # a whole row: text, then blanks as 0
    r = recalc_book(_save(wb, tmp_path), write=False, engine="blocks")
    ev = r.evaluation
    assert [ev.value("B", c) for c in ("A1", "B1", "A3", "B3")] == [3, 21, 7, 61]
    assert [ev.value("B", f"D{r}") for r in (1, 2, 3)] == [11, 12, 13]
    assert [ev.value("B", c) for c in ("F1", "G1", "H1")] == ["h", 0, 0]
    assert ev.cells[("B", "B2")].array_ref == "A1:B3"
