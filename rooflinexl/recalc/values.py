"""Column vectors of spreadsheet values, the per-sheet store the blocks read from,
and the engine's own value types.

A :class:`Vec` holds one value per row of a block (or a single value that
broadcasts): a kind code per element, the numbers in a float array, and the
other values (text, error values, anything unusual) in an object array. The
values are the engine's own: Python ``float``/``bool``/``str``, the error
values of :data:`ERRORS` (:class:`~rooflinexl.errors.ExcelError`), :data:`BLANK`
for an empty cell, and :class:`Array` for a 2-D result.
"""
from __future__ import annotations

import bisect

import numpy as np

from rooflinexl.errors import EXCEL_ERRORS, ExcelError

__all__ = ["BLANK", "BOOL", "EMPTY", "ERR", "ERRORS", "NUM", "OTHER", "STR", "Array",
           "SheetStore", "Vec", "kind_of"]

EMPTY, NUM, STR, BOOL, ERR, OTHER = 0, 1, 2, 3, 4, 5
class _Blank:
    """The value of an empty cell (one instance, :data:`BLANK`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "BLANK"

    def __reduce__(self):
        return "BLANK"


#: the value of an empty cell
BLANK = _Blank()


def _error_values() -> dict[str, ExcelError]:
    out = {code: ExcelError(code) for code in EXCEL_ERRORS}
    # a cell saved holding #GETTING_DATA (a cube function still fetching): shown as #N/A,
    # the code kept for ERROR.TYPE and for the borrowed functions
    getting = ExcelError("#N/A")
    getting.written = "#GETTING_DATA"
    out["#GETTING_DATA"] = getting
    return out


#: the error values, one instance per code (a block's results are these; an error a
#: function returns with its own reason is recorded apart, see ``engine.State``)
ERRORS: dict[str, ExcelError] = _error_values()


class Array(np.ndarray):
    """A 2-D object array holding a formula's array result; ``_default`` (when set) is
    what lies past its end when laid out over a larger range (``TRUE`` for ``ISNA``)."""


def kind_of(x) -> int:
    """Kind code of one value."""
    t = type(x)
    if t is float:
        return NUM
    if t is str:
        return STR
    if t is bool:
        return BOOL
    if x is BLANK or x is None:
        return EMPTY
    if t is ExcelError:
        return ERR
    if isinstance(x, np.bool_):
        return BOOL
    if isinstance(x, (int, np.integer, np.floating)):
        return NUM
    if isinstance(x, str):
        return STR
    return OTHER


class Vec:
    """Values of one expression for every row of a block (length n) or for all (length 1).

    ``kind`` codes each element; numbers (and booleans as 0/1) are in ``num``;
    text, error values and anything else in ``obj``. ``npy`` marks numbers and
    booleans held as numpy scalars (SUM gives ``float64``, AND gives ``bool_``):
    they print and compare alike.
    """

    __slots__ = ("kind", "num", "obj", "npy")

    def __init__(self, kind: np.ndarray, num: np.ndarray, obj: np.ndarray | None = None,
                 npy: np.ndarray | None = None):
        self.kind = kind
        self.num = num
        self.obj = obj
        self.npy = npy

    def __len__(self) -> int:
        return len(self.kind)

    def __repr__(self) -> str:
        return f"Vec({self.objects().tolist()!r})"

    # ------------------------------------------------------------ construction
    @staticmethod
    def numbers(x, npy: bool = False) -> Vec:
        num = np.asarray(x, dtype=float).reshape(-1)
        return Vec(np.full(len(num), NUM, np.uint8), num, None,
                   np.ones(len(num), bool) if npy else None)

    @staticmethod
    def empty(n: int) -> Vec:
        return Vec(np.zeros(n, np.uint8), np.zeros(n))

    @staticmethod
    def const(value) -> Vec:
        return Vec.from_objects([value])

    @staticmethod
    def from_objects(values) -> Vec:
        """Classify values (a sequence or 1-D object array)."""
        values = list(values)
        n = len(values)
        kind = np.empty(n, np.uint8)
        num = np.zeros(n)
        obj = npy = None
        for i, x in enumerate(values):
            t = type(x)
            if t is float:
                kind[i] = NUM
                num[i] = x
                continue
            k = kind_of(x)
            kind[i] = k
            if k == NUM or k == BOOL:
                num[i] = float(x)
                if isinstance(x, np.generic):
                    if npy is None:
                        npy = np.zeros(n, bool)
                    npy[i] = True
            elif k != EMPTY:
                if obj is None:
                    obj = np.empty(n, dtype=object)
                obj[i] = x
        return Vec(kind, num, obj, npy)

    # ---------------------------------------------------------------- access
    def all_kind(self, *kinds: int) -> bool:
        if len(kinds) == 1:
            return bool((self.kind == kinds[0]).all())
        return bool(np.isin(self.kind, kinds).all())

    def has(self, *kinds: int) -> bool:
        return bool(np.isin(self.kind, kinds).any())

    def numpy_mask(self) -> np.ndarray:
        return self.npy if self.npy is not None else np.zeros(len(self.kind), bool)

    def objects(self) -> np.ndarray:
        """Object array of the values."""
        n = len(self.kind)
        out = np.empty(n, dtype=object)
        k = self.kind
        num_mask = k == NUM
        if num_mask.all() and self.npy is None:
            out[:] = self.num.tolist()
            return out
        npy = self.npy
        if num_mask.any():
            idx = np.flatnonzero(num_mask)
            vals = self.num[idx].tolist()
            for i, v in zip(idx.tolist(), vals, strict=True):
                out[i] = np.float64(v) if npy is not None and npy[i] else v
        for i in np.flatnonzero(k == BOOL).tolist():
            b = bool(self.num[i])
            out[i] = np.bool_(b) if npy is not None and npy[i] else b
        for i in np.flatnonzero(k == EMPTY).tolist():
            out[i] = BLANK
        if self.obj is not None:
            other = (k != NUM) & (k != BOOL) & (k != EMPTY)
            out[other] = self.obj[other]
        return out

    def item(self, i: int):
        k = self.kind[i]
        npy = self.npy is not None and self.npy[i]
        if k == NUM:
            return np.float64(self.num[i]) if npy else float(self.num[i])
        if k == BOOL:
            return np.bool_(self.num[i] != 0) if npy else bool(self.num[i])
        if k == EMPTY:
            return BLANK
        return self.obj[i]

    def take(self, idx) -> Vec:
        """Rows ``idx`` (boolean mask or indices); a length-1 Vec is returned as is."""
        if len(self.kind) == 1:
            return self
        return Vec(self.kind[idx], self.num[idx], None if self.obj is None else self.obj[idx],
                   None if self.npy is None else self.npy[idx])

    def broadcast(self, n: int) -> Vec:
        if len(self.kind) == n:
            return self
        return Vec(np.repeat(self.kind, n), np.repeat(self.num, n),
                   None if self.obj is None else np.repeat(self.obj, n),
                   None if self.npy is None else np.repeat(self.npy, n))

    def blank_as_zero(self) -> Vec:
        """EMPTY -> number 0 (what a formula cell holds for an empty result)."""
        e = self.kind == EMPTY
        if not e.any():
            return self
        kind = self.kind.copy()
        kind[e] = NUM
        num = self.num.copy()
        num[e] = 0.0
        return Vec(kind, num, self.obj, self.npy)

    @staticmethod
    def assemble(n: int, parts) -> Vec:
        """A Vec of length n from (index array or mask, Vec) parts covering every row."""
        kind = np.zeros(n, np.uint8)
        num = np.zeros(n)
        obj = npy = None
        for idx, v in parts:
            if v.obj is not None and obj is None:
                obj = np.empty(n, dtype=object)
            if v.npy is not None and npy is None:
                npy = np.zeros(n, bool)
            if len(v.kind) == 1:
                kind[idx] = v.kind[0]
                num[idx] = v.num[0]
                if v.obj is not None:
                    obj[idx] = v.obj[0]
                if v.npy is not None:
                    npy[idx] = v.npy[0]
                continue
            kind[idx] = v.kind
            num[idx] = v.num
            if v.obj is not None:
                obj[idx] = v.obj
            if v.npy is not None:
                npy[idx] = v.npy
        return Vec(kind, num, obj, npy)


# ------------------------------------------------------------------- the store


class Column:
    """Values of one column of a sheet: constants plus computed segments."""

    __slots__ = ("rows", "vals", "_segments", "_points", "_order", "_starts", "_ends")

    def __init__(self):
        self.rows = np.zeros(0, dtype=np.int64)  # sorted rows of constants / points
        self.vals: Vec = Vec.empty(0)
        self._segments: list[tuple[int, int, Vec]] = []  # computed rows r0..r1
        self._points: list[tuple[int, object]] = []
        # the segments by first row: their positions, first rows and the largest last row
        # so far (None: to be rebuilt), so a read looks only at the segments it overlaps
        self._order: list[int] | None = []
        self._starts: list[int] = []
        self._ends: list[int] = []

    @property
    def segments(self) -> list[tuple[int, int, Vec]]:
        """Computed rows r0..r1 with their values, in the order they were added (a later
        one wins where two overlap). Assign a new list to change them."""
        return self._segments

    @segments.setter
    def segments(self, value: list[tuple[int, int, Vec]]) -> None:
        self._segments = value
        self._order = None

    def _index(self) -> None:
        segs = self._segments
        self._order = sorted(range(len(segs)), key=lambda k: segs[k][0])
        self._starts = [segs[k][0] for k in self._order]
        run, self._ends = -1, []
        for k in self._order:
            run = max(run, segs[k][1])
            self._ends.append(run)

    def set_constants(self, rows: list[int], values: list) -> None:
        order = np.argsort(np.asarray(rows, dtype=np.int64), kind="stable")
        self.rows = np.asarray(rows, dtype=np.int64)[order]
        vals = [values[i] for i in order.tolist()]
        self.vals = Vec.from_objects(vals)

    def add_points(self, rows: list[int], vec: Vec) -> None:
        """Single computed cells (the error values of formulas not supported)."""
        rows_a = np.asarray(rows, dtype=np.int64)
        keep = ~np.isin(self.rows, rows_a)
        v = self.vals
        old = Vec(v.kind[keep], v.num[keep], None if v.obj is None else v.obj[keep],
                  None if v.npy is None else v.npy[keep])
        allrows = np.concatenate([self.rows[keep], rows_a])
        order = np.argsort(allrows, kind="stable")
        n_old = int(keep.sum())
        kind = np.concatenate([old.kind, vec.kind])[order]
        num = np.concatenate([old.num, vec.num])[order]
        obj = None
        if old.obj is not None or vec.obj is not None:
            obj = np.empty(len(allrows), dtype=object)
            if old.obj is not None:
                obj[:n_old] = old.obj
            if vec.obj is not None:
                obj[n_old:] = vec.obj
            obj = obj[order]
        npy = None
        if old.npy is not None or vec.npy is not None:
            npy = np.concatenate([old.numpy_mask(), vec.numpy_mask()])[order]
        self.rows = allrows[order]
        self.vals = Vec(kind, num, obj, npy)

    def add_segment(self, r0: int, r1: int, vec: Vec) -> None:
        self._segments.append((r0, r1, vec.broadcast(r1 - r0 + 1)))
        if self._order is not None and (not self._starts or r0 >= self._starts[-1]):
            self._order.append(len(self._segments) - 1)  # below the others: in order
            self._starts.append(r0)
            self._ends.append(max(r1, self._ends[-1]) if self._ends else r1)
        else:
            self._order = None

    def get(self, ra: int, rb: int) -> Vec:
        """Values of rows ra..rb (inclusive); empty cells are EMPTY."""
        n = rb - ra + 1
        kind = np.zeros(n, np.uint8)
        num = np.zeros(n)
        obj = npy = None
        if len(self.rows):
            i0, i1 = np.searchsorted(self.rows, [ra, rb + 1])
            if i1 > i0:
                pos = self.rows[i0:i1] - ra
                kind[pos] = self.vals.kind[i0:i1]
                num[pos] = self.vals.num[i0:i1]
                if self.vals.obj is not None:
                    o = self.vals.obj[i0:i1]
                    if any(x is not None for x in o.tolist()):
                        obj = np.empty(n, dtype=object)
                        obj[pos] = o
                if self.vals.npy is not None:
                    npy = np.zeros(n, bool)
                    npy[pos] = self.vals.npy[i0:i1]
        segs = self._segments
        if len(segs) > 8:  # only those overlapping ra..rb, in the order they were added
            if self._order is None:
                self._index()
            lo = bisect.bisect_left(self._ends, ra)
            hi = bisect.bisect_right(self._starts, rb)
            segs = [segs[k] for k in sorted(self._order[lo:hi])]
        for s0, s1, vec in segs:
            if s1 < ra or s0 > rb:
                continue
            a, b = max(s0, ra), min(s1, rb)
            kind[a - ra:b - ra + 1] = vec.kind[a - s0:b - s0 + 1]
            num[a - ra:b - ra + 1] = vec.num[a - s0:b - s0 + 1]
            if vec.obj is not None:
                if obj is None:
                    obj = np.empty(n, dtype=object)
                obj[a - ra:b - ra + 1] = vec.obj[a - s0:b - s0 + 1]
            if vec.npy is not None:
                if npy is None:
                    npy = np.zeros(n, bool)
                npy[a - ra:b - ra + 1] = vec.npy[a - s0:b - s0 + 1]
        return Vec(kind, num, obj, npy)


class SheetStore:
    """Every sheet's columns."""

    def __init__(self):
        self.sheets: dict[str, dict[int, Column]] = {}
        self._ranges: dict[tuple, tuple] = {}

    def column(self, sheet: str, col: int) -> Column:
        cols = self.sheets.setdefault(sheet, {})
        c = cols.get(col)
        if c is None:
            c = cols[col] = Column()
        return c

    def get(self, sheet: str, col: int, ra: int, rb: int) -> Vec:
        cols = self.sheets.get(sheet)
        c = cols.get(col) if cols else None
        if c is None:
            return Vec.empty(rb - ra + 1)
        return c.get(ra, rb)

    def value(self, sheet: str, row: int, col: int):
        return self.get(sheet, col, row, row).item(0)

    def block(self, sheet: str, r1: int, c1: int, r2: int, c2: int) -> tuple:
        """(kind, num, obj, npy) 2-D arrays of a fixed range, cached."""
        key = (sheet, r1, c1, r2, c2)
        hit = self._ranges.get(key)
        if hit is None:
            cols = [self.get(sheet, c, r1, r2) for c in range(c1, c2 + 1)]
            kind = np.stack([v.kind for v in cols], axis=1)
            num = np.stack([v.num for v in cols], axis=1)
            obj = npy = None
            if any(v.obj is not None for v in cols):
                obj = np.empty(kind.shape, dtype=object)
                for j, v in enumerate(cols):
                    if v.obj is not None:
                        obj[:, j] = v.obj
            if any(v.npy is not None for v in cols):
                npy = np.stack([v.numpy_mask() for v in cols], axis=1)
            hit = self._ranges[key] = (kind, num, obj, npy)
        return hit

    def objects(self, sheet: str, r1: int, c1: int, r2: int, c2: int) -> np.ndarray:
        """The range as a function receives it: a 2-D object array."""
        key = ("obj", sheet, r1, c1, r2, c2)
        hit = self._ranges.get(key)
        if hit is None:
            kind, num, obj, npy = self.block(sheet, r1, c1, r2, c2)
            flat = Vec(kind.reshape(-1), num.reshape(-1),
                       None if obj is None else obj.reshape(-1),
                       None if npy is None else npy.reshape(-1))
            hit = self._ranges[key] = flat.objects().reshape(kind.shape)
        return hit

    def forget_ranges(self) -> None:
        self._ranges.clear()
