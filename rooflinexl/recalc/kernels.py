"""Evaluate a compiled block formula over all its rows at once.

Every operator and function has a numpy path for the rows whose operands are
plain numbers (the everyday case, written to give the same bits as the
scalar code) and hands every other row to an implementation over single
values, so text, booleans, blanks and error values behave exactly as in a
block of one row: the operators' own (:mod:`rooflinexl.recalc.operators`), a
function's own over single values (:func:`function_of`:
:mod:`rooflinexl.recalc.elementary` and the engine's function table):

* element-wise functions (operators, IF, INT ...) get the odd rows as one
  column array, mapped over element by element;
* functions that reduce their arguments (SUM, MAX, AND ...) are called once per
  distinct row of arguments;
* the lookups (VLOOKUP, HLOOKUP, MATCH, XLOOKUP: :mod:`rooflinexl.recalc.lookups`;
  XMATCH, LOOKUP) are called once with the column of distinct lookup values, their tables
  read once;
* rooflinexl's own functions are called once with whole columns (their host
  adapters broadcast like Excel), with the single-value adapter for rows holding
  blanks, booleans or error values.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rooflinexl.errors import ExcelError
from rooflinexl.recalc.compile import (
    UNKNOWN,
    Arr,
    Call,
    Lit,
    Rng,
    Unsupported,
    array_constant,
    canonical_name,
    unknown_reason,
)
from rooflinexl.recalc.functions import EXCEL_NUMBERS, excel_numbers
from rooflinexl.recalc.operators import BINARY, UNARY, apply
from rooflinexl.recalc.values import (
    BOOL,
    EMPTY,
    ERR,
    ERRORS,
    NUM,
    OTHER,
    STR,
    Array,
    Vec,
)

__all__ = ["BlockEval", "RangeArg", "function_of", "is_operator", "now_serial", "operator_of",
           "reset_clock"]

_OWN: dict = {}


def function_of(written: str):
    """The engine's implementation of the Excel function ``written`` (as written, prefixes
    and all), taking and returning the engine's own values: our own
    (:func:`rooflinexl.recalc.elementary.elementary_function`) through the host adapter
    (``engine.host_call``); a function it does not have is ``#NAME?`` naming it."""
    fn = _OWN.get(written)
    if fn is None:
        from rooflinexl.recalc import engine
        from rooflinexl.recalc.elementary import elementary_function

        name = canonical_name(written)
        own = elementary_function(name)
        if own is None:
            from rooflinexl.recalc.compile import unknown_reason

            why = unknown_reason(written)

            def own(*_args):
                return ExcelError("#NAME?", why)

        fn = _OWN[written] = engine.host_call(name, own)
    return fn


def operator_of(written: str):
    """Our own operator ``written`` (``+``, ``U-``, ``%`` ...; :mod:`rooflinexl.recalc.
    operators`), element by element over values and arrays."""
    op = BINARY.get(written) or UNARY[written.lower()]
    return lambda *args: apply(op, *args)


_OPERATOR_NAMES = frozenset(BINARY) | {name.upper() for name in UNARY}


def is_operator(written: str) -> bool:
    """Whether ``written`` (as a compiled call's ``written``) is an operator."""
    return written in _OPERATOR_NAMES


_NUMERIC = (NUM, BOOL, EMPTY)
#: the arguments (by position) our lookup functions take element by element, a column of
#: the block's rows there giving a column of results (:mod:`rooflinexl.recalc.lookups`)
_LIFTED = {"VLOOKUP": (0, 2, 3), "HLOOKUP": (0, 2, 3), "MATCH": (0, 2), "XLOOKUP": (0, 4, 5),
           "XMATCH": (0, 2, 3), "LOOKUP": (0,)}
#: their tables (by position): one cell there is a range searched (an error in it matches
#: nothing), not an error value passed on
_TABLES = {"VLOOKUP": (1,), "HLOOKUP": (1,), "MATCH": (1,), "XLOOKUP": (1, 2), "XMATCH": (1,),
           "LOOKUP": (1, 2)}
#: ranges (times the block's rows, for a relative one) larger than this: not as a block
_MAX_RANGE_CELLS = 20_000_000


_LUTS: dict[tuple, np.ndarray] = {}
_ARRAYS: dict[str, np.ndarray] = {}  # array constant text -> its value


def _kinds_mask(kind: np.ndarray, kinds: tuple) -> np.ndarray:
    """``np.isin(kind, kinds)`` by a lookup table (kind codes are small; isin is slow)."""
    lut = _LUTS.get(kinds)
    if lut is None:
        lut = _LUTS[kinds] = np.zeros(8, bool)
        lut[list(kinds)] = True
    return lut[kind]


def _err(code: str, n: int) -> Vec:
    obj = np.empty(n, dtype=object)
    obj[:] = ERRORS[code]
    return Vec(np.full(n, ERR, np.uint8), np.zeros(n), obj)


def _bools(mask: np.ndarray) -> Vec:
    return Vec(np.full(len(mask), BOOL, np.uint8), mask.astype(float))


def _npbools(mask: np.ndarray) -> Vec:
    """Booleans as numpy's bool_ (what AND, OR and NOT return over single values)."""
    return Vec(np.full(len(mask), BOOL, np.uint8), mask.astype(float), None,
               np.ones(len(mask), bool))


def _numbers(x: np.ndarray) -> Vec:
    return Vec(np.full(len(x), NUM, np.uint8), x)


def _npnumbers(x: np.ndarray) -> Vec:
    """Numbers held as numpy float64 (results of numpy functions)."""
    return Vec(np.full(len(x), NUM, np.uint8), x, None, np.ones(len(x), bool))


def _col(values: np.ndarray) -> np.ndarray:
    """A 1-D object array as a formulas (m, 1) column."""
    return values.reshape(-1, 1).view(Array)


@dataclass
class RangeArg:
    """A range argument: fixed (h, w) arrays, or per-row (n, h, w) windows."""

    kind: np.ndarray
    num: np.ndarray
    obj: np.ndarray | None
    npy: np.ndarray | None
    per_row: bool
    rng: Rng
    store: object = None  # fixed: where ``objects`` comes from, when it is asked for

    @property
    def objects(self) -> np.ndarray | None:
        """Fixed: the 2-D object array a function is given (built on first use only)."""
        if self.per_row or self.store is None:
            return None
        r = self.rng
        return self.store.objects(r.sheet, r.r1, r.c1, r.r2, r.c2)

    def row_objects(self, i: int) -> np.ndarray:
        if not self.per_row:
            return self.objects
        k, x = self.kind[i], self.num[i]
        o = None if self.obj is None else self.obj[i]
        p = None if self.npy is None else self.npy[i]
        v = Vec(k.reshape(-1), x.reshape(-1), None if o is None else o.reshape(-1),
                None if p is None else p.reshape(-1))
        return v.objects().reshape(k.shape)

    def numpy_mask(self) -> np.ndarray:
        return self.npy if self.npy is not None else np.zeros(self.kind.shape, bool)


