"""Byte-level fuzzing of ``rooflinexl recalc`` with mutated real workbooks (issue #7, item 4).

Seeds: the shipped ``workbooks/Roofline.xlsx``, a small workbook with built-in
and rooflinexl formulas, and real Excel-saved files from
``tests/data/excel-saved``. Each mutant is one of

* raw damage to the file: random bit flips, a truncation, a span overwritten
  with random bytes or zeros (mostly caught by the zip checks: bad CRC, bad
  header);
* damage inside one zip member, re-zipped with valid checksums so it reaches the
  XML readers and the engine: byte flips, spans deleted or duplicated, tokens
  spliced in (``<``, ``&``, ``<!DOCTYPE``, ``t="e"``, ``s="999"``, huge
  references, ``1E+999`` ...);
* a formula replaced by a random one (built-ins and rooflinexl functions with
  junk arguments, huge ranges, deep nesting, errors, strings);
* a member dropped, duplicated or renamed.

Every mutant goes through ``rooflinexl recalc MUTANT -o OUT``: the CLI's main,
in worker processes that each run many mutants in turn (``tests/fuzz_worker.py``:
click's standalone handling, as the console script; a per-mutant time limit). The
property: the exit status is 0, 1 or 2; with 2, exactly one line on stderr and
nothing written; with 0 or 1, a report on stdout and a readable zip written; never
a traceback; always within the limit.

Size: ``ROOFLINEXL_FUZZ_FILES`` mutants (default 100), ``ROOFLINEXL_FUZZ_SEED``
(default fixed, so CI is reproducible), ``ROOFLINEXL_FUZZ_TIMEOUT`` seconds per
run (default 20). A failing mutant is kept under pytest's tmp folder and named
in the failure with the mutation that made it.
"""
from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import zipfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import openpyxl
import pytest

ROOT = Path(__file__).resolve().parents[1]
SAVED = ROOT / "tests" / "data" / "excel-saved"
N_FILES = int(os.environ.get("ROOFLINEXL_FUZZ_FILES", "100"))
SEED = int(os.environ.get("ROOFLINEXL_FUZZ_SEED", "7"))
TIMEOUT = float(os.environ.get("ROOFLINEXL_FUZZ_TIMEOUT", "20"))
#: real files used as seeds (small and quick to evaluate)
SAVED_SEEDS = ["issue446.xlsx", "shared_formula_simple.xlsx", "errors.xlsx", "issue_553.xlsx",
               "non_monotonic_si.xlsx", "picture_richdata.xlsx", "vba.xlsm",
               "table-multiple.xlsx", "string-ref.xlsx"]

TOKENS = [b"<", b">", b"&", b"&amp;", b"&#0;", b'"', b"'", b"<!DOCTYPE x>", b"]]>", b"\x00",
          b"\xff\xfe", b"<c r=\"A1\"><f>", b"</f>", b"<v>", b"</v>", b' t="e"', b' t="s"',
          b' t="str"', b' t="b"', b' t="inlineStr"', b' s="999"', b' r="ZZZZ9999999"',
          b' r="A0"', b"<f t=\"shared\" si=\"0\"/>", b"<f t=\"array\" ref=\"A1:XFD1048576\">",
          b"1E+999", b"-0", b"NaN", b"#REF!", b"#GETTING_DATA", b"A1:XFD1048576", b"$A:$XFD",
          b"SUM(", b")", b"((((((((((", b"<row r=\"0\">", b"</row>", b"<sheetData/>",
          b"</sheetData>", b"<definedName name=\"x\">x</definedName>", b"\xe2\x80\x8b",
          b"<is><t>x</t></is>", b"9" * 400, b"_x0000_", b"Sheet1!", b"'Sheet 1'!"]

FUNCTIONS = ["SUM", "AVERAGE", "IF", "INDEX", "MATCH", "VLOOKUP", "OFFSET", "INDIRECT", "ROUND",
             "SQRT", "LN", "POWER", "MAX", "MIN", "CONCATENATE", "TEXT", "CRIT_BATCH",
             "MATMUL_TIME", "CHIP_SPEC", "ARITH_INTENSITY", "KV_CACHE_BYTES", "IFERROR",
             "_xlfn.IFNA", "_xlfn.LET", "SUMPRODUCT", "NO_SUCH_FUNCTION", "ROW", "COLUMN"]
