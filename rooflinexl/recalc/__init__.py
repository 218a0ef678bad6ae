"""Headless workbook evaluation (docs/architecture.md): blocks of filled-down formulas
in numpy, the rest per cell; :func:`tokenize` is the engine's lexical scanner.

>>> from rooflinexl.recalc import evaluate_workbook  # doctest: +SKIP
>>> ev = evaluate_workbook("book.xlsx", {"CRIT_BATCH": crit_batch})  # doctest: +SKIP
"""
from rooflinexl.recalc.engine import CellResult, EngineError, Evaluation, evaluate_workbook
from rooflinexl.recalc.prepass import (
    OMITTED,
    PrepassResult,
    TableInfo,
    Token,
    prepare_workbook,
    rewrite_formula,
    tokenize,
)

__all__ = [
    "OMITTED",
    "CellResult",
    "EngineError",
    "Evaluation",
    "PrepassResult",
    "TableInfo",
    "Token",
    "evaluate_workbook",
    "prepare_workbook",
    "rewrite_formula",
    "tokenize",
]
