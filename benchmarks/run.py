"""rooflinexl benchmarks: one command, ratios measured in the same run.

    python benchmarks/run.py            # full: 1e4, 1e5, 1e6 rows; dask on 1e7 (minutes)
    python benchmarks/run.py --quick    # 1e4, 1e5 rows, fewer repeats; dask on 1e6
    python benchmarks/run.py --only batch,import,dask

Each section is an independent function ``section_<name>(quick) -> list[str]``
(the lines it printed) registered in ``SECTIONS``; add a section by writing
one and registering it. Timings are wall-clock on whatever machine runs
this: compare the ratios, which are measured in the same run, not the
absolute seconds. Nothing here is a test; no threshold is asserted.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHIPS = ["H100", "H200", "B200", "TPU v5e", "TPU v5p"]


def _best(fn, repeats: int) -> float:
    """Best wall time of ``repeats`` calls after one warm-up call (seconds)."""
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def _best_interleaved(fns: dict, repeats: int) -> dict:
    """Best wall time of each of ``fns`` (name -> callable), called in turn ``repeats`` times
    after one warm-up round, so that a busy machine slows them alike (seconds by name)."""
    for fn in fns.values():
        fn()
    times: dict = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return {name: min(ts) for name, ts in times.items()}


def scenario_frame(n: int, seed: int = 0):
    """n matmul scenarios: 5 chips, bf16/int8, random B, D and F from three shapes."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "chip": np.array(CHIPS, dtype=object)[rng.integers(0, len(CHIPS), n)],
        "dtype": np.array(["bf16", "int8"], dtype=object)[rng.integers(0, 2, n)],
        "B": rng.integers(1, 8192, n),
        "D": rng.choice([1024, 4096, 8192], n),
        "F": rng.choice([4096, 8192, 16384], n),
    })


def bare_numpy(df, table):
    """The same formulas as a bare numpy expression: what batch computes, with no checks.

    The baseline of "within 1.5x" (issue 15): it starts from the same DataFrame (chip and
    dtype names, B, D, F) and produces the same eight matmul results
    (t_math, t_hbm, t_comms, time, upper, bound, intensity, crit_batch) for
    one chip each, no sharding; it skips validation, error reasons and the
    output DataFrame.
    """
    import pandas as pd

    codes, uniq = pd.factorize(df["chip"])
    rows = np.array([table.row_of(u) for u in uniq])[codes]
    dcodes, duniq = pd.factorize(df["dtype"])
    a = np.array([{"bf16": 2.0, "int8": 1.0}[u] for u in duniq])[dcodes]
    peaks = np.stack([table.numeric("bf16_flops"), table.numeric("int8_flops")])
    peak = peaks[np.array([{"bf16": 0, "int8": 1}[u] for u in duniq])[dcodes], rows]
    bw = table.numeric("hbm_bw")[rows]
    B, D, F = (df[c].to_numpy(float) for c in "BDF")
    flops = 2 * B * D * F
    nbytes = a * B * D + a * D * F + a * B * F
    t_math, t_hbm, t_comms = flops / peak, nbytes / bw, np.zeros(len(df))
    t = np.maximum(np.maximum(t_math, t_hbm), t_comms)
    upper = t_math + t_hbm + t_comms
    bound = np.where(t_math >= np.maximum(t_hbm, t_comms), "compute",
                     np.where(t_hbm >= t_comms, "memory", "network"))
    intensity = flops / nbytes
    crit = a / (2 / (peak / bw) - a / F - a / D)
    return t, upper, bound, intensity, crit


def per_row_loop(df, chips_rows):
    """The Excel path row by row: rooflinexl.udfs.matmul_time, one call per scenario."""
    from rooflinexl import udfs

    return [udfs.matmul_time(chips_rows, c, b, d, f, dt)
            for c, dt, b, d, f in zip(df["chip"], df["dtype"], df["B"], df["D"], df["F"],
                                      strict=True)]