OPERANDS = ["A1", "$B$2", "A1:B3", "A:A", "1:1", "A1:XFD1048576", "Sheet1!A1", "'Sheet 1'!A1",
            "Chips", "Chips[hbm_bw]", "#REF!", "#N/A", "TRUE", "\"H100\"", "\"\"", "0", "-1",
            "1E+308", "1E-308", "9.99E+307*10", "\"bf16\"", "{1,2;3,4}", "x", "ZZZ99999999"]


@dataclass
class Outcome:
    name: str
    how: str
    code: int | None
    seconds: float
    problem: str | None
    message: str = ""


# ------------------------------------------------------------------------------- seeds
def small_book(path: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    rows = [["chip", "bf16_flops", "hbm_bw"], ["H100", 9.89e14, 3.35e12], ["TPU v5e", 1.97e14,
                                                                         8.2e11]]
    for r in rows:
        ws.append(r)
    ws["E1"] = "=CRIT_BATCH($A$1:$C$3,A2,8192,8192)"
    ws["E2"] = "=SUM(B2:B3)/C2"
    ws["E3"] = '=IF(E2>100,"compute","memory")'
    ws["E4"] = "=ARITH_INTENSITY(B2,C2)*2"
    ws["E5"] = "=MATMUL_TIME($A$1:$C$3,A3,4096,8192,8192)"
    ws["E6"] = "=INDEX(B2:B3,2)+ROUND(E4,2)"
    wb.save(path)
    return path


def seeds(folder: Path) -> list[Path]:
    out = [ROOT / "workbooks" / "Roofline.xlsx", small_book(folder / "small.xlsx")]
    out += [SAVED / n for n in SAVED_SEEDS]
    return out


# --------------------------------------------------------------------------- mutations
def random_formula(rng: random.Random, depth: int = 0) -> str:
    if depth > 3 or rng.random() < 0.3:
        return rng.choice(OPERANDS)
    kind = rng.random()
    if kind < 0.5:
        args = ",".join(random_formula(rng, depth + 1) for _ in range(rng.randint(0, 4)))
        return f"{rng.choice(FUNCTIONS)}({args})"
    if kind < 0.8:
        return f"{random_formula(rng, depth + 1)}{rng.choice('+-*/^&=<>')}" \
               f"{random_formula(rng, depth + 1)}"
    if kind < 0.9:
        n = rng.choice([5, 50, 400])
        return "(" * n + random_formula(rng, depth + 1) + ")" * n
    return "-" * rng.randint(1, 30) + random_formula(rng, depth + 1)


def mutate_text(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    b = bytearray(data)
    op = rng.choice(["flip", "delete", "duplicate", "token", "token", "formula"])
    if not b:
        return bytes(rng.choice(TOKENS)), "empty+token"
    i = rng.randrange(len(b))
    if op == "flip":
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif op == "delete":
        del b[i:i + rng.randint(1, 200)]
    elif op == "duplicate":
        b[i:i] = b[i:i + rng.randint(1, 500)] * rng.randint(1, 20)
    elif op == "token":
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b) + 1):0] = rng.choice(TOKENS)
            j = rng.randrange(len(b) + 1)
            b[j:j] = rng.choice(TOKENS)
    else:  # replace the text of some formula
        starts = [k for k in range(len(b)) if b[k:k + 3] == b"<f>" or b[k:k + 3] == b"<f "]
        if not starts:
            return mutate_text(rng, data)
        k = b.index(b">", rng.choice(starts)) + 1
        end = b.find(b"</f>", k)
        if end < 0:
            return mutate_text(rng, data)
        new = random_formula(rng).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        b[k:end] = new.encode()
        op = f"formula {new[:60]!r}"
    return bytes(b), op


