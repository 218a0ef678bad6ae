"""LAMBDA and its helper functions (MAP, REDUCE, SCAN, BYROW, BYCOL, MAKEARRAY, ISOMITTED)
against Excel's values, through both engines (``ENGINES``).

The cases are formulas of Excel-saved workbooks, retyped with their input cells (not the
files): the `formulas` project's regression book ``test.xlsx``, sheet LOGICAL (cited by
cell), and IronCalc's ``INFORMATION/ISOMITTED.xlsx`` and ``LOGICAL/LAMBDA.xlsx``; the
expected values are the ones Excel cached. Where Excel gives ``#CALC!`` the engine gives
``#VALUE!`` with the reason (its rule for every ``#CALC!``), cited from Microsoft's
"LAMBDA function" page.
"""
from __future__ import annotations

import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula

from rooflinexl.recalc.book import recalc_book
from tests.formula_cases import ENGINES, matches_excel

V = "#VALUE!"
LAM = "_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a+_xlpm.b^2)"
MK = "_xlfn.LAMBDA(_xlpm.x,_xlpm.y,_xlpm.x+1+_xlpm.y)"

#: (input top-left cell, input rows, array range, formula, Excel's cached values by row)
ARRAY_CASES = [
    # LOGICAL!T5:T6 (D4:F5 retyped at C1)
    ("C1", [[1, 2.3, 0], [1, 2.3, 1]], "R1:R2", "=_xlfn.BYROW(C1:E2,_xleta.SUM)",
     [[3.3], [4.3]]),
    # LOGICAL!R4:T4 (BYCOL, the first three columns of C4:Q5)
    ("C1", [[0, 1, 2.3], [0, 1, 2.3]], "R1:T1",
     "=_xlfn.BYCOL(C1:E2,_xlfn.LAMBDA(_xlpm.x,SUM(_xlpm.x)))", [[0, 2, 4.6]]),
    # LOGICAL!R18:T19: a blank is 0 to the LAMBDA
    ("C1", [[1, 2, 3]], "R1:T2", "=_xlfn.MAP(C1:E2, _xlfn.LAMBDA(_xlpm.a,_xlpm.a^2))",
     [[1, 4, 9], [0, 0, 0]]),
    # LOGICAL!V18:V19
    ("C1", [[1]], "R1:R2", "=_xlfn.MAP( {1;3}, _xlfn.LAMBDA(_xlpm.b,_xlpm.b^2))", [[1], [9]]),
    # LOGICAL!X18:X19, Y18:Y19, Z18:Z19: blank, text and TRUE initial values
    ("H1", [[None, "ciao", True]], "R1:R2", f"=_xlfn.SCAN(H1, {{1;3}}, {LAM})", [[1], [10]]),
    ("H1", [[None, "ciao", True]], "S1:S2", f"=_xlfn.SCAN(I1, {{1;3}}, {LAM})", [[V], [V]]),
    ("H1", [[None, "ciao", True]], "T1:T2", f"=_xlfn.SCAN(J1, {{1;3}}, {LAM})", [[2], [11]]),
    # LOGICAL!R23:T24 (C21:E22 retyped at C1)
    ("C1", [[0, 1, 2.3], [1, 2, 3]], "R1:T2", f"=_xlfn.SCAN(2, C1:E2, {LAM})",
     [[2, 3, pytest.approx(8.29, rel=1e-15)],
      [pytest.approx(9.29, rel=1e-15), pytest.approx(13.29, rel=1e-15),
       pytest.approx(22.29, rel=1e-15)]]),
    # LOGICAL!U23:U24: an array as the initial value, summed by the LAMBDA
    ("C1", [[0], [1], [1, 2, 3]], "R1:R2",
     "=_xlfn.SCAN(C3:E3, C1:C2, _xlfn.LAMBDA(_xlpm.a,_xlpm.b,SUM(_xlpm.a)+_xlpm.b^2))",
     [[6], [7]]),
    # LOGICAL!S22:U22: the accumulator an array all along
    ("C1", [[1, 2, 3]], "R1:T1", f"=_xlfn.REDUCE(C1:E1, {{1,2,3}}, {LAM})", [[15, 16, 17]]),
    # LOGICAL!R14:Y14: rows from a range, one MAKEARRAY per element, its first value shown
    ("C1", [[0, 2, 2.3, 3, -1, None, "0", True]], "R1:Y1", f"=_xlfn.MAKEARRAY(C1:J1,1,{MK})",
     [[V, 3, V, 3, V, V, V, 3]]),
    # LOGICAL!U15:U17
    ("C1", [[3]], "R1:R3", f"=_xlfn.MAKEARRAY(C1,1,{MK})", [[3], [4], [5]]),
]

