"""Excel as the oracle on workbooks from other engines' test suites
(``tests/data/ironcalc``, IronCalc's tests, MIT; see its README; the per-corpus rates are
in docs/architecture.md): every formula cell equals Excel's cached value, except the cells
in :data:`KNOWN` (Excel's value, ours, why); a listed cell that starts to match fails the
test too.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from excel_oracle import assert_matches_excel, workbooks

DATA = Path(__file__).resolve().parent / "data" / "ironcalc"
BOOKS = workbooks(DATA)

#: (workbook, sheet, cell) -> (Excel's value, ours today, why). Nothing else may differ.
KNOWN: dict[tuple[str, str, str], tuple[object, object, str]] = {
    # G13:H13 and G35 are ``=A13``-style formulas over empty cells: Excel's cell value is 0,
    # and a range over them passes 0; ours passes the empty result (skipped by GCD/LCM).
    ("GCD_LCM.xlsx", "Sheet1", "I13"): (0.0, "#VALUE!", "a formula's empty result in a range"),
    ("GCD_LCM.xlsx", "Sheet1", "J13"): (0.0, "#VALUE!", "a formula's empty result in a range"),
    ("GCD_LCM.xlsx", "Sheet1", "I35"): (0.0, 5.0, "a formula's empty result in a range"),
    # DCOUNT with TRUE as the field (the column labelled TRUE holds 23, 455 and 2): Excel
    # counts none, DCOUNTA over the same records counts 10; undocumented
    ("DCOUNT_DCOUNTA_DGET_DPRODUCT.xlsx", "DCOUNT_DCOUNTA", "B66"): (
        0.0, 3.0, "DCOUNT with a boolean field, undocumented"),
    # an omitted first argument: Excel gives #N/A (undocumented); ours skips it
    ("GCD_LCM.xlsx", "Sheet1", "D34"): ("#N/A", 5.0, "omitted argument, undocumented"),
    ("GCD_LCM.xlsx", "Sheet1", "E34"): ("#N/A", 5.0, "omitted argument, undocumented"),
}


def test_the_corpus_is_complete():
    assert [p.name for p in BOOKS] == [
        "CHAR.xlsx", "DAY.xlsx", "DCOUNT_DCOUNTA_DGET_DPRODUCT.xlsx",
        "DMIN_DMAX_DAVERAGE_DSUM.xlsx",
        "DVAR_DVARP_DSTDEV_DSTDEVP.xlsx", "ERF.xlsx", "GCD_LCM.xlsx"]
    assert (DATA / "LICENSE-ironcalc-MIT.txt").is_file()


@pytest.mark.parametrize("path", BOOKS, ids=[p.name for p in BOOKS])
def test_every_formula_cell_equals_excels_cached_value(path):
    assert_matches_excel(path, KNOWN)



def test_formulatext_is_the_formula_bar_text(tmp_path):
    """Microsoft, "FORMULATEXT function": ``=FORMULATEXT(A2)`` next to ``=TODAY()`` in A2
    is the text ``=TODAY()`` (what the formula bar shows, so without the file's ``_xlfn.``
    prefixes); a range gives its upper-left cell's formula; a cell without a formula is
    #N/A. Excel's cached values in DAY.xlsx (IronCalc's docs/DAY.xlsx): C2
    ``=FORMULATEXT(B2)`` is ``=DAY(A2)``, C3 is ``=DAY(DATE(2024,12,25))``."""
    import openpyxl

    from rooflinexl.recalc.book import recalc_book

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"], ws["A2"], ws["A3"] = 7, "=TODAY()", "=_xlfn.XLOOKUP(1,B1:B2,C1:C2)"
    ws["D1"] = "=_xlfn.FORMULATEXT(A2)"
    ws["D2"] = "=_xlfn.FORMULATEXT(A3:A9)"
    ws["D3"] = "=_xlfn.FORMULATEXT(A1)"
    wb.save(tmp_path / "ft.xlsx")
    got = recalc_book(tmp_path / "ft.xlsx", None, write=False).evaluation
    assert got.value("S", "D1") == "=TODAY()"
    assert got.value("S", "D2") == "=XLOOKUP(1,B1:B2,C1:C2)"
    assert str(got.value("S", "D3")) == "#N/A"
    res = recalc_book(DATA / "DAY.xlsx", None, write=False)
    got = {k: v.value for k, v in res.evaluation.cells.items()}
    assert got[("Sheet1", "C2")] == "=DAY(A2)"
    assert got[("Sheet1", "C3")] == "=DAY(DATE(2024,12,25))"


def test_isformula_tells_formula_cells(tmp_path):
    """Microsoft, "ISFORMULA function": TRUE when the reference is to a cell holding a
    formula (its example: A2 ``=TODAY()`` gives TRUE, A3 holding 7 gives FALSE)."""
    import openpyxl

    from rooflinexl.recalc.book import recalc_book

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A2"], ws["A3"], ws["C10"] = "=TODAY()", 7, "=1+1"
    ws["D1"] = "=_xlfn.ISFORMULA(A2)"
    ws["D2"] = "=_xlfn.ISFORMULA(A3)"
    ws["D3"] = "=_xlfn.ISFORMULA(S!C10)"
    wb.save(tmp_path / "isf.xlsx")
    got = recalc_book(tmp_path / "isf.xlsx", None, write=False).evaluation
    assert [got.value("S", f"D{r}") for r in (1, 2, 3)] == [True, False, True]
