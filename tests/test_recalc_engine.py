"""Headless evaluation (:func:`rooflinexl.recalc.evaluate_workbook`) and the pre-pass rewrites.

Every workbook is built here with openpyxl (or xlsxwriter for Excel's
dynamic-array form); every expected number is computed by hand in the test.
"""
from __future__ import annotations

import hashlib
import math

import openpyxl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.formula import ArrayFormula
from openpyxl.worksheet.table import Table

from rooflinexl.errors import ExcelError, KeywordError
from rooflinexl.recalc import (
    OMITTED,
    TableInfo,
    evaluate_workbook,
    rewrite_formula,
)
from rooflinexl.recalc.engine import register_function, unregister_function

H100 = (9.89e14, 3.35e12)
V5E = (1.97e14, 8.1e11)
B200 = (2.25e15, 8.0e12)
CHIPS = {"H100": H100, "TPU v5e": V5E, "B200": B200}


# ----------------------------------------------------------------------- toy UDFs


def _lookup(table, chip):
    header = [str(h).strip().lower() for h in table[0]]
    f, b = header.index("bf16_flops"), header.index("hbm_bw")
    for row in table[1:]:
        if row[0] == chip:
            return row[f], row[b]
    return None


def my_udf(table, chip):
    """bf16 peak / HBM bandwidth of one chip, like CRIT_INTENSITY."""
    hit = _lookup(table, chip)
    if hit is None:
        return ExcelError("#N/A", f"unknown chip {chip!r}")
    return hit[0] / hit[1]


def specs(table, *chips):
    """One row [bf16_flops, hbm_bw] per chip: a 2-D result."""
    out = []
    for chip in chips:
        hit = _lookup(table, chip)
        if hit is None:
            err = ExcelError("#N/A", f"unknown chip {chip!r}")
            out.append([err, err])
        else:
            out.append(list(hit))
    return out


def bad_call(x):
    raise KeywordError("unknown dtype 'fp7' (allowed: bf16, fp8, int8)")


def crash(x):
    return 1 / 0


def describe(*args):
    """Echo what the host passed, so the test sees the conversions."""
    return "|".join(f"{type(a).__name__}:{a}" for a in args)


def width(rng):
    """Rows x columns of a range argument, and the None count (empty cells)."""
    assert isinstance(rng, list) and all(isinstance(r, list) for r in rng)
    nones = sum(v is None for r in rng for v in r)
    return len(rng) * 100 + len(rng[0]) * 10 + nones


UDFS = {
    "MY_UDF": my_udf,
    "SPECS": specs,
    "BAD_CALL": bad_call,
    "CRASH": crash,
    "DESCRIBE": describe,
    "WIDTH": width,
}


# ---------------------------------------------------------------------- workbooks


def _chips_sheet(wb, title="Chips"):
    ws = wb.active
    ws.title = title
    ws.append(["chip", "bf16_flops", "hbm_bw", "ridge"])
    for name, (flops, bw) in CHIPS.items():
        ws.append([name, flops, bw, None])
    for r in range(2, 5):
        ws[f"D{r}"] = "=Chips[@bf16_flops]/Chips[@hbm_bw]"
    ws.add_table(Table(displayName="Chips", ref="A1:D4"))
    return ws


@pytest.fixture()
def native_book(tmp_path):
    wb = openpyxl.Workbook()
    inp = wb.active
    inp.title = "Inputs"
    inp["A1"], inp["A2"], inp["A3"] = 4, 6.5, 0
    inp["B1"] = 1.5
    for i, (name, price) in enumerate([("H100", 2.0), ("H200", 3.5), ("B200", 6.0)], start=5):
        inp[f"A{i}"], inp[f"B{i}"] = name, price
    wb.defined_names["Rate"] = DefinedName("Rate", attr_text="Inputs!$B$1")
    wb.defined_names["Prices"] = DefinedName("Prices", attr_text="Inputs!$A$5:$B$7")
    calc = wb.create_sheet("Calc sheet")
    calc["A1"] = "=Inputs!A1*Inputs!A2+1"  # 27
    calc["A2"] = "=SUM(Inputs!A1:A3)/2"  # 5.25
    calc["A3"] = '=INDEX(Inputs!B5:B7,MATCH("H200",Inputs!A5:A7,0))'  # 3.5
    calc["A4"] = '=VLOOKUP("B200",Prices,2,FALSE)*Rate'  # 9
    calc["A5"] = "=IFERROR(Inputs!A1/Inputs!A3,42)"  # 42
    calc["A6"] = "=2*1E15"
    calc["A7"] = "=1.5E3+.5e1"  # 1505
    calc["A8"] = '="1E15 [1]!X(" & "ok"'  # text untouched
    calc["A9"] = "=Inputs!A2>Inputs!A1"
    calc["A10"] = "='Calc sheet'!A1-A2"  # 21.75
    calc["A11"] = "=Inputs!A1/Inputs!A3"
    calc["A12"] = "=A11+1"
    calc["A13"] = '=VLOOKUP("TPU",Prices,2,FALSE)'
    path = tmp_path / "native.xlsx"
    wb.save(path)
    return path


