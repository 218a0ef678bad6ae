"""``workbooks/Roofline.xlsx``: the reference's worked results as live formulas.

Every number on these sheets is a formula over the Chips sheet (generated
from the packaged chip CSV); the reference value beside it says where the
number comes from ("How to Scale Your Model", summarised in the reference
article, sections 2-12).
"""
from __future__ import annotations

from openpyxl import Workbook
from openpyxl.styles import Alignment

from rooflinexl.addresses import column_letters
from rooflinexl.chips import ChipTable
from rooflinexl.dtypes import TIERS
from rooflinexl.workbooks.charts import Point, add_roofline_chart
from rooflinexl.workbooks.layout import (
    Calc,
    Input,
    SheetWriter,
    add_chips_sheet,
    add_howto_sheet,
    add_models_sheet,
    add_xlwings_conf,
    keep_cached_values,
    name_cell,
)

SCI = "0.000E+00"
TOK = "0.0"

HOWTO = [
    "Roofline.xlsx reproduces the roofline analysis of 'How to Scale Your Model' with live "
    "formulas: every result calls a rooflinexl function over the Chips table.",
    "1. Yellow cells are inputs: change a chip, a dimension or a dtype and the row recomputes. "
    "White boxed cells are formulas; do not type over them.",
    "2. The Chips sheet holds the chip specs (dense peaks, one-direction link bandwidths, "
    "sourced and dated in the source column). Edit a number there to plan for other hardware; "
    "every sheet follows. The defined name Chips covers its header and rows.",
    "3. Pick the file for your Excel host (docs/excel.md): workbooks/Roofline.xlsx for classic "
    "xlwings on Windows (install the xlwings add-in, click Import Functions; the hidden "
    "xlwings.conf sheet points it at rooflinexl.udfs), workbooks/lite/Roofline.xlsx for "
    "xlwings Server and xlwings Lite, where the functions are named ROOFLINE.CRIT_BATCH etc.",
    "4. Without Excel: 'rooflinexl recalc Roofline.xlsx -o out.xlsx' recalculates every formula "
    "headless and stores the values, so any reader sees numbers.",
    "Sheets: Intensity (critical intensity per chip and tier), Critical batch, MoE, Network D, "
    "Matmul time, Elementwise & decode, Cost, Roofline chart (the roofs of four chips, editable, "
    "with the Matmul time rows as points).",
    "Units: FLOP/s, bytes, B/s (one direction), seconds unless a header says ms or µs, USD per "
    "chip-hour. Errors: #N/A unknown chip or missing spec, #NUM! outside the formula's domain, "
    "#VALUE! text where a number belongs.",
]


def build_roofline(table: ChipTable) -> Workbook:
    """The Roofline.xlsx workbook (not yet recalculated)."""
    wb = Workbook()
    wb.remove(wb.active)
    add_howto_sheet(wb, "Roofline.xlsx — how to use", HOWTO)
    _intensity(wb, table)
    _crit_batch(wb)
    _moe(wb)
    _network(wb)
    matmul_rows = _matmul(wb)
    _elementwise(wb)
    _cost(wb, table)
    _chart(wb, *matmul_rows)
    add_models_sheet(wb)
    add_chips_sheet(wb, table)
    add_xlwings_conf(wb)
    keep_cached_values(wb)
    return wb


