"""Recalculation benchmark: block evaluator vs the per-cell ``formulas`` engine vs LibreOffice.

    python benchmarks/recalc_bench.py            # 1,000 and 10,000 rows (formulas at
                                                 #   10,000 rows alone takes ~2 min, 3 GB)
    python benchmarks/recalc_bench.py --quick    # formulas at 10,000 rows extrapolated
                                                 #   from 1,000 (linear, marked ~)
    python benchmarks/recalc_bench.py --rows 100000 1000000   # issue 13 item 4: CPU time
                                                 #   and peak memory against LibreOffice

The plan (:mod:`recalc_plan`): a 40-chip table (Excel table + defined name) and
N rows of chip, B, D, F with three native formulas (INDEX/MATCH x2 on the
table, arithmetic) and MATMUL_TIME per row -- 4N formulas. LibreOffice
recalculates the native-formula twin (MATMUL_TIME written out as a formula),
because it cannot call our function.

Every engine runs end to end in a fresh process (load, compute, write an
.xlsx with the values), timed by wall clock and peak RSS from ``wait4``;
median of the repeats. rooflinexl's modules are compiled once, by a warm-up
run, into a temporary bytecode folder (``PYTHONPYCACHEPREFIX``), as an installed
package has them compiled (``--no-bytecode``: every run compiles them from
source, as under ``PYTHONDONTWRITEBYTECODE=1``, a few tenths of a second).
``rooflinexl`` also reports where its time goes (start-up = interpreter and
imports; read = package checks and sheet XML; plan = grouping, parsing,
dependencies; compute; collect = results and error reasons; write = stamping
the cached values). Compare ratios, not seconds: the machine is shared.

``section_recalc(quick)`` is the ``recalc`` section of ``benchmarks/run.py``.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from rooflinexl.libreoffice.soffice import soffice_path, write_profile  # noqa: E402

_RECALC = """
import json, sys, time
t0 = time.perf_counter()
from rooflinexl.recalc.book import recalc_book
t1 = time.perf_counter()
r = recalc_book(sys.argv[1], sys.argv[2], engine=sys.argv[3])
out = dict(r.seconds, imports=t1 - t0, cells=len(r.evaluation.cells),
           errors=len(r.errors), summary=r.evaluation.paths.summary())
print(json.dumps(out))
"""



_CPU: dict[int, float] = {}  # pid -> CPU seconds (user + system) of the last _run


def _run(cmd: list[str], timeout: float = 900, env=None) -> tuple[float, float, str]:
    """(wall s, peak RSS MB of the process tree, stdout) of one command; its CPU seconds
    (user + system, children it waited for included) in ``_CPU[0]``."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=ROOT)
    deadline = t + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            raise TimeoutError(" ".join(cmd))
        time.sleep(0.005)
    wall = time.perf_counter() - t
    _CPU[0] = usage.ru_utime + usage.ru_stime
    out = proc.stdout.read().decode()
    err = proc.stderr.read().decode()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {err[-2000:]}")
    return wall, usage.ru_maxrss / 1024, out  # ru_maxrss: KiB on Linux


#: where the rooflinexl runs keep their compiled modules (None: each run compiles every module
#: from source, as under PYTHONDONTWRITEBYTECODE=1; an installed package has them compiled)
_BYTECODE: dict[str, Path | None] = {"dir": None}


def _env() -> dict[str, str]:
    """The environment of a rooflinexl run: its bytecode kept in :data:`_BYTECODE` (outside
    the tree), as pip leaves an installed package's, unless that is None."""
    env = dict(os.environ)
    if _BYTECODE["dir"] is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(_BYTECODE["dir"])
    return env


def rooflinexl(src: Path, dst: Path, engine: str) -> dict:
    wall, rss, out = _run([sys.executable, "-c", _RECALC, str(src), str(dst), engine],
                          env=_env())
    res = json.loads(out.strip().splitlines()[-1])
    res.update(wall=wall, rss=rss, cpu=_CPU[0])
    return res


