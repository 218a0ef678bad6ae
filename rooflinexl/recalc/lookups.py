"""Excel's lookup functions, written from Microsoft's documentation: VLOOKUP, HLOOKUP,
MATCH, XLOOKUP (XMATCH and LOOKUP are in :mod:`rooflinexl.recalc.functions`, whose
search this module shares: :func:`~rooflinexl.recalc.functions.excel_bsearch`,
:func:`~rooflinexl.recalc.functions.xmatch_position`).

They are entries of the engine's function table (:data:`rooflinexl.recalc.functions.
BUILTINS`), called through the same adapter by the block path (once over a filled-down
column of lookup values, the table read once), the array evaluator and the cell path.

Rules (Microsoft, "VLOOKUP function", "HLOOKUP function", "MATCH function", "XLOOKUP
function", read 2026-12-01; where the pages are silent, Excel's cached values in the
`formulas` project's test.xlsx, sheet LOOKUP, IronCalc's LOOKUP_AND_REFERENCE books and
EPPlus's FormulaTest.xlsx, all saved by Excel):

* values of different types are never equal: the number 1 is not the text "1", TRUE is
  not 1; text compares without regard to case ("ß" is not "ss");
* an exact match (MATCH 0, VLOOKUP/HLOOKUP FALSE) finds the first equal value; a text
  lookup value there may hold the wildcards ``*`` (any characters), ``?`` (one) and ``~``
  (the next character literally);
* an approximate match (MATCH 1, VLOOKUP/HLOOKUP TRUE, the default) is Excel's bisection
  over values of the lookup value's type (:func:`~rooflinexl.recalc.functions.
  excel_bsearch`): on unsorted data it gives what Excel gives, not a linear scan's answer;
  an empty lookup value is 0 there;
* MATCH -1 scans from the first value while the values of the lookup value's type are not
  smaller than it and answers the first equal one, else the last one (test.xlsx
  LOOKUP!C83:Q91: 1.1 in {-1.1,2.1,3.1,4.1} is #N/A, -2 is 4; pycel's lookup.xlsx,
  Lookup!G32: an empty cell in {0,1,2,3,4} is 1);
* blanks and error values in the searched row or column match nothing;
* an error value as the lookup value or the table is the result; the table's
  ``col_index_num`` (``row_index_num``) below 1 is #VALUE! and beyond the table #REF!,
  both only once the value is found (:func:`~rooflinexl.recalc.functions.lookup_index`);
* the value found in an empty cell is 0;
* an array of lookup values (an array formula, a filled-down column of the block path)
  gives an array of results.
"""
from __future__ import annotations

import bisect
import math
import re

from rooflinexl.errors import ExcelError
from rooflinexl.recalc.functions import (
    BUILTINS,
    excel_bsearch,
    lookup_index,
    lookup_range_flag,
    value_text,
    wildcard_regex,
    xmatch_key,
    xmatch_nearest,
    xmatch_position,
)
from rooflinexl.recalc.scalars import Fail, finite_number

__all__ = ["LOOKUPS", "MATCH_NOT_FOUND", "hlookup", "match", "vlookup", "xlookup"]

#: the reason of MATCH's #N/A where nothing matches (also the block kernel's fast path)
MATCH_NOT_FOUND = "MATCH: no match"


class _Stop(Exception):
    """An argument's error: the function's result."""

    def __init__(self, error: ExcelError):
        super().__init__(str(error))
        self.error = error


def _rows(x) -> list[list]:
    """A host argument as a list of rows: a range or array as it is, a single value as a
    1x1 array, a block column (numpy, one row's value each) as its rows."""
    if hasattr(x, "ndim"):
        x = x.tolist() if x.ndim == 2 else [[y] for y in x.tolist()]
    if isinstance(x, list):
        return [r if isinstance(r, list) else [r] for r in x] if x and isinstance(
            x[0], list) else [list(x)]
    return [[x]]


def _is_array(x) -> bool:
    return isinstance(x, list) or hasattr(x, "ndim")


def _error(x) -> ExcelError | None:
    return x if isinstance(x, ExcelError) else None


