"""Parse one block's formula once into an expression tree over row vectors.

The formula of the block's first cell goes through the pre-pass rewriting
(:func:`rooflinexl.recalc.prepass.rewrite_formula`:
structured references, add-in prefixes, omitted arguments, exponents), then
through the engine's own parser (:mod:`rooflinexl.recalc.parser`: Excel's
operator precedence over the scanner's tokens) into a tree of :class:`Lit`,
:class:`Rng` and :class:`Call`. Every
reference is placed relative to the block: a relative row becomes a row
vector, an absolute one a single value or a fixed 2-D range.

Anything outside the supported set raises :class:`Unsupported`; the caller
tries the cells as blocks of one row, or makes them error values naming why.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from rooflinexl.addresses import (
    COLUMN_PATTERN,
    ROW_PATTERN,
    column_letters,
    column_number,
    unquote_sheet,
)
from rooflinexl.errors import ExcelError
from rooflinexl.recalc.functions import REF_POSITION
from rooflinexl.recalc.links import external_function, external_reference
from rooflinexl.recalc.parser import ParseError, parse
from rooflinexl.recalc.prepass import (
    OMITTED,
    date_1904_problem,
    display_function_name,
    kept_rectangles,
    normalise_function_name,
    relative_names,
    rewrite_formula,
    used_area,
)
from rooflinexl.recalc.refs import MAX_COL, MAX_ROW, template
from rooflinexl.recalc.values import ERR, kind_of

__all__ = ["ARRAY_MODE", "Arr", "Call", "Eta", "LAMBDA_MODE", "Lit", "Node", "Param",
           "REFERENCE_MODE", "Rng", "UNION",
           "Unsupported", "array_constant", "canonical_name", "compile_block", "Compiled",
           "known_function", "left_out", "per_row_function", "unknown_reason"]


class Unsupported(Exception):
    """A construct the engine does not cover (its cells are error values naming it)."""


class ErrorFormula(Unsupported):
    """A formula whose value is an error by Excel's own rules, ``code`` (a function nested
    deeper than Excel allows is ``#NUM!``): its cells hold it, with the reason."""

    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code


# ------------------------------------------------------------------ the tree


@dataclass
class Lit:
    """A literal operand (number, TRUE/FALSE, string, error constant, empty argument)."""

    value: object


@dataclass
class Rng:
    """A reference: one cell or a rectangle, on ``sheet``.

    Rows are absolute (``*_abs``) or an offset from the block row; columns
    are always absolute here (a block is one column, so a relative column is
    the same column for every row).
    """

    sheet: str
    r1: int
    c1: int
    r2: int
    c2: int
    r1_rel: bool
    r2_rel: bool
    name: str | None = None  # the defined name this reference was written as

    @property
    def is_cell(self) -> bool:
        return self.r1 == self.r2 and self.c1 == self.c2 and self.r1_rel == self.r2_rel

    @property
    def fixed(self) -> bool:
        return not self.r1_rel and not self.r2_rel

    def rows_at(self, row: int) -> tuple[int, int]:
        a = self.r1 + row if self.r1_rel else self.r1
        b = self.r2 + row if self.r2_rel else self.r2
        return a, b


@dataclass
class Call:
    """An operator or function applied to arguments."""

    name: str  # canonical: '+', 'u-', 'IF', 'XLOOKUP', 'MATMUL_TIME' ...
    args: list = field(default_factory=list)
    written: str = ""  # the name as written (prefixes and all)
    #: a function without a block kernel, called row by row over single values
    per_row: bool = False


@dataclass
class Arr:
    """An array constant (``{1,2;3,4}``), an argument of a function: its value is the
    array a host is given (:func:`array_constant`)."""

    text: str


@dataclass(frozen=True)
class Param:
    """A LAMBDA parameter (``_xlpm.x``): ``name`` upper case without the prefix. Its value
    is bound where the LAMBDA is called (:mod:`rooflinexl.recalc.lambdas`)."""

    name: str


@dataclass(frozen=True)
class Eta:
    """A function given by name as a value (Excel's eta-reduced lambda, ``_xleta.SUM``):
    ``name`` canonical, ``written`` as the file spells it."""

    name: str
    written: str


def array_constant(text: str):
    """The array constant ``text`` (``{1,2;3,4}``) as a 2-D object array (Microsoft,
    "Use array constants in array formulas": columns split by commas, rows by
    semicolons; numbers, text in double quotes, TRUE/FALSE, error values). A whole
    number written without a sign is an ``int``, as a host is given it; an
    empty element is 0. :class:`Unsupported` for anything else (a reference, a formula).

    >>> array_constant('{1,2.5;"a""b",TRUE}').tolist()
    [[1, 2.5], ['a"b', True]]
    >>> array_constant("{-1,#N/A,50%}").tolist()
    [[-1.0, '#N/A', 0.5]]
    """
    from rooflinexl.recalc.values import ERRORS, Array

    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")):
        raise Unsupported(f"array constant {text}")
    rows: list[list] = [[]]
    i, s = 0, body[1:-1]
    while True:
        item, i = _array_item(s, i, text, ERRORS)
        rows[-1].append(item)
        if i >= len(s):
            break
        if s[i] == ";":
            rows.append([])
        i += 1
    if len({len(r) for r in rows}) != 1:
        raise Unsupported(f"array constant {text} (rows of different lengths)")
    out = np.empty((len(rows), len(rows[0])), dtype=object)
    for r, row in enumerate(rows):
        for c, x in enumerate(row):
            out[r, c] = x
    return out.view(Array)


_ARRAY_NUMBER = re.compile(r"\s*(?P<sign>[+-]*)\s*(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
                           r"\s*(?P<pct>%?)\s*(?=[,;]|$)")


