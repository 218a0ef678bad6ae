"""Units in table headers: ``name [unit]`` parsed, converted to SI, or refused.

A table column (chips, prices, models, ...) has one *dimension* (FLOP/s, B/s,
bytes, W, s, USD/h, count, year-month, text). A header cell may carry a unit
in brackets, ``hbm_bw [TB/s]``; a known unit of the column's dimension scales
the column to SI on load (3.35 -> 3.35e12), a unit of another dimension or an
unknown unit is a :class:`rooflinexl.errors.UnitError` naming the column and
the units allowed. A header without a unit means SI. This module knows no
table: callers give a schema, a mapping ``column -> dimension``.

Unit names are matched exactly first (``Gb/s`` is gigabits, ``GB/s``
gigabytes); otherwise case-insensitively when that is unambiguous within the
dimension (``tflop/s`` is TFLOP/s, but ``gb/s`` is refused: gigabits or
gigabytes?).

Conventions (sources: SI / IEC 80000-13 prefixes): K, M, G, T, P are decimal
(1e3 ...); Ki, Mi, Gi, Ti, Pi binary (2**10 ...); a lower-case ``b`` is a bit
(1/8 byte); ``OP/s``/``TOPS`` count integer operations like FLOPs (the
int8/int4 peak columns). Capacities given by a vendor in GiB must be typed
with ``[GiB]`` (or converted as 2**30 per GiB): ``80 GiB`` is 85,899,345,920
bytes, not 80e9.

Examples
--------
>>> parse_header(" HBM_BW [TB/s] ")
('hbm_bw', 'TB/s')
>>> unit_factor("TB/s", "B/s", column="hbm_bw")
1000000000000.0
>>> unit_factor("GiB", "bytes", column="hbm_bytes")
1073741824.0
>>> unit_factor("Gb/s", "B/s", column="dcn_bw")
125000000.0
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from rooflinexl.errors import UnitError

__all__ = ["DIMENSIONS", "SI_UNITS", "TEXT_DIMENSIONS", "parse_header", "unit_factor",
           "header_units", "check_year_month", "UnitError"]

_DEC = {"": 1.0, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_BIN = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50}


def _rate_units() -> dict[str, float]:
    out: dict[str, float] = {}
    for p, f in _DEC.items():
        for stem in ("FLOP/s", "FLOPS", "OP/s", "OPS"):
            out[p + stem] = f
    out["FLOP/s (dense)"] = 1.0
    return out


def _byte_rate_units() -> dict[str, float]:
    out: dict[str, float] = {"bytes/s": 1.0, "byte/s": 1.0, "bit/s": 0.125, "bps": 0.125}
    for p, f in _DEC.items():
        out[f"{p}B/s"] = f
        out[f"{p}b/s"] = f / 8
        if p:
            out[f"{p}Bps"] = f
            out[f"{p}bps"] = f / 8
            out[f"{p}bit/s"] = f / 8
    for p, f in _BIN.items():
        out[f"{p}B/s"] = f
        out[f"{p}Bps"] = f
    return out


def _byte_units() -> dict[str, float]:
    out: dict[str, float] = {"bytes": 1.0, "byte": 1.0, "bit": 0.125, "bits": 0.125}
    for p, f in _DEC.items():
        out[f"{p}B"] = f
        out[f"{p}b"] = f / 8
    for p, f in _BIN.items():
        out[f"{p}B"] = f
        out[f"{p}b"] = f / 8
    return out


#: dimension -> {unit as written in a header: factor to the SI unit}
DIMENSIONS: dict[str, dict[str, float]] = {
    "FLOP/s": _rate_units(),
    "B/s": _byte_rate_units(),
    "bytes": _byte_units(),
    "FLOP": {p + s: f for p, f in _DEC.items() for s in ("FLOP", "FLOPs", "OP")},
    "W": {"W": 1.0, "kW": 1e3, "watt": 1.0, "watts": 1.0},
    "s": {"s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6,
          "ns": 1e-9, "min": 60.0, "h": 3600.0},
    "USD/h": {"USD/h": 1.0, "USD/hour": 1.0, "USD/hr": 1.0, "USD/chip-hour": 1.0,
              "USD per chip-hour": 1.0, "USD/chip/h": 1.0, "$/h": 1.0, "$/hr": 1.0,
              "$/hour": 1.0},
    "USD": {"USD": 1.0, "$": 1.0, "kUSD": 1e3, "MUSD": 1e6},
    "count": {"1": 1.0, "count": 1.0, "chips": 1.0, "chip": 1.0, "links": 1.0,
              "#": 1.0, "K": 1e3, "k": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12},
    "fraction": {"1": 1.0, "fraction": 1.0, "%": 0.01},
    "year-month": {"YYYY-MM": 1.0, "year-month": 1.0, "yyyy-mm": 1.0},
    "text": {"text": 1.0},
}
#: the SI unit shown in a generated header for each dimension
SI_UNITS = {"FLOP/s": "FLOP/s", "B/s": "B/s", "bytes": "B", "FLOP": "FLOP", "W": "W",
            "s": "s", "USD/h": "USD/h", "USD": "USD", "count": "count", "fraction": "1",
            "year-month": "YYYY-MM", "text": "text"}
#: dimensions whose values are text (a unit is only a label; no scaling)
TEXT_DIMENSIONS = frozenset({"year-month", "text"})

_HEADER = re.compile(r"^\s*(?P<name>.*?)\s*(?:\[\s*(?P<unit>[^\]]*?)\s*\]\s*)?$", re.S)
_FOLDED = {dim: {} for dim in DIMENSIONS}
for _dim, _units in DIMENSIONS.items():
    for _u, _f in _units.items():
        _FOLDED[_dim].setdefault(_u.casefold(), set()).add(_f)


def parse_header(cell) -> tuple[str, str | None]:
    """Header cell -> (column name, unit or None).

    The name is trimmed and case-folded; the unit is the text inside a
    trailing ``[...]``, trimmed (case kept: ``Gb`` and ``GB`` differ).
    An empty ``[]`` gives ``''``. A non-text cell (None, a number) gives
    ``('', None)`` or its text.

    Examples
    --------
    >>> parse_header("  Hbm_Bytes [ GiB ]")
    ('hbm_bytes', 'GiB')
    >>> parse_header("chip")
    ('chip', None)
    """
    if cell is None:
        return "", None
    m = _HEADER.match(str(cell))
    return m["name"].strip().casefold(), m["unit"]


def _allowed(dimension: str) -> str:
    units = list(DIMENSIONS[dimension])
    return ", ".join(units[:40]) + (" ..." if len(units) > 40 else "")


def unit_factor(unit: str | None, dimension: str, *, column: str = "") -> float:
    """Factor converting a value in ``unit`` to the SI unit of ``dimension``.

    Parameters
    ----------
    unit : str or None
        The unit as written in the header; None or '' (no unit) means SI.
    dimension : str
        A key of :data:`DIMENSIONS` (``"B/s"``, ``"bytes"``, ``"FLOP/s"`` ...).
    column : str
        Column name for the error message.

    Returns
    -------
    float
        Multiply the column by it (1.0 for SI and for text dimensions).

    Raises
    ------
    UnitError
        The unit is unknown, belongs to another dimension, or matches two
        units of the dimension when case is ignored. The message names the
        column, the unit and the units allowed.

    Examples
    --------
    >>> unit_factor("TFLOP/s", "FLOP/s", column="bf16_flops")
    1000000000000.0
    >>> unit_factor("TB/s", "bytes", column="hbm_bytes")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rooflinexl.errors.UnitError: column 'hbm_bytes': unit 'TB/s' is a B/s unit, but ...
    """
    if dimension not in DIMENSIONS:
        raise KeyError(f"unknown dimension {dimension!r} (known: {', '.join(DIMENSIONS)})")
    if unit is None or unit.strip() == "":
        return 1.0
    units = DIMENSIONS[dimension]
    u = unit.strip()
    where = f"column {column!r}: " if column else ""
    if u in units:
        return units[u]
    folded = _FOLDED[dimension].get(u.casefold())
    if folded is not None:
        if len(folded) == 1:
            return next(iter(folded))
        raise UnitError(f"{where}unit {unit!r} is ambiguous (case matters: B is a byte, b a "
                        f"bit); write one of: {_allowed(dimension)}")
    other = [d for d, us in DIMENSIONS.items() if d != dimension and u in us]
    if other:
        raise UnitError(f"{where}unit {unit!r} is a {other[0]} unit, but this column is in "
                        f"{dimension} (allowed: {_allowed(dimension)})")
    raise UnitError(f"{where}unknown unit {unit!r} (allowed for {dimension}: "
                    f"{_allowed(dimension)})")


def header_units(header: Sequence, schema: Mapping[str, str]) -> tuple[list[str], list[float]]:
    """Column names and SI factors of a header row under ``schema``.

    Parameters
    ----------
    header : sequence
        Header cells, e.g. ``["chip", "hbm_bw [TB/s]", "notes"]``.
    schema : mapping
        Column name -> dimension. A column the schema does not know keeps
        factor 1.0 whatever its unit (unknown extra columns are kept and
        ignored by the tables).

    Returns
    -------
    (names, factors) : (list of str, list of float)

    Raises
    ------
    UnitError
        See :func:`unit_factor`.

    Examples
    --------
    >>> header_units(["chip", "hbm_bw [TB/s]"], {"chip": "text", "hbm_bw": "B/s"})
    (['chip', 'hbm_bw'], [1.0, 1000000000000.0])
    """
    names, factors = [], []
    for cell in header:
        name, unit = parse_header(cell)
        names.append(name)
        dim = schema.get(name)
        factors.append(1.0 if dim is None else unit_factor(unit, dim, column=name))
    return names, factors


_YM = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?$")


def check_year_month(value: str, *, column: str = "", row: int | None = None) -> str:
    """Validate ``YYYY-MM`` (or ``YYYY-MM-DD``) text and return it trimmed.

    Raises
    ------
    UnitError
        Anything else (a number, which is what Excel makes of ``2024-03``
        typed into a General cell, or free text).

    Examples
    --------
    >>> check_year_month(" 2024-03 ")
    '2024-03'
    """
    where = (f"row {row}, " if row is not None else "") + (f"column {column!r}: " if column
                                                           else "")
    if isinstance(value, float) and math.isnan(value):
        return ""
    text = str(value).strip()
    m = _YM.match(text)
    if not m or not 1 <= int(m[2]) <= 12 or (m[3] is not None and not 1 <= int(m[3]) <= 31):
        raise UnitError(f"{where}{value!r} is not a year-month (write YYYY-MM as text, e.g. "
                        "2024-03; format the cells as Text so Excel keeps it)")
    return text