def _key(x) -> tuple | None:
    """A value's place in MATCH's, VLOOKUP's and HLOOKUP's order: its type (numbers 0,
    text 1, booleans 2) and value, text in lower case; blanks and errors None."""
    if isinstance(x, bool):
        return (2, x)
    if isinstance(x, (int, float)):
        return (0, float(x))
    if isinstance(x, str) and not isinstance(x, ExcelError):
        return (1, x.lower())
    return None


_WILD = re.compile(r"[*?~]")


def _negated(v):
    """A key's value in reversed order: numbers negated, booleans as -0/-1, text as the
    negated code points (a shorter prefix last, as it sorts first)."""
    if isinstance(v, str):
        return tuple(-ord(c) for c in v) + (1,)
    return -float(v)


class _Line:
    """One row or column searched: its values' keys, an index of the first position of
    each key built when an exact match first asks for it."""

    def __init__(self, values: list):
        self.values = values
        self.keys = [_key(x) for x in values]
        self._first: dict | None = None
        self._types: dict = {}

    def exact(self, value) -> int | None:
        """The first position equal to ``value`` (wildcards in text), or None."""
        want = _key(value)
        if want is None:
            return None
        if want[0] == 1 and _WILD.search(value):
            rx = re.compile(wildcard_regex(value), re.S | re.I)
            return next((i for i, k in enumerate(self.keys)
                         if k is not None and k[0] == 1 and rx.fullmatch(self.values[i])),
                        None)
        if self._first is None:
            self._first = {}
            for i, k in enumerate(self.keys):
                if k is not None:
                    self._first.setdefault(k, i)
        return self._first.get(want)

    def below(self, value) -> int | None:
        """The largest value not above ``value`` by Excel's bisection (an empty value is
        0), or None."""
        want = _key(0.0 if value is None else value)
        return None if want is None else excel_bsearch(self.keys, want)

    def above(self, value) -> int | None:
        """MATCH -1: from the first value, the first equal to ``value`` or, while the
        values of its type are not smaller than it, the last of them; None if the first
        is smaller (an empty value is 0). Over values of that type in descending order
        (the order MATCH -1 expects) by bisection, else by the scan itself."""
        want = _key(0.0 if value is None else value)
        if want is None:
            return None
        pos, neg = self._of_type(want[0])
        if neg is not None:  # descending: the scan stops at the first smaller value
            stop = bisect.bisect_right(neg, _negated(want[1]))
            eq = bisect.bisect_left(neg, _negated(want[1]))
            if eq < stop:
                return pos[eq]
            return pos[stop - 1] if stop else None
        hit = None
        for i in pos:
            k = self.keys[i][1]
            if k == want[1]:
                return i
            if k < want[1]:
                break
            hit = i
        return hit

    def _of_type(self, t: int) -> tuple[list, list | None]:
        """The positions of the values of type ``t``, and their values negated (text as
        the negated order of its characters) when they are in descending order."""
        hit = self._types.get(t)
        if hit is None:
            pos = [i for i, k in enumerate(self.keys) if k is not None and k[0] == t]
            vals = [self.keys[i][1] for i in pos]
            desc = all(a >= b for a, b in zip(vals, vals[1:], strict=False))
            hit = self._types[t] = (pos, [_negated(v) for v in vals] if desc else None)
        return hit

    def find(self, value, mode: int) -> int | None:
        if mode == 0:
            return self.exact(value)
        return self.below(value) if mode > 0 else self.above(value)


def _each(fn, *args):
    """``fn`` of single values over the arguments given as arrays (a lookup value, an
    index, a flag): Excel's element-wise rule (a one-row or one-column array repeats;
    outside a smaller array #N/A); each distinct combination computed once."""
    at = [i for i, a in enumerate(args) if _is_array(a)]
    if not at:
        return fn(*args)
    grids = {i: _rows(args[i]) for i in at}
    h = max(len(g) for g in grids.values())
    w = max(len(g[0]) for g in grids.values())
    memo: dict = {}
    out = []
    for r in range(h):
        row = []
        for c in range(w):
            vals = list(args)
            for i, g in grids.items():
                gr, gc = (0 if len(g) == 1 else r), (0 if len(g[0]) == 1 else c)
                if gr >= len(g) or gc >= len(g[0]):
                    vals = None
                    break
                vals[i] = g[gr][gc]
            if vals is None:
                row.append(ExcelError("#N/A", "outside a smaller array argument"))
                continue
            key = tuple((type(vals[i]), vals[i]) for i in at)
            res = memo.get(key)
            if res is None:
                res = fn(*vals)
                while isinstance(res, list):  # an array result: its top-left value
                    res = res[0][0] if res and isinstance(res[0], list) else res[0]
                memo[key] = res
            row.append(res)
        out.append(row)
    return out


