"""The rooflinexl add-in in the real application: LibreOffice Calc 25.2, headless.

* every shipped workbook and template recalculated by LibreOffice through the
  add-in equals our engine's values (``recalc --engine libreoffice``);
* after a chip spec is edited, LibreOffice's dependent cells move as the
  formula says (expected values derived by hand in the test);
* arrays, error values (``ISNA``, ``IFERROR``), blank optional arguments and
  the names stored in .xlsx, checked in LibreOffice itself;
* the extension installs with ``unopkg`` and works, and uninstalls.

The chip numbers written below are rooflinexl/data/chips.csv's rows (H100:
bf16 9.89e14 FLOP/s, fp8 1.979e15 FLOP/s, HBM 3.35e12 B/s; TPU v5e: bf16
1.97e14 FLOP/s, HBM 8.2e11 B/s). For a bf16 matmul X[B,D]·W[D,F] the critical
batch is B* = w / (2/I - a/F - a/D) with w = a = 2 bytes and I = peak / HBM
bandwidth, i.e. B* = 1 / (1/I - 1/D - 1/F) (reference section 5).
"""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest
from libreoffice import SAMPLES, require_addin
from openpyxl.utils import get_column_letter
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.formula import ArrayFormula

from rooflinexl.chips import load_chips
from rooflinexl.errors import ExcelError
from rooflinexl.libreoffice import addin, soffice
from rooflinexl.ooxml import formula_cells, read_cached_values
from rooflinexl.recalc.book import recalc_book
from rooflinexl.version import VERSION
from rooflinexl.workbooks.build import BUILDERS

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
I_H100 = 9.89e14 / 3.35e12  # 295.22 FLOP/byte
I_V5E = 1.97e14 / 8.2e11  # 240.24 FLOP/byte


def _crit(i, d=float("inf"), f=float("inf")):
    return 1 / (1 / i - 1 / d - 1 / f)


@pytest.fixture(scope="module", autouse=True)
def _lo():
    return require_addin()


def _equal(a, b, rel=1e-9) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == pytest.approx(b, rel=rel)
    return a == b and type(a) is type(b) or (isinstance(a, str) and a == b)


@pytest.mark.parametrize("rel", sorted(BUILDERS))
def test_shipped_workbook_in_libreoffice_equals_our_engine(rel):
    ours = recalc_book(ROOT / rel, None, write=False).evaluation
    lo = recalc_book(ROOT / rel, None, write=False, engine="libreoffice").evaluation
    assert set(lo.cells) == set(ours.cells)
    assert not lo.unknown_functions
    differ = [(key, ours.cells[key].value, c.value) for key, c in lo.cells.items()
              if not _equal(ours.cells[key].value, c.value)]
    assert not differ, f"{len(differ)} cells differ, e.g. {differ[:5]}"


def _chips_cell(ws, chip: str, column: str) -> str:
    header = [c.value for c in ws[1]]
    col = next(i for i, h in enumerate(header, 1) if str(h).split(" [")[0] == column)
    row = next(r for r in range(2, ws.max_row + 1) if ws.cell(r, 1).value == chip)
    return f"{get_column_letter(col)}{row}"