@pytest.fixture()
def udf_book(tmp_path):
    wb = openpyxl.Workbook()
    _chips_sheet(wb)
    c = wb.create_sheet("Calc")
    c["B1"] = "=SUM(Chips[bf16_flops])"
    c["B2"] = "=INDEX(Chips[#All],2,2)"
    c["B3"] = '=MY_UDF(Chips[#All],"H100")'
    c["B4"] = '=[1]!MY_UDF(Chips[#All],"TPU v5e")'
    c["B5"] = '=ROOFLINE.MY_UDF(Chips[#All],"B200")'
    c["B6"] = '=_xludf.ROOFLINE.MY_UDF(Chips[#All],"H100")'
    c["B7"] = "='C:\\addins\\rooflinexl.xlam'!MY_UDF(Chips[#All],\"H100\")"
    c["B8"] = '=MY_UDF(Chips[#All],"B900")'
    c["B9"] = "=B8*2"
    c["B10"] = "=IFERROR(B8,-1)"
    c["B11"] = "=Chips[[#Headers],[hbm_bw]]"
    c["A12"] = "TPU v5e"
    c["B12"] = "=MY_UDF(Chips[#All],A12)"
    c["B13"] = "=BAD_CALL(1)"
    c["B14"] = "=CRASH(B1)"
    c["B15"] = "=NOPE(1)+1"
    c["B16"] = "=[1]!UNREGISTERED(1)"
    c["B17"] = "=DESCRIBE(1,,\"x\",A12,TRUE)"
    c["B18"] = "=WIDTH(A20:C21)"
    c["A20"], c["B20"] = 1, "two"
    c["B19"] = "=MAX(Chips[ridge])"
    c["D2"] = ArrayFormula("D2:E3", '=SPECS(Chips[#All],"H100","B200")')
    c["G2"] = ArrayFormula("G2:H3", '=SPECS(Chips[#All],"H100","B900")')
    plan = wb.create_sheet("Bob's plan")
    plan["A1"] = "=Calc!B3*2"
    plan["A2"] = "='Bob''s plan'!A1+1"
    path = tmp_path / "udf.xlsx"
    wb.save(path)
    return path


# ------------------------------------------------------------------ native formulas


def test_native_formulas_evaluate_to_hand_computed_values(native_book):
    ev = evaluate_workbook(native_book)

    def v(cell):
        return ev.value("Calc sheet", cell)

    assert v("A1") == pytest.approx(4 * 6.5 + 1)
    assert v("A2") == pytest.approx((4 + 6.5 + 0) / 2)
    assert v("A3") == pytest.approx(3.5)
    assert v("A4") == pytest.approx(6.0 * 1.5)
    assert v("A5") == pytest.approx(42)
    assert v("A6") == pytest.approx(2e15)
    assert v("A7") == pytest.approx(1505)
    assert v("A8") == "1E15 [1]!X(ok"
    assert v("A9") is True
    assert v("A10") == pytest.approx(27 - 5.25)
    assert ev.unknown_functions == set()


def test_native_errors_have_reasons(native_book):
    ev = evaluate_workbook(native_book)
    a11 = ev.cells[("Calc sheet", "A11")]
    assert a11.is_error and a11.value == "#DIV/0!"
    assert "division by zero" in a11.reason
    a12 = ev.cells[("Calc sheet", "A12")]
    assert a12.value == "#DIV/0!"
    assert "propagated from Calc sheet!A11" in a12.reason
    a13 = ev.cells[("Calc sheet", "A13")]
    assert a13.value == "#N/A" and a13.reason
    assert {c.cell for c in ev.errors()} == {"A11", "A12", "A13"}
    assert all(c.reason for c in ev.errors())
    assert isinstance(a11.value, ExcelError) and a11.value.reason == a11.reason


