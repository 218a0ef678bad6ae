"""rooflinexl: roofline planning for spreadsheets.

The Python API (each Excel function's name in lower case, chip first, the
table as ``chips=``; default the packaged table):

>>> import rooflinexl
>>> round(rooflinexl.crit_batch("H100", D=8192, F=8192), 1)
318.2

Layers (DESIGN.md section 1): :mod:`rooflinexl.model` (pure formulas),
:mod:`rooflinexl.chips` and :mod:`rooflinexl.dtypes` (spec table, dtypes,
tiers), :mod:`rooflinexl.api` (chip-aware functions), :mod:`rooflinexl.udfs`
(Excel functions), and the headless engine and CLI above them. Whole models:
:mod:`rooflinexl.models` (the model table) and ``decode_time``, ``prefill_time``,
``train_time``, ``max_batch``, ``model_spec`` (model second, ``models=`` the table).
"""
from rooflinexl.api import (
    Chip,
    arith_intensity,
    attn_intensity,
    chip_price,
    chip_spec,
    collective_time,
    cost_per_flop,
    crit_batch,
    crit_intensity,
    decode_time,
    kv_cache_bytes,
    matmul_time,
    max_batch,
    model_spec,
    moe_min_batch,
    net_critical_d,
    prefill_time,
    roofline_flops,
    roofline_time,
    train_time,
    weight_load_time,
)
from rooflinexl.chips import ChipTable, load_chips
from rooflinexl.errors import (
    ChipTableError,
    DomainError,
    ExcelError,
    KeywordError,
    MissingSpecError,
    ModelTableError,
    RooflineError,
    UnitError,
    UnknownChipError,
    UnknownModelError,
)
from rooflinexl.models import ModelTable, load_models
from rooflinexl.prices import PriceTable, load_prices
from rooflinexl.version import VERSION

__version__ = VERSION

__all__ = [
    "__version__", "Chip", "ChipTable", "load_chips", "arith_intensity", "attn_intensity",
    "chip_price", "chip_spec", "collective_time", "cost_per_flop", "crit_batch", "crit_intensity",
    "kv_cache_bytes", "matmul_time", "moe_min_batch", "net_critical_d", "roofline_flops",
    "roofline_time", "weight_load_time", "ChipTableError", "DomainError", "ExcelError",
    "KeywordError", "MissingSpecError", "RooflineError", "UnknownChipError", "UnitError",
    "PriceTable", "load_prices",
    "ModelTable", "load_models", "model_spec", "decode_time", "prefill_time", "train_time",
    "max_batch", "ModelTableError", "UnknownModelError",
]
