"""The block evaluator: filled-down formulas computed as numpy row vectors.

Each workbook here is small and built with openpyxl; every formula is filled
down several rows so that it is evaluated as one block, and every expected
value is worked out by hand in the test (spreadsheet semantics as the
per-cell engine, the ``formulas`` library, has them).
"""
from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from click.testing import CliRunner
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.table import Table

from rooflinexl.cli import main
from rooflinexl.errors import ExcelError
from rooflinexl.recalc.blocks import evaluate_blocks
from rooflinexl.recalc.book import recalc_book
from rooflinexl.recalc.engine import evaluate_workbook
from rooflinexl.udfs import FUNCTIONS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))


def book(tmp_path, columns: dict[str, list], formulas: dict[str, str], rows: int, *,
         extra=None, name="b.xlsx") -> Path:
    """Sheet 'S': input columns from row 2, and each formula (``{r}`` = row) filled
    down rows 2..rows+1."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for col, values in columns.items():
        for i, v in enumerate(values):
            if v is not None:
                ws[f"{col}{i + 2}"] = v
    for col, f in formulas.items():
        for r in range(2, rows + 2):
            ws[f"{col}{r}"] = f.replace("{r}", str(r))
    if extra:
        extra(wb)
    p = tmp_path / name
    wb.save(p)
    return p


def values(ev, col: str, rows: int) -> list:
    return [ev.value("S", f"{col}{r}") for r in range(2, rows + 2)]


def run_blocks(path, expect_cells=None, *, compare=True):
    """Evaluate by blocks (every cell must take the block path) and, unless told
    otherwise, check every value and reason against the per-cell engine."""
    ev = evaluate_blocks(path, FUNCTIONS)
    assert ev.paths.unsupported_cells == 0, ev.paths.unsupported
    if expect_cells is not None:
        assert ev.paths.block_cells == expect_cells
    if compare:
        cells = evaluate_workbook(path, FUNCTIONS)
        assert list(ev.cells) == list(cells.cells)
        for key, c in cells.cells.items():
            b = ev.cells[key]
            assert same(b.value, c.value) and b.reason == c.reason, (key, b, c)
    return ev


def same(a, b) -> bool:
    """Equal values: the same error code, or equal numbers (bit for bit), text, booleans."""
    if isinstance(a, ExcelError) or isinstance(b, ExcelError):
        return str(a) == str(b) and type(a) is type(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b and type(a is None) is type(b is None)


def codes(vals):
    return [str(v) if isinstance(v, ExcelError) else v for v in vals]


# --------------------------------------------------------- arithmetic, coercion


def test_arithmetic_coerces_blanks_booleans_and_numeric_text(tmp_path):
    a = [4, None, True, "3", "x", "#N/A", 2.5]
    b = [2, 5, 2, 2, 1, "#DIV/0!", 0]
    p = book(tmp_path, {"A": a, "B": b}, {"C": "=A{r}*B{r}", "D": "=A{r}/B{r}",
                                          "E": "=B{r}-A{r}+1", "F": "=A{r}^2"}, 7)
    ev = run_blocks(p, 28)
    # blank -> 0, TRUE -> 1, "3" -> 3 (formulas converts numeric text), "x" -> #VALUE!
    assert codes(values(ev, "C", 7)) == [8, 0, 2, 6, "#VALUE!", "#N/A", 0]
    assert codes(values(ev, "D", 7)) == [2, 0, 0.5, 1.5, "#VALUE!", "#N/A", "#DIV/0!"]
    # the first operand's error wins: B7 is #DIV/0!, A7 #N/A
    assert codes(values(ev, "E", 7)) == [-1, 6, 2, 0, "#VALUE!", "#DIV/0!", -1.5]
    assert codes(values(ev, "F", 7)) == [16, 0, 1, 9, "#VALUE!", "#N/A", 6.25]
    d8 = ev.cells[("S", "D8")]
    assert d8.reason == "division by zero in this formula"
    c7 = ev.cells[("S", "C7")]
    assert c7.reason == "propagated from S!A7: an error value typed into the cell"


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_power_and_overflow_follow_excel(tmp_path):
    a = [0.1, -8, 0, 10, 2]
    b = [2, 1 / 3, -1, 400, 0.5]
    p = book(tmp_path, {"A": a, "B": b}, {"C": "=A{r}^B{r}", "D": "=POWER(A{r},B{r})"}, 5)
    ev = run_blocks(p)
    c = values(ev, "C", 5)
    assert c[0] == 0.1 ** 2 and c[4] == 2 ** 0.5
    # Excel: no real result, 0 to a negative power, overflow (as its POWER)
    assert codes(c[1:4]) == ["#NUM!", "#DIV/0!", "#NUM!"]
    assert ev.cells[("S", "C4")].reason == "division by zero in this formula"
    d = values(ev, "D", 5)
    assert d[0] == float(np.power(0.1, 2.0))
    assert codes(d[1:4]) == ["#NUM!", "#DIV/0!", "#NUM!"]


def test_comparisons_order_numbers_text_booleans(tmp_path):
    a = [1, "a", "abc", None, None, 2, True]
    b = ["a", True, "ABC", 0, "", 2, 1]
    p = book(tmp_path, {"A": a, "B": b}, {"C": "=A{r}<B{r}", "D": "=A{r}=B{r}",
                                          "E": "=A{r}>=B{r}"}, 7)
    ev = run_blocks(p)
    # numbers < text < booleans; text compares without case; blank is 0 or ""
    assert values(ev, "C", 7) == [True, True, False, False, False, False, False]
    assert values(ev, "D", 7) == [False, False, True, True, True, True, False]
    assert values(ev, "E", 7) == [False, False, True, True, True, True, True]


def test_concatenation_spells_values_as_excel(tmp_path):
    a = [1, 2.5, True, None, "x", 1e20, 1 / 3]
    p = book(tmp_path, {"A": a}, {"B": '=A{r}&"|"', "C": '=(A{r}>0)&""'}, 7)
    ev = run_blocks(p)
    # Excel: 15 significant digits, scientific from 1E+15 on, TRUE in capitals
    assert values(ev, "B", 7) == ["1|", "2.5|", "TRUE|", "|", "x|", "1E+20|",
                                  "0.333333333333333|"]
    assert values(ev, "C", 6)[:3] == ["TRUE", "TRUE", "TRUE"]


# ----------------------------------------------------------------- logic


def test_if_iferror_ifna_and_or_not(tmp_path):
    a = [1, 0, None, "t", "#N/A", "#DIV/0!"]
    p = book(tmp_path, {"A": a}, {
        "B": '=IF(A{r},"yes","no")',
        "C": "=IF(A{r}>0,A{r})",
        "D": "=IFERROR(1/A{r},-1)",
        "E": '=_xlfn.IFNA(A{r},"missing")',
        "F": "=AND(A{r},TRUE)",
        "G": "=OR(A{r},FALSE)",
        "H": "=NOT(A{r})",
    }, 6)
    ev = run_blocks(p)
    assert codes(values(ev, "B", 6)) == ["yes", "no", "no", "#VALUE!", "#N/A", "#DIV/0!"]
    # no else branch: FALSE; text > 0 is TRUE (text sorts after numbers)
    assert codes(values(ev, "C", 6)) == [1, False, False, "t", "#N/A", "#DIV/0!"]
    assert values(ev, "D", 6) == [1, -1, -1, -1, -1, -1]
    assert codes(values(ev, "E", 6)) == [1, 0, 0, "t", "missing", "#DIV/0!"]
    assert codes(values(ev, "F", 6)) == [True, False, True, True, "#N/A", "#DIV/0!"]
    # a blank or text cell is left out; the literal FALSE remains
    assert codes(values(ev, "G", 6)) == [True, False, False, False, "#N/A", "#DIV/0!"]
    assert codes(values(ev, "H", 6)) == [False, True, True, "#VALUE!", "#N/A", "#DIV/0!"]


# ------------------------------------------------------------ reductions


def test_reductions_over_cells_and_ranges(tmp_path):
    a = [1, 2, None, 4]
    b = [10, "x", 3, True]
    c = [100, 200, 300, 400]
    p = book(tmp_path, {"A": a, "B": b, "C": c}, {
        "D": "=SUM(A{r}:C{r})",
        "E": "=MAX(A{r},B{r})",
        "F": "=MIN($C$2:$C$5,A{r})",
        "G": "=AVERAGE(A{r}:C{r})",
        "H": "=PRODUCT(A{r},2)",
    }, 4)
    ev = run_blocks(p)
    # in a range, text and booleans are skipped (formulas: numeric text counts)
    assert values(ev, "D", 4) == [111, 202, 303, 404]
    assert values(ev, "E", 4) == [10, 2, 3, 4]  # a text or boolean cell is left out
    assert values(ev, "F", 4) == [1, 2, 100, 4]  # a blank cell is left out too
    assert values(ev, "G", 4) == [37, 101, 151.5, 202]
    assert values(ev, "H", 4) == [2, 4, 2, 8]


def test_reduction_sums_in_numpys_order(tmp_path):
    """SUM over a long range gives numpy's pairwise sum, bit for bit."""
    rng = np.random.default_rng(7)
    cols = {c: list(rng.normal(size=6) * 10.0 ** rng.integers(-8, 8, size=6))
            for c in "ABCDEFGHIJ"}
    p = book(tmp_path, cols, {"K": "=SUM(A{r}:J{r})", "L": "=AVERAGE(A{r}:J{r})"}, 6)
    ev = run_blocks(p)
    ws = openpyxl.load_workbook(p)["S"]  # the numbers as stored: the doubles written
    m = np.array([[float(ws[f"{c}{r}"].value) for c in "ABCDEFGHIJ"]
                  for r in range(2, 8)])
    assert values(ev, "K", 6) == [float(np.sum(row)) for row in m]
    assert values(ev, "L", 6) == [float(np.mean(row)) for row in m]


