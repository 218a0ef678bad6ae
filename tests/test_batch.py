"""rooflinexl.batch and the batch/sweep commands: scenario tables, vectorised.

Expected numbers come from the reference's worked examples (reference/000_*.txt)
or are derived by hand below from datasheet figures (H100 SXM: dense bf16
9.89e14 FLOP/s, vector fp32 3.35e13, HBM 3.35e12 B/s, NVLink 4.5e11 B/s one
way; TPU v5e: bf16 1.97e14, int8 3.94e14, HBM 8.2e11, ICI 4.5e10; H200 10 USD/h).
"""
from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from rooflinexl import api, batch
from rooflinexl.batch import BatchInputError, evaluate, parse_values, sweep
from rooflinexl.cli import main

H100_PEAK, H100_VEC, H100_HBM, H100_ICI = 9.89e14, 3.35e13, 3.35e12, 4.5e11


def approx(x, rel=1e-9):
    return pytest.approx(x, rel=rel)


# ----------------------------------------------------------------- worked numbers
def test_reference_critical_batches_h100():
    out = evaluate(pd.DataFrame({"op": "crit", "chip": "H100", "D": [8192, 4096, 1024],
                                 "F": [8192, 4096, 1024]}))
    assert out["crit_batch"].round(2).tolist() == [318.16, 344.95, 697.28]
    # the ridge point itself: 9.89e14 / 3.35e12
    assert out["crit_intensity"].tolist() == [approx(H100_PEAK / H100_HBM)] * 3


def test_reference_matmul_crit_batch_column_equals_crit_op():
    out = evaluate(pd.DataFrame({"chip": "H100", "B": 1, "D": [8192, 4096, 1024],
                                 "F": [8192, 4096, 1024]}))
    assert out["crit_batch"].round(2).tolist() == [318.16, 344.95, 697.28]


def test_reference_v5e_int8_crit_batch():
    # int8 X and W, int8 peak: I = 3.94e14 / 8.2e11; B* = 1 / (2/I - 1/16384 - 1/4096)
    i = 3.94e14 / 8.2e11
    hand = 1 / (2 / i - 1 / 16384 - 1 / 4096)
    out = evaluate(pd.DataFrame({"op": ["crit"], "chip": ["TPU v5e"], "dtype": ["int8"],
                                 "D": [4096], "F": [16384]}))
    assert out.loc[0, "crit_batch"] == approx(hand)
    assert round(out.loc[0, "crit_batch"], 1) == 259.3


def test_reference_v5e_moe_and_net():
    out = evaluate(pd.DataFrame({
        "op": ["moe", "net"], "chip": ["TPU v5e", "TPU v5e"], "E": [256, None],
        "k": [8, None], "weight_dtype": ["int8", None], "n_chips": [None, 2]}))
    # MoE: I·E·w / (2k) with I = 1.97e14 / 8.2e11, w = 1 (int8 weights, bf16 compute)
    assert out.loc[0, "moe_min_batch"] == approx(1.97e14 / 8.2e11 * 256 * 1 / (2 * 8))
    assert round(out.loc[0, "moe_min_batch"], 1) == 3843.9
    # network critical D: a (n-1) peak / ici_bw = 2 * 1 * 1.97e14 / 4.5e10
    assert out.loc[1, "net_critical_d"] == approx(2 * 1.97e14 / 4.5e10)
    assert round(out.loc[1, "net_critical_d"], 1) == 8755.6
    assert out["error"].isna().all()


def test_reference_fp32_add_on_h100():
    n = 1024 ** 3
    out = evaluate(pd.DataFrame({"op": ["roofline"], "chip": ["H100"], "flops": [n],
                                 "bytes": [12 * n], "dtype": ["fp32"]}))
    row = out.loc[0]
    assert row["t_math"] == approx(n / H100_VEC)
    assert row["t_hbm"] == approx(12 * n / H100_HBM)
    assert math.isnan(row["t_comms"])  # an hbm roofline has no network term
    assert round(row["time"] * 1e3, 2) == 3.85
    assert row["bound"] == "memory"
    assert row["intensity"] == approx(1 / 12)


