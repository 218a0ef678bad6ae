"""One cell's formula evaluated in array mode: values are scalars or 2-D arrays.

The block evaluator (:mod:`rooflinexl.recalc.kernels`) computes a formula for
every row of a block at once, one value per row. Formulas whose values are
arrays -- an array formula over a range (``{=TRANSPOSE(A1:C2)}``), a dynamic
array Excel saved with its spill range (``cm=`` cells), a function returning an
array inside a plain cell, ``ROW(A1:A3)`` -- do not fit that; :class:`ArrayEval`
computes them one cell (one array formula) at a time over the same parse tree
(:mod:`rooflinexl.recalc.compile`), reading ranges from the same
:class:`~rooflinexl.recalc.values.SheetStore`, so these cells stay nodes of the
one dependency graph.

Rules (Microsoft, "Guidelines and examples of array formulas" and "Dynamic array
formulas in non-dynamic aware Excel", read 2026-12-01):

* operators (our own, :mod:`rooflinexl.recalc.operators`) and IF, IFERROR, IFNA,
  CHOOSE, IFS and SWITCH work element by element; an array of one row (column)
  stretches down (across); otherwise the result is as large as the largest argument
  and its cells outside a smaller argument are ``#N/A`` (:func:`excel_broadcast`);
* every other function gets its arguments as a host passes them (a range as its 2-D
  values) and is the same implementation the block kernels call: rooflinexl's own
  through :func:`rooflinexl.recalc.engine.host_call`, SUM & co. by
  :func:`rooflinexl.recalc.functions.excel_numbers`, INDEX of a reference at single
  positions by the block kernel's rule, the rest by
  :func:`rooflinexl.recalc.kernels.function_of`;
* an array formula's result is laid over its range once (:func:`lay_out`): a single
  row or column repeats, cells outside the result are ``#N/A`` (or the function's
  own filler: ``ISNA`` of the missing cells is TRUE, as Excel evaluates them);
* a plain cell (no array formula) shows the top-left value of an array result.

What it cannot do raises :class:`~rooflinexl.recalc.compile.Unsupported` with the
reason; those cells are error values naming it.
"""
from __future__ import annotations

import numpy as np

from rooflinexl.recalc import lambdas, reffunctions
from rooflinexl.recalc.compile import (
    OPERATORS,
    UNION,
    UNKNOWN,
    Arr,
    Call,
    Eta,
    Lit,
    Param,
    Rng,
    Unsupported,
    unknown_reason,
)
from rooflinexl.recalc.functions import EXCEL_NUMBERS, excel_numbers
from rooflinexl.recalc.kernels import (
    BlockEval,
    RangeArg,
    function_of,
    is_operator,
    operator_of,
)
from rooflinexl.recalc.prepass import SCALAR_ARGUMENT_FUNCTIONS
from rooflinexl.recalc.values import ERR, ERRORS, Array, Vec, kind_of

__all__ = ["ArrayEval", "each_element", "excel_broadcast", "first_value", "lay_out"]

#: ranges larger than this are not held as one array
_MAX_CELLS = 20_000_000
#: functions applied element by element with Excel's broadcasting of their arguments
_ELEMENTWISE = frozenset({"IF", "IFERROR", "IFNA", "CHOOSE", "IFS", "SWITCH"})
#: functions that read their argument as a reference, or depend on where or when they
#: run: not evaluated here
#: (SUBTOTAL is not: what it leaves out of its references is taken out of them when
#: compiling, compile.left_out)
_REFUSED = frozenset({"OFFSET", "INDIRECT", "CELL", "NOW", "TODAY", "RAND", "RANDBETWEEN",
                      "LET", "AGGREGATE", "ANCHORARRAY"})


#: functions taking a reference to a list of numbers, and where (argument positions): a
#: union of references there is its areas' values (Microsoft's pages: "Ref  Required. A
#: reference to a list of numbers", LARGE's and SMALL's "array")
_UNION_LISTS = {"RANK": (1,), "RANK.EQ": (1,), "RANK.AVG": (1,), "LARGE": (0,), "SMALL": (0,)}


def _grid(x) -> np.ndarray | None:
    """``x`` as a 2-D object array when it is an array, else None (a scalar)."""
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            return None
        if x.ndim == 1:
            x = x.reshape(1, -1)
        return x
    return None


