"""A native Excel roofline chart: log-log roofs of chosen chips, a sheet's operations as points.

The roofs are not pictures: a helper table on the chart's sheet computes three
points per chip with our functions over the Chips table (the left end of the
bandwidth slope, the ridge point CRIT_INTENSITY, the right end of the flat
roof), so the lines follow any edit of the Chips sheet or of the chip inputs.
A roofline is straight on log-log axes between those points, so three points
draw it exactly. Each operation is its own marker series (its legend entry is
the label cell), at (arithmetic intensity, attained FLOP/s per chip).
"""
from __future__ import annotations

from dataclasses import dataclass

from openpyxl import Workbook
from openpyxl.chart import Reference, ScatterChart, Series
from openpyxl.chart.data_source import StrRef
from openpyxl.chart.series import SeriesLabel
from openpyxl.chart.shapes import GraphicalProperties
from openpyxl.drawing.line import LineProperties

from rooflinexl.addresses import column_letters
from rooflinexl.workbooks.layout import Calc, Input, SheetWriter

SCI = "0.00E+00"
#: line colours of the roofs (chip 1, 2, ...) and the marker colours of the points
ROOF_COLOURS = ("1F4E79", "C55A11", "548235", "7030A0", "BF9000", "2E75B6")
POINT_COLOURS = ("E41A1C", "377EB8", "4DAF4A", "984EA3", "FF7F00", "A65628", "F781BF",
                 "999999", "17BECF", "000000")  # ColorBrewer Set1, then teal and black
#: sheet rows left free for the chart (13 cm at the default row height)
CHART_ROWS = 27


@dataclass(frozen=True)
class Point:
    """One operation on the chart: a label and two formulas (without '=')."""

    label: str  # a formula too ("'Sheet'!A7") or a literal text when it starts with '"'
    intensity: str  # FLOP/byte
    flops: str  # attained FLOP/s per chip


def add_roofline_chart(wb: Workbook, title: str, heading: str, note: str, chips: list[str],
                       points: list[Point], dtype: str = "bf16", tier: str = "hbm",
                       x_range: tuple[float, float] = (1.0, 1.0e4)) -> SheetWriter:
    """Add a sheet ``title`` with chip/dtype/tier inputs, the roof helper table and the chart."""
    s = SheetWriter(wb, title, heading, note)
    s.table(["dtype", "tier", "intensity from [FLOP/byte]", "intensity to [FLOP/byte]"],
            [[Input(dtype), Input(tier), Input(x_range[0], "0.0E+0"),
              Input(x_range[1], "0.0E+0")]],
            caption="Inputs (the roofs are drawn at this dtype and tier; the roof chips are "
                    "below the chart)")
    s.validate("dtype", "A6")
    s.validate("tier", "B6")
    chart_row = s.row
    s.row += CHART_ROWS
    hdr = ["chip", "I from [FLOP/byte]", "ridge [FLOP/byte]", "I to [FLOP/byte]",
           "FLOP/s at I from", "FLOP/s at ridge", "FLOP/s at I to"]
    first, last = s.table(hdr, [[Input(c)] + [None] * 6 for c in chips],
                          caption="Roofs: ROOFLINE_FLOPS at three intensities per chip "
                                  "(yellow chip names: pick any chip)")
    for r in range(first, last + 1):
        s.put(r, 2, Calc("=$C$6", "0.0E+0"))
        s.put(r, 3, Calc(f"=CRIT_INTENSITY(Chips,A{r},$B$6,$A$6)", "0.0"))
        s.put(r, 4, Calc("=$D$6", "0.0E+0"))
        for j, col in enumerate("BCD"):
            s.put(r, 5 + j, Calc(f"=ROOFLINE_FLOPS(Chips,$A{r},{col}{r},$B$6,$A$6)", SCI))
    s.validate("chip", f"A{first}:A{last}")
    p_first, p_last = s.table(
        ["operation", "intensity [FLOP/byte]", "attained [FLOP/s per chip]"],
        [[Calc("=" + p.label), Calc("=" + p.intensity, "0.0"), Calc("=" + p.flops, SCI)]
         for p in points],
        caption="Operations (points): formulas over the sheets they come from")
    s.finish()
    ws = s.ws
    ws.freeze_panes = "A4"
    ws.column_dimensions["A"].width = 44
    for j in range(2, 8):
        ws.column_dimensions[column_letters(j)].width = 16

    chart = ScatterChart()
    chart.title = heading
    chart.style = 2
    chart.height, chart.width = 13, 30
    for axis, name in ((chart.x_axis, "arithmetic intensity [FLOP/byte]"),
                       (chart.y_axis, "attained FLOP/s per chip")):
        axis.title = name
        axis.scaling.logBase = 10
        axis.delete = False
        axis.number_format = "0E+0"
        axis.majorTickMark = "out"
    chart.x_axis.scaling.min = x_range[0]
    chart.x_axis.scaling.max = x_range[1]
    chart.legend.position = "r"
    sheet = f"'{title}'"
    for k, r in enumerate(range(first, last + 1)):
        xs = Reference(ws, min_col=2, max_col=4, min_row=r, max_row=r)
        ys = Reference(ws, min_col=5, max_col=7, min_row=r, max_row=r)
        ser = Series(ys, xs)
        ser.tx = SeriesLabel(strRef=StrRef(f"{sheet}!$A${r}"))
        ser.marker.symbol = "none"
        ser.smooth = False
        ser.graphicalProperties = GraphicalProperties(
            ln=LineProperties(solidFill=ROOF_COLOURS[k % len(ROOF_COLOURS)], w=28575))
        chart.series.append(ser)
    for k, r in enumerate(range(p_first, p_last + 1)):
        ser = Series(Reference(ws, min_col=3, min_row=r), Reference(ws, min_col=2, min_row=r))
        ser.tx = SeriesLabel(strRef=StrRef(f"{sheet}!$A${r}"))
        colour = POINT_COLOURS[k % len(POINT_COLOURS)]
        ser.marker.symbol = "circle"
        ser.marker.size = 8
        ser.marker.graphicalProperties = GraphicalProperties(solidFill=colour)
        ser.marker.graphicalProperties.line.solidFill = colour
        ser.graphicalProperties = GraphicalProperties(ln=LineProperties(noFill=True))
        ser.smooth = False
        chart.series.append(ser)
    ws.add_chart(chart, f"A{chart_row}")
    return s
