"""Dtype byte sizes, the peak column each dtype computes at, and the bandwidth tiers.

Sources: DESIGN.md section 2 ("Tiers", "Dtypes"); byte sizes are the storage
sizes of the formats (bf16/fp16 2 bytes, fp8/int8 1, int4/fp4 half a byte,
fp32 4). fp32 elementwise work runs on the vector unit (reference section 4:
"点积本来就不在矩阵单元上跑，而在向量单元上"), hence ``vector_flops``.
"""
from __future__ import annotations

import re

#: dtype -> (bytes per element, chip-table column holding its dense peak)
DTYPES: dict[str, tuple[float, str]] = {
    "bf16": (2.0, "bf16_flops"),
    "fp16": (2.0, "bf16_flops"),
    "fp8": (1.0, "fp8_flops"),
    "int8": (1.0, "int8_flops"),
    "int4": (0.5, "int4_flops"),
    "fp4": (0.5, "fp4_flops"),
    "fp32": (4.0, "vector_flops"),
}
DTYPE_ALIASES = {"e4m3": "fp8", "e5m2": "fp8", "float16": "fp16", "bfloat16": "bf16",
                 "float32": "fp32"}

#: tier -> chip-table bandwidth column (one direction for links)
TIERS: dict[str, str] = {
    "hbm": "hbm_bw",
    "vmem": "vmem_bw",
    "ici": "ici_bw",
    "dcn": "dcn_bw",
    "pcie": "pcie_bw",
    "l2": "l2_bw",
    "ici_egress": "ici_egress_bw",
}
#: link tier -> chip-table column of its latency (seconds per collective step; blank = 0)
TIER_LATENCY: dict[str, str] = {"ici": "ici_latency", "ici_egress": "ici_latency",
                                "dcn": "dcn_latency"}
#: tiers inside one scale-up domain: beyond ``scaleup_size`` chips the scale-out tier
#: (``dcn``) carries the outer level of a collective
SCALEUP_TIERS = ("ici", "ici_egress")
TIER_ALIASES = {
    "onchip": "vmem", "smem": "vmem", "sram": "vmem",
    "nvlink": "ici", "scaleup": "ici", "cache": "l2", "l2cache": "l2",
    "iciegress": "ici_egress", "egress": "ici_egress", "nvlinkegress": "ici_egress",
    "scaleupegress": "ici_egress",
    "ib": "dcn", "infiniband": "dcn", "nic": "dcn", "scaleout": "dcn",
}
#: what bounds an operation limited by each tier (``result="bound"``)
TIER_BOUND = {"hbm": "memory", "vmem": "memory", "l2": "memory", "ici": "network",
              "ici_egress": "network", "dcn": "network", "pcie": "network"}

_SEP = re.compile(r"[\s_\-]+")


def normalize_keyword(text: str) -> str:
    """Case-fold, trim and drop spaces, hyphens and underscores: ``" On-Chip "`` -> ``"onchip"``."""
    return _SEP.sub("", text.strip()).casefold()


class Keyword:
    """The one resolver of a keyword argument (dtype, tier, shard, kind, pricing, op ...).

    ``canonical`` maps each normalised spelling (:func:`normalize_keyword`) to the
    canonical value; ``aliases`` more normalised spellings to a canonical key. Calling
    it resolves one value or raises ``error`` (default
    :class:`~rooflinexl.errors.KeywordError`) with a message that lists the values.

    Examples
    --------
    >>> shard = Keyword("shard", {"none": "none", "d": "D", "f": "F"})
    >>> shard(" d "), shard.listed
    ('D', 'none, D, F')
    """

    def __init__(self, what: str, canonical: dict, aliases: dict | None = None,
                 error: type[Exception] | None = None):
        self.what, self.canonical, self.aliases = what, dict(canonical), dict(aliases or {})
        self.error = error
        self.listed = ", ".join(dict.fromkeys(self.canonical.values()))

    def __call__(self, value) -> str:
        from rooflinexl.errors import KeywordError

        error = self.error or KeywordError
        if value is None:
            raise error(f"{self.what} is required: one of {self.listed}")
        if not isinstance(value, str):
            raise error(f"{self.what} must be text, one of {self.listed}; got {value!r}")
        key = normalize_keyword(value)
        key = self.aliases.get(key, key)
        if key not in self.canonical:
            raise error(f"{self.what} {value!r} is not one of {self.listed}")
        return self.canonical[key]


DTYPE = Keyword("dtype", {k: k for k in DTYPES}, DTYPE_ALIASES)
TIER = Keyword("tier", {k: k for k in TIERS}, TIER_ALIASES)


def resolve_dtype(value: str) -> str:
    """Canonical dtype name (``"E4M3"`` -> ``"fp8"``); :class:`KeywordError` when unknown.

    Examples
    --------
    >>> resolve_dtype(" BF16 "), resolve_dtype("e4m3")
    ('bf16', 'fp8')
    """
    return DTYPE(value)


def resolve_tier(value: str) -> str:
    """Canonical tier name (``"NVLink"`` -> ``"ici"``); :class:`KeywordError` when unknown.

    Examples
    --------
    >>> resolve_tier("NVLink"), resolve_tier("InfiniBand")
    ('ici', 'dcn')
    """
    return TIER(value)


def dtype_bytes(dtype: str) -> float:
    """Bytes per element of ``dtype`` (``"int4"`` -> 0.5)."""
    return DTYPES[resolve_dtype(dtype)][0]
