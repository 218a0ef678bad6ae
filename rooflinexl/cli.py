"""The ``rooflinexl`` command line: recalc, build, chips, batch, sweep, plot.

Each subcommand is a thin adapter; the work lives in the library modules,
imported only when the subcommand runs (start-up stays fast).
"""
from __future__ import annotations

from pathlib import Path

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


def _limits_options(f):
    """Package limits shared by the commands that read workbooks (zip-bomb protection)."""
    for opt in reversed([
        click.option("--max-file-mb", type=float, default=None,
                     help="Refuse workbooks larger than this (default 200 MB)."),
        click.option("--max-uncompressed-mb", type=float, default=None,
                     help="Refuse packages that unpack to more than this (default 1024 MB)."),
        click.option("--max-ratio", type=float, default=None,
                     help="Refuse zip members compressed more than this ratio (default 200)."),
        click.option("--max-members", type=int, default=None,
                     help="Refuse packages with more members than this (default 10000)."),
    ]):
        f = opt(f)
    return f


def make_limits(max_file_mb=None, max_uncompressed_mb=None, max_ratio=None, max_members=None):
    """Limits from the options, else the ``ROOFLINEXL_MAX_*`` environment, else the defaults."""
    import dataclasses

    from rooflinexl.xlsxio import Limits

    base = Limits.from_env()
    changes = {}
    if max_file_mb:
        changes["max_file_bytes"] = int(max_file_mb * 2**20)
    if max_uncompressed_mb:
        changes["max_uncompressed_bytes"] = int(max_uncompressed_mb * 2**20)
    if max_ratio:
        changes["max_ratio"] = max_ratio
    if max_members:
        changes["max_members"] = max_members
    return dataclasses.replace(base, **changes)


def fail(message: str, code: int = 2):
    """One line on stderr, no traceback, then exit."""
    click.echo(f"rooflinexl: {message}", err=True)
    raise SystemExit(code)


@main.command()
@click.argument("book", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the recalculated workbook (default BOOK.recalc.xlsx).")
@click.option("--in-place", is_flag=True, help="Overwrite BOOK (atomically).")
@click.option("-q", "--quiet", is_flag=True, help="Print errors only.")
@_limits_options
def recalc(book, output, in_place, quiet, **limits):
    """Recalculate BOOK headless and store every formula's value as its cached value.

    Exit status: 0 clean, 1 a formula errors or a function is unknown,
    2 unusable input (missing, not a workbook, encrypted, over a limit).
    """
    from rooflinexl.errors import RooflineError
    from rooflinexl.recalc.book import recalc_book

    if in_place and output:
        fail("give either --output or --in-place, not both")
    dst = book if in_place else (output or book.with_name(f"{book.stem}.recalc{book.suffix}"))
    try:
        result = recalc_book(book, dst, limits=make_limits(**limits))
    except RooflineError as exc:
        fail(str(exc))
    except Exception as exc:  # never a traceback for a user's file
        fail(f"cannot recalculate {book}: {type(exc).__name__}: {exc}")
    text = result.report()
    if quiet:
        text = "\n".join(line for line in text.splitlines() if line.startswith(("  ", "Errors",
                                                                                "Unknown")))
        text = text if result.exit_code else ""
    if text:
        click.echo(text)
    raise SystemExit(result.exit_code)


@main.command()
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="Repository root to write workbooks/ and templates/ under.")
@click.option("--no-recalc", is_flag=True, help="Skip stamping cached values.")
@click.argument("only", nargs=-1)
def build(root, no_recalc, only):
    """Generate workbooks/Roofline.xlsx and templates/*.xlsx from code (ONLY: some of them)."""
    from rooflinexl.workbooks import build_all

    for rel, result in build_all(root, recalc=not no_recalc, only=list(only) or None).items():
        status = "" if result is None else f" ({len(result.evaluation.cells)} formulas, " \
            f"{len(result.errors)} errors)"
        click.echo(f"built {root / rel}{status}")
        if result is not None and result.exit_code:
            click.echo(result.report(), err=True)
            raise SystemExit(1)


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


if __name__ == "__main__":  # pragma: no cover
    main()
