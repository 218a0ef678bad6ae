"""The cell-level scheduler (rooflinexl/recalc/cells.py): blocks that read one another or
their own cells computed cell by cell, in the order their values need, by our own
evaluators (no per-cell engine): running totals, loan schedules, chains that only look
circular, real circular references (an error naming the circle, exit status 1), cycles
Excel iterates (calcPr iterate), and formulas whose OFFSET refers to deleted cells.
"""
from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula

from rooflinexl.errors import ExcelError
from rooflinexl.recalc.book import recalc_book
from rooflinexl.recalc.cells import NOT_COMPUTED

SAVED = Path(__file__).parent / "data" / "excel-saved"


def _recalc(tmp_path, cells: dict, iterate: bool = False):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for ref, x in cells.items():
        ws[ref] = x
    if iterate:
        wb.calculation.iterate = True
        wb.calculation.iterateCount = 100
        wb.calculation.iterateDelta = 0.001
    path = tmp_path / "book.xlsx"
    wb.save(path)
    return recalc_book(path, write=False)


def test_a_circle_is_named_in_each_of_its_cells_and_what_reads_it_is_not_computed(tmp_path):
    res = _recalc(tmp_path, {"A1": "=B1+1", "B1": "=C1*2", "C1": "=A1-3", "D1": "=C1+1",
                             "E1": 5, "F1": "=E1*2"})
    ev = res.evaluation
    circle = "circular reference: S!A1 -> S!B1 -> S!C1 -> S!A1"
    for cell in ("A1", "B1", "C1"):
        assert isinstance(ev.value("S", cell), ExcelError)
        assert ev.cells[("S", cell)].reason == circle
    assert ev.cells[("S", "D1")].reason == NOT_COMPUTED
    assert ev.value("S", "F1") == 10  # off the circle: computed
    assert res.exit_code == 1
    assert ev.paths.unsupported_cells == 0  # no per-cell engine


def test_a_cell_reading_itself_names_itself(tmp_path):
    ev = _recalc(tmp_path, {"A1": 2, "A2": "=A1+A2"}).evaluation
    assert ev.cells[("S", "A2")].reason == "circular reference: S!A2 -> S!A2"


def test_a_cycle_of_blocks_no_cell_of_which_reads_itself(tmp_path):
    # B reads C of the row above, C reads B of its own row: the blocks B and C read each
    # other, the cells do not. By hand: B2 = 1, C2 = 2, B3 = C2 + 1 = 3, C3 = 6 ...
    cells = {"B2": 1, "C2": "=B2*2"}
    for r in range(3, 8):
        cells[f"B{r}"] = f"=C{r - 1}+1"
        cells[f"C{r}"] = f"=B{r}*2"
    res = _recalc(tmp_path, cells)
    assert res.evaluation.value("S", "C2") == 2
    b = 3
    for r in range(3, 8):
        assert res.evaluation.value("S", f"B{r}") == b
        assert res.evaluation.value("S", f"C{r}") == 2 * b
        b = 2 * b + 1
    assert res.exit_code == 0
    assert res.evaluation.paths.unsupported == []


def test_a_branch_not_taken_does_not_close_a_circle(tmp_path):
    # The formulas project's test book circular.xlsx, row 6, as Excel saved it: A6 FALSE,
    # B6 =C6, C6 =D6, D6 =IF(IF(A6,B6,TRUE),1,B6), E6 =B6+1; Excel's cached values
    # 1, 1, 1, 2 (D6 never reads B6: the inner IF gives TRUE). Row 5 (D5 =IF(A5,B5,1),
    # A5 TRUE) does close its circle.
    res = _recalc(tmp_path, {"A6": False, "B6": "=C6", "C6": "=D6",
                             "D6": "=IF(IF(A6,B6,TRUE),1,B6)", "E6": "=B6+1",
                             "A5": True, "B5": "=C5", "C5": "=D5", "D5": "=IF(A5,B5,1)"})
    ev = res.evaluation
    assert [ev.value("S", c) for c in ("B6", "C6", "D6", "E6")] == [1, 1, 1, 2]
    for cell in ("B5", "C5", "D5"):
        assert "circular reference" in ev.cells[("S", cell)].reason
    assert res.exit_code == 1


def test_a_value_that_only_errors_or_counts_still_reads(tmp_path):
    # ISERROR, IFERROR, COUNTA read the cell's value whatever it is: a circle
    for cell in ("=ISERROR(B1)", "=IFERROR(B1,0)", "=COUNTA(B1:B2)"):
        ev = _recalc(tmp_path, {"A1": cell, "B1": "=A1+1"}).evaluation
        assert "circular reference" in ev.cells[("S", "A1")].reason, cell


def test_a_running_total_and_a_lookup_of_its_own_column_above(tmp_path):
    # D: running total of A (its own column, the row above); E: INDEX of D's whole column
    # at the row above (reads the range that holds itself, but needs only the row above)
    cells = {}
    for r in range(2, 12):
        cells[f"A{r}"] = r
        cells[f"D{r}"] = f"=IF(ROW()=2,A{r},D{r - 1}+A{r})"
        cells[f"E{r}"] = f"=IF(ROW()=2,0,INDEX($E$2:$E$11,ROW()-2)+D{r - 1})"
    res = _recalc(tmp_path, cells)
    total, e = 0, 0
    for r in range(2, 12):
        if r > 2:
            e += total  # by hand: E(r) = E(r-1) + D(r-1)
        total += r
        assert res.evaluation.value("S", f"D{r}") == total
        assert res.evaluation.value("S", f"E{r}") == e
    assert res.exit_code == 0


