"""Issue 16: no silent wrong number, no leak, no runaway memory (the file-handling items).

Each test reproduces a report of the adversarial pass and asserts an outside
fact: Excel's verdict on a damaged package (ECMA-376 Part 1, 18.4.9: a ``t="s"``
cell's value is a zero-based index into the shared-string table, whose root is
``<sst>``; Excel reports anything else as corrupt and offers to repair it), the
operating system's permission bits (``os.stat``), what a symbolic link points
to, and the bytes on disk.
"""
from __future__ import annotations

import os
import re
import stat
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from rooflinexl.errors import WriteError
from rooflinexl.ooxml import (
    Limits,
    UnusableWorkbookError,
    atomic_write,
    check_package,
    read_cached_values,
)

TIMEOUT = 120
posix = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits and signals")


def cli(*args, env=None):
    """``rooflinexl ARGS`` in a subprocess, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "rooflinexl.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, **(env or {})})


def one_line(proc) -> str:
    """The single stderr line of a refusal (no traceback)."""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def rewrite(src: Path, dst: Path, member: str, edit) -> None:
    """Copy a package, passing one member's bytes through ``edit``."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            zout.writestr(info, edit(data) if info.filename == member else data)


@pytest.fixture
def text_book(tmp_path) -> Path:
    """A1 holds the text 'abc' as a shared string (Excel's and xlsxwriter's form);
    B1 =LEN(A1) caches 3, as Excel would."""
    xlsxwriter = pytest.importorskip("xlsxwriter")
    p = tmp_path / "text.xlsx"
    with xlsxwriter.Workbook(p) as wb:
        ws = wb.add_worksheet("S")
        ws.write_string("A1", "abc")
        ws.write_formula("B1", "=LEN(A1)", None, 3)
    return p


# ------------------------------------------------------- item 2: damaged shared strings
DAMAGES = {
    # the root element renamed: Excel: "We found a problem with some content"
    "wrong root": ("xl/sharedStrings.xml",
                   lambda d: d.replace(b"<sst", b"<sxt").replace(b"</sst>", b"</sxt>"),
                   "root element is <sxt>, not <sst>"),
    # A1 points at string #5 of a one-string table
    "index past the end": ("xl/worksheets/sheet1.xml",
                           lambda d: re.sub(rb'(<c r="A1"[^>]*t="s"[^>]*><v>)0<', rb"\g<1>5<", d),
                           "uses shared string #5 but the shared-strings part"),
    "negative index": ("xl/worksheets/sheet1.xml",
                       lambda d: re.sub(rb'(<c r="A1"[^>]*t="s"[^>]*><v>)0<', rb"\g<1>-1<", d),
                       "holds '-1', not a string number"),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_damaged_shared_strings_are_refused_by_every_reader(text_book, tmp_path, damage):
    member, edit, words = DAMAGES[damage]
    bad = tmp_path / "bad.xlsx"
    rewrite(text_book, bad, member, edit)
    with zipfile.ZipFile(bad) as zf:  # the damage is really there
        assert zf.read(member) != zipfile.ZipFile(text_book).read(member)
    before = bad.read_bytes()
    for args in (["recalc", bad], ["recalc", "--check", bad], ["diff", text_book, bad],
                 ["recalc", "--in-place", bad]):
        proc = cli(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        out = proc.stdout + proc.stderr  # --check and diff report on stdout
        assert "Traceback" not in out and "corrupt" in out and words in out, out
    assert bad.read_bytes() == before
    assert not (tmp_path / "bad.recalc.xlsx").exists()
    with pytest.raises(UnusableWorkbookError, match="corrupt"):
        check_package(bad)


def test_intact_shared_strings_still_read(text_book):
    proc = cli("recalc", "--check", text_book)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert read_cached_values(text_book) == {"S": {"B1": 3.0}}


# ------------------------------------------------------------ item 5: temporary files
@posix
def test_temp_file_has_the_targets_mode_from_creation(tmp_path, monkeypatch):
    target = tmp_path / "book.xlsx"
    target.write_bytes(b"old")
    target.chmod(0o600)
    created, during = [], []
    real_open = os.open

    def spy_open(path, flags, mode=0o777, **kw):
        fd = real_open(path, flags, mode, **kw)
        if str(path).endswith(".tmp"):
            created.append(stat.S_IMODE(os.fstat(fd).st_mode))
        return fd

    monkeypatch.setattr(os, "open", spy_open)
    atomic_write(target, lambda fh: (during.append(stat.S_IMODE(os.fstat(fh.fileno()).st_mode)),
                                     fh.write(b"new")))
    assert created and created[0] & 0o077 == 0, oct(created[0])  # never group/other-readable
    assert during == [0o600]
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    assert target.read_bytes() == b"new"


@posix
def test_killed_runs_leave_no_readable_copy_and_the_next_run_cleans_up(text_book, tmp_path):
    book = tmp_path / "secret.xlsx"
    book.write_bytes(text_book.read_bytes())
    book.chmod(0o600)
    # a run killed while writing: its temp file is complete but never renamed
    code = ("import os, signal; from rooflinexl.ooxml import atomic_write\n"
            f"atomic_write({str(book)!r}, lambda fh: (fh.write(b'x' * 1000), "
            "os.kill(os.getpid(), signal.SIGKILL)))\n")
    proc = subprocess.run([sys.executable, "-c", code], timeout=TIMEOUT)
    assert proc.returncode == -9
    left = [p for p in tmp_path.iterdir() if p.name.startswith(".secret.xlsx.")]
    assert len(left) == 1 and stat.S_IMODE(left[0].stat().st_mode) == 0o600
    proc = cli("recalc", "--in-place", "-q", book)
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".secret")] == []
    assert stat.S_IMODE(book.stat().st_mode) == 0o600