# ------------------------------------------------------------------ sections
def section_batch(quick: bool) -> list[str]:
    """batch.evaluate vs a bare numpy expression vs a per-row loop over the Excel function."""
    from rooflinexl.batch import evaluate
    from rooflinexl.chips import load_chips

    table = load_chips()
    chips_rows = table.to_rows()
    sizes = [10**4, 10**5] if quick else [10**4, 10**5, 10**6]
    repeats = 3 if quick else 5
    sample = 300 if quick else 2000
    lines = ["## batch: 1 matmul scenario per row (5 chips, bf16/int8, mixed shapes)",
             "", "| rows | batch s | numpy s | batch/numpy | per-row loop s | loop/batch |",
             "|---:|---:|---:|---:|---:|---:|"]
    print("\n".join(lines), flush=True)
    for n in sizes:
        df = scenario_frame(n)
        out = evaluate(df)
        assert out["error"].isna().all(), out["error"].dropna().head()
        # same numbers as the bare expression
        ref = bare_numpy(df, table)
        assert np.allclose(out["time"], ref[0], rtol=1e-12)
        assert np.allclose(out["crit_batch"], ref[4], rtol=1e-12)
        best = _best_interleaved({"batch": lambda df=df: evaluate(df),
                                  "numpy": lambda df=df: bare_numpy(df, table)}, repeats)
        t_batch, t_numpy = best["batch"], best["numpy"]
        m = min(n, sample)
        head = df.iloc[:m]
        t_loop = _best(lambda head=head: per_row_loop(head, chips_rows), 1) * n / m
        mark = "" if m == n else f" (~, {m:,}-row sample x {n // m:,})"
        line = (f"| {n:,} | {t_batch:.4f} | {t_numpy:.4f} | {t_batch / t_numpy:.2f}x | "
                f"{t_loop:.2f}{mark} | {t_loop / t_batch:,.0f}x |")
        print(line, flush=True)
        lines.append(line)
    # the cost of bad rows to the others: 1% unknown chips and 1% negative B
    n = sizes[-1]
    df = scenario_frame(n, seed=1)
    bad = scenario_frame(n, seed=1)
    rng = np.random.default_rng(2)
    bad.loc[rng.random(n) < 0.01, "chip"] = "B900"
    bad.loc[rng.random(n) < 0.01, "B"] = -1
    out = evaluate(bad)
    n_bad = int(out["error"].notna().sum())
    ok = out["error"].isna().to_numpy()
    assert np.array_equal(out["time"].to_numpy()[ok], evaluate(df)["time"].to_numpy()[ok])
    best = _best_interleaved({"clean": lambda: evaluate(df), "bad": lambda: evaluate(bad)},
                             repeats)
    t_clean, t_bad = best["clean"], best["bad"]
    extra = [f"\nbad rows ({n:,} rows, {n_bad:,} with an error: unknown chip or B < 0): "
             f"{t_bad:.4f} s vs {t_clean:.4f} s clean = {t_bad / t_clean:.2f}x; the good "
             "rows' results are identical."]
    note = ("\nbatch computes 9 results and an error column per row; the loop computes 1 "
            "(time); ~ = extrapolated linearly from a sample (the loop's cost per row is "
            "flat).")
    print(extra[0] + note)
    return lines + extra + [note]


def section_import(quick: bool) -> list[str]:
    """Import time of rooflinexl.udfs in a fresh interpreter (median), vs numpy alone."""
    repeats = 5 if quick else 9

    def median_import(module: str) -> float:
        code = (f"import time; t = time.perf_counter(); import {module}; "
                "print(time.perf_counter() - t)")
        times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                      text=True, check=True, cwd=ROOT).stdout)
                 for _ in range(repeats)]
        return statistics.median(times)

    t_udfs = median_import("rooflinexl.udfs")
    t_numpy = median_import("numpy")
    lines = ["", f"## import (fresh interpreter, median of {repeats})", "",
             "| module | s | vs numpy |", "|---|---:|---:|",
             f"| numpy | {t_numpy:.3f} | 1.00x |",
             f"| rooflinexl.udfs (numpy included) | {t_udfs:.3f} | {t_udfs / t_numpy:.2f}x |"]
    print("\n".join(lines), flush=True)
    return lines


