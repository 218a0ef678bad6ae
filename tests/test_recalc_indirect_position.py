"""ROW/COLUMN/ROWS/COLUMNS of INDIRECT(text): the position of the reference the text names.

Expected values are Excel's cached values in IronCalc's ROW_COLUM.xlsx (MIT; saved by
Excel), sheet ROW_COLUMN, J3:L24: the reference texts are copied into column J; a
sheet-qualified text is resolved against the workbook's sheets.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

TEXTS = {  # reference text -> (ROW, COLUMN) as Excel cached them
    "A4": (4, 1), "D5:E7": (5, 4), "$F$9": (9, 6), "h": ("#REF!", "#REF!"),
    5: ("#REF!", "#REF!"), "$RS34": (34, 487), "WW$56": (56, 621), "D:D": (1, 4),
    "5:5": (5, 1), "$FF:FG": (1, 162), "$7:8": (7, 1), "$AB:$BC": (1, 28),
    "$12:$23": (12, 1), "XFD:XFD": (1, 16384), "XFE:XFE": ("#REF!", "#REF!"),
    "05:05": (5, 1), "SS077:SW090": (77, 513), "s:s": (1, 19), None: ("#REF!", "#REF!"),
}

CASES = {}
for _i, (_text, (_row, _col)) in enumerate(TEXTS.items(), start=1):
    CASES[f"=ROW(INDIRECT(J{_i}))"] = _row
    CASES[f"=COLUMN(INDIRECT(J{_i}))"] = _col
# inside another function, ROW of several rows is their array (Microsoft, "ROW function")
CASES['=SUM(ROW(INDIRECT("3:5")))'] = 12
CASES['=SUMPRODUCT(COLUMN(INDIRECT("B1:D1")))'] = 9
CASES['=ROWS(INDIRECT("D5:E7"))+COLUMNS(INDIRECT("D5:E7"))'] = 5
CASES['=ROW(INDIRECT("OTHER!D5"))'] = 5  # ROW_COLUMN!K6 (the book has a sheet Other)
CASES['=COLUMN(INDIRECT("NonExist!W3"))'] = "#REF!"  # ROW_COLUMN!L7: no such sheet


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    wb.create_sheet("Other")
    for i, text in enumerate(TEXTS, start=1):
        ws[f"J{i}"] = text
    return evaluate_cases(wb, ws, "A", CASES, tmp_path_factory.mktemp("indirect"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got, want = evs[engine].value("S", cells[formula]), CASES[formula]
    assert matches_excel(got, want, rel=0), got