def test_matmul_by_hand_h100():
    # bf16 [256, 8192] @ [8192, 8192] on one H100
    B, D, F = 256, 8192, 8192
    t_math = 2 * B * D * F / H100_PEAK
    nbytes = 2 * B * D + 2 * D * F + 2 * B * F
    t_hbm = nbytes / H100_HBM
    out = evaluate(pd.DataFrame({"chip": ["H100"], "B": [B], "D": [D], "F": [F]})).loc[0]
    assert out["t_math"] == approx(t_math)
    assert out["t_hbm"] == approx(t_hbm)
    assert out["t_comms"] == 0
    assert out["time"] == approx(max(t_math, t_hbm))
    assert out["upper"] == approx(t_math + t_hbm)
    assert out["bound"] == "memory"
    assert out["intensity"] == approx(2 * B * D * F / nbytes)
    assert out["flops_per_s"] == approx(2 * B * D * F / max(t_math, t_hbm))


def test_matmul_sharded_d_by_hand():
    # 8 H100, D sharded: per chip (aBD + wDF)/n + aBF bytes; ring AllReduce 2(n-1)/n aBF / ici
    B, D, F, n = 4096, 8192, 8192, 8
    out = evaluate(pd.DataFrame({"chip": ["H100"], "B": [B], "D": [D], "F": [F],
                                 "n_chips": [n], "shard": ["D"]})).loc[0]
    assert out["t_math"] == approx(2 * B * D * F / (n * H100_PEAK))
    assert out["t_hbm"] == approx(((2 * B * D + 2 * D * F) / n + 2 * B * F) / H100_HBM)
    # + NCCL's Ring/LL latency: 6.6 us per call + 2(n-1) ring steps of 0.6 us over NVLink
    assert out["t_comms"] == approx(2 * (n - 1) / n * 2 * B * F / H100_ICI + 6.6e-6
                                    + 2 * (n - 1) * 0.6e-6)
    assert out["bound"] == "network"


def test_other_ops_by_hand():
    out = evaluate(pd.DataFrame({
        "op": ["cost", "kv_cache", "collective", "weight_load", "attention"],
        "chip": ["H200", None, "H100", "TPU v4", None],
        "layers": [None, 80, None, None, None], "kv_heads": [None, 8, None, None, None],
        "head_dim": [None, 128, None, None, None], "tokens": [None, 8192, None, None, None],
        "kind": [None, None, "AllReduce", None, None],
        "bytes": [None, None, 2 * 8192 * 8192, None, None],
        "n_chips": [None, None, 8, 32, None], "n_params": [None, None, None, 200e9, None],
        "T": [None, None, None, None, 4096], "S": [None, None, None, None, 4096],
        "G": [None, None, None, None, 8]}))
    assert out["error"].isna().all(), out["error"].tolist()
    # 10 USD/h / (3600 s * 9.89e14 FLOP/s), per 1e18 FLOP
    assert out.loc[0, "usd_per_1e18_flop"] == approx(10 / (3600 * 9.89e14) * 1e18)
    assert out.loc[1, "kv_cache_bytes"] == 2 * 80 * 8 * 128 * 8192 * 2
    # ring AllReduce: 2(n-1)/n bytes / bw + NCCL Ring/LL 6.6 us + 14 steps of 0.6 us
    assert out.loc[2, "time"] == approx(2 * 7 / 8 * 2 * 8192 * 8192 / H100_ICI + 6.6e-6
                                        + 14 * 0.6e-6)
    assert out.loc[2, "t_comms"] == out.loc[2, "time"]
    assert out.loc[3, "time"] == approx(200e9 * 2 / (32 * 1.2e12))  # about 10 ms
    assert out.loc[4, "intensity"] == approx(4096 * 4096 * 8 / (4096 * 8 + 4096))


def test_batch_equals_api_for_mixed_keywords():
    rng = np.random.default_rng(1)
    n = 2000
    chips = np.array(["H100", "TPU v5e", "b200", "TPU-v5p"], dtype=object)[rng.integers(0, 4, n)]
    dt = np.array(["bf16", "int8", "BF16"], dtype=object)[rng.integers(0, 3, n)]
    B = rng.integers(1, 5000, n).astype(float)
    out = evaluate(pd.DataFrame({"chip": chips, "dtype": dt, "B": B, "D": 4096, "F": 16384}))
    assert out["error"].isna().all()
    for r in ("time", "hbm", "bound"):
        col = {"hbm": "t_hbm"}.get(r, r)
        assert out[col].tolist() == api.matmul_time(chips, B, 4096, 16384, dt, result=r).tolist()
    assert out["crit_batch"].tolist() == api.crit_batch(chips, 4096, 16384, dt).tolist()


