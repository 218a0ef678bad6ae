"""Workbooks saved by real applications go through ``rooflinexl recalc`` (issue #7, item 1).

``tests/data/excel-saved/`` holds files saved by Excel (Windows, Mac,
Online), LibreOffice and openpyxl (its README says what each exercises). Every
``.xlsx``/``.xlsm`` there is recalculated by the CLI and

* each formula's value agrees with the value Excel cached in the file (numbers
  to a relative 1e-9, text, booleans and error values exactly), where it cached
  one;
* the output differs from the input only in the cached values of formula cells:
  every zip member other than a worksheet keeps its decompressed bytes (drawings,
  media, rich data and ``metadata.xml``, ``vbaProject.bin``, tables, styles,
  defined names in ``workbook.xml``, ``calcChain.xml``, external links, printer
  settings, document properties), members keep their names, order and dates, and
  each worksheet is byte-identical once the ``<v>`` and ``t="..."`` of its formula
  cells are removed (so extensions, shared formulas, styles of cells, every
  non-formula cell are unchanged);
* the exit status is honest: 0 when every formula computes, 1 naming each error
  cell or unknown function.

Every other file there (encrypted, ``.xls``, ``.xlsb``, ``.ods``, a 68-byte
stub) is refused per item 2: exit 2, one line that names the problem and what to
do, nothing written.

The same holds for our own ``workbooks/Roofline.xlsx`` after LibreOffice saved
it (which caches ``#NAME?`` for our functions) and after a user-like edit made
in LibreOffice (an input changed in its document model, then saved as .xlsx).

Where our engine gets a real file wrong, the cell is listed in ``ENGINE_BUGS``
and checked by a strict xfail test, so the fix turns it into a failure that asks
for the entry to be removed.
"""
from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from rooflinexl.cli import main
from rooflinexl.errors import EXCEL_ERRORS
from rooflinexl.ooxml import formula_cells, read_cached_values

ROOT = Path(__file__).resolve().parents[1]
SAVED = ROOT / "tests" / "data" / "excel-saved"
BOOK = ROOT / "workbooks" / "Roofline.xlsx"

FILES = sorted(p.name for p in SAVED.iterdir() if p.suffix.lower() != ".md")

#: files item 2 refuses, with words the one-line message must contain
REFUSED = {
    "pass_protected.xlsx": ("encrypted", "without a password"),
    "any_sheets.xls": (".xls", "save as .xlsx"),
    "any_sheets.xlsb": (".xlsb", "save as .xlsx"),
    "any_sheets.ods": (".ods", "save as .xlsx"),
    "too_small.xls": ("not a zip", "save it again"),
}
RECALCULATED = [n for n in FILES if n not in REFUSED]

#: Workbooks with a circular reference and iterative calculation off: Excel caches 0
#: (after its warning); rooflinexl reports each such cell as an error whose reason names
#: the circular reference, and exits 1. (issue_565_multi_axis_shared.xlsx has cycles but
#: enables iterative calculation in its calcPr: Excel iterates them to 0, and so do we.)
CIRCULAR: set[str] = set()

#: (file, sheet, cell): (formula, Excel's cached value, what recalc gives today).
#: Engine bugs, routed to the evaluation core; checked by test_known_engine_bugs.
#: (errors.xlsx Feuil1!A7, VLOOKUP(B1,B1,B1,3): Excel's #N/A, fixed: VLOOKUP searches before
#: it checks its col_index_num, tests/test_recalc_wrong_numbers2.py)
ENGINE_BUGS: dict = {}


# ---------------------------------------------------------------------------- helpers
_CELL = re.compile(rb"<((?:[A-Za-z_][\w.\-]*:)?)c(\s[^>]*?)?(/>|>(.*?)</\1c\s*>)", re.DOTALL)


def strip_formula_values(xml: bytes) -> bytes:
    """Sheet XML with the ``<v>`` children and ``t`` attribute of formula cells removed.

    Written independently of rooflinexl.ooxml's scanner, so it checks it.
    """
    def one(m: re.Match) -> bytes:
        p, attrs, body = m.group(1), m.group(2) or b"", m.group(4)
        q = re.escape(p)
        if body is None or not re.search(rb"<" + q + rb"f[\s/>]", body):
            return m.group(0)
        attrs = re.sub(rb"""\st\s*=\s*(?:"[^"]*"|'[^']*')""", b"", attrs)
        body = re.sub(rb"<" + q + rb"v(?:\s[^>]*)?(?:/>|>.*?</" + q + rb"v\s*>)", b"", body,
                      flags=re.DOTALL)
        return b"<" + p + b"c" + attrs + b">" + body + b"</" + p + b"c>"
    return _CELL.sub(one, xml)


