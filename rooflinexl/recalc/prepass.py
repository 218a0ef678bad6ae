"""Pre-pass: a working copy of a workbook that the ``formulas`` engine can load.

``formulas`` 1.3.4 cannot parse several things Excel writes into ``.xlsx`` files
(see ``reference/research-recalc.md``), so before evaluation every formula (and
every workbook-level defined name) is rewritten on a temporary copy:

* structured references to Excel tables (``Chips[bf16_flops]``,
  ``Chips[[#Headers],[chip]]``, ``Chips[@hbm_bw]`` ...) become absolute A1
  ranges such as ``'Chips'!$B$2:$B$12``; ``@`` / ``#This Row`` becomes the
  cell of the formula's own row;
* add-in and namespace prefixes that Excel or the xlwings hosts put in front of
  our functions (``[1]!CRIT_BATCH(``, ``'C:\\x\\rooflinexl.xlam'!CRIT_BATCH(``,
  ``_xludf.CRIT_BATCH(``, ``ROOFLINE.CRIT_BATCH(``, ``_xldudf_ROOFLINE_CRIT_BATCH(``)
  are removed, for the function names the caller registers only;
* exponents without a sign (``1E15``) get one (``1E+15``), and leading zeros of a
  number (``0123``, which Excel reads as 123) are dropped;
* a cell reference of row 0 (``A0``: no such cell, an undefined name to Excel)
  becomes ``#NAME?``;
* an omitted argument of a registered function (``CRIT_BATCH(Chips,"H100",,8192)``)
  becomes the string :data:`OMITTED`, because ``formulas`` would pass ``0``;
* sheets whose name contains an apostrophe are renamed (``formulas`` cannot
  address them) and every reference to them follows.

The rewriting uses a small scanner that knows Excel's lexical rules (string
literals, quoted sheet names, bracketed table specifiers with ``'`` escapes),
never a regular expression over the whole text, so nothing inside a string
literal is ever touched. The user's file is only read.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from openpyxl.utils.cell import range_boundaries

from rooflinexl.addresses import MAX_COL, MAX_ROW, column_letters, column_number

__all__ = [
    "MAX_NESTING",
    "OMITTED",
    "FormulaCell",
    "PrepassResult",
    "Rewrite",
    "TableInfo",
    "prepare_workbook",
    "quote_sheet",
    "read_tables",
    "rename_functions",
    "SHEET_COLS",
    "SHEET_ROWS",
    "Token",
    "clip_ranges",
    "rewrite_formula",
    "tokenize",
    "used_area",
]

#: Excel's limit on nested function calls in one formula ("Excel specifications and limits")
MAX_NESTING = 64

#: Stands for an omitted argument of a registered function in the working copy.
OMITTED = "__ROOFLINEXL_OMITTED_ARGUMENT__"

# --------------------------------------------------------------------------- scanner


@dataclass(frozen=True)
class Token:
    """One lexical token of a formula (:func:`tokenize`)."""

    kind: str  # str | quoted | bracket | number | word | ws | op
    text: str


_Tok = Token

_NUMBER_RE = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?(?![\w.\\$?])")
_WORD_RE = re.compile(r"[\w.\\$?]+")
_WS_RE = re.compile(r"\s+")
_ROW_ZERO_RE = re.compile(r"\$?[A-Za-z]{1,3}\$?0+")  # a cell reference's form, row 0
_LEADING_ZEROS_RE = re.compile(r"^0+(?=\d)")  # 0123 -> 123, 00.5 -> 0.5, 000 -> 0


def _scan_quoted(text: str, i: int, quote: str) -> int:
    """Index just past the literal starting at ``text[i] == quote`` (doubled quote escapes)."""
    n = len(text)
    j = i + 1
    while j < n:
        if text[j] == quote:
            if j + 1 < n and text[j + 1] == quote:
                j += 2
                continue
            return j + 1
        j += 1
    return n  # unterminated: the rest of the text


def _scan_bracket(text: str, i: int) -> int:
    """Index just past the balanced ``[...]`` group at ``i`` (``'`` escapes the next char)."""
    n = len(text)
    depth = 0
    j = i
    while j < n:
        c = text[j]
        if c == "'":
            j += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return n


def tokenize(text: str) -> list[Token]:
    """Excel's lexical scan of a formula body (without ``=``): the engine's one scanner.

    Each :class:`Token` has a ``kind`` -- ``str`` (a string literal, quotes
    included), ``quoted`` (a quoted sheet name), ``bracket`` (a bracketed table
    specifier or book index), ``number``, ``word`` (a function or defined name,
    a cell or column reference, ``TRUE``, an error code's letters), ``ws`` or
    ``op`` (one character) -- and its ``text``; the texts joined give back the
    formula exactly, so a rewrite that changes only some tokens leaves
    everything else, string literals included, untouched.

    >>> [(t.kind, t.text) for t in tokenize('SUM(A1,"a,b")')]
    [('word', 'SUM'), ('op', '('), ('word', 'A1'), ('op', ','), ('str', '"a,b"'), ('op', ')')]
    """
    return _tokenize(text)


def _tokenize(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = _scan_quoted(text, i, '"')
            toks.append(_Tok("str", text[i:j]))
        elif c == "'":
            j = _scan_quoted(text, i, "'")
            toks.append(_Tok("quoted", text[i:j]))
        elif c == "[":
            j = _scan_bracket(text, i)
            toks.append(_Tok("bracket", text[i:j]))
        elif c.isspace():
            j = _WS_RE.match(text, i).end()
            toks.append(_Tok("ws", text[i:j]))
        else:
            m = None
            if c.isdigit() or (c == "." and i + 1 < n and text[i + 1].isdigit()):
                m = _NUMBER_RE.match(text, i)
                if m:
                    toks.append(_Tok("number", m.group()))
                    j = m.end()
            if m is None:
                w = _WORD_RE.match(text, i)
                if w:
                    j = w.end()
                    toks.append(_Tok("word", w.group()))
                else:
                    j = i + 1
                    toks.append(_Tok("op", c))
        i = j
    return toks


def quote_sheet(name: str) -> str:
    """``'Sheet name'`` with Excel's doubled-apostrophe escape (always quoted)."""
    return "'" + name.replace("'", "''") + "'"


def _unquote(quoted: str) -> str:
    body = quoted[1:-1] if quoted.endswith("'") and len(quoted) > 1 else quoted[1:]
    return body.replace("''", "'")


# ------------------------------------------------------------------------ tables


@dataclass
class TableInfo:
    """Geometry of one Excel table (ListObject)."""

    name: str
    sheet: str  # sheet title in the working copy
    min_row: int
    max_row: int
    min_col: int
    max_col: int
    header_rows: int
    totals_rows: int
    columns: list[str]

    def column_index(self, name: str) -> int | None:
        """0-based index of a column: exact, then case-insensitive, then trimmed."""
        if name in self.columns:
            return self.columns.index(name)
        folded = [c.casefold() for c in self.columns]
        if name.casefold() in folded:
            return folded.index(name.casefold())
        stripped = [c.strip().casefold() for c in self.columns]
        if name.strip().casefold() in stripped:
            return stripped.index(name.strip().casefold())
        return None

    @property
    def data_rows(self) -> tuple[int, int]:
        return self.min_row + self.header_rows, self.max_row - self.totals_rows

    def contains(self, row: int, col: int) -> bool:
        return self.min_row <= row <= self.max_row and self.min_col <= col <= self.max_col


def read_tables(wb) -> dict[str, TableInfo]:
    """Every table of an openpyxl workbook, keyed by upper-case name (and display name)."""
    out: dict[str, TableInfo] = {}
    for ws in wb.worksheets:
        for tbl in ws.tables.values():
            min_col, min_row, max_col, max_row = range_boundaries(tbl.ref)
            header = 1 if tbl.headerRowCount is None else int(tbl.headerRowCount)
            totals = int(tbl.totalsRowCount or 0)
            cols = [c.name for c in (tbl.tableColumns or [])]
            if len(cols) != max_col - min_col + 1:
                cols = [
                    str(ws.cell(min_row, c).value if header else f"Column{c - min_col + 1}")
                    for c in range(min_col, max_col + 1)
                ]
            info = TableInfo(
                tbl.displayName or tbl.name, ws.title, min_row, max_row, min_col, max_col,
                header, totals, cols,
            )
            for key in {tbl.name, tbl.displayName}:
                if key:
                    out[key.upper()] = info
    return out


class _StructRefError(Exception):
    def __init__(self, code: str, msg: str):
        super().__init__(msg)
        self.code = code


_SPECIALS = {
    "#all": "all",
    "#data": "data",
    "#headers": "headers",
    "#totals": "totals",
    "#this row": "thisrow",
}


def _unescape(spec: str) -> str:
    out, i = [], 0
    while i < len(spec):
        if spec[i] == "'" and i + 1 < len(spec):
            out.append(spec[i + 1])
            i += 2
        else:
            out.append(spec[i])
            i += 1
    return "".join(out)


def _split_items(body: str) -> list[str]:
    """``[a],[b]:[c]`` -> ``['[a]', ',', '[b]', ':', '[c]']`` (spaces dropped)."""
    items, i, n = [], 0, len(body)
    while i < n:
        c = body[i]
        if c == "[":
            j = _scan_bracket(body, i)
            items.append(body[i:j])
            i = j
        elif c in ",:":
            items.append(c)
            i += 1
        elif c.isspace():
            i += 1
        else:  # a bare item, e.g. [[#This Row],col] as some writers emit it
            j = i
            while j < n and body[j] not in ",:[]":
                j += 2 if body[j] == "'" else 1
            if j < n and body[j] in "[]":
                raise _StructRefError("#REF!", f"cannot parse table specifier [{body}]")
            items.append("[" + body[i:j].strip() + "]")
            i = j
    return items


def _parse_specifier(body: str) -> tuple[set[str], list[str]]:
    """Row specials (``all``/``data``/``headers``/``totals``/``thisrow``) and column names."""
    specials: set[str] = set()
    cols: list[str] = []
    s = body.strip()
    if not s:
        return specials, cols
    if s.startswith("@"):
        specials.add("thisrow")
        rest = s[1:].strip()
        if rest.startswith("["):
            _, cols = _parse_specifier(rest)
        elif rest:
            cols = [_unescape(rest)]
        return specials, cols
    if s.startswith("#"):
        key = _unescape(s).strip().casefold()
        if key not in _SPECIALS:
            raise _StructRefError("#REF!", f"unknown table specifier {s}")
        specials.add(_SPECIALS[key])
        return specials, cols
    if not s.startswith("["):
        return specials, [_unescape(s)]
    items = _split_items(s)
    expect_item, range_next = True, False
    for it in items:
        if it in (",", ":"):
            if expect_item:
                raise _StructRefError("#REF!", f"cannot parse table specifier [{body}]")
            range_next = it == ":"
            expect_item = True
            continue
        inner = it[1:-1]
        if inner.strip().startswith("#"):
            key = _unescape(inner).strip().casefold()
            if key not in _SPECIALS:
                raise _StructRefError("#REF!", f"unknown table specifier {inner}")
            specials.add(_SPECIALS[key])
        elif inner.strip().startswith("@"):
            sp, cc = _parse_specifier(inner)
            specials |= sp
            cols.extend(cc)
        else:
            if range_next and not cols:
                raise _StructRefError("#REF!", f"cannot parse table specifier [{body}]")
            cols.append(_unescape(inner))
        range_next = False
        expect_item = False
    if len(cols) > 2:
        raise _StructRefError("#REF!", f"more than two columns in [{body}]")
    return specials, cols


def _a1(sheet: str, r1: int, c1: int, r2: int, c2: int) -> str:
    a = f"${column_letters(c1)}${r1}"
    if (r1, c1) == (r2, c2):
        return f"{quote_sheet(sheet)}!{a}"
    return f"{quote_sheet(sheet)}!{a}:${column_letters(c2)}${r2}"


def resolve_structured(table: TableInfo, body: str, row: int | None = None) -> str:
    """A1 text for ``table[body]`` (``body`` without the outer brackets)."""
    specials, cols = _parse_specifier(body)
    if cols:
        idx = []
        for c in cols:
            k = table.column_index(c)
            if k is None:
                raise _StructRefError(
                    "#REF!", f"table {table.name} has no column {c!r} (columns: "
                    + ", ".join(table.columns) + ")",
                )
            idx.append(k)
        c1, c2 = table.min_col + min(idx), table.min_col + max(idx)
    else:
        c1, c2 = table.min_col, table.max_col
    d1, d2 = table.data_rows
    if "thisrow" in specials:
        if row is None or not d1 <= row <= d2:
            raise _StructRefError(
                "#VALUE!", f"{table.name}[{body}] refers to the formula's own row, "
                "which is not a data row of the table",
            )
        r1 = r2 = row
    elif "all" in specials:
        r1, r2 = table.min_row, table.max_row
    else:
        spans = []
        if "headers" in specials:
            if not table.header_rows:
                raise _StructRefError("#REF!", f"table {table.name} has no header row")
            spans.append((table.min_row, table.min_row + table.header_rows - 1))
        if "totals" in specials:
            if not table.totals_rows:
                raise _StructRefError("#REF!", f"table {table.name} has no totals row")
            spans.append((table.max_row - table.totals_rows + 1, table.max_row))
        if "data" in specials or not spans:
            spans.append((d1, d2))
        r1, r2 = min(s[0] for s in spans), max(s[1] for s in spans)
    return _a1(table.sheet, r1, c1, r2, c2)


# ------------------------------------------------------------------- function names

_UDF_PREFIXES = ("_XLUDF.", "_XLL.")
_BUILTIN_PREFIXES = ("_XLFN.", "_XLWS.", "_XLETA.", "_XLPM.")
#: dotted built-ins that Excel saves without ``_xlfn.`` (pre-2010 functions)
_DOTTED_BUILTINS = frozenset({"ERROR.TYPE"})


def normalise_function_name(name: str, known: Iterable[str]) -> str | None:
    """The registered name hiding behind a prefixed call name, or ``None``.

    ``ROOFLINE.CRIT_BATCH`` / ``_xludf.ROOFLINE.CRIT_BATCH`` /
    ``XLWINGS_DEV.ROOFLINE.CRIT_BATCH`` / ``_xldudf_ROOFLINE_CRIT_BATCH`` ->
    ``CRIT_BATCH`` when ``CRIT_BATCH`` is in ``known``.
    """
    known = known if isinstance(known, (set, frozenset, dict)) else set(known)
    up = name.upper()
    if up in known:
        return up
    if up.startswith(_BUILTIN_PREFIXES) or up in _DOTTED_BUILTINS:
        return None  # Excel's own functions (_xlfn.STDEV.S ...) are never ours
    changed = True
    while changed:
        changed = False
        for p in _UDF_PREFIXES:
            if up.startswith(p):
                up, changed = up[len(p):], True
    if up in known:
        return up
    parts = up.split(".")
    for k in range(1, len(parts)):
        cand = ".".join(parts[k:])
        if cand in known:
            return cand
    if up.startswith("_XLDUDF_"):
        rest = up[len("_XLDUDF_"):].split("_")
        for k in range(len(rest)):
            cand = "_".join(rest[k:])
            if cand in known:
                return cand
    return None


def display_function_name(name: str) -> str:
    """Upper-case call name without ``_xlfn.``/``_xlws.``/``_xludf.``/``_xll.`` prefixes."""
    up = name.upper()
    for p in ("_XLFN.", "_XLWS.", "_XLUDF.", "_XLL.", "_XLDUDF_"):
        while up.startswith(p):
            up = up[len(p):]
    return up


def rename_functions(formula: str, known: Iterable[str], spell) -> str:
    """``formula`` with each call of a ``known`` function respelt as ``spell(name)``.

    Every unqualified call whose name :func:`normalise_function_name` maps to a
    name in ``known`` (``CRIT_BATCH(``, ``ROOFLINE.CRIT_BATCH(``,
    ``_xldudf_ROOFLINE_CRIT_BATCH(`` ...) gets the name ``spell(canonical)``;
    everything else (string literals, sheet names, other functions, calls
    qualified by an add-in file such as ``[1]!F(``) is kept character for
    character. Used by ``rooflinexl convert``.

    >>> rename_functions('=F(1)+"F(2)"+G(F(3))', {"F"}, lambda n: "NS." + n)
    '=NS.F(1)+"F(2)"+G(NS.F(3))'
    """
    known = set(known)
    toks = _tokenize(formula)
    out = []
    for i, t in enumerate(toks):
        text = t.text
        if (t.kind == "word" and i + 1 < len(toks) and toks[i + 1].text == "("
                and not (i and toks[i - 1].text == "!")):
            target = normalise_function_name(text, known)
            if target is not None:
                text = spell(target)
        out.append(text)
    return "".join(out)


# ------------------------------------------------------------------------ rewriting


@dataclass
class Rewrite:
    """Result of rewriting one formula."""

    text: str
    kinds: set[str] = field(default_factory=set)  # table, addin, name, number, exponent,
    # omitted, sheet
    functions: list[str] = field(default_factory=list)  # call names, add-in qualifier removed
    notes: list[str] = field(default_factory=list)  # problems (unknown table column ...)
    depth: int = 0  # deepest nesting of function calls

    @property
    def too_deep(self) -> str | None:
        """Why the formula is beyond Excel's nesting limit (None when it is not)."""
        if self.depth <= MAX_NESTING:
            return None
        return (f"the formula nests functions {self.depth} levels deep; "
                f"Excel allows {MAX_NESTING}")

    @property
    def changed(self) -> bool:
        return bool(self.kinds)


def _prev_sig(out: list[_Tok]) -> _Tok | None:
    for t in reversed(out):
        if t.kind != "ws":
            return t
    return None


def rewrite_formula(
    formula: str,
    *,
    tables: Mapping[str, TableInfo] | None = None,
    function_names: Iterable[str] = (),
    sheet: str | None = None,
    row: int | None = None,
    col: int | None = None,
    sheet_renames: Mapping[str, str] | None = None,
    clip: tuple[int, int] | None = None,
    defined: Iterable[str] | None = None,
) -> Rewrite:
    """Rewrite one formula (text starting with ``=``) for ``formulas``.

    ``tables`` maps upper-case table names to :class:`TableInfo`; ``row``/``col``
    locate the formula (needed for ``@``/``#This Row`` and for the table-less
    form ``[@col]`` inside a table); ``sheet_renames`` maps old to new sheet names.
    ``defined`` (upper-case defined names and table names), when given, makes every other
    name ``#NAME?``, as Excel does (``formulas`` would give ``#REF!``).
    ``clip`` = (last row, last column) of the workbook's used area (formula cells
    included, :func:`used_area`): every range that reaches the sheet's edge
    (``A:A``, ``1:1``, ``A1:XFD1048576``) ends there instead (:func:`clip_ranges`).

    >>> rewrite_formula('=2*1E15+"1E15"').text
    '=2*1E+15+"1E15"'
    >>> rewrite_formula("=[1]!F(A1,,2)", function_names={"F"}).text
    '=F(A1,"__ROOFLINEXL_OMITTED_ARGUMENT__",2)'
    """
    tables = tables or {}
    known = set(function_names)
    renames = sheet_renames or {}
    res = Rewrite(formula)
    prefix = ""
    body = formula
    if body.startswith("="):
        prefix, body = "=", body[1:]
    toks = _tokenize(body)
    out: list[_Tok] = []
    # paren stack: True for a call of a registered function, False otherwise
    stack: list[str] = []  # 'udf' | 'func' | 'group' | 'brace'
    i, n = 0, len(toks)
    omitted = _Tok("str", f'"{OMITTED}"')

    def here_table() -> TableInfo | None:
        if row is None or col is None or sheet is None:
            return None
        for t in tables.values():
            if t.sheet == sheet and t.contains(row, col):
                return t
        return None

    known_names = None if defined is None else {d.upper() for d in defined} | set(tables)
    while i < n:
        t = toks[i]
        nxt = toks[i + 1] if i + 1 < n else None
        # --- an error literal (#N/A, #REF! ...) is copied as it is
        if t.kind == "op" and t.text == "#":
            k = _error_literal(toks, i)
            if k:
                out.extend(toks[i:i + k])
                i += k
                continue
        # --- a name that is not defined: #NAME? in Excel
        if (known_names is not None and t.kind == "word"
                and not (nxt is not None and nxt.text in ("(", "!", ":", "["))
                and _is_undefined(t.text, known_names)):
            prev = _prev_sig(out)
            if prev is None or prev.text not in (":", "!"):
                out.append(_Tok("word", "#NAME?"))
                res.kinds.add("name")
                i += 1
                continue
        # --- quoted sheet names that were renamed
        if t.kind == "quoted" and nxt is not None and nxt.text == "!":
            name = _unquote(t.text)
            if name in renames:
                out.append(_Tok("quoted", quote_sheet(renames[name])))
                res.kinds.add("sheet")
                i += 1
                continue
        # --- add-in qualifier in front of a registered function: [1]!F( 'x.xlam'!F( x.xlam!F(
        if (
            t.kind in ("bracket", "quoted", "word")
            and nxt is not None
            and nxt.text == "!"
            and i + 3 < n
            and toks[i + 2].kind == "word"
            and toks[i + 3].text == "("
        ):
            fname = toks[i + 2].text
            target = normalise_function_name(fname, known)
            if target is not None and (t.kind != "bracket" or _is_book_index(t.text)):
                res.kinds.add("addin")
                i += 2  # drop qualifier and "!"; the word is handled below
                continue
        # --- structured reference Table[...]
        if t.kind == "word" and nxt is not None and nxt.kind == "bracket":
            info = tables.get(t.text.upper())
            if info is not None:
                out.append(_Tok("word", _struct(info, nxt.text, row, res)))
                res.kinds.add("table")
                i += 2
                continue
        if t.kind == "bracket":
            prev = _prev_sig(out)
            is_qualifier = nxt is not None and (nxt.kind in ("word", "quoted") or nxt.text == "!")
            if not is_qualifier and (prev is None or prev.kind != "word"):
                info = here_table()
                if info is not None:
                    out.append(_Tok("word", _struct(info, t.text, row, res)))
                    res.kinds.add("table")
                    i += 1
                    continue
        # --- function call
        if t.kind == "word" and nxt is not None and nxt.text == "(":
            target = normalise_function_name(t.text, known)
            res.functions.append(t.text)
            if target is not None and target != t.text:
                if target != t.text.upper():
                    res.kinds.add("addin")
                out.append(_Tok("word", target))
            else:
                out.append(t)
            out.append(nxt)
            stack.append("udf" if target is not None else "func")
            res.depth = max(res.depth, sum(k in ("udf", "func") for k in stack))
            i += 2
            continue
        # --- A0, $B$00: no such cell, so Excel reads an (undefined) name: #NAME?
        if (t.kind == "word" and _ROW_ZERO_RE.fullmatch(t.text)
                and not (nxt is not None and nxt.text in ("(", ":", "!"))):
            prev = _prev_sig(out)
            if prev is None or prev.text not in (":", "!"):
                out.append(_Tok("word", "#NAME?"))
                res.kinds.add("name")
                i += 1
                continue
        # --- numbers: leading zeros (``0123`` is 123 in Excel, a SyntaxError for
        # formulas' eval) and an unsigned exponent; row numbers of ``1:1`` / ``S!1:1``
        # are left alone
        if t.kind == "number":
            prev = _prev_sig(out)
            in_ref = (prev is not None and prev.text in (":", "!")) or (
                nxt is not None and nxt.text == ":")
            text = t.text if in_ref else _LEADING_ZEROS_RE.sub("", t.text)
            if text != t.text:
                res.kinds.add("number")
            m = re.search(r"[eE](\d)", text)
            if m:
                text = text[: m.start() + 1] + "+" + text[m.start(1):]
                res.kinds.add("exponent")
            if text != t.text:
                out.append(_Tok("number", text))
                i += 1
                continue
        # --- parentheses, braces, separators
        if t.kind == "op":
            if t.text == "(":
                stack.append("group")
            elif t.text == "{":
                stack.append("brace")
            elif t.text == "}":
                if stack and stack[-1] == "brace":
                    stack.pop()
            elif t.text == ",":
                if stack and stack[-1] == "udf":
                    prev = _prev_sig(out)
                    if prev is not None and prev.text in ("(", ","):
                        out.append(omitted)
                        res.kinds.add("omitted")
            elif t.text == ")":
                if stack and stack[-1] == "udf":
                    prev = _prev_sig(out)
                    if prev is not None and prev.text == ",":
                        out.append(omitted)
                        res.kinds.add("omitted")
                if stack and stack[-1] != "brace":
                    stack.pop()
        out.append(t)
        i += 1
    if clip is not None and clip_ranges(out, clip):
        res.kinds.add("range")
    if res.kinds:
        res.text = prefix + "".join(t.text for t in out)
    return res


#: the sheet's last row and column (Excel 2007 and later)
SHEET_ROWS, SHEET_COLS = MAX_ROW, MAX_COL
_COL_ONLY = re.compile(r"^(\$?)([A-Za-z]{1,3})$")
_ROW_ONLY = re.compile(r"^(\$?)([0-9]{1,7})$")
_CELL = re.compile(r"^(\$?)([A-Za-z]{1,3})(\$?)([0-9]{1,7})$")


def clip_ranges(toks: list, clip: tuple[int, int]) -> bool:
    """Make every range in ``toks`` that reaches the sheet's edge end at ``clip`` (in place).

    A whole column ``B:B`` becomes ``B$1:B$<last row>``, a whole row ``3:3``
    becomes ``$A3:$<last column>3``, and a rectangle whose far corner is on the
    last row or column (``A1:XFD1048576``) ends at the last used row or column
    instead (never before its own first row or column). The cells cut off are
    empty, so every value the range holds, formula cells included, is still in
    it, and two edge-reaching ranges that start alike keep the same shape.
    Where the size itself is the answer, it stays Excel's: ``ROWS(A:A)`` and
    ``COLUMNS(1:1)`` become the number, ``COUNTBLANK(A:A)`` and ``COUNTIF(A:A, "")``
    add the blank cells cut off (``COUNTIF`` when its criterion matches a blank
    cell). ``clip`` is the workbook's used area (:func:`used_area`). Returns whether
    anything changed.

    >>> toks = _tokenize("SUM(B:B)+COUNTA(S!1:2)+SUM(A2:XFD1048576)+SUM(A:XFD)")
    >>> clip_ranges(toks, (300, 11)), "".join(t.text for t in toks)
    (True, 'SUM(B$1:B$300)+COUNTA(S!$A1:$K2)+SUM(A2:K300)+SUM(A$1:K$300)')
    >>> toks = _tokenize("ROWS(A:A)+COLUMNS(S!2:2)+COUNTBLANK(B2:B1048576)")
    >>> clip_ranges(toks, (300, 11)), "".join(t.text for t in toks)
    (True, '1048576+16384+(COUNTBLANK(B2:B300)+1048276)')
    >>> toks = _tokenize('COUNTIF(S!A:A,"<>x")')
    >>> clip_ranges(toks, (300, 11)), "".join(t.text for t in toks)
    (True, '(COUNTIF(S!A$1:A$300,"<>x")+1048276*COUNTIF(S!$A$301,"<>x"))')
    """
    last_row, last_col = max(1, clip[0]), max(1, clip[1])
    edits: list[tuple[int, int, list]] = []  # (first token, past last, new tokens)
    for j in range(1, len(toks) - 1):
        if toks[j].text != ":" or toks[j].kind != "op":
            continue
        left, right = toks[j - 1], toks[j + 1]
        if left.kind not in ("word", "number") or right.kind not in ("word", "number"):
            continue
        if (j >= 2 and toks[j - 2].text == ":") or (j + 2 < len(toks) and toks[j + 2].text
                                                      in (":", "!", "(")):
            continue  # a chain A1:B2:C3, or not a reference at all
        a, b = left.text, right.text
        ca, cb = _COL_ONLY.match(a), _COL_ONLY.match(b)
        ra, rb = _ROW_ONLY.match(a), _ROW_ONLY.match(b)
        ma, mb = _CELL.match(a), _CELL.match(b)
        if ca and cb:  # whole columns
            r1, c1, r2, c2 = 1, column_number(ca.group(2)), SHEET_ROWS, column_number(cb.group(2))
            if not c1 <= c2 <= SHEET_COLS:
                continue
            n2, m2 = last_row, (max(last_col, c1) if c2 == SHEET_COLS else c2)
            new_a, new_b = f"{a}$1", f"{cb.group(1)}{column_letters(m2)}${n2}"
        elif ra and rb:  # whole rows
            r1, c1, r2, c2 = int(ra.group(2)), 1, int(rb.group(2)), SHEET_COLS
            if not 1 <= r1 <= r2 <= SHEET_ROWS:
                continue
            n2, m2 = (max(last_row, r1) if r2 == SHEET_ROWS else r2), last_col
            new_a, new_b = f"$A{a}", f"${column_letters(m2)}{rb.group(1)}{n2}"
        elif ma and mb:
            r1, r2 = int(ma.group(4)), int(mb.group(4))
            c1, c2 = column_number(ma.group(2)), column_number(mb.group(2))
            if r2 != SHEET_ROWS and c2 != SHEET_COLS or r1 > r2 or c1 > c2 or c2 > SHEET_COLS:
                continue
            n2 = max(last_row, r1) if r2 == SHEET_ROWS else r2
            m2 = max(last_col, c1) if c2 == SHEET_COLS else c2
            new_a, new_b = a, f"{mb.group(1)}{column_letters(m2)}{mb.group(3)}{n2}"
        else:
            continue
        ref = [_Tok("word", new_a), toks[j], _Tok("word", new_b)]
        first, past = j - 1, j + 2
        # a sheet prefix (S!, 'My sheet'!) belongs to the reference
        if first >= 2 and toks[first - 1].text == "!" and toks[first - 2].kind in (
                "word", "quoted"):
            ref = toks[first - 2:first] + ref
            first -= 2
        call = (toks[first - 2].text.upper() if first >= 2 and toks[first - 1].text == "("
                and toks[first - 2].kind == "word" else None)
        closes = past < len(toks) and toks[past].text == ")"
        size = {"ROWS": r2 - r1 + 1, "COLUMNS": c2 - c1 + 1}
        if call in size and closes:  # the size is the answer: Excel's, not the clipped one
            edits.append((first - 2, past + 1, [_Tok("number", str(size[call]))]))
        elif call == "COUNTBLANK" and closes:
            cut = (r2 - r1 + 1) * (c2 - c1 + 1) - (n2 - r1 + 1) * (m2 - c1 + 1)
            edits.append((first - 2, past + 1, [_Tok("op", "("), *toks[first - 2:first], *ref,
                                                _Tok("op", ")"), _Tok("op", "+"),
                                                _Tok("number", str(cut)), _Tok("op", ")")]))
        elif call == "COUNTIF" and past < len(toks) and toks[past].text == "," and (
                last_row < SHEET_ROWS):
            # the blank cells cut off count when the criterion matches a blank cell: one
            # below the used area stands for them all
            end = _closing(toks, first - 1)
            cut = (r2 - r1 + 1) * (c2 - c1 + 1) - (n2 - r1 + 1) * (m2 - c1 + 1)
            if end is None or cut <= 0:
                edits.append((first, past, ref))
                continue
            blank = [*ref[:-3], _Tok("word", f"$A${last_row + 1}")]
            crit = toks[past + 1:end]
            edits.append((first - 2, end + 1, [
                _Tok("op", "("), *toks[first - 2:first], *ref, _Tok("op", ","), *crit,
                _Tok("op", ")"), _Tok("op", "+"), _Tok("number", str(cut)), _Tok("op", "*"),
                _Tok("word", "COUNTIF"), _Tok("op", "("), *blank, _Tok("op", ","), *crit,
                _Tok("op", ")"), _Tok("op", ")")]))
        elif (new_a, new_b) != (a, b):
            edits.append((first, past, ref))
    for first, past, new in reversed(edits):
        toks[first:past] = new
    return bool(edits)


def _closing(toks: list, i: int) -> int | None:
    """Index of the ``)`` that closes the ``(`` at ``toks[i]`` (None when there is none)."""
    depth = 0
    for k in range(i, len(toks)):
        if toks[k].kind != "op":
            continue
        if toks[k].text in "({":
            depth += 1
        elif toks[k].text in ")}":
            depth -= 1
            if depth == 0:
                return k
    return None


def used_area(sheets) -> tuple[int, int]:
    """(last row, last column) over ``sheets``: pairs (max row, max column) of each sheet's
    cells, formula cells included. Ranges reaching the sheet's edge are clipped to it."""
    rows = cols = 1
    for r, c in sheets:
        rows, cols = max(rows, r or 1), max(cols, c or 1)
    return rows, cols


_ERROR_LITERALS = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A",
                   "#GETTING_DATA", "#SPILL!", "#CALC!")


def _error_literal(toks: list, i: int) -> int:
    """How many tokens from ``toks[i]`` (a ``#``) spell an error literal (0: none)."""
    text = ""
    for k in range(i, min(i + 5, len(toks))):
        text += toks[k].text
        if text.upper() in _ERROR_LITERALS:
            return k - i + 1
    return 0


_A1_CELL = re.compile(r"^\$?([A-Za-z]{1,3})\$?([0-9]{1,7})$")


def _is_undefined(word: str, known: set[str]) -> bool:
    """Whether a word in a formula is a name that is not defined (not a cell, not TRUE)."""
    up = word.upper()
    if up in known or up in ("TRUE", "FALSE") or up.startswith("_XLPM."):
        return False
    m = _A1_CELL.match(word)
    if m and column_number(m.group(1)) <= SHEET_COLS and 1 <= int(m.group(2)) <= SHEET_ROWS:
        return False
    return not word.startswith("$") and (word[0].isalpha() or word[0] in "_\\")


def _is_book_index(bracket: str) -> bool:
    """``[1]`` (external book index) or ``[Book.xlam]`` -- not a table specifier."""
    inner = bracket[1:-1]
    return bool(inner) and not inner.startswith(("#", "@", "["))


def _struct(info: TableInfo, bracket: str, row: int | None, res: Rewrite) -> str:
    body = bracket[1:-1] if bracket.endswith("]") else bracket[1:]
    try:
        return resolve_structured(info, body, row)
    except _StructRefError as ex:
        res.notes.append(f"{info.name}{bracket}: {ex}")
        return ex.code


# ------------------------------------------------------------------------- workbook


@dataclass
class FormulaCell:
    """One formula cell (or the anchor of an array formula) of the workbook."""

    sheet: str  # original sheet title
    cell: str  # A1 address without $
    formula: str  # as in the user's file
    text: str  # as given to formulas
    array_ref: str | None = None  # 'D2:E3' for an array formula
    functions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class PrepassResult:
    """The working copy and what the pre-pass did to it."""

    path: Path  # the working copy (inside ``tmpdir``)
    tmpdir: Path | None
    formulas: list[FormulaCell]
    #: ``(sheet, cell)`` or ``("", "name:Foo")`` for a defined name -> (before, after)
    rewrites: dict[tuple[str, str], tuple[str, str]]
    #: working-copy sheet title -> original title
    sheet_names: dict[str, str]
    tables: dict[str, TableInfo]
    #: cells whose formula was replaced by an error constant -> (code, reason)
    replaced: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)

    def cleanup(self) -> None:
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            self.tmpdir = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.cleanup()


