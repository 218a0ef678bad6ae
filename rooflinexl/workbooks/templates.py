"""Planning templates in ``templates/``: capacity plan, training plan, cost comparison, sweep.

Each template is prefilled with a worked example (real public model shapes,
the packaged chip table) so it shows numbers when opened; every roofline
quantity is one of our functions over the Chips table, and only plain
arithmetic glue (sums, ratios, unit conversions, INDEX/MATCH look-ups, IF)
is a native formula.
"""
from __future__ import annotations

from copy import copy

from openpyxl import Workbook
from openpyxl.styles import Alignment

from rooflinexl.addresses import column_letters, column_number
from rooflinexl.chips import ChipTable
from rooflinexl.prices import PRICING, load_prices
from rooflinexl.workbooks.charts import Point, add_roofline_chart
from rooflinexl.workbooks.layout import (
    Calc,
    Input,
    SheetWriter,
    add_chips_sheet,
    add_howto_sheet,
    add_models_sheet,
    add_prices_sheet,
    add_xlwings_conf,
    keep_cached_values,
    name_cell,
)

SCI = "0.00E+00"
GB = "#,##0.0"
MS = "0.000"
FITS = {"fits": "C6EFCE", "no": "FFC7CE"}

COMMON_HOWTO = [
    "Yellow cells are inputs (blue text): type over them or pick from the drop-down. White "
    "boxed cells are formulas: leave them alone. Coloured results: compute-bound green, "
    "memory-bound amber, network-bound red.",
    "The numbers you see when the file opens were computed by 'rooflinexl recalc' and stored "
    "in the file, so any spreadsheet shows them, also without the add-in.",
    "To recompute after a change, every cell updates live in Excel with rooflinexl's functions "
    "loaded (docs/excel.md): the templates/ files for classic xlwings (Import Functions; the "
    "hidden xlwings.conf sheet points it at rooflinexl.udfs), the templates/lite/ files for "
    "xlwings Server and xlwings Lite (functions named ROOFLINE.CRIT_BATCH etc.). In "
    "LibreOffice, or in Excel without them, cells that call a rooflinexl function "
    "show #NAME? once they recompute: save the file and run "
    "'rooflinexl recalc FILE.xlsx -o FILE.xlsx' (rooflinexl installed from its repository or "
    "wheel with the cli extra, README), then reopen.",
    "The Chips sheet holds the chip specs (SI units, links one direction, sources and dates "
    "per row). Edit a number there to plan for other hardware or prices: every sheet follows. "
    "The defined name Chips covers its header and rows; ChipNames feeds the chip drop-downs.",
    "Errors: #N/A unknown chip or a spec the chip lacks (e.g. no fp8 peak), #NUM! a value "
    "outside the formula's domain, #VALUE! text where a number belongs.",
]


# ------------------------------------------------------------- model columns

#: efficiency defaults shown as yellow inputs (issue 12): NVIDIA AIConfigurator models
#: decode with 0.8 of the HBM bandwidth; 0.5 of peak FLOP/s is a typical achieved MFU
#: (the book's Part 12 Q5.2 assumes 45 %; the reference says well-shaped matmuls reach
#: 80-85 % of an H100's peak, whole models less).
DEFAULT_MBU = 0.8
DEFAULT_MFU = 0.5
EFFICIENCY_HOWTO = (
    "Efficiency inputs (yellow, above each table): mbu is the share of HBM bandwidth a "
    "decode step achieves (default 0.8, as NVIDIA's AIConfigurator assumes), mfu the share "
    "of peak FLOP/s (default 0.5; the book's Part 12 Q5.2 uses 45 %). Set both to 1 for the "
    "pure roofline bound (what DECODE_TIME/PREFILL_TIME/TRAIN_TIME give with them omitted).")
MODELS_HOWTO = (
    "The Models sheet holds the model shapes (params as published, layers, d_model, heads, "
    "KV heads, head_dim, vocab; for MoE experts E, active_experts k, expert_params), each "
    "row cited from the model's config.json with its date. Add your own model in a blank "
    "yellow row at its end: the defined name Models covers them, ModelNames feeds the "
    "model drop-downs. MoE decode reads the non-expert weights plus the fraction "
    "1-(1-k/E)^tokens of the expert weights (nearly all of them at batch 32 and more).")


def _chip_field(table: ChipTable, chip: str, column: str, expr: str, missing: str) -> str:
    """``=IF(<field> blank, missing, expr)``: the field read natively from the Chips sheet.

    ``expr`` holds ``{v}`` where the field's value goes. A native look-up (not IFERROR
    around our function) so that a spreadsheet without the add-in shows #NAME? in
    the row, never the "missing" text.
    """
    from rooflinexl.chips import COLUMNS

    idx = [c for c in COLUMNS if table.has(c)].index(column) + 1
    v = f"INDEX(Chips,MATCH({chip},ChipNames,0)+1,{idx})"
    return f'=IF({v}="","{missing}",{expr.format(v=v)})'


def _letters(headers: list[str]) -> dict[str, str]:
    """Column letter of each header key (the text before ' [')."""
    return {h.split(" [")[0]: column_letters(j) for j, h in enumerate(headers, start=1)}


def _step_args(c: dict, context: str, eff: str) -> str:
    """Arguments of DECODE_TIME / PREFILL_TIME after the token count (no result)."""
    return (f"{context},{c['batch']},{c['n_chips']},{c['dtype']},{c['weight_dtype']},"
            f"{c['kv_dtype']},{eff}")


