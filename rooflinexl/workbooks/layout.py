"""Shared layout for generated workbooks: styles, the Chips sheet, How-to and xlwings.conf sheets.

Conventions every generated workbook follows (issue 4, DESIGN.md section 6):
inputs are yellow with blue text, formulas white with black text, headers
carry units, headers are frozen, drop-downs offer chips/dtypes/tiers from the
Chips table, and bound results are coloured (compute green, memory amber,
network red).
"""
from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

from openpyxl import Workbook
from openpyxl.comments import Comment
from openpyxl.formatting.rule import CellIsRule
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.properties import PageSetupProperties
from openpyxl.worksheet.table import Table, TableStyleInfo

from rooflinexl.addresses import column_letters
from rooflinexl.chips import COLUMN_DOCS, COLUMNS, UNITS, ChipTable
from rooflinexl.dtypes import DTYPES, TIERS
from rooflinexl.models import COLUMNS as MODEL_COLUMNS
from rooflinexl.models import UNITS as MODEL_UNITS
from rooflinexl.models import ModelTable, load_models

INPUT_FILL = PatternFill("solid", fgColor="FFF2CC")
INPUT_FONT = Font(color="1F4E79", bold=True)
HEADER_FILL = PatternFill("solid", fgColor="D9E1F2")
HEADER_FONT = Font(bold=True)
TITLE_FONT = Font(bold=True, size=14)
NOTE_FONT = Font(italic=True, color="595959")
THIN = Side(style="thin", color="BFBFBF")
BOX = Border(left=THIN, right=THIN, top=THIN, bottom=THIN)
BOUND_FILLS = {"compute": "C6EFCE", "memory": "FFEB9C", "network": "FFC7CE"}

DTYPE_LIST = ",".join(DTYPES)
TIER_LIST = ",".join(TIERS)
SHARD_LIST = "none,D,F"


@dataclass(frozen=True)
class Input:
    """An input cell: a value the user is expected to change."""

    value: object
    fmt: str | None = None


@dataclass(frozen=True)
class Calc:
    """A formula cell (text starting with ``=``)."""

    formula: str
    fmt: str | None = None


def header_label(column: str) -> str:
    """``hbm_bw`` -> ``hbm_bw [B/s]`` (the chip loaders drop the unit suffix)."""
    unit = UNITS.get(column)
    return f"{column} [{unit}]" if unit else column


def add_chips_sheet(wb: Workbook, table: ChipTable, title: str = "Chips") -> str:
    """Write the chip table as an Excel table; define ``Chips`` (header + rows) and ``ChipNames``.

    Returns the sheet's range of the table, e.g. ``Chips!$A$1:$V$13``.
    """
    ws = wb.create_sheet(title)
    rows = table.to_rows(COLUMNS)
    cols = rows[0]
    ws.append([header_label(c) for c in cols])
    for r in rows[1:]:
        ws.append(r)
    last_col = column_letters(len(cols))
    last_row = len(rows)
    ref = f"A1:{last_col}{last_row}"
    tab = Table(displayName="ChipSpecs", ref=ref)
    tab.tableStyleInfo = TableStyleInfo(name="TableStyleMedium2", showRowStripes=True)
    ws.add_table(tab)
    for j, c in enumerate(cols, start=1):
        letter = column_letters(j)
        ws.column_dimensions[letter].width = {"chip": 10, "aliases": 24, "source": 60,
                                              "notes": 60, "price_source": 30}.get(c, 14)
        if c in UNITS:
            for i in range(2, last_row + 1):
                cell = ws.cell(row=i, column=j)
                cell.number_format = "0.00" if c == "price_per_hour" else "0.000E+00"
                cell.fill = INPUT_FILL
                cell.font = Font(color="1F4E79")
    ws.freeze_panes = "B2"
    # explicit header style: LibreOffice does not draw Excel table styles
    for c, col in zip(ws[1], cols, strict=True):
        c.font, c.fill, c.border = HEADER_FONT, HEADER_FILL, BOX
        c.alignment = Alignment(wrap_text=True, vertical="center")
        if col in COLUMN_DOCS:  # the column's meaning as the header's note
            c.comment = Comment(COLUMN_DOCS[col], "rooflinexl", width=300, height=120)
    # print the numbers (up to the price date) one page wide; sources stay on the sheet
    print_setup(ws)
    if "price_date" in cols:
        ws.print_area = f"A1:{column_letters(cols.index('price_date') + 1)}{last_row}"
    absolute = f"{_q(title)}!$A$1:${last_col}${last_row}"
    wb.defined_names["Chips"] = DefinedName("Chips", attr_text=absolute)
    wb.defined_names["ChipNames"] = DefinedName(
        "ChipNames", attr_text=f"{_q(title)}!$A$2:$A${last_row}")
    return absolute


