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
from rooflinexl.ooxml import formula_cells
from rooflinexl.recalc import evaluate_workbook
from rooflinexl.workbooks.build import BUILDERS
from rooflinexl.workbooks.layout import INPUT_FILL, save_deterministic
from rooflinexl.workbooks.templates import COST_COLUMNS, SWEEP_AXES

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ["templates/capacity_plan.xlsx", "templates/training_plan.xlsx",
             "templates/cost_comparison.xlsx", "templates/matmul_sweep.xlsx"]
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


def _spec(chip, field):
    return TABLE.field(chip, field)


def _dense_tpot(chip, n, batch, ctx, layers, kv_values, read_params, d_model, w=2, a=2,
                mbu=0.8):
    """Hand formula of a dense decode step (what the Plan sheet's notes say), seconds:
    (weights read x w + batch x ctx x KV values x a) / (n x hbm_bw x mbu), the FLOPs far below,
    plus 2 AllReduces per layer of batch x d_model x a bytes: the per-call latency + 2(n-1)
    ring steps of the link latency + 2 (n-1)/n x bytes / ici_bw (switch or torus alike for an
    AllReduce)."""
    mem = (read_params * w + batch * ctx * kv_values * a) / (n * _spec(chip, "hbm_bw") * mbu)
    lat, base = (_spec(chip, c) for c in ("ici_latency", "collective_latency"))
    lat, base = (0.0 if math.isnan(x) else x for x in (lat, base))
    ar = base + 2 * (n - 1) * lat + 2 * (n - 1) / n * batch * d_model * a / _spec(chip, "ici_bw")
    return mem + (2 * layers * ar if n > 1 else 0.0)


# Llama 3.1 70B (80 layers, d_model 8192, 8 KV heads x 128, vocab 128256, 70.6e9 params):
# weights read 70.6e9 - 128256 x 8192 = 69,549,326,848; 163,840 KV values per token
L70_READ, L70_KV = 70.6e9 - 128256 * 8192, 2 * 80 * 8 * 128


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

    # Llama 3.1 70B, 4 x H200, bf16, batch 64, 6144-token prompt + 2048 output
    r = row("Llama 3.1 70B", "H200", 4)
    assert r["weights/chip"] == pytest.approx(70.6e9 * 2 / 4 / 1e9)  # 35.3 GB
    kv = L70_KV * 8192 * 64 * 2 / 4  # 42.9 GB per chip at the full 8192 tokens
    assert r["KV/chip"] == pytest.approx(kv / 1e9)
    assert r["fits"] == "fits"  # 78.2 GB <= 0.9 x 141 GB
    step = _dense_tpot("H200", 4, 64, 6144 + 2048 / 2, 80, L70_KV, L70_READ, 8192)
    assert r["TPOT"] == pytest.approx(step * 1e3)  # 18.84 ms of HBM + 3.82 ms of AllReduces
    assert r["bound"] == "memory"
    assert r["tokens/s"] == pytest.approx(64 / step)
    assert r["replicas"] == math.ceil(20000 / (64 / step))
    assert r["chips"] == 4 * r["replicas"]
    assert r["max batch"] == int((4 * 0.9 * _spec("H200", "hbm_bytes") - 141.2e9) /
                                 (L70_KV * 8192 * 2))
    assert r["USD per 1M output tokens"] == pytest.approx(
        _spec("H200", "price_per_hour") * 4 / (64 / step * 3600) * 1e6)
    # TTFT: one 6144-token prompt, compute-bound at mfu 0.5:
    # 2 x (69,549,326,848 - 1,050,673,152) x 6144 + 2 x 1,050,673,152 + 2 x 80 x 6144^2 x 64
    # x 128 FLOPs over 4 chips, plus 160 AllReduces of 6144 x 8192 x 2 bytes
    flops = (2 * (L70_READ - 128256 * 8192) * 6144 + 2 * 128256 * 8192
             + 2 * 80 * 6144 ** 2 * 64 * 128)
    ar = (_spec("H200", "collective_latency") + 2 * 3 * _spec("H200", "ici_latency")
          + 2 * 3 / 4 * 6144 * 8192 * 2 / _spec("H200", "ici_bw"))
    assert r["TTFT"] == pytest.approx((flops / (4 * 9.89e14 * 0.5) + 160 * ar) * 1e3)

    # MoE (Mixtral 8x7B, 2 x H100, batch 64): the 64 tokens touch 1 - 0.75^64 of the experts,
    # so the step reads nearly all 46.7e9 parameters, not the 12.9e9 active ones
    r = row("Mixtral 8x7B", "H100", 2)
    assert r["weights/chip"] == pytest.approx(46.7e9 * 2 / 2 / 1e9)
    read = 1_471_771_392 + 45_097_156_608 * (1 - 0.75 ** 64)
    assert r["bytes/step"] == pytest.approx((read * 2 + 64 * 3584 * 65536 * 2) / 2)
    assert r["FLOPs/step"] == pytest.approx(
        64 * (2 * 12_746_060_544 + 4 * 32 * 3584 * 32 * 128) / 2)

    # DeepSeek-V3 MLA: 512 + 64 cached values per token and layer, bf16; fp8 weights
    r = row("DeepSeek-V3", "H200", 8, "fp8")
    assert r["KV/chip"] == pytest.approx(61 * 576 * 2 * 4096 * 128 / 8 / 1e9)
    assert r["weights/chip"] == pytest.approx(671e9 / 8 / 1e9)  # fp8: 1 byte per parameter
    frac = 1 - (1 - 8 / 256) ** 128
    assert r["bytes/step"] == pytest.approx(
        (16_164_550_144 + frac * 653_908_770_816 + 128 * 3584 * 61 * 576 * 2) / 8)

    # Llama 3.1 70B in bf16 (141.2 GB) does not fit one 80 GiB H100: no replica count
    r = row("Llama 3.1 70B", "H100", 1)
    assert (r["fits"], r["replicas"], r["chips"], r["max batch"]) == ("no", "—", "—", 0)


