"""Stale-value checks and workbook diffs (the comparison): ``recalc --check`` and ``diff``.

:func:`check_book` recalculates a workbook without writing it and compares
every formula's computed value with the value cached in the file (numbers
within a relative tolerance, text, booleans and error values exactly).
:func:`diff_books` compares two versions of a workbook cell by cell, inputs
(constants) and formula results (cached values, or recomputed ones). Both give
a :class:`BookReport`; a :class:`Report` of several renders as ``text``,
``json`` (``docs/schemas/report.schema.json``), ``junit`` (one testsuite per
workbook, one testcase per sheet) or ``markdown`` (a pull-request comment).

The comparison lives here; :mod:`rooflinexl.reports` renders it and
:mod:`rooflinexl.cellvalues` says when two values match.

Every reported cell carries a label, the nearest row label and column header
(constant text cells only, so computed text never labels a cell), e.g.
``"H200 / USD per 1e18 FLOP at peak"``.
"""
from __future__ import annotations

import bisect
import contextlib
import datetime as _dt
import functools
import json
import statistics
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from rooflinexl.addresses import cell_name, parse_cell
from rooflinexl.cellvalues import (
    RTOL,
    cached_value,
    format_change,
    format_value,
    json_value,
    plural,
    relative_change,
    value_type,
    values_equal,
)
from rooflinexl.errors import EXCEL_ERRORS, ExcelError, failure_message

__all__ = [
    "FAIL_ON",
    "FORMATS",
    "RTOL",
    "BookReport",
    "CellChange",
    "Report",
    "check_book",
    "check_books",
    "diff_books",
    "relative_change",
    "values_equal",
]

#: Report formats.
FORMATS = ("text", "json", "junit", "markdown")
#: What makes ``--check`` fail.
FAIL_ON = ("errors", "stale", "both")
#: Version of the JSON report layout (docs/schemas/report.schema.json).
SCHEMA_VERSION = 1



# --------------------------------------------------------------------------- results


@dataclass
class CellChange:
    """One reported cell.

    ``status``: ``stale`` or ``error`` (check); ``changed``, ``added`` or
    ``removed`` (diff). ``old`` is the cached value (check) or the value in the
    old workbook (diff); ``new`` the recalculated value or the new workbook's.
    """

    sheet: str
    cell: str
    status: str
    old: object
    new: object
    label: str = ""
    input: bool = False  # diff: a constant (an input), not a formula result
    formula: str | None = None  # '=...' of a formula cell (the new one in a diff)
    old_formula: str | None = None  # diff: the old formula when its text changed
    reason: str = ""  # why, for an error value
    stale: bool = True  # check: the cached value differs (an error cell may be fresh)

    @property
    def address(self) -> str:
        return f"{self.sheet}!{self.cell}"

    def fails(self, fail_on: str) -> bool:
        """Whether this cell fails ``recalc --check --fail-on fail_on``."""
        if self.status == "error" and fail_on in ("errors", "both"):
            return True
        return self.stale and self.status in ("stale", "error") and fail_on in ("stale", "both")

    @property
    def rel_change(self) -> float | None:
        return relative_change(self.old, self.new)

    def to_dict(self) -> dict:
        return {
            "sheet": self.sheet,
            "cell": self.cell,
            "address": self.address,
            "label": self.label,
            "status": self.status,
            "stale": self.stale,
            "input": self.input,
            "formula": self.formula,
            "old_formula": self.old_formula,
            "old": json_value(self.old),
            "new": json_value(self.new),
            "old_type": value_type(self.old),
            "new_type": value_type(self.new),
            "rel_change": self.rel_change,
            "reason": self.reason or None,
        }


@dataclass
class SheetSummary:
    """What moved on one sheet."""

    sheet: str
    cells: int
    inputs: int
    stale: int
    errors: int
    median_rel_change: float | None
    text: str

    def to_dict(self) -> dict:
        return {"sheet": self.sheet, "cells": self.cells, "inputs": self.inputs,
                "stale": self.stale, "errors": self.errors,
                "median_rel_change": self.median_rel_change, "summary": self.text}


