"""Dated chip prices per provider and pricing kind (``rooflinexl/data/prices.csv``).

One row per (chip, provider, pricing, date): USD per chip-hour with its source.
The chip table's ``price_per_hour`` is the default (one provider, named in the
Chips sheet); this table lets a cost function use another provider's price,
and a typed quote (``price=``) prices a chip that no table lists.

Columns (header units honoured as in the chip table, :mod:`rooflinexl.units`):

============== ========= =======================================================
column         unit      meaning
============== ========= =======================================================
chip           text      a chip name or alias of the chip table
provider       text      who sells the chip-hour (``Google Cloud``, ``AWS`` ...)
pricing        text      one of :data:`PRICING` (``on-demand``, ``1-year`` ...)
date           YYYY-MM   when the price was listed (``YYYY-MM-DD`` allowed)
price_per_hour USD/h     USD per chip-hour (per GPU, per TPU chip)
source, notes  text      where the number comes from; per-node prices divided
============== ========= =======================================================
"""
from __future__ import annotations

import csv
import functools
import math
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from rooflinexl.errors import ChipTableError, UnitError
from rooflinexl.tables import is_blank, normalize_name
from rooflinexl.units import check_year_month, parse_header, unit_factor

__all__ = ["PriceTable", "load_prices", "lookup", "PRICING", "PRICE_SCHEMA"]

#: pricing kinds, in the order a list shows them
PRICING = ("on-demand", "spot", "capacity-block", "1-year", "3-year")
#: column -> dimension (:data:`rooflinexl.units.DIMENSIONS`)
PRICE_SCHEMA = {"chip": "text", "provider": "text", "pricing": "text", "date": "year-month",
                "price_per_hour": "USD/h", "source": "text", "notes": "text"}
_REQUIRED = ("chip", "provider", "pricing", "date", "price_per_hour", "source")


class PriceTable:
    """A validated price table (see the module docstring for the columns).

    Raises
    ------
    ChipTableError
        A required column missing, a blank required cell, an unknown pricing
        kind, a date that is not YYYY-MM, a price that is not a number >= 0,
        a unit of the wrong dimension, or the same (chip, provider, pricing,
        date) twice. The message names the row (header = row 1) and column.
    """

    def __init__(self, header: Sequence, rows: Sequence[Sequence]):
        parsed = [parse_header(h) for h in header]
        keys = [k for k, _ in parsed]
        try:
            factors = [unit_factor(u, PRICE_SCHEMA[k], column=k) if k in PRICE_SCHEMA else 1.0
                       for k, u in parsed]
        except UnitError as exc:
            raise ChipTableError(f"price table: {exc}") from None
        missing = [c for c in _REQUIRED if c not in keys]
        if missing:
            raise ChipTableError(f"price table: required column {missing[0]!r} is missing "
                                 f"(required: {', '.join(_REQUIRED)})")
        col = {k: keys.index(k) for k in PRICE_SCHEMA if k in keys}
        self.rows: list[dict] = []
        seen = set()
        for n, row in enumerate(rows, start=2):
            row = list(row) + [None] * (len(keys) - len(row))
            if all(is_blank(v) for v in row):
                continue
            rec = {}
            for k, i in col.items():
                v = row[i]
                if k in _REQUIRED and is_blank(v):
                    raise ChipTableError(f"price table row {n}, column {k!r}: value is blank")
                if k == "price_per_hour":
                    try:
                        x = float(v) * factors[i]
                    except (TypeError, ValueError):
                        raise ChipTableError(f"price table row {n}, column 'price_per_hour': "
                                             f"{v!r} is not a number") from None
                    if not (math.isfinite(x) and x >= 0):
                        raise ChipTableError(f"price table row {n}, column 'price_per_hour': "
                                             f"{v!r} must be a finite number >= 0")
                    rec[k] = x
                elif k == "date":
                    try:
                        rec[k] = check_year_month(v, column=k, row=n)
                    except UnitError as exc:
                        raise ChipTableError(f"price table {exc}") from None
                else:
                    rec[k] = "" if is_blank(v) else str(v).strip()
            if rec["pricing"].casefold() not in PRICING:
                raise ChipTableError(f"price table row {n}, column 'pricing': "
                                     f"{rec['pricing']!r} is not one of {', '.join(PRICING)}")
            rec["pricing"] = rec["pricing"].casefold()
            key = (normalize_name(rec["chip"]), rec["provider"].casefold(), rec["pricing"],
                   rec["date"])
            if key in seen:
                raise ChipTableError(f"price table row {n}: {rec['chip']} / {rec['provider']} / "
                                     f"{rec['pricing']} / {rec['date']} appears twice")
            seen.add(key)
            rec["row"] = n
            self.rows.append(rec)

    @classmethod
    def from_csv(cls, path) -> PriceTable:
        """Table from a UTF-8 CSV file with a header row."""
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = list(csv.reader(fh))
        if not rows:
            raise ChipTableError(f"price table {path}: the file is empty")
        return cls(rows[0], rows[1:])

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence]) -> PriceTable:
        """Table from an Excel range: a 2-D list whose first row is the header."""
        rows = list(rows) if rows is not None else []
        if not rows or not isinstance(rows[0], (list, tuple)):
            raise ChipTableError("price table must be a range of rows with the header first "
                                 "(chip, provider, pricing, date, price_per_hour, source)")
        return cls(rows[0], rows[1:])

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def providers(self) -> list[str]:
        """Provider names in order of first appearance."""
        return list(dict.fromkeys(r["provider"] for r in self.rows))

    def find(self, chip: str, provider: str, pricing: str = "on-demand",
             aliases=None) -> dict | None:
        """The latest row for (chip, provider, pricing), or None.

        ``aliases`` maps a chip's lookup key to its canonical name (a
        :class:`rooflinexl.chips.ChipTable` gives it), so a row written with
        an alias matches too.
        """
        want = _canonical(chip, aliases)
        prov, kind = provider.strip().casefold(), pricing.strip().casefold()
        hits = [r for r in self.rows if r["provider"].casefold() == prov
                and r["pricing"] == kind and _canonical(r["chip"], aliases) == want]
        return max(hits, key=lambda r: r["date"]) if hits else None

    def listed(self, chip: str, aliases=None) -> list[str]:
        """``provider pricing date`` of every row for a chip (for messages)."""
        want = _canonical(chip, aliases)
        return [f"{r['provider']} {r['pricing']} {r['date']}" for r in self.rows
                if _canonical(r["chip"], aliases) == want]

    def to_rows(self) -> list[list]:
        """Header (with units) + rows, for a Prices sheet."""
        out = [["chip", "provider", "pricing", "date", "price_per_hour [USD/h]", "source",
                "notes"]]
        for r in self.rows:
            out.append([r["chip"], r["provider"], r["pricing"], r["date"], r["price_per_hour"],
                        r["source"], r.get("notes") or None])
        return out