def test_training_plan_reproduces_the_book(evaluated):
    ev = evaluated["templates/training_plan.xlsx"]
    rows = _rows(ev, "Train")
    first = min(rows)
    # Part 12 Q5.2: Llama 3 70B, 15T tokens, 4096 H100, 45 % MFU: "about 40 days"
    assert rows[first]["G"] == pytest.approx(40, abs=1)
    # chip-hours = days x 24 x chips
    assert rows[first]["H"] == pytest.approx(rows[first]["G"] * 24 * 4096)


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
    # TPU7x has no list price; its row is SemiAnalysis's modelled 3-year rate, 2.00 USD per
    # chip-hour (InferenceX-app PR #1083, 8 Sep 2026), over 2.307e15 bf16 FLOP/s
    t7 = hdr + 1 + chips.index("TPU7x")
    assert rows[t7 - hdr - 1][COST_COLUMNS["provider"]] == "SemiAnalysis TCO model"
    assert ev.value("Cost", f"{L['list']}{t7}") == pytest.approx(2.0)
    assert ev.value("Cost", f"{L['peak']}{t7}") == pytest.approx(2.0 / (3600 * 2.307e15) * 1e18)
    assert ev.value("Cost", f"{L['date']}{t7}") == "2026-09-08"

    # USD per million tokens, Llama 3.1 70B on 4 chips, batch 64, 6k + 2k tokens
    steps = {}
    for chip, price, cell in (("H200", 10.0, "Cost_USDperMtok_Llama70B_H200"),
                              ("TPU v5p", 4.2, "Cost_USDperMtok_Llama70B_TPUv5p")):
        steps[chip] = _dense_tpot(chip, 4, 64, 6144 + 1024, 80, L70_KV, L70_READ, 8192)
        want = price * 4 / (64 / steps[chip] * 3600) * 1e6
        sheet, ref = openpyxl.load_workbook(path).defined_names[cell].attr_text.split("!")
        assert ev.value(sheet, ref) == pytest.approx(want), chip
    hl = _header_row(path, "Cost", "H200 vs TPU v5p")
    assert ev.value("Cost", f"D{hl + 1}") == pytest.approx((10 / 9.89e14) / (4.2 / 4.59e14))
    assert ev.value("Cost", f"D{hl + 3}") == pytest.approx(
        (10 * steps["H200"]) / (4.2 * steps["TPU v5p"]))


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


def test_every_workbook_carries_the_models_table(built):
    from rooflinexl.models import load_models
    from rooflinexl.udfs._adapt import model_table

    for rel, path in built.items():
        wb = openpyxl.load_workbook(path)
        ref = wb.defined_names["Models"].attr_text
        sheet, cells = ref.split("!")
        ws = wb[sheet.strip("'")]
        rows = [[c.value for c in r] for r in ws[cells.replace("$", "")]]
        t = model_table(rows)  # read back as a host passes the range
        assert t.names == load_models().names, rel
        assert t.field("DeepSeek-V3", "expert_params") == 58 * 256 * 3 * 7168 * 2048


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
