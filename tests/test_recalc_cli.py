"""`rooflinexl recalc` end to end: the shipped workbook, user workbooks, exit codes."""
import math
import shutil
import zipfile
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from click.testing import CliRunner
from openpyxl.worksheet.table import Table

from rooflinexl.chips import load_chips
from rooflinexl.cli import main

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "workbooks" / "Roofline.xlsx"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    out = tmp_path_factory.mktemp("recalc") / "out.xlsx"
    res = run("recalc", BOOK, "-o", out)
    assert res.exit_code == 0, res.output
    return out, res.output


# The reference's worked numbers (reference article, section in the comment).
EXPECTED = {
    "CritIntensity_H100_HBM": (295.2, 0.1),        # §2 "H100 约 295"
    "CritIntensity_H100_NVLink": (2197.8, 0.1),    # §13 "NVLink 约 2,200"
    "CritIntensity_H100_NIC": (19780, 1),          # §13 "IB 约 2 万": 9.89e14 / 5e10
    "CritBatch_H100_D1024": (697.28, 0.01),        # §5 "B >= 698"
    "CritBatch_H100_D4096": (344.95, 0.01),        # §5 "B >= 345"
    "CritBatch_H100_D8192": (318.16, 0.01),        # §5 "B >= 319"
    "CritBatch_v5e_int8_4096x16384": (259.3, 0.05),  # §5 "B > 259"
    "CritBatch_v5e_int8w_bf16": (120.1, 0.05),     # §5 "B > 120"
    "MoEMinBatch_DeepSeekV3_v5e": (3843.9, 0.05),  # §5 "B > 3840" (I = 240 there)
    "NetCriticalD_v5e_n2": (8755.6, 0.05),         # §7: 2 * 1.97e14 / 4.5e10
    "Fp32Add_1024cubed_ms": (3.85, 0.005),         # §4 "约 3.84 ms"
    "Fp32Add_65536_us": (0.235, 0.001),            # §4 "0.23 μs"
    "DecodeLowerBound_200B_32xv4_ms": (10.42, 0.01),  # §5 "约 10 ms"
    "USDper1e18_H200": (2.81, 0.005),              # 10 / (3600 * 9.89e14) * 1e18
    "USDper1e18_TPUv5p": (2.54, 0.005),            # 4.2 / (3600 * 4.59e14) * 1e18
}


def test_shipped_workbook_recalculates_clean_and_prints_key_results(recalculated):
    out, text = recalculated
    for name, (value, tol) in EXPECTED.items():
        line = next(line for line in text.splitlines() if line.strip().startswith(name + " "))
        printed = float(line.split()[1].replace(",", ""))
        assert abs(printed - value) <= tol + 1e-4 * value, line
    assert "0 errors" in text.splitlines()[0]


def test_values_readable_by_openpyxl_and_pandas(recalculated):
    out, _ = recalculated
    wb = openpyxl.load_workbook(out, data_only=True)
    ws = wb["Critical batch"]
    got = {ws[f"B{r}"].value: ws[f"G{r}"].value for r in range(5, 8)}
    assert abs(got[1024] - 697.28) < 0.01 and abs(got[8192] - 318.16) < 0.01
    df = pd.read_excel(out, sheet_name="Critical batch", header=3)
    assert abs(df["B* [tokens]"].iloc[2] - 318.16) < 0.01
    # formulas are kept next to the values
    wf = openpyxl.load_workbook(out)
    assert wf["Critical batch"]["G7"].value.startswith("=CRIT_BATCH(Chips,")


def test_recalc_keeps_every_other_part_byte_for_byte(recalculated):
    out, _ = recalculated
    with zipfile.ZipFile(BOOK) as a, zipfile.ZipFile(out) as b:
        assert a.namelist() == b.namelist()
        for name in a.namelist():
            if not name.startswith("xl/worksheets/sheet"):
                assert a.read(name) == b.read(name), name


def test_input_is_never_overwritten_without_in_place(tmp_path):
    src = tmp_path / "b.xlsx"
    shutil.copy(BOOK, src)
    before = src.read_bytes()
    assert run("recalc", src).exit_code == 0
    assert src.read_bytes() == before
    assert (tmp_path / "b.recalc.xlsx").exists()


