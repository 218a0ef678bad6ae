"""A function no table knows is ``#NAME?`` in the block path too, with the reason naming
it and exit status 1 (issue 13 item 2: "An unsupported function stays #NAME? with a
message that names it, and exit 1"), without loading the workbook per cell.

Excel's rule (Microsoft, "How to correct a #NAME? error": a misspelt or unavailable
function name gives #NAME?) makes it an ordinary error value: IFERROR catches it and
ISERROR sees it; a cell reading one propagates it.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, matches_excel

from rooflinexl.recalc.book import recalc_book

CASES = {
    "=FOOBAR(1)": "#NAME?",
    "=IFERROR(FOOBAR(1),2)": 2,
    '=1+GETPIVOTDATA("x",A1)': "#NAME?",
    "=A9*2": "#NAME?",  # A9 holds =FOOBAR(2)
    "=ISERROR(NOSUCH())": True,
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for i, f in enumerate(CASES, start=1):
        ws[f"C{i}"] = f
    ws["A9"] = "=FOOBAR(2)"
    path = tmp_path_factory.mktemp("unknown") / "unknown.xlsx"
    wb.save(path)
    return {e: recalc_book(path, write=False, engine=e) for e in ENGINES}


@pytest.mark.parametrize("engine", ENGINES)
def test_unknown_functions_are_name_errors(results, engine):
    res = results[engine]
    ev = res.evaluation
    for i, (formula, want) in enumerate(CASES.items(), start=1):
        got = ev.cells[("S", f"C{i}")]
        assert matches_excel(got.value, want), (formula, got.value, want)
    assert ev.cells[("S", "C1")].reason == "unknown function FOOBAR"
    # a function Excel has that is not implemented says so (Microsoft's function list,
    # rooflinexl.recalc.excelnames)
    assert ev.cells[("S", "C3")].reason == "function GETPIVOTDATA is not implemented"
    assert ev.cells[("S", "C4")].reason == "propagated from S!A9: unknown function FOOBAR"
    assert sorted(ev.unknown_functions) == ["FOOBAR", "GETPIVOTDATA", "NOSUCH"]
    assert res.exit_code == 1


def test_unknown_functions_stay_on_the_block_path(results):
    assert results["auto"].evaluation.paths.unsupported == []
