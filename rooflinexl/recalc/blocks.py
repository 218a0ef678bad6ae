"""Block evaluation: formulas filled down a column, computed for all rows at once.

Planning sheets are tables: the same formula filled down thousands of rows.
:func:`evaluate_blocks` reads the workbook's XML directly
(:mod:`rooflinexl.recalc.loader`), groups formula cells by their relative
(R1C1) form into contiguous row runs of one column (*blocks*,
:mod:`rooflinexl.recalc.refs`), parses each distinct formula once
(:mod:`rooflinexl.recalc.compile`) and evaluates every block in one numpy pass
along the row axis (:mod:`rooflinexl.recalc.kernels`), blocks in dependency
order.

Ranges that reach the sheet's edge (``A:A``, ``1:1``, ``A1:XFD1048576``) are
clipped to the workbook's used area, formula cells included, before anything
else (:func:`rooflinexl.recalc.prepass.clip_ranges`), so their size is that of
the data. A block that reads its own column only rows above each row (a
running total, ``=A1+1`` filled down) is evaluated top down a few rows at a
time; a growing range (``SUM($A$2:A2)``) is summed cumulatively.

Blocks on a cycle (and dynamic references that cannot be ordered as blocks) are
computed cell by cell in the order their values need (:mod:`rooflinexl.recalc.cells`).

What the engine does not support (a function it does not implement, a construct the
compiler refuses, found before or while computing) is an error value in each of its cells,
``#NAME?`` for a function and ``#VALUE!`` otherwise, whose reason names what
(:func:`unsupported_error`); those cells are set first and what reads them gets the error,
with where it came from. Nothing is guessed. ``engine_mode="cells"`` (``--engine cells``)
computes every formula as a block of one row, by the same machinery: the differential
tests (``tests/test_blocks_differential.py``) compare both on generated workbooks.
"""
from __future__ import annotations

import bisect
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path

import numpy as np

from rooflinexl.addresses import column_letters as col_letters
from rooflinexl.addresses import parse_cell, parse_range
from rooflinexl.errors import ExcelError
from rooflinexl.ooxml import Limits
from rooflinexl.ooxml.sheetxml import paused_gc
from rooflinexl.recalc import cells, dynamic, engine
from rooflinexl.recalc.arrays import ArrayEval, first_value, lay_out
from rooflinexl.recalc.compile import (
    Call,
    Compiled,
    Context,
    Lit,
    Rng,
    Unsupported,
    compile_block,
)
from rooflinexl.recalc.engine import CellResult, Evaluation
from rooflinexl.recalc.functions import set_date_system, use_character_set, use_date_system
from rooflinexl.recalc.kernels import BlockEval, dispatch_order, reset_clock
from rooflinexl.recalc.links import kept_cells
from rooflinexl.recalc.loader import (
    Book,
    read_book,
    saved_character_set,
)
from rooflinexl.recalc.prepass import (
    set_sheet_order,
    use_sheet_order,
)
from rooflinexl.recalc.reffunctions import FormulaCells
from rooflinexl.recalc.refs import (
    group_keys,
    r1c1_key,
    render,
    render_rows,
    template,
)
from rooflinexl.recalc.sheetinfo import set_workbook_info, use_workbook_info
from rooflinexl.recalc.values import (
    BOOL,
    EMPTY,
    ERR,
    ERRORS,
    NUM,
    STR,
    SheetStore,
    Vec,
)

__all__ = ["BlockCells", "BlockRewrites", "PathCounts", "evaluate_blocks"]