def rezip(src: bytes, dst: Path, rng: random.Random) -> str:
    tmp = dst.with_suffix(".seed")
    tmp.write_bytes(src)
    with zipfile.ZipFile(tmp) as zin:
        infos = zin.infolist()
        xml = [i for i in infos if i.filename.endswith((".xml", ".rels"))]
        sheets = [i for i in xml if "worksheets/" in i.filename and "_rels" not in i.filename]
        action = rng.choice(["member"] * 6 + ["drop", "duplicate", "rename"])
        target = rng.choice(sheets if sheets and rng.random() < 0.6 else xml or infos)
        how = f"{action} {target.filename}"
        import warnings

        with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout, \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")  # duplicate names
            for info in infos:
                data = zin.read(info)
                name = info.filename
                if info is target:
                    if action == "drop":
                        continue
                    if action == "rename":
                        name = name.replace(".xml", ".XmL") if rng.random() < 0.5 else name + "x"
                    if action == "member":
                        data, op = mutate_text(rng, data)
                        how += f" ({op})"
                zout.writestr(name, data)
                if info is target and action == "duplicate":
                    zout.writestr(name, data)
    tmp.unlink()
    return how


def mutate(seed: Path, dst: Path, rng: random.Random) -> str:
    data = bytearray(seed.read_bytes())
    kind = rng.random()
    if kind < 0.25:
        n = rng.randint(1, 16)
        for _ in range(n):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        how = f"{n} bit flips"
    elif kind < 0.35:
        cut = rng.randrange(len(data))
        data = data[:cut]
        how = f"truncated at {cut}"
    elif kind < 0.42:
        i = rng.randrange(len(data))
        n = rng.randint(1, 64)
        data[i:i + n] = bytes(n) if rng.random() < 0.5 else rng.randbytes(n)
        how = f"{n} bytes overwritten at {i}"
    else:
        return rezip(bytes(data), dst, rng)
    dst.write_bytes(bytes(data))
    return how


# -------------------------------------------------------------------------------- run
WORKER = Path(__file__).resolve().with_name("fuzz_worker.py")


def _judge(path: Path, how: str, res: dict) -> Outcome:
    """The property for one run of ``recalc MUTANT -o OUT`` (see the module doc)."""
    out = path.with_name(path.stem + ".out" + path.suffix)
    code, err, stdout = res["code"], res["stderr"], res["stdout"]
    problem = None
    if code is None or res["seconds"] > TIMEOUT:  # (a library may swallow the alarm)
        problem = f"no answer within {TIMEOUT:g} s"
    elif res["traceback"] or "Traceback" in err or "Traceback" in stdout:
        problem = "traceback: " + (res["traceback"] or err or stdout)[-600:]
    elif code not in (0, 1, 2):
        problem = f"exit {code}: {err[-300:]}"
    elif code == 2:
        lines = err.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith("rooflinexl: "):
            problem = f"exit 2 without a one-line message: {err[-400:]!r}"
        elif out.exists():
            problem = "exit 2 but an output was written"
    else:
        if not stdout.strip():
            problem = f"exit {code} without a report"
        elif not out.exists():
            problem = f"exit {code} but no output written"
        else:
            try:
                with zipfile.ZipFile(out) as zf:
                    bad = zf.testzip()
                if bad:
                    problem = f"output member {bad} is corrupt"
            except zipfile.BadZipFile as exc:
                problem = f"output is not a zip: {exc}"
    if problem is None:
        out.unlink(missing_ok=True)
    return Outcome(path.name, how, code, res["seconds"], problem, err.strip()[:300])


def _run_chunk(jobs: list[tuple[Path, str]]) -> list[Outcome]:
    """One worker process runs the CLI in-process on each job, one after the other."""
    spec = [[str(p), str(p.with_name(p.stem + ".out" + p.suffix)), TIMEOUT] for p, _ in jobs]
    try:
        proc = subprocess.run([sys.executable, str(WORKER)], input=json.dumps(spec),
                              capture_output=True, text=True, timeout=TIMEOUT * len(jobs) + 60)
        lines = proc.stdout.splitlines()
        died = f"the worker died (exit {proc.returncode}): {proc.stderr[-600:]}"
    except subprocess.TimeoutExpired as exc:
        lines = (exc.stdout or b"").decode().splitlines() if isinstance(exc.stdout, bytes) \
            else (exc.stdout or "").splitlines()
        died = "the worker hung past every per-case limit"
    outcomes = [_judge(p, how, json.loads(line))
                for (p, how), line in zip(jobs, lines, strict=False)]  # fewer lines: it died
    for p, how in jobs[len(outcomes):]:  # a crash (or hang) of the interpreter itself
        outcomes.append(Outcome(p.name, how, None, 0.0, died))
    return outcomes