def _serving_columns(L: dict[str, str], r: int, eff: str, usable: str) -> dict:
    """Formulas of the per-row serving columns (Plan and Tokens sheets).

    ``eff`` is ``mbu,mfu`` (absolute cells), ``usable`` the usable-HBM cell.
    Needs the input keys model, chip, n_chips, batch, prompt, output, dtype,
    weight_dtype, kv_dtype in ``L``.
    """
    c = {k: f"{v}{r}" for k, v in L.items()}
    head = f"Chips,{c['chip']},Models,{c['model']}"
    mean_ctx = f"({c['context']}-{c['output']}/2)"
    full_ctx = c["context"]
    dec = f"DECODE_TIME({head},{_step_args(c, mean_ctx, eff)}"
    mem = f"DECODE_TIME({head},{_step_args(c, full_ctx, eff)}"
    pre = (f"PREFILL_TIME({head},{c['prompt']},1,{c['n_chips']},{c['dtype']},"
           f"{c['weight_dtype']},{c['kv_dtype']},{eff}")
    return {
        "context": Calc(f"={c['prompt']}+{c['output']}", "#,##0"),
        "weights/chip": Calc(f'={mem},"weights")/1E+9', GB),
        "KV/chip": Calc(f'={mem},"kv")/1E+9', GB),
        "HBM/chip": Calc(f'=CHIP_SPEC(Chips,{c["chip"]},"hbm_bytes")/1E+9', GB),
        "fits": Calc(f'=IF({c["weights/chip"]}+{c["KV/chip"]}<={usable}*{c["HBM/chip"]},'
                     f'"fits","no")'),
        "max batch": Calc(f"=MAX_BATCH({head},{full_ctx},{c['n_chips']},{c['weight_dtype']},"
                          f"{c['kv_dtype']},{usable})", "#,##0"),
        "TTFT": Calc(f"={pre})*1E+3", MS),
        "TPOT": Calc(f"={dec})*1E+3", MS),
        "comms": Calc(f'={dec},"comms")*1E+3', MS),
        "bound": Calc(f'={dec},"bound")'),
        "tokens/s": Calc(f"={c['batch']}/({c['TPOT']}/1E+3)", "#,##0"),
        "FLOPs/step": Calc(f'={dec},"flops")', SCI),
        "bytes/step": Calc(f'={dec},"bytes")', SCI),
    }


_SERVING_HEADERS = [
    "context [tokens, prompt + output]", "weights/chip [GB]", "KV/chip [GB, at the context]",
    "HBM/chip [GB]",
    "fits [in usable HBM]", "max batch [sequences in HBM]", "TTFT [ms, one prompt]",
    "TPOT [ms per decode step]", "comms [ms per step]", "bound", "tokens/s [per replica]",
    "FLOPs/step [per chip]", "bytes/step [per chip]",
]
_ROW_INPUT_HEADERS = ["model", "chip", "n_chips [per replica]", "batch [sequences]",
                      "prompt [tokens]", "output [tokens]", "dtype [compute]", "weight_dtype",
                      "kv_dtype"]


def _efficiency_inputs(s: SheetWriter, usable: bool = True) -> tuple[str, str]:
    """The yellow efficiency inputs in row 6; returns (``mbu,mfu`` cells, usable cell)."""
    heads = ["mbu [fraction of HBM bandwidth]", "mfu [fraction of peak FLOP/s]"]
    vals = [Input(DEFAULT_MBU, "0%"), Input(DEFAULT_MFU, "0%")]
    if usable:
        heads.append("usable HBM [fraction]")
        vals.append(Input(0.9, "0%"))
    s.table(heads, [vals], caption="Efficiency (mbu: AIConfigurator's 0.8; mfu 0.5; 1 = the "
                                   "roofline bound) and the HBM left for weights + KV cache")
    return "$A$6,$B$6", "$C$6"


def _serving_table(s: SheetWriter, rows: list[tuple], extra_inputs: list[str],
                   extra_outputs: list[str], eff: str, usable: str, caption: str):
    """Write the per-row serving table; returns (first, last, letters)."""
    headers = _ROW_INPUT_HEADERS + extra_inputs + _SERVING_HEADERS + extra_outputs
    L = _letters(headers)
    n_in = len(_ROW_INPUT_HEADERS) + len(extra_inputs)
    body = [[Input(v) for v in row] + [None] * (len(headers) - n_in) for row in rows]
    first, last = s.table(headers, body, caption=caption)
    for r in range(first, last + 1):
        for key, calc in _serving_columns(L, r, eff, usable).items():
            s.put(r, column_number(L[key]), calc)
    s.ws.freeze_panes = f"C{first}"
    s.widths.update({j: 10.5 for j in range(3, len(headers) + 1)})
    s.widths.update({1: 16, 2: 9})
    s.validate("model", f"A{first}:A{last}")
    s.validate("chip", f"B{first}:B{last}")
    s.validate("dtype", f"G{first}:I{last}")
    s.colour_bounds(f"{L['bound']}{first}:{L['bound']}{last}")
    s.colour_text(f"{L['fits']}{first}:{L['fits']}{last}", FITS)
    return first, last, L


SERVING_NOTES = [
    "TTFT = PREFILL_TIME of one prompt: 2 FLOPs per active parameter per token (the output "
    "projection for the last token only) plus causal attention, vs the weights read once.",
    "TPOT = DECODE_TIME at the mean context of the generation (prompt + output/2): the "
    "weights read (MoE: non-expert weights + the touched share 1-(1-k/E)^batch of the "
    "experts) and the KV cache, vs 2 FLOPs per active parameter per token + attention,",
    "at mbu and mfu, plus the tensor-parallel AllReduces (MoE: AllReduce + 2 AllToAll) per "
    "layer with the link latency (comms, not overlapped). Weights and KV cache split evenly "
    "over the replica's chips.",
    "Activations, the runtime's own memory and speculative decoding are left out; "
    "sliding-window layers are counted as full attention (an upper bound on KV bytes).",
]


# ------------------------------------------------------------------ capacity plan

