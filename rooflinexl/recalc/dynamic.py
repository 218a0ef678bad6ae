"""Dynamic references in a block: INDIRECT and OFFSET with computed arguments.

A block whose formula calls ``INDIRECT`` or ``OFFSET`` is evaluated in two steps
(:func:`evaluate`): the call's arguments are computed for every row of the block
at once, each row's arguments become the reference they name (memoised on equal
arguments), and the call is replaced by that reference -- the same reference for
a run of rows (``INDIRECT("Data!B2")``), or the same offset from each row
(``INDIRECT("A"&ROW()-1)`` is the cell above, a running total) -- before the rest
of the formula is evaluated over that run of rows as any other block. A text
that names no reference is ``#REF!``, as in Excel. The range operator between
references that INDEX, OFFSET or INDIRECT give (``SUM($A$3:INDEX(A:A,ROW()-1))``) is
resolved the same way, per row, to the rectangle holding both ends.

Excel's documentation is the contract: "INDIRECT function" (``ref_text`` an A1
or R1C1 reference, a defined name, or a reference to another sheet; ``#REF!``
when it is not one) and "OFFSET function" (``rows``/``cols`` from the upper-left
cell, ``height``/``width`` default to the reference's, ``#REF!`` off the sheet's
edge, ``#VALUE!`` when an argument is not a number). Anything else the block
evaluator does not cover (structured references in the text, another workbook,
a negative size ...) raises :class:`~rooflinexl.recalc.compile.Unsupported`: the
cells are tried as blocks of one row, else error values naming why.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from rooflinexl.addresses import column_number, unquote_sheet
from rooflinexl.recalc.compile import (
    POSITION_FUNCTIONS,
    Call,
    Context,
    Lit,
    Rng,
    Unsupported,
    left_out,
)
from rooflinexl.recalc.refs import MAX_COL, MAX_ROW
from rooflinexl.recalc.values import BOOL, EMPTY, ERR, NUM, STR, kind_of

__all__ = ["DYNAMIC", "dynamic_calls", "evaluate", "resolve_text"]

#: the functions whose result is a reference computed from values, and the range
#: operator between such references (``INDEX(A:A,2):INDEX(A:A,n)``)
DYNAMIC = frozenset({"INDIRECT", "OFFSET", ":"})
#: the functions whose result may be the reference one end of a range operator names
_REFERENCE_ENDS = frozenset({"INDEX"})

#: functions a whole column or row named by INDIRECT may be clipped to the used area in:
#: their value does not depend on the blank cells past it (ROWS, COUNTBLANK, COUNTIF ...
#: do not: they are read whole)
_CLIP_SAFE = frozenset({"SUM", "COUNT", "COUNTA", "AVERAGE", "MIN", "MAX", "VLOOKUP",
                        "HLOOKUP", "MATCH", "XLOOKUP", "SUMIF", "SUMIFS", "AVERAGEIF",
                        "AVERAGEIFS", "MAXIFS", "MINIFS"})

_SHEET = r"(?:'(?:[^']|'')+'|[^'!\[\]]+)"
_A1_RECT = re.compile(r"^\$?([A-Z]{1,3})\$?([0-9]{1,7})(?::\$?([A-Z]{1,3})\$?([0-9]{1,7}))?$",
                      re.IGNORECASE)
_A1_COLS = re.compile(r"^\$?([A-Z]{1,3}):\$?([A-Z]{1,3})$", re.IGNORECASE)
_A1_ROWS = re.compile(r"^\$?([0-9]{1,7}):\$?([0-9]{1,7})$")
_R1C1_PART = r"R(\[-?[0-9]{1,7}\]|[0-9]{1,7})?C(\[-?[0-9]{1,5}\]|[0-9]{1,5})?"
_R1C1 = re.compile(rf"^{_R1C1_PART}(?::{_R1C1_PART})?$", re.IGNORECASE)
_WITH_SHEET = re.compile(rf"^({_SHEET})!(.+)$")
_NAME = re.compile(r"^[A-Za-z_\\][\w.]*$")

#: a resolved reference: (sheet, r1, c1, r2, c2, whole) -- ``whole``: a whole column or
#: row, clipped to the used area
Target = tuple


def dynamic_calls(node) -> list[Call]:
    """Every INDIRECT/OFFSET call in ``node``, innermost first."""
    out: list[Call] = []

    def walk(x):
        if isinstance(x, Call):
            for a in x.args:
                walk(a)
            if x.name in DYNAMIC:
                out.append(x)

    walk(node)
    return out


def resolve_text(text: str, a1: bool, ctx: Context, sheet: str, row: int, col: int):
    """The reference ``text`` names, as INDIRECT reads it in cell (row, col) of ``sheet``:
    a :data:`Target`, or the error code ``"#REF!"`` when it names none.

    >>> from types import SimpleNamespace as NS
    >>> ctx = NS(sheet=lambda s: {"data": "Data"}[s.casefold()], names={}, clip=(10, 5))
    >>> resolve_text("data!B2:c3", True, ctx, "S", 4, 1)
    ('Data', 2, 2, 3, 3, False)
    >>> resolve_text("R[-1]C", False, ctx, "S", 4, 1), resolve_text("B", True, ctx, "S", 4, 1)
    (('S', 3, 1, 3, 1, False), '#REF!')
    >>> resolve_text("A:A", True, ctx, "S", 4, 1)
    ('S', 1, 1, 10, 1, True)
    """
    if not text:
        return "#REF!"
    if a1 and "[" in text:
        raise Unsupported(f"INDIRECT of a structured or external reference {text!r}")
    m = _WITH_SHEET.match(text)
    ref_sheet = sheet
    body = text
    if m:
        try:
            ref_sheet = ctx.sheet(unquote_sheet(m.group(1)))
        except Unsupported:
            return "#REF!"  # no such sheet
        body = m.group(2)
    if not a1:
        return _r1c1(body, ref_sheet, row, col)
    if (r := _A1_RECT.match(body)):
        c1, r1 = column_number(r.group(1)), int(r.group(2))
        c2, r2 = (column_number(r.group(3)), int(r.group(4))) if r.group(3) else (c1, r1)
        return _checked(ref_sheet, r1, c1, r2, c2, False)
    if (r := _A1_COLS.match(body)):
        c1, c2 = column_number(r.group(1)), column_number(r.group(2))
        return _checked(ref_sheet, 1, c1, ctx.clip[0], c2, True)
    if (r := _A1_ROWS.match(body)):
        r1, r2 = int(r.group(1)), int(r.group(2))
        return _checked(ref_sheet, r1, 1, r2, ctx.clip[1], True)
    if m is None and body.upper() in ctx.names:
        rng = ctx.name(body, sheet)  # Unsupported: a name that is not a plain range
        if isinstance(rng, Lit) and kind_of(rng.value) == ERR:  # another sheet's name
            return "#REF!"
        if not isinstance(rng, Rng):  # a name standing for a formula: no reference here
            raise Unsupported(f"INDIRECT of a name that is a formula {text!r}")
        return (rng.sheet, rng.r1, rng.c1, rng.r2, rng.c2, False)
    if _NAME.match(body) and (m is not None or body.upper() in {
            k.upper() for k in getattr(ctx, "defined", {})}):
        raise Unsupported(f"INDIRECT of a sheet-scoped name {text!r}")
    return "#REF!"


def _r1c1(body: str, sheet: str, row: int, col: int):
    m = _R1C1.match(body)
    if m is None:
        return "#REF!"
    parts = m.groups()

    def at(spec, here):
        if spec is None:
            return here
        if spec.startswith("["):
            return here + int(spec[1:-1])
        return int(spec)

    r1, c1 = at(parts[0], row), at(parts[1], col)
    if body.count(":"):
        r2, c2 = at(parts[2], row), at(parts[3], col)
    else:
        r2, c2 = r1, c1
    return _checked(sheet, r1, c1, r2, c2, False)


def _checked(sheet, r1, c1, r2, c2, whole):
    r1, r2 = min(r1, r2), max(r1, r2)
    c1, c2 = min(c1, c2), max(c1, c2)
    if r1 < 1 or c1 < 1 or r2 > MAX_ROW or c2 > MAX_COL:
        return "#REF!"
    return (sheet, r1, c1, r2, c2, whole)


def _number(kind: int, num: float, obj) -> float | str:
    """OFFSET's numeric argument: a number, or the error code it gives."""
    if kind in (NUM, BOOL):
        return num
    if kind == EMPTY:
        return 0.0
    if kind == ERR:
        return str(obj)
    try:  # text that is a number counts as one
        return float(str(obj).strip())
    except ValueError:
        return "#VALUE!"


