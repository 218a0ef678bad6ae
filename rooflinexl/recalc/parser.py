"""The engine's own formula parser: Excel's operator precedence over the scanner's tokens.

A formula body (after ``=``) is scanned by :func:`rooflinexl.recalc.prepass.tokenize` and
read here into a small syntax tree, by precedence climbing with Excel's order (Microsoft,
"Calculation operators and precedence in Excel", read 2026-12-01), lowest first:

====================  =======================================
comparison            ``=  <>  <  >  <=  >=``
concatenation         ``&``
addition              ``+  -``
multiplication        ``*  /``
exponentiation        ``^`` (left to right: ``2^3^2`` is 64)
percent               ``%`` (postfix)
negation              ``-  +`` (prefix: ``-2^2`` is 4)
====================  =======================================

The tree's nodes are tuples:

* ``("num", value)`` (``int`` when written without a point or exponent), ``("str", text)``,
  ``("bool", value)``, ``("err", code)``, ``("empty",)`` for an omitted argument;
* ``("ref", text, start, end)``: a reference (``A1``, ``S!A1:B2``, ``'My s'!$A$1``,
  ``$1:$2``) or a defined name, with its span in the parsed text;
* ``("op", symbol, [operands])``: ``+ - * / ^ & = <> < > <= >=``, ``u-``, ``u+``, ``%``;
* ``("call", name as written, [arguments])``;
* ``("array", text)``: an array constant as written (``{1,2;3,4}``);
* ``("range", [references])``: a chain of range operators, ``A1:B2:C3``;
* ``("union", [references])``: ``(A1:A3,C1:C3)``; ``("isect", [reference, reference])``:
  ``A1:C3 B2:D4`` (the reference operators comma and space);
* ``("xref", n, sheet, span)``: another workbook's reference ``[1]Sheet1!A1`` or
  ``[1]!Name`` (sheet ``""``); ``("xcall", n, name, [arguments])``: its function
  ``[1]!Name(..)``; ``[0]`` (this workbook) is left out (``[0]!Name`` is ``Name``).

What the block evaluator does not cover is refused with :class:`ParseError`: ``:``
between anything but two cell or row/column references, structured references and the
spill operator; those formulas go to the per-cell path.

>>> parse("-2^2%+SUM(A1:B2,,S!$C$3)&\\"x\\"")[0:2]
('op', '&')
>>> parse("1+2*3")
('op', '+', [('num', 1), ('op', '*', [('num', 2), ('num', 3)])])
>>> parse("-2^2")
('op', '^', [('op', 'u-', [('num', 2)]), ('num', 2)])
>>> parse("IF(A1>=2,,#N/A)")
('call', 'IF', [('op', '>=', [('ref', 'A1', 3, 5), ('num', 2)]), ('empty',), ('err', '#N/A')])
"""
from __future__ import annotations

from rooflinexl.recalc.prepass import tokenize

__all__ = ["ParseError", "parse"]


#: nodes that are references (operands of the union and intersection operators)
_REFERENCE_NODES = ("ref", "union", "isect", "range")


class ParseError(ValueError):
    """A formula this parser does not read (the caller evaluates it another way)."""


_BINARY = {
    "=": 1, "<>": 1, "<": 1, ">": 1, "<=": 1, ">=": 1,
    "&": 2,
    "+": 3, "-": 3,
    "*": 4, "/": 4,
    "^": 5,
    ":": 6,  # the range operator between references a function gives (INDEX(...):A9)
}
_ERRORS = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A",
           "#GETTING_DATA", "#SPILL!", "#CALC!")


class _Stream:
    def __init__(self, text: str, base: int):
        self.toks = []
        pos = base
        for t in tokenize(text):
            self.toks.append((t.kind, t.text, pos))
            pos += len(t.text)
        self.end = pos
        self.i = 0

    def skip_ws(self) -> bool:
        """Skip white space; whether there was any."""
        had = False
        while self.i < len(self.toks) and self.toks[self.i][0] == "ws":
            self.i += 1
            had = True
        return had

    def peek(self, k: int = 0):
        j = self.i
        seen = 0
        while j < len(self.toks):
            if self.toks[j][0] != "ws":
                if seen == k:
                    return self.toks[j]
                seen += 1
            j += 1
        return None

    def next(self):
        self.skip_ws()
        t = self.toks[self.i]
        self.i += 1
        return t

    def at_end(self) -> bool:
        return self.peek() is None


