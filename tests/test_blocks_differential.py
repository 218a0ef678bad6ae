"""Differential test: formulas computed as blocks filled down and as blocks of one row
(``engine_mode="cells"``) agree on every cell.

Workbooks are generated (hypothesis): a data region with numbers, numeric
text, words, booleans, blanks and error values, a lookup table with a
defined name, a small chip table, and formula columns filled down over the
rows, built from random mixes of the constructs the block evaluator covers
(operators, IF/IFERROR/IFNA, AND/OR/NOT, MIN/MAX/SUM/AVERAGE/PRODUCT over
cells and ranges, rounding, ABS/SQRT/LN/LOG/EXP/POWER, INDEX/MATCH,
VLOOKUP/HLOOKUP/XLOOKUP, rooflinexl functions). Both paths must give the
same value for every formula cell -- same type, same bits for numbers, same
error code -- and the same reason for every error cell.
"""
from __future__ import annotations

import math
import random

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.table import Table

from rooflinexl.errors import ExcelError
from rooflinexl.recalc.blocks import evaluate_blocks
from rooflinexl.udfs import FUNCTIONS

DATA_COLS = "ABCDE"
ERRORS = ["#N/A", "#DIV/0!", "#VALUE!", "#NUM!"]


_NUMBERS = [0, 1, 2, 3, -1, 0.5, 2.5, 10, 100, 1e-7, -3.25, 7, 1e12, 0.1, 1 / 3]


def _data_value(rnd: random.Random, col: str):
    """Columns A, B: mostly numbers; C: anything; D: numbers and text; E: chip names."""
    k = rnd.random()
    if col in "AB":
        if k < 0.85:
            return rnd.choice(_NUMBERS)
        return None if k < 0.93 else rnd.choice([True, "3", "#DIV/0!"])
    if col == "E":
        return rnd.choice(["TPU v5e", "H100", "B900", "B200", None])
    if k < 0.4:
        return rnd.choice(_NUMBERS)
    if k < 0.55:
        return rnd.choice(["3", "x", "H100", "", " 2 ", "abc"])
    if k < 0.65:
        return rnd.choice([True, False])
    if k < 0.85 or col == "D":
        return None
    return rnd.choice(ERRORS)


