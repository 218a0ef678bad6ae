"""The packaged chip and price tables against the vendors' own figures.

Expected values come from ``tests/data/datasheet_figures.csv`` (hand-copied datasheet
figures with their source) and unit arithmetic (1 GiB = 2**30 bytes, dense = sparse / 2).
"""
from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import rooflinexl as rl
from rooflinexl.chips import COLUMNS, load_chips
from rooflinexl.cli import main
from rooflinexl.errors import MissingSpecError
from rooflinexl.prices import load_prices
from rooflinexl.units import unit_factor

DATA = Path(__file__).parent / "data" / "datasheet_figures.csv"
FIGURES = list(csv.DictReader(DATA.open(encoding="utf-8")))
TABLE = load_chips()


def test_at_least_thirty_chips_with_the_issue_list():
    assert len(TABLE) >= 30
    for name in ("MI250X", "MI300X", "MI325X", "MI355X", "Gaudi 2", "Gaudi 3", "Trainium1",
                 "Trainium2", "Inferentia2", "L4", "L40S", "A10G", "A100 40GB", "H100 PCIe",
                 "H100 NVL", "H20", "B300", "GB300", "TPU v2"):
        assert TABLE.row_of(name) is not None, name


@pytest.mark.parametrize("f", [f for f in FIGURES if f["basis"] == "capacity"],
                         ids=lambda f: f"{f['chip']}-{f['column']}")
def test_capacity_is_the_sources_figure_in_its_unit(f):
    # e.g. H100 "80GB" HBM is 80 GiB = 85,899,345,920 bytes, not 8e10
    want = float(f["figure"]) * unit_factor(f["unit"], "bytes")
    assert rl.chip_spec(f["chip"], f["column"]) == want


def test_every_hbm_capacity_is_checked():
    checked = {f["chip"] for f in FIGURES if f["column"] == "hbm_bytes"}
    assert checked == set(TABLE.names)


@pytest.mark.parametrize("f", [f for f in FIGURES if f["basis"] == "sparse"],
                         ids=lambda f: f"{f['chip']}-{f['column']}")
def test_dense_peak_is_half_the_sparse_datasheet_figure(f):
    # datasheets round to whole (or tenths of) TFLOP/s: H100 1979 sparse, 989.4 dense
    sparse = float(f["figure"]) * 1e12
    assert math.isclose(rl.chip_spec(f["chip"], f["column"]), sparse / 2, abs_tol=1e12)


def test_every_nvidia_and_amd_bf16_peak_with_sparsity_is_checked():
    sparse = {f["chip"] for f in FIGURES if f["basis"] == "sparse" and f["column"] == "bf16_flops"}
    vendors = TABLE.text("vendor")
    # these have no 2:4-sparse datasheet figure (or a dense figure that is not sparse / 2)
    exempt = {"MI250X", "A10G", "H800", "H20", "L40S"}
    for name, vendor in zip(TABLE.names, vendors, strict=True):
        if vendor in ("NVIDIA", "AMD") and name not in exempt:
            assert name in sparse, name


def test_every_row_is_sourced_and_dated():
    for j, name in enumerate(TABLE.names):
        src = TABLE.text("source")[j]
        assert re.search(r"(19|20)\d\d", src), f"{name}: source without a date"
        assert TABLE.text("release")[j], name
        assert not math.isnan(TABLE.numeric("scaleup_size")[j]), name
        price = TABLE.numeric("price_per_hour")[j]
        if not math.isnan(price):
            assert TABLE.text("price_date")[j] and TABLE.text("price_source")[j], name
            assert "Google Cloud" in TABLE.text("price_source")[j]  # one default provider


def test_links_have_a_domain_and_a_topology():
    for j, name in enumerate(TABLE.names):
        if not math.isnan(TABLE.numeric("ici_bw")[j]):
            assert TABLE.text("scaleup_topology")[j] in ("switch", "torus"), name
            assert TABLE.numeric("ici_egress_bw")[j] >= TABLE.numeric("ici_bw")[j], name


def test_every_price_names_a_chip_and_is_dated():
    prices = load_prices()
    assert len(prices) >= 20
    for r in prices.rows:
        assert TABLE.row_of(r["chip"]) is not None, r
        assert re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", r["date"]) and r["source"], r
    for chip in ("B200", "GB200", "MI300X"):
        assert prices.listed(chip, TABLE), chip


def test_prices_cover_public_cloud_chips_and_divide_instances_by_chips():
    prices = load_prices()
    for chip in ("B300", "L40S", "H100 PCIe", "H100 NVL", "TPU v4", "A100 40GB", "Trainium1"):
        assert prices.listed(chip, TABLE), chip
    # per chip-hour = the source's instance price / its accelerators (written in the source)
    for chip, provider, instance, n in (("H100", "AWS", 55.04, 8), ("A100", "AWS", 27.44705, 8),
                                        ("A100 40GB", "AWS", 21.957642, 8),
                                        ("Trainium1", "AWS", 21.50, 16)):
        row = prices.find(chip, provider, "on-demand", TABLE)
        assert row["price_per_hour"] == pytest.approx(instance / n, abs=5e-5), chip
        assert f"/ {n} " in row["source"], chip
    # Cloud TPU v4 on-demand per chip-hour, Google's pricing page as of 11 Aug 2022
    assert prices.find("TPU v4", "Google Cloud", "on-demand", TABLE)["price_per_hour"] == 3.22
    # the latest Google Cloud H100 row is the catalog price, not the book's Feb 2025 default
    assert prices.find("H100", "Google Cloud", "on-demand", TABLE)["date"] == "2026-09-26"


