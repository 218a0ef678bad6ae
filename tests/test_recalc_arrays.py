"""Array formulas and array values, through the array evaluator (rooflinexl.recalc.arrays).

Each case is a formula copied from an Excel-saved workbook (formulas' regression book
``test.xlsx``, sheets LOOKUP, MATH & TRIG, STATISTICAL and CORE; the formula and its
input cells are retyped here, not the file), with the values Excel cached for it, and
runs through both engines (``ENGINES``): the default one (blocks, and the array
evaluator for these cells) and the per-cell one, so that both agree with Excel.
"""
from __future__ import annotations

import numpy as np
import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula

from rooflinexl.recalc.arrays import excel_broadcast, first_value, lay_out
from rooflinexl.recalc.book import recalc_book
from tests.formula_cases import ENGINES, matches_excel

NA = "#N/A"

#: (input top-left cell, input rows, array range, formula, Excel's cached values by row)
ARRAY_CASES = [
    # LOOKUP!AH56:AW56 (a 16-wide range over 15 inputs: the last cell #N/A)
    ("C1", [[-1.1, 2.1, 3, 4, 4.1, None, "b", True, "#VALUE!", "#N/A", "#DIV/0!", "#NAME?",
             "#NULL!", "#NUM!", "#REF!"]],
     "AH1:AW1", '=LOOKUP(C1:Q1,{-1.1,2.1,3.1,4.1},{"L","ML","MR","R"})',
     [["L", "ML", "ML", "MR", "R", "L", NA, NA, "#VALUE!", NA, "#DIV/0!", "#NAME?", "#NULL!",
       "#NUM!", "#REF!", NA]]),
    # LOOKUP!AH12:AJ14: a one-row result repeats down, #N/A past its end
    ("AC1", [[14, 15]], "AH1:AJ3", "=COLUMN(AC1:AD1)",
     [[29, 30, NA], [29, 30, NA], [29, 30, NA]]),
    # LOOKUP!AK112:AM114 (Excel: 112, 113): a one-column result repeats across
    ("AC1", [[112], [113]], "AK1:AM3", "=ROW(AC1:AC2)",
     [[1, 1, 1], [2, 2, 2], [NA, NA, NA]]),
    # LOOKUP!AK52:AL54
    ("E1", [[3], [2], [1]], "AK1:AL3", "=INDEX({2,3;4,5},E1:E3)",
     [["#REF!", "#REF!"], [4, 4], [2, 2]]),
    # LOOKUP!R117:S119 (a dynamic array saved with its spill range)
    ("C1", [[1, 3], [2, 2], [3, 1]], "R1:S3", "=_xlfn._xlws.SORT(C1:D3,1,-1,1)",
     [[3, 1], [2, 2], [1, 3]]),
    # STATISTICAL!T69:T70: MODE.MULT's array is vertical
    ("E1", [[0.1, 0.3, -0.1]], "T1:T2", '=_xlfn.MODE.MULT(E1:F1,F1:G1,G1:H1,"29/02/1900")',
     [[0.3], [-0.1]]),
    # LOGICAL!AH11:AI11: IFS element by element
    ("C1", [[0, 1, 2.3, 0, -1, None, "0", True]], "AH1:AI1",
     "=_xlfn.IFS(C1:D1,J1,E1:F1,G1)", [[-1, True]]),
    # CORE!M14:N16: IFERROR element by element
    ("I1", [[9, "#N/A"], [9, "#N/A"], ["#N/A", "#N/A"]], "M1:N3", "=IFERROR(I1:J3,1)",
     [[9, 1], [9, 1], [1, 1]]),
]

