"""The functions the block and array evaluators took from ``formulas`` are our own
(issue 13 item 1): CEILING, FLOOR, RANDBETWEEN, TEXT (conditions, placeholders among
literals), TRIMRANGE, AND, OR, INDEX at array positions, ABS ... -- and the block path runs
with ``formulas`` made unimportable.

Expected values: Excel's cached values in the `formulas` project's test.xlsx (saved by
Excel; the sheet and cells named at each case, their input rows copied here) and
Microsoft's function pages (read 2026-12-02): "CEILING function" (``CEILING(2.5, 1)`` 3,
``CEILING(-2.5, 2)`` -2, ``CEILING(-2.5, -2)`` -4, ``CEILING(1.5, 0.1)`` 1.5), "FLOOR
function" (``FLOOR(3.7, 2)`` 2, ``FLOOR(-2.5, -2)`` -2, ``FLOOR(2.5, -2)`` #NUM!,
``FLOOR(1.58, 0.1)`` 1.5), "MOD function" (``MOD(3, 2)`` 1, ``MOD(-3, 2)`` 1, ``MOD(3,
-2)`` -1), "INT function" (``INT(-8.9)`` -9), "POWER function" (``POWER(5, 2)`` 25),
"SQRT function" (``SQRT(-16)`` #NUM!, ``ABS(-16)`` 16), "Implicit intersection operator: @"
(``_xlfn.SINGLE``: a range's cell in the formula's row or column, else #VALUE!).
"""
from __future__ import annotations

import json
import subprocess
import sys

import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula

from rooflinexl.errors import ExcelError
from rooflinexl.recalc.blocks import evaluate_blocks

#: the input cells C..Q of test.xlsx's rows (K.. the error values, made by formulas here)
_ERRORS = {"K": '="a"+1', "L": "=NA()", "M": "=1/0", "P": "=SQRT(-1)", "Q": "=#REF!"}


def _inputs(ws, row: int, values: list) -> None:
    for col, v in zip("CDEFGHIJ", values, strict=True):
        if v is not None:
            ws[f"{col}{row}"] = v
    for col, f in _ERRORS.items():
        ws[f"{col}{row}"] = f


#: test.xlsx, COMPATIBILITY!R6:AF6 (CEILING) and R16:AF16 (FLOOR), the inputs C..J
CEILING_ROW = [2.5, -255.5, -2.5, 5, 0.234, None, "ciao", True]
FLOOR_ROW = [2.5, -255.5, -2.5, 1.5, 0.234, None, "ciao", True]
CEILING = {"=CEILING(C6,1)": 3, "=CEILING(D6,-2)": -256, "=CEILING(E6,2)": -2,
           "=CEILING(F6,0)": 0, "=CEILING(G6,0.01)": 0.24, "=CEILING(H6,-2)": 0,
           "=CEILING(I6,0)": "#VALUE!", "=CEILING(J6,0)": 0, "=CEILING(2.3,K6)": "#VALUE!",
           "=CEILING(2.3,L6)": "#N/A", "=CEILING(2.3,M6)": "#DIV/0!",
           "=CEILING(2.3,P6)": "#NUM!", "=CEILING(2.3,Q6)": "#REF!",
           # Microsoft's examples
           "=CEILING(-2.5,-2)": -4, "=CEILING(1.5,0.1)": 1.5}
FLOOR = {"=FLOOR(C16,1)": 2, "=FLOOR(D16,-2)": -254, "=FLOOR(E16,2)": -4,
         "=FLOOR(F16,0)": "#DIV/0!", "=FLOOR(G16,0.01)": 0.23, "=FLOOR(H16,-2)": 0,
         "=FLOOR(I16,0)": "#VALUE!", "=FLOOR(J16,0)": "#DIV/0!", "=FLOOR(2.3,K16)": "#VALUE!",
         "=FLOOR(2.3,L16)": "#N/A", "=FLOOR(2.3,P16)": "#NUM!",
         # Microsoft's examples
         "=FLOOR(3.7,2)": 2, "=FLOOR(-2.5,-2)": -2, "=FLOOR(2.5,-2)": "#NUM!",
         "=FLOOR(1.58,0.1)": pytest.approx(1.5, abs=1e-12)}
