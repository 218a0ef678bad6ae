"""Excel's scalar functions (one value per call), written from Microsoft's documentation.

Each function here is one value in, one value out: information (``ISNA``, ``TYPE`` ...),
logic (``XOR``, ``SWITCH``, ``IFS``), text (``CONCATENATE``, ``MID``, ``FIND`` ...), dates
(``DATE``, ``WEEKDAY``, ``EOMONTH`` ...), trigonometry and other maths (``SIN``, ``FACT``
...) and the time value of money (``FV``, ``PV``, ``PMT``, ``NPV`` ...). They are entries
of the engine's function table (:data:`rooflinexl.recalc.functions.BUILTINS`), called
through the same adapter by both evaluation paths, with values as spreadsheet hosts pass
them (``None`` for an empty cell, ``bool``, numbers, ``str``,
:class:`~rooflinexl.errors.ExcelError`; a range as a list of row lists).

Arguments as Excel reads them (Microsoft, "Excel functions (by category)" and each
function's page, read 2026-12-01):

* where a number belongs, an empty cell is 0, TRUE 1 and FALSE 0, numeric or date text its
  number (``"12"``, ``"1/2/2024"``, ``"50%"``), any other text ``#VALUE!``;
* where text belongs, a number is written with 15 significant digits, a boolean
  ``TRUE``/``FALSE``, an empty cell ``""``;
* an error value in an argument is the result (the first one, left to right), except in
  the functions that look at errors (``ISNA``, ``ISERROR``, ``ERROR.TYPE`` ...);
* a range or array where one value belongs gives an array of results, one per element
  (an array formula's ``{=LEFT(A1:A3,2)}``): equal shapes element by element, a single
  value, row or column repeated over the other arguments' shape, ``#N/A`` past the end
  of a shorter one.

Every function also takes a whole block column (the block evaluator's one call per
filled-down column, :meth:`rooflinexl.recalc.kernels.BlockEval.udf`): numpy ``(m, 1)``
object arrays of host values, one result row per row.
"""
from __future__ import annotations

import calendar
import contextlib
import decimal
import math
import re

from rooflinexl.errors import ExcelError
from rooflinexl.recalc.functions import (
    BUILTINS,
    ETA_PREFIX,
    complex_text,
    ddb,
    excel_serial,
    excel_ymd,
    ppmt,
    typed_number,
    value_text,
)

__all__ = ["excel_bool", "excel_number", "excel_text", "finite_number", "inumber", "lift",
           "SCALARS", "whole_number"]

#: the largest serial number Excel shows as a date: 9999-12-31
_LAST_DAY = 2958465
#: the longest text a cell holds
_MAX_TEXT = 32767


class Fail(Exception):
    """An argument Excel refuses: the error value it gives, with why."""

    def __init__(self, code: str, reason: str, error: ExcelError | None = None,
                 conversion: bool = False):
        super().__init__(reason)
        self.error = ExcelError(code, reason) if error is None else error
        #: raised reading an argument (an error value, text that is no number): Excel
        #: meets these in argument order, before it checks any argument's range
        self.conversion = conversion or error is not None

    @classmethod
    def passing(cls, error: ExcelError) -> Fail:
        """An argument's own error value, passed on as it is."""
        return cls(str(error), getattr(error, "reason", "") or "an error value", error)


# ----------------------------------------------------------------------- coercion


def excel_number(x, what: str = "argument") -> float:
    """``x`` where Excel wants a number: empty 0, a boolean 0 or 1, numeric or date text its
    number; other text is #VALUE! (raised as :class:`Fail`).

    >>> excel_number(None), excel_number(True), excel_number(" 2.5 "), excel_number("1/2/2024")
    (0.0, 1.0, 2.5, 45293.0)
    >>> excel_number("x")
    Traceback (most recent call last):
    ...
    rooflinexl.recalc.scalars.Fail: argument 'x' is not a number
    """
    if x is None:
        return 0.0
    if isinstance(x, (bool, int, float)):
        return float(x)
    if isinstance(x, ExcelError):
        raise Fail.passing(x)
    if isinstance(x, str):
        v = _text_value(x)
        if v is not None:
            return v
    raise Fail("#VALUE!", f"{what} {x!r} is not a number", conversion=True)


def _text_value(text: str) -> float | None:
    """Text Excel reads as a number: a number, percentage, date or time
    (:func:`~rooflinexl.recalc.functions.typed_number`), also with a leading ``$`` or in
    accounting parentheses (``"(1,000)"`` is -1000); else None."""
    t = text.strip()
    sign = 1.0
    if len(t) > 2 and t[0] == "(" and t[-1] == ")":
        t, sign = t[1:-1].strip(), -1.0
    if t[:1] in ("+", "-") and t[1:2] == "$":
        sign, t = (-sign if t[0] == "-" else sign), t[2:]
    elif t[:1] == "$":
        t = t[1:]
    v = typed_number(t) if t else None
    return None if v is None else sign * v


def excel_text(x) -> str:
    """``x`` where Excel wants text: numbers with 15 significant digits, booleans
    ``TRUE``/``FALSE``, an empty cell ``""``.

    >>> excel_text(1 / 3), excel_text(2.0), excel_text(False), excel_text(None)
    ('0.333333333333333', '2', 'FALSE', '')
    """
    if isinstance(x, ExcelError):
        raise Fail.passing(x)
    return "" if x is None else value_text(x)


def excel_bool(x, what: str = "argument") -> bool:
    """``x`` where Excel wants a logical value: a number is TRUE unless 0, an empty cell
    FALSE, text ``"TRUE"``/``"FALSE"`` (any case) its value, other text #VALUE!.

    >>> excel_bool(2.0), excel_bool(None), excel_bool("true")
    (True, False, True)
    """
    if x is None:
        return False
    if isinstance(x, (bool, int, float)):
        return bool(x)
    if isinstance(x, ExcelError):
        raise Fail.passing(x)
    t = str(x).strip().upper()
    if t in ("TRUE", "FALSE"):
        return t == "TRUE"
    raise Fail("#VALUE!", f"{what} {x!r} is not a logical value", conversion=True)


def finite_number(x, what: str = "argument") -> float:
    """``x`` as a number (:func:`excel_number`) that is finite, else ``#NUM!`` naming
    ``what``.

    >>> finite_number("2.5")
    2.5
    >>> try:
    ...     finite_number(float("inf"), "rate")
    ... except Fail as ex:
    ...     print(ex.error, ex)
    #NUM! rate is not finite
    """
    v = excel_number(x, what)
    if not math.isfinite(v):
        raise Fail("#NUM!", f"{what} is not finite")
    return v


def whole_number(x, what: str = "argument") -> int:
    """A number truncated toward zero (Excel: "If ... is not an integer, it is truncated").

    >>> whole_number(-2.7), whole_number("3.9")
    (-2, 3)
    """
    return math.trunc(finite_number(x, what))


def _result(v):
    """A float result that is finite, else #NUM! (a complex power of a negative base too)."""
    if isinstance(v, complex) or isinstance(v, float) and not math.isfinite(v):
        return ExcelError("#NUM!", "the result is not a finite real number")
    return v


# ---------------------------------------------------------------- element-wise calls


def _shape(x):
    """(rows, columns) of a host range argument, None for a single value."""
    if isinstance(x, list):
        if x and isinstance(x[0], list):
            return len(x), max(len(r) for r in x)
        return 1, len(x)
    return None


def _at(x, shape, i: int, j: int):
    if shape is None:
        return x
    rows = x if x and isinstance(x[0], list) else [x]
    h, w = shape
    if h == 1 and w == 1:
        return rows[0][0]
    ii = 0 if h == 1 else i
    jj = 0 if w == 1 else j
    if ii < len(rows) and jj < len(rows[ii]):
        return rows[ii][jj]
    return ExcelError("#N/A", "arrays of different sizes")


def lift(name: str, fn, low: int, high: int, errors: bool = False, atp: bool = False,
         filler=None):
    """``fn`` (one value per argument -> one value) as an Excel function ``name`` taking
    ``low`` to ``high`` arguments, applied element by element to ranges and arrays and to
    block columns (see the module notes).

    Without ``errors`` an error value among the arguments is the result: the first one
    ``fn`` meets converting its arguments in order (``FV("x", #N/A)`` is #VALUE!), else
    the first one, before any range check of ``fn`` (``DATE(-1, 1, #NAME?)`` is
    #NAME?). With ``errors`` ``fn`` sees error values. ``filler`` is the value of the
    extra cells where an array formula's range is larger than the result (#N/A unless
    given: ``{=ISNA(A1:A3)}`` over four cells ends in TRUE). ``fn`` may raise
    :class:`Fail`; a result that is no finite number is #NUM!. With ``atp`` (functions
    that came from the Analysis ToolPak: EDATE, EOMONTH, WEEKNUM, ISEVEN, ISODD, ERF ...)
    a boolean or a range of several cells is #VALUE!, as Excel gives them (the `formulas`
    project's test.xlsx, saved by Excel: ``EDATE(TRUE,0)``, ``ISEVEN(C9:Q9)`` and
    ``{=EDATE(E9:I9,C9:G9)}`` are #VALUE!; IronCalc's EOMONTH.xlsx: ``EOMONTH(A11,TRUE)``).

    >>> left = lift("LEFT", lambda t, n=1: excel_text(t)[:whole_number(n)], 1, 2)
    >>> left("abc", 2), left([["abc", "de"]], 1), str(left(ExcelError("#N/A"), 1))
    ('ab', [['a', 'd']], '#N/A')
    """

    def one(*vals):
        if atp:
            for v in vals:
                if isinstance(v, ExcelError):
                    return v
                if isinstance(v, bool):
                    return ExcelError("#VALUE!", f"{name}: a boolean is not a number")
        try:
            out = _result(fn(*vals))
        except Fail as ex:
            if ex.conversion:
                return ex.error
            out = ex.error  # a range check: an error value among the arguments comes first
        except (OverflowError, ValueError, ZeroDivisionError) as ex:
            out = ExcelError("#NUM!", f"{name}: {ex}")
        if not errors:
            for v in vals:  # an argument fn did not read
                if isinstance(v, ExcelError):
                    return v
        return out

    def call(*args):
        if not low <= len(args) <= high:
            return ExcelError("#VALUE!", f"{name} takes {low} to {high} arguments, "
                                         f"not {len(args)}")
        columns = [a for a in args if hasattr(a, "shape")]
        if columns:  # a block column: one result row per row
            if any(isinstance(a, list) and _shape(a) != (1, 1) for a in args):
                raise TypeError("a range beside a block column")  # row by row
            m = len(columns[0])
            cols = [a[:, 0].tolist() if hasattr(a, "shape") else
                    [_at(a, _shape(a), 0, 0)] * m for a in args]
            return [[one(*row)] for row in zip(*cols, strict=True)]
        shapes = [_shape(a) for a in args]
        if all(s is None or s == (1, 1) for s in shapes):
            return one(*[_at(a, s, 0, 0) for a, s in zip(args, shapes, strict=True)])
        if atp:
            return ExcelError("#VALUE!", f"{name}: a range where one value belongs")
        h = max(s[0] for s in shapes if s is not None)
        w = max(s[1] for s in shapes if s is not None)
        return [[one(*[_at(a, s, i, j) for a, s in zip(args, shapes, strict=True)])
                 for j in range(w)] for i in range(h)]

    call.__name__ = call.__qualname__ = name
    call.__doc__ = fn.__doc__
    call.elementwise = True  # the block evaluator may pass any value in a column
    if filler is not None:
        call.array_filler = filler
    return call


def _values(args, what: str):
    """Every value of the arguments, ranges and arrays row by row (CONCAT, XOR, NPV ...)."""
    for a in args:
        if hasattr(a, "shape"):
            raise TypeError("a block column")  # row by row
        if isinstance(a, list):
            rows = a if a and isinstance(a[0], list) else [a]
            for row in rows:
                for x in row:
                    yield x, True
        else:
            yield a, False


SCALARS: dict = {}


def _register(name: str, low: int, high: int, errors: bool = False):
    def deco(fn):
        SCALARS[name] = lift(name, fn, low, high, errors)
        return fn
    return deco


#: an argument left out (not an empty cell, which is 0 or "")
_OMITTED = object()


# ------------------------------------------------------------------- information
# Microsoft, "IS functions", "ERROR.TYPE function", "TYPE function", "T function" (read
# 2026-12-01): the IS functions do not convert their value ("=ISNUMBER("19")" is FALSE).

_REGISTER_IS = {
    "ISNA": lambda v: isinstance(v, ExcelError) and str(v) == "#N/A",
    "ISERROR": lambda v: isinstance(v, ExcelError),
    "ISERR": lambda v: isinstance(v, ExcelError) and str(v) != "#N/A",
    "ISNUMBER": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "ISTEXT": lambda v: isinstance(v, str) and not isinstance(v, ExcelError),
    "ISNONTEXT": lambda v: not isinstance(v, str) or isinstance(v, ExcelError),
    "ISLOGICAL": lambda v: isinstance(v, bool),
    "ISBLANK": lambda v: v is None,
}
for _name, _test in _REGISTER_IS.items():
    SCALARS[_name] = lift(_name, _test, 1, 1, errors=True,
                          filler=_test(ExcelError("#N/A", "past the end of an array")))
del _name, _test


def _parity(odd: bool):
    def fn(number):
        """ISEVEN / ISODD: the number truncated; a boolean or non-numeric text #VALUE!
        (Microsoft, "ISEVEN function": "If number is nonnumeric, ... #VALUE!")."""
        if isinstance(number, bool):
            raise Fail("#VALUE!", "a boolean is not a number")
        return whole_number(number, "number") % 2 == (1 if odd else 0)
    return fn


