"""Match rate against Excel: recalculate Excel-saved workbooks, compare with the cached values.

    python benchmarks/excel_oracle.py                      # tests/data/excel-oracle-dev
    python benchmarks/excel_oracle.py DIR... [--engine cells] [-v]

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
from excel_oracle import compare_book, workbooks  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", default=[ROOT / "tests" / "data" / "excel-oracle-dev"])
    ap.add_argument("--engine", default=None)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    total = matched = 0
    t0 = time.perf_counter()
    for p in workbooks(*a.folders):
        m = compare_book(p, engine=a.engine)
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
