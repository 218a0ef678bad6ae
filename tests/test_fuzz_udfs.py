"""Property-based fuzzing of every Excel function (issue #7, item 4; DESIGN.md section 4).

Each function of :data:`rooflinexl.udfs.FUNCTIONS` is called the way a host
calls it, with random arguments: numbers (0, -0, negatives, tiny, huge, NaN,
±inf, integers beyond float range, numpy scalars), dates (xlwings passes date cells as
``datetime``), text (random, chip names and
aliases in odd spellings, every keyword, Excel error strings), blanks (``None``,
``""``), booleans, and ranges (1-D, 2-D rows, columns and blocks, ragged, empty,
3-D) mixing all of these; the chip table is usually the packaged one, sometimes
a corrupted copy or junk. The properties:

* the only exception is our documented one, ``RooflineInputError`` (a bad call:
  unknown keyword, shapes that do not combine, an unusable chip table);
* the result is a scalar or a rectangular 1-D/2-D list;
* no element is NaN, ±inf or None;
* every error element is an :class:`~rooflinexl.errors.ExcelError` whose value is
  one of DESIGN.md section 4's (``#N/A``, ``#NUM!``, ``#VALUE!``, ``#DIV/0!``),
  or an error value that came in with the arguments and passed through.

Examples per function: 200 (``ROOFLINEXL_FUZZ_EXAMPLES`` to change it).
"""
from __future__ import annotations

import copy
import datetime
import decimal
import inspect
import math
import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rooflinexl import udfs
from rooflinexl.api import MATMUL_RESULTS, MODEL_DERIVED, MODEL_RESULTS
from rooflinexl.chips import load_chips
from rooflinexl.dtypes import DTYPE_ALIASES, DTYPES, TIER_ALIASES, TIERS
from rooflinexl.errors import EXCEL_ERRORS, ExcelError
from rooflinexl.models import load_models

EXAMPLES = int(os.environ.get("ROOFLINEXL_FUZZ_EXAMPLES", "200"))
POLICY_ERRORS = {"#N/A", "#NUM!", "#VALUE!", "#DIV/0!"}  # DESIGN.md section 4

CHIPS = load_chips().to_rows()
NAMES = [r[0] for r in CHIPS[1:]]
FIELDS = list(CHIPS[0])
MODELS = load_models().to_rows()
MODEL_NAMES = [r[0] for r in MODELS[1:]]
MODEL_SPELLINGS = MODEL_NAMES + [f" {n.lower().replace(' ', '-')} " for n in MODEL_NAMES] + [
    "Llama", "", "gpt-oss", "Mixtral-8x7B-v0.1"]
COUNTS = {"calls": 0, "errors_raised": 0, "error_elements": 0, "elements": 0}

KEYWORD_VALUES = {
    "tier": sorted(set(TIERS) | set(TIER_ALIASES)) + ["HBM ", " Nv-Link", "ICI"],
    "dtype": sorted(set(DTYPES) | set(DTYPE_ALIASES)) + ["BF16", " fp-8 ", "Int_8"],
    "result": sorted(set(MATMUL_RESULTS) | set(MODEL_RESULTS)) + ["TIME", " Bound "],
    "kind": ["AllGather", "ReduceScatter", "AllReduce", "all-reduce", "all_gather"],
    "shard": ["none", "D", "F", "d", "f"],
    "field": FIELDS + ["HBM_BW", " price per hour "] + list(MODELS[0]) + list(MODEL_DERIVED),
}
KEYWORD_VALUES["weight_dtype"] = KEYWORD_VALUES["dtype"]
KEYWORD_VALUES["kv_dtype"] = KEYWORD_VALUES["dtype"]
KEYWORDS = sorted({v for vs in KEYWORD_VALUES.values() for v in vs})
CHIP_SPELLINGS = NAMES + [f"  {n.upper().replace(' ', '-')} " for n in NAMES] + [
    "h100 sxm", "H100_SXM5", "tpu  v5e", "B900", "", "H", "TPU"]