def _user_book(path, formulas):
    """A workbook of the user's own: an Excel table named Chips and formulas on Calc."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Specs"
    rows = load_chips().to_rows(["chip", "bf16_flops", "int8_flops", "hbm_bw", "ici_bw"])
    for r in rows:
        ws.append(r)
    ws.add_table(Table(displayName="Chips", ref=f"A1:E{len(rows)}"))
    calc = wb.create_sheet("Calc")
    for cell, f in formulas.items():
        calc[cell] = f
    wb.save(path)


def test_structured_references_and_addin_prefixes(tmp_path):
    book = tmp_path / "mine.xlsx"
    _user_book(book, {
        "A1": '=CRIT_BATCH(Chips[#All],"H100",8192,8192)',
        "A2": "=[1]!CRIT_BATCH(Chips[#All],\"H100\",4096,4096)",
        "A3": '=ROOFLINE.NET_CRITICAL_D(Chips[#All],"TPU v5e",2)',
        "A4": '=INDEX(Chips[bf16_flops],MATCH("H100",Chips[chip],0))/1E+12',
        "A5": "=SUM(Chips[hbm_bw])>0",
    })
    out = tmp_path / "out.xlsx"
    res = run("recalc", book, "-o", out)
    assert res.exit_code == 0, res.output
    ws = openpyxl.load_workbook(out, data_only=True)["Calc"]
    assert abs(ws["A1"].value - 318.16) < 0.01     # reference §5
    assert abs(ws["A2"].value - 344.95) < 0.01     # reference §5
    assert abs(ws["A3"].value - 8755.6) < 0.05     # reference §7
    assert math.isclose(ws["A4"].value, 989.0)     # H100 dense bf16, TFLOP/s
    assert ws["A5"].value is True


def test_error_cells_exit_1_with_reasons(tmp_path):
    book = tmp_path / "bad.xlsx"
    _user_book(book, {
        "A1": '=CRIT_BATCH(Chips[#All],"B900",8192,8192)',
        "A2": '=MOE_MIN_BATCH(Chips[#All],"TPU v5e",8,9)',
        "A3": "=A1*2",
        "A4": '=CRIT_BATCH(Chips[#All],"H100",1024,1024)',
    })
    out = tmp_path / "out.xlsx"
    res = run("recalc", book, "-o", out)
    assert res.exit_code == 1
    assert "Calc!A1" in res.output and "unknown chip 'B900'" in res.output
    assert "Calc!A2" in res.output and "#NUM!" in res.output
    assert "Calc!A3" in res.output  # propagated
    ws = openpyxl.load_workbook(out, data_only=True)["Calc"]
    assert ws["A1"].value == "#N/A" and ws["A2"].value == "#NUM!"
    assert abs(ws["A4"].value - 697.28) < 0.01   # the other cells still compute


def test_unknown_function_exits_1(tmp_path):
    book = tmp_path / "u.xlsx"
    _user_book(book, {"A1": "=NO_SUCH_FUNCTION(1)"})
    res = run("recalc", book, "-o", tmp_path / "o.xlsx")
    assert res.exit_code == 1
    assert "NO_SUCH_FUNCTION" in res.output


@pytest.mark.parametrize("make, words", [
    (lambda p: None, "no such file"),
    (lambda p: p.write_bytes(b"hello, not a workbook"), "not"),
    (lambda p: p.write_bytes(BOOK.read_bytes()[:5000]), ""),
])
def test_unusable_input_exits_2_with_one_line(tmp_path, make, words):
    book = tmp_path / "x.xlsx"
    make(book)
    res = run("recalc", book, "-o", tmp_path / "o.xlsx")
    assert res.exit_code == 2
    assert "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert words in res.output.lower()
    assert not (tmp_path / "o.xlsx").exists()


def test_encrypted_workbook_is_refused():
    enc = ROOT / "tests" / "data" / "excel-saved" / "pass_protected.xlsx"
    res = run("recalc", enc, "-o", "/nonexistent/o.xlsx")
    assert res.exit_code == 2 and "encrypted" in res.output.lower()


def _unit_book(path, headers: dict, scale: dict):
    """Roofline.xlsx with some Chips headers given a unit and the column rescaled to it."""
    wb = openpyxl.load_workbook(BOOK)
    ws = wb["Chips"]
    head = {str(c.value).split(" [")[0]: c.column for c in ws[1]}
    for col, text in headers.items():
        ws.cell(row=1, column=head[col]).value = text
        for r in range(2, ws.max_row + 1):
            cell = ws.cell(row=r, column=head[col])
            if isinstance(cell.value, (int, float)):
                cell.value = cell.value / scale.get(col, 1.0)
    wb.save(path)


def test_unit_headers_recalculate_like_si(tmp_path, recalculated):
    # a user types hbm_bw in TB/s, bf16_flops in TFLOP/s and hbm_bytes in GiB: same results
    book = tmp_path / "units.xlsx"
    _unit_book(book, {"hbm_bw": "hbm_bw [TB/s]", "bf16_flops": "bf16_flops [TFLOP/s]",
                      "hbm_bytes": "hbm_bytes [GiB]"},
               {"hbm_bw": 1e12, "bf16_flops": 1e12, "hbm_bytes": 2**30})
    out = tmp_path / "out.xlsx"
    res = run("recalc", book, "-o", out)
    assert res.exit_code == 0, res.output
    want = openpyxl.load_workbook(recalculated[0], data_only=True)
    got = openpyxl.load_workbook(out, data_only=True)
    compared = 0
    for name in got.defined_names:
        dest = got.defined_names[name].attr_text
        if name in EXPECTED:
            sheet, ref = dest.split("!")
            a = got[sheet.strip("'")][ref.replace("$", "")].value
            b = want[sheet.strip("'")][ref.replace("$", "")].value
            assert math.isclose(a, b, rel_tol=1e-9), name
            compared += 1
    assert compared == len(EXPECTED)
    # H100 critical intensity 989e12 / 3.35e12 = 295.2, not 989e12 / 3.35 = 2.95e14
    name = got.defined_names["CritIntensity_H100_HBM"].attr_text.split("!")
    assert abs(got[name[0].strip("'")][name[1].replace("$", "")].value - 295.2) < 0.1


def test_unknown_unit_header_is_an_error_and_exit_1(tmp_path):
    book = tmp_path / "furlongs.xlsx"
    _unit_book(book, {"hbm_bw": "hbm_bw [furlongs]"}, {})
    res = run("recalc", book, "-o", tmp_path / "out.xlsx")
    assert res.exit_code == 1
    assert "column 'hbm_bw': unknown unit 'furlongs'" in res.output and "TB/s" in res.output


def _with_bad_character_reference(src, dst, where: bytes):
    """A copy of ``src`` whose first ``where`` in a sheet's XML gets ``&#0;`` appended:
    a character reference to no XML character (XML 1.0, production [66] and WFC "Legal
    Character"), so the part is not well-formed and Excel repairs or refuses it."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.startswith("xl/worksheets/") and where in data:
                data = data.replace(where, where + b"&#0;", 1)
                where = b"\0no more"
            zout.writestr(info, data)
    assert where == b"\0no more", "the marker was not found"


@pytest.mark.parametrize("command", [("recalc",), ("recalc", "--check"), ("diff",)])
def test_bad_character_reference_is_refused_by_every_command(tmp_path, command):
    # recalc used to keep '&#0;' as text and exit 0 while --check and diff refused the
    # file (exit 2): one un-escaper now refuses it everywhere, naming the reference
    book = tmp_path / "mine.xlsx"
    _user_book(book, {"A1": '=LEN("ab")', "A2": "=A1*2"})
    bad = tmp_path / "bad.xlsx"
    _with_bad_character_reference(book, bad, b'LEN("ab')
    extra = {("recalc",): ["-o", tmp_path / "o.xlsx"], ("diff",): [book]}.get(command, [])
    res = run(*command, bad, *extra)
    assert res.exit_code == 2, res.output
    assert "&#0;" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "o.xlsx").exists()


@pytest.mark.parametrize("in_place", [False, True])
def test_recalc_opens_and_checks_the_package_once(tmp_path, monkeypatch, in_place):
    """Issue 13 item 4: read -> plan -> evaluate -> write reads the package one way: one
    check (which also walks every member) for the whole command, the write included."""
    from rooflinexl.ooxml import package

    src = tmp_path / "in.xlsx"
    wb = openpyxl.Workbook()
    wb.active["A1"] = 2
    wb.active["B1"] = "=A1*21"
    wb.save(src)
    opened = []
    real = package._open_checked
    monkeypatch.setattr(package, "_open_checked",
                        lambda path, limits: opened.append(path) or real(path, limits))
    out = src if in_place else tmp_path / "out.xlsx"
    res = run("recalc", src, *(["--in-place"] if in_place else ["-o", out]))
    assert res.exit_code == 0, res.output
    assert len(opened) == 1, opened
    assert openpyxl.load_workbook(out, data_only=True).active["B1"].value == 42
