"""A1 formula text as a template of references; the relative (R1C1) form of a cell's formula.

Filled-down formulas differ only in their relative row numbers: ``=B2*C2`` in
row 2 and ``=B3*C3`` in row 3 are both ``=R[0]C[-2]*R[0]C[-1]`` in Excel's
R1C1 notation. :func:`group_keys` gives every formula cell of a column the key
of its relative form, without a Python-level parse of each formula: cells
whose text is equal once digits are removed (the *skeleton*) are compared to
an analysed anchor cell with numpy (their digit runs must equal the anchor's,
shifted by the row difference exactly where the anchor has a relative row).

:func:`template` splits a formula into literal pieces and reference slots;
:func:`render` writes it back for another cell (shared formulas, the
per-cell fallback). String literals, quoted sheet names and bracketed table
specifiers are never touched.
"""
from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from itertools import chain

import numpy as np

from rooflinexl.addresses import COLUMN_PATTERN, MAX_COL, MAX_ROW, ROW_PATTERN
from rooflinexl.addresses import column_letters as col_letters
from rooflinexl.addresses import column_number as col_number

__all__ = ["Slot", "Template", "group_keys", "r1c1_key", "render", "template"]


_SCAN = re.compile(rf"""
  "(?:[^"]|"")*"
| '(?:[^']|'')*'
| \[(?:[^\[\]']|'.|\[(?:[^\[\]']|'.)*\])*\]
| (?<![\w.$\\])(?P<cell>(?P<ca>\$?)(?P<col>{COLUMN_PATTERN})(?P<ra>\$?)(?P<row>{ROW_PATTERN}))
  (?![\w.(\\!:'"])
| (?<![\w.$\\])(?P<cr>(?P<ca1>\$?)(?P<col1>{COLUMN_PATTERN})(?P<ra1>\$?)(?P<row1>{ROW_PATTERN})
  :(?P<ca2>\$?)(?P<col2>{COLUMN_PATTERN})(?P<ra2>\$?)(?P<row2>{ROW_PATTERN}))(?![\w.(\\!'"])
| (?<![\w.$\\:])(?P<colr>(?P<cca1>\$?)(?P<ccol1>{COLUMN_PATTERN})
  :(?P<cca2>\$?)(?P<ccol2>{COLUMN_PATTERN}))(?![\w.(\\!:'"])
| (?<![\w.$\\:])(?P<rowr>(?P<rra1>\$?)(?P<rrow1>{ROW_PATTERN})
  :(?P<rra2>\$?)(?P<rrow2>{ROW_PATTERN}))
  (?![\w.(\\!:'"])
""", re.X)
_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Slot:
    """One corner of a reference: a row and/or a column, each absolute or relative.

    ``row``/``col`` are the values as written (for the template's own cell);
    ``None`` where the slot has no row (``A:A``) or no column (``1:1``).
    """

    col: int | None
    col_abs: bool
    row: int | None
    row_abs: bool
    row_at: int  # offset of the row digits in the text (-1 when none)
    sticky: bool = False  # written $5 but follows the cell's row (a table's @ row)

    def text(self, dr: int, dc: int) -> str:
        out = ""
        if self.col is not None:
            c = self.col if self.col_abs else self.col + dc
            out += ("$" if self.col_abs else "") + (
                col_letters(c) if 1 <= c <= MAX_COL else "#REF!")
        if self.row is not None:
            r = self.row if self.row_abs and not self.sticky else self.row + dr
            out += ("$" if self.row_abs else "") + (str(r) if 1 <= r <= MAX_ROW else "#REF!")
        return out

    def key(self, r0: int, c0: int) -> str:
        out = ""
        if self.row is not None:
            out += f"R{self.row}" if self.row_abs else f"R[{self.row - r0}]"
        if self.col is not None:
            out += f"C{self.col}" if self.col_abs else f"C[{self.col - c0}]"
        return out


@dataclass(frozen=True)
class Template:
    """Literal pieces and reference slots of one formula text (for its own cell)."""

    text: str
    row: int
    col: int
    pieces: tuple  # str | tuple[Slot, ...] (one slot, or two joined by ':')
    refs: tuple = ()  # (start, end, slots) of every reference, in text order

    def key(self) -> str:
        out = []
        for p in self.pieces:
            if isinstance(p, str):
                out.append(p)
            else:
                out.append("\x00" + ":".join(s.key(self.row, self.col) for s in p) + "\x00")
        return "".join(out)

    def relative_rows(self) -> list[int]:
        """Text offsets of the digit runs that are relative row numbers."""
        return [s.row_at for p in self.pieces if not isinstance(p, str) for s in p
                if s.row is not None and not s.row_abs]


