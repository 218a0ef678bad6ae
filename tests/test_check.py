"""`rooflinexl recalc --check` and `rooflinexl diff`: stale cells, reports, schemas, pre-commit.

The scenario of issue #8: a workbook is committed, a price in its Chips sheet changes (here by
editing the sheet XML, so the formulas' cached values stay stale), and the check names every
cell that moved, in each output format; `recalc --in-place` makes it pass again.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import openpyxl
import openpyxl.utils
import pytest
from click.testing import CliRunner

from rooflinexl.check import Labels, check_books, diff_books, relative_change, values_equal
from rooflinexl.cli import main
from rooflinexl.errors import ExcelError
from rooflinexl.ooxml import formula_cells, read_cached_values, sheet_parts, stamp_cached_values

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "workbooks" / "Roofline.xlsx"
SCHEMAS = ROOT / "docs" / "schemas"
# counted from the workbook's own XML: formula cells, and sheets that hold formulas
_FORMULAS = formula_cells(BOOK)
N_FORMULAS = sum(len(cells) for cells in _FORMULAS.values())
N_SHEETS = sum(1 for cells in _FORMULAS.values() if cells)

OLD_PRICE, NEW_PRICE = 10.0, 9.2  # H200, USD per chip-hour (Chips sheet, price_per_hour)


def _layout():
    """(H200 price cell of the Chips sheet, H200 row and headline row of the Cost sheet)."""
    wb = openpyxl.load_workbook(BOOK)
    head = [c.value for c in wb["Chips"][1]]
    col = next(i for i, h in enumerate(head, 1) if str(h).startswith("price_per_hour"))
    row = next(r for r in range(2, wb["Chips"].max_row + 1)
               if wb["Chips"].cell(r, 1).value == "H200")
    cost = [r for r in range(1, wb["Cost"].max_row + 1) if wb["Cost"].cell(r, 1).value == "H200"]
    return f"{openpyxl.utils.get_column_letter(col)}{row}", cost[0], cost[1]


PRICE_CELL, _H, _HEAD = _layout()
PRICE_REF = f"Chips!{PRICE_CELL}"
# Every formula that depends on the H200 price: its row of the Cost sheet (price, USD per 1e18
# FLOP at peak and at MFU, FLOPs per USD) and the headline comparison H200 vs TPU v5p.
MOVED = [f"Cost!B{_H}", f"Cost!E{_H}", f"Cost!F{_H}", f"Cost!G{_H}", f"Cost!B{_HEAD}",
         f"Cost!C{_HEAD}"]


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _set_constant(src: Path, dst: Path, sheet: str, cell: str, old: str, new: str) -> None:
    """Copy ``src`` to ``dst`` with one constant changed in the sheet XML (caches left stale)."""
    part = sheet_parts(src)[sheet]
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == part:
                pat = re.compile(rb'<c r="%s"[^>]*>.*?</c>' % cell.encode())
                m = pat.search(data)
                assert m and f"<v>{old}</v>".encode() in m.group(), m
                data = data.replace(m.group(), m.group().replace(
                    f"<v>{old}</v>".encode(), f"<v>{new}</v>".encode()))
            zout.writestr(info, data)


@pytest.fixture(scope="module")
def stale(tmp_path_factory):
    """Roofline.xlsx with the H200 price 10 -> 9.2 in its Chips sheet, cached values stale."""
    path = tmp_path_factory.mktemp("stale") / "Roofline.xlsx"
    _set_constant(BOOK, path, "Chips", PRICE_CELL, "10", "9.2")
    return path


@pytest.fixture(scope="module")
def stale_reports(stale, tmp_path_factory):
    """One `recalc --check` of the stale book, its report in all four formats."""
    d = tmp_path_factory.mktemp("reports")
    res = run("recalc", "--check", stale, "--format", "json",
              "--report", d / "r.xml", "--report", d / "r.md", "--report", f"text:{d / 'r.log'}",
              "--report", d / "r.json")
    assert res.exit_code == 1, res.output
    return {"stdout": res.stdout, "json": json.loads((d / "r.json").read_text("utf-8")),
            "junit": (d / "r.xml").read_text("utf-8"), "markdown": (d / "r.md").read_text("utf-8"),
            "text": (d / "r.log").read_text("utf-8")}


@pytest.fixture(scope="module")
def recalculated(stale, tmp_path_factory):
    """The stale book after `rooflinexl recalc --in-place`."""
    path = tmp_path_factory.mktemp("fixed") / "Roofline.xlsx"
    shutil.copy(stale, path)
    res = run("recalc", "--in-place", path)
    assert res.exit_code == 0, res.output
    return path


def _expected_new_values():
    """Hand formulas: USD per 1e18 FLOP = price / (3600 * peak) * 1e18 (Cost sheet, MFU 0.5)."""
    chips = openpyxl.load_workbook(BOOK, read_only=True)["Chips"]
    rows = {r[0]: r for r in chips.iter_rows(min_row=2, values_only=True) if r[0]}
    peak_h200, peak_v5p = rows["H200"][4], rows["TPU v5p"][4]  # column E: bf16_flops
    j = openpyxl.utils.column_index_from_string(PRICE_CELL.rstrip("0123456789")) - 1
    price_v5p = rows["TPU v5p"][j]  # price_per_hour
    assert (peak_h200, rows["H200"][j]) == (9.89e14, OLD_PRICE)
    usd = NEW_PRICE / (3600 * peak_h200) * 1e18
    usd_v5p = price_v5p / (3600 * peak_v5p) * 1e18
    return {f"Cost!B{_H}": NEW_PRICE, f"Cost!E{_H}": usd, f"Cost!F{_H}": usd / 0.5,
            f"Cost!G{_H}": 3600 * peak_h200 / NEW_PRICE, f"Cost!B{_HEAD}": usd,
            f"Cost!C{_HEAD}": usd / usd_v5p}


# ----------------------------------------------------------------------------- check


def test_shipped_workbook_passes_the_check():
    res = run("recalc", "--check", BOOK)
    assert res.exit_code == 0, res.output
    assert f"{N_FORMULAS} formulas, 0 stale, 0 errors: ok" in res.output


def _sheet_decompressions(monkeypatch) -> dict:
    """Count, per worksheet part, how often a zip member is opened for reading (decompressed)."""
    opened: dict = {}
    real = zipfile.ZipFile.open

    def counting(self, name, mode="r", *args, **kwargs):
        member = getattr(name, "filename", name)
        if mode == "r" and member.startswith("xl/worksheets/sheet"):
            opened[member] = opened.get(member, 0) + 1
        return real(self, name, mode, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", counting)
    return opened


def test_check_decompresses_each_sheet_part_once(monkeypatch):
    """The package check, the engine's reader and the cached-value reader share one read."""
    n_sheets = len(sheet_parts(BOOK))
    opened = _sheet_decompressions(monkeypatch)
    report = check_books([BOOK])
    assert report.exit_code == 0
    assert len(opened) == n_sheets >= 5 and set(opened.values()) == {1}, opened


