"""The ``rooflinexl`` command line: recalc (--check), diff, build, chips, models, batch, sweep,
plot.

Each subcommand is a thin adapter; the work lives in the library modules,
imported only when the subcommand runs (start-up stays fast).
"""
from __future__ import annotations

from pathlib import Path

import click

from rooflinexl.errors import failure_message
from rooflinexl.version import VERSION


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(VERSION, prog_name="rooflinexl")
def main():
    """Roofline planning for spreadsheets: chip specs, Excel functions, headless recalculation."""


#: columns ``rooflinexl chips`` shows by default (``--columns all`` for every one)
CHIP_COLUMNS = ("chip", "bf16_flops", "fp8_flops", "hbm_bytes", "hbm_bw", "ici_bw",
                "ici_egress_bw", "scaleup_size", "dcn_bw", "tdp_w", "release", "price_per_hour")


@main.command()
@click.option("--columns", "columns", default=None, metavar="COL,COL,...",
              help="Comma-separated columns to show (chip is always first), or 'all'. "
                   "Default: " + ",".join(CHIP_COLUMNS) + ".")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
              show_default=True, help="table (aligned text), csv, or json (a list of objects).")
@click.option("--csv", "as_csv", is_flag=True, help="Same as --format csv --columns all.")
@click.option("--chips", "chips_path", type=click.Path(exists=True, dir_okay=False),
              default=None, help="A chip table CSV instead of the packaged one.")
def chips(columns, fmt, as_csv, chips_path):
    """List the chip table: dense peaks, bytes, one-direction link bandwidths, SI units.

    Headers carry the SI unit (hbm_bw [B/s]); csv and json print full-precision numbers,
    blanks empty (csv) or null (json).
    """
    import csv
    import json
    import sys

    from rooflinexl.chips import COLUMNS, UNITS, load_chips

    table = load_chips(chips_path)
    if as_csv:
        fmt, columns = "csv", columns or "all"
    if columns is None:
        cols = [c for c in CHIP_COLUMNS if table.has(c)]
    elif columns.strip().casefold() == "all":
        cols = [c for c in COLUMNS if table.has(c)]
    else:
        want = [c.strip().casefold() for c in columns.split(",") if c.strip()]
        bad = [c for c in want if not table.has(c)]
        if bad:
            raise click.UsageError(f"--columns: {', '.join(map(repr, bad))} not a column of the "
                                   f"chip table ({', '.join(table.columns)})")
        cols = ["chip"] + [c for c in want if c != "chip"]
    rows = table.to_rows(cols)
    head = [f"{c} [{UNITS[c]}]" if c in UNITS else c for c in cols]
    if fmt == "csv":
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(head)
        w.writerows(["" if v is None else v for v in r] for r in rows[1:])
    elif fmt == "json":
        click.echo(json.dumps([dict(zip(head, r, strict=True)) for r in rows[1:]], indent=1,
                              ensure_ascii=False))
    else:
        rows = [head] + rows[1:]
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

    from rooflinexl.ooxml import Limits

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


def progress_bar(quiet: bool, **kwargs):
    """A tqdm bar on stderr when stderr is a terminal and not ``quiet``; else ``None``.

    Progress goes to stderr only, so what a command prints on stdout or writes
    (reports, tables) is the same with and without it.
    """
    import sys

    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(file=sys.stderr, leave=False, **kwargs)


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
        from rooflinexl.ooxml import atomic_write

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
              help="Print errors only (with --check: nothing when every book passes); no "
                   "progress bar (shown on stderr when it is a terminal).")
@click.option("--check", is_flag=True,
              help="Write nothing: recalculate and compare with the values cached in each BOOK.")