@posix
def test_outputs_made_from_a_private_file_are_private(text_book, tmp_path):
    book = tmp_path / "secret.xlsx"
    book.write_bytes(text_book.read_bytes())
    book.chmod(0o600)
    assert cli("recalc", "-q", book).returncode == 0
    assert stat.S_IMODE((tmp_path / "secret.recalc.xlsx").stat().st_mode) == 0o600
    src = tmp_path / "s.csv"
    src.write_text("chip,B,D,F\nH100,256,8192,8192\n")
    src.chmod(0o600)
    for suffix in ("csv", "xlsx"):
        out = tmp_path / f"out.{suffix}"
        assert cli("batch", src, "-o", out).returncode == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o600


# ---------------------------------------------------------------- item 6: symbolic links
@posix
def test_in_place_through_a_symlink_updates_the_workbook_it_points_to(text_book, tmp_path):
    real = tmp_path / "real.xlsx"
    rewrite(text_book, real, "xl/worksheets/sheet1.xml",
            lambda d: d.replace(b"<v>3</v>", b"<v>7</v>"))  # a stale cached value
    link = tmp_path / "link.xlsx"
    link.symlink_to(real.name)
    proc = cli("recalc", "--in-place", link)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and os.readlink(link) == real.name
    assert read_cached_values(real) == {"S": {"B1": 3.0}}  # LEN("abc")


@posix
def test_dangling_symlink_is_refused(tmp_path):
    link = tmp_path / "out.csv"
    link.symlink_to(tmp_path / "nowhere" / "x.csv")
    with pytest.raises(WriteError, match="does not exist"):
        atomic_write(link, lambda fh: fh.write(b"x"))
    assert link.is_symlink() and not (tmp_path / "nowhere").exists()


# ------------------------------------------------ item 8: absurd zip central directory
def directory_only_zip(path: Path, entries: int, declared: int | None = None) -> None:
    """A zip of one stored empty member named by ``entries`` central-directory entries
    (all pointing at the same local header); the EOCD record says ``declared``."""
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 0, 0, 0, 0, 0, 0, 1, 0) + b"a"
    with open(path, "wb") as fh:
        fh.write(local)
        chunk = []
        for i in range(entries):
            name = f"{i:x}".encode()
            chunk.append(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0,
                                     len(name), 0, 0, 0, 0, 0, 0) + name)
        cd = b"".join(chunk)
        fh.write(cd)
        n = min(entries if declared is None else declared, 0xFFFF)
        fh.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, n, n, len(cd), len(local), 0))


