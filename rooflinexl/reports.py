"""Rendering a check or diff :class:`~rooflinexl.check.Report`: text, JUnit XML, Markdown.

The JSON form is :meth:`rooflinexl.check.Report.to_dict` (its layout:
``docs/schemas/report.schema.json``); these renderers only present what
:mod:`rooflinexl.check` found.
"""
from __future__ import annotations

import datetime as _dt
import re
import socket
import statistics
from pathlib import Path
from typing import TYPE_CHECKING

from rooflinexl.cellvalues import format_change, format_pair, plural

if TYPE_CHECKING:
    from rooflinexl.check import CellChange, Report

__all__ = ["render_junit", "render_markdown", "render_text"]


def _cell_line(c: CellChange, mode: str) -> str:
    a, b = format_pair(c.old, c.new)
    if mode == "diff":
        tag = "input " if c.input else "result"
        line = f"{c.address:<22} {tag} {c.label:<44} {a} -> {b}"
        if c.old_formula:
            line += f"   formula {c.old_formula} -> {c.formula}"
    elif c.status == "error":
        line = f"{c.address:<22} {c.label:<44} " + (f"{a} -> {b}" if c.stale else b)
        if c.reason:
            line += f"   ({c.reason})"
    else:
        line = f"{c.address:<22} {c.label:<44} {a} -> {b}"
    change = format_change(c.rel_change)
    return f"  {line}   {change}".rstrip() if change else f"  {line}".rstrip()


def render_text(report: Report, *, max_cells: int = 500) -> str:
    """Plain text for a terminal or a CI log."""
    lines = []
    for book in report.books:
        lines.append(book.headline(report.fail_on))
        if book.unusable or book.uncached:
            continue
        for s in book.sheet_summaries():
            lines.append(f"  {s.text}")
        for c in book.cells[:max_cells]:
            lines.append(_cell_line(c, report.mode))
        if len(book.cells) > max_cells:
            lines.append(f"  ... and {len(book.cells) - max_cells} more (use --format json)")
    if len(report.books) > 1:
        lines.append(_overall(report))
    return "\n".join(lines)


def _overall(report: Report) -> str:
    n = len(report.books)
    failed = sum(b.status(report.fail_on) == "fail" for b in report.books)
    bad = sum(b.unusable for b in report.books)
    word = "differ" if report.mode == "diff" else "fail"
    text = f"{plural(n, 'workbook')}: {failed} {word}"
    return text + (f", {bad} unusable" if bad else "")


_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(s: str) -> str:
    return _XML_BAD.sub("\ufffd", s)


def render_junit(report: Report) -> str:
    """JUnit XML: one testsuite per workbook, one testcase per sheet.

    A sheet's testcase fails (``<failure type="stale">`` and/or
    ``<failure type="formula-error">``; in a diff ``type="changed"``) with one
    line per cell; cells that do not fail under ``fail_on`` go to its
    ``<system-out>``. An unusable workbook is a testcase ``open`` with an
    ``<error type="unusable">``. Valid against docs/schemas/junit.xsd.
    """
    import xml.etree.ElementTree as ET

    stamp = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
    host = socket.gethostname() or "localhost"
    root = ET.Element("testsuites", name=f"rooflinexl {report.mode}")
    tot = {"tests": 0, "failures": 0, "errors": 0, "time": 0.0}
    for book in report.books:
        suite = ET.SubElement(root, "testsuite", name=book.name)
        props = ET.SubElement(suite, "properties")
        for k, v in (("mode", report.mode), ("rtol", repr(report.rtol)),
                     ("fail_on", report.fail_on), ("path", book.path)) + \
                ((("old_path", book.old_path),) if book.old_path else ()):
            ET.SubElement(props, "property", name=k, value=_xml_text(str(v)))
        tests = failures = errors = 0
        classname = Path(book.path).name
        if book.unusable:
            case = ET.SubElement(suite, "testcase", name="open", classname=classname, time="0")
            err = ET.SubElement(case, "error", type="unusable", message=_xml_text(book.message))
            err.text = _xml_text(book.message)
            tests, errors = 1, 1
        else:
            by: dict[str, list[CellChange]] = {}
            for c in book.cells:
                by.setdefault(c.sheet, []).append(c)
            summaries = {s.sheet: s for s in book.sheet_summaries()}
            per = book.seconds / max(len(book.tested_sheets), 1)
            for sheet in book.tested_sheets:
                tests += 1
                case = ET.SubElement(suite, "testcase", name=sheet, classname=classname,
                                     time=f"{per:.3f}")
                cells = by.get(sheet, [])
                failing = [c for c in cells if book.mode == "diff" or c.fails(report.fail_on)]
                failing_ids = {id(c) for c in failing}
                quiet = [c for c in cells if id(c) not in failing_ids]
                if book.mode == "diff":
                    groups = [("changed", summaries[sheet].text if failing else "", failing)]
                else:
                    stale = [c for c in failing if c.stale and report.fail_on != "errors"]
                    errs = [c for c in failing if c.status == "error"
                            and report.fail_on != "stale"]
                    groups = [("stale", _group_message(stale, "stale cell", sheet), stale),
                              ("formula-error", _group_message(errs, "error cell", sheet), errs)]
                for kind, msg, group in groups:
                    if group:
                        f = ET.SubElement(case, "failure", type=kind, message=_xml_text(msg))
                        f.text = _xml_text("\n".join(_cell_compact(c) for c in group))
                if failing:
                    failures += 1
                if quiet:
                    out = ET.SubElement(case, "system-out")
                    out.text = _xml_text("\n".join(_cell_compact(c) for c in quiet))
            if book.mode == "check" and book.unknown_functions:
                tests += 1
                case = ET.SubElement(suite, "testcase", name="functions", classname=classname,
                                     time="0")
                if report.fail_on != "stale":
                    msg = "unknown functions: " + ", ".join(book.unknown_functions)
                    ET.SubElement(case, "failure", type="unknown-function",
                                  message=_xml_text(msg)).text = _xml_text(msg)
                    failures += 1
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", str(errors))
        suite.set("skipped", "0")
        suite.set("time", f"{book.seconds:.3f}")
        suite.set("timestamp", stamp)
        suite.set("hostname", host)
        tot["tests"] += tests
        tot["failures"] += failures
        tot["errors"] += errors
        tot["time"] += book.seconds
    for k in ("tests", "failures", "errors"):
        root.set(k, str(tot[k]))
    root.set("time", f"{tot['time']:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode")


