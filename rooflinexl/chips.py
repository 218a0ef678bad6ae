"""The chip-spec table: packaged default, loaders and validation (DESIGN.md section 2).

A :class:`ChipTable` holds one row per chip with SI numbers (FLOP/s, bytes,
B/s one direction, USD per chip-hour). It comes from the packaged CSV
(``rooflinexl/data/chips.csv``, every number sourced in its row), a CSV path,
a pandas DataFrame or an Excel range (a 2-D list whose first row is the
header). Validation messages name the row (the header is row 1, as in a
sheet) and the column.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from rooflinexl.errors import ChipTableError, UnitError, UnknownChipError
from rooflinexl.tables import NamedTable, is_blank, normalize_name
from rooflinexl.units import SI_UNITS, TEXT_DIMENSIONS, check_year_month, parse_header, unit_factor

REQUIRED = ("chip", "bf16_flops", "hbm_bw")
#: dimension (a key of :data:`rooflinexl.units.DIMENSIONS`) of every column, in the
#: packaged CSV's order; DESIGN.md section 2 and docs/chips.md give each column's meaning
SCHEMA: dict[str, str] = {
    "chip": "text", "aliases": "text", "vendor": "text", "kind": "text",
    "bf16_flops": "FLOP/s", "fp8_flops": "FLOP/s", "int8_flops": "FLOP/s",
    "int4_flops": "FLOP/s", "fp4_flops": "FLOP/s", "vector_flops": "FLOP/s",
    "hbm_bytes": "bytes", "hbm_bw": "B/s", "vmem_bytes": "bytes", "vmem_bw": "B/s",
    "l2_bw": "B/s",
    "ici_bw": "B/s", "ici_egress_bw": "B/s", "scaleup_size": "count",
    "scaleup_topology": "text", "ici_latency": "s",
    "dcn_bw": "B/s", "dcn_latency": "s", "collective_latency": "s", "pcie_bw": "B/s",
    "tdp_w": "W", "release": "year-month",
    "price_per_hour": "USD/h", "price_date": "year-month", "price_source": "text",
    "source": "text", "notes": "text",
}
NUMERIC = tuple(c for c, d in SCHEMA.items() if d not in TEXT_DIMENSIONS)
TEXT = tuple(c for c, d in SCHEMA.items() if d in TEXT_DIMENSIONS)
#: every column of the schema, in the packaged CSV's order
COLUMNS = tuple(SCHEMA)
#: SI unit shown in a generated header (``hbm_bw [B/s]``) for each numeric column
UNITS = {c: SI_UNITS[d] for c, d in SCHEMA.items() if d not in TEXT_DIMENSIONS} | {
    "int8_flops": "OP/s", "int4_flops": "OP/s", "hbm_bytes": "bytes", "vmem_bytes": "bytes",
    "price_per_hour": "USD/chip-hour", "scaleup_size": "chips"}
#: values of ``scaleup_topology``: how the chips of one scale-up domain are linked
TOPOLOGIES = ("switch", "torus")
#: meaning of every column (docs/chips.md and the Chips sheet's header notes)
COLUMN_DOCS: dict[str, str] = {
    "chip": "Unique name as users write it (H100, TPU v5e ...).",
    "aliases": "';'-separated other names; lookup ignores case and runs of spaces, hyphens, "
               "underscores.",
    "vendor": "NVIDIA, Google, AMD, Intel, AWS ...",
    "kind": "gpu, tpu or asic (other accelerator).",
    "bf16_flops": "Dense bf16 (= fp16) matrix peak per chip, FLOP/s. Never the 2:4-sparse "
                  "datasheet figure (dense = sparse / 2).",
    "fp8_flops": "Dense fp8 matrix peak per chip, FLOP/s; blank where the chip has no fp8 path.",
    "int8_flops": "Dense int8 matrix peak per chip, OP/s.",
    "int4_flops": "Dense int4 matrix peak per chip, OP/s.",
    "fp4_flops": "Dense fp4 matrix peak per chip, FLOP/s.",
    "vector_flops": "Vector-unit peak (CUDA cores / VPU) for plain fp32 elementwise work, "
                    "FLOP/s, one op per ALU (no FMA doubling).",
    "hbm_bytes": "HBM capacity in bytes as the memory really is: a vendor GiB figure converted "
                 "as binary (80 GiB = 85,899,345,920), a GB figure as decimal; the marketing "
                 "figure is in notes.",
    "hbm_bw": "HBM bandwidth per chip, B/s.",
    "vmem_bytes": "On-chip programmer-managed memory: TPU VMEM, GPU shared memory (SMEM) of all "
                  "SMs together, bytes.",
    "vmem_bw": "Bandwidth of vmem_bytes, B/s (tier vmem).",
    "l2_bw": "GPU L2-cache bandwidth, B/s (tier l2); blank where no source gives it.",
    "ici_bw": "Scale-up link, one direction, per chip: what a 1-D ring along one axis of the "
              "scale-up domain gets. One ICI link on a TPU, the whole NVLink egress on a GPU. "
              "Tier ici (aliases nvlink, scaleup).",
    "ici_egress_bw": "All scale-up links of the chip together, one direction, B/s: the figure "
                     "to compare across vendors (tier ici_egress). Equal to ici_bw on a "
                     "switched GPU; links x per-link on a TPU torus.",
    "scaleup_size": "Chips in one scale-up domain (HGX H100 8, GB200 NVL72 72, a TPU pod's "
                    "maximum slice). Beyond it, collectives run two-level: the scale-out tier "
                    "(dcn) carries the outer ring. Blank: no limit.",
    "scaleup_topology": "switch (every chip reaches every other directly: NVSwitch, a full "
                        "mesh) or torus (neighbour links: TPU ICI). Used by AllToAll.",
    "ici_latency": "Seconds per ring step on the scale-up link (alpha of the alpha-beta "
                   "model), small-message figure (NCCL's LL protocol on GPUs). Blank = 0: the "
                   "bandwidth-only bound.",
    "dcn_bw": "Scale-out network per chip, one direction, B/s: the GPU's NIC (400 Gb/s = "
              "5e10), TPU DCN per chip. Tier dcn (aliases ib, nic, scaleout).",
    "dcn_latency": "Seconds per ring step on the scale-out network (small-message figure). "
                   "Blank = 0.",
    "collective_latency": "Fixed seconds per collective call (launch and synchronisation, "
                          "NCCL's baseLat), added once to a collective over n > 1 chips. "
                          "Blank = 0.",
    "pcie_bw": "Host link per chip, one direction, B/s (tier pcie).",
    "tdp_w": "Board / module power (TDP), W.",
    "release": "Announcement (launch) month, YYYY-MM.",
    "price_per_hour": "Default list price, USD per chip-hour: one provider for every row "
                      "(Google Cloud on-demand); others in the price table (Prices).",
    "price_date": "Date of price_per_hour, YYYY-MM (or YYYY-MM-DD).",
    "price_source": "Where price_per_hour comes from.",
    "source": "Where every number in the row comes from, with dates.",
    "notes": "Disagreements between sources and which one the row follows, vendor marketing "
             "figures, caveats.",
}

#: the lookup key of a chip name (:func:`rooflinexl.tables.normalize_name`)
normalize_chip_name = normalize_name


def _header_key(cell) -> str:
    """Header cell -> column name: case-folded, trimmed, without its ``[unit]``."""
    return parse_header(cell)[0]


class ChipTable(NamedTable):
    """A validated chip-spec table.

    Build it with :meth:`default`, :meth:`from_csv`, :meth:`from_dataframe` or
    :meth:`from_rows`. Numbers are float arrays (NaN where the cell is blank);
    text columns are lists of str ('' where blank). Unknown extra columns are
    kept and ignored.

    Raises
    ------
    ChipTableError
        A required column (``chip``, ``bf16_flops``, ``hbm_bw``) is missing or
        blank, a name or alias is used twice, or a number is not a finite
        non-negative number. The message names the row and the column.
    """

    kind = "chip"
    data_file = "chips.csv"
    columns_order = COLUMNS
    range_hint = "chip, bf16_flops, hbm_bw"
    table_error = ChipTableError
    unknown_error = UnknownChipError

    def __init__(self, header: Sequence, rows: Sequence[Sequence], *, first_row: int = 2):
        parsed = [parse_header(h) for h in header]
        keys = [k for k, _ in parsed]
        factors = []
        for k, unit in parsed:
            try:
                factors.append(unit_factor(unit, SCHEMA[k], column=k) if k in SCHEMA else 1.0)
            except UnitError as exc:
                raise ChipTableError(f"chip table: {exc}") from None
        seen, body = self._layout(keys, rows, first_row, REQUIRED)
        self.columns = tuple(k for k in keys if k)
        self.row_numbers = [r for r, _ in body]
        self._numeric: dict[str, np.ndarray] = {}
        self._text: dict[str, list[str]] = {}
        for col, i in seen.items():
            if col in NUMERIC:
                self._numeric[col] = np.array(
                    [self._number(r, row[i], col) for r, row in body], dtype=float) * factors[i]
                if not np.isfinite(self._numeric[col][~np.isnan(self._numeric[col])]).all():
                    raise ChipTableError(f"chip table, column {col!r}: a value times its unit "
                                         "is beyond the float range")
            elif SCHEMA.get(col) == "year-month":
                self._text[col] = [self._year_month(r, row[i], col) for r, row in body]
            else:
                self._text[col] = ["" if is_blank(row[i]) else str(row[i]).strip()
                                   for _, row in body]
        for col in REQUIRED[1:]:
            bad = np.isnan(self._numeric[col])
            if bad.any():
                r = self.row_numbers[int(np.argmax(bad))]
                raise ChipTableError(f"chip table row {r}, column {col!r}: required value is blank")
        self._check_network()
        self.names: tuple[str, ...] = tuple(self._text["chip"])
        self._index_names("chip")

    def _check_network(self) -> None:
        """``scaleup_size`` a whole number >= 1; ``scaleup_topology`` one of :data:`TOPOLOGIES`."""
        size = self._numeric.get("scaleup_size")
        if size is not None:
            bad = ~np.isnan(size) & ~((size >= 1) & (np.floor(size) == size))
            if bad.any():
                j = int(np.argmax(bad))
                raise ChipTableError(f"chip table row {self.row_numbers[j]}, column "
                                     f"'scaleup_size': {size[j]:g} is not a whole number >= 1")
        topo = self._text.get("scaleup_topology")
        if topo is not None:
            for j, t in enumerate(topo):
                if t and t.casefold() not in TOPOLOGIES:
                    raise ChipTableError(
                        f"chip table row {self.row_numbers[j]}, column 'scaleup_topology': "
                        f"{t!r} is not one of {', '.join(TOPOLOGIES)} (or blank)")
                topo[j] = t.casefold()

    @staticmethod
    def _year_month(row: int, value, col: str) -> str:
        if is_blank(value):
            return ""
        if hasattr(value, "year") and hasattr(value, "month"):  # a date cell
            return f"{value.year:04d}-{value.month:02d}"
        try:
            return check_year_month(value, column=col, row=row)
        except UnitError as exc:
            raise ChipTableError(f"chip table {exc}") from None

    @staticmethod
    def _number(row: int, value, col: str) -> float:
        if is_blank(value):
            return math.nan
        if isinstance(value, bool):
            raise ChipTableError(f"chip table row {row}, column {col!r}: {value!r} is not a number")
        try:
            x = float(value.strip().replace("_", "") if isinstance(value, str) else value)
        except (TypeError, ValueError):
            raise ChipTableError(
                f"chip table row {row}, column {col!r}: {value!r} is not a number") from None
        except OverflowError:  # an int beyond float range (its repr may be too long to print)
            raise ChipTableError(
                f"chip table row {row}, column {col!r}: a number beyond the float range "
                "(about 1.8e308)") from None
        if not math.isfinite(x) or x < 0:
            raise ChipTableError(
                f"chip table row {row}, column {col!r}: {value!r} must be a finite number >= 0")
        return x


def load_chips(source=None) -> ChipTable:
    """Chip table from ``source``: None (packaged default), a ChipTable, a CSV path,
    a pandas DataFrame, or a 2-D list whose first row is the header.

    Examples
    --------
    >>> "H100" in load_chips().names
    True
    """
    return ChipTable.load(source)
