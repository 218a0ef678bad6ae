"""The shipped workbooks in a real spreadsheet application: LibreOffice Calc 25.2.

LibreOffice opens every shipped workbook with a profile that forces
recalculation (tests/libreoffice.py). It does not know our functions (their
cells become #NAME?), so:

* every formula cell that neither calls a rooflinexl function nor depends on
  such a cell, directly or through other cells, must come out of LibreOffice
  equal to the value our recalc stamped into the file (relative 1e-9). The
  dependency is decided from the formula text: the function names it calls and
  the cells, ranges and defined names it refers to, followed transitively;
* a twin workbook gives every function a native-formula twin (the same
  equation in plain Excel formulas, chip specs by INDEX/MATCH on the Chips
  range) whose LibreOffice value must equal what rooflinexl.udfs returns;
* a workbook LibreOffice saved (what a user without the add-in does after an
  edit; it lower-cases our unknown function names) recalculates with our engine
  to the values shipped in the original.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import openpyxl
import pytest
from libreoffice import recalc_with_libreoffice, require_soffice, values

from rooflinexl import udfs
from rooflinexl.chips import COLUMNS, ChipTable
from rooflinexl.dtypes import DTYPES, TIERS
from rooflinexl.ooxml import formula_cells
from rooflinexl.workbooks.build import BUILDERS
from rooflinexl.workbooks.layout import add_chips_sheet, add_models_sheet

ROOT = Path(__file__).resolve().parents[1]
BOOKS = sorted(BUILDERS)
REL = 1e-9


# ----------------------------------------------------------------- dependencies

_STRING = re.compile(r'"(?:[^"]|"")*"')
_FUNC = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)\s*\(")
_REF = re.compile(
    r"(?:(?:'((?:[^']|'')+)'|([A-Za-z_][A-Za-z0-9_.]*))!)?"
    r"(?<![A-Za-z0-9_.])\$?([A-Z]{1,3})\$?([0-9]+)(?::\$?([A-Z]{1,3})\$?([0-9]+))?(?![A-Za-z0-9_(])")
_NAME = re.compile(r"(?<![A-Za-z0-9_.!$'])([A-Za-z_][A-Za-z0-9_.]*)(?![A-Za-z0-9_.(!])")


def _cells(sheet: str, c1: str, r1: str, c2: str | None, r2: str | None) -> set:
    from openpyxl.utils import column_index_from_string as ci

    if c2 is None:
        return {(sheet, ci(c1), int(r1))}
    return {(sheet, c, r) for c in range(ci(c1), ci(c2) + 1)
            for r in range(int(r1), int(r2) + 1)}


def references(formula: str, sheet: str, names: dict[str, tuple[str, str]]) -> tuple[set, set]:
    """(functions called, cells referred to as (sheet, col, row)) of one formula."""
    text = _STRING.sub('""', formula)
    funcs = {m.group(1).upper() for m in _FUNC.finditer(text)}
    refs: set = set()
    for m in _REF.finditer(text):
        where = (m.group(1) or m.group(2) or sheet).replace("''", "'")
        refs |= _cells(where, m.group(3), m.group(4), m.group(5), m.group(6))
    for m in _NAME.finditer(_REF.sub("", text)):
        target = names.get(m.group(1).upper())
        if target:
            refs |= references("=" + target[1], target[0], {})[1]
    return funcs, refs


def defined_names(path: Path) -> dict[str, tuple[str, str]]:
    wb = openpyxl.load_workbook(path, read_only=False)
    out = {}
    for name, dn in wb.defined_names.items():
        sheet, _, ref = dn.attr_text.rpartition("!")
        out[name.upper()] = (sheet.strip("'"), ref)
    return out


def _key(sheet: str, ref: str) -> tuple[str, int, int]:
    from openpyxl.utils import column_index_from_string

    col = re.match(r"[A-Z]+", ref).group(0)
    return sheet, column_index_from_string(col), int(ref[len(col):])


def tainted_cells(path: Path) -> tuple[dict, set, set]:
    """(formulas, cells calling our functions, cells depending on ours transitively)."""
    formulas = formula_cells(path)
    names = defined_names(path)
    ours = {n.upper() for n in udfs.FUNCTIONS}
    deps, direct = {}, set()
    for sheet, cells in formulas.items():
        for ref, f in cells.items():
            key = _key(sheet, ref)
            funcs, refs = references(f, sheet, names)
            deps[key] = refs
            if funcs & ours:
                direct.add(key)
    tainted = set(direct)
    changed = True
    while changed:
        changed = False
        for key, refs in deps.items():
            if key not in tainted and refs & tainted:
                tainted.add(key)
                changed = True
    return formulas, direct, tainted


def test_reference_parser():
    names = {"CHIPS": ("Chips", "$A$1:$B$2")}
    funcs, refs = references("=IF(Tokens!$A$3&\" x!B9\",CRIT_BATCH(Chips,A2),'Roof chart'!C4:C5)",
                             "S", names)
    assert funcs == {"IF", "CRIT_BATCH"}
    assert refs == {("Tokens", 1, 3), ("S", 1, 2), ("Roof chart", 3, 4), ("Roof chart", 3, 5),
                    ("Chips", 1, 1), ("Chips", 2, 1), ("Chips", 1, 2), ("Chips", 2, 2)}


# ----------------------------------------------------------------------- twins

TABLE = ChipTable.default()
COL = {c: i + 1 for i, c in enumerate(COLUMNS)}


def _num(x) -> str:
    return repr(float(x)) if isinstance(x, float) else str(x)


class _Name(str):
    """A defined name passed as an argument (``Models``), not a text literal."""


MODELS_ARG = _Name("Models")


def _lit(x) -> str:
    if x is None:
        return ""
    if isinstance(x, _Name):
        return str(x)
    return f'"{x}"' if isinstance(x, str) else _num(x)


def spec(chip: str, field: str) -> str:
    return f'INDEX(Chips,MATCH("{chip}",ChipNames,0)+1,{COL[field]})'


def peak(chip, dtype):
    return spec(chip, DTYPES[dtype][1])


def bw(chip, tier):
    return spec(chip, TIERS[tier])


def nbytes(dtype) -> str:
    return _num(DTYPES[dtype][0])


def _matmul_twin(chip, B, D, F, dt, wdt, n, shard, result):
    a, w = nbytes(dt), nbytes(wdt or dt)
    x, wt, o = f"{a}*{B}*{D}", f"{w}*{D}*{F}", f"{a}*{B}*{F}"
    per_chip = {"none": f"({x}+{wt}+{o})", "D": f"(({x}+{wt})/{n}+{o})",
                "F": f"({x}+({wt}+{o})/{n})"}[shard]
    math_t = f"(2*{B}*{D}*{F}/({n}*{peak(chip, dt)}))"
    hbm_t = f"({per_chip}/{spec(chip, 'hbm_bw')})"
    # ring AllReduce: 2(n-1)/n bytes / ici_bw + collective_latency + 2(n-1) steps of
    # ici_latency (within a domain)
    comms_t = (f"(2*({n}-1)/{n}*{o}/{bw(chip, 'ici')}+{spec(chip, 'collective_latency')}"
               f"+2*({n}-1)*{spec(chip, 'ici_latency')})" if shard == "D" else "0")
    return {
        "time": f"MAX({math_t},{hbm_t},{comms_t})",
        "upper": f"{math_t}+{hbm_t}+{comms_t}",
        "math": math_t, "hbm": hbm_t, "comms": comms_t,
        "intensity": f"(2*{B}*{D}*{F}/{n})/{per_chip}",
        "bound": f'IF({math_t}>=MAX({hbm_t},{comms_t}),"compute",'
                 f'IF({hbm_t}>={comms_t},"memory","network"))',
    }[result]


def _crit_batch_twin(chip, D, F, dt, wdt, tier):
    a, w = nbytes(dt), nbytes(wdt or dt)
    den = f"(2/({peak(chip, dt)}/{bw(chip, tier)})"
    den += f"-{a}/{F}" if F else ""
    den += f"-{a}/{D}" if D else ""
    den += ")"
    # ASIN(2) is #NUM! in Excel and LibreOffice (LibreOffice gives #VALUE! for SQRT(-1))
    return f"IF({den}>0,{w}/{den},ASIN(2))"


def twin_cases() -> list[tuple[str, tuple, str]]:
    """(function, arguments after ``chips`` as a host passes them, native twin formula)."""
    cases = [
        ("ARITH_INTENSITY", (2 * 4096 ** 3, 3 * 2 * 4096 ** 2), f"{2 * 4096 ** 3}/{6 * 4096 ** 2}"),
        ("ATTN_INTENSITY", (1, 8192, 8), "1*8192*8/(1*8+8192)"),
        ("ATTN_INTENSITY", (4096, 4096, 8), "4096*4096*8/(4096*8+4096)"),
        ("KV_CACHE_BYTES", (80, 8, 128, 8192, 64, "fp8"), f"2*80*8*128*8192*64*{nbytes('fp8')}"),
        ("KV_CACHE_BYTES", (61, 1, 288, 4096, None, None), f"2*61*1*288*4096*1*{nbytes('bf16')}"),
    ]
    for chip, tier, dt in [("H100", "hbm", "bf16"), ("TPU v5e", "ici", "int8"),
                           ("H200", "dcn", "fp8"), ("B200", "pcie", "fp4"),
                           ("TPU v5p", "vmem", "bf16"), ("TPU v4", "hbm", "bf16")]:
        cases.append(("CRIT_INTENSITY", (chip, tier, dt), f"{peak(chip, dt)}/{bw(chip, tier)}"))
    for chip, D, F, dt, wdt, tier in [
            ("H100", 8192, 8192, "bf16", None, "hbm"), ("H100", 1024, 1024, "bf16", None, "hbm"),
            ("TPU v5e", 4096, 16384, "int8", "int8", "hbm"),
            ("TPU v5e", None, None, "bf16", "int8", "hbm"),
            ("TPU v5e", 4096, 16384, "int8", "int8", "vmem"),
            ("H100", 100, 100, "bf16", None, "hbm")]:  # the last: no B reaches the roof
        cases.append(("CRIT_BATCH", (chip, D, F, dt, wdt, tier),
                      _crit_batch_twin(chip, D, F, dt, wdt, tier)))
    for chip, B, D, F, dt, wdt, n, shard, results in [
            ("H100", 256, 8192, 8192, "bf16", None, 1, "none",
             ("time", "upper", "math", "hbm", "comms", "bound", "intensity")),
            ("H100", 4096, 8192, 8192, "bf16", None, 8, "D", ("time", "comms", "hbm", "bound")),
            ("TPU v5p", 2048, 8192, 32768, "bf16", None, 8, "F", ("time", "hbm", "intensity")),
            ("H200", 64, 8192, 28672, "bf16", "int8", 1, "none", ("hbm", "bound", "intensity"))]:
        for res in results:
            cases.append(("MATMUL_TIME", (chip, B, D, F, dt, wdt, n, shard, res),
                          _matmul_twin(chip, B, D, F, dt, wdt, n, shard, res)))
    for chip, E, k, dt, wdt in [("TPU v5e", 256, 8, "bf16", "int8"), ("H100", 8, 2, "bf16", None)]:
        cases.append(("MOE_MIN_BATCH", (chip, E, k, dt, wdt, "hbm"),
                      f"{peak(chip, dt)}/{bw(chip, 'hbm')}*{E}*{nbytes(wdt or dt)}/(2*{k})"))
    for chip, n in [("TPU v5e", 2), ("H100", 8)]:
        cases.append(("NET_CRITICAL_D", (chip, n, "bf16", "ici"),
                      f"{nbytes('bf16')}*({n}-1)*{peak(chip, 'bf16')}/{bw(chip, 'ici')}"))
    for chip, i in [("H100", 100), ("H100", 1000), ("TPU v5e", 1.0 / 12)]:
        cases.append(("ROOFLINE_FLOPS", (chip, i, "hbm", "bf16"),
                      f"MIN({peak(chip, 'bf16')},{_num(i)}*{bw(chip, 'hbm')})"))
    for chip, fl, by, tier, dt, res in [("H100", 1024 ** 3, 12 * 1024 ** 3, "hbm", "fp32", None),
                                        ("H100", 1e15, 1e9, "hbm", "bf16", "bound"),
                                        ("TPU v5e", 1e12, 1e10, "ici", "bf16", "bound")]:
        t_math, t_bw = f"({_num(fl)}/{peak(chip, dt)})", f"({_num(by)}/{bw(chip, tier)})"
        label = "memory" if tier == "hbm" else "network"
        twin = (f'IF({t_math}>={t_bw},"compute","{label}")' if res == "bound"
                else f"MAX({t_math},{t_bw})")
        cases.append(("ROOFLINE_TIME", (chip, fl, by, tier, dt, res), twin))
    lat, base = spec("H100", "ici_latency"), spec("H100", "collective_latency")
    for kind, factor in [("AllReduce", 2), ("AllGather", 1), ("ReduceScatter", 1)]:
        cases.append(("COLLECTIVE_TIME", ("H100", kind, 2 * 8192 * 8192, 8, "ici"),
                      f"{factor}*(8-1)/8*{2 * 8192 * 8192}/{bw('H100', 'ici')}"
                      f"+{base}+{factor}*(8-1)*{lat}"))
    # AllToAll on a switched node: (n-1)/n^2 bytes / bw + base + (n-1) steps (book Part 12)
    cases.append(("COLLECTIVE_TIME", ("H100", "AllToAll", 2 * 8192 * 8192, 8, "ici"),
                  f"(8-1)/8^2*{2 * 8192 * 8192}/{bw('H100', 'ici')}+{base}+(8-1)*{lat}"))
    cases.append(("WEIGHT_LOAD_TIME", ("TPU v4", 200e9, "bf16", 32),
                  f"{_num(200e9)}*{nbytes('bf16')}/(32*{spec('TPU v4', 'hbm_bw')})"))
    for chip, dt, mfu in [("H200", "bf16", None), ("TPU v5p", "bf16", 0.5), ("H100", "fp8", 0.4)]:
        cases.append(("COST_PER_FLOP", (chip, dt, mfu),
                      f"{spec(chip, 'price_per_hour')}/(3600*{peak(chip, dt)}*{_num(mfu or 1)})"))
    for chip, field in [("H200", "hbm_bw"), ("TPU v5p", "price_per_hour"), ("B200", "fp4_flops"),
                        ("TPU v5e", "vmem_bytes")]:
        cases.append(("CHIP_SPEC", (chip, field), spec(chip, field)))
    cases += _model_twins()
    # errors: an unknown chip (#N/A from MATCH) and a spec the chip lacks (#N/A)
    cases.append(("CRIT_INTENSITY", ("B900", "hbm", "bf16"),
                  f"{peak('B900', 'bf16')}/{bw('B900', 'hbm')}"))
    cases.append(("CRIT_INTENSITY", ("TPU v5e", "hbm", "fp4"),
                  f'IF({peak("TPU v5e", "fp4")}="",NA(),'
                  f'{peak("TPU v5e", "fp4")}/{bw("TPU v5e", "hbm")})'))
    return cases


def _model_twins() -> list[tuple[str, tuple, str]]:
    """Whole-model functions (issue 12) against their equations, the model shapes written out
    from the published config.json values (see the Models sheet's sources)."""
    M = MODELS_ARG
    # Llama 3.1 8B: 8.03e9 params, 32 layers, 32 heads, 8 KV heads, head_dim 128, vocab 128256,
    # d_model 4096; read / active parameters = params - vocab x d_model (the input embedding)
    p8 = "(8.03E+09-128256*4096)"
    kv8 = "(2*32*8*128)"
    # Mixtral 8x7B: 46.7e9, 32 layers, d_model 4096, vocab 32000, E 8, k 2, experts
    # 32 x 8 x 3 x 4096 x 14336
    pe = "(32*8*3*4096*14336)"
    base = f"(46.7E+09-32000*4096-{pe})"
    cases = []
    for batch in (1, 64):
        flops = f"{batch}*(2*{p8}+4*32*4096*32*128)"
        nbytes = f"(2*{p8}+{batch}*4096*{kv8}*2)"
        cases.append(("DECODE_TIME", ("H100", M, "Llama 3.1 8B", 4096, batch),
                      f"MAX({flops}/{peak('H100', 'bf16')},{nbytes}/{bw('H100', 'hbm')})"))
        read = f"({base}+(1-(1-2/8)^{batch})*{pe})"
        cases.append(("DECODE_TIME", ("H100", M, "Mixtral 8x7B", 4096, batch, 1, None, None,
                                      None, 0.8, None, "bytes"),
                      f"2*{read}+{batch}*4096*2*32*8*128*2"))
    cases.append(("DECODE_TIME", ("H100", M, "Llama 3.1 8B", 4096, 1, 1, None, None, None, 0.8,
                                  None, "time"),
                  f"(2*{p8}+4096*{kv8}*2)/(0.8*{bw('H100', 'hbm')})"))
    # prefill: the output projection (vocab x d_model) for the last token only, causal attention
    cases.append(("PREFILL_TIME", ("H100", M, "Llama 3.1 8B", 8192, 1, 1, None, None, None,
                                   None, None, "flops"),
                  f"2*({p8}-128256*4096)*8192+2*128256*4096+2*32*8192^2*32*128"))
    cases.append(("PREFILL_TIME", ("H100", M, "Llama 3.1 8B", 8192),
                  f"(2*({p8}-128256*4096)*8192+2*128256*4096+2*32*8192^2*32*128)/"
                  f"{peak('H100', 'bf16')}"))
    # the book's Part 12 Q5.2 case: 6 N D / (n x peak x MFU)
    cases.append(("TRAIN_TIME", ("H100", M, "Llama 3.1 70B", 15e12, 4096, 0.45),
                  f"6*(70.6E+09-128256*8192)*15E+12/(4096*{peak('H100', 'bf16')}*0.45)"))
    cases.append(("TRAIN_TIME", ("H100", M, "Llama 3.1 8B", 1e12, 8, None, None, 8192),
                  f"(6*{p8}+6*32*8192*32*128)*1E+12/(8*{peak('H100', 'bf16')})"))
    cases.append(("MAX_BATCH", ("H200", M, "Llama 3.1 70B", 8192, 4),
                  f"MAX(0,INT((4*{spec('H200', 'hbm_bytes')}-2*70.6E+09)/"
                  f"(8192*2*80*8*128*2)))"))
    cases.append(("MODEL_SPEC", (M, "DeepSeek-V3", "expert_params"), "(61-3)*256*3*7168*2048"))
    cases.append(("MODEL_SPEC", (M, "DeepSeek-V3", "kv_per_token"), "61*(512+64)"))
    cases.append(("MODEL_SPEC", (M, "Qwen3 32B", "experts"), "NA()"))  # a dense model
    cases.append(("DECODE_TIME", ("H100", M, "GPT-9", 1024), "NA()"))  # unknown model
    return cases


CHIPLESS = {"ARITH_INTENSITY", "ATTN_INTENSITY", "KV_CACHE_BYTES", "MODEL_SPEC"}


def _call(name: str, chips, models, args):
    """The Excel function called as the book does: the Models name replaced by its range."""
    f = udfs.FUNCTIONS[name]
    args = [models if a is MODELS_ARG else a for a in args]
    return f(*args) if name in CHIPLESS else f(chips, *args)


def build_twin_book(path: Path) -> list[tuple[str, tuple, str]]:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Twins"
    ws.append(["function", "arguments", "rooflinexl", "native twin"])
    cases = twin_cases()
    for k, (name, args, twin) in enumerate(cases, start=2):
        lead = [] if name in CHIPLESS else ["Chips"]
        ws.cell(row=k, column=1, value=name)
        ws.cell(row=k, column=2, value=repr(args))
        ws.cell(row=k, column=3, value=f"={name}({','.join(lead + [_lit(a) for a in args])})")
        ws.cell(row=k, column=4, value="=" + twin)
    add_models_sheet(wb)
    add_chips_sheet(wb, TABLE)
    wb.save(path)
    return cases


def _chips_range(book: Path) -> list[list]:
    ws = openpyxl.load_workbook(book)["Chips"]
    return [[c.value for c in row] for row in ws.iter_rows()]


def _models_range(book: Path) -> list[list]:
    wb = openpyxl.load_workbook(book)
    sheet, cells = wb.defined_names["Models"].attr_text.split("!")
    return [[c.value for c in row] for row in wb[sheet][cells.replace("$", "")]]


def _close(got, want) -> bool:
    if isinstance(want, bool) or isinstance(got, bool):
        return got == want
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return math.isclose(got, want, rel_tol=REL, abs_tol=0.0) or got == want
    return got == want


# --------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def lo(tmp_path_factory):
    """Every shipped workbook and the twin book, recalculated by LibreOffice in one call."""
    require_soffice()
    tmp = tmp_path_factory.mktemp("lo")
    twin = tmp / "src" / "twins.xlsx"
    twin.parent.mkdir()
    cases = build_twin_book(twin)
    books = [ROOT / rel for rel in BOOKS]
    missing = [str(b) for b in books if not b.is_file()]
    assert not missing, f"shipped workbooks missing (run 'rooflinexl build'): {missing}"
    outs = recalc_with_libreoffice(books + [twin], tmp / "out")
    return {"books": dict(zip(BOOKS, outs[:-1], strict=True)), "twin": (twin, outs[-1], cases)}


# ------------------------------------------------------------------------ tests


@pytest.mark.slow
@pytest.mark.parametrize("rel", BOOKS)
def test_native_cells_equal_our_recalc(lo, rel):
    shipped = ROOT / rel
    formulas, direct, tainted = tainted_cells(shipped)
    ours, theirs = values(shipped), values(lo["books"][rel])
    compared, mismatches = 0, []
    for sheet, cells in formulas.items():
        for ref in cells:
            key = _key(sheet, ref)
            mine, lib = ours[sheet].get(ref), theirs[sheet].get(ref)
            assert mine is not None, f"{sheet}!{ref} has no cached value: rebuild with recalc"
            if key in direct:
                # LibreOffice does not know our functions: proof that it recalculated
                assert lib == "#NAME?", (sheet, ref, cells[ref], lib)
            elif key not in tainted:
                compared += 1
                if not _close(lib, mine):
                    mismatches.append(f"{sheet}!{ref} {cells[ref]!r}: LibreOffice {lib!r}, "
                                      f"ours {mine!r}")
    assert not mismatches, "\n".join(mismatches[:20])
    assert compared >= 5, f"only {compared} native cells compared in {rel}"


@pytest.mark.slow
def test_twins_equal_rooflinexl_functions(lo):
    src, out, cases = lo["twin"]
    got = values(out)["Twins"]
    chips, models = _chips_range(src), _models_range(src)
    problems = []
    names = set()
    for k, (name, args, twin) in enumerate(cases, start=2):
        names.add(name)
        want = _call(name, chips, models, args)
        lib = got.get(f"D{k}")
        if got.get(f"C{k}") != "#NAME?":
            problems.append(f"row {k}: LibreOffice computed {name} itself?")
        if not _close(lib, want):
            problems.append(f"row {k} {name}{args}: twin {lib!r} (={twin}), rooflinexl {want!r}")
    assert not problems, "\n".join(problems)
    # every function of the catalogue has a twin (VERSION has no equation; CHIP_PRICE is a
    # lookup in a second range, Prices, checked against the price table in test_chip_data)
    assert names == set(udfs.FUNCTIONS) - {"VERSION", "CHIP_PRICE"}


@pytest.mark.slow
def test_twin_book_recalc_matches_direct_calls(lo):
    """Our headless engine computes the rooflinexl column like a direct call."""
    from rooflinexl.recalc import evaluate_workbook

    src, _, cases = lo["twin"]
    ev = evaluate_workbook(src, udfs.FUNCTIONS)
    chips, models = _chips_range(src), _models_range(src)
    for k, (name, args, _) in enumerate(cases, start=2):
        want = _call(name, chips, models, args)
        got = ev.value("Twins", f"C{k}")
        assert _close(got if not hasattr(got, "code") else str(got), want) or str(got) == want, \
            (k, name, args, got, want)


@pytest.mark.slow
@pytest.mark.parametrize("rel", BOOKS)
def test_libreoffice_saved_copy_recalculates_to_shipped_values(lo, rel):
    """How-to step: edit in LibreOffice, save, 'rooflinexl recalc' -> the same numbers.

    LibreOffice's copy has every rooflinexl cell as #NAME?, the function names
    lower-cased and exponents written as 1E+018; our engine must still compute
    what was shipped.
    """
    from rooflinexl.recalc import evaluate_workbook

    ev = evaluate_workbook(lo["books"][rel], udfs.FUNCTIONS)
    assert not ev.unknown_functions
    shipped = values(ROOT / rel)
    bad = [f"{c.address}: {c.value!r} vs {shipped[c.sheet].get(c.cell)!r}"
           for c in ev.cells.values()
           if not _close(c.value if not c.is_error else str(c.value),
                         shipped[c.sheet].get(c.cell))]
    assert not bad, "\n".join(bad[:20])