def _found(x):
    """The value of a cell found: an empty one is 0."""
    return 0.0 if x is None else x


def _int_arg(x, what: str, default: int, whole=math.trunc) -> int:
    """A mode argument: omitted its default, else a number made whole by ``whole``
    (truncated; XLOOKUP's search_mode rounded down: test.xlsx LOOKUP!AH162:AW169, -1.1
    searches as -2)."""
    if x is None:
        return default
    try:
        v = finite_number(x, what)
    except Fail as ex:
        raise _Stop(ex.error) from None
    return whole(v)


def _line(rows: list[list], what: str) -> _Line:
    """The values of a one-row or one-column range or array, in order."""
    if len(rows) > 1 and len(rows[0]) > 1:
        raise _Stop(ExcelError("#N/A", f"{what} is not one row or column"))
    return _Line([x for row in rows for x in row])


# ------------------------------------------------------------------------- MATCH

def match(lookup_value, lookup_array, match_type=None):
    """MATCH(lookup_value, lookup_array, [match_type]): the position (1-based) of
    ``lookup_value`` in a row or column.

    Parameters
    ----------
    lookup_value : number, text, boolean, empty, error, or an array of them
        The value sought; an array (an array formula, a block column) gives an array of
        positions of its shape.
    lookup_array : one row or column (list of rows), or a single value
        Where it is sought; two dimensions is #N/A (Microsoft: "a range of cells").
    match_type : number, optional
        1 (the default; any positive number): the largest value not above
        ``lookup_value``, by Excel's bisection over a row taken as ascending; 0: the first
        equal value, wildcards in text; -1 (any negative number): the smallest value not
        below it over a row taken as descending (the module notes).

    Returns
    -------
    float or ExcelError or list of rows
        The position; #N/A when none is found; ``lookup_value``'s or ``lookup_array``'s
        own error value; #VALUE! for a ``match_type`` that is no number.

    Examples
    --------
    Microsoft's example (Product/Count table B2:B5 = 25, 38, 40, 41):

    >>> match(39, [[25], [38], [40], [41]], 1), match(41, [[25], [38], [40], [41]], 0)
    (2.0, 4.0)
    >>> str(match(40, [[25], [38], [40], [41]], -1))
    '#N/A'
    >>> match("b?n*", [["Apple", "banana"]], 0), match(4, [[5, 4, 4, 3]], -1)
    (2.0, 2.0)
    """
    lines: dict = {}  # the searched row or column, read once for every lookup value

    def one(value, match_type):
        try:
            for x in (value, lookup_array):
                if _error(x) is not None:
                    return x
            mode = _int_arg(match_type, "match_type", 1)
            if not lines:
                lines[0] = _line(_rows(lookup_array), "MATCH: lookup_array")
        except _Stop as stop:
            return stop.error
        mode = (mode > 0) - (mode < 0)
        if value is None and mode == 0:
            return ExcelError("#N/A", "MATCH: an empty lookup_value matches nothing")
        pos = lines[0].find(value, mode)
        return ExcelError("#N/A", MATCH_NOT_FOUND) if pos is None else float(pos + 1)

    return _each(one, lookup_value, _first(match_type))


# --------------------------------------------------------------- VLOOKUP, HLOOKUP

