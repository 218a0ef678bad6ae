"""Generated workbooks: the committed files equal a fresh build."""
from pathlib import Path

import pytest

from rooflinexl.workbooks import BUILDERS, build_all, outputs

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    root = tmp_path_factory.mktemp("build")
    build_all(root)
    return root


@pytest.mark.parametrize("rel", outputs())
def test_committed_workbook_equals_fresh_build(fresh, rel):
    committed = ROOT / rel
    assert committed.exists(), f"{rel} is missing: run `rooflinexl build`"
    assert committed.read_bytes() == (fresh / rel).read_bytes(), (
        f"{rel} differs from a fresh build: run `rooflinexl build` and commit the result")


def test_every_workbook_has_chips_name_and_xlwings_conf(fresh):
    import openpyxl

    for rel in BUILDERS:
        wb = openpyxl.load_workbook(fresh / rel)
        assert "Chips" in wb.defined_names
        conf = wb["xlwings.conf"]
        assert (conf["A1"].value, conf["B1"].value) == ("UDF Modules", "rooflinexl.udfs")
        assert "How to use" in wb.sheetnames
