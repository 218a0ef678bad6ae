"""LAMBDA values and the functions that take them, in the array evaluator.

``LET``, a ``LAMBDA`` called where it is written (``LAMBDA(x, x+1)(3)``) and a named
LAMBDA (a defined name whose formula is a LAMBDA) are written out by the pre-pass
(:func:`rooflinexl.recalc.prepass.rewrite_formula`) before parsing. What is left is a
LAMBDA given as a value to one of the helper functions -- MAP, REDUCE, SCAN, BYROW,
BYCOL, MAKEARRAY -- or a function given by name (Excel's eta-reduced lambda,
``BYROW(A1:C3, _xleta.SUM)``). Those are evaluated here, one cell (one array formula)
at a time, by :class:`~rooflinexl.recalc.arrays.ArrayEval`: a LAMBDA is a
:class:`Closure` (its parameters, its body and the parameters bound around it), called
by evaluating its body with its parameters bound to the values it is given.

Rules (Microsoft, "LAMBDA function", "MAP function", "REDUCE function", "SCAN function",
"BYROW function", "BYCOL function", "MAKEARRAY function", "ISOMITTED function", read
2026-12-01), checked against the values Excel saved in the `formulas` project's
test.xlsx (sheet LOGICAL, rows 4 to 24):

* a LAMBDA given the wrong number of values is ``#VALUE!``;
* MAP applies the LAMBDA to the elements of its arrays at the same position (brought
  to one shape as an operator's operands are); SCAN gives the accumulator after each
  element (row by row) in the shape of the array; REDUCE the last one; BYROW one value
  per row, BYCOL one per column; MAKEARRAY the LAMBDA of every (row, column) index pair,
  from 1 -- where a LAMBDA returns an array where one value belongs Excel gives
  ``#CALC!``, here ``#VALUE!`` with that reason (as the engine does for every ``#CALC!``);
* an omitted initial value of REDUCE and SCAN is a blank (0 in arithmetic); MAKEARRAY's
  rows and columns are whole numbers of 1 or more (TRUE is 1; 0, 2.3, -1, a blank or a
  text are ``#VALUE!``, an error value is itself), an array of them gives one array per
  element, of which each cell shows the first value (test.xlsx LOGICAL!R14:AF15);
* a LAMBDA that is a cell's value (not called) is Excel's ``#CALC!``, here ``#VALUE!``.

What Excel documents but the evaluator leaves to the per-cell engine raises
:class:`~rooflinexl.recalc.compile.Unsupported`: a LAMBDA or function name given to
any other function, a parameter read outside its LAMBDA.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rooflinexl.recalc.compile import CALL_PARAM, Call, Eta, Lit, Param, Unsupported
from rooflinexl.recalc.values import BOOL, ERR, NUM, kind_of

__all__ = ["HELPERS", "Closure", "OMITTED", "call_helper", "is_function", "lookup"]

#: the functions that take a LAMBDA (and LAMBDA itself, whose value is one)
HELPERS = frozenset({"LAMBDA", "MAP", "REDUCE", "SCAN", "BYROW", "BYCOL", "MAKEARRAY",
                     "ISOMITTED", CALL_PARAM})
#: MAKEARRAY results larger than this are not built here
_MAX_CELLS = 1_000_000


@dataclass
class Closure:
    """A LAMBDA as a value: parameter names (upper case, ``_xlpm.`` dropped), the body,
    and the values of the parameters of the LAMBDAs around it when it was made."""

    params: tuple[str, ...]
    body: object
    env: dict


class _Omitted:
    def __repr__(self) -> str:
        return "OMITTED"


#: the value of a LAMBDA parameter given no value (ISOMITTED is TRUE of it)
OMITTED = _Omitted()


def is_function(x) -> bool:
    """Whether ``x`` is a function value (a LAMBDA or a function given by name).

    >>> is_function(Closure(("X",), None, {})), is_function(2.0)
    (True, False)
    """
    return isinstance(x, (Closure, Eta))


def lookup(ev, node: Param):
    """The value of the LAMBDA parameter ``node`` where ``ev`` is evaluating."""
    try:
        x = ev.env[node.name]
    except KeyError:
        raise Unsupported(f"parameter _xlpm.{node.name} outside its LAMBDA") from None
    if x is OMITTED:
        return 0.0  # an omitted value reads as a blank
    return x


def _grid(x) -> np.ndarray:
    """``x`` as a 2-D object array (a scalar as 1 x 1)."""
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            return np.array([[x.item()]], dtype=object)
        return x.reshape(1, -1) if x.ndim == 1 else x
    return np.array([[x]], dtype=object)


def _one(ev, x, name: str):
    """One value where a LAMBDA's result is one element of a helper's result."""
    if is_function(x):
        return ev.error("#VALUE!", f"{name}: the LAMBDA returns a LAMBDA (Excel's #CALC!)")
    if isinstance(x, np.ndarray):
        if x.size == 1:
            return x.reshape(-1)[0]
        return ev.error("#VALUE!", f"{name}: the LAMBDA returns an array where one value "
                                   "belongs (Excel's #CALC!)")
    return x


def apply(ev, fn, values: list, name: str):
    """``fn`` (a :class:`Closure` or an :class:`~rooflinexl.recalc.compile.Eta`) called
    with ``values``; a LAMBDA given the wrong number of them is ``#VALUE!``."""
    if isinstance(fn, Eta):
        return ev.value(Call(fn.name, [Lit(v) for v in values], fn.written))
    if len(values) != len(fn.params):
        return ev.error("#VALUE!", f"{name}: the LAMBDA takes {len(fn.params)} "
                                   f"parameter(s), given {len(values)}")
    saved = ev.env
    ev.env = {**fn.env, **dict(zip(fn.params, values, strict=True))}
    try:
        res = ev.value(fn.body)
    finally:
        ev.env = saved
    return res


