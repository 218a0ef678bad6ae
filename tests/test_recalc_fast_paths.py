"""The fast paths of a plan's recalculation (issue 13 item 4: CPU at most half LibreOffice's).

Each bulk path here is checked against values written in the test: the numbers' texts
in the cached values (Python's shortest round-trip text, which Excel reads back as the
same double; whole numbers without ".0"), the DOCTYPE/ENTITY refusal wherever the
marker sits, the loader's reading of every kind of constant cell, the grouping of a
filled-down column, and what a plan's recalculation imports.
"""
from __future__ import annotations

import io
import re
import subprocess
import sys
import zipfile

import openpyxl
import pytest

from rooflinexl.errors import ExcelError
from rooflinexl.ooxml import package, stamp_cached_values
from rooflinexl.recalc import loader
from rooflinexl.recalc.refs import group_keys

ROWS = 40


@pytest.fixture
def plan(tmp_path):
    """ROWS rows: a label, two inputs, and two filled-down formulas (C, D)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    ws.append(["chip", "B", "x", "y"])
    for r in range(2, ROWS + 2):
        ws.append([f"chip {r % 3}", r, f"=B{r}*2", f"=C{r}+1"])
    path = tmp_path / "plan.xlsx"
    wb.save(path)
    return path


def _cached_texts(path, part="xl/worksheets/sheet1.xml") -> dict[str, tuple[str, str]]:
    """``{"C2": (t attribute or "", <v> text)}`` of the formula cells, read from the XML."""
    xml = zipfile.ZipFile(path).read(part).decode()
    out = {}
    for m in re.finditer(r'<c r="([A-Z]+[0-9]+)"([^>]*)><f>[^<]*</f><v>([^<]*)</v></c>', xml):
        t = re.search(r'\bt="([^"]*)"', m.group(2))
        out[m.group(1)] = (t.group(1) if t else "", m.group(3))
    return out


def test_numbers_cached_in_bulk_have_their_round_trip_text(plan, tmp_path):
    # the texts: Python's shortest round trip of each double (what Excel reads back as the
    # same number), a whole number without ".0" (as Excel writes 5), -0.0 as "-0"
    expected = {5.0: "5", 318.1552864301085: "318.1552864301085", 3.1e-05: "3.1e-05",
                1e16: "1e+16", -0.5: "-0.5", 0.1: "0.1", 2.0 ** 53: "9007199254740992"}
    numbers = list(expected)
    values = {f"C{r}": numbers[r % len(numbers)] for r in range(2, ROWS + 2)}
    values.update({f"D{r}": 1234.5 for r in range(2, ROWS + 2)})  # one number repeated
    out = tmp_path / "out.xlsx"
    stamp_cached_values(plan, out, {"Plan": values})
    got = _cached_texts(out)
    for r in range(2, ROWS + 2):
        assert got[f"C{r}"] == ("", expected[numbers[r % len(numbers)]])
        assert got[f"D{r}"] == ("", "1234.5")


def test_repeated_zeros_keep_their_sign(plan, tmp_path):
    """0.0 and -0.0 are equal (one key of a dict) but are written "0" and "-0"."""
    values = {f"C{r}": (-0.0 if r % 2 else 0.0) for r in range(2, ROWS + 2)}
    values.update({f"D{r}": 7.0 for r in range(2, ROWS + 2)})
    out = tmp_path / "out.xlsx"
    stamp_cached_values(plan, out, {"Plan": values})
    got = _cached_texts(out)
    assert [got[f"C{r}"][1] for r in (2, 3, 4, 5)] == ["0", "-0", "0", "-0"]
    assert {got[f"D{r}"] for r in range(2, ROWS + 2)} == {("", "7")}


def test_mixed_values_are_cached_with_their_types(plan, tmp_path):
    values = {f"C{r}": float(r) for r in range(2, ROWS + 2)}
    values.update({"C3": True, "C4": "text <&>", "C5": ExcelError("#N/A")})
    values.update({f"D{r}": 0.25 for r in range(2, ROWS + 2)})
    out = tmp_path / "out.xlsx"
    stamp_cached_values(plan, out, {"Plan": values})
    got = _cached_texts(out)
    assert got["C2"] == ("", "2") and got["C6"] == ("", "6")
    assert got["C3"] == ("b", "1")
    assert got["C4"] == ("str", "text &lt;&amp;&gt;")
    assert got["C5"] == ("e", "#N/A")
    assert got["D9"] == ("", "0.25")


# ------------------------------------------------------------ DOCTYPE/ENTITY markers


def _reader(data: bytes):
    return io.BytesIO(data)


@pytest.mark.parametrize("encoding", ["ascii", "utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("word", ["<!DOCTYPE x>", "<!doctype x>", "<!ENTITY e 'x'>",
                                  "<!Entity e 'x'>"])
def test_markers_are_found_in_any_case_and_encoding(encoding, word):
    body = "<sheetData>" + "<c r=\"A1\"><f>Sheet1!A1&lt;2</f></c>" * 50 + "</sheetData>"
    data = (word + body).encode(encoding)
    assert package.has_dtd(_reader(data)) == (True, len(data))
    data = (body + word).encode(encoding)  # late in the part as well
    assert package.has_dtd(_reader(data))[0]


@pytest.mark.parametrize("cut", [1, 3, 5, 8])
def test_a_marker_across_two_reads_is_found(cut):
    """The part is read a chunk (1 MiB) at a time: a marker cut by a chunk's end."""
    marker = b"<!DOCTYPE"
    filler = b"x" * (package.CHUNK - cut)
    data = filler + marker + b" y>" + b"z" * 100
    assert package.has_dtd(_reader(data)) == (True, len(data))


