"""The model table: packaged default, loaders and validation (issue 12, like the chip table).

A :class:`ModelTable` holds one row per model with the shapes a whole-model
roofline needs: parameters as published, layers, d_model, heads, KV heads,
head dimension, vocabulary, and for a mixture of experts the routed experts E,
the experts per token k and the parameters of all routed experts together.
It comes from the packaged CSV (``rooflinexl/data/models.csv``, every number
from the model's published config.json or paper, cited with its date in the
row), a CSV path, a pandas DataFrame or an Excel range (a 2-D list whose first
row is the header). Header names are case-insensitive and may carry a unit in
brackets (``params [count]``); validation messages name the row (the header is
row 1, as in a sheet) and the column.

Columns
-------
Required: ``model``, ``params`` (total, as published), ``layers``, ``d_model``,
``n_heads``, ``kv_heads``, ``head_dim``, ``vocab``.
Optional: ``aliases`` (``;``-separated), ``d_ff``, ``experts`` (E, routed),
``active_experts`` (k), ``shared_experts``, ``expert_params`` (parameters of
all routed experts together), ``kv_lora_rank`` and ``qk_rope_dim`` (MLA: the
KV cache holds ``kv_lora_rank + qk_rope_dim`` values per token and layer
instead of ``2 kv_heads head_dim``), ``tied_embeddings`` (0/1, TRUE/FALSE),
``sliding_window``, ``source``, ``notes``.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from rooflinexl.errors import ModelTableError, UnitError, UnknownModelError
from rooflinexl.tables import NamedTable, is_blank
from rooflinexl.units import SI_UNITS, parse_header, unit_factor

REQUIRED = ("model", "params", "layers", "d_model", "n_heads", "kv_heads", "head_dim", "vocab")
#: numeric columns: (minimum, whole number)
NUMERIC = {
    "params": (0, False), "layers": (1, True), "d_model": (1, True), "n_heads": (1, True),
    "kv_heads": (1, True), "head_dim": (1, True), "vocab": (1, True), "d_ff": (1, True),
    "experts": (1, True), "active_experts": (1, True), "shared_experts": (0, True),
    "expert_params": (0, False), "kv_lora_rank": (1, True), "qk_rope_dim": (0, True),
    "tied_embeddings": (0, True), "sliding_window": (1, True),
}
TEXT = ("model", "aliases", "source", "notes")
#: every column of the schema, in the packaged CSV's order
COLUMNS = ("model", "aliases", *NUMERIC, "source", "notes")
#: unit shown in the Models sheet header of a numeric column (the others are plain counts)
UNITS = {"params": SI_UNITS["count"], "expert_params": SI_UNITS["count"]}
_TRUE = {"true": 1.0, "yes": 1.0, "1": 1.0, "false": 0.0, "no": 0.0, "0": 0.0}


def header_column(cell) -> tuple[str, float]:
    """(column, factor to a plain count) of a header cell such as ``params [B]``.

    Units follow :mod:`rooflinexl.units` (dimension ``count``: ``K``, ``M``,
    ``B`` = 1e9, ``count`` ...); text columns ignore a label. An unknown unit
    is a :class:`ModelTableError` naming the column and the units allowed.

    Examples
    --------
    >>> header_column(" Params [B] ")
    ('params', 1000000000.0)
    """
    name, unit = parse_header(cell)
    if name not in NUMERIC:
        return name, 1.0
    try:
        return name, unit_factor(unit, "count", column=name)
    except UnitError as exc:
        raise ModelTableError(f"model table: {exc}") from None


class ModelTable(NamedTable):
    """A validated model table.

    Build it with :meth:`default`, :meth:`from_csv`, :meth:`from_dataframe` or
    :meth:`from_rows`. Numbers are float arrays (NaN where blank); text columns
    lists of str. Unknown extra columns are kept as text and ignored.

    Raises
    ------
    ModelTableError
        A required column is missing or blank, a name or alias is used twice, a
        number is not a finite number in its range (whole numbers where a count
        must be whole), an MoE row lacks ``active_experts`` or ``expert_params``,
        ``active_experts`` exceeds ``experts``, ``expert_params`` exceeds
        ``params``, or only one of ``kv_lora_rank`` / ``qk_rope_dim`` is given.
        The message names the row and the column.

    Examples
    --------
    >>> t = ModelTable.default()
    >>> t.field("Mixtral 8x7B", "experts"), t.field("mixtral-8x7b", "active_experts")
    (8.0, 2.0)
    """

    kind = "model"
    data_file = "models.csv"
    columns_order = COLUMNS
    range_hint = ", ".join(REQUIRED)
    table_error = ModelTableError
    unknown_error = UnknownModelError

    def __init__(self, header: Sequence, rows: Sequence[Sequence], *, first_row: int = 2):
        parsed = [header_column(h) for h in header]
        seen, body = self._layout([k for k, _ in parsed], rows, first_row, REQUIRED)
        self.columns = tuple(k for k, _ in parsed if k)
        self.row_numbers = [r for r, _ in body]
        self._numeric: dict[str, np.ndarray] = {}
        self._text: dict[str, list[str]] = {}
        for col, i in seen.items():
            if col in NUMERIC:
                factor = parsed[i][1]
                self._numeric[col] = np.array(
                    [self._number(r, row[i], col, factor) for r, row in body], dtype=float)
            else:
                self._text[col] = ["" if is_blank(row[i]) else str(row[i]).strip()
                                   for _, row in body]
        self.names: tuple[str, ...] = tuple(self._text["model"])
        for col in REQUIRED[1:]:
            self._require(col, np.ones(len(body), bool), "required value is blank")
        e = self.numeric("experts")
        moe = ~np.isnan(e)
        self._require("active_experts", moe, "an MoE row (experts given) needs active_experts")
        self._require("expert_params", moe, "an MoE row (experts given) needs expert_params")
        self._check(moe & (self.numeric("active_experts") > e), "active_experts",
                    "active_experts (k) must be <= experts (E)")
        self._check(~moe & ~np.isnan(self.numeric("expert_params")), "experts",
                    "expert_params is given but experts is blank")
        self._check(self.numeric("expert_params") > self.numeric("params"), "expert_params",
                    "expert_params must be <= params")
        lora, rope = np.isnan(self.numeric("kv_lora_rank")), np.isnan(self.numeric("qk_rope_dim"))
        self._check(lora != rope, "kv_lora_rank",
                    "kv_lora_rank and qk_rope_dim go together (MLA): give both or neither")
        self._index_names("model")

    def _require(self, col: str, where, why: str) -> None:
        self._check(np.asarray(where) & np.isnan(self.numeric(col)), col, why)

    def _check(self, bad, col: str, why: str) -> None:
        bad = np.asarray(bad, bool)
        if bad.any():
            r = self.row_numbers[int(np.argmax(bad))]
            raise ModelTableError(f"model table row {r}, column {col!r}: {why}")

    @staticmethod
    def _number(row: int, value, col: str, factor: float) -> float:
        if is_blank(value):
            return math.nan
        if col == "tied_embeddings" and isinstance(value, (bool, np.bool_)):
            return float(value)
        if col == "tied_embeddings" and isinstance(value, str) and \
                value.strip().casefold() in _TRUE:
            return _TRUE[value.strip().casefold()]
        if isinstance(value, bool):
            raise ModelTableError(
                f"model table row {row}, column {col!r}: {value!r} is not a number")
        try:
            x = float(value.strip().replace("_", "") if isinstance(value, str) else value)
            x *= factor
        except (TypeError, ValueError):
            raise ModelTableError(
                f"model table row {row}, column {col!r}: {value!r} is not a number") from None
        except OverflowError:
            raise ModelTableError(f"model table row {row}, column {col!r}: a number beyond "
                                  "the float range") from None
        low, whole = NUMERIC[col]
        if not math.isfinite(x) or x < low or (whole and x != math.floor(x)) or (
                col == "tied_embeddings" and x > 1):
            kind = "0 or 1" if col == "tied_embeddings" else (
                f"a whole number >= {low}" if whole else f"a finite number >= {low}")
            raise ModelTableError(
                f"model table row {row}, column {col!r}: {value!r} must be {kind}")
        return x


def load_models(source=None) -> ModelTable:
    """Model table from ``source``: None (packaged), a ModelTable, a CSV path, a DataFrame,
    or a 2-D list whose first row is the header.

    Examples
    --------
    >>> "DeepSeek-V3" in load_models().names
    True
    """
    return ModelTable.load(source)