def _intensity(wb, table):
    s = SheetWriter(wb, "Intensity", "Critical intensity [FLOP/byte] = peak(dtype) / "
                    "bandwidth(tier)",
                    "Reference sections 2 and 7. '—' where the chip has no figure for that tier.")
    s.table(["dtype"], [[Input("bf16")]], caption="Input")
    s.validate("dtype", "A6")
    tiers = list(TIERS)
    hdr_row = s.row + 1
    first, last = s.table(["chip"] + tiers,
                          [[Input(name)] + [None] * len(tiers) for name in table.names],
                          caption="Critical intensity [FLOP/byte] per chip and tier",
                          freeze=True)
    for r in range(first, last + 1):
        for j in range(len(tiers)):
            col = column_letters(2 + j)
            s.put(r, 2 + j, Calc(f'=_xlfn.IFNA(CRIT_INTENSITY(Chips,$A{r},{col}${hdr_row},'
                                 f'$A$6),"—")', "0.0"))
            s.ws.cell(row=r, column=2 + j).alignment = Alignment(horizontal="right")
    s.validate("chip", f"A{first}:A{last}")
    h100 = first + table.row_of("H100")
    name_cell(wb, "CritIntensity_H100_HBM", "Intensity", f"B{h100}")
    name_cell(wb, "CritIntensity_H100_NVLink", "Intensity", f"D{h100}")
    name_cell(wb, "CritIntensity_H100_NIC", "Intensity", f"E{h100}")
    s.note("Reference: H100 HBM ≈ 295, NVLink ≈ 2,200, one 400 Gb/s NIC ≈ 19,780; TPU v5e "
           "HBM ≈ 240 (bf16), 480 (int8).")
    s.finish()


def _crit_batch(wb):
    s = SheetWriter(wb, "Critical batch", "Critical token batch B* of X[B,D]·W[D,F]",
                    "B* = w / (2/I − a/F − a/D), I = peak(dtype)/bw(tier); blank D, F drop their "
                    "terms (B ≪ D, F). Reference section 5.")
    rows = [
        ("H100", 1024, 1024, "bf16", None, "hbm", "B ≥ 698 (exact 697.3)"),
        ("H100", 4096, 4096, "bf16", None, "hbm", "B ≥ 345 (exact 344.9)"),
        ("H100", 8192, 8192, "bf16", None, "hbm", "B ≥ 319 (exact 318.2)"),
        ("H100", None, None, "bf16", None, "hbm", "≈ 295 (B ≪ D, F)"),
        ("H100", None, None, "fp8", "fp8", "hbm",
         "fp8 peak doubles I to ≈ 590, threshold unchanged"),
        ("TPU v5e", 4096, 16384, "int8", "int8", "hbm", "B > 259"),
        ("TPU v5e", None, None, "int8", "int8", "hbm", "B > 240"),
        ("TPU v5e", None, None, "bf16", "int8", "hbm", "B > 120 (int8 weights, bf16 compute)"),
        ("TPU v5e", 4096, 16384, "int8", "int8", "vmem", "B > 11 from VMEM (22× HBM bandwidth)"),
        ("B200", None, None, "bf16", None, "hbm", "≈ 281 (2.25e15 / 8e12)"),
    ]
    body = []
    for chip, D, F, dt, wdt, tier, ref in rows:
        body.append([Input(chip), Input(D), Input(F), Input(dt), Input(wdt), Input(tier), None,
                     ref])
    first, last = s.table(["chip", "D [elements]", "F [elements]", "dtype", "weight_dtype",
                           "tier", "B* [tokens]", "reference (section 5)"], body, freeze=True)
    for r in range(first, last + 1):
        s.put(r, 7, Calc(f"=CRIT_BATCH(Chips,A{r},B{r},C{r},D{r},E{r},F{r})", TOK))
    s.validate("chip", f"A{first}:A{last}")
    s.validate("dtype", f"D{first}:E{last}")
    s.validate("tier", f"F{first}:F{last}")
    for k, d in enumerate((1024, 4096, 8192)):
        name_cell(wb, f"CritBatch_H100_D{d}", "Critical batch", f"G{first + k}")
    name_cell(wb, "CritBatch_v5e_int8_4096x16384", "Critical batch", f"G{first + 5}")
    name_cell(wb, "CritBatch_v5e_int8w_bf16", "Critical batch", f"G{first + 7}")
    s.finish()


