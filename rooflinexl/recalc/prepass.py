"""Pre-pass: every formula (and every defined name) rewritten into what the engine's
compiler (:mod:`rooflinexl.recalc.compile`) reads, before it is parsed.

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
  becomes the string :data:`OMITTED`;
* whole-column and whole-row ranges are clipped to the used area, relative
  defined names written out where they are used, OFFSET with constant arguments
  made the range it means, SUBTOTAL's references split around what it leaves out.

The rewriting uses a small scanner that knows Excel's lexical rules (string
literals, quoted sheet names, bracketed table specifiers with ``'`` escapes),
never a regular expression over the whole text, so nothing inside a string
literal is ever touched. The user's file is only read.
"""
from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rooflinexl.addresses import (
    COLUMN_PATTERN,
    MAX_COL,
    MAX_ROW,
    ROW_PATTERN,
    column_letters,
    column_number,
    quote_sheet,
    unquote_sheet,
)
from rooflinexl.errors import ExcelError

__all__ = [
    "MAX_NESTING",
    "OMITTED",
    "Rewrite",
    "TableInfo",
    "rename_functions",
    "SHEET_COLS",
    "SHEET_ROWS",
    "Token",
    "clip_ranges",
    "kept_rectangles",
    "rewrite_formula",
    "tokenize",
    "used_area",
]

#: Excel's limit on nested function calls in one formula ("Excel specifications and limits")
MAX_NESTING = 64

#: Stands for an omitted argument of a registered function in the working copy.
OMITTED = "__ROOFLINEXL_OMITTED_ARGUMENT__"
#: the engine's function that maps a position in a range cut to the used area
#: (:func:`rooflinexl.recalc.functions.cut_position`)
CUT_POSITION = "_XLRX_CUTPOS"

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
_ROW_ZERO_RE = re.compile(r"\$?" + COLUMN_PATTERN + r"\$?0+")  # a cell reference's form, row 0
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
        return f"{quote_sheet(sheet, always=True)}!{a}"
    return f"{quote_sheet(sheet, always=True)}!{a}:${column_letters(c2)}${r2}"


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
    error: tuple[str, str] | None = None  # (code, reason): the cell is this error value

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
    skips: Mapping[str, SheetSkips] | None = None,
    arrays: Mapping[tuple[str, str], str] | None = None,
    implicit: bool = False,
    formulas: Mapping[tuple[str, str], str] | None = None,
    legacy: Mapping[tuple[str, str], str] | None = None,
    external: Mapping[tuple[int, str, str], object] | None = None,
) -> Rewrite:
    """Rewrite one formula (text starting with ``=``) for ``formulas``.

    ``tables`` maps upper-case table names to :class:`TableInfo`; ``row``/``col``
    locate the formula (needed for ``@``/``#This Row`` and for the table-less
    form ``[@col]`` inside a table); ``sheet_renames`` maps old to new sheet names.
    ``defined`` (upper-case defined names and table names), when given, makes every other
    name ``#NAME?``, as Excel does (``formulas`` would give ``#REF!``); a mapping to the
    names' texts also makes named LAMBDAs callable. ``LET`` and ``LAMBDA`` are written
    out (:func:`expand_lambdas`). ``skips`` (sheet title -> :class:`SheetSkips`) takes the
    cells SUBTOTAL and AGGREGATE leave out out of their references
    (:func:`split_subtotal_refs`). ``arrays`` ((sheet title, anchor cell) -> the range
    its array formula fills) turns spill references ``D1#`` into that range
    (:func:`spill_refs`). ``implicit`` (a formula that is not an array formula, at
    ``row``/``col``): a range outside every function call is the cell where it meets
    the formula's row or column (:func:`implicit_intersection`).
    ``clip`` = (last row, last column) of the workbook's used area (formula cells
    included, :func:`used_area`): every range that reaches the sheet's edge
    (``A:A``, ``1:1``, ``A1:XFD1048576``) ends there instead (:func:`clip_ranges`).
    ``external`` ((n, SHEET, "A1") -> cached value) turns a reference to another
    workbook's cell ``[n]Sheet!A1`` into its value (:func:`external_values`).

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
    if external and external_values(toks, external):
        res.kinds.add("external")
    sheets = _SHEET_ORDER.get()
    if sheets and "!" in body and expand_3d_references(toks, sheets):
        res.kinds.add("3-D reference")
    lambdas = ({k.upper(): v for k, v in defined.items()
                if isinstance(v, str) and _LAMBDA_TEXT.match(v)}
               if isinstance(defined, Mapping) else {})
    if any(t.kind == "word" and (t.text.upper() in _LET_NAMES | _LAMBDA_NAMES
                                 or t.text.upper().removeprefix("_XLUDF.") in lambdas)
           for t in toks):
        try:
            toks = expand_lambdas(toks, lambdas)
        except _LambdaError as ex:
            toks = _tokenize(ex.code)
            res.notes.append(str(ex))
            res.error = (ex.code, str(ex))
        res.kinds.add("lambda")
    if isinstance(defined, Mapping) and row is not None and col is not None:
        words = {t.text.upper() for t in toks if t.kind == "word"}
        used = {k: v for k, v in defined.items() if k.upper() in words}
        rel = relative_names(defined)
        if rel and words & rel.keys() and inline_relative_names(toks, rel, row, col):
            res.kinds.add("relative name")
        if implicit:  # a name of a range is intersected like the range (Excel's =SINUS)
            ranges = {k.upper(): v for k, v in used.items() if isinstance(v, str)
                      and (m := _REF_ARG.match(v.lstrip("="))) and m.group("c2")}
            if ranges and inline_relative_names(toks, ranges, row, col, top_level=True):
                res.kinds.add("name")
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

    if "_XLETA." in body.upper() and eta_arguments(toks):
        res.kinds.add("eta")
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
            name = unquote_sheet(t.text)
            if name in renames:
                out.append(_Tok("quoted", quote_sheet(renames[name], always=True)))
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
            base = _excel_base_name(t.text)
            if target is None and base in known and base in _engine_builtins():
                target = base  # _xlfn.SEQUENCE: Excel's own, implemented by the engine
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
    if arrays is not None and spill_refs(out, arrays, sheet):
        res.kinds.add("spill")
    if formulas is not None and formula_texts(out, formulas, sheet, ranges=not implicit,
                                              arrays=legacy):
        res.kinds.add("formulatext")
        res.functions = [f for f in res.functions
                         if _excel_base_name(f) not in ("FORMULATEXT", "ISFORMULA")]
    if reference_sizes(out):
        res.kinds.add("size")
    if static_intersections(out):
        res.kinds.add("static intersection")
    if clip is not None and clip_ranges(out, clip):
        res.kinds.add("range")
    if implicit and row is not None and col is not None and implicit_intersection(
            out, row, col):
        res.kinds.add("intersection")
    if static_offsets(out):
        res.kinds.add("offset")
        left = sum(1 for t in out if t.kind == "word" and t.text.upper() in _OFFSET_NAMES)
        res.functions = [f for f in res.functions if f.upper() not in _OFFSET_NAMES]
        res.functions += ["OFFSET"] * left
    if cell_infos(out):
        res.kinds.add("cell")
        res.functions = [f for f in res.functions if f.upper() != "CELL"]
    if indirect_positions(out, whole_cell=implicit):
        res.kinds.add("indirect")
        res.functions = [f for f in res.functions if f.upper() != "INDIRECT"]
    if skips is not None and split_subtotal_refs(out, skips, sheet, res):
        res.kinds.add("subtotal")
    if res.kinds:
        res.text = prefix + "".join(t.text for t in out)
    return res


#: the sheet's last row and column (Excel 2007 and later)
SHEET_ROWS, SHEET_COLS = MAX_ROW, MAX_COL
_COL_ONLY = re.compile(r"^(\$?)(" + COLUMN_PATTERN + ")$")
_ROW_ONLY = re.compile(r"^(\$?)(" + ROW_PATTERN + ")$")
_CELL = re.compile(r"^(\$?)(" + COLUMN_PATTERN + r")(\$?)(" + ROW_PATTERN + ")$")


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
    cell, ``COUNTIFS``, ``SUMPRODUCT`` and ``SUM`` over an element-wise expression
    likewise: :func:`_blank_terms`), and ``INDEX(A:A, n)`` past the used area is an
    empty cell (the range keeps one blank row beyond it, and :data:`CUT_POSITION` maps a
    position in the cut-off part there); in GROUPBY and PIVOTBY the blank rows cut off are
    a group (one blank row beyond the used area stands for them). ``clip`` is the workbook's
    used area
    (:func:`used_area`). Returns whether anything changed.

    >>> toks = _tokenize("SUM(B:B)+COUNTA(S!1:2)+SUM(A2:XFD1048576)+SUM(A:XFD)")
    >>> clip_ranges(toks, (300, 11)), "".join(t.text for t in toks)
    (True, 'SUM(B$1:B$300)+COUNTA(S!$A1:$K2)+SUM(A2:K300)+SUM(A$1:K$300)')
    >>> toks = _tokenize("ROWS(A:A)+COLUMNS(S!2:2)+COUNTBLANK(B2:B1048576)")
    >>> clip_ranges(toks, (300, 11)), "".join(t.text for t in toks)
    (True, '1048576+16384+(COUNTBLANK(B2:B300)+1048276)')
    >>> toks = _tokenize("_xlfn.GROUPBY(A:A,B2:B1048576,_xleta.SUM)")
    >>> clip_ranges(toks, (300, 11)), "".join(t.text for t in toks)
    (True, '_xlfn.GROUPBY(A$1:A$301,B2:B301,_xleta.SUM)')
    >>> toks = _tokenize('COUNTIF(S!A:A,"<>x")')
    >>> clip_ranges(toks, (300, 11)), "".join(t.text for t in toks)
    (True, '(COUNTIF(S!A$1:A$300,"<>x")+1048276*COUNTIF(S!$A$301,"<>x"))')
    """
    last_row, last_col = max(1, clip[0]), max(1, clip[1])
    changed = _blank_terms(toks, (last_row, last_col))
    edits: list[tuple[int, int, list]] = []  # (first token, past last, new tokens)
    for j in range(1, len(toks) - 1):
        found = _edge_range(toks, j, (last_row, last_col))
        if found is None:
            continue
        first, past, (r1, c1, r2, c2), (n2, m2), ref = found
        a, b = toks[j - 1].text, toks[j + 1].text
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
        elif call == "INDEX" and past < len(toks) and toks[past].text == "," and (
                (n2, m2) != (r2, c2)):
            # INDEX(A:A, n) past the used area is an empty cell: the range keeps one blank
            # row (column) beyond it, and a position in the cut-off part points there
            edits.extend(_index_edits(toks, first, past, ref, (r1, c1, r2, c2), (n2, m2)))
        elif (r2 == SHEET_ROWS and n2 < r2 and _enclosing_call(toks, first) in _ETA_TAKERS):
            # GROUPBY(A:A, ...): the blank rows cut off are a group of their own in Excel;
            # one blank row past the used area stands for them
            edits.append((first, past, _edge_range(toks, j, (last_row + 1, last_col))[4]))
        elif (ref[-3].text, ref[-1].text) != (a, b):
            edits.append((first, past, ref))
    edits.sort(key=lambda e: (e[0], e[1]))
    for first, past, new in reversed(edits):
        toks[first:past] = new
    return bool(edits) or changed


