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
import re

import numpy as np

from rooflinexl.errors import ExcelError

__all__ = ["BUILTINS", "complex_text", "cut_position", "offset_address", "power",
           "value_text"]

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



# ------------------------------------------------------------------ criteria (*IF, *IFS)
#
# Microsoft, "COUNTIF function", "COUNTIFS function", "SUMIF function", "SUMIFS function",
# "AVERAGEIF function", "AVERAGEIFS function", "MAXIFS function", "MINIFS function" (read
# 2026-12-01). A criterion is a value, or text that starts with one of the operators
# ``= <> < > <= >=``. What the operator compares with is read as a number, a boolean or an
# error value where it is one, else it stays text:
#
# * a number ``2`` or ``"=2"`` matches the number 2 and the text ``"2"`` (Excel reads numeric
#   text as its number for equality); date text (``">1/1/2024"``, ``"2024-01-01"``) is its
#   serial number; ``"<>2"`` every cell but the number 2, blanks and text (``"2"`` too)
#   included (Excel's cached values in IronCalc's COUNTIF.xlsx: ``"=23"`` counts 23 and
#   "23", ``"<>23"`` leaves out only 23);
#   ``">1"`` only numbers, never text, booleans or blanks;
# * text matches text cells, case-insensitively, the whole cell; ``?`` is any one character,
#   ``*`` any run of characters, ``~`` makes the next one literal; ``"<>x"`` is every cell
#   that does not match ``x``, blank cells included; ``"<b"`` compares text cells only;
# * ``""`` matches blank cells and empty text, ``"="`` blank cells only, ``"<>"`` every
#   cell that is not blank; ``"<"``, ``">="`` ... with nothing after the operator match no
#   cell (Excel's cached values in IronCalc's COUNTIF.xlsx, saved by Excel);
# * a reference to an empty cell as the criterion is the number 0 (COUNTIFS: "treats the
#   empty cell as a 0 value").
#
# An error value as the criterion counts the cells holding that error (Excel's cached values
# in IronCalc's COUNTIF.xlsx, saved by Excel); errors in the ranges match only a criterion
# that is that error. SUMIF, AVERAGEIF, MAXIFS ... take the numbers of the matching cells of their
# sum/average/max range (text, booleans and blanks there are ignored, an error there is the
# result); AVERAGEIF(S) with nothing to average is #DIV/0!, MAXIFS/MINIFS give 0.

_BLANK, _NUM, _STR, _BOOL, _ERR = range(5)
_OPS = ("<=", ">=", "<>", "<", ">", "=")


def _grid(x) -> list[list]:
    """A host range argument as a list of rows (a single cell is a 1x1 range)."""
    if isinstance(x, list):
        return [r if isinstance(r, list) else [r] for r in x] if x and isinstance(
            x[0], list) else [list(x)]
    return [[x]]


def _text_number(s: str) -> float | None:
    """Numeric text as Excel reads it in a criterion (``"2"``, ``" 1e3 "``, ``"50%"``)."""
    t = s.strip()
    scale = 1.0
    if t.endswith("%"):
        t, scale = t[:-1], 0.01
    if not t or t[-1:].isalpha() and t[-1:].lower() not in "0123456789":
        return None
    try:
        v = float(t.replace(",", "")) if t[0] in "+-.0123456789" else None
    except ValueError:
        return None
    return v * scale if v is not None and math.isfinite(v) else None


_MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul",
                                       "aug", "sep", "oct", "nov", "dec"), start=1)}
_DATE_FORMS = (
    re.compile(r"^(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})$"),  # 2024-01-31
    re.compile(r"^(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>\d{4})$"),  # 1/31/2024 (en-US)
    re.compile(r"^(?P<d>\d{1,2})[- ](?P<mon>[A-Za-z]{3})[A-Za-z]*[- ](?P<y>\d{4})$"),
    re.compile(r"^(?P<mon>[A-Za-z]{3})[A-Za-z]* (?P<d>\d{1,2}),? (?P<y>\d{4})$"),
)


def _text_date(s: str) -> float | None:
    """Date text as Excel (en-US) reads it in a criterion: its serial number (1900 system).

    >>> _text_date("2024-01-01"), _text_date("1/1/2024"), _text_date("1-Jan-2024")
    (45292.0, 45292.0, 45292.0)
    >>> _text_date("Jan 1, 2024"), _text_date("13/1/2024"), _text_date("abc")
    (45292.0, None, None)
    """
    import datetime

    t = s.strip()
    for rx in _DATE_FORMS:
        m = rx.match(t)
        if m is None:
            continue
        g = m.groupdict()
        month = _MONTHS.get(g["mon"].lower()) if g.get("mon") else int(g["m"])
        if month is None:
            return None
        try:
            day = datetime.date(int(g["y"]), month, int(g["d"]))
        except ValueError:
            return None
        if not 1900 <= day.year <= 9999:
            return None
        return float((day - datetime.date(1899, 12, 30)).days)
    return None


