"""The per-cell engine's speed paths (issue 13, e4): a formula ``formulas`` cannot compile
marks only its own cell, so the model loads once."""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

from rooflinexl.recalc.book import recalc_book


@pytest.mark.parametrize("engine", ["auto", "cells"])
def test_a_formula_the_engine_cannot_parse_fails_alone(tmp_path, engine):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = 1
    ws["A2"] = "=A1+1"
    ws["A3"] = "=J8:K10 L6:M7"  # an empty intersection: Excel's #NULL!
    ws["A4"] = "=A3+1"
    ws["A5"] = "=FOOBAR(1)+(("  # unknown function, unparsable
    ws["A6"] = "=A2*2"
    path = tmp_path / "parse.xlsx"
    wb.save(path)
    ev = recalc_book(path, write=False, engine=engine).evaluation
    assert ev.value("Sheet", "A2") == 2  # 1 + 1
    assert ev.value("Sheet", "A6") == 4  # (1 + 1) * 2
    assert str(ev.value("Sheet", "A3")) == "#NULL!"
    assert str(ev.value("Sheet", "A4")) == "#NULL!"
    assert ev.cells[("Sheet", "A5")].is_error and ev.cells[("Sheet", "A5")].reason


# Functions without a block kernel run on the block path row by row, as the per-cell engine
# calls them; array constants are function arguments there too. Expected values: Microsoft's
# function reference (read 2026-12-01), its worked examples, or hand derivations.
CASES = {
    '=CONVERT(1,"lbm","kg")': pytest.approx(0.4535924, abs=5e-8),  # Microsoft's example
    '=CONVERT(68,"F","C")': pytest.approx(20, abs=1e-12),  # Microsoft's example
    '=CONVERT(2.5,"ft","sec")': "#N/A",  # Microsoft: "Data types are not the same"
    '=CONVERT(CONVERT(100,"ft","m"),"ft","m")': pytest.approx(9.290304, abs=1e-9),
    "=_xlfn.GAMMA(2.5)": pytest.approx(1.329340388, abs=1e-9),  # Microsoft's example
    "=ERF(0.745)": pytest.approx(0.70792892, abs=1e-8),  # Microsoft's example
    "=_xlfn.BITOR(23,10)": 31,  # Microsoft's example
    "=DELTA(5,4)": 0,  # Microsoft's examples
    "=DELTA(5,5)": 1,
    "=NPV(0.1,-10000,3000,4200,6800)": pytest.approx(1188.44, abs=0.005),  # Microsoft's
    # Microsoft's YEARFRAC example: 1/1/2012 to 7/30/2012, basis 0 (US 30/360)
    "=YEARFRAC(DATE(2012,1,1),DATE(2012,7,30))": pytest.approx(0.58055556, abs=1e-8),
    "=FIXED(1234.567,1)": "1,234.6",  # Microsoft's example
    # Microsoft's STDEV example: the breaking strength of ten tools
    "=STDEV({1345,1301,1368,1322,1310,1370,1318,1350,1303,1299})":
        pytest.approx(27.46391572, abs=1e-8),
    # hand derivations: 3*2 + 4*7 + 8*6 + 6*7 + 1*5 + 9*3; 1 + 2 + 3 - 4.5
    "=SUMPRODUCT({3,4;8,6;1,9},{2,7;6,7;5,3})": 156,
    "=SUM({1,2;3,-4.5})": 1.5,
    "=ISERROR(1/0)": True,
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    return evaluate_cases(wb, ws, "A", CASES, tmp_path_factory.mktemp("speed"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got, want = evs[engine].value("S", cells[formula]), CASES[formula]
    assert matches_excel(got, want, rel=0), got


def test_the_cases_run_on_the_block_path(evaluations):
    _, evs = evaluations
    assert evs["auto"].paths.unsupported_cells == 0, evs["auto"].paths.unsupported


def test_a_filled_down_convert_is_one_block(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(1, 5):
        ws[f"A{r}"] = r
        ws[f"B{r}"] = f'=CONVERT(A{r},"m","ft")'
    path = tmp_path / "convert.xlsx"
    wb.save(path)
    ev = recalc_book(path, write=False).evaluation
    assert ev.paths.block_cells == 4 and ev.paths.blocks == 1
    # 1 ft is 0.3048 m exactly (international foot)
    assert [ev.value("S", f"B{r}") for r in range(1, 5)] == pytest.approx(
        [r / 0.3048 for r in range(1, 5)], rel=1e-14)


# lookups in array constants (hand derivations from Microsoft's definitions of each function)
LOOKUPS = {
    "=MATCH(3,{-1.1,2.1,3.1,4.1})": 2,  # the largest value <= 3 is 2.1, the second
    '=_xlfn.XLOOKUP(-2,{-1.1,2.1,3.1,4.1},{1,2,3,4},"pippo")': "pippo",  # no exact match
    "=HLOOKUP(3.1,{-1.1,2.1,3.1,4.1;5,6,7,8},2,0)": 7,
    "=VLOOKUP(2.5,{-1.1,5;2.1,6;3.1,7;4.1,8},2,1)": 6,  # 2.1 <= 2.5 < 3.1
    '=LOOKUP("C",{"a","b","c","d";1,2,3,4})': 3,  # Microsoft's LOOKUP (array form) example
    "=MATCH(5,{-1.1,2.1,3.1,4.1},0)": "#N/A",
}


@pytest.mark.parametrize("engine", ENGINES)
def test_lookups_in_array_constants(tmp_path, engine):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    cells, evs = evaluate_cases(wb, ws, "A", LOOKUPS, tmp_path, engines=(engine,))
    ev = evs[engine]
    for formula, want in LOOKUPS.items():
        got = ev.value("S", cells[formula])
        assert (str(got) if isinstance(want, str) and want.startswith("#") else got) == want, (
            formula, got)
    if engine == "auto":
        assert ev.paths.unsupported_cells == 0, ev.paths.unsupported


@pytest.mark.parametrize("engine", ENGINES)
def test_an_array_formula_of_one_function_spreads_over_its_range(tmp_path, engine):
    from openpyxl.worksheet.formula import ArrayFormula

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"], ws["B1"], ws["C1"] = 0.908789, 0.5, 0.908789
    ws["J1"] = ArrayFormula("J1:L1", "=_xlfn.NORM.INV(A1:C1,40,1.5)")
    ws["J2"] = ArrayFormula("J2:M3", "=_xlfn.NORM.INV(A1:C1,40,1.5)")  # wider, taller
    ws["J5"] = ArrayFormula("J5", "=_xlfn.NORM.INV(A1:C1,40,1.5)")  # one cell: the first
    # test.xlsx (formulas' test suite, saved by Excel), INFORMATION!AO11:AW11: a range
    # narrower than the array formula's is padded with #N/A before ISNA reads it
    ws["J7"] = ArrayFormula("J7:M7", "=ISNA(A1:C1)")
    # a function whose result is an array, at the top of an array formula (Microsoft's
    # TRANSPOSE: the row becomes a column)
    ws["J9"] = ArrayFormula("J9:J11", "=TRANSPOSE(A1:C1)")
    path = tmp_path / "spill.xlsx"
    wb.save(path)
    ev = recalc_book(path, write=False, engine=engine).evaluation
    # Microsoft's NORM.INV example: NORM.INV(0.908789,40,1.5) is 42.000002; 0.5 is the mean
    first = pytest.approx(42.000002, abs=5e-7)
    assert [ev.value("S", c) for c in ("J1", "K1", "L1")] == [first, 40, first]
    # Excel: a one-row result fills every row of a taller range; #N/A where the range is
    # wider than the result
    for r in (2, 3):
        assert [ev.value("S", f"{c}{r}") for c in "JKL"] == [first, 40, first]
        assert str(ev.value("S", f"M{r}")) == "#N/A"
    assert ev.value("S", "J5") == first
    assert [ev.value("S", f"{c}7") for c in "JKLM"] == [False, False, False, True]
    assert [ev.value("S", f"J{r}") for r in (9, 10, 11)] == [0.908789, 0.5, 0.908789]
    if engine == "auto":
        assert ev.paths.unsupported_cells == 0, ev.paths.unsupported


# the differential test's random workbooks, with functions that run row by row on the
# block path and array constants mixed in: both paths must agree on every cell
class _PerRowGen:
    CALLS = [
        'CONVERT({e},"m","ft")', "_xlfn.GAMMA({e})", "ISERROR({e})", "ISNUMBER({e})",
        'TEXT({e},"0.00")', "FIXED({e},1)", "ERF({e})", "DELTA({e},{e})",
        "_xlfn.BITOR({e},3)", "COUNTA({rng})", "STDEV({rng})", "NPV(0.1,{rng})",
        "MATCH({e},{-1.1,2.1,3.1,4.1})", "SUM({1,2;3,-4.5})*{e}",
        'LOOKUP({e},{0,1,2;"a","b","c"})', "SUMPRODUCT({rng},{rng})", "EVEN({e})",
    ]

    @classmethod
    def install(cls, diff):
        base = diff._Gen

        class Gen(base):
            def expr(self, depth: int = 0) -> str:
                if depth < 3 and self.rnd.random() < 0.3:
                    call = self.rnd.choice(cls.CALLS)
                    while "{e}" in call or "{rng}" in call:
                        call = call.replace("{e}", self.expr(depth + 1), 1)
                        call = call.replace("{rng}", self.range_(), 1)
                    return call
                return super().expr(depth)

        return Gen


@pytest.mark.parametrize("seed", [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233])
def test_per_row_functions_agree_with_the_per_cell_engine(tmp_path, monkeypatch, seed):
    import test_blocks_differential as diff

    monkeypatch.setattr(diff, "_Gen", _PerRowGen.install(diff))
    p = tmp_path / f"seed{seed}.xlsx"
    diff.make_book(p, seed)
    diff.check(p)