def _edge_range(toks: list, j: int, clip: tuple[int, int]):
    """The range around the ``:`` at ``toks[j]`` if it reaches the sheet's edge.

    Returns (first token, past last token, (r1, c1, r2, c2) as written, (last row, last
    column) clipped, the clipped reference's tokens with its sheet prefix), or None.
    """
    last_row, last_col = clip
    if toks[j].text != ":" or toks[j].kind != "op":
        return None
    left, right = toks[j - 1], toks[j + 1]
    if left.kind not in ("word", "number") or right.kind not in ("word", "number"):
        return None
    if (j >= 2 and toks[j - 2].text == ":") or (j + 2 < len(toks) and toks[j + 2].text
                                                  in (":", "!", "(")):
        return None  # a chain A1:B2:C3, or not a reference at all
    a, b = left.text, right.text
    ca, cb = _COL_ONLY.match(a), _COL_ONLY.match(b)
    ra, rb = _ROW_ONLY.match(a), _ROW_ONLY.match(b)
    ma, mb = _CELL.match(a), _CELL.match(b)
    if ca and cb:  # whole columns
        r1, c1, r2, c2 = 1, column_number(ca.group(2)), SHEET_ROWS, column_number(cb.group(2))
        if not c1 <= c2 <= SHEET_COLS:
            return None
        n2, m2 = last_row, (max(last_col, c1) if c2 == SHEET_COLS else c2)
        new_a, new_b = f"{a}$1", f"{cb.group(1)}{column_letters(m2)}${n2}"
    elif ra and rb:  # whole rows
        r1, c1, r2, c2 = int(ra.group(2)), 1, int(rb.group(2)), SHEET_COLS
        if not 1 <= r1 <= r2 <= SHEET_ROWS:
            return None
        n2, m2 = (max(last_row, r1) if r2 == SHEET_ROWS else r2), last_col
        new_a, new_b = f"$A{a}", f"${column_letters(m2)}{rb.group(1)}{n2}"
    elif ma and mb:
        r1, r2 = int(ma.group(4)), int(mb.group(4))
        c1, c2 = column_number(ma.group(2)), column_number(mb.group(2))
        if r2 != SHEET_ROWS and c2 != SHEET_COLS or r1 > r2 or c1 > c2 or c2 > SHEET_COLS:
            return None
        n2 = max(last_row, r1) if r2 == SHEET_ROWS else r2
        m2 = max(last_col, c1) if c2 == SHEET_COLS else c2
        new_a, new_b = a, f"{mb.group(1)}{column_letters(m2)}{mb.group(3)}{n2}"
    else:
        return None
    ref = [_Tok("word", new_a), toks[j], _Tok("word", new_b)]
    first, past = j - 1, j + 2
    # a sheet prefix (S!, 'My sheet'!) belongs to the reference
    if first >= 2 and toks[first - 1].text == "!" and toks[first - 2].kind in (
            "word", "quoted"):
        ref = toks[first - 2:first] + ref
        first -= 2
    return first, past, (r1, c1, r2, c2), (n2, m2), ref


#: functions whose arguments Excel evaluates cell by cell over a range in SUMPRODUCT
_ELEMENTWISE = frozenset({
    "ISBLANK", "ISNUMBER", "ISTEXT", "ISNONTEXT", "ISLOGICAL", "ISERROR", "ISERR", "ISNA",
    "LEN", "TRIM", "UPPER", "LOWER", "ABS", "N", "NOT", "EXACT", "LEFT", "RIGHT", "MID",
    "ROUND", "INT", "IF", "IFERROR", "VALUE", "SIGN"})
#: calls whose cut-off cells count as blank cells (an extra term over one blank cell)
_BLANK_TERM_CALLS = frozenset({"SUMPRODUCT", "SUM", "COUNTIFS"})


def _blank_terms(toks: list, clip: tuple[int, int]) -> bool:
    """``SUMPRODUCT((A:A="")*1)`` as ``(SUMPRODUCT((A:A="")*1)+cut*SUMPRODUCT(($A$n="")*1))``.

    The cells of a whole-column (row) range past the used area are blank, and where a
    function sees each of them (SUMPRODUCT and SUM over an element-wise expression,
    COUNTIFS's criteria ranges) they count: one blank cell beyond the used area
    (``$A$n``) stands for them all, times their number. Done only where every range in
    the call reaches the sheet's edge and is cut alike, and none is inside a function
    that is not element-wise. Returns whether anything changed.
    """
    last_row, last_col = clip
    if last_row >= SHEET_ROWS:
        return False
    changed = False
    i = 0
    while i < len(toks) - 1:
        t = toks[i]
        if not _call_at(toks, i, _BLANK_TERM_CALLS):
            i += 1
            continue
        name = t.text.upper()
        end = _closing(toks, i + 1)
        if end is None:
            return changed
        ranges, cuts, ok, depth_calls = [], set(), True, []
        for j in range(i + 2, end):
            tk = toks[j]
            if tk.kind == "op" and tk.text == "(":
                prev = toks[j - 1]
                depth_calls.append(prev.text.upper() if prev.kind == "word" else "")
            elif tk.kind == "op" and tk.text == ")":
                if depth_calls:
                    depth_calls.pop()
            elif tk.kind == "op" and tk.text == ":":
                found = _edge_range(toks, j, clip)
                if found is None or any(c and c not in _ELEMENTWISE for c in depth_calls):
                    ok = False
                    break
                first, past, (r1, c1, r2, c2), (n2, m2), ref = found
                cuts.add(((r2 - r1 + 1) * (c2 - c1 + 1), (n2 - r1 + 1) * (m2 - c1 + 1)))
                ranges.append((first, past))
        if name == "SUM" and all(toks[f - 1].text in ("(", ",") and toks[p].text in (",", ")")
                                 for f, p in ranges):
            ok = False  # SUM(A:A, B:B): ranges as they are, where blank cells add nothing
        if not ok or not ranges or len(cuts) != 1:
            i += 1
            continue
        whole, kept = cuts.pop()
        cut = whole - kept
        if cut <= 0:
            i += 1
            continue
        blank_call = list(toks[i:end + 1])
        for first, past in reversed(ranges):
            prefix = toks[first:first + 2] if toks[first + 1].text == "!" else []
            blank_call[first - i:past - i] = [*prefix, _Tok("word", f"$A${last_row + 1}")]
        new = [_Tok("op", "("), *toks[i:end + 1], _Tok("op", "+"), _Tok("number", str(cut)),
               _Tok("op", "*"), *blank_call, _Tok("op", ")")]
        toks[i:end + 1] = new
        changed = True
        i += len(new)
    return changed


def _args(toks: list, open_: int) -> list[tuple[int, int]]:
    """Spans (first, past) of the arguments of the call whose ``(`` is ``toks[open_]``."""
    spans, depth, start = [], 0, open_ + 1
    for k in range(open_, len(toks)):
        tk = toks[k]
        if tk.kind != "op":
            continue
        if tk.text in "({":
            depth += 1
        elif tk.text in ")}":
            depth -= 1
            if depth == 0:
                spans.append((start, k))
                return spans
        elif tk.text in ",;" and depth == 1:
            spans.append((start, k))
            start = k + 1
    return spans


def _index_edits(toks, first, past, ref, whole, kept):
    """Edits for ``INDEX(range, row, [col])`` whose range was cut to the used area."""
    r1, c1, r2, c2 = whole
    n2, m2 = kept
    spans = _args(toks, first - 1)
    if len(spans) < 2 or spans[0] != (first, past):
        return [(first, past, ref)]
    grow_rows, grow_cols = n2 < r2 and n2 < SHEET_ROWS, m2 < c2 and m2 < SHEET_COLS
    # one blank row (column) beyond the used area
    end = ref[-1].text
    m = _CELL.match(end)
    col_letters = column_letters(m2 + 1 if grow_cols else m2)
    row_no = n2 + 1 if grow_rows else n2
    grown = [*ref[:-1], _Tok("word", f"{m.group(1)}{col_letters}{m.group(3)}{row_no}")]
    edits = [(first, past, grown)]
    # which argument is a row, which a column: a one-row range takes its column second
    positions = [(spans[1], r2 - r1 + 1, n2 - r1 + 1, grow_rows)]
    if r1 == r2:
        positions = [(spans[1], c2 - c1 + 1, m2 - c1 + 1, grow_cols)]
    elif len(spans) > 2:
        positions.append((spans[2], c2 - c1 + 1, m2 - c1 + 1, grow_cols))
    for (a, b), whole_n, kept_n, grows in positions:
        if grows and b > a:  # inserted around the argument: edits inside it stay apart
            edits.append((a, a, [_Tok("word", CUT_POSITION), _Tok("op", "(")]))
            edits.append((b, b, [_Tok("op", ","), _Tok("number", str(kept_n)),
                                 _Tok("op", ","), _Tok("number", str(whole_n)),
                                 _Tok("op", ")")]))
    return edits


def _enclosing_call(toks: list, i: int) -> str | None:
    """The base name of the function whose argument list holds ``toks[i]`` (None when it is
    in none, or in parentheses or braces of its own)."""
    depth = 0
    for k in range(i - 1, -1, -1):
        t = toks[k]
        if t.kind != "op":
            continue
        if t.text in ")}":
            depth += 1
        elif t.text in "({":
            if depth == 0:
                prev = next((x for x in reversed(toks[:k]) if x.kind != "ws"), None)
                return (_excel_base_name(prev.text) if t.text == "(" and prev is not None
                        and prev.kind == "word" else None)
            depth -= 1
    return None


def _call_at(toks: list, i: int, names) -> bool:
    """Whether ``toks[i]`` opens a call (``NAME(``) of one of ``names`` (upper case)."""
    return (toks[i].kind == "word" and toks[i].text.upper() in names
            and i + 1 < len(toks) and toks[i + 1].text == "(")


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


_A1_CELL = re.compile(r"^\$?(" + COLUMN_PATTERN + r")\$?(" + ROW_PATTERN + ")$")


def _is_undefined(word: str, known: set[str]) -> bool:
    """Whether a word in a formula is a name that is not defined (not a cell, not TRUE)."""
    up = word.upper()
    if up in known or up in ("TRUE", "FALSE") or up.startswith(("_XLPM.", "_XLETA.")):
        return False  # a LAMBDA parameter; an eta-reduced function (_xleta.SUM) is a value
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


# ------------------------------------------------------------------ eta-reduced functions

#: the functions whose ``_xleta.NAME`` arguments the engine's own table reads
_ETA_TAKERS = frozenset({"GROUPBY", "PIVOTBY", "TYPE"})


