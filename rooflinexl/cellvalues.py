"""Cell values compared and shown: one home for what a cached value is and how it reads.

What ``recalc`` caches (:func:`cached_value`: no NaN or inf, Python scalars),
when two cell values match (:func:`values_equal`), the relative change between
them, and the one text of a value in every report and summary
(:func:`format_value`). Used by :mod:`rooflinexl.check`, :mod:`rooflinexl.reports`
and :mod:`rooflinexl.recalc.book`.
"""
from __future__ import annotations

import math

from rooflinexl.errors import ExcelError

__all__ = ["RTOL", "cached_value", "format_change", "format_number", "format_pair",
           "format_value", "json_value", "plural", "relative_change", "value_type", "values_equal"]

#: Default relative tolerance of a numeric comparison.
RTOL = 1e-9


def value_type(v) -> str:
    """``number``, ``text``, ``bool``, ``error`` or ``empty``."""
    if v is None or v == "":
        return "empty"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, ExcelError):
        return "error"
    if isinstance(v, (int, float)):
        return "number"
    return "text"


def cached_value(v):
    """A computed value as ``recalc`` caches it: NaN/inf become #NUM!, numpy scalars Python ones.

    Examples
    --------
    >>> import numpy as np
    >>> cached_value(float("inf")), cached_value(np.float64(2.5))
    ('#NUM!', 2.5)
    """
    if isinstance(v, float) and not math.isfinite(v):
        return ExcelError("#NUM!", "not a finite number")
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):  # numpy scalar
        v = v.item()
    return v


def values_equal(a, b, rtol: float = RTOL, atol: float = 0.0) -> bool:
    """Whether two cell values match: numbers within ``rtol``; anything else exactly.

    An empty cell and empty text are equal; a boolean never equals a number.

    Examples
    --------
    >>> values_equal(1.0, 1.0 + 1e-12), values_equal(1.0, 1.001), values_equal(True, 1)
    (True, False, False)
    >>> values_equal(ExcelError("#N/A"), "#N/A"), values_equal(None, "")
    (False, True)
    """
    ta, tb = value_type(a), value_type(b)
    if ta != tb:
        return False
    if ta == "number":
        return math.isclose(float(a), float(b), rel_tol=rtol, abs_tol=atol)
    if ta == "empty":
        return True
    return str(a) == str(b)


def relative_change(old, new) -> float | None:
    """``(new - old) / |old|`` for two numbers, else None (also when ``old`` is 0).

    Examples
    --------
    >>> round(relative_change(10, 9.2), 6), relative_change(0, 1), relative_change("a", 1)
    (-0.08, None, None)
    """
    if value_type(old) != "number" or value_type(new) != "number":
        return None
    old, new = float(old), float(new)
    if old == 0 or not (math.isfinite(old) and math.isfinite(new)):
        return None
    return (new - old) / abs(old)


def format_value(v, *, quote_text: bool = True) -> str:
    """A cell value for a report: numbers to 6 significant digits, text quoted."""
    t = value_type(v)
    if t == "empty":
        return "(empty)"
    if t == "bool":
        return "TRUE" if v else "FALSE"
    if t == "number":
        return format_number(float(v), 6)
    if t == "error":
        return str(v)
    return f'"{v}"' if quote_text else str(v)


def format_number(x: float, digits: int) -> str:
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.{digits}g}"


def format_pair(old, new) -> tuple[str, str]:
    """Both values formatted; more digits when 6 significant digits hide the difference."""
    a, b = format_value(old), format_value(new)
    if a == b and value_type(old) == value_type(new) == "number" and old != new:
        a, b = format_number(float(old), 17), format_number(float(new), 17)
    return a, b


def format_change(rel: float | None) -> str:
    """``-8.0 %``, ``+8.7 %``; more decimals for tiny changes; ``""`` for None."""
    if rel is None:
        return ""
    pct = rel * 100
    if pct == 0:
        return "0.0 %"
    if abs(pct) >= 0.05:
        return f"{pct:+.1f} %"
    return f"{pct:+.2g} %"


def json_value(v):
    t = value_type(v)
    if t == "empty":
        return None
    if t == "number":
        return float(v) if isinstance(v, float) else int(v)
    if t == "bool":
        return bool(v)
    return str(v)


def plural(k: int, word: str) -> str:
    """``"1 sheet"``, ``"2 sheets"``."""
    return f"{k} {word}{'s' * (k != 1)}"