def _array_item(s: str, i: int, text: str, errors) -> tuple[object, int]:
    """One element of an array constant's body ``s`` from position ``i``: (value, the
    position of the separator after it or len(s))."""
    while i < len(s) and s[i] == " ":
        i += 1
    if i >= len(s) or s[i] in ",;":
        return 0, i
    if s[i] == '"':
        j, parts = i + 1, []
        while True:
            k = s.find('"', j)
            if k < 0:
                raise Unsupported(f"array constant {text} (unclosed text)")
            parts.append(s[j:k])
            if s[k + 1:k + 2] == '"':
                parts.append('"')
                j = k + 2
                continue
            j = k + 1
            break
        while j < len(s) and s[j] == " ":
            j += 1
        if j < len(s) and s[j] not in ",;":
            raise Unsupported(f"array constant {text}")
        return "".join(parts), j
    m = _ARRAY_NUMBER.match(s, i)
    if m is not None:
        num = m.group("num")
        sign = -1 if m.group("sign").count("-") % 2 else 1
        if m.group("pct"):
            value: object = sign * float(num) / 100
        elif not m.group("sign") and num.isdigit():
            value = int(num)
        else:
            value = sign * float(num)
        return value, m.end()
    j = i
    while j < len(s) and s[j] not in ",;":
        j += 1
    word = s[i:j].strip()
    if word.upper() in ("TRUE", "FALSE"):
        return word.upper() == "TRUE", j
    if word.upper() in errors and word.upper() != "#GETTING_DATA":
        return errors[word.upper()], j
    raise Unsupported(f"array constant {text} ({word!r})")


Node = Lit | Rng | Call | Arr | Param | Eta

#: functions of a reference's position: of an error value, that error (ROW(#REF!))
POSITION_FUNCTIONS = frozenset({"ROW", "COLUMN", "ROWS", "COLUMNS"})
#: operators the evaluator knows (formulas names)
OPERATORS = frozenset({"+", "-", "*", "/", "^", "&", "=", "<>", "<", ">", "<=", ">=",
                       "u-", "u+", "%"})
#: Excel functions the evaluator knows (without _xlfn. prefixes)
FUNCTIONS = frozenset({
    "IF", "IFERROR", "IFNA", "AND", "OR", "NOT", "TRUE", "FALSE", "NA",
    "MIN", "MAX", "SUM", "AVERAGE", "PRODUCT",
    "CEILING", "FLOOR",
    "ABS", "SQRT", "LN", "LOG", "EXP", "POWER",
    "INT", "MOD", "TRUNC", "SIGN", "LOG10", "LEN", "LOWER", "UPPER",
    "INDEX", "MATCH", "VLOOKUP", "HLOOKUP", "XLOOKUP", "ROW", "COLUMN",
    "RAND", "RANDBETWEEN", "NOW", "TODAY", "SINGLE",
    "INDIRECT", "OFFSET",  # resolved per row before evaluating (recalc.dynamic)
})

#: functions evaluated only in array mode (:mod:`rooflinexl.recalc.arrays`): element-wise
#: choices computed over arrays, evaluated there with all their arguments
ARRAY_MODE = frozenset({"CHOOSE", "IFS", "SWITCH"})
#: LAMBDA and the functions taking one: evaluated only in array mode
#: (:mod:`rooflinexl.recalc.lambdas`)
LAMBDA_MODE = frozenset({"LAMBDA", "MAP", "REDUCE", "SCAN", "BYROW", "BYCOL", "MAKEARRAY",
                         "ISOMITTED", "{call}"})
#: the call of a LAMBDA a parameter holds (``LET(f, LAMBDA(x, x+1), f(2))``): its
#: arguments are the parameter, then the values
CALL_PARAM = "{call}"
#: a union of references (``(A1:A3,C1:C3)``): its arguments are the areas
UNION = "{union}"
#: functions of a reference itself (:mod:`rooflinexl.recalc.reffunctions`): array mode
REFERENCE_MODE = frozenset({"ISREF", "AREAS", "ISFORMULA", "FORMULATEXT", UNION})
#: of these, the functions that do not read their reference's values (no dependency)
_NOT_READING = frozenset({"ISREF", "AREAS", "ISFORMULA", "FORMULATEXT"})



#: functions of the block table Excel writes with the _xlfn. prefix
_PREFIXED = frozenset({"IFNA", "XLOOKUP", "SINGLE"})

#: functions the block path must not call per row as a plain function of values: they
#: read their arguments as references (ROWS, ISFORMULA ...), depend on where or when they
#: run (NOW, RAND, CELL, INDIRECT ...), take functions (LAMBDA and its helpers), see hidden
#: rows (SUBTOTAL) or evaluate lazily (IF & co.)
_NOT_PER_ROW = frozenset({
    "ROW", "ROWS", "COLUMN", "COLUMNS", "AREAS", "INDEX", "OFFSET", "INDIRECT", "ISREF",
    "ISFORMULA", "FORMULATEXT", "CELL", "INFO", "SHEET", "SHEETS", "SINGLE", "ANCHORARRAY",
    "NOW", "TODAY", "RAND", "RANDBETWEEN", "RANDARRAY",
    "LAMBDA", "LET", "MAP", "REDUCE", "SCAN", "BYROW", "BYCOL", "MAKEARRAY", "ISOMITTED",
    "SUBTOTAL", "AGGREGATE", "IF", "IFS", "IFERROR", "IFNA", "SWITCH", "CHOOSE",
    "SEARCH", "SEARCHB",
})
#: functions whose result is an array: only at the top of an array formula (computed once,
#: laid over its range); elsewhere the array evaluator computes the cells
_ARRAY_RESULT = frozenset({
    "TRANSPOSE", "SORT", "SORTBY", "UNIQUE", "FILTER", "SEQUENCE", "CHOOSECOLS",
    "CHOOSEROWS", "TAKE", "DROP", "EXPAND", "VSTACK", "HSTACK", "TOCOL", "TOROW", "WRAPROWS",
    "WRAPCOLS", "TEXTSPLIT", "MMULT", "MINVERSE", "MUNIT", "LINEST", "LOGEST", "TREND",
    "GROWTH", "FREQUENCY", "GROUPBY", "PIVOTBY", "TRIMRANGE", "REGEXEXTRACT", "MODE.MULT",
    "RANDARRAY",
})


