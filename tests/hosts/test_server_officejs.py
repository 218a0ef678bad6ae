"""rooflinexl's xlwings Server project (addin/server) driven as Excel's Office.js does.

Runs in its own process (tests/test_hosts_server.py) with XLWINGS_ON_SERVER=true,
XLWINGS_LICENSE_KEY=noncommercial and XLWINGS_PROJECT_DIR=addin/server set before
xlwings is imported, like ``python addin/server/serve.py`` does.
"""
from __future__ import annotations

import importlib.metadata

import pytest
from _catalogue import CATALOGUE, REPO, WORKED, models_range, params
from _officejs import (
    CALL,
    CHIPS,
    META,
    NA,
    NUM,
    VALUE,
    body,
    cell,
    check_matrix,
    chip_call,
    strict_json,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rooflinexl

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using .httpx. with .starlette.testclient")]


@pytest.fixture(scope="module")
def client():
    from fastapi.testclient import TestClient
    from xlwings_server.main import main_app
    from xlwings_server.routers import xlwings as router

    # The project's custom_functions, not xlwings-server's bundled examples.
    assert router.custom_functions.__file__ == str(
        REPO / "addin" / "server" / "custom_functions" / "__init__.py")
    return TestClient(main_app)


def result(response):
    assert response.status_code == 200, response.text
    return strict_json(response.text)["result"]


# ------------------------------------------------------------------- metadata
def test_metadata_lists_every_catalogue_function(client):
    r = client.get(META)
    assert r.status_code == 200
    meta = strict_json(r.text)
    assert meta["allowErrorForDataTypeAny"] is True
    funcs = {f["name"]: f for f in meta["functions"]}
    assert sorted(funcs) == sorted(f"ROOFLINE.{name}" for name in CATALOGUE)
    assert len(meta["functions"]) == len(CATALOGUE)  # each registered once
    for name in CATALOGUE:
        f = funcs[f"ROOFLINE.{name}"]
        assert f["id"] == name
        assert f["result"] == {"dimensionality": "matrix", "type": "any"}
        assert 0 < len(f["description"]) <= 255 and not f["description"].startswith("Python")
        got = [(p["name"], p.get("optional", False)) for p in f["parameters"]]
        assert got == params(name), name
        for p in f["parameters"]:
            assert p["dimensionality"] == "matrix" and p["type"] == "any"
            assert 0 < len(p["description"]) <= 255, (name, p)
            assert not p["description"].startswith("Positional argument"), (name, p)


def test_javascript_and_manifest_are_served(client):
    js = client.get("/xlwings/custom-functions-code")
    assert js.status_code == 200
    for name in CATALOGUE:
        assert f'CustomFunctions.associate("{name}", {name.lower()});' in js.text
    manifest = client.get("/manifest")
    assert manifest.status_code == 200
    # No global namespace: the functions are =ROOFLINE.CRIT_BATCH(...), as in xlwings Lite.
    assert "<Namespace" not in manifest.text
    assert "custom-functions-meta" in manifest.text


# ------------------------------------------------------------------- numbers
@pytest.mark.parametrize("func, args, expected, tol", WORKED,
                         ids=[f"{w[0]}-{'-'.join(map(str, w[1]))}" for w in WORKED])
def test_worked_numbers_from_the_reference(client, func, args, expected, tol):
    [[value]] = result(client.post(CALL, json=chip_call(func, args)))
    assert value == pytest.approx(expected, abs=tol)


def test_version_is_the_installed_package(client):
    assert result(client.post(CALL, json=body("version", []))) == [
        [importlib.metadata.version("rooflinexl")]]


def test_arith_intensity_without_chips(client):
    # Reference section 4: a bf16 dot product moves 4N bytes for 2N FLOPs -> 0.5.
    assert result(client.post(CALL, json=body("arith_intensity", [[[8192]], [[16384]]]))) \
        == [[0.5]]


# --------------------------------------------------------- optional arguments
CRIT_8192 = 318.155  # CRIT_BATCH(Chips, "H100", 8192, 8192), reference section 5


@pytest.mark.parametrize("blank", [None, [[""]], [[None]]],
                         ids=["omitted", "empty-cell", "null-cell"])
def test_optional_arguments_omitted_or_empty_cell(client, blank):
    # dtype, weight_dtype and tier blank -> bf16, bf16, hbm
    b = chip_call("crit_batch", ["H100", 8192, 8192])
    b["args"] += [blank, blank, blank]
    [[value]] = result(client.post(CALL, json=b))
    assert value == pytest.approx(CRIT_8192, abs=0.001)


def test_trailing_optional_arguments_left_out(client):
    # Excel may send fewer arguments than parameters: the Python defaults apply.
    [[value]] = result(client.post(CALL, json=chip_call("crit_batch", ["H100", 8192, 8192])))
    assert value == pytest.approx(CRIT_8192, abs=0.001)


def test_D_and_F_blank_drop_their_terms(client):
    # B* = I·w/2 with w = 2 bytes (bf16): the H100 ridge point, about 295.2 (section 2).
    b = chip_call("crit_batch", ["H100", None, [[""]]])
    [[value]] = result(client.post(CALL, json=b))
    assert value == pytest.approx(295.2, abs=0.05)


# -------------------------------------------------------------------- ranges
def test_column_of_B_spills_a_column(client):
    # H100 bf16, D = F = 8192: compute-bound from B = 318.2 on (section 5).
    b = chip_call("matmul_time", ["H100", [[256], [512], [1024]], 8192, 8192,
                                  None, None, None, None, "bound"])
    assert result(client.post(CALL, json=b)) == [["memory"], ["compute"], ["compute"]]


def test_row_of_B_spills_a_row(client):
    b = chip_call("matmul_time", ["H100", [[256, 512, 1024]], 8192, 8192,
                                  None, None, None, None, "bound"])
    assert result(client.post(CALL, json=b)) == [["memory", "compute", "compute"]]


def test_column_of_chips_gives_one_result_per_chip(client):
    # Ridge points at HBM: H100 about 295 (section 2), TPU v5e about 240 (section 5).
    b = chip_call("crit_intensity", [[["H100"], ["TPU v5e"]]])
    [[h100], [v5e]] = result(client.post(CALL, json=b))
    assert h100 == pytest.approx(295.2, abs=0.05)
    assert v5e == pytest.approx(240.2, abs=0.05)


def test_row_times_column_broadcasts_to_a_block(client):
    b = chip_call("crit_batch", [[["H100"], ["H100"]], [[8192, 4096]], [[8192, 4096]]])
    out = result(client.post(CALL, json=b))
    assert check_matrix(out) == (2, 2)
    assert out[0] == pytest.approx([CRIT_8192, 344.95], abs=0.01)


def test_ten_thousand_rows(client):
    col = [[b] for b in range(1, 10001)]
    out = result(client.post(CALL, json=chip_call("matmul_time", ["H100", col, 8192, 8192])))
    assert check_matrix(out) == (10000, 1)
    # time = max(T_math, T_hbm) grows with B
    assert all(out[i][0] <= out[i + 1][0] for i in range(9999))


# -------------------------------------------------------------------- errors
def test_unknown_chip_is_a_real_na(client):
    assert result(client.post(CALL, json=chip_call("crit_batch", ["B900", 8192, 8192]))) \
        == [[NA]]


def test_bad_elements_are_errors_and_the_rest_computes(client):
    b = chip_call("crit_batch", [[["H100"], ["B900"], ["H100"]], [[8192], [8192], ["abc"]],
                                 8192])
    [[good], [na], [value]] = result(client.post(CALL, json=b))
    assert good == pytest.approx(CRIT_8192, abs=0.001)
    assert (na, value) == (NA, VALUE)


def test_k_above_E_is_num(client):
    assert result(client.post(CALL, json=chip_call("moe_min_batch", ["TPU v5e", 8, 256]))) \
        == [[NUM]]


def test_blank_cells_in_a_required_keyword_range_are_value(client):
    # kind has no default: a blank cell among others is that element's #VALUE!, ...
    b = chip_call("collective_time", ["H100", [["AllReduce"], [""]], 2 * 8192 * 8192, 8])
    [[t], [blank]] = result(client.post(CALL, json=b))
    # ring over NVLink: 2(n-1)/n bytes / 450 GB/s + NCCL Ring/LL latency 6.6 us + 14 x 0.6 us
    assert t == pytest.approx(2 * 7 / 8 * 2 * 8192 * 8192 / 4.5e11 + 6.6e-6 + 14 * 0.6e-6,
                              rel=1e-3)
    assert blank == VALUE
    # ... and a lone blank cell is a missing argument: a bad call.
    r = client.post(CALL, json=chip_call("collective_time", ["H100", "", 1e9, 8]))
    assert r.status_code == 400 and "kind is required" in r.text


def test_bad_keyword_is_a_400_with_our_message(client):
    r = client.post(CALL, json=chip_call("crit_batch", ["H100", 8192, 8192, "bf17"]))
    assert r.status_code == 400  # xlwings-server: XlwingsError -> 400, message shown, no retry
    assert "bf17" in r.text and "bf16" in r.text


@pytest.mark.parametrize("args, words", [
    ([None, [["H100"]]], ["chips", "header"]),                      # no table
    ([[["chip", "x"], ["H100", 1]], [["H100"]]], ["chips", "hbm_bw"]),  # missing columns
    ([CHIPS, [["H100", "H100", "H100"]], [[1, 2]]], ["1x3", "1x2"]),  # shapes do not broadcast
], ids=["no-table", "missing-columns", "shapes"])
def test_bad_calls_are_400_with_our_message(client, args, words):
    r = client.post(CALL, json=body("crit_batch", args))
    assert r.status_code == 400, r.text
    assert all(w in r.text for w in words), r.text


# ------------------------------------------------------ parity with the API
MODELS = models_range()
PARITY = [
    ("arith_intensity", [8192, 16384], None, (8192, 16384), {}),
    ("crit_intensity", ["H100", "nvlink", "fp8"], "crit_intensity",
     ("H100", "nvlink", "fp8"), {}),
    ("crit_batch", ["TPU v5e", 4096, 16384, "bf16", "int8", "hbm"], "crit_batch",
     ("TPU v5e", 4096, 16384, "bf16", "int8", "hbm"), {}),
    ("matmul_time", ["TPU v5p", 256, 8192, 8192, "bf16", "int8", 4, "D", "upper"],
     "matmul_time", ("TPU v5p", 256, 8192, 8192, "bf16", "int8", 4, "D", "upper"), {}),
    ("matmul_time", ["H100", 4096, 8192, 8192, None, None, 8, "F", "bound"],
     "matmul_time", ("H100", 4096, 8192, 8192), {"n_chips": 8, "shard": "F",
                                                 "result": "bound"}),
    ("moe_min_batch", ["TPU v5p", 256, 8, "fp8", None, "hbm"], "moe_min_batch",
     ("TPU v5p", 256, 8, "fp8"), {}),
    ("net_critical_d", ["H100", 8, "bf16", "nvlink"], "net_critical_d",
     ("H100", 8, "bf16", "nvlink"), {}),
    ("roofline_flops", ["H100", 0.5], "roofline_flops", ("H100", 0.5), {}),
    ("roofline_time", ["H100", 65536, 786432, "hbm", "fp32", "bound"], "roofline_time",
     ("H100", 65536, 786432, "hbm", "fp32", "bound"), {}),
    ("attn_intensity", [4096, 4096, 8], None, (4096, 4096, 8), {}),
    ("collective_time", ["H100", "AllReduce", 134217728, 8], "collective_time",
     ("H100", "AllReduce", 134217728, 8), {}),
    ("weight_load_time", ["TPU v4", 200e9, None, 32], "weight_load_time",
     ("TPU v4", 200e9), {"n_chips": 32}),
    ("kv_cache_bytes", [80, 8, 128, 8192, None, "fp8"], None,
     (80, 8, 128, 8192), {"dtype": "fp8"}),
    ("cost_per_flop", ["H200", "bf16", 0.4], "cost_per_flop", ("H200", "bf16", 0.4), {}),
    ("chip_spec", ["H200", "hbm_bw"], "chip_spec", ("H200", "hbm_bw"), {}),
    ("chip_spec", ["TPU v5e", "vendor"], "chip_spec", ("TPU v5e", "vendor"), {}),
    # whole models (issue 12): the Models range after the chip
    ("decode_time", ["H200", MODELS, "DeepSeek-V3", 4096, 128, 8, "fp8", "fp8", "bf16", 0.8],
     "decode_time", ("H200", "DeepSeek-V3", 4096, 128, 8, "fp8", "fp8", "bf16", 0.8), {}),
    ("prefill_time", ["H100", MODELS, "Llama 3.1 8B", 8192, None, None, None, None, None,
                      None, None, "flops"],
     "prefill_time", ("H100", "Llama 3.1 8B", 8192), {"result": "flops"}),
    ("train_time", ["H100", MODELS, "Llama 3.1 70B", 15e12, 4096, 0.45], "train_time",
     ("H100", "Llama 3.1 70B", 15e12, 4096, 0.45), {}),
    ("max_batch", ["H200", MODELS, "Llama 3.1 70B", 8192, 4], "max_batch",
     ("H200", "Llama 3.1 70B", 8192, 4), {}),
    ("model_spec", [MODELS, "Mixtral 8x7B", "expert_params"], None,
     ("Mixtral 8x7B", "expert_params"), {}),
]


@pytest.mark.parametrize("func, xl_args, chip_aware, api_args, api_kwargs", PARITY,
                         ids=[p[0] for p in PARITY])
def test_server_answers_like_the_python_api(client, func, xl_args, chip_aware, api_args,
                                            api_kwargs):
    if chip_aware:
        b = chip_call(func, xl_args)
    else:
        b = body(func, [cell(a) for a in xl_args])
    [[value]] = result(client.post(CALL, json=b))
    expected = getattr(rooflinexl, func)(*api_args, **api_kwargs)
    if isinstance(expected, str):
        assert value == expected
    else:
        assert value == pytest.approx(expected, rel=1e-12)


def test_every_catalogue_function_has_a_parity_case():
    # CHIP_PRICE takes a second range (Prices); its Excel-vs-API parity is in test_chip_data
    assert {p[0].upper() for p in PARITY} | {"VERSION", "CHIP_PRICE"} == set(CATALOGUE)


# ------------------------------------------------------- property-based sweep
KEYWORDS = ["H100", "TPU v5e", " tpu-v5p ", "h100-sxm", "B900", "", " ", "bf16", "fp8", "int8",
            "int4", "fp4", "fp32", "bf17", "hbm", "vmem", "ici", "nvlink", "dcn", "ib", "pcie",
            "D", "F", "none", "time", "upper", "math", "comms", "bound", "intensity",
            "AllReduce", "all-gather", "ReduceScatter", "hbm_bw", "source", "price_per_hour",
            "#N/A", "#NUM!", "#VALUE!", "#DIV/0!", "abc", "1e3", "8192"]
NUMBERS = st.one_of(
    st.integers(-10**6, 10**6), st.integers(-10**21, 10**21),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, 1, 2, 8, 256, 8192, 0.5, -1, 1e-300, 5e-324, 1e308, -1e308]))
