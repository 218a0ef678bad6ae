"""The release path (issue #14.2): .github/workflows/release.yml, and its build + check steps.

The workflow builds the sdist and the wheel with ``python -m build``, checks them with
``twine check --strict`` and publishes on a ``v*`` tag with trusted publishing. The
slow test runs the same two commands here on a copy of the sources.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import openpyxl
import pytest
import yaml

import rooflinexl
from rooflinexl.workbooks import outputs

REPO = Path(__file__).resolve().parents[1]
WORKFLOW = REPO / ".github" / "workflows" / "release.yml"


def _runs(job: dict) -> str:
    return "\n".join(step.get("run", "") + step.get("uses", "") for step in job["steps"])


def test_release_workflow_builds_checks_and_publishes_on_a_tag():
    wf = yaml.safe_load(WORKFLOW.read_text())
    on = wf[True] if True in wf else wf["on"]  # YAML 1.1 reads the key `on` as True
    assert on["push"]["tags"] == ["v*"]
    build, publish = wf["jobs"]["build"], wf["jobs"]["publish"]
    assert "python -m build" in _runs(build)
    assert "python -m twine check --strict dist/*" in _runs(build)
    assert publish["needs"] == "build"
    assert publish["if"] == "startsWith(github.ref, 'refs/tags/v')"
    assert publish["permissions"] == {"id-token": "write"}  # trusted publishing, no token
    assert "pypa/gh-action-pypi-publish@release/v1" in _runs(publish)
    assert wf["permissions"] == {"contents": "read"}


@pytest.mark.slow
def test_build_and_twine_check(tmp_path):
    """``python -m build`` then ``twine check --strict``, as the workflow does."""
    pytest.importorskip("build", reason="the test extra installs build")
    pytest.importorskip("twine", reason="the test extra installs twine")
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, src / name)
    shutil.copytree(REPO / "rooflinexl", src / "rooflinexl",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path / "dist"
    res = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(src)],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    v = rooflinexl.__version__
    wheel, sdist = out / f"rooflinexl-{v}-py3-none-any.whl", out / f"rooflinexl-{v}.tar.gz"
    assert sorted(p.name for p in out.iterdir()) == sorted([wheel.name, sdist.name])
    res = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(wheel),
                          str(sdist)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.count("PASSED") == 2
    with zipfile.ZipFile(wheel) as zf:
        assert "rooflinexl/data/chips.csv" in zf.namelist()
    with tarfile.open(sdist) as tf:
        names = tf.getnames()
    assert f"rooflinexl-{v}/LICENSE" in names and f"rooflinexl-{v}/README.md" in names


#: install lines that assume rooflinexl is on the package index (a "rooflinexl @ URL"
#: requirement is fine), or an unnamed owner
INDEX_ONLY = re.compile(
    r"""pip install\s+["']?rooflinexl\b(?![^"'\n]* @ )|^\s*rooflinexl\s*(==|>=|$)|<owner>|OWNER/""",
    re.MULTILINE)


def test_no_install_instruction_assumes_the_package_index():
    """README, docs, the add-in projects, the hooks and every shipped workbook's How-to."""
    texts = {str(p.relative_to(REPO)): p.read_text("utf-8") for p in [
        REPO / "README.md", REPO / ".pre-commit-hooks.yaml", *REPO.glob("docs/*.md"),
        *REPO.glob("addin/**/*.md"), *REPO.glob("addin/**/*.txt")]}
    for rel in outputs():
        wb = openpyxl.load_workbook(REPO / rel, read_only=True)
        texts[rel] = "\n".join(str(v) for row in wb["How to use"].iter_rows(values_only=True)
                               for v in row if v is not None)
    bad = {k: m.group(0) for k, t in texts.items() if (m := INDEX_ONLY.search(t))}
    assert not bad, bad
    server = (REPO / "addin" / "server" / "requirements.txt").read_text().splitlines()
    assert [ln for ln in server if ln and not ln.startswith("#")] == [
        ".", "xlwings-server==1.20.0"]  # this checkout, from the repository root