class BlockEval:
    """Evaluation of one block: rows r0..r1 of one column of ``sheet``."""

    #: a range where a single value belongs is implicitly intersected with the formula's
    #: row or column (:meth:`intersected`); set where the values computed are plain
    #: cells' own (the arguments of INDIRECT and OFFSET, :func:`dynamic.evaluate`)
    intersect = False

    def __init__(self, store, sheet: str, r0: int, r1: int, functions: dict, state, tokens,
                 col: int = 0):
        self.store = store
        self.sheet = sheet
        self.col = col
        self.r0, self.r1 = r0, r1
        self.n = r1 - r0 + 1
        self.functions = functions  # our Excel functions: NAME -> host-style callable
        self.state = state  # engine.State collecting our functions' error reasons
        self.tokens = tokens  # (engine.CURRENT, engine.STATE)
        #: row index -> [(code, reason)] of errors our functions produced
        #: (call, seq, code, reason) per row, ``call`` the node of our function that
        #: reported it; the reasons are sorted (:func:`dispatch_order`): calls whose
        #: arguments are all literals first, then the others in evaluation order
        self.records: dict[int, list[tuple[tuple, str, str]]] = {}
        self.records_all: list[tuple[tuple, str, str]] = []  # for every row
        self._order: tuple = (None, 0)
        self._calls = 0

    # ------------------------------------------------------------- operands
    def value(self, node) -> Vec:
        if isinstance(node, Lit):
            return Vec.const(node.value)
        if isinstance(node, Rng):
            if not node.is_cell:
                if self.intersect:
                    return self.intersected(node)
                raise Unsupported("a range where a single value belongs")
            if node.r1_rel:
                a, b = self.r0 + node.r1, self.r1 + node.r1
                if a < 1:
                    raise Unsupported("reference above row 1")
                return self.store.get(node.sheet, node.c1, a, b)
            return self.store.get(node.sheet, node.c1, node.r1, node.r1)
        if isinstance(node, Call):
            fn = getattr(self, "f_" + _METHOD.get(node.name, node.name), None)
            if fn is None:
                if node.name in self.functions:
                    return self.udf(node)
                if node.per_row:
                    return self.per_row(node)
                raise Unsupported(f"function {node.name}")
            return fn(node)
        raise Unsupported(f"node {node!r}")

    def intersected(self, node: Rng) -> Vec:
        """The cell of the range ``node`` in each row's own row or column: Microsoft,
        "Implicit intersection operator: @": "If the value is a range, then return the
        cell on the same row or column as the formula". A range of one row gives its cell
        in the formula's column, one of one column its cell in the formula's row, a
        rectangle the cell in both. Where the formula's row or column is outside the
        range (Excel's ``#VALUE!``, or an empty cell past a clipped whole column), or the
        range has one end fixed and one relative: :class:`Unsupported`.

        Examples
        --------
        >>> from rooflinexl.recalc.values import SheetStore
        >>> store = SheetStore()
        >>> store.column("S", 2).set_constants([16], [7.0])
        >>> ev = BlockEval(store, "S", 17, 18, {}, None, None, col=2)
        >>> ev.intersected(Rng("S", 16, 1, 16, 7, False, False)).num.tolist()  # A16:G16
        [7.0, 7.0]
        """
        if node.r1_rel != node.r2_rel:
            raise Unsupported("a range where a single value belongs")
        if node.r1 == node.r2:  # one row: that row, moving along when relative
            a, b = (self.r0 + node.r1, self.r1 + node.r1) if node.r1_rel else (node.r1,
                                                                               node.r1)
        elif (node.r1 <= 0 <= node.r2) if node.r1_rel else (
                node.r1 <= self.r0 and self.r1 <= node.r2):
            a, b = self.r0, self.r1
        else:
            raise Unsupported("a range where a single value belongs, off the formula's rows")
        if node.c1 == node.c2:
            c = node.c1
        elif node.c1 <= self.col <= node.c2:
            c = self.col
        else:
            raise Unsupported("a range where a single value belongs, off the formula's "
                              "column")
        if a < 1:
            raise Unsupported("reference above row 1")
        return self.store.get(node.sheet, c, a, b).broadcast(self.n)

    @staticmethod
    def array(node: Arr):
        """An array constant's value (a fresh copy: a function may write into it)."""
        hit = _ARRAYS.get(node.text)
        if hit is None:
            hit = _ARRAYS[node.text] = array_constant(node.text)
        return hit.copy()

    def range(self, node: Rng) -> RangeArg:
        if (node.r1_rel or node.r2_rel) and self.n == 1:  # one row: the range there
            a, b = sorted(node.rows_at(self.r0))
            node = Rng(node.sheet, a, node.c1, b, node.c2, False, False, node.name)
        h, w = node.r2 - node.r1 + 1, node.c2 - node.c1 + 1
        if h * w * (1 if node.fixed else self.n) > _MAX_RANGE_CELLS:
            raise Unsupported("a range too large to hold as an array")
        if node.fixed:
            kind, num, obj, npy = self.store.block(node.sheet, node.r1, node.c1, node.r2,
                                                   node.c2)
            return RangeArg(kind, num, obj, npy, False, node, self.store)
        if not (node.r1_rel and node.r2_rel):
            raise Unsupported("a range with one end fixed and one relative")
        h, w = node.r2 - node.r1 + 1, node.c2 - node.c1 + 1
        if self.r0 + node.r1 < 1:
            raise Unsupported("reference above row 1")
        kind = np.empty((self.n, h, w), np.uint8)
        num = np.empty((self.n, h, w))
        obj = npy = None
        for dr in range(h):
            for dc in range(w):
                v = self.store.get(node.sheet, node.c1 + dc, self.r0 + node.r1 + dr,
                                   self.r1 + node.r1 + dr)
                kind[:, dr, dc] = v.kind
                num[:, dr, dc] = v.num
                if v.obj is not None:
                    if obj is None:
                        obj = np.empty((self.n, h, w), dtype=object)
                    obj[:, dr, dc] = v.obj
                if v.npy is not None:
                    if npy is None:
                        npy = np.zeros((self.n, h, w), bool)
                    npy[:, dr, dc] = v.npy
        return RangeArg(kind, num, obj, npy, True, node)

    # ------------------------------------------- operators and borrowed functions
    @staticmethod
    def _fn(written: str):
        return operator_of(written) if written in _OPERATOR_NAMES else function_of(written)

    def delegate(self, written: str, args: list, lits: list[bool] | None = None) -> Vec:
        """The element-wise ``written`` (an operator or a borrowed function) over Vec
        args (length m or 1)."""
        fn = self._fn(written)
        lits = lits or [False] * len(args)
        m = max(len(a) for a in args) if args else 1
        cols = []
        for a, lit in zip(args, lits, strict=True):
            o = a.objects()
            cols.append(o[0] if lit else _col(o))
        try:
            res = np.asarray(fn(*cols), dtype=object)
        except Exception:  # noqa: BLE001 - a whole-call failure: redo row by row
            res = None
        if res is not None and res.size == m and (res.ndim == 2 and res.shape == (m, 1)
                                                  or m == 1):
            return self._classify(res.reshape(-1))
        out = []
        for i in range(m):
            row = [c if lit else c[i if len(c) > 1 else 0:][:1].reshape(1, 1).view(Array)
                   for c, lit in zip(cols, lits, strict=True)]
            r = np.asarray(fn(*row), dtype=object)
            if r.size != 1:
                raise Unsupported(f"{written} returned an array")
            out.append(r.reshape(-1)[0])
        return self._classify(out)

    @staticmethod
    def _classify(values) -> Vec:
        v = Vec.from_objects(values)
        if v.obj is not None and (v.kind == OTHER).any():
            for x in v.obj[v.kind == OTHER].tolist():
                if isinstance(x, np.ndarray) or hasattr(x, "ranges"):
                    raise Unsupported("an array inside a single cell")
        return v

    def split(self, args: list[Vec], ok: np.ndarray, fast, slow) -> Vec:
        """``fast`` on rows where ``ok``, ``slow`` on the others."""
        n = max(len(a) for a in args)
        if ok.all():
            return fast([a for a in args])
        if not ok.any():
            return slow(args)
        idx_f, idx_s = np.flatnonzero(ok), np.flatnonzero(~ok)
        return Vec.assemble(n, [(idx_f, fast([a.take(idx_f) for a in args])),
                                (idx_s, slow([a.take(idx_s) for a in args]))])

    @staticmethod
    def rows_ok(args: list[Vec], kinds=_NUMERIC) -> np.ndarray:
        """Rows where every argument's value is of one of ``kinds``."""
        n = max(len(a) for a in args)
        ok = np.ones(n, bool)
        for a in args:
            good = _kinds_mask(a.kind, kinds)
            ok &= good if len(a) == n else np.broadcast_to(good, n)
        return ok

    # ------------------------------------------------------------- operators
    def _binary(self, node: Call, fast) -> Vec:
        args = [self.value(a) for a in node.args]
        lits = [isinstance(a, Lit) for a in node.args]

        def fast_rows(a):
            x, y = a[0].num, a[1].num
            with np.errstate(all="ignore"):
                res, redo = fast(x, y)
            if redo is not None and redo.any():
                idx = np.flatnonzero(redo)
                parts = [(np.flatnonzero(~redo), res.take(np.flatnonzero(~redo)))]
                parts.append((idx, self.delegate(node.written, [v.take(idx) for v in a], lits)))
                return Vec.assemble(len(res), parts)
            return res

        return self.split(args, self.rows_ok(args), fast_rows,
                          lambda a: self.delegate(node.written, a, lits))

    def f_add(self, node):
        def fast(x, y):
            r = x + y
            return _numbers(r), ~np.isfinite(r)
        return self._binary(node, fast)

    def f_sub(self, node):
        def fast(x, y):
            r = x - y
            return _numbers(r), ~np.isfinite(r)
        return self._binary(node, fast)

    def f_mul(self, node):
        def fast(x, y):
            r = x * y
            return _numbers(r), ~np.isfinite(r)
        return self._binary(node, fast)

    def f_div(self, node):
        def fast(x, y):
            x, y = np.broadcast_arrays(x, y)
            zero = y == 0
            r = x / np.where(zero, 1.0, y)
            out = _numbers(r)
            if zero.any():
                out = Vec.assemble(len(r), [(~zero, out.take(~zero)),
                                            (zero, _err("#DIV/0!", 1))])
            return out, ~np.isfinite(r) & ~zero
        return self._binary(node, fast)

    def f_pow(self, node):
        def fast(x, y):
            x, y = np.broadcast_arrays(x, y)
            ok = (x > 0) | ((x == 0) & (y > 0)) | ((x < 0) & (y == np.floor(y)))
            r = np.full(len(x), np.nan)
            if ok.any():
                try:  # Python's float power: numpy's differs in the last bit
                    r[ok] = [a ** b for a, b in zip(x[ok].tolist(), y[ok].tolist(),
                                                    strict=True)]
                except (OverflowError, ZeroDivisionError):
                    for i in np.flatnonzero(ok).tolist():
                        try:
                            r[i] = float(x[i]) ** float(y[i])
                        except (OverflowError, ZeroDivisionError):
                            r[i] = np.nan
            return _numbers(r), ~np.isfinite(r)
        return self._binary(node, fast)

    def _compare(self, node, op) -> Vec:
        args = [self.value(a) for a in node.args]
        lits = [isinstance(a, Lit) for a in node.args]

        ordering = node.name not in ("=", "<>")

        def fast_rows(a):
            tx = np.where(a[0].kind == BOOL, 2, 0)
            ty = np.where(a[1].kind == BOOL, 2, 0)
            x, y = a[0].num, a[1].num
            tx, ty, x, y = np.broadcast_arrays(tx, ty, x, y)
            # an empty cell against a boolean is FALSE (its number is 0 already)
            bx, by = np.broadcast_arrays(a[0].kind == EMPTY, a[1].kind == EMPTY)
            tx = np.where(bx & (ty == 2), 2, tx)
            ty = np.where(by & (tx == 2), 2, ty)
            out = _bools(op(tx, ty, x, y))
            if ordering and (a[0].npy is not None or a[1].npy is not None):
                # tuples compare element-wise: a numpy operand decides -> numpy's bool_
                npy = np.broadcast_to(a[0].numpy_mask() | a[1].numpy_mask()
                                      if len(a[0]) == len(a[1]) else
                                      np.logical_or(*np.broadcast_arrays(a[0].numpy_mask(),
                                                                          a[1].numpy_mask())),
                                      len(x))
                out.npy = npy & (tx == ty) & (x != y)
            return out

        return self.split(args, self.rows_ok(args), fast_rows,
                          lambda a: self.delegate(node.written, a, lits))

    def f_eq(self, node):
        return self._compare(node, lambda tx, ty, x, y: (tx == ty) & (x == y))

    def f_ne(self, node):
        return self._compare(node, lambda tx, ty, x, y: (tx != ty) | (x != y))

    def f_lt(self, node):
        return self._compare(node, lambda tx, ty, x, y: (tx < ty) | ((tx == ty) & (x < y)))

    def f_gt(self, node):
        return self._compare(node, lambda tx, ty, x, y: (tx > ty) | ((tx == ty) & (x > y)))

    def f_le(self, node):
        return self._compare(node, lambda tx, ty, x, y: (tx < ty) | ((tx == ty) & (x <= y)))

    def f_ge(self, node):
        return self._compare(node, lambda tx, ty, x, y: (tx > ty) | ((tx == ty) & (x >= y)))

    def f_concat(self, node):
        args = [self.value(a) for a in node.args]
        return self.delegate(node.written, args, [isinstance(a, Lit) for a in node.args])

    def _unary(self, node: Call, fast, kinds=_NUMERIC) -> Vec:
        args = [self.value(a) for a in node.args]
        lits = [isinstance(a, Lit) for a in node.args]

        def fast_rows(a):
            with np.errstate(all="ignore"):
                return fast(*[v.num for v in a])

        return self.split(args, self.rows_ok(args, kinds), fast_rows,
                          lambda a: self.delegate(node.written, a, lits))

    def f_neg(self, node):
        def fast(x):
            r = -x
            bad = ~np.isfinite(r)
            out = _numbers(r)
            if bad.any():
                out = Vec.assemble(len(r), [(~bad, out.take(~bad)), (bad, _err("#NUM!", 1))])
            return out
        return self._unary(node, fast)

    def f_pos(self, node):
        return self.value(node.args[0]).blank_as_zero()

    def f_percent(self, node):
        def fast(x):
            r = x / 100.0
            return _numbers(r)
        return self._unary(node, fast)

    # ------------------------------------------------------------ logic
    def f_IF(self, node):
        if len(node.args) < 2 or len(node.args) > 3:
            raise Unsupported("IF with an unusual number of arguments")
        cond = self.value(node.args[0])
        x = self.value(node.args[1]).blank_as_zero()
        y = (self.value(node.args[2]).blank_as_zero() if len(node.args) == 3
             else Vec.const(False))
        n = max(len(cond), len(x), len(y))
        k = cond.kind
        if (k == OTHER).any():
            args = [cond, self.value(node.args[1])] + (
                [self.value(node.args[2])] if len(node.args) == 3 else [])
            return self.delegate(node.written, args, [isinstance(a, Lit) for a in node.args])
        truth = np.broadcast_to((cond.num != 0) & ((k == NUM) | (k == BOOL)), n)
        is_err = np.broadcast_to(k == ERR, n)
        is_str = np.broadcast_to(k == STR, n)
        parts = []
        take_x = truth & ~is_err & ~is_str
        take_y = ~truth & ~is_err & ~is_str
        for mask, v in ((take_x, x), (take_y, y)):
            if mask.any():
                idx = np.flatnonzero(mask)
                parts.append((idx, v.take(idx) if len(v) > 1 else v))
        if is_err.any():
            idx = np.flatnonzero(is_err)
            parts.append((idx, cond.take(idx) if len(cond) > 1 else cond))
        if is_str.any():
            parts.append((np.flatnonzero(is_str), _err("#VALUE!", 1)))
        if n == 1:
            return parts[0][1]
        return Vec.assemble(n, parts)

    def _iferror(self, node, which) -> Vec:
        if len(node.args) != 2:
            raise Unsupported(f"{node.name} needs two arguments")
        v = self.value(node.args[0]).blank_as_zero()
        alt = self.value(node.args[1]).blank_as_zero()
        n = max(len(v), len(alt))
        hit = v.kind == ERR
        if which == "#N/A" and hit.any():
            hit = hit & np.array([x is ERRORS["#N/A"] for x in v.obj.tolist()])
        hit = np.broadcast_to(hit, n)
        if not hit.any():
            return v
        if hit.all():
            return alt
        idx_a, idx_v = np.flatnonzero(hit), np.flatnonzero(~hit)
        return Vec.assemble(n, [(idx_a, alt.take(idx_a)), (idx_v, v.take(idx_v))])

    def f_IFERROR(self, node):
        return self._iferror(node, None)

    def f_IFNA(self, node):
        return self._iferror(node, "#N/A")

    def f_NOT(self, node):
        if len(node.args) != 1:
            raise Unsupported("NOT needs one argument")
        return self._unary(node, lambda x: _npbools(x == 0))

    def f_TRUE(self, node):
        return Vec.const(True)

    def f_FALSE(self, node):
        return Vec.const(False)

    def f_NA(self, node):
        return _err("#N/A", 1)

    # ------------------------------------------------------- reductions
    def _parts(self, node: Call):
        parts = []
        for a in node.args:
            if isinstance(a, Rng) and not a.is_cell:
                parts.append(("range", self.range(a)))
            elif isinstance(a, Lit):
                parts.append(("lit", a.value))
            elif isinstance(a, Arr):
                parts.append(("lit", self.array(a)))
            elif isinstance(a, Call) and (a.name in _BARE or a.name in self.functions):
                parts.append(("bare", self.value(a)))
            else:
                parts.append(("vec", self.value(a)))
        return parts

    def _reduce(self, node: Call, fast, lit_ok, kinds=(NUM,)) -> Vec:
        parts = self._parts(node)
        n = self.n if any(p[0] in ("vec", "bare") and len(p[1]) > 1
                          or p[0] == "range" and p[1].per_row for p in parts) else 1
        ok = np.ones(n, bool)
        cols, npys = [], []
        for kind, p in parts:
            if kind == "lit":
                if not lit_ok(p):
                    ok[:] = False
                    continue
                cols.append(np.full((n, 1), float(p)))
                npys.append(np.zeros((n, 1), bool))
            elif kind in ("vec", "bare"):
                good = _kinds_mask(p.kind, kinds)
                ok &= np.broadcast_to(good, n)
                cols.append(np.broadcast_to(p.num.reshape(-1, 1), (n, 1)))
                npys.append(np.broadcast_to(p.numpy_mask().reshape(-1, 1), (n, 1)))
            else:
                if p.per_row:
                    ok &= _kinds_mask(p.kind, kinds).reshape(n, -1).all(axis=1)
                    cols.append(p.num.reshape(n, -1))
                    npys.append(p.numpy_mask().reshape(n, -1))
                else:
                    ok &= bool(_kinds_mask(p.kind, kinds).all())
                    cols.append(np.broadcast_to(p.num.reshape(1, -1), (n, p.num.size)))
                    npys.append(np.broadcast_to(p.numpy_mask().reshape(1, -1),
                                                (n, p.num.size)))
        out_parts = []
        if ok.any() and cols:
            idx = np.flatnonzero(ok)
            matrix = np.concatenate([c[idx] for c in cols], axis=1)
            npy = np.concatenate([c[idx] for c in npys], axis=1)
            if matrix.shape[1] == 0:
                ok[:] = False
            else:
                with np.errstate(all="ignore"):
                    out_parts.append((idx, fast(matrix, npy)))
        elif not cols:
            ok[:] = False
        if not ok.all():
            idx = np.flatnonzero(~ok)
            if node.name in EXCEL_NUMBERS:
                out_parts.append((idx, self._numbers_rows(node, parts, idx, n)))
            else:
                out_parts.append((idx, self._reduce_rows(node.written, parts, idx)))
        if n == 1:
            return out_parts[0][1]
        return Vec.assemble(n, out_parts)

    def _reduce_rows(self, written: str, parts, rows: np.ndarray) -> Vec:
        """The borrowed ``written`` called per row (memoised on distinct scalar arguments)."""
        fn = self._fn(written)
        objs = {}
        for k, (kind, p) in enumerate(parts):
            if kind in ("vec", "bare"):
                objs[k] = p.objects()
        memo: dict = {}
        hashable = not any(kind == "range" and p.per_row for kind, p in parts)
        out = []
        for i in rows.tolist():
            key = None
            if hashable:
                key = tuple((type(o[i if len(o) > 1 else 0]), o[i if len(o) > 1 else 0])
                            for o in objs.values())
                if key in memo:
                    out.append(memo[key])
                    continue
            args = []
            for k, (kind, p) in enumerate(parts):
                if kind == "lit":
                    args.append(p)
                elif kind == "vec":
                    o = objs[k]
                    args.append(np.array([[o[i if len(o) > 1 else 0]]], dtype=object)
                                .view(Array))
                elif kind == "bare":
                    o = objs[k]
                    args.append(o[i if len(o) > 1 else 0])
                else:
                    args.append(p.row_objects(i))
            try:
                r = np.asarray(fn(*args), dtype=object)
            except Exception as ex:  # noqa: BLE001 - any failure: the array evaluator's
                raise Unsupported(f"{written} failed ({type(ex).__name__})") from None
            if r.size != 1:
                raise Unsupported(f"{written} returned an array")
            val = r.reshape(-1)[0]
            if hashable:
                memo[key] = val
            out.append(val)
        return self._classify(out)

    def _numbers_rows(self, node: Call, parts, rows: np.ndarray, n: int) -> Vec:
        """SUM, PRODUCT, AVERAGE, MAX or MIN row by row with Excel's argument rules
        (:func:`rooflinexl.recalc.functions.excel_numbers`), each argument read as
        :func:`~rooflinexl.recalc.engine.host_numbers_arg` does: a cell reference or INDEX's
        result is a reference (its text and booleans skipped), another computed value is
        typed (numeric text and booleans count)."""
        from rooflinexl.recalc import engine

        refs = [kind == "range" or kind == "vec" and (
            isinstance(a, Rng) or isinstance(a, Call) and a.name == "INDEX")
            for (kind, _), a in zip(parts, node.args, strict=True)]
        objs = {k: p.objects() for k, (kind, p) in enumerate(parts) if kind in ("vec", "bare")}
        current = self.tokens[0]
        self._calls += 1
        self._order = (node, self._calls)
        out = []
        for i in rows.tolist():
            in_errors: list = []
            args = []
            for k, (kind, p) in enumerate(parts):
                if kind == "range":
                    x = p.row_objects(i)
                elif kind == "lit":
                    x = p
                else:
                    o = objs[k]
                    x = o[i if len(o) > 1 else 0]
                args.append((not refs[k], engine.to_host(x, in_errors)))
            tok = current.set(("rooflinexl-row", i))
            try:
                val = engine.from_host(excel_numbers(node.name, args), node.name,
                                        self.state, in_errors)
            finally:
                current.reset(tok)
            recs = self.state.udf_errors.pop(("rooflinexl-row", i), [])
            if recs:
                self._record(i, n, [(c, why) for c, why, _ in recs])
            out.append(val)
        return self._classify(out)

    @staticmethod
    def _number_lit(x) -> bool:
        return isinstance(x, (int, float)) and not isinstance(x, bool)

    def running(self, node: Call) -> Vec | None:
        """SUM, AVERAGE, MIN or MAX of one growing range (``SUM($A$2:A2)`` filled
        down) for every row at once, cumulatively; None when ``node`` is not that."""
        if len(node.args) != 1:
            return None
        rng = node.args[0]
        if not isinstance(rng, Rng) or rng.r1_rel or not rng.r2_rel:
            return None
        top, last = rng.r1, self.r1 + rng.r2
        first_end = self.r0 + rng.r2
        if first_end < top:
            raise Unsupported("a growing range that starts above its fixed end")
        m = last - top + 1
        if m * (rng.c2 - rng.c1 + 1) > _MAX_RANGE_CELLS:
            raise Unsupported("a range too large to hold as an array")
        cols = [self.store.get(rng.sheet, c, top, last) for c in range(rng.c1, rng.c2 + 1)]
        kind = np.stack([v.kind for v in cols], axis=1)
        nums = np.stack([v.num for v in cols], axis=1)
        is_num = kind == NUM
        end = np.arange(first_end, last + 1) - top  # last row index of each block row
        name = node.name
        if name in ("SUM", "AVERAGE"):
            total = np.cumsum(np.where(is_num, nums, 0.0).sum(axis=1))[end]
        count = np.cumsum(is_num.sum(axis=1))[end]
        if name == "SUM":
            out = _npnumbers(total)
        elif name == "AVERAGE":
            with np.errstate(all="ignore"):
                out = _npnumbers(total / np.where(count == 0, 1, count))
            if (count == 0).any():
                out = Vec.assemble(len(end), [(count != 0, out.take(count != 0)),
                                              (count == 0, _err("#DIV/0!", 1))])
        else:
            pick = np.maximum if name == "MAX" else np.minimum
            fill = -np.inf if name == "MAX" else np.inf
            best = pick.accumulate(np.where(is_num, nums, fill).max(axis=1) if name == "MAX"
                                   else np.where(is_num, nums, fill).min(axis=1))[end]
            out = _npnumbers(np.where(np.isfinite(best), best, 0.0))
        errs = (kind == ERR).any(axis=1)
        if errs.any():
            first = int(np.argmax(errs))
            j = int(np.argmax(kind[first] == ERR))
            obj = cols[j].obj[first]
            hit = end >= first
            out = Vec.assemble(len(end), [(~hit, out.take(~hit)),
                                          (hit, Vec.from_objects([obj]))])
        return out

    def f_SUM(self, node):
        hit = self.running(node)
        if hit is not None:
            return hit
        return self._reduce(node, lambda m, _: _npnumbers(np.sum(m, axis=1)), self._number_lit)

    def f_PRODUCT(self, node):
        return self._reduce(node, lambda m, _: _npnumbers(np.prod(m, axis=1)),
                            self._number_lit)

    @staticmethod
    def _pick(m: np.ndarray, npy: np.ndarray, best: np.ndarray) -> Vec:
        """Python's min/max: the first element equal to the best one, of its own type."""
        first = np.argmax(m == best[:, None], axis=1)
        rows = np.arange(len(m))
        return Vec(np.full(len(m), NUM, np.uint8), m[rows, first], None,
                   npy[rows, first] if npy.any() else None)

    def f_MIN(self, node):
        hit = self.running(node)
        if hit is not None:
            return hit
        return self._reduce(node, lambda m, p: self._pick(m, p, m.min(axis=1)),
                            self._number_lit)

    def f_MAX(self, node):
        hit = self.running(node)
        if hit is not None:
            return hit
        return self._reduce(node, lambda m, p: self._pick(m, p, m.max(axis=1)),
                            self._number_lit)

    def f_AVERAGE(self, node):
        hit = self.running(node)
        if hit is not None:
            return hit
        return self._reduce(node, lambda m, _: _npnumbers(np.mean(m, axis=1)),
                            self._number_lit)

    def f_AND(self, node):
        return self._reduce(node, lambda m, _: _npbools((m != 0).all(axis=1)),
                            lambda x: isinstance(x, (int, float)), kinds=(NUM, BOOL))

    def f_OR(self, node):
        return self._reduce(node, lambda m, _: _npbools((m != 0).any(axis=1)),
                            lambda x: isinstance(x, (int, float)), kinds=(NUM, BOOL))

    # --------------------------------------------------------- math
    def _math(self, node: Call, func, nargs=(1,)) -> Vec:
        if len(node.args) not in nargs:
            raise Unsupported(f"{node.name} with {len(node.args)} arguments")

        def fast(*xs):
            r = np.asarray(func(*xs), dtype=float)
            bad = ~np.isfinite(r)
            out = _npnumbers(r)
            if bad.any():
                out = Vec.assemble(len(r), [(~bad, out.take(~bad)), (bad, _err("#NUM!", 1))])
            return out
        return self._unary(node, fast)

    def f_ABS(self, node):
        return self._math(node, np.abs)

    def f_SQRT(self, node):
        return self._math(node, np.sqrt)

    def f_EXP(self, node):
        return self._math(node, np.exp)

    def f_LN(self, node):
        return self._math(node, np.log)

    def f_LOG(self, node):
        def log(x, base=None):
            if base is None:
                return np.log(x) / np.log(10)
            x, base = np.broadcast_arrays(x, base)
            return np.where(base != 0, np.log(x) / np.log(base), np.nan)
        return self._math(node, log, (1, 2))

    def f_POWER(self, node):
        if len(node.args) != 2:
            raise Unsupported("POWER needs two arguments")

        def fast(x, y):
            x, y = np.broadcast_arrays(x, y)
            # numpy's scalar power, as formulas calls it: the array version squares
            # for an exponent of 2, which can differ in the last bit
            r = np.array([np.power(a, b) for a, b in zip(x.tolist(), y.tolist(), strict=True)],
                         dtype=float)
            zero = x == 0
            parts = []
            bad = ~np.isfinite(r) & ~zero
            good = ~bad & ~zero
            parts.append((good, _npnumbers(r[good])))
            if bad.any():
                parts.append((bad, _err("#NUM!", 1)))
            if zero.any():
                z0 = zero & (y == 0)
                zneg = zero & (y < 0)
                zpos = zero & (y > 0)
                if z0.any():
                    parts.append((z0, _err("#NUM!", 1)))
                if zneg.any():
                    parts.append((zneg, _err("#DIV/0!", 1)))
                if zpos.any():
                    parts.append((zpos, _npnumbers(r[zpos])))
            return Vec.assemble(len(r), [(np.flatnonzero(m), v) for m, v in parts
                                         if np.asarray(m).any()])
        return self._unary(node, fast)

    def f_ROW(self, node):
        return self._row_col(node, True)

    def f_COLUMN(self, node):
        return self._row_col(node, False)

    def _row_col(self, node: Call, row: bool) -> Vec:
        """ROW()/COLUMN() of the cell or of a one-row / one-column reference."""
        if not node.args:
            if row:
                return Vec.numbers(np.arange(self.r0, self.r1 + 1))
            return Vec.numbers([self.col])
        ref = node.args[0]
        if len(node.args) != 1 or not isinstance(ref, Rng):
            raise Unsupported(f"{node.name} of something other than a reference")
        if row:
            if ref.r1 != ref.r2 or ref.r1_rel != ref.r2_rel:
                raise Unsupported("ROW of several rows")
            if ref.r1_rel:
                return Vec.numbers(np.arange(self.r0, self.r1 + 1) + ref.r1)
            return Vec.numbers([ref.r1])
        if ref.c1 != ref.c2:
            raise Unsupported("COLUMN of several columns")
        return Vec.numbers([ref.c1])

    def per_row(self, node: Call) -> Vec:
        """The function ``node.written`` (:func:`function_of`) called row by row with its
        arguments as a host is given them (a range as its 2-D values), memoised on
        distinct arguments."""
        parts = self._parts(node)
        n = self.n if any(kind in ("vec", "bare") and len(p) > 1
                          or kind == "range" and p.per_row for kind, p in parts) else 1
        if node.name in ("COUNT", "COUNTA"):
            counted = self._count_references(node, parts, n)
            if counted is not None:
                return counted
        if node.name in EXCEL_NUMBERS:  # Excel's argument rules (functions.excel_numbers)
            return self._numbers_rows(node, parts, np.arange(n), n)
        return self._reduce_rows(node.written, parts, np.arange(n))

    @staticmethod
    def _count_references(node: Call, parts, n: int) -> Vec | None:
        """COUNT or COUNTA over references only (ranges, cells), for every row at once: the
        cells holding a number (COUNTA: any value, empty text and errors too), as
        :func:`rooflinexl.recalc.functions.excel_numbers` counts them; None when an
        argument is not a reference."""
        total = np.zeros(n)
        for (kind, p), a in zip(parts, node.args, strict=True):
            if not (kind == "range" or kind == "vec" and isinstance(a, Rng)):
                return None
            if (p.kind == OTHER).any():
                return None
            hit = p.kind == NUM if node.name == "COUNT" else p.kind != EMPTY
            if kind == "range" and p.per_row:
                total += hit.reshape(n, -1).sum(axis=1)
            else:
                total += hit.sum() if kind == "range" or len(p) == 1 else hit
        return Vec.numbers(total)

    # ------------------------------------------------------- volatile functions
    def f_RAND(self, node):
        """A fresh number in [0, 1) for every row (a numpy float)."""
        if node.args:
            raise Unsupported("RAND with arguments")
        return _npnumbers(np.random.random(self.n))

    def f_RANDBETWEEN(self, node):
        """A fresh whole number per row: RANDBETWEEN (elementary.py) over the rows
        (the arguments stretched to every row, so literal bounds still draw per row)."""
        if len(node.args) != 2:
            raise Unsupported("RANDBETWEEN without two arguments")
        args = [self.value(a).broadcast(self.n) for a in node.args]
        return self.delegate(node.written, args)

    def f_TODAY(self, node):
        return self._clock(node, False)

    def f_NOW(self, node):
        return self._clock(node, True)

    def _clock(self, node: Call, time_of_day: bool) -> Vec:
        """Today's serial number (1900 system), with the time of day for NOW: one value
        for the whole recalculation, as Excel computes them once (:func:`now_serial`)."""
        if node.args:
            raise Unsupported(f"{node.name} with arguments")
        serial = now_serial()
        return _numbers(np.array([serial if time_of_day else float(int(serial))]))

    def f_unknown(self, node: Call) -> Vec:
        """A function no table knows: ``#NAME?``, with the reason naming it (a function
        Excel has that is not implemented, or an unknown name)."""
        self.records_all.append((node, 0, "#NAME?", unknown_reason(node.written)))
        return _err("#NAME?", 1)

    def _delegated(self, node: Call) -> Vec:
        args = [self.value(a) for a in node.args]
        return self.delegate(node.written, args, [isinstance(a, Lit) for a in node.args])

    f_CEILING = f_FLOOR = _delegated  # functions.COMPATIBLE_MULTIPLES, row by row
    # SIGN, LOG10, LEN, LOWER, UPPER, TRUNC: our own (scalars.py), called as functions

    def f_SINGLE(self, node):
        """SINGLE (``_xlfn.SINGLE``, Excel's ``@``; Microsoft, "Implicit intersection
        operator: @"): of a range, the cell in the formula's row (a range of several rows)
        and column (of several columns), #VALUE! where the range has none; of one cell or
        a value, that value."""
        if len(node.args) != 1:
            raise Unsupported("SINGLE needs one argument")
        a = node.args[0]
        if not isinstance(a, Rng) or a.is_cell:
            return self.value(a)
        rows = np.arange(self.r0, self.r1 + 1)
        top = a.r1 + rows if a.r1_rel else np.full(self.n, a.r1)
        bottom = a.r2 + rows if a.r2_rel else np.full(self.n, a.r2)
        if (top == bottom).all():  # one row: that row's cell
            ok = np.ones(self.n, bool)
            ra, rb = (self.r0 + a.r1, self.r1 + a.r1) if a.r1_rel else (a.r1, a.r1)
        else:  # several rows: the formula's row
            ok = (top <= rows) & (rows <= bottom)
            ra, rb = self.r0, self.r1
        col = a.c1 if a.c1 == a.c2 else self.col
        if not a.c1 <= col <= a.c2:
            ok[:] = False
        if ra < 1:
            raise Unsupported("reference above row 1")
        if not ok.any():
            return _err("#VALUE!", 1)
        v = self.store.get(a.sheet, col, ra, rb)
        if ok.all():
            return v
        v = v.broadcast(self.n)
        idx = np.flatnonzero(ok)
        return Vec.assemble(self.n, [(idx, v.take(idx)),
                                     (np.flatnonzero(~ok), _err("#VALUE!", 1))])

    def f_INT(self, node):
        """INT of numbers (Microsoft, "INT function": rounded down to an integer); other
        rows by the function over single values."""
        if len(node.args) != 1:
            return self._delegated(node)
        return self._unary(node, lambda x: _numbers(np.floor(x)))

    def f_MOD(self, node):
        """MOD of numbers (Microsoft, "MOD function": the remainder with the divisor's
        sign; a divisor of 0 is #DIV/0!); other rows by the function over single values."""
        if len(node.args) != 2:
            return self._delegated(node)

        def fast(x, y):
            x, y = np.broadcast_arrays(x, y)
            zero = y == 0
            r = np.mod(x, np.where(zero, 1.0, y))
            bad = ~np.isfinite(r) & ~zero
            parts = [(np.flatnonzero(~zero & ~bad), _npnumbers(r[~zero & ~bad]))]
            if zero.any():
                parts.append((np.flatnonzero(zero), _err("#DIV/0!", 1)))
            if bad.any():
                parts.append((np.flatnonzero(bad), _err("#NUM!", 1)))
            return Vec.assemble(len(r), [(i, v) for i, v in parts if len(i)])
        return self._unary(node, fast)

    # -------------------------------------------------------- lookups
    def f_INDEX(self, node):
        args = node.args
        if not 2 <= len(args) <= 4 or not isinstance(args[0], Rng):
            raise Unsupported("INDEX other than INDEX(range, row, [col], [area])")
        rng = self.range(args[0])
        row = self.value(args[1])
        col = self.value(args[2]) if len(args) > 2 else None
        area = self.value(args[3]) if len(args) > 3 else None
        if not rng.per_row:
            return self.index_cells(rng, row, col, area)
        out = []  # a relative range (INDEX(2:2, 1, 2) filled down): row by row
        for i in range(self.n):
            window = RangeArg(rng.kind[i], rng.num[i], None if rng.obj is None else rng.obj[i],
                              None if rng.npy is None else rng.npy[i], False, rng.rng)
            at = [None if v is None else v.take([i if len(v) > 1 else 0])
                  for v in (row, col, area)]
            out.append(self.index_cells(window, *at).item(0))
        return Vec.from_objects(out)

    @staticmethod
    def index_cells(rng: RangeArg, row: Vec, col: Vec | None = None,
                    area: Vec | None = None) -> Vec:
        """INDEX(reference, row, [col], [area]) over a fixed reference for every row of the
        position values (Microsoft, "INDEX function",
        reference form): the cell at (row, col) of ``rng``, a position truncated to a whole
        number (0 the first); a position error value is the result (the first one), an
        empty position, text that spells no integer or a position below 0 #VALUE!, one
        past the reference (or a second area) #REF!. :class:`Unsupported` for a position
        value of an unusual type."""
        h, w = rng.kind.shape
        vecs = [v for v in (row, col, area) if v is not None]
        n = max(len(v) for v in vecs)
        for v in vecs:
            if v.has(OTHER):
                raise Unsupported("INDEX with an unusual position value")
        code = np.zeros(n, dtype=object)  # error (XlError) per row, 0 when fine
        code[:] = None
        for v in vecs:  # the first error argument wins
            if v.has(ERR):
                e = np.broadcast_to(v.kind == ERR, n)
                src = np.broadcast_to(v.obj, n)
                free = np.array([c is None for c in code.tolist()])
                code[e & free] = src[e & free]
        if area is not None:
            a, bad = _int_positions(area, n)
            free = np.array([c is None for c in code.tolist()])
            code[((a < 1) | bad) & free] = ERRORS["#VALUE!"]
            free = np.array([c is None for c in code.tolist()])
            code[(a > 1) & free] = ERRORS["#REF!"]
        r, bad_r = _int_positions(row, n)
        bad_c = np.zeros(n, bool)
        no_area = False  # INDEX(2-D reference, row): no cell, #REF! after the checks below
        if col is None:
            if h == 1:
                c, r = r, np.ones(n)
            elif w == 1:
                c = np.ones(n)
            else:
                no_area = True
                c = np.ones(n)
        else:
            c, bad_c = _int_positions(col, n)
        r, c = r - 1, c - 1
        free = np.array([x is None for x in code.tolist()])
        code[((r < -1) | (c < -1) | bad_r | bad_c) & free] = ERRORS["#VALUE!"]
        r, c = np.maximum(r, 0), np.maximum(c, 0)
        free = np.array([x is None for x in code.tolist()])
        code[((r >= h) | (c >= w) | no_area) & free] = ERRORS["#REF!"]
        free = np.array([x is None for x in code.tolist()])
        ri = np.where(free, r, 0).astype(np.int64)
        ci = np.where(free, c, 0).astype(np.int64)
        kind = rng.kind[ri, ci].copy()
        num = rng.num[ri, ci].copy()
        obj = None if rng.obj is None else rng.obj[ri, ci].copy()
        npy = None if rng.npy is None else rng.npy[ri, ci].copy()
        bad = ~free
        if bad.any():
            if obj is None:
                obj = np.empty(n, dtype=object)
            kind[bad] = ERR
            obj[bad] = code[bad]
            if npy is not None:
                npy[bad] = False
        return Vec(kind, num, obj, npy)

    def _lookup(self, node: Call, nmin: int, nmax: int) -> Vec:
        """A lookup function of ours (:mod:`rooflinexl.recalc.lookups`) over the block,
        its fixed tables read once: called once with the column of the distinct lookup
        values (and index, match_mode ... where those vary by row), which it lifts, or,
        where a per-row argument is not one it lifts or a result may be an array, once per
        distinct row; a relative range goes through :meth:`udf`."""
        from rooflinexl.recalc import engine

        if not nmin <= len(node.args) <= nmax:
            raise Unsupported(f"{node.name} with {len(node.args)} arguments")
        parts = []
        for a in node.args:
            if isinstance(a, Rng) and not a.is_cell:
                r = self.range(a)
                if r.per_row:
                    return self.udf(node)
                parts.append(("range", r))
            elif isinstance(a, Arr):
                parts.append(("fixed", self.array(a)))
            elif isinstance(a, Lit):
                parts.append(("lit", a.value))
            else:
                parts.append(("vec", self.value(a)))
        func = self.functions[node.name]
        in_errors: list = []
        host = [None if kind == "vec" else _host_rows(p, in_errors) if kind == "range"
                else engine.to_host(p, in_errors) for kind, p in parts]
        if node.name in ("VLOOKUP", "HLOOKUP") and parts[1][0] == "lit" and isinstance(
                host[1], str) and not isinstance(host[1], ExcelError):
            # a text constant as the table: Excel's #VALUE! (IronCalc's HVLOOKUP.xlsx, saved
            # by Excel: VLOOKUP(M13,"Nothing",1)); an error constant is itself (#REF!)
            host[1] = ExcelError("#VALUE!", f"{node.name}: text where table_array belongs")
        objs = {k: p.objects() for k, (kind, p) in enumerate(parts) if kind == "vec"}
        per_row = [k for k in objs if len(objs[k]) > 1]
        n = self.n if per_row else 1
        first: list[int] = [0]
        inverse = np.zeros(n, dtype=np.int64)
        if per_row:
            keys = list(zip(*[[(type(x), x) for x in objs[k].tolist()] for k in per_row],
                            strict=True))
            memo: dict = {}
            first = []
            for i, key in enumerate(keys):
                j = memo.get(key)
                if j is None:
                    j = memo[key] = len(first)
                    first.append(i)
                inverse[i] = j

        cells = {k for k in _TABLES.get(node.name, ())
                 if k < len(node.args) and isinstance(node.args[k], Rng)}

        def value_of(k: int, i: int):
            o = objs[k]
            x = engine.to_host(o[i if len(o) > 1 else 0], in_errors)
            return [[x]] if k in cells else x  # a one-cell table is a range, not a value

        def run(args, where: tuple) -> list:
            tok = current.set(where)
            try:
                out = func(*args)
                if not lifting and isinstance(out, list) and (len(out) > 1 or len(out[0]) > 1):
                    raise Unsupported(f"{node.name} returned an array")
                vals = engine.from_host(out, node.name, self.state, in_errors, True)
            except Unsupported:
                raise
            except Exception as ex:  # noqa: BLE001 - a failure of ours: the cells say so
                raise Unsupported(f"{node.name} failed ({type(ex).__name__})") from None
            finally:
                current.reset(tok)
            return np.asarray(vals, dtype=object).reshape(-1).tolist()

        rows_of = _rows_of(inverse, len(first))

        def record(where: tuple, j: int | None) -> None:
            for code, why, pos in self.state.udf_errors.pop(where, []):
                for i in rows_of(j if j is not None else pos[0] if pos else 0):
                    self._record(i, n, [(code, why)])

        current, state_var = self.tokens
        self._calls += 1
        self._order = (node, self._calls)
        token_state = state_var.set(self.state)
        lifted = _LIFTED.get(node.name, ())
        ret = host[2] if node.name == "XLOOKUP" else None
        lifting = bool(per_row) and all(k in lifted for k in per_row) and (
            not isinstance(ret, list) or len(ret) == 1 or all(len(r) == 1 for r in ret))
        try:
            if lifting:  # one call over the distinct values (each result a single value)
                args = list(host)
                for k in objs:
                    if k in per_row:
                        col = np.empty((len(first), 1), dtype=object)
                        col[:, 0] = [value_of(k, i) for i in first]
                        args[k] = col
                    else:
                        args[k] = value_of(k, 0)
                where = ("rooflinexl-block", node.name)
                results = run(args, where)
                if len(results) != len(first):
                    raise Unsupported(f"{node.name} over a column")
                record(where, None)
            else:
                results = []
                for j, i in enumerate(first):
                    args = list(host)
                    for k in objs:
                        args[k] = value_of(k, i)
                    where = ("rooflinexl-row", i)
                    results.extend(run(args, where))
                    record(where, j)
        finally:
            state_var.reset(token_state)
        res = self._classify(results)
        return Vec(res.kind[inverse], res.num[inverse],
                   None if res.obj is None else res.obj[inverse],
                   None if res.npy is None else res.npy[inverse])

    def f_MATCH(self, node):
        hit = self._match(node)
        return hit if hit is not None else self._lookup(node, 2, 3)

    def _match(self, node: Call) -> Vec | None:
        """MATCH of numbers, text or booleans in one fixed row or column, match_type 0 or 1
        (the default), for every row at once (Microsoft, "MATCH function": 0 the first
        value equal to lookup_value, text compared case-insensitively; 1 the largest value
        not above it, by Excel's bisection, :func:`rooflinexl.recalc.functions.
        excel_bsearch`); an error lookup_value is the result. None for any other form
        (wildcards, -1, a blank lookup_value ...): :mod:`rooflinexl.recalc.lookups` then."""
        from rooflinexl.recalc.functions import excel_bsearch

        args = node.args
        if len(args) not in (2, 3) or not isinstance(args[1], Rng) or args[1].is_cell:
            return None
        if isinstance(args[0], Arr) or isinstance(args[0], Rng) and not args[0].is_cell:
            return None
        mode = 1
        if len(args) == 3:
            lit = args[2]
            if not (isinstance(lit, Lit) and type(lit.value) in (int, float)
                    and lit.value in (0, 1)):
                return None
            mode = lit.value
        rng = self.range(args[1])
        if rng.per_row or 1 not in rng.kind.shape:
            return None
        look = self.value(args[0])
        if not _kinds_mask(look.kind, (NUM, STR, BOOL, ERR)).all():
            return None
        texts = np.flatnonzero(look.kind == STR)
        seen: dict = {}  # the distinct lookup texts, in order
        codes = [seen.setdefault(x, len(seen))
                 for x in (look.obj[texts].tolist() if len(texts) else [])]
        if mode == 0 and any(c in x for x in seen for c in "*?~"):  # wildcards
            return None
        keys = []
        flat_obj = None if rng.obj is None else rng.obj.reshape(-1).tolist()
        for j, (k, x) in enumerate(zip(rng.kind.reshape(-1).tolist(),
                                       rng.num.reshape(-1).tolist(), strict=True)):
            keys.append((0, x) if k == NUM else (1, flat_obj[j].lower()) if k == STR
                        else (2, x != 0) if k == BOOL else None)
        first: dict = {}
        if mode == 0:
            for j, key in enumerate(keys):
                if key is not None:
                    first.setdefault(key, j)

        def position(want: tuple) -> float:
            pos = first.get(want) if mode == 0 else excel_bsearch(keys, want)
            return np.nan if pos is None else float(pos + 1)

        n = len(look)
        num = np.full(n, np.nan)
        kind = look.kind
        for k in (NUM, BOOL):  # each distinct value searched once
            rows = np.flatnonzero(kind == k)
            if len(rows):
                vals, inverse = np.unique(look.num[rows], return_inverse=True)
                found = [position((0, v) if k == NUM else (2, v != 0)) for v in vals.tolist()]
                num[rows] = np.array(found)[inverse]
        if len(texts):
            found = [position((1, x.lower())) for x in seen]
            num[texts] = np.array(found)[codes]
        errs = kind == ERR
        missing = np.isnan(num) & ~errs
        if missing.any():  # the reason our MATCH gives (rooflinexl.recalc.lookups)
            from rooflinexl.recalc.lookups import MATCH_NOT_FOUND

            self._calls += 1
            self._order = (node, self._calls)
            for i in np.flatnonzero(missing).tolist():
                self._record(i, n, [("#N/A", MATCH_NOT_FOUND)])
        out = Vec(np.where(errs | missing, ERR, NUM).astype(np.uint8), np.nan_to_num(num))
        if errs.any() or missing.any():
            out.obj = np.empty(n, dtype=object)
            if errs.any():
                out.obj[errs] = look.obj[errs]
            out.obj[missing] = ERRORS["#N/A"]
        return out

    def f_VLOOKUP(self, node):
        return self._lookup(node, 3, 4)

    def f_HLOOKUP(self, node):
        return self._lookup(node, 3, 4)

    def f_XLOOKUP(self, node):
        return self._lookup(node, 3, 6)

    def f_XMATCH(self, node):
        return self._lookup(node, 2, 4)

    def f_LOOKUP(self, node):
        return self._lookup(node, 2, 3)

    # --------------------------------------------------- our functions
    def udf(self, node: Call) -> Vec:
        from rooflinexl.recalc import engine

        name = node.name
        func = self.functions[name]
        parts = []
        for a in node.args:
            if isinstance(a, Rng) and not a.is_cell:
                parts.append(("range", self.range(a)))
            elif isinstance(a, Lit):
                parts.append(("lit", a.value))
            elif isinstance(a, Arr):  # through the adapter, as a host is given it
                parts.append(("array", self.array(a)))
            else:
                parts.append(("vec", self.value(a)))
        n = self.n if any(kind == "vec" and len(p) > 1 or kind == "range" and p.per_row
                          for kind, p in parts) else 1
        clean = np.ones(n, bool)
        # an element-wise function (scalars.lift) takes every kind of value in a column
        any_kind = getattr(func, "elementwise", False)
        for kind, p in parts:
            if kind == "vec" and len(p) > 1:
                clean &= (p.kind != OTHER) if any_kind else (p.kind == NUM) | (p.kind == STR)
            elif kind == "range" and p.per_row or kind == "array":
                clean[:] = False
        out_parts = []
        self._calls += 1
        self._order = (node, self._calls)
        current, state_var = self.tokens
        token_state = state_var.set(self.state)
        try:
            if clean.any():
                idx = np.flatnonzero(clean)
                res = self._udf_columns(name, func, parts, idx, n, current)
                if res is None:
                    clean[:] = False
                else:
                    out_parts.append((idx, res))
            if not clean.all():
                idx = np.flatnonzero(~clean)
                adapter = engine.host_call(name, func)
                vals = []
                # each column's values made once, not once per row (a 50,000-row block
                # made them 50,000 times: quadratic)
                objs = {k: p.objects() for k, (kind, p) in enumerate(parts) if kind == "vec"}
                for i in idx.tolist():
                    args = []
                    for k, (kind, p) in enumerate(parts):
                        if kind in ("lit", "array"):
                            args.append(p)
                        elif kind == "vec":
                            o = objs[k]
                            args.append(np.array([[o[i if len(o) > 1 else 0]]], dtype=object)
                                        .view(Array))
                        else:
                            args.append(p.row_objects(i))
                    tok = current.set(("rooflinexl-row", i))
                    try:
                        r = np.asarray(adapter(*args), dtype=object)
                    finally:
                        current.reset(tok)
                    recs = self.state.udf_errors.pop(("rooflinexl-row", i), [])
                    if recs:
                        self._record(i, n, [(c, why) for c, why, _ in recs])
                    if r.size > 1:  # an array where the block holds one value per row
                        raise Unsupported(f"{name} returned an array")
                    vals.append(r.reshape(-1)[0] if r.size else ERRORS["#VALUE!"])
                out_parts.append((idx, self._classify(vals)))
        finally:
            state_var.reset(token_state)
        if n == 1:
            return out_parts[0][1]
        return Vec.assemble(n, out_parts)

    def _record(self, i: int, n: int, recs) -> None:
        recs = [(*self._order, code, why) for code, why in recs]
        if n == 1:
            self.records_all.extend(recs)
        else:
            self.records.setdefault(i, []).extend(recs)

    def _udf_columns(self, name, func, parts, idx, n, current):
        """Our function called once over the clean rows; None when it refuses the call."""
        from rooflinexl.recalc import engine

        in_errors: list = []
        host = []
        for kind, p in parts:
            if kind == "lit":
                host.append(engine.to_host(p, in_errors))
            elif kind == "range":
                host.append(engine.to_host(p.objects, in_errors))
            elif len(p) == 1:
                host.append(engine.to_host(np.array([[p.objects()[0]]], dtype=object),
                                            in_errors))
            else:
                sub = p.take(idx)
                vals = np.empty((len(idx), 1), dtype=object)
                col = sub.num.tolist()
                strs = sub.kind == STR
                if strs.any():
                    for j in np.flatnonzero(strs).tolist():
                        col[j] = sub.obj[j]
                others = (sub.kind != NUM) & ~strs
                if others.any():  # blanks, booleans, errors: as the per-row adapter passes them
                    objs = sub.objects()
                    for j in np.flatnonzero(others).tolist():
                        col[j] = engine.to_host(objs[j], in_errors)
                vals[:, 0] = col
                host.append(vals)
        try:
            out = func(*host)
        except Exception:  # noqa: BLE001 - a bad call: every row on its own
            return None
        m = len(idx) if n > 1 else 1
        if n > 1:
            if not (isinstance(out, list) and len(out) == m
                    and all(isinstance(r, list) and len(r) == 1 for r in out)):
                return None
        tok = current.set(("rooflinexl-block", name))
        try:
            arr = engine.from_host(out, name, self.state, in_errors,
                                   getattr(func, "plain_text", False))
        finally:
            current.reset(tok)
        recs = self.state.udf_errors.pop(("rooflinexl-block", name), [])
        for code, why, pos in recs:
            if pos is None or n == 1:
                self._record(0, 1, [(code, why)])
            else:
                self._record(int(idx[pos[0]]), n, [(code, why)])
        vals = np.asarray(arr, dtype=object).reshape(-1)
        if len(vals) != m:
            return None
        return self._classify(vals)