def test_parts_over_the_kept_budget_are_read_again_alike(monkeypatch):
    """Nothing kept (budget 0): every sheet is decompressed again by each reader, same report."""
    from rooflinexl.ooxml import package

    monkeypatch.setattr(package, "KEEP_BYTES", 0)
    opened = _sheet_decompressions(monkeypatch)
    report = check_books([BOOK])
    assert report.exit_code == 0 and report.books[0].compared == N_FORMULAS
    assert set(opened.values()) == {3}, opened


def test_stale_workbook_fails_listing_exactly_the_cells_that_depend_on_the_price(stale_reports):
    doc = stale_reports["json"]
    assert doc["exit_code"] == 1 and doc["mode"] == "check"
    (book,) = doc["books"]
    assert book["status"] == "fail" and book["stale"] == 6 and book["errors"] == 0
    assert [c["address"] for c in book["cells"]] == MOVED
    expected = _expected_new_values()
    for c in book["cells"]:
        assert c["status"] == "stale" and c["stale"] and not c["input"]
        assert math.isclose(c["new"], expected[c["address"]], rel_tol=1e-12), c
        # the cached value is what the old price gave: new/old = 9.2/10 (or its inverse)
        ratio = NEW_PRICE / OLD_PRICE
        want = 1 / ratio - 1 if c["address"] == f"Cost!G{_H}" else ratio - 1
        assert math.isclose(c["rel_change"], want, rel_tol=1e-9), c
    labels = {c["address"]: c["label"] for c in book["cells"]}
    assert labels[f"Cost!E{_H}"] == "H200 / USD per 1e18 FLOP at peak"
    assert labels[f"Cost!B{_H}"] == "H200 / price [USD/chip-hour]"
    assert labels[f"Cost!C{_HEAD}"] == "H200 / ratio"
    assert book["cells"][1]["formula"] == f"=COST_PER_FLOP(Chips,A{_H},$A$6)*1E+18"
    assert book["sheets"] == [{
        "sheet": "Cost", "cells": 6, "inputs": 0, "stale": 6, "errors": 0,
        "median_rel_change": pytest.approx(-0.08),
        "summary": "6 stale cells on Cost, median -8.0 %"}]


