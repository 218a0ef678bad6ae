"""Excel built-in functions the headless engine implements itself, to Excel's documented rules.

These are the first entries of the engine's own function table: where the
``formulas`` library's implementation differs from Excel, the function is
written here from Microsoft's reference and checked against workbooks saved
by Excel (``tests/data/excel-oracle-dev``). They take and return values as
spreadsheet hosts pass them (:mod:`rooflinexl.recalc.engine`): ``None`` for an
empty cell, ``bool``, numbers, ``str``, :class:`~rooflinexl.errors.ExcelError`;
a multi-cell range as a list of row lists. Both evaluation paths call them
through the same adapter as rooflinexl's own functions.

``VDB`` follows Excel's own schedule for fractional periods (see :func:`_vdb_switching`).

Base conversions (``DEC2BIN`` ... ``HEX2OCT``; Microsoft, "DEC2BIN function"
and its siblings, read 2026-12-01): ten-character two's complement for
negative numbers (``places`` then ignored), ``places`` from 1 to 10 (else
``#NUM!``), a result longer than ``places`` is ``#NUM!``, a number outside the
base's range is ``#NUM!``, text that is not a number in the base is ``#NUM!``.

>>> f = BUILTINS
>>> f["DEC2BIN"](10, 6), f["DEC2HEX"](-1), f["BIN2HEX"]("110", "5"), f["HEX2DEC"]("FFFFFFFFFF")
('001010', 'FFFFFFFFFF', '00006', -1.0)
>>> str(f["DEC2BIN"](10, 3)), str(f["DEC2BIN"]("x")), str(f["BIN2DEC"]("12"))
('#NUM!', '#VALUE!', '#NUM!')
"""
from __future__ import annotations

import math

import numpy as np

from rooflinexl.errors import ExcelError

__all__ = ["BUILTINS", "complex_text", "power", "value_text"]

def value_text(x) -> str:
    """A value as Excel turns it into text (``&``, ``LEN``, ``LEFT`` ...).

    Numbers keep at most 15 significant digits, in plain notation for decimal
    exponents -5 to 14 and as ``1.15292150460685E+18`` outside it (two-digit
    signed exponent); booleans are ``TRUE``/``FALSE``, whatever their type.

    >>> [value_text(v) for v in (1 / 3, 0.1 + 0.2, 2.0**60, 1e-20, 3.0, -0.0, True)]
    ['0.333333333333333', '0.3', '1.15292150460685E+18', '1E-20', '3', '0', 'TRUE']
    """
    if isinstance(x, (bool, np.bool_)):
        return "TRUE" if x else "FALSE"
    if isinstance(x, (int, float, np.integer, np.floating)):
        x = float(x)
        if x == 0 or not math.isfinite(x):
            return "0" if x == 0 else str(x)
        s = f"{x:.15g}"
        if "e" in s:
            mant, exp = s.split("e")
            e = int(exp)
            return f"{mant}E{'+' if e >= 0 else '-'}{abs(e):02d}"
        return s
    return str(x)


def complex_text(re: float, im: float, suffix: str = "i") -> str:
    """A complex number as Excel's COMPLEX and IM... functions write it: each part with
    15 significant digits (:func:`value_text`), a unit imaginary part as the bare suffix.

    >>> complex_text(1 / 3, 1.0), complex_text(0.0, -1.0), complex_text(2.5, 0.0)
    ('0.333333333333333+i', '-i', '2.5')
    >>> complex_text(-1.0, -0.5, "j"), complex_text(0.0, 0.0)
    ('-1-0.5j', '0')
    """
    if im == 0:
        return value_text(re)
    part = "" if abs(im) == 1 else value_text(abs(im))
    sign = "-" if im < 0 else "+"
    if re == 0:
        return ("-" if im < 0 else "") + part + suffix
    return value_text(re) + sign + part + suffix


def power(x: float, y: float):
    """Excel's ``x^y`` of two numbers: ``0^0`` is ``#NUM!``, ``0^-1`` is ``#DIV/0!``, a
    negative base with a fractional exponent or an overflow is ``#NUM!``.

    >>> power(2.0, 10.0), str(power(0.0, -1.0)), str(power(0.0, 0.0)), str(power(-8.0, 0.5))
    (1024.0, '#DIV/0!', '#NUM!', '#NUM!')
    """
    if x == 0:
        if y == 0:
            return ExcelError("#NUM!", "0^0 is undefined")
        if y < 0:
            return ExcelError("#DIV/0!", "0 raised to a negative power")
    try:
        r = float(x) ** float(y)
    except OverflowError:
        return ExcelError("#NUM!", "the result is too large")
    if isinstance(r, complex) or not math.isfinite(r):
        return ExcelError("#NUM!", "no real result")
    return r


