"""The engine's own formula parser (issue 13, item 1: one parser on the engine's scanner).

Expected values are Excel's, from Microsoft's "Calculation operators and precedence in Excel"
(its examples ``=5+2*3`` is 11 and ``=(5+2)*3`` is 21, and the order: negation, percent,
exponentiation, multiplication and division, addition and subtraction, concatenation,
comparison) and hand derivations from that order written beside each case. Every case is
evaluated on the block path only (``engine="blocks"`` refuses anything else), so the tree
comes from :mod:`rooflinexl.recalc.parser`.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import evaluate_cases

from rooflinexl.recalc.parser import ParseError, parse, references

CASES = {
    "=5+2*3": 11,  # Microsoft's example
    "=(5+2)*3": 21,  # Microsoft's example
    "=-2^2": 4,  # negation before exponentiation: (-2)^2
    "=2^3^2": 64,  # left to right: (2^3)^2
    "=2*-3^2": 18,  # 2*((-3)^2)
    "=1-+-2": 3,  # 1-(+(-2))
    "=50%*2": 1,  # percent before multiplication
    "=2^50%": 2 ** 0.5,  # percent before exponentiation
    '="a"&1+2': "a3",  # addition before concatenation
    "=1+2=3": True,  # comparison last
    "=3>=2+2": False,
    '="b"<>"B"': False,  # text compares case-insensitively
    "=--TRUE": 1,
    "=IF(A1>0,A1*2,)": 20,  # A1 holds 10
    "=IF(A1<0,1,)": 0,  # an omitted argument is 0
    "=SUM(A1:A2, 1)": 16,  # A2 holds 5; white space before an argument
    "=ROUND( 2.5 ,0)": 3,
}


@pytest.fixture(scope="module")
def evaluation(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"], ws["A2"] = 10, 5
    cells, evs = evaluate_cases(wb, ws, "C", CASES, tmp_path_factory.mktemp("parse"),
                                 engines=("blocks",))
    return cells, evs["blocks"]


@pytest.mark.parametrize("formula", list(CASES))
def test_excel_precedence_on_the_block_path(evaluation, formula):
    cells, ev = evaluation
    got, want = ev.value("S", cells[formula]), CASES[formula]
    if isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-15)
    else:
        assert got == want and type(got) is type(want) or (
            isinstance(want, int) and not isinstance(got, bool) and got == want)


def test_reference_spans_and_refusals():
    # spans index the text given, from ``base``
    assert parse("S!A1:B2", base=1) == ("ref", "S!A1:B2", 1, 8)
    assert parse("'My s'!$A$1") == ("ref", "'My s'!$A$1", 0, 11)
    assert parse("$1:$2") == ("ref", "$1:$2", 0, 5)
    for text in ("{1,2", "(1,2)", "A1#", "T[x]", "1+", "SUM(1", "(1"):
        with pytest.raises(ParseError):
            parse(text)
    # the reference operators (Microsoft, "Calculation operators and precedence in
    # Excel"): a space intersects, a comma in parentheses unites, ":" chains
    assert parse("A1 B1") == ("isect", [("ref", "A1", 0, 2), ("ref", "B1", 3, 5)])
    assert parse("SUM((A1,B1))") == (
        "call", "SUM", [("union", [("ref", "A1", 5, 7), ("ref", "B1", 8, 10)])])
    assert parse("A1:B2:C3") == ("range", [("ref", "A1:B2", 0, 5), ("ref", "C3", 6, 8)])
    # an array constant is one operand, as written (its value is formulas', compile.Arr)
    assert parse('SUM({1,-2;"a}",TRUE})') == ("call", "SUM", [("array", '{1,-2;"a}",TRUE}')])
    assert references("IFERROR(S!A1:B2,#N/A)+Rate") == (["S!A1:B2", "Rate"], ["IFERROR"])