CAPACITY_ROWS = [
    # model, chip, n, batch, prompt, output, dtype, weight dtype, kv dtype, target tokens/s
    ("Llama 3.1 8B", "H100", 1, 32, 4096, 1024, "bf16", "bf16", "bf16", 20000),
    ("Llama 3.1 8B", "TPU v5e", 1, 8, 2048, 512, "bf16", "int8", "bf16", 20000),
    ("Llama 3.1 70B", "H100", 1, 16, 4096, 1024, "bf16", "bf16", "bf16", 20000),
    ("Llama 3.1 70B", "H200", 4, 64, 6144, 2048, "bf16", "bf16", "bf16", 20000),
    ("Llama 3.1 70B", "H200", 2, 64, 6144, 2048, "fp8", "fp8", "fp8", 20000),
    ("Llama 3.1 70B", "TPU v5p", 4, 64, 6144, 2048, "bf16", "bf16", "bf16", 20000),
    ("Llama 3.1 405B", "H200", 8, 32, 6144, 2048, "fp8", "fp8", "fp8", 20000),
    ("Mixtral 8x7B", "H100", 2, 64, 3072, 1024, "bf16", "bf16", "bf16", 20000),
    ("Qwen3 235B-A22B", "H200", 4, 64, 3072, 1024, "fp8", "fp8", "bf16", 20000),
    ("gpt-oss-120b", "H100", 1, 32, 3072, 1024, "bf16", "fp4", "bf16", 20000),
    ("Llama 4 Maverick", "H200", 8, 64, 3072, 1024, "fp8", "fp8", "bf16", 20000),
    ("DeepSeek-V3", "H200", 8, 128, 3072, 1024, "fp8", "fp8", "bf16", 20000),
    ("DeepSeek-V3", "B200", 8, 256, 3072, 1024, "fp8", "fp8", "bf16", 20000),
]

CAPACITY_HOWTO = [
    "capacity_plan.xlsx answers: does this model fit on these chips, what are the time to "
    "first token and the time per output token, how many tokens/s does one replica serve, "
    "how many chips does a target throughput need, and what does a million tokens cost?",
    "1. Plan sheet: one row per scenario (model, chip, chips per replica, batch of concurrent "
    "sequences, prompt and output lengths, dtypes, target tokens/s). Pick the model and chip "
    "from the drop-downs.",
    "2. Read across: weights and KV cache per chip and whether they fit in the usable share "
    "of HBM, the largest batch that fits, TTFT (prefill of one prompt), TPOT (one decode "
    "step of the whole batch) with its communication and what bounds it, tokens/s per "
    "replica, the replicas and chips for the target, USD per million output and input "
    "tokens at the Chips sheet's list price, and the energy per output token at the chip's "
    "TDP ('no price' / 'no TDP' where the Chips sheet has none).",
    "3. Batch sweep sheet: tokens/s per chip against the batch size for one model and chip "
    "(pick them), with its chart: where more batching stops paying.",
    EFFICIENCY_HOWTO,
    MODELS_HOWTO,
    *COMMON_HOWTO,
]

SWEEP_BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]


def _batch_sweep(wb: Workbook) -> None:
    """Tokens/s per chip against batch for one model and chip, with a chart."""
    from openpyxl.chart import Reference, ScatterChart, Series

    s = SheetWriter(wb, "Batch sweep", "Decode throughput against batch size",
                    "DECODE_TIME over batch sizes for one model, chip and replica size; the "
                    "efficiency inputs are the Plan sheet's.")
    s.table(["model", "chip", "n_chips [per replica]", "prompt [tokens]", "output [tokens]",
             "dtype [compute]", "weight_dtype", "kv_dtype"],
            [[Input("Llama 3.1 70B"), Input("H200"), Input(4), Input(6144), Input(2048),
              Input("bf16"), Input("bf16"), Input("bf16")]], caption="Inputs")
    s.validate("model", "A6")
    s.validate("chip", "B6")
    s.validate("dtype", "F6:H6")
    first, last = s.table(
        ["batch [sequences]", "TPOT [ms per step]", "tokens/s [per replica]",
         "tokens/s per chip", "bound", "fits [in usable HBM]"],
        [[Input(b)] + [None] * 5 for b in SWEEP_BATCHES], caption="Sweep")
    head = "Chips,$B$6,Models,$A$6"
    for r in range(first, last + 1):
        args = f"($D$6+$E$6/2),A{r},$C$6,$F$6,$G$6,$H$6,Plan!$A$6,Plan!$B$6"
        s.put(r, 2, Calc(f"=DECODE_TIME({head},{args})*1E+3", MS))
        s.put(r, 3, Calc(f"=A{r}/(B{r}/1E+3)", "#,##0"))
        s.put(r, 4, Calc(f"=C{r}/$C$6", "#,##0"))
        s.put(r, 5, Calc(f'=DECODE_TIME({head},{args},"bound")'))
        s.put(r, 6, Calc(f'=IF(A{r}<=MAX_BATCH({head},$D$6+$E$6,$C$6,$G$6,$H$6,Plan!$C$6),'
                         f'"fits","no")'))
    s.colour_bounds(f"E{first}:E{last}")
    s.colour_text(f"F{first}:F{last}", FITS)
    s.ws.freeze_panes = f"A{first}"
    s.note("Rows marked 'no' do not fit in the replica's usable HBM: their throughput is "
           "not reachable.")
    chart = ScatterChart()
    chart.title = "Decode tokens/s per chip vs batch"
    chart.style = 13
    chart.x_axis.title = "batch [sequences]"
    chart.y_axis.title = "tokens/s per chip"
    chart.x_axis.scaling.logBase = 2
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    xs = Reference(s.ws, min_col=1, min_row=first, max_row=last)
    ys = Reference(s.ws, min_col=4, min_row=first - 1, max_row=last)
    series = Series(ys, xs, title_from_data=True)
    series.marker.symbol = "circle"
    chart.series.append(series)
    chart.height, chart.width = 9, 16
    s.ws.add_chart(chart, f"H{first}")
    s.finish()