_BASES = {"BIN": 2, "OCT": 8, "DEC": 10, "HEX": 16}
_DIGITS = "0123456789ABCDEF"


class _Err(Exception):
    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.error = ExcelError(code, reason)


def _scalar(x, what: str):
    """One value from a host argument: a 1x1 range is its cell; a larger one is #VALUE!."""
    if isinstance(x, list):
        if len(x) == 1 and isinstance(x[0], list) and len(x[0]) == 1:
            x = x[0][0]
        else:
            raise _Err("#VALUE!", f"{what}: a range where one value belongs")
    elif hasattr(x, "shape"):  # a whole column from the block path: go row by row
        raise TypeError("scalar function")
    if isinstance(x, ExcelError):
        raise _Err(str(x), getattr(x, "reason", "") or f"{what} is an error value")
    return x


def _number(x, what: str) -> float:
    """Excel's coercion of an argument to a number: empty is 0, numeric text its number."""
    if x is None:
        return 0.0
    if isinstance(x, bool):
        raise _Err("#VALUE!", f"{what} is a boolean, not a number")
    if isinstance(x, (int, float)):
        return float(x)
    try:
        v = float(str(x).strip())
    except ValueError:
        raise _Err("#VALUE!", f"{what} {x!r} is not a number") from None
    if not math.isfinite(v):
        raise _Err("#VALUE!", f"{what} {x!r} is not a number")
    return v


def _places(p) -> int | None:
    if p is None:
        return None
    n = math.trunc(_number(_scalar(p, "places"), "places"))
    if not 1 <= n <= 10:
        raise _Err("#NUM!", f"places must be from 1 to 10, not {n}")
    return n


def _parse(x, base: int) -> int:
    """A number written in ``base`` (at most 10 digits, two's complement) as an integer."""
    x = _scalar(x, "number")
    if isinstance(x, bool):
        raise _Err("#VALUE!", "number is a boolean")
    if x is None:
        text = "0"
    elif isinstance(x, (int, float)):
        if x != int(x) or x < 0:
            raise _Err("#NUM!", f"{x!r} is not a base-{base} number")
        text = str(int(x))
    else:
        text = str(x).strip().upper() or "0"
    if len(text) > 10 or any(ch not in _DIGITS[:base] for ch in text):
        raise _Err("#NUM!", f"{x!r} is not a base-{base} number of at most 10 digits")
    v = int(text, base)
    if len(text) == 10 and v >= base ** 10 // 2:
        v -= base ** 10
    return v


def _format(v: int, base: int, places: int | None) -> str:
    half = base ** 10 // 2
    if not -half <= v < half:
        raise _Err("#NUM!", f"{v} is outside the base-{base} range [{-half}, {half - 1}]")
    if v < 0:
        v += base ** 10
        places = None
    text = ""
    while True:
        text = _DIGITS[v % base] + text
        v //= base
        if v == 0:
            break
    if places is not None:
        if len(text) > places:
            raise _Err("#NUM!", f"{text} needs more than {places} places")
        text = text.rjust(places, "0")
    return text


def _converter(src: str, dst: str):
    b_src, b_dst = _BASES[src], _BASES[dst]

    def convert(number, places=None):
        try:
            digits = None if b_dst == 10 else _places(places)  # checked first, as Excel does
            if b_src == 10:
                x = _scalar(number, "number")
                if x == "":
                    raise _Err("#VALUE!", "number is empty text")
                v = math.trunc(_number(x, "number"))
            else:
                v = _parse(number, b_src)
            if b_dst == 10:
                if places is not None:
                    raise _Err("#VALUE!", f"{src}2DEC takes one argument")
                return float(v)
            return _format(v, b_dst, digits)
        except _Err as ex:
            return ex.error

    convert.__name__ = convert.__qualname__ = f"{src}2{dst}"
    convert.__doc__ = f"Excel's {src}2{dst}(number, [places])."
    return convert