def worksheet_members(path) -> set[str]:
    """Zip members that are worksheets (per the workbook's relationships)."""
    with zipfile.ZipFile(path) as zf:
        names = {n.lower(): n for n in zf.namelist()}
        out = set()
        for rels in [n for n in zf.namelist() if n.lower().endswith(".rels")]:
            text = zf.read(rels).decode("utf-8", "replace")
            folder = rels.rsplit("_rels/", 1)[0]
            for target in re.findall(r'Type="[^"]*/worksheet"[^>]*Target="([^"]+)"', text) + \
                    re.findall(r'Target="([^"]+)"[^>]*Type="[^"]*/worksheet"', text):
                part = target.lstrip("/") if target.startswith("/") else folder + target
                hit = names.get(part.lower())
                if hit:
                    out.add(hit)
        return out


def assert_only_cached_values_differ(src, dst) -> list[str]:
    """Item 1's byte-for-byte rule; returns the members compared whole."""
    sheets = worksheet_members(src)
    with zipfile.ZipFile(src) as za, zipfile.ZipFile(dst) as zb:
        ia, ib = za.infolist(), zb.infolist()
        assert [i.filename for i in ia] == [i.filename for i in ib], "members or order changed"
        assert [i.date_time for i in ia] == [i.date_time for i in ib]
        assert za.comment == zb.comment
        whole = []
        for info in ia:
            a, b = za.read(info), zb.read(info.filename)
            if info.filename in sheets:
                assert strip_formula_values(a) == strip_formula_values(b), \
                    f"{info.filename}: more than cached values changed"
            else:
                assert a == b, f"{info.filename} changed"
                whole.append(info.filename)
        return whole


def same_value(excel, ours) -> bool:
    if isinstance(excel, bool) or isinstance(ours, bool):
        return type(excel) is type(ours) and excel == ours
    if isinstance(excel, float) and isinstance(ours, float):
        return math.isclose(excel, ours, rel_tol=1e-9, abs_tol=0.0)
    return type(excel) is type(ours) and str(excel) == str(ours) or excel == ours


def run_recalc(*args):
    return CliRunner().invoke(main, ["recalc", *map(str, args)])


class _Recalculated(dict):
    """name -> (exit code, output, output path, exception), each file recalculated once,
    when a test first asks for it (so the fast suite skips the slow files' recalc)."""

    def __init__(self, folder: Path):
        super().__init__()
        self.folder = folder

    def __missing__(self, name):
        dst = self.folder / name
        res = run_recalc(SAVED / name, "-o", dst)
        self[name] = value = (res.exit_code, res.output, dst, res.exception)
        return value

    def __contains__(self, name) -> bool:
        return name in RECALCULATED


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    """The files recalc is meant to process, recalculated on demand."""
    return _Recalculated(tmp_path_factory.mktemp("excel-saved-recalc"))


#: files whose recalculation takes many seconds (whole-column ranges over a 1,048,576-row
#: sheet): their cases are marked slow, so the fast suite leaves them to CI
SLOW_FILES = {"column_row_ranges.xlsx", "string-ref.xlsx"}
CASES = [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_FILES else n
         for n in RECALCULATED]


# ------------------------------------------------------------------------------ item 1
def test_every_file_is_recalculated_or_refused():
    """A file added to the folder is picked up: .xlsx/.xlsm recalculated, anything else refused."""
    for name in FILES:
        if name not in REFUSED:
            assert name.lower().endswith((".xlsx", ".xlsm")), \
                f"{name}: not an .xlsx/.xlsm; add it to REFUSED with its message"
    assert len(RECALCULATED) >= 20


@pytest.mark.parametrize("name", CASES)
def test_recalc_exit_status_is_honest(recalculated, name):
    code, output, dst, exc = recalculated[name]
    assert (exc is None or isinstance(exc, SystemExit)) and code in (0, 1), output
    assert "Traceback" not in output
    ours = read_cached_values(dst)
    errors = {(s, r) for s, cells in ours.items() for r, v in cells.items()
              if isinstance(v, str) and v in EXCEL_ERRORS}
    unknown = "Unknown functions:" in output
    assert code == (1 if errors or unknown else 0), output
    for sheet, ref in errors:  # every error cell named, with its reason
        assert re.search(rf"^\s+{re.escape(sheet)}!{ref}\s+#", output, re.MULTILINE), \
            (sheet, ref, output)
    if name in CIRCULAR:
        assert errors and "circular" in output


