"""Whole-column ranges and running totals: time and peak memory of ``rooflinexl recalc``.

    python benchmarks/recalc_ranges.py            # every case
    python benchmarks/recalc_ranges.py --quick    # without the 1e6-row case
    python benchmarks/recalc_ranges.py --limit-s 120 --limit-mb 4096

The workbooks of issue 16 item 7 (generated once into a temporary folder):

* ``col_totals``: 300 rows of numbers in B:K and ten totals ``=SUM(B:B)`` ...
  ``=SUM(K:K)`` beside them (target < 2 s, < 300 MB);
* ``sum_col_1e6``: ``=SUM(A:A)`` over 1e6 filled rows (target < 10 s, < 2 GB);
* ``running_plus``: ``=A1+1`` filled down 100k rows (target < 10 s);
* ``running_sum``: ``=SUM($A$2:A2)`` filled down 100k rows (target < 10 s);
* ``nested``: one formula nested 300 levels deep beside a plain one (issue 16
  item 11: an error in that cell, the rest computed).

Each recalculation runs end to end (load, compute, write) in a fresh process,
measured by wall clock and peak RSS from ``wait4``; a run past the time or
memory limit is reported as such (the figures before the fix). The ratio
column compares each case with ``python -c "import rooflinexl.recalc.book"``
measured in the same run, so figures from different machines compare.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_RECALC = """
import sys
from rooflinexl.recalc.book import recalc_book
r = recalc_book(sys.argv[1], sys.argv[2])
print(r.evaluation.paths.summary(), "|", len(r.errors), "errors")
"""


def build(folder: Path, quick: bool) -> dict[str, Path]:
    """Write the benchmark workbooks (xlsxwriter, constant memory) into ``folder``."""
    import xlsxwriter

    out = {}

    def book(name):
        p = folder / f"{name}.xlsx"
        out[name] = p
        if p.exists():
            return None
        return xlsxwriter.Workbook(str(p), {"constant_memory": True})

    wb = book("col_totals")
    if wb:
        ws = wb.add_worksheet("Data")
        for r in range(300):
            for c in range(1, 11):
                ws.write_number(r, c, (r * 10 + c) % 97 + 0.5)
            if r < 10:
                ws.write_formula(r, 12, f"=SUM({chr(66 + r)}:{chr(66 + r)})")
        wb.close()
    if not quick:
        wb = book("sum_col_1e6")
        if wb:
            ws = wb.add_worksheet("Data")
            ws.write_formula(0, 1, "=SUM(A:A)")
            ws.write_number(0, 0, 1.0)
            for r in range(1, 1_000_000):
                ws.write_number(r, 0, float(r % 1000))
            wb.close()
    wb = book("running_plus")
    if wb:
        ws = wb.add_worksheet("Data")
        ws.write_number(0, 0, 1.0)
        for r in range(1, 100_001):
            ws.write_formula(r, 0, f"=A{r}+1")
        wb.close()
    wb = book("running_sum")
    if wb:
        ws = wb.add_worksheet("Data")
        for r in range(1, 100_001):
            ws.write_number(r, 0, float(r % 100))
            ws.write_formula(r, 1, f"=SUM($A$2:A{r + 1})")
        wb.close()
    wb = book("nested")
    if wb:
        ws = wb.add_worksheet("Data")
        ws.write_number(0, 0, 2.0)
        ws.write_formula(0, 1, "=" + "ABS(" * 300 + "A1" + ")" * 300)
        ws.write_formula(0, 2, "=A1*3")
        wb.close()
    return out


def run(cmd: list[str], limit_s: float, limit_mb: float) -> tuple[float, float, str]:
    """(wall s, peak RSS MB, last output line or what stopped it) of one command."""

    def cap():
        lim = int(limit_mb * 2**20)
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))

    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            preexec_fn=cap)
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - t > limit_s:
            proc.kill()
            _, status, usage = os.wait4(proc.pid, 0)
            return time.perf_counter() - t, usage.ru_maxrss / 1024, f"stopped after {limit_s:.0f} s"
        time.sleep(0.01)
    wall = time.perf_counter() - t
    text = (proc.stdout.read() + proc.stderr.read()).decode(errors="replace").strip()
    last = text.splitlines()[-1] if text else ""
    if os.waitstatus_to_exitcode(status) != 0:
        last = f"exit {os.waitstatus_to_exitcode(status)}: {last[:120]}"
    return wall, usage.ru_maxrss / 1024, last


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the 1e6-row case")
    ap.add_argument("--limit-s", type=float, default=300.0)
    ap.add_argument("--limit-mb", type=float, default=4096.0)
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--folder", default=os.path.join(tempfile.gettempdir(),
                                                     "rooflinexl-bench-ranges"))
    a = ap.parse_args(argv)
    folder = Path(a.folder)
    folder.mkdir(parents=True, exist_ok=True)
    books = build(folder, a.quick)
    if a.only:
        books = {k: v for k, v in books.items() if k in a.only.split(",")}
    env_py = [sys.executable, "-c"]
    base, base_mb, _ = run([*env_py, "import rooflinexl.recalc.book"], a.limit_s, a.limit_mb)
    print(f"baseline: import rooflinexl.recalc.book {base:.2f} s, {base_mb:.0f} MB")
    print("| case | wall s | / import | peak MB | result |\n|---|---:|---:|---:|---|")
    for name, path in books.items():
        dst = folder / f"{name}.out.xlsx"
        wall, mb, last = run([*env_py, _RECALC, str(path), str(dst)], a.limit_s, a.limit_mb)
        print(f"| {name} | {wall:.2f} | {wall / base:.1f}x | {mb:.0f} | {last} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
