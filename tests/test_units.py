"""Header units: converted to SI on every load path, or refused with the column and the units.

Expected values are unit arithmetic done by hand (1 TB/s = 1e12 B/s, 1 GiB = 2**30 B,
1 Gb/s = 1.25e8 B/s) and the book's collective formulas (How to Scale Your Model Part 12).
"""
from __future__ import annotations

import math

import pandas as pd
import pytest

import rooflinexl as rl
from rooflinexl import udfs
from rooflinexl.chips import ChipTable, load_chips
from rooflinexl.errors import ChipTableError, DomainError, UnitError
from rooflinexl.units import header_units, parse_header, unit_factor

SI = [["chip", "bf16_flops", "hbm_bw", "hbm_bytes", "dcn_bw", "tdp_w"],
      ["X1", 9.89e14, 3.35e12, 85899345920, 5e10, 700]]
UNITS = [["chip", "bf16_flops [TFLOP/s]", "HBM_BW [TB/s]", " hbm_bytes [GiB] ", "dcn_bw [Gb/s]",
          "tdp_w [kW]"],
         ["X1", 989, 3.35, 80, 400, 0.7]]


def _same(a: ChipTable, b: ChipTable):
    for col in ("bf16_flops", "hbm_bw", "hbm_bytes", "dcn_bw", "tdp_w"):
        assert math.isclose(a.numeric(col)[0], b.numeric(col)[0], rel_tol=1e-12), col


def test_parse_header():
    assert parse_header("  Hbm_BW [ TB/s ] ") == ("hbm_bw", "TB/s")
    assert parse_header("chip") == ("chip", None)
    assert parse_header(None) == ("", None)


@pytest.mark.parametrize("unit, dim, factor", [
    ("TB/s", "B/s", 1e12), ("GB/s", "B/s", 1e9), ("GiB/s", "B/s", 2**30),
    ("Gb/s", "B/s", 1e9 / 8), ("Tb/s", "B/s", 1e12 / 8), ("Gbps", "B/s", 1e9 / 8),
    ("TFLOP/s", "FLOP/s", 1e12), ("PFLOP/s", "FLOP/s", 1e15), ("TOPS", "FLOP/s", 1e12),
    ("tflops", "FLOP/s", 1e12),
    ("GB", "bytes", 1e9), ("GiB", "bytes", 2**30), ("MiB", "bytes", 2**20), ("KiB", "bytes", 1024),
    ("W", "W", 1), ("kW", "W", 1e3), ("us", "s", 1e-6), ("µs", "s", 1e-6), ("ns", "s", 1e-9),
    ("ms", "s", 1e-3), ("USD/h", "USD/h", 1), (None, "B/s", 1), ("", "bytes", 1),
])
def test_unit_factors(unit, dim, factor):
    assert math.isclose(unit_factor(unit, dim, column="c"), factor, rel_tol=1e-15)


@pytest.mark.parametrize("header, words", [
    ("hbm_bw [furlongs]", ["'hbm_bw'", "unknown unit 'furlongs'", "TB/s", "GB/s"]),
    ("hbm_bytes [TB/s]", ["'hbm_bytes'", "'TB/s' is a B/s unit", "GiB"]),
    ("hbm_bw [gb/s]", ["'hbm_bw'", "ambiguous", "GB/s"]),  # gigabits or gigabytes?
    ("bf16_flops [GB/s]", ["'bf16_flops'", "TFLOP/s"]),
])
def test_unknown_or_mismatched_unit_is_an_error_naming_column_and_units(header, words):
    rows = [["chip", "bf16_flops", "hbm_bw", "hbm_bytes"], ["X1", 1e14, 1e12, 1e9]]
    col = parse_header(header)[0]
    rows[0][rows[0].index(col)] = header
    with pytest.raises(ChipTableError) as info:
        ChipTable.from_rows(rows)
    for w in words:
        assert w in str(info.value)


def test_known_units_equal_si_on_all_four_load_paths(tmp_path):
    si = ChipTable.from_rows(SI)
    assert si.numeric("hbm_bytes")[0] == 80 * 2**30
    _same(ChipTable.from_rows(UNITS), si)                        # an Excel range
    _same(ChipTable.from_dataframe(pd.DataFrame(UNITS[1:], columns=UNITS[0])), si)
    path = tmp_path / "chips.csv"
    path.write_text("\n".join(",".join(str(v) for v in r) for r in UNITS), encoding="utf-8")
    _same(load_chips(path), si)                                  # a user CSV
    _same(load_chips(pd.DataFrame(UNITS[1:], columns=UNITS[0])), si)


