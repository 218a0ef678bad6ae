"""xlwings Lite host: the wheel Pyodide installs, and what a user pastes (addin/lite).

Lite installs ``rooflinexl`` from requirements.txt with micropip, which takes a pure
Python wheel; numpy comes from Pyodide. So: the wheel is ``py3-none-any`` and needs
numpy alone, and ``import rooflinexl.udfs`` loads no other third-party module. The
Pyodide smoke test runs the Lite registration in real Pyodide under Node when Node,
the npm package ``pyodide`` and Pyodide's numpy wheel are at hand (see its skip reasons).
"""
from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

import rooflinexl

REPO = Path(__file__).resolve().parents[1]
LITE = REPO / "addin" / "lite"
PIP = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """``pip wheel . --no-deps`` on a copy of the sources (keeps build/ out of the tree)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (REPO / name).exists():
            shutil.copy2(REPO / name, src / name)
    shutil.copytree(REPO / "rooflinexl", src / "rooflinexl",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([*PIP, "wheel", str(src), "--no-deps", "-w", str(out)], check=True,
                   timeout=300)
    [whl] = out.glob("rooflinexl-*.whl")
    return whl


@pytest.mark.slow
def test_wheel_is_pure_python_and_needs_numpy_alone(wheel):
    assert wheel.name == f"rooflinexl-{rooflinexl.__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        info = f"rooflinexl-{rooflinexl.__version__}.dist-info"
        tags = [line for line in zf.read(f"{info}/WHEEL").decode().splitlines()
                if line.startswith(("Tag:", "Root-Is-Purelib:"))]
        meta = zf.read(f"{info}/METADATA").decode().splitlines()
        assert not [n for n in zf.namelist() if n.endswith((".so", ".pyd", ".dylib"))]
        assert "rooflinexl/data/chips.csv" in zf.namelist()
    assert tags == ["Root-Is-Purelib: true", "Tag: py3-none-any"]
    requires = [line.split(":", 1)[1].strip() for line in meta
                if line.startswith("Requires-Dist:")]
    unconditional = [r for r in requires if "extra ==" not in r]
    assert [r.split(">")[0].split("=")[0].strip() for r in unconditional] == ["numpy"]
    # xlwings-server (PolyForm Noncommercial) may only appear in the test extra.
    for r in requires:
        if r.lower().startswith("xlwings-server"):
            assert 'extra == "test"' in r, r


CHECK_IMPORT = r"""
import json, sys
import rooflinexl.udfs as udfs
stdlib = set(sys.stdlib_module_names) | set(sys.builtin_module_names)
third = sorted({m.split(".")[0] for m in sys.modules} - stdlib - {"rooflinexl", "numpy"})
third = [m for m in third if not m.startswith("_")]
print(json.dumps({"third_party": third,
                  "crit_batch": udfs.crit_batch([["chip", "bf16_flops", "hbm_bw"],
                                                 ["H100", 989e12, 3.35e12]],
                                                "H100", 8192, 8192)}))