# ============================================================================
# recalc: benchmarks/recalc_bench.py, in a fresh interpreter
# ============================================================================
def section_recalc(quick: bool) -> list[str]:
    """recalc vs formulas vs LibreOffice: benchmarks/recalc_bench.py.

    It runs in its own small process: Linux reports a child's peak RSS from the moment it
    was forked, so children of this process (grown by the batch section) would inherit its
    size in the memory columns.
    """
    cmd = [sys.executable, str(ROOT / "benchmarks" / "recalc_bench.py")] + (
        ["--quick"] if quick else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
    print(out.stdout, end="", flush=True)
    return out.stdout.splitlines()


def section_dask(quick: bool) -> list[str]:
    """docs/batch.md's dask recipe vs pandas: benchmarks/dask_bench.py (fresh processes)."""
    cmd = [sys.executable, str(ROOT / "benchmarks" / "dask_bench.py")] + (
        ["--quick"] if quick else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
    print("\n" + out.stdout, end="", flush=True)
    return out.stdout.splitlines()


# ============================================================================
# zipdir: an absurd zip central directory refused (benchmarks/zip_directory.py)
# ============================================================================
def section_zipdir(quick: bool) -> list[str]:
    """Time and peak memory to refuse a 3-million-entry zip directory, against zipfile's
    own parse of it (the check before issue 16); each in a fresh process."""
    cmd = [sys.executable, str(ROOT / "benchmarks" / "zip_directory.py")] + (
        ["--entries", "300000"] if quick else [])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=ROOT)
    print(out.stdout, end="", flush=True)
    return out.stdout.splitlines()


def section_udf(quick: bool) -> list[str]:
    """A scalar Excel call (the host passes the ~1,000-cell chip range as a fresh list of
    lists, as xlwings does) vs the same Python API call, timed interleaved, best of rounds."""
    from rooflinexl import api, udfs
    from rooflinexl.chips import COLUMNS, load_chips

    table = load_chips()
    rows = table.to_rows(list(COLUMNS))
    cases = {
        "CRIT_BATCH": (lambda: udfs.crit_batch([list(r) for r in rows], "H100", 8192, 8192),
                       lambda: api.crit_batch("H100", 8192, 8192, chips=table)),
        "MATMUL_TIME": (lambda: udfs.matmul_time([list(r) for r in rows], "H100", 4096, 8192,
                                                 8192, "bf16"),
                        lambda: api.matmul_time("H100", 4096, 8192, 8192, "bf16", chips=table)),
    }
    copy = lambda: [list(r) for r in rows]  # noqa: E731 (the host's fresh list, not ours)
    n, rounds = (200, 5) if quick else (1000, 9)
    lines = ["| call | Excel function [µs] | Python API [µs] | ratio |", "|---|---|---|---|"]
    for name, (udf, py) in cases.items():
        best = {"udf": float("inf"), "api": float("inf"), "copy": float("inf")}
        for _ in range(rounds):  # interleaved: drift hits both alike
            for key, fn in (("udf", udf), ("api", py), ("copy", copy)):
                t = time.perf_counter()
                for _ in range(n):
                    fn()
                best[key] = min(best[key], (time.perf_counter() - t) / n)
        udf_s = best["udf"] - best["copy"]
        lines.append(f"| {name} (scalar) | {udf_s * 1e6:.0f} | {best['api'] * 1e6:.0f} | "
                     f"{udf_s / best['api']:.2f}x |")
    for line in lines:
        print(line)
    return lines


def section_package(quick: bool) -> list[str]:
    """How often ``recalc --check`` of workbooks/Roofline.xlsx opens and checks the package
    (rooflinexl.ooxml) and decompresses each member, and how often libraries (openpyxl,
    formulas) open the zip on their own. Counts, not times: the goal is one check."""
    import collections
    import zipfile

    from rooflinexl.check import check_book
    from rooflinexl.ooxml import package

    book = ROOT / "workbooks" / "Roofline.xlsx"
    checks, opens, reads = [0], [0], collections.Counter()
    real_checked, real_init, real_open = (package._open_checked, zipfile.ZipFile.__init__,
                                          zipfile.ZipFile.open)

    def counted_checked(*a, **k):
        checks[0] += 1
        return real_checked(*a, **k)

    def counted_init(self, file, mode="r", *a, **k):
        if mode == "r":
            opens[0] += 1
        real_init(self, file, mode, *a, **k)

    def counted_open(self, name, mode="r", *a, **k):
        if mode == "r":
            reads[getattr(name, "filename", name)] += 1
        return real_open(self, name, mode, *a, **k)

    package._open_checked, zipfile.ZipFile.__init__, zipfile.ZipFile.open = (
        counted_checked, counted_init, counted_open)
    try:
        report = check_book(book)
    finally:
        package._open_checked, zipfile.ZipFile.__init__, zipfile.ZipFile.open = (
            real_checked, real_init, real_open)
    sheets = {k: v for k, v in reads.items() if k.startswith("xl/worksheets/sheet")}
    lines = [f"recalc --check {book.name} ({report.compared} formulas): package checks "
             f"{checks[0]}, zip opens {opens[0]} (incl. openpyxl/formulas), member reads "
             f"{sum(reads.values())}; each sheet part decompressed "
             f"{min(sheets.values(), default=0)}-{max(sheets.values(), default=0)} times"]
    for line in lines:
        print(line)
    return lines


SECTIONS = {"batch": section_batch, "import": section_import, "recalc": section_recalc,
            "dask": section_dask, "zipdir": section_zipdir,
            "package": section_package, "udf": section_udf}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"comma-separated sections (default: {','.join(SECTIONS)})")
    args = parser.parse_args(argv)
    names = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in names if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section(s) {unknown}; known: {', '.join(SECTIONS)}")
    print(f"# rooflinexl benchmarks ({'quick' if args.quick else 'full'}; python "
          f"{sys.version.split()[0]}, numpy {np.__version__})\n")
    for name in names:
        SECTIONS[name](args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