#: blank yellow rows inside the Models table for the user's own models
SPARE_MODEL_ROWS = 5


def add_models_sheet(wb: Workbook, table: ModelTable | None = None,
                     title: str = "Models") -> str:
    """Write the model table as an Excel table; define ``Models`` and ``ModelNames``.

    ``Models`` covers the header, the model rows and :data:`SPARE_MODEL_ROWS`
    blank input rows (blank rows are skipped when the table is read), so a
    model typed there is found by every formula. Returns the table's range.
    """
    table = load_models(table)
    ws = wb.create_sheet(title)
    rows = table.to_rows(MODEL_COLUMNS)
    cols = rows[0]
    ws.append([f"{c} [{MODEL_UNITS[c]}]" if c in MODEL_UNITS else c for c in cols])
    for r in rows[1:]:
        ws.append(r)
    for _ in range(SPARE_MODEL_ROWS):
        ws.append([None] * len(cols))
    last_col = column_letters(len(cols))
    last_row = len(rows) + SPARE_MODEL_ROWS
    tab = Table(displayName="ModelSpecs", ref=f"A1:{last_col}{last_row}")
    tab.tableStyleInfo = TableStyleInfo(name="TableStyleMedium2", showRowStripes=True)
    ws.add_table(tab)
    for j, c in enumerate(cols, start=1):
        letter = column_letters(j)
        ws.column_dimensions[letter].width = {"model": 16, "aliases": 28, "source": 70,
                                              "notes": 60}.get(c, 11)
        for i in range(2, last_row + 1):
            cell = ws.cell(row=i, column=j)
            if c in ("params", "expert_params"):
                cell.number_format = "0.000E+00"
            if c not in ("source", "notes") or i > len(rows):
                cell.fill = INPUT_FILL
                cell.font = Font(color="1F4E79")
            if c in ("source", "notes"):
                cell.alignment = Alignment(wrap_text=False, vertical="top")
    ws.freeze_panes = "B2"
    for c in ws[1]:
        c.font, c.fill, c.border = HEADER_FONT, HEADER_FILL, BOX
        c.alignment = Alignment(wrap_text=True, vertical="center")
    print_setup(ws)
    absolute = f"{_q(title)}!$A$1:${last_col}${last_row}"
    wb.defined_names["Models"] = DefinedName("Models", attr_text=absolute)
    wb.defined_names["ModelNames"] = DefinedName(
        "ModelNames", attr_text=f"{_q(title)}!$A$2:$A${last_row}")
    return absolute


def add_prices_sheet(wb: Workbook, prices, title: str = "Prices") -> str:
    """Write the price table as an Excel table; define ``Prices`` (header + rows).

    Returns the sheet's range of the table.
    """
    ws = wb.create_sheet(title)
    rows = prices.to_rows()
    for r in rows:
        ws.append(r)
    last_col, last_row = column_letters(len(rows[0])), len(rows)
    tab = Table(displayName="PriceList", ref=f"A1:{last_col}{last_row}")
    tab.tableStyleInfo = TableStyleInfo(name="TableStyleMedium2", showRowStripes=True)
    ws.add_table(tab)
    for j, w in enumerate((12, 16, 14, 11, 14, 70, 40), start=1):
        ws.column_dimensions[column_letters(j)].width = w
    for i in range(2, last_row + 1):
        cell = ws.cell(row=i, column=5)
        cell.number_format, cell.fill, cell.font = "0.000", INPUT_FILL, Font(color="1F4E79")
    for c in ws[1]:
        c.font, c.fill, c.border = HEADER_FONT, HEADER_FILL, BOX
    ws.freeze_panes = "A2"
    absolute = f"{_q(title)}!$A$1:${last_col}${last_row}"
    wb.defined_names["Prices"] = DefinedName("Prices", attr_text=absolute)
    wb.defined_names["ProviderNames"] = DefinedName(
        "ProviderNames", attr_text=f"{_q(title)}!$B$2:$B${last_row}")
    return absolute