@click.option("--fail-on", type=click.Choice(["errors", "stale", "both"]), default="both",
              show_default=True, help="With --check: what fails, error cells, stale cells or both.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="With --check: check the books in N processes (the report keeps their order).")
@_report_options
@_limits_options
@click.option("--engine", type=click.Choice(["auto", "blocks", "cells", "libreoffice"]),
              default=None, expose_value=False, callback=lambda ctx, _p, v: _set_engine(ctx, v),
              help="auto: filled-down formulas as numpy blocks, a formula the engine does "
                   "not support an error value naming why (default); blocks: the same, but such "
                   "a formula fails the command; cells: every formula as a block of one row "
                   "(for debugging); libreoffice: headless LibreOffice with the rooflinexl "
                   "add-in (a second, independent engine). Also $ROOFLINEXL_RECALC_ENGINE.")
@click.pass_context
def recalc(ctx, books, output, in_place, quiet, check, fail_on, jobs, fmt, reports, rtol,
           **limits):
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

        bar = progress_bar(quiet, total=len(paths), unit="book", desc="checking")
        try:
            report = check_books(paths, rtol=rtol, fail_on=fail_on, jobs=jobs,
                                 limits=make_limits(**limits),
                                 progress=None if bar is None else lambda _book: bar.update(1))
        finally:
            if bar is not None:
                bar.close()
        _emit_report(report, fmt, reports, quiet)
        raise SystemExit(report.exit_code)
    for name in ("fmt", "reports", "fail_on", "rtol", "jobs"):
        if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE:
            opt = {"fmt": "--format", "fail_on": "--fail-on", "jobs": "--jobs",
                   "reports": "--report"}.get(name, "--" + name)
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
    bar = progress_bar(quiet, total=3, desc=book.name, bar_format="{desc}: {n}/{total} phases "
                       "|{bar}| {elapsed}")

    def phase(name: str) -> None:
        if bar is not None:
            bar.n += name != "checking"  # checking 0/3, evaluating 1/3, writing 2/3
            bar.set_description_str(f"{book.name}: {name}")  # redraws at once

    try:
        result = recalc_book(book, dst, limits=limits, phase=phase)
    except Exception as exc:  # never a traceback for a user's file
        message = failure_message(exc, book)  # one line, whatever the exception said
    else:
        message = None
    if bar is not None:
        bar.close()  # before anything is printed (leave=False: the bar line is cleared)
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
    """Generate workbooks/Roofline.xlsx, templates/*.xlsx and the LibreOffice add-in's type
    library rooflinexl/libreoffice/rooflinexl.rdb from code (ONLY: some of them).

    Each workbook is also written to a lite/ folder beside it, spelt for xlwings Server and Lite.
    """
    from rooflinexl.workbooks import build_all

    for rel, result in build_all(root, recalc=not no_recalc, only=list(only) or None).items():
        status = "" if result is None else f" ({len(result.evaluation.cells)} formulas, " \
            f"{len(result.errors)} errors)"
        click.echo(f"built {root / rel}{status} and its lite/ copy")
        if result is not None and result.exit_code:
            click.echo(result.report(), err=True)
            raise SystemExit(1)
    rdb = root / "rooflinexl" / "libreoffice" / "rooflinexl.rdb"
    if (not only or rdb.name in only) and rdb.parent.is_dir():
        from rooflinexl.libreoffice import build_rdb

        how = build_rdb(rdb)
        click.echo(f"built {rdb} (" + {
            "written": "regenerated", "unchanged": "unchanged",
            "kept": "kept the committed file: no unoidl-write (LibreOffice SDK, "
                    "libreoffice-dev) here"}[how] + ")")


@main.group("libreoffice")
def libreoffice_group():
    """The rooflinexl functions in LibreOffice Calc: install or remove the add-in.

    The add-in runs in LibreOffice's own Python (python3-uno), which must be the
    Python minor version of this environment; it imports rooflinexl and numpy
    from here, so reinstall it after moving or recreating the environment.
    Close LibreOffice first. See docs/excel.md, "LibreOffice Calc".
    """


def _shared_option(f):
    return click.option("--shared", is_flag=True,
                        help="For every user of this machine (needs root; unopkg refuses a "
                             "per-user install as root).")(f)


@libreoffice_group.command("install")
@_shared_option
@click.option("--oxt", type=click.Path(dir_okay=False, path_type=Path),
              help="Also keep the extension file here.")
def libreoffice_install(shared, oxt):
    """Install the Calc add-in for this user (unopkg add)."""
    from rooflinexl.errors import RooflineError
    from rooflinexl.libreoffice import install

    try:
        install(shared=shared, keep=oxt)
    except RooflineError as exc:
        fail(str(exc))
    click.echo("rooflinexl add-in installed: restart LibreOffice, then "
               '=CRIT_BATCH(Chips;"H100";8192;8192) gives 318.16')


@libreoffice_group.command("uninstall")
@_shared_option
def libreoffice_uninstall(shared):
    """Remove the Calc add-in (unopkg remove)."""
    from rooflinexl.errors import RooflineError
    from rooflinexl.libreoffice import uninstall

    try:
        uninstall(shared=shared)
    except RooflineError as exc:
        fail(str(exc))
    click.echo("rooflinexl add-in removed")


@main.command()
@click.argument("book", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--host", required=True, type=click.Choice(["classic", "server", "lite"]),
              help="classic: CRIT_BATCH(…) for classic xlwings; server, lite: ROOFLINE.CRIT_BATCH"
                   "(…) for xlwings Server and Lite.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write (default: BOOK itself, atomically).")
@_limits_options
def convert(book, host, output, **limits):
    """Respell BOOK's calls of rooflinexl functions for an Excel host (docs/excel.md).

    Only the names of rooflinexl's functions change: strings, sheet names,
    other functions and the cached values stay as they were.
    """
    from rooflinexl.errors import RooflineError
    from rooflinexl.hosts import convert_workbook

    dst = output or book
    try:
        n = convert_workbook(book, dst, host, limits=make_limits(**limits))
    except (RooflineError, OSError) as exc:
        fail(" ".join(str(exc).split()))
    click.echo(f"{n} formulas respelt for {host} -> {dst}")


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


# ------------------------------------------------------- batch, sweep, plot (issue #5)
#: rows per chunk when evaluating a table with a progress bar
_CHUNK_ROWS = 1 << 18


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


def _models_option(f):
    return click.option("--models", "models_path",
                        type=click.Path(exists=True, dir_okay=False),
                        help="Model table CSV for decode/prefill/train rows (default: the "
                             "packaged one).")(f)


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
              help="Progress bar over the rows on stderr (default: when stderr is a terminal).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@_pass_through_option
@_formula_guard_option
@_chips_option
@_models_option
def batch(scenarios, output, sheet, strict, progress, quiet, pass_through, formula_guard,
          chips_path, models_path):
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
        import sys

        show = (not quiet and sys.stderr.isatty()) if progress is None else progress
        result = batch_mod.evaluate(frame, chips_path, models=models_path,
                                    chunk_rows=_CHUNK_ROWS if show else None, progress=show,
                                    passthrough=pass_through)
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
@_models_option
def sweep(params, output, plot_path, tiers, strict, formula_guard, chips_path, models_path):
    """Evaluate every combination of parameter values (a cartesian product).

    Each NAME=VALUES gives one argument: comma-separated values,
    START:STOP:*FACTOR (geometric) or START:STOP:STEP (arithmetic), both
    inclusive. The first parameter varies slowest.

    \b
    rooflinexl sweep chip="H100,TPU v5e" B=16:4096:*4 D=8192 F=8192 \\
        -o sweep.csv --plot sweep.png
    rooflinexl sweep op=moe chip="TPU v5e" E=64,256 k=2,8 weight_dtype=int8
    rooflinexl sweep op=decode chip=H200 model=DeepSeek-V3 context=4096 batch=1:512:*2 \\
        n_chips=8 dtype=fp8 kv_dtype=bf16
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
        result = batch_mod.sweep(chips_path, models=models_path, **lists)
        batch_mod.write_table(result, output, formula_guard=formula_guard)
        if plot_path:
            _plot_results(result, plot_path, tiers, None, chips_path, None)
    except (RooflineError, OSError, ValueError, MemoryError) as exc:
        raise click.ClickException(_table_failure(exc, output, "write")) from None
    _report(result, output, strict)


def _plot_results(result, path, tiers, chip_names, chips_path, dtype, title=None):
    """Roofline chart of a result table: its chips (or ``chip_names``) and its points."""
    from rooflinexl.batch import ARGUMENTS, column_key
    from rooflinexl.chips import load_chips
    from rooflinexl.plot import plot_roofline, points_from_results

    table = load_chips(chips_path)
    cols = {ARGUMENTS.get(column_key(c)): c for c in result.columns} if result is not None else {}
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


@main.command()
@click.option("--csv", "as_csv", is_flag=True, help="Print the table as CSV.")
def models(as_csv):
    """List the packaged model table (shapes from each model's published config.json)."""
    import csv
    import sys

    from rooflinexl.api import model_spec
    from rooflinexl.models import load_models

    table = load_models()
    if as_csv:
        csv.writer(sys.stdout).writerows(table.to_rows())
        return
    cols = ["model", "params", "layers", "d_model", "kv_heads", "head_dim", "experts",
            "active_experts", "expert_params"]
    rows = table.to_rows(cols)
    rows[0].append("active_params")
    for r in rows[1:]:
        r.append(model_spec(r[0], "active_params", models=table))
    widths = [max(len(_fmt(r[i])) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        click.echo("  ".join(_fmt(v).rjust(w) if i else _fmt(v).ljust(w)
                             for i, (v, w) in enumerate(zip(r, widths, strict=True))))


if __name__ == "__main__":  # pragma: no cover
    main()
