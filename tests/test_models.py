"""Whole-model planning (issue 12): the model table, DECODE/PREFILL/TRAIN_TIME, MAX_BATCH.

Every expected number here comes from outside the code: the book (How to Scale
Your Model, Part 12 Q5.2), hand derivations written out below from the models'
published config.json values and datasheet chip numbers, and LLM-Viewer's
output for the same cases (github.com/hahnyuan/LLM-Viewer, commit 472f71f, run
with its own ``model_analyzer.py``, Llama-2-7B config, ``nvidia_A100_80G``).
"""
from __future__ import annotations

import math

import pytest

from rooflinexl import api, udfs
from rooflinexl.errors import ModelTableError, UnknownModelError
from rooflinexl.models import ModelTable, load_models

# Datasheet chips, written here so that later edits of the packaged table do not move
# these hand derivations: H100 SXM dense bf16 989 TFLOP/s, HBM3 3.35 TB/s, NVLink 450 GB/s
# one way, 80 GiB; A100 SXM 80GB: 312 TFLOP/s, 2.039 TB/s (NVIDIA datasheets).
# NVLink is switched (NVSwitch); no latency column: the bandwidth-only bound.
CHIPS = [
    ["chip", "bf16_flops", "fp8_flops", "hbm_bw", "ici_bw", "hbm_bytes", "scaleup_topology"],
    ["H100", 9.89e14, 1.979e15, 3.35e12, 4.5e11, 85899345920, "switch"],
    ["A100", 3.12e14, None, 2.039e12, 3.0e11, 85899345920, "switch"],
]


def rel(a, b):
    return abs(a - b) / abs(b)


# ------------------------------------------------------------------ the table
def test_packaged_table_has_the_issue_models():
    names = set(load_models().names)
    for m in ("Llama 3.1 8B", "Llama 3.1 70B", "Llama 3.1 405B", "Llama 4 Scout",
              "Llama 4 Maverick", "DeepSeek-V3", "Mixtral 8x7B", "Mixtral 8x22B", "Qwen3 32B",
              "Qwen3 235B-A22B", "gpt-oss-120b", "gpt-oss-20b", "Gemma 3 27B"):
        assert m in names