def per_row_function(written: str) -> bool:
    """Whether the block path calls our implementation of the function ``written`` (as
    written, ``_xlfn.`` prefix and all) row by row, with the arguments the array evaluator
    passes it: a function of our own table (:data:`rooflinexl.recalc.functions.
    BUILTINS`, the list functions :data:`~rooflinexl.recalc.functions.EXCEL_NUMBERS`)
    that takes values only (a result that is an array, or a range where a value belongs,
    sends the cells to the array evaluator when evaluating)."""
    canon = _canonical(written)
    if canon in _NOT_PER_ROW or written.upper().startswith("_XLETA."):
        return False
    return _own_function(canon)


def _own_function(canon: str) -> bool:
    from rooflinexl.recalc.elementary import elementary_function
    from rooflinexl.recalc.functions import EXCEL_NUMBERS

    return canon in EXCEL_NUMBERS or elementary_function(canon) is not None


#: the name of a call to a function no table knows: ``#NAME?`` in the cell, as Excel gives
UNKNOWN = "{unknown function}"


def known_function(written: str, registered) -> bool:
    """Whether any evaluation path knows the function ``written`` (as written, prefixes
    and all): rooflinexl's own and the registered ones, the block table; a function none
    of them knows is ``#NAME?`` (:func:`unknown_reason` says why)."""
    up = written.upper()
    return bool(up in registered or normalise_function_name(up, registered) is not None
                or _canonical(up) in FUNCTIONS or _canonical(up) in _NOT_PER_ROW
                or up.startswith("_XLETA.")
                or display_function_name(up) in ("LET", "LAMBDA")
                or _own_function(_canonical(up)))


def unknown_reason(written: str) -> str:
    """Why a call of ``written`` (a function :func:`known_function` does not know) is
    ``#NAME?``: a function Excel has that is not implemented here, or a name Excel does
    not know (:mod:`rooflinexl.recalc.excelnames`).

    >>> unknown_reason("_xlfn.STOCKHISTORY"), unknown_reason("NOSUCH")
    ('function STOCKHISTORY is not implemented', 'unknown function NOSUCH')
    """
    from rooflinexl.recalc.excelnames import is_excel_function

    shown = display_function_name(written)
    if is_excel_function(written):
        return f"function {shown} is not implemented"
    return f"unknown function {shown}"


@dataclass
class Compiled:
    """One block's formula, ready to evaluate."""

    tree: Node
    text: str  # the rewritten formula of the anchor cell (what the parser read)
    rewritten: bool  # the pre-pass changed the text
    refs: list[Rng]  # every reference (for dependencies and error reasons)
    rw_template: object = None  # refs.Template of the rewritten text (rendering)
    unknown: tuple[str, ...] = ()  # functions no table knows (#NAME?), as written
    #: why the block kernels cannot evaluate it (a function returning an array where one
    #: value belongs): evaluated in array mode (:mod:`rooflinexl.recalc.arrays`)
    arrays_inside: str | None = None
    #: what the pre-pass wrote an error value in for (a table column that does not exist,
    #: ``Chips[nope]`` as ``#REF!``): the reason of the error values it gives
    notes: tuple[str, ...] = ()
    #: the pre-pass wrote in something of this row (an intersection's overlap, CELL's
    #: address, another workbook's cached value): not for another block of the same formula
    row_bound: bool = False


# ------------------------------------------------------------------- parsing


_A1 = re.compile(r"^(?:(?P<sheet>'(?:[^']|'')+'|[^'!:\[\]]+)!)?"
                 r"(?P<c1>\$?" + COLUMN_PATTERN + r")(?P<r1>\$?" + ROW_PATTERN + ")"
                 r"(?::(?P<c2>\$?" + COLUMN_PATTERN + r")(?P<r2>\$?" + ROW_PATTERN + "))?$")


def parse_a1(text: str, own_sheet: str):
    """(sheet, r1, c1, r2, c2) of an absolute A1 reference text, else None."""
    m = _A1.match(text.strip())
    if m is None:
        return None
    sheet = unquote_sheet(m.group("sheet")) if m.group("sheet") else own_sheet
    r1, c1 = int(m.group("r1").lstrip("$")), column_number(m.group("c1"))
    if m.group("c2"):
        r2, c2 = int(m.group("r2").lstrip("$")), column_number(m.group("c2"))
    else:
        r2, c2 = r1, c1
    return sheet, min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2)


def _calls_subtotal(text: str | None) -> bool:
    up = (text or "").upper()
    return "SUBTOTAL(" in up or "AGGREGATE(" in up