def _q(sheet: str) -> str:
    return f"'{sheet}'" if not sheet.isalnum() else sheet


def add_howto_sheet(wb: Workbook, title: str, lines: list[str]) -> None:
    """A short "How to use" sheet, first in the workbook."""
    ws = wb.create_sheet("How to use", 0)
    ws["A1"] = title
    ws["A1"].font = TITLE_FONT
    for i, line in enumerate(lines, start=3):
        ws.cell(row=i, column=1, value=line).alignment = Alignment(wrap_text=True,
                                                                   vertical="top")
    ws.column_dimensions["A"].width = 110
    print_setup(ws)
    legend = len(lines) + 4
    ws.cell(row=legend, column=1, value="Input cell (change me)").fill = INPUT_FILL
    ws.cell(row=legend, column=1).font = INPUT_FONT
    ws.cell(row=legend + 1, column=1, value="Formula cell (computed)").border = BOX
    for k, (label, colour) in enumerate(BOUND_FILLS.items()):
        c = ws.cell(row=legend + 2 + k, column=1, value=f"{label}-bound result")
        c.fill = PatternFill("solid", fgColor=colour)


def add_xlwings_conf(wb: Workbook) -> None:
    """The classic add-in's config sheet: ``UDF Modules = rooflinexl.udfs``."""
    ws = wb.create_sheet("xlwings.conf")
    ws["A1"], ws["B1"] = "UDF Modules", "rooflinexl.udfs"
    ws.column_dimensions["A"].width = 16
    ws.column_dimensions["B"].width = 20
    ws.sheet_state = "hidden"


class SheetWriter:
    """Writes titled, styled tables of inputs and formulas onto one sheet."""

    def __init__(self, wb: Workbook, title: str, heading: str, note: str = ""):
        self.ws = wb.create_sheet(title)
        self.ws["A1"] = heading
        self.ws["A1"].font = TITLE_FONT
        if note:
            self.ws["A2"] = note
            self.ws["A2"].font = NOTE_FONT
        self.row = 4
        self.widths: dict[int, float] = {}
        self._validations: dict[str, DataValidation] = {}

    def table(self, headers: list[str], rows: list[list], caption: str = "",
              col: int = 1, freeze: bool = False) -> tuple[int, int]:
        """Write a caption, a header row and rows; returns (first data row, last data row)."""
        ws = self.ws
        if caption:
            ws.cell(row=self.row, column=col, value=caption).font = Font(bold=True, size=12)
            self.row += 1
        for j, h in enumerate(headers):
            c = ws.cell(row=self.row, column=col + j, value=h)
            c.font, c.fill, c.border = HEADER_FONT, HEADER_FILL, BOX
            c.alignment = Alignment(wrap_text=True, vertical="center")
            self.widths[col + j] = max(self.widths.get(col + j, 10), min(len(h) + 2, 22))
        if freeze:
            ws.freeze_panes = ws.cell(row=self.row + 1, column=col)
        first = self.row + 1
        for r in rows:
            self.row += 1
            for j, v in enumerate(r):
                self.put(self.row, col + j, v)
        last = self.row
        self.row += 2
        return first, last

    def put(self, row: int, col: int, v) -> None:
        c = self.ws.cell(row=row, column=col)
        if isinstance(v, Input):
            c.value, c.fill, c.font, c.border = v.value, INPUT_FILL, INPUT_FONT, BOX
            if v.fmt:
                c.number_format = v.fmt
        elif isinstance(v, Calc):
            c.value, c.border = v.formula, BOX
            if v.fmt:
                c.number_format = v.fmt
        else:
            c.value = v
            if isinstance(v, str) and len(v) > 12:
                self.widths[col] = max(self.widths.get(col, 10), min(len(v) + 2, 40))

    def note(self, text: str) -> None:
        self.ws.cell(row=self.row, column=1, value=text).font = NOTE_FONT
        self.row += 1

    def validate(self, kind: str, cells: str) -> None:
        """Drop-down on ``cells``: kind is chip, model, dtype, tier or shard."""
        if kind not in self._validations:
            source = {"chip": "=ChipNames", "model": "=ModelNames", "dtype": f'"{DTYPE_LIST}"',
                      "tier": f'"{TIER_LIST}"', "shard": f'"{SHARD_LIST}"'}[kind]
            dv = DataValidation(type="list", formula1=source, allow_blank=True,
                                showErrorMessage=True, errorTitle=f"Unknown {kind}",
                                error=f"Pick a {kind} from the list.")
            self.ws.add_data_validation(dv)
            self._validations[kind] = dv
        self._validations[kind].add(cells)

    def colour_bounds(self, cells: str) -> None:
        """Conditional formatting: compute green, memory amber, network red."""
        for label, colour in BOUND_FILLS.items():
            self.ws.conditional_formatting.add(
                cells, CellIsRule(operator="equal", formula=[f'"{label}"'],
                                  fill=PatternFill("solid", fgColor=colour, bgColor=colour)))

    def colour_text(self, cells: str, colours: dict[str, str]) -> None:
        """Conditional formatting: fill cells whose text equals a key with its colour."""
        for label, colour in colours.items():
            self.ws.conditional_formatting.add(
                cells, CellIsRule(operator="equal", formula=[f'"{label}"'],
                                  fill=PatternFill("solid", fgColor=colour, bgColor=colour)))

    def finish(self) -> None:
        for j, w in self.widths.items():
            self.ws.column_dimensions[column_letters(j)].width = w
        print_setup(self.ws)


