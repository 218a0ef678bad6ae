"""ISREF, AREAS, ISFORMULA, FORMULATEXT, the union and intersection operators and SEARCH in array
formulas, against Excel's values, through both engines (``ENGINES``), in the array
evaluator (no cell per cell).

Cases retyped (with their input cells) from the `formulas` project's ``test.xlsx``, saved
by Excel (sheets LOOKUP, INFORMATION, TEXT; cited by cell), with the values Excel cached;
the SUM cases are hand derivations of Microsoft's "Calculation operators and precedence
in Excel" (comma: union, space: intersection, ``#NULL!`` where two areas have nothing in
common).
"""
from __future__ import annotations

import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula

from rooflinexl.recalc.book import recalc_book
from tests.formula_cases import ENGINES, matches_excel

#: (formula in a plain cell of row 1, Excel's value); inputs: C1:F1 = 1, 2, 3, 4 and
#: C2:F2 = 10, 20, 30, 40, D3 and E3 hold formulas
PLAIN_CASES = [
    ("=AREAS(C1:F1)", 1),  # LOOKUP!R4
    ("=AREAS((D1:G1,I1:J1,K1:N1))", 3),  # LOOKUP!S4
    ("=AREAS((E1:H1 J1:K1 L1:O1))", "#NULL!"),  # LOOKUP!T4
    ("=AREAS(((F1:G1,G1:I1,F3:G3,G3:I3) G1:G8))", 4),  # LOOKUP!V4: two areas alike
    ("=ISREF(0)", False),  # INFORMATION!R17
    ('=ISREF("")', False),  # INFORMATION!W17
    ("=ISREF(D1)", True),  # INFORMATION!S17
    ("=ISREF((C1,D1))", True),
    ("=_xlfn.ISFORMULA(D3)", True),
    ("=_xlfn.ISFORMULA(D2)", False),
    # a union: every area's numbers; an intersection: the cells in common
    ("=SUM((C1:D1,E2:F2))", 1 + 2 + 30 + 40),
    ("=SUM(C1:F2 D1:E2)", 2 + 3 + 20 + 30),
    ("=COUNT((C1:C2,F1:F2),C1)", 5),
    ("=SUM(C1:D1 E1:F1)", "#NULL!"),
    # Microsoft, "FORMULATEXT function": the formula as the formula bar shows it (no
    # _xlfn. prefix); #N/A of a cell without a formula; a range: its upper-left cell
    ("=FORMULATEXT(D3)", "=C1+1"),
    ("=_xlfn.FORMULATEXT(E3)", "=CONCAT(C1,D1)"),
    ("=_xlfn.FORMULATEXT(D3:E3)", "=C1+1"),
    ("=_xlfn.FORMULATEXT(C1)", "#N/A"),
]


def _evaluate(tmp_path, place):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for j, (a, b) in enumerate(zip([1, 2, 3, 4], [10, 20, 30, 40], strict=True)):
        ws.cell(1, 3 + j, a)
        ws.cell(2, 3 + j, b)
    ws["D3"] = "=C1+1"
    ws["E3"] = "=_xlfn.CONCAT(C1,D1)"
    place(ws)
    path = tmp_path / "refs.xlsx"
    wb.save(path)
    return {e: recalc_book(path, write=False, engine=e).evaluation for e in ENGINES}


def test_reference_functions_in_plain_cells_match_excel(tmp_path):
    cells = {f: f"A{10 + i}" for i, (f, _w) in enumerate(PLAIN_CASES)}

    def place(ws):
        for f, c in cells.items():
            ws[c] = f

    evs = _evaluate(tmp_path, place)
    for engine, ev in evs.items():
        for f, want in PLAIN_CASES:
            got = ev.cells[("S", cells[f])].value
            assert matches_excel(got, want), (engine, f, got, want)
    assert evs["auto"].paths.unsupported_cells == 0, evs["auto"].paths.unsupported


@pytest.mark.parametrize("ref,formula,want", [
    # INFORMATION!AH10:AW10 (ISFORMULA of a range: one value per cell, #N/A past it)
    ("H5:L5", "=_xlfn.ISFORMULA(C3:F3)", [False, True, True, False, "#N/A"]),
    # INFORMATION!AG17 and AH17:AW17: ISREF of a range is one TRUE
    ("H5:I5", "=ISREF(C1:E1)", [True, True]),
    # TEXT!AH39:AJ39 and AK39:AM39 (C39:D39 = 0, 1.9 retyped at C6:D6)
    ("H5:J5", '=SEARCH({"BASE","bau"},"database")', [5, "#VALUE!", "#N/A"]),
    ("H6:J6", '=SEARCH({"bau","BASE"},"database",C6:D6)', ["#VALUE!", 5, "#N/A"]),
])
def test_reference_functions_in_array_formulas_match_excel(tmp_path, ref, formula, want):
    def place(ws):
        ws["C6"], ws["D6"] = 0, 1.9
        ws[ref.split(":")[0]] = ArrayFormula(ref, formula)

    evs = _evaluate(tmp_path, place)
    row = openpyxl.Workbook().active[ref][0]
    for engine, ev in evs.items():
        got = [ev.cells[("S", c.coordinate)].value for c in row]
        assert all(matches_excel(g, w) for g, w in zip(got, want, strict=True)), (
            engine, got, want)
    assert evs["auto"].paths.unsupported_cells == 0, evs["auto"].paths.unsupported