special_numbers = st.sampled_from([
    0, 0.0, -0.0, 1, -1, 2, 0.5, 1e-300, -1e-300, 5e-324, 1e308, -1e308, 1.7976931348623157e308,
    2**53 + 1, 10**400, -(10**400), math.nan, math.inf, -math.inf, 8192, 4096, 256, 8,
    np.float64(3.0), np.int64(7), np.float32(1e38), np.nan])
plausible = st.one_of(st.integers(1, 2**20), st.floats(min_value=1e-3, max_value=1e15),
                      st.sampled_from([1, 2, 8, 64, 256, 1024, 4096, 8192, 28672, 1e12]))
numbers = st.one_of(special_numbers, st.floats(allow_nan=True, allow_infinity=True),
                    st.integers(min_value=-(10**20), max_value=10**20),
                    st.floats(min_value=-1e6, max_value=1e6), plausible, plausible, plausible)
texts = st.one_of(st.sampled_from(KEYWORDS), st.sampled_from(CHIP_SPELLINGS),
                  st.text(max_size=12), st.sampled_from(["1e3", "12", " ", "TRUE", "#N/A?"]))
errors = st.one_of(st.sampled_from(EXCEL_ERRORS),
                   st.sampled_from(EXCEL_ERRORS).map(lambda c: ExcelError(c, "from input")))
blanks = st.sampled_from([None, "", "   "])
#: anything a cell can hold
elements = st.one_of(numbers, texts, errors, blanks, st.booleans(),
                     st.sampled_from([np.bool_(True), datetime.datetime(2024, 5, 1, 12, 30),
                                      datetime.date(2024, 5, 1), decimal.Decimal("8192")]))


def weighted(*pairs):
    """Choose among strategies with integer weights (a drawn index, not ``one_of``: one_of
    flattens and de-duplicates its branches, which made the data generation depend on
    Hypothesis's strategy cache)."""
    table = [strategy for weight, strategy in pairs for _ in range(weight)]
    return st.integers(0, len(table) - 1).flatmap(lambda i: table[i])


def element_for(name: str):
    """Cell values for parameter ``name``: mostly sensible, sometimes anything."""
    if name == "chip":
        good = st.sampled_from(CHIP_SPELLINGS)
    elif name == "model":
        good = st.sampled_from(MODEL_SPELLINGS)
    elif name in KEYWORD_VALUES:
        good = st.one_of(st.sampled_from(KEYWORD_VALUES[name]), st.none())
    else:
        good = numbers
    return weighted((3 if good is numbers else 12, good), (1, elements))


SHAPES = [(), (), (3,), (2, 1), (1, 3), (2, 3), (4, 1)]
BAD_RANGES = [[], [[]], [[1.0, 2.0], [3.0]], [[[1.0]]], [1.0, [2.0]]]


def block(elem, shape):
    """A host range of ``shape`` (``()`` is a single cell)."""
    if not shape:
        return elem
    if len(shape) == 1:
        return st.lists(elem, min_size=shape[0], max_size=shape[0])
    return st.lists(st.lists(elem, min_size=shape[1], max_size=shape[1]),
                    min_size=shape[0], max_size=shape[0])


def ranges(elem=elements, shape=()):
    """A host argument: a single cell or a range of the call's ``shape``, sometimes another
    shape (which may not combine), rarely ragged, empty or 3-D (bad calls)."""
    pairs = [(3, elem), (6, block(elem, shape)),
             (1, st.sampled_from(SHAPES).flatmap(lambda sh: block(elem, sh)))]
    if elem is elements:
        pairs.append((1, st.sampled_from(range(len(BAD_RANGES))).map(
            lambda i: copy.deepcopy(BAD_RANGES[i]))))
    return weighted(*pairs)