def parse(text: str, base: int = 0):
    """The syntax tree of a formula body ``text`` (without ``=``); spans count from ``base``.

    Raises
    ------
    ParseError
        Malformed, or a construct this parser leaves to the per-cell path.
    """
    s = _Stream(text, base)
    if s.at_end():
        raise ParseError("empty formula")
    node = _expr(s, 0)
    if not s.at_end():
        raise ParseError(f"unexpected {s.peek()[1]!r}")
    return node


def _binary_op(s: _Stream):
    t = s.peek()
    if t is None or t[0] != "op":
        return None
    op = t[1]
    if op in "<>":
        # the scanner splits <= >= <> into two one-character tokens, adjacent
        j = s.i
        while s.toks[j][0] == "ws":
            j += 1
        t2 = s.toks[j + 1] if j + 1 < len(s.toks) else None
        if t2 is not None and t2[0] == "op" and (op + t2[1]) in ("<=", ">=", "<>"):
            return op + t2[1], 2
    return (op, 1) if op in _BINARY else None


def _expr(s: _Stream, min_bp: int):
    left = _prefix(s)
    while True:
        t = s.peek()
        if t is None:
            return left
        if t[0] == "op" and t[1] == "%":
            s.next()
            left = ("op", "%", [left])
            continue
        found = _binary_op(s)
        if (found is None and left[0] in _REFERENCE_NODES and s.toks[s.i][0] == "ws"
                and (t[0] in ("word", "quoted") or t[1] == "(")):
            s.skip_ws()  # an intersection: A1:C3 B2:D4 (tighter than every operator)
            left = ("isect", [left, _primary(s)])
            continue
        if found is None:
            if t[0] != "op" or t[1] not in (",", ")", ";", "}"):
                raise ParseError(f"operator {t[1]!r}")  # intersection, spill, ...
            return left
        op, width = found
        bp = _BINARY[op]
        if bp <= min_bp:
            return left
        for _ in range(width):
            s.next()
        right = _expr(s, bp)  # left-associative, ^ included (as Excel)
        left = ("op", op, [left, right])


def _prefix(s: _Stream):
    t = s.peek()
    if t is None:
        raise ParseError("missing operand")
    if t[0] == "op" and t[1] in "+-":
        s.next()
        return ("op", "u" + t[1], [_unary_operand(s)])
    return _primary(s)


def _unary_operand(s: _Stream):
    """The operand of a prefix sign: binds tighter than every binary operator."""
    operand = _prefix(s)
    while True:
        t = s.peek()
        if t is not None and t[0] == "op" and t[1] == "%":
            s.next()
            operand = ("op", "%", [operand])
            continue
        return operand


def _primary(s: _Stream):
    kind, text, pos = s.next()
    if kind == "number" and _adjacent(s, ":"):  # rows: 1:3
        return _reference(s, kind, text, pos)
    if kind == "number":
        plain = text.isdigit()
        return ("num", int(text) if plain else float(text))
    if kind == "str":
        return ("str", text[1:-1].replace('""', '"'))
    if kind == "op" and text == "(":
        items = [_expr(s, 0)]
        while (t := s.peek()) is not None and t[1] == ",":  # a union: (A1:A3,C1:C3)
            s.next()
            items.append(_expr(s, 0))
        t = s.next() if not s.at_end() else None
        if t is None or t[1] != ")":
            raise ParseError("unbalanced parenthesis")
        if len(items) > 1:
            if not all(x[0] in _REFERENCE_NODES for x in items):
                raise ParseError("a union of other than references")
            return ("union", items)
        return items[0]
    if kind == "op" and text == "#":
        code = "#"
        while len(code) < 15 and code.upper() not in _ERRORS and s.i < len(s.toks):
            code += s.toks[s.i][1]
            s.i += 1
        if code.upper() not in _ERRORS:
            raise ParseError(f"unknown error literal {code}")
        return ("err", code.upper())
    if kind == "op" and text == "{":
        body = text
        while s.i < len(s.toks) and s.toks[s.i][1] != "}":
            if s.toks[s.i][1] == "{":
                raise ParseError("array constant")
            body += s.toks[s.i][1]
            s.i += 1
        if s.i >= len(s.toks):
            raise ParseError("unclosed array constant")
        s.i += 1
        return ("array", body + "}")
    if kind in ("word", "quoted"):
        nxt = s.toks[s.i] if s.i < len(s.toks) else None
        if kind == "word" and nxt is not None and nxt[1] == "(":
            s.i += 1
            return ("call", text, _arguments(s))
        return _reference(s, kind, text, pos)
    if kind == "bracket" and text[1:-1].isdigit():
        return _external(s, int(text[1:-1]))
    raise ParseError(f"unexpected {text!r}")