def test_edited_chip_spec_moves_dependent_cells_as_the_formula_says(tmp_path):
    book = tmp_path / "Roofline.xlsx"
    wb = openpyxl.load_workbook(ROOT / "workbooks/Roofline.xlsx")
    ws = wb["Chips"]
    ws[_chips_cell(ws, "H100", "hbm_bw")] = 4e12  # was 3.35e12
    wb.save(book)
    out = tmp_path / "out.xlsx"
    cli = [sys.executable, "-m", "rooflinexl.cli"]
    run = subprocess.run([*cli, "recalc", str(book), "-o", str(out), "--engine", "libreoffice"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    got = read_cached_values(out)

    def named(name):  # the cell a defined name of the workbook points to, wherever the layout
        [(sheet, ref)] = wb.defined_names[name].destinations
        return got[sheet][ref.replace("$", "")]

    i = 9.89e14 / 4e12  # 247.25 FLOP/byte
    assert named("CritIntensity_H100_HBM") == pytest.approx(i, rel=1e-12)
    assert named("CritBatch_H100_D8192") == pytest.approx(_crit(i, 8192, 8192), rel=1e-12)
    assert _crit(i, 8192, 8192) == pytest.approx(263.13, abs=0.01)  # was 318.16
    # our byte-preserving writer stamped LibreOffice's values: every part but the sheets as is
    with zipfile.ZipFile(book) as a, zipfile.ZipFile(out) as b:
        assert a.namelist() == b.namelist()
        for name in a.namelist():
            if not name.startswith("xl/worksheets/"):
                assert a.read(name) == b.read(name), name
    # the cross-check: the same file through our engine agrees with LibreOffice's values
    check = subprocess.run([*cli, "recalc", "--check", str(out)], capture_output=True,
                           text=True, timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr
    stale = subprocess.run([*cli, "recalc", "--check", "--engine", "libreoffice", str(book)],
                           capture_output=True, text=True, timeout=300)
    # openpyxl saved no values: said in one line (issue 16), and exit 1
    assert stale.returncode == 1 and "none has a cached value" in stale.stdout


def _probe_book(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "T"
    chips = wb.create_sheet("Chips")
    rows = load_chips().to_rows()
    for r in rows:
        chips.append(r)
    ref = f"Chips!$A$1:${get_column_letter(len(rows[0]))}${len(rows)}"
    wb.defined_names["Chips"] = DefinedName("Chips", attr_text=ref)
    cells = {
        "A1": '=CRIT_BATCH(Chips,"H100",8192,8192)',
        "A2": '=CRIT_BATCH(Chips,"H100",B2,C2)',  # B2, C2 empty: D, F blank
        "A3": '=ISNA(CRIT_BATCH(Chips,"H999",8192,8192))',
        "A4": '=IFERROR(CRIT_BATCH(Chips,"H100",-1,8192),"bad")',
        "A5": '=CRIT_BATCH(Chips,"H100",8192,8192,"bf17")',
        "A6": '=CRIT_BATCH(Chips,"H999")',
        "A7": '=KV_CACHE_BYTES(32,8,128,1000,B7)',  # B7 empty: batch blank
        "A8": '=KV_CACHE_BYTES(32,8,128,1000)',
        "A9": '=CRIT_BATCH(Chips,"H100",,,"fp8")',
        "A10": '=CRIT_BATCH(Chips,"H100",8192,8192,B10,C10,D10)',  # empty dtypes, tier
        "A11": '=CHIP_SPEC(Chips,"H100","vendor")',
        "A12": '=ISERROR(CRIT_BATCH(Chips,"H100",8192,8192,"bf17"))',
        "A13": "=VERSION()",
        "A14": '=_xlfn.IFNA(CRIT_BATCH(Chips,"H999"),"none")',  # IFNA is _xlfn. in xlsx
        "A15": '=CRIT_BATCH(Chips,"H100",8192,8192)*2',
        "A19": "=KV_CACHE_BYTES(32,8,128,1000,0)",  # a typed 0 reads as blank too
        "A20": '=MATMUL_TIME(Chips,"H100",B20,8192,8192)',  # B20 empty: required B is 0
    }
    for k, v in cells.items():
        ws[k] = v
    # a chip table of one's own: I = 1e15 / 2e12 = 500; B*(D=F=2000) = 1/(1/500 - 2/2000) = 1000
    for col, header, value in zip("LMN", ("chip", "bf16_flops", "hbm_bw [B/s]"),
                                  ("MyChip", 1e15, 2e12), strict=True):
        ws[f"{col}17"], ws[f"{col}18"] = header, value
    ws["A16"] = '=CRIT_INTENSITY(L17:N18,"MyChip")'
    ws["A17"] = '=CRIT_BATCH(L17:N18,"MyChip",2000,2000)'
    ws["E1"], ws["E2"], ws["E3"] = "H100", "H999", "TPU v5e"
    ws["D1"] = ArrayFormula("D1:D3", "=CRIT_BATCH(Chips,E1:E3,8192,8192)")
    ws["G2"] = 8192  # G1 empty
    ws["F1"] = ArrayFormula("F1:F2", '=CRIT_BATCH(Chips,"H100",G1:G2,8192)')
    ws["H1"] = ArrayFormula("H1:J1", '=CRIT_BATCH(Chips,"H100",8192,{1024,4096,8192})')
    wb.save(path)
    return path


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """The probe workbook as LibreOffice saved it: (values, formulas, add-in log)."""
    tmp = tmp_path_factory.mktemp("probe")
    book = _probe_book(tmp / "probe.xlsx")
    folder = addin.stage(tmp / "addin", log=tmp / "addin.log")
    [out] = soffice.convert([book], tmp / "out", "xlsx", ".xlsx",
                            extra_args=addin.registration_args(folder))
    log = (tmp / "addin.log").read_text() if (tmp / "addin.log").exists() else ""
    return read_cached_values(out)["T"], formula_cells(out)["T"], log


def test_values_in_calc(probe):
    v, _, _ = probe
    assert v["A1"] == pytest.approx(_crit(I_H100, 8192, 8192), rel=1e-12)
    assert v["A1"] == pytest.approx(318.16, abs=0.005)  # the reference's worked number
    assert v["A11"] == "NVIDIA"
    assert v["A13"] == VERSION
    assert v["A15"] == pytest.approx(2 * _crit(I_H100, 8192, 8192), rel=1e-12)


def test_a_chip_table_of_ones_own_in_calc(probe):
    v, _, _ = probe
    assert v["A16"] == pytest.approx(500, rel=1e-12)
    assert v["A17"] == pytest.approx(1000, rel=1e-12)


def test_blank_optional_arguments_are_the_default_in_calc(probe):
    v, _, _ = probe
    assert v["A2"] == pytest.approx(I_H100, rel=1e-12)  # D, F blank: B* = w·I/2 = I
    assert v["A7"] == v["A8"] == 2 * 32 * 8 * 128 * 1000 * 1 * 2  # batch blank / omitted: 1
    # fp8: w = a = 1 byte, I = 1.979e15 / 3.35e12; D, F omitted: B* = w / (2/I) = I / 2
    assert v["A9"] == pytest.approx(1.979e15 / 3.35e12 / 2, rel=1e-12)
    assert v["A10"] == v["A1"]  # blank dtype, weight_dtype, tier: bf16, bf16, hbm
    assert v["F1"] == pytest.approx(_crit(I_H100, f=8192), rel=1e-12)  # blank cell of a range
    # the documented differences from Excel (docs/excel.md, "Blank arguments"): Excel gives
    # 0 bytes for batch 0, and #VALUE! ("B is blank") for an empty required cell
    assert v["A19"] == v["A8"]
    assert isinstance(v["A20"], ExcelError) and v["A20"] == "#NUM!"
    assert v["F2"] == pytest.approx(_crit(I_H100, 8192, 8192), rel=1e-12)


def test_errors_are_real_error_values_in_calc(probe):
    v, _, log = probe
    assert v["A3"] is True and v["A12"] is True  # ISNA, ISERROR see them
    assert v["A4"] == "bad" and v["A14"] == "none"  # IFERROR, IFNA catch them
    assert isinstance(v["A5"], ExcelError) and v["A5"] == "#VALUE!"  # stored as t="e"
    assert isinstance(v["A6"], ExcelError) and v["A6"] == "#N/A"
    # the bad call's message is reachable: the add-in's log
    assert "CRIT_BATCH: #VALUE! dtype 'bf17' is not one of" in log
    assert "CRIT_BATCH: #N/A unknown chip 'H999'" in log


def test_arrays_in_calc(probe):
    v, _, _ = probe
    assert v["D1"] == pytest.approx(_crit(I_H100, 8192, 8192), rel=1e-12)
    assert isinstance(v["D2"], ExcelError) and v["D2"] == "#N/A"  # only that element
    assert v["D3"] == pytest.approx(_crit(I_V5E, 8192, 8192), rel=1e-12)
    for cell, f in zip(("H1", "I1", "J1"), (1024, 4096, 8192), strict=True):
        assert v[cell] == pytest.approx(_crit(I_H100, 8192, f), rel=1e-12)


def test_engine_stamps_every_cell_of_an_array_formula(tmp_path):
    book = _probe_book(tmp_path / "probe.xlsx")  # openpyxl writes only each array's anchor
    ours = recalc_book(book, None, write=False).evaluation
    recalc_book(book, tmp_path / "out.xlsx", engine="libreoffice")
    got = read_cached_values(tmp_path / "out.xlsx")["T"]
    assert {c for s, c in ours.cells if s == "T"} == set(got)
    assert got["D3"] == pytest.approx(_crit(I_V5E, 8192, 8192), rel=1e-12)
    assert got["J1"] == pytest.approx(_crit(I_H100, 8192, 8192), rel=1e-12)


def test_calc_writes_the_excel_names_into_xlsx(probe):
    _, f, _ = probe
    assert f["A1"] == 'CRIT_BATCH(Chips,"H100",8192,8192)'
    assert f["D1"] == "CRIT_BATCH(Chips,E1:E3,8192,8192)"


def test_functions_libreoffice_does_not_know_are_reported(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "=SUM(NOSUCHFN(1),2)"
    ws["A2"] = "=ATTN_INTENSITY(4096,4096,8)"  # T·S·G / (T·G + S) = 4096·8/9 = 3640.89
    wb.save(tmp_path / "b.xlsx")
    run = subprocess.run([sys.executable, "-m", "rooflinexl.cli", "recalc",
                          str(tmp_path / "b.xlsx"), "-o", str(tmp_path / "o.xlsx"),
                          "--engine", "libreoffice"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 1
    assert "LibreOffice does not know NOSUCHFN" in run.stdout
    assert "Unknown functions: NOSUCHFN\n" in run.stdout  # not SUM
    got = read_cached_values(tmp_path / "o.xlsx")["Sheet"]
    assert got["A2"] == pytest.approx(4096 * 4096 * 8 / (4096 * 8 + 4096), rel=1e-12)


def test_extension_installs_works_and_uninstalls(tmp_path):
    """unopkg add/remove of the .oxt into a throw-away profile (root: a throw-away shared place).

    As a user this is what ``rooflinexl libreoffice install`` does, into that user's profile;
    unopkg refuses a per-user install as root, so root installs ``--shared``.
    """
    import os

    profile = soffice.write_profile(tmp_path / "profile")
    shared = os.geteuid() == 0
    cache = tmp_path / "unopkg-shared-cache"  # a throw-away place for a --shared install
    env = [f"-env:UNO_SHARED_PACKAGES_CACHE={cache.as_uri()}"] if shared else []
    unopkg = [*env, f"-env:UserInstallation={profile.resolve().as_uri()}"]
    book = tmp_path / "b.xlsx"
    wb = openpyxl.Workbook()
    wb.active["A1"] = "=ATTN_INTENSITY(4096,4096,8)"
    wb.save(book)

    def calc(outdir):
        soffice.run_soffice([*env, "--convert-to", "xlsx", "--outdir", str(outdir), str(book)],
                            profile)
        return read_cached_values(outdir / "b.xlsx")["Sheet"]["A1"]

    addin.install(shared=shared, unopkg_args=unopkg)
    try:
        assert calc(tmp_path / "in") == pytest.approx(4096 * 4096 * 8 / (4096 * 8 + 4096),
                                                      rel=1e-12)
    finally:
        addin.uninstall(shared=shared, unopkg_args=unopkg)
    assert calc(tmp_path / "out") == "#NAME?"


def test_every_function_of_the_catalogue_in_calc_equals_our_engine(tmp_path):
    """Each function of udfs.FUNCTIONS with its required arguments, then with all of them."""
    import inspect

    from rooflinexl import udfs

    wb = openpyxl.load_workbook(ROOT / "workbooks/Roofline.xlsx")  # for its Chips sheet
    ws = wb.create_sheet("Catalogue")
    skipped = []
    for name, fn in udfs.FUNCTIONS.items():
        params = list(inspect.signature(fn).parameters.values())
        required = [p.name for p in params if p.default is inspect.Parameter.empty]
        if any(p not in SAMPLES for p in required):
            skipped.append(name)
            continue
        known = [p.name for p in params if p.name in SAMPLES]
        for args in (required, known):
            ws.append([f"={name}({','.join(str(SAMPLES[a]) for a in args)})"])
    book = tmp_path / "catalogue.xlsx"
    wb.save(book)
    ours = recalc_book(book, None, write=False).evaluation
    lo = recalc_book(book, None, write=False, engine="libreoffice").evaluation
    mine = {k: c for k, c in lo.cells.items() if k[0] == "Catalogue"}
    assert len(mine) == 2 * (len(udfs.FUNCTIONS) - len(skipped)) >= 28
    differ = [(c.formula, ours.cells[k].value, c.value) for k, c in mine.items()
              if not _equal(ours.cells[k].value, c.value)]
    assert not differ, differ
    assert not [c for c in mine.values() if c.is_error]


_WIZARD = """
import json, os, subprocess, sys, time
import uno
soffice, profile, reg = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
p = subprocess.Popen([soffice, "--headless", "--norestore", "--nologo",
                      "-env:UserInstallation=" + profile, *reg,
                      "--accept=pipe,name=rooflinexlwizard;urp;"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
try:
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext(
        "com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(120):
        try:
            ctx = resolver.resolve(
                "uno:pipe,name=rooflinexlwizard;urp;StarOffice.ComponentContext")
            break
        except Exception:
            time.sleep(0.5)
    fd = ctx.ServiceManager.createInstanceWithContext(
        "com.sun.star.sheet.FunctionDescriptions", ctx)
    out = {}
    for i in range(fd.getCount()):
        props = {pv.Name: pv.Value for pv in fd.getByIndex(i)}
        out[props["Name"]] = [props["Description"],
                              [[a.Name, a.IsOptional, a.Description]
                               for a in props["Arguments"] or ()]]
    print(json.dumps(out))
finally:
    os.killpg(p.pid, 9)
"""


def test_function_wizard_shows_names_arguments_and_docs_from_udfs(tmp_path):
    """LibreOffice's own function list (what Insert > Function shows), read over UNO."""
    import json

    from rooflinexl import udfs

    python = next((p for p in ("/usr/bin/python3", str(soffice.program_dir() / "python"))
                   if Path(p).is_file() and subprocess.run(
                       [p, "-c", "import uno"], capture_output=True).returncode == 0), None)
    if python is None:
        pytest.skip("no Python with the uno module to talk to LibreOffice")
    folder = addin.stage(tmp_path / "addin", log=tmp_path / "addin.log")
    run = subprocess.run([python, "-c", _WIZARD, soffice.soffice_path(),
                          (tmp_path / "profile").as_uri(),
                          json.dumps(addin.registration_args(folder))],
                         capture_output=True, text=True, timeout=180, env=soffice.office_env())
    assert run.returncode == 0, run.stderr
    listed = json.loads(run.stdout.strip().splitlines()[-1])
    for f in addin.catalogue():
        description, args = listed[f.name]
        assert description == f.description
        assert args == [[a.name, a.optional, a.doc] for a in f.arguments]
    assert listed["CRIT_BATCH"][1][2] == ["D", True, udfs.DOCS["D"]]