def test_sheet_names_keys_and_plain_python_values(native_book):
    ev = evaluate_workbook(native_book)
    assert list(ev.by_sheet()) == ["Inputs", "Calc sheet"]
    assert ev.by_sheet()["Inputs"] == []
    cells = [c.cell for c in ev.by_sheet()["Calc sheet"]]
    assert cells == [f"A{i}" for i in range(1, 14)]
    for res in ev.cells.values():
        assert type(res.value) in (float, int, bool, str, ExcelError)
        assert "$" not in res.cell
    assert ev.cells[("Calc sheet", "A1")].formula == "=Inputs!A1*Inputs!A2+1"


def test_input_file_is_never_modified(native_book):
    before = hashlib.sha256(native_book.read_bytes()).hexdigest()
    evaluate_workbook(native_book)
    assert hashlib.sha256(native_book.read_bytes()).hexdigest() == before


# ---------------------------------------------------------------- tables and UDFs


def test_table_references_and_udfs(udf_book):
    ev = evaluate_workbook(udf_book, UDFS)
    ridge = {k: f / b for k, (f, b) in CHIPS.items()}
    assert ev.value("Chips", "D2") == pytest.approx(ridge["H100"])
    assert ev.value("Chips", "D3") == pytest.approx(ridge["TPU v5e"])
    assert ev.value("Chips", "D4") == pytest.approx(ridge["B200"])
    assert ev.value("Calc", "B1") == pytest.approx(9.89e14 + 1.97e14 + 2.25e15)
    assert ev.value("Calc", "B2") == pytest.approx(9.89e14)
    assert ev.value("Calc", "B3") == pytest.approx(9.89e14 / 3.35e12)  # 295.22...
    assert ev.value("Calc", "B4") == pytest.approx(1.97e14 / 8.1e11)  # [1]!
    assert ev.value("Calc", "B5") == pytest.approx(2.25e15 / 8e12)  # ROOFLINE.
    assert ev.value("Calc", "B6") == pytest.approx(ridge["H100"])  # _xludf.ROOFLINE.
    assert ev.value("Calc", "B7") == pytest.approx(ridge["H100"])  # 'path.xlam'!
    assert ev.value("Calc", "B10") == -1
    assert ev.value("Calc", "B11") == "hbm_bw"
    assert ev.value("Calc", "B12") == pytest.approx(ridge["TPU v5e"])
    assert ev.value("Calc", "B19") == pytest.approx(max(ridge.values()))
    assert ev.value("Bob's plan", "A1") == pytest.approx(2 * ridge["H100"])
    assert ev.value("Bob's plan", "A2") == pytest.approx(2 * ridge["H100"] + 1)
    assert list(ev.by_sheet()) == ["Chips", "Calc", "Bob's plan"]


def test_udf_error_reason_and_propagation(udf_book):
    ev = evaluate_workbook(udf_book, UDFS)
    b8 = ev.cells[("Calc", "B8")]
    assert b8.value == "#N/A" and b8.reason == "unknown chip 'B900'"
    b9 = ev.cells[("Calc", "B9")]
    assert b9.value == "#N/A"
    assert b9.reason == "propagated from Calc!B8: unknown chip 'B900'"


def test_exceptions_in_udfs_become_value_errors_with_message(udf_book):
    ev = evaluate_workbook(udf_book, UDFS)
    b13 = ev.cells[("Calc", "B13")]
    assert b13.value == "#VALUE!"
    assert "unknown dtype 'fp7'" in b13.reason and "BAD_CALL" in b13.reason
    b14 = ev.cells[("Calc", "B14")]
    assert b14.value == "#VALUE!" and "ZeroDivisionError" in b14.reason


