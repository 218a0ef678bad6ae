"""Headless workbook evaluation (docs/architecture.md): filled-down formulas as numpy
blocks, cycles cell by cell; :func:`tokenize` is the engine's lexical scanner.

>>> from rooflinexl.recalc import evaluate_workbook  # doctest: +SKIP
>>> ev = evaluate_workbook("book.xlsx", {"CRIT_BATCH": crit_batch})  # doctest: +SKIP
"""
from rooflinexl.recalc.engine import CellResult, EngineError, Evaluation, evaluate_workbook
from rooflinexl.recalc.prepass import (
    OMITTED,
    TableInfo,
    Token,
    rewrite_formula,
    tokenize,
)

__all__ = [
    "OMITTED",
    "CellResult",
    "EngineError",
    "Evaluation",
    "TableInfo",
    "Token",
    "evaluate_workbook",
    "rewrite_formula",
    "tokenize",
]
