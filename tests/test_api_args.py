"""rooflinexl.api_args: the one description of each function's arguments.

The description (names in the Excel order, kinds, defaults) is read by the Excel
functions (rooflinexl.udfs) and by batch. It is checked here against what DESIGN.md
section 3 says every host must show, written out by hand in tests/hosts/_catalogue.py,
and against the defaults DESIGN.md gives (n_chips 1, dtype bf16, tier hbm, ...).
"""
from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import pytest

from rooflinexl import api, api_args, batch, udfs

_spec = importlib.util.spec_from_file_location(
    "_catalogue", Path(__file__).parent / "hosts" / "_catalogue.py")
_catalogue = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_catalogue)
CATALOGUE, params = _catalogue.CATALOGUE, _catalogue.params

FUNCTIONS = sorted(n.lower() for n in CATALOGUE if n != "VERSION")


@pytest.mark.parametrize("name", FUNCTIONS)
def test_description_is_the_catalogue(name):
    """Names in the Excel order and which are optional, as DESIGN.md section 3 lists them."""
    got = [(a.name, a.optional) for a in api_args.arguments(getattr(api, name))]
    assert got == params(name.upper())


@pytest.mark.parametrize("name", FUNCTIONS)
def test_excel_function_signature_is_the_description(name):
    """The Python signature hosts introspect has the described names, optional ones = None."""
    sig = inspect.signature(getattr(udfs, name)).parameters
    described = api_args.arguments(getattr(api, name))
    assert list(sig) == [a.name for a in described]
    assert [p.default is None for p in sig.values()] == [a.optional for a in described]


def test_kinds_and_defaults_of_matmul_time():
    """DESIGN.md section 3: MATMUL_TIME(chips, chip, B, D, F, [dtype], [weight_dtype],
    [n_chips=1], [shard=none], [result=time])."""
    got = {a.name: (a.kind, a.default) for a in api_args.arguments(api.matmul_time)}
    assert got == {
        "chips": ("table", api_args.REQUIRED), "chip": ("chip", api_args.REQUIRED),
        "B": ("number", api_args.REQUIRED), "D": ("number", api_args.REQUIRED),
        "F": ("number", api_args.REQUIRED), "dtype": ("keyword", "bf16"),
        "weight_dtype": ("keyword", None), "n_chips": ("number", 1),
        "shard": ("keyword", "none"), "result": ("keyword", "time")}


def test_required_keywords_are_kind_and_field():
    """Only COLLECTIVE_TIME's kind and CHIP_SPEC/MODEL_SPEC's field are keywords without a
    default (a blank one is #VALUE!, DESIGN.md section 4)."""
    required = {(fn, a.name) for fn in FUNCTIONS for a in api_args.arguments(getattr(api, fn))
                if a.kind == api_args.KEYWORD and not a.optional}
    assert required == {("collective_time", "kind"), ("chip_spec", "field"),
                        ("model_spec", "field")}


def test_a_description_that_drifts_from_the_api_is_refused(monkeypatch):
    def crit_intensity(chip, dtype="bf16", tier="hbm", *, chips=None, checks=None):
        """Same name, arguments in another order than SIGNATURES lists them."""

    with pytest.raises(TypeError, match="does not match the api signature"):
        api_args.arguments(crit_intensity)


def test_batch_columns_come_from_the_description():
    """An op reads its functions' arguments, minus tables and result (docs/batch.md)."""
    assert batch.OPS["matmul"].inputs == "chip, B, D, F; dtype, weight_dtype, n_chips, shard, tier"
    assert batch.OPS["cost"].inputs == "chip; dtype, mfu"
    assert batch.OPS["train"].inputs == "chip, model, tokens, n_chips; mfu, dtype, seq_len"
    assert set(batch.ARGUMENTS.values()) == {
        "op", "chip", "B", "D", "F", "E", "k", "n_chips", "dtype", "weight_dtype", "shard",
        "tier", "flops", "bytes", "kind", "n_params", "layers", "kv_heads", "head_dim",
        "tokens", "batch", "mfu", "T", "S", "G", "model", "context", "prompt", "kv_dtype",
        "mbu", "seq_len"}
