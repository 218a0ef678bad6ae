"""The range operator between references that functions give (``INDEX(...):INDEX(...)``),
computed as a block (issue 13: OFFSET/INDEX-built ranges are what planners write for a
running or a moving window).

Expected values: Microsoft, "Calculation operators and precedence in Excel" (read
2026-12-01): ``:`` "produces one reference to all the cells between two references,
including the two references"; "INDEX function": ``INDEX(reference, row_num,
[column_num])`` is a reference, and of a one-row or one-column reference the one number
counts along it; a row or column past the reference is ``#REF!``. Sums by hand beside
each cell; koala's basic_evaluation.xlsx (saved by Excel) caches
``SUM(INDEX(Liste3,1,1):INDEX(Liste3,1,Indice-1))``, the pattern of the first cases.
"""
from __future__ import annotations

import openpyxl
import pytest

from rooflinexl.recalc.blocks import evaluate_blocks


@pytest.fixture(scope="module")
def ev(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for c in range(1, 6):
        ws.cell(1, c, c * 10)  # A1:E1 = 10, 20, 30, 40, 50
    for r in range(1, 8):
        ws.cell(r + 2, 1, r)  # A3:A9 = 1..7
        ws.cell(r + 2, 2, f"=SUM(INDEX($A$3:$A$9,1):INDEX($A$3:$A$9,{r}))")
        ws.cell(r + 2, 3, "=SUM($A$3:INDEX($A$3:$A$9,ROW()-2))")  # filled down
        ws.cell(r + 2, 4, "=SUM(INDEX($A$3:$A$9,ROW()-2):$A$9)")  # what is left
    ws["G1"] = "=SUM(INDEX(A1:E1,1,1):INDEX(A1:E1,1,3))"
    ws["G2"] = "=SUM(INDEX(A1:E1,2):INDEX(A1:E1,4))"
    ws["G3"] = "=SUM(INDEX($A$3:$A$9,1):INDEX($A$3:$A$9,9))"
    ws["G4"] = "=SUM(#REF!:A4)"
    ws["G5"] = "=ROWS(INDEX(A3:A9,2):INDEX(A3:A9,5))"
    ws["G6"] = "=SUM(INDEX(A1:E1,1,0):A1)"  # column 0: the whole row of the reference
    # what Excel leaves of references to deleted cells (umya-spreadsheet's issue_216.xlsx,
    # saved by Excel, caches #REF! for SUM(OFFSET(#REF!,-1,0):#REF!) and ROW(#REF!))
    ws["G7"] = "=SUM(OFFSET(#REF!,-1,0):A1)"
    ws["G8"] = "=ROW()-ROW(#REF!)"
    p = tmp_path_factory.mktemp("rng") / "r.xlsx"
    wb.save(p)
    return evaluate_blocks(p)


def test_running_and_remaining_sums(ev):
    runs = [1, 3, 6, 10, 15, 21, 28]  # 1+..+r
    assert [ev.value("S", f"B{r}") for r in range(3, 10)] == runs
    assert [ev.value("S", f"C{r}") for r in range(3, 10)] == runs
    # r+..+7
    assert [ev.value("S", f"D{r}") for r in range(3, 10)] == [28, 27, 25, 22, 18, 13, 7]


@pytest.mark.parametrize(("cell", "want"), [
    ("G1", 60),  # A1:C1
    ("G2", 90),  # B1:D1
    ("G3", "#REF!"),  # row 9 of a 7-row reference
    ("G4", "#REF!"),  # an end that is an error value
    ("G5", 4),  # A4:A7
    ("G6", 150),  # A1:E1
    ("G7", "#REF!"),
    ("G8", "#REF!"),
])
def test_cases(ev, cell, want):
    got = ev.value("S", cell)
    assert (str(got) if isinstance(want, str) else got) == want


def test_all_as_blocks(ev):
    assert ev.paths.unsupported_cells == 0