# ------------------------------------------------------------------- bad rows
def _mixed():
    return pd.DataFrame({
        "scenario": ["good", "unknown chip", "k>E", "text B", "good moe", "bad dtype"],
        "op": ["matmul", "matmul", "moe", "matmul", "moe", "matmul"],
        "chip": ["H100", "B900", "TPU v5e", "H100", "TPU v5e", "H100"],
        "B": [256, 256, None, "abc", None, 256],
        "D": [8192] * 6, "F": [8192] * 6,
        "E": [None, None, 8, None, 256, None], "k": [None, None, 16, None, 8, None],
        "weight_dtype": [None, None, None, None, "int8", None],
        "dtype": [None, None, None, None, None, "bf17"],
    })


def test_bad_rows_get_reasons_and_others_compute():
    out = evaluate(_mixed())
    err = out["error"].tolist()
    assert pd.isna(err[0]) and pd.isna(err[4])
    assert err[1].startswith("#N/A: unknown chip 'B900' (known: ")
    assert "H100" in err[1]
    assert err[2] == "#NUM!: k (experts per token) must not exceed E (experts)"
    assert err[3] == "#VALUE!: B: 'abc' is not a number"
    assert err[5].startswith("#VALUE!: dtype 'bf17' is not one of bf16")
    # bad rows: every result empty; good rows computed
    for i in (1, 3, 5):
        assert out.loc[i, ["time", "t_math", "crit_batch"]].isna().all()
        assert pd.isna(out.loc[i, "bound"])
    assert math.isnan(out.loc[2, "moe_min_batch"])
    assert out.loc[0, "bound"] == "memory"
    assert round(out.loc[4, "moe_min_batch"], 1) == 3843.9


def test_a_bad_row_costs_the_others_nothing():
    good = _mixed().iloc[[0, 4]]
    alone = evaluate(good)
    together = evaluate(_mixed()).iloc[[0, 4]]
    pd.testing.assert_frame_equal(together[alone.columns], alone, check_dtype=False)


def test_order_index_and_passthrough_preserved():
    df = _mixed()
    df.index = [10, 3, 7, 1, 99, 5]
    df["Notes"] = [f"n{i}" for i in range(6)]
    out = evaluate(df, passthrough=["notes"])  # declared (any case); 'scenario' is a label
    assert out.index.tolist() == [10, 3, 7, 1, 99, 5]
    assert out.columns[:len(df.columns)].tolist() == df.columns.tolist()
    pd.testing.assert_frame_equal(out[df.columns], df)  # inputs untouched, text B included
    assert out["scenario"].tolist() == df["scenario"].tolist()


def test_input_frame_not_modified():
    df = pd.DataFrame({"chip": ["H100", "H100"], "B": [1.0, np.inf], "D": 8192, "F": 8192})
    before = df.copy()
    out = evaluate(df)
    pd.testing.assert_frame_equal(df, before)
    assert out.loc[1, "error"] == "#NUM!: B is not a finite number"


def test_case_insensitive_columns_and_missing_op():
    df = pd.DataFrame({"CHIP": ["TPU v5e"], "b": [512], "d": [4096], "f": [16384],
                       " Weight-Dtype ": ["int8"], "N Chips": [1]})
    out = evaluate(df)
    ref = api.matmul_time("TPU v5e", 512, 4096, 16384, weight_dtype="int8")
    assert out.loc[0, "time"] == approx(ref)
    assert out.loc[0, "crit_batch"] == approx(api.crit_batch("TPU v5e", 4096, 16384,
                                                             weight_dtype="int8"))


def test_weight_dtype_blank_means_the_rows_dtype():
    df = pd.DataFrame({"op": "crit", "chip": "TPU v5e", "D": 4096, "F": 16384,
                       "dtype": ["int8", "int8", "bf16"], "weight_dtype": [None, "int8", None]})
    out = evaluate(df)["crit_batch"].tolist()
    assert out[0] == out[1] == approx(api.crit_batch("TPU v5e", 4096, 16384, "int8"))
    assert out[2] == approx(api.crit_batch("TPU v5e", 4096, 16384))