def eta_arguments(toks: list) -> bool:
    """A function passed by name to GROUPBY or PIVOTBY (``_xleta.SUM``, Excel's eta-reduced
    lambda) as the text :data:`rooflinexl.recalc.functions.ETA_PREFIX` + its name, in place,
    which those functions read as the function; elsewhere ``_xleta.`` is left alone.

    >>> toks = _tokenize("_xlfn.GROUPBY(A1:A3,B1:B3,_xleta.SUM)")
    >>> eta_arguments(toks), "".join(t.text for t in toks)
    (True, '_xlfn.GROUPBY(A1:A3,B1:B3,"__ROOFLINEXL_FUNCTION__.SUM")')
    """
    from rooflinexl.recalc.functions import ETA_PREFIX

    changed = False
    calls: list[str] = []  # per open parenthesis: the function's base name, or ""
    prev = None  # the last token that is not white space
    for i, t in enumerate(toks):
        if t.kind == "op" and t.text in "({":
            calls.append(_excel_base_name(prev.text) if t.text == "(" and prev is not None
                         and prev.kind == "word" else "")
        elif t.kind == "op" and t.text in ")}":
            if calls:
                calls.pop()
        elif (t.kind == "word" and t.text.upper().startswith("_XLETA.") and calls
              and calls[-1] in _ETA_TAKERS):
            nxt = next((x for x in toks[i + 1:] if x.kind != "ws"), None)
            if nxt is None or nxt.text in (",", ")"):
                toks[i] = _Tok("str", f'"{ETA_PREFIX}{t.text[7:].upper()}"')
                changed = True
        if t.kind != "ws":
            prev = t
    return changed


# ------------------------------------------------------------------ LET and LAMBDA

_LET_NAMES = frozenset({"LET", "_XLFN.LET"})
_LAMBDA_TEXT = re.compile(r"^\s*=?\s*(_xlfn\.)?LAMBDA\s*\(", re.I)
_LAMBDA_NAMES = frozenset({"LAMBDA", "_XLFN.LAMBDA"})
#: expansions deeper than this (a recursive named LAMBDA) or longer than this many tokens
#: are not expanded
_LAMBDA_DEPTH, _LAMBDA_TOKENS = 32, 20_000


class _LambdaError(Exception):
    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code


def _param(tok) -> str | None:
    """The upper-case name a LET or LAMBDA parameter token binds (``_xlpm.`` dropped)."""
    if tok.kind != "word":
        return None
    up = tok.text.upper()
    return up[6:] if up.startswith(("_XLPM.", "_XLOP.")) else up  # _xlop.: optional ([b])


def _substitute(toks: list, env: dict[str, list]) -> list:
    out: list = []
    for k, t in enumerate(toks):
        name = _param(t)
        nxt = toks[k + 1].text if k + 1 < len(toks) else ""
        prev = toks[k - 1].text if k else ""
        if name in env and nxt not in ("(", "!", ":") and prev not in ("!", ":"):
            out.extend([_Tok("op", "("), *env[name], _Tok("op", ")")])
        elif name in env and nxt == "(" and _is_lambda(env[name]):  # LET(f, LAMBDA(..), f(2))
            out.extend(env[name])
        else:
            out.append(t)
    if len(out) > _LAMBDA_TOKENS:
        raise _LambdaError("#NUM!", "LET/LAMBDA expands past the engine's limit")
    return out


def _is_lambda(toks: list) -> bool:
    """Whether the tokens are one ``LAMBDA(...)`` (a LET value called by its name)."""
    return (len(toks) > 2 and toks[0].kind == "word" and toks[0].text.upper() in _LAMBDA_NAMES
            and toks[1].text == "(" and _closing(toks, 1) == len(toks) - 1)


def _strip_ws(toks: list) -> list:
    while toks and toks[0].kind == "ws":
        toks = toks[1:]
    while toks and toks[-1].kind == "ws":
        toks = toks[:-1]
    return toks


def expand_lambdas(toks: list, lambdas: Mapping[str, str], depth: int = 0) -> list:
    """``LET``, ``LAMBDA(...)(args)`` and calls of named LAMBDAs, written out (tokens).

    Each name a LET binds (Microsoft, "LET function": names, then the calculation that
    uses them; a later value may use an earlier name) and each LAMBDA parameter
    ("LAMBDA function") is replaced by its value in parentheses, innermost first, so an
    inner LET's name hides an outer one; a named LAMBDA (a defined name whose text is a
    LAMBDA) called as ``Name(args)`` is its body with the arguments in place (one that
    calls itself, to 32 levels; a deeper call is ``#NUM!``). A LAMBDA given the wrong
    number of arguments is ``#VALUE!``.

    >>> def show(f, names={}):
    ...     return "".join(t.text for t in expand_lambdas(_tokenize(f), names))
    >>> show("_xlfn.LET(_xlpm.x,2,_xlpm.y,_xlpm.x+1,_xlpm.x*_xlpm.y)")
    '((2)*((2)+1))'
    >>> show("LAMBDA(a,b,a-b)(5,2)+Add1(1)", {"ADD1": "_xlfn.LAMBDA(_xlpm.v,_xlpm.v+1)"})
    '((5)-(2))+((1)+1)'
    """
    out: list = []
    i = 0
    while i < len(toks):
        t = toks[i]
        up = t.text.upper() if t.kind == "word" else ""
        if up.startswith("_XLUDF."):
            up = up[7:]
        opens = i + 1 < len(toks) and toks[i + 1].text == "("
        if not opens or not (up in _LET_NAMES or up in _LAMBDA_NAMES or up in lambdas):
            out.append(t)
            i += 1
            continue
        end = _closing(toks, i + 1)
        if end is None:
            out.extend(toks[i:])
            break
        args = [expand_lambdas(_strip_ws(toks[a:b]), lambdas, depth)
                for a, b in _args(toks, i + 1)]
        if up in _LET_NAMES:
            if len(args) < 3 or len(args) % 2 == 0:
                raise _LambdaError("#VALUE!", "LET takes name, value pairs and a calculation")
            env: dict[str, list] = {}
            for k in range(0, len(args) - 1, 2):
                name = _param(args[k][0]) if len(args[k]) == 1 else None
                if name is None:
                    raise _LambdaError("#NAME?", "LET: a name that is not a name")
                env[name] = _substitute(args[k + 1], env)
            body = _substitute(args[-1], env)
            if any(_is_lambda(v) for v in env.values()):  # a LAMBDA called by its LET name
                body = expand_lambdas(body, lambdas, depth + 1)
            out.extend([_Tok("op", "("), *body, _Tok("op", ")")])
            i = end + 1
            continue
        if up in _LAMBDA_NAMES:
            call_open = end + 1
            if not (call_open < len(toks) and toks[call_open].text == "("):
                # a LAMBDA given to MAP, BYROW ...: left a LAMBDA, named LAMBDAs called in
                # it written out
                out.extend(toks[i:i + 2])
                for k, a in enumerate(args):
                    out.extend([_Tok("op", ","), *a] if k else a)
                out.append(_Tok("op", ")"))
                i = end + 1
                continue
            call_end = _closing(toks, call_open)
            if call_end is None:
                out.extend(toks[i:])
                break
            values = [expand_lambdas(_strip_ws(toks[a:b]), lambdas, depth)
                      for a, b in _args(toks, call_open)]
            out.extend(_apply(args, values))
            i = call_end + 1
            continue
        # a named LAMBDA
        definition = _tokenize(lambdas[up])
        head = definition[0].text.upper() if definition else ""
        if head not in _LAMBDA_NAMES or len(definition) < 2 or definition[1].text != "(":
            raise _LambdaError("#VALUE!", f"{t.text} is not a LAMBDA")
        d_end = _closing(definition, 1)
        params = [_strip_ws(definition[a:b]) for a, b in _args(definition, 1)]
        if d_end is None:
            raise _LambdaError("#VALUE!", f"{t.text}: malformed LAMBDA")
        if depth >= _LAMBDA_DEPTH:  # a recursion the engine does not follow further
            out.extend(_tokenize("#NUM!"))
        else:
            out.extend(expand_lambdas(_apply(params, args), lambdas, depth + 1))
        i = end + 1
    return out


def _apply(lam_args: list, values: list) -> list:
    """A LAMBDA's body (the last of ``lam_args``) with its parameters bound to ``values``."""
    params = [_param(a[0]) if len(a) == 1 else None for a in lam_args[:-1]]
    if any(p is None for p in params):
        raise _LambdaError("#VALUE!", "LAMBDA: a parameter that is not a name")
    if len(values) == 1 and not values[0] and not params:
        values = []
    optional = [a[0].text.upper().startswith("_XLOP.") for a in lam_args[:-1]]
    if len(values) < len(params) and all(optional[len(values):]):  # LAMBDA(a, [b], ..)(1)
        values = [*values, *([[]] * (len(params) - len(values)))]
    if len(values) != len(params):
        raise _LambdaError("#VALUE!", f"LAMBDA takes {len(params)} arguments, "
                                      f"given {len(values)}")
    # Microsoft, "ISOMITTED function": TRUE of a parameter given no value (``(1,)`` or an
    # optional one left out), which reads as 0 elsewhere
    omitted = {p for p, v in zip(params, values, strict=True) if not v}
    body = _isomitted(lam_args[-1], set(params), omitted)
    env = {p: v or [_Tok("number", "0")] for p, v in zip(params, values, strict=True)}
    return [_Tok("op", "("), *_substitute(body, env), _Tok("op", ")")]


def _isomitted(toks: list, params: set, omitted: set) -> list:
    """``ISOMITTED(p)`` of the parameters ``params`` written as TRUE (``p`` in
    ``omitted``) or FALSE."""
    out: list = []
    k = 0
    while k < len(toks):
        t = toks[k]
        if (t.kind == "word" and t.text.upper() in ("ISOMITTED", "_XLFN.ISOMITTED")
                and k + 3 < len(toks) and toks[k + 1].text == "(" and toks[k + 3].text == ")"
                and _param(toks[k + 2]) in params):
            out.append(_Tok("word", "TRUE" if _param(toks[k + 2]) in omitted else "FALSE"))
            k += 4
            continue
        out.append(t)
        k += 1
    return out


# ------------------------------------------------------------------ SUBTOTAL, AGGREGATE


@dataclass(frozen=True)
class SheetSkips:
    """What SUBTOTAL and AGGREGATE may leave out of a sheet's references."""

    hidden: frozenset = frozenset()  # hidden rows (by the user or by a filter)
    filtered: frozenset = frozenset()  # of those, rows a filter hides
    subtotals: frozenset = frozenset()  # (row, col) of cells calling SUBTOTAL or AGGREGATE


_SUBTOTAL_CALLS = frozenset({"SUBTOTAL", "AGGREGATE", "_XLFN.AGGREGATE"})
_REF_ARG = re.compile(r"^(?:(?P<sheet>'(?:[^']|'')+'|[^'!:]+)!)?\$?(?P<c1>" + COLUMN_PATTERN
                      + r")\$?(?P<r1>\d+)(?::\$?(?P<c2>" + COLUMN_PATTERN + r")\$?(?P<r2>\d+))?$")


