"""The LibreOffice harness itself: recalculation on load, LibreOffice 25.x functions, rendering."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from libreoffice import recalc_with_libreoffice, render_pngs, require_soffice, values

pytestmark = pytest.mark.slow  # a real LibreOffice


@pytest.fixture(scope="module", autouse=True)
def _soffice():
    return require_soffice()


def _tiny_book(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Calc"
    ws["A1"] = 2
    ws["A2"] = 3
    ws["A3"] = "=A1*A2"
    # Functions newer than Excel 2007 are stored with the "_xlfn." prefix in xlsx files;
    # openpyxl writes formulas verbatim, so without the prefix LibreOffice (and Excel)
    # read an unknown function and give #NAME? (A7).
    ws["A4"] = "=_xlfn.XLOOKUP(2,A1:A2,A1:A2)"  # #NAME? before LibreOffice 24.8
    ws["A5"] = '=IFERROR(1/0,"x")'
    ws["A6"] = "=NOSUCHFUNC(1)"
    ws["A7"] = "=XLOOKUP(2,A1:A2,A1:A2)"
    wb.save(path)
    return path


def _stamp_cached(path: Path, cell: str, value: str) -> None:
    """Write a (wrong) cached value for *cell* straight into the sheet XML."""
    member = "xl/worksheets/sheet1.xml"
    with zipfile.ZipFile(path) as z:
        items = [(info, z.read(info)) for info in z.infolist()]
    for i, (info, data) in enumerate(items):
        if info.filename == member:
            xml = data.decode("utf-8")
            pattern = re.compile(
                rf'(<c r="{cell}"[^>]*>\s*<f>[^<]*</f>)\s*(?:<v>[^<]*</v>|<v\s*/>)?')
            xml, n = pattern.subn(rf"\g<1><v>{value}</v>", xml, count=1)
            assert n == 1, f"formula cell {cell} not found in {member}"
            items[i] = (info, xml.encode("utf-8"))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in items:
            z.writestr(info, data)


def test_recalc_computes_formulas_like_libreoffice_25(tmp_path):
    book = _tiny_book(tmp_path / "tiny.xlsx")
    [out] = recalc_with_libreoffice([book], tmp_path / "lo")
    assert out == tmp_path / "lo" / "tiny.xlsx"
    calc = values(out)["Calc"]
    assert calc["A3"] == 6  # 2 * 3
    assert calc["A4"] == 2  # XLOOKUP exists only from LibreOffice 24.8 on
    assert calc["A5"] == "x"  # IFERROR fallback for 1/0
    assert calc["A6"] == "#NAME?"  # unknown function
    assert calc["A7"] == "#NAME?"  # XLOOKUP without its "_xlfn." prefix in the file


def test_stale_cached_value_is_recomputed(tmp_path):
    book = _tiny_book(tmp_path / "stale.xlsx")
    _stamp_cached(book, "A3", "42")
    assert openpyxl.load_workbook(book, data_only=True)["Calc"]["A3"].value == 42
    [out] = recalc_with_libreoffice([book], tmp_path / "lo")
    # the shipped profile (OOXMLRecalcMode=1, "never") would keep 42
    assert values(out)["Calc"]["A3"] == 6


def test_render_pngs(tmp_path):
    book = _tiny_book(tmp_path / "tiny.xlsx")
    pages = render_pngs(book, tmp_path / "png")
    assert len(pages) >= 1
    for page in pages:
        assert page.suffix == ".png"
        assert page.stat().st_size > 0
        assert page.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
