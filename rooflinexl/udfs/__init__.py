"""rooflinexl's Excel functions, one definition for every host.

Classic xlwings (Windows, ``UDF Modules = rooflinexl.udfs``), xlwings Server
(``custom_functions/__init__.py``: ``from rooflinexl.udfs import *``), xlwings
Lite (``main.py``: ``from rooflinexl.udfs import *``) and rooflinexl's own
headless engine all call these functions. Each takes exactly what a host
passes (the chip table as a 2-D list whose first row is the header, scalars,
1-D or 2-D lists, ``None`` for an empty cell) and returns a plain value or a
rectangular list; bad elements become Excel error strings (DESIGN.md section 4).
The Python API with full documentation is :mod:`rooflinexl.api`.

Importing this module needs only numpy and the standard library.
"""
from __future__ import annotations

from rooflinexl import api, api_args
from rooflinexl.udfs._adapt import RooflineInputError, arg, call_api, func
from rooflinexl.udfs._adapt import arg_docs as arg_docs  # for the LibreOffice add-in
from rooflinexl.udfs._adapt import table as table  # the LibreOffice add-in parses its range
from rooflinexl.version import VERSION

__xlwings_func_namespace__ = "ROOFLINE"
#: Function-wizard category in classic Excel (xlwings Server and Lite ignore it).
CATEGORY = "Roofline"

# Only the lower-case functions: ``from rooflinexl.udfs import *`` (xlwings Server's
# custom_functions, xlwings Lite's main.py) must register each function once.
__all__ = [
    "RooflineInputError",
    "arith_intensity",
    "attn_intensity",
    "chip_price",
    "chip_spec",
    "collective_time",
    "cost_per_flop",
    "crit_batch",
    "crit_intensity",
    "decode_time",
    "kv_cache_bytes",
    "matmul_time",
    "max_batch",
    "model_spec",
    "moe_min_batch",
    "net_critical_d",
    "prefill_time",
    "roofline_flops",
    "roofline_time",
    "train_time",
    "version",
    "weight_load_time",
]

# Argument docs for Excel's function wizard (each at most 255 characters).
DOCS = {
    "chips": "Chip table range including its header row (the name Chips in the shipped workbooks).",
    "chip": "Chip name or alias, e.g. \"H100\", \"TPU v5e\"; a range gives one result per chip.",
    "tier": "Bandwidth tier: hbm (default), vmem, l2, ici (nvlink), ici_egress (all links), "
            "dcn (ib, nic), pcie.",
    "dtype": "Compute dtype: bf16 (default), fp16, fp8, int8, int4, fp4, fp32 (vector unit).",
    "weight_dtype": "Weight storage dtype (bytes only); default: dtype.",
    "B": "Tokens (rows of X[B,D]).",
    "D": "Contracting dimension (elements); omit to drop its term.",
    "F": "Output dimension (elements); omit to drop its term.",
    "n_chips": "Number of chips (whole number >= 1); default 1.",
    "shard": "Which dimension is split over the chips: none (default), D (AllReduce of the "
             "partial sums) or F (no communication).",
    "result": "time (default, max of the terms), upper (sum), math, hbm, comms, bound, "
              "intensity.",
    "E": "Number of experts.",
    "k": "Experts per token (1 <= k <= E).",
    "flops": "Floating-point operations (FLOP).",
    "bytes": "Bytes moved over the tier.",
    "intensity": "Arithmetic intensity (FLOP/byte).",
    "T": "Query length (tokens).",
    "S": "Key/value length (tokens).",
    "G": "Query heads per KV head.",
    "kind": "AllGather, ReduceScatter, AllReduce or AllToAll.",
    "coll_bytes": "Bytes of the full array.",
    "n_params": "Number of parameters.",
    "layers": "Transformer layers.",
    "kv_heads": "KV heads (not query heads).",
    "head_dim": "Head dimension.",
    "tokens": "Cached tokens per sequence.",
    "batch": "Sequences; default 1.",
    "mfu": "Fraction of peak achieved, in (0, 1]; default 1.",
    "price": "Your quote in USD per chip-hour; blank: the list price (CHIP_PRICE or the Chips "
             "sheet's price_per_hour).",
    "prices": "Price table range including its header row (the name Prices in the shipped "
              "templates).",
    "provider": "Provider of the price table, e.g. \"Google Cloud\", \"AWS\"; blank: the "
                "Chips sheet's price_per_hour.",
    "pricing": "on-demand (default), spot, capacity-block, 1-year or 3-year.",
    "price_result": "price (default, USD per chip-hour), date or source.",
    "field": "Column of the chip table, e.g. hbm_bw, bf16_flops, price_per_hour, source.",
    "models": "Model table range including its header row (the name Models in the shipped "
              "workbooks).",
    "model": "Model name or alias, e.g. \"Llama 3.1 70B\", \"DeepSeek-V3\"; a range gives one "
             "result per model.",
    "model_field": "Column of the model table (params, layers, experts, source, ...) or "
                   "active_params, kv_per_token.",
    "context": "Tokens cached per sequence (prompt + tokens generated so far).",
    "prompt": "Prompt tokens per sequence.",
    "kv_dtype": "KV-cache storage dtype; default: dtype.",
    "mbu": "Fraction of HBM bandwidth achieved, in (0, 1]; default 1.",
    "model_result": "time (default), upper, math, hbm, comms, bound, flops or bytes (per chip "
                    "per step), weights or kv (bytes held per chip).",
    "train_tokens": "Training tokens.",
    "seq_len": "Sequence length; adds causal attention FLOPs (omit: 6ND only).",
    "n_chips_req": "Number of chips (whole number >= 1).",
    "max_context": "Tokens per sequence at its longest (prompt + output).",
    "usable": "Share of HBM for weights and KV cache, in (0, 1]; default 1.",
    "kv_dtype_w": "KV-cache storage dtype; default: weight_dtype.",
    "weight_dtype_hbm": "Weight storage dtype; default bf16.",
}