def _literal_int(toks: list) -> int | None:
    toks = _strip_ws(toks)
    if len(toks) == 1 and toks[0].kind == "number":
        try:
            return int(float(toks[0].text))
        except ValueError:
            return None
    return None


def split_subtotal_refs(toks: list, skips: Mapping[str, SheetSkips], sheet: str | None,
                        res: Rewrite) -> bool:
    """Take the cells SUBTOTAL and AGGREGATE leave out out of their references (in place).

    Microsoft, "SUBTOTAL function": other SUBTOTALs in the references are left out, so are
    rows a filter hides, and with function_num 101-111 every hidden row. "AGGREGATE
    function": options 0-3 leave out nested SUBTOTAL and AGGREGATE cells, options 1, 3,
    5, 7 hidden rows, for the reference form and for the array form's array (its ``k``
    stays as written). A reference with such cells becomes the references that cover the
    rest (``A1:A10`` with row 5 hidden: ``A1:A4,A6:A10``). Where the function_num or the
    options are not numbers written in the formula (``AGGREGATE(C$14,$A17,$C$1:$C$11)``,
    ClosedXML's functions-excel-2010.xlsx), the call becomes one call per case, picked
    when evaluated: ``CHOOSE((options)+1, ...)`` over the eight options, ``IF((function_num)
    +0>100, ...)`` for SUBTOTAL. Still an error value with the reason: AGGREGATE with a
    function_num not written as a number and cells to leave out of a fourth or later
    argument (a ``k`` or a reference: only the number tells). Returns whether anything
    changed.

    >>> toks = _tokenize("SUBTOTAL(109,A1:B4)")
    >>> skips = {"S": SheetSkips(hidden=frozenset({2}), subtotals=frozenset({(4, 2)}))}
    >>> split_subtotal_refs(toks, skips, "S", Rewrite("")), "".join(t.text for t in toks)
    (True, 'SUBTOTAL(109,A1,A3:A4,B1,B3)')
    >>> toks = _tokenize("SUBTOTAL(Z1,A1:A3)")
    >>> split_subtotal_refs(toks, skips, "S", Rewrite("")), "".join(t.text for t in toks)
    (True, 'IF((Z1)+0>100,SUBTOTAL(Z1,A1,A3),SUBTOTAL(Z1,A1:A3))')
    """
    changed = False
    i = 0
    while i < len(toks) - 1:
        t = toks[i]
        if not _call_at(toks, i, _SUBTOTAL_CALLS):
            i += 1
            continue
        spans = _args(toks, i + 1)
        if not spans:
            i += 1
            continue
        agg = t.text.upper() != "SUBTOTAL"
        num = _literal_int(toks[spans[0][0]:spans[0][1]])
        texts = ["".join(x.text for x in toks[a:b]) for a, b in spans]
        if agg:
            opt_blank = len(spans) < 2 or not _strip_ws(toks[spans[1][0]:spans[1][1]])
            opt = 0 if opt_blank else _literal_int(toks[spans[1][0]:spans[1][1]])
            refs = list(range(2, 3 if num is not None and num >= 14 else len(spans)))
        else:
            opt = 0
            refs = list(range(1, len(spans)))

        place = (toks, spans, texts, refs, skips, sheet)
        if agg:  # options 0-7: (nested, hidden) left out
            cases = [_leave_out(place, o <= 3, o in (1, 3, 5, 7), o in (1, 3, 5, 7))
                     for o in range(8)]
        else:  # function_num 1-11, 101-111: filtered rows, and hidden ones above 100
            cases = [_leave_out(place, True, False, True), _leave_out(place, True, True, True)]
        if agg and opt is not None:
            cases = [cases[opt] if 0 <= opt <= 7 else None]
        elif not agg and num is not None:
            cases = [cases[num > 100]]
        if all(c is None for c in cases):
            i += 1
            continue
        if agg and num is None and len(spans) > 3 and any(
                _kept_pieces(toks[a:b], skips, sheet, True, True, True) is not None
                for a, b in spans[3:]):
            res.error = ("#VALUE!", f"{t.text}: leaving out hidden rows or nested "
                                    "subtotals of a fourth argument needs the "
                                    "function_num written as a number")
            return changed

        calls = [f"{t.text}({','.join(texts if c is None else c)})" for c in cases]
        if len(cases) == 1:
            new_text = calls[0]
        elif agg:
            new_text = f"CHOOSE(({texts[1]})+1,{','.join(calls)})"
        else:
            new_text = f"IF(({texts[0]})+0>100,{calls[1]},{calls[0]})"
        new = _tokenize(new_text)
        toks[i:spans[-1][1] + 1] = new  # through the closing parenthesis
        changed = True
        i += len(new)
    return changed


def _leave_out(place, nested: bool, hidden: bool, filtered: bool) -> list[str] | None:
    """The argument texts of a SUBTOTAL/AGGREGATE call (``place``: its tokens, argument
    spans and texts, the reference arguments, the skips and the sheet) with the nested
    subtotals (``nested``), the hidden rows (``hidden``) and the rows a filter hides
    (``filtered``) left out, or None where that leaves everything in."""
    toks, spans, texts, refs, skips, sheet = place
    out, moved = list(texts), False
    for k in refs:
        a, b = spans[k]
        pieces = _kept_pieces(toks[a:b], skips, sheet, nested, hidden, filtered)
        if pieces is not None:
            out[k] = ",".join(pieces) if pieces else f'"{OMITTED}"'
            moved = True
    return out if moved else None


def _kept_pieces(arg: list, skips, sheet, nested: bool, hidden: bool, filtered: bool):
    """The references covering what a reference argument keeps (None: it keeps it all)."""
    m = _REF_ARG.match("".join(t.text for t in _strip_ws(arg)))
    if m is None:
        return None
    prefix = m.group("sheet")
    name = (prefix[1:-1].replace("''", "'") if prefix and prefix.startswith("'")
            else prefix) or sheet
    info = skips.get(name) if name is not None else None
    if info is None:
        return None
    c1, r1 = column_number(m.group("c1")), int(m.group("r1"))
    c2, r2 = (column_number(m.group("c2")), int(m.group("r2"))) if m.group("c2") else (c1, r1)
    c1, c2, r1, r2 = min(c1, c2), max(c1, c2), min(r1, r2), max(r1, r2)
    rows_out = set()
    if hidden:
        rows_out |= {r for r in info.hidden if r1 <= r <= r2}
    if filtered:
        rows_out |= {r for r in info.filtered if r1 <= r <= r2}
    cells_out = {(r, c) for r, c in info.subtotals
                 if r1 <= r <= r2 and c1 <= c <= c2} if nested else set()
    if not rows_out and not cells_out:
        return None
    sheet_part = f"{prefix}!" if prefix else ""
    pieces = []
    for a, ca, b, cb in kept_rectangles(r1, c1, r2, c2, rows_out, cells_out):
        tl, br = f"{column_letters(ca)}{a}", f"{column_letters(cb)}{b}"
        pieces.append(sheet_part + (tl if tl == br else f"{tl}:{br}"))
    return pieces


def kept_rectangles(r1: int, c1: int, r2: int, c2: int, rows_out, cells_out) -> list:
    """The rectangles (r1, c1, r2, c2) covering what the range r1..r2 by c1..c2 keeps
    without the rows ``rows_out`` and the (row, col) cells ``cells_out``: per column, the
    runs of rows kept; neighbouring columns with the same runs in one rectangle.

    >>> kept_rectangles(1, 1, 6, 2, {4}, {(3, 1)})
    [(1, 1, 2, 1), (5, 1, 6, 1), (1, 2, 3, 2), (5, 2, 6, 2)]
    """
    runs_of = []
    for c in range(c1, c2 + 1):
        runs, start = [], None
        for r in range(r1, r2 + 2):
            keep = r <= r2 and r not in rows_out and (r, c) not in cells_out
            if keep and start is None:
                start = r
            elif not keep and start is not None:
                runs.append((start, r - 1))
                start = None
        runs_of.append(runs)
    out = []
    c = 0
    while c < len(runs_of):
        d = c
        while d + 1 < len(runs_of) and runs_of[d + 1] == runs_of[c]:
            d += 1
        out += [(a, c1 + c, b, c1 + d) for a, b in runs_of[c]]
        c = d + 1
    return out


# ------------------------------------------------------------------ OFFSET

_OFFSET_NAMES = frozenset({"OFFSET"})


def _signed_literal(toks: list):
    """The number a signed numeric literal (``2``, ``-1``, ``+0.5``) spells, else None."""
    toks = [t for t in toks if t.kind != "ws"]
    sign = 1.0
    while toks and toks[0].kind == "op" and toks[0].text in "+-":
        sign = -sign if toks[0].text == "-" else sign
        toks = toks[1:]
    if len(toks) == 1 and toks[0].kind == "number":
        return sign * float(toks[0].text)
    return None


def static_offsets(toks: list) -> bool:
    """``OFFSET(ref, rows, cols, [height], [width])`` with numbers written for every
    argument after ``ref`` (a cell or range) becomes the reference it means, in place
    (Microsoft, "OFFSET function": ``rows`` down and ``cols`` right of ``ref``'s top
    left, ``height`` x ``width`` cells, by default ``ref``'s size; off the sheet, or a
    height or width below 1, is #REF!). Other OFFSETs stay (an unknown function).

    >>> toks = _tokenize("SUM(OFFSET(S!B2,1,0,2))+OFFSET($A1,-1,0)+OFFSET(A1,B1,0)")
    >>> static_offsets(toks), "".join(t.text for t in toks)
    (True, 'SUM(S!B3:B4)+#REF!+OFFSET(A1,B1,0)')
    >>> toks = _tokenize("OFFSET($A1,1,1)")
    >>> static_offsets(toks), "".join(t.text for t in toks)
    (True, '$B2')
    """
    from rooflinexl.recalc.functions import offset_address

    changed = False
    i = 0
    while i < len(toks) - 1:
        if not _call_at(toks, i, _OFFSET_NAMES):
            i += 1
            continue
        end = _closing(toks, i + 1)
        spans = _args(toks, i + 1)
        m = (_REF_ARG.match("".join(x.text for x in _strip_ws(toks[spans[0][0]:spans[0][1]])))
             if end is not None and 3 <= len(spans) <= 5 else None)
        nums = [_signed_literal(toks[a:b]) if _strip_ws(toks[a:b]) or k < 2 else True
                for k, (a, b) in enumerate(spans[1:])]
        if m is None or any(x is None for x in nums):
            i += 1
            continue
        nums += [True] * (4 - len(nums))
        c1, r1 = column_number(m.group("c1")), int(m.group("r1"))
        c2, r2 = (column_number(m.group("c2")), int(m.group("r2"))) if m.group("c2") else (
            c1, r1)
        prefix = f"{m.group('sheet')}!" if m.group("sheet") else ""
        text = str(offset_address(prefix, min(r1, r2), min(c1, c2), abs(r2 - r1) + 1,
                                  abs(c2 - c1) + 1, *nums))
        # relative stays relative (a filled-down OFFSET(A1,1,0) reads A2, A3 ...)
        corner = _CELL.match(m.group(0).split("!")[-1].split(":")[0])
        if not text.startswith("#") and corner is not None:
            body = text[len(prefix):]
            col_abs, row_abs = ("$" if corner.group(1) else ""), (
                "$" if corner.group(3) else "")
            body = re.sub(r"\$(" + COLUMN_PATTERN + r")\$(\d+)", rf"{col_abs}\1{row_abs}\2", body)
            text = prefix + body
        new = _tokenize(text)
        toks[i:end + 1] = new
        changed = True
        i += len(new)
    return changed