#: test.xlsx, MATH & TRIG!S57:AA57 (the bounds C..J: 1, 4, 4, -5, -3, empty, ciao, TRUE)
RANDBETWEEN_ROW = [1, 4, 4, -5, -3, None, "ciao", True]
RANDBETWEEN = {"=RANDBETWEEN(D57,E57)": 4, "=RANDBETWEEN(E57,F57)": "#NUM!",
               "=RANDBETWEEN(H57,H57)": 0, "=RANDBETWEEN(H57,I57)": "#VALUE!",
               "=RANDBETWEEN(G57,J57)": "#VALUE!", "=RANDBETWEEN(J57,K57)": "#VALUE!",
               "=RANDBETWEEN(L57,M57)": "#N/A"}
#: test.xlsx, LOGICAL!R3:AT3 (AND) and R21:Y21 (OR)
AND_ROW = [0, 1, 2.3, 0, -1, None, "0", False]
OR_ROW = [0, 1, 2.3, 0, -1, None, "ciao", True]
LOGICAL = {"=AND(C3,TRUE)": False, "=AND(D3,TRUE)": True, "=AND(E3,TRUE)": True,
           "=AND(G3,TRUE)": True, "=AND(H3,TRUE)": True, "=AND(I3,TRUE)": True,
           "=AND(J3,TRUE)": False, "=AND(K3,TRUE)": "#VALUE!", "=AND(L3,TRUE)": "#N/A",
           "=AND(Q3,TRUE)": "#REF!", "=AND(C3:D3,C3)": False,
           '=AND(TRUE,"0",#REF!)': "#REF!", '=AND(TRUE,#REF!,"0")': "#REF!",
           "=AND(H3:I3)": "#VALUE!", '=AND(TRUE,"ciao",#REF!,"0")': "#REF!",
           '=AND(TRUE,"0")': True,
           "=OR(C21,FALSE)": False, "=OR(D21,FALSE)": True, "=OR(H21,FALSE)": False,
           "=OR(I21,FALSE)": False, "=OR(J21,FALSE)": True, "=OR(L21,FALSE)": "#N/A",
           "=OR(C21:D21,C21)": True, '=OR(TRUE,"0",#REF!)': "#REF!"}
#: test.xlsx, sheet EXTRA, column A
TEXT = {'=TEXT(1.000000001,"00###.##.0000.00")': "001..0000.00",
        '=TEXT(1.23,"#""°F""""")': "#VALUE!",
        '=TEXT(1234567890,"0,## ##, ##")': "1,234,56 7,8 90",
        '=TEXT(1234567890,"+0,## ## ##")': "+1,234,56 7,8 90",
        '=TEXT(1234567890,"0,## ## ,##")': "1,234,56 7,8 ,90",
        '=TEXT(1000000.555,"0 .  # ,0.00.0,00")': "1000000 .  5 ,5.50.000",
        '=TEXT(1234567.555,"#,##000######## .  # ,0.00.0,00")': "00,01,234,567 .  5 ,5.50.000",
        '=TEXT(1000000.555,"##00,############# .  # ,0.00.0,00")': "001,000,000 .  5 ,5.50.000",
        '=TEXT(1234578.555,"#,##00000000####0### .  # ,0.00.0,00")':
            "0,000,000,01,234,578 .  5 ,5.50.000",
        '=TEXT(1234578.555,"#,##00000,  ,00 , 0########    .  # ,0.00.0,00")':
            "0,000,0  ,00, , 01,234,578    .  5 ,5.50.000",
        '=TEXT(1234578.555,"0cc###,00")': "1,2cc34,579",
        '=TEXT(1234578.555,"#,##00000,  ,00 , 0##e+8800######    .  # ,0.00.0,00")':
            "#VALUE!",
        '=TEXT(1,"[<=1]x;[<=2]a;b")': "x",
        '=TEXT(2,"[<=1]a;[=2]xx;xcx")': "xx",
        '=TEXT(3,"[<=1]a;[=2]aa;xxx")': "xxx",
        '=TEXT(1000000,"##,00.00")': "1,000,000.00"}
