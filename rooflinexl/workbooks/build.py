"""``rooflinexl build``: generate the shipped workbooks and stamp their cached values.

Each workbook is written in the classic spelling (``CRIT_BATCH(…)``, classic
xlwings) and, in a ``lite/`` folder beside it, in the spelling of xlwings Server
and Lite (shown as ``ROOFLINE.CRIT_BATCH(…)``; :mod:`rooflinexl.hosts`).
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from openpyxl import Workbook

from rooflinexl.chips import ChipTable, load_chips
from rooflinexl.hosts import convert_workbook
from rooflinexl.workbooks.layout import save_deterministic
from rooflinexl.workbooks.roofline import build_roofline
from rooflinexl.workbooks.templates import (
    build_capacity_plan,
    build_cost_comparison,
    build_matmul_sweep,
    build_training_plan,
)

#: output path (relative to the repository root) -> builder
BUILDERS: dict[str, Callable[[ChipTable], Workbook]] = {
    "workbooks/Roofline.xlsx": build_roofline,
    "templates/capacity_plan.xlsx": build_capacity_plan,
    "templates/training_plan.xlsx": build_training_plan,
    "templates/cost_comparison.xlsx": build_cost_comparison,
    "templates/matmul_sweep.xlsx": build_matmul_sweep,
}


#: folder beside each classic workbook -> the host its copy there is spelt for
VARIANTS = {"lite": "lite"}


def variant_path(rel: str, folder: str) -> str:
    """``workbooks/Roofline.xlsx`` -> ``workbooks/lite/Roofline.xlsx``."""
    return (Path(rel).parent / folder / Path(rel).name).as_posix()


def outputs() -> list[str]:
    """Every file :func:`build_all` writes, relative to the root."""
    return [p for rel in BUILDERS for p in [rel, *(variant_path(rel, f) for f in VARIANTS)]]


def build_one(rel: str, root: Path, table: ChipTable | None = None, recalc: bool = True):
    """Build one workbook to ``root / rel`` and its host variants; with ``recalc`` its
    cached values are stamped (the variants keep them).

    Returns the recalculation result (or None without recalc).
    """
    from rooflinexl.recalc.book import recalc_book

    table = load_chips(table)
    out = Path(root) / rel
    out.parent.mkdir(parents=True, exist_ok=True)
    wb = BUILDERS[rel](table)
    fd, tmp = tempfile.mkstemp(suffix=".xlsx", dir=out.parent)
    os.close(fd)
    try:
        save_deterministic(wb, tmp)
        if not recalc:
            os.replace(tmp, out)
            return None
        result = recalc_book(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    for folder, host in VARIANTS.items():
        variant = Path(root) / variant_path(rel, folder)
        variant.parent.mkdir(parents=True, exist_ok=True)
        convert_workbook(out, variant, host)
    return result


def build_all(root: Path, table: ChipTable | None = None, recalc: bool = True,
              only: list[str] | None = None) -> dict:
    """Build every workbook of :data:`BUILDERS` (or ``only`` those) under ``root``."""
    return {rel: build_one(rel, root, table, recalc) for rel in BUILDERS
            if not only or rel in only or Path(rel).name in only}
