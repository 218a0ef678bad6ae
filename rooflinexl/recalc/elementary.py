"""Excel's elementary functions of the block table, of our own: the forms over single
values that the block evaluator uses for the rows its numpy paths do not take (text,
booleans, blanks, error values) and that the array evaluator calls over arrays.

The block evaluator (:mod:`rooflinexl.recalc.kernels`) computes ``ABS``, ``SQRT``, ``EXP``,
``LN``, ``LOG``, ``POWER``, ``INT``, ``MOD``, ``IF``, ``AND``, ``OR``, ``NOT`` ... with numpy
over the rows of plain numbers; every other row comes here (:func:`elementary_function`).
Written from Microsoft's documentation of each function (read 2026-12-02):

* ``ABS``, ``SQRT`` (of a negative number ``#NUM!``), ``EXP``, ``LN`` (of 0 or less
  ``#NUM!``), ``LOG(number, [base])`` (base 10 by default; a number or base of 0 or less
  ``#NUM!``, base 1 ``#DIV/0!``), ``POWER`` (``0^0`` ``#NUM!``, ``0`` to a negative power
  ``#DIV/0!``, a negative number to a fractional power ``#NUM!``), ``INT`` (rounded down),
  ``MOD`` (the remainder with the divisor's sign, a divisor of 0 ``#DIV/0!``),
  ``RANDBETWEEN(bottom, top)`` (a whole number; ``bottom`` above ``top`` ``#NUM!``; an
  Analysis ToolPak function: a boolean is ``#VALUE!``, as the `formulas` project's
  test.xlsx, saved by Excel, shows: ``RANDBETWEEN(-3, TRUE)``), ``CEILING`` and ``FLOOR``
  (:data:`rooflinexl.recalc.functions.COMPATIBLE_MULTIPLES`), ``TEXT`` and ``TRIMRANGE``
  (:data:`ELEMENTARY`).
* the logical functions ``IF``, ``IFERROR``, ``IFNA``, ``NOT``, ``AND``, ``OR``, ``TRUE``,
  ``FALSE`` and ``NA`` (:data:`LOGIC`): Excel reads a condition as a logical value (a
  number is TRUE unless 0, an empty cell FALSE; IF's of text ``#VALUE!``, as the block
  kernel's; NOT's ``"TRUE"``/``"FALSE"`` their value); an empty cell chosen by IF,
  IFERROR or IFNA is 0. ``AND`` and ``OR`` skip empty cells and text, also text given as
  a value and ``"TRUE"`` in a cell (the `formulas` project's test.xlsx, saved by Excel,
  LOGICAL row 3: ``AND(TRUE,"0")`` is TRUE, ``AND(TRUE,"ciao",#REF!,"0")`` #REF!; NPOI's
  FormulaEvalTestData_Copy.xlsx, EverythingTests!G1020: ``OR`` of two empty cells, one of
  text and one of ``"TRUE"`` is #VALUE!); with no logical value at all they are
  ``#VALUE!``; the first error value is the result. ``INDEX`` of an array at single
  positions (:func:`rooflinexl.recalc.functions.index_array`) is there too, for the
  array evaluator.

Numbers go through numpy's array functions, as the block evaluator's numpy paths do, so a
row that is numeric text gives the same bits as a row that is a number.
"""
from __future__ import annotations

import math

import numpy as np

from rooflinexl.errors import ExcelError
from rooflinexl.recalc.functions import (
    BUILTINS,
    COMPATIBLE_MULTIPLES,
    dates_from_1904,
    excel_numbers,
    index_array,
    text_format,
    value_text,
)
from rooflinexl.recalc.scalars import Fail, excel_bool, excel_number, lift

__all__ = ["ELEMENTARY", "LOGIC", "elementary_function", "trimrange"]


def _np(func, *xs: float) -> float:
    """``func`` of numpy one-element arrays (the block path's numpy bits), as a float."""
    with np.errstate(all="ignore"):
        return float(func(*[np.array([x], dtype=float) for x in xs])[0])


def _abs(number):
    """ABS(number): the number without its sign.

    >>> ELEMENTARY["ABS"]("-4"), ELEMENTARY["ABS"](True)
    (4.0, 1.0)
    """
    return abs(excel_number(number, "ABS: number"))


def _sqrt(number):
    """SQRT(number): the positive square root; of a negative number #NUM! (Microsoft's
    example: SQRT(16) is 4, SQRT(-16) #NUM!)."""
    v = excel_number(number, "SQRT: number")
    if v < 0:
        raise Fail("#NUM!", f"SQRT of {value_text(v)}, a negative number")
    return _np(np.sqrt, v)