@pytest.mark.parametrize("declared", [None, 1])
def test_absurd_central_directory_refused_before_zipfile_parses_it(tmp_path, monkeypatch,
                                                                   declared):
    path = tmp_path / "many.xlsx"
    directory_only_zip(path, 20_001, declared)

    def no_parse(*a, **k):
        raise AssertionError("zipfile.ZipFile parsed the directory")

    monkeypatch.setattr(zipfile.ZipFile, "__init__", no_parse)  # subclasses (ooxml.Package) too
    with pytest.raises(UnusableWorkbookError, match="over the limit of 10000"):
        check_package(path)
    with pytest.raises(AssertionError, match="parsed the directory"):
        check_package(path, Limits(max_members=20_002))  # within the limit: zipfile is next


def test_small_directory_passes_on_to_zipfile(tmp_path):
    path = tmp_path / "few.xlsx"
    directory_only_zip(path, 3)
    with pytest.raises(UnusableWorkbookError) as err:  # no workbook part: refused later
        check_package(path)
    assert "members" not in str(err.value)


# ------------------------------------------------- item 3: misspelt batch/sweep arguments
SCENARIOS = "chip,B,D,F,{extra}\nH100,256,8192,8192,{value}\n"


@pytest.mark.parametrize("extra, value, nearest", [("n_chip", 8, "n_chips"),
                                                   ("dtyp", "int8", "dtype")])
def test_misspelt_batch_column_is_an_error_naming_the_nearest_argument(tmp_path, extra, value,
                                                                       nearest):
    src = tmp_path / "s.csv"
    src.write_text(SCENARIOS.format(extra=extra, value=value))
    out = tmp_path / "out.csv"
    proc = cli("batch", src, "-o", out)
    assert proc.returncode != 0 and not out.exists()
    line = one_line(proc)
    assert f"unknown column {extra!r} (did you mean {nearest!r}?)" in line
    assert "--pass-through" in line


def test_misspelt_sweep_key_is_an_error(tmp_path):
    proc = cli("sweep", "chip=H100", "B=256", "D=8192", "F=8192", "n_chip=8")
    assert proc.returncode != 0 and proc.stdout == ""
    assert "unknown column 'n_chip' (did you mean 'n_chips'?)" in one_line(proc)


def test_declared_pass_through_column_is_carried_and_computes_nothing(tmp_path):
    src = tmp_path / "s.csv"
    src.write_text(SCENARIOS.format(extra="owner", value="ann"))
    out = tmp_path / "out.csv"
    proc = cli("batch", src, "-o", out, "--pass-through", "owner")
    assert proc.returncode == 0, proc.stderr
    import pandas as pd

    got = pd.read_csv(out)
    assert got.loc[0, "owner"] == "ann"
    # 2*B*D*F / H100's dense bf16 peak of 989 TFLOP/s (chips.csv), 1 chip
    assert got.loc[0, "t_math"] == pytest.approx(2 * 256 * 8192 * 8192 / 989e12, rel=1e-3)


# ----------------------------------------------------- item 4: data never becomes a formula
PAYLOADS = ['=HYPERLINK("http://x","click")', '=WEBSERVICE("http://x")',
            "=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(1)", "\t=1", "\r=1"]


def payload_table(tmp_path) -> Path:
    import csv

    src = tmp_path / "s.csv"
    with open(src, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL)
        w.writerow(["scenario", "chip", "B", "D", "F"])
        w.writerows([p, "H100", 256, 8192, 8192] for p in PAYLOADS)
    return src


def test_xlsx_output_stores_data_text_as_text(tmp_path):
    out = tmp_path / "out.xlsx"
    proc = cli("batch", payload_table(tmp_path), "-o", out)
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(out) as zf:
        xml = zf.read("xl/worksheets/sheet1.xml").decode()
    assert "<f>" not in xml and "<f " not in xml  # no formula element anywhere
    cells = re.findall(r'<c r="A(\d+)" t="inlineStr"><is><t[^>]*>(.*?)</t></is></c>', xml,
                       re.DOTALL)
    from html import unescape

    # inline strings; a CR as Excel writes it, _x000D_ (an XML reader would turn a raw CR
    # into LF)
    assert [unescape(t) for _, t in cells[1:]] == [p.replace("\r", "_x000D_") for p in PAYLOADS]