def build_capacity_plan(table: ChipTable) -> Workbook:
    """``templates/capacity_plan.xlsx`` (not yet recalculated)."""
    wb = Workbook()
    wb.remove(wb.active)
    add_howto_sheet(wb, "capacity_plan.xlsx — how to use", CAPACITY_HOWTO)
    s = SheetWriter(wb, "Plan", "Inference capacity plan: fit, TTFT, TPOT, tokens/s, chips and "
                    "cost for a target throughput", "Every row is one replica of n chips "
                    "serving 'batch' concurrent sequences of 'prompt' + 'output' tokens.")
    eff, usable = _efficiency_inputs(s)
    extra_out = ["replicas [for target]", "chips [for target]",
                 "USD per 1M output tokens [list price]", "USD per 1M input tokens [list price]",
                 "energy [J per output token, at TDP]"]
    first, last, L = _serving_table(s, CAPACITY_ROWS, ["target [tokens/s]"], extra_out, eff,
                                    usable, caption="Scenarios (yellow: inputs; white: "
                                                    "computed)")
    for r in range(first, last + 1):
        c = {k: f"{v}{r}" for k, v in L.items()}
        s.put(r, column_number(L["replicas"]),
              Calc(f'=IF({c["fits"]}="fits",ROUNDUP({c["target"]}/{c["tokens/s"]},0),"—")',
                   "#,##0"))
        s.put(r, column_number(L["chips"]),
              Calc(f'=IF({c["fits"]}="fits",{c["replicas"]}*{c["n_chips"]},"—")', "#,##0"))
        s.put(r, column_number(L["USD per 1M output tokens"]),
              Calc(_chip_field(table, c["chip"], "price_per_hour",
                               f'{{v}}*{c["n_chips"]}/({c["tokens/s"]}*3600)*1E+6', "no price"),
                   "0.000"))
        # one prompt at a time on the replica: its chips' cost for TTFT, per prompt token
        s.put(r, column_number(L["USD per 1M input tokens"]),
              Calc(_chip_field(table, c["chip"], "price_per_hour",
                               f'{{v}}*{c["n_chips"]}*{c["TTFT"]}/1E+3/3600/{c["prompt"]}*1E+6',
                               "no price"), "0.000"))
        s.put(r, column_number(L["energy"]),
              Calc(_chip_field(table, c["chip"], "tdp_w",
                               f'{{v}}*{c["n_chips"]}*{c["TPOT"]}/1E+3/{c["batch"]}', "no TDP"),
                   "0.00"))
    s.row = last + 2
    for line in SERVING_NOTES:
        s.note(line)
    s.note("replicas = ROUNDUP(target / tokens/s); chips = replicas x n_chips ('—': the row "
           "does not fit). USD per 1M output tokens = price x n_chips / (tokens/s x 3600) x 1e6; "
           "input tokens: the replica's cost for one TTFT per prompt token. Energy: TDP x "
           "n_chips x TPOT / batch (the board at full power: an upper bound).")
    s.finish()
    h200x4 = first + CAPACITY_ROWS.index(
        ("Llama 3.1 70B", "H200", 4, 64, 6144, 2048, "bf16", "bf16", "bf16", 20000))
    ds = first + [row[0] for row in CAPACITY_ROWS].index("DeepSeek-V3")
    name_cell(wb, "Plan_Llama70B_H200x4_step_ms", "Plan", f"{L['TPOT']}{h200x4}")
    name_cell(wb, "Plan_Llama70B_H200x4_chips", "Plan", f"{L['chips']}{h200x4}")
    name_cell(wb, "Plan_DeepSeekV3_H200x8_TPOT_ms", "Plan", f"{L['TPOT']}{ds}")
    name_cell(wb, "Plan_DeepSeekV3_H200x8_chips", "Plan", f"{L['chips']}{ds}")
    name_cell(wb, "Plan_DeepSeekV3_H200x8_USDperMtok", "Plan",
              f"{L['USD per 1M output tokens']}{ds}")
    _batch_sweep(wb)
    add_models_sheet(wb)
    add_chips_sheet(wb, table)
    add_xlwings_conf(wb)
    keep_cached_values(wb)
    return wb


# ------------------------------------------------------------------ training plan

TRAINING_ROWS = [
    # model, chip, n_chips, tokens, seq_len, deadline [days], published chip-hours, source
    ("Llama 3.1 70B", "H100", 4096, 15e12, None, 30, None,
     "book Part 12 Q5.2: 4096 H100, 15T tokens, 45 % MFU: 'about 40 days'"),
    ("Llama 3.1 8B", "H100", 1024, 15e12, 8192, 14, 1.46e6,
     "Llama 3.1 model card (2024-07-23): 1.46M H100-80GB GPU hours"),
    ("Llama 3.1 70B", "H100", 4096, 15e12, 8192, 30, 7.0e6,
     "Llama 3.1 model card (2024-07-23): 7.0M H100-80GB GPU hours"),
    ("Llama 3.1 405B", "H100", 16384, 15.6e12, 8192, 60, 30.84e6,
     "Llama 3.1 model card (2024-07-23): 30.84M H100-80GB GPU hours; Llama 3 paper: "
     "15.6T tokens on up to 16,384 H100"),
    ("DeepSeek-V3", "H800", 2048, 14.8e12, 4096, 60, 2.788e6,
     "DeepSeek-V3 technical report (arXiv 2412.19437): 14.8T tokens, 2048 H800, "
     "2.788M H800 GPU hours (fp8 mixed precision)"),
    ("Qwen3 32B", "TPU v5p", 2048, 36e12, 4096, 60, None,
     "Qwen3 technical report: about 36T pre-training tokens (chips: an example)"),
]

TRAINING_HOWTO = [
    "training_plan.xlsx answers: how long and how much to train a model on N chips at an "
    "MFU, how many chips a deadline needs, and the energy at the chips' TDP.",
    "1. Train sheet, Inputs: MFU (share of peak FLOP/s the run achieves; the book's Part 12 "
    "Q5.2 uses 45 %) and the compute dtype of the peak.",
    "2. One row per run: model, chip, chips, training tokens, sequence length (adds the "
    "causal attention FLOPs; blank: 6ND only), a deadline in days.",
    "3. Read across: TRAIN_TIME in days = (6 N D + attention) / (chips x peak x MFU), "
    "chip-hours, the cost at the Chips sheet's list price, the chips for the deadline, the "
    "energy at TDP, and the published chip-hours where the model's authors give them.",
    MODELS_HOWTO,
    *COMMON_HOWTO,
]