class _Cells:
    """One criteria range, typed once for every criterion applied to it."""

    def __init__(self, rows: list[list]):
        flat = [x for r in rows for x in r]
        self.shape = (len(rows), len(rows[0]) if rows else 0)
        n = len(flat)
        self.kind = np.zeros(n, np.int8)
        self.num = np.full(n, np.nan)
        self.tnum = np.full(n, np.nan)  # numeric text read as its number
        self.text = np.full(n, None, object)  # case-folded text cells
        self.err = np.full(n, None, object)
        for i, x in enumerate(flat):
            if x is None:
                continue
            if isinstance(x, ExcelError):
                self.kind[i], self.err[i] = _ERR, str(x)
            elif isinstance(x, (bool, np.bool_)):
                self.kind[i], self.num[i] = _BOOL, float(x)
            elif isinstance(x, (int, float, np.integer, np.floating)):
                self.kind[i], self.num[i] = _NUM, float(x)
            else:
                s = str(x)
                self.kind[i], self.text[i] = _STR, s.casefold()
                v = _text_number(s)
                if v is not None:
                    self.tnum[i] = v

    def match(self, crit) -> np.ndarray:
        """Which cells meet one criterion (a scalar host value)."""
        kind = self.kind
        if crit is None:
            crit = 0.0
        op = "="
        if isinstance(crit, str) and not isinstance(crit, ExcelError):
            for o in _OPS:
                if crit.startswith(o):
                    op, crit = o, crit[len(o):]
                    break
            else:
                if crit == "":  # blank cells and empty text
                    return (kind == _BLANK) | ((kind == _STR) & (self.text == ""))
            if crit == "":
                if op == "=":
                    return kind == _BLANK
                if op == "<>":
                    return kind != _BLANK
                return np.zeros(len(kind), bool)  # "<", ">=" ... with nothing after: none
            up = crit.strip().upper()
            if up in ("TRUE", "FALSE"):
                crit = up == "TRUE"
            elif up in _ERROR_CODES:
                crit = ExcelError(up)
            else:
                v = _text_number(crit)
                if v is None:
                    v = _text_date(crit)
                if v is not None:
                    crit = v
        if op == "<>":
            if isinstance(crit, (int, float, np.integer, np.floating)) and not isinstance(
                    crit, (bool, np.bool_)):  # numeric text stays in: "<>23" keeps "23"
                return ~((kind == _NUM) & (self.num == float(crit)))
            return ~self._compare("=", crit)
        return self._compare(op, crit)

    def _compare(self, op: str, crit) -> np.ndarray:
        kind = self.kind
        if isinstance(crit, ExcelError):
            return (kind == _ERR) & (self.err == str(crit)) if op == "=" else np.zeros(
                len(kind), bool)
        if isinstance(crit, (bool, np.bool_)):
            sel, vals, c = kind == _BOOL, self.num, float(crit)
        elif isinstance(crit, (int, float, np.integer, np.floating)):
            c = float(crit)
            if op == "=":
                return ((kind == _NUM) & (self.num == c)) | ((kind == _STR) & (self.tnum == c))
            sel, vals = kind == _NUM, self.num
        else:
            c = str(crit).casefold()
            sel = kind == _STR
            if op == "=":
                if any(ch in c for ch in "*?~"):
                    rx = re.compile(_wildcard_regex(c), re.S)
                    out = np.zeros(len(kind), bool)
                    for i in np.flatnonzero(sel).tolist():
                        out[i] = rx.fullmatch(self.text[i]) is not None
                    return out
                return sel & (self.text == c)
            out = np.zeros(len(kind), bool)
            cmp = _CMP[op]
            for i in np.flatnonzero(sel).tolist():
                out[i] = cmp(self.text[i], c)
            return out
        with np.errstate(invalid="ignore"):
            return sel & _CMP[op](vals, c)