def _external(s: _Stream, n: int):
    """After ``[n]``: another workbook's reference ``("xref", n, sheet, span)`` (sheet
    ``""`` for ``[n]!Name``), its function ``("xcall", n, name, args)``; ``[0]`` is this
    workbook (the reference as written without it)."""
    t = s.toks[s.i] if s.i < len(s.toks) else None
    if t is None:
        raise ParseError(f"unexpected '[{n}]'")
    if n == 0:
        if t[1] == "!":
            s.i += 1
        kind, text, p = s.next()
        if kind not in ("word", "quoted"):
            raise ParseError("unexpected '[0]'")
        return _reference(s, kind, text, p)
    sheet = ""
    if t[0] == "word" and s.i + 1 < len(s.toks) and s.toks[s.i + 1][1] == "!":
        sheet = t[1]
        s.i += 1
    if not _adjacent(s, "!") or s.i + 1 >= len(s.toks) or s.toks[s.i + 1][0] not in (
            "word", "quoted") or sheet and s.toks[s.i + 1][0] != "word":
        raise ParseError(f"unexpected '[{n}]'")
    s.i += 1
    text = s.toks[s.i][1]
    s.i += 1
    if not sheet and _adjacent(s, "("):
        s.i += 1
        return ("xcall", n, text, _arguments(s))
    if s.i < len(s.toks) and s.toks[s.i][0] == "bracket":  # [1]!Table1[c]: no value kept
        text += s.toks[s.i][1]
        s.i += 1
    elif _adjacent(s, "!") and s.i + 1 < len(s.toks) and s.toks[s.i + 1][0] == "word":
        text += "!" + s.toks[s.i + 1][1]  # [1]!Table1[c] once read as this workbook's table
        s.i += 2
    if _adjacent(s, ":") and s.i + 1 < len(s.toks) and s.toks[s.i + 1][0] == "word":
        text += ":" + s.toks[s.i + 1][1]
        s.i += 2
    return ("xref", n, sheet, text)


def _arguments(s: _Stream) -> list:
    args: list = []
    t = s.peek()
    if t is not None and t[1] == ")":
        s.next()
        return args
    while True:
        t = s.peek()
        if t is None:
            raise ParseError("unclosed function call")
        if t[0] == "op" and t[1] in (",", ")"):
            args.append(("empty",))
        else:
            args.append(_expr(s, 0))
        t = s.next() if not s.at_end() else None
        if t is None:
            raise ParseError("unclosed function call")
        if t[1] == ")":
            return args
        if t[1] != ",":
            raise ParseError(f"unexpected {t[1]!r} in a function call")


def _adjacent(s: _Stream, text: str) -> bool:
    """Whether the very next token (no white space between) is the operator ``text``."""
    return s.i < len(s.toks) and s.toks[s.i][0] == "op" and s.toks[s.i][1] == text


