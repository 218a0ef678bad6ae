"""The reference's worked numbers, reproduced by the Python API from the packaged chip table.

Every expected value below is taken from the reference article
(../shared/reference/000_9409a66f59c20631.txt, section in each comment) or derived
by hand in the comment; none is copied from the code's output.
"""
import math

import pytest

import rooflinexl as rl


def close(x, expected, rel):
    return math.isclose(x, expected, rel_tol=rel)


@pytest.mark.parametrize("tier, expected", [
    ("hbm", 295),        # §2/§13: 9.89e14 / 3.35e12 = 295.2 ("H100 约 295")
    ("nvlink", 2198),    # §13: 9.89e14 / 4.5e11 = 2197.8 ("NVLink 约 2,200")
    ("nic", 19780),      # §13: 9.89e14 / 5e10 = 19780 ("IB 约 2 万")
])
def test_h100_critical_intensity_per_tier(tier, expected):
    assert round(rl.crit_intensity("H100", tier)) == expected


def test_v5e_critical_intensity_bf16_and_int8():
    # §5 量化: v5e int8 peak 3.94e14 over 8.2e11 B/s = 480.5 ("临界强度 480"); bf16 1.97e14 -> 240.2
    assert close(rl.crit_intensity("TPU v5e", dtype="int8"), 3.94e14 / 8.2e11, 1e-12)
    assert round(rl.crit_intensity("TPU v5e")) == 240


@pytest.mark.parametrize("d, expected", [(1024, 697.28), (4096, 344.95), (8192, 318.16)])
def test_h100_exact_critical_batch(d, expected):
    # §5 精确的临界值: D = F = 1024 -> B >= 698, 4096 -> 345, 8192 -> 319.
    # Hand: I = 989/3.35 = 295.224; B* = 2 / (2/I - 4/d); d = 8192 -> 2/(0.0067745 - 0.00048828)
    b = rl.crit_batch("H100", d, d)
    assert abs(b - expected) < 0.01
    assert math.ceil(b) == {1024: 698, 4096: 345, 8192: 319}[d]


def test_v5e_int8_matmul_critical_batch():
    # §5: int8 [B,4096]x[4096,16384] on v5e (int8 peak 3.94e14): "B > 259".
    # Hand: I = 480.49; B* = 1 / (2/480.49 - 1/16384 - 1/4096) = 259.3
    assert abs(rl.crit_batch("TPU v5e", 4096, 16384, dtype="int8") - 259.3) < 0.05


def test_v5e_int8_weights_bf16_compute():
    # §5: int8 weights + bf16 compute: B > 120 (I = 240.24, w = 1 -> B* = I/2 = 120.1)
    assert abs(rl.crit_batch("TPU v5e", weight_dtype="int8") - 120.12) < 0.01


def test_v5e_vmem_critical_batch_about_eleven():
    # §8: weights from VMEM at 22x HBM bandwidth: "只需 B > 11"
    b = rl.crit_batch("TPU v5e", 4096, 16384, dtype="int8", tier="vmem")
    assert 10.5 < b < 11.5


def test_deepseek_v3_moe_min_batch_on_v5e():
    # §5 MoE: B > I·E·w/(2k) = 240.24 * 256 * 1 / 16 = 3843.9 ("B > 3840" with I = 240)
    assert abs(rl.moe_min_batch("TPU v5e", 256, 8, weight_dtype="int8") - 3843.9) < 0.05


def test_network_critical_d_v5e_two_chips():
    # §7: two v5e, 4.5e10 B/s each way, 1.97e14 FLOP/s: D > 2 * 1.97e14 / 4.5e10 = 8755.6
    assert abs(rl.net_critical_d("TPU v5e", 2) - 8755.6) < 0.05


def test_network_critical_d_grows_with_ring():
    # §7: "D > 2(n-1)·P/W": n = 64 on v5p -> 2 * 63 * 4.59e14 / 9e10
    assert close(rl.net_critical_d("TPU v5p", 64), 2 * 63 * 4.59e14 / 9e10, 1e-12)


def test_fp32_elementwise_add_on_h100():
    # §4: N = 1024^3 -> "roofline 预测约 3.84 ms"; N = 65,536 -> "预测 0.23 μs".
    # bytes 12N over 3.35e12 B/s: 12 * 1073741824 / 3.35e12 = 3.846 ms
    n = 1024 ** 3
    t = rl.roofline_time("H100", n, 12 * n, dtype="fp32")
    assert abs(t * 1e3 - 3.846) < 0.001
    t_small = rl.roofline_time("H100", 65536, 12 * 65536, dtype="fp32")
    assert abs(t_small * 1e6 - 0.2347) < 0.0005
    assert rl.roofline_time("H100", n, 12 * n, dtype="fp32", result="bound") == "memory"