class Context:
    """What compiling needs to know about the workbook."""

    def __init__(self, book, registered: set[str]):
        self.book = book
        self.registered = registered
        self.sheet_names = {s.name.casefold(): s.name for s in book.sheets}
        # sheet-scope names that no other sheet defines are also found without the
        # sheet (a name used where it is defined; Context.name checks the scope)
        names = dict(book.names)
        counts: dict[str, int] = {}
        for (_sheet, name) in book.local_names:
            counts[name] = counts.get(name, 0) + 1
        for (_sheet, name), text in book.local_names.items():
            if name.startswith("_XLNM.") or name in names or counts[name] > 1:
                continue
            names[name] = text
        self.names = names
        self._name_cache: dict[str, Node] = {}
        self._resolving: set[str] = set()  # names being resolved (a name using itself)
        self._skips: dict | None = None  # sheet -> (hidden rows, SUBTOTAL/AGGREGATE cells)
        #: the rows of the block being compiled (another workbook's cells per row)
        self.block_rows: tuple[int, int] | None = None
        #: the used area ranges reaching the sheet's edge are clipped to
        self.clip = used_area((s.max_row, s.max_col) for s in book.sheets)
        #: every defined name (any scope): other names are #NAME?
        self.defined = {n: t for (_s, n), t in book.local_names.items()} | dict(book.names)
        #: (sheet, anchor) -> the range its array formula fills (spill references D1#)
        self.arrays = {
            (s.name, f"{column_letters(fc.col)}{fc.row}"):
                f"{column_letters(fc.array_ref[1])}{fc.array_ref[0]}:"
                f"{column_letters(fc.array_ref[3])}{fc.array_ref[2]}"
            for s in book.sheets for fc in s.special if fc.array_ref is not None}

    def skips(self, sheet: str) -> tuple[frozenset | None, list, bool]:
        """(hidden rows, cells calling SUBTOTAL or AGGREGATE, whether a filter is in
        effect) of ``sheet``: what those functions may leave out of a reference to it."""
        if self._skips is None:
            self._skips = {}
            for s in self.book.sheets:
                cells = [(r, c) for r, c, t in zip(s.f_rows, s.f_cols, s.f_texts, strict=True)
                         if _calls_subtotal(t)]
                cells += [(fc.row, fc.col) for fc in s.special if _calls_subtotal(
                    fc.text if fc.text is not None else s.shared.get(fc.shared, ("", "", ""))[2])]
                self._skips[s.name] = (s.hidden_rows, cells, s.filtered)
        return self._skips.get(sheet, (None, [], False))

    def sheet(self, name: str) -> str:
        hit = self.sheet_names.get(name.casefold())
        if hit is None:
            raise Unsupported(f"reference to a sheet that is not in the workbook: {name}")
        return hit

    def name(self, name: str, sheet: str | None = None) -> Node:
        """The node of the defined name ``name`` used in a formula on ``sheet``: the name
        of that sheet's scope, else of the workbook's (Microsoft, "Define and use names
        in formulas": a worksheet-level name is recognised only on its sheet); one defined
        only on other sheets is ``#NAME?``. Without ``sheet`` (a name's own formula), a
        sheet-scope name no other sheet defines is found too."""
        key = name.upper()
        local = sheet is not None and (sheet, key) in self.book.local_names
        cache_key = (sheet, key) if local else key
        hit = self._name_cache.get(cache_key)
        if hit is not None:
            return hit
        if local:
            text = self.book.local_names[(sheet, key)]
        elif sheet is not None and key not in self.book.names and (
                scopes := sorted(s for s, n in self.book.local_names if n == key)):
            return Lit(ExcelError("#NAME?", f"name {name} is defined only on sheet "
                                  f"{', '.join(scopes)}"))
        else:
            text = self.names.get(key)
        if text is None:  # Excel: #NAME? ([0]!col2_ in SheetJS's named_ranges_2011.xlsx)
            return Lit(ExcelError("#NAME?", f"no name {name} is defined"))
        if key in relative_names(self.defined):  # the pre-pass writes it out where used
            raise Unsupported(f"name {name} is relative to the cell using it")
        rw = rewrite_formula("=" + text, tables=self.book.tables,
                             function_names=self.registered, clip=self.clip, defined=self.defined,
                             arrays=self.arrays, external=self.book.external)
        if rw.notes:
            raise Unsupported(f"name {name}: {'; '.join(rw.notes)}")
        ref = parse_a1(rw.text[1:], "")
        if ref is None or not ref[0]:
            hit = self._name_formula(name, key, text, rw.text[1:])
        elif (other := _other_book(ref[0])) is not None:  # '[2]Sheet 6'!$A$1
            hit = external_reference(self.book.external, other[0], other[1],
                                     rw.text[1:].rpartition("!")[2], None,
                                     self.book.external_names)
        else:
            sheet, r1, c1, r2, c2 = ref
            hit = Rng(self.sheet(sheet), r1, c1, r2, c2, False, False, key)
        self._name_cache[cache_key] = hit
        return hit

    def _name_formula(self, name: str, key: str, text: str, body: str):
        """A name that stands for a formula, not a range (``=FALSE``, ``=0.5*Rate``,
        ``=SUM(Sheet1!$A$1:$A$9)``): its tree, as Excel evaluates the name where it is
        used. A name with a relative reference never comes here (:meth:`name` leaves it
        to the pre-pass, which writes it out where it is used: ``prepass.relative_names``),
        so every reference of the formula is fixed."""
        if key in self._resolving:
            raise Unsupported(f"name {name} refers to itself")
        try:
            tree = parse(body, base=1)
        except (ParseError, RecursionError):
            raise Unsupported(f"name {name} is not a plain range ({text})") from None
        self._resolving.add(key)
        try:
            refs: list[Rng] = []
            return _build(tree, self, "", 0, 0, _NO_TEMPLATE, set(), refs)
        finally:
            self._resolving.discard(key)


@dataclass(frozen=True)
class _NoTemplate:
    refs: tuple = ()


_NO_TEMPLATE = _NoTemplate()  # a name's formula: no reference of it moves with the cell


def canonical_name(name: str) -> str:
    """A function's name upper case, without the ``_xlfn.``/``_xlws.`` prefixes Excel saves.

    >>> canonical_name("_xlfn._xlws.sort")
    'SORT'
    """
    up = name.upper()
    for p in ("_XLFN.", "_XLWS."):
        while up.startswith(p):
            up = up[len(p):]
    return up


_canonical = canonical_name