def test_secondary_error_keeps_the_row():
    # D = F = 8: a/F + a/D = 0.5 > 2/I, no batch reaches the roof, but the time is fine
    out = evaluate(pd.DataFrame({"chip": ["H100"], "B": [8], "D": [8], "F": [8]})).loc[0]
    assert out["time"] > 0 and out["bound"] == "memory"
    assert math.isnan(out["crit_batch"])
    assert out["error"].startswith("#NUM!: crit_batch: no batch size reaches the roof")


def test_blank_and_unknown_op():
    df = pd.DataFrame({"op": [None, "fly", "MatMul_Time"], "chip": "H100", "B": 1, "D": 8,
                       "F": 8192})
    out = evaluate(df)
    assert out.loc[0, "time"] == out.loc[2, "time"] > 0  # blank op with B, D, F: matmul
    assert out.loc[1, "error"].startswith("#VALUE!: op 'fly' is not one of matmul, crit")
    no_bdf = evaluate(pd.DataFrame({"op": [None, "net"], "chip": "H100", "n_chips": 4}))
    assert no_bdf.loc[0, "error"].startswith("#VALUE!: op is blank")
    assert no_bdf.loc[1, "net_critical_d"] > 0


def test_blank_required_number_and_missing_column():
    out = evaluate(pd.DataFrame({"op": ["moe", "moe"], "chip": "TPU v5e", "E": [None, 8]}))
    assert out.loc[0, "error"] == "#VALUE!: E is blank: a number is required"
    assert out.loc[1, "error"] == "#VALUE!: k is blank: a number is required (no k column)"


def test_bad_tables_raise():
    with pytest.raises(BatchInputError, match="no op column"):
        evaluate(pd.DataFrame({"chip": ["H100"], "B": [1]}))
    with pytest.raises(BatchInputError, match="'B' and 'b' both give the argument 'B'"):
        evaluate(pd.DataFrame({"chip": ["H100"], "B": [1], "b": [1], "D": 1, "F": 1}))


def test_reevaluating_a_result_is_idempotent_and_chunks_agree():
    first = evaluate(_mixed())
    pd.testing.assert_frame_equal(evaluate(first), first)
    chunked = evaluate(_mixed(), chunk_rows=4)
    pd.testing.assert_frame_equal(chunked, first)


def test_reevaluating_a_clean_result_keeps_one_of_each_column():
    """One group, no error anywhere: the result columns of the input are still replaced."""
    first = evaluate(pd.DataFrame({"chip": ["H100", "TPU v5e"], "B": [256, 4096], "D": 8192,
                                   "F": 8192}))
    assert first["error"].isna().all()
    again = evaluate(first)
    assert list(again.columns) == list(first.columns)
    pd.testing.assert_frame_equal(again, first)


def test_empty_table_and_ops_argument():
    out = evaluate(pd.DataFrame({"chip": pd.Series([], dtype=object), "B": [], "D": [], "F": []}))
    assert len(out) == 0 and "time" in out.columns and "error" in out.columns
    out = evaluate(pd.DataFrame({"op": ["net"], "chip": ["H100"], "n_chips": [2]}),
                   ops=["net", "moe"])
    assert list(out.columns[-3:]) == ["moe_min_batch", "net_critical_d", "error"]