@dataclass
class PathCounts:
    """How many formula cells were computed as blocks, and which the engine does not support."""

    block_cells: int = 0
    blocks: int = 0
    unsupported_cells: int = 0  # error values: formulas the engine does not support
    #: what is not supported: (first address, cells, reason), largest first
    unsupported: list[tuple[str, int, str]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def summary(self) -> str:
        """``block: 40,000 cells in 4 blocks; not supported: 0``"""
        return (f"block: {self.block_cells:,} cells in {self.blocks:,} blocks; "
                f"not supported: {self.unsupported_cells:,}")


# ------------------------------------------------------------------- units


@dataclass
class Unit:
    """A block (rows r0..r1 of one column, one relative formula), an array formula or a
    what-if data table."""

    id: int
    sheet: str
    col: int
    r0: int
    r1: int
    key: int
    text: str  # anchor formula (original text, with '=')
    template: object = None  # refs.Template of the original anchor text
    compiled: Compiled | None = None
    why: str | None = None  # set: not supported, and why (its cells are error values)
    code: str | None = None  # with ``why``: the error value by Excel's rules (ErrorFormula)
    region: tuple[int, int, int, int] | None = None  # output range of an array formula
    lag: int = 0  # > 0: reads its own column that many rows up or more (a running total)
    array_ref: str | None = None  # 'A1:C7': a column of this array formula's range
    cycle: int | None = None  # id of the cycle it is on, when the workbook iterates
    reads: list | None = None  # [(sheet, r1, c1, r2, c2)]; None = could read anything
    texts: list | None = None  # original text per row (None: a shared formula's child)
    #: evaluated by arrays.ArrayEval: an array formula over ``region`` at once, or a
    #: block row by row (its cells hold arrays the block kernels cannot)
    array_mode: bool = False
    dynamic: bool = False  # calls INDIRECT/OFFSET: references resolved per row (dynamic.py)
    #: on a cycle computed cell by cell (cells.schedule) whatever calcPr says: one found
    #: while computing, or too many dynamic units to order as blocks
    by_cells: bool = False
    named: set | None = None  # dynamic: the units its formula names (the rest is speculative)
    table: DataTable | None = None  # a what-if data table's cell

    @property
    def cells(self) -> int:
        if self.region is not None:
            r0, c0, r1, c1 = self.region
            return (r1 - r0 + 1) * (c1 - c0 + 1)
        return self.r1 - self.r0 + 1

    def address(self) -> str:
        if self.r0 == self.r1:
            return f"{self.sheet}!{col_letters(self.col)}{self.r0}"
        return f"{self.sheet}!{col_letters(self.col)}{self.r0}:{col_letters(self.col)}{self.r1}"


@paused_gc()
def _units(book: Book, ctx: Context, one_row: bool = False) -> list[Unit]:
    """The formula cells as units: runs of one relative formula down a column (blocks), each
    of one row with ``one_row`` (``--engine cells``: a cell is a block of one row), and
    every array formula and what-if data table."""
    units: list[Unit] = []
    key_ids: dict[str, int] = {}
    for sheet in book.sheets:
        by_col = _by_column(sheet.f_rows, sheet.f_cols, sheet.f_texts)
        # per column: rows, key ids, texts (None for a shared formula's child), templates
        cols: dict[int, tuple[list, list, list, list]] = {}
        for c, (rows, texts) in by_col.items():
            ids = group_keys(rows, c, texts, key_ids)
            cols[c] = (list(rows), ids, list(texts), [None] * len(rows))
        masters = {si: template(t, r, c) for si, (r, c, t) in sheet.shared.items()}
        for fc in sheet.special:
            if fc.kind == "shared":
                tpl = masters.get(fc.shared)
                if tpl is None:
                    units.append(Unit(len(units), sheet.name, fc.col, fc.row, fc.row, -1,
                                      fc.text or "=", why="shared formula without a master"))
                    continue
                k = key_ids.setdefault(r1c1_key(tpl.text, tpl.row, tpl.col), len(key_ids))
                rows, ids, texts, tpls = cols.setdefault(fc.col, ([], [], [], []))
                rows.append(fc.row)
                ids.append(k)
                texts.append(None)
                tpls.append(tpl)
            elif fc.kind == "dataTable":
                units.append(_data_table_unit(len(units), sheet.name, fc))
            else:
                r0, c0, r1, c1 = fc.array_ref or (fc.row, fc.col, fc.row, fc.col)
                why = "array formula"
                u = Unit(len(units), sheet.name, fc.col, fc.row, fc.row, -1, fc.text,
                         why=why, region=(r0, c0, r1, c1) if fc.array_ref else None)
                if fc.kind == "array" and fc.array_ref:
                    # evaluated once in array mode (arrays.ArrayEval), laid over its range
                    u.array_ref = (f"{col_letters(c0)}{r0}:{col_letters(c1)}{r1}")
                    u.texts = [fc.text]
                    try:
                        u.compiled = compile_block(ctx, sheet.name, r0, c0, fc.text,
                                                   array=True)
                        u.why, u.array_mode = None, True
                    except Unsupported as ex:
                        u.why = f"array formula: {ex}"
                units.append(u)
        for c, (rows, ids, texts, tpls) in cols.items():
            r = np.asarray(rows, dtype=np.int64)
            k = np.asarray(ids, dtype=np.int64)
            order = np.argsort(r, kind="stable")
            if (np.diff(order) != 1).any():
                r, k = r[order], k[order]
                texts = [texts[i] for i in order.tolist()]
                tpls = [tpls[i] for i in order.tolist()]
            breaks = np.flatnonzero((np.diff(r) != 1) | (np.diff(k) != 0) | one_row) + 1
            starts = [0, *breaks.tolist()]
            ends = [*breaks.tolist(), len(r)]
            for a, b in zip(starts, ends, strict=True):
                r0 = int(r[a])
                t, tpl = texts[a], tpls[a]
                if t is None:
                    t = render(tpl, r0, c)
                u = Unit(len(units), sheet.name, c, r0, int(r[b - 1]), int(k[a]), t)
                u.template = tpl
                u.texts = texts[a:b]
                units.append(u)
    return units


@dataclass
class DataTable:
    """A what-if data table's cell (``{=TABLE(row_input, col_input)}``, ECMA-376
    CT_CellFormula t="dataTable"): the formula whose value it shows, recomputed with
    each input cell holding the value given for it, as Excel does (Microsoft, "Calculate
    multiple results by using a data table")."""

    formula: tuple[int, int]  # (row, col) of the formula cell computed
    inputs: list[tuple[tuple[int, int], tuple[int, int]]]  # (input cell, value cell)
    deleted: bool  # an input cell was deleted (del1/del2): #REF!


def _data_table_unit(uid: int, sheet: str, fc) -> Unit:
    """The unit of a data table's cell (rows r0..r1, columns c0..c1 its ``ref``): a one-
    variable table down a column (``dtr`` 0) substitutes ``r1`` with the value left of
    its row and computes the formula above its column, across a row (``dtr`` 1) with the
    value above its column and the formula left of its row; a two-variable one
    (``dt2D``) ``r1`` with the value above its column and ``r2`` with the value left of
    its row, the formula in the corner above and left of the table (ECMA-376 Part 1,
    18.3.1.40; ClosedXML's DataTableFormula-Excel-Input.xlsx, saved by Excel). A cell
    with attributes it cannot read goes per cell."""
    u = Unit(uid, sheet, fc.col, fc.row, fc.row, -1, fc.text or "=", texts=[fc.text or "="])
    a = fc.table or {}
    on = {"1", "true"}
    try:
        ref = parse_range(a["ref"]) if "ref" in a else (fc.row, fc.col, fc.row, fc.col)
        r0, c0, _, _ = ref
        two, row_wise = a.get("dt2D", "0") in on, a.get("dtr", "0") in on
        deleted = a.get("del1", "0") in on or a.get("del2", "0") in on
        first = parse_cell(a["r1"]) if "r1" in a else None
        second = parse_cell(a["r2"]) if "r2" in a else None
    except (ValueError, KeyError, TypeError):
        ref = None
    if ref is None or (first is None and not deleted) or (two and second is None
                                                           and not deleted):
        u.why = "what-if data table with attributes not understood"
        return u
    row, col = fc.row, fc.col
    if two:
        formula = (r0 - 1, c0 - 1)
        inputs = [(first, (r0 - 1, col)), (second, (row, c0 - 1))]
    elif row_wise:
        formula, inputs = (row, c0 - 1), [(first, (r0 - 1, col))]
    else:
        formula, inputs = (r0 - 1, col), [(first, (row, c0 - 1))]
    if min(formula) < 1 or any(min(v) < 1 for _, v in inputs):
        u.why = "what-if data table at the sheet's edge"
        return u
    u.table = DataTable(formula, [(c, v) for c, v in inputs if c is not None], deleted)
    cells = [formula] + [x for pair in u.table.inputs for x in pair]
    refs = [Rng(sheet, r, c, r, c, False, False) for r, c in cells]
    u.compiled = Compiled(Lit(0.0), u.text, False, refs)
    return u


def _by_column(rows: list[int], cols: list[int], texts: list[str]) -> dict:
    """``{column: (rows, texts)}`` of formula cells, columns in order of first appearance and
    each column's cells in the order given."""
    if not cols:
        return {}
    c = np.asarray(cols)
    order = np.argsort(c, kind="stable")
    sorted_c = c[order]
    starts = np.flatnonzero(np.diff(sorted_c)) + 1
    bounds = zip([0, *starts.tolist()], [*starts.tolist(), len(c)], strict=True)
    groups = {}
    for a, b in bounds:
        idx = order[a:b].tolist()
        groups[idx[0]] = (int(sorted_c[a]), idx)  # keyed by the first cell's position
    out = {}
    for _first, (col, idx) in sorted(groups.items()):
        out[col] = (list(map(rows.__getitem__, idx)), list(map(texts.__getitem__, idx)))
    return out


def _cell_texts(u: Unit) -> list[str]:
    """Original formula text of every row of a block (shared children rendered)."""
    if u.texts is None:
        return [u.text]
    if None not in u.texts:
        return u.texts
    tpl = u.template if u.template is not None else template(u.text, u.r0, u.col)
    rendered = render_rows(tpl, u.r0, u.r1, u.col)
    return [r if t is None else t for t, r in zip(u.texts, rendered, strict=True)]


# ----------------------------------------------------------- dependencies


def _value_refs(u: Unit) -> list[Rng]:
    """The references of a compiled unit whose cells' values it reads: all but those
    written only as INDEX's first argument (INDEX picks a cell of it: Excel computes that
    cell only) or as ROW's and COLUMN's (no value read)."""
    only_ref: set[int] = set()
    valued: set[int] = set()
    stack = [(u.compiled.tree, False)]
    while stack:
        node, as_ref = stack.pop()
        if isinstance(node, Rng):
            (only_ref if as_ref else valued).add(id(node))
        elif isinstance(node, Call):
            for k, a in enumerate(node.args):
                stack.append((a, node.name in ("ROW", "COLUMN")
                              or node.name == "INDEX" and k == 0))
    return [r for r in u.compiled.refs if id(r) in valued or id(r) not in only_ref]


def _cycle_through_references_only(comp: set[int], units: list[Unit], index) -> bool:
    """Whether the blocks ``comp`` (a cycle between whole blocks) read one another's values
    without a cycle: the cycle closes only through INDEX's range (a loan schedule), or
    through a block's own rows above. Then they can be computed row by row; otherwise a
    cell reads itself and the cycle is reported."""
    edges: dict[int, set[int]] = {uid: set() for uid in comp}
    for uid in comp:
        u = units[uid]
        for ref in _value_refs(u):
            ra = ref.r1 + u.r0 if ref.r1_rel else ref.r1
            rb = ref.r2 + u.r1 if ref.r2_rel else ref.r2
            for w in index.writers(ref.sheet, min(ra, rb), ref.c1, max(ra, rb), ref.c2):
                if w not in comp:
                    continue
                if w == uid and ref.sheet == u.sheet and ref.r2_rel and ref.r2 < 0 and (
                        ref.r1_rel or ref.r1 < u.r0):
                    continue  # its own rows above only (a running total)
                edges[uid].add(w)
    indeg = {uid: 0 for uid in comp}
    for deps in edges.values():
        for w in deps:
            indeg[w] += 1
    ready = [uid for uid, d in indeg.items() if d == 0]
    seen = 0
    while ready:
        uid = ready.pop()
        seen += 1
        for w in edges[uid]:
            indeg[w] -= 1
            if indeg[w] == 0:
                ready.append(w)
    return seen == len(comp)


def _reads_of_compiled(u: Unit) -> list:
    out = []
    for ref in u.compiled.refs:
        ra = ref.r1 + u.r0 if ref.r1_rel else ref.r1
        rb = ref.r2 + u.r1 if ref.r2_rel else ref.r2
        out.append((ref.sheet, min(ra, rb), ref.c1, max(ra, rb), ref.c2))
    return out


def _lag(u: Unit) -> int:
    """How many rows up, at least, a block reads its own column (0: its own row or below,
    so it is a circular reference)."""
    lag = None
    for ref in u.compiled.refs:
        if ref.sheet != u.sheet or not ref.c1 <= u.col <= ref.c2:
            continue
        if ref.r2_rel:
            if ref.r2 >= 0:
                return 0
            lag = -ref.r2 if lag is None else min(lag, -ref.r2)
        elif ref.r2 >= u.r0 and (ref.r1_rel or ref.r1 <= u.r1):
            return 0
    return lag or 0


class _Index:
    """Which units write which cells: per (sheet, column) sorted row intervals."""

    def __init__(self, units: list[Unit]):
        self.cols: dict[tuple[str, int], list[tuple[int, int, int]]] = {}
        for u in units:
            if u.region is not None:
                r0, c0, r1, c1 = u.region
                for c in range(c0, c1 + 1):
                    self.cols.setdefault((u.sheet, c), []).append((r0, r1, u.id))
            else:
                self.cols.setdefault((u.sheet, u.col), []).append((u.r0, u.r1, u.id))
        self.starts: dict[tuple[str, int], list[int]] = {}
        self.ends_max: dict[tuple[str, int], list[int]] = {}
        for k, lst in self.cols.items():
            lst.sort()
            self.starts[k] = [a for a, _, _ in lst]
            run, acc = 0, []
            for _, b, _ in lst:
                run = max(run, b)
                acc.append(run)
            self.ends_max[k] = acc
        self.by_sheet: dict[str, list[int]] = {}  # the columns holding formulas, sorted
        for (s, c) in self.cols:
            self.by_sheet.setdefault(s, []).append(c)
        for cols in self.by_sheet.values():
            cols.sort()

    def writers(self, sheet: str, r1: int, c1: int, r2: int, c2: int) -> set[int]:
        out: set[int] = set()
        cols = self.by_sheet.get(sheet, ())
        for c in cols[bisect.bisect_left(cols, c1):bisect.bisect_right(cols, c2)]:
            lst = self.cols[(sheet, c)]
            starts, ends = self.starts[(sheet, c)], self.ends_max[(sheet, c)]
            hi = bisect.bisect_right(starts, r2)
            lo = bisect.bisect_left(ends, r1)
            for a, b, uid in lst[lo:hi]:
                if a <= r2 and b >= r1:
                    out.add(uid)
        return out


def _graph(units: list[Unit], index: _Index) -> list[set[int]]:
    """edges[u] = units u reads from."""
    everything = {u.id for u in units}
    edges: list[set[int]] = []
    for u in units:
        if u.reads is None:  # a dynamic unit's: made by _order_dynamic
            edges.append(set() if u.dynamic else set(everything))
            continue
        deps: set[int] = set()
        for s, r1, c1, r2, c2 in u.reads:
            deps |= index.writers(s, r1, c1, r2, c2)
        edges.append(deps)
    return edges


#: most edges the dynamic units may add (each reads anything it does not feed)
_MAX_DYNAMIC_EDGES = 5_000_000


def _order_dynamic(units: list[Unit], edges: list[set[int]]) -> set[int]:
    """A unit that calls INDIRECT or OFFSET may read any cell: it reads, besides what its
    formula names, every unit that does not read it (directly or through others), so it
    comes after all of them; the others come after it. Dynamic units are placed one after
    the other, bottom up, each after those placed before unless it feeds them, so no
    cycle is made and one that reads another above it finds it computed.
    Past :data:`_MAX_DYNAMIC_EDGES` they read what they name, and they and every unit
    reading them (returned) are computed last, cell by cell in the order their values
    need (:func:`cells.schedule`)."""
    dyn = [u for u in units if u.dynamic or _dynamic_array(u)]
    if not dyn:
        return set()
    # the others that may read anything (per cell) are placed likewise, last: computed
    # first, so a dynamic unit reading them comes after them rather than between them
    anything = [u for u in units if u.reads is None and not (u.dynamic or _dynamic_array(u))]
    index = _Index(units)
    for u in dyn:
        edges[u.id] = set()
        for s, r1, c1, r2, c2 in _reads_of_compiled(u):
            edges[u.id] |= index.writers(s, r1, c1, r2, c2)
        u.named = set(edges[u.id])
    if (len(dyn) + len(anything)) * len(units) > _MAX_DYNAMIC_EDGES:
        reverse: list[set[int]] = [set() for _ in units]
        for v, deps in enumerate(edges):
            for w in deps:
                reverse[w].add(v)
        return _closure({u.id for u in dyn}, reverse)
    for u in anything:
        edges[u.id] = set()
    reverse: list[set[int]] = [set() for _ in units]
    for v, deps in enumerate(edges):
        for w in deps:
            reverse[w].add(v)
    everything = set(range(len(units)))
    sheets = {u.sheet: None for u in units}
    order = {s: i for i, s in enumerate(sheets)}
    # the first placed is computed last: the lowest rows first, as they mostly read upwards
    placed = sorted(dyn, key=lambda u: (order[u.sheet], u.r0, u.col), reverse=True) + anything
    for u in placed:
        desc = _closure({u.id}, reverse)
        new = everything - desc
        edges[u.id] |= new
        for w in new:
            reverse[w].add(u.id)
    return set()


def _dynamic_array(u: Unit) -> bool:
    """Whether ``u`` is an array formula over a range calling INDIRECT or OFFSET: placed
    among the dynamic units (it reads what its reference turns out to be), evaluated once
    (:meth:`_Run.array_unit`)."""
    return u.region is not None and u.compiled is not None and u.reads is None


def _cyclic(edges: list[set[int]]) -> set[int]:
    """Units on a cycle (a self-loop, or a strongly connected component of two or more)."""
    return set().union(*_components(edges))


def _components(edges: list[set[int]]) -> list[set[int]]:
    """The cycles: strongly connected components of two or more units, or a self-loop."""
    n = len(edges)
    index = [-1] * n
    low = [0] * n
    on = [False] * n
    stack: list[int] = []
    out: list[set[int]] = []
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on[root] = True
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on[w] = True
                    work.append((w, iter(edges[w])))
                    advanced = True
                    break
                if on[w]:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on[w] = False
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in edges[v]:
                    out.append(set(comp))
    return out


def _closure(start: set[int], edges: list[set[int]]) -> set[int]:
    seen = set(start)
    todo = list(start)
    while todo:
        v = todo.pop()
        for w in edges[v]:
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def _topo(ids: set[int], edges: list[set[int]], group: dict[int, int]) -> list[list[int]]:
    """Units ``ids`` in an order where every unit comes after those it reads; the units of
    one cycle (``group``: unit -> its cycle's id) come together, as one list."""
    members: dict[int, list[int]] = {}
    for u in sorted(ids):
        members.setdefault(group.get(u, -1 - u), []).append(u)
    indeg = {g: 0 for g in members}
    users: dict[int, set[int]] = {g: set() for g in members}
    for u in ids:
        gu = group.get(u, -1 - u)
        for w in edges[u]:
            gw = group.get(w, -1 - w)
            if w in ids and gw != gu and gu not in users[gw]:
                indeg[gu] += 1
                users[gw].add(gu)
    ready = sorted((g for g, d in indeg.items() if d == 0), reverse=True)
    out = []
    while ready:
        g = ready.pop()
        out.append(members[g])
        for v in sorted(users[g]):
            indeg[v] -= 1
            if indeg[v] == 0:
                ready.append(v)
    if len(out) != len(members):  # pragma: no cover - cycles were removed before
        raise RuntimeError("dependency cycle among blocks")
    return out


# --------------------------------------------------------------- results


def _final(v: Vec) -> tuple[list, list[int]]:
    """Python values of a block's result as CellResult holds them (engine.py_value), and
    the rows that may hold an error value (those not a finite number)."""
    k = v.kind
    out = v.num.tolist()
    if (k == NUM).all():
        bad = np.flatnonzero(~np.isfinite(v.num)).tolist()
        for i in bad:
            out[i] = ExcelError("#NUM!", "the result is not a finite number")
        return out, bad
    for i in np.flatnonzero(k != NUM).tolist():
        kk = k[i]
        if kk == BOOL:
            out[i] = bool(v.num[i])
        elif kk == EMPTY:
            out[i] = 0.0
        elif kk == STR:
            out[i] = str(v.obj[i])
        else:
            out[i] = engine.py_value(v.obj[i])
    bad = (k == NUM) & ~np.isfinite(v.num)
    for i in np.flatnonzero(bad).tolist():
        out[i] = ExcelError("#NUM!", "the result is not a finite number")
    return out, np.flatnonzero((k != NUM) | bad).tolist()


# ------------------------------------------------------------- evaluation


class _Run:
    def __init__(self, book: Book, ctx: Context, units: list[Unit], functions,
                 edges: list[set[int]]):
        self.book, self.ctx, self.units = book, ctx, units
        self.functions = functions
        self.store = SheetStore()
        for sheet in book.sheets:
            per_col: dict[int, tuple[list, list]] = {}
            for r, c, v in zip(sheet.const_rows, sheet.const_cols, sheet.const_vals,
                               strict=True):
                rows, vals = per_col.setdefault(c, ([], []))
                rows.append(r)
                vals.append(v)
            for c, (rows, vals) in per_col.items():
                self.store.column(sheet.name, c).set_constants(rows, vals)
        for name, per_col in kept_cells(book.external).items():  # other workbooks' cells
            for c, (rows, vals) in per_col.items():
                order = sorted(range(len(rows)), key=rows.__getitem__)
                self.store.column(name, c).set_constants([rows[i] for i in order],
                                                         [vals[i] for i in order])
        self.values: dict[int, Vec] = {}  # unit id -> raw result (blanks as 0)
        self.grids: dict[int, list[Vec]] = {}  # array formula unit id -> its columns' values
        self.records: dict[int, tuple[dict, list]] = {}
        self.state = engine.State()
        #: the cells of formulas the engine does not support (error values)
        self.unsupported: dict[tuple[str, str], CellResult] = {}
        #: cells on a circular reference, or reading one: sheet -> {(row, col)}
        self.poison: dict[str, set[tuple[int, int]]] = {}
        self.forced: dict[tuple[str, str], str] = {}  # (sheet, cell) -> own reason
        #: unit -> id of its cycle, for cycles evaluated by iteration (calcPr iterate)
        self.cycle_of: dict[int, int] = {u.id: u.cycle for u in units if u.cycle is not None}
        self._index: _Index | None = None  # which unit writes which cells (dynamic refs)
        self.edges = edges  # edges[u]: the units u reads (what-if data tables)
        self._formula_cells: FormulaCells | None = None

    @property
    def formula_cells(self) -> FormulaCells:
        """Which cells hold which formulas (ISFORMULA, FORMULATEXT in the array evaluator)."""
        if self._formula_cells is None:
            self._formula_cells = FormulaCells(self.book)
        return self._formula_cells

    @paused_gc()  # a block makes many lists and no cycles (the collector cost a third)
    def block(self, u: Unit) -> None:
        if u.table is not None:
            self.data_table(u)
            return
        if u.array_mode:
            self.array_unit(u)
            return
        if u.dynamic:
            self._dynamic(u)
            return
        if u.lag:
            self._sequential(u)
            return
        ev = BlockEval(self.store, u.sheet, u.r0, u.r1, self.functions, self.state,
                       (engine.CURRENT, engine.STATE), u.col)
        with np.errstate(all="ignore"):
            v = ev.value(u.compiled.tree)
        v = v.blank_as_zero().broadcast(u.r1 - u.r0 + 1)
        if self.poison:
            v = self._poisoned(u, v)
        self.values[u.id] = v
        self.records[u.id] = (ev.records, ev.records_all)
        self.store.column(u.sheet, u.col).add_segment(u.r0, u.r1, v)

    def array_unit(self, u: Unit) -> None:
        """An array formula (``u.region``) evaluated once and laid over its range, or a
        block evaluated row by row, in array mode (:class:`~rooflinexl.recalc.arrays.
        ArrayEval`); a plain cell shows the top-left value of an array result."""
        tokens = (engine.CURRENT, engine.STATE)
        if u.region is not None:
            r0, c0, r1, c1 = u.region
            cols, records = self.array_columns(u)
            for j, v in enumerate(cols):
                self.store.column(u.sheet, c0 + j).add_segment(r0, r1, v)
            self.grids[u.id] = cols
            self.values[u.id] = cols[0]
            self.records[u.id] = ({}, records)
            return
        n = u.r1 - u.r0 + 1
        acc = Vec(np.zeros(n, np.uint8), np.zeros(n), np.empty(n, dtype=object))
        self.store.column(u.sheet, u.col).add_segment(u.r0, u.r1, acc)  # rows above: read
        records: dict[int, list] = {}
        for i in range(n):
            ev = ArrayEval(self.store, u.sheet, u.r0 + i, u.col, self.functions, self.state,
                           tokens, plain=True, cells=self.formula_cells)
            x = first_value(self.array_value(u, ev, u.r0 + i))
            v = Vec.from_objects([x]).blank_as_zero()
            acc.kind[i], acc.num[i] = v.kind[0], v.num[0]
            acc.obj[i] = None if v.obj is None else v.obj[0]
            if v.npy is not None and v.npy[0]:
                if acc.npy is None:
                    acc.npy = np.zeros(n, bool)
                acc.npy[i] = True
            if ev.records:
                records[i] = list(ev.records)
        if self.poison:
            acc = self._poisoned(u, acc)
            col = self.store.column(u.sheet, u.col)
            col.segments[-1] = (u.r0, u.r1, acc)
        self.values[u.id] = acc
        self.records[u.id] = (records, [])

    def array_columns(self, u: Unit) -> tuple[list[Vec], list]:
        """The array formula over a range ``u`` evaluated once and laid over its range
        (:func:`~rooflinexl.recalc.arrays.lay_out`): each column's values, and the
        reasons of the errors it made."""
        r0, c0, r1, c1 = u.region
        ev = ArrayEval(self.store, u.sheet, u.r0, u.col, self.functions, self.state,
                       (engine.CURRENT, engine.STATE), cells=self.formula_cells)
        grid = lay_out(self.array_value(u, ev), r1 - r0 + 1, c1 - c0 + 1)
        return ([Vec.from_objects(grid[:, j]).blank_as_zero() for j in range(c1 - c0 + 1)],
                list(ev.records))

    def array_value(self, u: Unit, ev: ArrayEval, row: int | None = None):
        """The value of the array formula ``u`` (evaluated once, at its top-left cell),
        or of a cell in ``row`` of a block in array mode (``ev`` plain): its INDIRECT and
        OFFSET calls first become the reference their arguments name there
        (:func:`dynamic.evaluate` over that one row; in an array formula an argument that
        is an array is not covered), then the formula is evaluated in array mode. A
        reference that reaches a formula cell not computed yet, its own cells included,
        is :class:`cells.Unordered` (ordered anew, or cell by cell on a cycle)."""
        tree = u.compiled.tree
        calls = dynamic.dynamic_calls(tree)
        if not calls:
            return ev.evaluate(tree)
        for call in calls if not ev.plain else ():
            args = call.args[1:] if call.name == "OFFSET" else call.args
            for a in args:
                if dynamic.dynamic_calls(a):
                    continue  # resolved first, checked then
                g = ev.evaluate(a)
                if isinstance(g, np.ndarray) and g.size > 1:
                    raise Unsupported(f"{call.name} of an array in an array formula")
        out: list = []

        def make_eval(a: int, b: int) -> BlockEval:
            return BlockEval(self.store, u.sheet, a, b, self.functions, self.state,
                             (engine.CURRENT, engine.STATE), u.col)

        group = getattr(self.store, "group", set())  # the cell scheduler's: its store's

        def leaf(t, a: int, b: int) -> None:
            stack = [t]
            while stack:
                x = stack.pop()
                if isinstance(x, Call):
                    stack.extend(x.args)
                elif isinstance(x, Rng):
                    ra, rb = sorted(x.rows_at(a))
                    for w in self.not_computed(x.sheet, ra, x.c1, rb, x.c2) - group:
                        raise cells.Unordered(
                            "INDIRECT or OFFSET reaches a formula cell not computed yet "
                            f"({self.units[w].address()})", None if w == u.id else w, u.id)
            out.append(ev.evaluate(t))

        row = u.r0 if row is None else row
        dynamic.evaluate(tree, row, row, self.ctx, make_eval, leaf)
        return out[0]

    def data_table(self, u: Unit) -> None:
        """A what-if data table's cell (:class:`DataTable`): each input cell holds the
        value given for it, the units between the input cells and the formula (those the
        formula reads, through others, that read an input cell) are computed again in
        order, the formula's value is the cell's; then every value is put back."""
        t = u.table
        sheet = u.sheet
        if t.deleted:
            v = Vec.const(ExcelError("#REF!", "what-if data table: an input cell was "
                                              "deleted"))
            self._put_value(u, v)
            return
        if self._index is None:
            self._index = _Index(self.units)
        edges = self.edges
        fr, fc = t.formula
        start = self._index.writers(sheet, fr, fc, fr, fc)
        ancestors = _closure(start, edges)
        direct = {w for w in ancestors if self.units[w].reads is None or any(
            s == sheet and a <= r <= b and c1 <= c <= c2
            for (r, c), _ in t.inputs for s, a, c1, b, c2 in self.units[w].reads)}
        reverse: dict[int, set[int]] = {}
        for w in ancestors:
            for x in edges[w]:
                reverse.setdefault(x, set()).add(w)
        chain: set[int] = set()
        todo = list(direct)
        while todo:
            w = todo.pop()
            if w in chain:
                continue
            chain.add(w)
            todo.extend(reverse.get(w, ()))
        for w in chain:
            x = self.units[w]
            if x.region is not None or x.cycle is not None or x.table is not None or (
                    x.why is not None or w not in self.values):
                raise Unsupported("what-if data table over an array formula, a cycle or "
                                  "cells computed per cell")
        order = _topo(chain, edges, {})
        saved = {w: (self.values[w], self.records.get(w)) for w in chain}
        added: list[tuple[object, Vec]] = []
        try:
            for (ir, ic), (vr, vc) in t.inputs:
                val = self.store.get(sheet, vc, vr, vr)
                col = self.store.column(sheet, ic)
                col.add_segment(ir, ir, val)
                added.append((col, col.segments[-1][2]))
            for grp in order:
                for w in grp:
                    x = self.units[w]
                    col = self.store.column(x.sheet, x.col)
                    old = self.values[w]
                    col.segments = [sg for sg in col.segments if sg[2] is not old]
                    self.store.forget_ranges()
                    try:
                        self.block(x)
                    except cells.Unordered as ex:  # not to be ordered anew from here
                        raise Unsupported(f"what-if data table: {ex}") from None
                    added.append((col, self.values[w]))
            self.store.forget_ranges()
            v = self.store.get(sheet, fc, fr, fr)
        finally:
            for col, vec in added:
                col.segments = [sg for sg in col.segments if sg[2] is not vec]
            for w, (old, rec) in saved.items():
                x = self.units[w]
                self.store.column(x.sheet, x.col).add_segment(x.r0, x.r1, old)
                self.values[w] = old
                if rec is not None:
                    self.records[w] = rec
            self.store.forget_ranges()
        self._put_value(u, v.blank_as_zero())

    def _put_value(self, u: Unit, v: Vec) -> None:
        v = v.broadcast(1)
        self.values[u.id] = v
        self.records[u.id] = ({}, [])
        self.store.column(u.sheet, u.col).add_segment(u.r0, u.r1, v)

    def iterate(self, members: list[Unit]) -> None:
        """The blocks of one cycle, recomputed in turn until no value moves by
        ``iterateDelta`` or ``iterateCount`` rounds are done (the workbook's ``calcPr``
        enables iterative calculation, as Excel does; every value starts blank)."""
        count, delta = self.book.iterate
        for _ in range(max(count, 1)):
            change = 0.0
            for u in members:
                self.store.forget_ranges()
                old = self.values.get(u.id)
                if old is not None:
                    col = self.store.column(u.sheet, u.col)
                    col.segments = [sg for sg in col.segments if sg[2] is not old]
                self.block(u)
                change = max(change, _change(old, self.values[u.id]))
            if change < delta:
                break
        self.store.forget_ranges()

    def by_rows(self, members: list[Unit]) -> None:
        """Blocks that read one another (a cycle between whole blocks) computed cell by
        cell, row after row, as Excel follows the cells a formula really reads: every
        cell starts as a marker error; a row's cell is computed once what it reads is no
        longer the marker. Then each block is computed once more as a whole from the
        values found, and must give them again (a cell that read a marker inside IFERROR,
        ISERROR, COUNT ... would not): otherwise, or when a row cannot be finished,
        :class:`Unsupported` (the blocks then go cell by cell, :func:`_cycle`)."""
        if any(u.array_mode or u.dynamic or u.region is not None for u in members):
            self._not_by_rows(members, {})  # arrays: per cell, where the cycle is told
        marker = _marker()
        segs: dict[int, Vec] = {}
        for u in members:
            n = u.r1 - u.r0 + 1
            obj = np.empty(n, dtype=object)
            obj[:] = marker
            seg = Vec(np.full(n, ERR, np.uint8), np.zeros(n), obj, np.zeros(n, bool))
            segs[u.id] = seg
            self.store.column(u.sheet, u.col).add_segment(u.r0, u.r1, seg)
        self.store.forget_ranges()
        order = sorted({r for u in members for r in range(u.r0, u.r1 + 1)})
        with np.errstate(all="ignore"):
            for r in order:
                todo = [u for u in members if u.r0 <= r <= u.r1]
                while todo:
                    left = []
                    for u in todo:
                        ev = BlockEval(self.store, u.sheet, r, r, self.functions, self.state,
                                       (engine.CURRENT, engine.STATE), u.col)
                        v = ev.value(u.compiled.tree).blank_as_zero().broadcast(1)
                        if v.obj is not None and v.obj[0] is marker:
                            left.append(u)
                            continue
                        seg, i = segs[u.id], r - u.r0
                        seg.kind[i], seg.num[i] = v.kind[0], v.num[0]
                        seg.obj[i] = None if v.obj is None else v.obj[0]
                        seg.npy[i] = False if v.npy is None else v.npy[0]
                        self.store.forget_ranges()
                    if len(left) == len(todo):
                        self._not_by_rows(members, segs)
                    todo = left
            for u in members:  # the check: each block again, from the values found
                ev = BlockEval(self.store, u.sheet, u.r0, u.r1, self.functions, self.state,
                               (engine.CURRENT, engine.STATE), u.col)
                v = ev.value(u.compiled.tree).blank_as_zero().broadcast(u.r1 - u.r0 + 1)
                if not _same(segs[u.id], v):
                    self._not_by_rows(members, segs)
                self.values[u.id] = v
                self.records[u.id] = (ev.records, ev.records_all)
        for u in members:  # the checked values in place of the row-by-row ones
            col = self.store.column(u.sheet, u.col)
            col.segments = [sg for sg in col.segments if sg[2] is not segs[u.id]]
            col.add_segment(u.r0, u.r1, self.values[u.id])
        self.store.forget_ranges()

    def _not_by_rows(self, members: list[Unit], segs: dict[int, Vec]) -> None:
        for u in members:
            if u.id in segs:
                col = self.store.column(u.sheet, u.col)
                col.segments = [sg for sg in col.segments if sg[2] is not segs[u.id]]
        self.store.forget_ranges()
        raise Unsupported("on a cycle: a cell reads itself, directly or through others")

    def _running_sum(self, u: Unit) -> Vec | None:
        """``=A1+X`` filled down (the row above plus something that does not read this
        column), all numbers: the sequential sums at once, bit for bit what adding row by
        row gives (``np.cumsum`` adds in order). None when the block is not that."""
        tree = u.compiled.tree
        if not isinstance(tree, Call) or tree.name != "+" or len(tree.args) != 2:
            return None

        a, b = tree.args
        other = b if _is_row_above(a, u) else a if _is_row_above(b, u) else None
        if other is None or _reads_own_column_else(u):
            return None
        if self.poison:
            return None
        ev = BlockEval(self.store, u.sheet, u.r0, u.r1, self.functions, self.state,
                       (engine.CURRENT, engine.STATE), u.col)
        n = u.r1 - u.r0 + 1
        with np.errstate(all="ignore"):
            x = ev.value(other).blank_as_zero().broadcast(n)
        seed = self.store.get(u.sheet, u.col, u.r0 - 1, u.r0 - 1).blank_as_zero()
        if ev.records or ev.records_all or not (x.kind == NUM).all() or seed.kind[0] != NUM:
            return None
        with np.errstate(all="ignore"):
            out = np.cumsum(np.concatenate([seed.num, x.num]))[1:]
        if not np.isfinite(out).all():
            return None
        return Vec(np.full(n, NUM, np.uint8), out)

    def _running_text(self, u: Unit) -> Vec | None:
        """``=CONCATENATE(A1,"a")`` or ``=A1&B2&"x"`` filled down (the row above, then
        text that does not read this column): each row is the row above with its own
        text appended, all rows at once. Only text and blank cells (blank is ""); None
        when the block is not that, or a result would pass Excel's 32,767 characters."""
        tree = u.compiled.tree
        if (not isinstance(tree, Call) or tree.name not in ("&", "CONCATENATE")
                or len(tree.args) < 2 or not _is_row_above(tree.args[0], u)
                or _reads_own_column_else(u) or self.poison):
            return None
        ev = BlockEval(self.store, u.sheet, u.r0, u.r1, self.functions, self.state,
                       (engine.CURRENT, engine.STATE), u.col)
        n = u.r1 - u.r0 + 1
        parts = [self.store.get(u.sheet, u.col, u.r0 - 1, u.r0 - 1)]
        parts += [ev.value(a).broadcast(n) for a in tree.args[1:]]
        if ev.records or ev.records_all or any(not np.isin(p.kind, (STR, EMPTY)).all()
                                               for p in parts):
            return None
        texts = []
        for p in parts:
            t = np.full(len(p), "", dtype=object)
            if p.obj is not None:
                t[p.kind == STR] = p.obj[p.kind == STR]
            texts.append(t)
        step = texts[1]
        for t in texts[2:]:
            step = step + t
        lengths = np.fromiter((len(x) for x in step), np.int64, n)
        if len(texts[0][0]) + int(lengths.sum()) > _MAX_TEXT:
            return None
        step[0] = texts[0][0] + step[0]
        out = np.add.accumulate(step)
        return Vec(np.full(n, STR, np.uint8), np.zeros(n), out)

    def _sequential(self, u: Unit) -> None:
        """A block reading its own column ``u.lag`` or more rows up (``=A1+1`` filled
        down): evaluated ``u.lag`` rows at a time, top down, each chunk reading the
        ones before it from the store."""
        n = u.r1 - u.r0 + 1
        fast = self._running_sum(u) if u.lag == 1 else None
        if fast is None and u.lag == 1:
            fast = self._running_text(u)
        if fast is not None:
            self.values[u.id] = fast
            self.records[u.id] = ({}, [])
            self.store.column(u.sheet, u.col).add_segment(u.r0, u.r1, fast)
            return
        acc = Vec.empty(n)
        self.store.column(u.sheet, u.col).add_segment(u.r0, u.r1, acc)
        records: dict[int, list] = {}
        for s0 in range(u.r0, u.r1 + 1, u.lag):
            self._chunk(u, u.compiled.tree, s0, min(s0 + u.lag - 1, u.r1), acc, records)
        if self.poison:
            acc = self._poisoned(u, acc)
            col = self.store.column(u.sheet, u.col)
            col.segments[-1] = (u.r0, u.r1, acc)
        self.values[u.id] = acc
        self.records[u.id] = (records, [])


    def _chunk(self, u: Unit, tree, s0: int, s1: int, acc: Vec, records: dict) -> None:
        """``tree`` over rows s0..s1 of ``u``, written into ``acc`` (rows u.r0..u.r1)."""
        n = u.r1 - u.r0 + 1
        ev = BlockEval(self.store, u.sheet, s0, s1, self.functions, self.state,
                       (engine.CURRENT, engine.STATE), u.col)
        with np.errstate(all="ignore"):
            v = ev.value(tree)
        v = v.blank_as_zero().broadcast(s1 - s0 + 1)
        a, b = s0 - u.r0, s1 - u.r0 + 1
        acc.kind[a:b] = v.kind
        acc.num[a:b] = v.num
        if v.obj is not None:
            if acc.obj is None:
                acc.obj = np.empty(n, dtype=object)
            acc.obj[a:b] = v.obj
        if v.npy is not None:
            if acc.npy is None:
                acc.npy = np.zeros(n, bool)
            acc.npy[a:b] = v.npy
        for i, recs in ev.records.items():
            records.setdefault(a + i, []).extend(recs)
        if ev.records_all:
            for i in range(a, b):
                records.setdefault(i, []).extend(ev.records_all)

    def _dynamic(self, u: Unit) -> None:
        """A block calling INDIRECT or OFFSET: the references resolved per row, the rest
        evaluated over each run of rows they leave alike (:func:`dynamic.evaluate`), top
        down; a run reading this block's own rows above it goes as many rows at a time
        as it reads up, one reading its own row or below, or a formula cell not
        computed yet, is not covered (per cell)."""
        step = u.r1 - u.r0 + 1  # rows whose references are resolved at once
        for call in dynamic.dynamic_calls(u.compiled.tree):
            args = call.args[1:] if call.name == "OFFSET" else call.args  # a base: not read
            stack = list(args)
            while stack:
                x = stack.pop()
                if isinstance(x, Call):
                    stack.extend(x.args)
                elif isinstance(x, Rng) and x.sheet == u.sheet and x.c1 <= u.col <= x.c2:
                    ra, rb = (x.r1 + u.r0 if x.r1_rel else x.r1), (x.r2 + u.r1 if x.r2_rel
                                                                    else x.r2)
                    if ra > u.r1 or rb < u.r0:
                        continue
                    if not (x.r2_rel and x.r2 < 0):
                        raise cells.Unordered(f"{call.name}'s arguments read its own cells")
                    step = min(step, -x.r2)  # its own rows above: that many at a time
        n = u.r1 - u.r0 + 1
        acc = Vec.empty(n)
        col = self.store.column(u.sheet, u.col)
        col.add_segment(u.r0, u.r1, acc)
        records: dict[int, list] = {}

        def make_eval(a: int, b: int) -> BlockEval:
            return BlockEval(self.store, u.sheet, a, b, self.functions, self.state,
                             (engine.CURRENT, engine.STATE), u.col)

        def leaf(tree, a: int, b: int) -> None:
            lag = self._dynamic_lag(u, tree, a, b)
            for s0 in range(a, b + 1, lag):
                if lag < b - a + 1:
                    self.store.forget_ranges()
                self._chunk(u, tree, s0, min(s0 + lag - 1, b), acc, records)

        spread = None
        if u.array_ref:  # a column of an array formula's range
            spread = (u.r0, u.col - parse_cell(u.array_ref.split(":")[0])[1])
        try:
            for s0 in range(u.r0, u.r1 + 1, step):
                if step < n:
                    self.store.forget_ranges()
                dynamic.evaluate(u.compiled.tree, s0, min(s0 + step - 1, u.r1), self.ctx,
                                 make_eval, leaf, spread)
        finally:
            self.store.forget_ranges()
        if self.poison:
            acc = self._poisoned(u, acc)
            col.segments[-1] = (u.r0, u.r1, acc)
        self.values[u.id] = acc
        self.records[u.id] = (records, [])

    def _dynamic_lag(self, u: Unit, tree, a: int, b: int) -> int:
        """How many rows of ``u`` from row ``a`` on can be computed at once with
        ``tree`` (its references resolved): all of a..b unless it reads its own rows
        above; :class:`Unsupported` when it reads its own row or below, or a formula
        cell not computed yet."""
        lag = b - a + 1
        stack = [tree]
        while stack:
            x = stack.pop()
            if isinstance(x, Call):
                stack.extend(x.args)
                continue
            if not isinstance(x, Rng):
                continue
            ra, rb = (x.r1 + a if x.r1_rel else x.r1), (x.r2 + b if x.r2_rel else x.r2)
            if ra < 1:
                raise Unsupported("reference above row 1")
            if x.sheet == u.sheet and x.c1 <= u.col <= x.c2 and ra <= u.r1 and rb >= u.r0:
                if x.r2_rel and x.r2 < 0:
                    lag = min(lag, -x.r2)
                elif x.r2_rel or min(rb, u.r1) >= a:
                    raise cells.Unordered(f"{u.address()} reads its own cells through "
                                          "INDIRECT or OFFSET")
            for w in self.not_computed(x.sheet, ra, x.c1, rb, x.c2) - {u.id}:
                raise cells.Unordered("INDIRECT or OFFSET reaches a formula cell not "
                                      f"computed yet ({self.units[w].address()})", w)
        return lag

    def not_computed(self, sheet: str, r1: int, c1: int, r2: int, c2: int) -> set[int]:
        """The units writing formula cells of the range that are not computed yet."""
        if self._index is None:
            self._index = _Index(self.units)
        return {w for w in self._index.writers(sheet, r1, c1, r2, c2)
                if w not in self.values and self.units[w].why is None}

    def _poisoned(self, u: Unit, v: Vec) -> Vec:
        """Rows reading a cell on a circular reference (:func:`cells.schedule`): not
        computed either, as Excel computes nothing downstream of a circle."""
        n = u.r1 - u.r0 + 1
        rows = np.arange(u.r0, u.r1 + 1)
        hit = np.zeros(n, bool)
        for ref in u.compiled.refs:
            for pr, pc in self.poison.get(ref.sheet, ()):
                if not ref.c1 <= pc <= ref.c2:
                    continue
                a = ref.r1 + rows if ref.r1_rel else np.full(n, ref.r1)
                b = ref.r2 + rows if ref.r2_rel else np.full(n, ref.r2)
                hit |= (a <= pr) & (pr <= b)
        if not hit.any():
            return v
        why = _NOT_COMPUTED
        letters = col_letters(u.col)
        cells = self.poison.setdefault(u.sheet, set())
        for r in rows[hit].tolist():
            self.forced[(u.sheet, f"{letters}{r}")] = why
            cells.add((r, u.col))
        err = Vec.from_objects([ERRORS["#VALUE!"]])
        idx = np.flatnonzero(hit)
        rest = np.flatnonzero(~hit)
        return Vec.assemble(n, [(idx, err), (rest, v.take(rest))])


_NOT_COMPUTED = cells.NOT_COMPUTED
_MAX_TEXT = 32767  # characters a cell holds (Excel's specifications and limits)


def _is_row_above(node, u: Unit) -> bool:
    """Whether ``node`` is the cell right above each row of ``u`` (``A1`` in ``A2``)."""
    return (isinstance(node, Rng) and node.is_cell and node.r1_rel and node.r1 == -1
            and node.sheet == u.sheet and node.c1 == u.col)


def _reads_own_column_else(u: Unit) -> bool:
    """Whether ``u`` reads its own column other than through the cell right above."""
    return any(r.sheet == u.sheet and r.c1 <= u.col <= r.c2
               for r in u.compiled.refs if not _is_row_above(r, u))


def _marker():
    """A cell not computed yet, while blocks are computed row by row (:meth:`_Run.by_rows`):
    an error value (#VALUE!) to everything reading it, told apart from every real one by
    identity."""
    return ExcelError("#VALUE!", "not computed yet")


def _same(a: Vec, b: Vec) -> bool:
    """Whether two results are the same values (numbers to 1e-12, relative)."""
    if len(a) != len(b) or (a.kind != b.kind).any():
        return False
    num = (a.kind == NUM) | (a.kind == BOOL)
    if not np.allclose(a.num[num], b.num[num], rtol=1e-12, atol=0.0, equal_nan=True):
        return False
    rest = ~num & (a.kind != EMPTY)
    if not rest.any():
        return True
    return (a.objects()[rest] == b.objects()[rest]).all()


def _change(old: Vec | None, new: Vec) -> float:
    """Largest change of a value between two rounds of an iteration (inf: not comparable)."""
    if old is None or len(old) != len(new) or (old.kind != new.kind).any():
        return np.inf
    num = new.kind == NUM
    if num.any():
        return float(np.max(np.abs(new.num[num] - old.num[num])))
    return 0.0 if old.obj is None or (old.objects() == new.objects()).all() else np.inf


def evaluate_blocks(path, functions: Mapping[str, Callable] | None = None, *,
                    limits: Limits = Limits(), engine_mode: str = "auto") -> Evaluation:
    """Compute every formula of the workbook at ``path`` (only read).

    ``functions`` as for :func:`rooflinexl.recalc.engine.evaluate_workbook`.
    ``engine_mode``: ``"auto"`` (blocks; a formula the engine does not support an error
    value naming why), ``"blocks"`` (the same, but such a formula is an
    :class:`~rooflinexl.recalc.engine.EngineError` naming the cells, so CI can insist on
    a book the engine supports whole) or ``"cells"`` (every formula as a block of one
    row). The result's ``paths`` says how many cells were computed as how many blocks,
    and which are not supported. CHAR and CODE use the character set of the Excel that
    saved the workbook (:func:`~rooflinexl.recalc.loader.saved_character_set`).
    """
    reset_clock()  # NOW and TODAY: one moment per recalculation
    with use_character_set(saved_character_set(path, limits)), use_date_system(False), \
            use_sheet_order(()), use_workbook_info(None):
        return _evaluate_blocks(path, functions, limits, engine_mode)


def _evaluate_blocks(path, functions, limits: Limits, engine_mode: str) -> Evaluation:
    t0 = time.perf_counter()
    functions = engine.all_functions(functions)
    path = Path(path)
    book = read_book(path, limits)
    set_date_system(book.date1904)  # TEXT's serial numbers (evaluate_blocks restores it)
    set_sheet_order(s.name for s in book.sheets)  # 3-D references (restored likewise)
    set_workbook_info(book.info)  # SHEET and INFO (restored likewise)
    t_load = time.perf_counter()
    ctx = Context(book, set(functions))
    units = _units(book, ctx, one_row=engine_mode == "cells")
    compiled: dict[tuple, Compiled | Unsupported] = {}
    for u in units:
        if u.why is not None or u.compiled is not None:
            continue
        # a table-row reference, what SUBTOTAL leaves out, or CELL's address written in by
        # the pre-pass depends on the block's rows: not shared
        up = u.text.upper()
        cache_key = (u.sheet, u.col, u.key) if "[" not in u.text and not (
            "SUBTOTAL(" in up or "AGGREGATE(" in up or "CELL" in up) else None
        hit = compiled.get(cache_key) if cache_key else None
        if hit is None:
            try:
                hit = compile_block(ctx, u.sheet, u.r0, u.col, u.text, u.r1)
            except Unsupported as ex:
                hit = ex
            if cache_key and not getattr(hit, "row_bound", False):
                compiled[cache_key] = hit
        if isinstance(hit, Unsupported):
            u.why, u.code = str(hit), getattr(hit, "code", None)
        else:
            u.compiled = hit
            u.array_mode = hit.arrays_inside is not None
    units = _by_rows(units, ctx)  # what only fails as a block: a block of one row per cell
    edges = _plan(units)
    t_plan = time.perf_counter()
    while True:
        if engine_mode == "blocks":
            _refuse_unsupported(units)
        run = _Run(book, ctx, units, functions, edges)
        try:
            _evaluate(run, units, edges)
        except _Retry:
            split = _by_rows(units, ctx)  # blocks found unsupported while computing
            if len(split) != len(units):
                units = split
                for u in units:
                    u.cycle, u.by_cells = None, False
                edges = _plan(units)
            continue
        break
    t_eval = time.perf_counter()
    ev = _collect(run, units, book, ctx)
    t_done = time.perf_counter()
    ev.paths.seconds = {"load": t_load - t0, "plan": t_plan - t_load,
                        "compute": t_eval - t_plan, "collect": t_done - t_eval}
    return ev


def _plan(units: list[Unit]) -> list[set[int]]:
    """What each unit reads, and so the units it comes after (``edges[u]``); which units
    are on a cycle (``Unit.cycle``), a running total (``Unit.lag``) or computed cell by
    cell (``Unit.by_cells``)."""
    for u in units:
        if u.compiled is not None and dynamic.dynamic_calls(u.compiled.tree):
            u.dynamic = u.region is None
        # a formula the engine does not support is an error value: it reads nothing
        u.reads = ([] if u.why is not None else None if u.dynamic or (
            u.compiled is not None and dynamic.dynamic_calls(u.compiled.tree))
            else _reads_of_compiled(u))
    index = _Index(units)
    edges = _graph(units, index)
    by_cells = _order_dynamic(units, edges)
    cyclic = _cyclic(edges)
    if cyclic:
        own = {uid for uid in cyclic if uid in edges[uid]}
        for uid in own:
            edges[uid].discard(uid)
        on_cycle = _cyclic(edges)  # without the self-loops: cycles through other units
        for uid in own:
            if uid not in on_cycle and units[uid].compiled is not None:
                units[uid].lag = _lag(units[uid])
            if not units[uid].lag:
                edges[uid].add(uid)
        for k, comp in enumerate(_components(edges)):
            # by iteration when the workbook enables it, as Excel does; otherwise cell by
            # cell (cells.schedule), as Excel follows the cells a formula really reads (a
            # loan schedule's INDEX(balance column, ROW()-1): the row above)
            for uid in comp:
                units[uid].cycle = k
    if by_cells:  # one group, cycles in it included
        k = 1 + max((u.cycle for u in units if u.cycle is not None), default=-1)
        for uid in by_cells:
            if units[uid].compiled is not None and units[uid].why is None:
                units[uid].cycle, units[uid].by_cells = k, True
    return edges


#: the most rows of a block tried as blocks of one row when it fails as a block (each row
#: compiled on its own: a larger one stays an error value naming why)
_MAX_SPLIT_ROWS = 2_000


def _by_rows(units: list[Unit], ctx: Context) -> list[Unit]:
    """``units``, each block the engine does not support as a block (CELL's address
    filled down, a range with one end fixed and one relative ...) as a block of one row
    per cell when its first row compiles alone (up to :data:`_MAX_SPLIT_ROWS` rows); the
    ids renumbered."""
    out: list[Unit] = []
    for u in units:
        if (u.why is None or u.code or u.region is not None or u.r0 == u.r1
                or u.r1 - u.r0 >= _MAX_SPLIT_ROWS):
            u.id = len(out)
            out.append(u)
            continue
        rows = []
        for r, text in zip(range(u.r0, u.r1 + 1), _cell_texts(u), strict=True):
            one = Unit(0, u.sheet, u.col, r, r, u.key, text, texts=[text])
            try:
                one.compiled = compile_block(ctx, u.sheet, r, u.col, text, r)
                one.array_mode = one.compiled.arrays_inside is not None
            except Unsupported as ex:
                one.why, one.code = str(ex), getattr(ex, "code", None)
            if not rows and one.why is not None:  # not a matter of the block: as it was
                break
            rows.append(one)
        for one in rows or [u]:
            one.id = len(out)
            out.append(one)
    return out


class _Retry(Exception):
    pass


def _refuse_unsupported(units: list[Unit]) -> None:
    """``--engine blocks``: an EngineError naming the formulas the engine does not support,
    a function Excel has that it does not implement among them."""
    from rooflinexl.recalc.compile import unknown_reason
    from rooflinexl.recalc.excelnames import is_excel_function

    bad = []
    for u in units:
        if u.why is not None and u.code is None:
            bad.append((u, u.why))
        elif u.compiled is not None:
            lacking = [n for n in u.compiled.unknown if is_excel_function(n)]
            if lacking:
                bad.append((u, "; ".join(unknown_reason(n) for n in lacking)))
    if bad:
        where = "; ".join(f"{u.address()}: {why}" for u, why in bad[:5])
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise engine.EngineError(
            f"--engine blocks: {sum(u.cells for u, _ in bad)} formula cells are not supported "
            f"by the engine ({where}{more}); --engine auto makes them error values")


def _evaluate(run: _Run, units: list[Unit], edges) -> None:
    """Every unit: those the engine does not support first (error values), then the rest in
    dependency order; a unit found unsupported while computing makes a new round
    (:class:`_Retry`) in which it is one of the first."""
    unsupported = {u.id for u in units if u.why is not None}
    if unsupported:
        _unsupported(run, units, unsupported)
    ids = set(range(len(units))) - unsupported
    # a block found unsupported while computing is an error value in the next round;
    # the stage goes on without what reads it, so one round finds every such block
    failed: set[int] = set()
    for grp in _topo(ids, edges, run.cycle_of):
        # a dynamic unit is tried whatever it may read: what it does read is checked
        # when it is resolved (so one round finds the dynamic units that fail)
        if failed and any(w in failed for uid in grp
                          for w in (units[uid].named if units[uid].dynamic
                                    else edges[uid])):
            failed.update(grp)
            continue
        try:
            if grp[0] in run.cycle_of and run.book.iterate and not units[grp[0]].by_cells:
                run.iterate([units[uid] for uid in grp])
            elif grp[0] in run.cycle_of:
                _cycle(run, units, grp)
            else:
                try:
                    run.block(units[grp[0]])
                except cells.Unordered:
                    raise
                except Unsupported:
                    u = units[grp[0]]
                    if u.array_mode:
                        raise
                    u.array_mode = True  # values the block kernels cannot hold
                    run.block(u)
        except cells.Unordered as ex:  # cell by cell in the next round
            failed.update(grp)
            _regroup(units, edges, grp[0] if ex.by is None else ex.by, ex)
        except Unsupported as ex:
            failed.update(grp)
            for uid in grp:
                units[uid].why = str(ex)
    if failed:
        _fail_alike(units, failed)
        raise _Retry


def _cycle(run: _Run, units: list[Unit], grp: list[int]) -> None:
    """The blocks of a cycle, without iteration: row by row (:meth:`_Run.by_rows`, fast)
    when the cycle closes only through INDEX's range or a block's own rows above (a loan
    schedule); otherwise, or when a cell reads itself after all, cell by cell in the order
    their values need (:func:`cells.schedule`), where a circular reference is told."""
    members = [units[uid] for uid in grp]
    if run._index is None:
        run._index = _Index(units)
    if not any(u.array_mode or u.dynamic or u.region is not None or u.by_cells
               for u in members) and _cycle_through_references_only(
            set(grp), units, run._index):
        try:
            run.by_rows(members)
            return
        except Unsupported:
            pass
    cells.schedule(run, members)


def _regroup(units: list[Unit], edges, uid: int, ex: cells.Unordered) -> None:
    """A unit found reading, through INDIRECT or OFFSET, its own cells or those of a unit
    not computed before it (``ex.reached``): it reads that unit from now on, and the cycle
    this closes (the unit alone for its own cells) is computed cell by cell
    (:func:`cells.schedule`); per cell when it holds a formula the compiler lacks or
    it was so already."""
    if ex.reached is not None:
        edges[uid].add(ex.reached)
        reverse: list[set[int]] = [set() for _ in units]
        for v, deps in enumerate(edges):
            for w in deps:
                reverse[w].add(v)
        comp = _closure({uid}, edges) & _closure({uid}, reverse)
    else:
        comp = {uid}
    if len(comp) == 1 and ex.reached is not None and ex.reached != uid:
        return  # it only comes after that unit now
    if (ex.reached is None and units[uid].cycle is not None) or any(
            units[v].compiled is None or units[v].why is not None for v in comp - {uid}):
        for v in comp:
            units[v].why = units[v].why or str(ex)
        return
    new = 1 + max((u.cycle for u in units if u.cycle is not None), default=-1)
    for v in comp:
        old = units[v].cycle
        for w in units:  # a cycle it joins joins too
            if old is not None and w.cycle == old:
                w.cycle, w.by_cells = new, True
        units[v].cycle, units[v].by_cells = new, True


_CELL_REF = re.compile(r"\$?[A-Z]{1,3}\$?[0-9]+")


def _fail_alike(units: list[Unit], failed: set[int]) -> None:
    """Units of ``failed`` skipped because they read a unit that failed (``why`` not
    set) and written like one that failed (the same formula but for its cell references,
    ``=IF(MAX(CA8:CA39)>=0,...)`` and ``=IF(MAX(CA43:CA83)>=0,...)``) go per cell with
    it now, not one more round of evaluation later each (POI's 57181.xlsm: a chain of
    three such rounds)."""
    shapes = {_CELL_REF.sub("R", units[uid].compiled.text): units[uid].why
              for uid in failed if units[uid].why is not None and units[uid].compiled}
    for uid in failed:
        u = units[uid]
        if u.why is None and u.compiled is not None:
            why = shapes.get(_CELL_REF.sub("R", u.compiled.text))
            if why is not None:
                u.why = why


# ------------------------------------------------------------- not supported


def unsupported_error(why: str) -> ExcelError:
    """The error value of a formula the engine does not support, and why: ``#NAME?`` for a
    function (DESIGN.md section 4: an unsupported function is ``#NAME?`` naming it),
    ``#VALUE!`` for anything else; never a guessed value.

    >>> err = unsupported_error("function _xlfn.SHEET")
    >>> str(err), err.reason
    ('#NAME?', 'not supported by the engine: function _xlfn.SHEET')
    >>> str(unsupported_error("the formula cannot be parsed: missing operand"))
    '#VALUE!'
    """
    code = "#NAME?" if _FUNCTION_WHY.match(why) else "#VALUE!"
    return ExcelError(code, f"not supported by the engine: {why}")


#: the reason of a function the compiler does not have (``function _xlfn.SHEET``)
_FUNCTION_WHY = re.compile(r"(?:array formula: )?function [^ ]+$")


def _unsupported(run: _Run, units: list[Unit], ids: set[int]) -> None:
    """Every cell of the units ``ids`` (formulas the engine does not support): the error
    value of :func:`unsupported_error`, into the run and its store, before anything else is
    computed (so what reads them gets that error, with where it came from)."""
    points: dict[tuple[str, int], tuple[list, list]] = {}
    for uid in sorted(ids):
        u = units[uid]
        err = ExcelError(u.code, u.why) if u.code else unsupported_error(u.why)
        texts = _cell_texts(u)
        if u.region is not None:
            r0, c0, r1, c1 = u.region
            where = [(r, c, texts[0]) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
        else:
            where = [(r, u.col, t) for r, t in zip(range(u.r0, u.r1 + 1), texts, strict=True)]
        for r, c, text in where:
            cell = f"{col_letters(c)}{r}"
            run.unsupported[(u.sheet, cell)] = CellResult(u.sheet, cell, text, err, err.reason,
                                                       u.array_ref)
            rows, vals = points.setdefault((u.sheet, c), ([], []))
            rows.append(r)
            vals.append(ERRORS[str(err)])
    for (sheet, col), (rows, vals) in points.items():
        run.store.column(sheet, col).add_points(rows, Vec.from_objects(vals))
    run.store.forget_ranges()


# ------------------------------------------------------------ collecting


_DESCRIPTIONS = engine.DESCRIPTIONS


@dataclass
class _Column:
    """One block's results: rows r0..r1 of one column."""

    sheet: str
    col: int
    r0: int
    r1: int
    letters: str
    texts: list  # formula text per row
    values: list  # value per row, as CellResult holds it
    array_ref: str | None
    template: object = None  # refs.Template of the rewritten formula, if rewritten


class _ByCell(Mapping):
    """A mapping ``(sheet, "B7") -> ...`` over block columns: finds a cell's column."""

    def __init__(self, columns: list[_Column]):
        self._columns = columns
        self._at: dict[tuple[str, int], list[tuple[int, int]]] = {}
        for k, c in enumerate(columns):
            self._at.setdefault((c.sheet, c.col), []).append((c.r0, k))
        for lst in self._at.values():
            lst.sort()

    def _find(self, key) -> tuple[_Column, int] | None:
        try:
            sheet, addr = key
            row, col = parse_cell(addr)
        except (TypeError, ValueError):
            return None
        lst = self._at.get((sheet, col))
        if not lst:
            return None
        k = bisect.bisect_right(lst, (row, 1 << 62)) - 1
        if k < 0:
            return None
        c = self._columns[lst[k][1]]
        if row > c.r1 or addr != c.letters + str(row):  # not canonical ('b7', '$B$7')
            return None
        return c, row - c.r0

    def _get(self, key) -> tuple[_Column, int]:
        """:meth:`_find`, or :class:`KeyError` for a key no column holds."""
        found = self._find(key)
        if found is None:
            raise KeyError(key)
        return found

    @staticmethod
    def _keys_of(c: _Column):
        n = c.r1 - c.r0 + 1
        return zip(repeat(c.sheet, n), map(c.letters.__add__, map(str, range(c.r0, c.r1 + 1))),
                   strict=True)


class BlockRewrites(_ByCell):
    """``Evaluation.rewrites`` of the block evaluator: ``(sheet, "B7") -> (before, after)``
    of the cells whose formula the pre-pass rewrote (a table reference written out ...),
    the rewritten text written for a cell when asked for (:func:`refs.render`), and the
    not supported ones and the names' (``extra``) after them, as a dict would hold them."""

    def __init__(self, columns: list[_Column], extra: dict):
        super().__init__(columns)
        self._extra = extra
        self._len = sum(c.r1 - c.r0 + 1 for c in columns) + len(extra)

    def __getitem__(self, key) -> tuple[str, str]:
        hit = self._extra.get(key)
        if hit is not None:
            return hit
        c, i = self._get(key)
        return c.texts[i], render_rows(c.template, c.r0 + i, c.r0 + i, c.col)[0]

    def __contains__(self, key) -> bool:
        return key in self._extra or self._find(key) is not None

    def __len__(self) -> int:
        return self._len

    def __iter__(self):
        for c in self._columns:
            yield from self._keys_of(c)
        yield from self._extra


def _written_reason(tree, code: str) -> str | None:
    """The reason of the first error value ``code`` the compiler wrote into ``tree`` with
    one (another workbook's value not kept, a name of another sheet ...), else None."""
    stack = [tree]
    while stack:
        x = stack.pop()
        if isinstance(x, Lit) and isinstance(x.value, ExcelError) and str(x.value) == code \
                and getattr(x.value, "reason", ""):
            return x.value.reason
        if isinstance(x, Call):
            stack.extend(reversed(x.args))
    return None


class BlockCells(_ByCell):
    """``Evaluation.cells`` of the block evaluator: ``(sheet, "B7") -> CellResult``, in the
    workbook's order (sheet, row, column).

    A block's results stay as columns (texts and values); a cell's CellResult is made when
    it is first asked for and then kept, so that a change to it stays. Recalculating a
    workbook asks only for the error cells (:meth:`errors`) and the values to cache
    (:meth:`cached_values`), so a 100,000-row plan never makes its 400,000 CellResults.
    """

    def __init__(self, columns: list[_Column], singles: dict, sheets: list[str]):
        super().__init__(columns)
        self._made: dict[tuple[str, str], CellResult] = dict(singles)
        self._singles = list(singles)
        self._sheets = {name: i for i, name in enumerate(sheets)}
        self._len = sum(c.r1 - c.r0 + 1 for c in columns) + len(singles)
        self._keys: list | None = None

    def __getitem__(self, key) -> CellResult:
        hit = self._made.get(key)
        if hit is not None:
            return hit
        c, i = self._get(key)
        v = c.values[i]
        res = CellResult(c.sheet, key[1], c.texts[i], v,
                         v.reason if isinstance(v, ExcelError) else "", c.array_ref)
        self._made[key] = res
        return res

    def __contains__(self, key) -> bool:
        return key in self._made or self._find(key) is not None

    def __len__(self) -> int:
        return self._len

    def _sort_key(self, key) -> tuple[int, int, int]:
        row, col = parse_cell(key[1])
        return self._sheets.get(key[0], 1 << 30), row, col

    def __iter__(self):
        if self._keys is None:
            keys: list = []
            si, rs, cs = [], [], []
            for c in self._columns:
                n = c.r1 - c.r0 + 1
                keys.extend(self._keys_of(c))
                si.append(np.full(n, self._sheets.get(c.sheet, 1 << 30)))
                rs.append(np.arange(c.r0, c.r1 + 1))
                cs.append(np.full(n, c.col))
            for key in self._singles:
                keys.append(key)
                s, r, c = self._sort_key(key)
                si.append(np.array([s]))
                rs.append(np.array([r]))
                cs.append(np.array([c]))
            if keys:
                order = np.lexsort((np.concatenate(cs), np.concatenate(rs),
                                    np.concatenate(si))).tolist()
                keys = list(map(keys.__getitem__, order))
            self._keys = keys
        return iter(self._keys)

    def errors(self) -> list[CellResult]:
        """The error cells, in order (:meth:`Evaluation.errors`)."""
        keys = [key for key in self._singles if self._made[key].is_error]
        for c in self._columns:
            keys.extend((c.sheet, c.letters + str(c.r0 + i))
                        for i, v in enumerate(c.values) if isinstance(v, ExcelError))
        keys.sort(key=self._sort_key)
        return [self[key] for key in keys]

    def cached_values(self) -> dict[str, dict[str, object]]:
        """``{sheet: {"B7": value}}`` of every cell, as ``recalc`` caches them
        (:func:`rooflinexl.cellvalues.cached_value`)."""
        from rooflinexl.cellvalues import cached_value

        out: dict[str, dict[str, object]] = {}
        for c in self._columns:
            addrs = map(c.letters.__add__, map(str, range(c.r0, c.r1 + 1)))
            vals = c.values
            if set(map(type, vals)) != {float}:
                vals = list(map(cached_value, vals))
            out.setdefault(c.sheet, {}).update(zip(addrs, vals, strict=True))
        for (sheet, addr), res in self._made.items():  # the not supported, and changed ones
            out.setdefault(sheet, {})[addr] = cached_value(res.value)
        return out


@paused_gc()
def _collect(run: _Run, units: list[Unit], book: Book, ctx: Context) -> Evaluation:
    """CellResults of every formula cell, in the workbook's order (sheet, row, col)."""
    columns: list[_Column] = []
    rewritten: list[_Column] = []
    rewrites: dict[tuple[str, str], tuple[str, str]] = {}  # per cell, and names
    paths = PathCounts()
    errors: list[tuple[Unit, int, str]] = []
    unsupported_why: dict[str, list] = {}
    for u in units:
        if u.why is not None:
            if u.code is None:  # not an error value by Excel's rules: not supported
                paths.unsupported_cells += u.cells
                ent = unsupported_why.setdefault(u.why, [u.address(), 0])
                ent[1] += u.cells
            continue
        paths.blocks += 1
        sheet = u.sheet

        def column(u, col, r0, r1, texts, v, sheet=sheet):
            letters = col_letters(col)
            vals, maybe_errors = _final(v)
            for i in maybe_errors:
                v = vals[i]
                if not isinstance(v, ExcelError):
                    continue
                addr = letters + str(r0 + i)
                forced = run.forced.get((sheet, addr))
                if forced is not None:
                    vals[i] = v = ExcelError("#VALUE!", forced)
                if not v.reason:
                    errors.append((u, i, addr))
            columns.append(_Column(sheet, col, r0, r1, letters, texts, vals, u.array_ref))

        if u.region is not None:  # an array formula: every cell of its range, by column
            r0, c0, r1, c1 = u.region
            paths.block_cells += u.cells
            texts = _cell_texts(u)[:1] * (r1 - r0 + 1)
            for c, v in zip(range(c0, c1 + 1), run.grids[u.id], strict=True):
                column(u, c, r0, r1, texts, v)
            if u.compiled.rewritten:
                rewrites[(sheet, f"{col_letters(c0)}{r0}")] = (texts[0], u.compiled.text)
            continue
        paths.block_cells += u.r1 - u.r0 + 1
        texts = _cell_texts(u)
        if u.compiled.rewritten:
            rewritten.append(_Column(sheet, u.col, u.r0, u.r1, col_letters(u.col), texts, [],
                                     None, u.compiled.rw_template))
        column(u, u.col, u.r0, u.r1, texts, run.values[u.id])
    rewrites.update(_name_rewrites(ctx))
    sheets = [s.name for s in book.sheets]
    cells = BlockCells(columns, run.unsupported, sheets)
    paths.unsupported = sorted(((a, n, why) for why, (a, n) in unsupported_why.items()),
                             key=lambda x: -x[1])
    unknown = {name for u in units if u.why is None for name in u.compiled.unknown}
    ev = Evaluation(cells, unknown, BlockRewrites(rewritten, rewrites), sheets)
    ev.paths = paths
    _Reasons(run, units, cells, ctx).explain(errors)
    return ev


def _name_rewrites(ctx: Context) -> dict:
    """What the pre-pass rewrites in the defined names, keyed ``("", "name:X")``."""
    from rooflinexl.recalc.prepass import rewrite_formula

    out = {}
    for key, text in ctx.names.items():
        rw = rewrite_formula("=" + text, tables=ctx.book.tables, function_names=ctx.registered,
                             clip=ctx.clip, defined=ctx.defined, arrays=ctx.arrays,
                             external=ctx.book.external)
        if rw.changed:
            out[("", f"name:{ctx.book.name_case.get(key, key)}")] = (text, rw.text[1:])
    return out


class _Reasons:
    """Reasons of block error cells: where each error came from, and why."""

    def __init__(self, run: _Run, units: list[Unit], cells, ctx: Context):
        self.run, self.units, self.cells, self.ctx = run, units, cells, ctx
        self.unit_at: dict[tuple[str, int], list[Unit]] = {}
        for u in units:
            if u.why is None:
                cols = range(u.region[1], u.region[3] + 1) if u.region else (u.col,)
                for c in cols:
                    self.unit_at.setdefault((u.sheet, c), []).append(u)
        self.memo: dict[tuple[str, str], tuple[str, str]] = {}

    def _unit(self, sheet: str, row: int, col: int) -> Unit | None:
        for u in self.unit_at.get((sheet, col), ()):
            if (u.region[0] <= row <= u.region[2]) if u.region else u.r0 <= row <= u.r1:
                return u
        return None

    def explain(self, errors) -> None:
        for u, _i, addr in errors:
            res = self.cells[(u.sheet, addr)]
            where, why = self.origin(u.sheet, addr, 0)
            reason = why if where == f"{u.sheet}!{addr}" else f"propagated from {where}: {why}"
            res.reason = reason
            res.value = ExcelError(str(res.value), reason)
        for key, res in self.run.unsupported.items():
            if not res.is_error or not res.reason.startswith("propagated from "):
                continue
            where, why = self.origin(key[0], key[1], 0)
            fixed = f"propagated from {where}: {why}"
            if fixed != res.reason:
                res.reason = fixed
                res.value = ExcelError(str(res.value), fixed)

    def origin(self, sheet: str, addr: str, depth: int) -> tuple[str, str]:
        key = (sheet, addr)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        here = f"{sheet}!{addr}"
        res = self.cells.get(key)
        if key in self.run.unsupported:
            reason = res.reason or ""
            out = (here, reason)
            if reason.startswith("propagated from "):
                w, _, why = reason[len("propagated from "):].partition(": ")
                w_sheet, _, w_addr = w.rpartition("!")
                src = (w_sheet, w_addr)
                if (why == "an error value typed into the cell" and src in self.cells
                        and src not in self.run.unsupported):
                    out = self.origin(w_sheet, w_addr, depth + 1)  # a block's value in the copy
                else:
                    out = (w, why)
            self.memo[key] = out
            return out
        self.memo[key] = (here, "circular chain of errors")
        code = str(res.value)
        row, col = parse_cell(addr)
        u = self._unit(sheet, row, col)
        if isinstance(res.value, ExcelError) and res.value.reason:
            out = (here, res.value.reason)
            self.memo[key] = out
            return out
        own = self._own(u, row, code) if u is not None else None
        if own is not None:
            self.memo[key] = (here, own)
            return self.memo[key]
        src = self._source(u, row, code) if u is not None and depth < 500 else None
        if src is not None:
            s_sheet, s_row, s_col = src
            s_addr = f"{col_letters(s_col)}{s_row}"
            if (s_sheet, s_addr) in self.cells and (s_sheet, s_addr) != key:
                out = self.origin(s_sheet, s_addr, depth + 1)
            else:
                out = (f"{s_sheet}!{s_addr}", "an error value typed into the cell")
            self.memo[key] = out
            return out
        text = u.compiled.text if u is not None and u.compiled is not None else ""
        written = _written_reason(u.compiled.tree, code) if text else None
        if u is not None and u.compiled is not None and u.compiled.notes:
            why = "; ".join(u.compiled.notes)
        elif written is not None:  # an error the compiler wrote in, with its reason
            why = written
        elif code == "#NAME?" and "#NAME?" not in _cell_texts(u)[0].upper():
            # the pre-pass wrote #NAME? for a name the workbook does not define
            why = "a name the workbook does not define (Excel's #NAME?)"
        elif text.replace(" ", "").upper() == "=" + code:
            why = f"the formula is the error constant {code}"
        else:
            why = f"{_DESCRIPTIONS.get(code, 'error')} in this formula"
        self.memo[key] = (here, why)
        return self.memo[key]

    def _own(self, u: Unit, row: int, code: str) -> str | None:
        recs, recs_all = self.run.records.get(u.id, ({}, []))
        cands = [r for r in recs.get(row - u.r0, []) + recs_all if r[2] == code]
        if len({id(r[0]) for r in cands}) > 1:
            order = dispatch_order(u.compiled.tree)
            cands.sort(key=lambda r: (order.get(id(r[0]), (1, 0, "")), r[1]))
        return cands[0][3] if cands else None

    def _source(self, u: Unit, row: int, code: str):
        """(sheet, row, col) of the first input holding the same error, in formulas' order."""
        inputs = {}
        base = u.r0 if u.region else row  # an array formula's references: from its anchor
        for ref in u.compiled.refs:
            ra = ref.r1 + base if ref.r1_rel else ref.r1
            rb = ref.r2 + base if ref.r2_rel else ref.r2
            name = self._node_id(ref, ra, rb)
            inputs.setdefault(name, (ref.sheet, ra, ref.c1, rb, ref.c2))
        for name in sorted(inputs):
            sheet, r1, c1, r2, c2 = inputs[name]
            kind, _num, obj, _npy = self.run.store.block(sheet, r1, c1, r2, c2)
            hits = np.argwhere(kind == ERR)
            for a, b in hits.tolist():
                if str(obj[a, b]) == code:
                    return sheet, r1 + a, c1 + b
        return None

    def _node_id(self, ref: Rng, ra: int, rb: int) -> str:
        if ref.name:
            return "'!" + ref.name.upper()
        cell = f"{col_letters(ref.c1)}{ra}"
        if (ra, ref.c1) != (rb, ref.c2):
            cell += f":{col_letters(ref.c2)}{rb}"
        return f"{ref.sheet.upper()}'!{cell}"