def _exp(number):
    """EXP(number): e to the power of the number (Microsoft's example: EXP(1) is
    2.71828183); too large a result is #NUM!."""
    return _np(np.exp, excel_number(number, "EXP: number"))


def _ln(number):
    """LN(number): the natural logarithm; of 0 or less #NUM! (Microsoft's example: LN(86)
    is 4.4543473625)."""
    v = excel_number(number, "LN: number")
    if v <= 0:
        raise Fail("#NUM!", f"LN of {value_text(v)}, not a positive number")
    return _np(np.log, v)


def _log(number, base=10.0):
    """LOG(number, [base]): the logarithm to ``base`` (10 when left out); a number or base
    of 0 or less #NUM!, base 1 #DIV/0! (Microsoft's examples: LOG(10) is 1, LOG(8, 2) 3,
    LOG(86, 2.7182818) 4.4543473)."""
    v = excel_number(number, "LOG: number")
    b = excel_number(base, "LOG: base")
    if v <= 0 or b <= 0:
        raise Fail("#NUM!", f"LOG of {value_text(v)} to base {value_text(b)}")
    if b == 1:
        raise Fail("#DIV/0!", "LOG to base 1")
    return _np(lambda x, y: np.log(x) / np.log(y), v, b)


def _power(number, power):
    """POWER(number, power): ``number ^ power``; 0^0 #NUM!, 0 to a negative power
    #DIV/0!, a negative number to a fractional power #NUM! (Microsoft's examples:
    POWER(5, 2) is 25, POWER(98.6, 3.2) 2401077.222, POWER(4, 5/4) 5.656854249)."""
    x = excel_number(number, "POWER: number")
    y = excel_number(power, "POWER: power")
    if x == 0 and y == 0:
        raise Fail("#NUM!", "POWER(0, 0)")
    if x == 0 and y < 0:
        raise Fail("#DIV/0!", "0 to a negative power")
    with np.errstate(all="ignore"):
        r = float(np.power(x, y))  # numpy's scalar power, as the block path's
    if not math.isfinite(r):
        raise Fail("#NUM!", f"POWER({value_text(x)}, {value_text(y)}) is no finite number")
    return r


def _int(number):
    """INT(number): rounded down to an integer (Microsoft's examples: INT(8.9) is 8,
    INT(-8.9) -9)."""
    return float(math.floor(excel_number(number, "INT: number")))


def _mod(number, divisor):
    """MOD(number, divisor): the remainder, with the divisor's sign; a divisor of 0 is
    #DIV/0! (Microsoft's examples: MOD(3, 2) is 1, MOD(-3, 2) 1, MOD(3, -2) -1,
    MOD(-3, -2) -1)."""
    n = excel_number(number, "MOD: number")
    d = excel_number(divisor, "MOD: divisor")
    if d == 0:
        raise Fail("#DIV/0!", "MOD by 0")
    return _np(np.mod, n, d)


def _randbetween(bottom, top):
    """RANDBETWEEN(bottom, top): a random whole number from ``bottom`` to ``top``
    (``bottom`` rounded up, ``top`` down); ``bottom`` above ``top`` #NUM! (the `formulas`
    project's test.xlsx, saved by Excel: RANDBETWEEN(4, -5) is #NUM!, RANDBETWEEN of two
    empty cells 0)."""
    lo = math.ceil(excel_number(bottom, "RANDBETWEEN: bottom"))
    hi = math.floor(excel_number(top, "RANDBETWEEN: top"))
    if lo > hi:
        raise Fail("#NUM!", f"RANDBETWEEN: bottom {lo} is above top {hi}")
    return float(lo + int(np.random.random() * (hi - lo + 1)))


#: the mathematical functions, TEXT and TRIMRANGE (see the module notes)
ELEMENTARY: dict = {
    "ABS": lift("ABS", _abs, 1, 1), "SQRT": lift("SQRT", _sqrt, 1, 1),
    "EXP": lift("EXP", _exp, 1, 1), "LN": lift("LN", _ln, 1, 1),
    "LOG": lift("LOG", _log, 1, 2), "POWER": lift("POWER", _power, 2, 2),
    "INT": lift("INT", _int, 1, 1), "MOD": lift("MOD", _mod, 2, 2),
    "RANDBETWEEN": lift("RANDBETWEEN", _randbetween, 2, 2, atp=True),
    **COMPATIBLE_MULTIPLES,
}