def test_one_api_call_per_op_group_not_per_row(monkeypatch):
    calls = []
    real = api.crit_batch

    @functools.wraps(real)
    def counting(*a, **k):
        calls.append(np.shape(a[1]))
        return real(*a, **k)
    monkeypatch.setattr(api, "crit_batch", counting)
    n = 5000
    df = pd.DataFrame({"op": np.where(np.arange(n) % 2, "matmul", "crit"),
                       "chip": np.where(np.arange(n) % 3, "H100", "TPU v5e"),
                       "B": 64, "D": 4096, "F": 4096})
    out = evaluate(df)
    assert out["error"].isna().all()
    assert sorted(calls) == [(n // 2,), (n // 2,)]


# ---------------------------------------------------------------------- sweep
def test_sweep_is_the_cartesian_product_in_order():
    out = sweep(chip=["H100", "TPU v5e"], B=[128, 512, 2048], D=8192, F=8192)
    assert len(out) == 6
    assert out["chip"].tolist() == ["H100"] * 3 + ["TPU v5e"] * 3
    assert out["B"].tolist() == [128, 512, 2048] * 2
    assert out["bound"].tolist() == ["memory", "compute", "compute"] * 2
    assert out["error"].isna().all()


def test_parse_values():
    assert parse_values("1:4096:*4") == [1, 4, 16, 64, 256, 1024, 4096]
    assert parse_values("0:10:5,12") == [0, 5, 10, 12]
    assert parse_values("bf16, int8") == ["bf16", "int8"]
    assert parse_values("1e3,2.5") == [1000.0, 2.5]
    with pytest.raises(BatchInputError):
        parse_values("0:10:*2")


# ------------------------------------------------------------------------ CLI
@pytest.fixture
def scenarios():
    return _mixed()


@pytest.mark.parametrize("suffix", ["csv", "xlsx", "parquet"])
def test_cli_batch_round_trip(tmp_path, scenarios, suffix):
    if suffix == "parquet":
        pytest.importorskip("pyarrow")
    src = tmp_path / f"in.{suffix}"
    dst = tmp_path / f"out.{suffix}"
    batch.write_table(scenarios, src)
    res = CliRunner().invoke(main, ["batch", str(src), "-o", str(dst)])
    assert res.exit_code == 0, res.output
    assert "6 scenarios, 4 with an error" in res.output
    back = batch.read_table(dst)
    assert back["scenario"].tolist() == scenarios["scenario"].tolist()
    assert back["error"].isna().tolist() == [True, False, False, False, True, False]
    assert back["error"][1].startswith("#N/A: unknown chip 'B900'")
    assert back["error"][3] == "#VALUE!: B: 'abc' is not a number"
    assert back["bound"][0] == "memory"
    assert round(back["moe_min_batch"][4], 1) == 3843.9
    expected = evaluate(batch.read_table(src))
    assert np.allclose(back["time"], expected["time"], equal_nan=True)


def test_cli_batch_strict_and_stdout(tmp_path, scenarios):
    src = tmp_path / "in.csv"
    scenarios.to_csv(src, index=False)
    res = CliRunner().invoke(main, ["batch", str(src), "-o", "-", "--strict"])
    assert res.exit_code == 1
    assert res.stdout.splitlines()[0].startswith("scenario,op,chip,B,D,F,E,k,")
    assert "6 scenarios, 4 with an error -> -" in res.stderr
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"chip": ["H100"], "B": [1]}).to_csv(bad, index=False)
    res = CliRunner().invoke(main, ["batch", str(bad), "-o", str(tmp_path / "x.csv")])
    assert res.exit_code == 1 and "no op column" in res.output


def test_cli_batch_progress_chunks(tmp_path, monkeypatch):
    import rooflinexl.cli

    monkeypatch.setattr(rooflinexl.cli, "_CHUNK_ROWS", 16)
    src = tmp_path / "in.csv"
    pd.DataFrame({"chip": ["H100", "TPU v5e"] * 50, "B": range(1, 101), "D": 4096,
                  "F": 4096}).to_csv(src, index=False)
    res = CliRunner().invoke(main, ["batch", str(src), "-o", str(tmp_path / "o.csv"),
                                    "--progress"])
    assert res.exit_code == 0, res.output
    assert "100 scenarios" in res.stderr and "100/100" in res.stderr  # tqdm over the rows
    out = pd.read_csv(tmp_path / "o.csv")
    assert len(out) == 100 and out["error"].isna().all()
    assert out["time"].tolist() == evaluate(pd.read_csv(src))["time"].tolist()


def test_cli_sweep_writes_table_and_plot(tmp_path):
    out, png = tmp_path / "s.parquet", tmp_path / "s.png"
    pytest.importorskip("pyarrow")
    res = CliRunner().invoke(main, ["sweep", "chip=H100,TPU v5e", "B=16:4096:*4", "D=8192",
                                    "F=8192", "-o", str(out), "--plot", str(png),
                                    "--tier", "hbm", "--tier", "nvlink"])
    assert res.exit_code == 0, res.output
    df = pd.read_parquet(out)
    assert len(df) == 10 and df["error"].isna().all()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    res = CliRunner().invoke(main, ["sweep", "B"])
    assert res.exit_code == 2 and "NAME=VALUES" in res.output