#: plain cells (not array formulas) whose formula holds arrays: (inputs, cell, formula, Excel)
PLAIN_CASES = [
    # LOOKUP!R52:S52, R53, R54: INDEX of a relative range
    ("C1", [[-1.1, 2.1, 3, 4], [-2, 1.1, 2, 3]], "R1", "=INDEX(C1:E2,1,2)", 2.1),
    ("C1", [[-1.1, 2.1, 3, 4], [-2, 1.1, 2, 3]], "R2", "=INDEX(C1:E2,2)", "#REF!"),
    ("C1", [[-1.1, 2.1, 3, 4], [-2, 1.1, 2, 3]], "R3", "=INDEX(C1:E2,-1)", "#VALUE!"),
    ("C1", [[-1.1, 2.1, 3, 4], [-2, 1.1, 2, 3]], "S1", "=INDEX(D1:F1,1,2)", 3),
    # LOOKUP!R5:U5: CHOOSE (in array mode: the block kernels have none)
    ("C1", [[-2, 1.1, 3, 4]], "R1", "=CHOOSE(C1,1,2,3)", "#VALUE!"),
    ("C1", [[-2, 1.1, 3, 4]], "S1", "=CHOOSE(D1,1,2,3)", 1),
    ("C1", [[-2, 1.1, 3, 4]], "T1", "=CHOOSE(E1,1,2,3)", 3),
    ("C1", [[-2, 1.1, 3, 4]], "U1", "=CHOOSE(F1,1,2,3)", "#VALUE!"),
    # CORE!M30: a function returning an array inside SUM
    ("A1", [[0]], "M1", "=SUM(MINVERSE({1,2,-1;3,4,-1;0,2,0}))",
     pytest.approx(-0.5, rel=1e-12)),
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
    path = tmp_path / "arrays.xlsx"
    wb.save(path)
    return {e: recalc_book(path, write=False, engine=e).evaluation for e in ENGINES}


@pytest.mark.parametrize("case", ARRAY_CASES, ids=[c[3] for c in ARRAY_CASES])
def test_array_formula_matches_excel(tmp_path, case):
    at, rows, ref, formula, want = case

    def place(ws):
        ws[ref.split(":")[0]] = ArrayFormula(ref, formula)

    evs = _book(tmp_path, at, rows, place)
    cells = openpyxl.Workbook().active[ref]
    for engine, ev in evs.items():
        for row_cells, row_want in zip(cells, want, strict=True):
            for c, w in zip(row_cells, row_want, strict=True):
                got = ev.cells[("S", c.coordinate)].value
                assert matches_excel(got, w), (engine, c.coordinate, got, w)
    auto = evs["auto"].paths
    assert auto.unsupported_cells == 0, auto.unsupported  # the array evaluator, not per cell


@pytest.mark.parametrize("case", PLAIN_CASES, ids=[c[3] for c in PLAIN_CASES])
def test_plain_cell_with_arrays_matches_excel(tmp_path, case):
    at, rows, cell, formula, want = case

    def place(ws):
        ws[cell] = formula

    evs = _book(tmp_path, at, rows, place)
    for engine, ev in evs.items():
        got = ev.cells[("S", cell)].value
        assert matches_excel(got, want), (engine, got, want)
    assert evs["auto"].paths.unsupported_cells == 0, evs["auto"].paths.unsupported


def test_implicit_intersection_in_a_plain_cell(tmp_path):
    """Microsoft, "Implicit intersection operator: @": ``=B1:B5*2`` in row 3 reads B3; in
    row 7, outside the range, it is #VALUE!. A filled-down block of such cells goes
    through the array evaluator row by row."""
    def place(ws):
        for r in (2, 3, 4, 7):
            ws[f"D{r}"] = "=B1:B5*2+INDEX(B1:B5,1)"

    evs = _book(tmp_path, "B1", [[1], [2], [3], [4], [5]], place)
    for engine, ev in evs.items():
        got = {r: ev.cells[("S", f"D{r}")].value for r in (2, 3, 4, 7)}
        assert [matches_excel(got[r], w) for r, w in
                ((2, 5), (3, 7), (4, 9), (7, "#VALUE!"))] == [True] * 4, (engine, got)


def test_lay_out_as_excel():
    """A hand derivation of Excel's rule: one row repeats down, past the end #N/A."""
    res = lay_out(np.array([[1.0], [2.0]], dtype=object), 3, 2)
    assert [[str(x) for x in r] for r in res] == [["1.0", "1.0"], ["2.0", "2.0"],
                                                   [NA, NA]]
    assert lay_out(7.0, 2, 2).tolist() == [[7.0, 7.0], [7.0, 7.0]]
    assert first_value(np.array([[3.0, 4.0]], dtype=object)) == 3.0


def test_excel_broadcast_pads_with_na():
    """{1,2,3}+{10;20} is 2 x 3 in Excel (both stretch); {1,2,3}+{10,20} is 1 x 3 with
    #N/A in the third cell (Microsoft, "Guidelines and examples of array formulas")."""
    a = np.array([[1.0, 2.0, 3.0]], dtype=object)
    b = np.array([[10.0, 20.0]], dtype=object)
    x, y = excel_broadcast([a, b])
    assert x is a and [str(v) for v in y[0]] == ["10.0", "20.0", NA]
    c = np.array([[10.0], [20.0]], dtype=object)
    assert excel_broadcast([a, c]) == [a, c]  # numpy's broadcasting is Excel's here


def test_cells_left_per_cell_read_what_their_text_names(tmp_path):
    """The per-cell engine gets a copy holding only what its cells read; what they read is
    told from their text (INDIRECT of a text, names that are formulas, ``[0]!`` -- this
    workbook) and must be all of it. Values by hand: A1:A4 = 1, 2, 3, 4; B1:B4 = 10, 20,
    30, 40; E1:E2 = 5, 7; G2:G3 = 2, 3."""
    from openpyxl.workbook.defined_name import DefinedName
    from openpyxl.worksheet.table import Table

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(1, 5):
        ws[f"A{r}"] = r
        ws[f"B{r}"] = 10 * r
    wb.defined_names["inner"] = DefinedName("inner", attr_text="S!$B$4")
    wb.defined_names["tot"] = DefinedName("tot", attr_text="SUM(S!$B$1:$B$3)+inner")
    ws["E1"], ws["E2"] = 5, 7
    wb.defined_names["col"] = DefinedName("col", attr_text="S!$E$1:$E$2")
    ws["G1"], ws["G2"], ws["G3"] = "Amount", 2, 3  # a table: a name over its column
    ws.add_table(Table(displayName="tbl", ref="G1:G3"))
    wb.defined_names["amount"] = DefinedName("amount", attr_text="SUM(tbl[Amount])")
    cases = {"C1": ('=SUM(INDIRECT("A1"):INDIRECT("A3"))', 6),  # the range between: A2 too
             "C2": ('=INDIRECT("A4")*2', 8),
             "C3": ("=tot", 100),
             "C4": ("=SUM([0]!col)", 12),
             "C5": ('=IFERROR(INDIRECT("ab")+1,33)', 33),  # no reference: #REF!
             "C6": ("=amount*2", 10)}
    for cell, (formula, _) in cases.items():
        ws[cell] = formula
    ws["D1"] = "=A1+1"  # a block: the per-cell engine then gets a pruned copy
    path = tmp_path / "reads.xlsx"
    wb.save(path)
    for engine in ENGINES:
        ev = recalc_book(path, write=False, engine=engine).evaluation
        got = {c: ev.cells[("S", c)].value for c in cases}
        assert all(matches_excel(got[c], w) for c, (_, w) in cases.items()), (engine, got)
