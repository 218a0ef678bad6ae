"""The planning templates (templates/*.xlsx) and the layout rules every shipped workbook follows.

Expected numbers are written out from the public model shapes and the chip
table (H200: 9.89e14 FLOP/s bf16, 4.8e12 B/s HBM, 141 GB, 10 USD/h; TPU v5p:
4.59e14, 2.765e12 B/s, 4.2 USD/h; H100: 9.89e14, 3.35e12 B/s, 80 GB), the
decode step bound of reference section 5 and the cost per FLOP of section 12.
"""
from __future__ import annotations

import itertools
import math
from pathlib import Path

import openpyxl
import pytest
from openpyxl.utils import get_column_letter

from rooflinexl import api, udfs
from rooflinexl.chips import COLUMNS, ChipTable
from rooflinexl.dtypes import DTYPES, TIERS
from rooflinexl.recalc import evaluate_workbook
from rooflinexl.workbooks.build import BUILDERS
from rooflinexl.workbooks.layout import INPUT_FILL, save_deterministic
from rooflinexl.workbooks.templates import COST_COLUMNS, MODELS, SWEEP_AXES
from rooflinexl.xlsxio import formula_cells

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ["templates/capacity_plan.xlsx", "templates/cost_comparison.xlsx",
             "templates/matmul_sweep.xlsx"]
TABLE = ChipTable.default()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Fresh builds (not recalculated) of every workbook, and our engine's evaluation of them."""
    tmp = tmp_path_factory.mktemp("build")
    out = {}
    for rel, builder in BUILDERS.items():
        path = tmp / Path(rel).name
        save_deterministic(builder(TABLE), path)
        out[rel] = path
    return out


@pytest.fixture(scope="module")
def evaluated(built):
    return {rel: evaluate_workbook(built[rel], udfs.FUNCTIONS) for rel in TEMPLATES}


def _rows(ev, sheet, first_col="A"):
    """{row: {col: value}} of one sheet's formula cells."""
    out: dict[int, dict[str, object]] = {}
    for c in ev.cells.values():
        if c.sheet == sheet:
            col = c.cell.rstrip("0123456789")
            out.setdefault(int(c.cell[len(col):]), {})[col] = c.value
    return out


def _table(path, sheet, header_row):
    """Rows under a header row as dicts keyed by header text (inputs and cached values)."""
    ws = openpyxl.load_workbook(path)[sheet]
    heads = [c.value for c in ws[header_row]]
    rows = []
    for r in range(header_row + 1, ws.max_row + 1):
        if ws.cell(row=r, column=1).value is None:
            break
        rows.append({h: ws.cell(row=r, column=j).value
                     for j, h in enumerate(heads, start=1) if h})
    return rows, heads


def _header_row(path, sheet, first_header):
    ws = openpyxl.load_workbook(path)[sheet]
    return next(r for r in range(1, ws.max_row + 1) if ws.cell(row=r, column=1).value ==
                first_header)


# ------------------------------------------------------------- layout rules


@pytest.mark.parametrize("rel", sorted(BUILDERS))
def test_layout_rules(built, rel):
    wb = openpyxl.load_workbook(built[rel])
    names = wb.sheetnames
    assert names[0] == "How to use"
    n = len(TABLE) + 1
    last = get_column_letter(len(COLUMNS))
    assert wb.defined_names["Chips"].attr_text == f"Chips!$A$1:${last}${n}"
    assert wb.defined_names["ChipNames"].attr_text == f"Chips!$A$2:$A${n}"
    assert [c.value for c in wb["Chips"]["A"]][1:] == list(TABLE.names)
    conf = wb["xlwings.conf"]
    assert conf.sheet_state == "hidden"
    assert (conf["A1"].value, conf["B1"].value) == ("UDF Modules", "rooflinexl.udfs")
    # the stamped values are shown on open, not recalculated away (Excel: #NAME? without add-in)
    assert not wb.calculation.fullCalcOnLoad
    for ws in wb.worksheets:
        if ws.title not in ("How to use", "xlwings.conf"):
            assert ws.freeze_panes, f"{rel}: sheet {ws.title} has no frozen header"
    colours = {r.formula[0] for ws in wb.worksheets for cf in ws.conditional_formatting
               for r in cf.rules}
    assert {'"compute"', '"memory"', '"network"'} <= colours


