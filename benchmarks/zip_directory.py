"""An absurd zip central directory: time and peak memory until it is refused (issue 16, item 8).

    python benchmarks/zip_directory.py              # 3,000,000 entries (a 150 MB file)
    python benchmarks/zip_directory.py --entries 300000

The file is one empty member named by N central-directory entries, all pointing at
the same local header (no data: the directory is the whole cost), under the default
200 MB file-size limit. Each measurement runs in a fresh process whose peak RSS
(``wait4``) is reported:

* ``zipfile.ZipFile`` only: what the package check cost before the fix, which let
  :mod:`zipfile` parse the whole directory (a ``ZipInfo`` per entry) before it
  counted the members (the baseline, measured in the same run);
* ``check_package``: the check now, which reads the end-of-central-directory
  record and walks at most ``max_members + 1`` entry headers before any parse.

Also the same for a directory whose end record understates its entry count (1).
"""
from __future__ import annotations

import argparse
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_PARSE = "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).close()"
_CHECK = """
import sys
from rooflinexl.ooxml import UnusableWorkbookError, check_package
try:
    check_package(sys.argv[1])
except UnusableWorkbookError as exc:
    print(exc)
"""


def directory_only_zip(path: Path, entries: int, declared: int | None = None) -> None:
    """One stored empty member named by ``entries`` central-directory entries."""
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, 0, 0, 0, 1, 0) + b"a"
    size = 0
    with open(path, "wb") as fh:
        fh.write(local)
        step = 100_000
        for start in range(0, entries, step):
            chunk = []
            for i in range(start, min(entries, start + step)):
                name = f"{i:x}".encode()
                chunk.append(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0,
                                         0, 0, len(name), 0, 0, 0, 0, 0, 0) + name)
            data = b"".join(chunk)
            fh.write(data)
            size += len(data)
        n = min(entries if declared is None else declared, 0xFFFF)
        if entries > 0xFFFF and declared is None:  # zip64 end records carry the real count
            zip64 = len(local) + size
            fh.write(struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, entries,
                                 entries, size, len(local)))
            fh.write(struct.pack("<4sLQL", b"PK\x06\x07", 0, zip64, 1))
            fh.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                                 0xFFFFFFFF, 0))
        else:
            fh.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, n, n, size, len(local), 0))


def measure(code: str, path: Path) -> tuple[float, float, str]:
    """(wall s, peak RSS MB, stdout) of ``python -c code path`` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    out = proc.stdout.read().decode() + proc.stderr.read().decode()
    return wall, usage.ru_maxrss / 1024, out.strip()


def main(argv=None) -> list[str]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=3_000_000)
    args = parser.parse_args(argv)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.py"
        empty.write_text("")
        _w, python_mb, _ = measure("pass", empty)
        for label, declared in (("honest count", None), ("count understated", 1)):
            path = Path(tmp) / "many.xlsx"
            directory_only_zip(path, args.entries, declared)
            mb = path.stat().st_size / 2**20
            base_s, base_mb, _ = measure(_PARSE, path)
            check_s, check_mb, said = measure(_CHECK, path)
            lines += [
                f"zip directory of {args.entries:,} entries ({mb:.0f} MB file, {label}); "
                f"bare interpreter {python_mb:.0f} MB",
                f"  zipfile.ZipFile parse (before) {base_s:8.2f} s  peak {base_mb:7.0f} MB",
                f"  check_package refusal (now)    {check_s:8.2f} s  peak {check_mb:7.0f} MB"
                f"   ({base_s / check_s:.0f}x faster, {base_mb / check_mb:.0f}x less memory)",
                f"  says: {said[:150]}",
            ]
            path.unlink()
    for line in lines:
        print(line, flush=True)
    return lines


if __name__ == "__main__":
    main()