def compile_block(ctx: Context, sheet: str, row0: int, col: int, text: str,
                  row1: int | None = None, array: bool = False) -> Compiled:
    """Compile the formula ``text`` of cell (row0, col) for a block of rows row0..row1.

    ``row1`` (default row0) is the block's last row: a table's ``[@col]``
    reference is checked to resolve for every row in between. ``array``: an array
    formula's (evaluated in array mode), whose functions may return arrays
    (:data:`_ARRAY_RESULT`); elsewhere such a function sets ``arrays_inside``.
    """
    row1 = row0 if row1 is None else row1
    tables = ctx.book.tables
    rw = rewrite_formula(text, tables=tables, function_names=ctx.registered, sheet=sheet,
                         row=row0, col=col, clip=ctx.clip, defined=ctx.defined,
                         arrays=ctx.arrays)
    if rw.too_deep:
        raise ErrorFormula("#NUM!", rw.too_deep)
    if "cell" in rw.kinds and row1 > row0:  # CELL's address, row and column are written
        raise Unsupported("CELL in a filled-down block")  # in: they would not move
    if row1 > row0 and "static intersection" in rw.kinds:  # the overlap is written in
        raise Unsupported("an intersection of references in a filled-down block")
    if ctx.book.date1904 and (why := date_1904_problem(rw.functions)):
        raise Unsupported(why)
    body = rw.text.replace("\n", "")
    tpl = template(body, row0, col)
    sticky: set[tuple[int, int]] = set()  # (ref, corner) of table-row references
    if row1 > row0 and "[" in text:
        nxt = rewrite_formula(text, tables=tables, function_names=ctx.registered, sheet=sheet,
                              row=row0 + 1, col=col, clip=ctx.clip, defined=ctx.defined,
                         arrays=ctx.arrays)
        last = rewrite_formula(text, tables=tables, function_names=ctx.registered, sheet=sheet,
                               row=row1, col=col, clip=ctx.clip, defined=ctx.defined,
                         arrays=ctx.arrays)
        if nxt.notes or last.notes:
            raise Unsupported("table reference outside the table's rows")
        if nxt.text != rw.text:
            t2 = template(nxt.text.replace("\n", ""), row0 + 1, col)
            if len(t2.refs) != len(tpl.refs):
                raise Unsupported("table reference changes shape across rows")
            for k, ((_, _, a), (_, _, b)) in enumerate(zip(tpl.refs, t2.refs, strict=True)):
                if len(a) != len(b):
                    raise Unsupported("table reference changes shape across rows")
                for j, (sa, sb) in enumerate(zip(a, b, strict=True)):
                    if (sa.col, sa.col_abs, sa.row, sa.row_abs) == (
                            sb.col, sb.col_abs, sb.row, sb.row_abs):
                        continue
                    same = (sa.col, sa.col_abs, sa.row_abs) == (sb.col, sb.col_abs, sb.row_abs)
                    if not same or sb.row is None or sb.row != sa.row + 1 or not sa.row_abs:
                        raise Unsupported("table reference changes across rows")
                    sticky.add((k, j))
    if not body.startswith("="):
        raise Unsupported("not a formula")
    try:
        tree = parse(body[1:], base=1)
    except ParseError as ex:
        raise Unsupported(f"the formula cannot be parsed: {ex}") from None
    except RecursionError:  # ~1,000 chained operators (Excel allows 8,192 characters)
        raise Unsupported("formula too deeply nested for the block evaluator") from None
    refs: list[Rng] = []
    ctx.block_rows = (row0, row1)  # another workbook's cells per row (links.py)
    try:
        node = _build(tree, ctx, sheet, row0, col, tpl, sticky, refs)
    except RecursionError:  # ~1,000 chained operators (Excel allows 8,192 characters)
        raise Unsupported("formula too deeply nested for the block evaluator") from None
    node = left_out(ctx, fold_error_bases(node), row0, row1)
    if not array and isinstance(node, Call) and node.name == REF_POSITION:
        # ROW(INDIRECT(..)) as a plain cell's whole formula: Excel shows the first number
        node = Call(node.name, [*node.args[:3], Lit(1.0)], node.written)
    stack = [node]
    arrays_inside = None
    unknown: list[str] = []
    while stack:  # an array result where one value belongs: the array evaluator's
        x = stack.pop()
        if isinstance(x, Call):
            if not array and (x.per_row or x.name == "RANDARRAY") and x.name in _ARRAY_RESULT:
                arrays_inside = arrays_inside or f"function {x.written} returns an array"
            if not array and (x.name in LAMBDA_MODE or x.name in REFERENCE_MODE):
                arrays_inside = arrays_inside or f"function {x.written}: array mode"
            if x.name == UNKNOWN and display_function_name(x.written) not in unknown:
                unknown.append(display_function_name(x.written))
            stack.extend(x.args)
    if sticky:
        from dataclasses import replace

        pieces = []
        k = 0
        for p in tpl.pieces:
            if isinstance(p, str):
                pieces.append(p)
            else:
                pieces.append(tuple(replace(s, sticky=(k, j) in sticky)
                                    for j, s in enumerate(p)))
                k += 1
        tpl = replace(tpl, pieces=tuple(pieces))
    return Compiled(node, body, rw.changed, refs, tpl, unknown=tuple(unknown),
                    arrays_inside=arrays_inside, notes=tuple(rw.notes),
                    row_bound=bool(rw.kinds & _ROW_BOUND))


#: what the pre-pass writes in for one row (:attr:`Compiled.row_bound`)
_ROW_BOUND = frozenset({"static intersection", "cell", "external", "indirect"})
_SUBTOTAL_CALLS = ("SUBTOTAL", "AGGREGATE")


def fold_error_bases(node):
    """``node`` with every ``OFFSET`` whose reference is an error constant
    (``OFFSET(#REF!,-1,0)``, what Excel leaves of a reference to deleted cells), and every
    range operator with such an end (``#REF!:B4``), replaced by that error: it refers to
    no cell, and Excel's value is the error (an argument that is an
    error value is the result; ``ROW(OFFSET(#REF!,..))`` too). The formula then reads only
    the cells it names.

    >>> from rooflinexl.recalc.values import ERRORS  # the compiler's error constants
    >>> ref = Lit(ERRORS["#REF!"])
    >>> tree = Call("+", [Call("OFFSET", [ref, Lit(-1.0), Lit(0.0)]), Lit(1.0)])
    >>> fold_error_bases(tree).args[0] is ref
    True
    """
    if not isinstance(node, Call):
        return node
    if node.name == "OFFSET" and node.args and isinstance(node.args[0], Lit) and (
            kind_of(node.args[0].value) == ERR):
        return node.args[0]
    args = [fold_error_bases(a) for a in node.args]
    if node.name == ":":  # #REF!:B4 is #REF! (the range operator of an error value)
        end = next((a for a in args if isinstance(a, Lit) and kind_of(a.value) == ERR), None)
        if end is not None:
            return end
    if node.name in POSITION_FUNCTIONS and len(args) == 1 and isinstance(args[0], Lit) and (
            kind_of(args[0].value) == ERR):
        return args[0]  # ROW(#REF!) is #REF!
    if all(a is b for a, b in zip(args, node.args, strict=True)):
        return node
    return Call(node.name, args, node.written, node.per_row)