_ERROR_CODES = frozenset({"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"})
_CMP = {"=": lambda a, b: a == b, "<": lambda a, b: a < b, ">": lambda a, b: a > b,
        "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}


def _wildcard_regex(pattern: str) -> str:
    """Excel's ``* ? ~`` pattern as a regular expression (``~*`` a literal star)."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "~" and i + 1 < len(pattern) and pattern[i + 1] in "*?~":
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "*" else "." if ch == "?" else re.escape(ch))
        i += 1
    return "".join(out)


def _criteria_call(pairs, reduce, values=None):
    """Apply (range, criterion) pairs and ``reduce`` the matching cells of ``values``.

    A criterion that is an array (or a column of them, the block evaluator's call over
    many rows) gives an array of results of its shape, one per element.
    """
    cells = []
    for rng, _ in pairs:
        c = _Cells(_grid(rng))
        if cells and c.shape != cells[0].shape:
            return ExcelError("#VALUE!", "criteria ranges of different sizes")
        cells.append(c)
    crits = [_grid(c) if isinstance(c, list) else None for _, c in pairs]
    shape = next(((len(g), len(g[0])) for g in crits if g is not None), None)

    def one(i: int, j: int):
        ok = np.ones(len(cells[0].kind), bool)
        for c, (_, crit), g in zip(cells, pairs, crits, strict=True):
            if g is not None:
                crit = g[i if len(g) > 1 else 0][j if len(g[0]) > 1 else 0]
            ok &= c.match(crit)
        return reduce(ok)

    if shape is None:
        return one(0, 0)
    return [[one(i, j) for j in range(shape[1])] for i in range(shape[0])]


def _numbers_of(values: _Cells, what: str):
    def pick(ok):
        errs = ok & (values.kind == _ERR)
        if errs.any():
            return ExcelError(values.err[np.flatnonzero(errs)[0]], f"{what}: an error value")
        return values.num[ok & (values.kind == _NUM)]
    return pick


def _sum_range(rng, shape: tuple[int, int]) -> _Cells:
    """SUMIF's sum_range: its top-left cell, extended to ``range``'s shape (Excel resizes)."""
    rows = _grid(rng)
    h, w = shape
    grown = [[rows[i][j] if i < len(rows) and j < len(rows[i]) else None for j in range(w)]
             for i in range(h)]
    return _Cells(grown)


def _aggregate(kind: str):
    def reduce_with(values: _Cells, what: str):
        pick = _numbers_of(values, what)

        def reduce(ok):
            v = pick(ok)
            if isinstance(v, ExcelError):
                return v
            if kind == "SUM":
                return float(v.sum())
            if kind == "AVERAGE":
                return float(v.mean()) if len(v) else ExcelError(
                    "#DIV/0!", f"{what}: no cell meets the criteria")
            if not len(v):
                return 0.0
            return float(v.max() if kind == "MAX" else v.min())
        return reduce
    return reduce_with


def _countif(rng, criteria):
    """COUNTIF(range, criteria) as Excel (see the notes above).

    >>> _countif([["apples"], ["oranges"], ["peaches"], ["apples"]], "apples")
    2.0
    >>> _countif([[32], [54], [75], [86]], "<>75"), _countif([["a"], [None], [1]], "<>x")
    (3.0, 3.0)
    """
    return _criteria_call([(rng, criteria)], lambda ok: float(ok.sum()))


def _countifs(*args):
    if not args or len(args) % 2:
        return ExcelError("#VALUE!", "COUNTIFS takes (range, criteria) pairs")
    pairs = list(zip(args[0::2], args[1::2], strict=True))
    return _criteria_call(pairs, lambda ok: float(ok.sum()))


def _xif(kind: str):
    name = f"{kind}IF"
    agg = _aggregate(kind)

    def xif(rng, criteria, value_range=None):
        shape = _Cells(_grid(rng)).shape
        values = _Cells(_grid(rng)) if value_range is None else _sum_range(value_range, shape)
        return _criteria_call([(rng, criteria)], agg(values, name))
    xif.__name__ = name
    return xif


def _xifs(kind: str):
    name = f"{kind}IFS"
    agg = _aggregate(kind)

    def xifs(value_range, *args):
        if not args or len(args) % 2:
            return ExcelError("#VALUE!", f"{name} takes a range and (range, criteria) pairs")
        values = _Cells(_grid(value_range))
        if values.shape != _Cells(_grid(args[0])).shape:
            return ExcelError("#VALUE!", f"{name}: ranges of different sizes")
        return _criteria_call(list(zip(args[0::2], args[1::2], strict=True)), agg(values, name))
    xifs.__name__ = name
    return xifs


BUILTINS["COUNTIF"] = _countif
BUILTINS["COUNTIFS"] = _countifs
for _k in ("SUM", "AVERAGE"):
    BUILTINS[f"{_k}IF"] = _xif(_k)
for _k in ("SUM", "AVERAGE", "MAX", "MIN"):
    BUILTINS[f"{_k}IFS"] = _xifs(_k)


def cut_position(pos, kept, whole):
    """A row (column) position into a range cut to the used area (``INDEX(A:A, n)``).

    The clipped range keeps ``kept`` rows of the ``whole`` it was written with, plus one
    blank row after them; a position in the cut-off part (``kept`` < n <= ``whole``)
    points at that blank row, as every cut-off cell is blank. Anything else (0, a
    position past the whole range, an error, text) is passed on for INDEX to judge.

    >>> cut_position(5, 300, 1048576), cut_position(900, 300, 1048576)
    (5, 301)
    >>> cut_position(1048577, 300, 1048576)
    1048577
    """
    if isinstance(pos, list):
        return [[cut_position(x, kept, whole) for x in row] for row in pos]
    if isinstance(pos, (int, float)) and not isinstance(pos, bool) and kept < pos < whole + 1:
        return kept + 1 if int(pos) > kept else pos
    return pos


BUILTINS["_XLRX_CUTPOS"] = cut_position


def _sequence(rows=None, columns=None, start=None, step=None):
    """SEQUENCE(rows, [columns], [start], [step]) (Microsoft, "SEQUENCE function", read
    2026-12-01): an array of ``rows`` x ``columns`` numbers from ``start`` by ``step``, row
    by row; omitted arguments are 1. Counts are truncated; a count below 1 gives no array
    (Excel's #CALC!, here #VALUE! with the reason).

    >>> _sequence(2, 3)
    [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    >>> _sequence(3, 1, 10, -2)
    [[10.0], [8.0], [6.0]]
    """
    try:
        n_r = math.trunc(_number(_scalar(1 if rows is None else rows, "rows"), "rows"))
        n_c = math.trunc(_number(_scalar(1 if columns is None else columns, "columns"),
                                 "columns"))
        first = _number(_scalar(1 if start is None else start, "start"), "start")
        by = _number(_scalar(1 if step is None else step, "step"), "step")
    except _Err as ex:
        return ex.error
    if n_r < 1 or n_c < 1:
        return ExcelError("#VALUE!", "SEQUENCE: an empty array (Excel's #CALC!)")
    if n_r * n_c > 1_048_576 * 16_384:
        return ExcelError("#NUM!", "SEQUENCE: larger than a sheet")
    if n_r * n_c == 1:
        return first
    return [[first + by * (i * n_c + j) for j in range(n_c)] for i in range(n_r)]


BUILTINS["SEQUENCE"] = _sequence


def _rows(array):
    """ROWS(array): the number of rows of a reference or an array (a single value is 1).

    >>> _rows([[1, 2], [3, 4], [5, 6]]), _rows(7)
    (3, 1)
    """
    if isinstance(array, ExcelError):
        return array
    return len(_grid(array))


def _columns(array):
    """COLUMNS(array): the number of columns of a reference or an array.

    >>> _columns([[1, 2], [3, 4]]), _columns("x")
    (2, 1)
    """
    if isinstance(array, ExcelError):
        return array
    return len(_grid(array)[0])


def _sort_key(x):
    """Excel's ascending order: numbers, then text (case-insensitive), then booleans, then
    errors; blank cells last."""
    if x is None:
        return (4, 0)
    if isinstance(x, ExcelError):
        return (3, str(x))
    if isinstance(x, bool):
        return (2, x)
    if isinstance(x, (int, float)):
        return (0, x)
    return (1, str(x).casefold())


def _order(keys: list, descending: bool) -> list[int]:
    """Stable order of ``keys`` (Excel keeps equal keys in their original order); blanks
    stay last in either direction."""
    idx = list(range(len(keys)))
    blanks = [i for i in idx if keys[i] is None]
    rest = [i for i in idx if keys[i] is not None]
    rest.sort(key=lambda i: _sort_key(keys[i]), reverse=descending)  # stable either way
    return rest + blanks


def _sort(array, sort_index=None, sort_order=None, by_col=None):
    """SORT(array, [sort_index], [sort_order], [by_col]) (Microsoft, "SORT function"):
    the rows (columns when ``by_col`` is TRUE) of ``array`` ordered by its
    ``sort_index``-th column (row), ascending for 1, descending for -1.

    >>> _sort([[3, "c"], [1, "a"], [2, "b"]], 2, -1)
    [[3, 'c'], [2, 'b'], [1, 'a']]
    """
    try:
        rows = _grid(array)
        k = 1 if sort_index is None else math.trunc(_number(_scalar(sort_index, "sort_index"),
                                                           "sort_index"))
        o = 1 if sort_order is None else math.trunc(_number(_scalar(sort_order, "sort_order"),
                                                           "sort_order"))
        bc = False if by_col is None else _scalar(by_col, "by_col")
        bc = bc if isinstance(bc, bool) else bool(_number(bc, "by_col"))
    except _Err as ex:
        return ex.error
    if o not in (1, -1):
        return ExcelError("#VALUE!", "SORT: sort_order must be 1 or -1")
    if bc:
        rows = [list(c) for c in zip(*rows, strict=True)]
    if not 1 <= k <= len(rows[0]):
        return ExcelError("#VALUE!", f"SORT: sort_index {k} outside the array")
    order = _order([r[k - 1] for r in rows], o == -1)
    out = [rows[i] for i in order]
    if bc:
        out = [list(c) for c in zip(*out, strict=True)]
    return out


def _sortby(array, *pairs):
    """SORTBY(array, by_array1, [sort_order1], ...) (Microsoft, "SORTBY function"): the rows
    of ``array`` ordered by the first by_array, ties by the next; each by_array one column
    of as many rows as ``array`` (or one row of as many columns, to sort columns).

    >>> _sortby([["a"], ["b"], ["c"]], [[2], [3], [1]])
    [['c'], ['a'], ['b']]
    """
    rows = _grid(array)
    if not pairs:
        return ExcelError("#VALUE!", "SORTBY takes at least one by_array")
    keys = []
    by_col = None
    for k in range(0, len(pairs), 2):
        by = _grid(pairs[k])
        try:
            order = 1 if k + 1 >= len(pairs) or pairs[k + 1] is None else math.trunc(
                _number(_scalar(pairs[k + 1], "sort_order"), "sort_order"))
        except _Err as ex:
            return ex.error
        if order not in (1, -1):
            return ExcelError("#VALUE!", "SORTBY: sort_order must be 1 or -1")
        if len(by[0]) == 1 and len(by) == len(rows) and by_col is not True:
            by_col, vals = False, [r[0] for r in by]
        elif len(by) == 1 and len(by[0]) == len(rows[0]) and by_col is not False:
            by_col, vals = True, list(by[0])
        else:
            return ExcelError("#VALUE!", "SORTBY: a by_array of another size than the array")
        keys.append((vals, order))
    idx = list(range(len(keys[0][0])))
    for vals, order in reversed(keys):  # stable sorts, last key first
        idx = [idx[j] for j in _order([vals[i] for i in idx], order == -1)]
    if by_col:
        return [[r[i] for i in idx] for r in rows]
    return [rows[i] for i in idx]


BUILTINS.update(ROWS=_rows, COLUMNS=_columns, SORT=_sort, SORTBY=_sortby)


# ------------------------------------------------------------------ SUBTOTAL, AGGREGATE
#
# Microsoft, "SUBTOTAL function" and "AGGREGATE function" (read 2026-12-01). The cells a
# function_num or option leaves out -- other SUBTOTAL and AGGREGATE cells, hidden rows --
# are taken out of the references before the call (prepass.split_subtotal_refs), so here
# every reference is a list of values: numbers count, text and booleans in references are
# ignored (COUNTA counts every non-blank cell), an error is the result unless AGGREGATE's
# option ignores errors.

def _sample_var(v):
    return float(np.var(v, ddof=1)) if len(v) > 1 else ExcelError(
        "#DIV/0!", "fewer than two numbers")


def _pop_var(v):
    return float(np.var(v)) if len(v) else ExcelError("#DIV/0!", "no numbers")


def _sqrt_of(f):
    def g(v):
        r = f(v)
        return r if isinstance(r, ExcelError) else math.sqrt(r)
    return g


def _mode(v):
    vals, counts = np.unique(v, return_counts=True)
    if not len(v) or counts.max() < 2:
        return ExcelError("#N/A", "no value occurs twice")
    # the first value, in the data's order, of those occurring most often
    best = counts.max()
    top = {float(x) for x, c in zip(vals, counts, strict=True) if c == best}
    return next(float(x) for x in v if float(x) in top)


_SUBTOTALS = {
    1: lambda v: float(np.mean(v)) if len(v) else ExcelError("#DIV/0!", "no numbers"),
    2: lambda v: float(len(v)),
    4: lambda v: float(np.max(v)) if len(v) else 0.0,
    5: lambda v: float(np.min(v)) if len(v) else 0.0,
    6: lambda v: float(np.prod(v)) if len(v) else 0.0,
    7: _sqrt_of(_sample_var),
    8: _sqrt_of(_pop_var),
    9: lambda v: float(np.sum(v)),
    10: _sample_var,
    11: _pop_var,
    12: lambda v: float(np.median(v)) if len(v) else ExcelError("#NUM!", "no numbers"),
    13: _mode,
}


def _gather(refs, skip_errors: bool):
    """(numbers, non-blank count, first error) over reference arguments."""
    nums: list[float] = []
    count = 0
    for ref in refs:
        for row in _grid(ref):
            for x in row:
                if x is None:
                    continue
                if isinstance(x, ExcelError):
                    if skip_errors:
                        continue
                    return nums, count, x
                count += 1
                if isinstance(x, (int, float)) and not isinstance(x, bool):
                    nums.append(float(x))
    return nums, count, None


def _subtotal(function_num, *refs):
    """SUBTOTAL(function_num, ref1, [ref2], ...): 1-11 (101-111 leave hidden rows out)
    AVERAGE, COUNT, COUNTA, MAX, MIN, PRODUCT, STDEV, STDEVP, SUM, VAR, VARP.

    >>> _subtotal(9, [[120], [10], [150], [23]]), _subtotal(109, [[1], ["x"], [None]])
    (303.0, 1.0)
    >>> _subtotal(3, [[1], ["x"], [None]]), str(_subtotal(12, [[1]]))
    (2.0, '#VALUE!')
    """
    try:
        n = math.trunc(_number(_scalar(function_num, "function_num"), "function_num"))
    except _Err as ex:
        return ex.error
    k = n - 100 if n > 100 else n
    if not 1 <= k <= 11 or not refs:
        return ExcelError("#VALUE!", f"SUBTOTAL: function_num {n} is not 1-11 or 101-111")
    nums, count, err = _gather(refs, skip_errors=False)
    if err is not None:
        return err
    return float(count) if k == 3 else _SUBTOTALS[k](np.array(nums))


def _aggregate(function_num, options, *args):
    """AGGREGATE(function_num, options, ref1, ...) for function_num 1-13 (AVERAGE ...
    MODE.SNGL) and AGGREGATE(function_num, options, array, k) for 14-19 (LARGE, SMALL,
    PERCENTILE.INC, QUARTILE.INC, PERCENTILE.EXC, QUARTILE.EXC); options 2, 3, 6, 7 ignore
    error values.

    >>> _aggregate(4, 6, [[1], [ExcelError("#DIV/0!")], [96]])
    96.0
    >>> _aggregate(14, 6, [[3], [9], [5]], 2)
    5.0
    """
    try:
        n = math.trunc(_number(_scalar(function_num, "function_num"), "function_num"))
        opt = 0 if options is None else math.trunc(_number(_scalar(options, "options"),
                                                           "options"))
    except _Err as ex:
        return ex.error
    if not 1 <= n <= 19 or not 0 <= opt <= 7 or not args:
        return ExcelError("#VALUE!", f"AGGREGATE: function_num {n} or options {opt} "
                                     "out of range")
    skip_errors = opt in (2, 3, 6, 7)
    if n <= 13:
        nums, count, err = _gather(args, skip_errors)
        if err is not None:
            return err
        return float(count) if n == 3 else _SUBTOTALS[n](np.array(nums))
    if len(args) != 2:
        return ExcelError("#VALUE!", "AGGREGATE 14-19 takes an array and k")
    nums, _, err = _gather([args[0]], skip_errors)
    if err is not None:
        return err
    try:
        k = _number(_scalar(args[1], "k"), "k")
    except _Err as ex:
        return ex.error
    v = np.sort(np.array(nums))
    m = len(v)
    if n in (14, 15):
        i = math.ceil(k) if k != int(k) else int(k)
        if not 1 <= i <= m:
            return ExcelError("#NUM!", f"AGGREGATE: k {k} outside 1..{m}")
        return float(v[m - i] if n == 14 else v[i - 1])
    p = k / 4 if n in (17, 19) else k
    if n in (17, 19) and k != int(k):
        return ExcelError("#NUM!", "AGGREGATE: quart must be 0-4")
    if m == 0:
        return ExcelError("#NUM!", "AGGREGATE: no numbers")
    if n in (16, 17):  # inclusive: rank p*(m-1)
        if not 0 <= p <= 1:
            return ExcelError("#NUM!", f"AGGREGATE: {k} out of range")
        h = p * (m - 1)
    else:  # exclusive: rank p*(m+1)-1, inside the data only
        h = p * (m + 1) - 1
        if not 0 <= h <= m - 1:
            return ExcelError("#NUM!", f"AGGREGATE: {k} out of range")
    lo = math.floor(h)
    hi = min(lo + 1, m - 1)
    return float(v[lo] + (h - lo) * (v[hi] - v[lo]))


BUILTINS.update(SUBTOTAL=_subtotal, AGGREGATE=_aggregate)


def offset_address(prefix, row, col, rows_in, cols_in, rows, cols, height, width):
    """The A1 address OFFSET means (see :func:`rooflinexl.recalc.prepass.static_offsets`):
    ``prefix`` (``"S!"`` or ``""``) and the reference (``row``, ``col``, ``rows_in`` x
    ``cols_in`` cells) moved ``rows`` down and ``cols`` right, ``height`` x ``width``
    cells (TRUE: the reference's own size); #REF! off the sheet or for a size below 1.

    >>> offset_address("S!", 2, 2, 1, 1, 1, 0, 2, True), str(offset_address("", 1, 1, 1, 1,
    ...                                                                    -1, 0, True, True))
    ('S!$B$3:$B$4', '#REF!')
    """
    vals = []
    for x, what in ((row, "row"), (col, "col"), (rows_in, "rows"), (cols_in, "cols"),
                    (rows, "rows"), (cols, "cols"), (height, "height"), (width, "width")):
        if x is True and what in ("height", "width"):
            vals.append(None)
            continue
        try:
            vals.append(math.trunc(_number(_scalar(x, f"OFFSET {what}"), f"OFFSET {what}")))
        except _Err as ex:
            return ex.error
    r, c, h0, w0, dr, dc, h, w = vals
    h = h0 if h is None else h
    w = w0 if w is None else w
    if h < 1 or w < 1:
        return ExcelError("#REF!", "OFFSET: a height or width below 1")
    top, left = r + dr, c + dc
    bottom, right = top + h - 1, left + w - 1
    if top < 1 or left < 1 or bottom > 1_048_576 or right > 16_384:
        return ExcelError("#REF!", "OFFSET: a reference off the sheet")

    def a1(rr, cc):
        letters = ""
        while cc:
            cc, rem = divmod(cc - 1, 26)
            letters = chr(65 + rem) + letters
        return f"${letters}${rr}"

    if (h, w) == (1, 1):
        return f"{prefix}{a1(top, left)}"
    return f"{prefix}{a1(top, left)}:{a1(bottom, right)}"



# ------------------------------------------------------------------ ROUND and its kin
#
# Microsoft, "ROUND function", "ROUNDUP function", "ROUNDDOWN function", "MROUND function"
# (read 2026-12-01). Excel rounds the number as it holds it in decimal, 15 significant
# digits, so ROUND(1.005, 2) is 1.01 (the binary double is 1.00499999999999989...):
# here the scaled value is first rounded to 15 significant digits, then half away from
# zero (ROUND, MROUND), away from zero (ROUNDUP) or toward zero (ROUNDDOWN). Vectorised:
# the block evaluator calls them once for a whole filled-down column.

def _round15(y: np.ndarray) -> np.ndarray:
    """``y`` to 15 significant digits (the decimal Excel holds)."""
    with np.errstate(all="ignore"):
        a = np.abs(y)
        mag = np.floor(np.log10(np.where(a > 0, a, 1.0)))
        scale = 10.0 ** (14 - mag)
        out = np.round(y * scale) / scale
    return np.where(np.isfinite(out) & (a > 0), out, y)


def _rounded(x: np.ndarray, d: np.ndarray, mode: str) -> np.ndarray:
    d = np.trunc(d)
    up = 10.0 ** np.abs(d)
    y = np.where(d >= 0, x * up, x / up)
    y = _round15(y)
    a = np.abs(y)
    r = np.floor(a + 0.5) if mode == "half" else np.ceil(a) if mode == "up" else np.floor(a)
    r = np.sign(y) * r
    return np.where(d >= 0, r / up, r * up)


def _numbers_grid(arg, what: str):
    """(rows of floats or ExcelError, shape) of a host argument (scalar or rows)."""
    rows = _grid(arg)
    out = []
    for row in rows:
        vals = []
        for x in row:
            if isinstance(x, ExcelError):
                vals.append(x)
                continue
            if isinstance(x, bool):
                vals.append(float(x))
                continue
            try:
                vals.append(_number(x, what))
            except _Err as ex:
                vals.append(ex.error)
        out.append(vals)
    return out


def _elementwise(name: str, fn, a, b):
    """``fn`` (numpy, two float arrays) over two host arguments, broadcast like Excel
    (a single value against an array), errors kept where they are."""
    ga, gb = _numbers_grid(a, name), _numbers_grid(b, name)
    h, w = max(len(ga), len(gb)), max(len(ga[0]), len(gb[0]))

    def at(g, i, j):
        if len(g) == 1 and len(g[0]) == 1:
            return g[0][0]
        if i < len(g) and j < len(g[0]):
            return g[i][j]
        return ExcelError("#N/A", f"{name}: arrays of different sizes")

    pairs = [(at(ga, i, j), at(gb, i, j)) for i in range(h) for j in range(w)]
    ok = [not isinstance(p, ExcelError) and not isinstance(q, ExcelError) for p, q in pairs]
    xs = np.array([p if k else 0.0 for (p, _), k in zip(pairs, ok, strict=True)], float)
    ys = np.array([q if k else 0.0 for (_, q), k in zip(pairs, ok, strict=True)], float)
    res = fn(xs, ys)
    flat = []
    for k, (p, q) in enumerate(pairs):
        if not ok[k]:
            flat.append(p if isinstance(p, ExcelError) else q)
        else:
            v = res[k]
            flat.append(v if isinstance(v, ExcelError) else float(v))
    if h == 1 and w == 1 and not isinstance(a, list) and not isinstance(b, list):
        return flat[0]
    return [flat[i * w:(i + 1) * w] for i in range(h)]


def _round_function(name: str, mode: str):
    def rnd(number, num_digits=None):
        if num_digits is None:
            return ExcelError("#VALUE!", f"{name} takes a number and num_digits")
        return _elementwise(name, lambda x, d: _rounded(x, d, mode), number, num_digits)
    rnd.__name__ = name
    rnd.__doc__ = f"{name}(number, num_digits) as Excel (see the notes above)."
    return rnd


def _mround_values(x: np.ndarray, m: np.ndarray) -> list:
    out: list = []
    with np.errstate(all="ignore"):
        q = _round15(np.where(m != 0, x / np.where(m != 0, m, 1.0), 0.0))
    for xi, mi, qi in zip(x.tolist(), m.tolist(), q.tolist(), strict=True):
        if mi == 0:
            out.append(0.0)
        elif xi != 0 and (xi < 0) != (mi < 0):
            out.append(ExcelError("#NUM!", "MROUND: number and multiple of different signs"))
        else:
            n = math.floor(abs(qi) + 0.5) * (1 if qi >= 0 else -1)
            out.append(float(_round15(np.array([n * mi]))[0]))
    return out


def _mround(number, multiple):
    """MROUND(number, multiple): ``number`` rounded to the nearest multiple of ``multiple``,
    half away from zero; different signs are #NUM!.

    >>> _mround(10, 3), _mround(-10, -3), _mround(1.3, 0.2), _mround(5, 2), str(_mround(5, -2))
    (9.0, -9.0, 1.4, 6.0, '#NUM!')
    """
    return _elementwise("MROUND", _mround_values, number, multiple)


BUILTINS.update(ROUND=_round_function("ROUND", "half"), ROUNDUP=_round_function("ROUNDUP", "up"),
                ROUNDDOWN=_round_function("ROUNDDOWN", "down"), MROUND=_mround)


# ------------------------------------------------------------------ GCD, LCM
#
# Microsoft, "GCD function", "LCM function" (read 2026-12-01): each number is truncated to an
# integer; a nonnumeric argument is #VALUE!, one below zero #NUM!, one at or above 2^53
# #NUM!, an LCM at or above 2^53 #NUM!. As Excel computes them (IronCalc's GCD_LCM.xlsx,
# saved by Excel): empty cells are skipped, numeric and date text is its number (unpadded
# date text only), empty text and booleans are #VALUE! (in ranges and arrays too), the first
# error value is the result, and no number at all is #VALUE!.

_INT_LIMIT = 2.0 ** 53


def _whole_numbers(args, name: str) -> list[int]:
    out = []
    for a in args:
        if hasattr(a, "shape"):  # a whole column from the block path: go row by row
            raise TypeError("scalar function")
        for row in _grid(a):
            for x in row:
                if x is None:
                    continue
                if isinstance(x, ExcelError):
                    raise _Err(str(x), getattr(x, "reason", "") or f"{name}: an error value")
                if isinstance(x, (bool, np.bool_)):
                    raise _Err("#VALUE!", f"{name}: {x} is a boolean, not a number")
                if isinstance(x, (int, float, np.integer, np.floating)):
                    v = float(x)
                else:
                    s = str(x)
                    v = _text_number(s)
                    if v is None and s == s.strip():
                        v = _text_date(s)
                    if v is None:
                        raise _Err("#VALUE!", f"{name}: {s!r} is not a number")
                if v < 0 or not math.isfinite(v):
                    raise _Err("#NUM!", f"{name}: {v:g} is negative")
                if v >= _INT_LIMIT:
                    raise _Err("#NUM!", f"{name}: {v:g} is 2^53 or more")
                out.append(math.floor(v))
    if not out:
        raise _Err("#VALUE!", f"{name}: no number")
    return out


def _gcd(*numbers):
    """GCD(number1, [number2], ...): the greatest common divisor (Microsoft's examples).

    >>> _gcd(5, 2), _gcd(24, 36), _gcd(7, 1), _gcd(5, 0), _gcd([[7.5, 4.5, None]])
    (1.0, 12.0, 1.0, 5.0, 1.0)
    >>> str(_gcd(-7.5, 5)), str(_gcd(True, 2)), str(_gcd("", 2)), _gcd("8", 2)
    ('#NUM!', '#VALUE!', '#VALUE!', 2.0)
    """
    try:
        return float(math.gcd(*_whole_numbers(numbers, "GCD")))
    except _Err as ex:
        return ex.error


def _lcm(*numbers):
    """LCM(number1, [number2], ...): the least common multiple (Microsoft's examples).

    >>> _lcm(5, 2), _lcm(24, 36), _lcm([[10, 3, None]]), _lcm(0, 5), _lcm(7.9, 4.9)
    (10.0, 72.0, 30.0, 0.0, 28.0)
    >>> str(_lcm(2 ** 31 - 1, 2 ** 30 - 1, 2)), str(_lcm(1e100, 1))
    ('#NUM!', '#NUM!')
    """
    try:
        v = math.lcm(*_whole_numbers(numbers, "LCM"))
    except _Err as ex:
        return ex.error
    if v >= _INT_LIMIT:
        return ExcelError("#NUM!", "LCM: the result is 2^53 or more")
    return float(v)


BUILTINS.update(GCD=_gcd, LCM=_lcm)


def _char(number):
    """CHAR(number): the character with code ``number`` (1-255, truncated) in the Windows
    ANSI code page, Windows-1252 for en-US (Microsoft, "CHAR function": "Windows: ANSI";
    Excel's cached values in IronCalc's CHAR.xlsx, saved by Excel: CHAR(128) "€", CHAR(136)
    "ˆ", CHAR(129), a code Windows-1252 leaves undefined, U+0081; 256 and 0 #VALUE!).

    >>> _char(65), _char(128), _char(136), _char(129), _char(255.9), str(_char(256))
    ('A', '€', 'ˆ', '\\x81', 'ÿ', '#VALUE!')
    """
    try:
        x = _scalar(number, "number")
        v = math.trunc(_number(x, "number"))
    except _Err as ex:
        return ex.error
    if not 1 <= v <= 255:
        return ExcelError("#VALUE!", f"CHAR: {v} is not a character code from 1 to 255")
    try:
        return bytes([v]).decode("cp1252")
    except UnicodeDecodeError:  # 0x81, 0x8D, 0x8F, 0x90, 0x9D: the same code point
        return chr(v)


BUILTINS["CHAR"] = _char


# ------------------------------------------------------------------ database functions
#
# Microsoft, "DSUM function", "DAVERAGE function" ... (read 2026-12-01): ``database`` is a
# range whose first row labels its columns; ``field`` a label (any case) or a 1-based column
# number; ``criteria`` a range of labels over conditions: the conditions in one row must all
# hold, any row will do, a blank condition holds for every record. A condition is written as
# a COUNTIF criterion, except that plain text matches the cells that begin with it (Microsoft,
# "Filter by using advanced criteria": typing text finds the rows whose cells begin with it;
# "=text" is the whole cell).


def _db_label(x) -> str | None:
    """A column label as text, compared case-insensitively (a number or TRUE as Excel shows it)."""
    return None if x is None else value_text(x).casefold()


def _db_records(database, field, criteria, name: str, need_field: bool):
    """(the field's cells or None without a field, which records match, the field's values)."""
    for a in (database, criteria):
        if hasattr(a, "shape"):  # a whole column from the block path: go row by row
            raise TypeError("scalar function")
    db, crit = _grid(database), _grid(criteria)
    if len(db) < 2 or len(crit) < 2:
        raise _Err("#VALUE!", f"{name}: the database and the criteria need a label row and "
                   "a row below it")
    labels = [_db_label(x) for x in db[0]]
    rows = db[1:]
    col = None
    if field is not None or need_field:
        f = _scalar(field, "field") if isinstance(field, list) else field
        if isinstance(f, ExcelError):
            raise _Err(str(f), f"{name}: field is an error value")
        if f is None:
            raise _Err("#VALUE!", f"{name}: field must be a label or a column number")
        if isinstance(f, (int, float, np.integer, np.floating)) and not isinstance(
                f, (bool, np.bool_)):
            col = math.trunc(float(f)) - 1
            if not 0 <= col < len(labels):
                raise _Err("#VALUE!", f"{name}: field {f:g} is outside the database")
        else:
            key = _db_label(f)
            if key not in labels:
                raise _Err("#VALUE!", f"{name}: no column labelled {f!r}")
            col = labels.index(key)
    ok = np.zeros(len(rows), bool)
    for crow in crit[1:]:
        sel = np.ones(len(rows), bool)
        for label, cond in zip(crit[0], crow, strict=False):
            if cond is None:
                continue
            key = _db_label(label)
            if key is None or key not in labels:  # a condition under no known label
                sel[:] = False
                break
            if isinstance(cond, str) and not isinstance(cond, ExcelError) and cond and not (
                    cond.startswith(_OPS) or _text_number(cond) is not None):
                cond = cond + "*"  # plain text: cells that begin with it
            j = labels.index(key)
            sel &= _Cells([[r[j] if j < len(r) else None] for r in rows]).match(cond)
        ok |= sel
    if col is None:
        return None, ok, None
    raw = [r[col] if col < len(r) else None for r in rows]
    return _Cells([[x] for x in raw]), ok, raw


def _database(name: str, reduce, need_field: bool = True):
    def fn(database, field=None, criteria=None):
        try:
            cells, ok, raw = _db_records(database, field, criteria, name, need_field)
            return reduce(cells, ok, raw)
        except _Err as ex:
            return ex.error
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}(database, field, criteria) as Excel (see the notes above)."
    return fn


def _db_numbers(cells, ok):
    return cells.num[ok & (cells.kind == _NUM)]


def _db_count(cells, ok, raw):
    return float(ok.sum()) if cells is None else float((ok & (cells.kind == _NUM)).sum())


def _db_counta(cells, ok, raw):
    return float(ok.sum()) if cells is None else float((ok & (cells.kind != _BLANK)).sum())


def _db_get(cells, ok, raw):
    hits = np.flatnonzero(ok)
    if len(hits) == 0:
        raise _Err("#VALUE!", "DGET: no record meets the criteria")
    if len(hits) > 1:
        raise _Err("#NUM!", "DGET: more than one record meets the criteria")
    x = raw[int(hits[0])]
    return 0.0 if x is None else x


def _db_stat(kind: str):
    def reduce(cells, ok, raw):
        v = _db_numbers(cells, ok)
        if kind == "SUM":
            return float(v.sum())
        if kind == "PRODUCT":
            return float(np.prod(v)) if len(v) else 0.0
        if kind in ("MIN", "MAX"):
            return float(v.min() if kind == "MIN" else v.max()) if len(v) else 0.0
        if kind == "AVERAGE":
            if not len(v):
                raise _Err("#DIV/0!", "DAVERAGE: no number meets the criteria")
            return float(v.mean())
        ddof = 1 if kind in ("VAR", "STDEV") else 0
        if len(v) <= ddof:
            raise _Err("#DIV/0!", f"D{kind}: too few numbers meet the criteria")
        var = float(v.var(ddof=ddof))
        return math.sqrt(var) if kind.startswith("STDEV") else var
    return reduce


BUILTINS.update(
    DCOUNT=_database("DCOUNT", _db_count, need_field=False),
    DCOUNTA=_database("DCOUNTA", _db_counta, need_field=False),
    DGET=_database("DGET", _db_get),
    **{f"D{k}": _database(f"D{k}", _db_stat(k))
       for k in ("SUM", "PRODUCT", "MIN", "MAX", "AVERAGE", "VAR", "VARP", "STDEV",
                 "STDEVP")},
)


def _complex(real_num, i_num, suffix=None):
    """COMPLEX(real_num, i_num, [suffix]) (Microsoft, "COMPLEX function", read 2026-12-01):
    the text ``x+yi`` or ``x+yj``; suffix lowercase "i" or "j", "i" when omitted (an empty
    cell too: Excel's cached ``1.23+9.5121i`` for COMPLEX(1.23, 9.5121, <empty>) in
    IronCalc's COMPLEXs.xlsx, saved by Excel); another suffix or a nonnumeric part #VALUE!.

    >>> _complex(3, 4), _complex(3, 4, "j"), _complex(0, 1), _complex(1, 0)
    ('3+4i', '3+4j', 'i', '1')
    >>> _complex(1.23, 9.5121, None), _complex(1.23, 9.5121, "")
    ('1.23+9.5121i', '1.23+9.5121i')
    >>> str(_complex(1, 2, 0)), str(_complex(1, 2, "I")), str(_complex("a", 1))
    ('#VALUE!', '#VALUE!', '#VALUE!')
    """
    try:
        re_ = _number(_scalar(real_num, "real_num"), "real_num")
        im = _number(_scalar(i_num, "i_num"), "i_num")
        sfx = _scalar(suffix, "suffix") if suffix is not None else None
    except _Err as ex:
        return ex.error
    if sfx is None or sfx == "":
        sfx = "i"
    if sfx not in ("i", "j"):
        return ExcelError("#VALUE!", f'COMPLEX: suffix {sfx!r} is not "i" or "j"')
    return complex_text(re_, im, sfx)


BUILTINS["COMPLEX"] = _complex


# ------------------------------------------------------------------ LOOKUP
# Microsoft, "LOOKUP function" (read 2026-12-01): the vector form LOOKUP(value, lookup_vector,
# result_vector) and the array form LOOKUP(value, array), which searches the first row when
# the array is wider than it is tall, otherwise the first column, and returns the value in
# the same position of the last row or column; the largest value not above ``value`` is
# found (the lookup row/column sorted ascending), of the same type (numbers, text without
# regard to case, booleans); none: #N/A. As Excel's cached values in pycel's lookup.xlsx
# (saved by Excel): a two-column lookup_vector is searched by its first column, a
# two-dimensional result_vector is #N/A, a blank value is 0, a blank result 0.


def _lookup_key(x):
    if isinstance(x, bool):
        return (2, x)
    if isinstance(x, (int, float)):
        return (0, float(x))
    if isinstance(x, str) and not isinstance(x, ExcelError):
        return (1, x.casefold())
    return None  # blanks and errors match nothing


def _lookup(value, lookup, result=None, *rest):
    """LOOKUP(lookup_value, lookup_vector, [result_vector]) and LOOKUP(value, array).

    >>> _lookup(2, [[0, "a"], [1, "e"], [2, "i"], [3, "o"]])
    'i'
    >>> _lookup(0.5, [[0, 1, 2], ["a", "e", "i"]])
    'a'
    >>> _lookup("x", [[0, "a"], [1, "e"]])
    '#N/A'
    """
    if rest:
        return ExcelError("#VALUE!", "LOOKUP takes two or three arguments")
    if isinstance(value, list):  # an array of lookup values (array formula): each one
        return [[_lookup(v, lookup, result) for v in row] for row in value]
    try:
        value = _scalar(value, "lookup_value")
    except _Err as ex:
        return ex.error
    grid = lookup if isinstance(lookup, list) else [[lookup]]
    h, w = len(grid), len(grid[0])
    keys = grid[0] if w > h else [row[0] for row in grid]
    if result is None:
        out = grid[-1] if w > h else [row[-1] for row in grid]
    elif isinstance(result, list):
        if len(result) > 1 and len(result[0]) > 1:
            return ExcelError("#N/A", "LOOKUP: result_vector is not one row or column")
        out = [x for row in result for x in row]
    else:
        out = [result]
    want = _lookup_key(0.0 if value is None else value)
    if want is None:
        return ExcelError("#N/A", "LOOKUP: lookup_value is not a number, text or boolean")
    # a binary search over the values of the same type, as Excel's (an unsorted row or
    # column gives what Excel gives: formulas' test.xlsx, sheet LOOKUP, saved by Excel)
    cands = [(i, key[1]) for i, key in enumerate(map(_lookup_key, keys))
             if key is not None and key[0] == want[0]]
    hit, lo, hi = None, 0, len(cands) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if cands[mid][1] <= want[1]:
            hit, lo = cands[mid][0], mid + 1
        else:
            hi = mid - 1
    if hit is None:
        return ExcelError("#N/A", "LOOKUP: no value at or below lookup_value")
    if hit >= len(out):
        return ExcelError("#N/A", "LOOKUP: result_vector is shorter than lookup_vector")
    x = out[hit]
    return 0.0 if x is None else x


BUILTINS["LOOKUP"] = _lookup


# ------------------------------------------------------------------ CEILING.MATH, FLOOR.MATH ...
#
# Microsoft, "CEILING.MATH function", "FLOOR.MATH function", "CEILING.PRECISE function",
# "FLOOR.PRECISE function", "ISO.CEILING function" (read 2026-12-01): the number rounded to a
# multiple of |significance| (default 1; 0 gives 0). CEILING.MATH rounds a negative number
# toward zero, away from zero when mode is nonzero; FLOOR.MATH the other way round; the
# PRECISE forms and ISO.CEILING round up (down) whatever the signs. As Excel computes them
# (NPOI's FloorCeilingMath.xlsx, saved by Excel): the quotient is taken to 15 significant
# digits before it is rounded (-3.8 / 0.2 is a whole 19), the result is that whole number
# times the significance, unrounded (-19 * 0.2 = -3.8000000000000003).


def _to_multiple(name: str, up):
    """``up(number, mode) -> bool``: round toward +inf (True) or -inf (False)."""

    def fn(number, significance=None, mode=None):
        significance = 1.0 if significance is None else significance
        try:
            m = _scalar(mode, f"{name}: mode") if mode is not None else 0.0
            m = float(m) if isinstance(m, bool) else _number(m, f"{name}: mode")
        except _Err as ex:
            return ex.error

        def values(x: np.ndarray, s: np.ndarray) -> list:
            out = []
            for xi, si in zip(x.tolist(), np.abs(s).tolist(), strict=True):
                if si == 0 or xi == 0:
                    out.append(0.0)
                    continue
                q = float(_round15(np.array([xi / si]))[0])
                n = math.ceil(q) if up(xi, m) else math.floor(q)
                out.append(n * si + 0.0)
            return out

        return _elementwise(name, values, number, significance)

    fn.__name__ = name
    fn.__doc__ = f"{name}(number, [significance], ...) as Excel (see the notes above)."
    return fn


BUILTINS.update({
    "CEILING.MATH": _to_multiple("CEILING.MATH", lambda x, m: x > 0 or m == 0),
    "FLOOR.MATH": _to_multiple("FLOOR.MATH", lambda x, m: x < 0 and m != 0),
    "CEILING.PRECISE": _to_multiple("CEILING.PRECISE", lambda x, m: True),
    "ISO.CEILING": _to_multiple("ISO.CEILING", lambda x, m: True),
    "FLOOR.PRECISE": _to_multiple("FLOOR.PRECISE", lambda x, m: False),
})
