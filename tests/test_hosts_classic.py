"""Classic xlwings host (Windows COM): runs tests/hosts/test_classic_*.py in their own process.

There the Windows-only modules (pythoncom, pywintypes, win32com.client) are stubbed
before xlwings is imported, so xlwings' own ``import_udfs`` generates the VBA wrappers
and function-wizard help that "Import Functions" puts into a workbook or add-in
(tests/hosts/conftest.py). Needs only xlwings, which this process must not import.
"""
from __future__ import annotations

import importlib.util

import pytest
from test_hosts_server import run_host_suite


@pytest.mark.skipif(importlib.util.find_spec("xlwings") is None,
                    reason="xlwings not installed (pip install -e '.[test]')")
def test_classic_xlwings_host():
    run_host_suite("classic", {})