# ----------------------------------------------------------------------- dask
def test_dask_path_equals_pandas_path():
    dd = pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    df = pd.concat([_mixed()] * 4, ignore_index=True)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        ddf = dd.from_pandas(df, npartitions=3)
        lazy = evaluate(ddf)
        assert hasattr(lazy, "compute")
        got = lazy.compute()
        pd.testing.assert_frame_equal(got, evaluate(ddf.compute()))  # same code, same frame
        assert list(lazy.dtypes.items()) == list(got.dtypes.items())  # meta matches
    results = [c for c in got.columns if c not in df.columns]
    pd.testing.assert_frame_equal(got[results], evaluate(df)[results])
    assert got["scenario"].tolist() == df["scenario"].tolist()


def _recipe_table(n=400):
    """Matmul and MoE rows over three chips (one unknown), numeric columns typed for parquet."""
    i = np.arange(n)
    moe = i % 5 == 4
    return pd.DataFrame({
        "scenario": [f"s{j}" for j in i],
        "op": np.where(moe, "moe", "matmul"),
        "chip": np.array(["H100", "TPU v5e", "B900", "H100"])[i % 4],
        "B": np.where(moe, np.nan, 2.0 ** (i % 12)),
        "D": 8192, "F": 8192,
        "E": np.where(moe, 256.0, np.nan), "k": np.where(moe, 8.0, np.nan),
    })


def test_dask_recipe_of_the_docs_on_a_two_process_cluster(tmp_path):
    """docs/batch.md as written: ``evaluate(dd.read_parquet(dir)).to_parquet(out)`` on a
    LocalCluster of 2 worker processes, 4 partitions; equal to the pandas result."""
    import dask.dataframe as dd
    import distributed

    df = _recipe_table()
    dd.from_pandas(df, npartitions=4).to_parquet(tmp_path / "scenarios")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        results = evaluate(dd.read_parquet(tmp_path / "scenarios"))
        assert results.npartitions == 4
        assert str(results.dtypes["bound"]) == "string" == str(results.dtypes["error"])
        results.to_parquet(tmp_path / "results")
    got = pd.read_parquet(tmp_path / "results").reset_index(drop=True)
    assert len(list((tmp_path / "results").glob("*.parquet"))) == 4
    want = evaluate(df)
    assert got["scenario"].tolist() == df["scenario"].tolist()
    for col in [c for c in want.columns if c not in df.columns]:
        if col in ("bound", "error"):
            assert got[col].fillna("").tolist() == want[col].fillna("").tolist(), col
        else:
            np.testing.assert_array_equal(got[col].to_numpy(float), want[col].to_numpy(float))
    # outside values: the reference's H100 critical batch (section 5)
    h100 = got[(got["chip"] == "H100") & (got["op"] == "matmul")]
    assert np.allclose(h100["crit_batch"], 318.16, atol=0.005)
    assert got.loc[2, "error"].startswith("#N/A: unknown chip 'B900'")
    assert got["error"].isna().sum() == 300


def test_text_results_are_typed_even_when_all_missing():
    """A partition whose rows are all good still has a string ``error`` column (pyarrow
    cannot infer a type from an all-None object column)."""
    out = evaluate(pd.DataFrame({"chip": ["H100"], "B": [256], "D": [8192], "F": [8192]}))
    assert str(out["error"].dtype) == "string" and str(out["bound"].dtype) == "string"
    assert pd.isna(out.loc[0, "error"]) and out.loc[0, "bound"] == "memory"


@pytest.mark.parametrize("bad", [math.inf, -math.inf])
def test_an_infinite_result_is_that_rows_error(monkeypatch, bad):
    """A result the api hands back as ±inf (beside NaN, 'not applicable') is that row's #NUM!,
    never an inf in the table; the other rows keep their values."""
    real = api.arith_intensity

    def with_inf(flops, nbytes, **kw):
        out = np.array(real(flops, nbytes, **kw), dtype=float)
        out[1], out[2] = bad, math.nan
        return out

    monkeypatch.setattr(api, "arith_intensity", with_inf)
    out = evaluate(pd.DataFrame({"op": "roofline", "chip": "H100", "flops": [2e12, 4e12, 6e12],
                                 "bytes": [1e9, 2e9, 3e9]}))
    assert out["intensity"].tolist()[0] == 2000.0
    assert math.isnan(out["intensity"][1]) and math.isnan(out["intensity"][2])
    assert pd.isna(out["error"][0])
    assert out["error"][1] == "#NUM!: intensity: the result is infinite"
    assert pd.isna(out["error"][2]) and out["time"].notna().all()