def _canonical(name: str, aliases) -> str:
    key = normalize_name(name)
    if aliases is None:
        return key
    j = aliases.row_of(name)
    return key if j is None else normalize_name(aliases.names[j])


@functools.lru_cache(maxsize=1)
def _default() -> PriceTable:
    path = resources.files("rooflinexl") / "data" / "prices.csv"
    with resources.as_file(path) as p:
        return PriceTable.from_csv(Path(p))


def load_prices(source=None) -> PriceTable:
    """Price table from None (packaged), a PriceTable, a CSV path, a DataFrame or a 2-D list.

    Examples
    --------
    >>> row = load_prices().find("TPU v6e", "Google Cloud", "1-year")
    >>> row["price_per_hour"], row["date"]
    (1.89, '2024-12')
    """
    if source is None:
        return _default()
    if isinstance(source, PriceTable):
        return source
    if isinstance(source, (str, Path)):
        return PriceTable.from_csv(source)
    if hasattr(source, "columns") and hasattr(source, "values"):
        return PriceTable(list(source.columns), source.astype(object).values.tolist())
    return PriceTable.from_rows(source)


def lookup(table: PriceTable, names: np.ndarray, provider: str, pricing: str, chips):
    """Prices of an array of chip names from one provider and pricing kind.

    Parameters
    ----------
    table : PriceTable
    names : ndarray of object
        Chip names (canonical names of ``chips``).
    provider, pricing : str
    chips : ChipTable or None
        Resolves aliases written in the price table.

    Returns
    -------
    (prices, reasons) : (ndarray of float, ndarray of object)
        USD per chip-hour, NaN where unlisted with the reason beside it.

    Examples
    --------
    >>> p, why = lookup(load_prices(), np.array(["H100"], dtype=object), "AWS",
    ...                 "capacity-block", None)
    >>> p.tolist()
    [4.916]
    """
    out = np.full(names.shape, np.nan)
    why = np.full(names.shape, None, dtype=object)
    for name in set(names.ravel().tolist()):
        if not isinstance(name, str):
            continue
        m = names == name
        row = table.find(name, provider, pricing, chips)
        if row is None:
            listed = table.listed(name, chips)
            why[m] = (f"no {pricing} price for {name} from {provider} in the price table"
                      + (f" (listed: {'; '.join(listed)})" if listed else
                         " (no price listed for it: type a quote)"))
        else:
            out[m] = row["price_per_hour"]
    return out, why