def test_csv_output_neutralises_leading_formula_characters(tmp_path):
    out = tmp_path / "out.csv"
    proc = cli("batch", payload_table(tmp_path), "-o", out)
    assert proc.returncode == 0, proc.stderr
    import csv

    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    # OWASP: a cell starting with = + - @ tab or CR gets a leading single quote
    assert [r[0] for r in rows[1:]] == ["'" + p for p in PAYLOADS]
    raw = out.read_bytes()
    assert b"\n=" not in raw and b",=" not in raw
    proc = cli("batch", payload_table(tmp_path), "-o", out, "--no-formula-guard")
    with open(out, newline="", encoding="utf-8") as fh:
        assert [r[0] for r in list(csv.reader(fh))[1:]] == PAYLOADS  # documented opt-out


# ------------------------------------- item 10: outputs are atomic, failures one line
def limited(size: int):
    """preexec_fn: files may grow to ``size`` bytes; past it write() fails with EFBIG
    (SIGXFSZ ignored), as on a full disk."""
    import resource
    import signal

    def setup():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return setup


def cli_limited(size: int, *args):
    return subprocess.run([sys.executable, "-m", "rooflinexl.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=TIMEOUT,
                          preexec_fn=limited(size))


@posix
@pytest.mark.parametrize("suffix", ["csv", "xlsx"])
def test_batch_output_failure_keeps_the_previous_file(tmp_path, suffix):
    src = tmp_path / "s.csv"
    src.write_text("chip,B,D,F\n" + "H100,256,8192,8192\n" * 2000)
    out = tmp_path / f"out.{suffix}"
    out.write_bytes(b"previous results")
    proc = cli_limited(4096, "batch", src, "-o", out)
    assert proc.returncode != 0
    line = one_line(proc)
    assert str(out) in line and "File too large" in line and "unchanged" in line, line
    assert out.read_bytes() == b"previous results"
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"out.{suffix}", "s.csv"]


@posix
def test_check_report_failure_keeps_the_previous_report(text_book, tmp_path):
    report = tmp_path / "r.md"
    report.write_text("previous report\n")
    proc = cli_limited(10, "recalc", "--check", text_book, "--report", report)
    assert proc.returncode == 2
    assert "File too large" in proc.stderr and str(report) in proc.stderr
    assert "Traceback" not in proc.stderr
    assert report.read_text() == "previous report\n"  # never a 0-byte report
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".r.md")] == []


# ---------------------------------------------------- item 12: messages name path and cause
@posix
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root reads and writes through permission bits")
def test_permission_denied_names_the_path_and_cause(text_book, tmp_path):
    locked = tmp_path / "locked.xlsx"
    locked.write_bytes(text_book.read_bytes())
    locked.chmod(0)
    line = one_line(cli("recalc", locked))
    assert str(locked) in line and "Permission denied" in line and "Excel" not in line
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        line = one_line(cli("recalc", text_book, "-o", folder / "out.xlsx"))
        assert "out.xlsx" in line and "Permission denied" in line and "Excel" not in line
    finally:
        folder.chmod(0o700)


def test_missing_output_folder_names_the_folder(text_book, tmp_path):
    proc = cli("recalc", text_book, "-o", tmp_path / "no" / "out.xlsx")
    assert proc.returncode == 2
    line = one_line(proc)
    assert "does not exist" in line and str(tmp_path / "no") in line and "Excel" not in line


def test_out_of_memory_says_so():
    from rooflinexl.errors import failure_message

    assert "out of memory" in failure_message(MemoryError(), "big.xlsx")


# ------------------------------------------------- item 13: a workbook without cached values
def test_check_on_a_workbook_without_cached_values_says_so_in_one_line(tmp_path):
    # openpyxl writes formulas without cached values (its documented behaviour)
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    for r in range(1, 6):
        ws[f"A{r}"] = r
        ws[f"B{r}"] = f"=A{r}*2"
    book = tmp_path / "openpyxl.xlsx"
    wb.save(book)
    proc = cli("recalc", "--check", book)
    assert proc.returncode == 1
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout
    assert "5 formulas and none has a cached value" in lines[0]
    assert f"rooflinexl recalc --in-place {book}" in lines[0]
    assert cli("recalc", "--in-place", "-q", book).returncode == 0
    assert cli("recalc", "--check", book).returncode == 0  # what the line said to do works