def keep_cached_values(wb: Workbook) -> None:
    """Ask spreadsheet applications to show the stamped values on open, not recalculate.

    openpyxl writes ``fullCalcOnLoad="1"`` and the Excel 2007 ``calcId``; Excel fully
    recalculates such a file on open, and without the add-in our functions become #NAME?.
    """
    wb.calculation.fullCalcOnLoad = False
    wb.calculation.calcId = 191029  # Excel 2016 and later (Microsoft 365)


def print_setup(ws, landscape: bool = True) -> None:
    """Print (and PDF export) one page wide, landscape, with gridlines off."""
    ws.page_setup.orientation = "landscape" if landscape else "portrait"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.sheet_properties.pageSetUpPr = PageSetupProperties(fitToPage=True)
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0


def name_cell(wb: Workbook, name: str, sheet: str, cell: str) -> None:
    """Workbook-level defined name for one result cell (printed by ``rooflinexl recalc``)."""
    col = "".join(ch for ch in cell if ch.isalpha())
    row = cell[len(col):]
    wb.defined_names[name] = DefinedName(name, attr_text=f"{_q(sheet)}!${col}${row}")


FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def save_deterministic(wb: Workbook, path) -> None:
    """Save with fixed document dates and zip timestamps, so a rebuild is byte-identical."""
    import datetime as dt

    stamp = dt.datetime(2026, 1, 1)
    wb.properties.created = stamp
    wb.properties.modified = stamp
    wb.properties.creator = "rooflinexl build"
    wb.properties.lastModifiedBy = "rooflinexl build"
    buf = io.BytesIO()
    wb.save(buf)
    buf.seek(0)

    def write(fh) -> None:
        with zipfile.ZipFile(buf) as src, zipfile.ZipFile(fh, "w", zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                data = src.read(info.filename)
                if info.filename == "docProps/core.xml":
                    data = _fix_core_dates(data)
                out = zipfile.ZipInfo(info.filename, FIXED_TIME)
                out.compress_type = zipfile.ZIP_DEFLATED
                out.external_attr = info.external_attr
                dst.writestr(out, data)

    from rooflinexl.ooxml import atomic_write

    atomic_write(path, write)


def _fix_core_dates(data: bytes) -> bytes:
    import re

    return re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>2026-01-01T00:00:00Z", data)
