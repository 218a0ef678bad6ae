"""Runs ``rooflinexl recalc BOOK -o OUT`` in-process for many books (tests/test_fuzz_bytes.py).

Reads a JSON list of ``[book, out, timeout_s]`` on stdin and writes one JSON line per
book: ``{"code": exit status or null on timeout, "stdout", "stderr", "seconds",
"traceback": text of an exception that escaped the command, or null}``. The command
runs exactly as the console script does (click's standalone mode: its own usage and
``ClickException`` handling, ``SystemExit`` codes); an exception that escapes it is
what the console script would print as a traceback. One process serves many books,
so the fuzz test pays the interpreter and import start-up once per worker, not once
per mutant. The per-book limit is an alarm; a library that swallows the alarm's
exception lets a book run on, so the caller also compares ``seconds`` with the limit.
"""
from __future__ import annotations

import contextlib
import io
import json
import signal
import sys
import time
import traceback


class CaseTimeout(BaseException):
    """Raised by the alarm; a BaseException, so the command's own handlers don't catch it."""


def _alarm(_signum, _frame):
    raise CaseTimeout


def run_case(book: str, out: str, timeout: float) -> dict:
    from rooflinexl.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    code, tb = 0, None
    t0 = time.monotonic()
    timer = getattr(signal, "setitimer", None)  # POSIX; elsewhere the parent's limit only
    if timer:
        timer(signal.ITIMER_REAL, timeout)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            main.main(args=["recalc", book, "-o", out], prog_name="rooflinexl",
                      standalone_mode=True)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except CaseTimeout:
        code = None
    except BaseException:  # noqa: BLE001 - the console script would print this traceback
        code, tb = 1, traceback.format_exc()
    finally:
        if timer:
            timer(signal.ITIMER_REAL, 0)
    return {"code": code, "stdout": stdout.getvalue(), "stderr": stderr.getvalue(),
            "seconds": time.monotonic() - t0, "traceback": tb}


def main() -> None:
    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, _alarm)
    for book, out, timeout in json.load(sys.stdin):
        print(json.dumps(run_case(book, out, timeout)), flush=True)


if __name__ == "__main__":
    main()
