"""The ``rooflinexl`` command line: recalc, build, chips, batch, sweep, plot.

Each subcommand is a thin adapter; the work lives in the library modules,
imported only when the subcommand runs (start-up stays fast).
"""
from __future__ import annotations

import click

from rooflinexl._version import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rooflinexl")
def main():
    """Roofline planning for spreadsheets: chip specs, Excel functions, headless recalculation."""


@main.command()
@click.option("--csv", "as_csv", is_flag=True, help="Print the table as CSV.")
def chips(as_csv):
    """List the packaged chip table (dense peaks, one-direction link bandwidths)."""
    from rooflinexl.chips import load_chips

    table = load_chips()
    if as_csv:
        import csv
        import sys

        csv.writer(sys.stdout).writerows(table.to_rows())
        return
    cols = ["chip", "bf16_flops", "hbm_bw", "ici_bw", "dcn_bw", "price_per_hour"]
    rows = table.to_rows(cols)
    widths = [max(len(_fmt(r[i])) for r in rows) for i in range(len(cols))]
    for r in rows:
        click.echo("  ".join(_fmt(v).rjust(w) if i else _fmt(v).ljust(w)
                             for i, (v, w) in enumerate(zip(r, widths))))


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


if __name__ == "__main__":  # pragma: no cover
    main()
