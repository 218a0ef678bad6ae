"""Cell-level scheduling: formulas computed one cell at a time, in the order their values
need, for what cannot be ordered as whole blocks.

A cell is a block of one row: each cell of a unit is computed by the same evaluators as a
block (:class:`~rooflinexl.recalc.kernels.BlockEval` over its one row, the array evaluator,
:mod:`~rooflinexl.recalc.dynamic` for INDIRECT and OFFSET), with the same parse tree. What
goes here: blocks that read one another or their own cells (a cycle between whole blocks,
a running total reading its own row), where the order of the cells is found while they
are computed, as Excel finds it (Microsoft, "Excel Recalculation": a formula that needs a
cell not calculated yet is put back after it).

:func:`schedule` is demand-driven, with an explicit stack. Every cell not computed yet
holds a marker; a cell is computed, and each cell of the group its formula read while
that was so is noted. A formula whose value does not depend on those cells (the same
value whether they hold an error, a number or nothing: ``IF(ROW()=2,1000,INDEX(D:D,..))``
in its first row) is done; otherwise the cells it read are computed first and it is
computed again. A cell that needs, through others, a cell already waiting for it is on a
circular reference: without iteration (Excel's ``calcPr iterate``, done block by block
elsewhere) each cell on the circle is an error value whose reason names the circle, every
cell that reads one of them an error "not computed", as in Excel's warning.
"""
from __future__ import annotations

import bisect

import numpy as np

from rooflinexl.addresses import column_letters, parse_cell
from rooflinexl.recalc import dynamic, engine
from rooflinexl.recalc.arrays import ArrayEval, first_value
from rooflinexl.recalc.compile import Unsupported
from rooflinexl.recalc.kernels import BlockEval
from rooflinexl.recalc.values import EMPTY, ERR, NUM, SheetStore, Vec

__all__ = ["NOT_COMPUTED", "Unordered", "schedule"]

#: the reason of a cell that reads a cell on a circular reference
NOT_COMPUTED = "not computed: a circular reference, or depends on one"

#: a number no formula is likely to give, put where a cell not computed yet is read, to
#: see whether a formula's value depends on it (Euler's constant)
_PROBE = 0.5772156649015329

#: the cells of a circle named in a reason, at most
_NAMED = 6


class Unordered(Unsupported):
    """A formula found reading, through INDIRECT or OFFSET, cells whose values are not
    known yet: its own (``reached`` None) or those of the unit ``reached``, not computed
    before it; ``by``: the unit reading them, when known. Its cells then go cell by cell."""

    def __init__(self, message: str, reached: int | None = None, by: int | None = None):
        super().__init__(message)
        self.reached, self.by = reached, by


def _error(code: str = "#VALUE!"):
    from rooflinexl.recalc.values import ERRORS

    return ERRORS[code]


class _Watch(SheetStore):
    """The run's store, shared, noting which cells of the group a formula reads."""

    def __init__(self, base: SheetStore, by_col: dict, not_computed, group: set[int]):
        self.sheets = base.sheets
        self._ranges = {}
        self.by_col = by_col  # (sheet, col) -> (first rows, [(r0, r1, state)])
        self.read: list[tuple[object, int, int]] = []  # (state, first, last index) read
        self.not_computed, self.group = not_computed, group
        self.current: int | None = None  # the unit whose cell is being computed

    def get(self, sheet: str, col: int, ra: int, rb: int) -> Vec:
        found = self.by_col.get((sheet, col))
        if found is not None:
            starts, runs = found  # the group's units in the column, by first row
            k = bisect.bisect_right(starts, rb) - 1
            while k >= 0 and runs[k][1] >= ra:  # they do not overlap
                r0, r1, st = runs[k]
                self.read.append((st, max(ra, r0) - r0, min(rb, r1) - r0))
                k -= 1
        for w in self.not_computed(sheet, ra, col, rb, col) - self.group:
            # INDIRECT or OFFSET reaching a block computed after these: order anew
            raise Unordered("INDIRECT or OFFSET reaches a formula cell not computed yet",
                            w, self.current)
        return super().get(sheet, col, ra, rb)


