"""xlwings Lite's registration of addin/lite/main.py, on CPython.

The Lite runtime (xlwings-server's ``wasm/wasm_runtime.py``, which the Lite add-in
runs in Pyodide) builds a module named ``main`` from the main.py text, registers
what ``xlwings.server.custom_functions_meta`` finds in it, and answers a call with
``xlwings.server.custom_functions_call`` (an exception becomes ``{"error": message}``,
shown as #VALUE! with the message). Same steps here, in the server suite's process
(XLWINGS_ON_SERVER=true, as Lite sets it). The Pyodide run itself is in
tests/test_hosts_lite.py.
"""
from __future__ import annotations

import asyncio
import importlib.util
import sys

import pytest
import xlwings.server
from _catalogue import CATALOGUE, REPO, WORKED
from _officejs import NA, chip_call

MAIN_PY = REPO / "addin" / "lite" / "main.py"


@pytest.fixture(scope="module")
def main_module():
    spec = importlib.util.spec_from_loader("main", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(MAIN_PY.read_text(), module.__dict__)  # what wasm_runtime.create_module_from_string does
    sys.modules["main"] = module
    yield module
    sys.modules.pop("main", None)


def lite_call(module, data):
    """wasm_runtime.custom_functions_call, less the JS conversion."""
    try:
        return asyncio.run(xlwings.server.custom_functions_call(data, module=module))
    except Exception as e:  # noqa: BLE001 - as the Lite runtime does
        return {"error": str(e)}


def test_main_py_registers_the_catalogue_under_ROOFLINE(main_module):
    meta = xlwings.server.custom_functions_meta(main_module)
    names = [f["name"] for f in meta["functions"]]
    assert sorted(names) == sorted(f"ROOFLINE.{name}" for name in CATALOGUE)


@pytest.mark.parametrize("func, args, expected, tol", WORKED[:2])
def test_main_py_calls(main_module, func, args, expected, tol):
    [[value]] = lite_call(main_module, chip_call(func, args))
    assert value == pytest.approx(expected, abs=tol)


def test_main_py_errors(main_module):
    assert lite_call(main_module, chip_call("crit_batch", ["B900", 8192, 8192])) == [[NA]]
    out = lite_call(main_module, chip_call("crit_batch", ["H100", 8192, 8192, "bf17"]))
    assert "bf17" in out["error"] and "bf16" in out["error"]