def _moe(wb):
    s = SheetWriter(wb, "MoE", "Minimum batch of an MoE layer [tokens per step]",
                    "B > I·E·w / (2k): every expert's matmul compute-bound. Reference section 5 "
                    "(MoE; DeepSeek-V3 E = 256, k = 8).")
    rows = [
        ("DeepSeek-V3", "TPU v5e", 256, 8, "bf16", "int8", "B > 3840 (I ≈ 240; exact 3843.9)"),
        ("DeepSeek-V3", "TPU v5e", 256, 8, "bf16", "bf16", "twice the int8-weight batch"),
        ("DeepSeek-V3", "H100", 256, 8, "bf16", "bf16", "32 × 295"),
        ("DeepSeek-V3", "H200", 256, 8, "fp8", "fp8", "fp8 compute and weights"),
        ("Mixtral 8x7B", "H100", 8, 2, "bf16", "bf16", "4 × 295"),
    ]
    body = [[m, Input(c), Input(E), Input(k), Input(dt), Input(w), Input("hbm"), None, ref]
            for m, c, E, k, dt, w, ref in rows]
    first, last = s.table(["model", "chip", "E [experts]", "k [experts/token]", "dtype",
                           "weight_dtype", "tier", "min batch [tokens]", "reference"], body,
                          freeze=True)
    for r in range(first, last + 1):
        s.put(r, 8, Calc(f"=MOE_MIN_BATCH(Chips,B{r},C{r},D{r},E{r},F{r},G{r})", TOK))
    s.validate("chip", f"B{first}:B{last}")
    s.validate("dtype", f"E{first}:F{last}")
    s.validate("tier", f"G{first}:G{last}")
    name_cell(wb, "MoEMinBatch_DeepSeekV3_v5e", "MoE", f"H{first}")
    s.finish()


def _network(wb):
    s = SheetWriter(wb, "Network D", "Network critical D [elements]: a·(n−1)·peak / bw(tier)",
                    "A matmul sharded along D over a ring of n chips is compute-bound when D "
                    "exceeds this. Reference section 7. Beyond the chip's scale-up domain "
                    "(Chips: scaleup_size) the AllReduce is two-level, the outer ring over dcn "
                    "(How to Scale Your Model Part 12).")
    s.table(["dtype", "tier"], [[Input("bf16"), Input("ici")]], caption="Inputs")
    s.validate("dtype", "A6")
    s.validate("tier", "B6")
    chips = ["TPU v5e", "TPU v5p", "H100", "B200", "GB200"]
    hdr = s.row + 1
    first, last = s.table(["n_chips"] + [Input(c).value for c in chips],
                          [[Input(n)] + [None] * len(chips) for n in (2, 4, 8, 16, 32, 64)],
                          caption="Critical D per chip (column headers are chip names: edit them)")
    for j in range(len(chips)):
        s.put(hdr, 2 + j, Input(chips[j]))
    for r in range(first, last + 1):
        for j in range(len(chips)):
            col = column_letters(2 + j)
            s.put(r, 2 + j, Calc(f"=NET_CRITICAL_D(Chips,{col}${hdr},$A{r},$A$6,$B$6)", "#,##0"))
    s.validate("chip", f"B{hdr}:{column_letters(1 + len(chips))}{hdr}")
    s.ws.freeze_panes = f"B{first}"
    name_cell(wb, "NetCriticalD_v5e_n2", "Network D", f"B{first}")
    s.note("Reference: two TPU v5e at 4.5e10 B/s each way, 1.97e14 FLOP/s → D > 8,755.6 (bf16).")
    s.note("H100 and B200 rows beyond 8 chips (an HGX node) and GB200 beyond 72 are two-level: "
           "NVLink inside each domain, the 400 Gb/s NICs (dcn_bw) between domains, the slower "
           "level bounding: D > a·n·peak·max((d−1)/(d·W_ici), (m−1)/(m·d·W_dcn)) for n = m·d. "
           "At 64 B200 that is twice the NVLink-only figure; GB200 keeps 64 inside its NVL72.")
    s.finish()


