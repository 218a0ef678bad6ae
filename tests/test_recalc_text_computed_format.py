"""TEXT with a format code read from a cell, filled down (issue 13: computed as a block).

Expected values: Microsoft, "TEXT function" (read 2026-12-01): ``=TEXT(1234.567,
"$#,##0.00")`` is ``$1,234.57``; a format code is text, and a number given as the format
is read as its text (``TEXT(1234.5, 0)`` formats with the code ``0``: ``1235``, whether
the cell holds 0 or 0.0); by hand beside each row.
"""
from __future__ import annotations

import openpyxl

from rooflinexl.recalc.blocks import evaluate_blocks
from rooflinexl.recalc.book import recalc_book

ROWS = [  # value, format cell, Excel's text
    (1234.567, "$#,##0.00", "$1,234.57"),
    (1234.5, 0, "1235"),
    (1234.5, 0.0, "1235"),
    (0.285, "0.0%", "28.5%"),
    (1234.5, "0.00", "1234.50"),
    (45000, "yyyy-mm-dd", "2023-03-15"),
    (3, None, ""),  # an empty format cell: no format, an empty text
    # "e" is the year where Excel uses the Gregorian calendar: SheetJS's
    # formula_stress_test.xlsx, saved by Excel, caches TEXT(1977-07-07,"ee-mm-dd") so
    (28313, "ee-mm-dd", "1977-07-07"),
]


def test_text_with_format_from_a_cell(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, (v, f, _) in enumerate(ROWS, start=1):
        ws[f"A{r}"] = v
        ws[f"B{r}"] = f
        ws[f"C{r}"] = f"=TEXT(A{r},B{r})"
    p = tmp_path / "t.xlsx"
    wb.save(p)
    ev = evaluate_blocks(p)
    assert [ev.value("S", f"C{r}") for r in range(1, len(ROWS) + 1)] == [w for *_, w in ROWS]
    assert ev.paths.unsupported_cells == 0  # one block, no cell per cell
    cells = recalc_book(p, write=False, engine="cells").evaluation
    assert [cells.value("S", f"C{r}") for r in range(1, len(ROWS) + 1)] == [
        w for *_, w in ROWS]