def call_helper(ev, node: Call):
    """The value of a call of LAMBDA or one of :data:`HELPERS` in ``ev`` (an
    :class:`~rooflinexl.recalc.arrays.ArrayEval`)."""
    name = node.name
    if name == "LAMBDA":
        return _lambda(ev, node)
    if name == "ISOMITTED":
        if len(node.args) != 1:
            return ev.error("#VALUE!", "ISOMITTED takes one argument")
        arg = node.args[0]
        return isinstance(arg, Param) and ev.env.get(arg.name) is OMITTED
    if name == CALL_PARAM:  # LET(f, LAMBDA(x, x+1), f(2))
        fn = ev.value(node.args[0])
        if not is_function(fn):
            return ev.error("#VALUE!", f"{node.written}: the name does not hold a LAMBDA")
        return apply(ev, fn, [ev.value(a) for a in node.args[1:]], node.written)
    if not node.args:
        return ev.error("#VALUE!", f"{name} without arguments")
    fn = ev.value(node.args[-1])
    if not is_function(fn):
        return ev.error("#VALUE!", f"{name}: its last argument is not a LAMBDA")
    args = [ev.value(a) for a in node.args[:-1]]
    if any(is_function(a) for a in args):
        return ev.error("#VALUE!", f"{name}: a LAMBDA where an array belongs")
    return _HELPERS[name](ev, fn, args, name)


def _lambda(ev, node: Call) -> Closure:
    if not node.args:
        return ev.error("#VALUE!", "LAMBDA without a calculation")
    params = []
    for p in node.args[:-1]:
        if not isinstance(p, Param):
            raise Unsupported("a LAMBDA parameter that is not a name")
        if p.name in params:
            return ev.error("#VALUE!", f"LAMBDA: parameter {p.name} twice")
        params.append(p.name)
    return Closure(tuple(params), node.args[-1], dict(ev.env))


def _map(ev, fn, args: list, name: str):
    if not args:
        return ev.error("#VALUE!", "MAP without an array")
    from rooflinexl.recalc.arrays import each_element

    return ev.array(each_element([_grid(a) for a in args],
                                 lambda vals: _one(ev, apply(ev, fn, vals, name), name)))


def _fold(ev, fn, args: list, name: str):
    """REDUCE and SCAN: ([initial_value], array, lambda(accumulator, value))."""
    if len(args) not in (1, 2):
        return ev.error("#VALUE!", f"{name} takes an initial value, an array and a LAMBDA")
    acc = args[0] if len(args) == 2 else 0.0
    g = _grid(args[-1])
    steps = []
    for x in g.reshape(-1).tolist():
        acc = apply(ev, fn, [acc, x], name)
        if name == "SCAN":
            steps.append(_one(ev, acc, name))
    if name == "REDUCE":
        return acc
    return ev.array(np.array(steps, dtype=object).reshape(g.shape))


def _by(ev, fn, args: list, name: str):
    if len(args) != 1:
        return ev.error("#VALUE!", f"{name} takes an array and a LAMBDA")
    g = _grid(args[0])
    if name == "BYROW":
        parts = [ev.array(g[i:i + 1, :].copy()) for i in range(g.shape[0])]
        shape = (g.shape[0], 1)
    else:
        parts = [ev.array(g[:, j:j + 1].copy()) for j in range(g.shape[1])]
        shape = (1, g.shape[1])
    out = [_one(ev, apply(ev, fn, [p], name), name) for p in parts]
    return ev.array(np.array(out, dtype=object).reshape(shape))


def _size(ev, x, what: str):
    """MAKEARRAY's number of rows or columns, or the error value it gives."""
    k = kind_of(x)
    if k == ERR:
        return x
    if k == BOOL:
        x = float(x)
    elif k != NUM:  # a blank or a text, "0" too (test.xlsx LOGICAL!X14)
        return ev.error("#VALUE!", f"MAKEARRAY: {what} is not a number")
    x = float(x)
    if x < 1 or x != int(x):
        return ev.error("#VALUE!", f"MAKEARRAY: {what} {x:g} is not a whole number of 1 "
                                   "or more")
    return int(x)


def _makearray(ev, fn, args: list, name: str):
    if len(args) != 2:
        return ev.error("#VALUE!", "MAKEARRAY takes rows, columns and a LAMBDA")
    if any(isinstance(a, np.ndarray) and a.size > 1 for a in args):
        from rooflinexl.recalc.arrays import each_element, first_value

        return ev.array(each_element([_grid(a) for a in args], lambda vals: first_value(
            _makearray(ev, fn, vals, name))))
    rows = _size(ev, _grid(args[0])[0, 0], "rows")
    cols = _size(ev, _grid(args[1])[0, 0], "columns")
    for n in (rows, cols):
        if not isinstance(n, int):
            return n
    if rows * cols > _MAX_CELLS:
        raise Unsupported("MAKEARRAY of more cells than the evaluator builds")
    out = np.empty((rows, cols), dtype=object)
    for i in range(rows):
        for j in range(cols):
            out[i, j] = _one(ev, apply(ev, fn, [float(i + 1), float(j + 1)], name), name)
    return ev.array(out)


_HELPERS = {"MAP": _map, "REDUCE": _fold, "SCAN": _fold, "BYROW": _by, "BYCOL": _by,
            "MAKEARRAY": _makearray}