def _matmul(wb):
    s = SheetWriter(wb, "Matmul time", "Matmul time calculator: X[B,D]·W[D,F] on n chips",
                    "T_math = 2BDF/(n·peak); T_hbm = per-chip bytes / hbm_bw; T_comms = ring "
                    "AllReduce of the [B,F] partial sums (shard D). time = max (full overlap), "
                    "upper = sum. Reference section 6.")
    rows = [
        ("H100", 256, 8192, 8192, "bf16", None, 1, "none"),
        ("H100", 4096, 8192, 8192, "bf16", None, 1, "none"),
        ("H100", 4096, 8192, 8192, "bf16", None, 8, "D"),
        ("H100", 4096, 8192, 28672, "bf16", None, 8, "F"),
        ("H200", 64, 8192, 28672, "bf16", "int8", 1, "none"),
        ("TPU v5e", 512, 8192, 8192, "bf16", None, 4, "D"),
        ("TPU v5p", 2048, 8192, 32768, "bf16", None, 8, "F"),
    ]
    body = [[Input(c), Input(B), Input(D), Input(F), Input(dt), Input(w), Input(n), Input(sh)]
            + [None] * 7 for c, B, D, F, dt, w, n, sh in rows]
    results = [("math", SCI), ("hbm", SCI), ("comms", SCI), ("time", SCI), ("upper", SCI),
               ("bound", None), ("intensity", "0.0")]
    first, last = s.table(["chip", "B [tokens]", "D [elements]", "F [elements]", "dtype",
                           "weight_dtype", "n_chips", "shard", "T_math [s]", "T_hbm [s]",
                           "T_comms [s]", "time [s]", "upper [s]", "bound",
                           "intensity [FLOP/byte]"], body, freeze=True)
    for r in range(first, last + 1):
        for j, (res, fmt) in enumerate(results):
            s.put(r, 9 + j, Calc(f'=MATMUL_TIME(Chips,A{r},B{r},C{r},D{r},E{r},F{r},G{r},H{r},'
                                 f'"{res}")', fmt))
    s.validate("chip", f"A{first}:A{last}")
    s.validate("dtype", f"E{first}:F{last}")
    s.validate("shard", f"H{first}:H{last}")
    s.colour_bounds(f"N{first}:N{last}")
    s.finish()
    return first, last