def build_training_plan(table: ChipTable) -> Workbook:
    """``templates/training_plan.xlsx`` (not yet recalculated)."""
    wb = Workbook()
    wb.remove(wb.active)
    add_howto_sheet(wb, "training_plan.xlsx — how to use", TRAINING_HOWTO)
    s = SheetWriter(wb, "Train", "Training plan: time, chip-hours, cost and chips for a "
                    "deadline", "TRAIN_TIME = (6 x active params x tokens + causal attention) / "
                    "(n_chips x peak(dtype) x MFU): the book's 6ND (Part 12 Q5.2).")
    s.table(["mfu [fraction of peak FLOP/s]", "dtype [compute]"],
            [[Input(0.45, "0%"), Input("bf16")]],
            caption="Inputs (MFU 45 % as in the book's Part 12 Q5.2)")
    s.validate("dtype", "B6")
    headers = ["model", "chip", "n_chips", "tokens [training]", "seq_len [tokens]",
               "deadline [days]", "time [days]", "chip-hours [h]",
               "cost [USD, list price]", "chips for deadline", "energy [MWh, at TDP]",
               "bound", "published chip-hours [h]", "ours / published [×]",
               "source of the run"]
    L = _letters(headers)
    body = [[Input(m), Input(c), Input(n), Input(t, SCI), Input(sl), Input(d)] + [None] * 6
            + [Input(pub, SCI), None, src]
            for m, c, n, t, sl, d, pub, src in TRAINING_ROWS]
    first, last = s.table(headers, body, caption="Runs (yellow: inputs; white: computed)")
    for r in range(first, last + 1):
        c = {k: f"{v}{r}" for k, v in L.items()}
        head = f"Chips,{c['chip']},Models,{c['model']}"
        t = (f"TRAIN_TIME({head},{c['tokens']},{c['n_chips']},$A$6,$B$6,"
             f"{c['seq_len']})")
        s.put(r, column_number(L["time"]), Calc(f"={t}/86400", "#,##0.0"))
        s.put(r, column_number(L["chip-hours"]), Calc(f"={t}*{c['n_chips']}/3600", SCI))
        s.put(r, column_number(L["cost"]), Calc(_chip_field(
            table, c["chip"], "price_per_hour", f'{c["chip-hours"]}*{{v}}', "no price"),
            "#,##0"))
        s.put(r, column_number(L["chips for deadline"]), Calc(
            f"=ROUNDUP({t}*{c['n_chips']}/({c['deadline']}*86400),0)", "#,##0"))
        s.put(r, column_number(L["energy"]), Calc(_chip_field(
            table, c["chip"], "tdp_w", f'{c["chip-hours"]}*{{v}}/1E+6', "no TDP"), "#,##0"))
        s.put(r, column_number(L["bound"]), Calc('="compute"'))
        s.put(r, column_number(L["ours / published"]), Calc(
            f'=IF({c["published chip-hours"]}="","—",{c["chip-hours"]}/'
            f'{c["published chip-hours"]})', "0.00"))
    s.validate("model", f"A{first}:A{last}")
    s.validate("chip", f"B{first}:B{last}")
    s.colour_bounds(f"{L['bound']}{first}:{L['bound']}{last}")
    s.ws.freeze_panes = f"C{first}"
    s.widths.update({1: 16, 2: 9, 15: 60})
    s.row = last + 2
    s.note("Training is taken as compute-bound (bound: TRAIN_TIME has no memory or network "
           "term): time = FLOPs / (chips x peak x MFU). chips for deadline = ROUNDUP(time x "
           "n_chips / deadline); energy = chip-hours x TDP (an upper bound).")
    s.note("Published chip-hours include restarts, evaluation and ablations and were run at "
           "the authors' own MFU (Llama 3: 38-43 % on H100; DeepSeek-V3 in fp8): a ratio below "
           "1 means the run achieved less than the MFU input.")
    s.finish()
    name_cell(wb, "Train_Llama70B_4096xH100_days", "Train", f"{L['time']}{first}")
    name_cell(wb, "Train_DeepSeekV3_chip_hours", "Train", f"{L['chip-hours']}{first + 4}")
    add_models_sheet(wb)
    add_chips_sheet(wb, table)
    add_xlwings_conf(wb)
    keep_cached_values(wb)
    return wb


# ---------------------------------------------------------------- cost comparison

COST_HOWTO = [
    "cost_comparison.xlsx answers: what does a FLOP and a generated token cost on each "
    "priced chip? Headline: H200 vs TPU v5p.",
    "1. Cost sheet, Inputs: the compute dtype and the MFU (share of peak your jobs reach) for "
    "the cost of a FLOP.",
    "2. Cost sheet, Prices: each row's list price is the chosen provider's latest price of the "
    "chosen pricing kind (on-demand, spot, capacity-block, 1-year, 3-year) from the Prices "
    "sheet, with its date and source; provider blank = the Chips sheet's price_per_hour (one "
    "provider for all chips: Google Cloud on-demand). To use your own quote, type it in "
    "'quote' and say whether it is per chip or per node, and how many chips a node has; the "
    "price per chip-hour follows. A quote also prices a chip with no list price (TPU7x, which "
    "has only an analyst's modelled 3-year rate, or B200 on Google Cloud): overwrite the chip "
    "of any row, clear its provider and type your quote.",
    "3. Tokens sheet: USD per million generated tokens for a model, chips, batch, prompt and "
    "output, from DECODE_TIME at the mbu/mfu inputs (weights incl. the MoE experts a batch "
    "touches + KV cache over HBM bandwidth vs FLOPs over peak, plus communication), next to "
    "the naive peak-FLOPs-only figure.",
    "4. Roofline chart sheet: the roofs of the chosen chips (pick them) and every Tokens row "
    "as a point.",
    EFFICIENCY_HOWTO,
    MODELS_HOWTO,
    *COMMON_HOWTO,
]

TOKEN_ROWS = [
    ("Llama 3.1 70B", "H200", 4, 64, 6144, 2048, "bf16", "bf16", "bf16"),
    ("Llama 3.1 70B", "TPU v5p", 4, 64, 6144, 2048, "bf16", "bf16", "bf16"),
    ("Llama 3.1 70B", "H200", 2, 128, 3072, 1024, "fp8", "fp8", "fp8"),
    ("Llama 3.1 8B", "H100", 1, 64, 3072, 1024, "bf16", "bf16", "bf16"),
    ("Llama 3.1 8B", "TPU v5e", 1, 8, 2048, 512, "bf16", "int8", "bf16"),
    ("Mixtral 8x7B", "TPU v6e", 4, 32, 3072, 1024, "bf16", "bf16", "bf16"),
    ("DeepSeek-V3", "H200", 8, 128, 3072, 1024, "fp8", "fp8", "bf16"),
]