def _safe_sheet_names(titles: list[str]) -> dict[str, str]:
    """Old -> new names for sheets ``formulas`` cannot address (apostrophes)."""
    taken = {t.upper() for t in titles}
    renames = {}
    for t in titles:
        if "'" not in t:
            continue
        base = t.replace("'", "_")[:28]
        new, k = base, 1
        while new.upper() in taken:
            k += 1
            new = f"{base}_{k}"
        taken.add(new.upper())
        renames[t] = new
    return renames


def prepare_workbook(
    src: str | os.PathLike,
    *,
    function_names: Iterable[str] = (),
    replace: Mapping[tuple[str, str], tuple[str, str]] | None = None,
    workdir: str | os.PathLike | None = None,
) -> PrepassResult:
    """Write a rewritten working copy of ``src`` and describe it.

    ``replace`` maps ``(sheet, cell)`` (original names) to ``(error_code, reason)``:
    those formulas become the constant error (used for formulas the engine
    cannot parse at all). The copy lives in a new temporary directory (or in
    ``workdir``); call :meth:`PrepassResult.cleanup` when done.
    """
    from openpyxl import load_workbook
    from openpyxl.worksheet.formula import ArrayFormula, DataTableFormula

    from rooflinexl.recalc.loader import malformed_xml

    src = Path(src)
    known = {n.upper() for n in function_names}
    replace = dict(replace or {})
    with malformed_xml(src):
        wb = load_workbook(src)
    titles = [ws.title for ws in wb.worksheets]
    renames = _safe_sheet_names(titles)
    for ws in wb.worksheets:
        if ws.title in renames:
            ws.title = renames[ws.title]
    back = {ws.title: orig for ws, orig in zip(wb.worksheets, titles, strict=True)}
    tables = read_tables(wb)
    clip = used_area([(ws.max_row, ws.max_column) for ws in wb.worksheets]
                     + [range_boundaries(ref)[3:1:-1] for ws in wb.worksheets
                        for ref in ws.array_formulae.values()])
    defined = set(wb.defined_names) | {n for ws in wb.worksheets for n in ws.defined_names}
    rewrites: dict[tuple[str, str], tuple[str, str]] = {}
    cells: list[FormulaCell] = []
    replaced: dict[tuple[str, str], tuple[str, str]] = {}

    # formulas reads workbook-scope names only: promote sheet-scope names that
    # do not clash (print areas and other built-in names stay where they are)
    for ws in wb.worksheets:
        for name, dn in list(ws.defined_names.items()):
            if name.startswith("_xlnm.") or name in wb.defined_names:
                continue
            if sum(name in w.defined_names for w in wb.worksheets) > 1:
                continue
            del ws.defined_names[name]
            dn.localSheetId = None
            wb.defined_names[name] = dn
    for name, dn in list(wb.defined_names.items()):
        value = dn.attr_text
        if not value:
            continue
        rw = rewrite_formula(
            "=" + value, tables=tables, function_names=known, sheet_renames=renames, clip=clip,
            defined=defined,
        )
        if rw.changed:
            dn.attr_text = rw.text[1:]
            rewrites[("", f"name:{name}")] = (value, rw.text[1:])

    for ws in wb.worksheets:
        orig_sheet = back[ws.title]
        for row in ws.iter_rows():
            for c in row:
                if c.data_type != "f":
                    continue
                v = c.value
                ref = None
                if isinstance(v, ArrayFormula):
                    text, ref = v.text or "", v.ref
                elif isinstance(v, DataTableFormula):
                    key = (orig_sheet, c.coordinate)
                    replace.setdefault(key, ("#VALUE!", "what-if data tables are not supported"))
                    text = "=TABLE()"
                elif isinstance(v, str):
                    text = v
                else:
                    continue
                if not text.startswith("="):
                    text = "=" + text
                key = (orig_sheet, c.coordinate)
                rw = rewrite_formula(
                    text, tables=tables, function_names=known, sheet=ws.title,
                    row=c.row, col=c.column, sheet_renames=renames, clip=clip,
                    defined=defined,
                )
                new = rw.text
                if rw.too_deep:
                    replace.setdefault(key, ("#NUM!", rw.too_deep))
                if key in replace:
                    code, reason = replace[key]
                    new = "=" + code
                    replaced[key] = (code, reason)
                if new != text:
                    if ref is not None:
                        c.value = ArrayFormula(ref, new)
                    else:
                        c.value = new
                    rewrites[key] = (text, new)
                cells.append(
                    FormulaCell(
                        orig_sheet, c.coordinate, text, new,
                        ref.replace("$", "") if ref else None, rw.functions, rw.notes,
                    )
                )
    tmpdir = None
    if workdir is None:
        tmpdir = Path(tempfile.mkdtemp(prefix="rooflinexl-recalc-"))
        workdir = tmpdir
    dst = Path(workdir) / "book.xlsx"
    try:
        with malformed_xml(src):  # openpyxl's writer trips over some data its reader took
            wb.save(dst)
    except Exception:
        if tmpdir is not None:
            shutil.rmtree(tmpdir, ignore_errors=True)
        raise
    return PrepassResult(dst, tmpdir, cells, rewrites, back, tables, replaced)