SCALARS["ISEVEN"] = lift("ISEVEN", _parity(False), 1, 1, atp=True)
SCALARS["ISODD"] = lift("ISODD", _parity(True), 1, 1, atp=True)

_ERROR_NUMBERS = {"#NULL!": 1, "#DIV/0!": 2, "#VALUE!": 3, "#REF!": 4, "#NAME?": 5,
                  "#NUM!": 6, "#N/A": 7, "#GETTING_DATA": 8, "#SPILL!": 9, "#CALC!": 14}


@_register("ERROR.TYPE", 1, 1, errors=True)
def _error_type(value):
    """ERROR.TYPE(error_val): 1 #NULL!, 2 #DIV/0!, 3 #VALUE!, 4 #REF!, 5 #NAME?, 6 #NUM!,
    7 #N/A, 8 #GETTING_DATA; anything that is no error #N/A."""
    code = getattr(value, "written", str(value))  # engine.to_host: #GETTING_DATA ...
    if isinstance(value, ExcelError) and code in _ERROR_NUMBERS:
        return float(_ERROR_NUMBERS[code])
    raise Fail("#N/A", "ERROR.TYPE of a value that is no error")


def _type(value):
    """TYPE(value): number 1, text 2, logical 4, error 16, array (several cells) 64, a
    function (``_xleta.SUM``, as the pre-pass passes it) 128; an empty cell is a number (1).

    >>> _type(1.0), _type("a"), _type(True), _type(ExcelError("#N/A")), _type([[1, 2]])
    (1.0, 2.0, 4.0, 16.0, 64.0)
    """
    if hasattr(value, "shape"):
        raise TypeError("a block column")  # row by row
    if isinstance(value, list):
        shape = _shape(value)
        if shape != (1, 1):
            return 64.0
        value = _at(value, shape, 0, 0)
    if isinstance(value, ExcelError):
        return 16.0
    if isinstance(value, bool):
        return 4.0
    if isinstance(value, str):
        return 128.0 if value.startswith(ETA_PREFIX) else 2.0
    return 1.0


def _t(value):
    """T(value): text itself, an error itself, anything else ``""``; of a range its first
    cell (as N: Excel's cached values of the `formulas` project's test.xlsx).

    >>> _t("a"), _t(1.0), _t(True), _t(None), _t([["x", 1]])
    ('a', '', '', '', 'x')
    """
    if hasattr(value, "shape"):
        raise TypeError("a block column")  # row by row
    if isinstance(value, list):
        value = _at(value, _shape(value), 0, 0)
    if isinstance(value, (ExcelError, str)):
        return value
    return ""


SCALARS.update(TYPE=_type, T=_t)


# ------------------------------------------------------------------------- logic


def _xor(*logicals):
    """XOR(logical1, [logical2], ...): TRUE when an odd number of the values are TRUE.
    Text and empty cells are ignored (Microsoft, "XOR function", for ranges; Excel's
    cached values show it for a cell's text too); no logical value at all is #VALUE!.

    >>> _xor(True, False), _xor(True, True), _xor([[1, 0, None, "x"]]), str(_xor([["x"]]))
    (True, False, True, '#VALUE!')
    >>> _xor("ciao", False), str(_xor(True, "0", ExcelError("#REF!")))
    (False, '#REF!')
    """
    values = list(_values(logicals, "XOR"))
    for x, _ in values:  # an error anywhere is the result (test.xlsx: XOR(TRUE,"0",#REF!))
        if isinstance(x, ExcelError):
            return x
    count, seen = 0, False
    for x, _ in values:
        if x is None or isinstance(x, str):
            continue  # a cell's text (test.xlsx: XOR(I27,FALSE) of "ciao" is FALSE; IronCalc's
            # AND_OR book: XOR of a cell holding "TRUE" is #VALUE!)
        count += bool(x)
        seen = True
    if not seen:
        return ExcelError("#VALUE!", "XOR: no logical value")
    return count % 2 == 1


def _same(a, b) -> bool:
    """Whether SWITCH finds ``b`` equal to ``a`` (neither an error): an empty cell is the
    number 0, numbers, booleans and text equal only their own kind, text without case
    (pycel's logical.xlsx, saved by Excel: 0 and an empty cell match, FALSE and an empty
    cell do not, nor an empty cell and empty text)."""
    a = 0.0 if a is None else a
    b = 0.0 if b is None else b
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a.casefold() == b.casefold()
    return float(a) == float(b)


def _switch(expression, *cases):
    """SWITCH(expression, value1, result1, [value2, result2], ..., [default]): the result
    of the first value equal to the expression, else the default, else #N/A (Microsoft,
    "SWITCH function"). An error in the expression, or in a value compared before the
    match, is the result.

    >>> _switch(2, 1, "a", 2, "b"), _switch(3, 1, "a", "z"), str(_switch(3, 1, "a"))
    ('b', 'z', '#N/A')
    """
    if isinstance(expression, ExcelError):
        return expression
    if not cases:
        raise Fail("#VALUE!", "SWITCH needs a value and a result")
    pairs = len(cases) // 2
    for k in range(pairs):
        value = cases[2 * k]
        if isinstance(value, ExcelError):
            return value
        if _same(expression, value):
            return cases[2 * k + 1]
    if len(cases) % 2:
        return cases[-1]
    return ExcelError("#N/A", "SWITCH: no value matches and there is no default")


def _ifs(*pairs):
    """IFS(test1, value1, [test2, value2], ...): the value of the first TRUE test; no TRUE
    test is #N/A; a test that is text is #VALUE! (Microsoft, "IFS function").

    >>> f = SCALARS["IFS"]
    >>> f(False, 1, True, 2), f(0, 1, 3, "x"), str(f(False, 1)), str(f("a", 1))
    (2, 'x', '#N/A', '#VALUE!')
    """
    if len(pairs) % 2:
        raise Fail("#VALUE!", "IFS takes pairs of a test and a value")
    for k in range(0, len(pairs), 2):
        test = pairs[k]
        if isinstance(test, ExcelError):
            return test
        if isinstance(test, str):
            raise Fail("#VALUE!", f"IFS: the test {test!r} is text")
        if test:
            return pairs[k + 1]
    return ExcelError("#N/A", "IFS: no test is TRUE")


SCALARS["XOR"] = _xor
SCALARS["SWITCH"] = lift("SWITCH", _switch, 3, 254, errors=True)
SCALARS["IFS"] = lift("IFS", _ifs, 2, 254, errors=True)


# -------------------------------------------------------------------------- text
# Microsoft, "CONCATENATE function", "CONCAT function", "TEXTJOIN function", "LEFT, LEFTB
# functions", "MID, MIDB functions", "FIND, FINDB functions", "SUBSTITUTE function",
# "REPLACE, REPLACEB functions", "REPT function", "TRIM function", "PROPER function",
# "EXACT function", "VALUE function" (read 2026-12-01). The ...B forms count bytes only
# where a double-byte language is the default; otherwise, as here, characters.


def _checked(text: str, name: str) -> str:
    if len(text) > _MAX_TEXT:
        raise Fail("#VALUE!", f"{name}: the result is longer than {_MAX_TEXT} characters")
    return text


def _count(x, what: str) -> int:
    """A character count or position: truncated; below 0 #VALUE!."""
    n = whole_number(x, what)
    if n < 0:
        raise Fail("#VALUE!", f"{what} is negative")
    return n


def _concatenate(*texts):
    return _checked("".join(excel_text(t) for t in texts), "CONCATENATE")


def _concat(*texts):
    """CONCAT(text1, ...): every value, ranges row by row, joined; an error is the result.

    >>> _concat("a", [[1.0, None], [True, "b"]])
    'a1TRUEb'
    """
    parts = []
    for x, _ in _values(texts, "CONCAT"):
        if isinstance(x, ExcelError):
            return x
        parts.append(excel_text(x))
    try:
        return _checked("".join(parts), "CONCAT")
    except Fail as ex:
        return ex.error


def _textjoin(delimiter, ignore_empty, *texts):
    """TEXTJOIN(delimiter, ignore_empty, text1, ...): the values joined with the delimiter
    (a range of delimiters is used in turn); with ignore_empty TRUE empty text and empty
    cells are left out.

    >>> _textjoin(", ", True, [["a", None, "", 2.0]]), _textjoin([["-", "+"]], False, "a", "b", "c")
    ('a, 2', 'a-b+c')
    """
    if not texts:
        return ExcelError("#VALUE!", "TEXTJOIN needs a text")
    try:
        delims = [excel_text(d) for d, _ in _values([delimiter], "TEXTJOIN")]
        if isinstance(ignore_empty, list):
            ignore_empty = _at(ignore_empty, _shape(ignore_empty), 0, 0)
        skip = excel_bool(ignore_empty, "TEXTJOIN: ignore_empty")
        parts = []
        for x, _ in _values(texts, "TEXTJOIN"):
            if isinstance(x, ExcelError):
                return x
            t = excel_text(x)
            if skip and t == "":
                continue
            parts.append(t)
        out = []
        for k, t in enumerate(parts):
            if k:
                out.append(delims[(k - 1) % len(delims)] if delims else "")
            out.append(t)
        return _checked("".join(out), "TEXTJOIN")
    except Fail as ex:
        return ex.error


def _left(text, num_chars=1):
    return excel_text(text)[:_count(num_chars, "LEFT: num_chars")]


def _right(text, num_chars=1):
    t, n = excel_text(text), _count(num_chars, "RIGHT: num_chars")
    return t[len(t) - n:] if n < len(t) else t


def _mid(text, start_num, num_chars):
    t = excel_text(text)
    s = whole_number(start_num, "MID: start_num")
    if s < 1:
        raise Fail("#VALUE!", "MID: start_num is less than 1")
    n = _count(num_chars, "MID: num_chars")
    return t[s - 1:s - 1 + n]


def _find(find_text, within_text, start_num=1):
    """FIND(find_text, within_text, [start_num]): where find_text starts (case-sensitive);
    start_num below 1 or past the text, or no match, #VALUE!; empty find_text start_num.

    >>> t = "Miriam McGovern"
    >>> _find("M", t), _find("m", t), _find("M", t, 3)
    (1, 6, 8)
    """
    f, w = excel_text(find_text), excel_text(within_text)
    s = whole_number(start_num, "FIND: start_num")
    if s < 1 or s > len(w) and not (s == 1 and f == ""):
        raise Fail("#VALUE!", f"FIND: start_num {s} is outside the text")
    k = w.find(f, s - 1)
    if k < 0:
        raise Fail("#VALUE!", f"FIND: {f!r} is not in the text")
    return k + 1


def _wildcards(pattern: str) -> re.Pattern:
    """SEARCH's pattern: ``?`` any character, ``*`` any run of them, ``~`` the next literal."""
    out, k = [], 0
    while k < len(pattern):
        ch = pattern[k]
        if ch == "~" and k + 1 < len(pattern):
            out.append(re.escape(pattern[k + 1]))
            k += 2
            continue
        out.append(".*" if ch == "*" else "." if ch == "?" else re.escape(ch))
        k += 1
    return re.compile("".join(out), re.IGNORECASE | re.DOTALL)


def _search(find_text, within_text, start_num=1):
    """SEARCH(find_text, within_text, [start_num]): FIND without case, with wildcards
    (Microsoft's examples).

    >>> _search("e", "Statements", 6), _search("margin", "Profit Margin"), _search("p?o", "a Pro")
    (7, 8, 3)
    """
    f, w = excel_text(find_text), excel_text(within_text)
    s = whole_number(start_num, "SEARCH: start_num")
    if s < 1 or s > len(w) and not (s == 1 and f == ""):
        raise Fail("#VALUE!", f"SEARCH: start_num {s} is outside the text")
    m = _wildcards(f).search(w, s - 1)
    if m is None:
        raise Fail("#VALUE!", f"SEARCH: {f!r} is not in the text")
    return m.start() + 1


def _substitute(text, old_text, new_text, instance_num=_OMITTED):
    """SUBSTITUTE(text, old_text, new_text, [instance_num]); an instance_num below 1 (an
    empty cell too) or a boolean is #VALUE! (test.xlsx, saved by Excel: CORE!AA14:AB19).

    >>> _substitute("Quarter 1, 2011", "1", "2", 3), _substitute("Sales Data", "Sales", "Cost")
    ('Quarter 1, 2012', 'Cost Data')
    """
    t, old, new = excel_text(text), excel_text(old_text), excel_text(new_text)
    if instance_num is _OMITTED:
        return _checked(t.replace(old, new) if old else t, "SUBSTITUTE")
    if isinstance(instance_num, bool):
        raise Fail("#VALUE!", "SUBSTITUTE: instance_num is a boolean")
    k = whole_number(instance_num, "SUBSTITUTE: instance_num")
    if k < 1:
        raise Fail("#VALUE!", "SUBSTITUTE: instance_num is less than 1")
    if not old:
        return t
    pos = -1
    for _ in range(k):
        pos = t.find(old, pos + 1)
        if pos < 0:
            return t
    return _checked(t[:pos] + new + t[pos + len(old):], "SUBSTITUTE")


def _replace(old_text, start_num, num_chars, new_text):
    """REPLACE(old_text, start_num, num_chars, new_text).

    >>> _replace("abcdefghijk", 6, 5, "*"), _replace("2009", 3, 2, "10")
    ('abcde*k', '2010')
    """
    t = excel_text(old_text)
    s = whole_number(start_num, "REPLACE: start_num")
    if s < 1:
        raise Fail("#VALUE!", "REPLACE: start_num is less than 1")
    n = _count(num_chars, "REPLACE: num_chars")
    return _checked(t[:s - 1] + excel_text(new_text) + t[s - 1 + n:], "REPLACE")