def test_array_formula_gets_every_cell(udf_book):
    ev = evaluate_workbook(udf_book, UDFS)
    assert ev.value("Calc", "D2") == pytest.approx(H100[0])
    assert ev.value("Calc", "E2") == pytest.approx(H100[1])
    assert ev.value("Calc", "D3") == pytest.approx(B200[0])
    assert ev.value("Calc", "E3") == pytest.approx(B200[1])
    for cell in ("D2", "E2", "D3", "E3"):
        res = ev.cells[("Calc", cell)]
        assert res.array_ref == "D2:E3"
        assert res.formula == '=SPECS(Chips[#All],"H100","B200")'
    # an element error keeps its own reason, the other elements still compute
    assert ev.value("Calc", "G2") == pytest.approx(H100[0])
    g3 = ev.cells[("Calc", "G3")]
    assert g3.value == "#N/A" and g3.reason == "unknown chip 'B900'"


def test_unknown_functions_are_reported_not_fatal(udf_book):
    ev = evaluate_workbook(udf_book, UDFS)
    assert ev.unknown_functions == {"NOPE"}
    b15 = ev.cells[("Calc", "B15")]
    assert b15.value == "#NAME?" and "NOPE" in b15.reason
    b16 = ev.cells[("Calc", "B16")]  # an add-in's function the caller did not register
    assert b16.value == "#NAME?" and "[1]!UNREGISTERED" in b16.reason
    assert ev.value("Calc", "B3") == pytest.approx(H100[0] / H100[1])  # the rest computes


def test_without_functions_every_udf_is_unknown(udf_book):
    ev = evaluate_workbook(udf_book)  # functions=None: no custom functions
    assert {"MY_UDF", "SPECS", "BAD_CALL", "NOPE"} <= ev.unknown_functions
    assert ev.value("Calc", "B16") == "#NAME?"
    assert ev.value("Calc", "B3") == "#NAME?"
    assert "MY_UDF" in ev.cells[("Calc", "B3")].reason
    assert ev.value("Calc", "B4") == "#NAME?"  # [1]!MY_UDF( cannot even be parsed
    assert ev.value("Calc", "B1") == pytest.approx(9.89e14 + 1.97e14 + 2.25e15)


def test_host_argument_conventions(udf_book):
    ev = evaluate_workbook(udf_book, UDFS)
    # literal int, omitted argument, literal text, single cell, boolean
    assert ev.value("Calc", "B17") == "int:1|NoneType:None|str:x|str:TPU v5e|bool:True"
    # a 2x3 range arrives as a 2-D list, with None for its 4 empty cells
    assert ev.value("Calc", "B18") == 2 * 100 + 3 * 10 + 4


def test_registry_and_function_table_restored(udf_book):
    register_function("MY_UDF", my_udf)
    try:
        ev = evaluate_workbook(udf_book)
    finally:
        unregister_function("MY_UDF")
    assert ev.value("Calc", "B3") == pytest.approx(H100[0] / H100[1])
    assert "MY_UDF" not in ev.unknown_functions
    assert "MY_UDF" in evaluate_workbook(udf_book).unknown_functions  # unregistered again


def test_rewrites_are_reported(udf_book):
    ev = evaluate_workbook(udf_book, UDFS)
    before, after = ev.rewrites[("Calc", "B4")]
    assert before == '=[1]!MY_UDF(Chips[#All],"TPU v5e")'
    assert after == "=MY_UDF('Chips'!$A$1:$D$4,\"TPU v5e\")"
    assert ev.rewrites[("Chips", "D3")][1] == "='Chips'!$B$3/'Chips'!$C$3"