@dataclass
class BookReport:
    """The outcome of checking one workbook, or of diffing two versions of one."""

    path: str
    mode: str  # "check" | "diff"
    cells: list[CellChange] = field(default_factory=list)
    old_path: str | None = None  # diff
    compared: int = 0  # formula cells (check); distinct non-empty cells (diff)
    unknown_functions: list[str] = field(default_factory=list)
    message: str | None = None  # set when the workbook is unusable
    seconds: float = 0.0
    sheets: list[str] = field(default_factory=list)  # every sheet, in workbook order
    tested_sheets: list[str] = field(default_factory=list)  # check: sheets with formulas
    #: check: no formula cell has a cached value (saved by a program that does not calculate)
    uncached: bool = False

    @property
    def name(self) -> str:
        return f"{self.old_path} -> {self.path}" if self.mode == "diff" else self.path

    @property
    def unusable(self) -> bool:
        return self.message is not None

    @property
    def stale(self) -> list[CellChange]:
        """Check: cells whose cached value differs from the recalculated one."""
        return [c for c in self.cells if c.status in ("stale", "error") and c.stale]

    @property
    def errors(self) -> list[CellChange]:
        """Check: cells that recalculate to an error value."""
        return [c for c in self.cells if c.status == "error"]

    def issues(self, fail_on: str = "both") -> list[CellChange]:
        """The cells that fail the check under ``fail_on`` (every change in a diff)."""
        if self.mode == "diff":
            return list(self.cells)
        return [c for c in self.cells if c.fails(fail_on)]

    def failed(self, fail_on: str = "both") -> bool:
        if self.unusable:
            return True
        if self.mode == "check" and fail_on in ("errors", "both") and self.unknown_functions:
            return True
        return bool(self.issues(fail_on))

    def status(self, fail_on: str = "both") -> str:
        """``ok``, ``fail`` or ``unusable``."""
        if self.unusable:
            return "unusable"
        return "fail" if self.failed(fail_on) else "ok"

    def sheet_summaries(self) -> list[SheetSummary]:
        """One summary per sheet with reported cells, in workbook order."""
        by: dict[str, list[CellChange]] = {}
        for c in self.cells:
            by.setdefault(c.sheet, []).append(c)
        order = {s: i for i, s in enumerate(self.sheets)}
        out = []
        for sheet in sorted(by, key=lambda s: order.get(s, len(order))):
            cells = by[sheet]
            rels = [r for r in (c.rel_change for c in cells) if r is not None]
            med = statistics.median(rels) if rels else None
            inputs = sum(c.input for c in cells)
            errors = sum(c.status == "error" for c in cells)
            stale = sum(c.stale for c in cells) if self.mode == "check" else 0
            n = len(cells)
            if self.mode == "check":
                parts = []
                if stale:
                    parts.append(f"{plural(stale, 'stale cell')} on {sheet}")
                if errors:
                    parts.append(f"{plural(errors, 'error cell')} on {sheet}")
                text = ", ".join(parts)
            else:
                kinds = [f"{sum(c.status == k for c in cells)} {k}" for k in ("added", "removed")
                         if any(c.status == k for c in cells)]
                text = f"{plural(n, 'cell')} on {sheet} moved ({plural(inputs, 'input')}" \
                       f", {plural(n - inputs, 'result')}" \
                       + "".join(f", {k}" for k in kinds) + ")"
            if med is not None:
                text += f", median {format_change(med)}"
            out.append(SheetSummary(sheet, n, inputs, stale, errors, med, text))
        return out

    def headline(self, fail_on: str = "both") -> str:
        """One line: what was compared and what was found."""
        if self.unusable:
            if self.path in self.message:  # the message names the file already
                return f"unusable: {self.message}"
            return f"{self.name}: unusable: {self.message}"
        if self.mode == "diff":
            n = len(self.cells)
            inputs = sum(c.input for c in self.cells)
            if not n:
                return f"{self.name}: no differences in {self.compared} cells"
            verb = "differs" if n == 1 else "differ"
            return (f"{self.name}: {plural(n, 'cell')} {verb} ({inputs} input"
                    f"{'s' * (inputs != 1)}, {n - inputs} result{'s' * (n - inputs != 1)})")
        verdict = "FAIL" if self.failed(fail_on) else "ok"
        if self.uncached:
            return (f"{self.name}: {self.compared} formulas and none has a cached value (the "
                    "file was saved by a program that does not calculate, such as openpyxl): "
                    f"recalculate it once with `rooflinexl recalc --in-place {self.path}` and "
                    f"commit that: {verdict}")
        extra = (f", unknown functions: {', '.join(self.unknown_functions)}"
                 if self.unknown_functions else "")
        return (f"{self.name}: {self.compared} formulas, {len(self.stale)} stale, "
                f"{len(self.errors)} errors{extra}: {verdict} ({self.seconds:.2f} s)")

    def to_dict(self, fail_on: str = "both") -> dict:
        return {
            "path": self.path,
            "old_path": self.old_path,
            "status": self.status(fail_on),
            "message": self.message,
            "compared": self.compared,
            "stale": len(self.stale),
            "errors": len(self.errors),
            "changed": len(self.cells) if self.mode == "diff" else 0,
            "unknown_functions": list(self.unknown_functions),
            "seconds": round(self.seconds, 6),
            "sheets": [s.to_dict() for s in self.sheet_summaries()],
            "cells": [c.to_dict() for c in self.cells],
        }