# ------------------------------------------------------------------------------ CELL


def cell_infos(toks: list) -> bool:
    """``CELL(info, ref)`` with a written reference as ``_XLRX_CELL(info, <top-left cell>,
    "<address>", row, col)``, and ``CELL(info)`` as ``_XLRX_CELL(info)``, in place
    (:func:`rooflinexl.recalc.functions._cell_info`). A reference it cannot place (a name,
    INDIRECT) leaves the call as it is.

    >>> toks = _tokenize('CELL("col",A8:C8)+CELL("x")+CELL(B1,S!$D$4)')
    >>> cell_infos(toks), "".join(t.text for t in toks)
    (True, '_XLRX_CELL("col",A8,"$A$8",8,1)+_XLRX_CELL("x")+_XLRX_CELL(B1,S!$D$4,"",4,4)')
    """
    from rooflinexl.recalc.functions import CELL_INFO

    changed = False
    i = 0
    while i < len(toks) - 1:
        if not _call_at(toks, i, ("CELL",)):
            i += 1
            continue
        end = _closing(toks, i + 1)
        spans = _args(toks, i + 1) if end is not None else []
        info = "".join(x.text for x in toks[spans[0][0]:spans[0][1]]) if spans else ""
        if len(spans) == 1 and info.strip():
            text = f"{CELL_INFO}({info})"
        elif len(spans) == 2:
            ref = "".join(x.text for x in _strip_ws(toks[spans[1][0]:spans[1][1]]))
            m = _REF_ARG.match(ref)
            if m is None:
                i += 1
                continue
            c1, r1 = column_number(m.group("c1")), int(m.group("r1"))
            if m.group("c2"):
                c1, r1 = min(c1, column_number(m.group("c2"))), min(r1, int(m.group("r2")))
            corner = ref.split(":")[0] if not m.group("c2") or (
                c1 == column_number(m.group("c1")) and r1 == int(m.group("r1"))) else (
                (f"{m.group('sheet')}!" if m.group("sheet") else "")
                + f"${column_letters(c1)}${r1}")
            address = "" if m.group("sheet") else f"${column_letters(c1)}${r1}"
            text = f'{CELL_INFO}({info},{corner},"{address}",{r1},{c1})'
        else:
            i += 1
            continue
        new = _tokenize(text)
        toks[i:end + 1] = new
        changed = True
        i += len(new)
    return changed


# ------------------------------------------------ ROW/COLUMN/ROWS/COLUMNS(INDIRECT(text))

_POSITION_NAMES = frozenset({"ROW", "COLUMN", "ROWS", "COLUMNS"})


def indirect_positions(toks: list, whole_cell: bool = False) -> bool:
    """``ROW(INDIRECT(x))`` (and COLUMN, ROWS, COLUMNS) as ``_XLRX_REFPOS(x,a1,"ROW",w)``
    in place: the position of the reference the text names, read without its cells
    (:func:`rooflinexl.recalc.functions._ref_position`); ``w`` is 1 where the call is
    the whole formula of a plain (not array) cell (``whole_cell``).

    >>> toks = _tokenize("ROW(INDIRECT(J2))")
    >>> indirect_positions(toks, True), "".join(t.text for t in toks)
    (True, '_XLRX_REFPOS(J2,TRUE,"ROW",1)')
    >>> toks = _tokenize("SUM(COLUMN(INDIRECT(A1&B1, 1)))")
    >>> indirect_positions(toks), "".join(t.text for t in toks)
    (True, 'SUM(_XLRX_REFPOS(A1&B1, 1,"COLUMN",0))')
    """
    from rooflinexl.recalc.functions import REF_POSITION

    changed = False
    i = 0
    while i < len(toks) - 3:
        t = toks[i]
        if not _call_at(toks, i, _POSITION_NAMES):
            i += 1
            continue
        end = _closing(toks, i + 1)
        inner = _strip_ws(toks[i + 2:end]) if end is not None else []
        if not (len(inner) >= 3 and inner[0].kind == "word"
                and inner[0].text.upper() in ("INDIRECT", "_XLFN.INDIRECT")
                and inner[1].text == "(" and _closing(inner, 1) == len(inner) - 1):
            i += 1
            continue
        spans = _args(inner, 1)
        if not 1 <= len(spans) <= 2:
            i += 1
            continue
        text = "".join(x.text for x in inner[spans[0][0]:spans[0][1]])
        a1 = ("".join(x.text for x in inner[spans[1][0]:spans[1][1]]) if len(spans) == 2
              else "TRUE") or "TRUE"
        whole = int(whole_cell and i == 0 and end == len(toks) - 1)
        new = _tokenize(f'{REF_POSITION}({text},{a1},"{t.text.upper()}",{whole})')
        toks[i:end + 1] = new
        changed = True
        i += len(new)
    return changed


# ------------------------------------------------------------------ spill references

_ANCHOR_NAMES = frozenset({"ANCHORARRAY", "_XLFN.ANCHORARRAY"})


def spill_refs(toks: list, arrays: Mapping[tuple[str, str], str], sheet: str | None) -> bool:
    """Spill references as the range their anchor's array fills, in place: ``D1#`` and
    ``_xlfn.ANCHORARRAY(D1)`` (as Excel saves ``D1#``) become ``D1:D3`` when D1's dynamic
    array formula fills D1:D3 (Microsoft, "Spilled range operator"); a cell that holds no
    array is #REF!, as in Excel.

    >>> toks = _tokenize("SUM(D1#)+COUNT(_xlfn.ANCHORARRAY(S!D1))+E1#")
    >>> spill_refs(toks, {("S", "D1"): "D1:D3"}, "S"), "".join(t.text for t in toks)
    (True, 'SUM(D1:D3)+COUNT(S!D1:D3)+#REF!')
    """
    changed = False
    i = 0
    while i < len(toks):
        t = toks[i]
        if _call_at(toks, i, _ANCHOR_NAMES):
            end = _closing(toks, i + 1)
            inner = _strip_ws(toks[i + 2:end]) if end is not None else []
            first, past = i, (end + 1 if end is not None else i + 1)
        elif (t.kind == "word" and i + 1 < len(toks) and toks[i + 1].kind == "op"
              and toks[i + 1].text == "#" and _CELL.match(t.text)
              and not (i + 2 < len(toks) and toks[i + 2].kind == "word")):
            inner, first, past = [t], i, i + 2
            if i >= 2 and toks[i - 1].text == "!" and toks[i - 2].kind in ("word", "quoted"):
                inner, first = toks[i - 2:i + 1], i - 2
        else:
            i += 1
            continue
        text = "".join(x.text for x in inner)
        m = _REF_ARG.match(text)
        if m is None or m.group("c2"):
            i += 1
            continue
        prefix = m.group("sheet")
        name = (prefix[1:-1].replace("''", "'") if prefix and prefix.startswith("'")
                else prefix) or sheet
        anchor = f"{m.group('c1').upper()}{m.group('r1')}"
        ref = arrays.get((name, anchor)) if name is not None else None
        new = _tokenize(f"{prefix}!{ref}" if ref and prefix else ref or "#REF!")
        toks[first:past] = new
        changed = True
        i = first + len(new)
    return changed


# ------------------------------------------------------------------ ROWS, COLUMNS

_SIZE_NAMES = {"ROWS": 0, "COLUMNS": 1}


def _ref_areas(toks: list) -> list[tuple[str, int, int, int, int]] | None:
    """The areas ``(sheet, r1, c1, r2, c2)`` a reference expression denotes: references,
    unions in parentheses (``(A1:B2,C3)``) and intersections (a space); None when ``toks``
    is anything else (a name, a function call, a value). ``sheet`` is ``""`` for the
    formula's own sheet."""
    pos = 0

    def at(k: int = 0):
        return toks[pos + k] if pos + k < len(toks) else None

    def skip_ws():
        nonlocal pos
        while at() is not None and at().kind == "ws":
            pos += 1

    def corner(t, first: bool):
        m = _CELL.match(t.text)
        if m:
            rc = int(m.group(4)), column_number(m.group(2))
        elif (m := _COL_ONLY.match(t.text)) and t.kind == "word":
            rc = (1 if first else SHEET_ROWS), column_number(m.group(2))
        elif m := _ROW_ONLY.match(t.text):
            rc = int(m.group(2)), (1 if first else SHEET_COLS)
        else:
            return None
        return rc if 1 <= rc[0] <= SHEET_ROWS and 1 <= rc[1] <= SHEET_COLS else None

    def primary():
        nonlocal pos
        skip_ws()
        t = at()
        if t is None:
            return None
        if t.text == "(":
            pos += 1
            areas = union()
            skip_ws()
            if areas is None or at() is None or at().text != ")":
                return None
            pos += 1
            return areas
        sheet = ""
        if t.kind in ("word", "quoted") and at(1) is not None and at(1).text == "!":
            sheet = t.text[1:-1].replace("''", "'") if t.kind == "quoted" else t.text
            pos += 2
            t = at()
            if t is None:
                return None
        a = corner(t, True)
        if a is None:
            return None
        pos += 1
        b = a
        if at() is not None and at().text == ":":
            nxt = at(1)
            b = corner(nxt, False) if nxt is not None else None
            if b is None:
                return None
            pos += 2
        elif _CELL.match(t.text) is None:  # a lone column or row number is no reference
            return None
        return [(sheet.upper(), min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]),
                 max(a[1], b[1]))]

    def intersection():
        nonlocal pos
        areas = primary()
        while areas is not None and at() is not None and at().kind == "ws":
            start = pos
            skip_ws()
            if at() is None or at().text in (")", ","):
                pos = start
                break
            other = primary()
            if other is None:
                return None
            areas = [(s, max(a1, b1), max(a2, b2), min(a3, b3), min(a4, b4))
                     for (s, a1, a2, a3, a4) in areas for (t, b1, b2, b3, b4) in other
                     if s == t and max(a1, b1) <= min(a3, b3) and max(a2, b2) <= min(a4, b4)]
        return areas

    def union():
        nonlocal pos
        areas = intersection()
        while areas is not None:
            skip_ws()
            if at() is None or at().text != ",":
                break
            pos += 1
            more = intersection()
            if more is None:
                return None
            areas = areas + more
        return areas

    areas = intersection()
    skip_ws()
    return areas if pos == len(toks) else None