def libreoffice(src: Path, outdir: Path, profile: Path) -> dict:
    exe = soffice_path()
    env = dict(os.environ, LC_ALL="C.UTF-8", LANG="C.UTF-8")
    cmd = [exe, "--headless", "--norestore", "--nologo", "--nolockcheck",
           f"-env:UserInstallation={profile.resolve().as_uri()}",
           "--convert-to", "xlsx", "--outdir", str(outdir), str(src)]
    wall, rss, _ = _run(cmd, env=env, timeout=3600)
    return {"wall": wall, "rss": rss, "cpu": _CPU[0]}


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def _warm(tmp: Path, bytecode: bool) -> None:
    """Keep the runs' compiled modules in ``tmp`` (``bytecode``), compiled by a first run of
    each path, so that no timed run compiles a module (as none does once installed)."""
    from recalc_plan import make_plan

    _BYTECODE["dir"] = tmp / "bytecode" if bytecode else None
    if bytecode:
        warm = make_plan(tmp / "warm-ours.xlsx", 100)
        for engine in ("auto", "cells"):
            rooflinexl(warm, tmp / "warm-ours-out.xlsx", engine)


def section_recalc(quick: bool, bytecode: bool = True) -> list[str]:
    """Block path vs formulas vs LibreOffice at 1,000 and 10,000 rows; time split."""
    from recalc_plan import make_plan

    repeats = 3
    lo = soffice_path()
    lines = ["", "## recalc: N-row plan, 3 native formulas + MATMUL_TIME per row "
             "(40-chip table)", ""]
    tmp = Path(tempfile.mkdtemp(prefix="rooflinexl-bench-"))
    rows_out = []
    splits = []
    try:
        _warm(tmp, bytecode)
        profile = write_profile(tmp / "lo-profile")
        lo_version = ""
        if lo:
            lo_version = subprocess.run([lo, "--version"], capture_output=True,
                                        text=True).stdout.strip().split("\n")[0]
            warm = make_plan(tmp / "warm.xlsx", 10, twin=True)  # profile creation
            libreoffice(warm, tmp / "lo", profile)
        per_cell_1k = None
        tiny = make_plan(tmp / "tiny.xlsx", 10)
        base_rss = rooflinexl(tiny, tmp / "tiny_out.xlsx", "cells")["rss"]
        for n in (1_000, 10_000):
            plan = make_plan(tmp / f"plan{n}.xlsx", n)
            twin = make_plan(tmp / f"twin{n}.xlsx", n, twin=True)
            blocks = [rooflinexl(plan, tmp / f"out{n}.xlsx", "auto") for _ in range(repeats)]
            if n == 1_000 or not quick:
                cells = [rooflinexl(plan, tmp / f"cells{n}.xlsx", "cells")]
                cells_wall, cells_rss, approx = cells[0]["wall"], cells[0]["rss"], ""
                if n == 1_000:
                    per_cell_1k = cells[0]
            else:  # extrapolated: the per-cell engine is linear in the formula count
                k = n / 1_000
                startup = per_cell_1k["imports"]
                cells_wall = startup + (per_cell_1k["wall"] - startup) * k
                cells_rss = base_rss + (per_cell_1k["rss"] - base_rss) * k
                approx = "~"
            los = ([libreoffice(twin, tmp / "lo", profile) for _ in range(repeats)]
                   if lo else [])
            b_wall, b_rss = _median(blocks, "wall"), _median(blocks, "rss")
            lo_wall = _median(los, "wall") if los else float("nan")
            lo_rss = _median(los, "rss") if los else float("nan")
            rows_out.append(
                f"| {n:,} | {4 * n:,} | {b_wall:.2f} | {b_rss:.0f} | {approx}{cells_wall:.1f} | "
                f"{approx}{cells_rss:.0f} | {lo_wall:.2f} | {lo_rss:.0f} | "
                f"{approx}{cells_wall / b_wall:.0f}x | {b_wall / lo_wall:.2f}x |")
            b = blocks[len(blocks) // 2]
            startup = b["wall"] - b["total"]
            read = b["evaluate"] - b["evaluate.plan"] - b["evaluate.compute"] - b[
                "evaluate.collect"]
            splits.append(
                f"| {n:,} | {b['wall']:.2f} | {startup:.2f} | {read:.2f} | "
                f"{b['evaluate.plan']:.2f} | {b['evaluate.compute']:.2f} | "
                f"{b['evaluate.collect']:.2f} | {b['write']:.2f} |")
            assert b["errors"] == 0 and b["cells"] == 4 * n, b
            lines_summary = b["summary"]
        lines += [f"LibreOffice: {lo_version or 'not installed'} (warm profile, "
                  "--convert-to xlsx, recalculation forced on load; native twin); "
                  f"rooflinexl's modules {_BYTECODE_NOTE[bytecode]}", "",
                  "| rows | formulas | rooflinexl s | MB | formulas s | MB | LibreOffice s | MB "
                  "| formulas / rooflinexl | rooflinexl / LibreOffice |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|", *rows_out, "",
                  f"rooflinexl paths at 10,000 rows: {lines_summary}", "",
                  "Where rooflinexl's time goes (median run, seconds):", "",
                  "| rows | wall | start-up | read | plan | compute | collect | write |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|", *splits]
        if quick:
            lines += ["", "~ = extrapolated linearly from 1,000 rows (run without --quick "
                      "to measure; about 2 minutes and 3 GB)."]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("\n".join(lines), flush=True)
    return lines


def section_large(sizes: list[int], bytecode: bool = True) -> list[str]:
    """Issue 13 item 4: the plan at ``sizes`` rows, rooflinexl (block path) against
    LibreOffice on the native twin, CPU time (user + system) and peak memory, one run each
    in a fresh process (the target: at most 0.5x LibreOffice's CPU time and at most its
    peak memory)."""
    from recalc_plan import make_plan

    lo = soffice_path()
    if not lo:
        raise SystemExit("LibreOffice (soffice) is not installed")
    tmp = Path(tempfile.mkdtemp(prefix="rooflinexl-bench-"))
    rows_out, splits = [], []
    try:
        _warm(tmp, bytecode)
        profile = write_profile(tmp / "lo-profile")
        libreoffice(make_plan(tmp / "warm.xlsx", 10, twin=True), tmp / "lo", profile)
        for n in sizes:
            plan = make_plan(tmp / f"plan{n}.xlsx", n)
            twin = make_plan(tmp / f"twin{n}.xlsx", n, twin=True)
            ours = rooflinexl(plan, tmp / f"out{n}.xlsx", "auto")
            theirs = libreoffice(twin, tmp / "lo", profile)
            assert ours["errors"] == 0 and ours["cells"] == 4 * n, ours
            rows_out.append(
                f"| {n:,} | {4 * n:,} | {ours['cpu']:.1f} | {ours['wall']:.1f} | "
                f"{ours['rss']:.0f} | {theirs['cpu']:.1f} | {theirs['wall']:.1f} | "
                f"{theirs['rss']:.0f} | {ours['cpu'] / theirs['cpu']:.2f}x | "
                f"{ours['rss'] / theirs['rss']:.2f}x |")
            read = ours["evaluate"] - sum(ours[f"evaluate.{k}"]
                                          for k in ("plan", "compute", "collect"))
            splits.append(
                f"| {n:,} | {ours['wall']:.1f} | {ours['wall'] - ours['total']:.1f} | "
                f"{read:.1f} | {ours['evaluate.plan']:.1f} | {ours['evaluate.compute']:.1f} | "
                f"{ours['evaluate.collect']:.1f} | {ours['write']:.1f} |")
            for p in (plan, twin):
                p.unlink()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    lines = ["", "## recalc: large plans, rooflinexl vs LibreOffice (CPU time, peak memory)",
             "", f"rooflinexl's modules: {_BYTECODE_NOTE[bytecode]}", "",
             "| rows | formulas | rooflinexl CPU s | wall s | MB | LibreOffice CPU s | wall s "
             "| MB | CPU ratio | memory ratio |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|", *rows_out, "",
             "Where rooflinexl's time goes (wall clock, seconds; read = package check and "
             "sheet XML, the rest of evaluate.load):", "",
             "| rows | wall | start-up | read | plan | compute | collect | write |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|", *splits]
    print("\n".join(lines), flush=True)
    return lines


_BYTECODE_NOTE = {True: "compiled once, before the timed runs (as installed)",
                  False: "compiled from source in every run (--no-bytecode)"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="extrapolate the per-cell engine at 10,000 rows from 1,000")
    parser.add_argument("--rows", type=int, nargs="+", metavar="N",
                        help="instead: the plan at N rows (100000 1000000: issue 13 item 4) "
                             "against LibreOffice, CPU time and peak memory")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="compile rooflinexl's modules from source in every run (as under "
                             "PYTHONDONTWRITEBYTECODE=1) instead of once before the timed runs")
    args = parser.parse_args(argv)
    if args.rows:
        section_large(args.rows, not args.no_bytecode)
    else:
        section_recalc(args.quick, not args.no_bytecode)
    return 0


if __name__ == "__main__":
    sys.exit(main())