def _elementwise(wb):
    s = SheetWriter(wb, "Elementwise & decode", "Low-intensity operations and decode bounds",
                    "Reference sections 4 (elementwise, dot product) and 5 (decode lower bound, "
                    "attention, KV cache).")
    first, last = s.table(
        ["operation", "chip", "N [elements]", "FLOPs", "bytes", "time [s]", "time", "unit",
         "bound", "reference"],
        [["fp32 add, N = 1024³", Input("H100"), Input(1024 ** 3), None, None, None, None, "ms",
          None, "≈ 3.84 ms predicted (4.1 ms measured)"],
         ["fp32 add, N = 65,536", Input("H100"), Input(65536), None, None, None, None, "µs",
          None, "≈ 0.23 µs predicted (1.5 µs measured: launch latency)"]],
        caption="fp32 elementwise add: N FLOPs, 8N bytes read + 4N written (intensity 1/12)")
    for r, scale in ((first, "1E+3"), (first + 1, "1E+6")):
        s.put(r, 4, Calc(f"=C{r}", "#,##0"))
        s.put(r, 5, Calc(f"=12*C{r}", "#,##0"))
        s.put(r, 6, Calc(f'=ROOFLINE_TIME(Chips,B{r},D{r},E{r},"hbm","fp32")', SCI))
        s.put(r, 7, Calc(f"=F{r}*{scale}", "0.00"))
        s.put(r, 9, Calc(f'=ROOFLINE_TIME(Chips,B{r},D{r},E{r},"hbm","fp32","bound")'))
    s.colour_bounds(f"I{first}:I{last}")
    name_cell(wb, "Fp32Add_1024cubed_ms", "Elementwise & decode", f"G{first}")
    name_cell(wb, "Fp32Add_65536_us", "Elementwise & decode", f"G{first + 1}")

    f2, _ = s.table(
        ["operation", "N [elements]", "FLOPs", "bytes", "intensity [FLOP/byte]", "reference"],
        [["bf16 dot product", Input(4096), None, None, None, "≈ 1/2"]],
        caption="bf16 dot product: N multiplies + N−1 adds, 4N bytes read, 2 written")
    s.put(f2, 3, Calc(f"=2*B{f2}-1", "#,##0"))
    s.put(f2, 4, Calc(f"=4*B{f2}+2", "#,##0"))
    s.put(f2, 5, Calc(f"=ARITH_INTENSITY(C{f2},D{f2})", "0.000"))

    f3, _ = s.table(
        ["model", "chip", "parameters", "dtype", "n_chips", "bytes per chip", "step ≥ [s]",
         "step ≥ [ms]", "reference"],
        [["200B dense", Input("TPU v4"), Input(200e9, "0.00E+00"), Input("bf16"), Input(32),
          None, None, None, "≈ 12.5 GB per chip, ≈ 10 ms per step"]],
        caption="Decode-step lower bound: all weights read from HBM once per step")
    s.put(f3, 6, Calc(f"=C{f3}*IF(D{f3}=\"bf16\",2,1)/E{f3}", "0.00E+00"))
    s.put(f3, 7, Calc(f"=WEIGHT_LOAD_TIME(Chips,B{f3},C{f3},D{f3},E{f3})", SCI))
    s.put(f3, 8, Calc(f"=G{f3}*1E+3", "0.00"))
    name_cell(wb, "DecodeLowerBound_200B_32xv4_ms", "Elementwise & decode", f"H{f3}")

    f4, l4 = s.table(
        ["phase", "T [queries]", "S [keys]", "G [q heads per kv head]", "intensity [FLOP/byte]",
         "reference"],
        [["decode", Input(1), Input(8192), Input(8), None, "→ G: always bandwidth-bound"],
         ["prefill", Input(4096), Input(4096), Input(8), None, "SG/(G+1) = O(T)"]],
        caption="GQA attention intensity: T·S·G / (T·G + S)")
    for r in range(f4, l4 + 1):
        s.put(r, 5, Calc(f"=ATTN_INTENSITY(B{r},C{r},D{r})", "0.0"))

    f5, _ = s.table(
        ["model", "layers", "kv_heads", "head_dim", "tokens", "batch", "dtype", "KV cache [bytes]",
         "KV cache [GB]"],
        [["Llama 3 70B", Input(80), Input(8), Input(128), Input(8192), Input(1), Input("bf16"),
          None, None]],
        caption="KV cache: 2 · layers · kv_heads · head_dim · tokens · batch · bytes")
    s.put(f5, 8, Calc(f"=KV_CACHE_BYTES(B{f5},C{f5},D{f5},E{f5},F{f5},G{f5})", "#,##0"))
    s.put(f5, 9, Calc(f"=H{f5}/1E+9", "0.00"))

    f6, _ = s.table(
        ["collective", "chip", "bytes", "n_chips", "tier", "time [s]", "time [ms]"],
        [[Input("AllReduce"), Input("H100"), Input(2 * 8192 * 8192), Input(8), Input("ici"),
          None, None]],
        caption="Ring collective: (n−1)/n · bytes / bw (×2 for AllReduce)")
    s.put(f6, 6, Calc(f"=COLLECTIVE_TIME(Chips,B{f6},A{f6},C{f6},D{f6},E{f6})", SCI))
    s.put(f6, 7, Calc(f"=F{f6}*1E+3", "0.000"))
    s.validate("chip", f"B{first}:B{last}")
    s.validate("chip", f"B{f3}")
    s.validate("chip", f"B{f6}")
    s.validate("dtype", f"D{f3}")
    s.validate("dtype", f"G{f5}")
    s.validate("tier", f"E{f6}")
    s.ws.freeze_panes = "A4"  # several small tables: keep the title in view
    s.finish()