def targets(ev, node: Call, ctx: Context) -> list:
    """Per row of the block ``ev`` (:class:`~rooflinexl.recalc.kernels.BlockEval`): the
    :data:`Target` the INDIRECT/OFFSET call ``node`` refers to, or an error code."""
    n, rows = ev.n, range(ev.r0, ev.r1 + 1)
    if node.name == "INDIRECT":
        if not 1 <= len(node.args) <= 2:
            raise Unsupported(f"INDIRECT with {len(node.args)} arguments")
        text = ev.value(node.args[0]).broadcast(n)
        a1 = ev.value(node.args[1]).broadcast(n) if len(node.args) == 2 else None
        memo: dict = {}
        out = []
        for i, r in enumerate(rows):
            k = int(text.kind[i])
            if k == ERR:
                out.append(str(text.obj[i]))
                continue
            style = True
            if a1 is not None:
                ka = int(a1.kind[i])
                if ka == ERR:
                    out.append(str(a1.obj[i]))
                    continue
                if ka not in (NUM, BOOL, EMPTY):
                    raise Unsupported("INDIRECT's a1 argument is not a number or boolean")
                style = bool(a1.num[i])
            if k == STR:
                t = str(text.obj[i])
            elif k == EMPTY:
                t = ""
            else:
                raise Unsupported("INDIRECT of a number or boolean")
            key = (t, style, r if not style else 0)
            hit = memo.get(key)
            if hit is None:
                hit = memo[key] = resolve_text(t, style, ctx, ev.sheet, r, ev.col)
            out.append(hit)
        return out
    if node.name == ":":
        return _range_targets(ev, node)
    return _offset_targets(ev, node)