def _described(fn, **docs):
    """Stack ``@arg(name, doc=...)`` decorators over ``fn``'s arguments (every one a 2-D range).

    The names come from the one description of ``fn``'s arguments
    (:func:`rooflinexl.api_args.arguments`); ``docs`` picks another :data:`DOCS`
    entry for an argument whose meaning differs here (``bytes="coll_bytes"``).
    """
    def deco(f):
        for a in reversed(api_args.arguments(fn)):
            f = arg(a.name, ndim=2, doc=DOCS[docs.get(a.name, a.name)])(f)
        return f
    return deco


@func(category=CATEGORY)
def version():
    """rooflinexl version this workbook talks to, e.g. 0.1.0."""
    return VERSION


@func(category=CATEGORY)
@_described(api.arith_intensity)
def arith_intensity(flops, bytes):
    """Arithmetic intensity in FLOP/byte: flops / bytes (reference section 2)."""
    return call_api(api.arith_intensity, locals())


@func(category=CATEGORY)
@_described(api.crit_intensity)
def crit_intensity(chips, chip, tier=None, dtype=None):
    """Critical intensity (ridge point) in FLOP/byte: peak(dtype) / bandwidth(tier)."""
    return call_api(api.crit_intensity, locals())


@func(category=CATEGORY)
@_described(api.crit_batch)
def crit_batch(chips, chip, D=None, F=None, dtype=None, weight_dtype=None, tier=None):
    """Critical token batch of X[B,D]·W[D,F]: B* = w / (2/I − a/F − a/D), I = peak/bandwidth."""
    return call_api(api.crit_batch, locals())


@func(category=CATEGORY)
@_described(api.matmul_time)
def matmul_time(chips, chip, B, D, F, dtype=None, weight_dtype=None, n_chips=None, shard=None,
                result=None):
    """Roofline time in seconds of X[B,D]·W[D,F] on n chips: max(T_math, T_hbm, T_comms)."""
    return call_api(api.matmul_time, locals())


@func(category=CATEGORY)
@_described(api.moe_min_batch)
def moe_min_batch(chips, chip, E, k, dtype=None, weight_dtype=None, tier=None):
    """Minimum tokens per step for every MoE expert to be compute-bound: I·E·w / (2k)."""
    return call_api(api.moe_min_batch, locals())


@func(category=CATEGORY)
@_described(api.net_critical_d)
def net_critical_d(chips, chip, n_chips, dtype=None, tier=None):
    """Contracting dimension D above which a D-sharded matmul on n chips is compute-bound."""
    return call_api(api.net_critical_d, locals())


@func(category=CATEGORY)
@_described(api.roofline_flops)
def roofline_flops(chips, chip, intensity, tier=None, dtype=None):
    """Attainable FLOP/s at an arithmetic intensity: min(peak, intensity · bandwidth)."""
    return call_api(api.roofline_flops, locals())


@func(category=CATEGORY)
@_described(api.roofline_time)
def roofline_time(chips, chip, flops, bytes, tier=None, dtype=None, result=None):
    """Roofline time in seconds: max(flops / peak, bytes / bandwidth)."""
    return call_api(api.roofline_time, locals())


@func(category=CATEGORY)
@_described(api.attn_intensity)
def attn_intensity(T, S, G):
    """Arithmetic intensity of GQA attention in FLOP/byte: T·S·G / (T·G + S)."""
    return call_api(api.attn_intensity, locals())