def _scalar(x):
    """A single value (a 0-d array unwrapped)."""
    if isinstance(x, np.ndarray) and x.ndim == 0:
        return x.item()
    return x


def _like(res, new_x):
    """TREND's (GROWTH's) values in the shape of ``new_x`` (Microsoft, "TREND function":
    one y-value per new x; new_x omitted is known_x, known_x omitted {1,2,3,...} as large
    as known_y), where the function returns a row of new x-values as a column."""
    g, x = _grid(res), _grid(new_x)
    if g is None or x is None or g.size != x.size or g.shape == x.shape or 1 not in x.shape:
        return res
    if 1 not in g.shape:
        return res
    return g.reshape(x.shape)


def _whole_line(g: np.ndarray, pos: list) -> bool:
    """Whether INDEX's positions ``pos`` over the 2-D ``g`` take a whole row or column
    (a row or column position 0, numbers only, one or two of them)."""
    numbers = [_scalar(p) for p in pos]
    return (len(pos) == 2 or len(pos) == 1 and 1 in g.shape) and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in numbers) and (
        0 in [int(x) for x in numbers])


def each_element(grids: list, fn) -> np.ndarray:
    """``fn`` of the values at each position of the 2-D arrays ``grids`` laid over each
    other as Excel lays arguments (:func:`excel_broadcast`): a 2-D object array.

    >>> a = np.array([[1, 2]], dtype=object); b = np.array([[10], [20]], dtype=object)
    >>> each_element([a, b], sum).tolist()
    [[11, 12], [21, 22]]
    """
    grids = excel_broadcast(grids)
    h = max(g.shape[0] for g in grids)
    w = max(g.shape[1] for g in grids)
    grids = [np.broadcast_to(g, (h, w)) for g in grids]
    out = np.empty((h, w), dtype=object)
    for i in range(h):
        for j in range(w):
            out[i, j] = fn([g[i, j] for g in grids])
    return out


def _each_position(pos: list, one) -> Array:
    """``one`` of INDEX's position values at each element of the positions (arrays or
    single values) laid over each other (:func:`each_element`)."""
    grids = [_grid(p) if _grid(p) is not None else np.array([[p]], dtype=object)
             for p in pos]
    return each_element(grids, one).view(Array)


def excel_broadcast(values: list) -> list:
    """Arguments of an element-wise operation brought to one shape as Excel does.

    ``values``: scalars or 2-D arrays. An array of one row (one column) repeats down
    (across); a larger shape is the largest height by the largest width, and an
    argument's cells outside its own size are ``#N/A``. Scalars stay scalars;
    arguments that numpy broadcasts alike are returned unchanged.

    >>> a = np.array([[1.0, 2.0]], dtype=object); b = np.array([[1.0], [2.0], [3.0]], dtype=object)
    >>> [x.shape for x in excel_broadcast([a, b])]
    [(1, 2), (3, 1)]
    >>> c = np.array([[1.0, 2.0, 3.0]], dtype=object); d = np.array([[5.0, 6.0]], dtype=object)
    >>> [str(x) for x in excel_broadcast([c, d])[1][0]]
    ['5.0', '6.0', '#N/A']
    """
    grids = [_grid(v) for v in values]
    shapes = [g.shape for g in grids if g is not None]
    if not shapes:
        return values
    h = max(s[0] for s in shapes)
    w = max(s[1] for s in shapes)
    if all(s[0] in (1, h) and s[1] in (1, w) for s in shapes):
        return values
    out = []
    for v, g in zip(values, grids, strict=True):
        if g is None or g.shape in ((1, 1), (h, w)):
            out.append(v)
            continue
        g = _stretched(g, h, w)
        a, b = g.shape
        full = np.empty((h, w), dtype=object)
        full[:, :] = ERRORS["#N/A"]
        full[:a, :b] = g
        out.append(full.view(Array))
    return out


def _stretched(g: np.ndarray, height: int, width: int) -> np.ndarray:
    """The 2-D array ``g`` with a single row repeated down to ``height`` rows and a single
    column across to ``width`` columns, as Excel lays one row or column over a range."""
    if g.shape[0] == 1:
        g = np.repeat(g, height, axis=0)
    if g.shape[1] == 1:
        g = np.repeat(g, width, axis=1)
    return g