def _table_lookup(vertical: bool, value, table, index, range_lookup):
    name = "VLOOKUP" if vertical else "HLOOKUP"
    what = "col_index_num" if vertical else "row_index_num"
    rows = _rows(table)
    lines = [list(c) for c in zip(*rows, strict=True)] if vertical else rows
    cache: dict = {}

    def one(v, k, flag):
        for x in (v, table):
            if _error(x) is not None:
                return x
        pos, later = lookup_index(k, len(lines), what)
        if pos is None:
            return later
        approx = lookup_range_flag(True if flag is _OMITTED else flag)
        if isinstance(approx, ExcelError):
            return approx
        line = cache.get("line")
        if line is None:
            line = cache["line"] = _Line(lines[0])
        if v is None and not approx:
            return ExcelError("#N/A", f"{name}: an empty lookup_value matches nothing")
        hit = line.below(v) if approx else line.exact(v)
        if hit is None:
            shown = f'"{v}"' if isinstance(v, str) else value_text(v)
            return ExcelError("#N/A", f"{name}: {shown} not found")
        return later if later is not None else _found(lines[pos][hit])

    return _each(one, value, _first(index), _first(range_lookup))


def _first(x):
    """An array given where one value belongs: its top-left value (Excel's cached values,
    test.xlsx LOOKUP!AH44:AV44: ``HLOOKUP(C44:Q44,...,{2,1},0)`` uses row 2 throughout);
    a block column (one value per row) stays a column."""
    if isinstance(x, list):
        return _rows(x)[0][0]
    return x


_OMITTED = object()  # range_lookup left out (TRUE), as opposed to an empty argument (FALSE)


def vlookup(lookup_value, table_array, col_index_num, range_lookup=_OMITTED):
    """VLOOKUP(lookup_value, table_array, col_index_num, [range_lookup]): the value in
    column ``col_index_num`` of the row whose first column holds ``lookup_value``.

    Parameters
    ----------
    lookup_value : number, text, boolean, empty, error, or an array of them
        Sought in the first column (an array gives an array of results).
    table_array : list of rows, or a single value
        The table.
    col_index_num : number (or numeric text, a boolean), or an array of them
        1 the first column; truncated. Below 1 is #VALUE!, beyond the table #REF!, both
        only where the value is found (not found: #N/A).
    range_lookup : boolean, optional
        TRUE (omitted) the approximate match (the largest value not above
        ``lookup_value``, by Excel's bisection); FALSE (0, an empty argument) the first
        equal value, wildcards in text.

    Returns
    -------
    value or ExcelError or list of rows
        The cell's value (an empty cell 0); #N/A when not found; an error argument's value.

    Examples
    --------
    A table of IDs and names (hand-derived: 102 is found in row 2, 102.5 approximately in
    row 2 too, 104 not at all; column 4 is beyond the table, 0 before it):

    >>> t = [[101, "Davis", "Sara"], [102, "Fortana", "Olivier"], [103, "Leal", "Karina"]]
    >>> vlookup(102, t, 2, False), vlookup(102.5, t, 3), str(vlookup(104, t, 9, False))
    ('Fortana', 'Olivier', '#N/A')
    >>> str(vlookup(103, t, 4, False)), str(vlookup(103, t, 0, False))
    ('#REF!', '#VALUE!')
    """
    return _table_lookup(True, lookup_value, table_array, col_index_num, range_lookup)


def hlookup(lookup_value, table_array, row_index_num, range_lookup=_OMITTED):
    """HLOOKUP(lookup_value, table_array, row_index_num, [range_lookup]): VLOOKUP across:
    ``lookup_value`` sought in the first row, the value in row ``row_index_num`` of its
    column (:func:`vlookup` for the arguments and errors).

    Parameters
    ----------
    lookup_value : number, text, boolean, empty, error, or an array of them
    table_array : list of rows, or a single value
    row_index_num : number, or an array of them
    range_lookup : boolean, optional

    Returns
    -------
    value or ExcelError or list of rows

    Examples
    --------
    Microsoft's example (Axles 4, 5, 6; Bearings 4, 7, 8; Bolts 9, 10, 11):

    >>> t = [["Axles", "Bearings", "Bolts"], [4, 4, 9], [5, 7, 10], [6, 8, 11]]
    >>> hlookup("Axles", t, 2, True), hlookup("Bearings", t, 3, False), hlookup("B", t, 3)
    (4, 7, 5)
    """
    return _table_lookup(False, lookup_value, table_array, row_index_num, range_lookup)


