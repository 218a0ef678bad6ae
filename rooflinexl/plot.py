"""Roofline charts: each chip's roof per bandwidth tier, the ridge points, scenarios as points.

:func:`plot_roofline` draws with matplotlib (imported when called; no pyplot,
no global state) and writes PNG, SVG or PDF by the path's suffix. The roofs
and ridge points come from :func:`rooflinexl.api.roofline_flops` and
:func:`rooflinexl.api.crit_intensity`; a scenario is drawn at its arithmetic
intensity and its achieved FLOP/s per chip (the ``intensity`` and
``flops_per_s`` columns of :func:`rooflinexl.batch.evaluate`), so a
memory-bound matmul sits on the slanted roof and a network-bound one below it.
Used by ``rooflinexl plot`` and ``rooflinexl sweep --plot``.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from rooflinexl import api
from rooflinexl.chips import load_chips
from rooflinexl.dtypes import TIERS, resolve_dtype, resolve_tier
from rooflinexl.errors import MissingSpecError

__all__ = ["plot_roofline", "points_from_results"]

_LINESTYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)))
#: argument columns that may label a point (in this order)
_LABEL_ARGS = ("op", "B", "D", "F", "E", "k", "n_chips", "dtype", "weight_dtype", "shard", "tier",
               "flops", "bytes", "n_params")


def points_from_results(results, label=None):
    """Points (chip, intensity, flops_per_s, label) of the rows of a result table that have both.

    ``label`` names a column holding the labels; by default a ``label``,
    ``name`` or ``scenario`` column, else the argument columns that vary
    between rows (``B=256 dtype=int8``), else the row number.
    """
    import pandas as pd

    from rooflinexl.batch import ARGUMENTS, column_key

    df = results if isinstance(results, pd.DataFrame) else pd.DataFrame(results)
    if not {"intensity", "flops_per_s"} <= set(df.columns):
        raise ValueError("the results need intensity and flops_per_s columns "
                         "(the output of rooflinexl batch or sweep)")
    args = {ARGUMENTS.get(column_key(c)): c for c in df.columns}
    ok = np.isfinite(pd.to_numeric(df["intensity"], errors="coerce")) & np.isfinite(
        pd.to_numeric(df["flops_per_s"], errors="coerce"))
    df = df[ok.to_numpy()]
    chip = df[args["chip"]].astype(str) if "chip" in args else pd.Series("", index=df.index)
    if label is None:
        label = next((c for c in df.columns
                      if column_key(c) in ("label", "name", "scenario")), None)
    if label is not None:
        text = df[label].astype(str)
    else:
        varying = [args[a] for a in _LABEL_ARGS if a in args and df[args[a]].nunique() > 1]
        if varying:
            text = pd.Series("", index=df.index)
            for col in varying:
                text = text.str.cat(str(ARGUMENTS[column_key(col)]) + "=" + _short(df[col]),
                                    sep=" ")
            text = text.str.strip()
        else:
            text = pd.Series([str(i) for i in range(len(df))], index=df.index)
    return pd.DataFrame({"chip": chip.to_numpy(), "intensity": df["intensity"].to_numpy(float),
                         "flops_per_s": df["flops_per_s"].to_numpy(float),
                         "label": text.to_numpy()})


def _short(col):
    """Compact text of a column: 8192.0 -> 8192, 1e+12 stays."""
    import pandas as pd

    num = pd.to_numeric(col, errors="coerce")
    if num.notna().all():
        return num.map("{:g}".format)
    return col.astype(str)


def plot_roofline(chips, tiers=("hbm",), points=None, path="roofline.png", *, dtype="bf16",
                  table=None, title=None, max_labels=40):
    """Draw a roofline chart and write it to ``path`` (PNG, SVG or PDF by suffix).

    Parameters
    ----------
    chips : iterable of str
        Chips whose roofs to draw (names or aliases; one colour each).
    tiers : iterable of str
        Bandwidth tiers, one line style each: ``hbm``, ``vmem``, ``ici``,
        ``dcn``, ``pcie`` (and aliases). A tier a chip has no bandwidth for is
        left out and listed under the chart.
    points : DataFrame, mapping of columns or None
        Scenarios: columns ``intensity`` (FLOP/byte) and ``flops_per_s``
        (FLOP/s per chip), optional ``chip`` (colour) and ``label``. A result
        table of :func:`rooflinexl.batch.evaluate` is turned into points with
        :func:`points_from_results`.
    path : str or Path
        Output file.
    dtype : str
        Dtype of the peak (the flat part of each roof).
    table : chip table, optional
        Default the packaged one.
    title : str, optional
    max_labels : int
        Points are labelled when there are at most this many.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    UnknownChipError, KeywordError
        An unknown chip, tier or dtype.

    Examples
    --------
    >>> import tempfile, os
    >>> out = os.path.join(tempfile.mkdtemp(), "roof.png")
    >>> plot_roofline(["H100", "TPU v5e"], ["hbm", "ici"],
    ...               {"intensity": [100.0], "flops_per_s": [3.35e14], "label": ["B=100"]},
    ...               out).name
    'roof.png'
    """
    import pandas as pd
    from matplotlib.figure import Figure

    table = load_chips(table)
    dtype = resolve_dtype(dtype)
    names = [api.Chip(c, table).name for c in chips]
    tiers = [resolve_tier(t) for t in tiers]
    if points is not None and not isinstance(points, pd.DataFrame):
        points = pd.DataFrame(points)
    if points is not None and not set(points.columns) <= {"intensity", "flops_per_s", "chip",
                                                          "label"}:
        points = points_from_results(points)  # a result table of rooflinexl.batch

    roofs, skipped = [], []
    for name in names:
        for tier in tiers:
            try:
                ridge = api.crit_intensity(name, tier, dtype, chips=table)
                peak = api.roofline_flops(name, ridge, tier, dtype, chips=table)
            except MissingSpecError as exc:
                skipped.append(f"{name} {tier}: {exc}")
                continue
            roofs.append((name, tier, ridge, peak))

    xs = [r[2] for r in roofs]
    if points is not None and len(points):
        x = points["intensity"].to_numpy(float)
        xs += list(x[np.isfinite(x) & (x > 0)])
    lo = 10 ** math.floor(math.log10(min(xs) / 30)) if xs else 1e-1
    hi = 10 ** math.ceil(math.log10(max(xs) * 30)) if xs else 1e5
    grid = np.logspace(math.log10(lo), math.log10(hi), 256)

    fig = Figure(figsize=(9, 6), layout="constrained")
    ax = fig.add_subplot()
    colours = {n: f"C{i % 10}" for i, n in enumerate(names)}
    styles = {t: _LINESTYLES[i % len(_LINESTYLES)] for i, t in enumerate(tiers)}
    for name, tier, ridge, peak in roofs:
        y = api.roofline_flops(name, grid, tier, dtype, chips=table)
        ax.plot(grid, y, color=colours[name], linestyle=styles[tier], linewidth=1.6,
                label=f"{name} {tier} ({TIERS[tier]})")
        ax.plot([ridge], [peak], marker="o", markerfacecolor="white", color=colours[name])
        ax.annotate(f"{ridge:,.0f}", (ridge, peak), textcoords="offset points", xytext=(4, -12),
                    fontsize=7, color=colours[name])
    if points is not None and len(points):
        chip_col = points["chip"].astype(str) if "chip" in points else pd.Series(
            [""] * len(points))
        canon = {}
        for c in chip_col.unique():
            row = table.row_of(c)
            canon[c] = table.names[row] if row is not None else None
        colour = [colours.get(canon[c], "0.3") for c in chip_col]
        ax.scatter(points["intensity"], points["flops_per_s"], c=colour, marker="D", s=22,
                   zorder=3, edgecolors="black", linewidths=0.4, label="scenarios")
        if "label" in points and len(points) <= max_labels:
            for xi, yi, text in zip(points["intensity"], points["flops_per_s"],
                                    points["label"], strict=True):
                ax.annotate(str(text), (xi, yi), textcoords="offset points", xytext=(4, 4),
                            fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity (FLOP/byte)")
    ax.set_ylabel(f"FLOP/s per chip ({dtype} peak)")
    ax.set_title(title or f"Roofline, {dtype} ({', '.join(names)})")
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.1)
    if roofs or points is not None:
        ax.legend(fontsize=8, loc="lower right")
    if skipped:
        fig.text(0.01, 0.005, "not drawn: " + "; ".join(skipped), fontsize=7, color="0.4")
    path = Path(path)
    from rooflinexl.ooxml import atomic_write

    fmt = path.suffix.lstrip(".").lower() or None
    atomic_write(path, lambda fh: fig.savefig(fh, dpi=120, format=fmt))
    return path
