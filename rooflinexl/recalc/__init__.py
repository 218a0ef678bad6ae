"""Headless workbook evaluation: a pre-pass on a working copy, then ``formulas``.

>>> from rooflinexl.recalc import evaluate_workbook  # doctest: +SKIP
>>> ev = evaluate_workbook("book.xlsx", {"CRIT_BATCH": crit_batch})  # doctest: +SKIP
"""
from rooflinexl.recalc.engine import CellResult, EngineError, Evaluation, evaluate_workbook
from rooflinexl.recalc.prepass import (
    OMITTED,
    PrepassResult,
    TableInfo,
    prepare_workbook,
    rewrite_formula,
)

__all__ = [
    "OMITTED",
    "CellResult",
    "EngineError",
    "Evaluation",
    "PrepassResult",
    "TableInfo",
    "evaluate_workbook",
    "prepare_workbook",
    "rewrite_formula",
]
