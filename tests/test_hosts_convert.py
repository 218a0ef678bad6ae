"""Workbooks for every host: ``rooflinexl convert`` and the shipped ``lite/`` copies (issue #14.1).

xlwings Server and Lite register our functions as Office.js custom functions
named ``ROOFLINE.CRIT_BATCH`` …, which Excel stores in a file as
``_xldudf_ROOFLINE_CRIT_BATCH(`` (Microsoft, OfficeDev/Excel-Custom-Functions#108);
classic xlwings calls them ``CRIT_BATCH(``. The expected texts below are written
by hand from those rules.
"""
from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from rooflinexl.cli import main
from rooflinexl.hosts import convert_formula, convert_workbook
from rooflinexl.ooxml import formula_cells, read_cached_values
from rooflinexl.workbooks import BUILDERS
from rooflinexl.workbooks.build import VARIANTS, variant_path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "workbooks" / "Roofline.xlsx"


@pytest.mark.parametrize("classic, lite", [
    ('=CRIT_BATCH(Chips,"H100",8192,8192)',
     '=_xldudf_ROOFLINE_CRIT_BATCH(Chips,"H100",8192,8192)'),
    # strings, quoted sheet names and other functions stay
    ('=IFERROR(MATMUL_TIME(Chips,A2,B2,C2,D2),"MATMUL_TIME(")&\'CRIT_BATCH(x)\'!A1',
     '=IFERROR(_xldudf_ROOFLINE_MATMUL_TIME(Chips,A2,B2,C2,D2),"MATMUL_TIME(")'
     '&\'CRIT_BATCH(x)\'!A1'),
    ("=SUM(ROOFLINE_TIME(Chips,B7,1E+15,2E+12),VERSION())",
     "=SUM(_xldudf_ROOFLINE_ROOFLINE_TIME(Chips,B7,1E+15,2E+12),_xldudf_ROOFLINE_VERSION())"),
    ("=Table1[@chip]&CHIP_SPEC(Chips,Table1[[#This Row],[chip]],\"hbm_bw\")",
     "=Table1[@chip]&_xldudf_ROOFLINE_CHIP_SPEC(Chips,Table1[[#This Row],[chip]],\"hbm_bw\")"),
    ("=crit_batch(Chips,,8192)", "=_xldudf_ROOFLINE_CRIT_BATCH(Chips,,8192)"),
    ("=_xlfn.STDEV.S(A1:A3)+MY_UDF(1)", "=_xlfn.STDEV.S(A1:A3)+MY_UDF(1)"),
])
def test_convert_formula_both_ways(classic, lite):
    assert convert_formula(classic, "lite") == lite
    assert convert_formula(classic, "server") == lite
    assert convert_formula(lite, "classic") == classic.replace("crit_batch", "CRIT_BATCH")


@pytest.mark.parametrize("spelling", ["ROOFLINE.CRIT_BATCH(A1)", "_xludf.ROOFLINE.CRIT_BATCH(A1)",
                                      "_xludf.CRIT_BATCH(A1)", "_xldudf_ROOFLINE_CRIT_BATCH(A1)"])
def test_every_spelling_is_read(spelling):
    assert convert_formula(spelling, "classic") == "CRIT_BATCH(A1)"
    assert convert_formula(spelling, "lite") == "_xldudf_ROOFLINE_CRIT_BATCH(A1)"


def test_addin_qualified_calls_are_left_alone():
    assert convert_formula("=[1]!CRIT_BATCH(A1)", "lite") == "=[1]!CRIT_BATCH(A1)"


def test_unknown_host_is_refused(tmp_path):
    with pytest.raises(ValueError, match="classic, server, lite"):
        convert_formula("=VERSION()", "web")
    res = CliRunner().invoke(main, ["convert", str(BOOK), "--host", "web"])
    assert res.exit_code == 2 and "classic" in res.output


def _calls(formulas: dict) -> int:
    return sum(f.upper().count(n + "(") for cells in formulas.values() for f in cells.values()
               for n in ("CRIT_BATCH", "MATMUL_TIME", "CRIT_INTENSITY", "MOE_MIN_BATCH",
                         "NET_CRITICAL_D", "ROOFLINE_FLOPS", "ROOFLINE_TIME", "COST_PER_FLOP",
                         "CHIP_SPEC", "WEIGHT_LOAD_TIME", "KV_CACHE_BYTES", "ATTN_INTENSITY",
                         "COLLECTIVE_TIME", "ARITH_INTENSITY", "VERSION"))


def test_convert_workbook_keeps_everything_but_the_names(tmp_path):
    out = tmp_path / "lite.xlsx"
    res = CliRunner().invoke(main, ["convert", str(BOOK), "--host", "lite", "-o", str(out)])
    assert res.exit_code == 0, res.output
    before, after = formula_cells(BOOK), formula_cells(out)
    assert before.keys() == after.keys()
    for sheet in before:
        assert before[sheet].keys() == after[sheet].keys()
        for ref, f in before[sheet].items():
            assert convert_formula(after[sheet][ref], "classic") == f
    n = _calls(before)
    assert n > 50  # the workbook calls our functions throughout
    assert sum(f.count("_xldudf_ROOFLINE_") for c in after.values() for f in c.values()) == n
    assert read_cached_values(out) == read_cached_values(BOOK)  # cached values kept
    with zipfile.ZipFile(BOOK) as za, zipfile.ZipFile(out) as zb:
        assert za.namelist() == zb.namelist()
        for name in za.namelist():
            if not name.startswith("xl/worksheets/sheet"):
                assert za.read(name) == zb.read(name), name
    # and back: the classic file again, byte for byte in every part
    back = tmp_path / "back.xlsx"
    assert convert_workbook(out, back, "classic") > 0
    with zipfile.ZipFile(BOOK) as za, zipfile.ZipFile(back) as zb:
        for name in za.namelist():
            assert za.read(name) == zb.read(name), name


def test_convert_in_place_is_atomic_and_keeps_permissions(tmp_path):
    book = tmp_path / "b.xlsx"
    book.write_bytes(BOOK.read_bytes())
    os.chmod(book, 0o640)
    res = CliRunner().invoke(main, ["convert", str(book), "--host", "server"])
    assert res.exit_code == 0, res.output
    assert stat.S_IMODE(book.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["b.xlsx"]  # no temp file left
    assert any("_xldudf_ROOFLINE_CRIT_BATCH(" in f
               for cells in formula_cells(book).values() for f in cells.values())


def test_convert_refuses_a_non_workbook(tmp_path):
    bad = tmp_path / "x.xlsx"
    bad.write_bytes(b"not a zip")
    res = CliRunner().invoke(main, ["convert", str(bad), "--host", "lite"])
    assert res.exit_code == 2 and "not a zip" in res.output.lower()
    assert bad.read_bytes() == b"not a zip"


def test_shipped_host_variants_recalculate_clean():
    """Every lite/ copy: formulas spelt for Server/Lite, cached values up to date headless."""
    books = [str(ROOT / variant_path(rel, f)) for rel in sorted(BUILDERS) for f in VARIANTS]
    for b in books:
        assert any("_xldudf_ROOFLINE_" in f for c in formula_cells(b).values()
                   for f in c.values()), b
    res = CliRunner().invoke(main, ["recalc", "--check", *books])
    assert res.exit_code == 0, res.output
