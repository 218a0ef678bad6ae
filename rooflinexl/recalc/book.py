"""``rooflinexl recalc``: evaluate a workbook headless and store the values as cached values.

The pipeline (DESIGN.md section 7): open and check the package once
(:func:`rooflinexl.ooxml.open_package`; the readers below reuse the open
archive), evaluate every formula with our Excel functions registered
(:func:`rooflinexl.recalc.blocks.evaluate_blocks`: filled-down formulas as numpy
blocks, cycles cell by cell, a formula the engine does not support an error value
naming why), then write the computed values into the original file's sheet XML,
formulas and every other part kept byte for byte, atomically
(:func:`rooflinexl.ooxml.stamp_cached_values`).

``engine="cells"`` (``rooflinexl recalc --engine cells``, or the environment
variable ``ROOFLINEXL_RECALC_ENGINE=cells``) computes every formula as a block of
one row, for debugging and differential testing.
"""
from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rooflinexl.addresses import cell_name, parse_cell, unquote_sheet
from rooflinexl.cellvalues import cached_value, format_value
from rooflinexl.ooxml import Limits, commit_temp, open_package, stamped_temp
from rooflinexl.ooxml.package import names_map
from rooflinexl.recalc.engine import Evaluation


def excel_functions() -> dict:
    """Excel name -> function of every rooflinexl function (for the engine)."""
    from rooflinexl.udfs import FUNCTIONS

    return dict(FUNCTIONS)


