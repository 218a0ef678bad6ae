"""The per-cell engine's speed paths (issue 13, e4): a formula ``formulas`` cannot compile
marks only its own cell, so the model loads once."""
from __future__ import annotations

import openpyxl

from rooflinexl.recalc import engine
from rooflinexl.recalc.book import recalc_book


def test_a_formula_formulas_cannot_compile_fails_alone_and_the_model_loads_once(
        tmp_path, monkeypatch):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = 1
    ws["A2"] = "=A1+1"
    ws["A3"] = "=J8:K10 L6:M7"  # an intersection formulas cannot parse
    ws["A4"] = "=A3+1"
    ws["A5"] = "=FOOBAR(1)+(("  # unknown function, unparsable
    ws["A6"] = "=A2*2"
    path = tmp_path / "parse.xlsx"
    wb.save(path)
    loads = []
    real = engine._load_model
    monkeypatch.setattr(engine, "_load_model", lambda p: loads.append(p) or real(p))
    ev = recalc_book(path, write=False, engine="cells").evaluation
    assert len(loads) == 1
    assert ev.value("Sheet", "A2") == 2  # 1 + 1
    assert ev.value("Sheet", "A6") == 4  # (1 + 1) * 2
    assert ev.cells[("Sheet", "A3")].is_error
    assert ev.cells[("Sheet", "A4")].is_error
    assert str(ev.value("Sheet", "A5")) == "#NAME?"  # Excel: an unknown function is #NAME?