class _Gen:
    """Random formulas over the data region; ``{r}`` is the row."""

    def __init__(self, rnd: random.Random, formula_cols: list[str], rows: range,
                 table: bool, in_table: bool):
        self.rnd = rnd
        self.cols = formula_cols  # earlier formula columns (may be referenced)
        self.rows = rows
        self.table = table  # the data region is the Excel table Tbl
        self.in_table = in_table  # the formula column is inside it

    def ref(self) -> str:
        rnd = self.rnd
        col = rnd.choice("AAABBBCD" + "".join(self.cols) * 2)
        k = rnd.random()
        if self.table and col in "ABCDEFG" and k < 0.3:
            name = col.lower()
            return f"[@{name}]" if self.in_table and k < 0.1 else f"Tbl[@{name}]"
        if k < 0.6:
            return f"{col}{{r}}"
        if k < 0.75:
            return f"${col}{{r}}"
        if k < 0.9:
            return f"${col}${rnd.choice(list(self.rows))}"
        return f"{col}${rnd.choice(list(self.rows))}"

    def literal(self) -> str:
        return self.rnd.choice(["0", "1", "2", "2.5", "10", "0.5", "3", "0.1", '"x"', '"3"', '""',
                                "TRUE", "FALSE", "1E+3", "#N/A"])

    def range_(self) -> str:
        rnd = self.rnd
        if rnd.random() < 0.5:
            a, b = sorted(rnd.sample(DATA_COLS, 2))
            return f"{a}{{r}}:{b}{{r}}"
        col = rnd.choice(DATA_COLS)
        if self.table and rnd.random() < 0.3:
            return f"Tbl[{col.lower()}]"
        return f"${col}${min(self.rows)}:${col}${max(self.rows)}"

    def expr(self, depth: int = 0) -> str:
        rnd = self.rnd
        if depth >= 3 or (depth > 0 and rnd.random() < 0.25):
            return self.ref() if rnd.random() < 0.7 else self.literal()
        e = lambda: self.expr(depth + 1)  # noqa: E731
        k = rnd.randrange(21)
        if k < 5:
            op = rnd.choice(["+", "-", "*", "/", "^", "&", "=", "<>", "<", ">", "<=", ">="])
            return f"({e()}{op}{e()})"
        if k == 5:
            return rnd.choice([f"-{e()}", f"({e()})%"])
        if k == 6:
            return rnd.choice([f"IF({e()},{e()},{e()})", f"IF({e()},{e()})"])
        if k == 7:
            return f"{rnd.choice(['IFERROR', '_xlfn.IFNA'])}({e()},{e()})"
        if k == 8:
            return rnd.choice([f"AND({e()},{e()})", f"OR({e()},{self.range_()})",
                               f"NOT({e()})"])
        if k in (9, 10):
            fn = rnd.choice(["MIN", "MAX", "SUM", "AVERAGE", "PRODUCT"])
            args = [e() if rnd.random() < 0.5 else self.range_() for _ in range(rnd.randint(1, 3))]
            return f"{fn}({','.join(args)})"
        if k == 11:
            fn = rnd.choice(["ROUND", "ROUNDUP", "ROUNDDOWN"])
            return f"{fn}({e()},{rnd.choice(['0', '1', '2', '-1'])})"
        if k == 12:
            return f"{rnd.choice(['CEILING', 'FLOOR'])}({e()},{rnd.choice(['1', '0.5', '2'])})"
        if k == 13:
            fn = rnd.choice(["ABS", "SQRT", "LN", "EXP", "LOG", "INT"])
            return rnd.choice([f"{fn}({e()})", "ROW()", "COLUMN()", f"ROW({self.ref()})"])
        if k == 14:
            return rnd.choice([f"POWER({e()},{e()})", f"LOG({e()},{e()})", f"MOD({e()},{e()})"])
        if k == 15:
            return (f"INDEX($H$2:$J$6,MATCH({e()},$H$2:$H$6,0),"
                    f"{rnd.choice(['1', '2', '3', '0', '4'])})")
        if k == 16:
            return rnd.choice([f"VLOOKUP({e()},Lookup,{rnd.choice(['2', '3'])},FALSE)",
                               f"MATCH({e()},$H$2:$H$6,{rnd.choice(['0', '1', '-1'])})",
                               f"INDEX($I$2:$I$6,{e()})"])
        if k == 17:
            missing = rnd.choice(["-1", '"none"'])
            return f"_xlfn.XLOOKUP({e()},$H$2:$H$6,$J$2:$J$6,{missing})"
        if k == 18:
            return f"HLOOKUP({e()},$H$2:$J$3,2,FALSE)"
        if k == 19:
            chip = rnd.choice(['"H100"', "$E{r}", "A{r}", '"TPU v5e"'])
            return rnd.choice([f"CRIT_BATCH(Chips,{chip},{e()},{e()})",
                               f"CRIT_INTENSITY(Chips,{chip})",
                               f"MATMUL_TIME(Chips,{chip},{e()},4096,{e()})"])
        return f"{e()}*{e()}"


def make_book(path, seed: int):
    """A generated workbook: data, lookup table, chips, formula columns; maybe a table,
    shared formulas and cells for the per-cell path."""
    rnd = random.Random(seed)
    rows = range(2, 8) if rnd.random() < 0.6 else range(8, 14)
    table = rnd.random() < 0.3
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    for c in "ABCDEFG":
        ws[f"{c}1"] = c.lower()
    for r in rows:
        for c in DATA_COLS:
            v = _data_value(rnd, c)
            if v is not None:
                ws[f"{c}{r}"] = v
    keys = rnd.sample(["H100", "x", "3", "abc", "TPU v5e", "B200", "h100"], 5)
    for i, r in enumerate(range(2, 7)):
        ws[f"H{r}"] = rnd.choice([keys[i], i, 2 * i + 0.5]) if rnd.random() < 0.3 else keys[i]
        ws[f"I{r}"] = rnd.choice([i * 1.5, "t" + str(i), None, True])
        ws[f"J{r}"] = rnd.choice([i * 10, "#N/A", None, -i])
    wb.defined_names["Lookup"] = DefinedName("Lookup", attr_text="Data!$H$2:$J$6")
    chips = wb.create_sheet("Chips")
    chips.append(["chip", "bf16_flops", "hbm_bw", "ici_bw"])
    chips.append(["H100", 9.89e14, 3.35e12, 4.5e11])
    chips.append(["TPU v5e", 1.97e14, 8.1e11, None])
    chips.append(["B200", 2.25e15, 8e12, 9e11])
    wb.defined_names["Chips"] = DefinedName("Chips", attr_text="Chips!$A$1:$D$4")
    formula_cols: list[str] = []
    r0, r1 = min(rows), max(rows)
    for col in "FGK"[:rnd.randint(1, 3)]:
        gen = _Gen(rnd, formula_cols, rows, table, col in "FG")
        template = "=" + gen.expr()
        skip = rnd.choice([None, None, rnd.choice(list(rows))])
        for r in rows:
            if r != skip:
                ws[f"{col}{r}"] = template.replace("{r}", str(r))
        formula_cols.append(col)
    if rnd.random() < 0.25:  # cells for the per-cell path, between blocks
        for r in rows:
            ws[f"L{r}"] = f'=COUNTIF($A${r0}:$A${r1},">0")+{formula_cols[0]}{r}'
            ws[f"M{r}"] = f"=IFERROR(L{r}*2,-1)+N{r}"
            ws[f"N{r}"] = f"=N{r - 1}+A{r}" if r > r0 else f"=A{r}"
        if rnd.random() < 0.3:  # a cycle, and a block reading it
            ws["P2"], ws["Q2"] = "=Q2+1", "=P2+1"
            for r in rows:
                ws[f"R{r}"] = f"=IFERROR($Q$2,0)+{formula_cols[-1]}{r}"
    if rnd.random() < 0.3:  # another sheet reading the formula columns
        other = wb.create_sheet("Sum")
        col = formula_cols[-1]
        other["A1"] = f"=SUM(Data!${col}${r0}:${col}${r1})"
        other["A2"] = f"=IFERROR(MAX(Data!{col}{r0}:{col}{r1}),-1)"
        for r in rows:
            other[f"B{r}"] = f"=IFERROR(Data!{col}{r}*2,Data!A{r})"
        wb.defined_names["Total"] = DefinedName("Total", attr_text="Sum!$A$1")
        ws[f"L{r0 - 1}"] = "=Total+1"
    if table:
        wb["Data"].add_table(Table(displayName="Tbl", ref=f"A1:G{r1}"))
    wb.save(path)
    if rnd.random() < 0.4:
        _share(path, formula_cols, rows)