def _group_message(cells: list[CellChange], word: str, sheet: str) -> str:
    rels = [r for r in (c.rel_change for c in cells) if r is not None]
    text = f"{plural(len(cells), word)} on {sheet}"
    return text + (f", median {format_change(statistics.median(rels))}" if rels else "")


def _cell_compact(c: CellChange) -> str:
    """One line per cell for JUnit: ``Cost!E14 (H200 / ...): 2.80867 -> 2.58398 (-8.0 %)``."""
    a, b = format_pair(c.old, c.new)
    head = f"{c.address} ({c.label})" if c.label else c.address
    if c.status == "error":
        text = f"{head}: " + (f"{a} -> {b}" if c.stale else b) + \
            (f" ({c.reason})" if c.reason else "")
    else:
        kind = "" if c.status in ("stale", "changed") else f" [{c.status}]"
        kind += " [input]" if c.input else ""
        text = f"{head}{kind}: {a} -> {b}"
    change = format_change(c.rel_change)
    return text + (f" ({change})" if change else "")


def _md(s: str) -> str:
    return " ".join(str(s).split()).replace("|", "\\|").replace("`", "'")


def render_markdown(report: Report, *, max_cells: int = 100) -> str:
    """GitHub-flavoured markdown, e.g. for a pull-request comment or a job summary."""
    lines = []
    n = len(report.books)
    failed = sum(b.status(report.fail_on) != "ok" for b in report.books)
    if report.mode == "check":
        title = (f"rooflinexl check: {failed} of {plural(n, 'workbook')} failing" if failed
                 else f"rooflinexl check: {plural(n, 'workbook')} up to date")
    else:
        b = report.books[0]
        verb = "differs" if len(b.cells) == 1 else "differ"
        title = (f"rooflinexl diff: {plural(len(b.cells), 'cell')} {verb}" if b.cells
                 else "rooflinexl diff: unusable input" if b.unusable
                 else "rooflinexl diff: no differences")
    lines += [f"### {title}", ""]
    if report.mode == "check":
        lines += ["| workbook | formulas | stale | errors | result |",
                  "|---|---:|---:|---:|---|"]
        for b in report.books:
            st = b.status(report.fail_on)
            mark = {"ok": "ok", "fail": "**FAIL**", "unusable": "**unusable**"}[st]
            lines.append(f"| `{_md(b.path)}` | {b.compared} | {len(b.stale)} | "
                         f"{len(b.errors)} | {mark} |")
        lines.append("")
    for b in report.books:
        if report.mode == "check" and not b.cells and not b.unusable and \
                not b.unknown_functions:
            continue
        head = (f"`{_md(b.old_path)}` → `{_md(b.path)}`" if b.mode == "diff"
                else f"`{_md(b.path)}`")
        lines += [f"#### {head}", ""]
        if b.unusable:
            lines += [f"Unusable: {_md(b.message)}", ""]
            continue
        if b.unknown_functions:
            lines += [f"Unknown functions: {_md(', '.join(b.unknown_functions))}", ""]
        for s in b.sheet_summaries():
            lines.append(f"- {_md(s.text)}")
        if not b.cells:
            lines += ["", f"No differences in {b.compared} cells.", ""]
            continue
        lines.append("")
        if b.mode == "diff":
            lines += ["| cell | kind | label | old | new | change |",
                      "|---|---|---|---:|---:|---:|"]
        else:
            lines += ["| cell | label | cached | recalculated | change | note |",
                      "|---|---|---:|---:|---:|---|"]
        for c in b.cells[:max_cells]:
            old, new = (_md(v) for v in format_pair(c.old, c.new))
            change = format_change(c.rel_change)
            if b.mode == "diff":
                kind = ("input" if c.input else "result") + \
                    (f" ({c.status})" if c.status != "changed" else "")
                lines.append(f"| `{_md(c.address)}` | {kind} | {_md(c.label)} | {old} | "
                             f"{new} | {change} |")
            else:
                note = "" if c.status == "stale" else _md(f"error: {c.reason}".strip())
                lines.append(f"| `{_md(c.address)}` | {_md(c.label)} | {old} | {new} | "
                             f"{change} | {note} |")
        if len(b.cells) > max_cells:
            lines.append(f"\n… and {len(b.cells) - max_cells} more cells (see the JSON or "
                         "JUnit report).")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