def test_decode_lower_bound_200b_on_32_v4():
    # §5: 200B bf16 params over 32 TPU v4, 12.5 GB each at 1.2e12 B/s: "约 10 ms"
    assert abs(rl.weight_load_time("TPU v4", 200e9, n_chips=32) * 1e3 - 10.417) < 0.001


def test_cost_per_flop_h200_vs_v5p():
    # §12 prices: H200 ~10 USD/h, v5p 4.2 (book Part 8): 10/(3600*9.89e14)*1e18 = 2.81,
    # 4.2/(3600*4.59e14)*1e18 = 2.54 (chip-specs.md §3 derived table)
    assert round(rl.cost_per_flop("H200") * 1e18, 2) == 2.81
    assert round(rl.cost_per_flop("TPU v5p") * 1e18, 2) == 2.54
    assert rl.cost_per_flop("H200") > rl.cost_per_flop("TPU v5p")


def test_attention_intensity_limits():
    # §5: decode (T = 1) -> SG/(G+S) -> G; prefill T = S -> SG/(G+1)
    assert abs(rl.attn_intensity(1, 1e9, 8) - 8) < 1e-6
    assert close(rl.attn_intensity(4096, 4096, 8), 4096 * 8 / 9, 1e-12)


def test_dot_product_and_add_intensity():
    # §4: dot product intensity about 1/2 (N FLOPs... 2N-1 over 4N+2 bytes); add 1/12
    assert abs(rl.arith_intensity(2 * 4096 - 1, 4 * 4096 + 2) - 0.5) < 1e-3
    assert close(rl.arith_intensity(1, 12), 1 / 12, 1e-15)


def test_kv_cache_bytes_llama3_70b():
    # 2 * 80 layers * 8 kv heads * 128 * 8192 tokens * 2 bytes = 2,684,354,560
    assert rl.kv_cache_bytes(80, 8, 128, 8192) == 2_684_354_560


def test_matmul_time_sharding():
    # bf16 [4096, 8192] @ [8192, 8192] on 8 H100 sharded along D:
    # T_math = 2*4096*8192*8192 / (8 * 9.89e14); T_comms = 2*(7/8) * 2*4096*8192 / 4.5e11
    t_math = 2 * 4096 * 8192 * 8192 / (8 * 9.89e14)
    # plus the latency: NCCL's 6.6 us per call + 2(n-1) = 14 ring steps of 0.6 us (Ring/LL,
    # NVIDIA/nccl src/graph/tuning.cc; the table's collective_latency and ici_latency)
    t_comms = 2 * 7 / 8 * 2 * 4096 * 8192 / 4.5e11 + 6.6e-6 + 14 * 0.6e-6
    per_chip = (2 * 4096 * 8192 + 2 * 8192 * 8192) / 8 + 2 * 4096 * 8192
    t_hbm = per_chip / 3.35e12
    got = rl.matmul_time("H100", 4096, 8192, 8192, n_chips=8, shard="D",
                         result=["math", "hbm", "comms", "time", "upper", "bound"])
    assert close(got[0], t_math, 1e-12) and close(got[1], t_hbm, 1e-12)
    assert close(got[2], t_comms, 1e-12)
    assert close(got[3], max(t_math, t_hbm, t_comms), 1e-12)
    assert close(got[4], t_math + t_hbm + t_comms, 1e-12)
    assert got[5] == "network"
    # shard F: no communication, X replicated, W and output split
    per_chip_f = 2 * 4096 * 8192 + (2 * 8192 * 8192 + 2 * 4096 * 8192) / 8
    assert close(rl.matmul_time("H100", 4096, 8192, 8192, n_chips=8, shard="F", result="hbm"),
                 per_chip_f / 3.35e12, 1e-12)
    assert rl.matmul_time("H100", 4096, 8192, 8192, n_chips=8, shard="F", result="comms") == 0


def test_ranges_broadcast_like_excel():
    got = rl.crit_batch(["H100", "TPU v5e"], [[1024], [8192]], [[1024], [8192]])
    assert got.shape == (2, 2)
    assert abs(got[1, 0] - 318.16) < 0.01