def build_cost_comparison(table: ChipTable, prices=None) -> Workbook:
    """``templates/cost_comparison.xlsx`` (not yet recalculated); prices default: packaged."""
    prices = load_prices(prices)
    wb = Workbook()
    wb.remove(wb.active)
    add_howto_sheet(wb, "cost_comparison.xlsx — how to use", COST_HOWTO)

    # Cost sheet: prices and cost per FLOP
    s = SheetWriter(wb, "Cost", "Cost of a FLOP per priced chip",
                    "USD per FLOP = price per chip-hour / (3600 · peak(dtype) · MFU) "
                    "(COST_PER_FLOP; reference section 12). Price: your quote, else the list "
                    "price of the chosen provider (CHIP_PRICE over the Prices sheet).")
    s.table(["dtype", "MFU [fraction of peak]"], [[Input("bf16"), Input(0.5, "0%")]],
            caption="Inputs")
    s.validate("dtype", "A6")
    first, last, price_cols = _cost_rows(s, table, prices)
    h200, v5p = first + price_cols["rows"].index("H200"), first + price_cols["rows"].index(
        "TPU v5p")
    P = price_cols
    price_rng = (f"Cost!$A${first}:$A${last}", f"Cost!${P['price']}${first}:${P['price']}${last}")

    # Tokens sheet
    t = SheetWriter(wb, "Tokens", "USD per million generated tokens, from the whole-model "
                    "decode step", "Cost of a replica-hour / tokens per hour at DECODE_TIME "
                    "(mbu, mfu below); the peak-only column assumes every FLOP runs at peak.")
    eff, usable = _efficiency_inputs(t)
    extra_out = ["price [USD/chip-hour]", "USD/1M tokens [decode step]",
                 "USD/1M tokens at peak [FLOPs only]", "decode / peak-only [×]"]
    tf, tl, L = _serving_table(t, TOKEN_ROWS, [], extra_out, eff, usable,
                               caption="Scenarios (prices from the Cost sheet)")
    for r in range(tf, tl + 1):
        c = {k: f"{v}{r}" for k, v in L.items()}
        t.put(r, column_number(L["price"]),
              Calc(f"=INDEX({price_rng[1]},MATCH({c['chip']},{price_rng[0]},0))", "0.00"))
        t.put(r, column_number(L["USD/1M tokens"]),
              Calc(f"={c['price']}*{c['n_chips']}/({c['tokens/s']}*3600)*1E+6", "0.000"))
        t.put(r, column_number(L["USD/1M tokens at peak"]),
              Calc(f'=2*MODEL_SPEC(Models,{c["model"]},"active_params")*1E+6*'
                   f"COST_PER_FLOP(Chips,{c['chip']},{c['dtype']},1,{c['price']})", "0.000"))
        t.put(r, column_number(L["decode / peak-only"]),
              Calc(f"={c['USD/1M tokens']}/{c['USD/1M tokens at peak']}", "0.0"))
    t.row = tl + 2
    for line in SERVING_NOTES:
        t.note(line)
    t.note("A row whose chip has no price (no list price and no quote on the Cost sheet) "
           "shows #N/A in the price columns.")
    t.finish()
    usd = L["USD/1M tokens"]

    # headline block on the Cost sheet
    s.row = last + 2
    hf, hl = s.table(
        ["H200 vs TPU v5p", "H200", "TPU v5p", "H200 / TPU v5p [×]"],
        [["USD per 1e18 FLOP at MFU", Calc(f"={P['mfu']}{h200}", "0.00"),
          Calc(f"={P['mfu']}{v5p}", "0.00"), None],
         ["FLOPs per USD at MFU", Calc(f"={P['per_usd']}{h200}", SCI),
          Calc(f"={P['per_usd']}{v5p}", SCI), None],
         ["USD per 1M tokens (Tokens rows 1-2)",
          Calc(f"=Tokens!{usd}{tf}", "0.000"), Calc(f"=Tokens!{usd}{tf + 1}", "0.000"), None]],
        caption="Headline")
    for r in range(hf, hl + 1):
        s.put(r, 4, Calc(f"=B{r}/C{r}", "0.00"))
    s.widths.update({1: 34, **{j: 13 for j in range(2, 13)}})
    s.note("Tokens rows 1-2: Llama 3.1 70B on 4 chips, batch 64, 6k prompt + 2k output, bf16.")
    s.note("Reference: H200 about 10 USD/h and TPU v5p about 4 USD/h on Google Cloud; an "
           "H200 has about 2x the FLOPs and 1.5x the HBM of a v5p.")
    s.note("The headline compares one provider's prices (Google Cloud on-demand, the Chips "
           "sheet's default). Rows with another provider compare prices from different "
           "providers, markets and dates: read a ranking across them with that in mind.")
    s.note("Two rows for one chip compare two providers, or two dates of one provider: the "
           "H100 row with a blank provider is the book's Google Cloud price of Feb 2025, the "
           "H100 · Google Cloud row Google's latest listed price; each row's price date and "
           "source are beside it.")
    s.note("Rows with provider 'SemiAnalysis TCO model' are an analyst's modelled 3-year "
           "rental rates (H200, TPU7x, MI355X here), not a cloud's list price: one source for "
           "all of them, so they rank those chips on one basis, but not against list prices.")
    s.finish()
    s.ws.column_dimensions[P["source"]].width = 50
    name_cell(wb, "Cost_USDper1e18_H200_MFU", "Cost", f"{P['mfu']}{h200}")
    name_cell(wb, "Cost_USDper1e18_TPUv5p_MFU", "Cost", f"{P['mfu']}{v5p}")
    name_cell(wb, "Cost_USDperMtok_Llama70B_H200", "Tokens", f"{usd}{tf}")
    name_cell(wb, "Cost_USDperMtok_Llama70B_TPUv5p", "Tokens", f"{usd}{tf + 1}")
    name_cell(wb, "Cost_USDperMtok_DeepSeekV3_H200x8", "Tokens", f"{usd}{tl}")

    points = [Point(label=f'Tokens!$A${r}&" · "&Tokens!$B${r}&" ×"&Tokens!$C${r}&'
                          f'" · batch "&Tokens!$D${r}&" · "&Tokens!$G${r}',
                    intensity=f"Tokens!${L['FLOPs/step']}${r}/Tokens!${L['bytes/step']}${r}",
                    flops=f"Tokens!${L['FLOPs/step']}${r}/(Tokens!${L['TPOT']}${r}/1E+3)")
              for r in range(tf, tl + 1)]
    add_roofline_chart(wb, "Roofline chart", "Decode steps on the HBM roofline",
                       "Roofs of the chosen chips at the chosen dtype; points: the Tokens "
                       "rows (intensity = FLOPs / bytes per step; attained = FLOPs / step time).",
                       ["H200", "TPU v5p"], points, x_range=(1.0, 1.0e4))
    add_models_sheet(wb)
    add_chips_sheet(wb, table)
    add_prices_sheet(wb, prices)
    add_xlwings_conf(wb)
    keep_cached_values(wb)
    return wb