def run_many(jobs: list[tuple[Path, str]], workers: int) -> list[Outcome]:
    """Spread the jobs round-robin over ``workers`` worker processes, run in parallel."""
    chunks = [jobs[i::workers] for i in range(workers) if jobs[i::workers]]
    with ThreadPoolExecutor(len(chunks)) as ex:
        done = list(ex.map(_run_chunk, chunks))
    by_name = {o.name: o for chunk in done for o in chunk}
    return [by_name[p.name] for p, _ in jobs]


@pytest.mark.slow
def test_byte_fuzz_recalc(tmp_path):
    rng = random.Random(SEED)
    pool = seeds(tmp_path)
    jobs = []
    for k in range(N_FILES):
        seed = pool[k % len(pool)]
        dst = tmp_path / f"m{k:04d}-{seed.stem}{seed.suffix}"
        jobs.append((dst, f"{seed.name}: {mutate(seed, dst, rng)}"))
    outcomes = run_many(jobs, max(2, min(4, os.cpu_count() or 2)))
    codes = {c: sum(o.code == c for o in outcomes) for c in (0, 1, 2, None)}
    slowest = max(outcomes, key=lambda o: o.seconds)
    print(f"\nbyte fuzz: {len(outcomes)} mutants from {len(pool)} seeds (seed {SEED}); "
          f"exit 0: {codes[0]}, 1: {codes[1]}, 2: {codes[2]}, timeouts: {codes[None]}; "
          f"slowest {slowest.seconds:.1f} s ({slowest.name})")
    unexpected = Counter(re.search(r"cannot recalculate .*?: (\w+)", o.message).group(1)
                         for o in outcomes if o.code == 2 and "(unexpected" in o.message)
    if unexpected:  # accepted by the package checks, then an internal error: worth a look
        print(f"byte fuzz: exit 2 from an internal error: {dict(unexpected)}")
    failures = [o for o in outcomes if o.problem]
    assert not failures, "\n".join(f"{tmp_path / o.name} [{o.how}]: {o.problem}"
                                   for o in failures)
    assert codes[2] < len(outcomes), "every mutant was refused: the fuzzer reaches nothing"
    assert codes[0] + codes[1] >= len(outcomes) // 5, codes


PATHOLOGICAL = {
    "long chain": "=" + "+".join(["A1"] * 2700),  # 8,099 characters: Excel accepts it
    "deep parentheses": "=" + "(" * 400 + "1" + ")" * 400,
    "whole sheet": "=SUM(A1:XFD1048576)",
    "many signs": "=" + "-" * 2000 + "1",
    "deep nesting": "=" + "ABS(" * 64 + "1" + ")" * 64,  # Excel's limit: 64 levels
    "leading zeros": "=0123+A1",  # Excel rewrites it as 123 on entry; other writers may not
    "huge literal": "=1E+999*A1",
}
#: formulas recalc cannot evaluate today (the whole workbook is refused, exit 2):
#: engine bugs, routed
ENGINE_LIMITS: dict[str, str] = {}


@pytest.fixture(scope="module")
def pathological(tmp_path_factory) -> dict[str, Outcome]:
    """Every PATHOLOGICAL formula in its own workbook, all recalculated by two workers."""
    folder = tmp_path_factory.mktemp("pathological")
    jobs = []
    for k, (label, formula) in enumerate(sorted(PATHOLOGICAL.items())):
        assert len(formula) <= 8192
        wb = openpyxl.Workbook()
        wb.active["A1"] = 2
        wb.active["B1"] = formula
        book = folder / f"p{k}.xlsx"
        wb.save(book)
        jobs.append((book, label))
    return {o.how: o for o in run_many(jobs, 2)}


@pytest.mark.parametrize("label", sorted(PATHOLOGICAL))
def test_pathological_formulas(pathological, label):
    """Formulas Excel accepts (8,192 characters, 64 nesting levels at most) that stress a
    parser: an answer in time, and a computed workbook (exit 0 or 1), not a refusal."""
    outcome = pathological[label]
    assert outcome.problem is None, outcome.problem
    if outcome.code == 2 and label in ENGINE_LIMITS:
        pytest.xfail(f"engine bug, routed: {ENGINE_LIMITS[label]}")
    assert outcome.code in (0, 1), f"{label}: refused (exit 2)"
    if label in ENGINE_LIMITS:
        pytest.fail(f"fixed: remove {label!r} from ENGINE_LIMITS")