EXCEL_OBJECTS = st.sampled_from([
    {"type": "Error", "basicType": "Error", "basicValue": "#N/A", "errorType": "NotAvailable"},
    {"type": "Error", "basicType": "Error", "basicValue": "#DIV/0!", "errorType": "Div0"},
    {"type": "Double", "basicType": "Double", "basicValue": 45000, "numberFormat": "m/d/yyyy"},
])
CELLS = st.one_of(NUMBERS, st.sampled_from(KEYWORDS), st.text(max_size=6), st.booleans(),
                  st.none(), EXCEL_OBJECTS)


@st.composite
def ranges(draw):
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return [[draw(CELLS) for _ in range(cols)] for _ in range(rows)]


ARGS = st.one_of(CELLS.map(lambda v: [[v]]), ranges())


@st.composite
def calls(draw):
    name = draw(st.sampled_from(sorted(CATALOGUE)))
    args = []
    for p, optional in params(name):
        if p == "chips":
            table = draw(st.one_of(
                st.just(CHIPS), st.just(CHIPS[:3]),
                st.just([[h for h in CHIPS[0] if h != "hbm_bw"]] + [r[:-1] for r in CHIPS[1:]]),
                ARGS, st.none()) if draw(st.integers(0, 5)) == 0 else st.just(CHIPS))
            args.append(table)
        elif optional and draw(st.integers(0, 3)) == 0:
            args.append(None)
        else:
            args.append(draw(ARGS))
    # Excel refuses a formula with too few arguments; trailing optional ones may be absent.
    required = sum(not optional for _, optional in params(name))
    if draw(st.integers(0, 7)) == 0:
        args = args[:draw(st.integers(required, len(args)))]
    return body(name.lower(), args)


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(call=calls())
def test_no_input_gives_a_500_or_a_non_json_number(client, call):
    r = client.post(CALL, json=call)
    assert r.status_code in (200, 400), (r.status_code, r.text, call)
    if r.status_code == 200:
        check_matrix(strict_json(r.text)["result"])
    else:
        assert r.text.strip(), call