#: Microsoft's examples of the block table's mathematical functions
MATH = {"=MOD(3,2)": 1, "=MOD(-3,2)": 1, "=MOD(3,-2)": -1, "=MOD(-3,-2)": -1,
        "=MOD(3,0)": "#DIV/0!", "=INT(8.9)": 8, "=INT(-8.9)": -9, "=POWER(5,2)": 25,
        '=POWER("5",2)': 25, "=SQRT(-16)": "#NUM!", "=ABS(-16)": 16, '=ABS("-4")': 4,
        "=LOG(8,2)": 3, '=LN("x")': "#VALUE!",
        '=IF("x",1,2)': "#VALUE!", "=NOT(0)": True,
        # QUOTIENT (Microsoft's examples) and SERIESSUM (IronCalc's SERIESSUM.xlsx, saved
        # by Excel), functions no engine computed before
        "=QUOTIENT(5,2)": 2, "=QUOTIENT(4.5,3.1)": 1, "=QUOTIENT(-10,3)": -3,
        "=QUOTIENT(1,0)": "#DIV/0!",
        "=SERIESSUM(2,0,1,{1,2,3})": 17, "=SERIESSUM(0,0,2,{1,2,3})": "#NUM!",
        "=SERIESSUM(0.5,1,2,{2,2,2})": 1.3125, "=SERIESSUM(-1,0,2, {1,2,3})": 6,
        "=SERIESSUM(TRUE,0,1,{1,2,3})": "#VALUE!"}