def test_unit_header_gives_the_same_excel_results_as_si():
    # CRIT_INTENSITY with hbm_bw typed as 3.35 [TB/s]: 989e12 / 3.35e12 = 295.2, not 2.95e14
    got = udfs.crit_intensity(UNITS, "X1")
    assert math.isclose(got, 989e12 / 3.35e12, rel_tol=1e-12)
    bad = [list(r) for r in UNITS]
    bad[0][2] = "hbm_bw [furlongs]"
    with pytest.raises(udfs.RooflineInputError, match="furlongs"):
        udfs.crit_intensity(bad, "X1")


def test_header_units_is_table_agnostic():
    names, factors = header_units(["model", "params [B]", "d_model", "notes [x]"],
                                  {"model": "text", "params": "count", "d_model": "count"})
    assert names == ["model", "params", "d_model", "notes"]
    assert factors == [1.0, 1e9, 1.0, 1.0]
    with pytest.raises(UnitError, match="'params'"):
        header_units(["params [GB/s]"], {"params": "count"})


def test_year_month_column_checked():
    rows = [["chip", "bf16_flops", "hbm_bw", "release"], ["X1", 1e14, 1e12, "2024-3"]]
    with pytest.raises(ChipTableError, match="release"):
        ChipTable.from_rows(rows)
    rows[1][3] = "2024-03"
    assert ChipTable.from_rows(rows).text("release") == ["2024-03"]


# ----------------------------------------------------------- collectives and the domain
def test_alltoall_within_a_node_is_the_books_formula():
    # Part 12 "Intra-node collectives": T = B (N-1) / (W N^2); H100 node, W = 450e9, 1 GB
    t = rl.model.collective_seconds("alltoall", 1e9, 8, 4.5e11)
    assert math.isclose(t, 1e9 * 7 / (4.5e11 * 64), rel_tol=1e-12)
    # on a torus ring, one direction: a byte travels n/2 hops, (n-1)/(2n) bytes/bw
    t = rl.model.collective_seconds("alltoall", 1e9, 8, 4.5e10, torus=True)
    assert math.isclose(t, 1e9 * 7 / 16 / 4.5e10, rel_tol=1e-12)


def test_latency_term_counts_ring_steps():
    # alpha * steps: AllGather n-1, AllReduce 2(n-1), AllToAll n-1; 0 bytes isolates it
    for kind, steps in (("allgather", 7), ("reducescatter", 7), ("allreduce", 14),
                        ("alltoall", 7)):
        assert math.isclose(rl.model.collective_seconds(kind, 0, 8, 1e11, 2e-6), steps * 2e-6)
        # the per-call base latency is added once, and not at all on one chip
        assert math.isclose(rl.model.collective_seconds(kind, 0, 8, 1e11, 2e-6,
                                                        base_latency=5e-6), 5e-6 + steps * 2e-6)
        assert rl.model.collective_seconds(kind, 0, 1, 1e11, 2e-6, base_latency=5e-6) == 0.0
    with pytest.raises(DomainError, match="base_latency must be >= 0"):
        rl.model.collective_seconds("allreduce", 0, 8, 1e11, base_latency=-1e-6)


def test_tiny_allreduce_on_8_h100_is_nccls_small_message_latency():
    # NCCL's own cost model for a ring AllReduce, NVIDIA/nccl src/graph/tuning.cc
    # (ncclTunerConstantsDefaults, master as of 2026-06-01): latency = baseLat + nsteps * hwLat,
    # nsteps = 2(n-1); for small messages NCCL picks the LL protocol, Ring/LL baseLat 6.6 us,
    # NVLINK hwLat 0.6 us: 6.6 + 14 * 0.6 = 15.0 us on one 8-GPU HGX node. A 4 KB message adds
    # 2 * 7/8 * 4096 B / 450 GB/s = 0.016 us. (GenZ, GenZ/collective_times.py get_AR_time:
    # 5 us + 2(n-1) * 1 us = 19 us.)
    t = rl.collective_time("H100", "AllReduce", 4096, 8)
    assert math.isclose(t, 6.6e-6 + 14 * 0.6e-6 + 2 * 7 / 8 * 4096 / 4.5e11, rel_tol=1e-9)
    assert 15.0e-6 < t < 15.1e-6
    # two GPUs: 6.6 + 2 * 0.6 = 7.8 us (NCCL's figure for a 2-GPU NVLink ring)
    assert math.isclose(rl.collective_time("H100", "AllReduce", 0, 2), 7.8e-6, rel_tol=1e-9)


