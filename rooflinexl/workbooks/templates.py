"""Planning templates in ``templates/``: capacity plan, cost comparison, matmul sweep.

Each template is prefilled with a worked example (real public model shapes,
the packaged chip table) so it shows numbers when opened; every roofline
quantity is one of our functions over the Chips table, and only plain
arithmetic glue (sums, ratios, unit conversions, INDEX/MATCH look-ups, IF)
is a native formula.
"""
from __future__ import annotations

from copy import copy
from dataclasses import dataclass

from openpyxl import Workbook
from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter

from rooflinexl.chips import ChipTable
from rooflinexl.workbooks.charts import Point, add_roofline_chart
from rooflinexl.workbooks.layout import (
    Calc,
    Input,
    SheetWriter,
    add_chips_sheet,
    add_howto_sheet,
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


# ------------------------------------------------------------------ model shapes


@dataclass(frozen=True)
class ModelShape:
    """Published shape of a model: what the decode roofline needs."""

    name: str
    kind: str
    layers: int
    kv_heads: int
    head_dim: int
    total: float  # parameters held in memory
    active: float  # parameters read per token (MoE: activated)
    experts: int | None
    top_k: int | None
    source: str
    note: str = ""


_LLAMA = ("huggingface.co/meta-llama/{repo} config.json: num_hidden_layers {L}, hidden_size {d}, "
          "num_attention_heads {h}, num_key_value_heads 8, head_dim 128; {p} parameters "
          "(model card)")

MODELS = [
    ModelShape("Llama 3.1 8B", "dense", 32, 8, 128, 8.03e9, 8.03e9, None, None,
               _LLAMA.format(repo="Llama-3.1-8B", L=32, d=4096, h=32, p="8.03B")),
    ModelShape("Llama 3.1 70B", "dense", 80, 8, 128, 70.6e9, 70.6e9, None, None,
               _LLAMA.format(repo="Llama-3.1-70B", L=80, d=8192, h=64, p="70.6B")),
    ModelShape("Llama 3.1 405B", "dense", 126, 8, 128, 405.9e9, 405.9e9, None, None,
               _LLAMA.format(repo="Llama-3.1-405B", L=126, d=16384, h=128, p="405.9B")),
    ModelShape("Mixtral 8x7B", "MoE", 32, 8, 128, 46.7e9, 12.9e9, 8, 2,
               "huggingface.co/mistralai/Mixtral-8x7B-v0.1 config.json: num_hidden_layers 32, "
               "hidden_size 4096, num_key_value_heads 8, head_dim 128, num_local_experts 8, "
               "num_experts_per_tok 2; 46.7B total / 12.9B active (Mistral AI announcement, "
               "Dec 2023)"),
    ModelShape("DeepSeek-V3", "MoE", 61, 1, 288, 671e9, 37e9, 256, 8,
               "huggingface.co/deepseek-ai/DeepSeek-V3 config.json: num_hidden_layers 61, "
               "hidden_size 7168, kv_lora_rank 512, qk_rope_head_dim 64, n_routed_experts 256 "
               "(+1 shared), num_experts_per_tok 8; 671B total / 37B activated per token "
               "(technical report, arXiv 2412.19437; main model without the 14B MTP module)",
               "MLA caches one 512-value latent + one 64-value RoPE key per token and layer "
               "(576 values, no separate K and V): entered as kv_heads 1 x head_dim 288 because "
               "KV_CACHE_BYTES counts 2 x kv_heads x head_dim. Released weights are fp8."),
]
SPARE_MODEL_ROWS = 5


@dataclass(frozen=True)
class ModelRanges:
    """Absolute ranges of the Models sheet columns, for INDEX/MATCH."""

    first: int
    last: int

    def col(self, letter: str) -> str:
        return f"Models!${letter}${self.first}:${letter}${self.last}"

    def lookup(self, letter: str, key: str) -> str:
        """``INDEX(<column>, MATCH(key, <names>, 0))`` (no leading '=')."""
        return f"INDEX({self.col(letter)},MATCH({key},{self.col('A')},0))"


#: Models sheet column letters
M_LAYERS, M_KV, M_HD, M_TOTAL, M_ACTIVE = "C", "D", "E", "F", "G"


def _models_sheet(wb: Workbook) -> ModelRanges:
    s = SheetWriter(wb, "Models", "Model shapes for decode planning (public configs)",
                    "Add your own model in a spare yellow row; the Plan/Tokens drop-downs offer "
                    "every name in column A. MoE: active parameters are read per token, total "
                    "parameters are held in memory.")
    body = [[Input(m.name), Input(m.kind), Input(m.layers), Input(m.kv_heads),
             Input(m.head_dim), Input(m.total, SCI), Input(m.active, SCI), Input(m.experts),
             Input(m.top_k), m.source, m.note] for m in MODELS]
    body += [[Input(None) for _ in range(9)] + [None, None] for _ in range(SPARE_MODEL_ROWS)]
    first, last = s.table(["model", "kind", "layers", "kv_heads", "head_dim [elements]",
                           "total params", "active params [per token]", "experts E",
                           "experts per token k", "source", "notes"], body, freeze=True)
    s.finish()
    s.ws.column_dimensions["A"].width = 16
    s.ws.column_dimensions["J"].width = 70
    s.ws.column_dimensions["K"].width = 60
    for row in s.ws.iter_rows(min_row=first, max_row=last, min_col=10, max_col=11):
        for c in row:
            c.alignment = Alignment(wrap_text=True, vertical="top")
    from openpyxl.workbook.defined_name import DefinedName

    wb.defined_names["ModelNames"] = DefinedName(
        "ModelNames", attr_text=f"Models!$A${first}:$A${last}")
    return ModelRanges(first, last)


def _model_validation(s: SheetWriter, cells: str) -> None:
    from openpyxl.worksheet.datavalidation import DataValidation

    dv = DataValidation(type="list", formula1="=ModelNames", allow_blank=True,
                        showErrorMessage=True, errorTitle="Unknown model",
                        error="Pick a model from the Models sheet (or add one there).")
    s.ws.add_data_validation(dv)
    dv.add(cells)


def _letters(headers: list[str]) -> dict[str, str]:
    """Column letter of each header key (the text before ' [')."""
    return {h.split(" [")[0]: get_column_letter(j) for j, h in enumerate(headers, start=1)}


# --------------------------------------------------------- decode-step columns


def _decode_columns(L: dict[str, str], r: int, models: ModelRanges, usable: str) -> dict:
    """Formulas of the decode-step columns of one row (shared by Plan and Tokens).

    Needs the keys model, chip, n_chips, batch, context, dtype, weight_dtype, kv_dtype,
    layers, kv_heads, head_dim, total params, active params, weights/chip, KV/chip,
    HBM/chip, fits, bytes/step, FLOPs/step, step, bound, tokens/s in ``L``.
    """
    c = {k: f"{v}{r}" for k, v in L.items()}
    chip, n = c["chip"], c["n_chips"]
    bw = f'CHIP_SPEC(Chips,{chip},"hbm_bw")'
    return {
        "layers": Calc("=" + models.lookup(M_LAYERS, c["model"]), "0"),
        "kv_heads": Calc("=" + models.lookup(M_KV, c["model"]), "0"),
        "head_dim": Calc("=" + models.lookup(M_HD, c["model"]), "0"),
        "total params": Calc("=" + models.lookup(M_TOTAL, c["model"]), SCI),
        "active params": Calc("=" + models.lookup(M_ACTIVE, c["model"]), SCI),
        # bytes of all weights on one chip = time to read them x bandwidth
        "weights/chip": Calc(f"=WEIGHT_LOAD_TIME(Chips,{chip},{c['total params']},"
                             f"{c['weight_dtype']},{n})*{bw}/1E+9", GB),
        "KV/chip": Calc(f"=KV_CACHE_BYTES({c['layers']},{c['kv_heads']},{c['head_dim']},"
                        f"{c['context']},{c['batch']},{c['kv_dtype']})/{n}/1E+9", GB),
        "HBM/chip": Calc(f'=CHIP_SPEC(Chips,{chip},"hbm_bytes")/1E+9', GB),
        "fits": Calc(f'=IF({c["weights/chip"]}+{c["KV/chip"]}<={usable}*{c["HBM/chip"]},'
                     f'"fits","no")'),
        "bytes/step": Calc(f"=WEIGHT_LOAD_TIME(Chips,{chip},{c['active params']},"
                           f"{c['weight_dtype']},{n})*{bw}/1E+9+{c['KV/chip']}", GB),
        "FLOPs/step": Calc(f"=2*{c['active params']}*{c['batch']}/{n}", SCI),
        "step": Calc(f'=ROOFLINE_TIME(Chips,{chip},{c["FLOPs/step"]},{c["bytes/step"]}*1E+9,'
                     f'"hbm",{c["dtype"]})*1E+3', MS),
        "bound": Calc(f'=ROOFLINE_TIME(Chips,{chip},{c["FLOPs/step"]},{c["bytes/step"]}*1E+9,'
                      f'"hbm",{c["dtype"]},"bound")'),
        "tokens/s": Calc(f"={c['batch']}/({c['step']}/1E+3)", "#,##0"),
    }


_DECODE_HEADERS = [
    "layers", "kv_heads", "head_dim", "total params", "active params [per token]",
    "weights/chip [GB]", "KV/chip [GB]", "HBM/chip [GB]", "fits [in usable HBM]",
    "bytes/step [GB per chip]", "FLOPs/step [per chip]", "step [ms, ≥]", "bound",
    "tokens/s [per replica, ≤]",
]
_ROW_INPUT_HEADERS = ["model", "chip", "n_chips [per replica]", "batch [sequences]",
                      "context [tokens]", "dtype [compute]", "weight_dtype", "kv_dtype"]


def _decode_table(s: SheetWriter, rows: list[tuple], extra_inputs: list[str],
                  extra_outputs: list[str], models: ModelRanges, usable: str,
                  caption: str):
    """Write the per-row decode table; returns (first, last, letters)."""
    headers = _ROW_INPUT_HEADERS + extra_inputs + _DECODE_HEADERS + extra_outputs
    L = _letters(headers)
    n_in = len(_ROW_INPUT_HEADERS) + len(extra_inputs)
    body = [[Input(v, SCI if isinstance(v, float) and v >= 1e6 else None) for v in row]
            + [None] * (len(headers) - n_in) for row in rows]
    first, last = s.table(headers, body, caption=caption)
    for r in range(first, last + 1):
        for key, calc in _decode_columns(L, r, models, usable).items():
            s.put(r, _col(L[key]), calc)
    s.ws.freeze_panes = f"C{first}"
    s.widths.update({j: 10.5 for j in range(3, len(headers) + 1)})
    s.widths.update({1: 15, 2: 9, 6: 11, 7: 13, 8: 11})
    # the model shape looked up from the Models sheet: grouped and folded (click + to show)
    s.ws.column_dimensions.group(L["layers"], L["head_dim"], hidden=True, outline_level=1)
    s.validate("chip", f"B{first}:B{last}")
    s.validate("dtype", f"F{first}:H{last}")
    _model_validation(s, f"A{first}:A{last}")
    s.colour_bounds(f"{L['bound']}{first}:{L['bound']}{last}")
    s.colour_text(f"{L['fits']}{first}:{L['fits']}{last}", FITS)
    return first, last, L


def _col(letter: str) -> int:
    from openpyxl.utils import column_index_from_string

    return column_index_from_string(letter)


DECODE_NOTES = [
    "Decode step (one new token per sequence): each chip reads its share of the weights in use "
    "(dense: all; MoE: the active parameters) and of the KV cache once,",
    "and does 2 x active params FLOPs per token. step ≥ ROOFLINE_TIME = max(bytes / hbm_bw, "
    "FLOPs / peak(dtype)): the decode lower bound of reference section 5.",
    "Simplifications: weights and KV cache split evenly over the replica's chips (with more "
    "chips than KV heads, real systems replicate KV heads);",
    "attention FLOPs, activations and communication left out; MoE reads only the active "
    "experts, a lower bound (large batches touch more experts, up to all).",
    "Columns {folded} (layers, kv_heads, head_dim, looked up from the Models sheet) are "
    "folded: click + above the column letters to show them.",
]


def _decode_notes(s: SheetWriter, L: dict[str, str]) -> None:
    folded = f"{L['layers']}:{L['head_dim']}"
    for line in DECODE_NOTES:
        s.note(line.format(folded=folded))


# ------------------------------------------------------------------ capacity plan

CAPACITY_ROWS = [
    # model, chip, n, batch, context, dtype, weight dtype, kv dtype, target tokens/s
    ("Llama 3.1 8B", "H100", 1, 32, 8192, "bf16", "bf16", "bf16", 20000),
    ("Llama 3.1 8B", "TPU v5e", 1, 8, 4096, "bf16", "int8", "bf16", 20000),
    ("Llama 3.1 70B", "H100", 1, 16, 8192, "bf16", "bf16", "bf16", 20000),
    ("Llama 3.1 70B", "H200", 4, 64, 8192, "bf16", "bf16", "bf16", 20000),
    ("Llama 3.1 70B", "H200", 2, 64, 8192, "fp8", "fp8", "fp8", 20000),
    ("Llama 3.1 70B", "TPU v5p", 4, 64, 8192, "bf16", "bf16", "bf16", 20000),
    ("Llama 3.1 405B", "H200", 8, 32, 8192, "fp8", "fp8", "fp8", 20000),
    ("Llama 3.1 405B", "TPU v5p", 16, 32, 8192, "bf16", "bf16", "bf16", 20000),
    ("Mixtral 8x7B", "H100", 2, 64, 4096, "bf16", "bf16", "bf16", 20000),
    ("DeepSeek-V3", "H200", 8, 128, 4096, "fp8", "fp8", "bf16", 20000),
    ("DeepSeek-V3", "B200", 8, 256, 4096, "fp8", "fp8", "bf16", 20000),
]

CAPACITY_HOWTO = [
    "capacity_plan.xlsx answers: does this model fit on these chips, how fast can one replica "
    "decode, and how many chips does a target throughput need?",
    "1. Plan sheet: one row per scenario (model, chip, chips per replica, batch of concurrent "
    "sequences, context length, dtypes, target tokens/s). Pick the model and chip from the "
    "drop-downs; the example rows use public model shapes.",
    "2. Read across: weights and KV cache per chip, whether they fit in the usable share of "
    "HBM (input above the table), the decode-step lower bound and what bounds it, tokens/s "
    "per replica, the largest batch that fits, and the replicas and chips for the target.",
    "3. Models sheet: the model shapes with their sources (HF config.json); add your own model "
    "in a spare row. DeepSeek-V3's MLA cache is entered as kv_heads 1 x head_dim 288 (see "
    "its note).",
    *COMMON_HOWTO,
]


def build_capacity_plan(table: ChipTable) -> Workbook:
    """``templates/capacity_plan.xlsx`` (not yet recalculated)."""
    wb = Workbook()
    wb.remove(wb.active)
    add_howto_sheet(wb, "capacity_plan.xlsx — how to use", CAPACITY_HOWTO)
    s = SheetWriter(wb, "Plan", "Inference capacity plan: memory, decode-step bound, chips "
                    "for a target throughput", "Every row is one replica of n chips serving "
                    "'batch' concurrent sequences at 'context' tokens each.")
    s.table(["usable HBM [fraction]"], [[Input(0.9, "0%")]],
            caption="Input (HBM left for weights and KV cache; the rest holds activations "
                    "and runtime buffers)")
    models = ModelRanges(5, 5 + len(MODELS) + SPARE_MODEL_ROWS - 1)
    extra_out = ["max batch [sequences in HBM]", "replicas [for target]", "chips [for target]"]
    first, last, L = _decode_table(
        s, CAPACITY_ROWS, ["target [tokens/s]"], extra_out, models, "$A$6",
        caption="Scenarios (yellow: inputs; white: computed)")
    for r in range(first, last + 1):
        c = {k: f"{v}{r}" for k, v in L.items()}
        kv_one = (f"KV_CACHE_BYTES({c['layers']},{c['kv_heads']},{c['head_dim']},"
                  f"{c['context']},1,{c['kv_dtype']})/{c['n_chips']}/1E+9")
        s.put(r, _col(L["max batch"]),
              Calc(f"=MAX(0,INT(($A$6*{c['HBM/chip']}-{c['weights/chip']})/({kv_one})))",
                   "#,##0"))
        s.put(r, _col(L["replicas"]),
              Calc(f'=IF({c["fits"]}="fits",ROUNDUP({c["target"]}/{c["tokens/s"]},0),"—")',
                   "#,##0"))
        s.put(r, _col(L["chips"]),
              Calc(f'=IF({c["fits"]}="fits",{c["replicas"]}*{c["n_chips"]},"—")', "#,##0"))
    s.row = last + 2
    _decode_notes(s, L)
    s.note("max batch: sequences whose KV cache still fits beside the weights; replicas = "
           "ROUNDUP(target / tokens/s); chips = replicas x n_chips ('—': the row does not fit).")
    s.finish()
    name_cell(wb, "Plan_Llama70B_H200x4_step_ms", "Plan", f"{L['step']}{first + 3}")
    name_cell(wb, "Plan_Llama70B_H200x4_chips", "Plan", f"{L['chips']}{first + 3}")
    got = _models_sheet(wb)
    assert got == models, (got, models)
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
    "2. Cost sheet, Prices: list prices come from the Chips sheet (per chip-hour, with date "
    "and source there). To use your own quote, type it in 'quote' and say whether it is per "
    "chip or per node, and how many chips a node has; the price per chip-hour follows. A chip "
    "without a list price: enter its price_per_hour on the Chips sheet first.",
    "3. Tokens sheet: USD per million generated tokens for a model, chips, batch and context, "
    "from the decode-step roofline bound (weights + KV cache over HBM bandwidth vs FLOPs over "
    "peak), next to the naive peak-FLOPs-only figure.",
    "4. Roofline chart sheet: the roofs of the chosen chips (pick them) and every Tokens row "
    "as a point.",
    *COMMON_HOWTO,
]