def _range_targets(ev, node: Call) -> list:
    """Per row: the reference ``left:right`` names, the smallest rectangle holding
    both ends (Microsoft, "Calculation operators and precedence": ``:`` "produces one
    reference to all the cells between two references, including the two
    references"); an end that is an error value is that error."""
    ends = [_end_targets(ev, end) for end in node.args]
    out = []
    for row in zip(*ends, strict=True):  # A1:B2:C3, a chain, is the rectangle of all
        err = next((x for x in row if isinstance(x, str)), None)
        if err is not None:
            out.append(err)
        elif len({x[0] for x in row}) != 1:
            raise Unsupported("a range operator between references on two sheets")
        else:
            out.append((row[0][0], min(x[1] for x in row), min(x[2] for x in row),
                        max(x[3] for x in row), max(x[4] for x in row), False))
    return out


def _end_targets(ev, end) -> list:
    """Per row: the :data:`Target` one end of a range operator refers to."""
    rows = range(ev.r0, ev.r1 + 1)
    if isinstance(end, Lit) and kind_of(end.value) == ERR:
        return [str(end.value)] * ev.n
    if isinstance(end, Rng):
        if end.name == "whole":
            raise Unsupported("a range operator with a whole column or row")
        return [(end.sheet, *_rows_cols(end, r)) for r in rows]
    if isinstance(end, Call) and end.name == "CHOOSE" and len(end.args) >= 2:
        return _choose_targets(ev, end)
    if not (isinstance(end, Call) and end.name in _REFERENCE_ENDS and end.args
            and isinstance(end.args[0], Rng) and 2 <= len(end.args) <= 3):
        raise Unsupported("operator ':' between other than references")
    base = end.args[0]
    if base.name == "whole":
        raise Unsupported("INDEX of a whole column or row at the end of a range")
    vals = [ev.value(a).broadcast(ev.n) for a in end.args[1:]]
    out = []
    for i, r in enumerate(rows):
        ra, c1, rb, c2 = _rows_cols(base, r)
        nums = [_number(int(v.kind[i]), float(v.num[i]), None if v.obj is None else v.obj[i])
                for v in vals]
        err = next((x for x in nums if isinstance(x, str)), None)
        if err is not None:
            out.append(err)
            continue
        if any(not math.isfinite(x) or x < 0 for x in nums):
            out.append("#VALUE!")
            continue
        h, w = rb - ra + 1, c2 - c1 + 1
        row, col = int(nums[0]), int(nums[1]) if len(nums) == 2 else None
        if col is None:  # INDEX(reference, n): along a row or column of one
            if h == 1 and w > 1:
                row, col = 1, row
            elif w == 1:
                col = 1
            else:
                raise Unsupported("INDEX of a rectangle without a column, in a range")
        if row > h or col > w:
            out.append("#REF!")
            continue
        out.append((base.sheet, ra + row - 1 if row else ra, c1 + col - 1 if col else c1,
                    ra + row - 1 if row else rb, c1 + col - 1 if col else c2, False))
    return out