# ------------------------------------------------------------------------ logic


def _chosen(x):
    """A value IF, IFERROR or IFNA returns: an empty cell as 0."""
    return 0.0 if x is None else x


def _if(condition, value_if_true=True, value_if_false=False):
    """IF(logical_test, [value_if_true], [value_if_false]): the value the test picks; an
    error value in the test is the result, one in the value not picked is not.

    >>> f = LOGIC["IF"]
    >>> f(1, "yes", "no"), f(None, "yes", "no"), f(0, "yes"), str(f("x", 1, 2))
    ('yes', 'no', False, '#VALUE!')
    """
    if isinstance(condition, ExcelError):
        return condition
    if isinstance(condition, str):  # text, as the block kernel (test.xlsx, LOGICAL!X8)
        raise Fail("#VALUE!", f"IF: logical_test {condition!r} is text", conversion=True)
    return _chosen(value_if_true if excel_bool(condition, "IF: logical_test")
                   else value_if_false)


def _iferror(value, value_if_error):
    """IFERROR(value, value_if_error): ``value_if_error`` where ``value`` is an error."""
    return _chosen(value_if_error if isinstance(value, ExcelError) else value)


def _ifna(value, value_if_na):
    """IFNA(value, value_if_na): ``value_if_na`` where ``value`` is #N/A."""
    na = isinstance(value, ExcelError) and str(value) == "#N/A"
    return _chosen(value_if_na if na else value)


def _not(logical):
    """NOT(logical): the opposite logical value (NOT(FALSE) is TRUE)."""
    return not excel_bool(logical, "NOT: logical")


def _logical(name: str, combine):
    """AND or OR over its arguments (see the module notes)."""

    def fn(*args):
        seen: list[bool] = []
        for a in args:
            if hasattr(a, "shape"):
                raise TypeError("a block column")  # row by row
            if isinstance(a, list):
                for row in (a if a and isinstance(a[0], list) else [a]):
                    for x in row:
                        if isinstance(x, ExcelError):
                            return x
                        if isinstance(x, (bool, int, float)):
                            seen.append(bool(x))
            elif isinstance(a, ExcelError):
                return a
            elif isinstance(a, (bool, int, float)):
                seen.append(bool(a))
        if not seen:
            return ExcelError("#VALUE!", f"{name}: no logical value among its arguments")
        return combine(seen)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{name}(logical1, ...): {'every' if combine is all else 'any'} "
                  "logical value TRUE (see the module notes).")
    return fn


#: the logical functions, as the block and array evaluators call them over values
LOGIC: dict = {
    "IF": lift("IF", _if, 1, 3, errors=True),
    "IFERROR": lift("IFERROR", _iferror, 2, 2, errors=True),
    "IFNA": lift("IFNA", _ifna, 2, 2, errors=True),
    "NOT": lift("NOT", _not, 1, 1),
    "AND": _logical("AND", all), "OR": _logical("OR", any),
    "TRUE": lift("TRUE", lambda: True, 0, 0), "FALSE": lift("FALSE", lambda: False, 0, 0),
    "NA": lift("NA", lambda: ExcelError("#N/A", "NA()"), 0, 0, errors=True),
}


# ------------------------------------------------------------------------- TEXT


def _text(value, format_text):
    """TEXT(value, format_text): the value written with the number format (Microsoft,
    "TEXT function"; :func:`rooflinexl.recalc.functions.text_format`). Numeric or date
    text is its number first, an empty cell 0; an empty format is no format; a number as
    the format is its text. A format code the engine does not know is #VALUE! naming it
    (never text it might write differently).

    >>> f = ELEMENTARY["TEXT"]
    >>> f(1234.567, "$#,##0.00"), f(0.285, "0.0%"), f("12", "000")
    ('$1,234.57', '28.5%', '012')
    """
    x = 0.0 if value is None else value
    if isinstance(x, str) and x.strip():
        n = excel_numbers("SUM", [(True, x)])  # numeric (or date) text: its number
        if isinstance(n, float) and dates_from_1904():
            try:
                float(x)
            except ValueError:
                raise Fail("#VALUE!", f"TEXT: date text {x!r} in a 1904-system workbook",
                           conversion=True) from None
        x = n if isinstance(n, float) else x
    if format_text is None:
        fmt = ""
    elif isinstance(format_text, (bool, int, float)):
        fmt = value_text(format_text)  # 15 digits: 0 and 0.0 alike "0"
    else:
        fmt = str(format_text)
    out = text_format(x, fmt)
    if out is None:
        raise Fail("#VALUE!", f"TEXT: the format code {fmt!r} is not supported")
    return out