@pytest.mark.parametrize("rel", sorted(BUILDERS))
def test_every_chip_dtype_tier_input_has_its_drop_down(built, rel):
    """Yellow input cells holding a chip, dtype or tier name offer the list of them."""
    wb = openpyxl.load_workbook(built[rel])
    kinds = {"chip": {n.casefold() for n in TABLE.names}, "dtype": set(DTYPES),
             "tier": set(TIERS)}
    sources = {"chip": "ChipNames", "dtype": ",".join(DTYPES), "tier": ",".join(TIERS)}
    checked = 0
    for ws in wb.worksheets:
        if ws.title == "Chips":
            continue
        lists = [(dv.formula1.strip('="'), dv.sqref) for dv in ws.data_validations.dataValidation]
        for row in ws.iter_rows():
            for c in row:
                if c.fill.fgColor.rgb != INPUT_FILL.fgColor.rgb or not isinstance(c.value, str):
                    continue
                for kind, known in kinds.items():
                    if c.value.casefold() in known and not (kind == "chip" and
                                                            c.value.casefold() == "chip"):
                        ok = any(src == sources[kind] and c.coordinate in sq
                                 for src, sq in lists)
                        assert ok, f"{rel} {ws.title}!{c.coordinate} {c.value!r}: no {kind} list"
                        checked += 1
    assert checked >= 3


def test_templates_registered():
    assert set(TEMPLATES) <= set(BUILDERS)


# ------------------------------------------------------- numbers of the templates


def test_templates_compute_without_errors(evaluated):
    for rel, ev in evaluated.items():
        assert not ev.unknown_functions, rel
        assert not ev.errors(), [(c.address, c.reason) for c in ev.errors()]


def test_capacity_plan_worked_example(built, evaluated):
    path = built["templates/capacity_plan.xlsx"]
    rows, _ = _table(path, "Plan", _header_row(path, "Plan", "model"))
    hdr = _header_row(path, "Plan", "model")
    got = _rows(evaluated["templates/capacity_plan.xlsx"], "Plan")
    heads = {h.split(" [")[0]: openpyxl.utils.get_column_letter(j) for j, h in
             enumerate([c.value for c in openpyxl.load_workbook(path)["Plan"][hdr]], start=1)}

    def row(model, chip, n, dtype="bf16"):
        key = (model, chip, n, dtype)
        k = next(i for i, r in enumerate(rows) if (r["model"], r["chip"],
                                                    r["n_chips [per replica]"],
                                                    r["dtype [compute]"]) == key)
        return {h: got[hdr + 1 + k].get(col) for h, col in heads.items()}

    # Llama 3.1 70B, 4 x H200, bf16, batch 64, 8192 tokens of context
    r = row("Llama 3.1 70B", "H200", 4)
    assert r["weights/chip"] == pytest.approx(70.6e9 * 2 / 4 / 1e9)  # 35.3 GB
    kv = 2 * 80 * 8 * 128 * 8192 * 64 * 2 / 4  # 42.9 GB per chip
    assert r["KV/chip"] == pytest.approx(kv / 1e9)
    # H200 HBM: NVIDIA's "141GB" is binary, 141 GiB = 151.4e9 bytes (nvidia-smi: 143,771 MiB)
    hbm = 141 * 2**30
    assert r["fits"] == "fits"  # 78.2 GB <= 0.9 x 151.4 GB
    step = (70.6e9 * 2 / 4 + kv) / 4.8e12  # memory-bound: 16.30 ms
    assert 2 * 70.6e9 * 64 / 4 / 9.89e14 < step  # FLOPs term: 2.28 ms
    assert r["step"] == pytest.approx(step * 1e3)
    assert r["bound"] == "memory"
    assert r["tokens/s"] == pytest.approx(64 / step)  # 3,926 tokens/s per replica
    assert r["replicas"] == math.ceil(20000 / (64 / step)) == 6
    assert r["chips"] == 24
    assert r["max batch"] == int((0.9 * hbm - 35.3e9) / (kv / 64))  # 150 sequences

    # MoE: total parameters in memory, active parameters read per token (Mixtral, 2 x H100)
    r = row("Mixtral 8x7B", "H100", 2)
    assert r["weights/chip"] == pytest.approx(46.7e9 * 2 / 2 / 1e9)
    assert r["bytes/step"] == pytest.approx((12.9e9 * 2 / 2 + 2 * 32 * 8 * 128 * 4096 * 64 * 2 / 2)
                                            / 1e9)
    assert r["FLOPs/step"] == pytest.approx(2 * 12.9e9 * 64 / 2)

    # DeepSeek-V3 MLA: 512 + 64 cached values per token and layer, bf16
    r = row("DeepSeek-V3", "H200", 8, "fp8")
    assert r["KV/chip"] == pytest.approx(61 * 576 * 2 * 4096 * 128 / 8 / 1e9)
    assert r["weights/chip"] == pytest.approx(671e9 / 8 / 1e9)  # fp8: 1 byte per parameter

    # Llama 3.1 70B in bf16 (141.2 GB) does not fit one 80 GiB H100: no replica count
    r = row("Llama 3.1 70B", "H100", 1)
    assert (r["fits"], r["replicas"], r["chips"], r["max batch"]) == ("no", "—", "—", 0)


