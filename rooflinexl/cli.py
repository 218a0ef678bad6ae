"""The ``rooflinexl`` command line: recalc (and --check), diff, build, chips, batch, sweep, plot.

Each subcommand is a thin adapter; the work lives in the library modules,
imported only when the subcommand runs (start-up stays fast).
"""
from __future__ import annotations

from pathlib import Path

import click

from rooflinexl._version import __version__
from rooflinexl.errors import failure_message


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
                             for i, (v, w) in enumerate(zip(r, widths, strict=True))))


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

    try:
        base = Limits.from_env()
    except ValueError as exc:
        fail(f"{exc}: set it to a number, or unset it for the default")
    changes = {}
    if max_file_mb:
        changes["max_file_bytes"] = _mib_bytes(max_file_mb)
    if max_uncompressed_mb:
        changes["max_uncompressed_bytes"] = _mib_bytes(max_uncompressed_mb)
    if max_ratio:
        changes["max_ratio"] = max_ratio
    if max_members:
        changes["max_members"] = max_members
    return dataclasses.replace(base, **changes)


def _mib_bytes(mb: float) -> int:
    """Bytes of a limit given in MB (MiB); ``inf`` means no limit."""
    return round(mb * 2**20) if mb < float("inf") else 2**63


def fail(message: str, code: int = 2):
    """One line on stderr, no traceback, then exit."""
    click.echo(f"rooflinexl: {message}", err=True)
    raise SystemExit(code)


_REPORT_FORMATS = ("text", "json", "junit", "markdown")  # rooflinexl.check.FORMATS
_REPORT_SUFFIXES = {".json": "json", ".xml": "junit", ".md": "markdown", ".markdown": "markdown",
                    ".txt": "text"}


def _expand_books(args) -> list[Path]:
    """BOOK arguments with globs expanded here (Windows shells do not); no match: exit 2."""
    import glob
    import re

    out: list[Path] = []
    for arg in args:
        if re.search(r"[*?\[]", arg) and not Path(arg).exists():
            matches = sorted(m for m in glob.glob(arg, recursive=True) if Path(m).is_file())
            if not matches:
                fail(f"{arg}: no file matches")
            out.extend(Path(m) for m in matches)
        else:
            out.append(Path(arg))
    seen: set[Path] = set()
    return [p for p in out if not (p in seen or seen.add(p))]


def _report_options(f):
    """--format and --report, shared by ``recalc --check`` and ``diff``."""
    for opt in reversed([
        click.option("--format", "fmt", type=click.Choice(_REPORT_FORMATS), default="text",
                     show_default=True,
                     help="Report format (stdout, or each --report FILE without its own)."),
        click.option("--report", "reports", multiple=True, metavar="[FORMAT:]FILE",
                     help="Also write the report to FILE (repeatable); its format from the "
                          "FORMAT: prefix, else the suffix (.xml junit, .json, .md), else "
                          "--format. stdout then gets the text report."),
        click.option("--rtol", type=click.FloatRange(min=0), default=1e-9, show_default=True,
                     help="Relative tolerance of numeric comparisons (text and errors: exact)."),
    ]):
        f = opt(f)
    return f


def _emit_report(report, fmt, reports, quiet) -> None:
    """Write each --report file, then print the report (text when files were written)."""
    for spec in reports:
        head, sep, rest = spec.partition(":")
        if sep and head in _REPORT_FORMATS:
            kind, path = head, Path(rest)
        else:
            path = Path(spec)
            kind = _REPORT_SUFFIXES.get(path.suffix.lower(), fmt)
        from rooflinexl.xlsxio import atomic_write

        text = report.render(kind).encode("utf-8")
        try:
            atomic_write(path, lambda fh, text=text: fh.write(text))
        except OSError as exc:
            fail(failure_message(exc, path, "write the report"))
    if quiet and report.exit_code == 0:
        return
    text = report.render("text" if reports else fmt)
    if text:
        click.echo(text.rstrip("\n"))
    for book in report.books:
        if book.unusable and (reports or fmt != "text"):
            click.echo(f"rooflinexl: {book.message}", err=True)


def _set_engine(ctx, value):
    """``recalc --engine``: the evaluation path for this command (``$ROOFLINEXL_RECALC_ENGINE``)."""
    if value is None:
        return
    import os

    before = os.environ.get("ROOFLINEXL_RECALC_ENGINE")
    os.environ["ROOFLINEXL_RECALC_ENGINE"] = value

    def restore():
        if before is None:
            os.environ.pop("ROOFLINEXL_RECALC_ENGINE", None)
        else:
            os.environ["ROOFLINEXL_RECALC_ENGINE"] = before

    ctx.call_on_close(restore)


