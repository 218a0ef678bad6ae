"""Excel-saved workbooks as the oracle (test support, not a test module).

Every formula cell of a workbook saved by Microsoft Excel carries the value
Excel computed (its cached value). :func:`compare_book` recalculates a
workbook with ``rooflinexl`` (nothing written) and compares every formula
cell's value with Excel's: numbers to a relative 1e-9
(:func:`rooflinexl.check.values_equal`), text, booleans and error values
exactly. The comparison is the same one ``recalc --check`` makes.

``python benchmarks/excel_oracle.py DIR...`` prints the match rate of every
workbook under the folders given.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from rooflinexl.check import RTOL, values_equal
from rooflinexl.errors import ExcelError
from rooflinexl.ooxml import UnusableWorkbookError, read_cached_values

#: suffixes of the workbooks recalculated
SUFFIXES = (".xlsx", ".xlsm")


@dataclass
class Mismatch:
    """One formula cell whose recalculated value is not Excel's."""

    sheet: str
    cell: str
    formula: str
    excel: object
    ours: object
    reason: str = ""


@dataclass
class BookMatch:
    """How one workbook's recalculated formula cells compare with Excel's cached values."""

    path: Path
    cells: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    seconds: float = 0.0
    failure: str = ""  # the workbook could not be recalculated at all

    @property
    def matched(self) -> int:
        if self.failure:  # a workbook that could not be recalculated matches nothing
            return 0
        return self.cells - len(self.mismatches)


def _plain(v):
    if isinstance(v, ExcelError):
        return str(v)
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        return v.item()
    return v


def compare_book(path, *, engine: str | None = None) -> BookMatch:
    """Recalculate ``path`` (not written) and compare every formula cell with Excel's value."""
    from rooflinexl.recalc.book import recalc_book

    path = Path(path)
    out = BookMatch(path)
    t0 = time.perf_counter()
    try:
        cached = read_cached_values(path)
    except UnusableWorkbookError as ex:  # not a workbook we read (encrypted, .xls ...)
        out.failure = f"refused: {ex}"
        return out
    try:
        res = recalc_book(path, None, write=False, engine=engine)
    except Exception as ex:  # noqa: BLE001 - reported as the workbook's failure
        out.failure = f"{type(ex).__name__}: {ex}"
        out.cells = sum(len(v) for v in cached.values())
        out.seconds = time.perf_counter() - t0
        return out
    for (sheet, cell), r in res.evaluation.cells.items():
        out.cells += 1
        excel = cached.get(sheet, {}).get(cell)
        ours = r.value
        if isinstance(ours, float) and ours != ours:
            ours = ExcelError("#NUM!")
        if not values_equal(excel, ours, RTOL):
            out.mismatches.append(Mismatch(sheet, cell, r.formula, _plain(excel), _plain(ours),
                                           r.reason))
    out.seconds = time.perf_counter() - t0
    return out


def workbooks(*folders) -> list[Path]:
    """Every .xlsx/.xlsm under ``folders``, sorted."""
    out = []
    for d in folders:
        out.extend(p for p in Path(d).rglob("*") if p.suffix.lower() in SUFFIXES)
    return sorted(out)


def assert_matches_excel(path: Path, known: dict) -> None:
    """Every formula cell of ``path`` equals Excel's cached value, except the ``known``
    differences ``{(book, sheet, cell): (Excel's value, ours today, why)}``; each known
    difference must still differ exactly so (a fixed one must leave the list)."""
    import pytest

    m = compare_book(path)
    assert not m.failure, m.failure
    assert m.cells > 0
    mine = {(s, c): v for (b, s, c), v in known.items() if b == path.name}
    unexpected = [x for x in m.mismatches if (x.sheet, x.cell) not in mine]
    assert not unexpected, "\n".join(
        f"{x.sheet}!{x.cell} {x.formula}: Excel {x.excel!r}, ours {x.ours!r} ({x.reason})"
        for x in unexpected[:20])
    differing = {(x.sheet, x.cell): x for x in m.mismatches}
    for key, (excel, ours, _why) in mine.items():
        assert key in differing, f"{path.name} {key} now matches Excel: remove it from KNOWN"
        x = differing[key]
        assert x.excel == pytest.approx(excel, rel=1e-12) if isinstance(excel, float) \
            else x.excel == excel
        assert x.ours == pytest.approx(ours, rel=1e-12) if isinstance(ours, float) \
            else x.ours == ours