@dataclass
class Report:
    """Reports of one ``recalc --check`` or ``diff`` call."""

    mode: str  # "check" | "diff"
    books: list[BookReport]
    rtol: float = RTOL
    fail_on: str = "both"

    @property
    def exit_code(self) -> int:
        """2 when a workbook is unusable, else 1 when one fails (or differs), else 0."""
        if any(b.unusable for b in self.books):
            return 2
        return 1 if any(b.failed(self.fail_on) for b in self.books) else 0

    def to_dict(self) -> dict:
        from rooflinexl.version import VERSION

        books = [b.to_dict(self.fail_on) for b in self.books]
        return {
            "schema_version": SCHEMA_VERSION,
            "tool": "rooflinexl",
            "version": VERSION,
            "mode": self.mode,
            "rtol": self.rtol,
            "fail_on": self.fail_on,
            "exit_code": self.exit_code,
            "summary": {
                "books": len(books),
                "failed": sum(b["status"] == "fail" for b in books),
                "unusable": sum(b["status"] == "unusable" for b in books),
                "compared": sum(b["compared"] for b in books),
                "stale": sum(b["stale"] for b in books),
                "errors": sum(b["errors"] for b in books),
                "changed": sum(b["changed"] for b in books),
            },
            "books": books,
        }

    def render(self, fmt: str = "text", *, max_cells: int | None = None) -> str:
        """The report as ``text``, ``json``, ``junit`` or ``markdown``.

        ``max_cells`` caps the cells listed per workbook in text (default 500)
        and markdown (default 100, a pull-request comment must stay short);
        JSON and JUnit always list every cell.
        """
        from rooflinexl.reports import render_junit, render_markdown, render_text

        if fmt == "text":
            return render_text(self, max_cells=500 if max_cells is None else max_cells)
        if fmt == "json":
            return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)
        if fmt == "junit":
            return render_junit(self)
        if fmt == "markdown":
            return render_markdown(self, max_cells=100 if max_cells is None else max_cells)
        raise ValueError(f"unknown report format {fmt!r}; use one of {', '.join(FORMATS)}")


# --------------------------------------------------------------------------- labels