@main.command()
@click.argument("books", nargs=-1, required=True, metavar="BOOK...")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the recalculated workbook (default BOOK.recalc.xlsx; "
                   "one BOOK only).")
@click.option("--in-place", is_flag=True, help="Overwrite each BOOK (atomically).")
@click.option("-q", "--quiet", is_flag=True,
              help="Print errors only (with --check: nothing when every book passes).")
@click.option("--check", is_flag=True,
              help="Write nothing: recalculate and compare with the values cached in each BOOK.")
@click.option("--fail-on", type=click.Choice(["errors", "stale", "both"]), default="both",
              show_default=True, help="With --check: what fails, error cells, stale cells or both.")
@_report_options
@_limits_options
@click.option("--engine", type=click.Choice(["auto", "blocks", "cells"]), default=None,
              expose_value=False, callback=lambda ctx, _p, v: _set_engine(ctx, v),
              help="auto/blocks: filled-down formulas as numpy blocks, the rest per cell "
                   "(default); cells: everything per cell (formulas library, for debugging). "
                   "Also $ROOFLINEXL_RECALC_ENGINE.")
@click.pass_context
def recalc(ctx, books, output, in_place, quiet, check, fail_on, fmt, reports, rtol, **limits):
    """Recalculate each BOOK headless and store every formula's value as its cached value.

    BOOK may be a glob (quoted: expanded here). With --check nothing is
    written: each formula's recalculated value is compared with the value
    cached in the file and every stale or error cell is reported, labelled,
    with its old and new value (--format text|json|junit|markdown).

    Exit status: 0 clean (--check: every cached value up to date), 1 a formula
    errors or a function is unknown (--check: or a value is stale; see
    --fail-on), 2 unusable input (missing, not a workbook, encrypted, over a
    limit; a glob that matches nothing).
    """
    from click.core import ParameterSource

    paths = _expand_books(books)
    if check:
        if output or in_place:
            fail("--check writes nothing: drop --output/--in-place")
        from rooflinexl.check import check_books

        report = check_books(paths, rtol=rtol, fail_on=fail_on, limits=make_limits(**limits))
        _emit_report(report, fmt, reports, quiet)
        raise SystemExit(report.exit_code)
    for name in ("fmt", "reports", "fail_on", "rtol"):
        if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE:
            opt = {"fmt": "--format", "fail_on": "--fail-on"}.get(name, "--" + name.rstrip("s"))
            fail(f"{opt} needs --check")
    if in_place and output:
        fail("give either --output or --in-place, not both")
    if output and len(paths) > 1:
        fail("--output takes one BOOK; use --in-place or no --output for several")
    code = 0
    for book in paths:
        code = max(code, _recalc_one(book, output, in_place, quiet, make_limits(**limits),
                                     many=len(paths) > 1))
    raise SystemExit(code)


def _recalc_one(book: Path, output, in_place, quiet, limits, *, many: bool) -> int:
    """Recalculate and write one workbook; its exit status (2: unusable, message printed)."""
    from rooflinexl.recalc.book import recalc_book

    dst = book if in_place else (output or book.with_name(f"{book.stem}.recalc{book.suffix}"))
    try:
        result = recalc_book(book, dst, limits=limits)
    except Exception as exc:  # never a traceback for a user's file
        message = failure_message(exc, book)  # one line, whatever the exception said
    else:
        message = None
    if message is not None:
        if not many:
            fail(message)
        click.echo(f"rooflinexl: {message}", err=True)
        return 2
    text = result.report()
    if quiet:
        text = "\n".join(line for line in text.splitlines() if line.startswith(("  ", "Errors",
                                                                                "Unknown")))
        text = (f"{book}:\n{text}" if many else text) if result.exit_code else ""
    if text:
        click.echo(text)
    return result.exit_code


