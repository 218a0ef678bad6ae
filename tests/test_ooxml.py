"""rooflinexl.ooxml: refusing unusable packages and stamping cached values.

The stamper must leave a user's workbook exactly as it was except for the
``<v>`` element and ``t`` attribute of the formula cells it fills (and the
cells it creates inside an array formula's range): every other zip member
keeps its decompressed bytes and metadata, and readers that only look at
cached values (``openpyxl(data_only=True)``, pandas) see the results
(DESIGN.md section 7; reference/research-recalc.md sections 1 and 4).
"""
from __future__ import annotations

import math
import os
import re
import shutil
import stat
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import openpyxl
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl.worksheet.formula import ArrayFormula

from rooflinexl.errors import ExcelError, RooflineError
from rooflinexl.ooxml import (
    Limits,
    UnusableWorkbookError,
    check_package,
    formula_cells,
    read_cached_values,
    sheet_parts,
    sheetxml,
    stamp,
    stamp_cached_values,
)

SAVED = Path(__file__).resolve().parent / "data" / "excel-saved"


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def members(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def meta(path) -> list[tuple]:
    with zipfile.ZipFile(path) as zf:
        return [(i.filename, i.compress_type, i.date_time, i.external_attr, i.comment,
                 i.create_system) for i in zf.infolist()]


_V = re.compile(rb"<(\w+:)?v(\s[^>/]*)?(/>|>.*?</(\w+:)?v\s*>)", re.DOTALL)
_T = re.compile(rb"""(<(\w+:)?c\s[^>]*?)\st="[^"]*"([^>]*>)""")


def strip_values(xml: bytes) -> bytes:
    """Sheet XML without any <v> element and without the t attribute of cells."""
    xml = _V.sub(b"", xml)
    while True:
        new = _T.sub(rb"\1\3", xml)
        if new == xml:
            return xml
        xml = new


def assert_only_values_changed(src, dst, stamped_parts=()) -> None:
    """Every member identical (bytes and metadata) except the <v>/t of stamped sheets."""
    assert meta(src) == meta(dst)
    a, b = members(src), members(dst)
    assert list(a) == list(b)
    for name in a:
        if name in stamped_parts:
            assert strip_values(a[name]) == strip_values(b[name]), name
        else:
            assert a[name] == b[name], name
    with zipfile.ZipFile(src) as za, zipfile.ZipFile(dst) as zb:
        assert za.comment == zb.comment


def rewrite_zip(src, dst, replace: dict[str, bytes] | None = None,
                add: dict[str, bytes] | None = None, drop=()) -> Path:
    """A copy of the zip ``src`` with some members replaced, added or dropped."""
    replace, add = dict(replace or {}), dict(add or {})
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename in drop:
                continue
            zout.writestr(info.filename, replace.pop(info.filename, zin.read(info)))
        for name, data in {**replace, **add}.items():  # replacements of absent members: added
            zout.writestr(name, data)
    return Path(dst)


def data_only(path) -> openpyxl.Workbook:
    return openpyxl.load_workbook(path, data_only=True)


@pytest.fixture
def calc_book(tmp_path) -> Path:
    """openpyxl template: inputs, plain formulas and a text formula."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Calc"
    ws.append(["chip", "B", "D", "F", "time [s]", "label", "ok", "err", "blank"])
    ws.append(["H100", 8, 8192, 8192, "=2*B2*C2*D2/989e12", '=A2&" <&> "', "=E2>0",
               "=1/0", "=NA()"])
    ws.append(["TPU v5e", 16, 4096, 4096, "=2*B3*C3*D3/197e12", '=A3&"!"', "=E3>1",
               "=SQRT(-1)", "=E3"])
    ws2 = wb.create_sheet("Other & Co")
    ws2["A1"] = 3
    ws2["B1"] = "=A1*2"
    path = tmp_path / "calc.xlsx"
    wb.save(path)
    return path


# --------------------------------------------------------------------------
# stamping: values that readers see
# --------------------------------------------------------------------------


def test_stamp_values_read_by_openpyxl_pandas_and_us(calc_book, tmp_path):
    out = tmp_path / "out.xlsx"
    t_h100 = 2 * 8 * 8192 * 8192 / 989e12  # 1.0856e-3 s: the matmul roofline time
    values = {
        "Calc": {
            "E2": t_h100, "F2": "H100 <&> ", "G2": True, "H2": ExcelError("#DIV/0!", "1/0"),
            "I2": "#N/A",
            "E3": np.float64(318.1552864301085), "F3": "TPU v5e!", "G3": np.bool_(False),
            "H3": ExcelError("#NUM!"), "I3": 7,
        },
        "Other & Co": {"B1": 6},
    }
    stamp_cached_values(calc_book, out, values)

    wb = data_only(out)
    ws = wb["Calc"]
    assert ws["E2"].value == t_h100
    assert ws["F2"].value == "H100 <&> "
    assert ws["G2"].value is True
    assert ws["H2"].value == "#DIV/0!"
    assert ws["I2"].value == "#N/A"
    assert ws["E3"].value == 318.1552864301085
    assert ws["G3"].value is False
    assert ws["H3"].value == "#NUM!"
    assert ws["I3"].value == 7
    assert wb["Other & Co"]["B1"].value == 6
    assert ws["A2"].value == "H100"  # inputs untouched

    df = pd.read_excel(out, sheet_name="Calc")
    assert df.loc[0, "time [s]"] == t_h100
    assert df.loc[1, "time [s]"] == 318.1552864301085
    assert df.loc[0, "label"] == "H100 <&> "
    assert bool(df.loc[0, "ok"]) is True

    got = read_cached_values(out)
    assert got["Calc"]["E2"] == t_h100
    assert got["Calc"]["F2"] == "H100 <&> "
    assert got["Calc"]["G2"] is True
    assert isinstance(got["Calc"]["H2"], ExcelError) and got["Calc"]["H2"] == "#DIV/0!"
    assert got["Calc"]["I3"] == 7.0
    assert got["Other & Co"] == {"B1": 6.0}

    # the formulas themselves are unchanged, and so is everything else
    assert formula_cells(out) == formula_cells(calc_book)
    assert_only_values_changed(calc_book, out, {"xl/worksheets/sheet1.xml",
                                                "xl/worksheets/sheet2.xml"})


def test_formula_cells_text_is_unescaped(calc_book):
    cells = formula_cells(calc_book)
    assert cells["Calc"]["F2"] == 'A2&" <&> "'
    assert cells["Calc"]["E2"] == "2*B2*C2*D2/989e12"
    assert "A2" not in cells["Calc"]  # inputs are not formula cells
    assert cells["Other & Co"] == {"B1": "A1*2"}


def test_number_text_is_shortest_round_trip(calc_book, tmp_path):
    out = tmp_path / "out.xlsx"
    stamp_cached_values(calc_book, out, {"Calc": {"E2": 3.1e-05, "E3": 125.0, "I3": 1e300}})
    xml = members(out)["xl/worksheets/sheet1.xml"]
    assert b"<v>3.1e-05</v>" in xml
    assert b"<v>125</v>" in xml
    assert b"<v>1e+300</v>" in xml


def test_none_removes_the_cached_value(calc_book, tmp_path):
    once, twice = tmp_path / "once.xlsx", tmp_path / "twice.xlsx"
    stamp_cached_values(calc_book, once, {"Calc": {"E2": 1.5, "F2": "x"}})
    stamp_cached_values(once, twice, {"Calc": {"E2": None, "F2": None}})
    assert read_cached_values(twice)["Calc"]["E2"] is None
    assert read_cached_values(twice)["Calc"]["F2"] is None
    assert data_only(twice)["Calc"]["F2"].value is None
    xml = members(twice)["xl/worksheets/sheet1.xml"]
    cell = re.search(rb'<c r="F2"[^>]*>.*?</c>', xml).group(0)
    assert b"<v" not in cell and b" t=" not in cell


def test_restamp_replaces_type_and_value(calc_book, tmp_path):
    a, b = tmp_path / "a.xlsx", tmp_path / "b.xlsx"
    stamp_cached_values(calc_book, a, {"Calc": {"E2": "text", "G2": ExcelError("#N/A")}})
    stamp_cached_values(a, b, {"Calc": {"E2": 2.5, "G2": False}})
    assert read_cached_values(b)["Calc"]["E2"] == 2.5
    assert read_cached_values(b)["Calc"]["G2"] is False
    cell = re.search(rb'<c r="E2"[^>]*>', members(b)["xl/worksheets/sheet1.xml"]).group(0)
    assert b" t=" not in cell  # a number carries no t attribute


def test_refs_with_dollars_and_lower_case(calc_book, tmp_path):
    out = tmp_path / "out.xlsx"
    stamp_cached_values(calc_book, out, {"Calc": {"$e$2": 4.0, "e3": 5.0}})
    assert data_only(out)["Calc"]["E2"].value == 4
    assert data_only(out)["Calc"]["E3"].value == 5


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(number=st.floats(allow_nan=False, allow_infinity=False),
       text=st.text(max_size=40))
def test_values_round_trip(calc_book, tmp_path, number, text):
    out = tmp_path / "rt.xlsx"
    if text in sheetxml._ERROR_VALUES:
        text = text + " "
    stamp_cached_values(calc_book, out, {"Calc": {"E2": number, "F2": text}})
    got = read_cached_values(out)["Calc"]
    assert got["E2"] == number
    assert got["F2"] == text
    ElementTree.fromstring(members(out)["xl/worksheets/sheet1.xml"])  # still well-formed


_cached = st.one_of(
    st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False),
    st.integers(-(10**17), 10**17), st.text(max_size=12),
    st.sampled_from([ExcelError("#N/A"), "#DIV/0!", "#VALUE!"]),
)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=st.dictionaries(st.sampled_from(["E2", "F2", "G2", "H2", "I2", "E3", "I3"]),
                             _cached),
       second=st.dictionaries(st.sampled_from(["E2", "F2", "G2", "I3"]), _cached))
def test_fast_path_and_full_scan_agree(calc_book, monkeypatch, first, second):
    """Direct look-ups (the fast path) and the full cell scan write the same bytes."""
    xml = members(calc_book)["xl/worksheets/sheet1.xml"]
    part = "xl/worksheets/sheet1.xml"
    for values in (first, second):
        targets = {stamp._normalise_ref(k, "Calc"): sheetxml.encode_value(v, ("Calc", k))
                   for k, v in values.items()}
        fast = stamp._stamp_sheet(xml, part, "Calc", targets)
        with monkeypatch.context() as m:
            m.setattr(stamp, "_stamp_fast", lambda *a: None)
            full = stamp._stamp_sheet(xml, part, "Calc", targets)
        assert fast == full
        assert strip_values(fast) == strip_values(xml)
        xml = fast


def test_control_characters_use_excel_escapes(calc_book, tmp_path):
    out = tmp_path / "out.xlsx"
    text = "a\x01b\rc_x0041_d\te"
    stamp_cached_values(calc_book, out, {"Calc": {"F2": text}})
    xml = members(out)["xl/worksheets/sheet1.xml"]
    assert b"a_x0001_b_x000D_c_x005F_x0041_d\te" in xml
    assert read_cached_values(out)["Calc"]["F2"] == text


# --------------------------------------------------------------------------
# stamping: refusing to touch inputs, bad values
# --------------------------------------------------------------------------


@pytest.mark.parametrize("cells, match", [
    ({"A2": 1.0}, "not a formula cell"),  # an input
    ({"Z99": 1.0}, "holds no formula"),  # absent
    ({"B7:B9": 1.0}, "not a cell reference"),
    ({"E2": float("nan")}, "not finite"),
    ({"E2": math.inf}, "not finite"),
])
def test_stamp_refuses_bad_targets_and_writes_nothing(calc_book, tmp_path, cells, match):
    out = tmp_path / "out.xlsx"
    with pytest.raises(ValueError, match=match):
        stamp_cached_values(calc_book, out, {"Calc": cells})
    assert not out.exists()
    assert os.listdir(tmp_path) == ["calc.xlsx"]


def test_stamp_refuses_unknown_sheet_and_type(calc_book, tmp_path):
    with pytest.raises(ValueError, match="no worksheet named 'Nope'"):
        stamp_cached_values(calc_book, tmp_path / "o.xlsx", {"Nope": {"A1": 1}})
    with pytest.raises(TypeError, match="cannot store a dict"):
        stamp_cached_values(calc_book, tmp_path / "o.xlsx", {"Calc": {"E2": {}}})


def test_sheet_name_lookup_ignores_case(calc_book, tmp_path):
    out = tmp_path / "out.xlsx"
    stamp_cached_values(calc_book, out, {"calc": {"E2": 1.25}})
    assert read_cached_values(out)["Calc"]["E2"] == 1.25


# --------------------------------------------------------------------------
# array formulas and dynamic arrays
# --------------------------------------------------------------------------


def test_xlsxwriter_dynamic_array_keeps_cm_and_metadata(tmp_path):
    xlsxwriter = pytest.importorskip("xlsxwriter")
    src, out = tmp_path / "xw.xlsx", tmp_path / "out.xlsx"
    wb = xlsxwriter.Workbook(src)
    ws = wb.add_worksheet("S")
    for i, x in enumerate([1, 2, 3]):
        ws.write(i, 0, x)
    ws.write_dynamic_array_formula("B1:B3", "=A1:A3*2")
    ws.write_array_formula("C1:C3", "{=A1:A3*3}")
    ws.write_formula("D1", "=A1+1")
    wb.close()
    before = members(src)
    assert b'cm="1"' in before["xl/worksheets/sheet1.xml"]

    values = {"S": {"B1": 2, "B2": 4, "B3": 6, "C1": 3, "C2": 6, "C3": 9, "D1": 2}}
    stamp_cached_values(src, out, values)

    after = members(out)
    assert after["xl/metadata.xml"] == before["xl/metadata.xml"]
    xml = after["xl/worksheets/sheet1.xml"]
    assert re.search(rb'<c r="B1" cm="1"><f t="array" ref="B1:B3">A1:A3\*2</f><v>2</v></c>', xml)
    assert_only_values_changed(src, out, {"xl/worksheets/sheet1.xml"})
    ws = data_only(out)["S"]
    assert [ws[f"B{r}"].value for r in (1, 2, 3)] == [2, 4, 6]
    assert [ws[f"C{r}"].value for r in (1, 2, 3)] == [3, 6, 9]
    assert read_cached_values(out)["S"] == {k: float(v) for k, v in values["S"].items()}
    # spilled cells are not formula cells
    assert set(formula_cells(out)["S"]) == {"B1", "C1", "D1"}


def test_array_range_cells_are_created_with_rows(tmp_path):
    """openpyxl writes only the anchor of an array formula: rows 2-3 do not exist."""
    src, out = tmp_path / "arr.xlsx", tmp_path / "out.xlsx"
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["A2"], ws["A3"], ws["A5"] = 1, 2, 3, "after"
    ws["E2"] = 99  # a cell to the right of the range in row 2
    ws["B1"] = ArrayFormula("B1:D3", "=A1:A3*{1,2,3}")
    wb.save(src)
    xml0 = members(src)["xl/worksheets/sheet1.xml"]
    assert b'<c r="C2"' not in xml0

    values = {"Sheet": {f"{c}{r}": float(r * k) for r in (1, 2, 3)
                        for k, c in enumerate("BCD", start=1)}}
    values["Sheet"]["D3"] = None  # nothing to create
    stamp_cached_values(src, out, values)

    xml = members(out)["xl/worksheets/sheet1.xml"]
    root = ElementTree.fromstring(xml)
    ns = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
    rows = root.findall(".//m:sheetData/m:row", ns)
    assert [int(r.get("r")) for r in rows] == sorted(int(r.get("r")) for r in rows)
    for row in rows:  # cells sorted by column inside each row
        cols = [sheetxml.split_ref(c.get("r").encode())[1] for c in row.findall("m:c", ns)]
        assert cols == sorted(cols)
    assert [c.get("r") for c in rows[1].findall("m:c", ns)] == ["A2", "B2", "C2", "D2", "E2"]

    ws = data_only(out)["Sheet"]
    assert [[ws.cell(r, c).value for c in (2, 3, 4)] for r in (1, 2, 3)] == [
        [1, 2, 3], [2, 4, 6], [3, 6, None]]
    assert ws["E2"].value == 99 and ws["A5"].value == "after"
    df = pd.read_excel(out, header=None)
    assert df.iloc[2, 2] == 6
    # the file still opens as a formula workbook with the array formula intact
    wbf = openpyxl.load_workbook(out)
    assert isinstance(wbf["Sheet"]["B1"].value, ArrayFormula)
    assert wbf["Sheet"]["B1"].value.ref == "B1:D3"


def test_array_range_cell_goes_into_a_self_closing_row(tmp_path):
    src, out = tmp_path / "arr.xlsx", tmp_path / "out.xlsx"
    wb = openpyxl.Workbook()
    wb.active["B1"] = ArrayFormula("B1:B3", "=A1:A3")
    wb.active["C4"] = 1
    wb.save(src)
    xml = members(src)["xl/worksheets/sheet1.xml"]
    xml = xml.replace(b'<row r="4">', b'<row r="2" ht="30" customHeight="1" /><row r="4">')
    rewrite_zip(src, src.with_name("in.xlsx"), replace={"xl/worksheets/sheet1.xml": xml})
    stamp_cached_values(src.with_name("in.xlsx"), out,
                        {"Sheet": {"B1": 1.0, "B2": 2.0, "B3": 3.0}})
    new = members(out)["xl/worksheets/sheet1.xml"]
    assert (b'<row r="2" ht="30" customHeight="1" ><c r="B2"><v>2</v></c></row>'
            b'<row r="3"><c r="B3"><v>3</v></c></row><row r="4">') in new
    ws = data_only(out)["Sheet"]
    assert [ws[f"B{r}"].value for r in (1, 2, 3)] == [1, 2, 3]
    assert ws.row_dimensions[2].height == 30
    assert read_cached_values(out)["Sheet"] == {"B1": 1.0, "B2": 2.0, "B3": 3.0}


def test_cells_outside_an_array_range_are_refused(tmp_path):
    src = tmp_path / "arr.xlsx"
    wb = openpyxl.Workbook()
    wb.active["B1"] = ArrayFormula("B1:B2", "=A1:A2")
    wb.save(src)
    with pytest.raises(ValueError, match="B3 holds no formula"):
        stamp_cached_values(src, tmp_path / "o.xlsx", {"Sheet": {"B3": 1}})


# --------------------------------------------------------------------------
# workbooks saved by Excel
# --------------------------------------------------------------------------


def test_excel_shared_formulas(tmp_path):
    src, out = SAVED / "shared_formula_simple.xlsx", tmp_path / "out.xlsx"
    assert formula_cells(src) == {"Sheet1": {"B1": "A1*2", "B2": "", "B3": ""}}
    stamp_cached_values(src, out, {"Sheet1": {"B1": 20, "B2": 40, "B3": 60.5}})
    xml = members(out)["xl/worksheets/sheet1.xml"]
    assert b'<c r="B2"><f t="shared" si="0"/><v>40</v></c>' in xml
    assert_only_values_changed(src, out, {"xl/worksheets/sheet1.xml"})
    assert [c.value for c in data_only(out)["Sheet1"]["B"]] == [20, 40, 60.5]
    assert pd.read_excel(out, header=None)[1].tolist() == [20, 40, 60.5]


def test_excel_cached_errors_and_strings_are_replaced(tmp_path):
    src, out = SAVED / "errors.xlsx", tmp_path / "out.xlsx"  # t="e" cells, calcChain
    assert read_cached_values(src)["Feuil1"]["A1"] == ExcelError("#DIV/0!")
    stamp_cached_values(src, out, {"Feuil1": {"A1": 1.5, "A2": "ok", "A7": ExcelError("#N/A")}})
    got = read_cached_values(out)["Feuil1"]
    assert (got["A1"], got["A2"], got["A7"]) == (1.5, "ok", "#N/A")
    assert_only_values_changed(src, out, {"xl/worksheets/sheet1.xml"})  # calcChain untouched

    src, out = SAVED / "issue_553.xlsx", tmp_path / "out2.xlsx"  # t="str", Excel Online
    stamp_cached_values(src, out, {"Sheet1": {"B3": "한글 text", "B4": 4}})
    ws = data_only(out)["Sheet1"]
    assert (ws["B3"].value, ws["B4"].value) == ("한글 text", 4)
    assert_only_values_changed(src, out, {"xl/worksheets/sheet1.xml"})


@pytest.mark.parametrize("name, sheet, cells", [
    ("picture.xlsx", None, {}),  # drawings, images
    ("picture_richdata.xlsx", None, {}),  # image in a cell: metadata.xml, richData
    ("vba.xlsm", None, {}),  # vbaProject.bin
    ("issue_565_multi_axis_shared.xlsx", "Sheet1", {"A1": 1, "K1": 2, "F4": 3}),
    ("non_monotonic_si.xlsx", "Sheet1", {"A2": 7, "C6": 8}),
])
def test_excel_packages_survive_byte_for_byte(tmp_path, name, sheet, cells):
    src, out = SAVED / name, tmp_path / ("out" + Path(name).suffix)
    sheets = sheet_parts(src)
    values = {sheet: cells} if sheet else {s: {} for s in sheets}
    stamp_cached_values(src, out, values)
    assert_only_values_changed(src, out, {sheets[sheet]} if sheet else ())
    if sheet:
        got = read_cached_values(out)[sheet]
        assert {k: got[k] for k in cells} == {k: float(v) for k, v in cells.items()}
    if name.endswith(".xlsm"):
        assert members(out)["xl/vbaProject.bin"] == members(src)["xl/vbaProject.bin"]


def test_every_saved_xlsx_reads_like_openpyxl():
    """Formula cells and cached values agree with openpyxl on every real workbook."""
    import warnings

    checked = 0
    for path in sorted(SAVED.glob("*.xls[xm]")):
        try:
            check_package(path)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                wb, wbv = openpyxl.load_workbook(path), data_only(path)
        except (UnusableWorkbookError, IndexError):  # refused; or openpyxl cannot read it
            continue
        fc, cv = formula_cells(path), read_cached_values(path)
        for ws in wb.worksheets:
            theirs = {c.coordinate for row in ws.iter_rows() for c in row
                      if c.data_type == "f" or isinstance(c.value, ArrayFormula)}
            assert set(fc[ws.title]) == theirs, (path.name, ws.title)
            for ref in theirs:
                assert cv[ws.title][ref] == wbv[ws.title][ref].value, (path.name, ref)
        checked += 1
    assert checked >= 20


# --------------------------------------------------------------------------
# unusual but valid XML
# --------------------------------------------------------------------------


def test_cells_and_rows_without_r(calc_book, tmp_path):
    """The r attribute is optional: position follows from the previous row/cell."""
    src, out = tmp_path / "nor.xlsx", tmp_path / "out.xlsx"
    xml = members(calc_book)["xl/worksheets/sheet1.xml"]
    xml = re.sub(rb'(<(?:c|row)) r="[A-Z]*[0-9]+"', rb"\1", xml)
    assert b' r="' not in xml.split(b"<sheetData>")[1]
    rewrite_zip(calc_book, src, replace={"xl/worksheets/sheet1.xml": xml})
    assert formula_cells(src)["Calc"] == formula_cells(calc_book)["Calc"]
    stamp_cached_values(src, out, {"Calc": {"E3": 2.5, "F2": "x"}})
    ws = data_only(out)["Calc"]
    assert (ws["E3"].value, ws["F2"].value) == (2.5, "x")
    with pytest.raises(ValueError, match="not a formula cell"):
        stamp_cached_values(src, out, {"Calc": {"C3": 1}})


def test_namespace_prefixed_sheet_xml(calc_book, tmp_path):
    src, out = tmp_path / "pfx.xlsx", tmp_path / "out.xlsx"
    xml = members(calc_book)["xl/worksheets/sheet1.xml"]
    xml = xml.replace(b'<worksheet xmlns="', b'<x:worksheet xmlns:x="')
    xml = re.sub(rb"<(/?)(?!x:)([A-Za-z]+)", rb"<\1x:\2", xml)
    ElementTree.fromstring(xml)
    rewrite_zip(calc_book, src, replace={"xl/worksheets/sheet1.xml": xml})
    assert formula_cells(src)["Calc"]["E2"] == "2*B2*C2*D2/989e12"
    stamp_cached_values(src, out, {"Calc": {"E2": 1.0, "G2": True}})
    new = members(out)["xl/worksheets/sheet1.xml"]
    assert b"<x:v>1</x:v>" in new and b"<x:v>1</x:v></x:c>" in new
    assert read_cached_values(out)["Calc"]["G2"] is True
    assert data_only(out)["Calc"]["E2"].value == 1


def test_relative_and_absolute_relationship_targets(calc_book, tmp_path):
    rels = members(calc_book)["xl/_rels/workbook.xml.rels"]
    assert b'Target="/xl/worksheets/sheet1.xml"' in rels  # openpyxl writes absolute targets
    rel = tmp_path / "rel.xlsx"
    rewrite_zip(calc_book, rel, replace={"xl/_rels/workbook.xml.rels": rels.replace(
        b'Target="/xl/worksheets/', b'Target="./worksheets/../worksheets/')})
    expected = {"Calc": "xl/worksheets/sheet1.xml", "Other & Co": "xl/worksheets/sheet2.xml"}
    assert sheet_parts(calc_book) == expected
    assert sheet_parts(rel) == expected


def test_shared_string_cached_values_are_resolved(calc_book, tmp_path):
    src = tmp_path / "sst.xlsx"
    xml = members(calc_book)["xl/worksheets/sheet1.xml"]
    xml = re.sub(rb'<c r="F2"><f>(.*?)</f><v\s*/></c>', rb'<c r="F2" t="s"><f>\1</f><v>1</v></c>',
                 xml)
    sst = (b'<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
           b"<si><t>zero</t></si><si><r><t>o</t></r><r><t>ne</t></r><rPh><t>x</t></rPh></si></sst>")
    rewrite_zip(calc_book, src, replace={"xl/worksheets/sheet1.xml": xml,
                                         "xl/sharedStrings.xml": sst})
    assert read_cached_values(src)["Calc"]["F2"] == "one"
    out = tmp_path / "out.xlsx"
    stamp_cached_values(src, out, {"Calc": {"F2": "two"}})
    cell = re.search(rb'<c r="F2"[^>]*>.*?</c>', members(out)["xl/worksheets/sheet1.xml"])
    assert cell.group(0) == b'<c r="F2" t="str"><f>A2&amp;" &lt;&amp;&gt; "</f><v>two</v></c>'


# --------------------------------------------------------------------------
# atomic writes
# --------------------------------------------------------------------------


def test_in_place_stamp(calc_book):
    before = members(calc_book)
    stamp_cached_values(calc_book, calc_book, {"Calc": {"E2": 0.5}})
    assert data_only(calc_book)["Calc"]["E2"].value == 0.5
    assert {k: v for k, v in members(calc_book).items() if "worksheets/sheet1" not in k} == {
        k: v for k, v in before.items() if "worksheets/sheet1" not in k}
    assert os.listdir(calc_book.parent) == ["calc.xlsx"]


def test_failure_midway_leaves_dst_untouched_and_no_temp_file(calc_book, tmp_path, monkeypatch):
    dst = tmp_path / "dst.xlsx"
    dst.write_bytes(b"previous contents")
    calls = []
    real_copy = shutil.copyfileobj

    def broken_copy(fsrc, fdst, length=0):  # the third member copied fails
        calls.append(1)
        if len(calls) == 3:
            raise OSError("disk full")
        real_copy(fsrc, fdst, length)

    monkeypatch.setattr(shutil, "copyfileobj", broken_copy)
    with pytest.raises(OSError, match="disk full"):
        stamp_cached_values(calc_book, dst, {"Calc": {"E2": 1.0}})
    assert dst.read_bytes() == b"previous contents"
    assert sorted(os.listdir(tmp_path)) == ["calc.xlsx", "dst.xlsx"]

    original = calc_book.read_bytes()  # in place: the source survives a failure too
    calls.clear()
    with pytest.raises(OSError, match="disk full"):
        stamp_cached_values(calc_book, calc_book, {"Calc": {"E2": 1.0}})
    assert calc_book.read_bytes() == original
    assert sorted(os.listdir(tmp_path)) == ["calc.xlsx", "dst.xlsx"]


def test_failed_rename_leaves_no_temp_file(calc_book, tmp_path, monkeypatch):
    def no_replace(a, b):
        raise PermissionError("dst is locked")

    monkeypatch.setattr(os, "replace", no_replace)
    with pytest.raises(OSError, match=r"dst\.xlsx: cannot write: dst is locked"):
        stamp_cached_values(calc_book, tmp_path / "dst.xlsx", {"Calc": {"E2": 1.0}})
    assert os.listdir(tmp_path) == ["calc.xlsx"]


def test_permissions_of_existing_and_new_dst(calc_book, tmp_path):
    dst = tmp_path / "dst.xlsx"
    shutil.copy(calc_book, dst)
    dst.chmod(0o640)
    stamp_cached_values(calc_book, dst, {"Calc": {"E2": 1.0}})
    assert stat.S_IMODE(dst.stat().st_mode) == 0o640

    umask = os.umask(0o022)
    os.umask(umask)
    new = tmp_path / "new.xlsx"
    stamp_cached_values(calc_book, new, {"Calc": {"E2": 1.0}})
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask


# --------------------------------------------------------------------------
# refusals
# --------------------------------------------------------------------------


def refused(path, *words, limits=None) -> str:
    with pytest.raises(UnusableWorkbookError) as info:
        check_package(path, limits or Limits())
    msg = str(info.value)
    assert "\n" not in msg
    for word in words:
        assert word in msg, msg
    assert isinstance(info.value, RooflineError)
    return msg


@pytest.mark.parametrize("name, words", [
    ("pass_protected.xlsx", ["encrypted (password-protected) workbook",
                             "save it without a password"]),
    ("any_sheets.xls", ["legacy", ".xls", "save as .xlsx"]),
    ("too_small.xls", ["not a zip", "save it again from Excel as .xlsx"]),
    ("any_sheets.xlsb", [".xlsb", "save as .xlsx"]),
    ("any_sheets.ods", [".ods", "save as .xlsx"]),
])
def test_other_formats_are_refused(name, words, tmp_path):
    refused(SAVED / name, *words)
    with pytest.raises(UnusableWorkbookError):  # and stamping refuses them too
        stamp_cached_values(SAVED / name, tmp_path / "out.xlsx", {})
    assert not (tmp_path / "out.xlsx").exists()


def test_truncated_and_corrupt_zips_are_refused(tmp_path):
    data = (SAVED / "shared_formula_simple.xlsx").read_bytes()
    cut = tmp_path / "cut.xlsx"
    cut.write_bytes(data[: len(data) // 2])
    refused(cut, "truncated/corrupt")

    # one flipped byte inside a member's compressed data: CRC or inflate failure
    with zipfile.ZipFile(SAVED / "shared_formula_simple.xlsx") as zf:
        info = zf.getinfo("xl/styles.xml")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    bad = bytearray(data)
    bad[start + info.compress_size // 2] ^= 0xFF
    flipped = tmp_path / "flipped.xlsx"
    flipped.write_bytes(bytes(bad))
    refused(flipped, "corrupt")


def test_random_bytes_missing_file_and_directory(tmp_path):
    junk = tmp_path / "junk.xlsx"
    junk.write_bytes(np.random.default_rng(0).bytes(4096))
    refused(junk, "not a zip")
    refused(tmp_path / "nope.xlsx", "no such file")
    refused(tmp_path, "not a regular file")


def test_zip_without_workbook_is_refused(tmp_path):
    path = tmp_path / "plain.xlsx"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("hello.txt", "hi")
    refused(path, "without xl/workbook.xml")


def test_zip_bomb_member_ratio(calc_book, tmp_path):
    bomb = rewrite_zip(calc_book, tmp_path / "bomb.xlsx",
                       add={"xl/media/zeros.bin": bytes(50 * 2**20)})
    refused(bomb, "zip bomb", "xl/media/zeros.bin", "--max-ratio")
    check_package(bomb, Limits(max_ratio=1e9))  # the user may raise the limit


def test_size_limits(calc_book):
    size = calc_book.stat().st_size
    refused(calc_book, "over the limit", "--max-file-mb", limits=Limits(max_file_bytes=size - 1))
    refused(calc_book, "zip bomb", "--max-uncompressed-mb",
            limits=Limits(max_uncompressed_bytes=1000))
    refused(calc_book, "members", "--max-members", limits=Limits(max_members=3))
    check_package(calc_book, Limits(max_file_bytes=size))


def test_lying_declared_size_is_refused(calc_book, tmp_path):
    """A central directory that declares less than the member holds."""
    data = bytearray(calc_book.read_bytes())
    with zipfile.ZipFile(calc_book) as zf:
        info = zf.getinfo("xl/styles.xml")
    # patch the uncompressed size in both the local header and the central directory
    name = info.filename.encode()
    for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        pos = data.find(sig)
        while pos >= 0:
            name_at = pos + (30 if sig == b"PK\x03\x04" else 46)
            if data[name_at:name_at + len(name)] == name:
                data[pos + off:pos + off + 4] = (10).to_bytes(4, "little")
            pos = data.find(sig, pos + 4)
    liar = tmp_path / "liar.xlsx"
    liar.write_bytes(bytes(data))
    refused(liar, "corrupt")


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>&lol9;</t></si></sst>"""

EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE sst [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>&xxe;</t></si></sst>"""


@pytest.mark.parametrize("payload", [
    BILLION_LAUGHS,
    EXTERNAL_ENTITY,
    EXTERNAL_ENTITY.replace(b"DOCTYPE", b"doctype"),
    EXTERNAL_ENTITY.decode().replace('version="1.0"', 'version="1.0" encoding="UTF-16"')
    .encode("utf-16"),
], ids=["billion-laughs", "external-entity", "lower-case", "utf-16"])
def test_xml_with_doctype_is_refused(calc_book, tmp_path, payload):
    path = rewrite_zip(calc_book, tmp_path / "dtd.xlsx",
                       replace={"xl/sharedStrings.xml": payload})
    refused(path, "DOCTYPE/ENTITY", "xl/sharedStrings.xml")
    for reader in (formula_cells, read_cached_values, sheet_parts):
        with pytest.raises(UnusableWorkbookError):
            reader(path)


def test_doctype_in_rels_is_refused(calc_book, tmp_path):
    rels = members(calc_book)["_rels/.rels"]
    path = rewrite_zip(calc_book, tmp_path / "dtd.xlsx", replace={
        "_rels/.rels": rels.replace(b"<Relationships", b'<!DOCTYPE r SYSTEM "http://x/">'
                                    b"<Relationships", 1)})
    refused(path, "DOCTYPE", "_rels/.rels")


def test_limits_from_env():
    limits = Limits.from_env({"ROOFLINEXL_MAX_UNCOMPRESSED_MB": "2048",
                              "ROOFLINEXL_MAX_MEMBERS": "", "ROOFLINEXL_MAX_FILE_MB": "1.5"})
    assert limits.max_uncompressed_bytes == 2048 * 2**20
    assert limits.max_file_bytes == int(1.5 * 2**20)
    assert limits.max_members == Limits().max_members
    with pytest.raises(ValueError, match="ROOFLINEXL_MAX_RATIO"):
        Limits.from_env({"ROOFLINEXL_MAX_RATIO": "lots"})


# --------------------------------------------------------------------------
# speed
# --------------------------------------------------------------------------


def test_stamp_40k_formula_cells(tmp_path):
    """10,000 rows x 4 formulas (the research benchmark's shape): every value written,
    nothing else changed. (Its speed is measured by ``benchmarks/`` against a baseline of
    the same run, not here: a wall-clock limit failed on a loaded machine.)"""
    src, out = tmp_path / "big.xlsx", tmp_path / "out.xlsx"
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("Calc")
    ws.append(["chip", "B", "D", "F", "time", "intensity", "compute-bound", "label"])
    for r in range(2, 10002):
        ws.append(["H100", r, 8192, 8192, f"=2*B{r}*C{r}*D{r}/989e12", f"=E{r}/(B{r}+C{r})",
                   f"=E{r}>1", f'=A{r}&"-x"'])
    wb.save(src)
    rng = np.random.default_rng(1)
    values = {"Calc": {}}
    for r in range(2, 10002):
        values["Calc"].update({f"E{r}": float(rng.random()), f"F{r}": r * 1.5,
                               f"G{r}": bool(r % 2), f"H{r}": "H100-x"})
    stamp_cached_values(src, out, values)
    got = read_cached_values(out)["Calc"]
    assert len(got) == 40_000
    assert got["E10001"] == values["Calc"]["E10001"] and got["H2"] == "H100-x"
    assert_only_values_changed(src, out, {"xl/worksheets/sheet1.xml"})


# --------------------------------------------------------------------------
# a real spreadsheet application opens the stamped file
# --------------------------------------------------------------------------


@pytest.mark.slow
def test_libreoffice_recalculates_a_stamped_file_to_the_same_values(calc_book, tmp_path):
    from libreoffice import recalc_with_libreoffice, require_soffice, values

    require_soffice()
    t_h100 = 2 * 8 * 8192 * 8192 / 989e12
    stamped = tmp_path / "stamped.xlsx"
    stamp_cached_values(calc_book, stamped, {"Calc": {"E2": t_h100, "F2": "H100 <&> ",
                                                      "G2": True},
                                             "Other & Co": {"B1": 6}})
    [lo] = recalc_with_libreoffice([stamped], tmp_path / "lo")
    got = values(lo)
    assert got["Calc"]["E2"] == pytest.approx(t_h100, rel=1e-12)
    assert got["Calc"]["F2"] == "H100 <&> "
    assert got["Calc"]["G2"] is True
    assert got["Other & Co"]["B1"] == 6


def test_inline_strings_read_alike_by_the_engine_and_the_cached_value_reader():
    # ECMA-376 ST_Xstring: _x000D_ is a carriage return in an inline string as in a shared
    # one; a phonetic run (rPh) is not part of the text. One reader for both paths.
    from rooflinexl.ooxml.sheetxml import inline_text
    from rooflinexl.recalc.loader import decode

    inline = "<r><t>a_x000D_b</t></r><rPh sb=\"0\" eb=\"1\"><t>ア</t></rPh><r><t> &amp;c</t></r>"
    assert decode("inlineStr", None, inline, []) == "a\rb &c"
    assert inline_text(b"<is>" + inline.encode() + b"</is>") == "a\rb &c"