class Labels:
    """Row labels and column headers of a workbook, from its constant text cells.

    The label of a cell is ``"<row label> / <column header>"``: the row label is
    the leftmost text cell left of it in the same row (or, when that row has only
    a number there, ``"<that column's header> <number>"``), the column header the
    nearest text cell above it in the same column.
    """

    def __init__(self, constants: dict[str, dict[tuple[int, int], object]]):
        self._rows: dict[str, dict[int, tuple[list[int], list[object]]]] = {}
        self._cols: dict[str, dict[int, tuple[list[int], list[str]]]] = {}
        for sheet, cells in constants.items():
            rows: dict[int, list[tuple[int, object]]] = {}
            cols: dict[int, list[tuple[int, str]]] = {}
            for (r, c), v in cells.items():
                t = value_type(v)
                if t == "text" and str(v).strip():
                    text = " ".join(str(v).split())
                    rows.setdefault(r, []).append((c, text))
                    cols.setdefault(c, []).append((r, text))
                elif t == "number":
                    rows.setdefault(r, []).append((c, v))
            self._rows[sheet] = {r: _unzip(sorted(x, key=lambda p: p[0])) for r, x in rows.items()}
            self._cols[sheet] = {c: _unzip(sorted(x)) for c, x in cols.items()}

    def header(self, sheet: str, row: int, col: int) -> str:
        """Nearest text cell above (row, col) in the same column, else ''."""
        keys, texts = self._cols.get(sheet, {}).get(col, ((), ()))
        i = bisect.bisect_left(keys, row)
        return texts[i - 1] if i else ""

    def row_label(self, sheet: str, row: int, col: int) -> str:
        keys, vals = self._rows.get(sheet, {}).get(row, ((), ()))
        left = [(k, v) for k, v in zip(keys, vals, strict=True) if k < col]
        for _k, v in left:
            if isinstance(v, str):
                return v
        if left:  # only numbers to the left: "n_chips 2"
            k, v = left[0]
            head = self.header(sheet, row, k)
            return f"{head} {format_value(v)}".strip()
        return ""

    def label(self, sheet: str, cell: str) -> str:
        try:
            row, col = parse_cell(cell)
        except ValueError:
            return ""
        parts = [self.row_label(sheet, row, col), self.header(sheet, row, col)]
        parts = [p for p in parts if p]
        if len(parts) == 2 and parts[0] == parts[1]:
            parts = parts[:1]
        return " / ".join(parts)


def _unzip(pairs):
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _split(cell: str) -> tuple[int, int]:
    """(row, column) of a cell, (0, 0) for text that is not one (sorted first)."""
    try:
        return parse_cell(cell)
    except ValueError:
        return (0, 0)


def read_constants(path, *, sheets: Iterable[str] | None = None,
                   skip: dict[str, Iterable[str]] | None = None) -> dict[str, dict]:
    """Constant (non-formula) cell values per sheet: ``{sheet: {(row, col): value}}``.

    ``skip``: cells to leave out per sheet (the formula cells and spilled
    results, which openpyxl would return as formula text or cached values).
    Dates become ISO text; error constants :class:`ExcelError`.
    """
    import openpyxl

    wanted = None if sheets is None else set(sheets)
    skip_rc = {s: {_split(c) for c in cells} for s, cells in (skip or {}).items()}
    wb = openpyxl.load_workbook(path, read_only=True, data_only=False, keep_links=False)
    try:
        out: dict[str, dict] = {}
        for ws in wb.worksheets:
            if wanted is not None and ws.title not in wanted:
                continue
            if hasattr(ws, "reset_dimensions"):
                ws.reset_dimensions()
            avoid = skip_rc.get(ws.title, set())
            cells: dict[tuple[int, int], object] = {}
            for row in ws.iter_rows():
                for c in row:
                    v = getattr(c, "value", None)
                    if v is None or v == "":
                        continue
                    rc = (c.row, c.column)
                    if rc in avoid:
                        continue
                    if isinstance(v, str):
                        if v.startswith("=") and len(v) > 1:
                            continue  # a formula openpyxl saw that our scan did not
                        if v in EXCEL_ERRORS and getattr(c, "data_type", "") == "e":
                            v = ExcelError(v)
                    elif isinstance(v, (_dt.datetime, _dt.date, _dt.time)):
                        v = v.isoformat()
                    elif isinstance(v, _dt.timedelta):
                        v = v.total_seconds() / 86400
                    elif not isinstance(v, (int, float, bool)):
                        continue  # array-formula objects and the like
                    cells[rc] = v
            out[ws.title] = cells
        return out
    finally:
        wb.close()


def _attach_labels(cells: list[CellChange], labels: Labels) -> None:
    for c in cells:
        c.label = labels.label(c.sheet, c.cell)


# --------------------------------------------------------------------------- check