TOKEN_ROWS = [
    ("Llama 3.1 70B", "H200", 4, 64, 8192, "bf16", "bf16", "bf16"),
    ("Llama 3.1 70B", "TPU v5p", 4, 64, 8192, "bf16", "bf16", "bf16"),
    ("Llama 3.1 70B", "H200", 2, 128, 4096, "fp8", "fp8", "fp8"),
    ("Llama 3.1 8B", "H100", 1, 64, 4096, "bf16", "bf16", "bf16"),
    ("Llama 3.1 8B", "TPU v5e", 1, 8, 4096, "bf16", "int8", "bf16"),
    ("Mixtral 8x7B", "TPU v6e", 4, 32, 4096, "bf16", "bf16", "bf16"),
    ("DeepSeek-V3", "H200", 8, 128, 4096, "fp8", "fp8", "bf16"),
]


def build_cost_comparison(table: ChipTable) -> Workbook:
    """``templates/cost_comparison.xlsx`` (not yet recalculated)."""
    wb = Workbook()
    wb.remove(wb.active)
    add_howto_sheet(wb, "cost_comparison.xlsx — how to use", COST_HOWTO)
    models = ModelRanges(5, 5 + len(MODELS) + SPARE_MODEL_ROWS - 1)

    # Cost sheet: prices and cost per FLOP
    s = SheetWriter(wb, "Cost", "Cost of a FLOP per priced chip",
                    "USD per FLOP = price per chip-hour / (3600 · peak(dtype) · MFU) "
                    "(COST_PER_FLOP; reference section 12). Prices: Chips sheet, or your quote.")
    s.table(["dtype", "MFU [fraction of peak]"], [[Input("bf16"), Input(0.5, "0%")]],
            caption="Inputs")
    s.validate("dtype", "A6")
    prices = table.numeric("price_per_hour")
    priced = [n for n, p in zip(table.names, prices, strict=True) if p == p]
    quotes = {"H200": (80, "node", 8)}  # example: an 8-GPU node quote (= 10 USD/chip-hour)
    headers = ["chip", "list price [USD/chip-hour]", "quote [USD/hour]",
               "quote per [chip or node]", "chips per node", "price [USD/chip-hour]",
               "USD per 1e18 FLOP [at peak]", "USD per 1e18 FLOP [at MFU]",
               "FLOPs per USD [at MFU]", "price date", "price source"]
    body = []
    for n in priced:
        q, basis, per_node = quotes.get(n, (None, "chip", 8))
        body.append([Input(n), None, Input(q, "0.00"), Input(basis), Input(per_node)]
                    + [None] * 6)
    first, last = s.table(headers, body, caption="Prices and cost per FLOP (quote blank: the "
                          "list price is used)", freeze=True)
    for r in range(first, last + 1):
        s.put(r, 2, Calc(f'=CHIP_SPEC(Chips,A{r},"price_per_hour")', "0.00"))
        s.put(r, 6, Calc(f'=IF(C{r}="",B{r},C{r}/IF(D{r}="node",E{r},1))', "0.00"))
        # COST_PER_FLOP prices at the list price; scale by the price actually paid
        s.put(r, 7, Calc(f"=COST_PER_FLOP(Chips,A{r},$A$6)*1E+18*F{r}/B{r}", "0.00"))
        s.put(r, 8, Calc(f"=COST_PER_FLOP(Chips,A{r},$A$6,$B$6)*1E+18*F{r}/B{r}", "0.00"))
        s.put(r, 9, Calc(f"=1E+18/H{r}", SCI))
        s.put(r, 10, Calc(f'=CHIP_SPEC(Chips,A{r},"price_date")'))
        s.put(r, 11, Calc(f'=CHIP_SPEC(Chips,A{r},"price_source")'))
    s.validate("chip", f"A{first}:A{last}")
    from openpyxl.worksheet.datavalidation import DataValidation

    basis = DataValidation(type="list", formula1='"chip,node"', allow_blank=True)
    s.ws.add_data_validation(basis)
    basis.add(f"D{first}:D{last}")
    for r in range(first, last + 1):
        s.ws.cell(row=r, column=11).alignment = Alignment(wrap_text=True, vertical="top")
    h200, v5p = first + priced.index("H200"), first + priced.index("TPU v5p")
    price_rng = (f"Cost!$A${first}:$A${last}", f"Cost!$F${first}:$F${last}")

    # Tokens sheet
    t = SheetWriter(wb, "Tokens", "USD per million generated tokens, bounded by the decode "
                    "roofline", "Cost of a replica-hour / tokens per hour at the decode-step "
                    "lower bound; the peak-only column assumes every FLOP runs at peak.")
    t.table(["usable HBM [fraction]"], [[Input(0.9, "0%")]], caption="Input")
    extra_out = ["price [USD/chip-hour]", "USD/1M tokens [roofline bound]",
                 "USD/1M tokens at peak [FLOPs only]", "roofline / peak-only [×]"]
    tf, tl, L = _decode_table(t, TOKEN_ROWS, [], extra_out, models, "$A$6",
                              caption="Scenarios (prices from the Cost sheet)")
    for r in range(tf, tl + 1):
        c = {k: f"{v}{r}" for k, v in L.items()}
        t.put(r, _col(L["price"]),
              Calc(f"=INDEX({price_rng[1]},MATCH({c['chip']},{price_rng[0]},0))", "0.00"))
        t.put(r, _col(L["USD/1M tokens"]),
              Calc(f"={c['price']}*{c['n_chips']}/({c['tokens/s']}*3600)*1E+6", "0.000"))
        t.put(r, _col(L["USD/1M tokens at peak"]),
              Calc(f"=2*{c['active params']}*1E+6*COST_PER_FLOP(Chips,{c['chip']},"
                   f"{c['dtype']})*{c['price']}/CHIP_SPEC(Chips,{c['chip']},"
                   f'"price_per_hour")', "0.000"))
        t.put(r, _col(L["roofline / peak-only"]),
              Calc(f"={c['USD/1M tokens']}/{c['USD/1M tokens at peak']}", "0.0"))
    t.row = tl + 2
    _decode_notes(t, L)
    t.note("A row whose chip has no price (no list price and no quote on the Cost sheet) "
           "shows #N/A in the price columns.")
    t.finish()
    usd = L["USD/1M tokens"]

    # headline block on the Cost sheet
    s.row = last + 2
    hf, hl = s.table(
        ["H200 vs TPU v5p", "H200", "TPU v5p", "H200 / TPU v5p [×]"],
        [["USD per 1e18 FLOP at MFU", Calc(f"=H{h200}", "0.00"), Calc(f"=H{v5p}", "0.00"),
          None],
         ["FLOPs per USD at MFU", Calc(f"=I{h200}", SCI), Calc(f"=I{v5p}", SCI), None],
         ["USD per 1M tokens (Tokens rows 1-2)",
          Calc(f"=Tokens!{usd}{tf}", "0.000"), Calc(f"=Tokens!{usd}{tf + 1}", "0.000"), None]],
        caption="Headline")
    for r in range(hf, hl + 1):
        s.put(r, 4, Calc(f"=B{r}/C{r}", "0.00"))
    s.widths.update({1: 34, **{j: 13 for j in range(2, 10)}, 10: 10})
    s.note("Tokens rows 1-2: Llama 3.1 70B on 4 chips, batch 64, 8k context, bf16.")
    s.note("Reference: H200 about 10 USD/h and TPU v5p about 4 USD/h on Google Cloud; an "
           "H200 has about 2x the FLOPs and 1.5x the HBM of a v5p.")
    s.finish()
    s.ws.column_dimensions["K"].width = 50
    name_cell(wb, "Cost_USDper1e18_H200_MFU", "Cost", f"H{h200}")
    name_cell(wb, "Cost_USDper1e18_TPUv5p_MFU", "Cost", f"H{v5p}")
    name_cell(wb, "Cost_USDperMtok_Llama70B_H200", "Tokens", f"{usd}{tf}")
    name_cell(wb, "Cost_USDperMtok_Llama70B_TPUv5p", "Tokens", f"{usd}{tf + 1}")

    points = [Point(label=f'Tokens!$A${r}&" · "&Tokens!$B${r}&" ×"&Tokens!$C${r}&'
                          f'" · batch "&Tokens!$D${r}&" · "&Tokens!$F${r}',
                    intensity=f"Tokens!${L['FLOPs/step']}${r}/(Tokens!${L['bytes/step']}${r}"
                              f"*1E+9)",
                    flops=f"Tokens!${L['FLOPs/step']}${r}/(Tokens!${L['step']}${r}/1E+3)")
              for r in range(tf, tl + 1)]
    add_roofline_chart(wb, "Roofline chart", "Decode steps on the HBM roofline",
                       "Roofs of the chosen chips at the chosen dtype; points: the Tokens "
                       "rows (intensity = FLOPs / bytes per step; attained = FLOPs / step time).",
                       ["H200", "TPU v5p"], points, x_range=(1.0, 1.0e4))
    got = _models_sheet(wb)
    assert got == models, (got, models)
    add_chips_sheet(wb, table)
    add_xlwings_conf(wb)
    keep_cached_values(wb)
    return wb


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
        col = get_column_letter(1 + j)
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
    add_chips_sheet(wb, table)
    add_xlwings_conf(wb)
    keep_cached_values(wb)
    return wb