def reference_sizes(toks: list) -> bool:
    """``ROWS(ref)`` and ``COLUMNS(ref)`` of a reference written in the formula become the
    number, in place: the size is the reference's, whatever its cells hold (``COLUMNS(K15)``
    is 1 when K15 is an error value). Microsoft, "ROWS function" / "COLUMNS function" (read
    2026-12-01) take one array or reference; a reference of several areas (a union
    ``(A1:B2,C3)``) is #REF! and an empty intersection #NULL!, as the formulas project's
    test.xlsx (saved by Excel) caches for ``COLUMNS((D15:G15,I15:J15,K15:N15))``.

    >>> toks = _tokenize("ROWS(S!B2:C9)+COLUMNS($A1)+ROWS((A1:B2,C3))&COLUMNS(A1:C3 B2:D2)")
    >>> reference_sizes(toks), "".join(t.text for t in toks)
    (True, '8+1+#REF!&2')
    """
    changed = False
    i = 0
    while i < len(toks) - 1:
        t = toks[i]
        which = _SIZE_NAMES.get(t.text.upper()) if t.kind == "word" else None
        if which is None or toks[i + 1].text != "(":
            i += 1
            continue
        end = _closing(toks, i + 1)
        areas = _ref_areas(toks[i + 2:end]) if end is not None else None
        if areas is None:
            i += 1
            continue
        if len(areas) > 1:
            new = _Tok("word", "#REF!")
        elif not areas:
            new = _Tok("word", "#NULL!")
        else:
            _s, r1, c1, r2, c2 = areas[0]
            new = _Tok("number", str(r2 - r1 + 1 if which == 0 else c2 - c1 + 1))
        toks[i:end + 1] = [new]
        changed = True
        i += 1
    return changed


def static_intersections(toks: list) -> bool:
    """An intersection (a space) of references written in the formula becomes, in place,
    the overlapping range, or ``#NULL!`` when they do not overlap. Microsoft, "Calculation
    operators and precedence in Excel" (read 2026-12-01): the space is the intersection
    operator; the formulas project's test.xlsx (saved by Excel) caches #NULL! for
    ``=J8:K10 L6:M7``. An empty one is rewritten only as the whole formula (inside an
    expression ``formulas`` gives #NULL! itself: test.xlsx's ``=COLUMN(C12:E13 F12:H13)``);
    references to other sheets than one are left as written.

    >>> toks = _tokenize("SUM(A1:C3 B2:D2)+J8:K10 L6:M7&S!A:A S!2:2")
    >>> static_intersections(toks), "".join(t.text for t in toks)
    (True, 'SUM($B$2:$C$2)+J8:K10 L6:M7&S!$A$2')
    >>> toks = _tokenize("J8:K10 L6:M7")
    >>> static_intersections(toks), "".join(t.text for t in toks)
    (True, '#NULL!')
    """
    changed = False
    i = 0
    while i < len(toks):
        prev = toks[i - 1] if i else None
        if toks[i].kind not in ("word", "quoted", "number") or (
                prev is not None and (prev.kind == "bracket" or prev.text in ("#", "!", ":"))):
            i += 1
            continue
        j = i
        while j < len(toks) and (toks[j].kind in ("word", "quoted", "number", "ws")
                                 or toks[j].text in (":", "!")):
            j += 1
        end = j
        while end > i and toks[end - 1].kind == "ws":
            end -= 1
        span = toks[i:end]
        nxt = toks[j] if j < len(toks) else None
        groups: list[list] = [[]]
        for t in span:
            if t.kind == "ws":
                groups.append([])
            else:
                groups[-1].append(t)
        sheets = {"".join(t.text for t in g[:2]) if len(g) > 1 and g[1].text == "!" else ""
                  for g in groups}
        areas = (_ref_areas(span) if len(groups) > 1 and len(sheets) == 1
                 and (nxt is None or nxt.text not in ("(", "[")) else None)
        if areas is None or len(areas) > 1 or (not areas and (i, end) != (0, len(toks))):
            i = j  # formulas itself gives #NULL! for an empty one inside an expression
            continue
        if not areas:
            new = [_Tok("word", "#NULL!")]
        else:
            _s, r1, c1, r2, c2 = areas[0]
            a = f"${column_letters(c1)}${r1}"
            if (r1, c1) != (r2, c2):
                a += f":${column_letters(c2)}${r2}"
            new = [_Tok("word", sheets.pop() + a)]
        toks[i:end] = new
        changed = True
        i += len(new)
    return changed


def external_values(toks: list, external: Mapping[tuple[int, str, str], object]) -> bool:
    """A reference to one cell of another workbook, ``[1]Sheet1!$A$1`` or
    ``'[1]My sheet'!A1``, becomes the value the package caches for it (``external``:
    :func:`rooflinexl.ooxml.package.external_cells`), in place, as Excel computes it until
    the link is refreshed (the formulas project's test.xlsx, saved by Excel, caches 3 for
    ``=[1]Sheet1!$A$1+1`` with 2 cached in its externalLink1.xml); a name of one cell of
    that workbook, ``[1]!Name`` or ``[1]Sheet1!Name``, the same. A range, or a cell
    without a cached value, is left as written.

    >>> toks = _tokenize("[1]Sheet1!$A$1+'[1]My s'!B2&[1]Sheet1!A1:A2")
    >>> ext = {(1, "SHEET1", "A1"): 2.0, (1, "MY S", "B2"): 'a"b'}
    >>> external_values(toks, ext), "".join(t.text for t in toks)
    (True, '2+"a""b"&[1]Sheet1!A1:A2')
    """
    changed = False
    i = 0
    while i + 2 < len(toks):
        t = toks[i]
        if t.kind == "bracket" and toks[i + 1].kind == "word" and toks[i + 2].text == "!":
            book, sheet, first = t.text[1:-1], toks[i + 1].text, i + 3
        elif t.kind == "bracket" and toks[i + 1].text == "!":  # [1]!Name: workbook scope
            book, sheet, first = t.text[1:-1], "", i + 2
        elif t.kind == "quoted" and (m := re.match(r"^'\[(\d+)\](.*)'$", t.text)) \
                and toks[i + 1].text == "!":
            book, sheet, first = m.group(1), m.group(2).replace("''", "'"), i + 2
        else:
            i += 1
            continue
        ref = toks[first] if first < len(toks) else None
        after = toks[first + 1] if first + 1 < len(toks) else None
        if (not book.isdigit() or ref is None or ref.kind != "word"
                or (after is not None and after.text in (":", "#", "(", "["))):
            i += 1
            continue
        key = (int(book), sheet.upper(), ref.text.replace("$", "").upper())
        if key not in external:
            i += 1
            continue
        toks[i:first + 1] = [_literal(external[key])]
        changed = True
        i += 1
    return changed


def _literal(v) -> Token:
    """A cell value as a formula token: a number, a quoted text, TRUE/FALSE, an error."""
    if isinstance(v, bool):
        return _Tok("word", "TRUE" if v else "FALSE")
    if isinstance(v, float):
        text = f"{v:.17g}"
        if "e" in text:
            mant, exp = text.split("e")
            text = f"{mant}E{'+' if int(exp) >= 0 else '-'}{abs(int(exp))}"
        return _Tok("number", f"({text})" if v < 0 else text)
    if isinstance(v, ExcelError):
        return _Tok("word", str(v))
    return _Tok("str", '"' + str(v).replace('"', '""') + '"')


# ------------------------------------------------------------------ FORMULATEXT

_FORMULATEXT_NAMES = frozenset({"FORMULATEXT", "_XLFN.FORMULATEXT"})
_ISFORMULA_NAMES = frozenset({"ISFORMULA", "_XLFN.ISFORMULA"})
#: ISFORMULA of a larger range is left to the engine (no array constant of its size)
_ISFORMULA_CELLS = 10_000


def displayed_formula(text: str) -> str:
    """A formula as Excel's formula bar shows it: without the ``_xlfn.``/``_xlws.``
    prefixes the file format adds to newer functions.

    >>> displayed_formula('=_xlfn._xlws.SORT(A1:A3)&"_xlfn.x"')
    '=SORT(A1:A3)&"_xlfn.x"'
    """
    toks = _tokenize(text)
    out = []
    for t in toks:
        if t.kind == "word":
            w = t.text
            while w[:6].upper() in ("_XLFN.", "_XLWS."):
                w = w[6:]
            out.append(w)
        else:
            out.append(t.text)
    return "".join(out)


def formula_texts(toks: list, formulas: Mapping[tuple[str, str], str],
                  sheet: str | None, ranges: bool = False,
                  arrays: Mapping[tuple[str, str], str] | None = None) -> bool:
    """``FORMULATEXT(ref)`` as the text literal of the formula in ``ref``'s cell, and
    ``ISFORMULA(ref)`` as TRUE or FALSE, in place (a workbook's formulas do not change
    while it recalculates). Microsoft, "FORMULATEXT function" (read 2026-12-01): it returns
    what the formula bar shows; a range gives the formula of its upper-left cell; a cell
    without a formula is #N/A. "ISFORMULA function": TRUE when the reference is to a cell
    that contains a formula. With ``ranges`` (an array formula), ISFORMULA of a range is the
    array of TRUE/FALSE of its cells, as Excel caches for ``{=ISFORMULA(C10:J10)}`` in the
    formulas project's test.xlsx. A cell of an array formula's range (``arrays``: (sheet,
    anchor) -> range) holds a formula, as there. Other arguments (a whole column, a name, a
    computed reference, a range for ISFORMULA elsewhere) stay as they are.

    >>> toks = _tokenize("FORMULATEXT(B2)&_xlfn.FORMULATEXT(S!C1:C4)&FORMULATEXT(Z9)")
    >>> toks += _tokenize("&ISFORMULA(B2)&_xlfn.ISFORMULA(Z9)")
    >>> formula_texts(toks, {("S", "B2"): "=COS(A2)&'x'", ("S", "C1"): "=1"}, "S")
    True
    >>> print("".join(t.text for t in toks))
    "=COS(A2)&'x'"&"=1"&#N/A&TRUE&FALSE
    >>> toks = _tokenize("ISFORMULA(B1:C2)")
    >>> formula_texts(toks, {("S", "C1"): "=1", ("S", "B2"): "=2"}, "S", ranges=True)
    True
    >>> print("".join(t.text for t in toks))
    {FALSE,TRUE;TRUE,FALSE}
    """
    from openpyxl.utils.cell import range_boundaries

    areas: dict[str, list[tuple[int, int, int, int]]] = {}
    for (s, _anchor), ref in (arrays or {}).items():
        c1, r1, c2, r2 = range_boundaries(ref)
        areas.setdefault(s, []).append((r1, c1, r2, c2))

    def is_formula(name: str, r: int, c: int) -> bool:
        return (name, f"{column_letters(c)}{r}") in formulas or any(
            r1 <= r <= r2 and c1 <= c <= c2 for r1, c1, r2, c2 in areas.get(name, ()))

    changed = False
    i = 0
    while i < len(toks) - 1:
        t = toks[i]
        if not _call_at(toks, i, _FORMULATEXT_NAMES | _ISFORMULA_NAMES):
            i += 1
            continue
        end = _closing(toks, i + 1)
        m = (_REF_ARG.match("".join(x.text for x in _strip_ws(toks[i + 2:end])))
             if end is not None else None)
        isformula = t.text.upper() in _ISFORMULA_NAMES
        if m is None or (isformula and m.group("c2") and not ranges):
            i += 1
            continue
        prefix = m.group("sheet")
        name = (prefix[1:-1].replace("''", "'") if prefix and prefix.startswith("'")
                else prefix) or sheet
        r1, c1 = int(m.group("r1")), column_number(m.group("c1"))
        r2, c2 = r1, c1
        if m.group("c2"):
            r1, r2 = sorted((r1, int(m.group("r2"))))
            c1, c2 = sorted((c1, column_number(m.group("c2"))))
        text = formulas.get((name, f"{column_letters(c1)}{r1}"))
        if isformula and (r2 - r1 + 1) * (c2 - c1 + 1) > _ISFORMULA_CELLS:
            i += 1
            continue
        if isformula and (r1, c1) != (r2, c2):
            rows = [",".join("TRUE" if is_formula(name, r, c) else "FALSE"
                             for c in range(c1, c2 + 1)) for r in range(r1, r2 + 1)]
            new = [_Tok("op", "{"), _Tok("word", ";".join(rows)), _Tok("op", "}")]
        elif isformula:
            new = [_Tok("word", "TRUE" if is_formula(name, r1, c1) else "FALSE")]
        elif text is not None:
            new = [_Tok("str", '"' + displayed_formula(text).replace('"', '""') + '"')]
        else:
            new = [_Tok("word", "#N/A")]
        toks[i:end + 1] = new
        changed = True
        i += 1
    return changed