def lay_out(result, height: int, width: int) -> np.ndarray:
    """An array formula's ``result`` over its range of ``height`` x ``width`` cells.

    A single value fills the range; a result of one row repeats down, one column
    repeats across; a list (a 1-D result: MODE.MULT, TREND) lies along the
    range (down a one-column range, else across);
    cells past the result's end are ``#N/A`` -- or the filler the
    function's result carries (its ``_default``: TRUE for ``ISNA``, FALSE for
    ``ISNUMBER``), which is what Excel computes there: it evaluates those cells with
    ``#N/A`` for the missing elements.

    >>> r = lay_out(np.array([[1.0, 2.0]], dtype=object), 2, 3)
    >>> [[str(x) for x in row] for row in r]
    [['1.0', '2.0', '#N/A'], ['1.0', '2.0', '#N/A']]
    """
    if isinstance(result, np.ndarray) and result.ndim == 1 and width == 1:
        result = result.reshape(-1, 1)  # a list (1-D) lies along a one-column range
    g = _grid(result)
    out = np.empty((height, width), dtype=object)
    if g is None:
        out.fill(_scalar(result))
        return out
    out.fill(getattr(g, "_default", ERRORS["#N/A"]))
    g = _stretched(g, height, width)
    a, b = min(g.shape[0], height), min(g.shape[1], width)
    out[:a, :b] = g[:a, :b]
    return out


