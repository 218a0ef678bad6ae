"""Formula cases in one sheet, recalculated by each engine.

The shared body of the fixtures of the tests that pin Excel's documented answers
(``test_recalc_criteria``, ``_excel_semantics``, ``_functions``, ``_let_lambda``,
``_parser``): each test module builds its own input cells, then writes its formulas
down one column and recalculates the book.
"""
from __future__ import annotations

from rooflinexl.recalc.book import recalc_book

#: the engines every case runs through: the default (blocks, the rest per cell) and per cell only
ENGINES = ("auto", "cells")


def evaluate_cases(wb, ws, column: str, cases, folder, engines=ENGINES):
    """Write each formula of ``cases`` down ``column`` of ``ws`` from row 1, save ``wb`` in
    ``folder`` and recalculate it with each engine: ``({formula: cell}, {engine: Evaluation})``."""
    cells = {}
    for i, formula in enumerate(cases, start=1):
        ws[f"{column}{i}"] = formula
        cells[formula] = f"{column}{i}"
    path = folder / "cases.xlsx"
    wb.save(path)
    return cells, {e: recalc_book(path, write=False, engine=e).evaluation for e in engines}
