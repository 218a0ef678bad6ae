"""Bad input raises a precise exception in Python, never returns a wrong number."""
import pytest

import rooflinexl as rl
from rooflinexl.chips import ChipTable


def test_unknown_chip_lists_the_known_ones():
    with pytest.raises(rl.UnknownChipError, match=r"unknown chip 'B900' \(known: .*H100"):
        rl.crit_batch("B900")


def test_chip_lookup_is_exact_after_normalising():
    assert rl.crit_intensity("  tpu-v5e ") == rl.crit_intensity("TPU v5e")
    assert rl.crit_intensity("h100_sxm") == rl.crit_intensity("H100")
    with pytest.raises(rl.UnknownChipError):
        rl.crit_intensity("H10")  # never a substring or nearest match
    with pytest.raises(rl.UnknownChipError):
        rl.crit_intensity("TPU v5")


def test_missing_spec_names_chip_and_field():
    with pytest.raises(rl.MissingSpecError, match="TPU v5e has no fp4_flops"):
        rl.crit_intensity("TPU v5e", dtype="fp4")


def test_k_greater_than_e_is_a_domain_error():
    with pytest.raises(rl.DomainError, match="k"):
        rl.moe_min_batch("TPU v5e", 8, 9)


@pytest.mark.parametrize("kw, msg", [
    ({"dtype": "bf17"}, "dtype 'bf17' is not one of bf16"),
    ({"tier": "hbmx"}, "tier 'hbmx' is not one of hbm, vmem, ici, dcn, pcie"),
])
def test_unknown_keywords(kw, msg):
    with pytest.raises(rl.KeywordError, match=msg):
        rl.crit_batch("H100", **kw)


def test_unreachable_threshold():
    # D = F = 128 on an H100: 2/I = 0.00677 < 2/128 + 2/128: no batch reaches the roof
    with pytest.raises(rl.DomainError, match="no batch size reaches the roof"):
        rl.crit_batch("H100", 128, 128)


def test_shard_none_needs_one_chip():
    with pytest.raises(rl.DomainError, match="shard 'none' needs n_chips = 1"):
        rl.matmul_time("H100", 1, 2, 3, n_chips=2)


HEADER = ["chip", "aliases", "bf16_flops", "hbm_bw"]


@pytest.mark.parametrize("rows, msg", [
    ([["chip", "bf16_flops"], ["X", 1]], "required column 'hbm_bw' is missing"),
    ([HEADER, ["X", "", 1, 2], ["x", "", 1, 2]], r"row 3, column 'chip': 'x' is already"),
    ([HEADER, ["X", "", 1, 2], ["Y", "x", 1, 2]], r"row 3, column 'aliases': 'x' is already"),
    ([HEADER, ["X", "", "fast", 2]], r"row 2, column 'bf16_flops': 'fast' is not a number"),
    ([HEADER, ["X", "", -1, 2]], r"row 2, column 'bf16_flops': -1 must be a finite number >= 0"),
    ([HEADER, ["X", "", 1, None]], r"row 2, column 'hbm_bw': required value is blank"),
])
def test_table_validation_names_row_and_column(rows, msg):
    with pytest.raises(rl.ChipTableError, match=msg):
        ChipTable.from_rows(rows)


def test_table_loaders_agree(tmp_path):
    import pandas as pd

    default = rl.load_chips()
    csv_path = tmp_path / "c.csv"
    pd.DataFrame(default.to_rows()[1:], columns=default.to_rows()[0]).to_csv(csv_path,
                                                                             index=False)
    for t in (rl.load_chips(csv_path), rl.load_chips(pd.read_csv(csv_path)),
              rl.load_chips(default.to_rows())):
        assert t.names == default.names
        assert rl.crit_batch("H100", 8192, 8192, chips=t) == rl.crit_batch("H100", 8192, 8192)


def test_header_units_and_case_are_ignored():
    t = ChipTable.from_rows([[" Chip ", "BF16_FLOPS [FLOP/s]", "hbm_bw [B/s]", "extra"],
                             ["Z1", 4e14, 2e12, "kept"]])
    assert rl.crit_intensity("z1", chips=t) == 200.0


def test_packaged_table_is_dense_and_one_direction():
    # H100 datasheet: 1,979 TFLOPS bf16 *with sparsity*; dense 989 (reference §2).
    assert rl.chip_spec("H100", "bf16_flops") == 9.89e14
    # NVLink 4: 900 GB/s both directions -> 450 GB/s one way (reference §11).
    assert rl.chip_spec("H100", "ici_bw") == 4.5e11
    assert rl.chip_spec("TPU v5e", "ici_bw") == 4.5e10
    for name in ("TPU v4", "TPU v5e", "TPU v5p", "TPU v6e", "TPU7x", "A100", "H100", "H200",
                 "H800", "B200", "GB200"):
        assert rl.chip_spec(name, "source")
    for name in ("H100", "H200", "TPU v5p", "TPU v5e", "TPU v6e"):
        assert rl.chip_spec(name, "price_per_hour") > 0
        assert rl.chip_spec(name, "price_date") and rl.chip_spec(name, "price_source")
