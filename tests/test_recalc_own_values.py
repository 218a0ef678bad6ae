"""The engine's own value types and operators: the block path without ``formulas``.

Recalculating a workbook whose functions are all the engine's own imports neither
``formulas`` nor ``schedula`` (checked in a fresh interpreter); the operators follow
Excel's documented rules (Microsoft, "Calculation operators and precedence in Excel",
"Using calculation operators in Excel formulas", read 2026-12-01) on both paths; array
constants are read as Excel writes them (Microsoft, "Use array constants in array
formulas").
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

from rooflinexl.recalc import operators as op
from rooflinexl.recalc.compile import Unsupported, array_constant
from rooflinexl.recalc.values import BLANK, ERRORS, Array

ROOT = Path(__file__).resolve().parents[1]


def test_plan_recalculates_without_formulas(tmp_path):
    """benchmarks/recalc_plan.py's plan (INDEX/MATCH over a table, arithmetic, MATMUL_TIME)
    recalculated through the CLI in a fresh interpreter: formulas and schedula never
    imported; the arithmetic-intensity column is the hand formula 2BCD/(2BC+2CD+2BD)."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT / "benchmarks")!r})
        from recalc_plan import make_plan
        make_plan({str(tmp_path / "plan.xlsx")!r}, 50)
        from rooflinexl.cli import main
        try:
            main(["recalc", {str(tmp_path / "plan.xlsx")!r}, "-o",
                  {str(tmp_path / "out.xlsx")!r}])
        except SystemExit as ex:
            assert not ex.code, ex.code
        print("LOADED", sorted(m for m in ("formulas", "schedula") if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert "LOADED []" in out.stdout, out.stdout
    wb = openpyxl.load_workbook(tmp_path / "out.xlsx", data_only=True)
    chips = [[c.value for c in row] for row in wb["Chips"].iter_rows()]
    j = chips[0].index("bf16_flops")
    peak = {row[0]: row[j] for row in chips[1:]}
    ws = wb["Plan"]
    for r in (2, 17, 51):
        b, c, d = (ws.cell(r, k).value for k in (2, 3, 4))
        want = 2 * b * c * d / (2 * b * c + 2 * c * d + 2 * b * d)
        assert ws.cell(r, 7).value == pytest.approx(want, rel=1e-12)
        assert ws.cell(r, 5).value == peak[ws.cell(r, 1).value]  # INDEX/MATCH: its row


# Excel's answers, from Microsoft's operator pages and the rules they state
CASES = {
    "=0^-1": "#DIV/0!",          # Microsoft, "POWER function" / operator ^: 0 to a negative
    "=0^0": "#NUM!",
    "=(-8)^0.5": "#NUM!",
    "=2^10": 1024.0,
    "=1/0": "#DIV/0!",
    '="3"+1': 4.0,              # numeric text converts ("Using calculation operators")
    '="x"+1': "#VALUE!",        # text that is no number: #VALUE!
    "=TRUE+1": 2.0,
    '="a"&TRUE': "aTRUE",       # & writes a boolean as TRUE
    '=1.5&"x"': "1.5x",
    '="a"="A"': True,           # text compares case-insensitively
    '="b">"A"': True,
    '=1<"a"': True,             # numbers < text < booleans
    '="z"<TRUE': True,
    "=FALSE>100": True,
    "=NA()+1/0": "#N/A",        # the left operand's error first
    "=1/0&NA()": "#DIV/0!",
    "=-TRUE": -1.0,
    "=50%": 0.5,
    # an empty cell (Z99) compares as the other side's kind of nothing: FALSE, "" or 0
    # (Excel's cached value of =FALSE=D7, D7 empty, in Apache POI's FormulaEvalTestData
    # workbook saved by Excel: TRUE; also "Oh You False Empty Cell", yoursumbuddy.com)
    "=Z99=FALSE": True,
    "=Z99<>FALSE": False,
    "=Z99>=FALSE": True,
    "=Z99<TRUE": True,
    '=Z99=""': True,
    "=Z99=0": True,
    "=Z99=Z98": True,
    "=SUM({1,2;3,4})": 10.0,    # an array constant
    '=INDEX({1,"b";TRUE,-2.5},2,2)': -2.5,
}


@pytest.mark.parametrize("engine", ENGINES)
def test_operators_as_excel(tmp_path, engine):
    wb = openpyxl.Workbook()
    cells, evs = evaluate_cases(wb, wb.active, "A", CASES, tmp_path, engines=(engine,))
    ev = evs[engine]
    bad = [(f, ev.cells[("Sheet", c)].value, CASES[f]) for f, c in cells.items()
           if not matches_excel(ev.cells[("Sheet", c)].value, CASES[f])]
    assert not bad


def test_filled_down_operators_on_mixed_values(tmp_path):
    """A block over rows of every kind of value: the rows that are not plain numbers
    take the own operators (Excel's rules, as in CASES), the others the numpy path."""
    from rooflinexl.recalc.blocks import evaluate_blocks

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    a = [2, "3", True, None, "x", "#DIV/0!", "abc"]
    b = [4, 1, 1, 5, 1, 1, "ABC"]
    for r, (x, y) in enumerate(zip(a, b, strict=True), start=1):
        ws.cell(r, 1).value = x
        ws.cell(r, 2).value = y
        if x == "#DIV/0!":
            ws.cell(r, 1).data_type = "e"
        ws.cell(r, 3).value = f"=A{r}+B{r}"
        ws.cell(r, 4).value = f"=A{r}=B{r}"
        ws.cell(r, 5).value = f"=A{r}&B{r}"
    wb.save(tmp_path / "m.xlsx")
    ev = evaluate_blocks(tmp_path / "m.xlsx", {})
    got = [[ev.cells[("S", f"{c}{r}")].value for c in "CDE"] for r in range(1, 8)]
    want = [[6.0, False, "24"], [4.0, False, "31"], [2.0, False, "TRUE1"], [5.0, False, "5"],
            ["#VALUE!", False, "x1"], ["#DIV/0!", "#DIV/0!", "#DIV/0!"],
            ["#VALUE!", True, "abcABC"]]
    for g_row, w_row in zip(got, want, strict=True):
        for g, w in zip(g_row, w_row, strict=True):
            assert matches_excel(g, w), (got, want)


def test_operators_over_arrays():
    """Element by element with numpy broadcasting; an error stays in its element."""
    x = np.array([[1.0, "2"], [BLANK, ERRORS["#N/A"]]], dtype=object).view(Array)
    out = op.apply(op.add, x, 1.0)
    assert isinstance(out, Array)
    assert out.tolist() == [[2.0, 3.0], [1.0, "#N/A"]]
    assert out[1, 1] is ERRORS["#N/A"]
    assert op.apply(op.concat, "a", BLANK) == "a"


def test_array_constants():
    assert array_constant('{1,2;"a""b",FALSE}').tolist() == [[1, 2], ['a"b', False]]
    assert array_constant("{-1.5,#DIV/0!,50%}")[0, 1] is ERRORS["#DIV/0!"]
    assert array_constant("{1E3}").tolist() == [[1000.0]]
    with pytest.raises(Unsupported):
        array_constant("{1,2;3}")  # rows of different lengths: Excel refuses it
    with pytest.raises(Unsupported):
        array_constant("{A1}")  # a reference is no constant


def test_match_filled_down(tmp_path):
    """MATCH over a fixed column for every row (Microsoft, "MATCH function": 0 the first
    equal value, text case-insensitive, no match #N/A; 1 the largest value not above the
    lookup value in ascending data; an error lookup value is the result)."""
    from rooflinexl.recalc.blocks import evaluate_blocks

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    table = [10, 20, "b", "A", True, 30]
    for r, x in enumerate(table, start=1):
        ws.cell(r, 1).value = x
    looks = [20, "a", "B", 25, True, "zz", 5, "#N/A"]
    for r, x in enumerate(looks, start=1):
        ws.cell(r, 3).value = x
        ws.cell(r, 4).value = f"=MATCH(C{r},$A$1:$A$6,0)"
        ws.cell(r, 5).value = f"=MATCH(C{r},$A$1:$A$2)"
    wb.save(tmp_path / "m.xlsx")
    ev = evaluate_blocks(tmp_path / "m.xlsx", {})
    exact = [2.0, 4.0, 3.0, "#N/A", 5.0, "#N/A", "#N/A", "#N/A"]
    approx = [2.0, "#N/A", "#N/A", 2.0, "#N/A", "#N/A", "#N/A", "#N/A"]
    for r in range(1, 9):
        assert matches_excel(ev.cells[("S", f"D{r}")].value, exact[r - 1]), r
        assert matches_excel(ev.cells[("S", f"E{r}")].value, approx[r - 1]), r

