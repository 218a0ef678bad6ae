"""Lookup benchmark: a filled-down column of each lookup form over a table as long as it.

    python benchmarks/recalc_lookups.py              # 10,000 rows
    python benchmarks/recalc_lookups.py --rows 1000 50000

For N rows: a table A1:B{N} (even numbers ascending, names), a descending copy C1:C{N},
N random lookup values in D, and one column of formulas per book. Each book is
recalculated in this process (``recalc_book``, no write), timed by wall clock; the
baseline is the same book with ``=D{i}*2`` as the column, measured in the same run. Prints
seconds, the ratio to the baseline, and the peak RSS of the process. Compare ratios, not
seconds: the machine is shared.
"""
from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FORMS = {
    "baseline =D*2": "=D{i}*2",
    "VLOOKUP exact": "=VLOOKUP(D{i},$A$1:$B${n},2,FALSE)",
    "VLOOKUP approximate": "=VLOOKUP(D{i},$A$1:$B${n},2,TRUE)",
    "MATCH 0": "=MATCH(D{i},$A$1:$A${n},0)",
    "MATCH 1": "=MATCH(D{i},$A$1:$A${n},1)",
    "MATCH -1 (descending)": "=MATCH(D{i},$C$1:$C${n},-1)",
    "XLOOKUP": '=_xlfn.XLOOKUP(D{i},$A$1:$A${n},$B$1:$B${n},"none")',
    "XMATCH -1": "=_xlfn.XMATCH(D{i},$A$1:$A${n},-1)",
    "LOOKUP": "=LOOKUP(D{i},$A$1:$A${n},$B$1:$B${n})",
}


def _book(path: Path, n: int, formula: str) -> None:
    import openpyxl

    rnd = random.Random(1)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for i in range(1, n + 1):
        ws.cell(i, 1, 2 * i)
        ws.cell(i, 2, f"name{i}")
        ws.cell(i, 3, 2 * (n + 1 - i))
        ws.cell(i, 4, rnd.randint(0, 2 * n + 2))
        ws.cell(i, 5, formula.format(i=i, n=n))
    wb.save(path)


def main() -> None:
    from rooflinexl.recalc.book import recalc_book

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[10_000])
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm.xlsx"  # imports and first-call set-up, not measured
        _book(warm, 100, FORMS["VLOOKUP exact"])
        recalc_book(warm, write=False)
        for n in args.rows:
            print(f"{n:,} rows")
            base = None
            for name, formula in FORMS.items():
                path = Path(tmp) / f"{n}-{len(name)}.xlsx"
                _book(path, n, formula)
                t0 = time.perf_counter()
                ev = recalc_book(path, write=False).evaluation
                dt = time.perf_counter() - t0
                base = dt if base is None else base
                print(f"  {name:<24} {dt:8.2f} s  x{dt / base:5.2f}  {ev.paths.summary()}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