@st.composite
def tables(draw, packaged):
    """Mostly ``packaged`` (a table as a host passes it); sometimes corrupted cells, a subset
    of rows, or junk."""
    kind = ["packaged"] * 12 + ["corrupt", "subset", "junk"]
    kind = kind[draw(st.integers(0, len(kind) - 1))]
    if kind == "packaged":
        return packaged
    rows = [list(r) for r in packaged]
    if kind == "subset":
        keep = draw(st.lists(st.integers(1, len(rows) - 1), min_size=1, max_size=4, unique=True))
        return [rows[0]] + [rows[i] for i in keep]
    if kind == "corrupt":
        for _ in range(draw(st.integers(1, 6))):
            i = draw(st.integers(1, len(rows) - 1) if draw(st.integers(0, 5)) else st.just(0))
            j = draw(st.integers(0, len(rows[0]) - 1))
            rows[i][j] = draw(elements)
        return rows
    return draw(ranges())


def chip_tables():
    """The chip table, mostly the packaged one (:func:`tables`)."""
    return tables(CHIPS)


def model_tables():
    """The model table, mostly the packaged one (:func:`tables`)."""
    return tables(MODELS)


def arguments(fn):
    """Strategy for (args, kwargs) of ``fn``: every parameter given, blank or omitted."""
    params = list(inspect.signature(fn).parameters.values())

    @st.composite
    def build(draw):
        shape = draw(st.sampled_from(SHAPES))
        args, kwargs = [], {}
        by_name = False  # once a parameter is omitted or named, the rest are named too
        for p in params:
            if p.name == "chips":
                value = draw(chip_tables())
            elif p.name == "models":
                value = draw(model_tables())
            else:
                value = draw(weighted((15, ranges(element_for(p.name), shape)),
                                      (1, ranges())))
            optional = p.default is not inspect.Parameter.empty
            if optional and draw(st.integers(0, 3)) == 0:
                by_name = True
                continue  # omitted
            by_name = by_name or (optional and draw(st.booleans()))
            if by_name:
                kwargs[p.name] = value
            else:
                args.append(value)
        return args, kwargs
    return build()


def _errors_in(x, out: set) -> set:
    if isinstance(x, (list, tuple)):
        for v in x:
            _errors_in(v, out)
    elif isinstance(x, str) and x in EXCEL_ERRORS:
        out.add(str(x))
    return out


_ERROR_LIKE = re.compile(r"#[A-Z][A-Z0-9/_.]*[!?]?")


def check_result(name, result, args, kwargs) -> None:
    """The properties of a host value, element by element."""
    if isinstance(result, list):
        assert result, f"{name}: empty result"
        if isinstance(result[0], list):
            width = len(result[0])
            assert width and all(isinstance(r, list) and len(r) == width for r in result), \
                f"{name}: ragged result {result!r}"
            flat = [v for r in result for v in r]
        else:
            flat = result
    else:
        flat = [result]
    incoming = _errors_in([args, list(kwargs.values())], set())
    for v in flat:
        COUNTS["elements"] += 1
        assert v is not None, f"{name}: None in the result"
        assert not isinstance(v, (list, tuple, np.ndarray)), f"{name}: nested result {v!r}"
        if isinstance(v, float):
            assert math.isfinite(v), f"{name}: {v!r} in the result"
        elif isinstance(v, bool):
            pass
        elif isinstance(v, str):
            # an error value, or text that reads as one ("#N/A", "#BUSY!"); a text such as
            # "#" or "# of chips" read from the user's table is text
            if isinstance(v, ExcelError) or v in EXCEL_ERRORS or _ERROR_LIKE.fullmatch(v):
                COUNTS["error_elements"] += 1
                assert isinstance(v, ExcelError), f"{name}: plain string error {v!r}"
                assert str(v) in POLICY_ERRORS or str(v) in incoming, \
                    f"{name}: error {v!r} ({v.reason}) is not a DESIGN.md section 4 value"
                assert v.reason, f"{name}: error {v!r} without a reason"
        else:
            raise AssertionError(f"{name}: element {v!r} of type {type(v).__name__}")


FUNCS = sorted(udfs.FUNCTIONS.items())