def test_exclamation_marks_and_comments_are_no_markers():
    data = (b"<c><f>Sheet1!A1&gt;0</f></c><!-- a comment --><![CDATA[x]]>"
            + "<!Ä>".encode("utf-16-le") + b"!" * 10)
    assert package.has_dtd(_reader(data)) == (False, len(data))


# ------------------------------------------------------------------------ the loader


@pytest.mark.parametrize("stretch", [150, 1 << 22])
def test_loader_reads_every_kind_of_constant(tmp_path, monkeypatch, stretch):
    """Numbers, text, booleans, error constants and formulas side by side in each stretch
    (a small stretch puts one or two rows in each, some without a formula)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    rows = []
    for r in range(1, 31):
        row = [r * 1.5, f"t{r}", r % 2 == 0, "#N/A" if r % 5 == 0 else None,
               f"=A{r}*2" if r % 3 else None]
        rows.append(row)
        ws.append(row)
        if row[3] is not None:
            ws.cell(r, 4).data_type = "e"
    path = tmp_path / "kinds.xlsx"
    wb.save(path)
    monkeypatch.setattr(loader, "_SCAN_BYTES", stretch)
    monkeypatch.setattr(loader, "_general", None)  # the bulk scan only
    sheet = loader.read_book(path).sheets[0]
    consts = {(r, c): v for r, c, v in zip(sheet.const_rows, sheet.const_cols,
                                            sheet.const_vals, strict=True)}
    formulas = dict(zip(zip(sheet.f_rows, sheet.f_cols, strict=True), sheet.f_texts,
                        strict=True))
    for r, (num, text, flag, err, formula) in enumerate(rows, start=1):
        assert consts[(r, 1)] == num and type(consts[(r, 1)]) is float
        assert consts[(r, 2)] == text
        assert consts[(r, 3)] is flag
        if err is None:
            assert (r, 4) not in consts
        else:
            assert str(consts[(r, 4)]) == "#N/A"
        assert formulas.get((r, 5)) == formula
    assert len(consts) == 3 * 30 + 6 and len(formulas) == 20


# ------------------------------------------------------------------------ grouping


def test_a_filled_down_column_is_one_group():
    rows = list(range(2, 202))
    ids = group_keys(rows, 3, [f"=B{r}*2+$A$1" for r in rows], {})
    assert ids == [ids[0]] * 200


def test_a_changed_cell_in_a_filled_down_column_is_its_own_group():
    rows = list(range(2, 202))
    texts = [f"=B{r}*2" for r in rows]
    texts[57] = "=B59*3"
    ids = group_keys(rows, 3, texts, {})
    assert ids[57] != ids[0]
    assert ids[:57] + ids[58:] == [ids[0]] * 199


# ------------------------------------------------------------------------ imports


def test_recalculating_a_plan_imports_no_heavy_library(plan, tmp_path):
    """openpyxl (and through it PIL), pandas and matplotlib are not what a plan's
    recalculation uses: importing them is start-up time for nothing."""
    code = ("import sys\n"
            "from rooflinexl.recalc.book import recalc_book\n"
            f"r = recalc_book({str(plan)!r}, {str(tmp_path / 'out.xlsx')!r})\n"
            "assert not r.errors, r.errors\n"
            "print(sorted({m.split('.')[0] for m in sys.modules}"
            " & {'openpyxl', 'PIL', 'pandas', 'matplotlib'}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------------ the report


def test_report_counts_formulas_and_errors_per_sheet(tmp_path):
    """``rooflinexl recalc``'s summary: per sheet, its formulas and its error cells (one
    #DIV/0! written here on the first sheet), from the cells' keys."""
    from rooflinexl.recalc.book import recalc_book

    wb = openpyxl.Workbook()
    first = wb.active
    first.title = "Inputs"
    second = wb.create_sheet("Plan")
    wb.create_sheet("Empty")
    for r in range(1, 31):
        first.append([r, f"=A{r}*2", "=1/0" if r == 7 else f"=B{r}+1"])
        second.append([f"=Inputs!B{r}*3"])
    path = tmp_path / "two.xlsx"
    wb.save(path)
    result = recalc_book(path, None, write=False)
    lines = result.report().splitlines()
    assert lines[0].startswith("two.xlsx: 90 formula cells on 3 sheets, 1 errors")
    assert f"  {'Inputs':<28} {60:>7} formulas {1:>6} errors" in lines
    assert f"  {'Plan':<28} {30:>7} formulas {0:>6} errors" in lines
    assert not any(line.lstrip().startswith("Empty") for line in lines)
    assert any(line.startswith("  Inputs!C7") and "#DIV/0!" in line for line in lines)
