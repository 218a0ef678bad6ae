"""Median latency of rooflinexl's xlwings Server on loopback, as Excel's Office.js calls it.

    XLWINGS_LICENSE_KEY=noncommercial python addin/server/bench_latency.py [--repeat 30]

Starts ``serve.py --http`` on a free 127.0.0.1 port (TLS adds a constant per request;
Excel keeps its connection open), then times, end to end over HTTP with one kept-alive
connection: one scalar call ``CRIT_BATCH(Chips, "H100", 8192, 8192)``, and
``MATMUL_TIME(Chips, "H100", B, 8192, 8192)`` with B a column of 10,000 cells (spills a
10,000-row column). Prints the medians in milliseconds.
"""
from __future__ import annotations

import argparse
import csv
import json
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from http.client import HTTPConnection
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHIPS_CSV = HERE.parents[1] / "rooflinexl" / "data" / "chips.csv"


def _cell(text):
    if text == "":
        return ""
    try:
        x = float(text)
    except ValueError:
        return text
    return int(x) if x == int(x) and abs(x) < 1e21 else x


def chips_range():
    with open(CHIPS_CSV, newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    return [rows[0]] + [[_cell(v) for v in row] for row in rows[1:]]


def payload(func_name, args):
    return json.dumps({
        "client": "Office.js", "func_name": func_name, "args": args,
        "caller_address": "[Roofline.xlsx]Sheet1!B2", "session_id": "bench",
        "culture_info_name": "en-US", "date_format": "M/d/yyyy", "version": "0.37.8",
        "runtime": "1.4"}).encode()


def median_ms(conn, body, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        conn.request("POST", "/xlwings/custom-functions-call", body,
                     {"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        times.append(time.perf_counter() - t0)
        if resp.status != 200:
            raise SystemExit(f"HTTP {resp.status}: {data[:300]!r}")
    return statistics.median(times) * 1e3, json.loads(data)["result"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args(argv)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, str(HERE / "serve.py"), "--http", "--port",
                             str(port)])
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                url = f"http://127.0.0.1:{port}/xlwings/custom-functions-meta"
                with urllib.request.urlopen(url, timeout=5):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("serve.py did not start") from None
                time.sleep(0.2)
        chips = chips_range()
        one = payload("crit_batch", [chips, [["H100"]], [[8192]], [[8192]]])
        col = payload("matmul_time", [chips, [["H100"]], [[b] for b in range(1, 10001)],
                                      [[8192]], [[8192]]])
        conn = HTTPConnection("127.0.0.1", port, timeout=60)
        median_ms(conn, one, 3)  # warm up
        t_one, r_one = median_ms(conn, one, args.repeat)
        t_col, r_col = median_ms(conn, col, max(3, args.repeat // 3))
        conn.close()
        print(f"one call  CRIT_BATCH(Chips,\"H100\",8192,8192) = {r_one[0][0]:.3f}: "
              f"median {t_one:.1f} ms")
        print(f"10,000-row MATMUL_TIME (B column) -> {len(r_col)}x{len(r_col[0])}: "
              f"median {t_col:.1f} ms")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