def test_circular_reference_is_an_error(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A2"], ws["A3"] = "=A2+1", "=A1+1", 5
    ws["A4"] = "=A3*2"
    p = tmp_path / "circ.xlsx"
    wb.save(p)
    ev = evaluate_workbook(p)
    assert ev.value("Sheet", "A4") == 10
    assert ev.value("Sheet", "A1") == "#VALUE!"
    assert "circular" in ev.cells[("Sheet", "A1")].reason


def test_dynamic_array_formula_saved_with_cm(tmp_path):
    xlsxwriter = pytest.importorskip("xlsxwriter")
    p = tmp_path / "dyn.xlsx"
    wb = xlsxwriter.Workbook(str(p))
    ws = wb.add_worksheet("Chips")
    ws.add_table(
        "A1:D4",
        {
            "name": "Chips",
            "data": [[k, f, b] for k, (f, b) in CHIPS.items()],
            "columns": [
                {"header": "chip"},
                {"header": "bf16_flops"},
                {"header": "hbm_bw"},
                {"header": "ridge", "formula": "=[@bf16_flops]/[@hbm_bw]"},
            ],
        },
    )
    calc = wb.add_worksheet("Calc")
    calc.write_dynamic_array_formula("A1:B2", '=SPECS(Chips[#All],"TPU v5e","H100")')
    calc.write_formula("D1", "=SUM(Chips[ridge])")
    wb.close()
    ev = evaluate_workbook(p, {"SPECS": specs})
    assert ev.value("Calc", "A1") == pytest.approx(V5E[0])
    assert ev.value("Calc", "B2") == pytest.approx(H100[1])
    assert ev.cells[("Calc", "B1")].array_ref == "A1:B2"
    assert ev.value("Calc", "D1") == pytest.approx(sum(f / b for f, b in CHIPS.values()))


def test_sheet_scoped_defined_name_is_usable(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    ws["A1"], ws["A2"] = 2, 5
    ws.defined_names["Local"] = DefinedName("Local", attr_text="Data!$A$1:$A$2")
    ws["B1"] = "=SUM(Local)*3"
    p = tmp_path / "local.xlsx"
    wb.save(p)
    assert evaluate_workbook(p).value("Data", "B1") == 21


def test_missing_file_raises(tmp_path):
    from rooflinexl.errors import RooflineError

    with pytest.raises(RooflineError, match="no such workbook"):
        evaluate_workbook(tmp_path / "nope.xlsx")


# -------------------------------------------------------------------- the pre-pass

TABLES = {
    "CHIPS": TableInfo(
        "Chips", "Chips", 1, 12, 1, 5, 1, 1,
        ["chip", "bf16_flops", "hbm bw", "a[b]#'c", "x"],
    )
}


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ("=Chips[bf16_flops]", "='Chips'!$B$2:$B$11"),
        ("=Chips[[bf16_flops]]", "='Chips'!$B$2:$B$11"),
        ("=chips[#All]", "='Chips'!$A$1:$E$12"),
        ("=Chips[#Data]", "='Chips'!$A$2:$E$11"),
        ("=Chips[]", "='Chips'!$A$2:$E$11"),
        ("=Chips[#Headers]", "='Chips'!$A$1:$E$1"),
        ("=Chips[#Totals]", "='Chips'!$A$12:$E$12"),
        ("=Chips[[#Headers],[chip]]", "='Chips'!$A$1"),
        ("=Chips[[#Data],[bf16_flops]:[hbm bw]]", "='Chips'!$B$2:$C$11"),
        ("=Chips[[#Headers],[#Data],[x]]", "='Chips'!$E$1:$E$11"),
        ("=Chips[@bf16_flops]", "='Chips'!$B$5"),
        ("=Chips[@[hbm bw]]", "='Chips'!$C$5"),
        ("=Chips[[#This Row],[hbm bw]]", "='Chips'!$C$5"),
        ("=Chips[[#This Row],bf16_flops]", "='Chips'!$B$5"),
        ("=Chips[@]", "='Chips'!$A$5:$E$5"),
        ("=Chips[[a'[b']'#''c]]", "='Chips'!$D$2:$D$11"),
        ("=[@x]*2", "='Chips'!$E$5*2"),
        (
            "=SUM(Chips[bf16_flops])/MAX(Chips[[#Data],[x]],INDEX(Chips[#All],2,2))",
            "=SUM('Chips'!$B$2:$B$11)/MAX('Chips'!$E$2:$E$11,INDEX('Chips'!$A$1:$E$12,2,2))",
        ),
    ],
)
def test_structured_references(formula, expected):
    rw = rewrite_formula(formula, tables=TABLES, sheet="Chips", row=5, col=4)
    assert rw.text == expected
    assert rw.kinds == {"table"} and not rw.notes