# ---------------------------------------------------------------- math


def test_rounding_and_math_functions(tmp_path):
    a = [2.345, -2.345, 0.5, 9, -1, 100]
    p = book(tmp_path, {"A": a}, {
        "B": "=ROUND(A{r},2)", "C": "=ROUNDUP(A{r},1)", "D": "=ROUNDDOWN(A{r},0)",
        "E": "=CEILING(A{r},0.5)", "F": "=FLOOR(A{r},2)", "G": "=ABS(A{r})",
        "H": "=SQRT(A{r})", "I": "=LN(A{r})", "J": "=LOG(A{r})", "K": "=EXP(A{r}/100)",
        "L": "=LOG(A{r},2)",
    }, 6)
    ev = run_blocks(p)
    assert values(ev, "B", 6) == [2.35, -2.35, 0.5, 9, -1, 100]  # half away from zero
    assert values(ev, "C", 6) == [2.4, -2.4, 0.5, 9, -1, 100]
    assert values(ev, "D", 6) == [2, -2, 0, 9, -1, 100]
    assert codes(values(ev, "E", 6)) == [2.5, -2.0, 0.5, 9, -1, 100]
    assert values(ev, "F", 6) == [2, -4, 0, 8, -2, 100]
    assert values(ev, "G", 6) == [2.345, 2.345, 0.5, 9, 1, 100]
    h = codes(values(ev, "H", 6))
    assert h[3] == 3 and h[1] == "#NUM!" and h[4] == "#NUM!"
    assert ev.cells[("S", "H3")].reason == "invalid numeric value in this formula"
    assert codes(values(ev, "I", 6))[3] == math.log(9)
    assert values(ev, "J", 6)[5] == float(np.log(100) / np.log(10))
    assert values(ev, "K", 6)[5] == float(np.exp(1.0))
    assert values(ev, "L", 6)[3] == float(np.log(9) / np.log(2))