#: Cost-sheet rows beyond each priced chip's default row: (chip, provider, pricing) from
#: the price table, so one sheet compares providers for the newest chips
COST_EXTRA_ROWS = [
    ("B200", "Spheron", "on-demand"), ("GB200", "Spheron", "on-demand"),
    ("MI300X", "TensorWave", "on-demand"), ("MI300X", "Microsoft Azure", "on-demand"),
    ("MI325X", "TensorWave", "on-demand"), ("H100", "AWS", "capacity-block"),
    ("H100", "Lambda", "on-demand"), ("A100", "CoreWeave", "on-demand"),
    ("TPU v6e", "Google Cloud", "3-year"), ("H100", "Google Cloud", "on-demand"),
    ("B200", "Lambda", "on-demand"), ("B300", "Hyperstack", "on-demand"),
    ("B200", "AWS", "on-demand"), ("L4", "Google Cloud", "on-demand"),
    ("H200", "SemiAnalysis TCO model", "3-year"), ("TPU7x", "SemiAnalysis TCO model", "3-year"),
    ("MI355X", "SemiAnalysis TCO model", "3-year"),
]
#: Cost-sheet columns, in order: key -> header (the builder and its extensions use the keys)
COST_COLUMNS = {
    "chip": "chip", "provider": "provider [blank: Chips sheet default]",
    "pricing": "pricing", "list": "list price [USD/chip-hour]", "date": "price date",
    "quote": "quote [USD/hour]", "per": "quote per [chip or node]",
    "per_node": "chips per node", "price": "price [USD/chip-hour]",
    "peak": "USD per 1e18 FLOP [at peak]", "mfu": "USD per 1e18 FLOP [at MFU]",
    "per_usd": "FLOPs per USD [at MFU]", "source": "list price source",
}


def _cost_rows(s: SheetWriter, table: ChipTable, prices) -> tuple[int, int, dict]:
    """Cost-sheet price table: one row per priced chip (default provider) + COST_EXTRA_ROWS.

    Returns (first row, last row, {column key: letter, "rows": chip per row}). The price a
    row uses is the quote where typed (per chip, or per node / chips per node), else the
    list price of its provider (blank: the Chips sheet's price_per_hour).
    """
    from openpyxl.worksheet.datavalidation import DataValidation

    L = {k: column_letters(j) for j, k in enumerate(COST_COLUMNS, start=1)}
    default = [n for n, p in zip(table.names, table.numeric("price_per_hour"), strict=True)
               if p == p]
    quotes = {"H200": (80, "node", 8)}  # example: an 8-GPU node quote (= 10 USD/chip-hour)
    rows = [(n, None, None) for n in default] + [
        r for r in COST_EXTRA_ROWS if prices.find(r[0], r[1], r[2], table) is not None]
    body = []
    for n, prov, kind in rows:
        q, basis, per_node = quotes.get(n, (None, "chip", 8)) if prov is None else (
            None, "chip", 8)
        body.append([Input(n), Input(prov), Input(kind), None, None, Input(q, "0.00"),
                     Input(basis), Input(per_node)] + [None] * 5)
    first, last = s.table(list(COST_COLUMNS.values()), body,
                          caption="Prices and cost per FLOP (quote blank: the list price is "
                                  "used; a quote also prices a chip with no list price)",
                          freeze=True)
    c = {k: f"{v}{{r}}" for k, v in L.items()}
    for r in range(first, last + 1):
        f = {k: v.format(r=r) for k, v in c.items()}
        args = f"Chips,{f['chip']},Prices,{f['provider']},{f['pricing']}"
        s.put(r, column_number(L["list"]), Calc(f"=CHIP_PRICE({args})", "0.00"))
        s.put(r, column_number(L["date"]), Calc(f'=CHIP_PRICE({args},"date")'))
        s.put(r, column_number(L["price"]), Calc(
            f'=IF({f["quote"]}="",{f["list"]},{f["quote"]}/IF({f["per"]}="node",'
            f'{f["per_node"]},1))', "0.00"))
        s.put(r, column_number(L["peak"]), Calc(
            f"=COST_PER_FLOP(Chips,{f['chip']},$A$6,1,{f['price']})*1E+18", "0.00"))
        s.put(r, column_number(L["mfu"]), Calc(
            f"=COST_PER_FLOP(Chips,{f['chip']},$A$6,$B$6,{f['price']})*1E+18", "0.00"))
        s.put(r, column_number(L["per_usd"]), Calc(f"=1E+18/{f['mfu']}", SCI))
        s.put(r, column_number(L["source"]), Calc(f'=CHIP_PRICE({args},"source")'))
        s.ws.cell(row=r, column=column_number(L["source"])).alignment = Alignment(
            wrap_text=True, vertical="top")
    s.validate("chip", f"A{first}:A{last}")
    for col, formula in ((L["per"], '"chip,node"'), (L["provider"], "ProviderNames"),
                         (L["pricing"], '"' + ",".join(PRICING) + '"')):
        dv = DataValidation(type="list", formula1=formula, allow_blank=True)
        s.ws.add_data_validation(dv)
        dv.add(f"{col}{first}:{col}{last}")
    return first, last, {**L, "rows": [n for n, _, _ in rows]}


# ------------------------------------------------------------------- matmul sweep

SWEEP_AXES = {
    "chip": ["H100", "B200", "TPU v5e", "TPU v5p"],
    "B": [16, 64, 256, 1024, 4096],
    "D": [4096, 8192],
    "F": [14336, 28672],
}