def check_book(path, *, rtol: float = RTOL, limits=None, labels: bool = True) -> BookReport:
    """Recalculate ``path`` without writing and compare with its cached values.

    Parameters
    ----------
    path : path
        An .xlsx or .xlsm workbook.
    rtol : float
        Relative tolerance of numeric comparisons (text, booleans, errors: exact).
    limits : rooflinexl.ooxml.Limits, optional
        Package limits (zip-bomb protection).
    labels : bool
        Label the reported cells (one read-only openpyxl pass over their sheets).

    Returns
    -------
    BookReport
        Every stale cell (cached value differs) and every error cell, in
        workbook order; ``message`` set instead when the file is unusable.
    """
    from rooflinexl.ooxml import Limits, open_package, read_cached_values
    from rooflinexl.recalc.book import recalc_book

    limits = limits or Limits()
    t0 = time.perf_counter()
    rep = BookReport(path=str(path), mode="check")
    try:
        with open_package(path, limits):  # opened and checked once for both
            result = recalc_book(path, None, limits=limits, write=False)
            cached = read_cached_values(path, limits=limits)
    except Exception as exc:  # a user's file never gives a traceback
        rep.message = failure_message(exc, path)
        return rep
    ev = result.evaluation
    rep.sheets = list(ev.sheets)
    rep.tested_sheets = [s for s, cells in ev.by_sheet().items() if cells]
    rep.compared = len(ev.cells)
    rep.unknown_functions = sorted(ev.unknown_functions)
    order = {s: i for i, s in enumerate(ev.sheets)}
    for (sheet, cell), res in sorted(ev.cells.items(),
                                     key=lambda kv: (order.get(kv[0][0], 0), _split(kv[0][1]))):
        old = cached.get(sheet, {}).get(cell)
        new = cached_value(res.value)
        stale = not values_equal(old, new, rtol)
        is_error = isinstance(new, ExcelError)
        if stale or is_error:
            rep.cells.append(CellChange(
                sheet, cell, "error" if is_error else "stale", old, new,
                formula=res.formula, stale=stale,
                reason=(res.reason or getattr(new, "reason", "")) if is_error else ""))
    rep.uncached = bool(ev.cells) and not any(
        cached.get(sheet, {}).get(cell) is not None for sheet, cell in ev.cells)
    if labels and rep.cells and not rep.uncached:
        try:
            consts = read_constants(path, sheets={c.sheet for c in rep.cells},
                                    skip={s: v.keys() for s, v in cached.items()})
            _attach_labels(rep.cells, Labels(consts))
        except Exception:  # labels are a courtesy; never fail the check over them
            pass
    rep.seconds = time.perf_counter() - t0
    return rep


def check_books(paths: Iterable, *, rtol: float = RTOL, fail_on: str = "both",
                limits=None, labels: bool = True, jobs: int = 1, progress=None) -> Report:
    """:func:`check_book` of each path, gathered in one :class:`Report`.

    With ``jobs`` > 1 the books are checked in that many worker processes;
    the report lists them in the order of ``paths`` all the same.
    ``progress``, if given, is called with each :class:`BookReport` in that
    order as it is ready (a progress display).
    """
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on={fail_on!r}; use one of {', '.join(FAIL_ON)}")
    paths = list(paths)
    one = functools.partial(check_book, rtol=rtol, limits=limits, labels=labels)
    books: list[BookReport] = []
    with contextlib.ExitStack() as stack:
        if jobs > 1 and len(paths) > 1:
            from concurrent.futures import ProcessPoolExecutor

            pool = stack.enter_context(ProcessPoolExecutor(min(jobs, len(paths))))
            done = pool.map(one, paths)  # in the order of paths
        else:
            done = map(one, paths)
        for book in done:
            books.append(book)
            if progress is not None:
                progress(book)
    return Report("check", books, rtol=rtol, fail_on=fail_on)


# --------------------------------------------------------------------------- diff


@dataclass
class _Snapshot:
    sheets: list[str]
    values: dict[str, dict[str, object]]  # sheet -> cell -> value (constants and results)
    formulas: dict[str, dict[str, str]]  # sheet -> cell -> '=...' ('' for shared children)
    results: dict[str, set[str]]  # sheet -> cells holding a formula result
    constants: dict[str, dict[tuple[int, int], object]]