# --------------------------------------------------------------- lookups


def _lookup_sheet(wb):
    ws = wb["S"]
    for i, (k, v, w) in enumerate([("H100", 989, 3.35), ("TPU v5e", 197, 0.81),
                                   ("B200", 2250, 8.0)], start=2):
        ws[f"H{i}"], ws[f"I{i}"], ws[f"J{i}"] = k, v, w
    wb.defined_names["Specs"] = DefinedName("Specs", attr_text="S!$H$2:$J$4")


def test_index_match_vlookup_hlookup_xlookup(tmp_path):
    chips = ["B200", "h100", "TPU v5e", "B900", None]
    p = book(tmp_path, {"A": chips}, {
        "B": "=INDEX($H$2:$J$4,MATCH(A{r},$H$2:$H$4,0),2)",
        "C": "=VLOOKUP(A{r},Specs,3,FALSE)",
        "D": "=_xlfn.XLOOKUP(A{r},$H$2:$H$4,$I$2:$I$4,-1)",
        "E": "=MATCH(A{r},$H$2:$H$4,0)",
        "F": "=HLOOKUP(\"I\",$I$1:$J$4,2,FALSE)",
        "G": "=INDEX($I$2:$I$4,E{r})",
    }, 5, extra=_lookup_sheet)
    ev = run_blocks(p)
    # exact match ignores case; a blank lookup value finds nothing
    assert codes(values(ev, "B", 5)) == [2250, 989, 197, "#N/A", "#N/A"]
    assert codes(values(ev, "C", 5)) == [8.0, 3.35, 0.81, "#N/A", "#N/A"]
    assert codes(values(ev, "D", 5)) == [2250, 989, 197, -1, -1]
    assert codes(values(ev, "E", 5)) == [3, 1, 2, "#N/A", "#N/A"]
    assert codes(values(ev, "F", 5)) == ["#N/A"] * 5  # no header "I" in row 1
    assert codes(values(ev, "G", 5)) == [2250, 989, 197, "#N/A", "#N/A"]
    g5 = ev.cells[("S", "G5")]
    assert g5.reason.startswith("propagated from S!E5: ")