#: (input top-left cell, input rows, cell, formula, Excel's value)
PLAIN_CASES = [
    # LOGICAL!R22 (C20:E21 retyped at C1): the initial value omitted is a blank
    ("C1", [[0, 1, 2.3], [0, 1, 2.3]], "R1", f"=_xlfn.REDUCE(, C1:E2, {LAM})",
     pytest.approx(12.58, rel=1e-15)),
    # LOGICAL!W18: a LAMBDA where MAP takes an array
    ("C1", [[1]], "R1", "=_xlfn.MAP( {1,2;3,3}, _xlfn.LAMBDA(_xlpm.a,_xlpm.a+1), "
     "_xlfn.LAMBDA(_xlpm.b,_xlpm.b+3) )", V),
    # LOGICAL!T15, V15, Y15: 2.3 rows, -1 rows, TRUE rows
    ("C1", [[2.3, -1, True]], "R1", f'=_xlfn.MAKEARRAY(C1,"1",{MK})', V),
    ("C1", [[2.3, -1, True]], "S1", f"=_xlfn.MAKEARRAY(D1,1,{MK})", V),
    ("C1", [[2.3, -1, True]], "T1", f"=_xlfn.MAKEARRAY(E1,1,{MK})", 3),
    # IronCalc's ISOMITTED.xlsx A1, A6, A7 (A5 = 12, B5 = 3): ``(1,)`` leaves y out;
    # ``_xlop.b`` is an optional parameter (written [b])
    ("A5", [[12, 3]], "A1", '=_xlfn.LAMBDA(_xlpm.x,_xlpm.y, IF(_xlfn.ISOMITTED(_xlpm.y),'
     '"Missing second argument",_xlpm.x+_xlpm.y))(1,)', "Missing second argument"),
    ("A5", [[12, 3]], "A6", "=_xlfn.LAMBDA(_xlpm.a,_xlop.b,IF(_xlfn.ISOMITTED(_xlpm.b),"
     "_xlpm.a/2,_xlpm.a*_xlpm.b))(A5)", 6),
    ("A5", [[12, 3]], "A7", "=_xlfn.LAMBDA(_xlpm.a,_xlop.b,IF(_xlfn.ISOMITTED(_xlpm.b),"
     "_xlpm.a/2,_xlpm.a*_xlpm.b))(A5, B5)", 36),
    # IronCalc's LAMBDA.xlsx F4 (D1 = 7, E1 = 6): a LAMBDA called by its LET name
    ("D1", [[7, 6]], "F4", "=_xlfn.LET(_xlpm.area, _xlfn.LAMBDA(_xlpm.x,_xlpm.y,_xlpm.x*"
     "_xlpm.y), _xlpm.area(D1,E1))", 42),
]


def _book(tmp_path, inputs_at: str, rows, place):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    top = ws[inputs_at]
    for i, row in enumerate(rows):
        for j, x in enumerate(row):
            if x is not None:
                ws.cell(top.row + i, top.column + j, x)
    place(ws)
    path = tmp_path / "lambdas.xlsx"
    wb.save(path)
    return {e: recalc_book(path, write=False, engine=e).evaluation for e in ENGINES}


