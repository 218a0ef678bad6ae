"""The bulk paths of reading, grouping and stamping large sheets (issue 13 item 4).

The loader scans a sheet a few MB at a time, the stamper splits it a few MB at a
time, and filled-down formulas are grouped by writing the first one for every row.
These tests shrink the stretch sizes to a few hundred bytes so that small books cross
many stretch boundaries, and check the results against the values written into the
books here and against the cell-by-cell paths (the look-ups and the full scan of the
stamper), which give the same bytes.
"""
from __future__ import annotations

import zipfile

import openpyxl
import pytest

from rooflinexl.errors import ExcelError
from rooflinexl.ooxml import read_cached_values, sheetxml, stamp, stamp_cached_values
from rooflinexl.recalc import loader
from rooflinexl.recalc.refs import group_keys, render_at, template

ROWS = 60


@pytest.fixture
def plan_book(tmp_path):
    """60 rows of inputs (text, integers, decimals) and filled-down formulas."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    ws.append(["chip", "B", "x", "y", "z", "label"])
    for r in range(2, ROWS + 2):
        ws.append([f"chip {r % 7}", r, r / 8, f"=B{r}*2", f"=SUM($B$2:B{r})",
                   f'=A{r}&" <&> "'])
    path = tmp_path / "plan.xlsx"
    wb.save(path)
    return path


@pytest.mark.parametrize("stretch", [200, 1 << 22])
def test_loader_reads_every_cell_in_stretches(plan_book, monkeypatch, stretch):
    monkeypatch.setattr(loader, "_SCAN_BYTES", stretch)
    monkeypatch.setattr(loader, "_general", None)  # the bulk scan only
    sheet = loader.read_book(plan_book).sheets[0]
    consts = {(r, c): v for r, c, v in zip(sheet.const_rows, sheet.const_cols,
                                            sheet.const_vals, strict=True)}
    # the values written above: openpyxl stores text inline (t="inlineStr") and numbers
    # with t="n"
    assert consts[(1, 1)] == "chip" and consts[(9, 1)] == "chip 2"
    assert consts[(9, 2)] == 9.0 and consts[(9, 3)] == 1.125
    assert len(consts) == 6 + 3 * ROWS
    formulas = dict(zip(zip(sheet.f_rows, sheet.f_cols, strict=True), sheet.f_texts,
                        strict=True))
    assert formulas[(9, 4)] == "=B9*2"
    assert formulas[(9, 5)] == "=SUM($B$2:B9)"
    assert formulas[(9, 6)] == '=A9&" <&> "'  # &lt;&amp;&gt; un-escaped
    assert len(formulas) == 3 * ROWS
    assert (sheet.max_row, sheet.max_col) == (ROWS + 1, 6)


def test_group_keys_finds_filled_down_runs():
    # rows 2-5 and 8-9: =A{r}*2 filled down; row 6: another formula; row 7: =A2*2 (the
    # first formula's text, but in another row, so another relative form)
    rows = [2, 3, 4, 5, 6, 7, 8, 9]
    texts = ["=A2*2", "=A3*2", "=A4*2", "=A5*2", "=A6+1", "=A2*2", "=A8*2", "=A9*2"]
    ids = group_keys(rows, 2, texts, {})
    assert ids[:4] == [ids[0]] * 4 and ids[6:] == [ids[0]] * 2
    assert len({ids[0], ids[4], ids[5]}) == 3


def test_group_keys_of_long_column_with_two_forms():
    rows = list(range(2, 202))
    texts = [f"=B{r}*C{r}" if r < 150 else f"=B{r}+$C$1" for r in rows]
    ids = group_keys(rows, 4, texts, {})
    assert set(ids[:148]) == {ids[0]} and set(ids[148:]) == {ids[148]} != {ids[0]}


def test_render_at_refuses_rows_off_the_grid():
    t = template("=A1+B5", 5, 3)  # in C5: A1 is four rows up
    assert render_at(t, [5, 9, 12], 3) == ["=A1+B5", "=A5+B9", "=A8+B12"]
    assert render_at(t, [2, 5], 3) is None  # C2 would read A-2


def _values(rows: int) -> dict:
    out = {}
    for r in range(2, rows + 2):
        out[f"D{r}"] = 2.0 * r
        out[f"E{r}"] = ExcelError("#N/A") if r == 7 else r * 0.1
        out[f"F{r}"] = f"chip {r % 7} <&> " if r != 5 else True
    return out


def test_stamp_in_stretches_writes_what_the_lookups_write(plan_book, monkeypatch):
    xml = zipfile.ZipFile(plan_book).read("xl/worksheets/sheet1.xml")
    part = "xl/worksheets/sheet1.xml"
    targets = {stamp._normalise_ref(k, "Plan"): sheetxml.encode_value(v, ("Plan", k))
               for k, v in _values(ROWS).items()}
    monkeypatch.setattr(stamp, "_SPLIT_BYTES", 300)
    lo, hi, p = sheetxml.sheet_data_span(xml, part)
    assert len(stamp._stamp_split(xml, lo, hi, p, targets)) > 3  # stamped in stretches
    bulk = stamp._stamp_sheet(xml, part, "Plan", targets)
    with monkeypatch.context() as m:
        m.setattr(stamp, "_stamp_split", lambda *a: None)
        lookups = stamp._stamp_sheet(xml, part, "Plan", targets)
    with monkeypatch.context() as m:
        m.setattr(stamp, "_stamp_fast", lambda *a: None)
        full = stamp._stamp_sheet(xml, part, "Plan", targets)
    assert bulk == lookups == full
    again = stamp._stamp_sheet(bulk, part, "Plan", targets)  # over cached values and t=
    assert again == bulk


def test_stamp_in_stretches_round_trips(plan_book, tmp_path, monkeypatch):
    monkeypatch.setattr(stamp, "_SPLIT_BYTES", 300)
    out = tmp_path / "out.xlsx"
    values = _values(ROWS)
    stamp_cached_values(plan_book, out, {"Plan": values})
    got = read_cached_values(out)["Plan"]
    assert got["D9"] == 18.0 and got["E9"] == 0.9 and got["F9"] == "chip 2 <&> "
    assert got["F5"] is True and str(got["E7"]) == "#N/A"
    assert len(got) == 3 * ROWS
    wb = openpyxl.load_workbook(out)  # formulas kept
    assert wb["Plan"]["E9"].value == "=SUM($B$2:B9)"


def test_stamp_falls_back_when_a_target_is_no_everyday_cell(plan_book, monkeypatch):
    """A target that is an input is refused by the full scan, whatever the bulk path."""
    monkeypatch.setattr(stamp, "_SPLIT_BYTES", 300)
    with pytest.raises(ValueError, match="not a formula cell"):
        stamp_cached_values(plan_book, plan_book, {"Plan": {"D3": 6.0, "B3": 1.0}})


def test_block_cells_behave_as_the_ordered_dict(plan_book):
    """The block evaluator's cells: order (sheet, row, column), look-ups, errors and the
    values to cache, each checked against the numbers written into the book above."""
    from rooflinexl.recalc.blocks import evaluate_blocks

    wb = openpyxl.load_workbook(plan_book)
    ws = wb["Plan"]
    ws["G2"] = "=1/0"  # #DIV/0!
    ws["G3"] = "=G2+1"  # propagated
    wb.save(plan_book)
    ev = evaluate_blocks(plan_book)
    cells = ev.cells
    assert len(cells) == 3 * ROWS + 2
    keys = list(cells)
    assert keys[:5] == [("Plan", "D2"), ("Plan", "E2"), ("Plan", "F2"), ("Plan", "G2"),
                        ("Plan", "D3")]
    assert cells[("Plan", "D9")].value == 18.0  # =B9*2, B9 = 9
    assert cells[("Plan", "E9")].value == sum(range(2, 10))  # =SUM($B$2:B9) = 44
    assert cells[("Plan", "F9")].formula == '=A9&" <&> "'
    assert cells[("Plan", "F9")].value == "chip 2 <&> "
    assert ("Plan", "d9") not in cells and ("Plan", "$D$9") not in cells
    assert ("Plan", "D99") not in cells and cells.get(("Other", "D9")) is None
    with pytest.raises(KeyError):
        cells[("Plan", "Z1")]
    errors = ev.errors()
    assert [(c.cell, str(c.value)) for c in errors] == [("G2", "#DIV/0!"), ("G3", "#DIV/0!")]
    assert errors[1].reason.startswith("propagated from Plan!G2")
    assert cells[("Plan", "G3")] is errors[1]  # made once, then kept
    cached = cells.cached_values()["Plan"]
    assert cached["D9"] == 18.0 and cached["F9"] == "chip 2 <&> "
    assert str(cached["G3"]) == "#DIV/0!" and len(cached) == len(cells)
    assert dict(cells) == {k: cells[k] for k in keys}
