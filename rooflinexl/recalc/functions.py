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

import bisect
import cmath
import contextlib
import contextvars
import math
import re

import numpy as np

from rooflinexl.addresses import MAX_COL, MAX_ROW, column_letters
from rooflinexl.errors import ExcelError

__all__ = ["BUILTINS", "CELL_INFO", "COMPATIBLE_MULTIPLES", "ETA_PREFIX", "EXCEL_NUMBERS",
           "REF_POSITION", "character_set",
           "complex_text", "cut_position", "dates_from_1904", "excel_bsearch", "excel_numbers",
           "imcsc", "imlog2", "index_array", "lookup_index", "lookup_range_flag",
           "mean_and_squares", "offset_address", "power", "set_date_system",
           "use_character_set", "use_date_system", "value_text", "wildcard_regex",
           "xmatch_key", "xmatch_nearest", "xmatch_position"]

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
    >>> complex_text(6.92442674613868e-05, -1.00005873951153, "j")
    '0.0000692442674613868-1.00005873951153j'
    """
    if im == 0:
        return _complex_part(re)
    part = "" if abs(im) == 1 else _complex_part(abs(im))
    sign = "-" if im < 0 else "+"
    if re == 0:
        return ("-" if im < 0 else "") + part + suffix
    return _complex_part(re) + sign + part + suffix


def _complex_part(x: float) -> str:
    """One part of a complex number's text: :func:`value_text`, except that a small
    part is written in plain notation where that takes at most 19 decimals (Excel for
    Mac's IMCOT/IMTAN cells in the `formulas` project's test.xlsx:
    ``0.0000692442674613868-1.00005873951153j``, next to ``1.28233995888454E-06+...``,
    20 decimals; IronCalc's COMPLEXs.xlsx: COMPLEX(1E-18, 0) is ``0.000000000000000001``,
    ``1.2E-45+3i`` stays).

    >>> _complex_part(-1e-18), _complex_part(2.5e-19), _complex_part(0.5)
    ('-0.000000000000000001', '2.5E-19', '0.5')
    """
    text = value_text(float(x))
    mant, sep, exp = text.partition("E-")
    if sep:
        digits = mant.lstrip("-").replace(".", "")
        if int(exp) + len(digits) - 1 <= 19:
            return mant[:mant.index(digits[0])] + "0." + "0" * (int(exp) - 1) + digits
    return text


def imcsc(z: complex) -> complex:
    """IMCSC's number: csc(x+yi) = 2 (sin x cosh y - i cos x sinh y) / (cosh 2y - cos 2x),
    the form whose rounding matches Excel's cached values (the `formulas` project's test.xlsx,
    ENGINEERING!T36: IMCSC("3.1+2j") = ``0.0118908807944521+0.275445903842597j``, and
    IronCalc's COMPLEXs.xlsx, saved by Excel for Mac: 7-12.6i -> 4.43073763907424E-06+...,
    where ``1/sin(z)`` ends ...425 and ...596). A real ``z`` is ``1/sin(x)``; a result
    that is not finite (``z = 0``) is NaN or infinite, which the caller makes #NUM!.

    >>> "%.15g %.15g" % (imcsc(3.1 + 2j).real, imcsc(3.1 + 2j).imag)
    '0.0118908807944521 0.275445903842597'
    """
    z = complex(z)
    x, y = z.real, z.imag
    try:
        if y != 0:
            d = (math.cosh(2 * y) - math.cos(2 * x)) / 2
            return complex(math.sin(x) * math.cosh(y) / d, -math.cos(x) * math.sinh(y) / d)
        return complex(1 / math.sin(x))
    except (OverflowError, ZeroDivisionError):
        with np.errstate(all="ignore"):
            return complex(1 / np.sin(np.complex128(z)))


def imlog2(z: complex) -> complex:
    """IMLOG2's number: ln(z) / ln 2, which matches Excel's cached values where numpy's
    ``log2`` does not (the `formulas` project's test.xlsx, ENGINEERING!T42:
    IMLOG2("3.1+2j") = ``1.88329758086464+0.826615412942814j``; ``log2`` ends ...463).
    ``z = 0`` is -inf, which the caller makes #NUM!.

    >>> "%.15g %.15g" % (imlog2(3.1 + 2j).real, imlog2(3.1 + 2j).imag)
    '1.88329758086464 0.826615412942814'
    """
    if z == 0:
        return complex(-math.inf, 0.0)
    return cmath.log(complex(z)) / math.log(2)


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
    """A host range argument as a list of rows (a single cell is a 1x1 range). A whole
    column of the block path (a numpy array, one row's value each) is refused (TypeError):
    a function that reads an argument as an array is called row by row."""
    if hasattr(x, "shape"):
        raise TypeError("a column of per-row values where an array belongs")
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
    re.compile(r"^(?P<y>\d{4})[-/](?P<m>\d{1,2})[-/](?P<d>\d{1,2})$"),  # 2024-01-31, 2024/1/31
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
    >>> _text_date("1/01/1900"), _text_date("2/28/1900"), _text_date("3/1/1900")
    (1.0, 59.0, 61.0)
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
        return float(_serial(day.year, day.month, day.day))  # 1/1/1900 is 1
    return None


_DATE_TIME = re.compile(r"^(?P<date>.*?)\s*(?:(?P<h>\d{1,2}):(?P<mi>\d{1,2})"
                        r"(?::(?P<s>\d{1,2}(?:\.\d*)?))?\s*(?P<ampm>[AaPp][Mm])?)?$")


def _typed_number(s: str) -> float | None:
    """Text typed where Excel wants a number, as Excel converts it: a number, a date (m/d/y;
    d/m/y where that is no date, as test.xlsx saved by Excel shows: "29/02/1900" is 60;
    d/m or m/d without a year: this year), a time, or both ("1/1/1987 05:00 AM").

    >>> _typed_number(" 2 "), _typed_number("29/02/1900"), _typed_number("1/1/1987 05:00 AM")
    (2.0, 60.0, 31778.208333333332)
    >>> _typed_number("12:30"), _typed_number("abc")
    (0.5208333333333334, None)
    """
    v = _text_number(s)
    if v is not None:
        return v
    m = _DATE_TIME.match(s.strip())
    if m is None or not (m.group("date") or m.group("h")):
        return None
    day = 0.0
    if m.group("date"):
        day = _text_date(m.group("date"))
        if day is None:
            day = _dm_date(m.group("date"))
        if day is None:
            return None
    if m.group("h") is None:
        return day
    h, mi = int(m.group("h")), int(m.group("mi"))
    sec = float(m.group("s") or 0)
    ampm = (m.group("ampm") or "").lower()
    if ampm:
        if not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if ampm == "pm" else 0)
    if h > 23 or mi > 59 or sec >= 60:
        return None
    return day + (h * 3600 + mi * 60 + sec) / 86400


def _dm_date(s: str) -> float | None:
    """d/m/y, d/m or m/d (no year: this year) as a 1900-system serial, else None."""
    import datetime

    parts = s.strip().split("/")
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        return None
    a, b = int(parts[0]), int(parts[1])
    y = int(parts[2]) if len(parts) == 3 else datetime.date.today().year
    if len(parts) == 3 and len(parts[2]) <= 2:
        y += 2000 if y < 30 else 1900
    for d, mo in ((a, b), (b, a)) if len(parts) == 3 else ((b, a), (a, b)):
        if (y, mo, d) == (1900, 2, 29):
            return 60.0
        try:
            datetime.date(y, mo, d)
        except ValueError:
            continue
        return float(_serial(y, mo, d)) if 1900 <= y <= 9999 else None
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
                    rx = re.compile(wildcard_regex(c), re.S)
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


def wildcard_regex(pattern: str) -> str:
    """Excel's ``* ? ~`` pattern as a regular expression (``~*`` a literal star).

    Microsoft, "Using wildcard characters in searches": ``*`` any characters, ``?`` one
    character, ``~`` followed by ``*``, ``?`` or ``~`` that character itself.

    >>> wildcard_regex("a?c*"), bool(re.fullmatch(wildcard_regex("5~*"), "5*"))
    ('a.c.*', True)
    """
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
    many rows: a numpy column, one row's criterion each) gives an array of results of its
    shape, one per element; each distinct criterion is matched once.
    """
    cells = []
    for rng, _ in pairs:
        c = _Cells(_grid(rng))
        if cells and c.shape != cells[0].shape:
            return ExcelError("#VALUE!", "criteria ranges of different sizes")
        cells.append(c)
    crits = [_grid(c.tolist() if isinstance(c, np.ndarray) else c)
             if isinstance(c, (list, np.ndarray)) else None for _, c in pairs]
    shape = next(((len(g), len(g[0])) for g in crits if g is not None), None)
    masks: dict = {}  # (pair, criterion) -> the cells it matches
    done: dict = {}  # the criteria of every pair -> the result

    def mask(k: int, crit):
        key = (k, type(crit), crit)
        try:
            hit = masks.get(key)
        except TypeError:  # unhashable: matched each time
            return cells[k].match(crit)
        if hit is None:
            hit = masks[key] = cells[k].match(crit)
        return hit

    def one(i: int, j: int):
        chosen = []
        for (_, crit), g in zip(pairs, crits, strict=True):
            if g is not None:
                crit = g[i if len(g) > 1 else 0][j if len(g[0]) > 1 else 0]
            chosen.append(crit)
        key = tuple((type(c), c) for c in chosen)
        try:
            hit = done.get(key)
        except TypeError:
            hit, key = None, None
        if hit is not None:
            return hit
        ok = np.ones(len(cells[0].kind), bool)
        for k, crit in enumerate(chosen):
            ok &= mask(k, crit)
        out = reduce(ok)
        if key is not None:
            done[key] = out
        return out

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


#: Excel's order of error values in a sort: by their internal codes (#NULL! 0, #DIV/0! 7,
#: #VALUE! 15, #REF! 23, #NAME? 29, #NUM! 36, #N/A 42), as the formulas project's test.xlsx
#: (saved by Excel) caches for SORT({#VALUE!,...,#NUM!},1,1,1)
_ERROR_ORDER = {e: k for k, e in enumerate(
    ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"))}


def _sort_key(x):
    """Excel's ascending order: numbers, then text (case-insensitive), then booleans, then
    errors (:data:`_ERROR_ORDER`); blank cells last."""
    if x is None:
        return (4, 0)
    if isinstance(x, ExcelError):
        return (3, _ERROR_ORDER.get(str(x), len(_ERROR_ORDER)))
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

def excel_variance(v: np.ndarray, ddof: int) -> float:
    """The variance of the numbers ``v`` (``ddof`` 1: the sample's, 0: the population's)
    as Excel computes it: the sample's (sum(x^2) - sum(x)^2 / n) / (n - 1), the
    population's (n sum(x^2) - sum(x)^2) / n^2, the sums taken in order. Excel's cached
    values carry these formulas' rounding, each to the bit (the `formulas` project's
    test.xlsx: VAR.S of 0, -10, 0.9, 2.2, -0.1 is 23.965000000000003, VAR.P
    19.172000000000004, where the exact values are 23.965 and 19.172; STDEVA of 0, -0.1,
    0.9 is 0.5507570547286103 and VARPA of row 119 14.50244897959184, which the other
    order of operations misses by a bit). Where the two terms cancel (data far from 0
    against its spread: the difference below a thousandth of sum(x^2), three digits
    lost) those formulas lose the digits, and the two-pass sum of squared deviations is
    taken instead.

    >>> excel_variance(np.array([0, -10, 0.9, 2.2, -0.1]), 1)
    23.965000000000003
    >>> excel_variance(np.array([1e9 + 1, 1e9 + 2, 1e9 + 3]), 1)
    1.0
    """
    n = len(v)
    xs = v.tolist()
    sx = sum(xs)
    sx2 = sum((v * v).tolist())
    if ddof:
        top = sx2 - sx * sx / n
        if top > 1e-3 * sx2:
            return top / (n - ddof)
    else:
        top = n * sx2 - sx * sx
        if top > 1e-3 * n * sx2:
            return top / (n * n)
    d = v - sx / n
    return float(np.sum(d * d)) / (n - ddof)


def _sample_var(v):
    return excel_variance(v, 1) if len(v) > 1 else ExcelError(
        "#DIV/0!", "fewer than two numbers")


def _pop_var(v):
    return excel_variance(v, 0) if len(v) else ExcelError("#DIV/0!", "no numbers")


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


def _errors_in(refs) -> int:
    """How many error values the reference arguments hold."""
    return sum(isinstance(x, ExcelError) for ref in refs for row in _grid(ref) for x in row)


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
    # COUNT and COUNTA pass over error values, as the functions they stand for: EPPlus's
    # FormulaTest.xlsx (saved by Excel) caches SUBTOTAL(103,Table1[Column1]) over 28
    # cells, one of them #DIV/0!, as 28
    direct = next((r for r in refs if isinstance(r, ExcelError)), None)
    if direct is not None:  # an error value given as the reference: SUBTOTAL(2,#REF!)
        return direct
    nums, count, err = _gather(refs, skip_errors=k == 2)
    if k == 3:
        _, count, _ = _gather(refs, skip_errors=True)
        return float(count + _errors_in(refs))
    if err is not None:
        return err
    return _SUBTOTALS[k](np.array(nums))


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
    if len(args) < 2:
        return ExcelError("#VALUE!", "AGGREGATE 14-19 takes an array and k")
    # the array may come as the pieces left of a reference (prepass.split_subtotal_refs)
    nums, _, err = _gather(args[:-1], skip_errors)
    if err is not None:
        return err
    try:
        k = _number(_scalar(args[-1], "k"), "k")
    except _Err as ex:
        return ex.error
    v = np.array(nums)
    if n in (14, 15):
        return kth_value(v, k, n == 14, round_up=True)
    if n in (17, 19) and k != int(k):
        return ExcelError("#NUM!", "AGGREGATE: quart must be 0-4")
    return percentile_value(v, k / 4 if n in (17, 19) else k, n in (18, 19))


BUILTINS.update(SUBTOTAL=_subtotal, AGGREGATE=_aggregate)


# ------------------------------------------------------------ arrays, lookups, statistics
#
# Array arguments arrive as host values (:func:`_grid`: a list of row lists, one cell's
# value for a single cell). Functions of a list of numbers read an array or reference by
# Excel's rule for them (Microsoft, "LARGE function", "PERCENTILE.INC function", "SLOPE
# function" ..., read 2026-12-01): numbers count; text, booleans and empty cells are
# ignored; an error value is the result. Blank cells in an array result read as 0, as in
# Excel's spilled values.

def _flat(x) -> list:
    """The values of an array or reference argument, row by row."""
    return [y for row in _grid(x) for y in row]


def _array_numbers(x) -> np.ndarray:
    """The numbers of an array or reference argument (raises :class:`_Err` on an error)."""
    nums = []
    for y in _flat(x):
        if isinstance(y, ExcelError):
            raise _Err(str(y), getattr(y, "reason", "") or "an error value in the array")
        if isinstance(y, (int, float)) and not isinstance(y, bool):
            nums.append(float(y))
    return np.asarray(nums, dtype=float)


def _arg_number(x, what: str) -> float:
    """A single numeric argument: an error is raised, a boolean counts as 0 or 1, an empty
    cell as 0, text as Excel converts it (:func:`_typed_number`: dates too; the `formulas`
    project's test.xlsx, saved by Excel: LARGE(..., "01/01/1900") is LARGE(..., 1))."""
    if isinstance(x, ExcelError):
        raise _Err(str(x), getattr(x, "reason", "") or f"{what} is an error value")
    if isinstance(x, (bool, int, float)):
        return float(x)
    if x is None:
        return 0.0
    v = _typed_number(str(x))
    if v is None:
        raise _Err("#VALUE!", f"{what} {x!r} is not a number")
    return v


def _listed(x):
    """A whole column of the block path (numpy, one row's value each) as a host array."""
    return x.tolist() if getattr(x, "ndim", 0) == 2 else x


def _lifted(*positions: int):
    """Excel's lifting of single-value parameters: given an array there, the function is
    computed for each of its elements (the top-left value of each result), an array of
    results (the `formulas` project's test.xlsx, saved by Excel: TRIMMEAN(C115:J115,
    E115:R115) as an array formula, MUNIT({1,2;3,4;7,8}) ...)."""
    def wrap(fn):
        def f(*args):
            args = [_listed(a) if i in positions else a for i, a in enumerate(args)]
            at = [i for i in positions if i < len(args) and isinstance(args[i], list)]
            if not at:
                return fn(*args)

            def one(*vals):
                a = list(args)
                for i, v in zip(at, vals, strict=True):
                    a[i] = v
                r = fn(*a)
                while isinstance(r, list):
                    r = r[0][0] if isinstance(r[0], list) else r[0]
                return r
            return _broadcast(one, *[args[i] for i in at])
        f.__name__, f.__doc__ = fn.__name__, fn.__doc__
        return f
    return wrap


def kth_value(v: np.ndarray, k: float, largest: bool, round_up: bool = False):
    """LARGE's and SMALL's pick: the ``k``-th largest (smallest) of the numbers ``v``; a
    fractional ``k`` is rounded up for LARGE and truncated for SMALL, and below 1 #NUM!
    (test.xlsx of the `formulas` project, saved by Excel, STATISTICAL rows 57 and 95: of
    0.1, -10, 0.9, 2.2, -0.1 LARGE with k 2.2 is 0.1 and SMALL -0.1, both with 0.9 #NUM!);
    ``round_up`` (AGGREGATE 14 and 15): rounded up, 0 < k < 1 as 1. ``k`` beyond len(v) is
    #NUM!.

    >>> kth_value(np.array([3.0, 5, 3, 5, 4]), 3, True), kth_value(np.array([1.0, 2]), 1.2, False)
    (4.0, 1.0)
    """
    i = math.ceil(k) if round_up or largest else math.trunc(k)
    if not 1 <= i <= len(v) or k < 1 and not round_up:
        return ExcelError("#NUM!", f"k {k:g} outside 1..{len(v)}")
    s = np.sort(v)
    return float(s[len(s) - i] if largest else s[i - 1])


def percentile_value(v: np.ndarray, p: float, exclusive: bool):
    """PERCENTILE.INC (rank ``p (n-1)``) or .EXC (rank ``p (n+1) - 1``, 0-based) of the
    numbers ``v``, interpolated linearly between the neighbouring sorted values; no
    number, ``p`` outside 0..1, or (exclusive) a rank outside the data is #NUM!.

    >>> percentile_value(np.array([1.0, 3, 2, 4]), 0.3, False)
    1.9
    >>> percentile_value(np.array([1.0, 2, 3, 6, 6, 6, 7, 8, 9]), 0.25, True)
    2.5
    """
    m = len(v)
    if m == 0 or not 0 <= p <= 1:
        return ExcelError("#NUM!", f"no numbers, or {p:g} outside 0..1")
    h = p * (m + 1) - 1 if exclusive else p * (m - 1)
    if not 0 <= h <= m - 1:
        return ExcelError("#NUM!", f"{p:g} outside the data's exclusive range")
    s = np.sort(v)
    lo = math.floor(h)
    hi = min(lo + 1, m - 1)
    return float(s[lo] + (h - lo) * (s[hi] - s[lo]))


def _kth(largest: bool):
    @_lifted(1)
    def f(array, k):
        """LARGE(array, k) / SMALL(array, k) (Microsoft, "LARGE function", "SMALL
        function"); an error in ``k`` comes before one in the array."""
        try:
            kk = _arg_number(k, "k")
            return kth_value(_array_numbers(array), kk, largest)
        except _Err as ex:
            return ex.error
    return f


def _percentile(exclusive: bool, quartile: bool):
    @_lifted(1)
    def f(array, k):
        """PERCENTILE(.INC/.EXC)(array, k), QUARTILE(.INC/.EXC)(array, quart): quart is
        truncated; QUARTILE.EXC takes 1-3, QUARTILE 0-4, below 0 #NUM! (Microsoft,
        "QUARTILE.EXC function", "QUARTILE function"); an error in ``k`` comes before one
        in the array (test.xlsx of the `formulas` project, saved by Excel)."""
        try:
            k_ = _arg_number(k, "quart" if quartile else "k")
            v = _array_numbers(array)
            if quartile:
                q = math.trunc(k_)
                if k_ < 0 or not (1 <= q <= 3 if exclusive else 0 <= q <= 4):
                    raise _Err("#NUM!", f"quart {k_:g} out of range")
                k_ = q / 4
            elif exclusive and not 0 < k_ < 1:
                raise _Err("#NUM!", f"k {k_:g} outside (0, 1)")
        except _Err as ex:
            return ex.error
        return percentile_value(v, k_, exclusive)
    return f


def _percentrank(exclusive: bool):
    @_lifted(1, 2)
    def f(array, x, significance=None):
        """PERCENTRANK(.INC/.EXC)(array, x, [significance]): the rank of ``x`` in the
        numbers of ``array`` as a fraction, ``i / (n-1)`` (.EXC: ``(i+1) / (n+1)``) for
        the ``i``-th (0-based, first of equals) sorted value, interpolated between the
        neighbours (the last of equal lower ones) of an ``x`` that is not in the data,
        truncated to ``significance`` (default 3) digits; ``x`` outside the data is #N/A,
        significance < 1 #NUM! (Microsoft, "PERCENTRANK.INC function", "PERCENTRANK.EXC
        function"; IronCalc's PERCENTIL_QUARTIL.xlsx, saved by Excel: 40 in -4, -1, 3, 7.5,
        12, 12, 56 is 0.939)."""
        try:
            t = _arg_number(x, "x")
            sig = 3 if significance is None else math.trunc(
                _arg_number(significance, "significance"))
            v = np.sort(_array_numbers(array))
        except _Err as ex:
            return ex.error
        if sig < 1:
            return ExcelError("#NUM!", f"significance {sig} below 1")
        m = len(v)

        def rank(i: int) -> float:
            return (i + 1) / (m + 1) if exclusive else i / (m - 1) if m > 1 else 1.0

        if m == 0 or not v[0] <= t <= v[-1]:
            return ExcelError("#N/A", f"x {t:g} outside the data")
        i = int(np.searchsorted(v, t, "left"))
        if v[i] == t:
            r = rank(i)
        else:
            r = rank(i - 1) + (t - v[i - 1]) / (v[i] - v[i - 1]) * (rank(i) - rank(i - 1))
        scale = 10.0 ** sig
        return math.floor(round(r * scale, 6)) / scale
    return f


def _rank(average: bool):
    @_lifted(0, 2)
    def f(number, ref, order=None):
        """RANK(.EQ/.AVG)(number, ref, [order]): 1 + the count of numbers of ``ref`` above
        ``number`` (``order`` nonzero: below); .AVG the mean rank of equal numbers;
        ``number`` not among them is #N/A (Microsoft, "RANK.EQ function", "RANK.AVG
        function")."""
        try:
            t = _arg_number(number, "number")
            asc = order is not None and _arg_number(order, "order") != 0
            v = _array_numbers(ref)
        except _Err as ex:
            return ex.error
        same = int(np.sum(v == t))
        if not same:
            return ExcelError("#N/A", f"{t:g} is not among the numbers of ref")
        first = 1 + int(np.sum(v < t if asc else v > t))
        return first + (same - 1) / 2 if average else float(first)
    return f


@_lifted(1)
def _trimmean(array, percent):
    """TRIMMEAN(array, percent): the mean without ``floor(n percent)`` numbers, rounded
    down to an even count, half from each end; ``percent`` outside [0, 1) is #NUM!
    (Microsoft, "TRIMMEAN function").

    >>> _trimmean([[4], [5], [6], [7], [2], [3], [4], [5], [1], [2], [3]], 0.2)
    3.7777777777777777
    """
    try:
        p = _arg_number(percent, "percent")
        v = np.sort(_array_numbers(array))
    except _Err as ex:
        return ex.error
    if not 0 <= p < 1 or not len(v):
        return ExcelError("#NUM!", "TRIMMEAN: percent outside [0, 1) or no numbers")
    k = math.floor(len(v) * p) // 2
    return float(np.mean(v[k:len(v) - k]))


class _Omitted:
    """An argument left out (``MODE.MULT(A1:A3,)``), for a function that tells it from an
    empty cell (its ``omitted`` attribute: the per-cell adapter passes this in its place,
    where other functions get None)."""

    def __repr__(self) -> str:
        return "<omitted argument>"


def _mode_mult(*args):
    """MODE.MULT(number1, ...): the numbers occurring most often (at least twice), in the
    order they first occur, as a column (Microsoft, "MODE.MULT function"). An argument
    left out is #VALUE! (the `formulas` project's test.xlsx, saved by Excel:
    {=MODE.MULT(H69:J69,D69:I69,E69:G69,F69:H69,)}).

    >>> _mode_mult([[1], [2], [2], [3], [3]]), str(_mode_mult([[1], [1]], _mode_mult.omitted))
    ([[2.0], [3.0]], '#VALUE!')
    """
    if any(isinstance(a, _Omitted) for a in args):
        return ExcelError("#VALUE!", "MODE.MULT: an argument left out")
    try:
        v = np.concatenate([_array_numbers(a) for a in args]) if args else np.array([])
    except _Err as ex:
        return ex.error
    vals, counts = np.unique(v, return_counts=True)
    if not len(v) or counts.max() < 2:
        return ExcelError("#N/A", "MODE.MULT: no value occurs twice")
    top = {float(x) for x, c in zip(vals, counts, strict=True) if c == counts.max()}
    out = []
    for x in v.tolist():
        if x in top and [x] not in out:
            out.append([x])
    return out


_mode_mult.omitted = _Omitted()


def _frequency(data_array, bins_array):
    """FREQUENCY(data_array, bins_array): a column of how many numbers fall in each
    interval the bins make (``<= bin``, above the previous bin), one more than the bins
    for those above the highest; bins in any order (Microsoft, "FREQUENCY function").

    >>> _frequency([[79], [85], [78], [85], [50], [81], [95], [88], [97]], [[70], [79], [89]])
    [[1.0], [2.0], [4.0], [2.0]]
    """
    try:
        data = _array_numbers(data_array)
        bins = _array_numbers(bins_array)
        if not len(bins) and all(y is None for y in _flat(bins_array)):
            # empty cells only: one bin of 0 (test.xlsx of the `formulas` project, saved
            # by Excel: STATISTICAL W43 and EXTRA J50:J51)
            bins = np.zeros(1)
    except _Err as ex:
        return ex.error
    order = np.argsort(bins, kind="stable")
    slot = np.searchsorted(bins[order], data, "left")
    counts = np.bincount(slot, minlength=len(bins) + 1).astype(float)
    out = np.empty(len(bins) + 1)
    out[order] = counts[:len(bins)]
    out[-1] = counts[len(bins)]
    return [[float(c)] for c in out]


def _pairs(a, b, name: str):
    """The (x, y) number pairs of two arrays of as many values (else #N/A); a pair with
    text, a boolean or an empty cell on either side is left out; an error is the result,
    the first pair's first, except that a pair whose first value is #NULL! is passed over
    (the `formulas` project's test.xlsx, saved by Excel: CORREL, COVARIANCE.P, INTERCEPT,
    PEARSON, RSQ, SLOPE, STEYX of (#NULL!, #NUM!, #REF!) and (#REF!, -0.01, -0.01) are
    #NUM!, of (#DIV/0!, #NAME?, #NULL!) and (#NULL!, #NUM!, #REF!) #DIV/0!)."""
    fa, fb = _flat(a), _flat(b)
    if len(fa) != len(fb):
        raise _Err("#N/A", f"{name}: the arrays hold different numbers of values")
    for p, q in zip(fa, fb, strict=True):  # pair by pair (test.xlsx: CORREL, row 20)
        if isinstance(p, ExcelError) and str(p) == "#NULL!":
            continue
        for y in (p, q):
            if isinstance(y, ExcelError):
                raise _Err(str(y), getattr(y, "reason", "") or "an error value in the arrays")

    def num(y):
        return isinstance(y, (int, float)) and not isinstance(y, bool)

    keep = [(float(p), float(q)) for p, q in zip(fa, fb, strict=True) if num(p) and num(q)]
    xs = np.asarray([p for p, _ in keep], dtype=float)
    ys = np.asarray([q for _, q in keep], dtype=float)
    return xs, ys


def _moments(xs: np.ndarray, ys: np.ndarray):
    """(n, sum of squared x deviations, of y, of their products)."""
    if not len(xs):
        return 0, 0.0, 0.0, 0.0
    dx, dy = xs - np.mean(xs), ys - np.mean(ys)
    return len(xs), float(np.sum(dx * dx)), float(np.sum(dy * dy)), float(np.sum(dx * dy))


def _div0(name: str):
    return _Err("#DIV/0!", f"{name}: too few numbers, or no variation")


def _slope(ys, xs, name="SLOPE"):
    n, sxx, _, sxy = _moments(xs, ys)
    if n == 0 or sxx == 0:
        raise _div0(name)
    return sxy / sxx


def _intercept(ys, xs, name="INTERCEPT"):
    return float(np.mean(ys)) - _slope(ys, xs, name) * float(np.mean(xs))


def _correl(xs, ys, name="CORREL"):
    _, sxx, syy, sxy = _moments(xs, ys)
    if sxx * syy == 0:
        raise _div0(name)
    return sxy / math.sqrt(sxx * syy)


def _steyx(ys, xs):
    n, sxx, syy, sxy = _moments(xs, ys)
    if n < 3 or sxx == 0:
        raise _div0("STEYX")
    return math.sqrt((syy - sxy * sxy / sxx) / (n - 2))


def _covar(sample: bool, name: str):
    def f(xs, ys):
        n, _, _, sxy = _moments(xs, ys)
        if n < (2 if sample else 1):
            raise _div0(name)
        return sxy / (n - 1 if sample else n)
    return f


def _two_arrays(name: str, fn):
    """A function of two arrays' number pairs (:func:`_pairs`): ``fn(first, second)``."""
    def f(a, b):
        try:
            first, second = _pairs(a, b, name)
            return float(fn(first, second))
        except _Err as ex:
            return ex.error
    f.__name__ = name
    return f


def _sumx(name: str, fn):
    """SUMX2MY2, SUMX2PY2, SUMXMY2 (Microsoft, "SUMX2MY2 function" ...): the sum of
    ``fn(x, y)`` over the pairs of numbers."""
    def f(array_x, array_y):
        try:
            xs, ys = _pairs(array_x, array_y, name)
        except _Err as ex:
            return ex.error
        if not len(xs):  # NPOI's FormulaEvalTestData (saved by Excel)
            return ExcelError("#DIV/0!", f"{name}: no pair of numbers")
        return float(np.sum(fn(xs, ys)))
    return f


@_lifted(0)
def _forecast(x, known_y, known_x):
    """FORECAST(x, known_y's, known_x's) = INTERCEPT + SLOPE x (Microsoft, "FORECAST and
    FORECAST.LINEAR functions"); ``x`` may be an array.

    >>> _forecast(30, [[6], [7], [9], [15], [21]], [[20], [28], [31], [38], [40]])
    10.607253086419755
    """
    try:
        t = _arg_number(x, "x")
        for a in (known_y, known_x):  # test.xlsx of the `formulas` project, STATISTICAL V42
            if not isinstance(a, (list, int, float, ExcelError)) or isinstance(a, bool):
                raise _Err("#VALUE!", "FORECAST: a single value that is not a number")
        ys, xs = _pairs(known_y, known_x, "FORECAST")
        b = _slope(ys, xs, "FORECAST")
        return float(np.mean(ys)) - b * float(np.mean(xs)) + b * t
    except _Err as ex:
        return ex.error


BUILTINS.update({
    "LARGE": _kth(True), "SMALL": _kth(False),
    "PERCENTILE": _percentile(False, False), "PERCENTILE.INC": _percentile(False, False),
    "PERCENTILE.EXC": _percentile(True, False), "QUARTILE": _percentile(False, True),
    "QUARTILE.INC": _percentile(False, True), "QUARTILE.EXC": _percentile(True, True),
    "PERCENTRANK": _percentrank(False), "PERCENTRANK.INC": _percentrank(False),
    "PERCENTRANK.EXC": _percentrank(True),
    "RANK": _rank(False), "RANK.EQ": _rank(False), "RANK.AVG": _rank(True),
    "TRIMMEAN": _trimmean, "MODE.MULT": _mode_mult, "FREQUENCY": _frequency,
    "SLOPE": _two_arrays("SLOPE", lambda ys, xs: _slope(ys, xs)),
    "INTERCEPT": _two_arrays("INTERCEPT", lambda ys, xs: _intercept(ys, xs)),
    "STEYX": _two_arrays("STEYX", _steyx),
    "CORREL": _two_arrays("CORREL", _correl),
    "PEARSON": _two_arrays("PEARSON", lambda a, b: _correl(a, b, "PEARSON")),
    "RSQ": _two_arrays("RSQ", lambda ys, xs: _correl(xs, ys, "RSQ") ** 2),
    "COVAR": _two_arrays("COVAR", _covar(False, "COVAR")),
    "COVARIANCE.P": _two_arrays("COVARIANCE.P", _covar(False, "COVARIANCE.P")),
    "COVARIANCE.S": _two_arrays("COVARIANCE.S", _covar(True, "COVARIANCE.S")),
    "FORECAST": _forecast, "FORECAST.LINEAR": _forecast,
    "SUMX2MY2": _sumx("SUMX2MY2", lambda x, y: x * x - y * y),
    "SUMX2PY2": _sumx("SUMX2PY2", lambda x, y: x * x + y * y),
    "SUMXMY2": _sumx("SUMXMY2", lambda x, y: (x - y) ** 2),
})


def _sumproduct(*arrays):
    """SUMPRODUCT(array1, [array2], ...): the sum of the products of the arrays' elements
    at the same place; arrays of other sizes are #VALUE!, a non-number element counts as
    0, an error value is the result (Microsoft, "SUMPRODUCT function").

    >>> _sumproduct([[3, 4], [8, 6], [1, 9]], [[2, 7], [6, 7], [5, 3]])
    156.0
    >>> _sumproduct([[1], ["x"], [True]], [[2], [3], [4]]), str(_sumproduct([[1, 2]], [[1]]))
    (2.0, '#VALUE!')
    """
    if not arrays:
        return ExcelError("#VALUE!", "SUMPRODUCT takes at least one array")
    grids = [_grid(a) for a in arrays]
    for g in grids:  # an error comes before a size mismatch (test.xlsx, MATH & TRIG AE75)
        for row in g:
            for y in row:
                if isinstance(y, ExcelError):
                    return y
    shape = (len(grids[0]), len(grids[0][0]))
    if any((len(g), len(g[0])) != shape for g in grids):
        return ExcelError("#VALUE!", "SUMPRODUCT: arrays of different sizes")
    mats = []
    for g in grids:
        m = np.zeros(shape)
        for i, row in enumerate(g):
            for j, y in enumerate(row):
                if isinstance(y, (int, float)) and not isinstance(y, bool):
                    m[i, j] = y
        mats.append(m)
    return float(np.sum(np.prod(mats, axis=0)))


def _matrix(x, what: str, errors: bool = True) -> np.ndarray:
    """A numeric matrix argument: any value that is not a number (an empty cell too) is
    #VALUE!, an error value the result (``errors`` False: #VALUE! too)."""
    g = _grid(x)
    m = np.empty((len(g), len(g[0])))
    for i, row in enumerate(g):
        for j, y in enumerate(row):
            if isinstance(y, ExcelError) and errors:
                raise _Err(str(y), getattr(y, "reason", "") or f"an error value in {what}")
            if not isinstance(y, (int, float)) or isinstance(y, bool):
                raise _Err("#VALUE!", f"{what}: {y!r} is not a number")
            m[i, j] = y
    return m


def _mmult(array1, array2):
    """MMULT(array1, array2): the matrix product; array1's columns must equal array2's
    rows and every element be a number, else #VALUE! (Microsoft, "MMULT function").

    >>> _mmult([[1, 3], [7, 2]], [[2, 0], [0, 2]])
    [[2.0, 6.0], [14.0, 4.0]]
    """
    try:
        a, b = _matrix(array1, "array1"), _matrix(array2, "array2")
    except _Err as ex:
        return ex.error
    if a.shape[1] != b.shape[0]:
        return ExcelError("#VALUE!", "MMULT: array1's columns differ from array2's rows")
    out = a @ b
    return float(out[0, 0]) if out.size == 1 else out.tolist()


def _mdeterm(array):
    """MDETERM(array): the determinant of a square matrix of numbers (Microsoft, "MDETERM
    function"); not square or not all numbers is #VALUE!.

    >>> round(_mdeterm([[1, 3, 8, 5], [1, 3, 6, 1], [1, 1, 1, 0], [7, 3, 10, 2]]), 9)
    88.0
    """
    try:
        m = _matrix(array, "array")
    except _Err as ex:
        return ex.error
    if m.shape[0] != m.shape[1]:
        return ExcelError("#VALUE!", "MDETERM: the array is not square")
    return float(np.linalg.det(m))


@_lifted(0)
def _munit(dimension):
    """MUNIT(dimension): the identity matrix of that size; below 1 is #VALUE! (Microsoft,
    "MUNIT function").

    >>> _munit(2)
    [[1.0, 0.0], [0.0, 1.0]]
    """
    try:
        n = math.trunc(_arg_number(dimension, "dimension"))
    except _Err as ex:
        return ex.error
    if n < 1:
        return ExcelError("#VALUE!", f"MUNIT: dimension {n} below 1")
    return 1.0 if n == 1 else np.eye(n).tolist()


def _spilled(rows: list) -> list | object:
    """An array result: blank cells as 0 (Excel's spilled values), one value as itself."""
    out = [[0.0 if y is None else y for y in row] for row in rows]
    return out[0][0] if len(out) == 1 and len(out[0]) == 1 else out


def _transpose(array):
    """TRANSPOSE(array): rows as columns (Microsoft, "TRANSPOSE function").

    >>> _transpose([[1, 2, 3], [4, None, 6]])
    [[1, 4], [2, 0.0], [3, 6]]
    """
    return _spilled([list(c) for c in zip(*_grid(array), strict=True)])


def _count_arg(x, what: str, default: int | None = None) -> int | None:
    if x is None:
        return default
    return math.trunc(_arg_number(_scalar(x, what), what))


def _pad_arg(x, what: str):
    """A padding value (any value, an error value too; omitted: #N/A)."""
    if x is None:
        return ExcelError("#N/A", f"{what}'s padding")
    if isinstance(x, list):
        raise _Err("#VALUE!", f"{what}: an array where the padding value belongs")
    return x


def _pick(name: str, by_rows: bool):
    def f(array, *nums):
        """CHOOSEROWS / CHOOSECOLS(array, n1, ...): the rows (columns) numbered ``n``,
        negative from the end; 0 or beyond the array is #VALUE! (Microsoft,
        "CHOOSECOLS function")."""
        g = _grid(array)
        lines = g if by_rows else [list(c) for c in zip(*g, strict=True)]
        if not nums:
            return ExcelError("#VALUE!", f"{name} takes at least one number")
        picked = []
        try:
            for a in nums:
                ga = _grid(a)
                if len(ga) > 1 and len(ga[0]) > 1:  # test.xlsx, LOOKUP AH6
                    raise _Err("#VALUE!", f"{name}: a two-dimensional array of numbers")
                for x in _flat(a):
                    k = math.trunc(_arg_number(x, "number"))
                    if k == 0 or abs(k) > len(lines):
                        raise _Err("#VALUE!", f"{name}: {k} outside 1..{len(lines)}")
                    picked.append(lines[k - 1 if k > 0 else len(lines) + k])
        except _Err as ex:
            return ex.error
        return _spilled(picked if by_rows else [list(c) for c in zip(*picked, strict=True)])
    return f


def _take_drop(take: bool):
    name = "TAKE" if take else "DROP"

    @_lifted(1, 2)
    def f(array, rows=None, columns=None):
        """TAKE / DROP(array, rows, [columns]): the first (negative: last) rows and
        columns, or all but them; nothing left is an empty array (Excel's #CALC!, here
        #VALUE! with the reason) (Microsoft, "TAKE function", "DROP function"). An empty
        ``rows`` is 0 (the `formulas` project's test.xlsx, saved by Excel: TAKE(..., H123)
        of an empty H123 is #VALUE!)."""
        g = _grid(array)
        try:
            r = _count_arg(rows, "rows", 0)
            c = _count_arg(columns, "columns")
        except _Err as ex:
            return ex.error

        def cut(n, k):
            if k is None:
                return slice(0, n)
            if take:
                return slice(0, min(k, n)) if k >= 0 else slice(max(n + k, 0), n)
            return slice(min(k, n), n) if k >= 0 else slice(0, max(n + k, 0))
        rs, cs = cut(len(g), r), cut(len(g[0]), c)
        out = [row[cs] for row in g[rs]]
        if not out or not out[0] or take and (r == 0 or c == 0):
            return ExcelError("#VALUE!", f"{name}: an empty array (Excel's #CALC!)")
        return _spilled(out)
    return f


@_lifted(1, 2)
def _expand(array, rows=None, columns=None, pad_with=None):
    """EXPAND(array, rows, [columns], [pad_with]): the array grown to ``rows`` x
    ``columns`` (omitted: as it is), padded with ``pad_with`` (default #N/A); smaller
    than the array is #VALUE! (Microsoft, "EXPAND function"; an empty ``rows`` is 0, as
    test.xlsx of the `formulas` project shows: EXPAND({1},H19) is #VALUE!)."""
    g = _grid(array)
    try:
        r = _count_arg(rows, "rows", 0)
        c = _count_arg(columns, "columns", len(g[0]))
        pad = _pad_arg(pad_with, "EXPAND")
    except _Err as ex:
        return ex.error
    if r < len(g) or c < len(g[0]):
        return ExcelError("#VALUE!", "EXPAND: rows or columns below the array's")
    out = [row + [pad] * (c - len(row)) for row in g] + [[pad] * c for _ in range(r - len(g))]
    return _spilled(out)


def _stack(vertical: bool):
    def f(*arrays):
        """VSTACK / HSTACK(array1, ...): the arrays one below (beside) the other, the
        narrower (shorter) padded with #N/A (Microsoft, "VSTACK function")."""
        grids = [_grid(a) for a in arrays]
        if not grids:
            return ExcelError("#VALUE!", "VSTACK/HSTACK take at least one array")
        if not vertical:
            grids = [[list(c) for c in zip(*g, strict=True)] for g in grids]
        width = max(len(g[0]) for g in grids)
        pad = ExcelError("#N/A", "VSTACK/HSTACK padding")
        out = [row + [pad] * (width - len(row)) for g in grids for row in g]
        return _spilled(out if vertical else [list(c) for c in zip(*out, strict=True)])
    return f


def _ignore_arg(ignore) -> tuple[bool, bool]:
    """TOCOL's and TOROW's ``ignore``: 0 keep all, 1 blanks, 2 errors, 3 both."""
    k = _count_arg(ignore, "ignore", 0)
    if k not in (0, 1, 2, 3):
        raise _Err("#VALUE!", f"ignore {k} is not 0-3")
    return bool(k & 1), bool(k & 2)


def _to_line(column: bool):
    @_lifted(1, 2)
    def f(array, ignore=None, scan_by_column=None):
        """TOCOL / TOROW(array, [ignore], [scan_by_column]): the values in one column
        (row), by rows or by columns, blanks and/or errors left out (Microsoft, "TOCOL
        function")."""
        g = _grid(array)
        try:
            blanks, errors = _ignore_arg(ignore)
            by_col = bool(_count_arg(scan_by_column, "scan_by_column", 0))
        except _Err as ex:
            return ex.error
        if by_col:
            g = [list(c) for c in zip(*g, strict=True)]
        vals = [y for row in g for y in row
                if not (blanks and y is None or errors and isinstance(y, ExcelError))]
        if not vals:
            return ExcelError("#VALUE!", "TOCOL/TOROW: an empty array (Excel's #CALC!)")
        return _spilled([[y] for y in vals] if column else [vals])
    return f


def _wrap(by_rows: bool):
    @_lifted(1)
    def f(vector, wrap_count, pad_with=None):
        """WRAPROWS / WRAPCOLS(vector, wrap_count, [pad_with]): a row or column cut into
        rows (columns) of ``wrap_count`` values, the last padded (default #N/A);
        a two-dimensional vector or a count below 1 is #VALUE! (Microsoft, "WRAPROWS
        function")."""
        g = _grid(vector)
        if len(g) > 1 and len(g[0]) > 1:
            return ExcelError("#VALUE!", "WRAPROWS/WRAPCOLS: the vector is two-dimensional")
        try:
            n = _count_arg(wrap_count, "wrap_count")
            pad = _pad_arg(pad_with, "WRAPROWS/WRAPCOLS")
        except _Err as ex:
            return ex.error
        if n is None or n < 1:  # test.xlsx of the `formulas` project: #NUM!
            return ExcelError("#NUM!", "WRAPROWS/WRAPCOLS: wrap_count below 1")
        vals = [y for row in g for y in row]
        lines = [vals[i:i + n] for i in range(0, len(vals), n)]
        lines[-1] = lines[-1] + [pad] * (n - len(lines[-1]))
        return _spilled(lines if by_rows else [list(c) for c in zip(*lines, strict=True)])
    return f


def _truth(x):
    """FILTER's include value: a number (nonzero) or a boolean; an error is raised."""
    if isinstance(x, ExcelError):
        raise _Err(str(x), getattr(x, "reason", "") or "an error value in include")
    if x is None:
        return False
    if isinstance(x, (bool, int, float)):
        return bool(x)
    raise _Err("#VALUE!", f"FILTER: include value {x!r} is not a number or boolean")


def _filter(array, include, if_empty=None):
    """FILTER(array, include, [if_empty]): the rows (or columns) of ``array`` whose
    ``include`` value is TRUE or nonzero; ``include`` a column as tall as the array or a
    row as wide; none kept is ``if_empty`` or an empty array (Excel's #CALC!, here #VALUE!
    with the reason) (Microsoft, "FILTER function").

    >>> _filter([["a", 1], ["b", 2], ["c", 3]], [[True], [False], [1]])
    [['a', 1], ['c', 3]]
    """
    g, inc = _grid(array), _grid(include)
    try:
        if len(inc[0]) == 1 and len(inc) == len(g):
            keep = [_truth(r[0]) for r in inc]
            out = [row for row, k in zip(g, keep, strict=True) if k]
        elif len(inc) == 1 and len(inc[0]) == len(g[0]):
            keep = [_truth(x) for x in inc[0]]
            out = [[y for y, k in zip(row, keep, strict=True) if k] for row in g]
        else:
            return ExcelError("#VALUE!", "FILTER: include is not a row or column of the "
                              "array's size")
    except _Err as ex:
        return ex.error
    if not out or not out[0]:
        if if_empty is not None:
            return if_empty
        return ExcelError("#VALUE!", "FILTER: nothing matches (Excel's #CALC!)")
    return _spilled(out)


def _unique_key(x):
    if isinstance(x, str) and not isinstance(x, ExcelError):
        return (1, x.casefold())
    if isinstance(x, bool):
        return (2, x)
    if isinstance(x, (int, float)):
        return (0, float(x))
    return (3, None if x is None else str(x))


def _unique(array, by_col=None, exactly_once=None):
    """UNIQUE(array, [by_col], [exactly_once]): the distinct rows (columns) in the order
    they first occur, text compared without regard to case; ``exactly_once`` only those
    occurring once (Microsoft, "UNIQUE function").

    ``by_col`` or ``exactly_once`` given as an array: as Excel's cached values in the
    `formulas` project's test.xlsx (LOOKUP AK140:AN141, AK142:AM142, AS142:AU142), the
    first element is UNIQUE's top-left value for the first parameters, each other element
    0, or #VALUE! where its parameter is not a number or boolean.

    >>> _unique([["a"], ["B"], ["A"], [1]]), _unique([[1], [2], [1]], False, True)
    ([['a'], ['B'], [1]], 2)
    >>> _unique([[2, 1, 2, 1]], [[1, 1, "b"]])
    [[2, 0.0, '#VALUE!']]
    """
    by_col, exactly_once = _listed(by_col), _listed(exactly_once)
    if isinstance(by_col, list) or isinstance(exactly_once, list):
        def one(b, e):
            r = _unique(array, b, e)
            return r[0][0] if isinstance(r, list) else r

        def other(b, e):
            _count_arg(b, "by_col", 0)
            _count_arg(e, "exactly_once", 0)
            return 0.0
        out = _broadcast(other, by_col, exactly_once)
        out[0][0] = _broadcast(one, by_col, exactly_once)[0][0]
        return out
    g = _grid(array)
    try:
        bc = bool(_count_arg(by_col, "by_col", 0))
        once = bool(_count_arg(exactly_once, "exactly_once", 0))
    except _Err as ex:
        return ex.error
    lines = [list(c) for c in zip(*g, strict=True)] if bc else g
    counts: dict = {}
    first: dict = {}
    for line in lines:
        k = tuple(_unique_key(y) for y in line)
        counts[k] = counts.get(k, 0) + 1
        first.setdefault(k, line)
    out = [line for k, line in first.items() if not once or counts[k] == 1]
    if not out:
        return ExcelError("#VALUE!", "UNIQUE: no value occurs exactly once (Excel's #CALC!)")
    return _spilled([list(c) for c in zip(*out, strict=True)] if bc else out)


BUILTINS.update({
    "SUMPRODUCT": _sumproduct, "MMULT": _mmult, "MDETERM": _mdeterm, "MUNIT": _munit,
    "TRANSPOSE": _transpose, "CHOOSEROWS": _pick("CHOOSEROWS", True),
    "CHOOSECOLS": _pick("CHOOSECOLS", False), "TAKE": _take_drop(True),
    "DROP": _take_drop(False), "EXPAND": _expand, "VSTACK": _stack(True),
    "HSTACK": _stack(False), "TOCOL": _to_line(True), "TOROW": _to_line(False),
    "WRAPROWS": _wrap(True), "WRAPCOLS": _wrap(False), "FILTER": _filter, "UNIQUE": _unique,
})


def xmatch_key(x, lookup: bool = False):
    """XMATCH's order of values: numbers, then text (without regard to case), then
    booleans; an empty lookup value after them all; an empty cell or an error in the
    array is no key (None).

    >>> xmatch_key(2), xmatch_key("Ab"), xmatch_key(True), xmatch_key(None, lookup=True)
    ((0, 2.0), (1, 'ab'), (2, True), (3, 0))
    """
    if x is None:
        return (3, 0) if lookup else None
    if isinstance(x, ExcelError):
        return None
    if isinstance(x, bool):
        return (2, x)
    if isinstance(x, (int, float)):
        return (0, float(x))
    return (1, str(x).casefold())


def xmatch_position(value, keys: list, texts: list, mode: int, search: int):
    """XMATCH of one lookup value over ``keys`` (:func:`xmatch_key` of each cell;
    ``texts`` the cells themselves, for wildcards and regular expressions), with
    ``mode`` XMATCH's match_mode and ``search`` its search_mode (:func:`_xmatch`): the
    1-based position as a float, or the error value (#N/A none found, #VALUE! a mode
    Excel does not know).

    >>> cells = [1, 3, 5, 7]
    >>> xmatch_position(4, [xmatch_key(x) for x in cells], cells, 1, 1)
    3.0
    """
    if isinstance(value, ExcelError):
        return value
    if mode not in (0, -1, 1, 2, 3) or search not in (1, -1, 2, -2) or mode >= 2 and abs(
            search) == 2:
        return ExcelError("#VALUE!", f"XMATCH: search_mode {search} (with match_mode "
                          f"{mode}) is not one Excel knows")
    want = xmatch_key(value, lookup=True)
    hit = None
    if abs(search) == 2:  # binary search over an array taken as sorted that way
        asc = search == 2
        lo, hi = 0, len(keys) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            k = keys[mid] if keys[mid] is not None else (4, 0)
            if k == want:
                return float(mid + 1)
            if (k < want) == asc:  # want lies after mid
                if (mode == -1) == asc:
                    hit = mid
                lo = mid + 1
            else:
                if (mode == 1) == asc:
                    hit = mid
                hi = mid - 1
        hit = hit if mode in (-1, 1) else None
    else:
        order = range(len(keys)) if search == 1 else range(len(keys) - 1, -1, -1)
        if mode >= 2 and (want[0] == 1 or mode == 3):
            try:
                rx = re.compile(wildcard_regex(str(value)) if mode == 2 else value_text(value),
                                re.S | re.I if mode == 2 else re.S)
            except re.error:
                return ExcelError("#VALUE!", f"XMATCH: {value!r} is not a regular expression")
            find = rx.fullmatch if mode == 2 else rx.search
            hit = next((i for i in order if isinstance(texts[i], str) and not isinstance(
                texts[i], ExcelError) and find(texts[i])), None)
        else:
            hit = next((i for i in order if keys[i] == want), None)
        if hit is None and mode in (-1, 1):
            for i in order:
                k = keys[i]
                if k is None or (k > want) != (mode == 1):
                    continue
                if hit is None or (k < keys[hit] if mode == 1 else k > keys[hit]):
                    hit = i
    if hit is None:
        return ExcelError("#N/A", "XMATCH: no match")
    return float(hit + 1)


def xmatch_nearest(keys: list, search: int):
    """XMATCH's match modes -1, 0 and 1 with search_mode 1 or -1 (:func:`xmatch_position`)
    for many lookup values: ``find(value, mode)``, the 1-based position (a float) or the
    error value, by bisection over the distinct keys sorted once (the position of each
    the first in the search's direction) instead of a scan per value. The exact or next
    smaller value is the largest key not above the lookup value, the first of its equals;
    the next larger likewise.

    >>> cells = [5, 1, 3, 1]
    >>> find = xmatch_nearest([xmatch_key(x) for x in cells], 1)
    >>> find(2, -1), find(2, 1), find(1, 0), str(find(9, 1))
    (2.0, 3.0, 2.0, '#N/A')
    """
    order = range(len(keys)) if search == 1 else range(len(keys) - 1, -1, -1)
    first: dict = {}
    for i in order:
        if keys[i] is not None:
            first.setdefault(keys[i], i)
    ordered = sorted(first)

    def find(value, mode: int):
        if isinstance(value, ExcelError):
            return value
        want = xmatch_key(value, lookup=True)
        if mode == 0:
            i = first.get(want)
        elif mode < 0:
            j = bisect.bisect_right(ordered, want) - 1
            i = first[ordered[j]] if j >= 0 else None
        else:
            j = bisect.bisect_left(ordered, want)
            i = first[ordered[j]] if j < len(ordered) else None
        return ExcelError("#N/A", "XMATCH: no match") if i is None else float(i + 1)
    return find


@_lifted(2, 3)
def _xmatch(lookup_value, lookup_array, match_mode=None, search_mode=None):
    """XMATCH(lookup_value, lookup_array, [match_mode], [search_mode]) (Microsoft, "XMATCH
    function", read 2026-12-01): the position of ``lookup_value`` in a row or column.
    match_mode 0 exact, -1 exact or the next smaller, 1 exact or the next larger (the
    first of equals in the search's direction), 2 wildcards (``* ? ~``; "ß" is not "ss"
    there, though it equals it in the other modes: test.xlsx, EXTRA L75 and L77), 3 a
    regular expression (Microsoft's 2024 addition; IronCalc's XMATCH.xlsx, saved by Excel:
    42 with 3 over text is #N/A); other modes #VALUE!; search_mode 1
    first to last, -1 last to first, 2 / -2 binary search over an array sorted ascending /
    descending (wildcards with it are #VALUE!). Values of all types compare in one order
    (:func:`xmatch_key`: numbers, text, booleans; an empty lookup value last), as the
    `formulas` project's test.xlsx (saved by Excel), sheet LOOKUP rows 171-197, shows:
    "*b?u*" with -1 in {-1.1,2.1,3.1,4.1} is 4. None found is #N/A; an array of lookup
    values gives an array of positions.

    >>> _xmatch("b", [["a"], ["B"], ["c"]]), _xmatch(0, [[3, 2, 2]], 1)
    (2.0, 2.0)
    >>> _xmatch(7, [[7], [9], [7]], 0, -1), _xmatch("gr*", [["apple", "Grape"]], 2)
    (3.0, 2.0)
    >>> _xmatch(5, [[1, 3, 5, 7]], 0, 2), str(_xmatch(4, [[1, 3, 5, 7]], 0, 2))
    (3.0, '#N/A')
    >>> _xmatch(None, [[True, 4.1, False, 1.1]], -1, 2), _xmatch("x", [[-1.1, 2.1]], -1)
    (4.0, 2.0)
    """
    g = _grid(lookup_array)
    if len(g) > 1 and len(g[0]) > 1:
        return ExcelError("#VALUE!", "XMATCH: lookup_array is not one row or column")
    try:
        mode = _count_arg(match_mode, "match_mode", 0)
        search = _count_arg(search_mode, "search_mode", 1)
    except _Err as ex:
        return ex.error
    texts = [y for row in g for y in row]
    keys = [xmatch_key(y) for y in texts]
    lookup_value = _listed(lookup_value)
    if not isinstance(lookup_value, list):
        return xmatch_position(lookup_value, keys, texts, mode, search)
    if mode in (-1, 0, 1) and search in (1, -1):  # many lookups: one index of the keys
        find = xmatch_nearest(keys, search)
        return [[find(v, mode) for v in row] for row in _grid(lookup_value)]
    return [[xmatch_position(v, keys, texts, mode, search) for v in row]
            for row in _grid(lookup_value)]


BUILTINS["XMATCH"] = _xmatch


def _broadcast(fn, *args):
    """``fn`` of single values over arguments that may be arrays: Excel's element-wise
    rule (a one-row or one-column array repeats; outside a smaller array #N/A)."""
    args = [_listed(a) for a in args]
    grids = [_grid(a) if isinstance(a, list) else None for a in args]
    if all(g is None for g in grids):
        try:
            return fn(*args)
        except _Err as ex:
            return ex.error
    h = max(len(g) for g in grids if g is not None)
    w = max(len(g[0]) for g in grids if g is not None)
    out = []
    for i in range(h):
        row = []
        for j in range(w):
            vals = []
            for a, g in zip(args, grids, strict=True):
                if g is None:
                    vals.append(a)
                    continue
                gi, gj = (0 if len(g) == 1 else i), (0 if len(g[0]) == 1 else j)
                if gi >= len(g) or gj >= len(g[0]):
                    vals = None
                    break
                vals.append(g[gi][gj])
            if vals is None:
                row.append(ExcelError("#N/A", "outside a smaller array"))
                continue
            try:
                row.append(fn(*vals))
            except _Err as ex:
                row.append(ex.error)
        out.append(row)
    return out


def _choose(index_num, *values):
    """CHOOSE(index_num, value1, ...): the value numbered ``index_num`` (truncated; outside
    1..count #VALUE!); an array of index numbers picks element by element (Microsoft,
    "CHOOSE function"). A chosen range is returned whole; a chosen empty cell reads 0.

    >>> _choose(2, "a", "b", "c"), _choose([[1, 2]], [[10], [20]], [[30], [40]])
    ('b', [[10, 30], [20, 40]])
    """
    def number(x) -> int:
        k = math.trunc(_arg_number(x, "index_num"))
        if not 1 <= k <= len(values):
            raise _Err("#VALUE!", f"CHOOSE: index_num {k} outside 1..{len(values)}")
        return k

    if not values:
        return ExcelError("#VALUE!", "CHOOSE takes at least one value")
    index_num = _listed(index_num)
    if not isinstance(index_num, list):
        try:
            v = values[number(index_num) - 1]
        except _Err as ex:
            return ex.error
        return 0.0 if v is None else _listed(v)
    return _broadcast(_choose, index_num, *values)


def _countblank(rng):
    """COUNTBLANK(range): the empty cells and cells of empty text (Microsoft, "COUNTBLANK
    function").

    >>> _countblank([[1, None], ["", "x"]])
    2
    """
    return sum(y is None or (isinstance(y, str) and not isinstance(y, ExcelError) and y == "")
               for y in _flat(rng))


_PLAIN_SHEET = re.compile(r"^[A-Za-z_\u00C0-\uFFFF][\w.\u00C0-\uFFFF]*$")
_CELL_LIKE = re.compile(r"^(?:[A-Za-z]{1,3}\d+|[Rr]\d*(?:[Cc]\d*)?|[Cc]\d*)$")


def _address_one(row_num, column_num, abs_num=None, a1=None, sheet_text=None) -> str:
    r = math.trunc(_arg_number(row_num, "row_num"))
    c = math.trunc(_arg_number(column_num, "column_num"))
    k = 1 if abs_num is None else math.trunc(_arg_number(abs_num, "abs_num"))
    style = True if a1 is None else bool(_arg_number(a1, "a1"))
    if not 1 <= r <= MAX_ROW or not 1 <= c <= MAX_COL or k not in (1, 2, 3, 4):
        raise _Err("#VALUE!", f"ADDRESS: row {r}, column {c} or abs_num {k} out of range")
    row_abs, col_abs = k in (1, 2), k in (1, 3)
    if style:
        ref = f"{'$' if col_abs else ''}{column_letters(c)}{'$' if row_abs else ''}{r}"
    else:
        ref = (f"R{r}" if row_abs else f"R[{r}]") + (f"C{c}" if col_abs else f"C[{c}]")
    if sheet_text is None:
        return ref
    if isinstance(sheet_text, ExcelError):
        raise _Err(str(sheet_text), "sheet_text is an error value")
    sheet = value_text(sheet_text)
    if sheet and (not _PLAIN_SHEET.match(sheet) or _CELL_LIKE.match(sheet)):
        sheet = "'" + sheet.replace("'", "''") + "'"
    return f"{sheet}!{ref}"


def _address(row_num, column_num, *rest):
    """ADDRESS(row_num, column_num, [abs_num], [a1], [sheet_text]) (Microsoft, "ADDRESS
    function"): a cell's address as text; abs_num 1 ``$C$2``, 2 ``C$2``, 3 ``$C2``, 4
    ``C2``; ``a1`` FALSE the R1C1 form (``R2C[3]`` for a relative part); ``sheet_text``
    prefixed, in quotes when it is not a plain name. An empty cell given as ``a1`` is
    FALSE, as ``sheet_text`` an empty name (the `formulas` project's test.xlsx, saved by
    Excel: ADDRESS(1,3,4,TRUE,H3) of an empty H3 is ``!C1``).

    >>> _address(2, 3), _address(2, 3, 2), _address(2, 3, 2, False)
    ('$C$2', 'C$2', 'R2C[3]')
    >>> _address(2, 3, 1, False, "[Book1]Sheet1"), _address(2, 3, 1, False, "EXCEL SHEET")
    ("'[Book1]Sheet1'!R2C3", "'EXCEL SHEET'!R2C3")
    """
    if len(rest) > 3:
        return ExcelError("#VALUE!", "ADDRESS takes at most five arguments")
    abs_num = rest[0] if rest else None
    a1 = (False if rest[1] is None else rest[1]) if len(rest) > 1 else True
    sheet_text = ("" if rest[2] is None else rest[2]) if len(rest) > 2 else None
    return _broadcast(_address_one, row_num, column_num, abs_num, a1, sheet_text)


def _delimiters(x, what: str) -> list[str] | None:
    if x is None:
        return None
    out = []
    for y in _flat(x):
        if isinstance(y, ExcelError):
            raise _Err(str(y), f"{what} is an error value")
        s = value_text(y) if y is not None else ""
        if s == "":
            raise _Err("#VALUE!", f"TEXTSPLIT: an empty {what}")
        out.append(s)
    return out


@_lifted(0, 3, 4)
def _textsplit(text, col_delimiter=None, row_delimiter=None, ignore_empty=None,
               match_mode=None, pad_with=None):
    """TEXTSPLIT(text, col_delimiter, [row_delimiter], [ignore_empty], [match_mode],
    [pad_with]) (Microsoft, "TEXTSPLIT function"): the text cut into rows at any row
    delimiter and each row into columns at any column delimiter (a delimiter may be an
    array of texts); ``ignore_empty`` drops empty pieces, ``match_mode`` 1 ignores case,
    short rows are padded with ``pad_with`` (default #N/A).

    >>> _textsplit("Dakota Lennon Sanchez", " ")
    [['Dakota', 'Lennon', 'Sanchez']]
    >>> _textsplit("1,2,3;4,5", ",", ";")[1]
    ['4', '5', '#N/A']
    """
    try:
        t = _scalar(text, "text")
        if t is None:  # test.xlsx of the `formulas` project, TEXT AM47
            raise _Err("#VALUE!", "TEXTSPLIT: the text is an empty cell")
        t = value_text(t)
        cols = _delimiters(col_delimiter, "col_delimiter")
        rows_d = _delimiters(row_delimiter, "row_delimiter")
        ignore = bool(_count_arg(ignore_empty, "ignore_empty", 0))
        fold = _count_arg(match_mode, "match_mode", 0)
        if fold not in (0, 1):
            raise _Err("#VALUE!", f"TEXTSPLIT: match_mode {fold} is not 0 or 1")
        pad = _pad_arg(pad_with, "TEXTSPLIT")
    except _Err as ex:
        return ex.error
    if cols is None and rows_d is None:
        return ExcelError("#VALUE!", "TEXTSPLIT needs a col_delimiter or a row_delimiter")

    def cut(s: str, delims: list[str] | None) -> list[str]:
        if delims is None:
            return [s]
        rx = "|".join(re.escape(d) for d in sorted(delims, key=len, reverse=True))
        parts = re.split(rx, s, flags=re.I if fold else 0)
        return [p for p in parts if p] if ignore else parts

    lines = [cut(r, cols) for r in cut(t, rows_d)]
    lines = [ln for ln in lines if ln] or [[""]]
    width = max(len(ln) for ln in lines)
    out = [ln + [pad] * (width - len(ln)) for ln in lines]
    return out[0][0] if len(out) == 1 and width == 1 else out


BUILTINS.update(CHOOSE=_choose, COUNTBLANK=_countblank, ADDRESS=_address,
                TEXTSPLIT=_textsplit)


# ----------------------------------------------------------- TREND, GROWTH, LOGEST
# Microsoft, "TREND function", "GROWTH function", "LOGEST function" (read 2026-12-01): the
# least-squares fit y = m1 x1 + ... + mk xk + b (``const`` FALSE: b = 0) of known_y's on
# known_x's (omitted: 1, 2, 3 ...), each x variable a column of known_x's when known_y's is
# a column (a row when it is a row); GROWTH and LOGEST fit ln y (y = b m1^x1 ...), every
# y > 0 else #NUM!; a value that is not a number is #VALUE!, an error value too (the
# `formulas` project's test.xlsx, saved by Excel: TREND(..., L113:M114) over #N/A and
# #DIV/0! is #VALUE!), sizes that do not fit #REF!.

def _known(known_y, known_x, log: bool, name: str):
    """(y, X, by_rows): the numbers of known_y's (ln y for ``log``) and the n x k matrix
    of the x variables; ``by_rows`` when each variable is a row."""
    yg = _matrix(known_y, "known_y's", errors=False)
    n = yg.size
    y = yg.reshape(-1)
    if log:
        if (y <= 0).any():
            raise _Err("#NUM!", f"{name}: a known_y <= 0")
        y = np.log(y)
    if known_x is None:
        return y, np.arange(1.0, n + 1).reshape(-1, 1), yg.shape[0] == 1 and n > 1
    xg = _matrix(known_x, "known_x's", errors=False)
    if xg.size == n and (yg.shape[1] == 1 and xg.shape[0] != n or yg.shape[0] == 1
                         and xg.shape[1] != n or min(yg.shape) > 1):
        return y, xg.reshape(-1, 1), False  # one variable, any shape of as many values
    if yg.shape[1] == 1 and xg.shape[0] == n:
        return y, xg, False
    if yg.shape[0] == 1 and xg.shape[1] == n:
        return y, xg.T, True
    raise _Err("#REF!", f"{name}: known_x's do not fit known_y's")


def _fit(y: np.ndarray, X: np.ndarray, const: bool):
    """Least-squares coefficients (m1..mk, b) of y on the columns of X."""
    A = np.column_stack([X, np.ones(len(y))]) if const else X
    if not len(y):
        raise _Err("#NUM!", "no known values")
    coef = np.linalg.lstsq(A, y, rcond=None)[0]
    return (coef[:-1], float(coef[-1])) if const else (coef, 0.0)


def _const_arg(const) -> bool:
    if isinstance(const, ExcelError):
        raise _Err("#VALUE!", "const is an error value")
    return True if const is None else bool(_arg_number(_scalar(const, "const"), "const"))


def _predict(log: bool, name: str):
    def f(known_y, known_x=None, new_x=None, const=None):
        try:
            y, X, by_rows = _known(known_y, known_x, log, name)
            m, b = _fit(y, X, _const_arg(const))
            k = X.shape[1]
            if new_x is None:
                if known_x is None:
                    shape = _matrix(known_y, "known_y's", errors=False).shape
                    nx = X
                else:
                    xg = _matrix(known_x, "known_x's", errors=False)
                    shape = xg.shape if k == 1 else (1, len(y)) if by_rows else (len(y), 1)
                    nx = X
            else:
                ng = _matrix(new_x, "new_x's", errors=False)
                if k == 1:
                    shape, nx = ng.shape, ng.reshape(-1, 1)
                elif by_rows and ng.shape[0] == k:
                    shape, nx = (1, ng.shape[1]), ng.T
                elif not by_rows and ng.shape[1] == k:
                    shape, nx = (ng.shape[0], 1), ng
                else:
                    raise _Err("#REF!", f"{name}: new_x's do not fit known_x's")
        except _Err as ex:
            return ex.error
        out = nx @ m + b
        if log:
            out = np.exp(out)
        out = out.reshape(shape)
        return float(out[0, 0]) if out.size == 1 else out.tolist()
    return f


def _logest(known_y, known_x=None, const=None, stats=None):
    """LOGEST(known_y's, [known_x's], [const], [stats]): the row mk ... m1 b of the fit
    y = b m1^x1 ... mk^xk, and with ``stats`` the statistics of the fit of ln y below it
    (standard errors; r2, sey; F, df; ssreg, ssresid; #N/A elsewhere), as LINEST gives.
    Microsoft's example: m = 1.463275628, b = 495.3047702.

    >>> [round(v, 6) for v in _logest([[33100], [47300], [69000], [102000], [150000],
    ...                                 [220000]], [[11], [12], [13], [14], [15], [16]])[0]]
    [1.463276, 495.30477]
    """
    try:
        y, X, _ = _known(known_y, known_x, True, "LOGEST")
        c = _const_arg(const)
        want = False if stats is None else bool(_arg_number(_scalar(stats, "stats"), "stats"))
        m, b = _fit(y, X, c)
    except _Err as ex:
        return ex.error
    n, k = X.shape
    first = [*np.exp(m[::-1]).tolist(), math.exp(b)]
    if not want:
        return [first]
    A = np.column_stack([X, np.ones(n)]) if c else X
    fitted = A @ np.append(m, b) if c else X @ m
    df = n - k - (1 if c else 0)
    ssresid = float(np.sum((y - fitted) ** 2))
    ssreg = float(np.sum((fitted - np.mean(y)) ** 2)) if c else float(np.sum(fitted ** 2))
    na = ExcelError("#N/A", "LOGEST: no statistic here")
    if df <= 0:
        return ExcelError("#NUM!", "LOGEST: no degrees of freedom for the statistics")
    sey = math.sqrt(ssresid / df)
    cov = sey * sey * np.linalg.pinv(A.T @ A)
    se = np.sqrt(np.diag(cov))
    se_row = [*se[:k][::-1].tolist(), float(se[k]) if c else na]
    r2 = ssreg / (ssreg + ssresid) if ssreg + ssresid else 1.0
    f_stat = (ssreg / k) / (ssresid / df) if ssresid else ExcelError(
        "#NUM!", "LOGEST: a perfect fit has no F statistic")
    pad = [na] * (k - 1)
    return [first, se_row, [r2, sey, *pad], [f_stat, float(df), *pad],
            [ssreg, ssresid, *pad]]


BUILTINS.update(TREND=_predict(False, "TREND"), GROWTH=_predict(True, "GROWTH"),
                LOGEST=_logest)


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
    if top < 1 or left < 1 or bottom > MAX_ROW or right > MAX_COL:
        return ExcelError("#REF!", "OFFSET: a reference off the sheet")

    def a1(rr, cc):
        return f"${column_letters(cc)}${rr}"

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
            out.append(float(_round15(np.array([n * mi]))[0]) + 0.0)  # no -0
    return out


def _mround(number, multiple):
    """MROUND(number, multiple): ``number`` rounded to the nearest multiple of ``multiple``,
    half away from zero; different signs are #NUM!. Unlike ROUND it takes no range or
    boolean (the formulas project's test.xlsx, saved by Excel: {=MROUND(C45:G45,2)} is
    #VALUE! in every cell, MROUND(J45,0) of TRUE #VALUE!, MROUND(#N/A,#VALUE!) #N/A).

    >>> _mround(10, 3), _mround(-10, -3), _mround(1.3, 0.2), _mround(5, 2), str(_mround(5, -2))
    (9.0, -9.0, 1.4, 6.0, '#NUM!')
    >>> str(_mround([[1.0, 2.0]], 2)), str(_mround(True, 0)), _mround(None, -2)
    ('#VALUE!', '#VALUE!', 0.0)
    """
    for x in (number, multiple):
        if hasattr(x, "shape"):  # a whole column from the block path: go row by row
            raise TypeError("scalar function")
    args = [_grid(x) for x in (number, multiple)]
    if any(len(g) > 1 or len(g[0]) > 1 for g in args):
        return ExcelError("#VALUE!", "MROUND: a range where one number belongs")
    args = [g[0][0] for g in args]
    for x in args:
        if isinstance(x, ExcelError):
            return x
        if isinstance(x, bool):
            return ExcelError("#VALUE!", "MROUND: a boolean is not a number")
    return _elementwise("MROUND", _mround_values, *args)


_rounddown = _round_function("ROUNDDOWN", "down")


def _trunc(number, num_digits=0):
    """TRUNC(number, [num_digits]): ``number`` cut toward zero, as ROUNDDOWN (of the number's
    15 significant digits: the formulas project's test.xlsx, saved by Excel, caches
    TRUNC(-0.79999999999999993, 1) as -0.8).

    >>> _trunc(8.9), _trunc(-8.9), _trunc(0.45, 1), _trunc(-0.79999999999999993, 1)
    (8.0, -8.0, 0.4, -0.8)
    """
    return _rounddown(number, 0 if num_digits is None else num_digits)


BUILTINS.update(ROUND=_round_function("ROUND", "half"), ROUNDUP=_round_function("ROUNDUP", "up"),
                ROUNDDOWN=_rounddown, MROUND=_mround, TRUNC=_trunc)


# ------------------------------------------------------------------ GCD, LCM
#
# Microsoft, "GCD function", "LCM function" (read 2026-12-01): each number is truncated to an
# integer; a nonnumeric argument is #VALUE!, one below zero #NUM!, one at or above 2^53
# #NUM!, an LCM at or above 2^53 #NUM!. As Excel computes them (IronCalc's GCD_LCM.xlsx,
# saved by Excel): empty cells are skipped, numeric and date text is its number (unpadded
# date text only), empty text and booleans are #VALUE! (in ranges and arrays too), the first
# error value is the result, and no number at all is #VALUE!. An argument that is no number
# wins over a negative one (the formulas project's test.xlsx: GCD(-0.4, TRUE) is #VALUE!).

_INT_LIMIT = 2.0 ** 53


def _whole_numbers(args, name: str) -> list[int]:
    out = []
    bad: _Err | None = None  # a number out of range: #NUM! unless another argument is worse
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
                    bad = bad or _Err("#NUM!", f"{name}: {v:g} is negative")
                elif v >= _INT_LIMIT:
                    bad = bad or _Err("#NUM!", f"{name}: {v:g} is 2^53 or more")
                else:
                    out.append(math.floor(v))
    if bad is not None:  # after every argument is known to be a number
        raise bad
    if not out:
        raise _Err("#VALUE!", f"{name}: no number")
    return out


def _gcd(*numbers):
    """GCD(number1, [number2], ...): the greatest common divisor (Microsoft's examples).

    >>> _gcd(5, 2), _gcd(24, 36), _gcd(7, 1), _gcd(5, 0), _gcd([[7.5, 4.5, None]])
    (1.0, 12.0, 1.0, 5.0, 1.0)
    >>> str(_gcd(-7.5, 5)), str(_gcd(True, 2)), str(_gcd("", 2)), _gcd("8", 2)
    ('#NUM!', '#VALUE!', '#VALUE!', 2.0)
    >>> str(_gcd(-0.4, True)), str(_gcd(-0.4, ExcelError("#NAME?")))
    ('#VALUE!', '#NAME?')
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


# ------------------------------------------------------------------ characters
#
# Microsoft, "CHAR function" and "CODE function" (read 2026-12-01): the character set is the
# computer's: "Windows: ANSI", "Macintosh: Macintosh character set". A workbook carries the
# Excel that saved it (docProps/app.xml <Application>), and its cached values follow that
# Excel's set: "Microsoft Macintosh Excel" wrote CHAR(128) as "Ä" (Mac Roman), Windows Excel
# "€" (Windows-1252). The engine does what the saving Excel did (:func:`character_set`,
# set for one evaluation by :func:`use_character_set`); Windows-1252 when nothing says Mac.

#: Python codec of CHAR and CODE for the workbook being evaluated
_CHARSET: contextvars.ContextVar[str] = contextvars.ContextVar("charset", default="cp1252")
#: codes Windows-1252 leaves undefined: Excel gives the code point of the same number
_CP1252_UNDEFINED = frozenset({0x81, 0x8D, 0x8F, 0x90, 0x9D})


def character_set(application: str | None) -> str:
    """The Python codec of CHAR and CODE for a workbook saved by ``application``.

    Parameters
    ----------
    application : str or None
        The text of docProps/app.xml's ``<Application>`` element (None when absent).

    Returns
    -------
    str
        ``"mac_roman"`` for Excel for Mac (``Microsoft Macintosh Excel``), else ``"cp1252"``
        (Windows ANSI for en-US: Windows Excel, Excel Online, other writers).

    Examples
    --------
    >>> character_set("Microsoft Macintosh Excel"), character_set("Microsoft Excel")
    ('mac_roman', 'cp1252')
    >>> character_set(None)
    'cp1252'
    """
    return "mac_roman" if application and "macintosh" in application.casefold() else "cp1252"


@contextlib.contextmanager
def use_character_set(codec: str):
    """CHAR and CODE use ``codec`` (see :func:`character_set`) while the block is active."""
    token = _CHARSET.set(codec)
    try:
        yield
    finally:
        _CHARSET.reset(token)


#: whether the workbook being evaluated counts dates from 1904 (``workbookPr date1904``)
_DATE1904: contextvars.ContextVar[bool] = contextvars.ContextVar("date1904", default=False)


@contextlib.contextmanager
def use_date_system(date1904: bool):
    """TEXT reads serial numbers as days since 1904-01-01 (``date1904``, Excel for Mac's
    old default) or in the 1900 system while the block is active."""
    token = _DATE1904.set(bool(date1904))
    try:
        yield
    finally:
        _DATE1904.reset(token)


def set_date_system(date1904: bool) -> None:
    """Within a :func:`use_date_system` block (which restores the setting on leaving it):
    the workbook counts dates from 1904 (``date1904``), known once it is read."""
    _DATE1904.set(bool(date1904))


def dates_from_1904() -> bool:
    """Whether the workbook being evaluated counts dates from 1904 (:func:`use_date_system`)."""
    return _DATE1904.get()


def _each(fn, x):
    """``fn`` on one host value, or on every element of a range or array (array formulas:
    ``CHAR(C7:Q7)`` is one character per cell), or of a block column (one per row)."""
    if hasattr(x, "shape"):
        return [[fn(v) for v in row] for row in x.tolist()]
    if isinstance(x, list):
        return [[fn(v) for v in row] for row in _grid(x)]
    return fn(x)


def _text_arg(x, what: str) -> str:
    """A value as a text argument: numbers and booleans as Excel writes them, empty ''."""
    if isinstance(x, ExcelError):
        raise _Err(str(x), getattr(x, "reason", "") or f"{what} is an error value")
    return "" if x is None else value_text(x)


def _char_of(x):
    if isinstance(x, ExcelError):
        return x
    try:
        v = math.trunc(_number(x, "number") if not isinstance(x, bool) else float(x))
    except _Err as ex:
        return ex.error
    if not 1 <= v <= 255:
        return ExcelError("#VALUE!", f"CHAR: {v} is not a character code from 1 to 255")
    codec = _CHARSET.get()
    if codec == "cp1252" and v in _CP1252_UNDEFINED:
        return chr(v)
    return bytes([v]).decode(codec)


def _char(number):
    """CHAR(number): the character with code ``number`` (1-255, truncated) in the character
    set of the Excel that saved the workbook (see the notes above). Windows: IronCalc's
    CHAR.xlsx, saved by Excel: CHAR(128) "€", CHAR(136) "ˆ", CHAR(129), a code Windows-1252
    leaves undefined, U+0081; 256 and 0 #VALUE!. Mac: the formulas project's test.xlsx, saved
    by Excel for Mac: CHAR(128) "Ä", CHAR(219) "€".

    >>> _char(65), _char(128), _char(136), _char(129), _char(255.9), str(_char(256))
    ('A', '€', 'ˆ', '\\x81', 'ÿ', '#VALUE!')
    >>> with use_character_set("mac_roman"):
    ...     _char(128), _char(219), _char(True), str(_char(ExcelError("#N/A")))
    ('Ä', '€', '\\x01', '#N/A')
    """
    return _each(_char_of, number)


def _first_char(x, name: str):
    """The first character of ``x`` read as text, or the error CODE or UNICODE returns:
    ``x``'s own error, a value that is no text, or empty text (#VALUE!)."""
    if isinstance(x, ExcelError):
        return x
    try:
        text = _text_arg(x, "text")
    except _Err as ex:
        return ex.error
    if not text:
        return ExcelError("#VALUE!", f"{name} of empty text")
    return text[0]


def _code_of(x):
    ch = _first_char(x, "CODE")
    if isinstance(ch, ExcelError):
        return ch
    codec = _CHARSET.get()
    if codec == "cp1252" and ord(ch) in _CP1252_UNDEFINED:
        return float(ord(ch))
    try:
        return float(ch.encode(codec)[0])
    except UnicodeEncodeError:  # not in the set: Excel converts it to "?"
        return 63.0


def _code(text):
    """CODE(text): the code of the first character of ``text`` in the character set of the
    Excel that saved the workbook (see the notes above); empty text is #VALUE!. The
    formulas project's test.xlsx (Excel for Mac): CODE(1.9) 49, CODE(-1) 45, CODE(TRUE) 84,
    CODE of an empty cell #VALUE!, CODE(CHAR(n)) n for every n from 1 to 255.

    >>> _code("A"), _code("€"), _code(1.9), _code(True), str(_code(""))
    (65.0, 128.0, 49.0, 84.0, '#VALUE!')
    >>> with use_character_set("mac_roman"):
    ...     _code("Ä"), _code("€")
    (128.0, 219.0)
    """
    return _each(_code_of, text)


def _unicode_of(x):
    ch = _first_char(x, "UNICODE")
    return ch if isinstance(ch, ExcelError) else float(ord(ch))


def _unicode(text):
    """UNICODE(text): the code point of the first character of ``text`` (Microsoft, "UNICODE
    function"); empty text is #VALUE!. test.xlsx (Excel for Mac): UNICODE(CHAR(128)) 196.

    >>> _unicode("Ä"), _unicode("ab"), _unicode(12), str(_unicode(None))
    (196.0, 97.0, 49.0, '#VALUE!')
    """
    return _each(_unicode_of, text)


_CONTROL = re.compile("[\x00-\x1f]")


def _clean_of(x):
    if isinstance(x, ExcelError):
        return x
    try:
        return _CONTROL.sub("", _text_arg(x, "text"))
    except _Err as ex:
        return ex.error


def _clean(text):
    """CLEAN(text): ``text`` without the characters of codes 0 to 31 (Microsoft, "CLEAN
    function"; code 127 and above stay). test.xlsx: 31 characters gone from CHAR(1) ...
    CHAR(31) followed by " !" CHAR(127) "Åçèêù"; CLEAN(TRUE) "TRUE".

    >>> _clean("a" + chr(1) + "b" + chr(9) + "c" + chr(127)) == "abc" + chr(127)
    True
    >>> _clean(True), _clean(None)
    ('TRUE', '')
    """
    return _each(_clean_of, text)


BUILTINS.update(CHAR=_char, CODE=_code, UNICODE=_unicode, CLEAN=_clean)


def _n(value):
    """N(value): a number as itself, TRUE 1, FALSE 0, text and an empty cell 0, an error
    itself (Microsoft, "N function"); of a range, its first cell (the formulas project's
    test.xlsx, saved by Excel: {=N(C19:Q19)} is N(C19) in every cell, N(J19) of TRUE 1).

    >>> _n(2.5), _n(True), _n(False), _n("7"), _n(None), _n([[4.0, "x"]])
    (2.5, 1.0, 0.0, 0.0, 0.0, 4.0)
    >>> str(_n(ExcelError("#N/A")))
    '#N/A'
    """
    if hasattr(value, "shape"):
        raise TypeError("scalar function")
    x = _grid(value)[0][0] if isinstance(value, list) else value
    if isinstance(x, ExcelError):
        return x
    if isinstance(x, (bool, int, float)):
        return float(x)
    return 0.0


BUILTINS["N"] = _n


# ------------------------------------------------------------------ BAHTTEXT
#
# Microsoft, "BAHTTEXT function" (read 2026-12-01): a number as Thai text with "Baht" (บาท),
# the satang (hundredths, rounded) as สตางค์, or ถ้วน ("exactly") when there are none. The
# words: digits ศูนย์ หนึ่ง สอง ... เก้า; positions สิบ (10), ร้อย (100), พัน, หมื่น, แสน,
# ล้าน (10^6, repeated for each further six digits); 10 is สิบ, 20 ยี่สิบ, a one after a
# tens digit เอ็ด (สิบเอ็ด, ยี่สิบเอ็ด); ลบ before a negative number. Excel's cached values in
# the formulas project's test.xlsx: 0 ศูนย์บาทถ้วน, 157 หนึ่งร้อยห้าสิบเจ็ดบาทถ้วน, 65.8
# หกสิบห้าบาทแปดสิบสตางค์, -1 ลบหนึ่งบาทถ้วน, TRUE หนึ่งบาทถ้วน, text #VALUE!. Whether Excel
# writes เอ็ด or หนึ่ง for a one after a zero tens digit (101, 1001) is not documented and the
# references differ, so those numbers are #VALUE! with that reason rather than a guess.

_TH_DIGITS = ("ศูนย์", "หนึ่ง", "สอง", "สาม", "สี่", "ห้า", "หก", "เจ็ด", "แปด", "เก้า")
_TH_POWERS = ("", "สิบ", "ร้อย", "พัน", "หมื่น", "แสน")


class _Unknown(Exception):
    pass


def _thai_block(n: int, higher: bool) -> str:
    """Thai words of ``0 < n < 10**6``; ``higher``: non-zero digits stand before it."""
    out = []
    for k in range(5, 1, -1):
        d = n // 10 ** k % 10
        if d:
            out.append(_TH_DIGITS[d] + _TH_POWERS[k])
    tens, ones = n // 10 % 10, n % 10
    if tens:
        out.append(("" if tens == 1 else "ยี่" if tens == 2 else _TH_DIGITS[tens]) + "สิบ")
    if ones == 1 and tens:
        out.append("เอ็ด")
    elif ones == 1 and (higher or n >= 100):
        raise _Unknown
    elif ones:
        out.append(_TH_DIGITS[ones])
    return "".join(out)


def _bahttext_of(x):
    if isinstance(x, ExcelError):
        return x
    try:
        v = float(x) if isinstance(x, bool) else _number(x, "number")
    except _Err as ex:
        return ex.error
    cents = math.floor(float(_round15(np.array([abs(v) * 100.0]))[0]) + 0.5)
    baht, satang = divmod(cents, 100)
    try:
        words = ""
        rest, higher = baht, False
        blocks = []
        while rest:
            rest, block = divmod(rest, 10 ** 6)
            blocks.append(block)
        for i in range(len(blocks) - 1, -1, -1):
            if blocks[i]:
                words += _thai_block(blocks[i], higher)
                higher = True
            if i:
                words += "ล้าน"
        if not baht and not satang:
            words = _TH_DIGITS[0]
        if words:
            words += "บาท"
        words += _thai_block(satang, False) + "สตางค์" if satang else "ถ้วน"
    except _Unknown:
        return ExcelError("#VALUE!", f"BAHTTEXT({value_text(v)}): whether Excel writes เอ็ด "
                          "or หนึ่ง for a one after a zero tens digit is not known")
    return ("ลบ" if v < 0 and cents else "") + words


def _bahttext(number):
    """BAHTTEXT(number): ``number`` as Thai text with บาท (see the notes above).

    >>> _bahttext(157), _bahttext(65.8), _bahttext(-1), _bahttext(0)
    ('หนึ่งร้อยห้าสิบเจ็ดบาทถ้วน', 'หกสิบห้าบาทแปดสิบสตางค์', 'ลบหนึ่งบาทถ้วน', 'ศูนย์บาทถ้วน')
    >>> _bahttext(21000011.5), _bahttext(0.25), str(_bahttext("x")), str(_bahttext(101))
    ('ยี่สิบเอ็ดล้านสิบเอ็ดบาทห้าสิบสตางค์', 'ยี่สิบห้าสตางค์', '#VALUE!', '#VALUE!')
    """
    return _each(_bahttext_of, number)


BUILTINS["BAHTTEXT"] = _bahttext


def _arraytotext_one(grid: list, fmt):
    if isinstance(fmt, ExcelError):
        return fmt
    if isinstance(fmt, str):
        return ExcelError("#VALUE!", f"ARRAYTOTEXT: format {fmt!r} is not 0 or 1")
    mode = 0 if fmt is None else math.trunc(float(fmt))
    if mode not in (0, 1):
        return ExcelError("#VALUE!", f"ARRAYTOTEXT: format {mode} is not 0 or 1")
    if grid == [[None]]:
        return ExcelError("#VALUE!", "ARRAYTOTEXT of a single empty cell")

    def item(x) -> str:
        if x is None:
            return ""
        if isinstance(x, (ExcelError, bool, int, float)):
            return value_text(x)
        return '"' + x.replace('"', '""') + '"' if mode else x

    if mode == 0:
        return ", ".join(item(x) for row in grid for x in row)
    return "{" + ";".join(",".join(item(x) for x in row) for row in grid) + "}"


def _arraytotext(array, format=None):  # noqa: A002 - Excel's argument name
    """ARRAYTOTEXT(array, [format]) (Microsoft, "ARRAYTOTEXT function"): format 0 (the
    default) joins the values with ", " (text as it is); 1 writes an array constant,
    ``{...}`` with "," between columns, ";" between rows and text in quotes. As Excel
    caches in the formulas project's test.xlsx (TEXT rows 3-4): errors and booleans as
    written, blanks empty, a format truncated (0.9 is 0), TRUE is 1, text or a number other
    than 0 and 1 #VALUE!, each cell of a format array its own answer, a single empty cell
    #VALUE!.

    >>> _arraytotext([[0.0, 1.9], [None, "a"]]), _arraytotext([[1.9, True], ["", "b"]], 1)
    ('0, 1.9, , a', '{1.9,TRUE;"","b"}')
    >>> str(_arraytotext([[1.0]], 2)), _arraytotext([[1.0, 2.0]], [[0.9, True]])
    ('#VALUE!', [['1, 2', '{1,2}']])
    """
    if hasattr(array, "shape") or hasattr(format, "shape"):
        raise TypeError("scalar function")
    grid = _grid(array)
    if isinstance(format, list):
        return [[_arraytotext_one(grid, f) for f in row] for row in _grid(format)]
    return _arraytotext_one(grid, format)


BUILTINS["ARRAYTOTEXT"] = _arraytotext


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


def excel_bsearch(keys: list, want: tuple, descending: bool = False) -> int | None:
    """Excel's approximate search (LOOKUP, MATCH with match_type 1 or -1): the position of
    the largest key not above ``want`` (``descending``: the smallest not below), by binary
    search, so an unsorted row or column gives what Excel gives. ``keys`` are
    ``(type, value)`` pairs (None for a blank or an error), ``want`` one of them.

    Only keys of ``want``'s type are compared: a probe on another type moves to the next
    key of that type up to the upper bound, else back to the last one down to the lower
    bound (none: the search stops). An equal key ends the search at the last of the run
    of equal keys that follows it. Reproduces every cached value of formulas' test.xlsx,
    sheet LOOKUP, rows 56-63 (saved by Excel), e.g. {"b",4.1,"a",1.1}: 4.1 -> 4.1,
    20 -> 1.1, 4 -> #N/A.

    >>> k = [(1, "b"), (0, 4.1), (1, "a"), (0, 1.1)]
    >>> excel_bsearch(k, (0, 4.1)), excel_bsearch(k, (0, 20.0)), excel_bsearch(k, (0, 4.0))
    (1, 3, None)
    >>> excel_bsearch([(0, 1.0), (0, 2.0), (0, 2.0), (0, 3.0)], (0, 2.0))
    2
    """
    def same(i):
        return keys[i] is not None and keys[i][0] == want[0]

    hit, lo, hi = None, 0, len(keys) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        m = next((i for i in range(mid, hi + 1) if same(i)), None)
        if m is None:
            m = next((i for i in range(mid - 1, lo - 1, -1) if same(i)), None)
            if m is None:
                break
        x = keys[m][1]
        if x == want[1]:
            while m + 1 < len(keys) and same(m + 1) and keys[m + 1][1] == want[1]:
                m += 1
            return m
        if (x > want[1]) if descending else (x < want[1]):
            hit, lo = m, m + 1
        else:
            hi = m - 1
    return hit


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
    vectors: list = []  # (keys, results) or an error: read once for every lookup value

    def one(v):
        try:
            v = _scalar(v, "lookup_value")
        except _Err as ex:
            return ex.error
        if not vectors:
            vectors.append(_lookup_vectors(lookup, result))
        if isinstance(vectors[0], ExcelError):
            return vectors[0]
        keys, out = vectors[0]
        want = _lookup_key(0.0 if v is None else v)
        if want is None:
            return ExcelError("#N/A", "LOOKUP: lookup_value is not a number, text or boolean")
        hit = excel_bsearch(keys, want)
        if hit is None:
            return ExcelError("#N/A", "LOOKUP: no value at or below lookup_value")
        if hit >= len(out):
            return ExcelError("#N/A", "LOOKUP: result_vector is shorter than lookup_vector")
        x = out[hit]
        return 0.0 if x is None else x

    value = _listed(value)  # a block column: one lookup value per row
    if isinstance(value, list):  # an array of lookup values (array formula): each one
        return [[one(v) for v in row] for row in value]
    return one(value)


def _lookup_vectors(lookup, result) -> tuple[list, list] | ExcelError:
    """LOOKUP's searched keys (:func:`_lookup_key` of each) and its result values: the
    vector form's two vectors, or the array form's first and last row (column)."""
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
    return [_lookup_key(k) for k in keys], out


BUILTINS["LOOKUP"] = _lookup


def lookup_index(x, size: int, what: str = "col_index_num") -> tuple[int, ExcelError | None]:
    """VLOOKUP's ``col_index_num`` (HLOOKUP's ``row_index_num``) as Excel reads it, for a
    table of ``size`` columns (rows): ``(k, error)``, the 0-based position and the error
    Excel returns instead (None: none).

    Microsoft, "VLOOKUP function" (read 2026-12-01): less than 1 is ``#VALUE!``, more than
    the table's columns ``#REF!``; TRUE is 1 and FALSE 0; numeric text is its number,
    other text ``#VALUE!``; a fraction is truncated. Excel checks the range only once the
    lookup has found its value: EPPlus's FormulaTest.xlsx (saved by Excel) caches
    ``VLOOKUP(8,B3:B7,FALSE)`` (found) as ``#VALUE!`` but ``VLOOKUP(8,I10:I28,0,FALSE)``
    (not found) as ``#N/A``. So an error value or text that is no number is ``k`` None
    with its error; a number out of range is ``k`` with the error to give if found.

    >>> lookup_index(2.9, 3), lookup_index(True, 3), lookup_index("2", 3)
    ((1, None), (0, None), (1, None))
    >>> [(k, str(e)) for k, e in (lookup_index(False, 3), lookup_index(4, 3), lookup_index("x", 3))]
    [(-1, '#VALUE!'), (3, '#REF!'), (None, '#VALUE!')]
    """
    if isinstance(x, ExcelError):
        return None, x
    if isinstance(x, bool):
        x = float(x)
    try:
        k = math.trunc(_number(x, what))
    except _Err as ex:
        return None, ex.error
    if k < 1:
        return k - 1, ExcelError("#VALUE!", f"{what} {k} is less than 1")
    if k > size:
        return k - 1, ExcelError("#REF!", f"{what} {k} is beyond the table's {size}")
    return k - 1, None


def lookup_range_flag(x) -> bool | ExcelError:
    """VLOOKUP's (HLOOKUP's) ``range_lookup``: TRUE for an approximate match, FALSE (0, an
    empty argument) for an exact one; text TRUE/FALSE as the boolean, numeric text its
    number, other text ``#VALUE!``; an error value is itself.

    >>> lookup_range_flag(0), lookup_range_flag(None), lookup_range_flag("true")
    (False, False, True)
    >>> str(lookup_range_flag("yes"))
    '#VALUE!'
    """
    if isinstance(x, ExcelError):
        return x
    if isinstance(x, str) and x.strip().upper() in ("TRUE", "FALSE"):
        return x.strip().upper() == "TRUE"
    if isinstance(x, bool):
        return x
    try:
        return _number(x, "range_lookup") != 0
    except _Err as ex:
        return ex.error


# ------------------------------------------------------------------ GROUPBY, PIVOTBY
#
# Microsoft, "GROUPBY function" and "PIVOTBY function" (read 2026-12-01), and Excel's cached
# values in the `formulas` project's test.xlsx (sheets LOOKUP and EXTRA, saved by Excel for
# Mac) where the documentation is silent:
#
# * ``field_headers``: 0 no headers, 1 headers not shown, 3 headers shown (2, generated
#   names, is not implemented: an error). Omitted: the data has headers when the first
#   value is text and the second a number; GROUPBY then hides them (test.xlsx, three row
#   fields). Microsoft says they are shown for several row or column fields, which is not
#   so for GROUPBY; PIVOTBY with several fields and headers found is an error.
# * ``total_depth``: 0 none, 1 a grand total ("Total"), n >= 2 subtotals for the first n-1
#   fields too (the grand total then reads "Grand Total"); negative: above what they total.
#   More than the number of fields is #VALUE!. Omitted: 1 for GROUPBY (test.xlsx, with
#   three fields, although Microsoft says "grand totals and, where possible, subtotals");
#   PIVOTBY with one field 1 (test.xlsx), with several an error (not verified).
#   A subtotal row repeats its parent fields and leaves the rest empty; totals are the
#   function of the group's values, not of the rows above them.
# * ``sort_order``: field numbers (then value columns, by their aggregate) ascending,
#   negative descending; a field keeps its parents' order (hierarchy), a value sorts the
#   innermost field within its parent. Groups are keyed without regard to case.
# * ``filter_array``: its first column, one row per data row (headers included), numbers or
#   booleans; an error there is the result, text #VALUE!.
# * PIVOTBY's ``relative_to`` (PERCENTOF): 0 the column total, 1 the row total, 2 the grand
#   total, 3 the parent column's total, 4 the parent row's total.
# * A combination without data is empty text, as Excel caches it.
#
# The function is an eta-reduced lambda (``_xleta.SUM``), which the pre-pass passes as
# ``ETA_PREFIX + name`` (:func:`rooflinexl.recalc.prepass.eta_arguments`); a LAMBDA or a
# vector of functions is not implemented (an error that says so).

#: how a function passed by name (``_xleta.SUM``) reaches GROUPBY and PIVOTBY
ETA_PREFIX = "__ROOFLINEXL_FUNCTION__."

_ETA_NUMERIC = {"AVERAGE": 1, "COUNT": 2, "MAX": 4, "MIN": 5, "PRODUCT": 6, "STDEV.S": 7,
                "STDEV.P": 8, "SUM": 9, "VAR.S": 10, "VAR.P": 11, "MEDIAN": 12,
                "MODE.SNGL": 13, "STDEV": 7, "STDEVP": 8, "VAR": 10, "VARP": 11, "MODE": 13}
#: functions that cannot take one array: each aggregate is #VALUE! (test.xlsx, `_xleta.IF`)
_ETA_TOO_FEW = frozenset({"IF", "IFS", "SUMIF", "COUNTIF", "LARGE", "SMALL", "INDEX"})


def _eta_numbers(vals: list, skip_errors: bool = False) -> list[float]:
    """The numbers of an array argument (text, booleans and blanks ignored; an error is
    raised unless ``skip_errors``)."""
    out = []
    for x in vals:
        if isinstance(x, ExcelError):
            if not skip_errors:
                raise _Err(str(x), getattr(x, "reason", "") or "an error value in the values")
        elif isinstance(x, (int, float)) and not isinstance(x, bool):
            out.append(float(x))
    return out


def _eta_function(function):
    """GROUPBY's ``function`` argument as ``(reduce, share)``: ``reduce(values)`` aggregates
    one group's values; ``share`` (PERCENTOF) divides it by the same for the total it is
    relative to. An ExcelError when it is not a function the engine implements."""
    if isinstance(function, ExcelError):
        return function
    if not (isinstance(function, str) and function.startswith(ETA_PREFIX)):
        return ExcelError("#VALUE!", "the function is not a function name (a LAMBDA or a "
                          "vector of functions is not implemented by the headless engine)")
    name = function[len(ETA_PREFIX):].upper()
    while name.startswith(("_XLFN.", "_XLWS.")):
        name = name[6:]
    if name == "PERCENTOF":  # PERCENTOF(subset, all) = SUM(subset) / SUM(all)
        name, share = "SUM", True
    else:
        share = False
    if name in _ETA_NUMERIC:
        reduce = _SUBTOTALS[_ETA_NUMERIC[name]]
        skip = name == "COUNT"  # COUNT counts numbers and ignores errors
        return (lambda vals: reduce(_eta_numbers(vals, skip))), share
    if name == "COUNTA":
        return (lambda vals: float(sum(x is not None for x in vals))), False
    if name in ("CONCAT", "ARRAYTOTEXT"):
        def text(vals):
            parts = []
            for x in vals:
                if isinstance(x, ExcelError) and name == "CONCAT":
                    return x
                parts.append("" if x is None else value_text(x))
            return ("" if name == "CONCAT" else ", ").join(parts)
        return text, False
    if name in _ETA_TOO_FEW:
        return (lambda vals: ExcelError("#VALUE!", f"{name} needs more than one argument")), \
            False
    return ExcelError("#NAME?", f"{name} as the function of GROUPBY/PIVOTBY is not "
                      "implemented by the headless engine")


def _int_arg(x, what: str, default: int) -> int:
    if x is None:
        return default
    return math.trunc(_number(_scalar(x, what), what))


def _group_key(x):
    """Grouping key of a field value: text without regard to case, 1 and 1.0 alike."""
    if isinstance(x, ExcelError):
        return (3, str(x))
    if isinstance(x, bool):
        return (2, x)
    if isinstance(x, (int, float)):
        return (0, float(x))
    if x is None:
        return (4, "")
    return (1, str(x).casefold())


class _Axis:
    """One axis of a pivot (the row fields, or PIVOTBY's column fields)."""

    def __init__(self, fields: list[list], depth, sort, n_values: int, what: str,
                 table: bool = False):
        self.fields = fields  # data rows x fields
        self.n = len(fields[0]) if fields else 0
        d = _int_arg(depth, f"{what}total_depth", 1)
        if abs(d) > max(self.n, 1) or (table and abs(d) > 1):
            raise _Err("#VALUE!", f"{what}total_depth {d} needs more fields")
        self.depth = d
        if sort is None:
            order = [1]
        else:
            order = [math.trunc(_number(_scalar(v, "sort_order"), "sort_order"))
                     for row in _grid(sort) for v in row]
        if (len({abs(v) for v in order}) != len(order)
                or any(v == 0 or abs(v) > self.n + n_values for v in order)
                or len(order) > 1 and any(abs(v) > self.n for v in order)):
            raise _Err("#VALUE!", f"{what}sort_order {order} outside the fields and values")
        self.desc = {abs(v) - 1 for v in order if v < 0 and abs(v) <= self.n}
        by_value = [v for v in order if abs(v) > self.n]
        self.by_value = (abs(by_value[0]) - self.n - 1, by_value[0] < 0) if by_value else None
        self.order = [abs(v) - 1 for v in order if abs(v) <= self.n]
        self.table = table
        self.display: dict = {}
        for row in fields:
            for x in row:
                self.display.setdefault(_group_key(x), x)

    def key(self, i: int) -> tuple:
        return tuple(_group_key(x) for x in self.fields[i])

    def groups(self, keys: set, value_of) -> list[tuple]:
        """The ordered groups of this axis: (key prefix, is the grand total) pairs."""
        if not self.n:  # GROUPBY's columns: one group, everything
            return [((), False)]
        sub = max(abs(self.depth) - 1, 0)  # prefix lengths 1..sub get subtotals
        top = self.depth < 0
        if self.table:
            leaves = sorted(keys, key=lambda k: tuple(_sort_key(self.display[x]) for x in k))
            for f in reversed(self.order):  # stable sorts, the first sort key last
                leaves.sort(key=lambda k, f=f: _sort_key(self.display[k[f]]),
                            reverse=f in self.desc)
                leaves.sort(key=lambda k, f=f: k[f][0] == 4)  # blanks last, as SORT
            if self.by_value is not None:
                leaves.sort(key=lambda k: _sort_key(value_of(k)), reverse=self.by_value[1])
            out = [(k, False) for k in leaves]
        else:
            out = []
            below: dict[tuple, set] = {}  # a key prefix -> the next field's keys under it
            for k in keys:
                for level in range(self.n):
                    below.setdefault(k[:level], set()).add(k[level])

            def walk(prefix: tuple, level: int):
                children = sorted(below[prefix], key=lambda c: _sort_key(self.display[c]),
                                  reverse=level in self.desc)
                children.sort(key=lambda c: c[0] == 4)  # blanks last either way, as SORT
                if self.by_value is not None and level == self.n - 1:
                    children.sort(key=lambda c: _sort_key(value_of(prefix + (c,))),
                                  reverse=self.by_value[1])
                for c in children:
                    p = prefix + (c,)
                    if level + 1 == self.n:
                        out.append((p, False))
                        continue
                    if level + 1 <= sub and top:
                        out.append((p, False))
                    walk(p, level + 1)
                    if level + 1 <= sub and not top:
                        out.append((p, False))

            walk((), 0)
        if self.depth:
            out.insert(0 if top else len(out), ((), True))
        return out

    def labels(self, prefix: tuple, grand: bool) -> list:
        if grand:
            return ["Grand Total" if abs(self.depth) > 1 else "Total"] + [""] * (self.n - 1)
        return [self.display[k] if k[0] != 4 else "" for k in prefix] + [""] * (
            self.n - len(prefix))


def _pivot(row_fields, col_fields, values, function, field_headers, row_depth, row_sort,
           col_depth, col_sort, filter_array, relative_to, *, groupby: bool,
           table: bool = False):
    """The array GROUPBY (``col_fields`` None) or PIVOTBY returns (see the notes above)."""
    for a in (row_fields, col_fields, values):
        if isinstance(a, ExcelError):
            return a
    fn = _eta_function(function)
    if isinstance(fn, ExcelError):
        return fn
    reduce, share = fn
    if values is None:
        return ExcelError("#VALUE!", "values are missing")
    R, V = _grid(row_fields), _grid(values)
    C = _grid(col_fields) if col_fields is not None else [[] for _ in R]
    n = len(R)
    if len(V) != n or len(C) != n:
        return ExcelError("#VALUE!", "row_fields, col_fields and values differ in length")
    try:
        if field_headers is None:
            first = V[0][0]
            second = V[1][0] if n > 1 else None
            has = (isinstance(first, str) and not isinstance(first, ExcelError)
                   and isinstance(second, (int, float)) and not isinstance(second, bool))
            if has and not groupby and (len(R[0]) > 1 or len(C[0]) > 1):
                raise _Err("#VALUE!", "PIVOTBY: whether Excel shows the headers it finds "
                           "for several row or column fields is not verified; give "
                           "field_headers")
            fh = 1 if has else 0
        else:
            fh = _int_arg(field_headers, "field_headers", 0)
        if fh not in (0, 1, 3):
            raise _Err("#VALUE!", f"field_headers {fh}: only 0, 1 and 3 are implemented"
                       if fh == 2 else f"field_headers {fh} is not 0 to 3")
        start = 1 if fh in (1, 3) else 0
        keep = list(range(start, n))
        if filter_array is not None:
            flt = _grid(filter_array)
            if len(flt) != n:
                raise _Err("#VALUE!", "filter_array is not as long as the fields")
            keep = []
            for i in range(start, n):
                x = flt[i][0]
                if isinstance(x, ExcelError):
                    raise _Err(str(x), "an error value in filter_array")
                if isinstance(x, str):
                    raise _Err("#VALUE!", f"filter_array holds text {x!r}")
                if x:
                    keep.append(i)
        if not keep:
            raise _Err("#VALUE!", "no data rows (Excel's #CALC!)")
        nv = len(V[0])
        for depth, fields, what in ((row_depth, R, "row"), (col_depth, C, "col")):
            if depth is None and not groupby and len(fields[0]) > 1:
                raise _Err("#VALUE!", f"PIVOTBY: the default {what}_total_depth of several "
                           f"fields is not verified against Excel; give {what}_total_depth")
        rows = _Axis([R[i] for i in keep], row_depth, row_sort, nv,
                     "" if groupby else "row_", table)
        cols = _Axis([C[i] for i in keep], 0 if groupby else col_depth, col_sort, nv, "col_")
        rel = _int_arg(relative_to, "relative_to", 0)
        if rel not in range(5):
            raise _Err("#VALUE!", f"relative_to {rel} is not 0 to 4")
    except _Err as ex:
        return ex.error
    vals = [V[i] for i in keep]
    rkeys = [rows.key(i) for i in range(len(keep))]
    ckeys = [cols.key(i) for i in range(len(keep))]
    members: dict[tuple, list[int]] = {}
    for i, (rk, ck) in enumerate(zip(rkeys, ckeys, strict=True)):
        for a in range(rows.n + 1):
            for b in range(cols.n + 1):
                members.setdefault((rk[:a], ck[:b]), []).append(i)
    whole = {0: lambda rp, cp: ((), cp), 1: lambda rp, cp: (rp, ()),
             2: lambda rp, cp: ((), ()), 3: lambda rp, cp: (rp, cp[:-1]),
             4: lambda rp, cp: (rp[:-1], cp)}[rel]
    cache: dict = {}

    def base(rp: tuple, cp: tuple, k: int):
        """The function of a group's values; None for a group without rows."""
        if (rp, cp, k) not in cache:
            idx = members.get((rp, cp))
            if idx is None:
                cache[rp, cp, k] = None
            else:
                try:
                    cache[rp, cp, k] = reduce([vals[i][k] for i in idx])
                except _Err as ex:
                    cache[rp, cp, k] = ex.error
        return cache[rp, cp, k]

    def value(rp: tuple, cp: tuple, k: int):
        x = base(rp, cp, k)
        if x is None:
            return ""
        if not share or isinstance(x, ExcelError):
            return x
        total = base(*whole(rp, cp), k)
        if isinstance(total, ExcelError):
            return total
        return x / total if total else ExcelError("#DIV/0!", "PERCENTOF: the total is 0")

    rgroups = rows.groups(set(rkeys), lambda p: value(p, (), rows.by_value[0]))
    cgroups = cols.groups(set(ckeys), lambda p: value((), p, cols.by_value[0]))
    names = R[0] if start else [""] * rows.n
    vnames = V[0] if start else [""] * nv
    out = []
    if not groupby:
        if fh == 3:
            label = ", ".join(value_text(x) if x is not None else "" for x in C[0])
            out.append([""] * rows.n + [label] + [""] * (len(cgroups) * nv - 1))
        for level in range(cols.n):
            out.append([""] * rows.n + [cols.labels(p, g)[level]
                                        for p, g in cgroups for _ in range(nv)])
    if fh == 3:
        out.append(list(names) + [x for _ in cgroups for x in vnames])
    for rp, rg in rgroups:
        out.append(rows.labels(rp, rg) + [value(rp, cp, k) for cp, _ in cgroups
                                          for k in range(nv)])
    return [["" if x is None else x for x in row] for row in out]


def _groupby(row_fields, values, function, field_headers=None, total_depth=None,
             sort_order=None, filter_array=None, field_relationship=None):
    """GROUPBY(row_fields, values, function, [field_headers], [total_depth], [sort_order],
    [filter_array], [field_relationship]) (Microsoft, "GROUPBY function"): one row per
    distinct row_fields value, each values column aggregated by ``function``.

    >>> _groupby([["r"], ["a"], ["b"], ["a"]], [["v"], [1], [2], [3]],
    ...          ETA_PREFIX + "SUM", 3)
    [['r', 'v'], ['a', 4.0], ['b', 2.0], ['Total', 6.0]]
    """
    try:
        rel = _int_arg(field_relationship, "field_relationship", 0)
    except _Err as ex:
        return ex.error
    if rel not in (0, 1):
        return ExcelError("#VALUE!", f"field_relationship {rel} is not 0 or 1")
    return _pivot(row_fields, None, values, function, field_headers, total_depth, sort_order,
                  None, None, filter_array, None, groupby=True, table=rel == 1)


def _pivotby(row_fields, col_fields, values, function, field_headers=None,
             row_total_depth=None, row_sort_order=None, col_total_depth=None,
             col_sort_order=None, filter_array=None, relative_to=None):
    """PIVOTBY(row_fields, col_fields, values, function, [field_headers], [row_total_depth],
    [row_sort_order], [col_total_depth], [col_sort_order], [filter_array], [relative_to])
    (Microsoft, "PIVOTBY function"): the values aggregated by row and column groups.

    Excel's cached values in test.xlsx (sheet EXTRA, H96:K99):

    >>> _pivotby([[2], [2], [3]], [[1], [2], [2]], [[1], [2], [3]], ETA_PREFIX + "SUM")
    [['', 1, 2, 'Total'], [2, 1.0, 2.0, 3.0], [3, '', 3.0, 3.0], ['Total', 1.0, 5.0, 6.0]]
    """
    if col_fields is None:
        return ExcelError("#VALUE!", "col_fields are missing")
    return _pivot(row_fields, col_fields, values, function, field_headers, row_total_depth,
                  row_sort_order, col_total_depth, col_sort_order, filter_array, relative_to,
                  groupby=False)


BUILTINS.update(GROUPBY=_groupby, PIVOTBY=_pivotby)



# ------------------------------------------------------------------ XNPV and XIRR

def xnpv_sum(rate: float, values, years) -> float:
    """XNPV's sum as Excel adds it: ``values[i] / (1 + rate) ** years[i]`` term by term,
    in the order the payments are given (``years[i]``: (date_i - date_0) / 365).

    The order matters where the terms cancel: Excel's XNPV at the rate XIRR returns is
    a few 1e-9, whose last digits depend on it (the ``formulas`` project's regression
    workbook, FINANCIAL!R56: 4.594164160209857e-09).

    >>> xnpv_sum(0.25, [-100.0, 125.0, 156.25], [0.0, 1.0, 2.0])  # -100 + 100 + 100
    100.0
    """
    total = 0.0
    for v, t in zip(values, years, strict=True):
        total += v / (1.0 + rate) ** t
    return total


#: Excel's XIRR: midpoints of its bisection, and |XNPV| small enough to stop sooner
_XIRR_STEPS, _XIRR_NPV_TOL = 26, 1e-10


def _bisect(npv, lo: float, hi: float) -> float:
    """The 26th midpoint of Excel's bisection of [lo, hi] (XNPV changes sign between
    them), or the first one where |XNPV| < 1e-10."""
    f_lo = npv(lo)
    for step in range(_XIRR_STEPS):
        mid = (lo + hi) / 2.0
        f_mid = npv(mid)
        if abs(f_mid) < _XIRR_NPV_TOL or step == _XIRR_STEPS - 1:
            return mid
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    raise AssertionError("unreachable")


def xirr_rate(npv, guess: float) -> float | None:
    """The rate XIRR returns for ``npv(rate)`` (XNPV of the payments), from ``guess``,
    or None where XNPV changes sign nowhere in (-1, 2^60].

    Excel does not return the root Newton's method converges to: its answers in the
    ``formulas`` project's regression workbook (FINANCIAL!R54:AW55, guesses 0, 0.1, 1, 4
    and 32015) and IronCalc's XIRR test workbook (12 rates; both saved by Excel) are the
    26th midpoint of a bisection (sooner where |XNPV| < 1e-10) of a bracket found
    from the guess g (1e-5 for 0): for a positive rate [a, 2a], a = g doubled or halved
    until XNPV changes sign between a and 2a; for a negative one (no sign change above
    0) [x', x], x from -g towards -1, x' = (x - 1) / 2 halving the distance to -1, until
    XNPV changes sign between them. That is within about 1e-8 of the root, not at it:
    all 8 positive cases to the bit, 8 of the 9 negative ones to 1e-9 (4 to the bit;
    where a negative rate is near -1 Excel stops a few midpoints sooner, by a rule not
    reproduced).

    >>> r = xirr_rate(lambda r: -100.0 + 110.0 / (1 + r), 0.1)  # the root is 0.1
    >>> r != 0.1 and abs(r - 0.1) < 1e-8
    True
    >>> abs(xirr_rate(lambda r: -10.0 + 5.0 / (1 + r), 0.1) + 0.5) < 1e-8
    True
    """
    f0 = npv(0.0)
    if not (isinstance(f0, float) and math.isfinite(f0)):
        return None
    if f0 == 0:
        return 0.0

    def past(r: float) -> bool:  # XNPV has changed sign between 0 and r
        v = npv(r)
        return math.isfinite(v) and (v > 0) != (f0 > 0)

    g = guess if guess > 0 else 1e-5
    x = g
    if past(x):
        while x > 1e-300 and past(x / 2.0):
            x /= 2.0
    else:
        while x < 2.0**60 and math.isfinite(npv(x)) and not past(x):
            x *= 2.0
    if past(x) and not past(x / 2.0):
        return _bisect(npv, x / 2.0, x)
    x = -g
    if past(x):
        return _bisect(npv, x, 0.0)
    while x > -1.0 + 1e-12:
        lower = (x - 1.0) / 2.0
        if past(lower):
            return _bisect(npv, lower, x)
        x = lower
    return None


# ------------------------------------------------------------- FORECAST.ETS and family
# Excel fits an additive (AAA) exponential triple smoothing model, choosing its
# parameters by an optimisation Microsoft does not document; its numbers are not
# reproduced in general. What is reproduced is the case where no smoothing is needed:
# a series that is exactly a straight line plus a repeating pattern of the given
# seasonality. Every fit of that model then has zero error, and Excel's answers in the
# ``formulas`` project's regression workbook (saved by Excel for Mac; STATISTICAL rows
# 38-41) follow from the series alone: the forecast continues line and pattern, the
# confidence interval is 0, MASE/SMAPE/MAE/RMSE are 0, the step is the timeline's step.
# Any other series is #VALUE! with a message saying so (never a number that could be
# wrong). Rules from Microsoft ("FORECAST.ETS function" and its siblings) and that book:
# - the timeline is sorted, equal dates are aggregated (0 or 1 AVERAGE, 2 COUNT,
#   3 COUNTA, 7 SUM; 4 to 6, MAX/MEDIAN/MIN whose order sources disagree on, only where
#   the equal dates have equal values), the step is the smallest gap, every gap a whole
#   number of steps; a missing point is 0 (data_completion 0) or, alone between two
#   points, their average (1, the default); other data_completion values are #NUM!;
# - seasonality 1 (the default) detects the season length, 0 is none, up to 8760;
# - target_date at or before the first date minus one step is #NUM!; between the
#   timeline's points the forecast is interpolated, and before the first point from 0
#   (the book: a series starting 1 at date 1 forecasts 0.1 at date 0.1, to the bit
#   when the position is counted from the last date, as here);
# - confidence_level must lie strictly between 0 and 1 (empty is the default 0.95);
#   statistic_type 1 to 8 (1-3, the smoothing parameters, are not reproduced).
# - the arguments one would fill from a row of cells (target_date, confidence_level,
#   data_completion, statistic_type) take a range and give one result per cell: booleans
#   are 1/0, numeric or date text its number, an error value that error.

_ETS_AGGREGATE = {0: "average", 1: "average", 2: "count", 3: "counta", 7: "sum",
                  4: "same", 5: "same", 6: "same"}


def _ets_date_text(s: str) -> float | None:
    """Numeric or date text as a number: en-US dates, day-first ones where the day is
    above 12 (``26/08/1987``), and Excel's 29/02/1900 (serial 60)."""
    v = _text_number(s)
    if v is not None:
        return v
    v = _text_date(s)
    if v is not None:
        return v
    m = re.match(r"^\s*(\d{1,2})/(\d{1,2})/(\d{4})\s*$", s)
    if m is None:
        return None
    d, mo, y = (int(g) for g in m.groups())
    if (d, mo, y) == (29, 2, 1900):
        return 60.0
    return _text_date(f"{mo}/{d}/{y}") if d > 12 else None


def _ets_value(x, what: str) -> float:
    """One argument value as a number, as the ETS functions coerce it."""
    if isinstance(x, ExcelError):
        raise _Err(str(x), getattr(x, "reason", "") or f"{what} is an error value")
    if x is None:
        return 0.0
    if isinstance(x, bool):
        return 1.0 if x else 0.0
    if isinstance(x, (int, float)):
        return float(x)
    v = _ets_date_text(str(x))
    if v is None:
        raise _Err("#VALUE!", f"{what} {x!r} is not a number")
    return v


def _ets_option(x, what: str, default: float) -> float:
    """An optional scalar argument (empty or omitted: its default)."""
    if hasattr(x, "shape"):  # a whole column from the block path: go row by row
        raise TypeError("scalar function")
    x = _scalar(x, what)
    return default if x is None else _ets_value(x, what)


def _ets_numbers(arg, what: str) -> list[float]:
    out = []
    for row in _grid(arg):
        for x in row:
            if isinstance(x, ExcelError):
                raise _Err(str(x), getattr(x, "reason", "") or f"{what} holds an error")
            if x is None or isinstance(x, (bool, str)):
                raise _Err("#VALUE!", f"{what}: {x!r} is not a number (not reproduced)")
            out.append(float(x))
    return out


class _EtsSeries:
    """The series the ETS functions fit: equally spaced, aggregated, completed; and
    whether it is exactly a line plus a pattern of ``season`` steps."""

    def __init__(self, values, timeline, season, completion, aggregation, name: str,
                 fitted: bool = True):
        self.name = name
        ys, xs = _ets_numbers(values, "values"), _ets_numbers(timeline, "timeline")
        if len(ys) != len(xs):
            raise _Err("#N/A", f"{name}: values and timeline differ in size")
        completion = math.trunc(completion)
        if completion not in (0, 1):
            raise _Err("#NUM!", f"{name}: data_completion must be 0 or 1")
        kind = _ETS_AGGREGATE.get(aggregation) if aggregation == int(aggregation) else None
        if kind is None:
            raise _Err("#NUM!", f"{name}: aggregation must be 0 to 7")
        if season < 0 or season > 8760:
            raise _Err("#NUM!", f"{name}: seasonality must be 0 to 8760")
        groups: dict[float, list[float]] = {}
        for x, y in zip(xs, ys, strict=True):
            groups.setdefault(x, []).append(y)
        dates = sorted(groups)
        if len(dates) < 3:
            raise _Err("#VALUE!", f"{name}: fewer than three dates (not reproduced)")
        points = []
        for d in dates:
            g = groups[d]
            if kind == "same" and any(v != g[0] for v in g):
                raise self.unsupported("aggregation 4-6 over unequal values")
            points.append({"average": sum(g) / len(g), "count": float(len(g)),
                           "counta": float(len(g)), "sum": sum(g), "same": g[0]}[kind])
        gaps = [b - a for a, b in zip(dates, dates[1:], strict=False)]
        step = min(gaps)
        counts = [g / step for g in gaps]
        if any(c != round(c) for c in counts):
            raise self.unsupported("a timeline whose gaps are not whole steps")
        y = [points[0]]
        for c, v in zip(counts, points[1:], strict=True):
            missing = round(c) - 1
            if missing and completion == 1 and missing > 1:
                raise self.unsupported("two or more missing points in a row")
            y.extend([0.0 if completion == 0 else (y[-1] + v) / 2] * missing)
            y.append(v)
        if (len(y) - len(points)) > 0.3 * len(y):
            raise self.unsupported("more than 30 % missing points")
        self.y, self.step, self.last = y, step, dates[-1]
        self.season = int(season)
        if self.season == 1:
            self.season = self.detected()
        self.slope = self.fit(max(self.season, 1))
        if self.slope is None and fitted:
            raise self.unsupported(
                "a series that is not exactly a line plus a repeating pattern")

    def unsupported(self, what: str) -> _Err:
        return _Err("#VALUE!", f"{self.name}: Excel's exponential smoothing is reproduced "
                               f"only for an exact line plus pattern, not for {what}")

    def fit(self, m: int) -> float | None:
        """The slope when ``y`` is exactly a line plus a pattern of ``m`` steps, seen at
        least twice (else None)."""
        y = self.y
        if len(y) < 2 * m or len(y) < 3:
            return None
        b = (y[m] - y[0]) / m
        scale = max(abs(v) for v in y) or 1.0
        for t, v in enumerate(y):
            if abs(v - (y[t % m] + b * (t - t % m))) > 1e-12 * scale:
                return None
        return b

    def detected(self) -> int:
        """FORECAST.ETS.SEASONALITY for the series this class reproduces: 0 for a line;
        0 for an exact pattern of m steps seen fewer than 2.5 times (Excel's answer for a
        9-point series repeating every 4 in the book); anything else is not reproduced."""
        if self.fit(1) is not None:
            return 0
        n = len(self.y)
        fitting = [m for m in range(2, n // 2 + 1) if self.fit(m) is not None]
        if fitting and n < 2.5 * fitting[0]:
            return 0
        raise self.unsupported("season detection in a series that repeats")

    def position(self, target: float) -> float:
        """The target's position in steps from the first point (counted from the last)."""
        return (target - self.last) / self.step + (len(self.y) - 1)

    def at(self, k: int) -> float:
        """The fitted (= actual) value at whole position ``k`` >= 0, beyond the end too."""
        if k < len(self.y):
            return self.y[k]
        m = max(self.season, 1)
        return self.y[k % m] + self.slope * (k - k % m)

    def forecast(self, target: float) -> float:
        p = self.position(target)
        if p <= -1:
            raise _Err("#NUM!", f"{self.name}: target_date is before the timeline starts")
        k = math.floor(p)
        frac = p - k
        lo = 0.0 if k < 0 else self.at(k)
        return lo if frac == 0 else lo + frac * (self.at(k + 1) - lo)


def _ets_each(arg, what: str, fn, default: float | None = None):
    """``fn`` of each value of ``arg`` (a range gives one result per cell; an empty one
    is ``default`` where the argument has one)."""
    if hasattr(arg, "shape"):  # a whole column from the block path: go row by row
        raise TypeError("scalar function")

    def one(x):
        try:
            return fn(default if x is None and default is not None else _ets_value(x, what))
        except _Err as e:
            return e.error
    if isinstance(arg, list):
        return [[one(x) for x in row] for row in _grid(arg)]
    return one(arg)


def _ets_call(fn):
    """A host function whose ``_Err`` becomes its error value."""
    def call(*args):
        try:
            return fn(*args)
        except _Err as e:
            return e.error
    call.__doc__, call.__name__ = fn.__doc__, fn.__name__
    return call


@_ets_call
def _forecast_ets(target_date, values, timeline, seasonality=None, data_completion=None,
                  aggregation=None):
    """FORECAST.ETS(target_date, values, timeline, [seasonality], [data_completion],
    [aggregation]) for an exact line plus pattern (see the notes above)."""
    s = _EtsSeries(values, timeline, _ets_option(seasonality, "seasonality", 1),
                   _ets_option(data_completion, "data_completion", 1),
                   _ets_option(aggregation, "aggregation", 0), "FORECAST.ETS")
    return _ets_each(target_date, "target_date", s.forecast)


@_ets_call
def _forecast_ets_confint(target_date, values, timeline, confidence_level=None,
                          seasonality=None, data_completion=None, aggregation=None):
    """FORECAST.ETS.CONFINT(...): 0 for an exact line plus pattern (no error to spread)."""
    s = _EtsSeries(values, timeline, _ets_option(seasonality, "seasonality", 1),
                   _ets_option(data_completion, "data_completion", 1),
                   _ets_option(aggregation, "aggregation", 0), "FORECAST.ETS.CONFINT")
    s.forecast(_ets_value(_scalar(target_date, "target_date"), "target_date"))

    def interval(level: float) -> float:
        if not 0 < level < 1:
            raise _Err("#NUM!", "FORECAST.ETS.CONFINT: confidence_level must lie in (0, 1)")
        return 0.0
    return _ets_each(confidence_level, "confidence_level", interval, 0.95)


@_ets_call
def _forecast_ets_seasonality(values, timeline, data_completion=None, aggregation=None):
    """FORECAST.ETS.SEASONALITY(values, timeline, ...): the detected season length."""
    def one(completion: float) -> float:
        return float(_EtsSeries(values, timeline, 1, completion,
                                _ets_option(aggregation, "aggregation", 0),
                                "FORECAST.ETS.SEASONALITY", fitted=False).season)
    return _ets_each(data_completion, "data_completion", one, 1.0)


@_ets_call
def _forecast_ets_stat(values, timeline, statistic_type, seasonality=None,
                       data_completion=None, aggregation=None):
    """FORECAST.ETS.STAT(values, timeline, statistic_type, ...): 4-7 (MASE, SMAPE, MAE,
    RMSE) are 0 and 8 the step for an exact line plus pattern; 1-3 are not reproduced."""
    s = _EtsSeries(values, timeline, _ets_option(seasonality, "seasonality", 1),
                   _ets_option(data_completion, "data_completion", 1),
                   _ets_option(aggregation, "aggregation", 0), "FORECAST.ETS.STAT")

    def stat(kind: float) -> float:
        kind = math.trunc(kind)
        if kind in (4, 5, 6, 7):
            return 0.0
        if kind == 8:
            return s.step
        if kind in (1, 2, 3):
            raise s.unsupported("its smoothing parameters (statistic_type 1-3)")
        raise _Err("#NUM!", "FORECAST.ETS.STAT: statistic_type must be 1 to 8")
    return _ets_each(statistic_type, "statistic_type", stat)


BUILTINS.update({"FORECAST.ETS": _forecast_ets, "FORECAST.ETS.CONFINT": _forecast_ets_confint,
                 "FORECAST.ETS.SEASONALITY": _forecast_ets_seasonality,
                 "FORECAST.ETS.STAT": _forecast_ets_stat})


# ------------------------------------------------------------------ SKEW and SKEW.P

def mean_and_squares(values) -> tuple[float, float]:
    """(mean, sum of squared deviations from it) of the numbers ``values``, in Excel's
    order of operations: the running sum divided by the count, then the running sum of
    ``(x - mean) * (x - mean)`` (what SKEW's and T.TEST's last digits follow).

    >>> mean_and_squares([1.0, 2.0, 4.0])
    (2.3333333333333335, 4.666666666666666)
    """
    total = 0.0
    for v in values:
        total += v
    mean = total / len(values)
    squares = 0.0
    for v in values:
        squares += (v - mean) * (v - mean)
    return mean, squares


def skew(values, population: bool):
    """SKEW (``population`` False) or SKEW.P of the numbers ``values``, in the order
    Excel adds them, or ``#DIV/0!`` (fewer than three numbers, or no spread).

    Microsoft ("SKEW function", "SKEW.P function"): SKEW is
    n / ((n-1)(n-2)) * sum(((x - mean) / s)^3) with s the sample standard deviation,
    SKEW.P is sum(((x - mean) / sigma)^3) / n with the population one. For a symmetric
    set the result is rounding noise, and its digits depend on the order of the
    operations: these (mean = running sum / n, s from the running sum of squared
    deviations, each term (d/s)*(d/s)*(d/s) added in turn) give Excel's noise to the
    bit in the ``formulas`` project's regression workbook (STATISTICAL!R92:AW93:
    -1.1102230246251565e-15 for SKEW of 0, 0.1, 0.2, 0.3, -0.1).

    >>> skew([0, 0.1, 0.2, 0.3, -0.1], False), skew([3.0, 4.0, 5.0, 2.0, 3.0, 4.0, 5.0, 6.0,
    ...     4.0, 7.0], False)  # Microsoft's example: 0.359543
    (-1.1102230246251565e-15, 0.3595430714067974)
    """
    n = len(values)
    if n < 3:
        return ExcelError("#DIV/0!", "SKEW needs at least three numbers")
    mean, squares = mean_and_squares(values)
    s = math.sqrt(squares / (n if population else n - 1))
    if s == 0:
        return ExcelError("#DIV/0!", "SKEW of numbers that do not vary")
    cubes = 0.0
    for v in values:
        z = (v - mean) / s
        cubes += z * z * z
    return cubes / n if population else n / ((n - 1) * (n - 2)) * cubes


# ----------------------------------------------------------------- BESSELI/J/K/Y
# Excel's Bessel functions are not the exact functions: they are the classic rational
# and polynomial approximations (Abramowitz & Stegun 9.4 and 9.8, as Press et al.,
# "Numerical Recipes in C", 2nd ed., section 6.5-6.6 code them: accurate to about 1e-8),
# with Miller's downward recurrence for I and J of higher orders. Evaluated the same way
# they give Excel's cached values to the bit in the ``formulas`` project's regression
# workbook (ENGINEERING rows 3-6: BESSELI(2.3, 2) = 1.0054316669125958, where the exact
# value is 1.00543166365...). Arguments (Microsoft, "BESSELI function" ...): n is
# truncated and must be >= 0, x must be > 0 for BESSELK and BESSELY, else #NUM!.

def _poly(y: float, coefs) -> float:
    """c0 + y*(c1 + y*(c2 + ...)) (Horner, in Excel's order)."""
    acc = 0.0
    for c in reversed(coefs):
        acc = c + y * acc
    return acc


def _i0(x: float) -> float:
    ax = abs(x)
    if ax < 3.75:
        return _poly((x / 3.75) ** 2, (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732,
                                       0.360768e-1, 0.45813e-2))
    return math.exp(ax) / math.sqrt(ax) * _poly(3.75 / ax, (
        0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2, -0.2057706e-1,
        0.2635537e-1, -0.1647633e-1, 0.392377e-2))


def _i1(x: float) -> float:
    ax = abs(x)
    if ax < 3.75:
        ans = ax * _poly((x / 3.75) ** 2, (0.5, 0.87890594, 0.51498869, 0.15084934,
                                           0.2658733e-1, 0.301532e-2, 0.32411e-3))
    else:
        y = 3.75 / ax
        tail = 0.2282967e-1 + y * (-0.2895312e-1 + y * (0.1787654e-1 - y * 0.420059e-2))
        ans = 0.39894228 + y * (-0.3988024e-1 + y * (-0.362018e-2 + y * (
            0.163801e-2 + y * (-0.1031555e-1 + y * tail))))
        ans *= math.exp(ax) / math.sqrt(ax)
    return -ans if x < 0 else ans


def _j01(x: float, order: int) -> float:
    ax = abs(x)
    if ax < 8.0:
        y = x * x
        if order == 0:
            return _poly(y, (57568490574.0, -13362590354.0, 651619640.7, -11214424.18,
                             77392.33017, -184.9052456)) / _poly(y, (
                57568490411.0, 1029532985.0, 9494680.718, 59272.64853, 267.8532712, 1.0))
        return x * _poly(y, (72362614232.0, -7895059235.0, 242396853.1, -2972611.439,
                             15704.48260, -30.16036606)) / _poly(y, (
            144725228442.0, 2300535178.0, 18583304.74, 99447.43394, 376.9991397, 1.0))
    p, q, xx = _pq(ax, order, j1_excel=order == 1)
    z = 8.0 / ax
    ans = math.sqrt(0.636619772 / ax) * (math.cos(xx) * p - z * math.sin(xx) * q)
    return -ans if order == 1 and x < 0 else ans


def _pq(ax: float, order: int, y_kind: bool = False, j1_excel: bool = False):
    """The asymptotic factors of J0/J1 (Y0/Y1) for x >= 8, and the phase x - ...

    With ``j1_excel`` J1's factor P as Excel evaluates it: its y^2 coefficient
    -0.3516396496e-4 twice, as y^2 and y^3 coefficients, the others one power up
    (IronCalc's BESSEL.xlsx, saved by Excel: BESSELJ(10, 1) = 0.04347224965225415 and
    BESSELJ(32, 1) = -0.0265890283162847 to the last bit, where the exact values are
    0.0434727461688616 and -0.02658902847590528; BESSELJ of higher orders at x above the
    order recur from it)."""
    y = (8.0 / ax) ** 2
    if order == 0:
        p = 1.0 + y * (-0.1098628627e-2 + y * (0.2734510407e-4 + y * (
            -0.2073370639e-5 + y * 0.2093887211e-6)))
        last = -0.934945152e-7 if y_kind else -0.934935152e-7
        q = -0.1562499995e-1 + y * (0.1430488765e-3 + y * (-0.6911147651e-5 + y * (
            0.7621095161e-6 + y * last)))
        return p, q, ax - 0.785398164
    if j1_excel:
        p = 1.0 + y * (0.183105e-2 + y * (-0.3516396496e-4 + y * (-0.3516396496e-4 + y * (
            0.2457520174e-5 + y * -0.240337019e-6))))
    else:
        p = 1.0 + y * (0.183105e-2 + y * (-0.3516396496e-4 + y * (0.2457520174e-5 + y * (
            -0.240337019e-6))))
    q = 0.04687499995 + y * (-0.2002690873e-3 + y * (0.8449199096e-5 + y * (
        -0.88228987e-6 + y * 0.105787412e-6)))
    return p, q, ax - 2.356194491


def _y01(x: float, order: int) -> float:
    if x < 8.0:
        y = x * x
        if order == 0:
            return _poly(y, (-2957821389.0, 7062834065.0, -512359803.6, 10879881.29,
                             -86327.92757, 228.4622733)) / _poly(y, (
                40076544269.0, 745249964.8, 7189466.438, 47447.26470, 226.1030244, 1.0)) \
                + 0.636619772 * _j01(x, 0) * math.log(x)
        return x * _poly(y, (-0.4900604943e13, 0.1275274390e13, -0.5153438139e11,
                             0.7349264551e9, -0.4237922726e7, 0.8511937935e4)) / _poly(y, (
            0.2499580570e14, 0.4244419664e12, 0.3733650367e10, 0.2245904002e8,
            0.1020426050e6, 0.3549632885e3, 1.0)) \
            + 0.636619772 * (_j01(x, 1) * math.log(x) - 1.0 / x)
    p, q, xx = _pq(x, order, y_kind=True)
    z = 8.0 / x
    return math.sqrt(0.636619772 / x) * (math.sin(xx) * p + z * math.cos(xx) * q)


def _k01(x: float, order: int) -> float:
    if x <= 2.0:
        y = x * x / 4.0
        if order == 0:
            return -math.log(x / 2.0) * _i0(x) + _poly(y, (
                -0.57721566, 0.42278420, 0.23069756, 0.3488590e-1, 0.262698e-2, 0.10750e-3,
                0.74e-5))
        return math.log(x / 2.0) * _i1(x) + (1.0 / x) * _poly(y, (
            1.0, 0.15443144, -0.67278579, -0.18156897, -0.1919402e-1, -0.110404e-2,
            -0.4686e-4))
    coefs = ((1.25331414, -0.7832358e-1, 0.2189568e-1, -0.1062446e-1, 0.587872e-2,
              -0.251540e-2, 0.53208e-3) if order == 0 else
             (1.25331414, 0.23498619, -0.3655620e-1, 0.1504268e-1, -0.780353e-2,
              0.325614e-2, -0.68245e-3))
    return math.exp(-x) / math.sqrt(x) * _poly(2.0 / x, coefs)


def _miller(x: float, n: int, modified: bool) -> float:
    """I_n (``modified``) or J_n for n >= 2 by Miller's downward recurrence (J upward
    where x > n), normalised as Numerical Recipes' bessi/bessj do."""
    ax = abs(x)
    if ax == 0:
        return 0.0
    tox = 2.0 / ax
    if not modified and ax > n:
        prev, cur = _j01(ax, 0), _j01(ax, 1)
        for j in range(1, n):
            prev, cur = cur, j * tox * cur - prev
        ans = cur
    else:
        m = 2 * (n + int(math.sqrt(40.0 * n)))
        if not modified:
            m = 2 * ((n + int(math.sqrt(40.0 * n))) // 2)
        ans = total = above = 0.0
        cur, even = 1.0, False
        for j in range(m, 0, -1):
            nxt = above + j * tox * cur if modified else j * tox * cur - above
            above, cur = cur, nxt
            if abs(cur) > 1e10:
                cur, above, ans, total = cur * 1e-10, above * 1e-10, ans * 1e-10, total * 1e-10
            if not modified:
                if even:
                    total += cur
                even = not even
            if j == n:
                ans = above
        ans = ans * (_i0(x) / cur) if modified else ans / (2.0 * total - cur)
    return -ans if x < 0 and n & 1 else ans


def _bessel(kind: str):
    def bessel(x, n):
        try:
            xv = _number(_scalar(x, "x"), "x")
            order = _number(_scalar(n, "n"), "n")
            if order < 0:
                raise _Err("#NUM!", f"BESSEL{kind}: n must be 0 or more")
            order = math.trunc(order)
            if kind in "KY" and xv <= 0:
                raise _Err("#NUM!", f"BESSEL{kind}: x must be above 0")
            try:
                if kind == "I":
                    r = {0: _i0, 1: _i1}.get(order, lambda v: _miller(v, order, True))(xv)
                elif kind == "J":
                    r = _j01(xv, order) if order < 2 else _miller(xv, order, False)
                else:
                    one = _k01 if kind == "K" else _y01
                    prev, r = one(xv, 0), one(xv, 1)
                    if order == 0:
                        r = prev
                    for j in range(1, order):  # upward: K adds, Y subtracts
                        step = j * (2.0 / xv) * r
                        prev, r = r, (prev + step if kind == "K" else step - prev)
            except (OverflowError, ZeroDivisionError):
                r = math.inf
            if not math.isfinite(r):
                raise _Err("#NUM!", f"BESSEL{kind}({xv}, {order}) is out of range")
            return r
        except _Err as ex:
            return ex.error

    bessel.__name__ = bessel.__qualname__ = f"BESSEL{kind}"
    bessel.__doc__ = f"Excel's BESSEL{kind}(x, n) (see the notes above)."
    return bessel


BUILTINS.update({f"BESSEL{k}": _bessel(k) for k in "IJKY"})


# ------------------------------------------------------------------------- PPMT

def ppmt(rate: float, per: float, nper: float, pv: float, fv: float) -> float:
    """The principal part of payment ``per`` of an annuity paid at the end of each period
    (PPMT with type 0), without the cancellation of PMT - IPMT:
    -rate * (pv + fv) * (1 + rate)^(per-1) / ((1 + rate)^nper - 1) (rate not 0).

    Where the loan is repaid almost only at the end the principal of an early payment
    is tiny, and PMT - IPMT (each about pv * rate) leaves rounding noise; Excel's values
    are the tiny number (the ``formulas`` project's regression workbook, FINANCIAL!S40:
    PPMT(2, 3, 33, 10000, 1) = -3.238280962129199e-11; this gives ...216e-11).

    >>> round(ppmt(0.1, 1, 2, 100.0, 0.0), 10)  # PMT -57.6190476190, interest -10
    -47.619047619
    """
    growth = (1.0 + rate) ** nper - 1.0
    return -rate * (pv + fv) / growth * (1.0 + rate) ** (per - 1)


# ----------------------------------------------------------------------- MINVERSE

def minverse(rows: list[list[float]]):
    """The inverse of a square matrix as Excel's MINVERSE computes it, or ``#NUM!``
    (singular).

    Gaussian elimination with partial pivoting (the row of the largest magnitude in the
    column, unscaled), each row below updated by ``a[i][c] / a[c][c]`` times the pivot
    row, the identity carried along; then back substitution column by column, the terms
    subtracted one at a time and the sum divided by the pivot. To the bit Excel's values
    in the ``formulas`` project's regression workbook (CORE!P27:R29: the inverse of
    {1,2,3;2,5,6;7,8,9} has -2.0451476769410777e-17 where the exact value is 0) and in
    IronCalc's MUNIT_MDETERM_MINVERSE.xlsx (A26:C28: the inverse of
    {3,6,9;9,12,-6;6,10.5,18} has -4.4408920985006264e-17 and 0.09090909090909097), both
    saved by Excel; Crout's method with scaled pivots and LAPACK give other last digits.

    >>> minverse([[4.0, 7.0], [2.0, 6.0]])  # 1/10 * {6,-7;-2,4}
    [[0.6000000000000001, -0.7000000000000001], [-0.2, 0.4]]
    >>> str(minverse([[1.0, 2.0], [2.0, 4.0]]))
    '#NUM!'
    """
    n = len(rows)
    a = [[float(v) for v in r] for r in rows]
    b = [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda i: abs(a[i][c]))  # the first of equal ones
        if a[p][c] == 0:
            return ExcelError("#NUM!", "MINVERSE of a singular matrix")
        a[c], a[p], b[c], b[p] = a[p], a[c], b[p], b[c]
        for i in range(c + 1, n):
            f = a[i][c] / a[c][c]
            a[i] = [x - f * y for x, y in zip(a[i], a[c], strict=True)]
            b[i] = [x - f * y for x, y in zip(b[i], b[c], strict=True)]
    x = [[0.0] * n for _ in range(n)]
    for col in range(n):
        for i in range(n - 1, -1, -1):
            s = b[i][col]
            for k in range(i + 1, n):
                s -= a[i][k] * x[k][col]
            x[i][col] = s / a[i][i]
    return x


# ------------------------------------------------ SUM, PRODUCT, AVERAGE, MAX, MIN, COUNT
# Microsoft, "SUM function", "COUNT function", "AVERAGE function", "MAX function"
# (read 2026-12-01): "If an argument is an array or reference, only numbers in that
# array or reference are counted. Empty cells, logical values, or text in the array or
# reference are ignored"; "Logical values and text representations of numbers that you
# type directly into the list of arguments are counted"; text that is not a number typed
# as an argument is #VALUE! (COUNT: not counted); an error value is the result (COUNT:
# not counted). Excel's cached values: IronCalc's PRODUCT_SUM.xlsx and COUNT.xlsx
# (PRODUCT of no number 0; COUNT(B2:B10) over 1, FALSE, 0, TRUE, "Hola", blank, =1+2,
# "23", =1/0 is 3); AVERAGE of no number is #DIV/0!, MAX/MIN/SUM/PRODUCT of none 0.

_REDUCE = {"SUM": np.sum, "PRODUCT": np.prod, "AVERAGE": np.mean, "MAX": np.max,
           "MIN": np.min}

# The statistics of one list of numbers, read by the same argument rules (Microsoft, "SUMSQ
# function", "DEVSQ function", "AVEDEV function", "MEDIAN function", "MODE function",
# "STDEV.S function", "STDEV.P function", "VAR.S function", "VAR.P function", "GEOMEAN
# function", "HARMEAN function", "KURT function", read 2026-12-01). With too few numbers:
# SUMSQ 0; DEVSQ, AVEDEV, MEDIAN, GEOMEAN and HARMEAN #NUM! ([MS-OI29500] 2.1.931: "Office
# returns #NUM! when argument is an array or a reference that contains only text, logical
# values, or empty cells"); MODE #N/A (also when no value occurs twice); the sample forms
# (fewer than two) and the population forms (none) #DIV/0!, KURT (fewer than four, or a
# standard deviation of 0) #DIV/0!. GEOMEAN and HARMEAN of a number <= 0 are #NUM!.


def _none(code: str, kind: str):
    return ExcelError(code, f"{kind}: too few numbers among the arguments")


def _devsq(v):
    return float(np.sum((v - np.mean(v)) ** 2)) if len(v) else _none("#NUM!", "DEVSQ")


def _avedev(v):
    return float(np.mean(np.abs(v - np.mean(v)))) if len(v) else _none("#NUM!", "AVEDEV")


def _geomean(v):
    if not len(v) or (v <= 0).any():
        return ExcelError("#NUM!", "GEOMEAN: no numbers, or a number <= 0")
    return float(np.exp(np.mean(np.log(v))))


def _harmean(v):
    if not len(v) or (v <= 0).any():
        return ExcelError("#NUM!", "HARMEAN: no numbers, or a number <= 0")
    return float(len(v) / np.sum(1.0 / v))


def _kurt(v):
    """KURT: n(n+1) / ((n-1)(n-2)(n-3)) * sum(((x - mean) / s)^4) - 3 (n-1)^2 / ((n-2)(n-3)),
    ``s`` the sample standard deviation."""
    n = len(v)
    s = math.sqrt(float(np.var(v, ddof=1))) if n > 1 else 0.0
    if n < 4 or s == 0:
        return _none("#DIV/0!", "KURT")
    m4 = float(np.sum(((v - np.mean(v)) / s) ** 4))
    return n * (n + 1) / ((n - 1) * (n - 2) * (n - 3)) * m4 - 3 * (n - 1) ** 2 / (
        (n - 2) * (n - 3))


_LIST_STATS = {
    "SUMSQ": lambda v: float(np.sum(v * v)), "DEVSQ": _devsq, "AVEDEV": _avedev,
    "MEDIAN": _SUBTOTALS[12], "MODE": _mode, "MODE.SNGL": _mode,
    "STDEV": _SUBTOTALS[7], "STDEV.S": _SUBTOTALS[7], "STDEVP": _SUBTOTALS[8],
    "STDEV.P": _SUBTOTALS[8], "VAR": _SUBTOTALS[10], "VAR.S": _SUBTOTALS[10],
    "VARP": _SUBTOTALS[11], "VAR.P": _SUBTOTALS[11], "GEOMEAN": _geomean,
    "HARMEAN": _harmean, "KURT": _kurt,
    "SKEW": lambda v: skew(v.tolist(), False), "SKEW.P": lambda v: skew(v.tolist(), True),
}
#: the A-forms (Microsoft, "AVERAGEA function", "MAXA function", "MINA function", "STDEVA
#: function", "STDEVPA function", "VARA function", "VARPA function", read 2026-12-01): as
#: AVERAGE ... but in a reference or array TRUE counts 1, FALSE 0 and text (empty text
#: too) 0; empty cells are left out. test.xlsx of the `formulas` project (saved by Excel):
#: AVERAGEA(I5,G5:H5) over "29/02/1900", -0.1 and an empty cell is -0.05.
_A_FORMS = frozenset({"AVERAGEA", "MAXA", "MINA", "STDEVA", "STDEVPA", "VARA", "VARPA"})
_LIST_STATS.update({"AVERAGEA": _SUBTOTALS[1], "MAXA": _SUBTOTALS[4], "MINA": _SUBTOTALS[5],
                    "STDEVA": _SUBTOTALS[7], "STDEVPA": _SUBTOTALS[8],
                    "VARA": _SUBTOTALS[10], "VARPA": _SUBTOTALS[11]})


def excel_numbers(kind: str, args) -> float | int | ExcelError:
    """SUM, PRODUCT, AVERAGE, MAX, MIN, COUNT, COUNTA or one of the statistics of a list
    of numbers (:data:`_LIST_STATS`: SUMSQ, MEDIAN, STDEV ...) of ``args`` as Excel reads
    them (``kind``).

    ``args`` is a sequence of ``(typed, x)``: ``typed`` is True for a value typed or
    computed as an argument (``x`` a scalar), False for a reference or an array (``x`` a
    list of row lists, or one cell's value). Host values: ``None`` empty, ``bool``,
    numbers, ``str``, :class:`~rooflinexl.errors.ExcelError`. The numbers are reduced in
    argument order, as one float64 array (numpy), so both evaluation paths give the same
    bits as the block path's vectorised rows. COUNTA counts every value that is not empty
    (error values and empty text included; Microsoft, "COUNTA function").

    >>> excel_numbers("SUM", [(True, "3"), (True, True), (False, [["3", True, 4.0]])])
    8.0
    >>> excel_numbers("COUNT", [(False, [[1, False, 0, True, "Hola", None, 3, "23"]])])
    3
    >>> str(excel_numbers("SUM", [(True, "abc")])), str(excel_numbers("AVERAGE", []))
    ('#VALUE!', '#DIV/0!')
    >>> excel_numbers("PRODUCT", [(False, "7")]), excel_numbers("MAX", [(True, " 2 ")])
    (0.0, 2.0)

    Microsoft's examples ("DEVSQ function", "STDEV.S function", "COUNTA function"):

    >>> excel_numbers("DEVSQ", [(False, [[4], [5], [8], [7], [11], [4], [3]])])
    48.0
    >>> d = [[1345], [1301], [1368], [1322], [1310], [1370], [1318], [1350], [1303], [1299]]
    >>> round(excel_numbers("STDEV.S", [(False, d)]), 8)
    27.46391572
    >>> excel_numbers("COUNTA", [(False, [["39790"], [19], [22.24], [True], ["#DIV/0!"]])])
    5
    """
    if kind == "COUNTA":
        n = 0
        for _typed, x in args:
            rows = x if isinstance(x, list) else [[x]]
            n += sum(y is not None for row in rows for y in (
                row if isinstance(row, list) else [row]))
        return n
    count = kind == "COUNT"
    a_form = kind in _A_FORMS
    nums: list[float] = []
    for typed, x in args:
        if typed and not isinstance(x, list):
            if x is None:
                continue
            if isinstance(x, ExcelError):
                if count:
                    continue
                return x
            if isinstance(x, (bool, int, float)):
                nums.append(float(x))
                continue
            v = _typed_number(str(x))
            if v is not None:
                nums.append(v)
            elif not count and kind not in ("MODE", "MODE.SNGL"):  # test.xlsx: MODE.SNGL
                return ExcelError("#VALUE!", f"{kind}: the argument {x!r} is not a number")
            continue
        for row in (x if isinstance(x, list) else [[x]]):
            for y in (row if isinstance(row, list) else [row]):
                if isinstance(y, ExcelError):
                    if not count:
                        return y
                elif isinstance(y, (int, float)) and not isinstance(y, bool):
                    nums.append(float(y))
                elif a_form and isinstance(y, (bool, str)):
                    nums.append(1.0 if y is True else 0.0)
    if count:
        return len(nums)
    if kind in _LIST_STATS:
        return _LIST_STATS[kind](np.asarray(nums, dtype=float))
    if not nums:
        if kind == "AVERAGE":
            return ExcelError("#DIV/0!", "AVERAGE: no number among the arguments")
        return 0.0
    return float(_REDUCE[kind](np.asarray(nums, dtype=float)))


#: functions of a list of numbers read by :func:`excel_numbers`'s argument rules (both
#: evaluation paths pass them references unresolved, to tell a cell from a typed value)
EXCEL_NUMBERS = frozenset({"SUM", "PRODUCT", "AVERAGE", "MAX", "MIN", "COUNT", "COUNTA",
                           *_LIST_STATS})


def index_array(array, row_num=None, column_num=None):
    """INDEX(array, [row_num], [column_num]) of an array (not a reference), as Excel.

    Microsoft, "INDEX function" (read 2026-12-01): row_num or column_num 0 (or omitted
    where the other is given) returns the entire column or row, both 0 the whole array;
    an array of one row or one column needs only one position; of more than one row and
    column, with only row_num given, the entire row. A position past the array is #REF!,
    a negative one #VALUE!. Excel's cached values in pycel's lookup.xlsx (sheet Index,
    saved by Excel) agree. ``array`` is a host list of rows (or one value); the result a
    value or a list of rows.

    >>> index_array([[1, 2], [3, 4]], 2), index_array([[1, 2], [3, 4]], None, 1)
    ([[3, 4]], [[1], [3]])
    >>> index_array([[1, 2, 3]], 2), index_array([[1, 2], [3, 4]], 0, 0)
    (2, [[1, 2], [3, 4]])
    >>> str(index_array([[1, 2], [3, 4]], 3)), str(index_array([[1, 2], [3, 4]], -1))
    ('#REF!', '#VALUE!')
    """
    grid = _grid(array)
    h, w = len(grid), len(grid[0])

    def position(x, what):
        if x is None:
            return 0
        if isinstance(x, ExcelError):
            raise _Err(str(x), f"INDEX: {what} is an error value")
        v = int(_number(x, f"INDEX: {what}"))  # Excel truncates a fraction
        if v < 0:
            raise _Err("#VALUE!", f"INDEX: {what} {v} is negative")
        return v

    try:
        r = position(_scalar(row_num, "row_num"), "row_num")
        c = position(_scalar(column_num, "column_num"), "column_num")
    except _Err as ex:
        return ex.error
    if column_num is None and h == 1 and w > 1:
        r, c = 1, r  # one row: the one position is the column
    elif column_num is None and w == 1:
        c = 1 if h > 1 or r else 0
    if r > h or c > w:
        return ExcelError("#REF!", f"INDEX: position ({r}, {c}) outside a {h}x{w} array")
    rows = grid if r == 0 else [grid[r - 1]]
    out = [row if c == 0 else [row[c - 1]] for row in rows]
    if len(out) == 1 and len(out[0]) == 1:
        return 0.0 if out[0][0] is None else out[0][0]
    return out



# ------------------------------------------------------------------------ YEARFRAC
# Microsoft, "YEARFRAC function" (read 2026-12-01): basis 0 US (NASD) 30/360, 1
# actual/actual, 2 actual/360, 3 actual/365, 4 European 30/360; dates truncated to
# integers; basis not 0-4 #NUM!, a date outside 0..2958465 #NUM!, a non-numeric one
# #VALUE!. Microsoft does not document how basis 0 treats February's last day nor how
# basis 1 picks the year length: both are Excel's as D. A. Wheeler measured them ("YEARFRAC
# incompatibilities between Excel 2007 and OOXML", 2008), and as every cached value of
# pycel's yearfrac.xlsx (saved by Excel) shows. The basis is checked before the dates
# (yearfrac.xlsx: YEARFRAC(#DIV/0!,200,-1) is #NUM!). Serial 60 is Excel's 29 Feb 1900.


def _excel_ymd(serial: int) -> tuple[int, int, int]:
    """(year, month, day) of a 1900-system serial as Excel shows it (0: 1900-01-00; 60:
    1900-02-29, the day Excel keeps from Lotus)."""
    import datetime

    if serial == 0:
        return 1900, 1, 0
    if serial == 60:
        return 1900, 2, 29
    d = datetime.date(1899, 12, 31 if serial < 60 else 30) + datetime.timedelta(days=serial)
    return d.year, d.month, d.day


def _leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0) or y == 1900  # Excel's 1900


def _month_end(y: int, m: int, d: int) -> bool:
    import calendar

    return d == (29 if (m == 2 and _leap(y)) else calendar.monthrange(y, m)[1])


def _serial(y: int, m: int, d: int) -> int:
    import datetime

    if (y, m) < (1900, 3):  # before 1 March 1900: Excel's count, with its 29 Feb
        return (datetime.date(y, m, 1) - datetime.date(1899, 12, 31)).days + d - 1
    return (datetime.date(y, m, d) - datetime.date(1899, 12, 30)).days


def _yearfrac_days(s: int, e: int, basis: int) -> float:
    y1, m1, d1 = _excel_ymd(s)
    y2, m2, d2 = _excel_ymd(e)
    if basis in (0, 4):
        if basis == 4:
            d1, d2 = min(d1, 30), min(d2, 30)
        elif d1 == 31 and d2 == 31:
            d1 = d2 = 30
        elif d1 == 31:
            d1 = 30
        elif d1 == 30 and d2 == 31:
            d2 = 30
        elif m1 == 2 and m2 == 2 and _month_end(y1, m1, d1) and _month_end(y2, m2, d2):
            d1 = d2 = 30
        elif m1 == 2 and _month_end(y1, m1, d1):
            d1 = 30
        return ((y2 - y1) * 360 + (m2 - m1) * 30 + (d2 - d1)) / 360
    if basis in (2, 3):
        return (e - s) / (360 if basis == 2 else 365)
    # actual/actual
    if y1 == y2 or y2 == y1 + 1 and (m1, d1) >= (m2, d2):
        if y1 == y2 and _leap(y1):
            length = 366
        elif (_leap(y1) and s < _serial(y1, 3, 1) <= e
              or _leap(y2) and s < _serial(y2, 3, 1) <= e or (m2, d2) == (2, 29)):
            length = 366
        else:
            length = 365
        return (e - s) / length
    # the average length of the calendar years spanned, 1900 counted as 365 days
    # (formulas' test.xlsx, DATE & TIME!R27: YEARFRAC(1987,345,1) = 1642 / (2191 / 6))
    lengths = [366 if y % 4 == 0 and (y % 100 != 0 or y % 400 == 0) else 365
               for y in range(y1, y2 + 1)]
    return (e - s) / (sum(lengths) / len(lengths))


def _yearfrac(start_date, end_date, basis=None):
    """YEARFRAC(start_date, end_date, [basis]).

    >>> _yearfrac(1, 200, 0), _yearfrac(36922, 36981, 0)  # 1 Jan-18 Jul 1900; 31 Jan-31 Mar 2001
    (0.5472222222222223, 0.16666666666666666)
    >>> _yearfrac(37674, 37153, 1)  # 22 Feb 2003 - 19 Sep 2001 (yearfrac.xlsx D60)
    1.4273972602739726
    >>> str(_yearfrac("x", 200, -1)), str(_yearfrac(1, 2958466, 0))
    ('#NUM!', '#NUM!')
    """
    def whole(x, what, date: bool):
        x = _scalar(x, what)
        if isinstance(x, bool):
            raise _Err("#VALUE!", f"YEARFRAC: {what} is a boolean")
        if isinstance(x, str):
            v = _typed_number(x)
            if v is None:
                raise _Err("#VALUE!", f"YEARFRAC: {what} {x!r} is not a "
                           + ("date" if date else "number"))
            x = v
        return math.floor(_number(x, f"YEARFRAC: {what}"))

    try:
        b = whole(basis, "basis", False)
        if not 0 <= b <= 4:
            return ExcelError("#NUM!", f"YEARFRAC: basis {b} is not 0 to 4")
        s = whole(start_date, "start_date", True)
        e = whole(end_date, "end_date", True)
    except _Err as ex:
        return ex.error
    if not (0 <= s <= 2958465 and 0 <= e <= 2958465):
        return ExcelError("#NUM!", "YEARFRAC: a date outside 1900-01-00 .. 9999-12-31")
    if s > e:
        s, e = e, s
    return _yearfrac_days(s, e, b)


BUILTINS["YEARFRAC"] = _yearfrac


# ------------------------------------------------ ROW/COLUMN/ROWS/COLUMNS(INDIRECT(text))
# The pre-pass writes ROW(INDIRECT(x)) and its siblings as _XLRX_REFPOS(x, a1, "ROW"): only
# the address INDIRECT names is read, never its cells, so nothing depends on what the text
# computes. Microsoft, "INDIRECT function" (read 2026-12-01): text that is not a valid
# reference is #REF!, as is one past the sheet's 1,048,576 rows or 16,384 columns. Excel's
# cached values in IronCalc's ROW_COLUM.xlsx (A4, D5:E7, $F$9, $RS34, WW$56, D:D, 5:5,
# $FF:FG, $7:8, XFD:XFD, 05:05, s:s; XFE:XFE, "h", 5 and a blank are #REF!). A sheet-
# qualified text or a defined name is not resolved here: an error that says so.

REF_POSITION = "_XLRX_REFPOS"
_A1_TEXT = re.compile(r"^(\$?)([A-Za-z]{1,3})?(\$?)(\d+)?$")


def _a1_part(s: str):
    m = _A1_TEXT.match(s)
    if m is None or (m.group(2) is None and m.group(4) is None):
        return None
    col = None
    if m.group(2):
        col = 0
        for ch in m.group(2).upper():
            col = col * 26 + ord(ch) - 64
    row = int(m.group(4)) if m.group(4) else None
    return row, col


def _ref_position(ref_text, a1=True, which="ROW", whole_cell=0):
    """ROW, COLUMN, ROWS or COLUMNS (``which``) of the reference ``ref_text`` names.

    ROW and COLUMN of several rows/columns are the array of their numbers, except where
    the call is the whole formula of a plain cell (``whole_cell``): there Excel shows the
    first. An array of more than 100,000 numbers is #NUM! (not computed here).

    >>> _ref_position("D5:E7", True, "ROW", 1), _ref_position("$RS34", True, "COLUMN")
    (5, 487)
    >>> _ref_position("D5:E7"), _ref_position("$FF:FG", True, "COLUMN")
    ([[5], [6], [7]], [[162, 163]])
    >>> _ref_position("D5:E7", True, "ROWS"), str(_ref_position("XFE:XFE"))
    (3, '#REF!')
    """
    try:
        text = _scalar(ref_text, "ref_text")
        style = _scalar(a1, "a1")
    except _Err as ex:
        return ex.error
    if not isinstance(text, str) or not text.strip():
        return ExcelError("#REF!", f"INDIRECT: {text!r} is not a reference")
    if style is not None and not (style is True or isinstance(style, (int, float))
                                  and not isinstance(style, bool) and style != 0):
        return ExcelError("#VALUE!", "INDIRECT: R1C1 references are not supported here")
    text = text.strip()
    if "!" in text:  # a sheet of this workbook (sheetinfo.sheet_number), else #REF!
        from rooflinexl.addresses import unquote_sheet
        from rooflinexl.recalc.sheetinfo import sheet_number

        where, _, text = text.rpartition("!")
        try:
            found = "[" not in where and not isinstance(
                sheet_number(unquote_sheet(where)), ExcelError)
        except LookupError:  # not inside a workbook's evaluation
            found = None
        if found is None:
            return ExcelError("#VALUE!", f"INDIRECT: {where}!{text}: a sheet-qualified "
                              "reference is not resolved here")
        if not found:
            return ExcelError("#REF!", f"INDIRECT: the workbook has no sheet {where!r}")
    parts = [_a1_part(p) for p in text.split(":")]
    if len(parts) > 2 or any(p is None for p in parts):
        return ExcelError("#REF!", f"INDIRECT: {text!r} is not a reference (or is a "
                          "defined name, not resolved here)")
    (r1, c1), (r2, c2) = parts[0], parts[-1]
    if len(parts) == 1:
        if r1 is None or c1 is None:
            return ExcelError("#REF!", f"INDIRECT: {text!r} is not a reference")
    elif (r1 is None) != (r2 is None) or (c1 is None) != (c2 is None):
        return ExcelError("#REF!", f"INDIRECT: {text!r} is not a reference")
    rows = (1, 1_048_576) if r1 is None else tuple(sorted((r1, r2)))
    cols = (1, 16_384) if c1 is None else tuple(sorted((c1, c2)))
    if rows[0] < 1 or rows[1] > 1_048_576 or cols[0] < 1 or cols[1] > 16_384:
        return ExcelError("#REF!", f"INDIRECT: {text!r} is off the sheet")
    if which == "ROWS":
        return rows[1] - rows[0] + 1
    if which == "COLUMNS":
        return cols[1] - cols[0] + 1
    first, last = rows if which == "ROW" else cols
    if whole_cell or first == last:
        return first
    if last - first >= 100_000:
        return ExcelError("#NUM!", f"{which}(INDIRECT({text!r})): an array of "
                          f"{last - first + 1} numbers is not computed here")
    if which == "ROW":
        return [[r] for r in range(first, last + 1)]
    return [list(range(first, last + 1))]


BUILTINS[REF_POSITION] = _ref_position


# ------------------------------------------------------------ TEXT with a number format
# Microsoft, "TEXT function" and "Number format codes" (read 2026-12-01): up to four
# sections (positive; negative; zero; text), a negative number shown by its own section
# without a minus sign, a single section puts a minus in front (Excel's cached values:
# none where the shown number rounds to 0); "..." and \x literal, _x a space, *x nothing
# in a text result, [Red] and other colours nothing; 0 # ? digit placeholders, "." the
# decimal point, "," between placeholders groups thousands and after the last one divides
# by 1,000, % multiplies by 100, E+ / E- scientific; "General" as a cell shows a number
# (11 characters). Date and time formats and conditions ([>100]) are not handled here
# (None: the caller uses its own). Checked against every cached value of IronCalc's
# TEXT.xlsx, sheet NUMBERS (saved by Excel).

_DATE_CODES = frozenset("yYmMdDhHsSbBgGeE")


def _sections(fmt: str) -> list[str]:
    out, cur, i = [], "", 0
    while i < len(fmt):
        ch = fmt[i]
        if ch == '"':
            j = fmt.find('"', i + 1)
            j = len(fmt) if j < 0 else j
            cur += fmt[i:j + 1]
            i = j + 1
            continue
        if ch in "\\_*" and i + 1 < len(fmt):
            cur += fmt[i:i + 2]
            i += 2
            continue
        if ch == ";":
            out.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    return [*out, cur]


def _format_literal(section: str, i: int) -> tuple[str | None, int] | None:
    """The literal a number format shows at ``section[i]`` and where the scan goes on, or
    None where ``section[i]`` is not a literal: ``"text"``, ``\\c``, ``_c`` (a space as
    wide as c), ``*c`` (repeat c to fill the cell: no token, in a text result)."""
    ch = section[i]
    if ch == '"':
        j = section.find('"', i + 1)
        j = len(section) if j < 0 else j
        return section[i + 1:j], j + 1
    if i + 1 < len(section):
        if ch == "\\":
            return section[i + 1], i + 2
        if ch == "_":
            return " ", i + 2
        if ch == "*":
            return None, i + 2
    return None


def _tokens(section: str):
    """(kind, text) tokens of one section; None where it holds a date/time code or a
    condition."""
    toks, i = [], 0
    while i < len(section):
        ch = section[i]
        lit = _format_literal(section, i)
        if lit is not None:
            text, i = lit
            if text is not None:
                toks.append(("lit", text))
        elif ch == "[":
            j = section.find("]", i)
            if j < 0:
                return None
            inner = section[i + 1:j]
            if inner.startswith("$"):
                toks.append(("lit", inner[1:].split("-")[0]))
            elif not inner.isalpha() or inner.lower() in ("h", "hh", "m", "mm", "s", "ss"):
                return None  # a condition or elapsed time
            i = j + 1
        elif ch in "0#?":
            toks.append(("digit", ch))
            i += 1
        elif ch in ".,%@":
            toks.append((ch, ch))
            i += 1
        elif ch in "Ee" and section[i + 1:i + 2] in ("+", "-"):
            toks.append(("exp", section[i:i + 2]))  # E+ e- ...: the case is shown
            i += 2
        elif ch in _DATE_CODES or section[i:i + 5].upper() == "AM/PM":
            return None
        else:
            toks.append(("lit", ch))
            i += 1
    return toks


def _general(x: float) -> str:
    """A number as Excel's General format shows it in a text result (11 characters)."""
    from decimal import ROUND_HALF_UP, Decimal

    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    d = Decimal(repr(abs(x)))
    e = d.adjusted()
    if e >= 11 or e < -9 or e == -9 and d.scaleb(9) != d.scaleb(9).to_integral_value():
        # 1E-09 fits in 11 characters: 0.000000001 (POI's GeneralFormatTests.xlsx,
        # saved by Excel); 1.1E-09 would not
        m = (d.scaleb(-e)).quantize(Decimal("0.00001"), ROUND_HALF_UP)
        if m >= 10:
            m, e = m / 10, e + 1
        mant = f"{m:f}".rstrip("0").rstrip(".")
        return f"{sign}{mant}E{'+' if e >= 0 else '-'}{abs(e):02d}"
    places = max(0, 10 - max(e + 1, 1))
    q = d.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    s = f"{q:f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return sign + s


def _place(digits: str, slots: list[str]) -> list[str]:
    """``digits`` over the placeholders ``slots`` (0 # ?), right to left; the leftmost
    takes what is left."""
    out = [""] * len(slots)
    rest = digits
    for k in range(len(slots) - 1, -1, -1):
        pad = {"0": "0", "#": "", "?": " "}[slots[k]]
        if k == 0:
            out[k] = rest if rest else pad
        else:
            out[k] = rest[-1:] if rest else pad
            rest = rest[:-1]
    return out


def _place_grouped(digits: str, slots: list[str]) -> list[str]:
    """The integer ``digits`` over the placeholders ``slots`` (0 # ?) right to left, as
    :func:`_place`, with thousands separators: each character at the 4th, 7th ...
    position from the right carries one after it, padding too (0 a zero, ? a space whose
    separator is a space, # nothing); the literals between the placeholders stay where
    they are (POI's NumberFormatTests.xlsx, saved by Excel: 1234567 as '?,?????????' is
    '    1,234,567', as '0,0000000' '01,234,567'; the `formulas` project's test.xlsx,
    EXTRA!A24: 1234578.555 as '0cc###,00' is '1,2cc34,579').

    >>> "".join(_place_grouped("1234567", list("?????????")))
    '  1,234,567'
    >>> _place_grouped("1234567", list("0###00"))
    ['1,2', '3', '4,', '5', '6', '7']
    """
    n = len(slots)
    out = []
    for idx, slot in enumerate(slots):
        pos = n - idx  # from the right, 1 the last
        pad = {"0": "0", "#": "", "?": " "}[slot]
        if idx == 0 and len(digits) > pos:
            chars = [(p, digits[len(digits) - p]) for p in range(len(digits), pos - 1, -1)]
        else:
            chars = [(pos, digits[-pos] if pos <= len(digits) else pad)]
        text = ""
        for p, ch in chars:
            text += ch
            if p > 1 and (p - 1) % 3 == 0 and ch:
                text += " " if ch == " " else ","
        out.append(text)
    return out


def _number_section(x: float, toks: list) -> str | None:
    from decimal import ROUND_HALF_UP, Decimal

    digit_at = [k for k, (kind, _) in enumerate(toks) if kind == "digit"]
    if not digit_at:  # literals only: themselves; anything else is not handled here
        if all(k == "lit" for k, _ in toks):
            return "".join(t for _, t in toks), x == 0
        return None
    exp_at = next((k for k, (kind, _) in enumerate(toks) if kind == "exp"), None)
    if exp_at is not None and any(kind == "." for kind, _ in toks[exp_at:]):
        return None  # a point after the exponent: Excel's #VALUE! (test.xlsx, EXTRA!A27)
    dot_at = next((k for k, (kind, _) in enumerate(toks)
                   if kind == "." and (exp_at is None or k < exp_at)), None)
    end_mant = exp_at if exp_at is not None else len(toks)
    # a comma right after a placeholder (or such a comma) is no character: between two
    # placeholders of the integer part it groups thousands, after the last one of a part
    # ("0,", "0.#,") it scales by 1000, elsewhere it is dropped; any other comma is a
    # literal (the `formulas` project's test.xlsx, saved by Excel, sheet EXTRA: 1234567890
    # as '0,## ##, ##' is '1,234,56 7,8 90', as '0,## ## ,##' '1,234,56 7,8 ,90'; pycel's
    # text.xlsx, TextNumbers!C34: 890123.456789 as '0,x#.00.0' is '89012x3.45.7')
    int_end = dot_at if dot_at is not None else end_mant
    group, scale, flags = False, 0, set()
    for k, (kind, _) in enumerate(toks):
        if kind != "," or k == 0 or toks[k - 1][0] not in ("digit", ","):
            continue
        flags.add(k)
        part_end = int_end if k < int_end else end_mant
        later = any(k < j < part_end for j in digit_at)
        if k < int_end and k + 1 < len(toks) and toks[k + 1][0] == "digit":
            group = True
        elif not later and (exp_at is None or k < exp_at):
            scale += 1  # after the last placeholder of a part ("0.#,"), not the exponent
    # % multiplies by 100 except in scientific notation (POI's NumberFormatApproxTests.xlsx,
    # saved by Excel: 123456.789 as '#%e-#' is '1%e5')
    pct = sum(1 for kind, _ in toks if kind == "%") if exp_at is None else 0
    d = Decimal(repr(abs(x))) if x else Decimal(0)
    if d:
        d = round(d, 14 - d.adjusted())  # 15 significant digits, as Excel keeps
    d = d.scaleb(2 * pct - 3 * scale)
    int_slots = [toks[j][1] for j in digit_at if j < (dot_at if dot_at is not None else end_mant)]
    frac_slots = [toks[j][1] for j in digit_at
                  if dot_at is not None and dot_at < j < end_mant]
    exp_slots = [toks[j][1] for j in digit_at if exp_at is not None and j > exp_at]
    e = 0
    if exp_at is not None:
        if not int_slots or not exp_slots:
            return None
        if d:  # the exponent a multiple of the integer placeholders (engineering: ##0.0E+0)
            e = d.adjusted() // len(int_slots) * len(int_slots)
            d = d.scaleb(-e)
    q = d.quantize(Decimal(1).scaleb(-len(frac_slots)), ROUND_HALF_UP)
    if exp_at is not None and q >= 10 ** len(int_slots):
        e, q = e + len(int_slots), (q.scaleb(-len(int_slots))).quantize(
            Decimal(1).scaleb(-len(frac_slots)), ROUND_HALF_UP)
    s = f"{q:f}"
    int_digits, _, frac_digits = s.partition(".")
    int_digits = int_digits.lstrip("0")
    frac = list(frac_digits.ljust(len(frac_slots), "0"))
    last = max((k for k, c in enumerate(frac) if c != "0"), default=-1)
    for k in range(last + 1, len(frac_slots)):  # zeros after the last digit: # nothing,
        if frac_slots[k] != "0":  # ? a space, 0 a zero (test.xlsx, EXTRA!A2:
            frac[k] = "" if frac_slots[k] == "#" else " "  # '00###.##.0000.00')
    placed = dict(zip([j for j in digit_at if j < (dot_at if dot_at is not None
                                                      else end_mant)],
                      _place_grouped(int_digits, int_slots) if group else
                      _place(int_digits, int_slots), strict=True))
    placed.update(zip([j for j in digit_at if dot_at is not None and dot_at < j < end_mant],
                      frac, strict=True))
    if exp_at is not None:
        ed = str(abs(e))
        exp_at_digits = [j for j in digit_at if j > exp_at]
        placed.update(zip(exp_at_digits, _place(ed, exp_slots), strict=True))
        sign = "-" if e < 0 else ("+" if toks[exp_at][1][1] == "+" else "")
        placed[exp_at_digits[0]] = sign + placed[exp_at_digits[0]]
        if not q and int_slots and not any(c.isdigit() for j in digit_at if j < exp_at
                                           for c in placed[j]):
            first_frac = dot_at if dot_at is not None else exp_at
            last_int = max(j for j in digit_at if j < first_frac)
            placed[last_int] = "0"  # zero in scientific notation: 0E+0
    out = []
    for k, (kind, t) in enumerate(toks):
        if kind == "digit":
            out.append(placed[k])
        elif kind == ".":  # the first is the decimal point, later ones literal dots
            out.append(int_digits + "." if k == dot_at and not int_slots else ".")
        elif kind == "exp":  # its sign goes before the exponent's digits ('e+|#': 'e|+5')
            out.append(t[0])
        elif kind == "," and k in flags:
            continue
        elif kind in ("lit", "%", ","):
            out.append(t)
        elif kind == "@":
            return None
    zero = not any(c in "123456789" for c in s) and not (exp_at is not None and e)
    return "".join(out), zero


# ------------------------------------------------------------ TEXT with a fraction format
# Microsoft, "Number format codes": "# ?/?" shows 1.25 as "1 1/4"; the digits of the
# denominator bound it ("??" at most 99) or a number fixes it ("/8"). Where the parts go,
# checked on every fraction of POI's NumberFormatTests.xlsx (saved by Excel, literals
# between all parts: '|#\:? ?=/=#|'): the numerator is the run of placeholders before
# the slash, the integer part every placeholder before that run (with the literals among
# them), the separator the literals between the two. A zero fraction is left out, with
# the separator (spaces as wide where a ? is among the placeholders), unless the
# numerator has a 0 placeholder (then 0/1); a zero integer part shows nothing (? a
# space), its separator left out (a space beside a ?); a zero value shows its 0 in the
# integer part's last place. Without an integer part the fraction is improper (15/4).


def _best_fraction(f: float, most: int) -> tuple[int, int]:
    """The fraction closest to ``f`` whose denominator is at most ``most`` (the smaller
    denominator on a tie)."""
    best = (round(f), 1)
    err = abs(f - best[0])
    for d in range(2, most + 1):
        n = round(f * d)
        e = abs(f - n / d)
        if e < err - 1e-15:
            best, err = (n, d), e
    return best


def _fraction_section(v: float, toks: list) -> tuple[str, bool] | None:
    """``v`` (not negative) through a fraction section's tokens, and whether all it shows
    is zero; None where the section is no fraction this handles."""
    slash = next((k for k, (kind, t) in enumerate(toks) if kind == "lit" and t == "/"), None)
    if slash is None or any(kind in (".", "%", "exp", "@", ",") for kind, _ in toks):
        return None
    digits = [k for k, (kind, _) in enumerate(toks) if kind == "digit"]
    num = [k for k in digits if k < slash]
    if not num:
        return None
    # the numerator: the run of placeholders that ends last before the slash
    end = num[-1]
    start = end
    while start - 1 >= 0 and toks[start - 1][0] == "digit":
        start -= 1
    num_at = list(range(start, end + 1))
    int_at = [k for k in num if k < start]
    # the denominator: the first placeholders (or written digits) after the slash
    after = [k for k in range(slash + 1, len(toks))
             if toks[k][0] == "digit" or toks[k][0] == "lit" and toks[k][1].isdigit()]
    if not after:
        return None
    den_at = [after[0]]
    while den_at[-1] + 1 < len(toks) and (toks[den_at[-1] + 1][0] == "digit" or (
            toks[den_at[-1] + 1][0] == "lit" and toks[den_at[-1] + 1][1].isdigit())):
        den_at.append(den_at[-1] + 1)
    den_text = "".join(toks[k][1] for k in den_at)
    fixed = den_text[0] in "123456789" and all(c.isdigit() for c in den_text)
    if not fixed and any(toks[k][0] != "digit" for k in den_at):
        return None
    if any(toks[k][0] == "digit" for k in range(den_at[-1] + 1, len(toks))):
        return None  # placeholders after the denominator: not a layout checked here
    has_int = bool(int_at)
    ip = math.floor(v) if has_int else 0
    f = v - ip
    if fixed:
        d = int(den_text)
        n = int(math.floor(f * d + 0.5))
    else:
        n, d = _best_fraction(f, 10 ** len(den_at) - 1)
    if has_int and n >= d:
        ip, n = ip + 1, 0
    slots = [toks[k][1] for k in int_at + num_at + ([] if fixed else den_at)]
    question = "?" in slots
    num_zero_slot = any(toks[k][1] == "0" for k in num_at)
    visible = n != 0 or num_zero_slot or not has_int
    whole_zero = ip == 0 and n == 0
    out = [t for _, t in toks]  # each token's text, replaced below
    # the integer part
    if has_int:
        int_slots = [toks[k][1] for k in int_at]
        if ip:
            placed = _place(str(ip), int_slots)
        else:
            pad = {"0": "0", "?": "0" if whole_zero else " ", "#": ""}
            placed = [pad[c] for c in int_slots]
            if whole_zero and not visible and not any(c == "0" for c in placed):
                placed[-1] = "0"
        for k, text in zip(int_at, placed, strict=True):
            out[k] = text
        int_shown = any(c.isdigit() for k in range(int_at[0], int_at[-1] + 1)
                        for c in out[k])
    else:
        int_shown = False
    sep = range(int_at[-1] + 1 if has_int else start, start)
    frac_part = range(sep.start, den_at[-1] + 1)
    if not visible:
        for k in frac_part:
            out[k] = " " * (1 if toks[k][0] == "digit" else len(toks[k][1])) if question else ""
    else:
        if has_int and not int_shown:
            q = any(toks[k][1] == "?" for k in int_at + num_at)
            for k in sep:
                out[k] = " " * len(toks[k][1]) if q else ""
        for k, text in zip(num_at, _place(str(n), [toks[k][1] for k in num_at]),
                           strict=True):
            out[k] = text
        if not fixed:
            den_slots = [toks[k][1] for k in den_at]
            dd = str(d if n else 1)
            if "0" in den_slots:
                placed = _place(dd, den_slots)
            else:  # left-aligned: ? pads after the digits
                placed = list(dd[:len(den_slots) - 1]) + [dd[len(den_slots) - 1:]] if len(
                    dd) >= len(den_slots) else list(dd) + [
                    " " if c == "?" else "" for c in den_slots[len(dd):]]
            for k, text in zip(den_at, placed, strict=True):
                out[k] = text
    return "".join(out), whole_zero


#: a condition at the start of a section (after its colours): [<10], [>= -5.5]
_CONDITION = re.compile(r"^((?:\[[A-Za-z]+\d*\])*)\[(<=|>=|<>|<|>|=)\s*(-?\d+(?:\.\d*)?)\](.*)$",
                        re.S)


def _meets(x: float, op: str, limit: float) -> bool:
    return {"<": x < limit, ">": x > limit, "=": x == limit, "<=": x <= limit,
            ">=": x >= limit, "<>": x != limit}[op]


def text_format(value, fmt: str):
    """TEXT(value, format_text) for a number and a number format, as Excel; None where
    the format is a date/time one or has a condition (not handled here).

    >>> text_format(12345.6789, "#,##0_);(#,##0)"), text_format(-12, "$#,##0_);($#,##0)")
    ('12,346 ', '($12)')
    >>> text_format(123456789012, "00-00-00-00"), text_format(-1/3, "[Red]#.#")
    ('123456-78-90-12', '-.3')
    >>> text_format(123456789012, '#,##,, "Millions"'), text_format(-2.5e-09, "0.00E+0")
    ('123,457 Millions', '-2.50E-9')
    >>> text_format(1/3, "General"), text_format(-2.5e-09, "General")
    ('0.333333333', '-2.5E-09')
    >>> text_format(-11, '[<-10]#" Wow"'), text_format(10, '[< 10]#" Wow"')
    ('-11 Wow', '10')
    """
    if isinstance(value, bool):
        return _text_value_format(value_text(value), fmt)
    if isinstance(value, str) and not isinstance(value, ExcelError):
        return _text_value_format(value, fmt)
    if not isinstance(value, (int, float)):
        return None
    secs = _sections(fmt)
    if len(secs) > 4:
        return None
    if len(secs) > 1 and "@" in secs[-1]:
        secs = secs[:-1]  # the text section
    x = float(value)
    if fmt == "":
        return "-" if x < 0 else ""
    cond = _CONDITION.match(secs[0]) if len(secs) == 1 else None
    if cond is not None:  # [>10]...: the section where the number meets it, else General
        colour, op, limit, rest = cond.groups()
        return text_format(x, colour + rest) if _meets(x, op, float(limit)) else _general(x)
    if any(_CONDITION.match(sec) for sec in secs[:2]):
        # conditions in the first two sections: the first section whose condition the
        # number meets (one without a condition takes any number), else the third, else
        # General (Microsoft, "Number format codes"; the `formulas` project's test.xlsx,
        # saved by Excel, EXTRA!A34:A36: 2 as '[<=1]a;[=2]xx;xcx' is 'xx')
        for sec in secs[:2]:
            cond = _CONDITION.match(sec)
            if cond is None:
                return text_format(x, sec)
            colour, op, limit, rest = cond.groups()
            if _meets(x, op, float(limit)):
                return text_format(x, colour + rest)
        return text_format(x, secs[2]) if len(secs) > 2 else _general(x)
    if len(secs) == 1 or x > 0 or (x == 0 and len(secs) == 2):
        sec, signed = secs[0], len(secs) == 1
    elif x < 0:
        sec, signed = secs[1], False
    else:
        sec, signed = secs[2], False
    if sec.strip().lower() == "general":
        return _general(x) if signed else _general(abs(x))
    if _is_date_format(sec):
        return _date_text(x if signed else abs(x), sec)
    toks = _tokens(sec)
    frac = _fraction_section(abs(x), toks) if toks is not None and '""' not in sec else None
    if frac is not None:
        text, zero = frac
        return ("-" + text) if signed and x < 0 and not zero else text
    if toks is None or '""' in sec:
        return None
    if any(kind == "@" for kind, _ in toks):
        return None
    res = _number_section(x, toks)
    if res is None:
        return None
    text, zero = res
    return ("-" + text) if signed and x < 0 and not zero else text


def _text_value_format(s: str, fmt: str) -> str:
    """TEXT of a text (or a boolean, as its text) value: the format's fourth section, or its
    only section where that holds ``@``, with ``@`` the text and literals as written;
    a format without a text section gives the text unchanged (POI's TextFormatTests.xlsx
    and GeneralFormatTests.xlsx, saved by Excel: ``TEXT("jello", ";;;\\@@\\@")`` is
    ``@jello@``, ``TEXT(TRUE, ";;;-@")`` ``-TRUE``, ``TEXT("hello", "General")`` ``hello``).

    >>> _text_value_format("jello", ';;;"h""I"'), _text_value_format("ab", "-@-@-")
    ('hI', '-ab-ab-')
    >>> _text_value_format("ab", "0.00")
    'ab'
    """
    secs = _sections(fmt)
    if len(secs) >= 4:
        sec = secs[3]
    elif len(secs) == 1 and "@" in re.sub(r'"[^"]*"|\\.', "", secs[0]):
        sec = secs[0]
    else:
        return s
    out, i = [], 0
    while i < len(sec):
        lit = _format_literal(sec, i)
        if lit is not None:
            text, i = lit
            out.append(text or "")
        elif sec[i] == "[":  # a colour
            j = sec.find("]", i)
            i = len(sec) if j < 0 else j + 1
        else:
            out.append(s if sec[i] == "@" else sec[i])
            i += 1
    return "".join(out)


# ------------------------------------------------------------ TEXT with a date format
# Microsoft, "Format a date the way you want" / "Number format codes" (read 2026-12-01):
# d dd ddd dddd, m mm mmm mmmm mmmmm (m/mm after h or before s: minutes), y yy (2
# digits) yyy+ (4), h hh, s ss, .0 .00 .000 fractions of a second, AM/PM A/P (12-hour),
# [h] [m] [s] elapsed. A serial below 0 or past 9999-12-31 is #VALUE!, so is a digit
# placeholder in a date format (IronCalc's TEXT.xlsx, sheet DATES: "mm###"). Serial 60
# is 1900-02-29 and serial 1 a Sunday, as Excel counts. In a workbook that counts dates
# from 1904 (:func:`use_date_system`) serial 0 is 1904-01-01 and a negative time is shown
# with a minus sign (POI's DateFormatNumberTests.xlsx and ElapsedFormatTests.xlsx, saved
# by Excel with date1904: TEXT(1,"yyyy-mm-dd hh:mm:ss.000") is "1904-01-02 00:00:00.000",
# TEXT(-0.0854629...,"[h]:m:s.000") "-2:3:4.000").

_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December")


def _date_tokens(section: str):
    toks, i = [], 0
    while i < len(section):
        ch, low = section[i], section[i].lower()
        lit = _format_literal(section, i)
        if lit is not None:
            text, i = lit
            if text is not None:
                toks.append(("lit", text))
        elif ch == "[":
            j = section.find("]", i)
            inner = section[i + 1:j].lower() if j > 0 else ""
            if inner and set(inner) <= set("hms") and len(set(inner)) == 1:
                toks.append(("elapsed", inner[0], len(inner)))
            elif inner.startswith("$"):
                toks.append(("lit", section[i + 2:j].split("-")[0]))
            elif not inner.isalpha():
                return None
            i = j + 1
        elif section[i:i + 5].lower() == "am/pm":
            toks.append(("ampm", section[i:i + 5]))
            i += 5
        elif section[i:i + 3].lower() == "a/p":
            toks.append(("ampm", section[i:i + 3]))
            i += 3
        elif low in "ymdhs":
            j = i
            while j < len(section) and section[j].lower() == low:
                j += 1
            toks.append(("code", low, j - i))
            i = j
        elif ch == "." and section[i + 1:i + 2] == "0":
            j = i + 1
            while j < len(section) and section[j] == "0":
                j += 1
            toks.append(("frac", j - i - 1))
            i = j
        elif ch in "0#?":
            toks.append(("digit", ch))
            i += 1
        elif low == "e" and section[i + 1:i + 2] not in ("+", "-"):
            # the year of the era, the Gregorian year where Excel is not set to an East
            # Asian calendar (SheetJS's formula_stress_test.xlsx, saved by Excel: TEXT of
            # 1977-07-07 as "ee-mm-dd" is "1977-07-07")
            j = i
            while j < len(section) and section[j].lower() == "e":
                j += 1
            toks.append(("code", "y", 4))
            i = j
        elif low in "begn" or ch == "@":
            return None
        else:
            toks.append(("lit", ch))
            i += 1
    return toks


def _is_date_format(section: str) -> bool:
    toks = _date_tokens(section)
    return toks is not None and any(t[0] in ("code", "elapsed", "ampm") for t in toks)


def _date_text(x: float, section: str):
    toks = _date_tokens(section)
    if toks is None:
        return None
    if any(t[0] == "digit" for t in toks):
        return ExcelError("#VALUE!", "TEXT: a digit placeholder in a date format")
    d1904 = _DATE1904.get()
    calendar = any(t[0] in ("code", "ampm") for t in toks)
    if x < 0 and (d1904 or not calendar):  # elapsed time, or any time in the 1904 system
        inner = _date_text(-x, section)
        return inner if isinstance(inner, ExcelError) else "-" + inner
    offset = 1462 if d1904 else 0  # 1904-01-01 is the 1900 system's 1462
    if calendar and (x < 0 or x + offset >= 2958466):
        return ExcelError("#VALUE!", f"TEXT: {x} is not a date between 1900 and 9999")
    frac = max((t[1] for t in toks if t[0] == "frac"), default=0)
    scale = 10 ** frac
    units = round(x * 86400 * scale)
    days, rest = divmod(units, 86400 * scale)
    secs, sub = divmod(rest, scale)
    hour, minute, second = secs // 3600, secs // 60 % 60, secs % 60
    days += offset
    y, mo, d = _excel_ymd(days) if days < 2958466 else (9999, 12, 31)  # elapsed only
    twelve = any(t[0] == "ampm" for t in toks)
    codes = [k for k, t in enumerate(toks) if t[0] in ("code", "elapsed")]
    totals = {"h": units // (3600 * scale), "minute": units // (60 * scale),
              "s": units // scale}
    # a plain code of a unit also shown elapsed shows the total too (POI's
    # ElapsedFormatTests.xlsx, saved by Excel: '[s]" [yes, "ss"] seconds"' of 3.14159 is
    # '271433 [yes, 271433] seconds')
    elapsed = {"minute" if t[1] == "m" else t[1] for t in toks if t[0] == "elapsed"}
    out = []
    for k, t in enumerate(toks):
        if t[0] == "lit":
            out.append(t[1])
        elif t[0] == "frac":
            out.append("." + str(sub).zfill(frac)[:t[1]])
        elif t[0] == "ampm":  # AM/PM in capitals whatever the code's case; A/P as written
            am = hour < 12
            out.append(("AM" if am else "PM") if len(t[1]) == 5
                       else (t[1][0] if am else t[1][2]))
        elif t[0] == "elapsed":
            total = totals["minute" if t[1] == "m" else t[1]]
            out.append(str(total).zfill(t[2]))
        else:
            _, c, n = t
            pos = codes.index(k)
            prev = toks[codes[pos - 1]] if pos else None
            nxt = toks[codes[pos + 1]] if pos + 1 < len(codes) else None
            # m next to a time code is minutes: after h (or s: 's:m' is seconds:minutes in
            # POI's ElapsedFormatTests.xlsx), before s
            if c == "m" and n <= 2 and (prev is not None and prev[1] in ("h", "s")
                                        or nxt is not None and nxt[1] == "s"):
                c = "minute"
            if c in elapsed:
                out.append(str(totals[c]).zfill(min(n, 2)))
            elif c == "y":
                out.append(f"{y % 100:02d}" if n <= 2 else f"{y:04d}")
            elif c == "m":
                out.append(str(mo).zfill(n) if n <= 2 else _MONTH_NAMES[mo - 1][:3]
                           if n == 3 else _MONTH_NAMES[mo - 1][0] if n == 5
                           else _MONTH_NAMES[mo - 1])
            elif c == "d":
                out.append(str(d).zfill(n) if n <= 2 else _DAYS[(days - 1) % 7][:3]
                           if n == 3 else _DAYS[(days - 1) % 7])
            elif c == "h":
                h = (hour % 12 or 12) if twelve else hour
                out.append(str(h).zfill(min(n, 2)))
            elif c == "minute":
                out.append(str(minute).zfill(n))
            else:
                out.append(str(second).zfill(min(n, 2)))
    return "".join(out)


# ------------------------------------------------------------------------------ CELL
# The pre-pass writes CELL(info_type, reference) as _XLRX_CELL(info_type, <top-left cell>,
# "<its address>", row, column): the reference's position is known from its text, only
# its top-left cell's value is read (so CELL("col", A8:C8) in B8 is no cycle). Microsoft,
# "CELL function" (read 2026-12-01); Excel's cached values in IronCalc's CELL.xlsx:
# "address" $A$2 (top-left of a range), "col", "row", "contents" (the value; blank 0),
# "type" b (blank) / l (text) / v (anything else); an unknown info_type #VALUE!. The
# info types that depend on formatting, the file or the selection are not computed here.

CELL_INFO = "_XLRX_CELL"


def _cell_info(info_type, value=None, address=None, row=None, col=None, *rest):
    """CELL(info_type, [reference]) from the pre-pass's rewrite.

    >>> _cell_info("address", 3.4, "$A$2", 2, 1), _cell_info("COL", None, "$C$8", 8, 3)
    ('$A$2', 3)
    >>> _cell_info("type", None, "$A$9", 9, 1), _cell_info("type", "x", "$A$9", 9, 1)
    ('b', 'l')
    >>> str(_cell_info("hello")), str(_cell_info(True))
    ('#VALUE!', '#VALUE!')
    """
    try:
        info = _scalar(info_type, "info_type")
    except _Err as ex:
        return ex.error
    known = ("address", "col", "color", "contents", "filename", "format", "parentheses",
             "prefix", "protect", "row", "type", "width")
    if not isinstance(info, str) or info.strip().lower() not in known:
        return ExcelError("#VALUE!", f"CELL: {info!r} is not an info_type")
    info = info.strip().lower()
    if address is None and row is None:
        return ExcelError("#VALUE!", f'CELL("{info}") without a reference depends on the '
                          "selection: not computed here")
    if info == "address":
        return address if address else ExcelError(
            "#VALUE!", "CELL(\"address\") of another sheet is not computed here")
    if info == "row":
        return int(row)
    if info == "col":
        return int(col)
    if isinstance(value, list):  # a 1x1 grid
        value = _grid(value)[0][0]
    if info == "contents":
        return 0.0 if value is None else value
    if info == "type":
        return "b" if value is None else "l" if isinstance(value, str) and not isinstance(
            value, ExcelError) else "v"
    return ExcelError("#VALUE!", f'CELL("{info}") depends on formatting or the file: not '
                      "computed here")


BUILTINS[CELL_INFO] = _cell_info




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


# Microsoft, "CEILING function" and "FLOOR function" (read 2026-12-02), the forms Excel 2007
# and before had: the number rounded up (CEILING) or down (FLOOR) to a multiple of
# significance, both arguments required. A positive number with a negative significance
# is #NUM!; a negative number with a negative significance rounds away from zero
# (CEILING) or toward zero (FLOOR), with a positive one the other way. As the `formulas`
# project's test.xlsx (saved by Excel, COMPATIBILITY rows 6 and 16) shows: a significance
# of 0 is 0 for CEILING and #DIV/0! for FLOOR, an empty number 0 whatever the
# significance (FLOOR(0, 0) too: NPOI's FormulaEvalTestData_Copy.xlsx, saved by Excel,
# EverythingTests!I544), a boolean in a cell its number, text #VALUE!. The quotient is taken to
# 15 significant digits before it is rounded, as CEILING.MATH's (CEILING(0.234, 0.01) is
# 0.24).


_LEFT_OUT = object()


def _compatible_multiple(name: str, up: bool):
    def fn(number, significance=_LEFT_OUT):
        if significance is _LEFT_OUT:  # (an empty cell is None: 0)
            return ExcelError("#VALUE!", f"{name} takes a number and a significance")

        def values(x: np.ndarray, s: np.ndarray) -> list:
            out: list = []
            for xi, si in zip(x.tolist(), s.tolist(), strict=True):
                if xi == 0:
                    out.append(0.0)
                elif si == 0:
                    out.append(0.0 if up else ExcelError("#DIV/0!", f"{name}: significance 0"))
                elif xi > 0 and si < 0:
                    out.append(ExcelError("#NUM!", f"{name}: a positive number with a "
                                                   "negative significance"))
                else:
                    q = float(_round15(np.array([xi / si]))[0])
                    out.append((math.ceil(q) if up else math.floor(q)) * si + 0.0)
            return out

        return _elementwise(name, values, number, significance)

    fn.__name__ = name
    fn.__doc__ = (f"{name}(number, significance) as Excel (see the notes above).\n\n"
                  f"Microsoft's examples: CEILING(2.5, 1) is 3, CEILING(-2.5, -2) -4,\n"
                  f"CEILING(-2.5, 2) -2; FLOOR(3.7, 2) is 2, FLOOR(-2.5, -2) -2, FLOOR(2.5, -2)\n"
                  f"#NUM!.")
    return fn


#: CEILING and FLOOR (the block and array evaluators' own: :mod:`rooflinexl.recalc.elementary`)
COMPATIBLE_MULTIPLES = {"CEILING": _compatible_multiple("CEILING", True),
                        "FLOOR": _compatible_multiple("FLOOR", False)}


# ------------------------------------------------------------------ ACCRINT
#
# Microsoft, "ACCRINT function" (read 2026-12-01): ACCRINT(issue, first_interest,
# settlement, rate, par, frequency, [basis], [calc_method]) = par x rate/frequency x
# sum over the quasi-coupon periods of A_i / NL_i (accrued days over the period's normal
# length). Dates are truncated to whole days, frequency and basis to integers; rate <= 0,
# par <= 0, frequency not 1, 2 or 4, basis outside 0-4 or issue >= settlement is #NUM!.
# Excel's schedule (as the ExcelFinancialFunctions project describes it, and as every
# cached value of IronCalc's ACCRINT books saved by Excel for Mac reproduces, e.g.
# ACCRINT_extended.xlsx Sheet1!K8 = -253.8763736263736): the quasi-coupon dates step back
# from first_interest by 12/frequency months (on month ends when first_interest is one);
# settlement's share is measured from the coupon date before it (for calc_method FALSE,
# or a settlement before first_interest: the date one period before first_interest,
# which makes a settlement before that date negative) over the length of the period
# ending at first_interest; each whole period back to issue adds 1 (calc_method TRUE) or
# 0 (FALSE), and the period holding issue its accrued share.


def _month_last(y: int, m: int) -> int:
    return 29 if m == 2 and _leap(y) else (28 if m == 2 else (30 if m in (4, 6, 9, 11) else 31))


def _add_months(d, n: int, month_end: bool):
    """``d`` moved by ``n`` months, its day cut to the month's length (Jan 31 + 1 is Feb 28),
    or the month's last day where ``month_end``."""
    import datetime

    t = d.year * 12 + d.month - 1 + n
    y, m = divmod(t, 12)
    last = _month_last(y, m + 1)
    return datetime.date(y, m + 1, last if month_end else min(d.day, last))


def _days_360(a, b, both: bool) -> int:
    """30/360 US (NASD) days from ``a`` to ``b``; ``both``: Excel's variant that also moves
    an end of February at ``b``."""
    sd, ed = a.day, b.day
    a_feb = a.month == 2 and a.day == _month_last(a.year, 2)
    b_feb = b.month == 2 and b.day == _month_last(b.year, 2)
    if b_feb and (a_feb or both):
        ed = 30
    if ed == 31 and (sd >= 30 or both):
        ed = 30
    if sd == 31 or a_feb:
        sd = 30
    return (b.year - a.year) * 360 + (b.month - a.month) * 30 + ed - sd


def _accrint_days(a, b, basis: int, numerator: bool) -> float:
    """Days from ``a`` to ``b`` as ``basis`` counts accrued days (``numerator``) or the
    length of a period holding issue (bases 1, 2 and 4; 0 and 3 have their own)."""
    if basis == 0 or basis == 2 and not numerator:
        return _days_360(a, b, False)
    if basis == 4:  # 30E/360
        return ((b.year - a.year) * 360 + (b.month - a.month) * 30
                + min(b.day, 30) - min(a.day, 30))
    return (b - a).days


def _accrint(issue, first_interest, settlement, rate, par, frequency, basis=None,
             calc_method=None):
    """ACCRINT(issue, first_interest, settlement, rate, par, frequency, [basis],
    [calc_method]): the interest accrued on a security (see the notes above).

    >>> round(_accrint(39508, 39691, 39569, 0.1, 1000, 2, 0), 10)  # Microsoft's example
    16.6666666667
    >>> round(_accrint(42736, 43070, 42826, 0.33, 3000, 4, 1, False), 10)
    -253.8763736264
    """
    import datetime

    try:
        dates = []
        for x, what in ((issue, "issue"), (first_interest, "first_interest"),
                        (settlement, "settlement")):
            v = math.floor(_accrint_number(x, what))
            if not 61 <= v <= 2958465:
                raise _Err("#NUM!", f"ACCRINT: {what} {v} is not a date")
            dates.append(datetime.date(1899, 12, 30) + datetime.timedelta(days=v))
        rate = _accrint_number(rate, "rate")
        par = _accrint_number(par, "par")
        freq = math.trunc(_accrint_number(frequency, "frequency"))
        b = 0 if basis is None else math.trunc(_accrint_number(basis, "basis"))
        by_issue = True if calc_method is None else bool(_accrint_number(calc_method,
                                                                          "calc_method"))
    except _Err as ex:
        return ex.error
    iss, first, settle = dates
    if rate <= 0 or par <= 0 or freq not in (1, 2, 4) or not 0 <= b <= 4 or iss >= settle:
        return ExcelError("#NUM!", "ACCRINT: rate and par above 0, frequency 1, 2 or 4, "
                                   "basis 0-4 and issue before settlement")
    months = 12 // freq
    month_end = first.day == _month_last(first.year, first.month)
    regular = _add_months(first, -months, month_end)  # the period ending at first_interest
    pcd = regular
    if settle > first and by_issue:  # the coupon date at or before settlement
        pcd = first
        while (nxt := _add_months(pcd, months, month_end)) < settle:
            pcd = nxt
    length = (360 / freq if b in (0, 2, 4) else 365 / freq if b == 3
              else (first - regular).days)
    acc = _accrint_days(max(iss, pcd), settle, b, True) / length
    end = pcd
    while end > iss:
        start = _add_months(end, -months, month_end)
        if iss <= start:
            acc += 1.0 if by_issue else 0.0
        else:  # the period holding issue
            num = _accrint_days(iss, end, b, True)
            den = (_days_360(start, end, True) if b == 0 else 365 / freq if b == 3
                   else _accrint_days(start, end, b, False))
            acc += num / den
        end = start
    return par * rate / freq * acc


def _accrint_number(x, what: str) -> float:
    """An ACCRINT argument as a number: numeric or date text its value, TRUE 1."""
    x = _scalar(x, f"ACCRINT: {what}")
    if isinstance(x, bool):
        return float(x)
    if isinstance(x, str):
        v = _typed_number(x)
        if v is None:
            raise _Err("#VALUE!", f"ACCRINT: {what} {x!r} is not a number or a date")
        return v
    return _number(x, f"ACCRINT: {what}")


BUILTINS["ACCRINT"] = _accrint


# ------------------------------------------------------------------ COMBIN, DOLLAR, HYPERLINK
# Microsoft, "COMBIN function", "COMBINA function", "DOLLAR function", "HYPERLINK function"
# (read 2026-12-01), checked on POI's FormulaEvalTestData_Copy.xlsx (saved by Excel):
# COMBIN(19,7) 50388, COMBIN(-23,12) #NUM!, DOLLAR(-1) "($1.00)", DOLLAR("abc") #VALUE!.


def _whole(x, what: str) -> int:
    return math.trunc(_number(_scalar(x, what), what))


def _combin(number, number_chosen):
    """COMBIN(number, number_chosen): the number of combinations (arguments truncated;
    a negative one, or number < number_chosen, is #NUM!).

    >>> _combin(8, 2), _combin(19.9, 7), str(_combin(2, 3))
    (28.0, 50388.0, '#NUM!')
    """
    try:
        n, k = _whole(number, "COMBIN: number"), _whole(number_chosen, "COMBIN: number_chosen")
    except _Err as ex:
        return ex.error
    if n < 0 or k < 0 or n < k:
        return ExcelError("#NUM!", f"COMBIN({n}, {k}): needs 0 <= number_chosen <= number")
    return float(math.comb(n, k))


def _combina(number, number_chosen):
    """COMBINA(number, number_chosen): combinations with repetitions, COMBIN(n+k-1, k)
    (Microsoft's example: COMBINA(4,3) is 20).

    >>> _combina(4, 3), _combina(10, 3), str(_combina(-1, 2))
    (20.0, 220.0, '#NUM!')
    """
    try:
        n = _whole(number, "COMBINA: number")
        k = _whole(number_chosen, "COMBINA: number_chosen")
    except _Err as ex:
        return ex.error
    if n < 0 or k < 0:
        return ExcelError("#NUM!", f"COMBINA({n}, {k}): a negative argument")
    return float(math.comb(n + k - 1, k)) if n or k else 1.0


def _dollar(number, decimals=None):
    """DOLLAR(number, [decimals]): ``number`` rounded to ``decimals`` places (2; a negative
    count rounds left of the point) as text in the currency format $#,##0.00_);($#,##0.00).

    >>> _dollar(1234.567), _dollar(-1234.567, -2), _dollar(-0.123, 4), _dollar(0)
    ('$1,234.57', '($1,200)', '($0.1230)', '$0.00')
    """
    from decimal import ROUND_HALF_UP, Decimal

    try:
        x = _number(_scalar(number, "DOLLAR: number"), "DOLLAR: number")
        d = 2 if decimals is None else _whole(decimals, "DOLLAR: decimals")
    except _Err as ex:
        return ex.error
    if d > 127:
        return ExcelError("#VALUE!", "DOLLAR: decimals above 127")
    q = Decimal(repr(abs(x))).quantize(Decimal(1).scaleb(-max(d, 0)), ROUND_HALF_UP)
    if d < 0:
        q = q.scaleb(d).quantize(Decimal(1), ROUND_HALF_UP).scaleb(-d)
    text = f"${q:,.{max(d, 0)}f}"
    return f"({text})" if x < 0 and q != 0 else text


def _hyperlink(link_location, friendly_name=None):
    """HYPERLINK(link_location, [friendly_name]): the cell shows ``friendly_name``, or the
    link's text without one.

    >>> _hyperlink("http://poi.apache.org"), _hyperlink("http://x", 5)
    ('http://poi.apache.org', 5)
    """
    try:
        link = _scalar(link_location, "HYPERLINK: link_location")
        shown = None if friendly_name is None else _scalar(friendly_name,
                                                            "HYPERLINK: friendly_name")
    except _Err as ex:
        return ex.error
    if shown is None:
        return value_text(link) if link is not None else ""
    return shown


BUILTINS.update(COMBIN=_combin, COMBINA=_combina, DOLLAR=_dollar, USDOLLAR=_dollar,
                HYPERLINK=_hyperlink)


# ------------------------------------------------------------------ LINEST
# Microsoft, "LINEST function" (read 2026-12-01): LINEST(known_y's, [known_x's], [const],
# [stats]) fits y = m1 x1 + ... + mk xk + b by least squares and returns {mk, ..., m1, b};
# with stats four more rows: the standard errors (seb #N/A without a constant), r2 and
# sey, F and df, ssreg and ssresid (#N/A beyond the second column). y in one column: each
# column of known_x's is a variable (one row: each row); known_x's omitted is {1,2,3...};
# const FALSE forces b = 0 (r2 and ssreg then about the origin). "LINEST checks for
# collinearity and removes any redundant X columns ... they have 0 coefficients and 0 se
# values", and the degrees of freedom count the columns kept: the constant is kept first
# (pycel's stats.xlsx, saved by Excel: LINEST of 1, 3, 6, 9, 12 on a constant x is
# {0, 6.2}). Values that are not numbers are #VALUE!, mismatched sizes #REF!.


def _linest_grid(rows: list[list], what: str) -> np.ndarray:
    out = np.empty((len(rows), len(rows[0]) if rows else 0))
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            if isinstance(v, ExcelError):  # #VALUE!, whatever the error (test.xlsx,
                # STATISTICAL!AB58:AF58, saved by Excel)
                raise _Err("#VALUE!", f"LINEST: an error value ({v}) in {what}")
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise _Err("#VALUE!", f"LINEST: {v!r} in {what} is not a number")
            out[i, j] = float(v)
    return out


def _linest(known_y, known_x=None, const=None, stats=None):
    """LINEST(known_y's, [known_x's], [const], [stats]) (see the notes above).

    >>> [round(v, 12) for v in _linest([[1], [9], [5], [7]], [[0], [4], [2], [3]])[0]]
    [2.0, 1.0]
    >>> [round(v, 12) for v in _linest([[1, 3, 6, 9, 12]], [[1, 1, 1, 1, 1]])[0]]
    [0.0, 6.2]
    """
    try:
        y_rows = _grid(known_y)
        with_b, with_stats = (_linest_flag(const, "const", True),
                              _linest_flag(stats, "stats", False))
        n_rows, n_cols = len(y_rows), len(y_rows[0])
        x_rows = None if known_x is None else _grid(known_x)
        shape = None if x_rows is None else (len(x_rows), len(x_rows[0]))
        if shape is not None and not (n_cols == 1 and shape[0] == n_rows or n_rows == 1 and (
                shape[1] == n_cols) or shape == (n_rows, n_cols)):
            raise _Err("#REF!", "LINEST: known_x's does not fit known_y's")
        y = _linest_grid(y_rows, "known_y's")
        if x_rows is None:
            xs = np.arange(1.0, y.size + 1).reshape(-1, 1)
        else:
            x = _linest_grid(x_rows, "known_x's")
            xs = (x if n_cols == 1 and shape[0] == n_rows else x.T if n_rows == 1
                  else x.reshape(-1, 1))
    except _Err as ex:
        return ex.error
    yv = y.reshape(-1)
    n, k = xs.shape
    if with_b:  # about the means: a constant y has exactly 0 slopes, as Excel shows
        x_mean, y_mean = xs.mean(axis=0), yv.mean()
        xs, yv = xs - x_mean, yv - y_mean
    cols = ([np.ones(n)] if with_b else []) + [xs[:, j] for j in range(k)]
    kept, basis = [], []
    for c, v in enumerate(cols):  # Gram-Schmidt: a column the kept ones span is removed
        r = v.copy()
        for q in basis:
            r -= (q @ r) * q
        norm = float(np.linalg.norm(r))
        if norm > 1e-10 * max(float(np.linalg.norm(v)), 1e-300):
            basis.append(r / norm)
            kept.append(c)
    a = np.column_stack([cols[c] for c in kept]) if kept else np.zeros((n, 0))
    coef = np.zeros(len(cols))
    if kept:
        coef[kept] = np.linalg.lstsq(a, yv, rcond=None)[0]
    m = coef[1:] if with_b else coef
    b = float(y_mean - m @ x_mean) if with_b else 0.0
    if with_b:
        coef[0] = 0.0  # the centred constant's own coefficient; b is computed above
    first = [float(v) for v in m[::-1]] + [float(b)]
    if not with_stats:
        return [first]
    fit = a @ coef[kept] if kept else np.zeros(n)
    df = n - len(kept)
    ssresid = float(((yv - fit) ** 2).sum())
    ssreg = float((fit ** 2).sum())  # about the mean (centred) or the origin
    na = ExcelError("#N/A", "LINEST: no statistic here")
    num = ExcelError("#NUM!", "LINEST: no degrees of freedom or no residual")
    width = len(first)
    pad = [na] * (width - 2)
    if len(kept) < len(cols) == n:
        # columns removed, and the columns as given (with the constant) as many as the
        # points: Excel counts no degree of freedom and no residual, the whole sum of
        # squares as explained (pycel's stats.xlsx, saved by Excel, LinestArrayExp!F21:H25:
        # LINEST({1;2;3}, {2,3;2,3;2,3},, TRUE) is {0,0,2; 0,0,0; 1,0; #NUM!,0; 2,0})
        return [first, [0.0] * width, [1.0 if ssreg + ssresid else num, 0.0, *pad],
                [num, 0.0, *pad], [ssreg + ssresid, 0.0, *pad]]
    sey2 = ssresid / df if df > 0 else None
    se = np.zeros(len(cols))
    se_b = na
    if kept and sey2 is not None:
        inv = np.linalg.inv(a.T @ a)
        se[kept] = np.sqrt(np.diag(inv) * sey2)
        if with_b:  # the intercept's variance: sey2 (1/n + mean' S^-1 mean), S of the x kept
            xk = [c - 1 for c in kept[1:]]
            mean_k = x_mean[xk]
            se_b = float(math.sqrt(sey2 * (1 / n + mean_k @ inv[1:, 1:] @ mean_k)))
    elif with_b:
        se_b = num
    se_m = se[1:] if with_b else se
    second = [float(v) for v in se_m[::-1]] + [se_b]
    total = ssreg + ssresid
    r2 = ssreg / total if total else num
    v1 = len(kept) - (1 if with_b else 0)
    f_stat = (ssreg / v1) / sey2 if sey2 and v1 else num
    return [first, second,
            [r2, math.sqrt(sey2) if sey2 is not None else num, *pad],
            [f_stat, float(df), *pad],
            [ssreg, ssresid, *pad]]


def _linest_flag(x, what: str, default: bool) -> bool:
    """LINEST's const or stats: omitted its default, a boolean or a number (an error value
    is #VALUE!, test.xlsx STATISTICAL!Z58)."""
    if x is None:
        return default
    if isinstance(x, list):
        x = x[0][0] if len(x) == 1 and len(x[0]) == 1 else ExcelError("#VALUE!", "")
    if isinstance(x, ExcelError):
        raise _Err("#VALUE!", f"LINEST: {what} is an error value ({x})")
    return x if isinstance(x, bool) else _number(x, f"LINEST: {what}") != 0


BUILTINS["LINEST"] = _linest


# ------------------------------------------------------------------ scalar functions
#: helpers the scalar functions (:mod:`rooflinexl.recalc.scalars`) share with the ones here
typed_number, excel_ymd, excel_serial, ddb = _typed_number, _excel_ymd, _serial, _ddb
import rooflinexl.recalc.engineering  # noqa: E402, F401 - adds its functions to BUILTINS
from rooflinexl.recalc import elementary, scalars  # noqa: E402, F401 - add them to BUILTINS
from rooflinexl.recalc import lookups as _lookups  # noqa: E402, F401, I001 - adds them to BUILTINS
from rooflinexl.recalc import randarray as _randarray  # noqa: E402, I001
from rooflinexl.recalc import sheetinfo as _sheetinfo  # noqa: E402, I001
from rooflinexl.recalc import stats as _stats  # noqa: E402, F401, I001 - adds them to BUILTINS

BUILTINS.update({  # SHEET of a value and INFO element by element over arrays
    _sheetinfo.SHEET_NUMBER: scalars.lift("SHEET", _sheetinfo.sheet_number, 1, 1),
    "INFO": scalars.lift("INFO", _sheetinfo.info, 1, 1), "RANDARRAY": _randarray.randarray})