@pytest.mark.parametrize("name", CASES)
def test_values_agree_with_what_excel_cached(recalculated, name):
    code, output, dst, _ = recalculated[name]
    excel, ours = read_cached_values(SAVED / name), read_cached_values(dst)
    formulas = formula_cells(SAVED / name)
    assert set(ours) == set(excel)
    compared, wrong = 0, []
    for sheet, cells in excel.items():
        assert set(ours[sheet]) == set(cells)
        for ref, cached in cells.items():
            got = ours[sheet][ref]
            assert got is not None and not (isinstance(got, float) and not math.isfinite(got)), \
                (sheet, ref, got)  # every formula cell gets a finite cached value
            if cached is None or (name, sheet, ref) in ENGINE_BUGS:
                continue
            if name in CIRCULAR and cached == 0 and got == "#VALUE!":
                continue  # documented divergence (CIRCULAR)
            compared += 1
            if not same_value(cached, got):
                wrong.append(f"{sheet}!{ref} ={formulas[sheet].get(ref)!r}: Excel {cached!r}, "
                             f"rooflinexl {got!r}")
    assert not wrong, "\n".join(wrong)
    if any(formulas.values()) and name not in CIRCULAR:
        assert compared, "no cached value to compare with"


@pytest.mark.parametrize("name", CASES)
def test_only_cached_values_change(recalculated, name):
    code, output, dst, _ = recalculated[name]
    whole = assert_only_cached_values_differ(SAVED / name, dst)
    assert whole  # at least [Content_Types].xml, workbook.xml, styles ...
    with zipfile.ZipFile(SAVED / name) as zf:
        if "xl/vbaProject.bin" in zf.namelist():  # macros: kept byte for byte, never run
            assert "xl/vbaProject.bin" in whole and Path(dst).suffix == ".xlsm"


@pytest.mark.parametrize("name, part", [
    ("picture.xlsx", "xl/media/"), ("picture.xlsx", "xl/drawings/"),
    ("picture_richdata.xlsx", "xl/richData/"), ("picture_richdata.xlsx", "xl/metadata.xml"),
    ("vba.xlsm", "xl/vbaProject.bin"), ("issue3.xlsm", "xl/worksheets/"),
    ("table-multiple.xlsx", "xl/tables/"), ("temperature-table.xlsx", "xl/tables/"),
    ("errors.xlsx", "xl/externalLinks/"), ("errors.xlsx", "xl/calcChain.xml"),
    ("issues.xlsx", "xl/printerSettings/"), ("date_1904.xlsx", "xl/workbook.xml"),
    ("hyperlinks.xlsx", "xl/worksheets/_rels/"), ("rph.xlsx", "xl/sharedStrings.xml"),
])
def test_named_parts_survive(recalculated, name, part):
    """The parts the folder's README names are present and unchanged after recalc."""
    assert name in recalculated, f"{name} is missing from tests/data/excel-saved"
    dst = recalculated[name][2]
    with zipfile.ZipFile(SAVED / name) as za, zipfile.ZipFile(dst) as zb:
        hits = [n for n in za.namelist() if n.startswith(part)]
        assert hits, f"{name} has no {part}"
        for n in hits:
            assert za.read(n) == zb.read(n), n


@pytest.mark.parametrize("key", sorted(ENGINE_BUGS), ids=lambda k: f"{k[0]}!{k[1]}!{k[2]}")
def test_known_engine_bugs(recalculated, key):
    name, sheet, ref = key
    formula, excel_value, _today = ENGINE_BUGS[key]
    assert name in recalculated, f"{name} is missing from tests/data/excel-saved"
    assert formula_cells(SAVED / name)[sheet][ref] == formula
    assert read_cached_values(SAVED / name)[sheet][ref] == excel_value
    got = read_cached_values(recalculated[name][2])[sheet][ref]
    if same_value(excel_value, got):
        pytest.fail(f"fixed: remove {key} from ENGINE_BUGS")
    pytest.xfail(f"engine bug, routed: {name} {sheet}!{ref} ={formula}: Excel {excel_value}, "
                 f"rooflinexl {got}")


