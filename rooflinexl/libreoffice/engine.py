"""LibreOffice as a second, independent recalculation engine (``recalc --engine libreoffice``).

Headless LibreOffice opens the workbook with the rooflinexl add-in registered
for that one run (no install: :func:`rooflinexl.libreoffice.addin.registration_args`),
recalculates every formula on load (a throw-away profile,
:mod:`rooflinexl.libreoffice.soffice`) and saves a copy; the values it
computed are read back from that copy and returned as an
:class:`rooflinexl.recalc.Evaluation`, so ``rooflinexl recalc`` stamps them
into the original file with its own byte-preserving writer and
``recalc --check`` compares them with the cached values. LibreOffice's copy
itself is thrown away.

Where LibreOffice lacks an Excel function the cell is ``#NAME?`` and its
reason says which function (LibreOffice saves the names it did not resolve
in lower case); the function is listed as unknown, which fails the run like
an unknown function of our own engine.
"""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

from rooflinexl.errors import ExcelError
from rooflinexl.libreoffice.addin import (
    AddinSetupError,
    check_python,
    registration_args,
    stage,
)
from rooflinexl.libreoffice.soffice import DEFAULT_TIMEOUT, convert
from rooflinexl.ooxml import Limits, formula_cells, read_cached_values

__all__ = ["evaluate_libreoffice", "function_names"]

_CALL = re.compile(r"(?<![\w.$])(?:_xlfn\.|_xlws\.)?([A-Za-z][\w.]*)\s*\(")
_STRING = re.compile(r'"(?:[^"]|"")*"')
_LOG_LINE = re.compile(r"^rooflinexl: ([A-Z_0-9]+): (#[A-Z/0!?]+) (.*)$")


def function_names(formula: str) -> list[str]:
    """Names of the functions a formula calls, upper case, ``_xlfn.`` dropped, in order.

    >>> function_names('_xlfn.IFNA(CRIT_BATCH(Chips,"H100(x)",1),"-")')
    ['IFNA', 'CRIT_BATCH']
    """
    names = []
    for m in _CALL.finditer(_STRING.sub('""', formula)):
        name = m.group(1).upper()
        if name not in names:
            names.append(name)
    return names


def _messages(log: Path) -> dict[tuple[str, str], list[str]]:
    """The add-in's messages: (function, error value) -> distinct reasons."""
    out: dict[tuple[str, str], list[str]] = {}
    if not log.is_file():
        return out
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        m = _LOG_LINE.match(line)
        if m:
            reasons = out.setdefault((m.group(1), m.group(2)), [])
            if m.group(3) not in reasons:
                reasons.append(m.group(3))
        elif "cannot load rooflinexl" in line:
            raise AddinSetupError(line.removeprefix("rooflinexl: "))
    return out


def _unknown_to_libreoffice(saved: str) -> list[str]:
    """Functions LibreOffice did not resolve: it saves their names in lower case.

    >>> _unknown_to_libreoffice('SUM(nosuchfn(1),roofline.crit_batch(Chips,"H100"))')
    ['NOSUCHFN', 'ROOFLINE.CRIT_BATCH']
    """
    return [m.group(1).upper() for m in _CALL.finditer(_STRING.sub('""', saved))
            if m.group(1) != m.group(1).upper()]


def _reason(value: str, formula: str, saved: str, ours: set[str], messages,
            unknown: set[str]) -> str:
    names = function_names(formula or saved)
    if value == "#NAME?":
        missing = _unknown_to_libreoffice(saved)
        if missing:
            unknown.update(missing)
            return ("LibreOffice does not know " + ", ".join(missing)
                    + " (an Excel function it lacks, or a misspelt name)")
    found = [f"{n}: {r}" for n in names if n in ours for r in messages.get((n, value), [])]
    if found:  # what the add-in said about this error value in this workbook's functions
        more = f"; and {len(found) - 3} more" if len(found) > 3 else ""
        return (f"LibreOffice computed {value} (the add-in's {value} messages: "
                + "; ".join(found[:3]) + more + ")")
    return f"LibreOffice computed {value}"


def evaluate_libreoffice(src, *, limits: Limits = Limits(), timeout: float = DEFAULT_TIMEOUT):
    """Recalculate *src* in headless LibreOffice with the add-in; an Evaluation of its values.

    Parameters
    ----------
    src : path
        An .xlsx or .xlsm workbook (checked by the caller,
        :func:`rooflinexl.recalc.book.recalc_book`).
    limits : Limits
        Package limits for reading the file and LibreOffice's copy.
    timeout : float
        Seconds LibreOffice may take.

    Returns
    -------
    rooflinexl.recalc.Evaluation
        One :class:`rooflinexl.recalc.CellResult` per formula cell (and per
        cell of an array formula's range) of *src*, with the value LibreOffice
        computed; error cells carry a reason (the add-in's message where it
        gave one), functions LibreOffice does not know are in
        ``unknown_functions``.

    Raises
    ------
    AddinSetupError
        No ``python3-uno``, another Python minor version, or the add-in
        could not load rooflinexl.
    rooflinexl.libreoffice.LibreOfficeError
        soffice is missing, failed or timed out.
    """
    from rooflinexl.recalc import CellResult, Evaluation
    from rooflinexl.udfs import FUNCTIONS

    check_python()
    src = Path(src)
    formulas = formula_cells(src, limits=limits)
    targets = read_cached_values(src, limits=limits)  # formula cells and array ranges
    with tempfile.TemporaryDirectory(prefix="rooflinexl-lo-engine-") as tmp:
        tmp = Path(tmp)
        folder = stage(tmp / "addin", log=tmp / "addin.log")
        [out] = convert([src], tmp / "out", "xlsx", ".xlsx", timeout,
                        extra_args=registration_args(folder))
        got = read_cached_values(out, limits=limits)
        lo_formulas = formula_cells(out, limits=limits)
        messages = _messages(tmp / "addin.log")
    for sheet, refs in targets.items():  # cells of array ranges the file left out
        refs.update({ref: None for ref in got.get(sheet, {}) if ref not in refs})
    ours = set(FUNCTIONS)
    unknown: set[str] = set()
    cells = {}
    for sheet, refs in targets.items():
        for ref in refs:
            saved = lo_formulas.get(sheet, {}).get(ref) or ""
            formula = formulas.get(sheet, {}).get(ref) or saved
            value = got.get(sheet, {}).get(ref)
            reason = ""
            if value is None:
                value = ExcelError("#VALUE!", "LibreOffice wrote no value for this cell")
            if isinstance(value, ExcelError):
                reason = _reason(str(value), formula, saved, ours, messages, unknown)
                value = ExcelError(str(value), reason)
            cells[(sheet, ref)] = CellResult(sheet, ref, formula, value, reason)
    return Evaluation(cells=cells, unknown_functions=unknown, sheets=list(formulas))