def _excel_base_name(name: str) -> str:
    """``_xlfn._xlws.SORT`` -> ``SORT`` (the prefixes Excel writes before newer functions)."""
    up = name.upper()
    for p in ("_XLFN.", "_XLWS."):
        while up.startswith(p):
            up = up[len(p):]
    return up


def _engine_builtins():
    from rooflinexl.recalc.functions import BUILTINS

    return BUILTINS


# ------------------------------------------------------------------ implicit intersection


#: functions every argument of which is one value: a range there, in an ordinary formula,
#: is the cell of the formula's row or column (Excel before dynamic arrays; POI's
#: FormulaEvalTestData_Copy.xlsx, saved by Excel: =SIN(K8:M8) in column M is SIN(M8),
#: =ABS(G7:G12) in column L #VALUE!)
SCALAR_ARGUMENT_FUNCTIONS = frozenset({
    "ABS", "ACOS", "ACOSH", "ACOT", "ACOTH", "ASIN", "ASINH", "ATAN", "ATAN2", "ATANH",
    "CEILING", "CHAR", "CLEAN", "CODE", "COMBIN", "CONCATENATE", "COS", "COSH", "COT", "COTH",
    "CSC", "CSCH", "DATE", "DAY", "DEGREES", "DOLLAR", "EVEN", "EXACT", "EXP", "FACT",
    "FACTDOUBLE", "FIND", "FIXED", "FLOOR", "HOUR", "INT", "ISBLANK", "ISERR", "ISERROR",
    "ISEVEN", "ISLOGICAL", "ISNA", "ISNONTEXT", "ISNUMBER", "ISODD", "ISTEXT", "USDOLLAR",
    "LEFT", "LEN", "LN", "LOG", "LOG10",
    "LOWER", "MID", "MINUTE", "MOD", "MONTH", "ODD", "PERMUT", "POWER", "PROPER", "RADIANS",
    "REPLACE", "REPT", "RIGHT", "ROUND", "ROUNDDOWN", "ROUNDUP", "SEARCH", "SEC", "SECH",
    "SECOND", "SIGN", "SIN", "SINH", "SQRT", "SUBSTITUTE", "TAN", "TANH", "TIME", "TRIM",
    "TRUNC", "UPPER", "VALUE", "WEEKDAY", "YEAR",
})
#: the statistical distributions (:mod:`rooflinexl.recalc.stats`) and GAMMA, GAMMALN:
#: single values only (IronCalc's NORM_DIST.xlsx and GAMMALN_GAMMALNPRECISE.xlsx, saved
#: by Excel: NORM.DIST(H:H,B64,C64,D64) in row 64 is NORM.DIST(H64,B64,C64,D64))
SCALAR_ARGUMENT_FUNCTIONS |= frozenset({
    "BETA.DIST", "BETA.INV", "BETADIST", "BETAINV", "BINOM.DIST", "BINOM.DIST.RANGE",
    "BINOM.INV", "BINOMDIST", "CHIDIST", "CHIINV", "CHISQ.DIST", "CHISQ.DIST.RT", "CHISQ.INV",
    "CHISQ.INV.RT", "CONFIDENCE", "CONFIDENCE.NORM", "CONFIDENCE.T", "CRITBINOM",
    "EXPON.DIST", "EXPONDIST", "F.DIST", "F.DIST.RT", "F.INV", "F.INV.RT", "FDIST", "FINV",
    "FISHER", "FISHERINV", "GAMMA.DIST", "GAMMA.INV", "GAMMADIST", "GAMMAINV", "GAUSS",
    "HYPGEOM.DIST", "HYPGEOMDIST", "LOGINV", "LOGNORM.DIST", "LOGNORM.INV", "LOGNORMDIST",
    "NEGBINOM.DIST", "NEGBINOMDIST", "NORM.DIST", "NORM.INV", "NORM.S.DIST", "NORM.S.INV",
    "NORMDIST", "NORMINV", "NORMSDIST", "NORMSINV", "PHI", "POISSON", "POISSON.DIST",
    "STANDARDIZE", "T.DIST", "T.DIST.2T", "T.DIST.RT", "T.INV", "T.INV.2T", "TDIST", "TINV",
    "WEIBULL", "WEIBULL.DIST", "GAMMA", "GAMMALN", "GAMMALN.PRECISE",
})


def _track_frames(frames: list[str | None], toks: list, i: int) -> bool:
    """Whether ``toks[i]`` opens or closes a bracket, keeping ``frames`` (one per open
    bracket: the function called, ``"{"`` for an array constant, None for a group)."""
    t = toks[i]
    if t.kind != "op":
        return False
    if t.text in "({":
        prev = toks[i - 1] if i else None
        frames.append("{" if t.text == "{" else _excel_base_name(prev.text) if (
            prev is not None and prev.kind == "word") else None)
        return True
    if t.text in ")}":
        if frames:
            frames.pop()
        return True
    return False


def implicit_intersection(toks: list, row: int, col: int) -> bool:
    """Ranges where one value belongs in an ordinary (not array) formula as the one cell
    Excel reads there, in place (Microsoft, "Implicit intersection operator: @": a range
    where one value belongs is the cell in the formula's row, for a column, or in its
    column, for a row; none is #VALUE!). That is a range outside every function call
    (``=B1:B5*2`` in row 3 is ``=B3*2``) and one inside the arguments of functions that
    take single values only (:data:`SCALAR_ARGUMENT_FUNCTIONS`, nested in such functions
    alone); other functions' arguments are left to the function.

    >>> toks = _tokenize("B1:B5*2+SUM(B1:B5)+S!A2:C2-(D1:D2)+ROUND(SIN(B1:B5),1)")
    >>> implicit_intersection(toks, 3, 2), "".join(t.text for t in toks)
    (True, 'B3*2+SUM(B1:B5)+S!B2-(#VALUE!)+ROUND(SIN(B3),1)')
    """
    changed = False
    frames: list[str | None] = []  # per open parenthesis: the function called, or None
    i = 0
    while i < len(toks):
        t = toks[i]
        if _track_frames(frames, toks, i):
            i += 1
            continue
        if any(f is not None and f not in SCALAR_ARGUMENT_FUNCTIONS for f in frames) or not (
                t.kind == "op" and t.text == ":"):
            i += 1
            continue
        left = toks[i - 1] if i else None
        right = toks[i + 1] if i + 1 < len(toks) else None
        if left is None or right is None or i >= 2 and toks[i - 2].text == "@":
            i += 1
            continue
        first = i - 1
        if first >= 2 and toks[first - 1].text == "!" and toks[first - 2].kind in (
                "word", "quoted"):
            first -= 2
        if first >= 1 and toks[first - 1].text == "@":
            i += 1
            continue
        text = "".join(x.text for x in toks[first:i + 2])
        m = _REF_ARG.match(text)
        if m is None or not m.group("c2") or (i + 2 < len(toks) and toks[i + 2].text in (
                "(", ":", "#", "!")):
            i += 1
            continue
        c1, r1 = column_number(m.group("c1")), int(m.group("r1"))
        c2, r2 = column_number(m.group("c2")), int(m.group("r2"))
        c1, c2, r1, r2 = min(c1, c2), max(c1, c2), min(r1, r2), max(r1, r2)
        rr = r1 if r1 == r2 else (row if r1 <= row <= r2 else None)
        cc = c1 if c1 == c2 else (col if c1 <= col <= c2 else None)
        prefix = f"{m.group('sheet')}!" if m.group("sheet") else ""
        new_text = "#VALUE!" if rr is None or cc is None else (
            f"{prefix}{column_letters(cc)}{rr}")
        new = _tokenize(new_text)
        toks[first:i + 2] = new
        changed = True
        i = first + len(new)
    return changed


# ------------------------------------------------------------------ 3-D references

#: the functions a 3-D reference (``Sheet1:Sheet3!A1``) may be given to (Microsoft, "Create
#: a 3-D reference to the same cell range on multiple worksheets")
THREE_D_FUNCTIONS = frozenset({
    "SUM", "AVERAGE", "AVERAGEA", "COUNT", "COUNTA", "MAX", "MAXA", "MIN", "MINA", "PRODUCT",
    "STDEV", "STDEV.P", "STDEV.S", "STDEVA", "STDEVP", "STDEVPA", "VAR", "VAR.P", "VAR.S",
    "VARA", "VARP", "VARPA",
})
_SHEET_ORDER: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "rooflinexl_sheet_order", default=())
_CELL_PART = re.compile(r"\$?" + COLUMN_PATTERN + r"\$?" + ROW_PATTERN + "$", re.I)


@contextlib.contextmanager
def use_sheet_order(sheets: Iterable[str]):
    """The workbook's sheet titles in order while the block is active: 3-D references
    (:func:`expand_3d_references`) span the sheets between their two ends."""
    token = _SHEET_ORDER.set(tuple(sheets))
    try:
        yield
    finally:
        _SHEET_ORDER.reset(token)


def set_sheet_order(sheets: Iterable[str]) -> None:
    """Within a :func:`use_sheet_order` block (which restores it on leaving): the
    workbook's sheet titles, known once it is read."""
    _SHEET_ORDER.set(tuple(sheets))