class _State:
    """One unit of the group: its values (a segment of the store), which rows are done.
    An array formula over a range has one per column of its range (``col``, rows
    ``r0``..``r1``), computed together: ``head`` is the first (None for a block), whose
    ``parts`` they are, and a cell of any of them stands for the whole formula."""

    def __init__(self, u, marker, col: int | None = None, rows: tuple | None = None):
        self.u = u
        self.col = u.col if col is None else col
        self.r0, self.r1 = (u.r0, u.r1) if rows is None else rows
        self.head: _State | None = None
        self.parts: list[_State] = [self]
        n = self.r1 - self.r0 + 1
        obj = np.empty(n, dtype=object)
        obj[:] = marker
        self.acc = Vec(np.full(n, ERR, np.uint8), np.zeros(n), obj, np.zeros(n, bool))
        self.done = np.zeros(n, bool)
        self.seq = np.zeros(n, np.int64)  # when each cell was done (1, 2, ...)
        self.bad = np.zeros(n, bool)  # on a circle or reading one
        self.records: dict[int, list] = {}

    def address(self, r: int) -> str:
        return f"{self.u.sheet}!{column_letters(self.col)}{r}"

    def slot(self, r: int):
        i = r - self.r0
        a = self.acc
        return int(a.kind[i]), float(a.num[i]), a.obj[i], bool(a.npy[i])

    def put(self, r: int, kind: int, num: float, obj, npy: bool = False) -> None:
        i = r - self.r0
        a = self.acc
        a.kind[i], a.num[i], a.obj[i], a.npy[i] = kind, num, obj, npy

    def save(self, idx: np.ndarray) -> tuple:
        a = self.acc
        return a.kind[idx].copy(), a.num[idx].copy(), a.obj[idx].copy(), a.npy[idx].copy()

    def restore(self, idx: np.ndarray, saved: tuple) -> None:
        a = self.acc
        a.kind[idx], a.num[idx], a.obj[idx], a.npy[idx] = saved

    def fill(self, idx: np.ndarray, kind: int, num: float) -> None:
        a = self.acc
        a.kind[idx], a.num[idx], a.obj[idx], a.npy[idx] = kind, num, None, False


def schedule(run, members: list) -> None:
    """Compute the units ``members`` of ``run`` cell by cell, in the order their values
    need.

    Parameters
    ----------
    run : rooflinexl.recalc.blocks._Run
        A block evaluation in progress: its store holds every cell the members read
        outside them (``run.not_computed`` names formula cells that are not computed yet).
    members : list of rooflinexl.recalc.blocks.Unit
        Compiled units (rows r0..r1 of one column, one formula), usually the blocks of one
        cycle; each cell is its formula at its row.

    An array formula over a range is computed as a whole, once every cell it reads is
    (a cell of its range stands for it). Their values go into ``run.values`` (an array
    formula's columns into ``run.grids``) and the store; a cell on a circular reference is
    ``#VALUE!`` with a reason naming the circle, and it and every cell of the group that
    read it are noted in ``run.forced`` and ``run.poison`` (cells computed later that read
    them are not computed either).

    Raises
    ------
    Unordered
        A member's INDIRECT or OFFSET reaches a formula cell outside them not computed
        yet (the caller then orders anew).
    Unsupported
        A member's formula is one the evaluators do not cover.

    Examples
    --------
    Blocks B and C read each other, their cells do not (by hand: 1, 2, 3, 6, 7, 14); a cell
    that reads itself is a circle:

    >>> import tempfile, pathlib, openpyxl
    >>> from rooflinexl.recalc.blocks import evaluate_blocks
    >>> wb = openpyxl.Workbook(); ws = wb.active
    >>> ws["B1"], ws["C1"] = 1, "=B1*2"
    >>> for r in (2, 3):
    ...     ws[f"B{r}"], ws[f"C{r}"] = f"=C{r - 1}+1", f"=B{r}*2"
    >>> ws["D1"] = "=D1+1"
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "cycle.xlsx"; wb.save(path)
    >>> ev = evaluate_blocks(path)
    >>> [ev.value("Sheet", c) for c in ("C1", "B2", "C2", "B3", "C3")]
    [2.0, 3.0, 6.0, 7.0, 14.0]
    >>> ev.cells[("Sheet", "D1")].reason
    'circular reference: Sheet!D1 -> Sheet!D1'
    """
    marker = _error()
    states = []
    for u in members:
        if u.region is None:
            states.append(_State(u, marker))
            continue
        r0, c0, r1, c1 = u.region  # an array formula: one state per column, computed at once
        parts = [_State(u, marker, c, (r0, r1)) for c in range(c0, c1 + 1)]
        for part in parts:
            part.head, part.parts = parts[0], parts
        states.extend(parts)
    by_col: dict = {}
    for st in states:
        by_col.setdefault((st.u.sheet, st.col), []).append((st.r0, st.r1, st))
        run.store.column(st.u.sheet, st.col).add_segment(st.r0, st.r1, st.acc)
    for key, runs in by_col.items():
        runs.sort(key=lambda x: x[0])
        by_col[key] = ([x[0] for x in runs], runs)
    base = run.store
    watch = run.store = _Watch(base, by_col, run.not_computed, {u.id for u in members})
    try:
        bad = _Scheduler(run, watch, states, marker).all()
    finally:
        run.store = base
        base.forget_ranges()
    cycle_err = _error()
    for (st, r), why in bad.items():
        st.put(r, ERR, 0.0, cycle_err)
        run.forced[(st.u.sheet, f"{column_letters(st.col)}{r}")] = why
        run.poison.setdefault(st.u.sheet, set()).add((r, st.col))
    for st in states:
        if st.head is None:
            run.values[st.u.id] = st.acc
            run.records[st.u.id] = (st.records, [])
        elif st.head is st:
            run.grids[st.u.id] = [part.acc for part in st.parts]
            run.values[st.u.id] = st.acc
            run.records[st.u.id] = ({}, st.records.get(0, []))