# ------------------------------------------------------------------------------ item 2
@pytest.mark.parametrize("name", sorted(n for n in REFUSED if n in FILES))
def test_other_formats_are_refused_cleanly(tmp_path, name):
    out = tmp_path / "out.xlsx"
    proc = subprocess.run([sys.executable, "-m", "rooflinexl.cli", "recalc", str(SAVED / name),
                           "-o", str(out)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rooflinexl: "), proc.stderr
    for word in REFUSED[name]:
        assert word.lower() in lines[0].lower(), (word, lines[0])
    assert list(tmp_path.iterdir()) == []  # nothing written, no temp file


# ----------------------------------------------------- our workbook, saved by LibreOffice
def _soffice_convert(src: Path, outdir: Path, target: str) -> Path:
    from rooflinexl.libreoffice.soffice import convert

    return convert([src], outdir, target, "." + target.split(":")[0], 180)[0]


@pytest.fixture(scope="module")
def libreoffice_saved(tmp_path_factory):
    """Roofline.xlsx re-saved by LibreOffice, and a copy with MFU edited in LibreOffice.

    The edit: xlsx -> flat ODF (LibreOffice's own document model, as text), the
    Cost sheet's MFU input 50% -> 40%, then saved as .xlsx by LibreOffice, which
    recalculates on load and caches #NAME? for every rooflinexl function.
    """
    from libreoffice import recalc_with_libreoffice, require_soffice

    require_soffice()
    tmp = tmp_path_factory.mktemp("lo")
    src = tmp / "Roofline.xlsx"
    shutil.copyfile(BOOK, src)
    [resaved] = recalc_with_libreoffice([src], tmp / "resaved")
    fods = _soffice_convert(src, tmp / "fods", "fods")
    text = fods.read_text(encoding="utf-8")
    mfu = re.compile(r'(office:value-type="percentage" office:value=")0\.5("[^>]*>\s*<text:p>)'
                     r"50%(</text:p>)")
    edited, n = mfu.subn(r"\g<1>0.4\g<2>40%\g<3>", text)
    assert n == 1, "the MFU input (50%) of the Cost sheet was not found exactly once"
    (tmp / "edit").mkdir()
    (tmp / "edit" / "Edited.fods").write_text(edited, encoding="utf-8")
    [edited_xlsx] = recalc_with_libreoffice([tmp / "edit" / "Edited.fods"], tmp / "edited")
    return resaved, edited_xlsx


def _recalc_libreoffice_file(path: Path, tmp_path: Path):
    before = read_cached_values(path)
    assert any(v == "#NAME?" for cells in before.values() for v in cells.values()), \
        "LibreOffice was expected to cache #NAME? for rooflinexl functions"
    out = tmp_path / path.name
    res = run_recalc(path, "-o", out)
    assert res.exit_code == 0, res.output
    assert_only_cached_values_differ(path, out)
    after = read_cached_values(out)
    for sheet, cells in after.items():
        for ref, v in cells.items():
            assert v is not None and not (isinstance(v, str) and v in EXCEL_ERRORS), \
                (sheet, ref, v)
    return after


@pytest.mark.slow
def test_libreoffice_resaved_workbook(libreoffice_saved, tmp_path):
    resaved, _ = libreoffice_saved
    after = _recalc_libreoffice_file(resaved, tmp_path)
    ours = read_cached_values(BOOK)  # the committed workbook, recalculated by us
    assert set(after) == set(ours)
    for sheet, cells in ours.items():
        assert set(after[sheet]) == set(cells), sheet
        for ref, v in cells.items():
            assert same_value(v, after[sheet][ref]), (sheet, ref, v, after[sheet][ref])


@pytest.mark.slow
def test_libreoffice_user_edit(libreoffice_saved, tmp_path):
    _, edited = libreoffice_saved
    after = _recalc_libreoffice_file(edited, tmp_path)
    ours = read_cached_values(BOOK)
    f = formula_cells(BOOK)["Cost"]
    moved = set()
    for sheet, cells in ours.items():
        for ref, v in cells.items():
            new = after[sheet][ref]
            if not same_value(v, new):
                moved.add(f"{sheet}!{ref}")
                assert "$B$6" in f.get(ref, "") and sheet == "Cost", (sheet, ref, v, new)
                assert math.isclose(new, v * 0.5 / 0.4, rel_tol=1e-9), (ref, v, new)
    # USD per 1e18 FLOP at MFU of the first priced chip (row 9) and of the H200 row
    cost = openpyxl.load_workbook(BOOK, read_only=True)["Cost"]
    h200 = next(r for r, (a,) in enumerate(cost.iter_rows(min_col=1, max_col=1, values_only=True),
                                            start=1) if a == "H200")
    assert {"Cost!F9", f"Cost!F{h200}"} <= moved
