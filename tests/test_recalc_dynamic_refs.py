"""Dynamic references (INDIRECT, OFFSET with computed arguments) and the chains of slow
books, through every engine.

Expected values are Excel's: cached values of Excel-saved books (the formulas copied
with them, cited per test), Microsoft's documented examples ("INDIRECT function",
"OFFSET function"), or hand derivations written next to the case.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES

from rooflinexl.recalc.book import recalc_book


def _recalc(wb, folder, engine):
    path = folder / "book.xlsx"
    wb.save(path)
    return recalc_book(path, write=False, engine=engine).evaluation


@pytest.mark.parametrize("engine", ENGINES)
def test_concatenate_chain_down_a_column(tmp_path, engine):
    # SheetJS's large_strings.xlsx: =CONCATENATE(A1,"a") filled down, each row the one
    # above with "a" appended (Excel cached "a"*n there); by hand: row n is
    # "x" followed by n-1 "a", and the & form likewise
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "x"
    ws["B1"] = 1  # a number above the chain: CONCATENATE(1,"a") is "1a"
    ws["C1"] = "p"
    for r in range(2, 301):
        ws[f"A{r}"] = f'=CONCATENATE(A{r - 1},"a")'
        ws[f"B{r}"] = f'=CONCATENATE(B{r - 1},"a")'
        ws[f"C{r}"] = f'=C{r - 1}&"-"&D{r}'
        ws[f"D{r}"] = "q" if r % 2 else None
    ev = _recalc(wb, tmp_path, engine)
    for r in (2, 3, 150, 300):
        assert ev.cells[(ws.title, f"A{r}")].value == "x" + "a" * (r - 1)
        assert ev.cells[(ws.title, f"B{r}")].value == "1" + "a" * (r - 1)
    want = "p" + "".join("-q" if r % 2 else "-" for r in range(2, 301))
    assert ev.cells[(ws.title, "C300")].value == want
    if engine == "auto":
        assert ev.paths.cell_cells == 0
