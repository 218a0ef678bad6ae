"""xlwings Server host: runs tests/hosts/test_server_*.py in their own process.

xlwings picks its custom-function decorators when it is first imported, from
XLWINGS_ON_SERVER (and needs a licence key then), so the Server suite cannot share
this process, where :mod:`rooflinexl.udfs` is imported without xlwings. This test
starts ``python -m pytest tests/hosts`` with the environment xlwings-server itself
sets (addin/server/serve.py), and fails with that run's report.

xlwings-server is PolyForm Noncommercial (or xlwings PRO): the tests use the
``noncommercial`` key; the package itself never depends on it (a test-only extra).
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def run_host_suite(suite: str, env: dict, timeout: int = 300) -> None:
    """Run tests/hosts for one host in a fresh interpreter; fail with its output."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XLWINGS_")} | env
    env["ROOFLINEXL_HOST_SUITE"] = suite
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/hosts", "-q", "-p", "no:cacheprovider",
         "-o", "addopts=", "-W", "ignore::DeprecationWarning"],
        check=False, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    out = proc.stdout + proc.stderr
    if proc.returncode != 0:
        pytest.fail(f"{suite} host suite failed (exit {proc.returncode}):\n{out[-12000:]}",
                    pytrace=False)
    print(out[-2000:])


@pytest.mark.skipif(importlib.util.find_spec("xlwings_server") is None,
                    reason="xlwings-server not installed (pip install -e '.[test]')")
def test_xlwings_server_host():
    run_host_suite("server", {
        "XLWINGS_ON_SERVER": "true",
        "XLWINGS_LICENSE_KEY": "noncommercial",
        "XLWINGS_PROJECT_DIR": str(REPO / "addin" / "server"),
    })