"""


@pytest.mark.slow
def test_wheel_imports_in_a_clean_venv_with_numpy_alone(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    # pip of this environment installs into the clean one: the wheel and what it
    # requires, which is numpy alone.
    subprocess.run([*PIP, "--python", str(python), "install", str(wheel)], check=True,
                   timeout=600)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("XLWINGS_", "PYTHON", "ROOFLINEXL_"))}
    out = subprocess.run([str(python), "-I", "-c", CHECK_IMPORT], capture_output=True,
                         text=True, check=True, timeout=120, env=env, cwd=tmp_path)
    result = json.loads(out.stdout)
    assert result["third_party"] == []
    # Reference section 5 with the H100 datasheet row: 318.16.
    assert result["crit_batch"] == pytest.approx(318.155, abs=0.001)
    listed = subprocess.run([*PIP[:-1], "--python", str(python), "list", "--format=json"],
                            capture_output=True, text=True, check=True, timeout=120)
    assert sorted(p["name"].lower() for p in json.loads(listed.stdout)) == [
        "numpy", "rooflinexl"]


def test_lite_requirements_name_this_release_s_wheel_by_url():
    """Not on the package index: Lite installs the wheel `python -m build` writes, by URL."""
    lines = [ln.strip() for ln in (LITE / "requirements.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert lines == [f"https://YOUR-SERVER/rooflinexl-{rooflinexl.__version__}-py3-none-any.whl"]
    assert not [ln for ln in lines if ln.startswith("numpy")]  # Pyodide's numpy, unpinned


def test_lite_main_py_only_reexports_the_udfs():
    tree = ast.parse((LITE / "main.py").read_text())
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert [(n.module, [a.name for a in n.names]) for n in imports] == [
        ("rooflinexl.udfs", ["*"])]


# ----------------------------------------------------------------- Pyodide smoke
NODE_SCRIPT = r"""
const path = require("path"), fs = require("fs");
const [pyodideDir, rooflineWheel, xlwingsWheel, mainPy] = process.argv.slice(2);
(async () => {
  const { loadPyodide } = require(path.join(pyodideDir, "pyodide.js"));
  const py = await loadPyodide({ indexURL: pyodideDir + path.sep });
  await py.loadPackage("numpy");
  for (const whl of [rooflineWheel, xlwingsWheel]) {
    py.unpackArchive(new Uint8Array(fs.readFileSync(whl)), "wheel");
  }
  py.globals.set("MAIN_PY", fs.readFileSync(mainPy, "utf8"));
  const out = await py.runPythonAsync(`
import os, json, sys, importlib.util
os.environ["XLWINGS_ON_SERVER"] = "true"          # as the Lite runtime sets it
os.environ["XLWINGS_LICENSE_KEY"] = "noncommercial"
import xlwings.server
spec = importlib.util.spec_from_loader("main", loader=None)
main = importlib.util.module_from_spec(spec)
exec(MAIN_PY, main.__dict__)
sys.modules["main"] = main
meta = xlwings.server.custom_functions_meta(main)
chips = [["chip", "bf16_flops", "hbm_bw"], ["H100", 989e12, 3.35e12]]
results = {}
results["crit_batch"] = await xlwings.server.custom_functions_call(
    {"client": "Office.js", "func_name": "crit_batch",
     "args": [chips, [["H100"]], [[8192]], [[8192]]], "version": "0", "runtime": "1.4"}, main)
results["crit_intensity"] = await xlwings.server.custom_functions_call(
    {"client": "Office.js", "func_name": "crit_intensity",
     "args": [chips, [["H100"], ["B900"]]], "version": "0", "runtime": "1.4"}, main)
json.dumps({"platform": sys.platform, "names": sorted(f["name"] for f in meta["functions"]),
            "results": results})
`);
  console.log(out);
})().catch((e) => { console.error(e); process.exit(1); });
"""


def _pyodide_dir() -> Path | None:
    for candidate in (os.environ.get("ROOFLINEXL_PYODIDE_DIR"),
                      REPO / "node_modules" / "pyodide"):
        if candidate and (Path(candidate) / "pyodide.js").exists():
            return Path(candidate)
    return None


@pytest.mark.slow
def test_pyodide_smoke(wheel, tmp_path):
    """Lite's registration and two calls inside real Pyodide, offline.

    Needs ``node``, the npm package ``pyodide`` (``ROOFLINEXL_PYODIDE_DIR`` or
    ./node_modules/pyodide) and numpy's Pyodide wheel in that folder: the npm package
    ships the runtime only and fetches numpy from a CDN, which CI cannot reach; the full
    Pyodide distribution (same folder layout) includes it.
    """
    node = shutil.which("node")
    pyodide_dir = _pyodide_dir()
    if node is None or pyodide_dir is None:
        pytest.skip("node or the npm package pyodide is not installed")
    lock = json.loads((pyodide_dir / "pyodide-lock.json").read_text())
    numpy_wheel = lock["packages"]["numpy"]["file_name"]
    if not (pyodide_dir / numpy_wheel).exists():
        pytest.skip(f"{numpy_wheel} is not in {pyodide_dir} (the npm package has no numpy)")
    import xlwings
    xl_dir = tmp_path / "xlwings"
    subprocess.run([*PIP, "download", f"xlwings=={xlwings.__version__}", "--no-deps",
                    "--only-binary=:all:", "--platform", "any", "-d", str(xl_dir)],
                   check=True, timeout=300)
    [xl_wheel] = xl_dir.glob("xlwings-*-py3-none-any.whl")
    script = tmp_path / "smoke.js"
    script.write_text(NODE_SCRIPT)
    out = subprocess.run([node, str(script), str(pyodide_dir), str(wheel), str(xl_wheel),
                          str(LITE / "main.py")], capture_output=True, text=True,
                         timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-4000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["platform"] == "emscripten"
    assert "ROOFLINE.CRIT_BATCH" in result["names"] and len(result["names"]) == 15
    [[b]] = result["results"]["crit_batch"]
    assert b == pytest.approx(318.155, abs=0.001)  # reference section 5
    [[i], [na]] = result["results"]["crit_intensity"]
    assert i == pytest.approx(295.2, abs=0.05) and na == {"type": "Error",
                                                          "errorType": "NotAvailable"}