def test_index_positions(tmp_path):
    rows = [1, 2, 0, 4, -1, 2.9, True]
    p = book(tmp_path, {"A": rows}, {"B": "=INDEX($H$2:$H$4,A{r})",
                                     "C": "=INDEX($H$2:$J$4,2,A{r})"}, 7,
             extra=_lookup_sheet)
    ev = run_blocks(p)
    # 0 is the first element (formulas), past the end #REF!, below 0 #VALUE!, 2.9 -> 2
    assert codes(values(ev, "B", 7)) == ["H100", "TPU v5e", "H100", "#REF!", "#VALUE!",
                                         "TPU v5e", "H100"]
    assert codes(values(ev, "C", 7)) == ["TPU v5e", 197, "TPU v5e", "#REF!", "#VALUE!",
                                         197, "TPU v5e"]


# --------------------------------------------------------- our functions


def _chips(wb):
    ws = wb.create_sheet("Chips")
    ws.append(["chip", "bf16_flops", "hbm_bw", "ici_bw", "fp4_flops"])
    ws.append(["H100", 9.89e14, 3.35e12, 4.5e11, None])
    ws.append(["TPU v5e", 1.97e14, 8.1e11, 4.5e10, None])
    wb.defined_names["Chips"] = DefinedName("Chips", attr_text="Chips!$A$1:$E$3")


def test_rooflinexl_functions_in_blocks_keep_reasons(tmp_path):
    chips = ["H100", "H100", "TPU v5e", "B900", None, "H100", "H100"]
    d = [8192, 4096, 4096, 8192, 8192, "x", True]
    p = book(tmp_path, {"A": chips, "B": d}, {
        "C": "=CRIT_BATCH(Chips,A{r},B{r},B{r})",
        "D": '=CRIT_BATCH(Chips,A{r},,,"fp4")',
        "E": "=C{r}*2",
    }, 7, extra=_chips)
    ev = run_blocks(p)
    c = codes(values(ev, "C", 7))
    assert c[0] == pytest.approx(318.155, abs=1e-3)  # DESIGN.md section 3
    assert c[1] == pytest.approx(344.95, abs=1e-2)
    assert c[3:] == ["#N/A", "#N/A", "#VALUE!", "#VALUE!"]
    cells = evaluate_workbook(p, FUNCTIONS).cells
    for r in range(2, 9):
        for col in "CDE":
            key = ("S", f"{col}{r}")
            assert ev.cells[key].value == cells[key].value
            assert ev.cells[key].reason == cells[key].reason, key
    assert "B900" in ev.cells[("S", "C5")].reason
    assert ev.cells[("S", "D2")].reason == "H100 has no fp4_flops"
    assert ev.cells[("S", "E5")].reason.startswith("propagated from S!C5: unknown chip")