def template(text: str, row: int, col: int) -> Template:
    """Split ``text`` (the formula of cell (row, col)) into pieces and reference slots."""
    pieces: list = []
    refs: list = []
    last = 0
    for m in _SCAN.finditer(text):
        kind = m.lastgroup
        if kind is None or m.group(kind) is None:
            continue
        if kind == "cell":
            slots = (Slot(col_number(m.group("col")), bool(m.group("ca")), int(m.group("row")),
                          bool(m.group("ra")), m.start("row")),)
        elif kind == "cr":
            slots = (Slot(col_number(m.group("col1")), bool(m.group("ca1")), int(m.group("row1")),
                          bool(m.group("ra1")), m.start("row1")),
                     Slot(col_number(m.group("col2")), bool(m.group("ca2")), int(m.group("row2")),
                          bool(m.group("ra2")), m.start("row2")))
        elif kind == "colr":
            slots = (Slot(col_number(m.group("ccol1")), bool(m.group("cca1")), None, False, -1),
                     Slot(col_number(m.group("ccol2")), bool(m.group("cca2")), None, False, -1))
        elif kind == "rowr":
            slots = (Slot(None, False, int(m.group("rrow1")), bool(m.group("rra1")),
                          m.start("rrow1")),
                     Slot(None, False, int(m.group("rrow2")), bool(m.group("rra2")),
                          m.start("rrow2")))
        else:
            continue
        if m.start() > last:
            pieces.append(text[last:m.start()])
        pieces.append(slots)
        refs.append((m.start(), m.end(), slots))
        last = m.end()
    if last < len(text):
        pieces.append(text[last:])
    return Template(text, row, col, tuple(pieces), tuple(refs))


def render(t: Template, row: int, col: int) -> str:
    """The template's formula as written in cell (row, col)."""
    if row == t.row and col == t.col:
        return t.text
    dr, dc = row - t.row, col - t.col
    return "".join(p if isinstance(p, str) else ":".join(s.text(dr, dc) for s in p)
                   for p in t.pieces)


def render_rows(t: Template, r0: int, r1: int, col: int) -> list[str]:
    """The template's formula as written in rows r0..r1 of column ``col`` (fast)."""
    out = render_at(t, range(r0, r1 + 1), col)
    return out if out is not None else [render(t, r, col) for r in range(r0, r1 + 1)]


def render_at(t: Template, rows, col: int) -> list[str] | None:
    """The template's formula as written in each of ``rows`` of column ``col``; None when
    one of them would refer outside the grid (:func:`render` writes ``#REF!`` there)."""
    if not rows:
        return []
    r0, r1 = (rows[0], rows[-1]) if isinstance(rows, range) else (min(rows), max(rows))
    dc = col - t.col
    parts: list[str] = []
    offsets: list[int] = []
    for p in t.pieces:
        if isinstance(p, str):
            parts.append(p.replace("%", "%%"))
            continue
        texts = []
        for s in p:
            out = ""
            if s.col is not None:
                c = s.col if s.col_abs else s.col + dc
                if not 1 <= c <= MAX_COL:
                    return None
                out += ("$" if s.col_abs else "") + col_letters(c)
            if s.row is not None:
                if s.row_abs and not s.sticky:
                    out += "$" + str(s.row)
                else:
                    off = s.row - t.row
                    if r0 + off < 1 or r1 + off > MAX_ROW:
                        return None
                    out += ("$" if s.row_abs else "") + "%d"
                    offsets.append(off)
            texts.append(out)
        parts.append(":".join(texts))
    fmt = "".join(parts)
    if not offsets:
        return [fmt.replace("%%", "%")] * len(rows)
    columns = [range(rows.start + o, rows.stop + o) if isinstance(rows, range)
               else list(map(o.__add__, rows)) for o in offsets]  # each slot's row numbers
    return list(map(fmt.__mod__, zip(*columns, strict=True)))


def r1c1_key(text: str, row: int, col: int) -> str:
    """The relative form of a formula (a string; equal for filled-down copies)."""
    return template(text, row, col).key()