def test_beyond_the_domain_uses_the_scale_out_tier():
    # 64 H100 = 8 HGX nodes of 8: Part 12 cross-node AllGather, levels overlapped:
    # bytes * max(7/(8*450e9), 7/(8*8*50e9)) = bytes * 2.1875e-12 (the IB level is slower)
    per_byte = max(7 / (8 * 4.5e11), 7 / (8 * 8 * 5e10))
    assert math.isclose(per_byte, 2.1875e-12)
    d = rl.net_critical_d("H100", 64)
    assert math.isclose(d, 2 * 64 * 9.89e14 * per_byte, rel_tol=1e-12)       # 276,920
    t = rl.collective_time("H100", "AllGather", 1e9, 64)
    # alpha: one base latency + 7 NVLink steps + 7 IB steps (NVIDIA/nccl src/graph/tuning.cc,
    # Ring/LL: baseLat 6.6 us, NVLink hwLat 0.6 us, NET 2.7 us)
    assert math.isclose(t, 1e9 * per_byte + 6.6e-6 + 7 * 0.6e-6 + 7 * 2.7e-6, rel_tol=1e-12)
    # within the domain nothing changes: the reference's v5e and v5p numbers
    assert round(rl.net_critical_d("TPU v5e", 2), 1) == 8755.6


def test_a_partial_domain_is_num():
    with pytest.raises(DomainError, match="multiple of scaleup_size"):
        rl.net_critical_d("H100", 12)
    assert udfs.net_critical_d(load_chips(), "H100", 12) == "#NUM!"
    assert udfs.collective_time(load_chips(), "H100", "AllToAll", 1e9, 12) == "#NUM!"


def test_matmul_comms_beyond_the_domain_is_two_level():
    # shard D over 16 H100: AllReduce of the [B, F] partial sums, 2 * bytes * max(...)
    B, D, F = 4096, 65536, 8192
    out_bytes = 2 * B * F
    per_byte = max(7 / (8 * 4.5e11), 1 / (2 * 8 * 5e10))
    # NVIDIA/nccl src/graph/tuning.cc, Ring/LL: baseLat 6.6 us, NVLink hwLat 0.6 us, NET 2.7 us
    alpha = 6.6e-6 + 2 * (7 * 0.6e-6 + 1 * 2.7e-6)
    got = rl.matmul_time("H100", B, D, F, n_chips=16, shard="D", result="comms")
    assert math.isclose(got, 2 * out_bytes * per_byte + alpha, rel_tol=1e-12)


def test_l2_and_egress_tiers():
    # H100 L2 about 5.5 TB/s (book Part 12, chipsandcheese): ridge 9.89e14 / 5.5e12 = 179.8
    assert math.isclose(rl.crit_intensity("H100", "l2"), 9.89e14 / 5.5e12)
    # per-chip scale-up egress, comparable across vendors: TPU v5p 1,200 GB/s bidi (Google)
    # = 6e11 one way vs one ICI link 9e10 (ici_bw); H100 NVLink 4.5e11 both ways of counting
    assert math.isclose(rl.crit_intensity("TPU v5p", "ici_egress"), 4.59e14 / 6e11)
    assert rl.crit_intensity("H100", "ici_egress") == rl.crit_intensity("H100", "ici")
    # no NVLink on an L4: a collective over ici is a missing spec, not a made-up number
    with pytest.raises(rl.MissingSpecError, match="L4 has no ici_bw"):
        rl.collective_time("L4", "AllGather", 1e9, 2)
    # tier dcn: one flat ring over the NICs, whatever the domain (16 H100, 50 GB/s, NCCL
    # Ring/LL: 6.6 us base + 15 steps of 2.7 us)
    t = rl.collective_time("H100", "AllGather", 1e9, 16, "dcn")
    assert math.isclose(t, 15 / 16 * 1e9 / 5e10 + 6.6e-6 + 15 * 2.7e-6)
