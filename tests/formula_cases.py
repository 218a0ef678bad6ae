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


def matches_excel(got, want, rel: float = 0.0) -> bool:
    """Whether a recalculated value ``got`` is Excel's answer ``want``: an error its code
    (``"#N/A"`` ...), a boolean the same boolean, a number the number (within ``rel``,
    relative; 0 = exactly), a text the same text. A boolean never passes for a number, nor a
    number for a boolean, nor an error for its text. ``want`` may also be a number matcher
    such as ``pytest.approx(0.4535924, abs=5e-8)`` (Microsoft's examples are rounded)."""
    import math

    from rooflinexl.errors import ExcelError

    if isinstance(want, str) and want.startswith("#"):
        return isinstance(got, ExcelError) and str(got) == want
    if isinstance(want, bool):
        return isinstance(got, bool) and got == want
    if isinstance(want, (int, float)):
        return (isinstance(got, (int, float)) and not isinstance(got, bool)
                and math.isclose(got, want, rel_tol=rel, abs_tol=0.0))
    if isinstance(want, str):
        return isinstance(got, str) and not isinstance(got, ExcelError) and got == want
    # a number matcher with its own tolerance (pytest.approx of a documented rounded figure)
    return isinstance(got, (int, float)) and not isinstance(got, bool) and got == want
