"""Cells of type ``d`` (an ISO 8601 date: ECMA-376 Part 1, 18.18.11 ST_CellType; Strict
Open XML workbooks, such as ExcelDataReader's strict test books saved by Excel, store
every date so) are the date's serial number, as Excel reads them: 2009-07-06 is 40000
(days since 1899-12-30 in the 1900 date system), 1900-01-01 is 1 (Excel counts a
29 February 1900), a time of day is the fraction; in a workbook counting from 1904 the
same date is 1462 days less. The engine used to read them as text (#VALUE! in =A1+7).
"""
from __future__ import annotations

import re
import zipfile

import openpyxl
import pytest
from formula_cases import ENGINES

from rooflinexl.ooxml.sheetxml import iso_date_serial
from rooflinexl.recalc.book import recalc_book

DATES = {"A1": ("2009-07-06", 40000), "A2": ("1900-01-01", 1), "A3": ("1900-03-01", 61),
         "A4": ("1899-12-30T12:00:00", 0.5), "A5": ("2021-04-20T06:00:00", 44306.25)}


def _book(tmp_path, date1904: bool):
    wb = openpyxl.Workbook()
    ws = wb.active
    for cell in DATES:
        ws[cell] = 0
        ws["B" + cell[1:]] = f"={cell}+7"
    src = tmp_path / "plain.xlsx"
    wb.save(src)
    out = tmp_path / ("iso1904.xlsx" if date1904 else "iso.xlsx")
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(out, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                text = data.decode()
                for cell, (iso, _) in DATES.items():
                    text = re.sub(rf'<c r="{cell}"( [^>]*)?><v>0</v></c>',
                                  f'<c r="{cell}" t="d"><v>{iso}</v></c>', text)
                data = text.encode()
            if item.filename == "xl/workbook.xml" and date1904:
                data = re.sub(rb"<workbookPr(\s[^>]*)?/>", rb'<workbookPr date1904="1"/>', data)
            zout.writestr(item, data)
    return out


def test_iso_date_serial():
    for iso, serial in DATES.values():
        assert iso_date_serial(iso) == serial
    assert iso_date_serial("not a date") == "not a date"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("date1904", [False, True])
def test_iso_dates_are_serial_numbers(tmp_path, engine, date1904):
    path = _book(tmp_path, date1904)
    assert 't="d"' in zipfile.ZipFile(path).read("xl/worksheets/sheet1.xml").decode()
    cells = recalc_book(path, write=False, engine=engine).evaluation.cells
    shift = 1462 if date1904 else 0
    for cell, (_iso, serial) in DATES.items():
        if date1904 and serial < 1462:
            continue  # before 1904: no such date in that system
        got = cells[("Sheet", "B" + cell[1:])].value
        assert got == pytest.approx(serial - shift + 7, abs=1e-9), (cell, got)
