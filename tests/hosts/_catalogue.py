"""What every host must show, written out from DESIGN.md section 3 (not from the code).

``CATALOGUE`` maps each Excel function to its parameters in order, an optional one in
brackets. ``WORKED`` holds the reference's worked numbers (reference article sections
5 and 7, as quoted in DESIGN.md section 3 and the issue): Office.js-style arguments and
the expected value with its tolerance.
"""
from __future__ import annotations

import csv
import math
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CATALOGUE = {
    "VERSION": "",
    "ARITH_INTENSITY": "flops, bytes",
    "CRIT_INTENSITY": "chips, chip, [tier], [dtype]",
    "CRIT_BATCH": "chips, chip, [D], [F], [dtype], [weight_dtype], [tier]",
    "MATMUL_TIME": "chips, chip, B, D, F, [dtype], [weight_dtype], [n_chips], [shard], [result]",
    "MOE_MIN_BATCH": "chips, chip, E, k, [dtype], [weight_dtype], [tier]",
    "NET_CRITICAL_D": "chips, chip, n_chips, [dtype], [tier]",
    "ROOFLINE_FLOPS": "chips, chip, intensity, [tier], [dtype]",
    "ROOFLINE_TIME": "chips, chip, flops, bytes, [tier], [dtype], [result]",
    "ATTN_INTENSITY": "T, S, G",
    "COLLECTIVE_TIME": "chips, chip, kind, bytes, n_chips, [tier]",
    "WEIGHT_LOAD_TIME": "chips, chip, n_params, [dtype], [n_chips]",
    "KV_CACHE_BYTES": "layers, kv_heads, head_dim, tokens, [batch], [dtype]",
    "COST_PER_FLOP": "chips, chip, [dtype], [mfu], [price]",
    "CHIP_PRICE": "chips, chip, prices, [provider], [pricing], [result]",
    "CHIP_SPEC": "chips, chip, field",
    # issue 12: whole models
    "MODEL_SPEC": "models, model, field",
    "DECODE_TIME": "chips, chip, models, model, context, [batch], [n_chips], [dtype], "
                   "[weight_dtype], [kv_dtype], [mbu], [mfu], [result]",
    "PREFILL_TIME": "chips, chip, models, model, prompt, [batch], [n_chips], [dtype], "
                    "[weight_dtype], [kv_dtype], [mbu], [mfu], [result]",
    "TRAIN_TIME": "chips, chip, models, model, tokens, n_chips, [mfu], [dtype], [seq_len]",
    "MAX_BATCH": "chips, chip, models, model, context, [n_chips], [weight_dtype], [kv_dtype], "
                 "[usable]",
}


def models_range() -> list[list]:
    """The packaged model table as Office.js passes the range ``Models``."""
    path = REPO / "rooflinexl" / "data" / "models.csv"
    with open(path, newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    return [rows[0]] + [[_cell(v) for v in row] for row in rows[1:]]


def params(name: str) -> list[tuple[str, bool]]:
    """[(parameter, optional)] of a catalogue function."""
    out = []
    for p in filter(None, (s.strip() for s in CATALOGUE[name].split(","))):
        out.append((p.strip("[]"), p.startswith("[")))
    return out


def _cell(text: str):
    """A CSV cell as Excel holds it: a number, text, or an empty cell."""
    if text == "":
        return ""
    try:
        return js_number(float(text))
    except ValueError:
        return text


def js_number(x: float):
    """A number as ``JSON.stringify`` writes it: integral values below 1e21 without '.0'."""
    if math.isfinite(x) and x == int(x) and abs(x) < 1e21:
        return int(x)
    return x


def chips_range() -> list[list]:
    """The packaged chip table as Excel's Office.js passes the range ``Chips``:
    header row first, numbers as numbers, empty cells as ``""``."""
    path = REPO / "rooflinexl" / "data" / "chips.csv"
    with open(path, newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.reader(fh))
    return [rows[0]] + [[_cell(v) for v in row] for row in rows[1:]]


# (function, Excel arguments after the chip table (None = omitted), expected, abs tolerance)
WORKED = [
    # CRIT_BATCH, H100 bf16 (reference section 5: 319, 345, 698 rounded up)
    ("crit_batch", ["H100", 8192, 8192], 318.155, 0.001),
    ("crit_batch", ["H100", 4096, 4096], 344.95, 0.01),
    ("crit_batch", ["H100", 1024, 1024], 697.28, 0.01),
    # MOE_MIN_BATCH, TPU v5e, int8 weights, bf16 compute, E=256, k=8 (section 5: "B > 3840")
    ("moe_min_batch", ["TPU v5e", 256, 8, None, "int8"], 3843.9, 0.05),
    # NET_CRITICAL_D, TPU v5e, ring of 2, bf16 (section 7)
    ("net_critical_d", ["TPU v5e", 2], 8755.6, 0.05),
    # CRIT_INTENSITY, H100, HBM (section 2: about 295)
    ("crit_intensity", ["H100", "hbm"], 295.2, 0.05),
]
