"""Structures of Excel-saved workbooks from other projects' test suites that the engine
crashed on, refused, or computed wrongly (issue 13, "no crash or refusal").

Each test builds the smallest workbook with the structure and asserts the value Excel
cached in the original book (named in the test), through both engines.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES
from openpyxl.workbook.defined_name import DefinedName

from rooflinexl.recalc.book import recalc_book


def _values(path, engine):
    ev = recalc_book(path, write=False, engine=engine).evaluation
    return {k: r.value for k, r in ev.cells.items()}


@pytest.fixture(scope="module")
def relative_names_book(tmp_path_factory):
    """EPPlus's DefinedNameRelative.xlsx (Excel-saved): names whose references are relative
    are read relative to the cell that uses them, wrapping round the sheet's edge."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws["H8"], ws["I8"], ws["L11"] = 1, 2, "L11"
    for r in range(9, 17):
        ws[f"H{r}"] = r - 8  # H9=1 ... H16=8
    names = {
        "FixedFormula": "Sheet1!$H$8+Sheet1!$I$8",
        "RelativeName": "Sheet1!XFD1048576+Sheet1!A1048576",
        "Relative": "Sheet1!$I1+1",
        "RelativeRow": "Sheet1!$H1",
    }
    for name, text in names.items():
        wb.defined_names[name] = DefinedName(name, attr_text=text)
    ws["I9"] = "=RelativeName"  # Excel: 3 (H8+I8: XFD wraps to H, A moves to I)
    ws["I10"] = "=FixedFormula"  # Excel: 3
    ws["K11"] = "=RelativeName"  # Excel: 5 (J10+K10 here: H10 is 2 ... see below)
    ws["J10"], ws["K10"] = 2, 3
    ws["I12"] = "=RelativeRow"  # Excel: 1 (H12 in the original; here H12 = 4)
    ws["I16"] = "=RelativeRow+2"  # Excel's I16: H16 + 2
    ws["J13"] = "=Relative*10"  # $I13 + 1, times 10
    ws["I13"] = 6
    path = tmp_path_factory.mktemp("relnames") / "relative.xlsx"
    wb.save(path)
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_relative_defined_names(relative_names_book, engine):
    v = _values(relative_names_book, engine)
    assert v[("Sheet1", "I9")] == 3  # cached by Excel in DefinedNameRelative.xlsx
    assert v[("Sheet1", "I10")] == 3
    assert v[("Sheet1", "K11")] == 5  # J10 + K10, as RelativeName in K11 reads
    assert v[("Sheet1", "I12")] == 4  # H12 (not H1, which is empty)
    assert v[("Sheet1", "I16")] == 10  # H16 + 2
    assert v[("Sheet1", "J13")] == 70  # (I13 + 1) * 10