@dataclass
class RecalcResult:
    """What one recalculation computed and wrote."""

    source: Path
    output: Path | None
    evaluation: Evaluation
    named: list[tuple[str, str, object]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def errors(self):
        return self.evaluation.errors()

    @property
    def exit_code(self) -> int:
        """0 when clean, 1 when a formula errors or a function is unknown."""
        return 1 if self.errors or self.evaluation.unknown_functions else 0

    def report(self, *, max_errors: int = 200) -> str:
        """Per-sheet summary, named results and every error cell with its reason."""
        ev = self.evaluation
        errors = self.errors
        n = len(ev.cells)
        lines = [f"{self.source.name}: {n} formula cells on {len(ev.sheets)} sheets, "
                 f"{len(errors)} errors ({self.seconds.get('total', 0):.2f} s)"]
        paths = getattr(ev, "paths", None)
        if paths is not None:
            lines.append(f"  {paths.summary()}")
            for where, cells, why in paths.unsupported[:5]:
                lines.append(f"    not supported: {where} ({cells:,} cells): {why}")
            if len(paths.unsupported) > 5:
                lines.append(f"    ... and {len(paths.unsupported) - 5} more not supported")
        # counted from the cells' keys (the block path makes no result per cell for this)
        formulas = Counter(sheet for sheet, _cell in ev.cells)
        bad = Counter(c.sheet for c in errors)
        for sheet in dict.fromkeys([*ev.sheets, *formulas]):
            if formulas[sheet]:
                lines.append(f"  {sheet:<28} {formulas[sheet]:>7} formulas {bad[sheet]:>6} errors")
        if self.named:
            lines.append("Named results:")
            width = max(len(k) for k, _, _ in self.named)
            for name, where, value in self.named:
                shown = format_value(value, quote_text=False)
                lines.append(f"  {name:<{width}}  {shown:>14}   ({where})")
        if ev.unknown_functions:
            lines.append("Unknown functions: " + ", ".join(sorted(ev.unknown_functions)))
        if errors:
            lines.append("Errors:")
            for c in errors[:max_errors]:
                lines.append(f"  {c.address:<24} {c.value!s:<8} {c.reason}")
            if len(errors) > max_errors:
                lines.append(f"  ... and {len(errors) - max_errors} more")
        if self.output:
            lines.append(f"Written: {self.output}")
        return "\n".join(lines)


def named_cells(path, *, limits: Limits = Limits()) -> list[tuple[str, str, str]]:
    """Workbook-level defined names that point to one cell: (name, sheet, 'B7')."""
    from rooflinexl.recalc.loader import defined_names

    with open_package(path, limits) as zf:
        names, _local, case, _iterate = defined_names(zf, names_map(zf))
    out = []
    for upper, text in names.items():
        name = case.get(upper, upper)
        if name.startswith("_xlnm."):
            continue
        sheet, bang, cell = text.rpartition("!")
        try:
            row, col = parse_cell(cell)
        except ValueError:
            continue
        if bang and sheet:
            out.append((name, unquote_sheet(sheet), cell_name(row, col)))
    return out


#: evaluation paths: blocks (auto), blocks refusing what is not supported, every cell a
#: block of one row, or LibreOffice
ENGINES = ("auto", "blocks", "cells", "libreoffice")


def default_engine() -> str:
    """``$ROOFLINEXL_RECALC_ENGINE`` when set to one of :data:`ENGINES`, else ``auto``."""
    env = os.environ.get("ROOFLINEXL_RECALC_ENGINE", "").strip().lower()
    return env if env in ENGINES else "auto"


def recalc_book(src, dst=None, *, limits: Limits = Limits(), write: bool = True,
                engine: str | None = None, phase=None) -> RecalcResult:
    """Recalculate ``src`` and write it, with cached values, to ``dst`` (may be ``src``).

    Parameters
    ----------
    src : path
        An .xlsx or .xlsm workbook.
    dst : path, optional
        Output path; ``src`` itself for in-place. Written atomically.
    limits : Limits
        Package size limits (zip-bomb protection).
    write : bool
        False to compute only (``--check``).
    engine : {"auto", "blocks", "cells", "libreoffice"}, optional
        ``auto``: filled-down formulas as numpy blocks, a formula the engine does
        not support an error value; ``blocks``: the same, but such a formula is an
        :class:`~rooflinexl.recalc.engine.EngineError` (a CI gate); ``cells``: every
        formula as a block of one row;
        ``libreoffice``: headless LibreOffice with the rooflinexl add-in
        (:func:`rooflinexl.libreoffice.engine.evaluate_libreoffice`). Default
        :func:`default_engine`.
    phase : callable, optional
        Called with the name of each phase as it starts (``"checking"``,
        ``"evaluating"``, ``"writing"``): a progress display (``rooflinexl recalc``).

    Raises
    ------
    rooflinexl.ooxml.UnusableWorkbookError
        The file is missing, not a workbook, encrypted, or over a limit.
    """
    from rooflinexl.recalc.blocks import evaluate_blocks

    engine = engine or default_engine()
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
    src = Path(src)
    phase = phase or (lambda _name: None)
    t0 = time.perf_counter()
    phase("checking")
    tmp = None
    # the package is opened and checked once: the engine's reader, the named cells and the
    # stamper below all reuse the open archive (read -> plan -> evaluate -> write, one way)
    with open_package(src, limits):
        phase("evaluating")
        if engine == "libreoffice":
            from rooflinexl.libreoffice.engine import evaluate_libreoffice

            ev = evaluate_libreoffice(src, limits=limits)
        else:
            ev = evaluate_blocks(src, excel_functions(), limits=limits, engine_mode=engine)
        named = []
        for name, sheet, cell in named_cells(src, limits=limits):
            res = ev.cells.get((sheet, cell))
            if res is not None:
                named.append((name, f"{sheet}!{cell}", res.value))
        t1 = time.perf_counter()
        if write and dst is not None:
            phase("writing")
            values = getattr(ev.cells, "cached_values", None)
            values = values() if values is not None else {}  # the block evaluator's, or:
            if not values:
                for (sheet, cell), res in ev.cells.items():
                    values.setdefault(sheet, {})[cell] = cached_value(res.value)
            tmp = stamped_temp(src, dst, values, limits=limits)
    out = None
    if tmp is not None:  # moved onto dst after closing src, so that in-place works on Windows
        commit_temp(tmp, dst)  # removes the temp file if it fails
        out = Path(dst)
    t2 = time.perf_counter()
    seconds = {"evaluate": t1 - t0, "write": t2 - t1, "total": t2 - t0}
    if getattr(ev, "paths", None) is not None:
        seconds.update({f"evaluate.{k}": v for k, v in ev.paths.seconds.items()})
    return RecalcResult(src, out, ev, named, seconds)