def group_keys(rows: list[int], col: int, texts: list[str],
               key_ids: dict[str, int]) -> list[int]:
    """Key id (into ``key_ids``, extended as needed) of each formula of one column.

    ``rows`` ascending is the usual case but not required. A formula filled down is found
    by writing the first remaining formula for every remaining row (:func:`render_at`) and
    comparing texts: a cell whose text is that copy has the first one's relative form. What
    is left (at most a few anchors are tried) is grouped by :func:`_keys_by_digits`.
    """
    n = len(texts)
    out = [-1] * n
    todo = list(range(n))
    for _ in range(8):
        if len(todo) < 2:
            break
        a = todo[0]
        t = template(texts[a], rows[a], col)
        whole = len(todo) == n
        copies = render_at(t, rows if whole else [rows[i] for i in todo], col)
        if copies is None:
            break
        same = list(map(operator.eq, texts if whole else [texts[i] for i in todo], copies))
        kid = key_ids.setdefault(t.key(), len(key_ids))
        if whole and all(same):  # the whole column filled down from its first formula
            return [kid] * n
        for i, hit in zip(todo, same, strict=True):
            if hit:
                out[i] = kid
        left = [i for i, hit in zip(todo, same, strict=True) if not hit]
        if len(todo) - len(left) < 16:  # no fill-down here: the digit comparison below
            todo = left
            break
        todo = left
    if todo:
        rest = _keys_by_digits([rows[i] for i in todo], col, [texts[i] for i in todo], key_ids)
        for i, k in zip(todo, rest, strict=True):
            out[i] = k
    return out


def _keys_by_digits(rows: list[int], col: int, texts: list[str],
                    key_ids: dict[str, int]) -> list[int]:
    """:func:`group_keys` by the formulas' skeletons and digit runs (see the module)."""
    n = len(texts)
    out = [-1] * n
    groups: dict[str, list[int]] = {}
    sub = _DIGITS.sub
    for i, t in enumerate(texts):
        groups.setdefault(sub("#", t), []).append(i)  # "#": IF(,,4) is no IF(,4,)
    findall = _DIGITS.findall
    for members in groups.values():
        if len(members) == 1:
            i = members[0]
            out[i] = key_ids.setdefault(r1c1_key(texts[i], rows[i], col), len(key_ids))
            continue
        nums = [findall(texts[i]) for i in members]
        m = len(nums[0])
        same = all(len(x) == m for x in nums)
        remaining = np.arange(len(members))
        if same and m:
            flat = list(chain.from_iterable(nums))
            try:
                values = np.array(flat, dtype=np.int64).reshape(len(members), m)
            except (OverflowError, ValueError):
                same = False
            else:
                lengths = np.fromiter(map(len, flat), dtype=np.int64,
                                      count=len(flat)).reshape(len(members), m)
        row_arr = np.array([rows[i] for i in members], dtype=np.int64)
        tries = 0
        while len(remaining):
            a = members[remaining[0]]
            t = template(texts[a], rows[a], col)
            kid = key_ids.setdefault(t.key(), len(key_ids))
            if not same or tries >= 8:
                out[a] = kid
                remaining = remaining[1:]
                if tries >= 8 or not same:
                    for j in remaining:
                        i = members[j]
                        out[i] = key_ids.setdefault(r1c1_key(texts[i], rows[i], col),
                                                    len(key_ids))
                    break
                continue
            tries += 1
            if m == 0:
                for j in remaining:
                    out[members[j]] = kid
                break
            starts = [mm.start() for mm in _DIGITS.finditer(texts[a])]
            rel = np.zeros(m, dtype=bool)
            index = {s: k for k, s in enumerate(starts)}
            for off in t.relative_rows():
                rel[index[off]] = True
            va, la = values[remaining[0]], lengths[remaining[0]]
            sub_v, sub_l = values[remaining], lengths[remaining]
            shift = (row_arr[remaining] - rows[a])[:, None]
            expect = va[None, :] + np.where(rel[None, :], shift, 0)
            ok_const = (sub_v == va[None, :]) & (sub_l == la[None, :])
            ok_rel = (sub_v == expect) & (expect >= 1)
            ok = np.where(rel[None, :], ok_rel, ok_const).all(axis=1)
            ok[0] = True
            for j in remaining[ok]:
                out[members[j]] = kid
            remaining = remaining[~ok]
    return out