def test_cost_comparison_worked_example(built, evaluated):
    ev = evaluated["templates/cost_comparison.xlsx"]
    path = built["templates/cost_comparison.xlsx"]
    hdr = _header_row(path, "Cost", "chip")
    rows, _ = _table(path, "Cost", hdr)
    chips = [r["chip"] for r in rows]
    h200, v5p = hdr + 1 + chips.index("H200"), hdr + 1 + chips.index("TPU v5p")
    # the H200 example quote: 80 USD/h for an 8-GPU node = 10 USD per chip-hour
    assert (rows[chips.index("H200")]["quote [USD/hour]"],
            rows[chips.index("H200")]["quote per [chip or node]"]) == (80, "node")
    L = {k: get_column_letter(j) for j, k in enumerate(COST_COLUMNS, start=1)}
    assert ev.value("Cost", f"{L['price']}{h200}") == pytest.approx(10.0)
    # USD per 1e18 FLOP at peak = price / (3600 x peak) x 1e18
    assert ev.value("Cost", f"{L['peak']}{h200}") == pytest.approx(10 / (3600 * 9.89e14) * 1e18)
    assert ev.value("Cost", f"{L['peak']}{v5p}") == pytest.approx(4.2 / (3600 * 4.59e14) * 1e18)
    assert ev.value("Cost", f"{L['mfu']}{v5p}") == pytest.approx(
        4.2 / (3600 * 4.59e14 * 0.5) * 1e18)
    assert ev.value("Cost", f"{L['per_usd']}{v5p}") == pytest.approx(3600 * 4.59e14 * 0.5 / 4.2)
    # the default rows are one provider (Google Cloud, Feb 2025 list prices of the book)
    assert ev.value("Cost", f"{L['date']}{v5p}") == "2025-02"
    # another provider's row: B200 at Spheron, 6.03 USD per GPU-hour on 17 Mar 2026
    b200 = hdr + 1 + next(i for i, r in enumerate(rows) if r["chip"] == "B200")
    assert rows[b200 - hdr - 1][COST_COLUMNS["provider"]] == "Spheron"
    assert ev.value("Cost", f"{L['list']}{b200}") == pytest.approx(6.03)
    assert ev.value("Cost", f"{L['peak']}{b200}") == pytest.approx(6.03 / (3600 * 2.25e15) * 1e18)
    assert ev.value("Cost", f"{L['date']}{b200}") == "2026-03-17"

    # USD per million tokens, Llama 3.1 70B on 4 chips, batch 64, 8k context: roofline-bound
    kv = 2 * 80 * 8 * 128 * 8192 * 64 * 2 / 4
    for chip, price, hbm_bw, cell in (("H200", 10.0, 4.8e12, "Cost_USDperMtok_Llama70B_H200"),
                                      ("TPU v5p", 4.2, 2.765e12,
                                       "Cost_USDperMtok_Llama70B_TPUv5p")):
        step = (70.6e9 * 2 / 4 + kv) / hbm_bw
        want = price * 4 / (64 / step * 3600) * 1e6
        sheet, ref = openpyxl.load_workbook(path).defined_names[cell].attr_text.split("!")
        assert ev.value(sheet, ref) == pytest.approx(want), chip
    # the headline: H200 costs 1.37x a TPU v5p per token here, 1.11x per FLOP at equal MFU
    hl = _header_row(path, "Cost", "H200 vs TPU v5p")
    assert ev.value("Cost", f"D{hl + 1}") == pytest.approx((10 / 9.89e14) / (4.2 / 4.59e14))
    assert ev.value("Cost", f"D{hl + 3}") == pytest.approx(
        (10 * (70.6e9 * 2 / 4 + kv) / 4.8e12) / (4.2 * (70.6e9 * 2 / 4 + kv) / 2.765e12))