def test_cell_in_single_cells_matches_excel(tmp_path):
    """Microsoft, "CELL function": "address" the reference's first cell as absolute text,
    "row" and "col" its numbers, "contents" its value, "type" "b" (blank), "l" (text) or
    "v". Two cells with the same formula but for the row (A20, A22: one shape, not
    adjacent) each give their own row."""
    cases = {"A20": ('=CELL("row",B20)', 20), "A22": ('=CELL("row",B22)', 22),
             "A24": ('=CELL("address",D1)', "$D$1"), "A25": ('=CELL("col",E2)', 5),
             "A26": ('=CELL("contents",F2)', 40), "A27": ('=CELL("type",Z9)', "b"),
             "A28": ('=CELL("type",C1)', "v")}

    def place(ws):
        for cell, (f, _w) in cases.items():
            ws[cell] = f

    evs = _evaluate(tmp_path, place)
    for engine, ev in evs.items():
        for cell, (f, want) in cases.items():
            got = ev.cells[("S", cell)].value
            assert matches_excel(got, want), (engine, f, got, want)
    assert evs["auto"].paths.unsupported_cells == 0, evs["auto"].paths.unsupported


def test_sheet_name_with_an_apostrophe(tmp_path):
    """Microsoft, "Create or change a cell reference": a sheet name with non-alphabetical
    characters is quoted, an apostrophe in it doubled (``'It''s'!A1``). The block path
    reads such references (and the per-cell engine, ``engine="cells"``, under a name of
    its own, put back under the sheet's). Hand derivation: A1 = 1 + 1*10; A2 = (1+2+3) +
    SUBTOTAL(9, 1..3) = 12; A3 = 2 * A2."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    other = wb.create_sheet("It's")
    other["A1"], other["A2"], other["A3"] = 1, 2, 3
    other["B1"] = "=A1*10"
    other["B2"] = "=SUBTOTAL(9,A1:A3)"
    ws["A1"] = "='It''s'!A1+'It''s'!B1"
    ws["A2"] = "=SUM('It''s'!A1:A3)+'It''s'!B2"
    ws["A3"] = "=A2*2"
    path = tmp_path / "quotes.xlsx"
    wb.save(path)
    want = {("S", "A1"): 11, ("S", "A2"): 12, ("S", "A3"): 24, ("It's", "B2"): 6}
    for engine in ENGINES:
        ev = recalc_book(path, write=False, engine=engine).evaluation
        for key, w in want.items():
            assert matches_excel(ev.cells[key].value, w), (engine, key, ev.cells[key].value)
        if engine == "auto":  # no cell per cell (the SUBTOTAL too is a block)
            assert ev.paths.unsupported_cells == 0, ev.paths.unsupported


@pytest.mark.parametrize("ref,formula,want,engines", [
    # LOOKUP!AT12:AW14 (the range between Z12:AA13 and AF12:AF13, Z12:AF13, intersected
    # with AB13:AD14: AB13:AD13; retyped from its own rows)
    ("H8:K8", "=COLUMN(Z12:AA13:AF12:AF13 AB13:AD14)", [28, 29, 30, "#N/A"], ENGINES),
    # LOOKUP!AG12 (C14:I14 around G13 is C13:I14; with E13:F13: E13:F13); the per-cell
    # engine's own answer here is #VALUE!
    ("H9:H9", "=COLUMN(C14:E14:G13:I14 E13:F13)", [5], ("auto",)),
])
def test_chain_of_range_operators(tmp_path, ref, formula, want, engines):
    def place(ws):
        ws[ref.split(":")[0]] = ArrayFormula(ref, formula)

    evs = _evaluate(tmp_path, place)
    row = openpyxl.Workbook().active[ref][0]
    for engine in engines:
        ev = evs[engine]
        got = [ev.cells[("S", c.coordinate)].value for c in row]
        assert all(matches_excel(g, w) for g, w in zip(got, want, strict=True)), (
            engine, got, want)
    assert evs["auto"].paths.unsupported_cells == 0, evs["auto"].paths.unsupported


def test_rows_columns_and_index_of_a_union(tmp_path):
    """test.xlsx LOOKUP!S15, T15 (COLUMNS of a union #REF!, of an empty intersection
    #NULL!) and LOOKUP!AS52:AS54 (INDEX of a union, row and area per element; C52:E54
    retyped at C11:E13)."""
    def place(ws):
        for r, row in enumerate([[-1.1, 2.1, 3], [-2, 1.1, 2], [-2.9, 0.1, 1]], start=11):
            for j, x in enumerate(row):
                ws.cell(r, 3 + j, x)
        ws["H11"] = "=COLUMNS((D1:G1,I1:J1,K1:N1))"
        ws["H12"] = "=COLUMNS((E1:H1 J1:K1 L1:O1))"
        ws["I11"] = ArrayFormula("I11:I13", "=INDEX((C11:C13,D11:D13),E11:E13,1,E11:E13)")

    evs = _evaluate(tmp_path, place)
    want = {"H11": "#REF!", "H12": "#NULL!", "I11": "#REF!", "I12": 1.1, "I13": -1.1}
    for engine, ev in evs.items():
        got = {c: ev.cells[("S", c)].value for c in want}
        assert all(matches_excel(got[c], w) for c, w in want.items()), (engine, got)
    assert evs["auto"].paths.unsupported_cells == 0, evs["auto"].paths.unsupported
