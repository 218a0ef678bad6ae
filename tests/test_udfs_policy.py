"""DESIGN.md section 4, as the Excel functions see it: per-element error values, bad calls raise."""
import math

import pytest

from rooflinexl import udfs
from rooflinexl.chips import load_chips
from rooflinexl.errors import ExcelError

CHIPS = load_chips().to_rows()


def test_scalar_call_returns_a_number():
    assert abs(udfs.crit_batch(CHIPS, "H100", 8192, 8192) - 318.155) < 1e-3


def test_unknown_chip_is_na_with_reason():
    got = udfs.crit_batch(CHIPS, "B900", 8192, 8192)
    assert got == "#N/A" and isinstance(got, ExcelError)
    assert "unknown chip 'B900'" in got.reason


def test_k_above_e_is_num_other_elements_compute():
    got = udfs.moe_min_batch(CHIPS, "TPU v5e", 256, [[8], [300], [0]], None, "int8")
    assert abs(got[0][0] - 3843.9) < 0.05
    assert got[1][0] == "#NUM!" and got[2][0] == "#NUM!"


def test_blank_optional_means_default():
    omitted = udfs.crit_batch(CHIPS, "H100")
    blank_cells = udfs.crit_batch(CHIPS, "H100", [[None]], [[None]], [[None]], None, [[None]])
    assert abs(omitted - 295.22) < 0.01
    assert blank_cells == [[omitted]]


def test_text_where_a_number_belongs_is_value():
    got = udfs.crit_batch(CHIPS, "H100", [[1024, "abc", True]], 1024)
    assert abs(got[0][0] - 697.28) < 0.01
    assert got[0][1] == "#VALUE!" and got[0][2] == "#VALUE!"


def test_error_inputs_pass_through():
    got = udfs.arith_intensity([["#REF!"], [2.0]], 4)
    assert got[0][0] == "#REF!" and got[1][0] == 0.5


def test_zero_denominator_is_div0():
    assert udfs.arith_intensity(1, 0) == "#DIV/0!"


def test_column_range_spills_a_column_and_row_spills_a_row():
    col = udfs.crit_batch(CHIPS, "H100", [[1024], [4096], [8192]], 8192)
    row = udfs.crit_batch(CHIPS, "H100", [[1024, 4096, 8192]], 8192)
    assert len(col) == 3 and all(len(r) == 1 for r in col)
    assert len(row) == 1 and len(row[0]) == 3
    assert [r[0] for r in col] == row[0]


def test_column_of_chip_names_gives_one_result_per_chip():
    got = udfs.crit_intensity(CHIPS, [["H100"], ["TPU v5e"], ["nope"]])
    assert round(got[0][0]) == 295 and round(got[1][0]) == 240 and got[2][0] == "#N/A"


def test_bad_keyword_raises_our_exception():
    with pytest.raises(udfs.RooflineInputError, match="dtype 'bf17'"):
        udfs.crit_batch(CHIPS, "H100", dtype="bf17")


def test_bad_table_raises():
    with pytest.raises(udfs.RooflineInputError, match="required column 'hbm_bw'"):
        udfs.crit_batch([["chip", "bf16_flops"], ["X", 1]], "X")


def test_shapes_that_do_not_broadcast_raise():
    with pytest.raises(udfs.RooflineInputError, match="cannot be combined"):
        udfs.crit_batch(CHIPS, "H100", [[1], [2], [3]], [[1], [2]])


def test_missing_spec_is_na_with_chip_and_field():
    got = udfs.chip_spec(CHIPS, "TPU v5e", "fp4_flops")
    assert got == "#N/A" and got.reason == "TPU v5e has no fp4_flops"


def test_no_nan_inf_or_none_in_any_output():
    got = udfs.roofline_time(CHIPS, [["H100"], ["TPU v5e"], [None]], [[1e12, 0, -1]],
                             [[1e9], [0], [float("nan")]])
    for row in got:
        for v in row:
            assert v is not None
            assert isinstance(v, str) or math.isfinite(v)


def test_version():
    import rooflinexl

    assert udfs.version() == rooflinexl.__version__


def test_chip_spec_over_a_column_of_chips_and_a_row_of_fields():
    # Each element's error is its own: H100 has hbm_bw, TPU v5e has no fp4_flops (chips.csv).
    got = udfs.chip_spec(CHIPS, [["H100"], ["TPU v5e"]], [["hbm_bw", "fp4_flops"]])
    assert got[0][0] == 3.35e12           # H100 HBM3, 3.35 TB/s (NVIDIA H100 datasheet)
    assert got[0][1] == "#N/A" and got[0][1].reason == "H100 has no fp4_flops"
    assert got[1][0] == 8.2e11            # TPU v5e, 8.2e11 B/s (reference §9 / book Part 2)
    assert got[1][1] == "#N/A" and got[1][1].reason == "TPU v5e has no fp4_flops"