def test_structured_reference_problems_become_errors():
    rw = rewrite_formula("=Chips[nope]+1", tables=TABLES)
    assert rw.text == "=#REF!+1" and "nope" in rw.notes[0]
    rw = rewrite_formula("=Chips[@x]", tables=TABLES, sheet="Other", row=40, col=1)
    assert rw.text == "=#VALUE!"


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ('=[1]!CRIT_BATCH(A1,"H100")', '=CRIT_BATCH(A1,"H100")'),
        ("='C:\\x y\\rooflinexl.xlam'!CRIT_BATCH(A1)", "=CRIT_BATCH(A1)"),
        ("=rooflinexl.xlam!CRIT_BATCH(A1)", "=CRIT_BATCH(A1)"),
        ("=_xludf.CRIT_BATCH(A1)", "=CRIT_BATCH(A1)"),
        ("=ROOFLINE.CRIT_BATCH(A1)", "=CRIT_BATCH(A1)"),
        ("=_xludf.ROOFLINE.CRIT_BATCH(A1)", "=CRIT_BATCH(A1)"),
        ("=_xldudf_ROOFLINE_CRIT_BATCH(A1)", "=CRIT_BATCH(A1)"),
        ("=roofline.crit_batch(A1)", "=CRIT_BATCH(A1)"),
        (
            "=IF(A1,[1]!CRIT_BATCH(A1),ROOFLINE.CRIT_BATCH(A2))",
            "=IF(A1,CRIT_BATCH(A1),CRIT_BATCH(A2))",
        ),
    ],
)
def test_addin_prefixes_stripped_for_known_functions(formula, expected):
    rw = rewrite_formula(formula, function_names={"CRIT_BATCH"})
    assert rw.text == expected
    assert "addin" in rw.kinds


@pytest.mark.parametrize(
    "formula",
    [
        "=[1]!OTHER(A1)",  # not one of ours
        '="[1]!CRIT_BATCH(" & "ROOFLINE.CRIT_BATCH("',  # inside string literals
        "=_xlfn.STDEV.S(A1:A3)",
        "='[1]Sheet 1'!A1+[1]Sheet2!B2",  # external references
    ],
)
def test_prefixes_left_alone(formula):
    assert rewrite_formula(formula, function_names={"CRIT_BATCH", "S"}).text == formula


def test_exponents_and_omitted_arguments():
    assert rewrite_formula("=2*1E15").text == "=2*1E+15"
    assert rewrite_formula("=1.5e3-.5E2+1E-3+2E+4").text == "=1.5e+3-.5E+2+1E-3+2E+4"
    assert rewrite_formula('="1E15"&A1E1').text == '="1E15"&A1E1'
    om = f'"{OMITTED}"'
    rw = rewrite_formula("=F(A1,,3,)+G(,1)+F()+IF(A1,,2)", function_names={"F", "G"})
    assert rw.text == f"=F(A1,{om},3,{om})+G({om},1)+F()+IF(A1,,2)"
    assert rewrite_formula("=F({1,2},,1)", function_names={"F"}).text == f"=F({{1,2}},{om},1)"


@given(st.text(max_size=40))
def test_string_literals_are_never_rewritten(text):
    literal = '"' + text.replace('"', '""') + '"'
    formula = f"=CONCAT({literal},1)"
    rw = rewrite_formula(formula, tables=TABLES, function_names={"CONCAT", "CRIT_BATCH"})
    assert rw.text == formula


def test_timing_is_reasonable_for_a_small_book(tmp_path):
    """Not a benchmark: a 100-row sheet (300 formulas) evaluates in seconds."""
    import time

    wb = openpyxl.Workbook()
    _chips_sheet(wb)
    calc = wb.create_sheet("Calc")
    names = list(CHIPS)
    for r in range(1, 101):
        calc[f"A{r}"] = names[r % 3]
        calc[f"B{r}"] = f"=MY_UDF(Chips[#All],A{r})"
        calc[f"C{r}"] = f"=INDEX(Chips[bf16_flops],MATCH(A{r},Chips[chip],0))*{r}"
        calc[f"D{r}"] = f"=C{r}/B{r}"
    p = tmp_path / "small.xlsx"
    wb.save(p)
    t0 = time.perf_counter()
    ev = evaluate_workbook(p, UDFS)
    assert time.perf_counter() - t0 < 60
    assert not ev.errors()
    r = 7
    f, b = CHIPS[names[r % 3]]
    assert ev.value("Calc", f"D{r}") == pytest.approx(f * r / (f / b))
    assert math.isclose(ev.value("Calc", f"D{r}"), b * r, rel_tol=1e-12)