def _cost(wb, table):
    s = SheetWriter(wb, "Cost", "Cost per FLOP of the priced chips",
                    "USD per FLOP = price_per_hour / (3600 · peak · MFU); prices are one "
                    "provider's list prices (Google Cloud on-demand) with the date and source in "
                    "the Chips sheet; other providers and quotes: templates/cost_comparison.xlsx. "
                    "Reference section 12.")
    s.table(["dtype", "MFU"], [[Input("bf16"), Input(0.5, "0%")]], caption="Inputs")
    s.validate("dtype", "A6")
    prices = table.numeric("price_per_hour")
    priced = [n for n, p in zip(table.names, prices, strict=True) if p == p]
    body = [[Input(n)] + [None] * 7 for n in priced]
    first, last = s.table(["chip", "price [USD/chip-hour]", "price date", "peak [FLOP/s]",
                           "USD per 1e18 FLOP at peak", "USD per 1e18 FLOP at MFU",
                           "FLOPs per USD at peak", "price source"], body, freeze=True)
    for r in range(first, last + 1):
        s.put(r, 2, Calc(f'=CHIP_SPEC(Chips,A{r},"price_per_hour")', "0.00"))
        s.put(r, 3, Calc(f'=CHIP_SPEC(Chips,A{r},"price_date")'))
        s.put(r, 4, Calc(f'=CHIP_SPEC(Chips,A{r},"bf16_flops")', SCI))
        s.put(r, 5, Calc(f"=COST_PER_FLOP(Chips,A{r},$A$6)*1E+18", "0.00"))
        s.put(r, 6, Calc(f"=COST_PER_FLOP(Chips,A{r},$A$6,$B$6)*1E+18", "0.00"))
        s.put(r, 7, Calc(f"=1/COST_PER_FLOP(Chips,A{r},$A$6)", "0.00E+00"))
        s.put(r, 8, Calc(f'=CHIP_SPEC(Chips,A{r},"price_source")'))
    s.validate("chip", f"A{first}:A{last}")
    h200, v5p = first + priced.index("H200"), first + priced.index("TPU v5p")
    hf, _ = s.table(["comparison", "USD per 1e18 FLOP", "ratio"],
                    [["H200", Calc(f"=E{h200}", "0.00"), None],
                     ["TPU v5p", Calc(f"=E{v5p}", "0.00"), None]],
                    caption="Headline: H200 vs TPU v5p (at peak)")
    s.put(hf, 3, Calc(f"=B{hf}/B{hf + 1}", "0.00"))
    name_cell(wb, "USDper1e18_H200", "Cost", f"E{h200}")
    name_cell(wb, "USDper1e18_TPUv5p", "Cost", f"E{v5p}")
    s.note("Reference: H200 ≈ 10 USD/h, TPU v5p ≈ 4 USD/h on Google Cloud; an H200 has about 2× "
           "the FLOPs and 1.5× the HBM of a v5p.")
    s.finish()


def _chart(wb, first, last):
    m = "'Matmul time'!"
    points = [Point(label=f'{m}$A${r}&" B="&{m}$B${r}&" D="&{m}$C${r}&" F="&{m}$D${r}'
                          f'&IF({m}$F${r}<>""," ("&{m}$F${r}&" weights)","")'
                          f'&IF({m}$G${r}>1," on "&{m}$G${r}&", shard "&{m}$H${r},"")',
                    intensity=f"{m}$O${r}",
                    flops=f"2*{m}$B${r}*{m}$C${r}*{m}$D${r}/{m}$G${r}/{m}$L${r}")
              for r in range(first, last + 1)]
    add_roofline_chart(wb, "Roofline chart", "Roofline: attained FLOP/s per chip vs intensity",
                       "Roofs: ROOFLINE_FLOPS of the chosen chips (edit the yellow names); "
                       "points: the Matmul time rows (attained = 2BDF / n / time). Reference "
                       "section 3.", ["H100", "H200", "TPU v5e", "TPU v5p"], points,
                       x_range=(10.0, 1.0e4))
