"""Cell addresses in A1 notation: one home for column letters, cells, ranges and sheet names.

Every layer that reads or writes an address (the package reader, the stamper,
the headless engine, the reports, the workbook builders) uses these functions,
and carries a cell as ``(row, column)``, both 1-based, formatting A1 text only
at the edge where a person or a file needs it.

Examples
--------
>>> column_number("AB"), column_letters(28)
(28, 'AB')
>>> parse_cell("$B$7"), cell_name(7, 2)
((7, 2), 'B7')
>>> parse_range("C4:B2")
(2, 2, 4, 3)
>>> quote_sheet("Ann's plan"), unquote_sheet("'Ann''s plan'")
("'Ann''s plan'", "Ann's plan")
"""
from __future__ import annotations

import functools
import re

__all__ = ["CELL_PATTERN", "CELL_RE", "COLUMN_PATTERN", "FILE_CELL_PATTERN", "MAX_COL",
           "MAX_ROW", "ROW_PATTERN", "cell_name", "column_letters", "column_number", "parse_cell",
           "parse_range", "quote_sheet", "unquote_sheet"]

#: Excel's sheet size (rows, columns), 2007 and later.
MAX_ROW, MAX_COL = 1_048_576, 16_384

#: Column letters as a formula writes them (any case, no groups): the building block of
#: every pattern here and of the formula scanners in :mod:`rooflinexl.recalc`.
COLUMN_PATTERN = r"[A-Za-z]{1,3}"
#: Row digits as a formula writes them (no groups). Row 0 and rows past the sheet match,
#: so that a scanner sees the reference and can refuse it by name.
ROW_PATTERN = r"[0-9]{1,7}"
#: One cell as a file writes it (``r="B7"``: upper case, no ``$``): groups (letters, row).
FILE_CELL_PATTERN = r"([A-Z]{1,3})([1-9][0-9]{0,6})"
#: One cell in A1 notation as a person or a formula writes it: any case, ``$`` allowed.
CELL_PATTERN = r"\$?(" + COLUMN_PATTERN + r")\$?([1-9][0-9]{0,6})"
#: :data:`CELL_PATTERN` compiled (``fullmatch`` for a whole cell).
CELL_RE = re.compile(CELL_PATTERN)

_BARE_SHEET = re.compile(r"[A-Za-z_\u00a0-\uffff][\w.\u00a0-\uffff]*")


@functools.cache
def column_number(letters: str) -> int:
    """1-based column number of column letters (``'A'`` -> 1, ``'AB'`` -> 28; ``$`` ignored).

    Examples
    --------
    >>> column_number("a"), column_number("$XFD")
    (1, 16384)
    """
    n = 0
    for ch in letters.upper().lstrip("$"):
        n = n * 26 + ord(ch) - 64
    return n


@functools.cache
def column_letters(n: int) -> str:
    """Column letters of a 1-based column number (28 -> ``'AB'``).

    Examples
    --------
    >>> column_letters(1), column_letters(16384)
    ('A', 'XFD')
    """
    s = ""
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


def parse_cell(text: str) -> tuple[int, int]:
    """``(row, column)`` of an A1 cell such as ``'B7'`` or ``'$B$7'``.

    Raises
    ------
    ValueError
        When ``text`` is not one cell inside the sheet (``'A0'``, ``'B'``, ``'XFE1'``).
    """
    m = CELL_RE.fullmatch(text.strip())
    if m is None or int(m.group(2)) > MAX_ROW or column_number(m.group(1)) > MAX_COL:
        raise ValueError(f"{text!r} is not a cell address in A1 notation")
    return int(m.group(2)), column_number(m.group(1))


def cell_name(row: int, col: int) -> str:
    """A1 text of a ``(row, column)`` cell: ``cell_name(7, 2) == 'B7'``."""
    return f"{column_letters(col)}{row}"


def parse_range(text: str) -> tuple[int, int, int, int] | None:
    """``(row0, col0, row1, col1)`` of ``'B2:C4'`` or ``'B2'``, corners sorted; None if not one."""
    parts = text.strip().split(":")
    if len(parts) > 2:
        return None
    try:
        (r0, c0), (r1, c1) = parse_cell(parts[0]), parse_cell(parts[-1])
    except ValueError:
        return None
    return min(r0, r1), min(c0, c1), max(r0, r1), max(c0, c1)


def quote_sheet(name: str, always: bool = False) -> str:
    """A sheet name as a formula writes it: quoted (``''`` for ``'``) unless a plain word
    (``always``: quoted in any case, as the engine's rewritten formulas write it)."""
    if not always and _BARE_SHEET.fullmatch(name) and not CELL_RE.fullmatch(name):
        return name
    return "'" + name.replace("'", "''") + "'"


def unquote_sheet(text: str) -> str:
    """The sheet name of a formula's ``'Ann''s plan'`` (or of an unquoted name)."""
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    return text