@pytest.mark.parametrize("fmt", ["text", "markdown", "junit"])
def test_every_format_names_every_moved_cell(stale_reports, fmt):
    out = stale_reports[fmt]
    for address in MOVED:
        assert address in out, (fmt, address)
    assert "-8.0 %" in out and "+8.7 %" in out  # FLOPs per USD rises by 10/9.2 - 1
    assert "H200 / USD per 1e18 FLOP at peak" in out
    assert "Chips!" not in out  # the input is not a formula: nothing stale there


def test_text_report_reads_well(stale, stale_reports):
    text = stale_reports["text"]
    assert stale_reports["stdout"].strip() == text.strip()  # with --report: text on stdout
    lines = text.splitlines()
    assert lines[0].startswith(f"{stale}: {N_FORMULAS} formulas, 6 stale, 0 errors: FAIL (")
    assert lines[1].strip() == "6 stale cells on Cost, median -8.0 %"
    e14 = next(line for line in lines if f"Cost!E{_H}" in line)
    assert "2.80867 -> 2.58398" in e14 and e14.rstrip().endswith("-8.0 %")


def test_markdown_report_is_a_pull_request_comment(stale_reports):
    md = stale_reports["markdown"]
    assert md.startswith("### rooflinexl check: 1 of 1 workbook failing")
    assert "| cell | label | cached | recalculated | change | note |" in md
    assert f"| `Cost!E{_H}` | H200 / USD per 1e18 FLOP at peak | 2.80867 | 2.58398 | -8.0 % |" in md