def test_matmul_time_block_equals_its_native_twin(tmp_path):
    from recalc_plan import make_plan

    p = make_plan(tmp_path / "plan.xlsx", 200)
    twin = make_plan(tmp_path / "twin.xlsx", 200, twin=True)
    ev, tw = run_blocks(p, 800, compare=False), run_blocks(twin, 800, compare=False)
    for r in range(2, 202):
        assert ev.value("Plan", f"H{r}") == pytest.approx(tw.value("Plan", f"H{r}"),
                                                          rel=1e-12)


# ------------------------------------------------ grouping, tables, shared


def test_blocks_are_contiguous_runs_of_one_relative_formula(tmp_path):
    def extra(wb):
        ws = wb["S"]
        ws["B6"] = "=A6*3"  # breaks the run of =A{r}*2
        ws["B11"] = 5  # a constant in the column

    p = book(tmp_path, {"A": list(range(1, 13))}, {"B": "=A{r}*2"}, 12, extra=extra)
    ev = evaluate_blocks(p, FUNCTIONS)
    # B2:B5, B6, B7:B10, B12 (B11 holds a constant, not a formula)
    assert ev.paths.blocks == 4 and ev.paths.block_cells == 11
    assert ev.value("S", "B6") == 15 and ev.value("S", "B12") == 22
    assert ("S", "B11") not in ev.cells


def test_table_row_references_become_row_vectors(tmp_path):
    def extra(wb):
        ws = wb["S"]
        ws["A1"], ws["B1"], ws["C1"] = "x", "y", "z"
        ws.add_table(Table(displayName="T", ref="A1:C6"))

    p = book(tmp_path, {"A": [1, 2, 3, 4, 5], "B": [10, 20, 30, 40, 50]},
             {"C": "=[@x]*T[@y]+SUM(T[x])"}, 5, extra=extra)
    ev = run_blocks(p, 5)
    assert values(ev, "C", 5) == [25, 55, 105, 175, 265]
    cells = evaluate_workbook(p, FUNCTIONS)
    assert ev.rewrites == cells.rewrites
    assert ev.rewrites[("S", "C4")] == ("=[@x]*T[@y]+SUM(T[x])",
                                       "='S'!$A$4*'S'!$B$4+SUM('S'!$A$2:$A$6)")


def test_shared_formulas_from_excel_are_blocks(tmp_path):
    import test_blocks_differential as diff

    src = Path(__file__).resolve().parent / "data" / "excel-saved" / "shared_formula_bench.xlsx"
    ev = run_blocks(src, 100)
    assert ev.paths.blocks == 1
    cells = evaluate_workbook(src, FUNCTIONS)
    assert [c.formula for c in ev.cells.values()] == [c.formula for c in cells.cells.values()]
    assert [c.value for c in ev.cells.values()] == [c.value for c in cells.cells.values()]
    p = book(tmp_path, {"A": [1, 2, 3, 4]}, {"B": "=A{r}*2+$A$2", "C": "=B{r}-1"}, 4)
    diff._share(p, ["B", "C"], range(2, 6))
    ev = run_blocks(p, 8)
    assert ev.paths.blocks == 2
    assert values(ev, "B", 4) == [3, 5, 7, 9]
    assert ev.cells[("S", "C5")].formula == "=B5-1"


# ------------------------------------------------------------- fallback


def test_running_totals_and_reference_functions_are_blocks(tmp_path):
    def extra(wb):
        ws = wb["S"]
        ws["D2"] = "=A2"
        for r in range(3, 7):
            ws[f"D{r}"] = f"=D{r - 1}+A{r}"  # a running total reads its own column

    p = book(tmp_path, {"A": [1, 2, 3, 4, 5]}, {
        "B": "=A{r}*10",
        "C": "=AREAS($A$2:$A$6)*5-2+B{r}",  # reads a reference, not its values
        "E": "=C{r}+D{r}",
    }, 5, extra=extra)
    ev = evaluate_blocks(p, FUNCTIONS)
    assert values(ev, "C", 5) == [13, 23, 33, 43, 53]
    assert values(ev, "D", 5) == [1, 3, 6, 10, 15]
    assert values(ev, "E", 5) == [14, 26, 39, 53, 68]
    assert ev.paths.block_cells == 20  # B, C, D2, D3:D6 (row by row, top down), E
    assert ev.paths.unsupported_cells == 0
    assert ev.paths.summary() == "block: 20 cells in 5 blocks; not supported: 0"


