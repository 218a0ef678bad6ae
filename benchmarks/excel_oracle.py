"""Match rate against Excel: recalculate Excel-saved workbooks, compare with the cached values.

    python benchmarks/excel_oracle.py                      # tests/data/excel-oracle-dev
    python benchmarks/excel_oracle.py DIR... [--engine cells] [-v]
    python benchmarks/excel_oracle.py DIR... --peer formualizer   # the same cells, computed
                                                                   # by formualizer (measuring)

Prints per workbook: formula cells, cells equal to Excel's cached value,
seconds; then the totals (match rate, time) and the peak memory of the
process. ``-v`` lists every differing cell.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
from excel_oracle import BookMatch, Mismatch, compare_book, workbooks  # noqa: E402

_FZ_ERRORS = {"Num": "#NUM!", "Div": "#DIV/0!", "Div0": "#DIV/0!", "Na": "#N/A", "NA": "#N/A",
              "Value": "#VALUE!", "Ref": "#REF!", "Name": "#NAME?", "Null": "#NULL!",
              "Spill": "#SPILL!", "Calc": "#CALC!"}


def compare_formualizer(path: Path) -> BookMatch:
    """Excel's cached values against formualizer 0.13's (load, evaluate_all, get_value)."""
    import formualizer

    from rooflinexl.check import values_equal
    from rooflinexl.errors import EXCEL_ERRORS, ExcelError
    from rooflinexl.ooxml import UnusableWorkbookError, read_cached_values

    out = BookMatch(path)
    t0 = time.perf_counter()
    try:
        cached = read_cached_values(path)
    except UnusableWorkbookError as ex:  # not a workbook we read (encrypted, .xls ...)
        out.failure = f"refused: {ex}"
        return out
    try:
        wb = formualizer.load_workbook(str(path))
        wb.evaluate_all()
    except Exception as ex:  # noqa: BLE001 - reported as the workbook's failure
        out.failure = f"{type(ex).__name__}: {ex}"
        out.cells = sum(len(v) for v in cached.values())
        out.seconds = time.perf_counter() - t0
        return out
    for sheet, cells in cached.items():
        for cell, excel in cells.items():
            out.cells += 1
            col = 0
            i = 0
            while cell[i].isalpha():
                col = col * 26 + ord(cell[i]) - 64
                i += 1
            try:
                v = wb.get_value(sheet, int(cell[i:]), col)
            except Exception as ex:  # noqa: BLE001
                v = ExcelError("#VALUE!", f"formualizer: {ex}")
            if isinstance(v, dict) and v.get("type") == "Error":
                code = _FZ_ERRORS.get(v.get("kind"), "#" + str(v.get("kind")).upper())
                v = ExcelError(code) if code in EXCEL_ERRORS else code
            if not values_equal(excel, v):
                out.mismatches.append(Mismatch(sheet, cell, "", str(excel) if isinstance(
                    excel, ExcelError) else excel, str(v) if isinstance(v, ExcelError) else v))
    out.seconds = time.perf_counter() - t0
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", default=[ROOT / "tests" / "data" / "excel-oracle-dev"])
    ap.add_argument("--engine", default=None)
    ap.add_argument("--peer", choices=["formualizer"], default=None,
                    help="measure a peer engine instead of rooflinexl")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    total = matched = 0
    t0 = time.perf_counter()
    for p in workbooks(*a.folders):
        m = compare_formualizer(p) if a.peer else compare_book(p, engine=a.engine)
        total += m.cells
        matched += m.matched
        note = f"  FAILED: {m.failure[:120]}" if m.failure else ""
        print(f"{p.name:<40} {m.matched:>6}/{m.cells:<6} {m.seconds:7.2f} s{note}", flush=True)
        if a.verbose:
            for x in m.mismatches[:40]:
                print(f"    {x.sheet}!{x.cell:<8} {x.formula[:60]:<60} excel={x.excel!r:<24} "
                      f"ours={x.ours!r} {x.reason[:80]}")
            if len(m.mismatches) > 40:
                print(f"    ... and {len(m.mismatches) - 40} more")
    wall = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rate = matched / total if total else 0.0
    print(f"TOTAL {matched}/{total} = {100 * rate:.1f} % in {wall:.1f} s, peak RSS {rss:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