def _ddb(cost: float, salvage: float, life: float, period: float, factor: float) -> float:
    """Double-declining-balance depreciation of one whole period (never below salvage)."""
    rate = factor / life
    if rate >= 1.0:
        rate = 1.0
        old = cost if period == 1.0 else 0.0
    else:
        old = cost * (1.0 - rate) ** (period - 1.0)
    new = cost * (1.0 - rate) ** period
    ddb = old - salvage if new < salvage else old - new
    return max(ddb, 0.0)


def _vdb_switching(cost, salvage, life, start, end, factor) -> float:
    """VDB with the switch to straight line, on Excel's grid of periods.

    Excel steps through periods that start at ``start``'s fractional part: a first
    period of that length (declining balance, pro rata), then whole periods. Each whole
    period takes the larger of the declining balance (``rest * factor / life``, never
    below salvage) and the straight line over the life left (``(rest - salvage) /
    (life - t)``); once straight line wins it stays. Only the part of each period
    inside ``[start, end]`` counts, pro rata. (Worked out from Excel's cached values in
    ``tests/data/excel-oracle-dev``: VDB of 13.5..14 is half of the straight line that
    starts at 3.5, not at 3.)
    """
    rate = min(factor / life, 1.0)
    frac = start - math.floor(start)
    rest, t, total = cost, 0.0, 0.0
    sl = None
    edges = ([frac] if frac > 0 else []) + [frac + k for k in range(1, math.ceil(life) + 2)]
    for b in edges:
        a, length = t, b - t
        if sl is None:
            ddb = min(rest * rate, max(rest - salvage, 0.0))
            left = life - a
            line = (rest - salvage) / left if left > 0 else 0.0
            if length == 1.0 and line > ddb:
                sl = line
        full = sl if sl is not None else min(rest * rate, max(rest - salvage, 0.0))
        overlap = max(0.0, min(b, end) - max(a, start))
        total += full * overlap
        rest -= full * length
        t = b
        if b >= end:
            break
    return total


def _vdb(cost, salvage, life, start, end, factor=2.0, no_switch=False):
    """Excel's VDB (Microsoft, "VDB function", read 2026-12-01): depreciation from
    ``start`` to ``end`` (fractions of periods allowed) by declining balance at
    ``factor``, switching to straight line when that is larger unless ``no_switch``.

    The examples of Microsoft's page (cost 2400, salvage 300, life 10 years):

    >>> [round(_vdb(2400, 300, n, a, b, *f), 2) for n, a, b, *f in (
    ...     (3650, 0, 1), (120, 0, 1), (10, 0, 1), (120, 6, 18), (120, 6, 18, 1.5),
    ...     (10, 0, 0.875, 1.5))]
    [1.32, 40.0, 480.0, 396.31, 311.81, 315.0]
    """
    try:
        cost, salvage, life, start, end = (
            _number(_scalar(v, what), what) for v, what in
            ((cost, "cost"), (salvage, "salvage"), (life, "life"), (start, "start_period"),
             (end, "end_period")))
        factor = 2.0 if factor is None else _number(_scalar(factor, "factor"), "factor")
        keep = _scalar(no_switch, "no_switch")
        keep = keep if isinstance(keep, bool) else bool(_number(keep, "no_switch"))
        if start < 0 or end < start or end > life or cost < 0 or salvage > cost or factor <= 0:
            raise _Err("#NUM!", "VDB: periods outside 0..life, or a negative cost or factor")
        i_start, i_end = math.floor(start), math.ceil(end)
        if keep:  # declining balance throughout
            vdb = 0.0
            for i in range(int(i_start) + 1, int(i_end) + 1):
                term = _ddb(cost, salvage, life, float(i), factor)
                if i == i_start + 1:
                    term *= min(end, i_start + 1.0) - start
                elif i == i_end:
                    term *= end + 1.0 - i_end
                vdb += term
            return vdb
        return _vdb_switching(cost, salvage, life, start, end, factor)
    except _Err as ex:
        return ex.error
    except (ZeroDivisionError, OverflowError):
        return ExcelError("#NUM!", "VDB: no finite result")


#: Excel name -> function (host conventions), for both evaluation paths
BUILTINS = {f"{a}2{b}": _converter(a, b) for a in _BASES for b in _BASES if a != b}
BUILTINS["VDB"] = _vdb