@pytest.mark.parametrize("case", ARRAY_CASES, ids=[c[3] for c in ARRAY_CASES])
def test_lambda_helper_array_matches_excel(tmp_path, case):
    at, rows, ref, formula, want = case

    def place(ws):
        ws[ref.split(":")[0]] = ArrayFormula(ref, formula)

    evs = _book(tmp_path, at, rows, place)
    cells = openpyxl.Workbook().active[ref]
    cells = cells if isinstance(cells[0], tuple) else (cells,)
    for engine, ev in evs.items():
        for row_cells, row_want in zip(cells, want, strict=True):
            for c, w in zip(row_cells, row_want, strict=True):
                got = ev.cells[("S", c.coordinate)].value
                assert matches_excel(got, w), (engine, c.coordinate, got, w)
    auto = evs["auto"].paths
    assert auto.unsupported_cells == 0, auto.unsupported  # the array evaluator, not per cell


@pytest.mark.parametrize("case", PLAIN_CASES, ids=[c[3] for c in PLAIN_CASES])
def test_lambda_in_a_plain_cell_matches_excel(tmp_path, case):
    at, rows, cell, formula, want = case

    def place(ws):
        ws[cell] = formula

    evs = _book(tmp_path, at, rows, place)
    for engine, ev in evs.items():
        got = ev.cells[("S", cell)].value
        assert matches_excel(got, want), (engine, got, want)
    assert evs["auto"].paths.unsupported_cells == 0, evs["auto"].paths.unsupported


@pytest.mark.parametrize("formula,why", [
    # Microsoft, "LAMBDA function": a LAMBDA that is a cell's value, not called, is #CALC!
    ("=_xlfn.LAMBDA(_xlpm.x,_xlpm.x+1)", "not called"),
    # Microsoft, "MAP function": "an incorrect number of parameters returns #VALUE!"
    ("=_xlfn.MAP({1,2},_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a+_xlpm.b))", "parameter"),
    # Microsoft, "BYROW function": a LAMBDA returning an array is #CALC!
    ("=_xlfn.BYROW({1,2;3,4},_xlfn.LAMBDA(_xlpm.r,_xlpm.r*2))", "array where one value"),
])
def test_lambda_errors_name_their_reason(tmp_path, formula, why):
    evs = {"auto": _book(tmp_path, "A1", [], lambda ws: ws.__setitem__("C1", formula))["auto"]}
    got = evs["auto"].cells[("S", "C1")]
    assert str(got.value) == "#VALUE!" and why in (got.reason or ""), (got.value, got.reason)
    assert evs["auto"].paths.unsupported_cells == 0, evs["auto"].paths.unsupported


def test_named_lambda_as_a_value_and_called_in_a_lambda(tmp_path):
    """Microsoft, "LAMBDA function": a LAMBDA named in the Name Manager is called by its
    name, or given by it where a function belongs (``MAP(A1:A2, SQ)``). Hand derivation
    with SQ = LAMBDA(v, v*v), A1:A2 = 2, 3: MAP gives 4, 9; REDUCE(0, A1:A2, LAMBDA(a, b,
    a+SQ(b))) is 0 + 4 + 9 = 13. The per-cell engine does not give MAP a named LAMBDA:
    the MAP cells are checked on the default engine only."""
    from openpyxl.workbook.defined_name import DefinedName

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"], ws["A2"] = 2, 3
    wb.defined_names["SQ"] = DefinedName("SQ", attr_text="_xlfn.LAMBDA(_xlpm.v,_xlpm.v*_xlpm.v)")
    ws["C1"] = ArrayFormula("C1:C2", "=_xlfn.MAP(A1:A2,SQ)")
    ws["E1"] = "=_xlfn.REDUCE(0,A1:A2,_xlfn.LAMBDA(_xlpm.a,_xlpm.b,_xlpm.a+SQ(_xlpm.b)))"
    path = tmp_path / "named.xlsx"
    wb.save(path)
    evs = {e: recalc_book(path, write=False, engine=e).evaluation for e in ENGINES}
    for engine, ev in evs.items():
        assert matches_excel(ev.cells[("S", "E1")].value, 13), engine
    auto = evs["auto"]
    assert [auto.cells[("S", c)].value for c in ("C1", "C2")] == [4, 9]
    assert auto.paths.unsupported_cells == 0, auto.paths.unsupported