def _book(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    rows = {6: CEILING_ROW, 16: FLOOR_ROW, 57: RANDBETWEEN_ROW, 3: AND_ROW, 21: OR_ROW}
    for row, values in rows.items():
        _inputs(ws, row, values)
    cells = {}
    for k, formula in enumerate({**CEILING, **FLOOR, **RANDBETWEEN, **LOGICAL, **TEXT,
                                 **MATH}, start=1):
        ws[f"Z{100 + k}"] = formula
        cells[formula] = f"Z{100 + k}"
    # test.xlsx, LOOKUP!C135:L139 and the TRIMRANGE array formulas of R135:AG139
    for r, values in {135: [None, 0], 136: [None, 1, None, 4, None, 5],
                      137: [None, None, 3, 4, None, 5], 138: [None, 2, None, None, 5]}.items():
        for col, v in zip("CDEFGH", values, strict=False):
            if v is not None:
                ws[f"{col}{r}"] = v
    ws["R135"] = ArrayFormula("R135:R138", "=_xlfn.TRIMRANGE(C135:D139,3,3)")
    ws["S135"] = ArrayFormula("S135:T139", "=_xlfn.TRIMRANGE(D135:E139,1,3)")
    ws["U135"] = ArrayFormula("U135:V138", "=_xlfn.TRIMRANGE(F135:G139,1,2)")
    ws["W135"] = ArrayFormula("W135", '=_xlfn.TRIMRANGE(F135:G139,"3.3",2)')
    ws["AG136"] = ArrayFormula("AG136", "=_xlfn.TRIMRANGE(K135:L139,3,3)")
    # test.xlsx, LOOKUP!C52:E54 and INDEX at array positions (AH52:AP54)
    for r, values in {52: [-1.1, 2.1, 3], 53: [-2, 1.1, 2], 54: [-2.9, 0.1, 1]}.items():
        for col, v in zip("CDE", values, strict=True):
            ws[f"{col}{r}"] = v
    ws["AH52"] = ArrayFormula("AH52:AH53", "=INDEX(C52:H54,E53:E54,1)")
    ws["AK52"] = ArrayFormula("AK52:AL54", "=INDEX({2,3;4,5},E52:E54)")
    ws["AO52"] = ArrayFormula("AO52:AP53", "=INDEX({2,3;4,5},{1,2})")
    ws["AN54"] = ArrayFormula("AN54:AO54", "=INDEX({2,3;4,5},{1})")
    # SINGLE, Excel's @ (Microsoft, "Implicit intersection operator: @": a range gives the
    # cell in the formula's row, #VALUE! where it has none; one cell is itself)
    for r, v in ((1, 10), (2, 20), (3, 30)):
        ws[f"AX{r}"] = v
    for cell, formula in SINGLE_FORMULAS.items():
        ws[cell] = formula
    path = tmp_path / "borrowed.xlsx"
    wb.save(path)
    return path, cells


SINGLE_FORMULAS = {"AY2": "=_xlfn.SINGLE(AX1:AX3)", "AY3": "=_xlfn.SINGLE(AX1:AX3)",
                   "AY5": "=_xlfn.SINGLE(AX1:AX3)", "AZ3": "=_xlfn.SINGLE(AX:AX)",
                   "BA1": "=_xlfn.SINGLE(AX1)+1", "BB2": "=_xlfn.SINGLE(AW2:AX2)"}


#: the array formulas' cells: Excel's cached values (test.xlsx, LOOKUP), and SINGLE's
ARRAYS = {
    "R135": 0, "R136": 1, "R137": 0, "R138": 2,
    "S135": 0, "S136": 1, "S137": 0, "S138": 2, "S139": 0,
    "T135": 0, "T136": 0, "T137": 3, "T138": 0, "T139": 0,
    "U135": 4, "U136": 4, "U137": 0, "U138": 0, "V135": 0, "V136": 0, "V137": 5,
    "V138": 0, "W135": "#VALUE!", "AG136": "#REF!",
    "AH52": -2, "AH53": -1.1,
    "AK52": "#REF!", "AL52": "#REF!", "AK53": 4, "AL53": 4, "AK54": 2, "AL54": 2,
    "AO52": 2, "AP52": 4, "AO53": 2, "AP53": 4, "AN54": 2, "AO54": 2,
    # SINGLE (above)
    "AY2": 20, "AY3": 30, "AY5": "#VALUE!", "AZ3": 30, "BA1": 11, "BB2": "#VALUE!",
}


def _same(got, want) -> bool:
    if isinstance(want, str) and want.startswith("#"):
        return isinstance(got, ExcelError) and str(got) == want
    if isinstance(want, bool):
        return isinstance(got, bool) and got == want
    if isinstance(want, str):
        return isinstance(got, str) and not isinstance(got, ExcelError) and got == want
    return isinstance(got, (int, float)) and not isinstance(got, bool) and got == want


@pytest.fixture(scope="module")
def evaluation(tmp_path_factory):
    path, cells = _book(tmp_path_factory.mktemp("borrowed"))
    return evaluate_blocks(path), cells, path


@pytest.mark.parametrize("formula", list({**CEILING, **FLOOR, **RANDBETWEEN, **LOGICAL,
                                          **TEXT, **MATH}))
def test_excel_values(evaluation, formula):
    ev, cells, _ = evaluation
    want = {**CEILING, **FLOOR, **RANDBETWEEN, **LOGICAL, **TEXT, **MATH}[formula]
    got = ev.value("S", cells[formula])
    assert _same(got, want), (formula, got, want)


@pytest.mark.parametrize("cell", list(ARRAYS))
def test_array_formulas(evaluation, cell):
    ev, _, _ = evaluation
    got = ev.value("S", cell)
    assert _same(got, ARRAYS[cell]), (cell, got, ARRAYS[cell])


def test_all_on_the_block_path(evaluation):
    ev, _, _ = evaluation
    assert ev.paths.unsupported_cells == 0, ev.paths.unsupported


def test_not_implemented_and_unknown_names(tmp_path):
    """A function Excel has that the engine does not implement, and a name Excel does not
    know: both #NAME?, the reason telling them apart, the names reported (exit 1)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"] = '=_xlfn.STOCKHISTORY("MSFT",45000)'
    ws["A2"] = "=NOSUCHFUNCTION(1)"
    path = tmp_path / "names.xlsx"
    wb.save(path)
    ev = evaluate_blocks(path)
    assert [str(ev.value("S", c)) for c in ("A1", "A2")] == ["#NAME?", "#NAME?"]
    assert ev.cells[("S", "A1")].reason == "function STOCKHISTORY is not implemented"
    assert ev.cells[("S", "A2")].reason == "unknown function NOSUCHFUNCTION"
    assert {"STOCKHISTORY", "NOSUCHFUNCTION"} <= set(ev.unknown_functions)


_WITHOUT_FORMULAS = """
import json, sys
for name in ("formulas", "formulas.functions", "formulas.ranges", "formulas.tokens",
             "formulas.tokens.operand", "formulas.parser", "schedula"):
    sys.modules[name] = None  # `import formulas` (and any formulas.x) now fails
from rooflinexl.recalc.blocks import evaluate_blocks
ev = evaluate_blocks(sys.argv[1])
cells = json.loads(sys.argv[2])
out = {c: [type(ev.value("S", c)).__name__, str(ev.value("S", c))] for c in cells}
print(json.dumps({"values": out, "per_cell": ev.paths.unsupported_cells,
                  "loaded": sorted(m for m in sys.modules if m.startswith("formulas.")
                                   and sys.modules[m] is not None)}))
"""


def test_block_path_without_formulas(evaluation):
    """The whole book above recalculated in a process where ``formulas`` cannot be
    imported: every value as Excel's, no cell per cell (the lookups other than INDEX are
    left out: they are still borrowed until their own branch)."""
    ev, cells, path = evaluation
    addresses = [*cells.values(), *ARRAYS]
    proc = subprocess.run([sys.executable, "-c", _WITHOUT_FORMULAS, str(path),
                           json.dumps(addresses)], capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["per_cell"] == 0 and res["loaded"] == []
    for a in addresses:
        here = ev.value("S", a)
        assert res["values"][a] == [type(here).__name__, str(here)], a


def test_empty_cells_and_text_true_in_a_cell(tmp_path):
    """NPOI's FormulaEvalTestData_Copy.xlsx (saved by Excel), sheet EverythingTests: an
    empty significance is 0 (CEILING 0: F212, G212), FLOOR(0,0) is 0 (I544), and OR of two
    empty cells, text and the text "TRUE" in a cell is #VALUE! (G1020)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["C12"] = 999999.99999
    ws["E8"] = "nospaces"
    ws["B18"] = '="TRUE"'
    cases = {"A1": ("=CEILING(D9,D10)", 0), "A2": ("=CEILING(C12,D11)", 0),
             "A3": ("=FLOOR(0,0)", 0), "A4": ("=OR(D7,E7,E8,B18)", "#VALUE!")}
    for cell, (formula, _) in cases.items():
        ws[cell] = formula
    path = tmp_path / "npoi.xlsx"
    wb.save(path)
    ev = evaluate_blocks(path)
    for cell, (formula, want) in cases.items():
        assert _same(ev.value("S", cell), want), (formula, ev.value("S", cell))


def test_index_of_a_relative_range(tmp_path):
    """INDEX(2:2, 1, 2) filled down (formualizer's issue162-failure.xlsx, saved by Excel:
    42, the cell in column B of the formula's row): each row's own window, on the block
    path."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, v in ((2, 42), (3, 7), (4, "x")):
        ws[f"B{r}"] = v
        ws[f"A{r}"] = f"=INDEX({r}:{r},1,2)"
    path = tmp_path / "index.xlsx"
    wb.save(path)
    ev = evaluate_blocks(path)
    assert [ev.value("S", f"A{r}") for r in (2, 3, 4)] == [42, 7, "x"]
    assert ev.paths.unsupported_cells == 0