def expand_3d_references(toks: list, sheets: tuple[str, ...]) -> bool:
    """Each 3-D reference (``Sheet1:Sheet3!A1``, ``'Jan:Mar'!B2:C9``: the same cells on
    every sheet from the first to the last in the workbook's order) written out, in place,
    as one argument per sheet where it is a whole argument of a function that takes them
    (:data:`THREE_D_FUNCTIONS`): ``SUM(S1:S3!A1)`` is ``SUM(S1!A1,S2!A1,S3!A1)``. Anywhere
    else, or naming a sheet the workbook lacks, it is #VALUE! and #REF! as in Excel.
    Returns whether anything changed.

    >>> toks = _tokenize("=SUM(Jan:Mar!A1,1)+COUNTA('Feb:Jan'!B1:B2)+Jan:Feb!A1")
    >>> expand_3d_references(toks, ("Jan", "Feb", "Mar")), "".join(t.text for t in toks)
    (True, '=SUM(Jan!A1,Feb!A1,Mar!A1,1)+COUNTA(Jan!B1:B2,Feb!B1:B2)+#VALUE!')
    """
    order = {name.casefold(): k for k, name in enumerate(sheets)}
    changed = False
    frames: list[str | None] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if _track_frames(frames, toks, i):
            i += 1
            continue
        ends = end = None
        if (t.kind == "word" and i + 4 < len(toks) and toks[i + 1].text == ":"
                and toks[i + 2].kind == "word" and toks[i + 3].text == "!"):
            ends, end = (t.text, toks[i + 2].text), i + 4
        elif (t.kind == "quoted" and ":" in t.text and i + 2 < len(toks)
              and toks[i + 1].text == "!"):
            first, _, last = unquote_sheet(t.text).partition(":")
            ends, end = (first, last), i + 2
        if ends is None or ends[0].casefold() not in order and ends[1].casefold() not in order \
                or not _CELL_PART.match(toks[end].text):
            i += 1
            continue
        j = end + 1  # the cells: A1 or A1:B2
        if j + 1 < len(toks) and toks[j].text == ":" and _CELL_PART.match(toks[j + 1].text):
            j += 2
        cells = "".join(x.text for x in toks[end:j])
        prev = toks[i - 1] if i else None
        nxt = toks[j] if j < len(toks) else None
        whole = (frames and frames[-1] in THREE_D_FUNCTIONS and prev is not None
                 and prev.text in ("(", ",") and nxt is not None and nxt.text in (",", ")"))
        a, b = (order.get(e.casefold()) for e in ends)
        if a is None or b is None:
            text = "#REF!"
        elif not whole:
            text = "#VALUE!"
        else:
            text = ",".join(f"{quote_sheet(sheets[k])}!{cells}"
                            for k in range(min(a, b), max(a, b) + 1))
        new = _tokenize(text)
        toks[i:j] = new
        changed = True
        i += len(new)
    return changed


# ------------------------------------------------------------- relative defined names

_THIS_ROW_RE = re.compile(r"#this\s+row|\[@", re.I)


def _relative_parts(toks: list) -> list[tuple[int, str]]:
    """The reference tokens of a defined name's text that are relative: (index, kind),
    kind ``cell``, ``col`` or ``row`` (a column or row of ``A:B`` / ``1:2``)."""
    out = []
    for j, t in enumerate(toks):
        nxt = toks[j + 1] if j + 1 < len(toks) else None
        prev = toks[j - 1] if j else None
        if nxt is not None and nxt.text in ("(", "!", "["):
            continue  # a function, a sheet name, a table
        in_range = (prev is not None and prev.text == ":") or (nxt is not None and nxt.text == ":")
        if t.kind == "word":
            m = _CELL.match(t.text)
            if m and (not m.group(1) or not m.group(3)):
                out.append((j, "cell"))
            elif in_range and (m := _COL_ONLY.match(t.text)) and not m.group(1):
                out.append((j, "col"))
        if t.kind in ("word", "number") and in_range:
            m = _ROW_ONLY.match(t.text)
            if m and not m.group(1):
                out.append((j, "row"))
    return out


def relative_names(defined: Mapping[str, str]) -> dict[str, str]:
    """The defined names (upper case) -> text whose references are relative: Excel reads
    such a name relative to the cell that uses it (``RelRow = Sheet1!$H1`` is ``$H12`` in
    row 12), as if written in A1 and copied to that cell. ``Table1[[#This Row],[a]]``
    counts too (it names the row of the cell), and so does a name whose formula uses a
    relative name (``Daily = RelRow*Rate``: evaluated where it is used).

    >>> relative_names({"Fixed": "Sheet1!$H$8", "RelRow": "Sheet1!$H1", "F": "LOG10(2)"})
    {'RELROW': 'Sheet1!$H1'}
    """
    hit = _RELATIVE_CACHE.get(id(defined))
    if hit is not None and hit[0] is defined and hit[1] == len(defined):
        return hit[2]
    out = {}
    words: dict[str, set[str]] = {}
    for name, text in defined.items():
        if not isinstance(text, str) or _LAMBDA_TEXT.match(text):
            continue
        toks = _tokenize(text)
        if _THIS_ROW_RE.search(text) or _relative_parts(toks):
            out[name.upper()] = text
        else:
            words[name] = {t.text.upper() for t in toks if t.kind == "word"}
    grown = True
    while grown:  # a name using a relative name is relative too (DAILY = HOURS*RATE)
        grown = False
        for name, used in list(words.items()):
            if used & out.keys():
                out[name.upper()] = defined[name]
                del words[name]
                grown = True
    _RELATIVE_CACHE.clear()
    _RELATIVE_CACHE[id(defined)] = (defined, len(defined), out)
    return out


_RELATIVE_CACHE: dict[int, tuple] = {}  # the last workbook's names (asked once a formula)


def shift_relative(text: str, rows: int, cols: int) -> str:
    """``text`` (a defined name's formula, written for cell A1) copied ``rows`` down and
    ``cols`` right: its relative references move, wrapping round the sheet's edge as in
    Excel (a name ``XFD1`` used in B1 reads A1).

    >>> shift_relative("Sheet1!XFD1048576+Sheet1!A1048576+$H$8", 8, 8)
    'Sheet1!H8+Sheet1!I8+$H$8'
    >>> shift_relative("Sheet1!$H1:$H2+SUM(A:B)", 11, 1)
    'Sheet1!$H12:$H13+SUM(B:C)'
    """
    toks = _tokenize(text)
    for j, kind in _relative_parts(toks):
        t = toks[j].text
        if kind == "row":
            new = str((int(t) - 1 + rows) % MAX_ROW + 1)
        elif kind == "col":
            new = column_letters((column_number(t) - 1 + cols) % MAX_COL + 1)
        else:
            m = _CELL.match(t)
            c = column_number(m.group(2))
            r = int(m.group(4))
            if not m.group(1):
                c = (c - 1 + cols) % MAX_COL + 1
            if not m.group(3):
                r = (r - 1 + rows) % MAX_ROW + 1
            new = f"{m.group(1)}{column_letters(c)}{m.group(3)}{r}"
        toks[j] = _Tok(toks[j].kind, new)
    return "".join(t.text for t in toks)


_NAME_DEPTH = 32  # names inside names, as LAMBDA recursion (a name using itself stops)


def inline_relative_names(toks: list, names: Mapping[str, str], row: int, col: int,
                          top_level: bool = False, depth: int = 0) -> bool:
    """Write each use of a relative defined name (:func:`relative_names`) in ``toks`` (a
    formula at ``row``/``col``) out as the name's text shifted to that cell, in brackets
    unless it is one reference, and the relative names that text uses in turn (shifted to
    the same cell); ``top_level``: only the uses outside every function call.
    Returns whether anything changed."""
    changed = False
    calls: list[bool] = []  # per open bracket: a function call?
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "op" and t.text in "({":
            calls.append(t.text == "{" or (i > 0 and toks[i - 1].kind == "word"))
        elif t.kind == "op" and t.text in ")}" and calls:
            calls.pop()
        if top_level and any(calls):
            i += 1
            continue
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        prev = _prev_sig(toks[:i])
        if (t.kind == "word" and t.text.upper() in names
                and not (nxt is not None and nxt.text in ("(", "!", "["))
                and not (prev is not None and prev.text == "!")):
            body = _tokenize(shift_relative(names[t.text.upper()].lstrip("="), row - 1, col - 1))
            if depth < _NAME_DEPTH and not top_level:
                inline_relative_names(body, names, row, col, depth=depth + 1)
            single = _REF_ARG.match("".join(x.text for x in body)) is not None
            if not single and ":" in (getattr(nxt, "text", ""), getattr(prev, "text", "")):
                i += 1  # an operand of ':' that is not one reference: Excel's #VALUE!
                continue
            new = body if single else [_Tok("op", "("), *body, _Tok("op", ")")]
            toks[i:i + 1] = new
            i += len(new)
            changed = True
            continue
        i += 1
    return changed


# ------------------------------------------------------------------ the 1904 date system

#: functions whose result depends on which day a serial number is: in a workbook that
#: counts dates from 1904 they are #VALUE! (the engine knows the 1900 system only), never
#: a date four years off
DATE_1904_FUNCTIONS = frozenset({
    "ACCRINT", "ACCRINTM", "AMORDEGRC", "AMORLINC", "COUPDAYBS", "COUPDAYS", "COUPDAYSNC",
    "COUPNCD", "COUPNUM", "COUPPCD", "DATE", "DATEDIF", "DATEVALUE", "DAY", "DAYS360", "DISC",
    "DURATION", "EDATE", "EOMONTH", "INTRATE", "ISOWEEKNUM", "MDURATION", "MONTH", "NETWORKDAYS",
    "NETWORKDAYS.INTL", "NOW", "ODDFPRICE", "ODDFYIELD", "ODDLPRICE", "ODDLYIELD", "PRICE",
    "PRICEDISC", "PRICEMAT", "RECEIVED", "TBILLEQ", "TBILLPRICE", "TBILLYIELD", "TODAY",
    "VALUE", "WEEKDAY", "WEEKNUM", "WORKDAY", "WORKDAY.INTL", "YEAR", "YEARFRAC",
    "YIELD", "YIELDDISC", "YIELDMAT",
})


def date_1904_problem(functions: Iterable[str]) -> str | None:
    """Why a formula calling ``functions`` cannot be computed in a workbook that counts
    dates from 1904 (``None``: it can). TEXT can: it reads the workbook's date system
    (:func:`rooflinexl.recalc.functions.use_date_system`).

    >>> date_1904_problem(["SUM", "_xlfn.DAYS", "TEXT"]) is None, date_1904_problem(["YEAR"])
    (True, 'the 1904 date system is not supported (YEAR)')
    """
    bad = {_excel_base_name(f) for f in functions} & DATE_1904_FUNCTIONS
    return f"the 1904 date system is not supported ({', '.join(sorted(bad))})" if bad else None