def test_json_report_validates_against_its_schema(stale_reports, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((SCHEMAS / "report.schema.json").read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    validator.validate(stale_reports["json"])
    # a clean book, an error book and an unusable one in one run
    errors = _small_book(tmp_path / "errors.xlsx", {"C2": "=1/B2", "C3": "=NOSUCH(1)"})
    res = run("recalc", "--check", "--format", "json", errors, tmp_path / "missing.xlsx")
    assert res.exit_code == 2
    doc = json.loads(res.stdout)
    validator.validate(doc)
    assert [b["status"] for b in doc["books"]] == ["fail", "unusable"]
    assert doc["books"][0]["unknown_functions"] == ["NOSUCH"]
    # a bad document is rejected (the schema is not vacuous)
    bad = json.loads(json.dumps(stale_reports["json"]))
    bad["books"][0]["cells"][0]["status"] = "weird"
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(bad)


def test_junit_report_validates_against_the_xsd(stale_reports, tmp_path):
    xmlschema = pytest.importorskip("xmlschema")
    xsd = xmlschema.XMLSchema(SCHEMAS / "junit.xsd")
    xml = stale_reports["junit"]
    xsd.validate(xml)

    tree = ET.fromstring(xml)
    (suite,) = tree.findall("testsuite")
    assert suite.get("name") == str(stale_reports["json"]["books"][0]["path"])
    counts = (suite.get("tests"), suite.get("failures"), suite.get("errors"))
    assert counts == (str(N_SHEETS), "1", "0")
    cost = suite.find("testcase[@name='Cost']")
    (failure,) = cost.findall("failure")
    assert failure.get("type") == "stale"
    assert failure.get("message") == "6 stale cells on Cost, median -8.0 %"
    assert len(failure.text.splitlines()) == 6
    assert suite.find("testcase[@name='Intensity']").find("failure") is None
    # unusable input and a diff are valid JUnit too
    res = run("recalc", "--check", "--format", "junit", tmp_path / "missing.xlsx")
    assert res.exit_code == 2
    xsd.validate(res.stdout)
    assert ET.fromstring(res.stdout).find("testsuite/testcase/error").get("type") == "unusable"
    res = run("diff", "--format", "junit", BOOK, BOOK)
    assert res.exit_code == 0
    xsd.validate(res.stdout)
    # the schema is not vacuous
    with pytest.raises(xmlschema.XMLSchemaValidationError):
        xsd.validate(xml.replace(f'tests="{N_SHEETS}"', 'tests="seven"'))


def test_recalc_in_place_makes_the_check_pass(recalculated):
    res = run("recalc", "--check", recalculated)
    assert res.exit_code == 0, res.output
    cached = read_cached_values(recalculated)["Cost"]
    expected = _expected_new_values()
    for address in MOVED:
        assert math.isclose(cached[address.split("!")[1]], expected[address], rel_tol=1e-12)
    # a fresh book is left byte for byte (the pre-commit fixer then reports no change)
    before = recalculated.read_bytes()
    assert run("recalc", "--in-place", "-q", recalculated).exit_code == 0
    assert recalculated.read_bytes() == before


# ------------------------------------------------------------------------------ diff


def test_diff_names_the_changed_input(stale):
    res = run("diff", BOOK, stale)
    assert res.exit_code == 1, res.output
    assert "1 cell differs (1 input, 0 results)" in res.output
    line = next(x for x in res.output.splitlines() if PRICE_REF in x)
    assert "H200 / price_per_hour [USD/chip-hour]" in line and "10 -> 9.2" in line
    assert line.rstrip().endswith("-8.0 %")


def test_diff_after_recalculation_shows_every_moved_cell(stale, recalculated):
    rep = diff_books(BOOK, recalculated)
    assert [c.address for c in rep.cells] == MOVED + [PRICE_REF]
    assert [c.input for c in rep.cells] == [False] * 6 + [True]
    summaries = [s.text for s in rep.sheet_summaries()]
    assert summaries == ["6 cells on Cost moved (0 inputs, 6 results), median -8.0 %",
                         "1 cell on Chips moved (1 input, 0 results), median -8.0 %"]
    assert all(c.status == "changed" for c in rep.cells)
    # --recalc recomputes both books: same answer from the stale file
    res = run("diff", "--recalc", "--format", "json", BOOK, stale)
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert [c["address"] for c in doc["books"][0]["cells"]] == MOVED + [PRICE_REF]
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(doc, json.loads((SCHEMAS / "report.schema.json").read_text("utf-8")),
                        cls=jsonschema.Draft202012Validator)
    md = run("diff", "--format", "markdown", BOOK, recalculated).stdout
    assert md.startswith("### rooflinexl diff: 7 cells differ")
    assert f"| `Cost!E{_H}` | result | H200 / USD per 1e18 FLOP at peak | 2.80867 | 2.58398 |" in md
    assert f"| `{PRICE_REF}` | input | H200 / price_per_hour [USD/chip-hour] | 10 | 9.2 |" in md


def test_diff_of_identical_books_and_added_removed_cells(tmp_path):
    assert run("diff", BOOK, BOOK).exit_code == 0
    a = _small_book(tmp_path / "a.xlsx", {"C2": "=B2*2"})
    wb = openpyxl.load_workbook(a)
    ws = wb["Calc"]
    ws["A4"], ws["B4"], ws["C4"] = "gamma", 5, "=B4*2"
    ws["C3"] = None
    wb.create_sheet("Extra")["A1"] = "note"
    wb.save(tmp_path / "b.xlsx")
    rep = diff_books(a, tmp_path / "b.xlsx", recalc=True)
    got = {c.address: (c.status, c.input) for c in rep.cells}
    assert got == {"Calc!C3": ("removed", False), "Calc!A4": ("added", True),
                   "Calc!B4": ("added", True), "Calc!C4": ("added", False),
                   "Extra!A1": ("added", True)}
    assert next(c for c in rep.cells if c.cell == "C4").new == 10


def test_unusable_input_to_diff_exits_2(tmp_path):
    res = run("diff", BOOK, tmp_path / "nope.xlsx")
    assert res.exit_code == 2 and "no such file" in res.output


# ------------------------------------------------------------------ many books, options


def _small_book(path, formulas, *, recalc=True):
    """A small workbook: item/value/ratio table on sheet Calc; recalculated in place."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Calc"
    ws.append(["item", "value", "ratio"])
    ws.append(["alpha", 0, None])
    ws.append(["beta", 4, "=B3*2"])
    for cell, f in formulas.items():
        ws[cell] = f
    wb.save(path)
    if recalc:
        run("recalc", "--in-place", "-q", path)
    return path


def test_many_books_and_globs(tmp_path):
    d = tmp_path / "books"
    d.mkdir()
    _small_book(d / "a.xlsx", {})
    b = _small_book(d / "b.xlsx", {})
    stamp_cached_values(b, b, {"Calc": {"C3": 7.0}})  # stale: B3*2 is 8
    res = run("recalc", "--check", str(d / "*.xlsx"))
    assert res.exit_code == 1, res.output
    lines = res.output.splitlines()
    assert any(x.startswith(f"{d / 'a.xlsx'}: 1 formulas, 0 stale, 0 errors: ok") for x in lines)
    assert any(x.startswith(f"{d / 'b.xlsx'}: 1 formulas, 1 stale, 0 errors: FAIL") for x in lines)
    assert any("Calc!C3" in x and "beta / ratio" in x and "7 -> 8" in x for x in lines)
    assert lines[-1] == "2 workbooks: 1 fail"
    # a glob matching nothing is an error, like a missing file
    res = run("recalc", "--check", str(d / "*.xlsm"))
    assert res.exit_code == 2 and "no file matches" in res.output
    res = run("recalc", "--check", d / "a.xlsx", d / "missing.xlsx")
    assert res.exit_code == 2 and "missing.xlsx" in res.output
    # without --check several books are recalculated in turn
    res = run("recalc", "--in-place", "-q", str(d / "*.xlsx"))
    assert res.exit_code == 0, res.output
    assert run("recalc", "--check", "-q", str(d / "*.xlsx")).output == ""


def test_jobs_check_a_folder_in_processes_in_a_fixed_order(tmp_path, stale):
    """``--jobs 2``: the same report as one process, books in argument (glob) order."""
    d = tmp_path / "plans"
    d.mkdir()
    for name in ("c.xlsx", "a.xlsx"):
        _small_book(d / name, {})
    b = _small_book(d / "b.xlsx", {})
    stamp_cached_values(b, b, {"Calc": {"C3": 7.0}})  # stale: B3*2 is 8
    shutil.copyfile(stale, d / "d.xlsx")
    reports = []
    for jobs in ("1", "2"):
        res = run("recalc", "--check", "--jobs", jobs, "--format", "json", str(d / "*.xlsx"))
        assert res.exit_code == 1, res.output
        report = json.loads(res.output)
        for book in report["books"]:
            book.pop("seconds")
        reports.append(report)
    assert reports[0] == reports[1]
    books = reports[1]["books"]
    assert [Path(b["path"]).name for b in books] == ["a.xlsx", "b.xlsx", "c.xlsx", "d.xlsx"]
    assert [b["status"] for b in books] == ["ok", "fail", "ok", "fail"]
    assert sorted(f"{c['sheet']}!{c['cell']}" for c in books[3]["cells"]) == sorted(MOVED)
    res = run("recalc", "--jobs", "2", str(d / "a.xlsx"))
    assert res.exit_code == 2 and "--jobs needs --check" in res.output


def test_fail_on_and_rtol(tmp_path):
    err = _small_book(tmp_path / "err.xlsx", {"C2": "=1/B2"})  # #DIV/0!, cached fresh
    assert run("recalc", "--check", err).exit_code == 1
    assert run("recalc", "--check", "--fail-on", "stale", err).exit_code == 0
    assert run("recalc", "--check", "--fail-on", "errors", err).exit_code == 1
    near = _small_book(tmp_path / "near.xlsx", {})
    stamp_cached_values(near, near, {"Calc": {"C3": 8.0 * (1 + 1e-7)}})
    assert run("recalc", "--check", near).exit_code == 1
    assert run("recalc", "--check", "--rtol", "1e-6", near).exit_code == 0
    assert run("recalc", "--check", "--fail-on", "errors", near).exit_code == 0


def test_text_booleans_and_errors_compare_exactly():
    assert values_equal(8.0, 8) and values_equal(1.0, 1.0 + 1e-10)
    assert not values_equal(1.0, 1.0 + 1e-8)
    assert not values_equal("abc", "abd") and values_equal("abc", "abc")
    assert not values_equal(True, 1.0) and not values_equal("8", 8)
    assert not values_equal(ExcelError("#N/A"), ExcelError("#NUM!"))
    assert not values_equal(ExcelError("#N/A"), "#N/A")
    assert values_equal(None, "") and not values_equal(None, 0)
    assert relative_change(10, 9.2) == pytest.approx(-0.08)
    assert relative_change(0, 5) is None and relative_change("x", 1) is None


def test_options_that_do_not_go_together(tmp_path):
    a = _small_book(tmp_path / "a.xlsx", {}, recalc=False)
    b = _small_book(tmp_path / "b.xlsx", {}, recalc=False)
    for args, words in [
        (("recalc", a, b, "-o", tmp_path / "o.xlsx"), "--output takes one BOOK"),
        (("recalc", "--check", "--in-place", a), "--check writes nothing"),
        (("recalc", "--format", "json", a), "--format needs --check"),
        (("recalc", "--report", "r.xml", a), "--report needs --check"),
        (("recalc", "--rtol", "1e-3", a), "--rtol needs --check"),
    ]:
        res = run(*args)
        assert res.exit_code == 2 and words in res.output, (args, res.output)
    res = run("recalc", "--check", "--rtol", "-1", a)
    assert res.exit_code == 2
    assert not (tmp_path / "o.xlsx").exists() and not (tmp_path / "a.recalc.xlsx").exists()


def test_library_api(stale):
    report = check_books([stale], rtol=1e-9, fail_on="stale")
    assert report.exit_code == 1
    assert [c.address for c in report.books[0].cells] == MOVED
    assert json.loads(report.render("json"))["fail_on"] == "stale"


def test_labels_row_label_and_column_header():
    consts = {"S": {(1, 1): "n_chips", (1, 2): "TPU v5e", (2, 1): 2, (3, 1): 4,
                    (5, 1): "chip", (5, 2): "price", (6, 1): "H200", (6, 2): "—"}}
    labels = Labels(consts)
    assert labels.label("S", "B2") == "n_chips 2 / TPU v5e"  # a number row label and its header
    assert labels.label("S", "C6") == "H200"  # no header above column C
    assert labels.label("S", "A1") == ""
    assert labels.label("S", "B6") == "H200 / price"


# ---------------------------------------------------------------------------- pre-commit


def test_pre_commit_hooks_manifest():
    yaml = pytest.importorskip("yaml")
    path = ROOT / ".pre-commit-hooks.yaml"
    hooks = {h["id"]: h for h in yaml.safe_load(path.read_text("utf-8"))}
    assert set(hooks) == {"rooflinexl-check", "rooflinexl-recalc"}
    assert hooks["rooflinexl-check"]["entry"] == "rooflinexl recalc --check"
    assert hooks["rooflinexl-recalc"]["entry"].startswith("rooflinexl recalc --in-place")
    for h in hooks.values():
        assert h["language"] == "python" and h["name"]
        rx = re.compile(h["files"])
        assert rx.search("a/b.xlsx") and rx.search("b.xlsm") and not rx.search("c.csv")
        deps = " ".join(h["additional_dependencies"])
        assert "openpyxl" in deps and "click" in deps and "formulas" not in deps
    try:
        from pre_commit.clientlib import load_manifest
    except ImportError:
        return
    loaded = load_manifest(str(path))  # pre-commit's own schema check
    assert {h["id"] for h in loaded} == set(hooks)


def _git(cwd, *args, check=True):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=check)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.skipif(bool(os.environ.get("ROOFLINEXL_SKIP_PRE_COMMIT")),
                    reason="ROOFLINEXL_SKIP_PRE_COMMIT is set")
def test_pre_commit_hooks_run_in_a_temporary_git_repository(tmp_path, stale):
    """The CEO's commit: a stale workbook is refused, the fixer recalculates, then it passes.

    pre-commit installs this repository (a temporary git copy of it) into its own virtualenv
    with pip: about 15 s with a warm pip cache. Set ROOFLINEXL_SKIP_PRE_COMMIT=1 to skip.
    """
    pytest.importorskip("pre_commit")
    src = tmp_path / "rooflinexl-src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "rooflinexl", src / "rooflinexl",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _git(src, "init", "-q")
    _git(src, "add", "-A")
    _git(src, "commit", "-qm", "rooflinexl")
    rev = _git(src, "rev-parse", "HEAD").stdout.strip()

    repo = tmp_path / "plans"
    repo.mkdir()
    _git(repo, "init", "-q")
    shutil.copy(BOOK, repo / "Roofline.xlsx")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {src.as_posix()}\n    rev: {rev}\n    hooks:\n"
        "      - id: rooflinexl-check\n      - id: rooflinexl-recalc\n", encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "plans", "--no-verify")

    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")

    def pre_commit(*args):
        return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=repo, env=env,
                              capture_output=True, text=True)

    res = pre_commit("install-hooks")
    if res.returncode:
        pytest.skip(f"pre-commit could not install the hook environment:\n{res.stdout[-2000:]}")
    assert pre_commit("install").returncode == 0

    # the price changes; the cached values do not: the commit is refused, the cells named
    shutil.copy(stale, repo / "Roofline.xlsx")
    _git(repo, "add", "Roofline.xlsx")
    res = subprocess.run(["git", "commit", "-m", "H200 price 9.2"], cwd=repo, env=env,
                         capture_output=True, text=True)
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "rooflinexl check" in out and "Failed" in out
    for address in MOVED:
        assert address in out, out
    assert "files were modified by this hook" in out  # the fixer recalculated in place
    assert run("recalc", "--check", repo / "Roofline.xlsx").exit_code == 0

    # stage the fixed workbook: both hooks pass and the commit goes through
    _git(repo, "add", "Roofline.xlsx")
    res = subprocess.run(["git", "commit", "-m", "H200 price 9.2"], cwd=repo, env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert _git(repo, "status", "--porcelain").stdout.strip() == ""