def test_cells_downstream_of_a_cycle_are_not_computed(tmp_path):
    def extra(wb):
        wb["S"]["D1"], wb["S"]["D2"] = "=D2+1", "=D1+1"

    p = book(tmp_path, {"A": [1, 2, 3]}, {"B": "=IFERROR($D$2,0)+A{r}"}, 3, extra=extra)
    ev = evaluate_blocks(p, FUNCTIONS)
    cells = evaluate_workbook(p, FUNCTIONS)
    for key, c in cells.cells.items():
        assert ev.cells[key].value == c.value
        if key not in (("S", "D1"), ("S", "D2")):
            assert ev.cells[key].reason == c.reason
    # the cells on the circle: named (the per-cell engine cannot name it)
    circle = "circular reference: S!D1 -> S!D2 -> S!D1"
    assert ev.cells[("S", "D1")].reason == ev.cells[("S", "D2")].reason == circle
    assert ev.cells[("S", "B2")].reason == "not computed: a circular reference, or depends on one"


# ------------------------------------------------------------ end to end


def test_ten_thousand_row_plan_is_fast_and_right(tmp_path):
    from recalc_plan import make_plan

    p = make_plan(tmp_path / "plan.xlsx", 10_000)
    t = time.perf_counter()
    result = recalc_book(p, tmp_path / "out.xlsx")
    seconds = time.perf_counter() - t
    ev = result.evaluation
    assert ev.paths.summary() == "block: 40,000 cells in 4 blocks; not supported: 0"
    assert result.exit_code == 0
    assert seconds < 15  # about 1 s on the 2-core CI machine; generous for noise
    wb = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True, read_only=True)
    table = [list(r) for r in wb["Chips"].iter_rows(values_only=True)]
    head = table[0]
    peak = {r[0]: r[head.index("bf16_flops")] for r in table[1:]}
    bw = {r[0]: r[head.index("hbm_bw")] for r in table[1:]}
    for row in wb["Plan"].iter_rows(min_row=2, max_row=10_001, values_only=True):
        chip, b, d, f, e_, f_, g_, h_ = row
        assert e_ == peak[chip] and f_ == bw[chip]
        t_math = 2 * b * d * f / peak[chip]
        t_hbm = (2 * b * d + 2 * d * f + 2 * b * f) / bw[chip]
        assert h_ == pytest.approx(max(t_math, t_hbm), rel=1e-12)
    assert "block: 40,000 cells in 4 blocks; not supported: 0" in result.report()


def test_engine_option_and_environment_variable(tmp_path, monkeypatch):
    p = book(tmp_path, {"A": [1, 2, 3]}, {"B": "=A{r}*2"}, 3)
    out = tmp_path / "o.xlsx"
    res = CliRunner().invoke(main, ["recalc", str(p), "-o", str(out), "--engine", "cells"])
    assert res.exit_code == 0, res.output
    # a cell is a block of one row
    assert "block: 3 cells in 3 blocks; not supported: 0" in res.output
    assert "ROOFLINEXL_RECALC_ENGINE" not in os.environ
    res = CliRunner().invoke(main, ["recalc", str(p), "-o", str(out)])
    assert "block: 3 cells in 1 blocks; not supported: 0" in res.output
    q = book(tmp_path, {"A": [1, 2, 3]}, {"B": '=CONCAT((A{r},A{r}))'}, 3, name="c.xlsx")
    res = CliRunner().invoke(main, ["recalc", str(q), "-o", str(out), "--engine", "blocks"])
    assert res.exit_code == 2
    assert ("3 formula cells are not supported by the engine (S!B2: a union of "
            "references outside AREAS, ISREF, SUM ...; S!B3") in res.output
    monkeypatch.setenv("ROOFLINEXL_RECALC_ENGINE", "cells")
    assert recalc_book(p, None, write=False).evaluation.paths.blocks == 3
    with pytest.raises(ValueError):
        recalc_book(p, None, write=False, engine="fast")