class _Scheduler:
    def __init__(self, run, watch: _Watch, states: list[_State], marker):
        self.run, self.watch, self.states, self.marker = run, watch, states, marker
        self.reads: dict[tuple, list] = {}  # cell -> [(state, first, last index)] read
        self.order: list[tuple] = []  # cells in the order they were done
        self.circles: dict[tuple, str] = {}  # cell on a circle -> its reason

    def all(self) -> dict[tuple, str]:
        """Every cell done; the cells that are errors for a circular reference, with
        their reasons."""
        with np.errstate(all="ignore"):
            for st in self.states:
                for r in range(st.r0, st.r1 + 1):
                    if not st.done[r - st.r0]:
                        self._demand(_key((st, r)))
        bad = dict(self.circles)
        if not bad:
            return bad
        for cell in bad:
            for st, r in _cells(cell):
                st.bad[r - st.r0] = True
        for cell in self.order:  # in the order done: a cell read those done before it
            st, r = cell
            if cell in bad:
                continue
            seq = st.seq[r - st.r0]
            if any((d.bad[a:b + 1] & (d.seq[a:b + 1] < seq)).any()
                   for d, a, b in self.reads.get(cell, ())):
                bad[cell] = NOT_COMPUTED
                for c in _cells(cell):
                    c[0].bad[c[1] - c[0].r0] = True
        return {c: why for cell, why in bad.items() for c in _cells(cell)}

    def _demand(self, root: tuple) -> None:
        stack = [root]
        waiting: dict[tuple, int] = {}  # cells computed, waiting for others: since when
        seq = 0
        while stack:
            cell = stack[-1]
            st, r = cell
            if st.done[r - st.r0]:
                stack.pop()
                continue
            pending = self._try(cell)
            if pending is None:
                waiting.pop(cell, None)
                stack.pop()
                continue
            cells = list(dict.fromkeys(_key((p, p.r0 + int(i)))
                                       for p, idx in pending for i in idx))
            needs = [c for c in cells if c not in waiting and c != cell]
            if needs:
                if cell not in waiting:
                    waiting[cell] = seq
                    seq += 1
                needs.sort(key=lambda c: (c[1], c[0].col), reverse=True)
                stack.extend(needs)  # the top row first
                continue
            # it needs only cells waiting for it, or itself: a circular reference, unless
            # one of those waiting needs no more what it waited for (it read more cells
            # than its value needs: INDEX(D2:D41,1) waits for all of D, needs D2)
            since = min((waiting[c] for c in cells if c in waiting), default=seq)
            circle = sorted((c for c, k in waiting.items() if k >= since), key=waiting.get)
            if any(self._try(c) is None for c in circle):
                for c in circle:
                    if c[0].done[c[1] - c[0].r0]:
                        del waiting[c]
                continue
            circle += [] if cell in waiting else [cell]
            names = [c[0].address(c[1]) for c in circle]
            shown = names[:_NAMED] + (["..."] if len(names) > _NAMED else [])
            why = "circular reference: " + " -> ".join(shown + names[:1])
            for c in circle:
                self.circles.setdefault(c, why)
            self._finish(cell)  # holding the marker: what it is matters no more
            waiting.pop(cell, None)
            stack.pop()

    def _try(self, cell: tuple) -> list | None:
        """Compute ``cell``: done (None) when its value does not depend on a cell not
        done yet; otherwise those cells, [(state, indices)], and it holds the marker
        again."""
        st, r = cell
        for part, row in _cells(cell):  # not done: itself too, should it read itself
            part.put(row, ERR, 0.0, self.marker)
        self.watch.read = []
        self.watch.forget_ranges()
        _evaluate(self.run, st, r)
        reads = self.reads[cell] = self.watch.read
        pending: dict = {}
        for d, a, b in reads:
            idx = np.flatnonzero(~d.done[a:b + 1])
            if len(idx):
                pending.setdefault(d, []).append(idx + a)
        found = [(d, np.unique(np.concatenate(v))) for d, v in pending.items()]
        # an array formula needs every cell it read (Microsoft, "IF function": "If any of
        # the arguments to IF are arrays, every element of the array is evaluated")
        if found and (st.head is not None or self._depends(cell, found)):
            for part, row in _cells(cell):
                part.put(row, ERR, 0.0, self.marker)
            return found
        self._finish(cell)
        return None

    def _finish(self, cell: tuple) -> None:
        self.order.append(cell)
        for st, r in _cells(cell):
            st.done[r - st.r0] = True
            st.seq[r - st.r0] = len(self.order)

    def _depends(self, cell: tuple, pending: list) -> bool:
        """Whether ``cell``'s value (just computed, the ``pending`` cells holding the
        marker) changes when they hold a number, or nothing, instead (a block's cell:
        an array formula needs every cell it read)."""
        st, r = cell
        first = st.slot(r)
        if first[2] is self.marker:
            return True
        for kind, num in ((NUM, _PROBE), (EMPTY, 0.0)):
            saved = [(d, idx, d.save(idx)) for d, idx in pending]
            for d, idx, _ in saved:
                d.fill(idx, kind, num)
            self.watch.forget_ranges()
            try:
                _evaluate(self.run, st, r)
                again = st.slot(r)
            finally:
                for d, idx, old in saved:
                    d.restore(idx, old)
            if not _same(first, again):
                st.put(r, *first)
                return True
        st.put(r, *first)
        return False