def test_excel_iterates_when_the_workbook_enables_it(tmp_path):
    # tests/data/excel-saved/issue_565_multi_axis_shared.xlsx (calamine, MIT): calcPr
    # iterate="1" and cells that read themselves (=A1 in A1); Excel's cached values
    wb = openpyxl.load_workbook(SAVED / "issue_565_multi_axis_shared.xlsx", data_only=True)
    cached = {(ws.title, c.coordinate): c.value for ws in wb.worksheets
              for row in ws.iter_rows() for c in row if c.value is not None}
    res = recalc_book(SAVED / "issue_565_multi_axis_shared.xlsx", write=False)
    cycle = [("Sheet1", f"{c}{r}") for c in "ABCD" for r in (1, 2)]
    for key in cycle:
        assert res.evaluation.cells[key].value == cached.get(key, 0), key
    assert res.exit_code == 0


def test_offset_of_a_deleted_reference_reads_no_cell(tmp_path):
    # Excel writes #REF! where a reference's cells were deleted; OFFSET(#REF!,..) is #REF!
    # (an error argument is the result) and refers to no cell, so it orders like any
    # block, also in an array formula; ROW of it is #REF! too
    cells = {f"A{r}": r for r in range(1, 6)}
    for r in range(1, 6):
        cells[f"B{r}"] = f"=OFFSET(#REF!,-1,0)+A{r}"
        cells[f"C{r}"] = f"=IFERROR(OFFSET(#REF!,A{r},0),A{r}*2)"
        cells[f"D{r}"] = f"=IFERROR(ROW(OFFSET(#REF!,1,0)),-A{r})"
    res = _recalc(tmp_path, {**cells, "E1": ArrayFormula("E1", "=OFFSET(#REF!,1,1)")})
    ev = res.evaluation
    for r in range(1, 6):
        assert str(ev.value("S", f"B{r}")) == "#REF!"
        assert ev.value("S", f"C{r}") == 2 * r
        assert ev.value("S", f"D{r}") == -r
    assert str(ev.value("S", "E1")) == "#REF!"
    assert ev.paths.unsupported_cells == 0


@pytest.mark.parametrize("iterate", [False, True])
def test_a_chain_of_indirect_references_down_a_column(tmp_path, iterate):
    # each cell the one above it, named by text; the first a number: no circle, so the
    # same with and without iteration
    cells = {"A1": 7}
    for r in range(2, 8):
        cells[f"A{r}"] = '=INDIRECT("A"&(ROW()-1))+1'
    res = _recalc(tmp_path, cells, iterate)
    for r in range(2, 8):
        assert res.evaluation.value("S", f"A{r}") == 7 + r - 1
    assert res.exit_code == 0


def test_indirect_reading_its_own_column_below(tmp_path):
    # each cell the one below it plus one, named by text; by hand: A5 = A6 + 1 = 11 ...
    cells = {f"A{r}": '=INDIRECT("A"&(ROW()+1))+1' for r in range(1, 6)}
    res = _recalc(tmp_path, {**cells, "A6": 10})
    for r in range(1, 6):
        assert res.evaluation.value("S", f"A{r}") == 10 + 6 - r
    assert res.evaluation.paths.unsupported_cells == 0


def test_indirect_reaching_a_block_that_reads_it(tmp_path):
    # B reads C of its own row through INDIRECT, C reads B of the row above: the blocks
    # read each other, the cells do not. By hand: B1 = 1, C2 = 2, B2 = 4, C3 = 5, B3 = 10
    cells = {"B1": 1}
    for r in range(2, 6):
        cells[f"B{r}"] = '=INDIRECT("C"&ROW())*2'
        cells[f"C{r}"] = f"=B{r - 1}+1"
    res = _recalc(tmp_path, cells)
    b = 1
    for r in range(2, 6):
        assert res.evaluation.value("S", f"C{r}") == b + 1
        b = 2 * (b + 1)
        assert res.evaluation.value("S", f"B{r}") == b
    assert res.exit_code == 0
    assert res.evaluation.paths.unsupported_cells == 0


def test_too_many_dynamic_formulas_to_order_as_blocks_go_cell_by_cell(tmp_path, monkeypatch):
    # past the edge budget (5 million: umya's issue_216.xlsx once), the INDIRECT formulas
    # and what reads them are computed cell by cell after everything else; lowered here
    from rooflinexl.recalc import blocks

    monkeypatch.setattr(blocks, "_MAX_DYNAMIC_EDGES", 10)
    cells = {}
    for r in range(1, 9):
        cells[f"B{r}"] = r
        cells[f"A{r}"] = f'=INDIRECT("B"&ROW())+{r % 2}*{r}'  # one unit each
        cells[f"D{r}"] = f"=A{r}*2"
        cells[f"E{r}"] = '=INDIRECT("D"&(ROW()+1))+1'  # the next row's D
    cells["C1"] = "=SUM(A1:A8)"
    res = _recalc(tmp_path, cells)
    ev = res.evaluation
    a = {r: r + (r % 2) * r for r in range(1, 9)}  # by hand
    assert ev.value("S", "C1") == sum(a.values())
    for r in range(1, 9):
        assert ev.value("S", f"D{r}") == 2 * a[r]
    for r in range(1, 8):
        assert ev.value("S", f"E{r}") == 2 * a[r + 1] + 1
    assert ev.value("S", "E8") == 1  # D9 is blank
    assert ev.paths.unsupported_cells == 0