def left_out(ctx: Context, node, row0: int, row1: int):
    """``node`` with what each SUBTOTAL or AGGREGATE call leaves out of its references
    in the block row0..row1 taken out of them (:func:`_leave_out`); nodes are new where
    they change (a defined name's tree is shared). A reference INDIRECT or OFFSET gives
    is left for when it is resolved (:func:`rooflinexl.recalc.dynamic.evaluate`).

    Parameters
    ----------
    ctx : Context
        The workbook's context: ``ctx.skips(sheet)`` gives a sheet's hidden rows, its
        SUBTOTAL/AGGREGATE cells and whether a filter is in effect.
    node : Node
        A compiled tree.
    row0, row1 : int
        The block's first and last rows.

    Returns
    -------
    Node

    Raises
    ------
    Unsupported
        See :func:`_leave_out`.

    Examples
    --------
    Row 3 hidden: SUBTOTAL(109, B1:B5) sums B1:B2 and B4:B5 (Microsoft, "SUBTOTAL
    function": 101-111 leave hidden rows out):

    >>> class Ctx:
    ...     def skips(self, sheet):
    ...         return {3}, set(), False
    >>> node = Call("SUBTOTAL", [Lit(109.0), Rng("S", 1, 2, 5, 2, False, False)], "SUBTOTAL")
    >>> [(a.r1, a.r2) for a in left_out(Ctx(), node, 7, 7).args[1:]]
    [(1, 2), (4, 5)]
    """
    if not isinstance(node, Call):
        return node
    args = [left_out(ctx, a, row0, row1) for a in node.args]
    if any(a is not b for a, b in zip(args, node.args, strict=True)):
        node = Call(node.name, args, node.written, node.per_row)
    if _canonical(node.written or node.name) in _SUBTOTAL_CALLS:
        node = _leave_out(ctx, node, row0, row1)
    return node


def _leave_out(ctx: Context, call: Call, row0: int, row1: int) -> Node:
    """The SUBTOTAL or AGGREGATE ``call`` with what it leaves out of its references in
    the block row0..row1 taken out of them. Microsoft, "SUBTOTAL function": other
    SUBTOTALs in the references are left out, so are rows a filter hides, and with
    function_num 101-111 every hidden row; "AGGREGATE function": options 0-3 leave out
    nested SUBTOTAL and AGGREGATE cells, options 1, 3, 5, 7 hidden rows (filtered ones
    too), for the reference form and for the array form's array. A file does not tell a
    row a filter hid from one hidden by hand: with a filter in effect on the sheet every
    hidden row counts as filtered (:func:`rooflinexl.recalc.prepass.sheet_skips`). A
    reference with such cells becomes the references that cover the rest (``F1:F6``
    without F3 and row 4: ``F1:F2,F5:F6``, :func:`rooflinexl.recalc.prepass.
    split_subtotal_refs`); a function_num or options
    computed pick the case when evaluated (``IF(function_num>100, ...)``,
    ``CHOOSE(options+1, ...)``).

    Raises :class:`Unsupported` (the cells are tried row by row) for a reference whose rows move
    along the block, a reference that is not a plain one (a function's result),
    AGGREGATE with a computed function_num and cells to leave out of a fourth or later
    argument (a ``k`` or a reference: only the number tells), and nothing left at all
    (a reference left out entirely is dropped: what is left of the others counts)."""
    name = call.written or call.name
    sub = _canonical(name) == "SUBTOTAL"
    num = _literal_int(call.args[0]) if call.args else None
    opt = 0 if sub or len(call.args) < 2 else _literal_int(call.args[1])
    first = 1 if sub else 2
    last = 3 if not sub and num is not None and num >= 14 else len(call.args)
    found = {}  # argument position -> (hidden rows, nested cells, filtered) inside it
    for k, arg in enumerate(call.args[first:last], first):
        if isinstance(arg, Lit):  # omitted, or an error value (#REF!:B4, folded)
            continue
        if isinstance(arg, Call) and arg.name in ("INDIRECT", "OFFSET", ":"):
            continue  # the reference it names, once resolved (dynamic.evaluate)
        if not isinstance(arg, Rng):
            raise Unsupported(f"{name} of something other than a reference")
        a0, b0 = arg.rows_at(row0)
        a1, b1 = arg.rows_at(row1)
        lo, hi = min(a0, a1), max(b0, b1)
        hidden, cells, filtered = ctx.skips(arg.sheet)
        if hidden is None:
            raise Unsupported(f"{name} over a sheet whose hidden rows are not numbered")
        hid = {r for r in hidden if lo <= r <= hi}
        nest = {(r, c) for r, c in cells if lo <= r <= hi and arg.c1 <= c <= arg.c2}
        if hid or nest:
            if row1 > row0 and not arg.fixed:
                raise Unsupported(f"{name} over hidden rows or nested subtotals that move "
                                  "along the block")
            found[k] = (hid, nest, filtered)
    if not found:
        return call
    if not sub and num is None and any(k >= 3 for k in found):
        raise Unsupported(f"{name} with a computed function_num and cells to leave out "
                          "of a fourth or later argument")

    def case(nested_out: bool, hidden_out: bool, filtered_out: bool) -> Node:
        args = list(call.args[:first])
        kept = 0  # references (or pieces of them) left to compute over
        for k, arg in enumerate(call.args[first:], first):
            if k not in found:
                args.append(arg)
                kept += k < last
                continue
            hid, nest, filtered = found[k]
            rows_out = hid if hidden_out or filtered_out and filtered else set()
            # a reference it leaves out entirely adds nothing: POI's 59736.xlsx, saved by
            # Excel, SUBTOTAL(9,A1,A2) with A2 a SUBTOTAL is A1's value
            pieces = _kept(arg, row0, rows_out, nest if nested_out else set())
            args.extend(pieces)
            kept += len(pieces)
        if not kept:  # nothing at all: the function over no value (IronCalc's tables
            # book, saved by Excel: SUBTOTAL(109,B6:B7) of two SUBTOTALs is 0)
            if not sub or num is None:
                raise Unsupported(f"{name} of references it leaves out entirely")
            from rooflinexl.recalc.functions import BUILTINS

            return Lit(BUILTINS["SUBTOTAL"](num, [[None]]))
        if len(args) > 255:
            raise Unsupported(f"{name} with more than 255 pieces of references")
        return Call(call.name, args, call.written, call.per_row)

    if sub:
        if num is not None:
            return case(True, num > 100, True)
        return Call("IF", [Call(">", [call.args[0], Lit(100.0)], ">"),
                           case(True, True, True), case(True, False, True)], "IF")
    if opt is not None:
        return case(opt <= 3, opt % 2 == 1, opt % 2 == 1)
    return Call("CHOOSE", [Call("+", [call.args[1], Lit(1.0)], "+")]
                + [case(o <= 3, o % 2 == 1, o % 2 == 1) for o in range(8)], "CHOOSE")


