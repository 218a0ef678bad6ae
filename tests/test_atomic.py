"""``rooflinexl recalc --in-place`` is atomic (issue #7, item 3).

The recalculated workbook is written to a temporary file beside the target
(``.NAME.<random>.tmp``, same folder, so the rename never crosses a file
system), flushed and fsynced, then renamed over the target with
``os.replace``. A reader, or a crash, therefore sees the old workbook or the
new one, never a partial file.

The test kills ``rooflinexl recalc --in-place`` with SIGKILL at random moments:
while it evaluates, the moment the temporary file appears, at random points
while it is being written (a large incompressible member makes the write take
a while) and just after the rename (``ROOFLINEXL_KILL_RUNS`` kills, default
12). After each kill the target is byte-identical to the original or to the
fully recalculated workbook. A SIGKILL can leave the
temporary file behind (nothing runs after SIGKILL); it is named
``.NAME.rooflinexl-<pid>-<random>.tmp``, never matches ``*.xlsx``, has the
target's permission bits, and the next run writes a fresh one of its own and
removes those of runs that no longer exist.
"""
from __future__ import annotations

import hashlib
import os
import random
import re
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "workbooks" / "Roofline.xlsx"
RUNS = max(4, int(os.environ.get("ROOFLINEXL_KILL_RUNS", "12")))
BLOB_MB = 48

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def temp_files(folder: Path, name: str) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.startswith(f".{name}.")
                  and p.name.endswith(".tmp"))


def start(book: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "rooflinexl.cli", "recalc", "--in-place", "-q",
                             str(book)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    """(original bytes, fully recalculated bytes) of a big workbook with stale values."""
    folder = tmp_path_factory.mktemp("atomic")
    original = folder / "original.xlsx"
    rng = random.Random(7)
    with zipfile.ZipFile(BOOK) as zin, zipfile.ZipFile(original, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.startswith("xl/worksheets/"):  # stale cached numbers to replace
                data = re.sub(rb"(</f><v>)(-?[0-9])", rb"\g<1>9\2", data)
            zout.writestr(info, data)
        blob = zipfile.ZipInfo("xl/media/blob.bin", (2024, 1, 1, 0, 0, 0))
        zout.writestr(blob, rng.randbytes(BLOB_MB * 2**20))  # stored: the write takes a while
    done = folder / "done.xlsx"
    done.write_bytes(original.read_bytes())
    proc = subprocess.run([sys.executable, "-m", "rooflinexl.cli", "recalc", "--in-place", "-q",
                           str(done)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert sha(done) != sha(original)
    assert temp_files(folder, "done.xlsx") == []
    return original.read_bytes(), done.read_bytes()


def test_in_place_result_is_deterministic(books, tmp_path):
    """A second in-place run of the same input gives the same bytes (so 'new' is well defined)."""
    original, done = books
    book = tmp_path / "again.xlsx"
    book.write_bytes(original)
    subprocess.run([sys.executable, "-m", "rooflinexl.cli", "recalc", "--in-place", "-q",
                    str(book)], check=True, timeout=120, capture_output=True)
    assert book.read_bytes() == done
    assert temp_files(tmp_path, "again.xlsx") == []


@pytest.mark.slow  # kills many recalc processes mid-write
def test_sigkill_never_leaves_a_partial_workbook(books, tmp_path):
    original, done = books
    want = {hashlib.sha256(original).hexdigest(): "original",
            hashlib.sha256(done).hexdigest(): "new"}
    rng = random.Random(int(os.environ.get("ROOFLINEXL_FUZZ_SEED", "20240607")))
    outcomes = []
    write_time = 0.05  # seconds the temp file lives; measured by the "renamed" runs
    for run in range(RUNS):
        book = tmp_path / "plan.xlsx"
        book.write_bytes(original)
        mode = ("renamed", "evaluating", "temp appears", "writing")[run % 4]
        stale = set(temp_files(tmp_path, "plan.xlsx"))  # earlier kills' leftovers
        proc = start(book)
        t0 = time.monotonic()
        seen = None
        delay = rng.uniform(0.0, 0.4 if mode == "evaluating" else 0.9 * write_time)
        while proc.poll() is None and time.monotonic() - t0 < 60:
            if mode == "evaluating":
                if time.monotonic() - t0 >= delay:
                    break
            elif seen is None:
                if set(temp_files(tmp_path, "plan.xlsx")) - stale:
                    seen = time.monotonic()
                    if mode == "temp appears":
                        break
            elif mode == "renamed":
                if not set(temp_files(tmp_path, "plan.xlsx")) - stale:
                    write_time = time.monotonic() - seen  # how long the temp file lived
                    break  # it was renamed over the target: kill before exit
            elif time.monotonic() - seen >= delay:
                break
            time.sleep(0.0005)
        temp_at_kill = bool(set(temp_files(tmp_path, "plan.xlsx")) - stale)
        proc.kill()
        proc.wait(timeout=30)
        state = want.get(sha(book))
        assert state is not None, f"run {run} ({mode}): the target is neither old nor new"
        for tmp in temp_files(tmp_path, "plan.xlsx"):  # a stale temp file: never a workbook name
            assert tmp.name.startswith(".plan.xlsx.") and tmp.suffix == ".tmp"
        outcomes.append((mode, state, temp_at_kill, len(temp_files(tmp_path, "plan.xlsx"))))
    # the kills landed where intended: while the temp file was being written, at least once
    assert any(m == "writing" and t for m, _, t, _ in outcomes), outcomes
    assert any(s == "original" for _, s, _, _ in outcomes), outcomes
    assert any(m == "renamed" and s == "new" for m, s, _, _ in outcomes), outcomes
    # stale temp files do not confuse the next run: it succeeds, writes the new workbook and
    # removes the temporary files the killed runs left (issue 16: 16 of them, 193 MB)
    stale = temp_files(tmp_path, "plan.xlsx")
    book = tmp_path / "plan.xlsx"
    book.write_bytes(original)
    proc = subprocess.run([sys.executable, "-m", "rooflinexl.cli", "recalc", "--in-place", "-q",
                           str(book)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert book.read_bytes() == done
    assert temp_files(tmp_path, "plan.xlsx") == []
    print(f"\n{RUNS} kills: {outcomes}; stale temp files removed by the next run: {len(stale)}")


def test_failed_write_leaves_target_and_no_temp(books, tmp_path):
    """A write that fails midway (a full disk: a file-size rlimit of 20 MB) keeps the target."""
    resource = pytest.importorskip("resource")
    original, _ = books
    book = tmp_path / "plan.xlsx"
    book.write_bytes(original)

    def small_disk():
        resource.setrlimit(resource.RLIMIT_FSIZE, (20 * 2**20, 20 * 2**20))

    proc = subprocess.run([sys.executable, "-m", "rooflinexl.cli", "recalc", "--in-place",
                           str(book)], capture_output=True, text=True, timeout=120,
                          preexec_fn=small_disk)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert book.read_bytes() == original
    assert temp_files(tmp_path, "plan.xlsx") == []
