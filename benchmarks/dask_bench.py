"""The dask path of docs/batch.md against pandas: time and peak memory per process.

    python benchmarks/dask_bench.py            # 1e7 matmul rows, 20 partitions, 2 workers
    python benchmarks/dask_bench.py --quick    # 1e6 rows, 8 partitions
    python benchmarks/dask_bench.py --rows 2e6 --partitions 10 --workers 2

Writes a parquet dataset of scenarios (one file per partition, never the whole table in
memory), then runs the documented recipe twice, each in a fresh interpreter so that its
peak RSS is its own:

* pandas: ``evaluate(pd.read_parquet(dir)).to_parquet(out)`` in one process;
* dask: ``evaluate(dd.read_parquet(dir)).to_parquet(out)`` on a ``distributed.LocalCluster``
  of N worker processes (one thread each); the peak RSS of every worker is asked from
  the workers themselves (``getrusage``), and the client process's too.

The two outputs are compared (every ``time`` and ``crit_batch`` value equal). Timings are
wall-clock on whatever machine runs this; the ratio dask/pandas is from the same run.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHIPS = ["H100", "H200", "B200", "TPU v5e", "TPU v5p"]

PANDAS = """
import resource, sys, time
import pandas as pd
from rooflinexl.batch import evaluate
t = time.perf_counter()
evaluate(pd.read_parquet(sys.argv[1])).to_parquet(sys.argv[2])
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""

DASK = """
import json, resource, sys, time
import dask.dataframe as dd
import distributed
from rooflinexl.batch import evaluate

def peak():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

if __name__ == "__main__":
    src, dst, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None, memory_limit=None) as cluster, \\
            distributed.Client(cluster) as client:
        client.run(peak)  # the workers are up before the clock starts
        t = time.perf_counter()
        evaluate(dd.read_parquet(src)).to_parquet(dst)
        seconds = time.perf_counter() - t
        per_worker = sorted(client.run(peak).values())
    print(json.dumps({"seconds": seconds, "workers": per_worker, "client": peak()}))
"""


def write_scenarios(folder: Path, rows: int, partitions: int, seed: int = 0) -> None:
    """``partitions`` parquet files of matmul scenarios (5 chips, bf16/int8, mixed shapes)."""
    import pandas as pd

    folder.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    bounds = np.linspace(0, rows, partitions + 1).astype(np.int64)
    for k in range(partitions):
        n = int(bounds[k + 1] - bounds[k])
        pd.DataFrame({
            "chip": np.array(CHIPS, dtype=object)[rng.integers(0, len(CHIPS), n)],
            "dtype": np.array(["bf16", "int8"], dtype=object)[rng.integers(0, 2, n)],
            "B": rng.integers(1, 8192, n),
            "D": rng.choice([1024, 4096, 8192], n),
            "F": rng.choice([4096, 8192, 16384], n),
        }, index=pd.RangeIndex(bounds[k], bounds[k + 1])).to_parquet(
            folder / f"part.{k:04d}.parquet")


def _run(code: str, *args) -> str:
    res = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                         text=True, cwd=ROOT, env={**__import__("os").environ,
                                                   "PYTHONPATH": str(ROOT)})
    if res.returncode:
        raise SystemExit(f"benchmark child failed:\n{res.stderr[-3000:]}")
    return res.stdout.strip().splitlines()[-1]


def _same_results(a: Path, b: Path) -> int:
    """pandas' file ``a`` and dask's folder ``b`` (part.0 … part.19, read in that order)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = ["time", "crit_batch", "error"]
    parts = sorted(b.glob("part.*.parquet"), key=lambda p: int(p.name.split(".")[1]))
    ta = pq.read_table(a, columns=cols)
    tb = pa.concat_tables([pq.read_table(p, columns=cols) for p in parts])
    assert ta.num_rows == tb.num_rows
    for c in cols[:2]:
        assert np.array_equal(ta[c].to_numpy(), tb[c].to_numpy()), c
    assert ta["error"].null_count == ta.num_rows == tb["error"].null_count
    return ta.num_rows


def section(rows: int, partitions: int, workers: int) -> list[str]:
    mib = 2**20
    tmp = Path(tempfile.mkdtemp(prefix="rooflinexl-dask-bench-"))
    try:
        t = time.perf_counter()
        write_scenarios(tmp / "scenarios", rows, partitions)
        gen = time.perf_counter() - t
        p_s, p_rss = map(float, _run(PANDAS, tmp / "scenarios", tmp / "pandas.parquet").split())
        d = json.loads(_run(DASK, tmp / "scenarios", tmp / "dask", workers))
        n = _same_results(tmp / "pandas.parquet", tmp / "dask")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    w = ", ".join(f"{x / mib:,.0f}" for x in d["workers"])
    lines = [
        f"## dask: docs/batch.md's recipe, {n:,} matmul rows in {partitions} parquet partitions",
        "", "| run | processes | time s | vs pandas | peak RSS per process MiB |",
        "|---|---:|---:|---:|---|",
        f"| pandas `evaluate(pd.read_parquet(dir)).to_parquet(out)` | 1 | {p_s:.2f} | 1.00x | "
        f"{p_rss / mib:,.0f} |",
        f"| dask `evaluate(dd.read_parquet(dir)).to_parquet(out)` | {workers} workers + "
        f"client | {d['seconds']:.2f} | {d['seconds'] / p_s:.2f}x | workers {w}; client "
        f"{d['client'] / mib:,.0f} |",
        "", f"Results equal (time, crit_batch, error of every row). Input written in "
        f"{gen:.1f} s; {rows / partitions:,.0f} rows per partition.",
    ]
    print("\n".join(lines), flush=True)
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1e6 rows, 8 partitions")
    parser.add_argument("--rows", type=float, default=None)
    parser.add_argument("--partitions", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    rows = int(args.rows or (1e6 if args.quick else 1e7))
    partitions = args.partitions or (8 if args.quick else 20)
    section(rows, partitions, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