def _literal_int(node) -> int | None:
    """A whole number written in the formula (``9``, ``109``), else None."""
    if isinstance(node, Lit) and isinstance(node.value, (int, float)) and not isinstance(
            node.value, bool):
        return int(node.value)
    return None


def _kept(rng: Rng, row: int, rows_out: set, cells_out: set) -> list[Rng]:
    """The references covering what ``rng`` (in the block's row ``row``) keeps
    (:func:`rooflinexl.recalc.prepass.kept_rectangles`)."""
    r1, r2 = rng.rows_at(row)
    return [Rng(rng.sheet, a, ca, b, cb, False, False)
            for a, ca, b, cb in kept_rectangles(r1, rng.c1, r2, rng.c2, rows_out, cells_out)]


def _reference_end(node) -> bool:
    """Whether ``node`` can be one end of the range operator in a block: a reference,
    INDEX, OFFSET or INDIRECT of one, CHOOSE between such ends, or an error value
    (``#REF!:B4``)."""
    if isinstance(node, Lit):
        return kind_of(node.value) == ERR
    if isinstance(node, Call) and node.name == "CHOOSE":  # the reference it picks
        return len(node.args) >= 2 and all(_reference_end(a) for a in node.args[1:])
    if isinstance(node, Call):
        return node.name in ("INDEX", "OFFSET", "INDIRECT") and bool(node.args) and (
            node.name == "INDIRECT" or isinstance(node.args[0], Rng) or isinstance(
                node.args[0], Lit) and kind_of(node.args[0].value) == ERR)
    return isinstance(node, Rng)


def _build(item, ctx: Context, sheet, row0, col, tpl, sticky, refs):
    kind = item[0]
    if kind == "op":
        name = item[1]
        if name not in OPERATORS and name != ":":
            raise Unsupported(f"operator {name!r}")
        kids = [_build(a, ctx, sheet, row0, col, tpl, sticky, refs) for a in item[2]]
        if name == ":" and not all(_reference_end(k) for k in kids):
            raise Unsupported(f"operator {name!r}")
        return Call(name, kids, name.upper())
    if kind == "call":
        written = item[1]
        reads = [] if _canonical(written) in _NOT_READING else refs
        kids = [_build(a, ctx, sheet, row0, col, tpl, sticky, reads) for a in item[2]]
        up = written.upper()
        if up.startswith("_XLPM."):  # a LAMBDA held by a parameter, called
            return Call(CALL_PARAM, [Param(up[6:]), *kids], up)
        if _canonical(written) in ("SHEET", "SHEETS"):  # of the workbook (sheetinfo.py)
            from rooflinexl.recalc.sheetinfo import sheet_call

            return sheet_call(_canonical(written), kids, sheet, ctx.book.info.sheets)
        if _canonical(written) == "DDE":  # a macro-sheet function: #NAME? in a worksheet
            return Lit(ExcelError("#NAME?", "DDE is a macro-sheet function, not a worksheet "
                                  "function (EPPlus's dde.xlsx, saved by Excel, caches "
                                  "#NAME?)"))
        if _canonical(written) == "RANDARRAY":  # randarray.py; omitted: the defaults
            from rooflinexl.recalc.randarray import DEFAULTS

            return Call("RANDARRAY", [Lit(DEFAULTS[k]) if a == ("empty",) or a == (
                "str", OMITTED) else kid for k, (a, kid) in enumerate(
                    zip(item[2], kids, strict=True))], up)
        if up in ctx.registered:
            return Call(up, kids, up)
        canon = _canonical(written)
        if canon in ARRAY_MODE or canon in LAMBDA_MODE or canon in REFERENCE_MODE:
            return Call(canon, kids, up)
        if canon not in FUNCTIONS:
            if per_row_function(written):
                return Call(canon, kids, up, per_row=True)
            if not known_function(written, ctx.registered):  # #NAME?, as Excel (exit 1)
                return Call(UNKNOWN, [], up)
            raise Unsupported(f"function {written}")
        if up != canon and canon not in _PREFIXED:
            raise Unsupported(f"function {written} with a prefix Excel does not write")
        return Call(canon, kids, up)
    if kind == "union":
        kids = [_build(a, ctx, sheet, row0, col, tpl, sticky, refs) for a in item[1]]
        if not all(isinstance(k, Rng) for k in kids):
            raise Unsupported("a union of other than ranges")
        return Call(UNION, kids, UNION)
    if kind == "range":  # A1:B2:C3, the smallest range holding every piece
        kids = [_build(a, ctx, sheet, row0, col, tpl, sticky, refs) for a in item[1]]
        if not all(isinstance(k, Rng) for k in kids) or len({k.sheet for k in kids}) != 1:
            raise Unsupported("a chain of range operators over other than ranges alike")
        if len({(k.r1_rel, k.r2_rel) for k in kids}) != 1 or kids[0].r1_rel != (
                kids[0].r2_rel):  # fixed and relative rows: the rectangle row by row
            return Call(":", kids, ":")
        a = kids[0]
        return Rng(a.sheet, min(k.r1 for k in kids), min(k.c1 for k in kids),
                   max(k.r2 for k in kids), max(k.c2 for k in kids), a.r1_rel, a.r2_rel)
    if kind == "xref":  # another workbook's reference: the values the file keeps
        return external_reference(ctx.book.external, item[1], item[2], item[3],
                                  ctx.block_rows, ctx.book.external_names)
    if kind == "xcall":
        return external_function(item[1], item[2])
    if kind == "isect":
        return _intersection(*[_build(a, ctx, sheet, row0, col, tpl, sticky, refs)
                               for a in item[1]])
    if kind in ("num", "str", "bool"):
        return Lit(item[1])
    if kind == "array":
        return Arr(item[1])
    if kind == "empty":
        return Lit(0)  # an omitted argument reads as 0 (FALSE)
    if kind == "err":
        from rooflinexl.recalc.values import ERRORS

        if item[1] not in ERRORS:
            raise Unsupported(f"error literal {item[1]}")
        return Lit(ERRORS[item[1]])
    if kind == "ref" and item[1].upper().startswith("_XLPM."):
        return Param(item[1][6:].upper())
    if kind == "ref" and item[1].upper().startswith("_XLETA."):
        written = item[1][7:].upper()
        return Eta(_canonical(written), written)
    if kind == "ref":
        rng = _range(item[1], item[2], item[3], ctx, sheet, row0, tpl, sticky)
        if isinstance(rng, Rng):
            refs.append(rng)
        else:  # a name standing for a formula: what it reads is read here
            stack = [rng]
            while stack:
                x = stack.pop()
                if isinstance(x, Rng):
                    refs.append(x)
                elif isinstance(x, Call):
                    stack.extend(x.args)
        return rng
    raise Unsupported(f"operand {item!r}")