class ArrayEval:
    """Evaluation of one formula at (``row``, ``col``) of ``sheet`` in array mode.

    ``functions``, ``state`` and ``tokens`` as for
    :class:`~rooflinexl.recalc.kernels.BlockEval`. Error reasons our functions give
    are kept in :attr:`records` as ``(call, seq, code, reason)``.
    """

    def __init__(self, store, sheet: str, row: int, col: int, functions: dict, state,
                 tokens, *, plain: bool = False, cells=None):
        self.store = store
        #: a plain cell (not an array formula): a range outside every function call, or in
        #: the arguments of functions taking one value each, is the one cell in the
        #: formula's row or column (implicit intersection, as the pre-pass writes it)
        self.plain = plain
        #: per function call around the node being evaluated: whether it takes one value
        #: per argument (:data:`~rooflinexl.recalc.prepass.SCALAR_ARGUMENT_FUNCTIONS`)
        self._frames: list[bool] = []
        self.sheet, self.row, self.col = sheet, row, col
        self.functions = functions
        self.state = state
        self.tokens = tokens
        self.key = ("rooflinexl-array", sheet, row, col)  # our functions' error records
        self.records: list[tuple] = []
        self._calls = 0
        #: values of the LAMBDA parameters where the evaluation is (:mod:`.lambdas`)
        self.env: dict = {}
        #: which cells hold which formulas (ISFORMULA, FORMULATEXT): a
        #: :class:`~rooflinexl.recalc.reffunctions.FormulaCells`, or None
        self.cells = cells

    # ------------------------------------------------------------- entry
    def evaluate(self, tree):
        """The formula's value: a scalar or a 2-D array of formulas values."""
        current, state_var = self.tokens
        tok_s = state_var.set(self.state)
        tok_c = current.set(self.key)
        try:
            with np.errstate(all="ignore"):
                res = self.value(tree)
            if lambdas.is_function(res):
                res = self.error("#VALUE!", "a LAMBDA is the formula's value, not called "
                                            "(Excel's #CALC!)")
            return res
        finally:
            current.reset(tok_c)
            state_var.reset(tok_s)
            recs = self.state.udf_errors.pop(self.key, [])
            for code, why, _pos in recs:
                self.records.append((tree, 0, code, why))

    # ------------------------------------------------------------ operands
    def value(self, node):
        if isinstance(node, Lit):
            return node.value
        if isinstance(node, Arr):
            return BlockEval.array(node)
        if isinstance(node, Rng):
            if self.plain and not node.is_cell and all(self._frames):
                return self.intersect(node)  # outside every call, or in one-value arguments
            return self.range(node)
        if isinstance(node, Param):
            return lambdas.lookup(self, node)
        if isinstance(node, Eta):
            return node
        if isinstance(node, Call):
            if node.name in OPERATORS:
                return self.call(node)
            self._frames.append(node.name in SCALAR_ARGUMENT_FUNCTIONS)
            try:
                return self.call(node)
            finally:
                self._frames.pop()
        raise Unsupported(f"node {node!r}")

    def error(self, code: str, reason: str):
        """The error value ``code``, its ``reason`` kept in :attr:`records`."""
        self.records.append((None, 0, code, reason))
        return ERRORS[code]

    @staticmethod
    def array(grid: np.ndarray):
        """A 2-D object array as the evaluator's array value."""
        return grid.astype(object, copy=False).view(Array)

    def intersect(self, node: Rng):
        """Microsoft, "Implicit intersection operator: @": a range where one value belongs
        is the cell in the formula's row (a column range) or column (a row range);
        #VALUE! where there is none (the pre-pass's rule too,
        :func:`rooflinexl.recalc.prepass.implicit_intersection`)."""
        a, b = self._rows(node)
        r = a if a == b else (self.row if a <= self.row <= b else None)
        c = node.c1 if node.c1 == node.c2 else (
            self.col if node.c1 <= self.col <= node.c2 else None)
        if r is None or c is None:
            return ERRORS["#VALUE!"]
        return self.store.objects(node.sheet, r, c, r, c).copy().view(Array)

    def rows_of(self, node: Rng) -> tuple[int, int]:
        """The first and last row of the reference ``node`` where the formula is."""
        return self._rows(node)

    def _rows(self, node: Rng) -> tuple[int, int]:
        a = node.r1 + self.row if node.r1_rel else node.r1
        b = node.r2 + self.row if node.r2_rel else node.r2
        a, b = min(a, b), max(a, b)
        if a < 1:
            raise Unsupported("reference above row 1")
        return a, b

    def range(self, node: Rng) -> np.ndarray:
        """A reference's values as a function is given them: a 2-D array."""
        a, b = self._rows(node)
        if (b - a + 1) * (node.c2 - node.c1 + 1) > _MAX_CELLS:
            raise Unsupported("a range too large to hold as an array")
        return self.store.objects(node.sheet, a, node.c1, b, node.c2).copy().view(Array)

    def index_cell(self, node: Rng, values, pos: list):
        """INDEX of a reference at single position values (not arrays, none 0 where
        :meth:`index_source` takes a whole row or column): the one cell, as a 1x1 array
        (an error value alone), by :meth:`rooflinexl.recalc.kernels.BlockEval.index_cells`;
        None for any other form."""
        g = _grid(values)
        if g is None or not 1 <= len(pos) <= 3 or any(
                isinstance(p, np.ndarray) or hasattr(p, "ranges") for p in pos):
            return None
        if _whole_line(g, pos):
            return None
        cells = Vec.from_objects(g.reshape(-1).tolist())
        rng = RangeArg(cells.kind.reshape(g.shape), cells.num.reshape(g.shape),
                       None if cells.obj is None else cells.obj.reshape(g.shape),
                       None if cells.npy is None else cells.npy.reshape(g.shape), False, node)
        try:
            v = BlockEval.index_cells(rng, *[Vec.from_objects([p]) for p in pos])
        except Unsupported:
            return None
        x = v.item(0)
        if v.kind[0] == ERR:
            return x
        out = np.empty((1, 1), dtype=object)
        out[0, 0] = x
        return out.view(Array)

    def index_at_arrays(self, node: Rng, values, pos: list):
        """INDEX of a reference at positions of which one or more are arrays
        (``INDEX(A1:C3, {1;3}, 2)``): an array of the cells, one per element of the
        positions laid over each other (:func:`each_element`), each as :meth:`index_cell`
        answers it (a position 0 there, a whole row or column, #VALUE!); None for any
        other form (the array form, :func:`rooflinexl.recalc.functions.index_array`)."""
        g = _grid(values)
        if g is None or not 1 <= len(pos) <= 3 or not any(
                isinstance(p, np.ndarray) and p.ndim > 0 for p in pos):
            return None

        def one(ps):
            hit = self.index_cell(node, values, list(ps))
            if hit is None:
                return ERRORS["#VALUE!"]
            return hit if not isinstance(hit, np.ndarray) else hit[0, 0]

        return _each_position(pos, one)

    @staticmethod
    def index_array_at_arrays(values, pos: list):
        """INDEX of an array at positions of which one or more are arrays (``INDEX({2,3;
        4,5}, {1,2})``): per element of the positions laid over each other the array
        form's answer, a whole row or column its first value (the `formulas` project's
        test.xlsx, saved by Excel, LOOKUP AK52:AP54: ``INDEX({2,3;4,5},{1,2})`` is 2 and
        4, ``INDEX({2,3;4,5},{1})`` 2)."""
        fn = function_of("INDEX")

        def one(ps):
            out = fn(values, *ps)
            return out[0, 0] if isinstance(out, np.ndarray) else out

        return _each_position(pos, one)

    # -------------------------------------------------------------- calls
    def call(self, node: Call):
        name = node.name
        if name == UNKNOWN:  # a function no table knows: #NAME?, as Excel (IFERROR sees it)
            from rooflinexl.recalc.prepass import display_function_name

            return self.error("#NAME?",
                              f"unknown function {display_function_name(node.written)}")
        if name in _REFUSED:
            raise Unsupported(f"function {node.written}")
        if name == UNKNOWN:  # a function no table knows: #NAME?, as on the block path
            return self.error("#NAME?", unknown_reason(node.written))
        if name == "SINGLE":  # Excel's @: a range's cell where the formula is (intersect),
            if len(node.args) != 1:  # an array's first value
                raise Unsupported("SINGLE needs one argument")
            a = node.args[0]
            if isinstance(a, Rng) and not a.is_cell:
                return self.intersect(a)
            v = self.value(a)
            g = _grid(v)
            return v if g is None else g[0, 0]
        if name in lambdas.HELPERS:
            return lambdas.call_helper(self, node)
        if name in reffunctions.REFERENCE_FUNCTIONS:
            return reffunctions.reference_function(self, node)
        if name == UNION:
            raise Unsupported("a union of references outside AREAS, ISREF, SUM ...")
        if name == "INDEX" and node.args and isinstance(node.args[0], Call) and (
                node.args[0].name == UNION):
            return reffunctions.index_of_union(self, node)
        if name in ("ROW", "COLUMN"):
            return self.row_col(node)
        if name in ("ROWS", "COLUMNS"):
            return self.rows_cols(node)
        if name in self.functions:
            return self.udf(node)
        if name in EXCEL_NUMBERS:
            return self.numbers(node)
        args = [self.value(a) for a in node.args]
        if any(lambdas.is_function(a) for a in args):
            raise Unsupported(f"a LAMBDA given to {node.written}")
        if name == "INDEX":  # a one-cell reference as a position is one value (an
            # array constant or a computed 1x1 array is an array)
            args[1:] = [_scalar(p[0, 0]) if isinstance(a, Rng) and a.is_cell else p
                        for a, p in zip(node.args[1:], args[1:], strict=True)]
            if node.args and isinstance(node.args[0], Rng):
                own = self.index_cell(node.args[0], args[0], args[1:])
                if own is None:
                    own = self.index_at_arrays(node.args[0], args[0], args[1:])
                if own is not None:
                    return own
            if any(isinstance(p, np.ndarray) and p.ndim > 0 for p in args[1:]):
                return self.index_array_at_arrays(args[0], args[1:])
        if name in _ELEMENTWISE or is_operator(node.written):
            args = excel_broadcast(args)
        fn = operator_of(node.written) if is_operator(node.written) else function_of(
            node.written)
        try:
            res = fn(*args)
        except Exception as ex:  # noqa: BLE001 - any failure: an error value naming it
            raise Unsupported(f"{node.written} failed ({type(ex).__name__})") from None
        res = self._result(res)
        if name in ("TREND", "GROWTH") and args:  # new_x, by default known_x, known_y
            res = _like(res, args[min(len(args), 3) - 1])
        return res

    @staticmethod
    def _result(res):
        if isinstance(res, (list, tuple)):  # MODE.MULT, TREND: a list
            res = np.array(list(res) or [ERRORS["#N/A"]], dtype=object)
            if res.ndim != 1:
                raise Unsupported("an array inside an array")
        if isinstance(res, np.ndarray):
            if res.ndim == 0:
                return res.item()
            if res.ndim == 1:  # kept 1-D: lay_out lays it along its range
                return res.astype(object)
            if res.dtype != object:
                res = res.astype(object)
            for x in res.reshape(-1).tolist():
                if isinstance(x, np.ndarray) and x.size != 1 or hasattr(x, "ranges"):
                    raise Unsupported("an array inside an array")
            return res if isinstance(res, Array) else res.view(Array)
        return res

    def row_col(self, node: Call):
        """ROW/COLUMN: of the cell, or of every row (column) of a reference."""
        row = node.name == "ROW"
        if not node.args:
            return float(self.row if row else self.col)
        ref = node.args[0]
        if len(node.args) != 1 or not isinstance(ref, Rng):
            raise Unsupported(f"{node.name} of something other than a reference")
        if row:
            a, b = self._rows(ref)
            return np.arange(a, b + 1, dtype=float).astype(object).reshape(-1, 1).view(Array)
        return np.arange(ref.c1, ref.c2 + 1, dtype=float).astype(object).reshape(
            1, -1).view(Array)

    def rows_cols(self, node: Call):
        if len(node.args) != 1:
            raise Unsupported(f"{node.name} with {len(node.args)} arguments")
        arg = node.args[0]
        if isinstance(arg, Call) and arg.name == UNION:  # test.xlsx LOOKUP!S15, S115
            return self.error("#REF!", f"{node.name} of a union of references")
        if isinstance(arg, Lit) and kind_of(arg.value) == ERR and str(arg.value) == "#NULL!":
            return arg.value  # an intersection with nothing in common (LOOKUP!T15)
        if isinstance(arg, Rng):
            a, b = self._rows(arg)
            return float(b - a + 1 if node.name == "ROWS" else arg.c2 - arg.c1 + 1)
        g = _grid(self.value(arg))
        if g is None:
            return 1.0
        return float(g.shape[0] if node.name == "ROWS" else g.shape[1])

    def udf(self, node: Call):
        """One of our functions, through the host adapter (``engine.host_call``). A union
        of references where a function takes a reference to a list of numbers (RANK's
        ref, LARGE's array ...: :data:`_UNION_LISTS`) is the values of its areas, one
        after the other (POI's 61063.xlsx, saved by Excel: ``RANK(A1,(B1,B2,B3),1)``)."""
        from rooflinexl.recalc import engine

        fn = _ADAPTERS.get(node.name)
        if fn is None:
            fn = _ADAPTERS[node.name] = engine.host_call(node.name,
                                                         self.functions[node.name])
        lists = _UNION_LISTS.get(node.name, ())
        args = [self.union_values(a) if k in lists and isinstance(a, Call) and (
            a.name == UNION) else self.value(a) for k, a in enumerate(node.args)]
        self._calls += 1
        current = self.tokens[0]
        key = (*self.key, "udf", self._calls)
        tok = current.set(key)
        try:
            res = fn(*args)
        finally:
            current.reset(tok)
            for code, why, _pos in self.state.udf_errors.pop(key, []):
                self.records.append((node, self._calls, code, why))
        return self._result(res)

    def union_values(self, node: Call) -> np.ndarray:
        """The values of every area of a union of references, as one column."""
        parts = [np.asarray(_grid(self.range(r)), dtype=object).reshape(-1, 1)
                 for r in node.args]
        return np.concatenate(parts).view(Array)

    def numbers(self, node: Call):
        """SUM, PRODUCT, AVERAGE, MAX, MIN, COUNT with Excel's argument rules: a reference
        (or INDEX's result) skips text and booleans, a typed or computed value counts."""
        from rooflinexl.recalc import engine

        in_errors: list = []
        args = []
        for a in node.args:
            if isinstance(a, Call) and a.name == UNION:  # each area a reference argument
                args.extend((False, engine.to_host(self.range(r), in_errors)) for r in a.args)
                continue
            x = self.value(a)
            ref = isinstance(a, Rng) or isinstance(a, Call) and a.name == "INDEX"
            if ref:
                args.append((False, engine.to_host(x, in_errors)))
            else:
                args.append(engine.host_numbers_arg(x, in_errors))
        self._calls += 1
        current = self.tokens[0]
        key = (*self.key, "numbers", self._calls)
        tok = current.set(key)
        try:
            res = engine.from_host(excel_numbers(node.name, args), node.name, self.state,
                                   in_errors)
        finally:
            current.reset(tok)
            for code, why, _pos in self.state.udf_errors.pop(key, []):
                self.records.append((node, self._calls, code, why))
        return self._result(res)


_ADAPTERS: dict = {}


def first_value(x):
    """The value a plain cell shows for a result ``x``: its top-left element when it is
    an array, else ``x``.

    >>> first_value(np.array([[3.0, 4.0]], dtype=object))
    3.0
    """
    g = _grid(x)
    if g is None:
        return _scalar(x)
    if g.size == 0:
        raise Unsupported("an empty array")
    return _scalar(g[0, 0])
