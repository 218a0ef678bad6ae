"""The planning workbook the recalculation benchmark (and tests) use.

``make_plan(path, rows)`` writes a 40-chip ``Chips`` sheet (an Excel table
``ChipTbl`` plus the defined name ``Chips`` over header and rows) and a
``Plan`` sheet of ``rows`` rows: chip, B, D, F as inputs, then per row three
native formulas and one rooflinexl function::

    E  peak  =INDEX(ChipTbl[bf16_flops],MATCH($A2,ChipTbl[chip],0))
    F  bw    =INDEX(ChipTbl[hbm_bw],MATCH($A2,ChipTbl[chip],0))
    G  AI    =2*B2*C2*D2/(2*B2*C2+2*C2*D2+2*B2*D2)
    H  time  =MATMUL_TIME(Chips,$A2,B2,C2,D2)

``twin=True`` writes the native-formula twin (for LibreOffice): column H is
``=MAX(2*B2*C2*D2/E2,(2*B2*C2+2*C2*D2+2*B2*D2)/F2)``, the bf16 single-chip
MATMUL_TIME written out (DESIGN.md section 3).
"""
from __future__ import annotations

from pathlib import Path

CHIP_ROWS = 40


def chip_rows(n: int = CHIP_ROWS) -> list[list]:
    """Header plus ``n`` chip rows: the packaged chips, then scaled variants."""
    from rooflinexl.chips import load_chips

    rows = load_chips().to_rows()
    header, base = rows[0], rows[1:]
    i_alias = header.index("aliases")
    numeric = [j for j, h in enumerate(header) if h.endswith(("_flops", "_bw", "_bytes"))
               or h == "price_per_hour"]
    out = [list(r) for r in base[:n]]
    k = 0
    while len(out) < n:
        src = base[k % len(base)]
        scale = 1.0 + 0.05 * (k // len(base) + 1)
        row = list(src)
        row[0] = f"{src[0]} x{scale:.2f}"
        row[i_alias] = None
        for j in numeric:
            if isinstance(row[j], (int, float)):
                row[j] = row[j] * scale
        out.append(row)
        k += 1
    return [list(header)] + out


def make_plan(path, rows: int, *, twin: bool = False) -> Path:
    """Write the benchmark plan of ``rows`` rows to ``path``; return the path."""
    import openpyxl
    from openpyxl.workbook.defined_name import DefinedName
    from openpyxl.worksheet.table import Table

    path = Path(path)
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Chips"
    table = chip_rows()
    for r in table:
        ws.append(r)
    last_col = openpyxl.utils.get_column_letter(len(table[0]))
    ref = f"A1:{last_col}{len(table)}"
    ws.add_table(Table(displayName="ChipTbl", ref=ref))
    wb.defined_names["Chips"] = DefinedName(
        "Chips", attr_text=f"Chips!$A$1:${last_col}${len(table)}")
    names = [r[0] for r in table[1:]]
    plan = wb.create_sheet("Plan")
    plan.append(["chip", "B", "D", "F", "peak", "bw", "intensity", "time"])
    for i in range(rows):
        r = i + 2
        b = 16 * (1 + i % 64)
        d = 1024 * (1 + (i // 7) % 8)
        f = 1024 * (1 + (i // 3) % 16)
        time = (f"=MAX(2*B{r}*C{r}*D{r}/E{r},(2*B{r}*C{r}+2*C{r}*D{r}+2*B{r}*D{r})/F{r})"
                if twin else f"=MATMUL_TIME(Chips,$A{r},B{r},C{r},D{r})")
        plan.append([
            names[i % len(names)], b, d, f,
            f"=INDEX(ChipTbl[bf16_flops],MATCH($A{r},ChipTbl[chip],0))",
            f"=INDEX(ChipTbl[hbm_bw],MATCH($A{r},ChipTbl[chip],0))",
            f"=2*B{r}*C{r}*D{r}/(2*B{r}*C{r}+2*C{r}*D{r}+2*B{r}*D{r})",
            time,
        ])
    wb.save(path)
    return path