# expert_params from the published config dimensions: MoE layers x E x matrices
CONFIG_EXPERTS = {
    # model: (MoE layers, E, per-expert parameters from config.json)
    "Mixtral 8x7B": (32, 8, 3 * 4096 * 14336),
    "Mixtral 8x22B": (56, 8, 3 * 6144 * 16384),
    "DeepSeek-V3": (61 - 3, 256, 3 * 7168 * 2048),  # first_k_dense_replace 3
    "Qwen3 235B-A22B": (94, 128, 3 * 4096 * 1536),
    "Llama 4 Scout": (48, 16, 3 * 5120 * 8192),  # interleave_moe_layer_step 1
    "Llama 4 Maverick": (48 // 2, 128, 3 * 5120 * 8192),  # interleave_moe_layer_step 2
    "gpt-oss-120b": (36, 128, 3 * 2880 * 2880 + 3 * 2880),  # weights + biases
    "gpt-oss-20b": (24, 32, 3 * 2880 * 2880 + 3 * 2880),
}


@pytest.mark.parametrize("name", sorted(CONFIG_EXPERTS))
def test_expert_params_equal_the_config_dimensions(name):
    layers, E, per = CONFIG_EXPERTS[name]
    t = load_models()
    assert t.field(name, "expert_params") == layers * E * per
    assert t.field(name, "experts") == E


@pytest.mark.parametrize("name, published", [
    # published active parameters; the table's convention leaves out the input embedding
    # (vocab x d_model), which the publishers count except OpenAI:
    ("gpt-oss-120b", 5.13e9),  # model card: 5.13B active, embedding excluded
    ("gpt-oss-20b", 3.61e9),
    ("Mixtral 8x7B", 12.9e9 - 32000 * 4096),  # 12.9B active includes the 0.13B embedding
    ("DeepSeek-V3", 37e9 - 129280 * 7168),  # 37B activated includes the 0.93B embedding
    ("Qwen3 235B-A22B", 22e9 - 151936 * 4096),
])
def test_active_parameters_match_the_published_counts(name, published):
    assert rel(api.model_spec(name, "active_params"), published) < 0.02


def test_header_units_and_case_are_honoured():
    rows = [["Model", "Params [B]", "LAYERS", "d_model [count]", "n_heads", "kv_heads",
             "head_dim", "vocab [K]"], ["M", 8.03, 32, 4096, 32, 8, 128, 128.256]]
    t = ModelTable.from_rows(rows)
    assert t.field("M", "params") == pytest.approx(8.03e9)
    assert t.field("M", "vocab") == 128256


@pytest.mark.parametrize("header, cell, message", [
    ("params [furlongs]", 1, "column 'params': unknown unit 'furlongs' (allowed for count"),
    ("params [TB/s]", 1, "column 'params': unit 'TB/s' is a B/s unit, but this column is in "
                         "count"),
    ("layers", 1.5, "row 2, column 'layers': 1.5 must be a whole number >= 1"),
    ("layers", "many", "row 2, column 'layers': 'many' is not a number"),
    ("layers", None, "row 2, column 'layers': required value is blank"),
])
def test_bad_tables_name_row_and_column(header, cell, message):
    head = ["model", "params", "layers", "d_model", "n_heads", "kv_heads", "head_dim", "vocab"]
    row = ["M", 8e9, 32, 4096, 32, 8, 128, 128256]
    i = head.index(header.split(" [")[0])
    head[i], row[i] = header, (row[i] if "[" in header else cell)
    with pytest.raises(ModelTableError, match=message.replace("[", r"\[").replace("]", r"\]")
                       .replace("(", r"\(").replace(")", r"\)")):
        ModelTable.from_rows([head, row])


def test_moe_rows_are_validated():
    head = ["model", "params", "layers", "d_model", "n_heads", "kv_heads", "head_dim", "vocab",
            "experts", "active_experts", "expert_params"]
    base = ["M", 46.7e9, 32, 4096, 32, 8, 128, 32000]
    with pytest.raises(ModelTableError, match="row 2, column 'active_experts'.*<= experts"):
        ModelTable.from_rows([head, base + [8, 9, 45e9]])
    with pytest.raises(ModelTableError, match="row 2, column 'expert_params'.*needs"):
        ModelTable.from_rows([head, base + [8, 2, None]])
    with pytest.raises(ModelTableError, match="required column 'vocab' is missing"):
        ModelTable.from_rows([head[:7], base[:7]])
    with pytest.raises(ModelTableError, match="'m' is already the name or an alias of 'M'"):
        ModelTable.from_rows([head[:8] + ["aliases"], base + ["x"], ["N"] + base[1:] + ["m"]])


# ------------------------------------------------------- hand derivations: dense
# Llama 3.1 8B (config.json: 32 layers, d_model 4096, 32 heads, 8 KV heads, head_dim 128,
# vocab 128256, untied; 8.03e9 parameters) on one H100, bf16.
#   input embedding  128256 x 4096                 =    525,336,576 (a lookup: not read)
#   weights read     8.03e9 - 525,336,576          =  7,504,663,424 parameters
#   KV per token     2 x 32 x 8 x 128              =         65,536 values = 131,072 B
#   batch 1, context 4096:
#     bytes  2 x 7,504,663,424 + 4096 x 131,072    = 15,546,197,760 B -> / 3.35e12 = 4.6407 ms
#     FLOPs  2 x 7,504,663,424 + 4 x 32 x 4096 x 32 x 128
#                                                  = 17,156,810,496   -> / 9.89e14 = 17.35 us
#   batch 64: bytes 15,009,326,848 + 64 x 536,870,912 = 49,369,065,216 -> 14.737 ms
#             FLOPs 64 x 17,156,810,496 = 1.0980e12 -> 1.1102 ms (still memory-bound)
def test_llama31_8b_decode_on_one_h100_by_hand():
    t = api.decode_time("H100", "Llama 3.1 8B", 4096, chips=CHIPS, result="time")
    assert t == pytest.approx(15_546_197_760 / 3.35e12, rel=1e-9)
    assert api.decode_time("H100", "Llama 3.1 8B", 4096, chips=CHIPS, result="math") == \
        pytest.approx(17_156_810_496 / 9.89e14, rel=1e-9)
    assert api.decode_time("H100", "Llama 3.1 8B", 4096, chips=CHIPS,
                           result="bound") == "memory"
    t64 = api.decode_time("H100", "Llama 3.1 8B", 4096, 64, chips=CHIPS)
    assert t64 == pytest.approx(49_369_065_216 / 3.35e12, rel=1e-9)
    assert api.decode_time("H100", "Llama 3.1 8B", 4096, 64, chips=CHIPS, result="flops") == \
        pytest.approx(64 * 17_156_810_496, rel=1e-9)
    # efficiency: mbu 0.8 stretches the memory term by 1 / 0.8
    assert api.decode_time("H100", "Llama 3.1 8B", 4096, mbu=0.8, chips=CHIPS) == \
        pytest.approx(15_546_197_760 / (0.8 * 3.35e12), rel=1e-9)


# Llama 3.1 70B (config.json: 80 layers, d_model 8192, 8 KV heads, head_dim 128, vocab 128256;
# 70.6e9 parameters) decoding on 8 H100 of one HGX node, tensor parallel, batch 1, context 1024,
# with the PACKAGED chip table (its latency columns are what this checks):
#   weights read  70.6e9 - 128256 x 8192 = 69,549,326,848 -> x 2 B
#   KV cache      80 x 2 x 8 x 128 x 1024 x 2 B = 335,544,320
#   per chip      (139,098,653,696 + 335,544,320) / 8 = 17,429,274,752 B / 3.35e12 = 5.20277 ms
#   communication 2 AllReduces per layer x 80 = 160 of 8192 x 2 = 16,384 B, each NCCL's small-
#     message ring latency (NVIDIA/nccl src/graph/tuning.cc, Ring/LL: baseLat 6.6 us + 14 steps
#     of 0.6 us over NVLink = 15.0 us) + 2 x 7/8 x 16,384 / 4.5e11 = 0.0637 us -> 2.41019 ms
#   decode step   5.20277 + 2.41019 = 7.61296 ms (FLOPs 1.4e11 / 8 / 9.89e14 = 0.018 ms: hidden)
# GenZ gives 7.8 ms for this case (issue 12); its AllReduce charges 5 us + 2(n-1) x 1 us = 19 us
# (GenZ/collective_times.py get_AR_time, ICN_LL default 1 us), 4 us more than NCCL's 15.0 us,
# x 160 = 0.64 ms; its 3.4 TB/s HBM (Systems/system_configs.py H100_GPU) against the datasheet's
# 3.35 makes the memory term 1.5 % shorter. With the old Ring/Simple latency (14 x 3.4 us) the
# step was 12.8 ms.
def test_llama31_70b_decode_on_8_h100_charges_nccls_small_message_latency():
    comms = api.decode_time("H100", "Llama 3.1 70B", 1024, 1, 8, result="comms")
    assert comms == pytest.approx(160 * (6.6e-6 + 14 * 0.6e-6 + 2 * 7 / 8 * 16384 / 4.5e11),
                                  rel=1e-9)
    t = api.decode_time("H100", "Llama 3.1 70B", 1024, 1, 8)
    assert t == pytest.approx(17_429_274_752 / 3.35e12 + comms, rel=1e-9)
    assert t == pytest.approx(7.61296e-3, rel=1e-5)
    assert rel(t, 7.8e-3) < 0.03          # GenZ's 7.8 ms, the differences explained above


# ----------------------------------------------------- hand derivations: MoE
# Mixtral 8x7B (config.json: 32 layers, d_model 4096, 32 heads, 8 KV heads, head_dim 128,
# vocab 32000, 8 experts, 2 per token, d_ff 14336; 46.7e9 parameters) on 2 H100 (tensor
# parallel), bf16, context 4096.
#   routed experts   32 x 8 x 3 x 4096 x 14336     = 45,097,156,608
#   non-expert read  46.7e9 - 32000 x 4096 - 45,097,156,608 = 1,471,771,392
#   batch 1: 2 of 8 experts   read = 1,471,771,392 + 45,097,156,608 / 4 = 12,746,060,544
#     bytes 2 x 12,746,060,544 + 4096 x 65,536 x 2 = 26,028,992,000 -> per chip 13,014,496,000
#     T_hbm = 13,014,496,000 / 3.35e12 = 3.88493 ms
#     communication per layer (switched NVLink, no latency): one AllReduce of the attention
#     output, 1 x 4096 x 2 = 8192 B over 2 chips: 2 x (1/2) x 8192 / 4.5e11 = 18.204 ns;
#     two AllToAlls (expert dispatch and combine) of 1 x 2 x 4096 x 2 = 16384 B:
#     (2-1)/2^2 x 16384 / 4.5e11 = 9.102 ns each; x 32 layers = 1.1651 us  -> 3.88610 ms
#   batch 64: 1 - 0.75^64 = 1 - 1.0045e-8 of the experts: essentially all of them
#     bytes 2 x (1,471,771,392 + 45,097,156,608 x (1 - 0.75^64)) + 64 x 536,870,912
#       = 127,497,593,462 -> per chip 63,748,796,731 -> 19.0295 ms
#     communication: 32 x (524,288 / 4.5e11 + 2 x 1/4 x 1,048,576 / 4.5e11) = 74.565 us
#                                                                      -> 19.1041 ms
#   Reading only the active experts at batch 64 would give 2 x 12,746,060,544 + 34,359,738,368
#   = 59,851,859,456 B -> 8.93 ms + 0.07 ms: the 2x optimism the issue reports (8.98 ms).
def test_mixtral_decode_reads_two_experts_at_batch_1_and_all_at_64():
    b1 = api.decode_time("H100", "Mixtral 8x7B", 4096, 1, 2, chips=CHIPS)
    comms1 = 32 * (8192 / 4.5e11 + 2 * 16384 / 4 / 4.5e11)
    assert b1 == pytest.approx(13_014_496_000 / 3.35e12 + comms1, rel=1e-9)
    assert api.decode_time("H100", "Mixtral 8x7B", 4096, 1, 2, chips=CHIPS,
                           result="bytes") == pytest.approx(13_014_496_000, rel=1e-12)
    full = 2 * (1_471_771_392 + 45_097_156_608 * (1 - 0.75 ** 64)) + 64 * 536_870_912
    b64 = api.decode_time("H100", "Mixtral 8x7B", 4096, 64, 2, chips=CHIPS)
    comms64 = 32 * (524_288 / 4.5e11 + 2 * 1_048_576 / 4 / 4.5e11)
    assert b64 == pytest.approx(full / 2 / 3.35e12 + comms64, rel=1e-9)
    assert b64 * 1e3 == pytest.approx(19.104, abs=0.001)
    assert api.decode_time("H100", "Mixtral 8x7B", 4096, 64, 2, chips=CHIPS,
                           result="comms") == pytest.approx(74.565e-6, rel=1e-4)
    # FLOPs use the active experts only: 64 x (2 x 12,746,060,544 + 4 x 32 x 4096 x 32 x 128)
    assert api.decode_time("H100", "Mixtral 8x7B", 4096, 64, 2, chips=CHIPS, result="flops") \
        == pytest.approx(64 * (2 * 12_746_060_544 + 2_147_483_648) / 2, rel=1e-9)


def test_deepseek_v3_on_8_h200_reads_the_experts_and_the_mla_cache():
    # The issue's figure: about 18 ms of HBM time per step at batch 128 (1.92 ms shown
    # before). By hand: 1 - (1 - 8/256)^128 = 0.982849 of the routed experts are touched;
    # non-expert weights 671e9 - 129280 x 7168 - 653,908,770,816 = 16,164,550,144;
    # read 16,164,550,144 + 0.982849 x 653,908,770,816 (fp8, 1 B each) + KV 128 x 4096 x
    # 61 x 576 x 2 B = 36,843,159,552 -> over 8 chips at 4.8e12 B/s: 18.12 ms
    frac = 1 - (1 - 8 / 256) ** 128
    nbytes = 16_164_550_144 + frac * 653_908_770_816 + 128 * 4096 * 61 * 576 * 2
    chips = [["chip", "bf16_flops", "fp8_flops", "hbm_bw", "ici_bw", "scaleup_topology"],
             ["H200", 9.89e14, 1.979e15, 4.8e12, 4.5e11, "switch"]]
    t = api.decode_time("H200", "DeepSeek-V3", 4096, 128, 8, "fp8", "fp8", "bf16", chips=chips,
                        result="hbm")
    assert t == pytest.approx(nbytes / 8 / 4.8e12, rel=1e-9)
    assert 18.0e-3 < t < 18.3e-3
    # KV: 61 x (512 + 64) values per token, bf16 (DeepSeek-V3 config: kv_lora_rank 512,
    # qk_rope_head_dim 64)
    assert api.model_spec("DeepSeek-V3", "kv_per_token") == 61 * 576


# ------------------------------------------------------------------- prefill
# Llama 3.1 8B, 8192-token prompt, one H100, bf16:
#   FLOPs 2 x (7,504,663,424 - 525,336,576) x 8192   (all but the output projection)
#       + 2 x 525,336,576                             (output projection, last token only)
#       + 2 x 32 x 8192^2 x 32 x 128                  (causal attention, 2 x 2 x T^2/2 n_h H L)
#       = 114,349,291,077,632 + 1,050,673,152 + 17,592,186,044,416 = 131,942,527,795,200
#   -> / 9.89e14 = 133.41 ms; bytes 2 x 7,504,663,424 + 8192 x 131,072 = 16.083e9 -> 4.8 ms
def test_prefill_counts_causal_attention_and_the_last_token_projection():
    flops = 131_942_527_795_200
    assert api.prefill_time("H100", "Llama 3.1 8B", 8192, chips=CHIPS, result="flops") == \
        pytest.approx(flops, rel=1e-12)
    assert api.prefill_time("H100", "Llama 3.1 8B", 8192, chips=CHIPS) == \
        pytest.approx(flops / 9.89e14, rel=1e-9)
    assert api.prefill_time("H100", "Llama 3.1 8B", 8192, chips=CHIPS,
                            result="bound") == "compute"


# ------------------------------------------------------------------- training
def test_book_part12_q5_2_llama3_70b_15t_tokens_4096_h100_45pct_is_40_days():
    # Book: 6 x 70e9 x 15e12 = 6.3e24 FLOPs; 4096 x 990e12 x 0.45 = 1.8e18 FLOP/s;
    # 3.5e6 s, "or 40 days". With the packaged table (989 TFLOP/s, 70.6e9 parameters of
    # which 1.05e9 input embedding):
    days = api.train_time("H100", "Llama 3.1 70B", 15e12, 4096, 0.45) / 86400
    assert days == pytest.approx(40, abs=1)
    # and exactly the book's numbers with a 70e9-active model on a 990 TFLOP/s chip
    chips = [["chip", "bf16_flops", "hbm_bw"], ["H100", 990e12, 3.35e12]]
    models = [["model", "params", "layers", "d_model", "n_heads", "kv_heads", "head_dim",
               "vocab", "tied_embeddings"], ["L", 70e9, 80, 8192, 64, 8, 128, 1, 1]]
    s = api.train_time("H100", "L", 15e12, 4096, 0.45, chips=chips, models=models)
    assert s == pytest.approx(6 * 70e9 * 15e12 / (4096 * 990e12 * 0.45), rel=1e-12)
    assert s == pytest.approx(3.5e6, rel=0.02)


def test_training_attention_flops_with_seq_len():
    # 6 L S n_h H per token: Llama 3.1 8B at S = 8192: 6 x 32 x 8192 x 32 x 128 = 6.44e9
    base = api.train_time("H100", "Llama 3.1 8B", 1e12, 8, chips=CHIPS)
    more = api.train_time("H100", "Llama 3.1 8B", 1e12, 8, seq_len=8192, chips=CHIPS)
    assert (more - base) == pytest.approx(6 * 32 * 8192 * 32 * 128 * 1e12 / (8 * 9.89e14),
                                          rel=1e-9)


# ----------------------------------------------------------------- max batch
def test_max_batch_by_hand():
    # Llama 3.1 70B bf16 on 4 H100 (4 x 80 GiB = 343,597,383,680 B): weights 2 x 70.6e9 =
    # 141.2e9; KV per 8192-token sequence 8192 x 2 x 80 x 8 x 128 x 2 = 2,684,354,560 B:
    # floor((343,597,383,680 - 141.2e9) / 2,684,354,560) = floor(75.4) = 75
    assert api.max_batch("H100", "Llama 3.1 70B", 8192, 4, chips=CHIPS) == 75
    assert api.max_batch("H100", "Llama 3.1 70B", 8192, 1, chips=CHIPS) == 0  # does not fit


# ------------------------------------------------- peer: LLM-Viewer, same cases
# LLM-Viewer (hahnyuan/LLM-Viewer @472f71f), model_analyzer.ModelAnalyzer.analyze on the
# Llama-2-7b-hf config (hidden 4096, 32 heads, 32 KV heads, 32 layers, intermediate 11008,
# vocab 32000), hardware "nvidia_A100_80G" (2.039e12 B/s, 312e12 FLOP/s), w/a/kv 16 bit,
# no flash attention. Its totals (seconds):
LLM_VIEWER = {
    # (batch, seqlen): (decode time, prefill time)
    (1, 1024): (6.752276e-03, 4.882534e-02),
    (16, 1024): (1.082534e-02, 7.792764e-01),
    (64, 2048): (4.097370e-02, 6.772552e+00),
}
LLAMA2_7B = [["model", "params", "layers", "d_model", "n_heads", "kv_heads", "head_dim", "vocab",
              "d_ff"], ["Llama-2-7B", 6_738_415_616, 32, 4096, 32, 32, 128, 32000, 11008]]


@pytest.mark.parametrize("batch, seq", sorted(LLM_VIEWER))
def test_decode_matches_llm_viewer_within_2_percent(batch, seq):
    # Decode: both read the same weights (LLM-Viewer 13,214,154,752 B of linear layers and
    # lm_head; ours 2 x (6,738,415,616 - 32000 x 4096) = 13,214,687,232 B, the 266k norm
    # weights more) and the same KV cache (batch x seq x 262,144 B). LLM-Viewer also counts
    # activation loads and stores (1.6e7 B at batch 1, 2.6e8 at 16, 1.6e9 at 64/2048) and
    # sums per-operator rooflines instead of one whole-step max; both make it slower by
    # 0.1 %, 1.2 % and 1.9 %: every difference is under 2 %.
    ours = api.decode_time("A100", "Llama-2-7B", seq, batch, chips=CHIPS, models=LLAMA2_7B)
    assert rel(ours, LLM_VIEWER[batch, seq][0]) < 0.02
    assert ours < LLM_VIEWER[batch, seq][0]


def test_prefill_differs_from_llm_viewer_by_exactly_its_extra_operators():
    # Prefill, batch 1, 1024 tokens: LLM-Viewer 48.825 ms, ours 43.393 ms (-11 %). Its
    # per-operator breakdown (per layer, x 32 layers):
    #   q/k/v/o/gate/up/down projections, compute-bound: 1.32840e-3 s -> 42.509 ms (ours the
    #     same FLOPs: 2 x 6,476,271,616 x 1024 / 312e12 = 42.509 ms);
    #   qk_matmul + sv_matmul + softmax: 1.48107e-4 s -> 4.739 ms. It attends to all
    #     1024 x 1024 pairs (no causal half) and, without flash attention, writes and
    #     reads the 32 x 1024 x 1024 score matrix per layer, so these are memory-bound;
    #     ours counts causal attention as FLOPs only: 2 x 32 x 1024^2 x 32 x 128 / 312e12
    #     = 0.881 ms;
    #   norms, residual adds, SiLU (memory-bound elementwise): 4.5255e-5 s -> 1.448 ms,
    #     which ours leaves out (activations are not in the model);
    #   lm_head: 0.1286 ms reading its 262 MB weight on its own; ours overlaps that read
    #     with the compute (one max for the whole step) and adds 2 x 131e6 FLOPs = 0.84 us.
    # 42.509 + 4.739 + 1.448 + 0.129 = 48.825 ms (LLM-Viewer); 42.509 + 0.881 + 0.001 =
    # 43.391 ms (ours): the 5.43 ms difference is those three items.
    ours = api.prefill_time("A100", "Llama-2-7B", 1024, 1, chips=CHIPS, models=LLAMA2_7B)
    theirs = LLM_VIEWER[1, 1024][1]
    explained = (4.739e-3 - 0.881e-3) + 1.448e-3 + 0.1286e-3
    assert ours == pytest.approx(theirs - explained, rel=2e-3)


# --------------------------------------------------------------- Excel edge
MODELS = load_models().to_rows()
CHIP_ROWS = CHIPS


def test_excel_functions_follow_the_error_policy():
    got = udfs.DECODE_TIME(CHIP_ROWS, "H100", MODELS, ["Llama 3.1 8B", "Llama 9"], 4096)
    assert got[0] == pytest.approx(15_546_197_760 / 3.35e12)
    assert got[1] == "#N/A" and "unknown model 'Llama 9'" in got[1].reason
    spec = udfs.MODEL_SPEC(MODELS, "Qwen3 32B", [["experts"], ["layers"]])
    assert spec[0][0] == "#N/A" and spec[0][0].reason == "Qwen3 32B has no experts"
    assert spec[1][0] == 64
    # blank optional arguments are the defaults; a bad keyword is a bad call
    assert udfs.DECODE_TIME(CHIP_ROWS, "H100", MODELS, "Llama 3.1 8B", 4096, None, "", None) == \
        pytest.approx(15_546_197_760 / 3.35e12)
    with pytest.raises(udfs.RooflineInputError, match="result 'speed'"):
        udfs.DECODE_TIME(CHIP_ROWS, "H100", MODELS, "Llama 3.1 8B", 4096, result="speed")
    bad = list(MODELS[1])
    bad[MODELS[0].index("params")] = -1
    with pytest.raises(udfs.RooflineInputError,
                       match="models: model table row 2, column 'params': -1 must be"):
        udfs.DECODE_TIME(CHIP_ROWS, "H100", [MODELS[0], bad], "Llama 3.1 8B", 1)
    assert udfs.TRAIN_TIME(CHIP_ROWS, "H100", MODELS, "Llama 3.1 8B", 1e12, 0) == "#NUM!"
    assert udfs.MAX_BATCH(CHIP_ROWS, "H100", MODELS, "Llama 3.1 70B", 8192, 4) == 75


def test_unknown_model_in_python_raises():
    with pytest.raises(UnknownModelError, match="unknown model 'GPT-5'"):
        api.decode_time("H100", "GPT-5", 1024)


def test_recalc_evaluates_the_model_functions_in_a_workbook(tmp_path):
    """A workbook of our own: Chips and Models sheets, formulas over the new functions."""
    from openpyxl import Workbook
    from openpyxl.workbook.defined_name import DefinedName

    from rooflinexl.recalc import evaluate_workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Plan"
    c = wb.create_sheet("Chips")
    for r in CHIPS:
        c.append(r)
    m = wb.create_sheet("Models")
    for r in LLAMA2_7B + [["Mixtral", 46.7e9, 32, 4096, 32, 8, 128, 32000, 14336]]:
        m.append(r)
    m["J1"], m["K1"], m["L1"] = "experts", "active_experts", "expert_params"
    m["J3"], m["K3"], m["L3"] = 8, 2, 45_097_156_608
    wb.defined_names["Chips"] = DefinedName("Chips", attr_text="Chips!$A$1:$G$3")
    wb.defined_names["Models"] = DefinedName("Models", attr_text="Models!$A$1:$L$3")
    ws["A1"] = '=DECODE_TIME(Chips,"A100",Models,"Llama-2-7B",1024)'
    ws["A2"] = '=DECODE_TIME(Chips,"H100",Models,"Mixtral",4096,64,2)'
    ws["A3"] = '=PREFILL_TIME(Chips,"A100",Models,"Llama-2-7B",1024,,,,,,,,"flops")'
    ws["A4"] = '=TRAIN_TIME(Chips,"H100",Models,"Llama-2-7B",2E+12,1024,0.5)'
    ws["A5"] = '=MODEL_SPEC(Models,"Mixtral","active_params")'
    path = tmp_path / "mine.xlsx"
    wb.save(path)
    ev = evaluate_workbook(path, udfs.FUNCTIONS)
    # Llama-2-7B decode, batch 1, 1024 tokens, A100: (13,214,687,232 + 1024 x 262,144 x 2)
    # / 2.039e12
    assert ev.value("Plan", "A1") == pytest.approx((13_214_687_232 + 536_870_912) / 2.039e12)
    assert ev.value("Plan", "A2") * 1e3 == pytest.approx(19.104, abs=0.001)
    # 2 x (6,738,415,616 - 131,072,000 - 131,072,000) x 1024 + 2 x 131,072,000
    # + 2 x 32 x 1024^2 x 32 x 128
    assert ev.value("Plan", "A3") == pytest.approx(
        2 * 6_476_271_616 * 1024 + 2 * 131_072_000 + 2 * 32 * 1024 ** 2 * 32 * 128)
    assert ev.value("Plan", "A4") == pytest.approx(
        6 * (6_738_415_616 - 131_072_000) * 2e12 / (1024 * 9.89e14 * 0.5))
    assert math.isclose(ev.value("Plan", "A5"), 12_746_060_544, rel_tol=1e-12)


def test_a_range_of_batches_for_one_moe_model_broadcasts():
    # one model, a row of batches: each element its own touched-expert fraction
    got = api.decode_time("H100", "Mixtral 8x7B", 4096, [1, 64], 2, chips=CHIPS, result="bytes")
    assert got[0] == pytest.approx(13_014_496_000, rel=1e-12)
    full = 2 * (1_471_771_392 + 45_097_156_608 * (1 - 0.75 ** 64)) + 64 * 536_870_912
    assert got[1] == pytest.approx(full / 2, rel=1e-12)


def test_batch_tables_evaluate_the_model_ops():
    import pandas as pd

    from rooflinexl import batch

    df = pd.DataFrame({
        "op": ["decode", "decode", "prefill", "train", "decode"],
        "chip": ["H100", "H100", "H100", "H100", "H100"],
        "model": ["Llama 3.1 8B", "Mixtral 8x7B", "Llama 3.1 8B", "Llama 3.1 70B", "GPT-9"],
        "context": [4096, 4096, None, None, 10], "prompt": [None, None, 8192, None, None],
        "batch": [64, 64, None, None, 1], "n_chips": [None, 2, None, 4096, None],
        "tokens": [None, None, None, 15e12, None], "mfu": [None, None, None, 0.45, None]})
    out = batch.evaluate(df, CHIPS)
    assert out.loc[0, "time"] == pytest.approx(49_369_065_216 / 3.35e12, rel=1e-9)
    assert out.loc[0, "tokens_per_s"] == pytest.approx(64 / (49_369_065_216 / 3.35e12))
    assert out.loc[1, "time"] * 1e3 == pytest.approx(19.104, abs=0.001)
    assert out.loc[2, "time"] == pytest.approx(131_942_527_795_200 / 9.89e14, rel=1e-9)
    assert out.loc[2, "bound"] == "compute"
    assert out.loc[3, "time"] == pytest.approx(
        6 * (70.6e9 - 128256 * 8192) * 15e12 / (4096 * 9.89e14 * 0.45), rel=1e-12)
    assert out.loc[4, "error"].startswith("#N/A: unknown model 'GPT-9'")
    assert out["error"][:4].isna().all()


def test_cli_lists_the_model_table():
    from click.testing import CliRunner

    from rooflinexl.cli import main

    out = CliRunner().invoke(main, ["models"])
    assert out.exit_code == 0, out.output
    assert "DeepSeek-V3" in out.output and "active_params" in out.output
    rows = CliRunner().invoke(main, ["models", "--csv"]).output.strip().splitlines()
    assert len(rows) == 1 + len(load_models())
