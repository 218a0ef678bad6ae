"""What a rooflinexl function costs in LibreOffice Calc: per cell, and the first call.

    python benchmarks/libreoffice_addin_bench.py           # N = 1, 1,000 and 10,000 cells
    python benchmarks/libreoffice_addin_bench.py --quick   # N = 1 and 1,000

Two workbooks per N, each with the packaged chip table (12 chips, 22 columns,
the defined name Chips) and N rows of chip, D, F:

* ``addin``: ``=CRIT_BATCH(Chips,A2,B2,C2)`` per row, through the add-in
  (registered for the run, :func:`rooflinexl.libreoffice.addin.registration_args`);
* ``native``: ``=B2*C2/B$2`` per row, without the add-in: the baseline,
  measured in the same run.

Each is one fresh headless ``soffice --convert-to xlsx`` (load, recalculate,
save), measured by its CPU time (user + system of the whole process tree
from ``wait4``: on a shared machine far steadier than wall time, which is
shown too), the fastest of the repeats, and peak RSS (median). Per-cell
cost = (addin - native - first call) / (N - 1) at the largest N; first-call
cost = addin - native at N = 1 (LibreOffice starting the Python bridge and
the component, importing numpy and rooflinexl, parsing the chip table once). Compare
ratios, not seconds: the machine is shared.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rooflinexl.libreoffice import addin  # noqa: E402
from rooflinexl.libreoffice.soffice import office_env, soffice_path, write_profile  # noqa: E402


def make_book(path: Path, n: int, kind: str) -> Path:
    import openpyxl
    from openpyxl.utils import get_column_letter
    from openpyxl.workbook.defined_name import DefinedName

    from rooflinexl.chips import load_chips

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Plan"
    chips = wb.create_sheet("Chips")
    rows = load_chips().to_rows()
    for r in rows:
        chips.append(r)
    ref = f"Chips!$A$1:${get_column_letter(len(rows[0]))}${len(rows)}"
    wb.defined_names["Chips"] = DefinedName("Chips", attr_text=ref)
    names = [r[0] for r in rows[1:]]
    ws.append(["chip", "D", "F", "result"])
    for i in range(n):
        r = i + 2
        formula = (f"=CRIT_BATCH(Chips,A{r},B{r},C{r})" if kind == "addin"
                   else f"=B{r}*C{r}/B$2")
        ws.append([names[i % len(names)], 1024 * (1 + i % 16), 8192, formula])
    wb.save(path)
    return path


def run(cmd: list[str]) -> tuple[float, float, float]:
    """CPU seconds (user + system), wall seconds and peak RSS (MB) of one process tree."""
    env = office_env(LC_ALL="C.UTF-8", LANG="C.UTF-8")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def soffice(book: Path, outdir: Path, profile: Path, extra: list[str]):
    return run([soffice_path(), "--headless", "--norestore", "--nologo", "--nolockcheck",
                f"-env:UserInstallation={profile.resolve().as_uri()}", *extra,
                "--convert-to", "xlsx", "--outdir", str(outdir), str(book)])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 1 and 1,000 only")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    if soffice_path() is None:
        raise SystemExit("soffice not found: run .ci/install-libreoffice.sh")
    addin.check_python()
    sizes = (1, 1_000) if args.quick else (1, 1_000, 10_000)
    with tempfile.TemporaryDirectory(prefix="rooflinexl-lo-bench-") as tmp:
        tmp = Path(tmp)
        folder = addin.stage(tmp / "addin", log=tmp / "addin.log")
        reg = addin.registration_args(folder)
        profile = write_profile(tmp / "profile")
        soffice(make_book(tmp / "warm.xlsx", 10, "native"), tmp / "out", profile, reg)
        print("| N cells | native CPU s | add-in CPU s | add-in − native per cell | "
              "native wall s | add-in wall s | native MB | add-in MB |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|")
        extra = {}
        for n in sizes:
            books = {k: make_book(tmp / f"{k}{n}.xlsx", n, k) for k in ("native", "addin")}
            got = {k: [soffice(b, tmp / "out", profile, reg if k == "addin" else [])
                       for _ in range(args.repeats)] for k, b in books.items()}
            cpu = {k: min(r[0] for r in v) for k, v in got.items()}
            wall = {k: min(r[1] for r in v) for k, v in got.items()}
            rss = {k: statistics.median(r[2] for r in v) for k, v in got.items()}
            extra[n] = cpu["addin"] - cpu["native"]
            print(f"| {n:,} | {cpu['native']:.2f} | {cpu['addin']:.2f} | "
                  f"{extra[n] / n * 1e3:.3f} ms | {wall['native']:.2f} | {wall['addin']:.2f} | "
                  f"{rss['native']:.0f} | {rss['addin']:.0f} |")
        big = max(sizes)
        per = (extra[big] - extra[1]) / (big - 1)
        print(f"\nfirst call: {extra[1] * 1e3:.0f} ms CPU; per further CRIT_BATCH(Chips,...) "
              f"cell: {per * 1e3:.3f} ms CPU (N = {big:,}, first call subtracted)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
