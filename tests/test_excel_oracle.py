"""Excel as the oracle: every formula cell of workbooks saved by Excel, recalculated.

``tests/data/excel-oracle-dev/`` holds 57 workbooks saved by Microsoft Excel
(the xlcalculator project's test resources, MIT licence, see its README), whose
cached values are Excel's own answers: 19,901 formula cells. Each workbook is
recalculated (nothing written) and every formula cell is compared with Excel's
cached value (numbers to a relative 1e-9, text, booleans and error values
exactly; :func:`excel_oracle.compare_book`). The only cells allowed to differ
are listed in :data:`KNOWN` with Excel's value, ours, and why; a listed cell
that starts to match fails the test too, so the list only ever shrinks.

Match rate (``python benchmarks/excel_oracle.py``): 11.9 % before issue 13
(2,368 cells; a whole-row array formula alone is 16,384 cells), 100 % after.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from excel_oracle import compare_book, workbooks

DEV = Path(__file__).resolve().parent / "data" / "excel-oracle-dev"
BOOKS = workbooks(DEV)

#: (workbook, sheet, cell) -> (Excel's value, ours today, why). Nothing else may differ.
KNOWN: dict[tuple[str, str, str], tuple[object, object, str]] = {}


def test_the_corpus_is_complete():
    assert len(BOOKS) == 57
    assert (DEV / "LICENSE-xlcalculator-MIT.txt").is_file()
    assert (DEV / "README.md").is_file()


@pytest.mark.parametrize("path", BOOKS, ids=[p.name for p in BOOKS])
def test_every_formula_cell_equals_excels_cached_value(path):
    m = compare_book(path)
    assert not m.failure, m.failure
    assert m.cells > 0
    known = {(s, c): v for (b, s, c), v in KNOWN.items() if b == path.name}
    unexpected = [x for x in m.mismatches if (x.sheet, x.cell) not in known]
    assert not unexpected, "\n".join(
        f"{x.sheet}!{x.cell} {x.formula}: Excel {x.excel!r}, ours {x.ours!r} ({x.reason})"
        for x in unexpected[:20])
    differing = {(x.sheet, x.cell): x for x in m.mismatches}
    for key, (excel, ours, _why) in known.items():
        assert key in differing, f"{path.name} {key} now matches Excel: remove it from KNOWN"
        x = differing[key]
        assert x.excel == pytest.approx(excel, rel=1e-12) if isinstance(excel, float) \
            else x.excel == excel
        assert x.ours == pytest.approx(ours, rel=1e-12) if isinstance(ours, float) \
            else x.ours == ours