def test_cost_chart_roofs_follow_the_chip_table(evaluated):
    ev = evaluated["templates/cost_comparison.xlsx"]
    rows = _rows(ev, "Roofline chart")
    roofs = {r: v for r, v in rows.items() if "C" in v and "E" in v and "F" in v}
    ridges = sorted(v["C"] for v in roofs.values())
    assert ridges == pytest.approx(sorted([9.89e14 / 4.8e12, 4.59e14 / 2.765e12]))
    for v in roofs.values():
        assert v["F"] == v["G"]  # the flat roof: peak
        assert v["E"] < v["F"]  # left end on the bandwidth slope


def test_matmul_sweep_is_the_cross_product(built, evaluated):
    ev = evaluated["templates/matmul_sweep.xlsx"]
    path = built["templates/matmul_sweep.xlsx"]
    hdr = _header_row(path, "Sweep", "case")
    combos = list(itertools.product(*SWEEP_AXES.values()))
    for k, (chip, B, D, F) in enumerate(combos):
        r = hdr + 1 + k
        got = [ev.value("Sweep", f"{c}{r}") for c in "BCDE"]
        assert got == [chip, B, D, F]
        t = api.matmul_time(chip, B, D, F)
        assert ev.value("Sweep", f"I{r}") == pytest.approx(t * 1e6, rel=1e-12)
        assert ev.value("Sweep", f"J{r}") == api.matmul_time(chip, B, D, F, result="bound")
        assert ev.value("Sweep", f"L{r}") == pytest.approx(api.crit_batch(chip, D, F), rel=1e-12)
    # the bound flips where B crosses B* (n_chips 1, no sharding)
    for k, (chip, B, D, F) in enumerate(combos):
        r = hdr + 1 + k
        assert (ev.value("Sweep", f"J{r}") == "compute") == (B >= api.crit_batch(chip, D, F))
    assert ("Sweep", f"I{hdr + len(combos) + 1}") not in ev.cells  # exactly the combinations


def test_model_shapes_are_the_public_configs():
    by = {m.name: m for m in MODELS}
    for m in MODELS:
        assert "config.json" in m.source and m.active <= m.total
    assert (by["Llama 3.1 405B"].layers, by["Llama 3.1 405B"].kv_heads) == (126, 8)
    assert by["Mixtral 8x7B"].active == 12.9e9 and by["Mixtral 8x7B"].total == 46.7e9
    ds = by["DeepSeek-V3"]
    # MLA: kv_lora_rank 512 + qk_rope_head_dim 64 values per token and layer
    assert 2 * ds.kv_heads * ds.head_dim == 512 + 64
    assert (ds.layers, ds.experts, ds.top_k, ds.total, ds.active) == (61, 256, 8, 671e9, 37e9)


# ----------------------------------------------------------- shipped workbooks


@pytest.mark.parametrize("rel", sorted(BUILDERS))
def test_shipped_workbooks_carry_cached_values(rel):
    """A reader without the add-in sees numbers: every formula has a stamped value."""
    from libreoffice import values

    path = ROOT / rel
    assert path.is_file(), f"{rel} missing: run 'rooflinexl build'"
    cached = values(path)
    missing = [f"{s}!{c}" for s, cells in formula_cells(path).items() for c in cells
               if cached[s].get(c) is None]
    assert not missing, f"{rel}: no cached value in {missing[:10]}"
    errors = [f"{s}!{c}={v}" for s, cells in formula_cells(path).items() for c in cells
              for v in [cached[s].get(c)] if isinstance(v, str) and v.startswith("#")]
    assert not errors, errors[:10]