def _choose_targets(ev, end: Call) -> list:
    """Per row: the reference ``CHOOSE(index_num, value1, ...)`` at one end of a range
    operator picks (Microsoft, "CHOOSE function": the values "can be ... cell references";
    an index_num below 1 or past the last value is ``#VALUE!``, a fraction is cut off).
    Excel: IronCalc's CHOOSE book, ``SUM(A9:CHOOSE(2,A10,A11,A12))`` is 68."""
    index = ev.value(end.args[0]).broadcast(ev.n)
    choices = [_end_targets(ev, a) for a in end.args[1:]]
    out = []
    for i in range(ev.n):
        x = _number(int(index.kind[i]), float(index.num[i]),
                    None if index.obj is None else index.obj[i])
        if isinstance(x, str):
            out.append(x)
        elif not math.isfinite(x) or not 1 <= int(x) <= len(choices):
            out.append("#VALUE!")
        else:
            out.append(choices[int(x) - 1][i])
    return out


def _rows_cols(rng: Rng, row: int) -> tuple[int, int, int, int]:
    """(r1, c1, r2, c2) of ``rng`` in the block's row ``row``."""
    a, b = rng.rows_at(row)
    return a, rng.c1, b, rng.c2


def _offset_targets(ev, node: Call) -> list:
    args = node.args
    if not 3 <= len(args) <= 5:
        raise Unsupported(f"OFFSET with {len(args)} arguments")
    base = args[0]
    if isinstance(base, Lit) and kind_of(base.value) == ERR:  # INDIRECT's #REF! ...
        return [str(base.value)] * ev.n
    if not isinstance(base, Rng):
        raise Unsupported("OFFSET of something other than a reference")
    for a in args[3:]:
        if isinstance(a, Lit) and not isinstance(a.value, bool) and a.value == 0:
            raise Unsupported("OFFSET with an omitted or zero height or width")
    vals = [ev.value(a).broadcast(ev.n) for a in args[1:]]
    out = []
    for i, r in enumerate(range(ev.r0, ev.r1 + 1)):
        ra, rb = base.rows_at(r)
        nums = []
        for v in vals:
            x = _number(int(v.kind[i]), float(v.num[i]), None if v.obj is None else v.obj[i])
            nums.append(x)
        err = next((x for x in nums if isinstance(x, str)), None)
        if err is not None:
            out.append(err)
            continue
        if any(not math.isfinite(x) or x < 0 and x != int(x) for x in nums) or any(
                x != int(x) for x in nums[2:]):
            raise Unsupported("OFFSET with a negative fractional offset, or a fractional size")
        # a fraction is cut off: POI's FormulaEvalTestData.xlsx, OFFSET(G7, "2.1", "1.9")
        # is H9 in Excel's cached value
        dr, dc = int(nums[0]), int(nums[1])
        h = int(nums[2]) if len(nums) > 2 else rb - ra + 1
        w = int(nums[3]) if len(nums) > 3 else base.c2 - base.c1 + 1
        if h < 0 or w < 0:
            raise Unsupported("OFFSET with a negative height or width")
        if h == 0 or w == 0:
            out.append("#REF!")
            continue
        r1, c1 = ra + dr, base.c1 + dc
        out.append(_checked(base.sheet, r1, c1, r1 + h - 1, c1 + w - 1, False)
                   if r1 >= 1 and c1 >= 1 else "#REF!")
    return out


