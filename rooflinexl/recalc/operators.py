"""Excel's operators on single values and element by element over arrays.

The block and array evaluators' own operators (their numpy fast paths cover rows of
plain numbers; these take every kind of value). Rules (Microsoft, "Calculation
operators and precedence in Excel", "Using calculation operators in Excel formulas",
read 2026-12-01; the cached values of Excel-saved books):

* an error value operand is the result, the left operand's first;
* arithmetic (``+ - * / ^``, unary ``-``, ``%``) reads an empty cell as 0, a boolean as
  0/1 and numeric text as its number (other text: ``#VALUE!``); a result that is not a
  finite number is ``#NUM!``; ``x/0`` is ``#DIV/0!``, ``0^-1`` ``#DIV/0!`` and ``0^0``
  ``#NUM!`` (:func:`rooflinexl.recalc.functions.power`);
* ``&`` joins the values as text (:func:`rooflinexl.recalc.functions.value_text`:
  ``TRUE``, 15 significant digits), an empty cell as "";
* comparisons order numbers < text < booleans, compare text case-insensitively, and
  read an empty cell as the other operand's kind of nothing: "" against text, FALSE
  against a boolean, else 0 (so an empty cell equals FALSE, "" and 0); the result is a
  boolean.

>>> add(1.0, "2"), str(div(1.0, BLANK)), concat(True, 1.5), lt("a", "B"), gt(True, "z")
(3.0, '#DIV/0!', 'TRUE1.5', True, True)
>>> str(power_op(0.0, -1.0)), eq(BLANK, ""), eq(BLANK, 0.0), eq(BLANK, False), str(add("x", 1.0))
('#DIV/0!', True, True, True, '#VALUE!')
"""
from __future__ import annotations

import math
import re

import numpy as np

from rooflinexl.errors import ExcelError
from rooflinexl.recalc.functions import power, value_text
from rooflinexl.recalc.values import BLANK, ERRORS, Array

__all__ = ["BINARY", "UNARY", "add", "apply", "concat", "div", "eq", "ge", "gt", "le", "lt",
           "mul", "ne", "neg", "percent", "pos", "power_op", "sub"]

_NUMERIC_TEXT = re.compile(r"^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$")


class _Fail(Exception):
    def __init__(self, err: ExcelError):
        self.err = err


def _number(x) -> float:
    """An arithmetic operand as a number (:class:`_Fail` with the error value else)."""
    t = type(x)
    if t is float:
        return x
    if t is ExcelError:
        raise _Fail(x)
    if x is BLANK or x is None:
        return 0.0
    if isinstance(x, (bool, np.bool_, int, np.integer, np.floating)):
        return float(x)
    if isinstance(x, str):
        if _NUMERIC_TEXT.match(x):
            return float(x)
        raise _Fail(ERRORS["#VALUE!"])
    raise _Fail(ERRORS["#VALUE!"])


def _finite(r: float):
    return r if math.isfinite(r) else ERRORS["#NUM!"]


def _arith(fn):
    def op(x, y):
        if type(x) is ExcelError:
            return x
        if type(y) is ExcelError:
            return y
        try:
            return fn(_number(x), _number(y))
        except _Fail as f:
            return f.err
    op.__name__ = fn.__name__
    return op


@_arith
def add(x, y):
    return _finite(x + y)


@_arith
def sub(x, y):
    return _finite(x - y)


@_arith
def mul(x, y):
    return _finite(x * y)


@_arith
def div(x, y):
    if y == 0:
        return ERRORS["#DIV/0!"]
    return _finite(x / y)


@_arith
def power_op(x, y):
    r = power(x, y)
    return ERRORS[str(r)] if isinstance(r, ExcelError) else r


def neg(x):
    try:
        return _finite(-_number(x))
    except _Fail as f:
        return f.err


def percent(x):
    try:
        return _finite(_number(x) / 100.0)
    except _Fail as f:
        return f.err


def pos(x):
    """Unary plus: the value itself (an empty cell 0)."""
    return 0.0 if x is BLANK or x is None else x


def concat(x, y):
    if type(x) is ExcelError:
        return x
    if type(y) is ExcelError:
        return y
    return _text(x) + _text(y)


def _text(x) -> str:
    if x is BLANK or x is None:
        return ""
    return value_text(x)


def _key(x, other) -> tuple:
    """(type order, value): numbers 0, text 1, booleans 2; text upper-cased; an empty
    cell "" against text, FALSE against a boolean, else 0."""
    if x is BLANK or x is None:
        x = ("" if isinstance(other, str) else False if isinstance(other, (bool, np.bool_))
             else 0.0)
    if isinstance(x, (bool, np.bool_)):
        return 2, bool(x)
    if isinstance(x, str):
        return 1, x.upper()
    return 0, float(x)


def _comparison(fn):
    def op(x, y):
        if type(x) is ExcelError:
            return x
        if type(y) is ExcelError:
            return y
        return bool(fn(_key(x, y), _key(y, x)))
    op.__name__ = fn.__name__
    return op


@_comparison
def eq(a, b):
    return a == b


@_comparison
def ne(a, b):
    return a != b


@_comparison
def lt(a, b):
    return a < b


@_comparison
def gt(a, b):
    return a > b


@_comparison
def le(a, b):
    return a <= b


@_comparison
def ge(a, b):
    return a >= b


#: binary operators by their symbol
BINARY = {"+": add, "-": sub, "*": mul, "/": div, "^": power_op, "&": concat,
          "=": eq, "<>": ne, "<": lt, ">": gt, "<=": le, ">=": ge}
#: unary operators by their name in the compiled tree
UNARY = {"u-": neg, "u+": pos, "%": percent}
_UFUNCS: dict = {}


def apply(op, *args):
    """``op`` (one of :data:`BINARY` or :data:`UNARY`) element by element over ``args``
    (values or object arrays that numpy broadcasts): a value for values, an
    :class:`~rooflinexl.recalc.values.Array` when an argument is an array."""
    if not any(isinstance(a, np.ndarray) for a in args):
        return op(*args)
    uf = _UFUNCS.get(op)
    if uf is None:
        uf = _UFUNCS[op] = np.frompyfunc(op, len(args), 1)
    out = uf(*[a if isinstance(a, np.ndarray) else _cell(a) for a in args])
    out = np.asarray(out, dtype=object)
    return out.view(Array) if out.ndim == 2 else out


def _cell(x) -> np.ndarray:
    """A value as a 0-d object array (a str is not split, an array not nested)."""
    c = np.empty((), dtype=object)
    c[()] = x
    return c