@main.command()
@click.argument("old", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("new", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--recalc", "recompute", is_flag=True,
              help="Recalculate both books first: compare computed results, not cached ones.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing when the books match.")
@_report_options
@_limits_options
def diff(old, new, recompute, quiet, fmt, reports, rtol, **limits):
    """Report every cell that differs between two versions of a workbook.

    Inputs (constants) and formula results (cached values, or recomputed ones
    with --recalc) are compared cell by cell over both books; each added,
    removed or changed cell is listed with its label, old and new value and
    relative change, and each sheet is summarised ("6 cells on Cost moved,
    median -8.0 %").

    Exit status: 0 no difference, 1 cells differ, 2 unusable input.
    """
    from rooflinexl.check import diff_report

    report = diff_report(old, new, rtol=rtol, recalc=recompute, limits=make_limits(**limits))
    _emit_report(report, fmt, reports, quiet)
    raise SystemExit(report.exit_code)


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


# ------------------------------------------------------- batch, sweep, plot (issue #5)
#: rows per chunk when evaluating a big table with a progress bar
_CHUNK_ROWS = 1 << 18
_PROGRESS_ROWS = 1_000_000


def _table_failure(exc, path, doing: str) -> str:
    """One line for a failed batch/sweep: a table the reader rejects (ValueError) says why."""
    from rooflinexl.errors import RooflineError

    if isinstance(exc, ValueError) and not isinstance(exc, RooflineError):
        return " ".join(f"{path}: cannot {doing}: {exc}".split())
    return failure_message(exc, path, doing)


def _pass_through_option(f):
    return click.option(
        "--pass-through", "pass_through", multiple=True, metavar="COLUMN",
        callback=lambda _c, _p, v: True if "*" in v else tuple(
            c.strip() for item in v for c in item.split(",") if c.strip()),
        help="A column that is no argument, to carry through to the output (repeatable, or "
             "comma-separated; '*': every such column). Without it such a column is an "
             "error, so that a misspelt argument (n_chip) is never silently ignored.")(f)


def _formula_guard_option(f):
    return click.option(
        "--formula-guard/--no-formula-guard", default=True, show_default=True,
        help="CSV output: prefix text cells that start with = + - @ tab or CR with ' so "
             "that a spreadsheet runs no formula from the data (OWASP CSV injection). "
             "xlsx output always stores text as text.")(f)


def _chips_option(f):
    return click.option("--chips", "chips_path", type=click.Path(exists=True, dir_okay=False),
                        help="Chip table CSV (default: the packaged one).")(f)


def _report(result, output, strict):
    """Summary and the first errors on stderr; exit 1 under --strict when a row failed."""
    errors = result["error"].dropna()
    click.echo(f"{len(result):,} scenarios, {len(errors):,} with an error -> {output}", err=True)
    for pos, msg in list(errors.items())[:10]:
        click.echo(f"  row {pos}: {msg}", err=True)
    if len(errors) > 10:
        click.echo(f"  ... {len(errors) - 10:,} more", err=True)
    if strict and len(errors):
        raise SystemExit(1)


@main.command("batch")
@click.argument("scenarios", type=click.Path(exists=True, dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="OUT.csv, OUT.xlsx or OUT.parquet; '-' writes CSV to stdout.")
@click.option("--sheet", default=None, help="Sheet of an xlsx input (default: the first).")
@click.option("--strict", is_flag=True, help="Exit 1 when any row has an error.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar (default: on above a million rows).")
@_pass_through_option
@_formula_guard_option
@_chips_option
def batch(scenarios, output, sheet, strict, progress, pass_through, formula_guard, chips_path):
    """Evaluate a table of scenarios (CSV, xlsx or parquet), one per row.

    Columns named as the functions' arguments (chip, op, B, D, F, E, k,
    n_chips, dtype, weight_dtype, shard, tier, flops, bytes, ...; any case)
    are read; any other column is an error naming the nearest argument unless
    declared with --pass-through (label, name, scenario always pass); the
    results are appended:
    t_math, t_hbm, t_comms, time, upper, bound, intensity, crit_batch, ...
    and error (the reason a row could not be computed; the others still are).
    Without an op column, B, D, F columns mean op=matmul. See docs/batch.md.

    \b
    rooflinexl batch scenarios.csv -o results.xlsx
    """
    from rooflinexl import batch as batch_mod
    from rooflinexl.errors import RooflineError

    try:
        frame = batch_mod.read_table(scenarios, sheet=sheet)
        show = len(frame) > _PROGRESS_ROWS if progress is None else progress
        result = batch_mod.evaluate(frame, chips_path, chunk_rows=_CHUNK_ROWS if show else None,
                                    progress=show, passthrough=pass_through)
        batch_mod.write_table(result, output, formula_guard=formula_guard, like=scenarios)
    except (RooflineError, OSError, ValueError, MemoryError) as exc:
        raise click.ClickException(_table_failure(exc, scenarios, "evaluate")) from None
    _report(result, output, strict)


@main.command("sweep")
@click.argument("params", nargs=-1, required=True, metavar="NAME=VALUES...")
@click.option("-o", "--output", default="-", show_default=True,
              type=click.Path(dir_okay=False, allow_dash=True),
              help="OUT.csv, OUT.xlsx or OUT.parquet; '-' writes CSV to stdout.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False),
              help="Also draw the results on a roofline chart (PNG, SVG or PDF).")
@click.option("--tier", "tiers", multiple=True, default=("hbm",), show_default=True,
              help="Roof(s) to draw with --plot; repeat for several.")
@click.option("--strict", is_flag=True, help="Exit 1 when any row has an error.")
@_formula_guard_option
@_chips_option
def sweep(params, output, plot_path, tiers, strict, formula_guard, chips_path):
    """Evaluate every combination of parameter values (a cartesian product).

    Each NAME=VALUES gives one argument: comma-separated values,
    START:STOP:*FACTOR (geometric) or START:STOP:STEP (arithmetic), both
    inclusive. The first parameter varies slowest.

    \b
    rooflinexl sweep chip="H100,TPU v5e" B=16:4096:*4 D=8192 F=8192 \\
        -o sweep.csv --plot sweep.png
    rooflinexl sweep op=moe chip="TPU v5e" E=64,256 k=2,8 weight_dtype=int8
    """
    from rooflinexl import batch as batch_mod
    from rooflinexl.errors import RooflineError

    lists = {}
    for item in params:
        name, eq, values = item.partition("=")
        if not eq or not name.strip():
            raise click.BadParameter(f"{item!r}: write NAME=VALUES, e.g. B=1,8,64",
                                     param_hint="NAME=VALUES")
        try:
            lists[name.strip()] = batch_mod.parse_values(values)
        except RooflineError as exc:
            raise click.BadParameter(str(exc), param_hint="NAME=VALUES") from None
        if not lists[name.strip()]:
            raise click.BadParameter(f"{item!r}: no values", param_hint="NAME=VALUES")
    try:
        result = batch_mod.sweep(chips_path, **lists)
        batch_mod.write_table(result, output, formula_guard=formula_guard)
        if plot_path:
            _plot_results(result, plot_path, tiers, None, chips_path, None)
    except (RooflineError, OSError, ValueError, MemoryError) as exc:
        raise click.ClickException(_table_failure(exc, output, "write")) from None
    _report(result, output, strict)


def _plot_results(result, path, tiers, chip_names, chips_path, dtype, title=None):
    """Roofline chart of a result table: its chips (or ``chip_names``) and its points."""
    from rooflinexl.batch import ARGUMENTS, _colkey
    from rooflinexl.chips import load_chips
    from rooflinexl.plot import plot_roofline, points_from_results

    table = load_chips(chips_path)
    cols = {ARGUMENTS.get(_colkey(c)): c for c in result.columns} if result is not None else {}
    if not chip_names and "chip" in cols:
        known = [table.row_of(c) for c in result[cols["chip"]].dropna().unique().tolist()]
        chip_names = [table.names[j] for j in sorted({j for j in known if j is not None})]
    if not chip_names:
        raise click.UsageError("no chips to draw: give --chip or results with a chip column")
    if dtype is None and "dtype" in cols:
        used = result[cols["dtype"]].dropna().unique().tolist()
        dtype = used[0] if len(used) == 1 else None
    points = points_from_results(result) if result is not None else None
    out = plot_roofline(chip_names, tiers, points, path, dtype=dtype or "bf16", table=table,
                        title=title)
    click.echo(f"roofline chart -> {out}", err=True)


@main.command("plot")
@click.argument("results", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="Chart file: .png, .svg or .pdf.")
@click.option("--chip", "chip_names", multiple=True,
              help="Chip whose roofs to draw; repeat (default: the chips in RESULTS).")
@click.option("--tier", "tiers", multiple=True, default=("hbm",), show_default=True,
              help="Bandwidth tier of a roof; repeat (hbm, vmem, ici, dcn, pcie).")
@click.option("--dtype", default=None, help="Dtype of the peak (default: the results' one "
                                            "dtype, else bf16).")
@click.option("--title", default=None, help="Chart title.")
@_pass_through_option
@_chips_option
def plot(results, output, chip_names, tiers, dtype, title, pass_through, chips_path):
    """Draw a roofline chart: each chip's roof per tier, ridge points, scenarios as points.

    RESULTS is a table from `rooflinexl batch` or `sweep` (CSV, xlsx,
    parquet), or a scenario table, evaluated first. Without RESULTS only the
    roofs of the --chip chips are drawn.

    \b
    rooflinexl plot results.csv -o roofline.png --tier hbm --tier ici
    rooflinexl plot --chip H100 --chip "TPU v5p" --tier hbm --tier dcn -o roofs.svg
    """
    from rooflinexl import batch as batch_mod
    from rooflinexl.errors import RooflineError

    try:
        frame = None
        if results is not None:
            frame = batch_mod.read_table(results)
            if not {"intensity", "flops_per_s"} <= set(frame.columns):
                frame = batch_mod.evaluate(frame, chips_path, passthrough=pass_through)
        _plot_results(frame, output, tiers, list(chip_names), chips_path, dtype, title)
    except (RooflineError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None


if __name__ == "__main__":  # pragma: no cover
    main()