def _intersection(a, b):
    """Microsoft, "Calculation operators and precedence in Excel": the space is the
    intersection operator, the cells common to two references; none in common is
    ``#NULL!``."""
    from rooflinexl.recalc.values import ERRORS

    for x in (a, b):  # A1:B1 C1:D1 E1:F1: nothing in common already
        if isinstance(x, Lit) and x.value is ERRORS["#NULL!"]:
            return x
    if isinstance(a, Call) and a.name == UNION or isinstance(b, Call) and b.name == UNION:
        # (A,B) C is (A C, B C), an area per pair (test.xlsx LOOKUP!V4: 4 areas, two alike)
        parts = [_intersection(x, y) for x in (a.args if isinstance(a, Call) else [a])
                 for y in (b.args if isinstance(b, Call) else [b])]
        if not all(isinstance(p, Rng) for p in parts):  # not seen in Excel's saved values
            raise Unsupported("an intersection of a union with areas of nothing in common")
        return Call(UNION, parts, UNION)
    if not (isinstance(a, Rng) and isinstance(b, Rng)) or a.sheet != b.sheet:
        raise Unsupported("an intersection of other than two ranges of one sheet")
    if len({a.r1_rel, a.r2_rel, b.r1_rel, b.r2_rel}) != 1:
        raise Unsupported("an intersection of fixed and relative rows")
    r1, r2 = max(a.r1, b.r1), min(a.r2, b.r2)
    c1, c2 = max(a.c1, b.c1), min(a.c2, b.c2)
    if r1 > r2 or c1 > c2:
        return Lit(ERRORS["#NULL!"])
    return Rng(a.sheet, r1, c1, r2, c2, a.r1_rel, a.r2_rel)


def _other_book(sheet: str) -> tuple[int, str] | None:
    """(n, sheet) of a sheet name ``[n]Sheet`` of another workbook (n > 0), else None.

    >>> _other_book("[2]Sheet 6"), _other_book("[0]S"), _other_book("Data")
    ((2, 'Sheet 6'), None, None)
    """
    m = re.match(r"^\[(\d+)\](.*)$", sheet)
    return (int(m.group(1)), m.group(2)) if m and int(m.group(1)) else None


def _range(span: str, start: int, end: int, ctx: Context, sheet, row0, tpl, sticky) -> Node:
    if parse_a1(span, sheet) is None and ":" not in span:
        if "!" in span:  # Sheet!Name: the name of that sheet's scope
            where, _, bare = span.rpartition("!")
            if "[" in where or not bare or "!" in where:
                raise Unsupported(f"sheet-scoped name {span}")
            return ctx.name(bare, ctx.sheet(unquote_sheet(where)))
        return ctx.name(span, sheet or None)
    ref = parse_a1(span, sheet)
    if ref is None:
        raise Unsupported(f"reference {span}")
    ref_sheet, r1, c1, r2, c2 = ref
    if (other := _other_book(ref_sheet)) is not None:  # '[1]My sheet'!A1
        return external_reference(ctx.book.external, other[0], other[1],
                                  span.rpartition("!")[2], ctx.block_rows,
                                  ctx.book.external_names)
    ref_sheet = ctx.sheet(ref_sheet)
    inside = [(k, s) for k, (a, b, s) in enumerate(tpl.refs) if start <= a and b <= end]
    if len(inside) > 1:
        raise Unsupported(f"reference {span}")
    if not inside:  # written as a literal our scanner does not shift: same cell for every row
        return Rng(ref_sheet, r1, c1, r2, c2, False, False)
    k, slots = inside[0]
    rel = [(not s.row_abs) or ((k, j) in sticky) for j, s in enumerate(slots)]
    if len(slots) == 1:
        rel = rel * 2
    if any(s.col is None or s.row is None for s in slots):
        raise Unsupported(f"whole-row or whole-column reference {span}")
    # slot order is as written; parse_a1 sorted the corners
    rows = sorted(((s.row, r) for s, r in zip(slots, rel[:len(slots)], strict=True)))
    if len(slots) == 1:
        rows = rows * 2
    (ra, rel1), (rb, rel2) = rows[0], rows[-1]
    # one end fixed and one relative: a growing range ($A$2:A2, a running total) SUM & co.
    # evaluate cumulatively (kernels.BlockEval.running); any such range is read at its
    # rows in a block of one row, and row by row in array mode in a longer one
    if not (1 <= r1 <= MAX_ROW and 1 <= r2 <= MAX_ROW and 1 <= c1 <= MAX_COL
            and 1 <= c2 <= MAX_COL):
        raise Unsupported(f"reference {span} outside the sheet")
    return Rng(ref_sheet, ra - row0 if rel1 else ra, c1, rb - row0 if rel2 else rb, c2,
               rel1, rel2)