def _key(cell: tuple) -> tuple:
    """The cell standing for ``cell``'s formula: itself, or an array formula's top-left."""
    h = cell[0].head
    return cell if h is None else (h, h.r0)


def _cells(cell: tuple) -> list[tuple]:
    """Every cell ``cell`` (a :func:`_key`) stands for: itself, or an array formula's
    range."""
    st, r = cell
    if st.head is None:
        return [cell]
    return [(part, row) for part in st.parts for row in range(part.r0, part.r1 + 1)]


def _same(a: tuple, b: tuple) -> bool:
    """Whether two slots (kind, number, object, numpy flag) hold the same value."""
    if a[0] != b[0]:
        return False
    if a[0] == ERR:
        return a[2] is not None and b[2] is not None and str(a[2]) == str(b[2])
    if a[0] == NUM or a[0] == EMPTY:
        return a[1] == b[1] or (np.isnan(a[1]) and np.isnan(b[1]))
    if a[2] is None or b[2] is None:
        return a[1] == b[1] and a[2] is b[2]
    try:
        return bool(a[2] == b[2]) and a[1] == b[1]
    except (TypeError, ValueError):
        return a[2] is b[2]


def _evaluate(run, st: _State, r: int) -> None:
    """The cell in row ``r`` of ``st``'s unit, computed from the store into its slot."""
    u = st.u
    run.store.current = u.id
    i = r - st.r0
    st.records.pop(i, None)
    tokens = (engine.CURRENT, engine.STATE)
    tree = u.compiled.tree
    if u.region is not None:  # an array formula over a range: computed as a whole
        cols, records = run.array_columns(u)
        for part, v in zip(st.parts, cols, strict=True):
            for k in range(part.r1 - part.r0 + 1):
                _put(part, part.r0 + k, v, k)
        if records:
            st.records[0] = records
        return
    if u.array_mode:
        ev = ArrayEval(run.store, u.sheet, r, u.col, run.functions, run.state, tokens,
                       plain=True, cells=run.formula_cells)
        v = Vec.from_objects([first_value(run.array_value(u, ev, r))]).blank_as_zero()
        if ev.records:
            st.records[i] = list(ev.records)
        _put(st, r, v)
        return

    def make_eval(a: int, b: int) -> BlockEval:
        return BlockEval(run.store, u.sheet, a, b, run.functions, run.state, tokens, u.col)

    def leaf(t, a: int, b: int) -> None:
        ev = make_eval(r, r)
        v = ev.value(t).blank_as_zero().broadcast(1)
        recs = ev.records.get(0, []) + ev.records_all
        if recs:
            st.records.setdefault(i, []).extend(recs)
        _put(st, r, v)

    if u.dynamic:
        spread = None
        if u.array_ref:  # a column of an array formula's range
            spread = (u.r0, u.col - parse_cell(u.array_ref.split(":")[0])[1])
        dynamic.evaluate(tree, r, r, run.ctx, make_eval, leaf, spread)
    else:
        leaf(tree, r, r)


def _put(st: _State, r: int, v: Vec, k: int = 0) -> None:
    st.put(r, int(v.kind[k]), float(v.num[k]), None if v.obj is None else v.obj[k],
           False if v.npy is None else bool(v.npy[k]))