def _rept(text, number_times):
    t = excel_text(text)
    n = _count(number_times, "REPT: number_times")
    if len(t) * n > _MAX_TEXT:
        raise Fail("#VALUE!", f"REPT: the result is longer than {_MAX_TEXT} characters")
    return t * n


def _trim(text):
    """TRIM(text): no leading or trailing spaces, single spaces between words (the space,
    character 32, only).

    >>> _trim("  First Quarter   Earnings ")
    'First Quarter Earnings'
    """
    return " ".join(w for w in excel_text(text).split(" ") if w)


def _proper(text):
    """PROPER(text): every letter after a character that is no letter in upper case, the
    others in lower case.

    >>> _proper("this is a TITLE"), _proper("2-way street"), _proper("76BudGet")
    ('This Is A Title', '2-Way Street', '76Budget')
    """
    out, after_letter = [], False
    for ch in excel_text(text):
        out.append(ch.lower() if after_letter else ch.upper())
        after_letter = ch.isalpha()
    return "".join(out)


def _len(text):
    """LEN(text): the number of characters, as Excel counts them (UTF-16 code units: a
    character outside the Basic Multilingual Plane is 2); a number is counted in its text
    of 15 significant digits, a boolean as TRUE or FALSE.

    >>> _len("Phoenix, AZ"), _len(1 / 3), _len(True), _len(None), _len("\U0001F600")
    (11, 17, 4, 0, 2)
    """
    return len(excel_text(text).encode("utf-16-le")) // 2


def _case(upper: bool):
    """UPPER(text) or LOWER(text): letters in one case; a letter whose other case is more
    than one character (``ß`` upper case is ``SS`` in Unicode) stays as it is, as Excel
    keeps the length.

    >>> _case(True)("total"), _case(False)("E. E. Cummings"), _case(True)("straße")
    ('TOTAL', 'e. e. cummings', 'STRAßE')
    >>> _case(False)(True), _case(True)(1.5)
    ('true', '1.5')
    """
    def change(text):
        out = []
        for ch in excel_text(text):
            other = ch.upper() if upper else ch.lower()
            out.append(other if len(other) == 1 else ch)
        return "".join(out)
    return change


def _sign(number):
    """SIGN(number): 1, 0 or -1.

    >>> _sign(10), _sign(4 - 4), _sign(-0.00001), _sign(True)
    (1.0, 0.0, -1.0, 1.0)
    """
    v = excel_number(number, "SIGN: number")
    return float((v > 0) - (v < 0))


def _log10(number):
    """LOG10(number): the base-10 logarithm; of 0 or less #NUM! (Microsoft's examples:
    LOG10(86) is 1.934498451, LOG10(10) 1, LOG10(1E5) 5).

    >>> round(_log10(86), 9), _log10(10), _log10(1e5)
    (1.934498451, 1.0, 5.0)
    """
    v = excel_number(number, "LOG10: number")
    if v <= 0:
        raise Fail("#NUM!", f"LOG10 of {value_text(v)}, not a positive number")
    return math.log10(v)


def _exact(text1, text2):
    return excel_text(text1) == excel_text(text2)


def _value(text):
    """VALUE(text): numeric, date or time text as its number; a number stays itself; a
    boolean and other text #VALUE!.

    >>> _value("$1,000"), round(_value("16:48:00") - _value("12:00:00"), 12)
    (1000.0, 0.2)
    """
    if isinstance(text, bool):
        raise Fail("#VALUE!", "VALUE of a boolean")
    return excel_number(text, "VALUE: text")


for _name, _fn, _lo, _hi in (
        ("CONCATENATE", _concatenate, 1, 255), ("LEFT", _left, 1, 2), ("LEFTB", _left, 1, 2),
        ("RIGHT", _right, 1, 2), ("RIGHTB", _right, 1, 2), ("MID", _mid, 3, 3),
        ("MIDB", _mid, 3, 3), ("FIND", _find, 2, 3), ("FINDB", _find, 2, 3),
        ("SEARCH", _search, 2, 3), ("SEARCHB", _search, 2, 3),
        ("SUBSTITUTE", _substitute, 3, 4), ("REPLACE", _replace, 4, 4),
        ("REPLACEB", _replace, 4, 4), ("REPT", _rept, 2, 2), ("TRIM", _trim, 1, 1),
        ("PROPER", _proper, 1, 1), ("EXACT", _exact, 2, 2), ("VALUE", _value, 1, 1),
        ("LEN", _len, 1, 1), ("UPPER", _case(True), 1, 1), ("LOWER", _case(False), 1, 1),
        ("SIGN", _sign, 1, 1), ("LOG10", _log10, 1, 1)):
    SCALARS[_name] = lift(_name, _fn, _lo, _hi)
del _name, _fn, _lo, _hi
SCALARS.update(CONCAT=_concat, TEXTJOIN=_textjoin)


# ------------------------------------------------------------------------- dates
# Microsoft, "DATE function", "YEAR function", "MONTH function", "DAY function", "HOUR
# function", "MINUTE function", "SECOND function", "TIME function", "WEEKDAY function",
# "WEEKNUM function", "ISOWEEKNUM function", "EDATE function", "EOMONTH function", "DAYS
# function", "DAYS360 function" (read 2026-12-01). Serial numbers count days in the 1900
# date system, with Excel's 29 February 1900 (serial 60); a date is the serial's whole
# part, text a date Excel reads; a serial below 0 or past 9999-12-31 is #NUM!.


def _day(x, what: str) -> int:
    """A date argument as a whole serial number (0 .. 2958465, else #NUM!)."""
    v = excel_number(x, what)
    if not 0 <= v < _LAST_DAY + 1:
        raise Fail("#NUM!", f"{what} {v:g} is not a date from 1900 to 9999")
    return math.floor(v)


def _month_days(y: int, m: int) -> int:
    return 29 if (y, m) == (1900, 2) else calendar.monthrange(y, m)[1]


def _checked_serial(s: int) -> float:
    if not 0 <= s <= _LAST_DAY:
        raise Fail("#NUM!", "the date is before 1900 or after 9999")
    return float(s)


def _date(year, month, day):
    """DATE(year, month, day): a year from 0 to 1899 is added to 1900; months and days past
    their range carry into the year and month (Microsoft's examples).

    >>> _date(2008, 1, 2), _date(2008, 14, 2), _date(2008, 1, 35), _date(108, 1, 2)
    (39449.0, 39846.0, 39482.0, 39449.0)
    >>> f = SCALARS["DATE"]
    >>> f(1900, 2, 29), f(1900, 3, 0), str(f(10000, 1, 1)), str(f(-1, 1, 1)), str(f(1900, 1, -1))
    (60.0, 60.0, '#NUM!', '#NUM!', '#NUM!')
    """
    y = whole_number(year, "DATE: year")
    if 0 <= y < 1900:
        y += 1900
    if not 1900 <= y <= 9999:
        raise Fail("#NUM!", f"DATE: year {y} is not 0 to 9999")
    m = whole_number(month, "DATE: month")
    d = whole_number(day, "DATE: day")
    y, m = y + (m - 1) // 12, (m - 1) % 12 + 1
    if y < 1899 or y > 9999:
        raise Fail("#NUM!", "DATE: the date is before 1900 or after 9999")
    return _checked_serial(excel_serial(y, m, 1) + d - 1)


def _ymd_part(k: int, name: str):
    def fn(serial_number):
        return float(excel_ymd(_day(serial_number, f"{name}: serial_number"))[k])
    fn.__doc__ = f"{name}(serial_number)."
    return fn


def _seconds(x, name: str) -> int:
    """The time of day of a serial number, in whole seconds (rounded to the nearest)."""
    v = excel_number(x, f"{name}: serial_number")
    if v < 0:
        raise Fail("#NUM!", f"{name}: a negative time")
    s = round((v - math.floor(v)) * 86400)
    return 0 if s >= 86400 else s


def _time(hour, minute, second):
    """TIME(hour, minute, second): a fraction of a day; each part truncated, larger parts
    carrying over, a negative total #NUM!, past a day the rest (Microsoft's examples).

    >>> round(_time(12, 0, 0), 12), round(_time(16, 48, 10), 12), _time(27, 0, 0)
    (0.5, 0.700115740741, 0.125)
    """
    parts = [whole_number(x, f"TIME: {w}") for x, w in ((hour, "hour"), (minute, "minute"),
                                                 (second, "second"))]
    if any(p > 32767 for p in parts):
        raise Fail("#NUM!", "TIME: a part above 32767")
    total = parts[0] * 3600 + parts[1] * 60 + parts[2]
    if total < 0:
        raise Fail("#NUM!", "TIME: a negative time")
    return (total % 86400) / 86400


def _weekday_index(s: int) -> int:
    """0 for Sunday ... 6 for Saturday, as Excel counts (serial 1, 1900-01-01, a Sunday)."""
    return (s - 1) % 7


#: WEEKDAY's return_type -> (the day numbered first, 0 Sunday; the first number)
_WEEKDAY_TYPES = {1: (0, 1), 2: (1, 1), 3: (1, 0), 11: (1, 1), 12: (2, 1), 13: (3, 1),
                  14: (4, 1), 15: (5, 1), 16: (6, 1), 17: (0, 1)}


def _weekday(serial_number, return_type=1):
    """WEEKDAY(serial_number, [return_type]).

    >>> _weekday(39506), _weekday(39506, 2), _weekday(39506, 3)  # 14 Feb 2008, a Thursday
    (5.0, 4.0, 3.0)
    """
    s = _day(serial_number, "WEEKDAY: serial_number")
    t = whole_number(return_type, "WEEKDAY: return_type") if return_type is not None else 1
    if t not in _WEEKDAY_TYPES:
        raise Fail("#NUM!", f"WEEKDAY: return_type {t} is not one Excel knows")
    first, base = _WEEKDAY_TYPES[t]
    return float((_weekday_index(s) - first) % 7 + base)