def _runs(tg: list, r0: int) -> list[tuple[int, int, object]]:
    """Consecutive rows (offsets a..b from the block's first row ``r0``) whose targets
    are the same reference, or the same offset from each row: (a, b, node standing for
    the call there)."""
    from rooflinexl.recalc.values import ERRORS

    out = []
    i, n = 0, len(tg)
    while i < n:
        t = tg[i]
        j = i + 1
        if isinstance(t, str):
            while j < n and tg[j] == t:
                j += 1
            out.append((i, j - 1, Lit(ERRORS[t])))
            i = j
            continue
        s, r1, c1, r2, c2, whole = t
        d1, d2 = r1 - (r0 + i), r2 - (r0 + i)
        same = j < n and tg[j] == t
        if same:
            while j < n and tg[j] == t:
                j += 1
            out.append((i, j - 1, Rng(s, r1, c1, r2, c2, False, False, whole and "whole")))
        else:
            while (j < n and not isinstance(tg[j], str) and tg[j][0] == s
                   and tg[j][2] == c1 and tg[j][4] == c2 and tg[j][5] == whole
                   and tg[j][1] - (r0 + j) == d1 and tg[j][3] - (r0 + j) == d2):
                j += 1
            if j - i == 1:
                out.append((i, i, Rng(s, r1, c1, r2, c2, False, False, whole and "whole")))
            else:
                out.append((i, j - 1, Rng(s, d1, c1, d2, c2, True, True,
                                          whole and "whole")))
        i = j
    return out


def _substitute(node, old: Call, new):
    if node is old:
        return new
    if isinstance(node, Call):
        args = [_substitute(a, old, new) for a in node.args]
        if any(a is not b for a, b in zip(args, node.args, strict=True)):
            return replace(node, args=args)
    return node


def _parent(node, child):
    if isinstance(node, Call):
        for a in node.args:
            if a is child:
                return node
            p = _parent(a, child)
            if p is not None:
                return p
    return None


def evaluate(tree, r0: int, r1: int, ctx: Context, make_eval: Callable,
             leaf: Callable, spread: tuple[int, int] | None = None) -> None:
    """Evaluate ``tree`` over rows r0..r1, its dynamic calls replaced by what they refer
    to: ``make_eval(a, b)`` gives a BlockEval of rows a..b; ``leaf(tree, a, b)``
    evaluates a tree without dynamic calls over rows a..b (in ascending row order).

    ``spread``: (first row, column offset k) when the rows are column k of an array
    formula's range: a call at the top of ``tree`` then gives each cell the cell of its
    reference at the same offset, as Excel lays a reference over an array formula's
    range (one row or column repeated; ``#N/A`` past its end)."""
    calls = dynamic_calls(tree)
    if not calls:  # what SUBTOTAL leaves out of a reference resolved here, taken out
        leaf(left_out(ctx, tree, r0, r1), r0, r1)
        return
    node = calls[0]  # innermost: its arguments hold no dynamic call
    ev = make_eval(r0, r1)
    ev.intersect = True  # a plain cell's arguments: a range intersected with its row
    with np.errstate(all="ignore"):
        tg = targets(ev, node, ctx)
    parent = _parent(tree, node)
    for a, b, new in _runs(tg, r0):
        if isinstance(new, Rng) and new.name == "whole":
            if parent is None or parent.name not in _CLIP_SAFE:
                raise Unsupported("INDIRECT of a whole column or row outside SUM, lookups ...")
        if isinstance(new, Rng):
            new = replace(new, name=None)
        old = node
        if isinstance(new, Lit) and parent is not None and parent.name in POSITION_FUNCTIONS:
            old = parent  # ROW(#REF!) is #REF!
        pieces = [(r0 + a, r0 + b, new)]
        if spread is not None and node is tree and isinstance(new, Rng):
            pieces = _cells_of(new, r0 + a, r0 + b, spread)
        for pa, pb, x in pieces:
            evaluate(_substitute(tree, old, x), pa, pb, ctx, make_eval, leaf)


def _cells_of(rng: Rng, a: int, b: int, spread: tuple[int, int]) -> list:
    """Rows a..b of column ``k`` of an array formula's range starting at row ``top``
    (``spread``), showing the fixed reference ``rng``: [(first, last, cell reference
    relative to the row, or #N/A past its end)]."""
    from rooflinexl.recalc.values import ERRORS

    if rng.r1_rel:
        raise Unsupported("a relative dynamic reference over an array formula's range")
    top, k = spread
    na = Lit(ERRORS["#N/A"])
    c = rng.c1 if rng.c1 == rng.c2 else rng.c1 + k
    if c > rng.c2:
        return [(a, b, na)]
    if rng.r1 == rng.r2:
        return [(a, b, Rng(rng.sheet, rng.r1, c, rng.r1, c, False, False))]
    last = min(b, top + rng.r2 - rng.r1)  # the reference's last row shows here
    out = []
    if a <= last:
        out.append((a, last, Rng(rng.sheet, rng.r1 - top, c, rng.r1 - top, c, True, True)))
    if last < b:
        out.append((max(a, last + 1), b, na))
    return out