def _reference(s: _Stream, kind: str, text: str, pos: int):
    start = pos
    span = text
    if _adjacent(s, "!"):  # a sheet prefix
        s.i += 1
        if [t[1].upper() for t in s.toks[s.i:s.i + 3]] == ["#", "REF", "!"]:
            s.i += 3  # Sheet1!#REF!: what Excel leaves of a deleted cell's reference
            return ("err", "#REF!")
        if s.i >= len(s.toks) or s.toks[s.i][0] not in ("word", "number"):
            raise ParseError("a sheet name without a reference")
        span += "!" + s.toks[s.i][1]
        s.i += 1
    elif kind == "quoted":
        raise ParseError("a quoted name without a reference")
    if _adjacent(s, ":") and not _call_follows(s) and not _sheet_follows(s):
        s.i += 1  # (A1:INDEX(...): the operator, in _expr; S!A1:'S'!B2: the pieces below)
        if s.i >= len(s.toks) or s.toks[s.i][0] not in ("word", "number") or (
                s.i + 1 < len(s.toks) and s.toks[s.i + 1][1] in ("(", "!")):
            raise ParseError("a range operator between other than two references")
        span += ":" + s.toks[s.i][1]
        s.i += 1
    if s.i < len(s.toks) and s.toks[s.i][0] == "bracket":
        raise ParseError("structured reference")
    if _adjacent(s, "#"):
        raise ParseError("spill reference")
    up = span.upper()
    if up in ("TRUE", "FALSE") and not _adjacent(s, ":"):
        return ("bool", up == "TRUE")
    node = ("ref", span, start, start + len(span))
    if not _adjacent(s, ":") or _call_follows(s):
        return node
    pieces = [node]  # A1:B2:C3: the smallest range holding them all
    while _adjacent(s, ":") and not _call_follows(s):
        s.i += 1
        if s.i >= len(s.toks) or s.toks[s.i][0] not in ("word", "number", "quoted") or (
                s.i + 1 < len(s.toks) and s.toks[s.i + 1][1] == "("):
            raise ParseError("a range operator between other than two references")
        kind2, text2, pos2 = s.toks[s.i]
        s.i += 1
        piece = _reference(s, kind2, text2, pos2)
        if piece[0] not in ("ref", "range"):
            raise ParseError("a range operator between other than two references")
        pieces.extend(piece[1] if piece[0] == "range" else [piece])
    return ("range", pieces)


def _sheet_follows(s: _Stream) -> bool:
    """Whether a sheet-qualified reference follows the ``:`` at the stream's position
    (``Imps!M4:'Imps'!M76``, as umya-spreadsheet's issue_216.xlsx, saved by Excel, holds:
    the range between them)."""
    return (s.i + 2 < len(s.toks) and s.toks[s.i + 1][0] in ("word", "quoted")
            and s.toks[s.i + 2][1] == "!")


def _call_follows(s: _Stream) -> bool:
    """Whether a function call follows the ``:`` at the stream's position (``A1:INDEX(...)``:
    the range operator of :func:`_expr`, between a reference and a function's result)."""
    return (s.i + 2 < len(s.toks) and s.toks[s.i + 1][0] == "word"
            and s.toks[s.i + 2][1] == "(")


def references(text: str) -> tuple[list[str], list[str]]:
    """(references, function names) written in a formula body, without parsing it whole.

    References are spans as :func:`parse` gives them (``S!A1:B2``, ``$1:$2``, a defined
    name); function names as written. For the dependency graph of formulas the parser
    refuses (array constants, intersections ...).

    Raises
    ------
    ParseError
        A structured reference, a sheet prefix without a reference, a chain of range
        operators.

    >>> references("SUM({1,2},S!A1:B2 C3)+OFFSET(Rate,1,1)")
    (['S!A1:B2', 'C3', 'Rate'], ['SUM', 'OFFSET'])
    """
    s = _Stream(text, 0)
    refs: list[str] = []
    calls: list[str] = []
    while s.i < len(s.toks):
        kind, tok, pos = s.toks[s.i]
        s.i += 1
        if kind == "bracket":
            raise ParseError("structured reference")
        if kind == "op" and tok == "#":  # an error literal: #N/A, #REF!
            while s.i < len(s.toks) and s.toks[s.i][0] in ("word", "number", "op") and (
                    s.toks[s.i][1] not in "(),;{}+-*&=<>^ "):
                s.i += 1
            continue
        if kind not in ("word", "quoted", "number"):
            continue
        if kind == "word" and s.i < len(s.toks) and s.toks[s.i][1] == "(":
            calls.append(tok)
            continue
        if kind == "number" and not _adjacent(s, ":"):
            continue
        node = _reference(s, kind, tok, pos)
        if node[0] == "range":  # reads the range between its pieces, not only them
            raise ParseError("a chain of range operators")
        if node[0] == "ref":
            refs.append(node[1])
    return refs, calls