def _snapshot(path, limits, recalc: bool) -> _Snapshot:
    from rooflinexl.ooxml import formula_cells, open_package, read_cached_values

    with open_package(path, limits):  # opened and checked once for every reader below
        cached = read_cached_values(path, limits=limits)
        formulas = formula_cells(path, limits=limits)
        ev = None
        if recalc:
            from rooflinexl.recalc.book import recalc_book

            ev = recalc_book(path, None, limits=limits, write=False).evaluation
    if ev is not None:
        for (sheet, cell), res in ev.cells.items():
            cached.setdefault(sheet, {})[cell] = cached_value(res.value)
    consts = read_constants(path, skip={s: v.keys() for s, v in cached.items()})
    sheets = list(formulas) + [s for s in consts if s not in formulas]
    values: dict[str, dict[str, object]] = {}
    for sheet in sheets:
        vals = values.setdefault(sheet, {})
        for (r, c), v in consts.get(sheet, {}).items():
            vals[cell_name(r, c)] = v
        vals.update(cached.get(sheet, {}))
    forms = {s: {c: ("=" + f if f else "") for c, f in fs.items()} for s, fs in formulas.items()}
    results = {s: set(v) for s, v in cached.items()}
    return _Snapshot(sheets, values, forms, results, consts)


def diff_books(old, new, *, rtol: float = RTOL, recalc: bool = False, limits=None) -> BookReport:
    """Compare two versions of a workbook cell by cell, over the union of their cells.

    Parameters
    ----------
    old, new : path
        The two workbooks.
    rtol : float
        Relative tolerance of numeric comparisons.
    recalc : bool
        Recompute both workbooks first and compare computed results instead of
        the values cached in the files.
    limits : rooflinexl.ooxml.Limits, optional
        Package limits (zip-bomb protection).

    Returns
    -------
    BookReport
        ``mode="diff"``; one :class:`CellChange` per added, removed or changed
        cell (value, or formula text where both files store it), inputs
        (constants) flagged ``input=True``; ``message`` set when either file is
        unusable.

    Examples
    --------
    A reviewer's view of "H200 now costs 9.2 USD/h":
    ``diff_books("main/Roofline.xlsx", "Roofline.xlsx").sheet_summaries()[1].text``
    is ``'6 cells on Cost moved (0 inputs, 6 results), median -8.0 %'``.
    """
    from rooflinexl.ooxml import Limits

    limits = limits or Limits()
    t0 = time.perf_counter()
    rep = BookReport(path=str(new), old_path=str(old), mode="diff")
    try:
        a = _snapshot(old, limits, recalc)
        b = _snapshot(new, limits, recalc)
    except Exception as exc:  # a user's file never gives a traceback
        rep.message = failure_message(exc, f"{old} or {new}", "read")
        return rep
    rep.sheets = b.sheets + [s for s in a.sheets if s not in b.sheets]
    rep.tested_sheets = list(rep.sheets)
    label_new, label_old = Labels(b.constants), Labels(a.constants)
    compared = 0
    for sheet in rep.sheets:
        va, vb = a.values.get(sheet, {}), b.values.get(sheet, {})
        fa, fb = a.formulas.get(sheet, {}), b.formulas.get(sheet, {})
        ra, rb = a.results.get(sheet, set()), b.results.get(sheet, set())
        for cell in sorted(set(va) | set(vb) | set(fa) | set(fb), key=_split):
            in_a = cell in va or cell in fa
            in_b = cell in vb or cell in fb
            old_v, new_v = va.get(cell), vb.get(cell)
            compared += 1
            if in_a and in_b:
                form_a, form_b = fa.get(cell), fb.get(cell)
                formula_changed = bool(form_a and form_b and form_a != form_b) or \
                    ((cell in fa) != (cell in fb))
                if values_equal(old_v, new_v, rtol) and not formula_changed:
                    continue
                status = "changed"
            elif in_b:
                status = "added"
            else:
                status = "removed"
            is_result = cell in (rb if in_b else ra)
            labels = label_new if in_b else label_old
            form_new = fb.get(cell) if in_b else fa.get(cell)
            form_old = fa.get(cell)
            rep.cells.append(CellChange(
                sheet, cell, status, old_v, new_v, label=labels.label(sheet, cell),
                input=not is_result, formula=form_new or None,
                old_formula=form_old if form_old and form_old != form_new else None,
                stale=False))
    rep.compared = compared
    rep.seconds = time.perf_counter() - t0
    return rep


def diff_report(old, new, *, rtol: float = RTOL, recalc: bool = False, limits=None) -> Report:
    """:func:`diff_books` wrapped in a :class:`Report` (exit code 1 when they differ)."""
    return Report("diff", [diff_books(old, new, rtol=rtol, recalc=recalc, limits=limits)],
                  rtol=rtol)