def test_prices_of_inference_parts_aws_silicon_and_the_newest_chips():
    prices = load_prices()
    for chip in ("L4", "Trainium2", "Inferentia2", "TPU7x", "MI355X", "TPU v2", "TPU v3"):
        assert prices.listed(chip, TABLE), chip
    # instance prices as the sources print them / accelerators per instance
    for chip, provider, instance, n in (
            # Cyclenerd pricing.yml of 30 Jul 2026: g2-standard-4 (1 x L4), us-central1
            ("L4", "Google Cloud", 0.706832255, 1),
            # tsaol/aws-gpu (instances.vantage.sh) of 26 Aug 2026, us-east-1
            ("L4", "AWS", 13.3504, 8),  # g6.48xlarge
            ("Inferentia2", "AWS", 12.98127, 12),  # inf2.48xlarge
            ("B300", "AWS", 142.416, 8),  # p6-b300.48xlarge
            ("B200", "AWS", 113.9328, 8),  # p6-b200.48xlarge
            ("H200", "AWS", 63.296, 8),  # p5en.48xlarge
            # tsaol/aws-gpu of 30 Nov 2025: trn2.48xlarge, us-east-2
            ("Trainium2", "AWS", 35.76, 16),
            # a 180 TFLOP/s Cloud TPU v2 device (4 chips) at 4.50 USD/h, July 2018
            ("TPU v2", "Google Cloud", 4.50, 4),
            # TPU v3-8 (4 chips) 8.80 USD/h on-demand, europe-west4, Feb 2026
            ("TPU v3", "Google Cloud", 8.80, 4)):
        row = prices.find(chip, provider, "on-demand", TABLE)
        assert row["price_per_hour"] == pytest.approx(instance / n, abs=5e-7), chip
        assert f"/ {n} " in row["source"], chip
    # SemiAnalysis AI Cloud TCO Model, 3-year rental per chip-hour: TPU7x 2.00 (InferenceX-app
    # PR #1083, 8 Sep 2026); MI355X 2.1 and H100 1.3 (InferenceX-app constants, Apr 2026)
    for chip, usd in (("TPU7x", 2.0), ("MI355X", 2.1), ("H100", 1.3)):
        row = prices.find(chip, "SemiAnalysis TCO model", "3-year", TABLE)
        assert row["price_per_hour"] == usd and "not a cloud's list price" in row["notes"], chip
    # TPU7x now costs per FLOP from a table row: 2.00 USD/h over 2.307e15 FLOP/s
    assert math.isclose(rl.cost_per_flop("TPU7x", provider="SemiAnalysis TCO model",
                                         pricing="3-year"), 2.0 / (3600 * 2.307e15))


def test_provider_price_and_quote():
    # one provider's rows: CoreWeave 7 Feb 2024 (microsoft/vidur): H100 4.25, A100 2.21
    assert rl.chip_price("H100", "coreweave") == 4.25
    # A100 has no Google Cloud list price: no default, a provider or a quote prices it
    with pytest.raises(MissingSpecError, match="A100 has no price_per_hour"):
        rl.cost_per_flop("A100")
    assert math.isclose(rl.cost_per_flop("A100", provider="CoreWeave"), 2.21 / (3600 * 3.12e14))
    # with one provider's prices H100 is cheaper per FLOP than A100 (1.19 vs 1.97 per 1e18)
    h100 = rl.cost_per_flop("H100", provider="CoreWeave") * 1e18
    a100 = rl.cost_per_flop("A100", provider="CoreWeave") * 1e18
    assert (round(h100, 2), round(a100, 2)) == (1.19, 1.97)
    # a typed quote costs a chip with no list price at all (TPU7x)
    assert math.isclose(rl.cost_per_flop("TPU7x", price=5.0), 5.0 / (3600 * 2.307e15))
    with pytest.raises(MissingSpecError, match="no on-demand price for TPU7x from AWS"):
        rl.chip_price("TPU7x", "AWS")
    # Excel: a blank quote cell falls back to the list price, a quote wins
    from rooflinexl import udfs
    got = udfs.cost_per_flop(TABLE, [["H200"], ["B200"]], None, None, [[None], [6.0]])
    assert math.isclose(got[0][0], 10 / (3600 * 9.89e14))
    assert math.isclose(got[1][0], 6 / (3600 * 2.25e15))
    assert udfs.chip_price(TABLE, "B200", load_prices(), "Spheron", None, "date") == "2026-03-17"


def test_cli_chips_columns_and_formats():
    res = CliRunner().invoke(main, ["chips", "--columns", "hbm_bytes,release", "--format",
                                    "json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    h100 = next(d for d in doc if d["chip"] == "H100")
    assert h100 == {"chip": "H100", "hbm_bytes [bytes]": 80 * 2**30, "release": "2022-03"}
    res = CliRunner().invoke(main, ["chips", "--format", "csv", "--columns", "all"])
    head = res.output.splitlines()[0].split(",")
    assert len(head) == len(COLUMNS) and "tdp_w [W]" in head and "scaleup_size [chips]" in head
    res = CliRunner().invoke(main, ["chips", "--columns", "hbm_bandwidth"])
    assert res.exit_code == 2 and "'hbm_bandwidth' not a column" in res.output