def _rows_of(inverse: np.ndarray, k: int):
    """``rows(j)``: the rows whose distinct value is the ``j``-th (``inverse[i] == j``)."""
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(k + 1))
    return lambda j: order[bounds[j]:bounds[j + 1]].tolist()


#: the last ranges :func:`_host_rows` built: id(kind array) -> (kind array, rows)
_HOST_ROWS: dict[int, tuple] = {}


def _host_rows(r: RangeArg, in_errors: list):
    """A fixed range as our functions receive it (``engine.to_host``: a list of rows of
    floats, text, booleans, None for empty cells and error values; one cell its value),
    built from the range's arrays at once rather than cell by cell, and kept for the next
    block reading the same range (the store's cached arrays, while they are cached)."""
    from rooflinexl.recalc import engine

    kind = r.kind
    hit = _HOST_ROWS.get(id(kind))
    if hit is not None and hit[0] is kind:
        in_errors.extend(hit[2])
        return hit[1]
    errors: list = []
    out = r.num.astype(object)
    out[kind == EMPTY] = None
    if (kind == BOOL).any():
        out[kind == BOOL] = [bool(x) for x in r.num[kind == BOOL].tolist()]
    text = kind == STR
    if text.any():
        out[text] = [str(x) for x in r.obj[text].tolist()]
    odd = (kind == ERR) | (kind == OTHER)
    if odd.any():
        for i, j in zip(*np.nonzero(odd), strict=True):
            out[i, j] = engine.to_host(r.obj[i, j], errors)
    rows = out.tolist()
    rows = rows[0][0] if len(rows) == 1 and len(rows[0]) == 1 else rows
    if len(_HOST_ROWS) >= 8:
        del _HOST_ROWS[next(iter(_HOST_ROWS))]
    _HOST_ROWS[id(kind)] = (kind, rows, errors)
    in_errors.extend(errors)
    return rows