@pytest.mark.slow
@pytest.mark.parametrize("name, fn", FUNCS, ids=[n for n, _ in FUNCS])
def test_fuzz_excel_function(name, fn):
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(arguments(fn))
    def run(call):
        args, kwargs = call
        COUNTS["calls"] += 1
        try:
            result = fn(*args, **kwargs)
        except udfs.RooflineInputError as exc:  # the documented bad-call exception
            COUNTS["errors_raised"] += 1
            assert str(exc) and "\n" not in str(exc).strip()
            return
        check_result(name, result, args, kwargs)

    run()


def test_fuzz_counts_reported():
    """Runs after the fuzz tests of this module: they reached both the computing and the
    error paths (a fuzzer whose every call raised, or none of whose elements computed,
    would pass the properties above without testing anything). pytest -s shows the totals."""
    if not COUNTS["calls"]:
        pytest.skip("the fuzz tests of this module did not run (selected alone)")
    print(f"\nudf fuzz: {COUNTS}")
    assert COUNTS["calls"] >= len(FUNCS) * min(EXAMPLES, 50)  # every function was fuzzed
    assert COUNTS["errors_raised"] < 0.8 * COUNTS["calls"]  # most calls returned a value
    computed = COUNTS["elements"] - COUNTS["error_elements"]
    assert computed >= 0.05 * COUNTS["elements"]  # numbers came out, not only errors
    assert COUNTS["error_elements"] >= 0.05 * COUNTS["elements"]  # bad inputs did reach cells


_HEAD = ["chip", "bf16_flops", "hbm_bw"]


@pytest.mark.parametrize("chips, chip, refused", [
    # a table cell we cannot read is a bad call naming its row and column (never a default)
    ([_HEAD, ["X", float("nan"), 1.0]], "X", "row 2, column 'bf16_flops'"),
    ([_HEAD, ["X", -1.0, 0.0]], "X", "row 2, column 'bf16_flops'"),
    ([_HEAD, ["X", "fast", True]], "X", "row 2, column 'bf16_flops'"),
    ([_HEAD, [None, 1.0, 1.0]], [[None], ["X"]], "row 2, column 'chip'"),
    # found by the fuzzer: an int beyond float range in the table raised OverflowError
    ([_HEAD, ["X", 10**400, 1.0]], "X", "row 2, column 'bf16_flops'"),
])
def test_degenerate_chip_tables_are_refused_by_every_function(chips, chip, refused):
    """Corner tables found while fuzzing, kept as regressions: every function that reads
    the chip table refuses them with a message that names the bad cell."""
    from rooflinexl.prices import load_prices

    tried = 0
    for _name, fn in FUNCS:
        params = list(inspect.signature(fn).parameters)
        if params[:2] != ["chips", "chip"]:
            continue
        extra = {"kind": "AllReduce", "field": "hbm_bw", "models": MODELS,
                 "model": "Llama 3.1 8B", "prices": load_prices().to_rows()}
        call = [chips, chip] + [extra.get(p, 8.0) for p in params[2:]
                                if inspect.signature(fn).parameters[p].default
                                is inspect.Parameter.empty]
        with pytest.raises(udfs.RooflineInputError, match=re.escape(refused)):
            fn(*call)
        tried += 1
    assert tried >= 10


def test_extreme_but_valid_chip_table():
    """bf16_flops 1e308 FLOP/s and hbm_bw 1e-308 B/s are numbers a table may hold; the
    ridge point 1e308 / 1e-308 = 1e616 FLOP/byte is beyond float range: #NUM!, while the
    spec itself reads back exactly."""
    chips = [_HEAD, ["X", 1e308, 1e-308]]
    assert udfs.chip_spec(chips, "X", "hbm_bw") == 1e-308
    assert udfs.chip_spec(chips, "X", "bf16_flops") == 1e308
    assert udfs.crit_intensity(chips, "X") == "#NUM!"
    # 8 FLOP and 8 bytes: 8/1e308 s of math, 8/1e-308 = 8e308 s of memory: beyond float range
    assert udfs.roofline_time(chips, "X", 8.0, 8.0) == "#NUM!"
    assert udfs.roofline_time(chips, "X", 8.0, 0.0) == 8 / 1e308  # no bytes: the math term
