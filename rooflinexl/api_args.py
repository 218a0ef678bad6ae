"""Arguments of the public functions: defaults, and what a blank, text, a boolean, inf become.

Both edges that take user input element by element — the Excel adapters
(:mod:`rooflinexl.udfs`, one cell at a time or a range) and the scenario
tables (:mod:`rooflinexl.batch`, one column at a time) — apply the same rules,
written here once:

* an argument's default is the one in its :mod:`rooflinexl.api` signature,
  :func:`default` (so ``n_chips`` is 1 in a cell and in a table alike);
* a blank optional number takes its default; a default of None means the term
  vanishes (``D``, ``F`` omitted: infinity), :func:`blank_number`;
* a blank required number is ``#VALUE!`` "B is blank: a number is required",
  :func:`blank_required`;
* text where a number belongs is ``#VALUE!`` "B: 'abc' is not a number",
  :func:`not_a_number`;
* TRUE/FALSE where a number belongs is ``#VALUE!``, :func:`boolean`;
* ±inf or NaN is ``#NUM!`` "B is not a finite number", :func:`not_finite`;
* a blank required keyword (``kind``, ``field``) is ``#VALUE!`` "kind is
  blank", :func:`blank_keyword`.

Keyword lookup itself (``bf16``, ``hbm``, ``allreduce`` ...) is one resolver
type, :class:`rooflinexl.dtypes.Keyword`. Each function returns the Excel error
code and the reason; the callers apply it to an element or to a column mask.

>>> not_a_number("B", "abc")
('#VALUE!', "B: 'abc' is not a number")
>>> blank_number(None), blank_number(1), blank_number(None, "price")
(inf, 1.0, nan)
>>> from rooflinexl import api
>>> default(api.matmul_time, "n_chips"), default(api.matmul_time, "B") is REQUIRED
(1, True)
"""
from __future__ import annotations

import functools
import inspect
import math

__all__ = ["REQUIRED", "NONE_MEANS", "STAND_IN", "default", "blank_number", "blank_required",
           "not_a_number", "boolean", "not_finite", "blank_keyword"]

#: the value a failed element carries through the computation (its result is replaced by the
#: error): a finite, positive number no formula rejects
STAND_IN = 1.0


#: the default of an argument that has none (a blank is an error)
REQUIRED = inspect.Parameter.empty

#: optional numbers whose None default is no vanishing term: a blank element is this value
#: (``price``: no quote, the list price; :func:`rooflinexl.api.cost_per_flop` reads NaN so)
NONE_MEANS = {"price": math.nan}


@functools.cache
def _defaults(fn) -> dict:
    return {name: p.default for name, p in inspect.signature(fn).parameters.items()}


def default(fn, name: str):
    """Default of argument ``name`` of the api function ``fn`` (:data:`REQUIRED`: none).

    Raises ``KeyError`` where ``fn`` has no such argument.
    """
    return _defaults(fn)[name]


def blank_number(default, name: str = "") -> float:
    """The value of a blank optional number ``name``: its default, as a float.

    A default of None means the term vanishes (``D``, ``F``): inf, except the
    arguments of :data:`NONE_MEANS`.
    """
    if default is None:
        return NONE_MEANS.get(name, math.inf)
    return float(default)


def blank_required(name: str, why: str = "") -> tuple[str, str]:
    """``#VALUE!`` of a blank required number (``why``: e.g. " (no B column)")."""
    return "#VALUE!", f"{name} is blank: a number is required{why}"


def not_a_number(name: str, value) -> tuple[str, str]:
    """``#VALUE!`` of text (or another non-number) where a number belongs."""
    return "#VALUE!", f"{name}: {value!r} is not a number"


def boolean(name: str, value=None) -> tuple[str, str]:
    """``#VALUE!`` of TRUE/FALSE where a number belongs (``value`` None: a boolean column)."""
    shown = "TRUE or FALSE" if value is None else "TRUE" if value else "FALSE"
    return "#VALUE!", f"{name} is {shown}: a number is required"


def not_finite(name: str) -> tuple[str, str]:
    """``#NUM!`` of ±inf or NaN (or an integer beyond float range) given as a number."""
    return "#NUM!", f"{name} is not a finite number"


def blank_keyword(name: str, why: str = "") -> tuple[str, str]:
    """``#VALUE!`` of a blank required keyword (``kind``, ``field``)."""
    return "#VALUE!", f"{name} is blank{why}"