def _int_positions(v: Vec, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Python's ``int()`` of each position value (INDEX's positions): numbers and booleans
    truncate, text must spell an integer; (values, rows where int() fails)."""
    vals = np.trunc(v.num).astype(float)
    bad = np.zeros(len(v), bool)
    if v.has(STR, EMPTY, ERR):
        for i in np.flatnonzero(v.kind == STR).tolist():
            try:
                vals[i] = int(v.obj[i])
            except ValueError:
                bad[i] = True
        bad |= v.kind == EMPTY
    return np.broadcast_to(vals, n), np.broadcast_to(bad, n)


_NOW: list[float] = []  # the recalculation's moment, once taken


def now_serial() -> float:
    """This moment as a serial number (days since 1899-12-30, local time, to the second),
    the same for every cell of a recalculation (:func:`reset_clock` starts a new one)."""
    if not _NOW:
        import datetime as dt

        d = dt.datetime.now().replace(microsecond=0)
        _NOW.append((d - dt.datetime(1899, 12, 30)).total_seconds() / 86400)
    return _NOW[0]


def reset_clock() -> None:
    """Forget the moment taken: the next recalculation reads the clock again."""
    _NOW.clear()


def dispatch_order(tree) -> dict[int, tuple]:
    """id(call) -> the order in which the calls of one cell are taken when the reason of
    its error value is chosen (the first failing call's).

    Calls on literals only come first. The others come nearest to the inputs first (the
    longest chain of operators and functions below a call), and among calls at the same
    distance by the function's name as written, with ``<0>``, ``<1>`` ... for its later
    occurrences (the order of the ``formulas`` library, which computed these cells once:
    the reasons stay as they were).
    """
    keys: dict[int, tuple] = {}
    seen: dict[str, int] = {}

    def visit(node) -> int:
        if not isinstance(node, Call):
            return 0
        height = 1 + max((visit(a) for a in node.args), default=0)
        name = node.written
        k = seen.get(name)
        seen[name] = 0 if k is None else k + 1
        node_id = name if k is None else f"{name}<{k}>"
        keys[id(node)] = (0 if _literal(node) else 1, height, node_id)
        return height

    visit(tree)
    return keys


def _literal(node) -> bool:
    """No reference below ``node``: its reasons come first (:func:`dispatch_order`)."""
    if isinstance(node, Lit):
        return True
    if isinstance(node, Call):
        return all(_literal(a) for a in node.args)
    return False


#: functions that return a bare scalar (not a 1x1 array): a reduction that receives one
#: concatenates it with its other arguments without the object dtype
_BARE = frozenset({"AND", "OR", "SUM", "PRODUCT", "MIN", "MAX", "AVERAGE", "TRUE", "FALSE",
                   "NA"})

_METHOD = {UNKNOWN: "unknown",
           "+": "add", "-": "sub", "*": "mul", "/": "div", "^": "pow", "&": "concat",
           "=": "eq", "<>": "ne", "<": "lt", ">": "gt", "<=": "le", ">=": "ge",
           "u-": "neg", "u+": "pos", "%": "percent"}