@func(category=CATEGORY)
@_described(api.collective_time, bytes="coll_bytes")
def collective_time(chips, chip, kind, bytes, n_chips, tier=None):
    """Collective time in seconds: α·steps + bytes/bw ring model, two-level beyond scaleup_size."""
    return call_api(api.collective_time, locals())


@func(category=CATEGORY)
@_described(api.weight_load_time)
def weight_load_time(chips, chip, n_params, dtype=None, n_chips=None):
    """Seconds to read all weights from HBM once: n_params · bytes / (n_chips · hbm_bw)."""
    return call_api(api.weight_load_time, locals())


@func(category=CATEGORY)
@_described(api.kv_cache_bytes)
def kv_cache_bytes(layers, kv_heads, head_dim, tokens, batch=None, dtype=None):
    """KV-cache bytes: 2 · layers · kv_heads · head_dim · tokens · batch · bytes(dtype)."""
    return call_api(api.kv_cache_bytes, locals())


@func(category=CATEGORY)
@_described(api.cost_per_flop)
def cost_per_flop(chips, chip, dtype=None, mfu=None, price=None):
    """USD per FLOP: price / (3600 · peak · mfu); price = your quote, else the list price."""
    return call_api(api.cost_per_flop, locals())


@func(category=CATEGORY)
@_described(api.chip_price, result="price_result")
def chip_price(chips, chip, prices, provider=None, pricing=None, result=None):
    """USD per chip-hour: a provider's latest dated price, CHIP_PRICE(Chips,"H100",Prices,"AWS")."""
    return call_api(api.chip_price, locals(), single=("provider", "pricing", "result"))


@func(category=CATEGORY)
@_described(api.chip_spec)
def chip_spec(chips, chip, field):
    """One field of one chip's row, e.g. CHIP_SPEC(Chips, "H200", "hbm_bw")."""
    return call_api(api.chip_spec, locals())


@func(category=CATEGORY)
@_described(api.model_spec, field="model_field")
def model_spec(models, model, field):
    """One field of one model's row, e.g. MODEL_SPEC(Models, "DeepSeek-V3", "experts")."""
    return call_api(api.model_spec, locals())


@func(category=CATEGORY)
@_described(api.decode_time, result="model_result")
def decode_time(chips, chip, models, model, context, batch=None, n_chips=None, dtype=None,
                weight_dtype=None, kv_dtype=None, mbu=None, mfu=None, result=None):
    """Seconds per decode step of a whole model: max(FLOPs/peak, bytes/HBM) + TP AllReduces."""
    return call_api(api.decode_time, locals())


@func(category=CATEGORY)
@_described(api.prefill_time, result="model_result")
def prefill_time(chips, chip, models, model, prompt, batch=None, n_chips=None, dtype=None,
                 weight_dtype=None, kv_dtype=None, mbu=None, mfu=None, result=None):
    """Seconds to prefill a prompt (time to first token), causal attention included."""
    return call_api(api.prefill_time, locals())


@func(category=CATEGORY)
@_described(api.train_time, tokens="train_tokens", n_chips="n_chips_req")
def train_time(chips, chip, models, model, tokens, n_chips, mfu=None, dtype=None, seq_len=None):
    """Seconds to train on tokens: 6·N·D (+ attention with seq_len) / (n_chips·peak·mfu)."""
    return call_api(api.train_time, locals())


@func(category=CATEGORY)
@_described(api.max_batch, context="max_context", weight_dtype="weight_dtype_hbm",
            kv_dtype="kv_dtype_w")
def max_batch(chips, chip, models, model, context, n_chips=None, weight_dtype=None,
              kv_dtype=None, usable=None):
    """Largest batch whose weights + KV cache fit in n_chips' HBM (0: the weights do not fit)."""
    return call_api(api.max_batch, locals())


#: Excel name -> function, for the headless engine and Python callers.
FUNCTIONS = {f.__name__.upper(): f for f in (
    version, arith_intensity, crit_intensity, crit_batch, matmul_time, moe_min_batch,
    net_critical_d, roofline_flops, roofline_time, attn_intensity, collective_time,
    weight_load_time, kv_cache_bytes, cost_per_flop, chip_price, chip_spec, model_spec,
    decode_time, prefill_time, train_time, max_batch)}


def __getattr__(name):
    """``udfs.CRIT_BATCH`` is ``udfs.crit_batch``.

    The Excel names are resolved here rather than bound as module attributes:
    every host registers what ``dir(module)`` lists (classic xlwings' VBA
    wrappers, xlwings Server and Lite via ``inspect.getmembers``), and a second
    name for the same function would register it twice ("Duplicate custom
    function name", or an ambiguous VBA name).
    """
    try:
        return FUNCTIONS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