def _isoweeknum(date):
    """ISOWEEKNUM(date): the ISO 8601 week of the year.

    >>> _isoweeknum(40977), _isoweeknum(1), _isoweeknum(0)  # 9 Mar 2012; 1900-01-00 and -01
    (10.0, 52.0, 52.0)
    """
    s = _day(date, "ISOWEEKNUM: date")
    thursday = s - (_weekday_index(s) + 6) % 7 + 3  # the Thursday of its Monday-based week
    year = excel_ymd(thursday)[0] if thursday > 0 else 1899  # serial 0 is Saturday
    return float((thursday - excel_serial(year, 1, 1)) // 7 + 1)


#: WEEKNUM's return_type -> the day a week begins on (0 Sunday ... 6 Saturday)
_WEEK_STARTS = {1: 0, 2: 1, 11: 1, 12: 2, 13: 3, 14: 4, 15: 5, 16: 6, 17: 0}


def _weeknum(serial_number, return_type=1):
    """WEEKNUM(serial_number, [return_type]): the week containing 1 January is week 1;
    return_type 21 the ISO week.

    >>> _weeknum(39887), _weeknum(39887, 2)  # 15 Mar 2009, a Sunday
    (12.0, 11.0)
    """
    s = _day(serial_number, "WEEKNUM: serial_number")
    t = whole_number(return_type, "WEEKNUM: return_type") if return_type is not None else 1
    if t == 21:
        return _isoweeknum(s)
    if t not in _WEEK_STARTS:
        raise Fail("#NUM!", f"WEEKNUM: return_type {t} is not one Excel knows")
    y = excel_ymd(s)[0]
    jan1 = excel_serial(y, 1, 1)
    offset = (_weekday_index(jan1) - _WEEK_STARTS[t]) % 7
    return float((s - jan1 + offset) // 7 + 1)


def _shift_months(s: int, months, name: str, end: bool) -> float:
    y, m, d = excel_ymd(s)
    k = m - 1 + whole_number(months, f"{name}: months")
    y, m = y + k // 12, k % 12 + 1
    if not 1900 <= y <= 9999:
        raise Fail("#NUM!", f"{name}: the date is before 1900 or after 9999")
    last = _month_days(y, m)
    return _checked_serial(excel_serial(y, m, 1) - 1 + (last if end else min(d, last)))


def _edate(start_date, months):
    """EDATE(start_date, months): the same day ``months`` later (at most the month's last).

    >>> _edate(40209, 1), _edate(40209, -1)  # 31 Jan 2010 -> 28 Feb 2010, 31 Dec 2009
    (40237.0, 40178.0)
    """
    return _shift_months(_day(start_date, "EDATE: start_date"), months, "EDATE", False)


def _eomonth(start_date, months):
    """EOMONTH(start_date, months): the last day of the month ``months`` later.

    >>> _eomonth(39448, 1), _eomonth(39448, -3)  # 1 Jan 2008 -> 29 Feb 2008, 31 Oct 2007
    (39507.0, 39386.0)
    """
    return _shift_months(_day(start_date, "EOMONTH: start_date"), months, "EOMONTH", True)


def _days(end_date, start_date):
    """DAYS(end_date, start_date): the days between two dates.

    >>> _days("3/15/2021", "2/1/2021"), _days(44561, 44197)
    (42.0, 364.0)
    """
    return float(_day(end_date, "DAYS: end_date") - _day(start_date, "DAYS: start_date"))


def _days360(start_date, end_date, method=False):
    """DAYS360(start_date, end_date, [method]): days on a 360-day year. US (FALSE): a start on
    a month's last day is the 30th, an end on the 31st the 30th when the start is the 30th or
    later; European (TRUE): every 31st is the 30th.

    >>> _days360(40573, 40575), _days360(40544, 40908), _days360(40544, 40575)  # Microsoft's
    (1.0, 360.0, 30.0)
    """
    s, e = _day(start_date, "DAYS360: start_date"), _day(end_date, "DAYS360: end_date")
    europe = excel_bool(method, "DAYS360: method")
    y1, m1, d1 = excel_ymd(s)
    y2, m2, d2 = excel_ymd(e)
    if europe:
        d1, d2 = min(d1, 30), min(d2, 30)
    else:
        if d1 == _month_days(y1, m1):
            d1 = 30
        if d2 == 31 and d1 >= 30:
            d2 = 30
    return float((y2 - y1) * 360 + (m2 - m1) * 30 + d2 - d1)


for _name, _fn, _lo, _hi in (
        ("DATE", _date, 3, 3), ("YEAR", _ymd_part(0, "YEAR"), 1, 1),
        ("MONTH", _ymd_part(1, "MONTH"), 1, 1), ("DAY", _ymd_part(2, "DAY"), 1, 1),
        ("HOUR", lambda x: float(_seconds(x, "HOUR") // 3600), 1, 1),
        ("MINUTE", lambda x: float(_seconds(x, "MINUTE") // 60 % 60), 1, 1),
        ("SECOND", lambda x: float(_seconds(x, "SECOND") % 60), 1, 1),
        ("TIME", _time, 3, 3), ("WEEKDAY", _weekday, 1, 2),
        ("ISOWEEKNUM", _isoweeknum, 1, 1), ("DAYS", _days, 2, 2), ("DAYS360", _days360, 2, 3)):
    SCALARS[_name] = lift(_name, _fn, _lo, _hi)
for _name, _fn, _lo, _hi in (("WEEKNUM", _weeknum, 1, 2), ("EDATE", _edate, 2, 2),
                             ("EOMONTH", _eomonth, 2, 2)):
    SCALARS[_name] = lift(_name, _fn, _lo, _hi, atp=True)
del _name, _fn, _lo, _hi


# ------------------------------------------------------------------------ maths
# Microsoft, "SIN function" ... "ACOTH function", "RADIANS function", "DEGREES function",
# "PI function", "SQRTPI function", "FACT function", "FACTDOUBLE function", "EVEN function",
# "ODD function", "PERMUT function", "PERMUTATIONA function", "MULTINOMIAL function",
# "DELTA function", "GESTEP function", "ERF function", "ERFC function", "GAMMA function",
# "GAMMALN function", "BITAND function" ... (read 2026-12-01). Trigonometric functions of an
# angle of 2^27 radians or more are #NUM! in Excel (its argument reduction stops there).

_TRIG_LIMIT = 2.0 ** 27


def _angle(x, name: str) -> float:
    v = excel_number(x, f"{name}: number")
    if abs(v) >= _TRIG_LIMIT:
        raise Fail("#NUM!", f"{name}: an angle of 2^27 radians or more")
    return v


def _domain(ok: bool, name: str, why: str) -> None:
    if not ok:
        raise Fail("#NUM!", f"{name}: {why}")


def _nonzero(v: float, name: str) -> float:
    if v == 0:
        raise Fail("#DIV/0!", f"{name} of 0")
    return v


def _atan2(x_num, y_num):
    """ATAN2(x_num, y_num): the angle of the point (x, y); both 0 is #DIV/0!.

    >>> round(_atan2(1, 1), 9), round(_atan2(-1, -1), 9)
    (0.785398163, -2.35619449)
    """
    x, y = excel_number(x_num, "ATAN2: x_num"), excel_number(y_num, "ATAN2: y_num")
    if x == 0 and y == 0:
        raise Fail("#DIV/0!", "ATAN2 of (0, 0)")
    return math.atan2(y, x)


def _asin(x):
    v = excel_number(x, "ASIN: number")
    _domain(-1 <= v <= 1, "ASIN", "a number outside -1 to 1")
    return math.asin(v)


def _acos(x):
    v = excel_number(x, "ACOS: number")
    _domain(-1 <= v <= 1, "ACOS", "a number outside -1 to 1")
    return math.acos(v)


def _acosh(x):
    v = excel_number(x, "ACOSH: number")
    _domain(v >= 1, "ACOSH", "a number below 1")
    return math.acosh(v)


def _atanh(x):
    v = excel_number(x, "ATANH: number")
    _domain(-1 < v < 1, "ATANH", "a number outside -1 to 1 (exclusive)")
    return math.atanh(v)


def _acoth(x):
    v = excel_number(x, "ACOTH: number")
    _domain(abs(v) > 1, "ACOTH", "a number from -1 to 1")
    return 0.5 * math.log((v + 1) / (v - 1))


def _acot(x):
    v = excel_number(x, "ACOT: number")
    return math.pi / 2 - math.atan(v)


def _fact(x):
    """FACT(number): number! of the number truncated; negative #NUM!.

    >>> _fact(5), _fact(1.9), _fact(0)
    (120.0, 1.0, 1.0)
    """
    n = whole_number(x, "FACT: number")
    _domain(0 <= n <= 170, "FACT", f"{n}! is not a number Excel holds")
    return float(math.factorial(n))


def _factdouble(x):
    """FACTDOUBLE(number): n!! of the number truncated (Microsoft's examples).

    >>> _factdouble(6), _factdouble(7)
    (48.0, 105.0)
    """
    v = excel_number(x, "FACTDOUBLE: number")
    _domain(v >= -1, "FACTDOUBLE", "a number below -1")  # test.xlsx: -1 is 1, -1.1 #NUM!
    n = math.trunc(v)
    out = 1.0
    for k in range(n, 1, -2):
        out *= k
    return out


def _even_odd(odd: bool):
    def fn(x):
        v = excel_number(x, "number")
        a = math.ceil(abs(v))
        if odd:
            a = a if a % 2 == 1 else a + 1
        elif a % 2:
            a += 1
        return float(a if v >= 0 else -a)
    fn.__doc__ = ("ODD" if odd else "EVEN") + "(number): rounded away from zero to the " \
        "nearest " + ("odd" if odd else "even") + " integer."
    return fn


def _permut(number, number_chosen):
    """PERMUT(number, number_chosen): n! / (n - k)! of the numbers truncated.

    >>> _permut(100, 3), _permut(3, 2)
    (970200.0, 6.0)
    """
    n = whole_number(number, "PERMUT: number")
    k = whole_number(number_chosen, "PERMUT: number_chosen")
    _domain(n > 0 and 0 <= k <= n, "PERMUT", "number <= 0, number_chosen < 0 or > number")
    return float(math.perm(n, k))


def _permutationa(number, number_chosen):
    """PERMUTATIONA(number, number_chosen): n^k of the numbers truncated.

    >>> _permutationa(3, 2), _permutationa(2, 2)
    (9.0, 4.0)
    """
    n = whole_number(number, "PERMUTATIONA: number")
    k = whole_number(number_chosen, "PERMUTATIONA: number_chosen")
    _domain(n >= 0 and k >= 0, "PERMUTATIONA", "a negative argument")
    return float(n) ** k


def _multinomial(*numbers):
    """MULTINOMIAL(number1, ...): (sum)! / product of each factorial (numbers truncated).

    >>> _multinomial(2, 3, 4)
    1260.0
    """
    try:
        ns = []
        for x, in_range in _values(numbers, "MULTINOMIAL"):
            if isinstance(x, ExcelError):
                return x
            if isinstance(x, bool) or in_range and isinstance(x, str):
                raise Fail("#VALUE!", "MULTINOMIAL: a value that is no number")
            n = whole_number(x, "MULTINOMIAL: number")  # an empty cell is 0 (IronCalc's book)
            _domain(n >= 0, "MULTINOMIAL", "a negative number")
            ns.append(n)
        total = sum(ns)
        _domain(total <= 170, "MULTINOMIAL", "the result is too large")
        out = math.factorial(total)
        for n in ns:
            out //= math.factorial(n)
        return float(out)
    except Fail as ex:
        return ex.error


def _delta(number1, number2=0.0):
    for x in (number1, number2):
        if isinstance(x, bool) or isinstance(x, str) and typed_number(x) is None:
            raise Fail("#VALUE!", "DELTA: a value that is no number")
    return 1.0 if excel_number(number1) == excel_number(number2) else 0.0


def _gestep(number, step=0.0):
    for x in (number, step):
        if isinstance(x, bool) or isinstance(x, str) and typed_number(x) is None:
            raise Fail("#VALUE!", "GESTEP: a value that is no number")
    return 1.0 if excel_number(number) >= excel_number(step) else 0.0


def _erf(lower_limit, upper_limit=_OMITTED):
    """ERF(lower_limit, [upper_limit]): erf(lower), or erf(upper) - erf(lower) (an empty
    upper_limit cell is 0: test.xlsx, ENGINEERING!V21, ERF(-0.002, empty) 0.00225...).

    >>> round(_erf(0.745), 8), round(_erf(1), 8), round(_erf(-0.002, None), 8)  # Microsoft's
    (0.70792892, 0.84270079, 0.00225676)
    """
    a = excel_number(lower_limit, "ERF: lower_limit")
    if upper_limit is _OMITTED:
        return math.erf(a)
    return math.erf(excel_number(upper_limit, "ERF: upper_limit")) - math.erf(a)


def _gamma(x):
    """GAMMA(number): Γ(number); 0 and negative integers #NUM!.

    >>> round(_gamma(2.5), 9), round(_gamma(-3.75), 9)
    (1.329340388, 0.267866129)
    """
    v = excel_number(x, "GAMMA: number")
    _domain(not (v <= 0 and v == math.floor(v)), "GAMMA", "0 or a negative integer")
    return math.gamma(v)


def _gammaln(x):
    v = excel_number(x, "GAMMALN: x")
    _domain(v > 0, "GAMMALN", "a number of 0 or less")
    return math.lgamma(v)


_BIT_LIMIT = 2 ** 48


def _bits(x, name: str) -> int:
    v = excel_number(x, f"{name}: number")
    _domain(v == math.floor(v) and 0 <= v < _BIT_LIMIT, name,
            "a number that is no integer from 0 to 2^48 - 1")
    return int(v)


def _bitwise(name: str, op):
    def fn(number1, number2):
        return float(op(_bits(number1, name), _bits(number2, name)))
    fn.__doc__ = f"{name}(number1, number2): bitwise, on integers from 0 to 2^48 - 1."
    return fn


def _bitshift(name: str, left: bool):
    def fn(number, shift_amount):
        """BITLSHIFT / BITRSHIFT(number, shift_amount): a shift of at most 53 places
        either way; the result below 2^48."""
        n = _bits(number, name)
        k = whole_number(shift_amount, f"{name}: shift_amount")
        _domain(abs(k) <= 53, name, "a shift of more than 53 places")
        k = k if left else -k
        out = n << k if k >= 0 else n >> -k
        _domain(out < _BIT_LIMIT, name, "the result is 2^48 or more")
        return float(out)
    return fn


for _name, _fn, _lo, _hi in (
        ("SIN", lambda x: math.sin(_angle(x, "SIN")), 1, 1),
        ("COS", lambda x: math.cos(_angle(x, "COS")), 1, 1),
        ("TAN", lambda x: math.tan(_angle(x, "TAN")), 1, 1),
        ("COT", lambda x: 1 / math.tan(_nonzero(_angle(x, "COT"), "COT")), 1, 1),
        ("CSC", lambda x: 1 / math.sin(_nonzero(_angle(x, "CSC"), "CSC")), 1, 1),
        ("SEC", lambda x: 1 / math.cos(_angle(x, "SEC")), 1, 1),
        ("ASIN", _asin, 1, 1), ("ACOS", _acos, 1, 1),
        ("ATAN", lambda x: math.atan(excel_number(x, "ATAN: number")), 1, 1),
        ("ATAN2", _atan2, 2, 2), ("ACOT", _acot, 1, 1),
        ("SINH", lambda x: math.sinh(excel_number(x, "SINH: number")), 1, 1),
        ("COSH", lambda x: math.cosh(excel_number(x, "COSH: number")), 1, 1),
        ("TANH", lambda x: math.tanh(excel_number(x, "TANH: number")), 1, 1),
        ("COTH", lambda x: 1 / math.tanh(_nonzero(excel_number(x, "COTH"), "COTH")), 1, 1),
        ("CSCH", lambda x: 1 / math.sinh(_nonzero(excel_number(x, "CSCH"), "CSCH")), 1, 1),
        ("SECH", lambda x: 1 / math.cosh(excel_number(x, "SECH: number")), 1, 1),
        ("ASINH", lambda x: math.asinh(excel_number(x, "ASINH: number")), 1, 1),
        ("ACOSH", _acosh, 1, 1), ("ATANH", _atanh, 1, 1), ("ACOTH", _acoth, 1, 1),
        ("RADIANS", lambda x: math.radians(excel_number(x, "RADIANS: angle")), 1, 1),
        ("DEGREES", lambda x: math.degrees(excel_number(x, "DEGREES: angle")), 1, 1),
        ("PI", lambda: math.pi, 0, 0),
        ("FACT", _fact, 1, 1),
        ("EVEN", _even_odd(False), 1, 1), ("ODD", _even_odd(True), 1, 1),
        ("PERMUT", _permut, 2, 2), ("PERMUTATIONA", _permutationa, 2, 2),
        ("GAMMA", _gamma, 1, 1), ("GAMMALN", _gammaln, 1, 1),
        ("GAMMALN.PRECISE", _gammaln, 1, 1),
        ("BITAND", _bitwise("BITAND", lambda a, b: a & b), 2, 2),
        ("BITOR", _bitwise("BITOR", lambda a, b: a | b), 2, 2),
        ("BITXOR", _bitwise("BITXOR", lambda a, b: a ^ b), 2, 2),
        ("BITLSHIFT", _bitshift("BITLSHIFT", True), 2, 2),
        ("BITRSHIFT", _bitshift("BITRSHIFT", False), 2, 2)):
    SCALARS[_name] = lift(_name, _fn, _lo, _hi)
del _name, _fn, _lo, _hi
# from the Analysis ToolPak: a boolean or a range is #VALUE! (test.xlsx, ENGINEERING and
# MATH & TRIG sheets: DELTA(C20:I20), ERF(I21,TRUE), SQRTPI(TRUE) ... are #VALUE!)
for _name, _fn, _lo, _hi in (
        ("DELTA", _delta, 1, 2), ("GESTEP", _gestep, 1, 2),
        ("ERF", _erf, 1, 2), ("ERF.PRECISE", lambda x: _erf(x), 1, 1),
        ("ERFC", lambda x: math.erfc(excel_number(x, "ERFC: x")), 1, 1),
        ("ERFC.PRECISE", lambda x: math.erfc(excel_number(x, "ERFC.PRECISE: x")), 1, 1),
        ("SQRTPI", lambda x: math.sqrt(excel_number(x, "SQRTPI: number") * math.pi), 1, 1),
        ("FACTDOUBLE", _factdouble, 1, 1)):
    SCALARS[_name] = lift(_name, _fn, _lo, _hi, atp=True)
del _name, _fn, _lo, _hi
SCALARS["MULTINOMIAL"] = _multinomial


# ------------------------------------------------------------ time value of money
# Microsoft, "FV function", "PV function", "PMT function", "NPER function", "NPV function",
# "RATE function", "IRR function", "MIRR function", "SLN function", "SYD function", "DB
# function", "DDB function", "EFFECT function", "NOMINAL function", "FVSCHEDULE function",
# "RRI function", "PDURATION function", "DOLLARDE function", "DOLLARFR function", "ISPMT
# function" (read 2026-12-01). The annuity equation that FV, PV, PMT, NPER and RATE solve
# (Microsoft, "PV function"), with type 0 (payments at the end of each period) or 1 (at
# the beginning):
#
#     pv (1 + rate)^nper + pmt (1 + rate type) ((1 + rate)^nper - 1) / rate + fv = 0
#
# and pv + pmt nper + fv = 0 for a rate of 0.


def _payment_type(x) -> int:
    return 0 if excel_number(x, "type") == 0 else 1


def _fv(rate, nper, pmt, pv=None, type=None):  # noqa: A002 - Excel's argument name
    """FV(rate, nper, pmt, [pv], [type]) (Microsoft's examples).

    >>> round(_fv(0.06 / 12, 10, -200, -500, 1), 2), round(_fv(0.12 / 12, 12, -1000), 2)
    (2581.4, 12682.5)
    """
    r, n = excel_number(rate, "FV: rate"), excel_number(nper, "FV: nper")
    p, v = excel_number(pmt, "FV: pmt"), excel_number(pv, "FV: pv")
    t = _payment_type(type)
    if r == 0:
        return -(v + p * n)
    if r == -1 and n < 0:  # IronCalc's FV book, saved by Excel: FV(-1,-2,1) is #DIV/0!
        raise Fail("#DIV/0!", "FV: (1 + rate)^nper divides by 0")
    g = (1 + r) ** n
    return -(v * g + p * (1 + r * t) * (g - 1) / r)


def _pv(rate, nper, pmt, fv=None, type=None):  # noqa: A002
    """PV(rate, nper, pmt, [fv], [type]) (Microsoft's example).

    >>> round(_pv(0.08 / 12, 12 * 20, 500), 2)
    -59777.15
    """
    r, n = excel_number(rate, "PV: rate"), excel_number(nper, "PV: nper")
    p, f = excel_number(pmt, "PV: pmt"), excel_number(fv, "PV: fv")
    t = _payment_type(type)
    if r == 0:
        return -(f + p * n)
    g = (1 + r) ** n
    return -(f + p * (1 + r * t) * (g - 1) / r) / g


def _pmt(rate, nper, pv, fv=None, type=None):  # noqa: A002
    """PMT(rate, nper, pv, [fv], [type]) (Microsoft's examples).

    >>> round(_pmt(0.08 / 12, 10, 10000), 2), round(_pmt(0.08 / 12, 10, 10000, 0, 1), 2)
    (-1037.03, -1030.16)
    """
    r, n = excel_number(rate, "PMT: rate"), excel_number(nper, "PMT: nper")
    v, f = excel_number(pv, "PMT: pv"), excel_number(fv, "PMT: fv")
    t = _payment_type(type)
    if n == 0:
        raise Fail("#NUM!", "PMT: nper is 0")
    if r <= -1:  # IronCalc's PMT book, saved by Excel: PMT(-3,5,100) and PMT(-1,1,-100) #NUM!
        raise Fail("#NUM!", "PMT: rate is -1 or less")
    if r == 0:
        return -(v + f) / n
    g = (1 + r) ** n
    return -r * (v * g + f) / ((1 + r * t) * (g - 1))


def _nper(rate, pmt, pv, fv=None, type=None):  # noqa: A002
    """NPER(rate, pmt, pv, [fv], [type]) (Microsoft's examples).

    >>> round(_nper(0.12 / 12, -100, -1000, 10000, 1), 4), round(_nper(0.01, -100, -1000), 4)
    (59.6739, -9.5786)
    """
    r, p = excel_number(rate, "NPER: rate"), excel_number(pmt, "NPER: pmt")
    v, f = excel_number(pv, "NPER: pv"), excel_number(fv, "NPER: fv")
    t = _payment_type(type)
    if r == 0:
        if p == 0:
            raise Fail("#NUM!", "NPER: rate and pmt are 0")
        return -(v + f) / p
    a = p * (1 + r * t)
    num, den = a - f * r, a + v * r
    _domain(den != 0 and num / den > 0 and r > -1, "NPER", "no number of periods")
    return math.log(num / den) / math.log(1 + r)


def _npv(rate, *values):
    """NPV(rate, value1, ...): the sum of value_i / (1 + rate)^i over the numbers among
    the values; empty cells, text and booleans are skipped (Microsoft's examples).

    >>> round(_npv(0.1, -10000, 3000, 4200, 6800), 2)
    1188.44
    >>> round(_npv(0.08, [[8000, 9200, 10000, 12000, 14500]]) - 40000, 2)
    1922.06
    """
    if isinstance(rate, list) and _shape(rate) != (1, 1):  # an array formula: one per rate
        shape = _shape(rate)
        return [[_npv(_at(rate, shape, i, j), *values) for j in range(shape[1])]
                for i in range(shape[0])]
    if isinstance(rate, list):
        rate = _at(rate, (1, 1), 0, 0)
    try:
        r = excel_number(rate, "NPV: rate")
        if r == -1:
            raise Fail("#DIV/0!", "NPV: rate is -1")
        total, i = 0.0, 0
        for x, _ in _values(values, "NPV"):
            if isinstance(x, ExcelError):
                return x
            if x is None or isinstance(x, (str, bool)):
                continue  # a cell's text or boolean (pycel's npv.xlsx, saved by Excel)
            i += 1
            total += float(x) / (1 + r) ** i
        return _result(total)
    except Fail as ex:
        return ex.error


def _cash_flows(values, name: str) -> list[float]:
    """The numbers of a range of cash flows (text, booleans and empty cells skipped); an
    error value among them is #VALUE! (test.xlsx, FINANCIAL!Z26: IRR({...,#N/A}))."""
    out = []
    for x, _ in _values([values], name):
        if isinstance(x, ExcelError):
            raise Fail("#VALUE!", f"{name}: an error value among the cash flows")
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            out.append(float(x))
    return out


def _newton(f, df, guess: float, name: str, steps: int = 20) -> float:
    """Newton's method from ``guess`` until a step is below 1e-7 (Excel's RATE and IRR
    tolerance), then polished; #NUM! when it does not settle within ``steps`` steps or
    leaves the numbers."""
    x = guess
    try:
        for _ in range(steps):
            d = df(x)
            if d == 0 or not math.isfinite(d):
                break
            step = f(x) / d
            x -= step
            if not math.isfinite(x) or x == -1:
                break
            if abs(step) < 1e-7:
                for _ in range(3):
                    d = df(x)
                    if d == 0:
                        break
                    x -= f(x) / d
                if math.isfinite(x) and x > -1:
                    return x
                break
    except (OverflowError, ZeroDivisionError):
        pass
    raise Fail("#NUM!", f"{name}: no rate found from the guess")


def _irr(values, guess=_OMITTED):
    """IRR(values, [guess]): the rate at which the cash flows' NPV is 0 (Microsoft's
    examples: -70000, 12000, 15000, 18000, 21000, 26000).

    >>> round(_irr([[-70000, 12000, 15000, 18000, 21000, 26000]]), 6)
    0.086631
    >>> round(_irr([[-70000, 12000, 15000]], -0.1), 4)
    -0.4435
    """
    if isinstance(guess, list) and _shape(guess) != (1, 1):  # an array formula: one per guess
        shape = _shape(guess)
        return [[_irr(values, _at(guess, shape, i, j)) for j in range(shape[1])]
                for i in range(shape[0])]
    if isinstance(guess, list):
        guess = _at(guess, (1, 1), 0, 0)
    try:
        if hasattr(values, "shape") or hasattr(guess, "shape"):
            raise TypeError("a block column")  # row by row
        if isinstance(guess, ExcelError):
            return guess
        flows = _cash_flows(values, "IRR")
        g = 0.1 if guess is _OMITTED else excel_number(guess, "IRR: guess")
        if not any(v > 0 for v in flows) or not any(v < 0 for v in flows):
            raise Fail("#NUM!", "IRR needs a positive and a negative cash flow")

        def f(r):
            return sum(v / (1 + r) ** k for k, v in enumerate(flows))

        def df(r):
            return sum(-k * v / (1 + r) ** (k + 1) for k, v in enumerate(flows))

        try:
            return _newton(f, df, g, "IRR", 100)
        except Fail:
            return _nearest_root(f, df, g, "IRR")
    except Fail as ex:
        return ex.error


def _nearest_root(f, df, guess: float, name: str) -> float:
    """The root of ``f`` above -1 nearest ``guess``, where Newton's method from the guess
    finds none (Excel's IRR still answers: test.xlsx, FINANCIAL!T26, IRR({-7,2,1,4,-3;
    -7,2,-1,4,4},7) is -0.0211...): sign changes on a grid, each polished by Newton."""
    def value(r):
        try:
            v = f(r)
        except (OverflowError, ZeroDivisionError):
            return None
        return v if math.isfinite(v) else None

    grid = [-1 + 10 ** (k / 8) for k in range(-48, 17)]  # -1 + 1e-6 ... 99
    vals = [value(r) for r in grid]
    roots = []
    for a, b, fa, fb in zip(grid, grid[1:], vals, vals[1:], strict=False):
        if fa is None or fb is None:
            continue
        if fa == 0:
            roots.append(a)
        elif fa * fb < 0:
            lo, hi = a, b
            for _ in range(200):
                mid = (lo + hi) / 2
                fm = value(mid)
                if fm is None:
                    break
                if (fm < 0) == (fa < 0):
                    lo = mid
                else:
                    hi = mid
            with contextlib.suppress(Fail):
                roots.append(_newton(f, df, (lo + hi) / 2, name))
    if not roots:
        raise Fail("#NUM!", f"{name}: no rate found")
    return min(roots, key=lambda r: abs(r - guess))


def _mirr(values, finance_rate, reinvest_rate):
    """MIRR(values, finance_rate, reinvest_rate) (Microsoft's example).

    >>> round(_mirr([[-120000, 39000, 30000, 21000, 37000, 46000]], 0.1, 0.12), 6)
    0.126094
    """
    try:
        flows = _cash_flows(values, "MIRR")
        fr = excel_number(finance_rate, "MIRR: finance_rate")
        rr = excel_number(reinvest_rate, "MIRR: reinvest_rate")
        n = len(flows)
        pos = sum(v / (1 + rr) ** k for k, v in enumerate(flows) if v > 0)
        neg = sum(v / (1 + fr) ** k for k, v in enumerate(flows) if v < 0)
        if neg == 0 or n < 2:
            raise Fail("#DIV/0!", "MIRR needs a negative cash flow")
        # no positive flow is -1, a negative ratio #NUM! (IronCalc's MIRR book, by Excel)
        ratio = -pos * (1 + rr) ** (n - 1) / neg
        if ratio < 0:
            raise Fail("#NUM!", "MIRR: no real rate")
        return ratio ** (1 / (n - 1)) - 1
    except Fail as ex:
        return ex.error


def _rate(nper, pmt, pv, fv=None, type=None, guess=_OMITTED):  # noqa: A002
    """RATE(nper, pmt, pv, [fv], [type], [guess]) (Microsoft's example).

    >>> round(_rate(4 * 12, -200, 8000) * 12, 6)
    0.092418
    """
    n, p = excel_number(nper, "RATE: nper"), excel_number(pmt, "RATE: pmt")
    v, f = excel_number(pv, "RATE: pv"), excel_number(fv, "RATE: fv")
    t = _payment_type(type)
    g = 0.1 if guess is _OMITTED else excel_number(guess, "RATE: guess")
    _domain(n > 0, "RATE", "nper is not positive")

    def eq(r):
        if r == 0:
            return v + p * n + f
        q = (1 + r) ** n
        return v * q + p * (1 + r * t) * (q - 1) / r + f

    def deq(r):
        h = 1e-6 * max(abs(r), 1e-3)
        return (eq(r + h) - eq(r - h)) / (2 * h)

    _domain(_settles_above(eq, deq, g, -1.0), "RATE", "Newton's method settles on a rate "
            "of -1 or less")  # IronCalc's RATE.xlsx, by Excel: RATE(10,-1200,2000) #NUM!
    try:
        return _newton(eq, deq, g, "RATE")
    except Fail:  # IronCalc's RATE.xlsx, saved by Excel: RATE(300,-200,8000,0,1) 0.0256...
        return _nearest_root(eq, deq, g, "RATE")


def _settles_above(f, df, guess: float, low: float, steps: int = 50) -> bool:
    """False where Newton's method from ``guess`` settles (a step below 1e-7) on a root at
    or below ``low``; True otherwise (above it, or it does not settle)."""
    x = guess
    try:
        for _ in range(steps):
            step = f(x) / df(x)
            if isinstance(step, complex) or not math.isfinite(step):
                return True
            x -= step
            if abs(step) < 1e-7:
                return x > low
    except (OverflowError, ZeroDivisionError, TypeError):
        pass
    return True


def _sln(cost, salvage, life):
    """SLN(cost, salvage, life): (cost - salvage) / life.

    >>> _sln(30000, 7500, 10)
    2250.0
    """
    c, s = excel_number(cost, "SLN: cost"), excel_number(salvage, "SLN: salvage")
    n = excel_number(life, "SLN: life")
    if n == 0:
        raise Fail("#DIV/0!", "SLN: life is 0")
    return (c - s) / n


def _syd(cost, salvage, life, per):
    """SYD(cost, salvage, life, per): sum-of-years' digits (Microsoft's examples).

    >>> round(_syd(30000, 7500, 10, 1), 2), round(_syd(30000, 7500, 10, 10), 2)
    (4090.91, 409.09)
    """
    c, s = excel_number(cost, "SYD: cost"), excel_number(salvage, "SYD: salvage")
    n, k = excel_number(life, "SYD: life"), excel_number(per, "SYD: per")
    _domain(n > 0 and 0 < k <= n, "SYD", "life or per out of range")
    return (c - s) * (n - k + 1) * 2 / (n * (n + 1))


def _db(cost, salvage, life, period, month=_OMITTED):
    """DB(cost, salvage, life, period, [month]): fixed-declining balance, the rate rounded
    to three decimals (Microsoft's example: 1,000,000, 100,000, 6 years, 7 months first).

    >>> [round(_db(1000000, 100000, 6, p, 7), 2) for p in (1, 2, 7)]
    [186083.33, 259639.42, 15845.1]
    """
    c, s = excel_number(cost, "DB: cost"), excel_number(salvage, "DB: salvage")
    n = excel_number(life, "DB: life")
    p = whole_number(period, "DB: period")
    m = 12 if month is _OMITTED else whole_number(month, "DB: month")
    _domain(c >= 0 and s >= 0 and n > 0 and 1 <= m <= 12 and 1 <= p <= n + (m < 12),
            "DB", "an argument out of range")
    rate = round(1 - (s / c) ** (1 / n), 3) if c > 0 else 1.0
    total = c * rate * m / 12
    if p == 1:
        return total
    for k in range(2, p + 1):
        dep = (c - total) * rate * ((12 - m) / 12 if k > n else 1)
        if k == p:
            return dep
        total += dep
    return total


def _ddb_function(cost, salvage, life, period, factor=_OMITTED):
    """DDB(cost, salvage, life, period, [factor]) (Microsoft's examples: 2400, 300, 10).

    >>> f = _ddb_function
    >>> round(f(2400, 300, 10 * 365, 1), 2), round(f(2400, 300, 10, 10), 2)
    (1.32, 22.12)
    """
    c, s = excel_number(cost, "DDB: cost"), excel_number(salvage, "DDB: salvage")
    n, p = excel_number(life, "DDB: life"), excel_number(period, "DDB: period")
    f = 2.0 if factor is _OMITTED else excel_number(factor, "DDB: factor")
    _domain(c >= 0 and s >= 0 and n > 0 and 0 < p <= n and f > 0, "DDB",
            "an argument out of range")
    return ddb(c, s, n, p, f)


def _effect(nominal_rate, npery):
    """EFFECT(nominal_rate, npery) (Microsoft's example).

    >>> round(_effect(0.0525, 4), 9)
    0.053542667
    """
    r, n = excel_number(nominal_rate, "EFFECT: nominal_rate"), whole_number(npery, "EFFECT: npery")
    _domain(r > 0 and n >= 1, "EFFECT", "nominal_rate <= 0 or npery < 1")
    return (1 + r / n) ** n - 1


def _nominal(effect_rate, npery):
    """NOMINAL(effect_rate, npery) (Microsoft's example).

    >>> round(_nominal(0.053543, 4), 6)
    0.0525
    """
    r, n = excel_number(effect_rate, "NOMINAL: effect_rate"), whole_number(npery, "NOMINAL: npery")
    _domain(r > 0 and n >= 1, "NOMINAL", "effect_rate <= 0 or npery < 1")
    return ((1 + r) ** (1 / n) - 1) * n


def _fvschedule(principal, schedule):
    """FVSCHEDULE(principal, schedule): principal times each (1 + rate); an empty cell is 0.

    >>> round(_fvschedule(1, [[0.09, 0.11, 0.1]]), 5)
    1.33089
    """
    try:
        if isinstance(principal, list):
            principal = _at(principal, _shape(principal), 0, 0)
        v = excel_number(principal, "FVSCHEDULE: principal")
        for x, _ in _values([schedule], "FVSCHEDULE"):
            if isinstance(x, bool):
                raise Fail("#VALUE!", "FVSCHEDULE: a boolean rate")
            v *= 1 + excel_number(x, "FVSCHEDULE: a rate")
        return _result(v)
    except Fail as ex:
        return ex.error


def _rri(nper, pv, fv):
    """RRI(nper, pv, fv): (fv / pv)^(1 / nper) - 1 (Microsoft's example).

    >>> round(_rri(96, 10000, 11000), 7)
    0.0009933
    """
    n, v, f = (excel_number(x, f"RRI: {w}") for x, w in ((nper, "nper"), (pv, "pv"),
                                                         (fv, "fv")))
    _domain(n > 0, "RRI", "nper is not positive")
    if v == 0:
        raise Fail("#NUM!", "RRI: pv is 0")
    return (f / v) ** (1 / n) - 1


def _pduration(rate, pv, fv):
    """PDURATION(rate, pv, fv): (log fv - log pv) / log(1 + rate) (Microsoft's examples).

    >>> round(_pduration(0.025, 2000, 2200), 2), round(_pduration(0.025 / 12, 1000, 1200), 1)
    (3.86, 87.6)
    """
    r, v, f = (excel_number(x, f"PDURATION: {w}") for x, w in ((rate, "rate"), (pv, "pv"),
                                                               (fv, "fv")))
    _domain(r > 0 and v > 0 and f > 0, "PDURATION", "an argument is not positive")
    return (math.log(f) - math.log(v)) / math.log(1 + r)


def _fraction(x, name: str) -> int:
    f = whole_number(x, f"{name}: fraction")
    if f < 0:
        raise Fail("#NUM!", f"{name}: fraction is negative")
    if f == 0:
        raise Fail("#DIV/0!", f"{name}: fraction is 0")
    return f


def _dollarde(fractional_dollar, fraction):
    """DOLLARDE(fractional_dollar, fraction) (Microsoft's examples).

    >>> round(_dollarde(1.02, 16), 12), round(_dollarde(1.1, 32), 12)
    (1.125, 1.3125)
    """
    v, f = excel_number(fractional_dollar, "DOLLARDE: fractional_dollar"), _fraction(
        fraction, "DOLLARDE")
    whole = math.trunc(v)
    scale = 10 ** math.ceil(math.log10(f))
    return whole + (v - whole) * scale / f


def _dollarfr(decimal_dollar, fraction):
    """DOLLARFR(decimal_dollar, fraction) (Microsoft's examples).

    >>> round(_dollarfr(1.125, 16), 12), round(_dollarfr(1.125, 32), 12)
    (1.02, 1.04)
    """
    v, f = excel_number(decimal_dollar, "DOLLARFR: decimal_dollar"), _fraction(
        fraction, "DOLLARFR")
    whole = math.trunc(v)
    scale = 10 ** math.ceil(math.log10(f))
    return whole + (v - whole) * f / scale


def _ispmt(rate, per, nper, pv):
    """ISPMT(rate, per, nper, pv): the interest of period ``per`` of a loan repaid in equal
    parts of principal (Microsoft's example).

    >>> round(_ispmt(0.1 / 12, 1, 3 * 12, 8000000), 2)
    -64814.81
    """
    r, k = excel_number(rate, "ISPMT: rate"), excel_number(per, "ISPMT: per")
    n, v = excel_number(nper, "ISPMT: nper"), excel_number(pv, "ISPMT: pv")
    if n == 0:
        raise Fail("#DIV/0!", "ISPMT: nper is 0")
    return v * r * (k / n - 1)


for _name, _fn, _lo, _hi in (
        ("FV", _fv, 3, 5), ("PV", _pv, 3, 5), ("PMT", _pmt, 3, 5), ("NPER", _nper, 3, 5),
        ("RATE", _rate, 3, 6), ("SLN", _sln, 3, 3), ("SYD", _syd, 4, 4), ("DB", _db, 4, 5),
        ("DDB", _ddb_function, 4, 5), ("RRI", _rri, 3, 3), ("PDURATION", _pduration, 3, 3),
        ("ISPMT", _ispmt, 4, 4)):
    SCALARS[_name] = lift(_name, _fn, _lo, _hi)
for _name, _fn, _lo, _hi in (  # Analysis ToolPak: IronCalc's NOMINAL and DOLLARs books
        ("EFFECT", _effect, 2, 2), ("NOMINAL", _nominal, 2, 2), ("DOLLARDE", _dollarde, 2, 2),
        ("DOLLARFR", _dollarfr, 2, 2)):
    SCALARS[_name] = lift(_name, _fn, _lo, _hi, atp=True)
del _name, _fn, _lo, _hi
SCALARS.update(NPV=_npv, IRR=_irr, MIRR=_mirr, FVSCHEDULE=_fvschedule)

# --------------------------------------------------------------- more text, dates
# Microsoft, "TEXTBEFORE function", "TEXTAFTER function", "DATEVALUE function",
# "TIMEVALUE function", "DATEDIF function", "FIXED function", "ARABIC function", "DECIMAL
# function", "UNICHAR function" (read 2026-12-01).


def _delimiters(delimiter) -> list[str]:
    if hasattr(delimiter, "shape"):
        raise TypeError("a block column")  # row by row
    out = []
    for x, _ in _values([delimiter], "delimiter"):
        out.append(excel_text(x))
    return out


def _cut(text: str, delims: list[str], instance: int, case: bool, match_end: bool):
    """(start, end) of the instance-th delimiter found in ``text`` (from the end when
    negative), or None."""
    hay = text if case else text.casefold()
    needles = delims if case else [d.casefold() for d in delims]
    found, i = [], 0
    while i <= len(hay):
        hit = next((d for d in needles if hay.startswith(d, i)), None)
        if hit is None:
            i += 1
            continue
        found.append((i, i + len(hit)))
        i += max(len(hit), 1)
    if instance > 0:
        if match_end:
            found.append((len(text), len(text)))
        return found[instance - 1] if instance <= len(found) else None
    if match_end:
        found.insert(0, (0, 0))
    return found[instance] if -instance <= len(found) else None


def _text_around(after: bool):
    name = "TEXTAFTER" if after else "TEXTBEFORE"

    def one(delims, text, instance_num=1.0, match_mode=0.0, match_end=0.0,
            if_not_found=_OMITTED):
        t = excel_text(text)
        k = whole_number(instance_num, f"{name}: instance_num")
        mode = excel_number(match_mode, f"{name}: match_mode")
        end = excel_number(match_end, f"{name}: match_end")
        if mode not in (0, 1) or end not in (0, 1):
            raise Fail("#VALUE!", f"{name}: match_mode or match_end is not 0 or 1")
        if k == 0 or abs(k) > len(t) and not (t == "" and abs(k) == 1):
            raise Fail("#VALUE!", f"{name}: instance_num is 0 or past the text")
        hit = _cut(t, delims, k, mode == 0, end == 1)
        if hit is None:
            if if_not_found is _OMITTED:
                return ExcelError("#N/A", f"{name}: the delimiter is not in the text")
            return "" if if_not_found is None else if_not_found  # an empty cell: ""
        return t[hit[1]:] if after else t[:hit[0]]

    def fn(text, delimiter, *rest):
        """TEXTBEFORE / TEXTAFTER(text, delimiter, [instance_num], [match_mode],
        [match_end], [if_not_found]): the text before (after) the instance_num-th delimiter
        (any of an array of them; counted from the end when negative), without case when
        match_mode is 1, the end of the text a delimiter when match_end is 1; not found
        #N/A or if_not_found; instance_num 0 or longer than the text #VALUE!. Element-wise
        over every argument but the delimiters (test.xlsx, TEXT!AI44:AW45)."""
        if len(rest) > 4:
            return ExcelError("#VALUE!", f"{name} takes 2 to 6 arguments")
        try:
            delims = _delimiters(delimiter)
        except Fail as ex:
            return ex.error
        return lift(name, lambda *a: one(delims, *a), 1, 5)(text, *rest)

    fn.__name__ = name
    return fn


def _textbefore_doc():
    """Examples of TEXTBEFORE and TEXTAFTER (Microsoft's text; hand-derived answers).

    >>> t = "Little Red Riding Hood's red hood"
    >>> SCALARS["TEXTBEFORE"](t, "Red"), SCALARS["TEXTBEFORE"](t, "red")
    ('Little ', "Little Red Riding Hood's ")
    >>> SCALARS["TEXTBEFORE"](t, "red", -2, 1), str(SCALARS["TEXTBEFORE"](t, "red", 2))
    ('Little ', '#N/A')
    >>> SCALARS["TEXTAFTER"](t, "Hood"), SCALARS["TEXTAFTER"](t, "HOOD", 2, 1)
    ("'s red hood", '')
    >>> str(SCALARS["TEXTAFTER"](t, "basket")), SCALARS["TEXTAFTER"](t, "basket", 1, 0, 0, "x")
    ('#N/A', 'x')
    """


def _datevalue(date_text):
    """DATEVALUE(date_text): the serial number of a date written as text (a time in it is
    dropped); a number or text that is no date #VALUE!.

    >>> _datevalue("8/22/2011"), _datevalue("22-MAY-2011"), _datevalue("2011/02/23")
    (40777.0, 40685.0, 40597.0)
    """
    if isinstance(date_text, ExcelError):
        raise Fail.passing(date_text)
    if not isinstance(date_text, str):
        raise Fail("#VALUE!", "DATEVALUE needs text")
    v = typed_number(date_text)
    if v is None or _plain_number_text(date_text):
        raise Fail("#VALUE!", f"DATEVALUE: {date_text!r} is not a date")
    return float(math.floor(v))


def _plain_number_text(text: str) -> bool:
    """Whether ``text`` reads as a plain number (no date or time in it)."""
    try:
        float(text.strip().replace(",", "").rstrip("%"))
        return True
    except ValueError:
        return False


def _timevalue(time_text):
    """TIMEVALUE(time_text): the time of day of a date or time written as text.

    >>> round(_timevalue("2:24 AM"), 12), round(_timevalue("22-Aug-2011 6:35 AM"), 12)
    (0.1, 0.274305555556)
    """
    if isinstance(time_text, ExcelError):
        raise Fail.passing(time_text)
    if not isinstance(time_text, str):
        raise Fail("#VALUE!", "TIMEVALUE needs text")
    v = typed_number(time_text)
    if v is None or _plain_number_text(time_text):
        raise Fail("#VALUE!", f"TIMEVALUE: {time_text!r} is not a time")
    return round((v - math.floor(v)) * 86400, 6) / 86400  # the date's digits dropped


def _datedif(start_date, end_date, unit):
    """DATEDIF(start_date, end_date, unit): whole years "Y", months "M", days "D", days
    without months and years "MD", months without years "YM", days without years "YD";
    a start after the end #NUM! (Microsoft's examples).

    >>> _datedif(36892, 37439, "Y"), _datedif(37302, 37753, "D"), _datedif(37302, 37753, "YD")
    (1.0, 451.0, 86.0)
    """
    s, e = _day(start_date, "DATEDIF: start_date"), _day(end_date, "DATEDIF: end_date")
    u = excel_text(unit).upper()
    if s > e:
        raise Fail("#NUM!", "DATEDIF: start_date is after end_date")
    y1, m1, d1 = excel_ymd(s)
    y2, m2, d2 = excel_ymd(e)
    months = (y2 - y1) * 12 + m2 - m1 - (1 if d2 < d1 else 0)
    if u == "Y":
        return float(months // 12)
    if u == "M":
        return float(months)
    if u == "D":
        return float(e - s)
    if u == "YM":
        return float(months % 12)
    if u == "MD":
        if d2 >= d1:
            return float(d2 - d1)
        py, pm = (y2, m2 - 1) if m2 > 1 else (y2 - 1, 12)
        return float(_month_days(py, pm) - d1 + d2)
    if u == "YD":  # the end moved into the start's year (test.xlsx, DATE & TIME!R4: 1900's
        y = y1 if (m2, d2) >= (m1, d1) else y1 + 1  # 29 February counts)
        return float(excel_serial(y, m2, 1) - 1 + min(d2, _month_days(y, m2)) - s)
    raise Fail("#NUM!", f"DATEDIF: unit {u!r} is not Y, M, D, MD, YM or YD")


def _fixed(number, decimals=2.0, no_commas=False):
    """FIXED(number, [decimals], [no_commas]): the number rounded to ``decimals`` places
    (left of the point when negative) as text, with commas unless no_commas (Microsoft's
    examples).

    >>> _fixed(1234.567, 1), _fixed(1234.567, -1), _fixed(-1234.567, -1, True), _fixed(44.332)
    ('1,234.6', '1,230', '-1230', '44.33')
    >>> _fixed(123456789076754345682.2, 0), _fixed(10001, 3, True), _fixed(5, -128000)
    ('123,456,789,076,754,000,000', '10001.000', '0')
    """
    x = excel_number(number, "FIXED: number")
    d = whole_number(decimals, "FIXED: decimals")
    plain = excel_bool(no_commas, "FIXED: no_commas")
    if d > 127:
        raise Fail("#VALUE!", "FIXED: more than 127 decimals")
    r = BUILTINS["ROUND"](x, float(d)) if d > -300 else 0.0
    if isinstance(r, ExcelError):
        return r
    digits = decimal.Decimal(f"{r:.15g}") + 0  # the 15 digits Excel holds; -0 is 0
    return f"{digits:.{max(d, 0)}f}" if plain else f"{digits:,.{max(d, 0)}f}"


_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def _arabic(text):
    """ARABIC(text): a Roman numeral's value (any case, a leading minus negative).

    >>> _arabic("mcmxii"), _arabic("-MMXI"), _arabic("")
    (1912.0, -2011.0, 0.0)
    >>> _arabic("IIIIIIV"), _arabic("IILmIIC")  # test.xlsx, MATH & TRIG!T9 and V9
    (-1.0, 1046.0)
    """
    t = excel_text(text).strip().upper()
    sign = 1.0
    if t.startswith("-"):
        t, sign = t[1:], -1.0
    if len(t) > 255 or any(ch not in _ROMAN for ch in t):
        raise Fail("#VALUE!", f"ARABIC: {text!r} is not a Roman numeral")
    total = top = 0
    for ch in reversed(t):  # a numeral below a larger one to its right is subtracted
        v = _ROMAN[ch]
        total += -v if v < top else v
        top = max(top, v)
    return sign * total


def _decimal(text, radix):
    """DECIMAL(text, radix): text in base radix (2 to 36) as a number (Microsoft's examples).

    >>> _decimal("FF", 16), _decimal(111, 2), _decimal("zap", 36)
    (255.0, 7.0, 45745.0)
    """
    r = whole_number(radix, "DECIMAL: radix")
    if not 2 <= r <= 36:
        raise Fail("#NUM!", f"DECIMAL: radix {r} is not 2 to 36")
    t = excel_text(text).strip()
    if len(t) > 255:
        raise Fail("#VALUE!", "DECIMAL: text longer than 255 characters")
    try:
        v = int(t, r) if t and t.isalnum() else None
    except ValueError:
        v = None
    if v is None:
        raise Fail("#NUM!", f"DECIMAL: {t!r} is not a number in base {r}")
    if v >= 2 ** 53:
        raise Fail("#NUM!", "DECIMAL: the number is 2^53 or more")
    return float(v)


def _unichar(number):
    """UNICHAR(number): the character of a Unicode code point; 0 or past 1114111 #VALUE!,
    a lone surrogate #N/A.

    >>> _unichar(66), _unichar(32)
    ('B', ' ')
    """
    n = whole_number(number, "UNICHAR: number")
    if not 1 <= n <= 0x10FFFF:
        raise Fail("#VALUE!", f"UNICHAR: {n} is not a Unicode code point")
    if 0xD800 <= n <= 0xDFFF:
        raise Fail("#N/A", f"UNICHAR: {n} is a surrogate")
    return chr(n)


for _name, _fn, _lo, _hi, _err in (
        ("DATEVALUE", _datevalue, 1, 1, False),
        ("TIMEVALUE", _timevalue, 1, 1, False), ("DATEDIF", _datedif, 3, 3, False),
        ("FIXED", _fixed, 1, 3, False), ("ARABIC", _arabic, 1, 1, False),
        ("DECIMAL", _decimal, 2, 2, False), ("UNICHAR", _unichar, 1, 1, False)):
    SCALARS[_name] = lift(_name, _fn, _lo, _hi, errors=_err)
del _name, _fn, _lo, _hi, _err
SCALARS.update(TEXTBEFORE=_text_around(False), TEXTAFTER=_text_around(True))

# ------------------------------------------------------------ working days, loans, bills
# Microsoft, "NETWORKDAYS function", "NETWORKDAYS.INTL function", "WORKDAY function",
# "WORKDAY.INTL function", "CUMIPMT function", "CUMPRINC function", "TBILLPRICE function",
# "TBILLYIELD function", "TBILLEQ function" (read 2026-12-01). All came from the Analysis
# ToolPak: a boolean, or a range where one value belongs, is #VALUE!.

#: NETWORKDAYS.INTL's weekend numbers -> the weekend days (0 Monday ... 6 Sunday)
_WEEKENDS = {1: {5, 6}, 2: {6, 0}, 3: {0, 1}, 4: {1, 2}, 5: {2, 3}, 6: {3, 4}, 7: {4, 5},
             11: {6}, 12: {0}, 13: {1}, 14: {2}, 15: {3}, 16: {4}, 17: {5}}


def _atp_scalar(x, what: str):
    """One value of an Analysis ToolPak argument: no boolean, no range of several cells."""
    if hasattr(x, "shape"):
        raise TypeError("a block column")  # row by row
    if isinstance(x, list):
        shape = _shape(x)
        if shape != (1, 1):
            raise Fail("#VALUE!", f"{what}: a range where one value belongs")
        x = _at(x, shape, 0, 0)
    if isinstance(x, bool):
        raise Fail("#VALUE!", f"{what} is a boolean")
    return x


def _weekend(x, name: str) -> set[int]:
    """The weekend days of a weekend argument (a number or seven 0/1 characters from Monday)."""
    if x is _OMITTED or x is None:
        return _WEEKENDS[1]
    x = _atp_scalar(x, f"{name}: weekend")
    if isinstance(x, str):  # ClosedXML's functions-excel-2010.xlsx: "1001000" is a mask
        if len(x) != 7 or set(x) - {"0", "1"}:
            raise Fail("#VALUE!", f"{name}: weekend {x!r} is not seven 0 and 1 characters")
        if x == "1111111":
            raise Fail("#VALUE!", f"{name}: every day is a weekend day")
        return {k for k, ch in enumerate(x) if ch == "1"}
    k = whole_number(x, f"{name}: weekend")
    if k not in _WEEKENDS:
        raise Fail("#NUM!", f"{name}: weekend {k} is not a weekend number")
    return _WEEKENDS[k]


def _holidays(x, name: str) -> set[int]:
    if x is _OMITTED or x is None:
        return set()
    if hasattr(x, "shape"):
        raise TypeError("a block column")  # row by row
    out = set()
    for v, _ in _values([x], name):
        if v is None:
            continue
        if isinstance(v, bool):
            raise Fail("#VALUE!", f"{name}: a boolean among the holidays")
        out.add(_day(v, f"{name}: a holiday"))
    return out


def _is_workday(s: int, weekend: set[int], holidays: set[int]) -> bool:
    return (_weekday_index(s) + 6) % 7 not in weekend and s not in holidays


def _networkdays_of(start_date, end_date, weekend, holidays, name: str):
    try:
        s = _day(_atp_scalar(start_date, f"{name}: start_date"), f"{name}: start_date")
        e = _day(_atp_scalar(end_date, f"{name}: end_date"), f"{name}: end_date")
        days = _weekend(weekend, name)
        hol = _holidays(holidays, name)
    except Fail as ex:
        return ex.error
    lo, hi = min(s, e), max(s, e)
    weeks, rest = divmod(hi - lo + 1, 7)
    count = weeks * (7 - len(days))
    count += sum(1 for d in range(hi - rest + 1, hi + 1) if (_weekday_index(d) + 6) % 7
                 not in days)
    count -= sum(1 for h in hol if lo <= h <= hi and _is_workday(h, days, set()))
    return float(count if s <= e else -count)


def _networkdays(start_date, end_date, holidays=_OMITTED):
    """NETWORKDAYS(start_date, end_date, [holidays]): the working days (Monday to Friday, not
    a holiday) from start to end, both counted; negative when the end comes first.

    >>> _networkdays(41183, 41334), _networkdays(41183, 41334, 41235)  # Microsoft's examples
    (110.0, 109.0)
    """
    return _networkdays_of(start_date, end_date, _OMITTED, holidays, "NETWORKDAYS")


def _networkdays_intl(start_date, end_date, weekend=_OMITTED, holidays=_OMITTED):
    """NETWORKDAYS.INTL(start_date, end_date, [weekend], [holidays]) (Microsoft's examples).

    >>> _networkdays_intl(38718, 38748), _networkdays_intl(38776, 38748)  # January 2006
    (22.0, -21.0)
    >>> _networkdays_intl(38718, 38749, 7, [["2006/1/2", "2006/1/16"]])
    22.0
    """
    return _networkdays_of(start_date, end_date, weekend, holidays, "NETWORKDAYS.INTL")


def _workday_of(start_date, days, weekend, holidays, name: str):
    try:
        s = _day(_atp_scalar(start_date, f"{name}: start_date"), f"{name}: start_date")
        n = whole_number(_atp_scalar(days, f"{name}: days"), f"{name}: days")
        wk = _weekend(weekend, name)
        hol = _holidays(holidays, name)
    except Fail as ex:
        return ex.error
    step = 1 if n > 0 else -1
    left = abs(n)
    per_week = 7 - len(wk)
    if left > 7 * per_week:  # whole weeks first (holidays counted below)
        jump = (left // per_week - 1) * 7
        lo, hi = sorted((s, s + step * jump))
        skipped = sum(1 for h in hol if lo < h <= hi and _is_workday(h, wk, set()))
        s += step * jump
        left -= jump // 7 * per_week - skipped
    while left > 0:
        s += step
        if not 0 <= s <= _LAST_DAY:
            return ExcelError("#NUM!", f"{name}: the date is before 1900 or after 9999")
        if _is_workday(s, wk, hol):
            left -= 1
    if not 0 <= s <= _LAST_DAY:
        return ExcelError("#NUM!", f"{name}: the date is before 1900 or after 9999")
    return float(s)


def _workday(start_date, days, holidays=_OMITTED):
    """WORKDAY(start_date, days, [holidays]): the working day ``days`` working days on.

    >>> _workday(39722, 151), _workday(39722, 151, [[39778, 39786, 39834]])  # Microsoft's
    (39933.0, 39938.0)
    """
    return _workday_of(start_date, days, _OMITTED, holidays, "WORKDAY")


def _workday_intl(start_date, days, weekend=_OMITTED, holidays=_OMITTED):
    """WORKDAY.INTL(start_date, days, [weekend], [holidays]) (Microsoft's examples).

    >>> _workday_intl(40909, 90, 11), _workday_intl(40909, 30, 17), str(_workday_intl(40909, 30, 0))
    (41013.0, 40944.0, '#NUM!')
    """
    return _workday_of(start_date, days, weekend, holidays, "WORKDAY.INTL")


def _ipmt(r: float, per: int, n: float, pv: float, t: int) -> float:
    """The interest part of payment ``per`` of a loan of ``pv`` (no balloon)."""
    pmt = _pmt(r, n, pv, 0.0, t)
    if per == 1:
        return 0.0 if t == 1 else -pv * r
    if t == 1:
        return (_fv(r, per - 2, pmt, pv, 1) - pmt) * r
    return _fv(r, per - 1, pmt, pv, 0) * r


def _cumulative(principal: bool):
    name = "CUMPRINC" if principal else "CUMIPMT"

    def fn(rate, nper, pv, start_period, end_period, type):  # noqa: A002
        r, n = excel_number(rate, f"{name}: rate"), excel_number(nper, f"{name}: nper")
        v = excel_number(pv, f"{name}: pv")
        a0 = excel_number(start_period, f"{name}: start_period")
        b0 = excel_number(end_period, f"{name}: end_period")
        # the first whole period at or after start_period, the last at or before end_period
        # (IronCalc's CUMPRINC book, saved by Excel: start 1.5 sums periods 2 to 10)
        a, b = math.ceil(a0), math.trunc(b0)
        t = excel_number(type, f"{name}: type")
        # the periods compare before they are truncated (IronCalc's CUMPRINC book, saved
        # by Excel: start 5.1, end 5 is #NUM!)
        _domain(r > 0 and n > 0 and v > 0 and 1 <= a0 <= b0 and b <= n and t in (0, 1), name,
                "an argument out of range")
        t = int(t)
        pmt = _pmt(r, n, v, 0.0, t)
        total = 0.0
        for per in range(a, b + 1):
            if not principal:
                total += _ipmt(r, per, n, v, t)
            elif t == 0 or per > 1:  # PMT - IPMT without its cancellation (a tiny principal
                # to Excel's digits: IronCalc's CUMPRINC book, CUMPRINC(7,36,8000,3,10,1))
                total += ppmt(r, per - t, n, v, 0.0)
            else:
                total += pmt
        return total
    fn.__doc__ = f"{name}(rate, nper, pv, start_period, end_period, type)."
    return fn


def _cumipmt_doc():
    """Microsoft's examples of CUMIPMT and CUMPRINC (9 % a year, 30 years, 125,000).

    >>> round(SCALARS["CUMIPMT"](0.09 / 12, 360, 125000, 13, 24, 0), 5)
    -11135.23213
    >>> round(SCALARS["CUMIPMT"](0.09 / 12, 360, 125000, 1, 1, 0), 5)
    -937.5
    >>> round(SCALARS["CUMPRINC"](0.09 / 12, 360, 125000, 13, 24, 0), 5)
    -934.10712
    >>> round(SCALARS["CUMPRINC"](0.09 / 12, 360, 125000, 1, 1, 0), 5)
    -68.27827
    """


def _bill_days(settlement, maturity, name: str) -> int:
    s = _day(settlement, f"{name}: settlement")
    m = _day(maturity, f"{name}: maturity")
    y, mo, d = excel_ymd(s)
    year_on = excel_serial(y + 1, mo, 1) - 1 + min(d, _month_days(y + 1, mo))
    _domain(s < m <= year_on, name, "maturity is not after settlement and within a year")
    return m - s


def _tbillprice(settlement, maturity, discount):
    """TBILLPRICE(settlement, maturity, discount) (Microsoft's example).

    >>> round(_tbillprice(39538, 39600, 0.09), 2)
    98.45
    """
    dsm = _bill_days(settlement, maturity, "TBILLPRICE")
    r = excel_number(discount, "TBILLPRICE: discount")
    _domain(r > 0, "TBILLPRICE", "discount is not positive")
    price = 100 * (1 - r * dsm / 360)
    _domain(price > 0, "TBILLPRICE", "the price is not positive")
    return price


def _tbillyield(settlement, maturity, pr):
    """TBILLYIELD(settlement, maturity, pr) (Microsoft's example).

    >>> round(_tbillyield(39538, 39600, 98.45), 6)
    0.091417
    """
    dsm = _bill_days(settlement, maturity, "TBILLYIELD")
    p = excel_number(pr, "TBILLYIELD: pr")
    _domain(p > 0, "TBILLYIELD", "pr is not positive")
    return (100 - p) / p * 360 / dsm


def _tbilleq(settlement, maturity, discount):
    """TBILLEQ(settlement, maturity, discount): the bond-equivalent yield; over half a year
    the root of P (1 + y/2) (1 + (DSM/365 - 1/2) y) = 100 (Microsoft's example).

    >>> round(_tbilleq(39538, 39600, 0.0914), 4)
    0.0942
    """
    dsm = _bill_days(settlement, maturity, "TBILLEQ")
    r = excel_number(discount, "TBILLEQ: discount")
    _domain(r > 0, "TBILLEQ", "discount is not positive")
    if dsm <= 182:
        return 365 * r / (360 - r * dsm)
    price = 100 * (1 - r * dsm / 360)
    _domain(price > 0, "TBILLEQ", "the price is not positive")
    # a bill of a whole leap year (366 days) is one year (IronCalc's TBILLs book, saved by
    # Excel: 30 Jan 1940 to 30 Jan 1941 at 50 % is 0.8522961312491701; 318 days over
    # 29 February 2024 still count 365 to the year)
    a = dsm / (366 if dsm == 366 else 365)
    return (-a + math.sqrt(a * a - (2 * a - 1) * (1 - 100 / price))) / (a - 0.5)


for _name, _fn, _lo, _hi in (
        ("CUMIPMT", _cumulative(False), 6, 6), ("CUMPRINC", _cumulative(True), 6, 6),
        ("TBILLPRICE", _tbillprice, 3, 3), ("TBILLYIELD", _tbillyield, 3, 3),
        ("TBILLEQ", _tbilleq, 3, 3)):
    SCALARS[_name] = lift(_name, _fn, _lo, _hi, atp=True)
del _name, _fn, _lo, _hi
SCALARS.update({"NETWORKDAYS": _networkdays, "NETWORKDAYS.INTL": _networkdays_intl,
                "WORKDAY": _workday, "WORKDAY.INTL": _workday_intl})

# ------------------------------------------------------------------ complex numbers
# Microsoft, "IMREAL function", "IMAGINARY function", "IMABS function", "IMARGUMENT
# function", "IMCONJUGATE function" (read 2026-12-01): inumber is "x+yi" or "x+yj" text (or
# a number); text that is no complex number is #NUM!; from the Analysis ToolPak, so a
# boolean or a range is #VALUE!.

_REAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _inumber(x, name: str) -> tuple[complex, str]:
    """(the complex number, its suffix "i" or "j") of an inumber argument."""
    if isinstance(x, (int, float)):
        return complex(float(x), 0.0), "i"
    t = excel_text(x)
    if t == "":
        return 0j, "i"
    if _REAL.fullmatch(t):
        return complex(float(t), 0.0), "i"
    sfx, body = t[-1:], t[:-1]
    if sfx not in ("i", "j"):
        raise Fail("#NUM!", f"{name}: {t!r} is not a complex number")
    k = max((i for i, ch in enumerate(body) if ch in "+-" and i > 0
             and body[i - 1] not in "eE"), default=0)
    real, imag = (body[:k], body[k:]) if k else ("", body)
    if imag in ("", "+", "-"):
        imag += "1"
    if real and not _REAL.fullmatch(real) or not _REAL.fullmatch(imag):
        raise Fail("#NUM!", f"{name}: {t!r} is not a complex number")
    return complex(float(real) if real else 0.0, float(imag)), sfx


#: (the complex number, its suffix) of an inumber argument, for the IM functions of
#: :mod:`rooflinexl.recalc.engineering`
inumber = _inumber


def _imconjugate(inumber):
    """IMCONJUGATE(inumber): x-yi of x+yi (Microsoft's example).

    >>> _imconjugate("3+4i"), _imconjugate("-j"), _imconjugate(5)
    ('3-4i', 'j', '5')
    """
    z, sfx = _inumber(inumber, "IMCONJUGATE")
    return complex_text(z.real, -z.imag, sfx)


def _imargument(inumber):
    """IMARGUMENT(inumber): the angle of x+yi; of 0 #DIV/0! (Microsoft's example).

    >>> round(_imargument("3+4i"), 8)
    0.92729522
    """
    z, _ = _inumber(inumber, "IMARGUMENT")
    if z == 0:
        raise Fail("#DIV/0!", "IMARGUMENT of 0")
    return math.atan2(z.imag, z.real)


for _name, _fn in (
        ("IMREAL", lambda x: _inumber(x, "IMREAL")[0].real),
        ("IMAGINARY", lambda x: _inumber(x, "IMAGINARY")[0].imag),
        ("IMABS", lambda x: abs(_inumber(x, "IMABS")[0])),
        ("IMARGUMENT", _imargument), ("IMCONJUGATE", _imconjugate)):
    SCALARS[_name] = lift(_name, _fn, 1, 1, atp=True)
del _name, _fn

# ------------------------------------------------------------ QUOTIENT, SERIESSUM
# Microsoft, "QUOTIENT function" and "SERIESSUM function" (read 2026-12-02); both came from
# the Analysis ToolPak: a boolean is #VALUE! (IronCalc's SERIESSUM.xlsx, saved by Excel:
# SERIESSUM(TRUE, 0, 1, D9:D14) is #VALUE!).


def _quotient(numerator, denominator):
    """QUOTIENT(numerator, denominator): the integer part of the division, toward zero;
    a denominator of 0 is #DIV/0! (Microsoft's examples: QUOTIENT(5, 2) is 2,
    QUOTIENT(4.5, 3.1) 1, QUOTIENT(-10, 3) -3).

    >>> SCALARS["QUOTIENT"](-10, 3), SCALARS["QUOTIENT"](4.5, 3.1)
    (-3.0, 1.0)
    """
    n = excel_number(numerator, "QUOTIENT: numerator")
    d = excel_number(denominator, "QUOTIENT: denominator")
    if d == 0:
        raise Fail("#DIV/0!", "QUOTIENT by 0")
    return float(math.trunc(n / d))


SCALARS["QUOTIENT"] = lift("QUOTIENT", _quotient, 2, 2, atp=True)


def _seriessum(x, n, m, coefficients):
    """SERIESSUM(x, n, m, coefficients): the power series a1*x^n + a2*x^(n+m) + ...
    summed in order; a term 0^0 (or 0 to a negative power) is #NUM!; any argument that is
    not a number #VALUE! (IronCalc's SERIESSUM.xlsx, saved by Excel:
    SERIESSUM(2,0,1,{1,2,3}) is 17, SERIESSUM(0,0,2,{1,2,3}) #NUM!,
    SERIESSUM(-1,0,2,{1,2,3}) 6).

    >>> SCALARS["SERIESSUM"](0.5, 1, 2, [[2.0, 2.0, 2.0]])
    1.3125
    """
    args = (x, n, m, coefficients)
    if any(hasattr(a, "shape") for a in args):
        raise TypeError("a block column")  # row by row
    try:
        xs = []
        for a, what in zip(args[:3], ("x", "n", "m"), strict=True):
            if isinstance(a, list):
                rows = a if a and isinstance(a[0], list) else [a]
                if len(rows) != 1 or len(rows[0]) != 1:
                    raise Fail("#VALUE!", f"SERIESSUM: {what} is a range")
                a = rows[0][0]
            if isinstance(a, bool):
                raise Fail("#VALUE!", f"SERIESSUM: {what} is a boolean")
            xs.append(excel_number(a, f"SERIESSUM: {what}"))
        rows = coefficients if isinstance(coefficients, list) else [[coefficients]]
        rows = rows if rows and isinstance(rows[0], list) else [rows]
        coef = []
        for row in rows:
            for a in row:
                if isinstance(a, ExcelError):
                    raise Fail.passing(a)
                if isinstance(a, bool) or not isinstance(a, (int, float)):
                    raise Fail("#VALUE!", f"SERIESSUM: coefficient {a!r} is not a number")
                coef.append(float(a))
    except Fail as ex:
        return ex.error
    x0, n0, m0 = xs
    total = 0.0
    for i, a in enumerate(coef):
        p = n0 + i * m0
        if x0 == 0 and p <= 0:
            return ExcelError("#NUM!", "SERIESSUM: 0 to the power 0 or below")
        term = x0 ** p
        if isinstance(term, complex) or not math.isfinite(term):
            return ExcelError("#NUM!", "SERIESSUM: a term is no finite real number")
        total += a * term
    return _result(total)


SCALARS["SERIESSUM"] = _seriessum

for _fn in SCALARS.values():
    _fn.plain_text = True  # text that reads "#N/A" is text: errors are ExcelError values
del _fn
BUILTINS.update(SCALARS)
# the financial functions (their own module, which reads this one: imported once it is whole)
from rooflinexl.recalc import finance  # noqa: E402, F401 - adds them to BUILTINS