def test_index_row_or_column_zero_in_an_array_formula_is_the_whole_row_or_column(tmp_path):
    """pycel's lookup.xlsx (saved by Excel), sheet Index: {=INDEX($B$2:$F$6,2,0)} over
    J13:N13, {=INDEX($B$2:$F$6,0,2)} over E18:E22 and {=INDEX($B$2:$F$6,0,0)} over J18:N22;
    the values below are Excel's cached ones (Microsoft: "If you set row_num or column_num
    to 0, INDEX returns the array of values for the entire column or row")."""
    from openpyxl.worksheet.formula import ArrayFormula

    grid = [[1, 2, 3, 4, 5], [6, "X", 8, 9, 10], [11, 12, 13, 14, 15],
            [16, 17, 18, 19, 20], [21, 22, 23, 24, "25"]]
    wb = openpyxl.Workbook()
    ws = wb.active
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            ws.cell(2 + i, 2 + j, v)
    ws["B13"], ws["B18"], ws["E10"], ws["J10"] = 2, 0, 2, 0
    ws["J13"] = ArrayFormula("J13:N13", "=INDEX($B$2:$F$6,$B13,J$10)")
    ws["E18"] = ArrayFormula("E18:E22", "=INDEX($B$2:$F$6,$B18,E$10)")
    ws["J18"] = ArrayFormula("J18:N22", "=INDEX($B$2:$F$6,$B18,J$10)")
    p = tmp_path / "index0.xlsx"
    wb.save(p)
    excel = {"J13": 6, "K13": "X", "L13": 8, "M13": 9, "N13": 10,
             "E18": 2, "E19": "X", "E20": 12, "E21": 17, "E22": 22,
             "J18": 1, "N18": 5, "K19": "X", "N22": "25", "J22": 21, "M21": 19}
    cells = recalc_book(p, write=False).evaluation.cells
    assert {a: cells["Sheet", a].value for a in excel} == excel


def test_empty_text_from_a_formula_is_no_empty_cell_on_the_per_cell_path(tmp_path):
    """IronCalc's COUNTIF.xlsx (saved by Excel), sheet Rows: Y2:Y8 = #N/A, 12, #DIV/0!,
    text, 0, ="", =""; Z5:Z8 = ""; Excel's cached COUNTIF($Y$2:$Y$8, CONCAT("<>", Z5))
    filled down AB5:AB8 is 7 (every cell but none is blank; "" is text)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    for r, v in enumerate(["=NA()", 12, "=1/0", "x", 0, '=""', '=""'], start=2):
        ws[f"Y{r}"] = v
    for r in range(5, 9):
        ws[f"Z{r}"] = '=""'
        ws[f"AB{r}"] = f'=COUNTIF($Y$2:$Y$8,_xlfn.CONCAT("<>",Z{r}))'
    p = tmp_path / "emptytext.xlsx"
    wb.save(p)
    cells = recalc_book(p, write=False).evaluation.cells
    assert [cells["Sheet", f"AB{r}"].value for r in range(5, 9)] == [7, 7, 7, 7]


def test_control_characters_from_a_block_reach_the_per_cell_path(tmp_path):
    """CHAR(7) computed on the block path and read by a per-cell formula (formulas'
    test.xlsx crashed here: openpyxl refuses the character as a constant). Excel: CODE of
    CHAR(n) is n, LEN counts the character (Microsoft's CHAR and CODE pages)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = '=CHAR(7)&"a""b"'
    ws["B1"] = "=CODE(A1)"
    ws["C1"] = "=LEN(A1)"
    ws["D1"] = "=ISFORMULA(A1)"  # per cell
    ws["E1"] = "=CODE(INDIRECT(\"A1\"))"  # per cell
    p = tmp_path / "ctrl.xlsx"
    wb.save(p)
    cells = recalc_book(p, write=False).evaluation.cells
    assert cells["Sheet", "E1"].value == 7
    assert cells["Sheet", "C1"].value == 4