SWEEP_HOWTO = [
    "matmul_sweep.xlsx sweeps X[B,D]·W[D,F] over chips, token batches B and matrix shapes D, F: "
    "time, what bounds it, and the critical batch B* where it turns compute-bound.",
    "1. Sweep sheet, Inputs: the compute dtype, the weight dtype (blank = the same), the "
    "chips the matmul is split over and how (none, D with an AllReduce, F).",
    "2. Sweep sheet, Axes: the chips (drop-down), B, D and F values to combine. The sweep "
    "table below takes every combination in order (chip slowest, F fastest) and follows "
    "your edits.",
    "3. Read across a row: T_math, T_hbm, T_comms, time = their max (full overlap), the "
    "bound (coloured), the arithmetic intensity, B* for that D and F, B / B*, and the "
    "roofline efficiency T_math / time (1 = at the compute roof).",
    "4. Critical batch table: B* per chip and (D, F).",
    *COMMON_HOWTO,
]


def build_matmul_sweep(table: ChipTable) -> Workbook:
    """``templates/matmul_sweep.xlsx`` (not yet recalculated)."""
    wb = Workbook()
    wb.remove(wb.active)
    add_howto_sheet(wb, "matmul_sweep.xlsx — how to use", SWEEP_HOWTO)
    s = SheetWriter(wb, "Sweep", "Matmul sweep: X[B,D]·W[D,F] over chip × B × D × F",
                    "MATMUL_TIME and CRIT_BATCH over the Chips table (reference sections 5-6).")
    s.table(["dtype", "weight_dtype", "n_chips", "shard"],
            [[Input("bf16"), Input(None), Input(1), Input("none")]], caption="Inputs")
    s.validate("dtype", "A6:B6")
    s.validate("shard", "D6")
    axes = SWEEP_AXES
    depth = max(len(v) for v in axes.values())
    ax_first, ax_last = s.table(
        ["chip [axis]", "B [tokens]", "D [elements]", "F [elements]"],
        [[Input(v[i]) if i < len(v) else None for v in axes.values()] for i in range(depth)],
        caption="Axes (the sweep combines every value of each column)")
    s.validate("chip", f"A{ax_first}:A{ax_first + len(axes['chip']) - 1}")
    rng = {}
    for j, (k, v) in enumerate(axes.items()):
        col = column_letters(1 + j)
        rng[k] = (f"${col}${ax_first}:${col}${ax_first + len(v) - 1}", len(v))
    n_c, n_b, n_d, n_f = (len(axes[k]) for k in ("chip", "B", "D", "F"))
    sizes = {"chip": n_b * n_d * n_f, "B": n_d * n_f, "D": n_f, "F": 1}

    # critical batch summary: chips x (D, F)
    combos = [(d, f) for d in range(n_d) for f in range(n_f)]
    cb_first, cb_last = s.table(
        ["B* [tokens] for chip \\ (D, F) →"] + [""] * len(combos),
        [[None] * (1 + len(combos)) for _ in range(n_c)],
        caption="Critical batch B* = CRIT_BATCH(chip, D, F, dtype, weight_dtype)")
    hdr = cb_first - 1
    for j, (d, f) in enumerate(combos):
        s.put(hdr, 2 + j, Calc(f'="D="&C{ax_first + d}&", F="&D{ax_first + f}'))
        s.ws.cell(row=hdr, column=2 + j).font = copy(s.ws.cell(row=hdr, column=1).font)
        s.ws.cell(row=hdr, column=2 + j).fill = copy(s.ws.cell(row=hdr, column=1).fill)
    for i in range(n_c):
        r = cb_first + i
        s.put(r, 1, Calc(f"=A{ax_first + i}"))
        for j, (d, f) in enumerate(combos):
            s.put(r, 2 + j, Calc(f"=CRIT_BATCH(Chips,$A{r},$C${ax_first + d},"
                                 f"$D${ax_first + f},$A$6,$B$6)", "0.0"))

    headers = ["case", "chip", "B [tokens]", "D [elements]", "F [elements]", "T_math [µs]",
               "T_hbm [µs]", "T_comms [µs]", "time [µs]", "bound", "intensity [FLOP/byte]",
               "B* [tokens]", "B / B* [×]", "efficiency [T_math / time]"]
    n_rows = n_c * n_b * n_d * n_f
    first, last = s.table(headers, [[k] + [None] * (len(headers) - 1) for k in range(n_rows)],
                          caption=f"Sweep ({n_rows} cases: chip slowest, F fastest)")
    s.ws.freeze_panes = f"C{first}"
    for r in range(first, last + 1):
        for j, key in enumerate(("chip", "B", "D", "F")):
            idx = f"MOD(INT(A{r}/{sizes[key]}),{rng[key][1]})+1"
            s.put(r, 2 + j, Calc(f"=INDEX({rng[key][0]},{idx})",
                                 None if key == "chip" else "#,##0"))
        args = f"Chips,B{r},C{r},D{r},E{r},$A$6,$B$6,$C$6,$D$6"
        for j, res in enumerate(("math", "hbm", "comms", "time")):
            s.put(r, 6 + j, Calc(f'=MATMUL_TIME({args},"{res}")*1E+6', "0.00"))
        s.put(r, 10, Calc(f'=MATMUL_TIME({args},"bound")'))
        s.put(r, 11, Calc(f'=MATMUL_TIME({args},"intensity")', "0.0"))
        s.put(r, 12, Calc(f"=CRIT_BATCH(Chips,B{r},D{r},E{r},$A$6,$B$6)", "0.0"))
        s.put(r, 13, Calc(f"=C{r}/L{r}", "0.00"))
        s.put(r, 14, Calc(f"=F{r}/I{r}", "0%"))
    s.colour_bounds(f"J{first}:J{last}")
    s.note("time = max(T_math, T_hbm, T_comms): the lower bound with full overlap. B* ignores "
           "n_chips and shard (the single-chip HBM threshold).")
    s.finish()
    s.ws.column_dimensions["A"].width = 14
    name_cell(wb, "Sweep_H100_B16_time_us", "Sweep", f"I{first}")
    add_models_sheet(wb)
    add_chips_sheet(wb, table)
    add_xlwings_conf(wb)
    keep_cached_values(wb)
    return wb
