"""Progress on long work (issue #14.6): a tqdm bar on stderr when it is a terminal, else silence.

The commands run in a subprocess whose stderr is a pseudo-terminal (what a user's
shell gives) or a pipe (CI, redirection); stdout and the files written must not change.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "workbooks" / "Roofline.xlsx"
BAR = re.compile(r"\|[ \u2588-\u258f#]*\|")  # tqdm's bar: |███▌    |

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")


def run_cli(args, *, tty: bool) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``rooflinexl ARGS`` with stderr a pty or a pipe."""
    cmd = [sys.executable, "-m", "rooflinexl.cli", *map(str, args)]
    env = {**os.environ, "COLUMNS": "120"}
    if not tty:
        # bytes, decoded as the pty branch does: text=True would turn the CSV's \r\n into \n
        p = subprocess.run(cmd, capture_output=True, timeout=300, env=env)
        return p.returncode, p.stdout.decode(), p.stderr.decode("utf-8", "replace")
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # 24 x 120
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read().decode()
    proc.wait(timeout=300)
    os.close(master)
    return proc.returncode, out, b"".join(chunks).decode("utf-8", "replace")


def _no_seconds(text: str) -> str:
    return re.sub(r"\d+\.\d+ s\b", "T s", text)


def test_recalc_shows_its_phases_on_a_terminal_only(tmp_path):
    tty_out, pipe_out = tmp_path / "tty.xlsx", tmp_path / "pipe.xlsx"
    code_tty, out_tty, err_tty = run_cli(["recalc", BOOK, "-o", tty_out], tty=True)
    code_pipe, out_pipe, err_pipe = run_cli(["recalc", BOOK, "-o", pipe_out], tty=False)
    assert code_tty == code_pipe == 0
    assert "Roofline.xlsx: evaluating" in err_tty and "phases" in err_tty
    assert BAR.search(err_tty)
    assert err_pipe == ""  # nothing on a pipe
    # the report (less timings and the output's name) and the file written are the same
    assert _no_seconds(out_tty).replace(str(tty_out), "OUT") == \
        _no_seconds(out_pipe).replace(str(pipe_out), "OUT")
    assert tty_out.read_bytes() == pipe_out.read_bytes()
    code, out, err = run_cli(["recalc", "--quiet", BOOK, "-o", tmp_path / "q.xlsx"], tty=True)
    assert code == 0 and not BAR.search(err) and "evaluating" not in err


def test_recalc_check_counts_books_on_a_terminal_only():
    books = [BOOK, ROOT / "workbooks" / "lite" / "Roofline.xlsx"]
    runs = [run_cli(["recalc", "--check", "--format", "json", *books], tty=tty)
            for tty in (True, False)]
    (code_tty, out_tty, err_tty), (code_pipe, out_pipe, err_pipe) = runs
    assert code_tty == code_pipe == 0
    assert "checking" in err_tty and "book" in err_tty and BAR.search(err_tty)
    assert err_pipe == ""
    reports = [json.loads(out) for out in (out_tty, out_pipe)]
    for r in reports:
        for b in r["books"]:
            b.pop("seconds")
    assert reports[0] == reports[1]


def test_batch_counts_rows_on_a_terminal_only(tmp_path):
    src = tmp_path / "in.csv"
    pd.DataFrame({"chip": ["H100", "TPU v5e"] * 50, "B": range(1, 101), "D": 4096,
                  "F": 4096}).to_csv(src, index=False)
    code_tty, out_tty, err_tty = run_cli(["batch", src, "-o", "-"], tty=True)
    code_pipe, out_pipe, err_pipe = run_cli(["batch", src, "-o", "-"], tty=False)
    assert code_tty == code_pipe == 0
    assert "100/100" in err_tty and "row" in err_tty and BAR.search(err_tty)
    assert not BAR.search(err_pipe) and "100/100" not in err_pipe
    assert err_pipe.strip() == "100 scenarios, 0 with an error -> -"
    assert out_tty == out_pipe  # the CSV on stdout is the same
    code, _, err = run_cli(["batch", "-q", src, "-o", tmp_path / "o.csv"], tty=True)
    assert code == 0 and not BAR.search(err)