def _share(path, cols, rows) -> None:
    """Rewrite the formula columns as Excel's shared formulas (master + children)."""
    import re
    import shutil
    import zipfile

    tmp = str(path) + ".tmp"
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                text = data.decode()
                for si, col in enumerate(cols):
                    cells = [r for r in rows if f'<c r="{col}{r}"><f>' in text]
                    if len(cells) < 2:
                        continue
                    first = cells[0]
                    ref = f"{col}{first}:{col}{cells[-1]}"
                    text = text.replace(f'<c r="{col}{first}"><f>',
                                        f'<c r="{col}{first}"><f t="shared" ref="{ref}" '
                                        f'si="{si}">', 1)
                    for r in cells[1:]:
                        text = re.sub(f'<c r="{col}{r}"><f>[^<]*</f>',
                                      f'<c r="{col}{r}"><f t="shared" si="{si}"/>', text)
                data = text.encode()
            zout.writestr(info, data)
    shutil.move(tmp, path)


def same(a, b) -> bool:
    if isinstance(a, ExcelError) or isinstance(b, ExcelError):
        return isinstance(a, ExcelError) and isinstance(b, ExcelError) and str(a) == str(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return type(a) is type(b) and a == b


def check(path) -> None:
    blocks = evaluate_blocks(path, FUNCTIONS)
    cells = evaluate_blocks(path, FUNCTIONS, engine_mode="cells")
    assert blocks.paths.blocks < cells.paths.blocks  # the generated books fill formulas down
    assert list(blocks.cells) == list(cells.cells)
    bad = []
    for key, c in cells.cells.items():
        b = blocks.cells[key]
        if not same(b.value, c.value) or b.reason != c.reason or b.formula != c.formula:
            bad.append((key, c.formula, repr(b.value), repr(c.value), b.reason, c.reason))
    assert not bad, "\n".join(map(str, bad[:5])) + f"\npaths: {blocks.paths.summary()}"
    assert blocks.rewrites == cells.rewrites


@pytest.mark.parametrize("seed", [1, 2, 3, 5, 8, 13])
def test_fixed_seeds(tmp_path, seed):
    p = tmp_path / f"seed{seed}.xlsx"
    make_book(p, seed)
    check(p)


def test_seed_2921654_error_reason_order(tmp_path):
    """Found by the random search: ``CRIT_BATCH(..ROUND(text)..)&AVERAGE(..'none'..)``, the
    first error's reason worded alike on both paths (the per-cell ``formulas`` path, gone
    now, worded it as ROUND's)."""
    p = tmp_path / "seed2921654.xlsx"
    make_book(p, 2921654)
    check(p)


# derandomised: the same 25 seeds on every run, so CI's verdict does not depend on chance
# (run with --hypothesis-seed=N and derandomize off to search further)
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_workbooks(tmp_path, seed):
    p = tmp_path / "book.xlsx"
    make_book(p, seed)
    check(p)
