"""Arguments of the public functions: what each takes; what a blank, text, TRUE, inf become.

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

What each function takes is described once too: :func:`arguments` gives the
arguments of a catalogue function in the Excel order, each an
:class:`Argument` (name, kind: number / keyword / chip / model / table, and the
api default). The Excel functions read their arguments through it, batch
derives the columns each op reads from it.

>>> not_a_number("B", "abc")
('#VALUE!', "B: 'abc' is not a number")
>>> blank_number(None), blank_number(1), blank_number(None, "price")
(inf, 1.0, nan)
>>> from rooflinexl import api
>>> default(api.matmul_time, "n_chips"), default(api.matmul_time, "B") is REQUIRED
(1, True)
>>> [(a.name, a.kind, a.optional) for a in arguments(api.crit_intensity)][1:]
[('chip', 'chip', False), ('tier', 'keyword', True), ('dtype', 'keyword', True)]
"""
from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass

__all__ = ["REQUIRED", "NONE_MEANS", "STAND_IN", "default", "blank_number", "blank_required",
           "not_a_number", "boolean", "not_finite", "blank_keyword", "Argument", "arguments",
           "SIGNATURES", "KINDS", "NUMBER", "KEYWORD", "CHIP", "MODEL", "TABLE"]

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


# ------------------------------------------------------------ what each function takes
#: kinds of argument: a number (or a range of numbers), a keyword (``bf16``, ``hbm``,
#: ``D``, a field or provider name), a chip name, a model name, a table range
NUMBER, KEYWORD, CHIP, MODEL, TABLE = "number", "keyword", "chip", "model", "table"

_TEXT = {"dtype", "weight_dtype", "kv_dtype", "tier", "shard", "result", "kind", "provider",
         "pricing", "field"}
#: the kind of every argument name of the catalogue (a name means the same everywhere)
KINDS = {
    **{n: TABLE for n in ("chips", "models", "prices")},
    "chip": CHIP, "model": MODEL,
    **{n: KEYWORD for n in _TEXT},
    **{n: NUMBER for n in ("B", "D", "F", "E", "k", "n_chips", "flops", "bytes", "intensity",
                           "T", "S", "G", "n_params", "layers", "kv_heads", "head_dim",
                           "tokens", "batch", "mfu", "price", "context", "prompt", "mbu",
                           "seq_len", "usable")},
}

#: each catalogue function's arguments in the Excel order (DESIGN.md section 3): the api
#: function's positional arguments, with the table ranges a host passes where the Excel
#: function takes them (the api takes the tables as keywords)
SIGNATURES = {
    "arith_intensity": ("flops", "bytes"),
    "crit_intensity": ("chips", "chip", "tier", "dtype"),
    "crit_batch": ("chips", "chip", "D", "F", "dtype", "weight_dtype", "tier"),
    "matmul_time": ("chips", "chip", "B", "D", "F", "dtype", "weight_dtype", "n_chips", "shard",
                    "result"),
    "moe_min_batch": ("chips", "chip", "E", "k", "dtype", "weight_dtype", "tier"),
    "net_critical_d": ("chips", "chip", "n_chips", "dtype", "tier"),
    "roofline_flops": ("chips", "chip", "intensity", "tier", "dtype"),
    "roofline_time": ("chips", "chip", "flops", "bytes", "tier", "dtype", "result"),
    "attn_intensity": ("T", "S", "G"),
    "collective_time": ("chips", "chip", "kind", "bytes", "n_chips", "tier"),
    "weight_load_time": ("chips", "chip", "n_params", "dtype", "n_chips"),
    "kv_cache_bytes": ("layers", "kv_heads", "head_dim", "tokens", "batch", "dtype"),
    "cost_per_flop": ("chips", "chip", "dtype", "mfu", "price"),
    "chip_price": ("chips", "chip", "prices", "provider", "pricing", "result"),
    "chip_spec": ("chips", "chip", "field"),
    "model_spec": ("models", "model", "field"),
    "decode_time": ("chips", "chip", "models", "model", "context", "batch", "n_chips", "dtype",
                    "weight_dtype", "kv_dtype", "mbu", "mfu", "result"),
    "prefill_time": ("chips", "chip", "models", "model", "prompt", "batch", "n_chips", "dtype",
                     "weight_dtype", "kv_dtype", "mbu", "mfu", "result"),
    "train_time": ("chips", "chip", "models", "model", "tokens", "n_chips", "mfu", "dtype",
                   "seq_len"),
    "max_batch": ("chips", "chip", "models", "model", "context", "n_chips", "weight_dtype",
                  "kv_dtype", "usable"),
}

#: Excel names the api spells differently (``model`` would shadow :mod:`rooflinexl.model`)
_API_NAME = {"model": "model_name"}


@dataclass(frozen=True)
class Argument:
    """One argument of a catalogue function, as an Excel function and a batch column take it.

    ``name`` is the Excel (and column) name, ``kind`` one of :data:`NUMBER`,
    :data:`KEYWORD`, :data:`CHIP`, :data:`MODEL`, :data:`TABLE`, ``default``
    the api function's default (:data:`REQUIRED` where there is none; a table
    is always required in a cell).
    """

    name: str
    kind: str
    default: object

    @property
    def optional(self) -> bool:
        """Whether a blank (or omitted) argument takes the default."""
        return self.default is not REQUIRED


@functools.cache
def arguments(fn) -> tuple[Argument, ...]:
    """The arguments of the api function ``fn`` in the Excel order (:data:`SIGNATURES`).

    Kinds come from :data:`KINDS`, defaults from ``fn``'s signature.

    Raises
    ------
    KeyError
        ``fn`` is no catalogue function.
    TypeError
        :data:`SIGNATURES` and ``fn``'s signature disagree (an argument
        missing, extra or out of order): the description cannot drift from
        the api.
    """
    names = SIGNATURES[fn.__name__]
    params = inspect.signature(fn).parameters
    positional = [p.name for p in params.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    listed = [_API_NAME.get(n, n) for n in names if KINDS[n] != TABLE]
    if listed != positional or any(n not in params for n in names if KINDS[n] == TABLE):
        raise TypeError(f"SIGNATURES[{fn.__name__!r}] {names} does not match the api "
                        f"signature {tuple(params)}")
    return tuple(Argument(n, KINDS[n], REQUIRED if KINDS[n] == TABLE
                          else params[_API_NAME.get(n, n)].default) for n in names)
