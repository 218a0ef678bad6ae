"""RANDARRAY, from Microsoft's "RANDARRAY function" (read 2026-12-02).

``RANDARRAY([rows],[columns],[min],[max],[whole_number])``: an array of ``rows`` x
``columns`` random numbers between ``min`` and ``max`` (defaults 1, 1, 0, 1), whole numbers
when ``whole_number`` is TRUE (default FALSE); ``min`` above ``max`` is ``#VALUE!``. It is
volatile: a new draw at every recalculation, so Excel's cached values are never its value;
the shape, the bounds and the whole-number flag are what can be checked.
"""
from __future__ import annotations

import math

import numpy as np

from rooflinexl.errors import ExcelError

__all__ = ["DEFAULTS", "randarray"]

#: the value of each omitted argument
DEFAULTS = (1.0, 1.0, 0.0, 1.0, False)
#: the most numbers one call draws (a sheet's cells)
_MAX = 1_048_576 * 16_384


def _arg(x, what: str):
    if isinstance(x, list):
        if len(x) == 1 and isinstance(x[0], list) and len(x[0]) == 1:
            x = x[0][0]
        else:
            raise ValueError(f"RANDARRAY: {what} is a range where one value belongs")
    elif hasattr(x, "shape"):  # a whole column from the block path: go row by row
        raise TypeError("scalar function")
    if isinstance(x, ExcelError):
        raise LookupError(x)
    if x is None:
        return 0.0
    if isinstance(x, bool):
        return float(x)
    if isinstance(x, (int, float)):
        return float(x)
    try:
        return float(str(x).strip())
    except ValueError:
        raise ValueError(f"RANDARRAY: {what} {x!r} is not a number") from None


def randarray(rows=1.0, columns=1.0, minimum=0.0, maximum=1.0, whole_number=False,
              rng: np.random.Generator | None = None):
    """RANDARRAY: ``rows`` x ``columns`` random numbers in [min, max).

    Parameters
    ----------
    rows, columns : number, default 1
        Truncated; below 1 no array (Excel's ``#CALC!``, here ``#VALUE!`` with the reason).
    minimum, maximum : number, default 0 and 1
        The bounds; ``minimum > maximum`` is ``#VALUE!`` (Microsoft).
    whole_number : bool or number, default False
        TRUE: whole numbers from ``minimum`` to ``maximum``, both included (bounds that
        are not whole numbers: ``#VALUE!``, Excel's rule for them is not documented).
    rng : numpy.random.Generator, optional
        The generator (tests); a fresh one otherwise.

    Returns
    -------
    float, list of lists of float, or ExcelError
        One number for a 1x1 array.

    Examples
    --------
    >>> out = randarray(3, 2, 0, 100, True, rng=np.random.default_rng(1))
    >>> len(out), len(out[0]), all(0 <= v <= 100 and v == int(v) for r in out for v in r)
    (3, 2, True)
    >>> str(randarray(1, 1, 5, 1))
    '#VALUE!'
    """
    try:
        n_r, n_c = math.trunc(_arg(rows, "rows")), math.trunc(_arg(columns, "columns"))
        lo, hi = _arg(minimum, "min"), _arg(maximum, "max")
        whole = _arg(whole_number, "whole_number") != 0
    except LookupError as ex:
        return ex.args[0]
    except ValueError as ex:
        return ExcelError("#VALUE!", str(ex))
    if n_r < 1 or n_c < 1:
        return ExcelError("#VALUE!", "RANDARRAY: an empty array (Excel's #CALC!)")
    if n_r * n_c > _MAX:
        return ExcelError("#NUM!", "RANDARRAY: larger than a sheet")
    if lo > hi:
        return ExcelError("#VALUE!", f"RANDARRAY: min {lo:g} is above max {hi:g}")
    rng = rng or np.random.default_rng()
    if whole:
        if lo != int(lo) or hi != int(hi):
            return ExcelError("#VALUE!", "RANDARRAY: whole numbers between bounds that are "
                              "not whole numbers")
        values = rng.integers(int(lo), int(hi), size=(n_r, n_c), endpoint=True).astype(float)
    else:
        values = lo + (hi - lo) * rng.random((n_r, n_c))
    if n_r * n_c == 1:
        return float(values[0, 0])
    return values.tolist()