ELEMENTARY["TEXT"] = lift("TEXT", _text, 2, 2)
ELEMENTARY["TEXT"].plain_text = True  # its result is text, "#N/A" too


# --------------------------------------------------------------------- TRIMRANGE


def _trim_flag(x, what: str) -> int:
    """TRIMRANGE's trim_rows or trim_cols: a whole number 0-3 (a number or numeric text;
    the `formulas` project's test.xlsx, saved by Excel, LOOKUP row 135: ``"3"`` is 3,
    ``2.3``, ``"3.3"`` and an array #VALUE!)."""
    if isinstance(x, list):
        raise Fail("#VALUE!", f"TRIMRANGE: {what} is an array")
    v = excel_number(x, f"TRIMRANGE: {what}")
    if v != int(v) or not 0 <= v <= 3:
        raise Fail("#VALUE!", f"TRIMRANGE: {what} {value_text(v)} is not 0, 1, 2 or 3")
    return int(v)


def trimrange(range_, trim_rows=3.0, trim_cols=3.0):
    """TRIMRANGE(range, [trim_rows], [trim_cols]): the range without its blank rows and
    columns at the edges (Microsoft, "TRIMRANGE function", read 2026-12-02): 0 trims
    none, 1 the leading ones, 2 the trailing ones, 3 both (the default); a range with no
    value at all is #REF! (the `formulas` project's test.xlsx, saved by Excel, LOOKUP
    R135:Z136).

    ``range_``: a host range (list of rows, ``None`` for an empty cell) or one value;
    the result a list of rows.

    >>> trimrange([[None, 0.0], [None, 1.0], [None, None]])
    [[0.0], [1.0]]
    >>> trimrange([[None, None], [2.0, None]], 1, 0)
    [[2.0, None]]
    """
    try:
        rows_mode = _trim_flag(trim_rows, "trim_rows")
        cols_mode = _trim_flag(trim_cols, "trim_cols")
    except Fail as ex:
        return ex.error
    grid = range_ if isinstance(range_, list) else [[range_]]
    grid = grid if grid and isinstance(grid[0], list) else [grid]
    h, w = len(grid), max(len(r) for r in grid)
    filled = [[j < len(r) and r[j] is not None for j in range(w)] for r in grid]
    rows = [i for i in range(h) if any(filled[i])]
    cols = [j for j in range(w) if any(filled[i][j] for i in range(h))]
    if not rows:
        return ExcelError("#REF!", "TRIMRANGE: the range holds no value")
    r0 = rows[0] if rows_mode in (1, 3) else 0
    r1 = rows[-1] if rows_mode in (2, 3) else h - 1
    c0 = cols[0] if cols_mode in (1, 3) else 0
    c1 = cols[-1] if cols_mode in (2, 3) else w - 1
    return [[grid[i][j] if j < len(grid[i]) else None for j in range(c0, c1 + 1)]
            for i in range(r0, r1 + 1)]


ELEMENTARY["TRIMRANGE"] = trimrange


# ------------------------------------------------------------------------ INDEX


def _index(array, row_num=None, column_num=None, area_num=None):
    """INDEX(array, row_num, [column_num], [area_num]) of an array at single positions
    (the array evaluator's values; a reference's cells and positions that are arrays are
    the evaluators' own): Excel's array form (:func:`rooflinexl.recalc.functions.
    index_array`); an area other than 1 is #REF! (an array has one).

    >>> _index([[1.0, 2.0], [3.0, 4.0]], 2, 1), _index([[1.0, 2.0], [3.0, 4.0]], 2)
    (3.0, [[3.0, 4.0]])
    """
    if area_num is not None:
        try:
            area = excel_number(area_num, "INDEX: area_num")
        except Fail as ex:
            return ex.error
        if int(area) != 1:
            return ExcelError("#REF!" if area >= 1 else "#VALUE!",
                              f"INDEX: area {value_text(area)} of an array")
    return index_array(array, row_num, column_num)


LOGIC["INDEX"] = _index


def elementary_function(name: str):
    """Our own implementation of the Excel function ``name`` (canonical, upper case) in
    host conventions (:mod:`rooflinexl.recalc.scalars`), or None.

    >>> elementary_function("IF")(True, 2.0, 3.0), elementary_function("NOSUCH")
    (2.0, None)
    """
    return BUILTINS.get(name) or ELEMENTARY.get(name) or LOGIC.get(name)