# ------------------------------------------------------------------------ XLOOKUP

def xlookup(lookup_value, lookup_array, return_array, if_not_found=None, match_mode=None,
            search_mode=None):
    """XLOOKUP(lookup_value, lookup_array, return_array, [if_not_found], [match_mode],
    [search_mode]): the row (for a column ``lookup_array``) or column of ``return_array``
    at the position XMATCH finds.

    Parameters
    ----------
    lookup_value : number, text, boolean, empty, error, or an array of them
        An array gives an array of results (the first value of each found row or column).
    lookup_array : one row or column (list of rows), or a single value
        Two dimensions is #VALUE!.
    return_array : list of rows, or a single value
        As many rows as a column ``lookup_array`` (columns as a row one); else #VALUE!.
    if_not_found : value, optional
        The result where nothing is found (omitted or empty: #N/A).
    match_mode : number, optional
        0 exact (the default), -1 exact or the next smaller, 1 exact or the next larger,
        2 wildcards; XMATCH's (:func:`~rooflinexl.recalc.functions.xmatch_position`).
    search_mode : number, optional
        1 first to last (the default), -1 last to first, 2 / -2 binary search over an
        array sorted ascending / descending.

    Returns
    -------
    value or list of rows or ExcelError
        One value, or a row or column (list of rows) to spill; empty cells 0.

    Examples
    --------
    Hand-derived, after Microsoft's examples (a country's dialling code; the next larger
    with match_mode 1; if_not_found):

    >>> xlookup("brazil", [["China"], ["Brazil"]], [["+86"], ["+55"]])
    '+55'
    >>> xlookup(3, [[1], [2], [4]], [["a", 1], ["b", 2], ["c", 3]], "none", 1)
    [['c', 3]]
    >>> xlookup(9, [[1, 2]], [[5, 6]], "none"), str(xlookup(9, [[1, 2]], [[5, 6]]))
    ('none', '#N/A')
    """
    line: dict = {}

    def one(v, mm, sm):
        try:
            for x in (v, lookup_array, return_array):
                if _error(x) is not None:
                    return x
            mode = _int_arg(mm, "match_mode", 0)
            search = _int_arg(sm, "search_mode", 1, math.floor)
        except _Stop as stop:
            return stop.error
        if not line:  # read once for every lookup value
            line["rows"], line["ret"] = _rows(lookup_array), _rows(return_array)
        rows, ret = line["rows"], line["ret"]
        h, w = len(rows), len(rows[0])
        if h > 1 and w > 1:
            return ExcelError("#VALUE!", "XLOOKUP: lookup_array is not one row or column")
        down = w == 1 and (h > 1 or len(ret) > 1 or len(ret[0]) == 1)
        if (len(ret) if down else len(ret[0])) != (h if down else w):
            return ExcelError("#VALUE!", "XLOOKUP: return_array's size is not "
                              "lookup_array's")
        if "keys" not in line:
            line["texts"] = [x for row in rows for x in row]
            line["keys"] = [xmatch_key(x) for x in line["texts"]]
        if mode in (-1, 0, 1) and search in (1, -1):  # an index of the keys, built once
            find = line.get(search)
            if find is None:
                find = line[search] = xmatch_nearest(line["keys"], search)
            pos = find(v, mode)
        else:
            pos = xmatch_position(v, line["keys"], line["texts"], mode, search)
        if isinstance(pos, ExcelError):
            if str(pos) != "#N/A":
                return pos
            return ExcelError("#N/A", "XLOOKUP: no match") if if_not_found is None \
                else if_not_found
        i = int(pos) - 1
        out = [[_found(x) for x in ret[i]]] if down else [[_found(r[i])] for r in ret]
        return out[0][0] if len(out) == 1 and len(out[0]) == 1 else out

    return _each(one, lookup_value, match_mode, search_mode)


#: the functions of this module, by Excel name (all added to BUILTINS)
LOOKUPS = {"VLOOKUP": vlookup, "HLOOKUP": hlookup, "MATCH": match, "XLOOKUP": xlookup}
for _f in LOOKUPS.values():
    _f.plain_text = True  # a text "#N/A" found in a table stays text
BUILTINS.update(LOOKUPS)
