"""LibreOffice as the real client in tests (test support, not a test module).

LibreOffice Calc opens the workbooks we generate, recalculates every formula
and saves them again, so a test can read back what a real spreadsheet
application computes (``values``) or look at how a sheet prints
(``render_pngs``).  See ``shared/reference/research-recalc.md`` section 3.
The soffice process, the profile that forces recalculation on load and the
conversion live in the package (:mod:`rooflinexl.libreoffice.soffice`); the
rooflinexl add-in is :mod:`rooflinexl.libreoffice`.

Install LibreOffice 25.x with ``.ci/install-libreoffice.sh`` (Debian 12,
bookworm-backports).  Without ``soffice`` the tests skip; under CI (the
``CI`` environment variable set) they fail instead, because CI installs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from rooflinexl.libreoffice.soffice import (
    DEFAULT_TIMEOUT,
    LibreOfficeError,
    convert,
    soffice_path,
    write_profile,
)

__all__ = [
    "LibreOfficeError",
    "soffice_path",
    "write_profile",
    "require_soffice",
    "require_addin",
    "SAMPLES",
    "recalc_with_libreoffice",
    "render_pngs",
    "values",
]


#: a value (as written in a formula) for each argument name of the function catalogue
SAMPLES = {"chips": "Chips", "chip": '"H100"', "D": 8192, "F": 4096, "B": 64, "E": 256, "k": 8,
           "n_chips": 4, "flops": 1e12, "bytes": 1e9, "intensity": 100, "T": 4096, "S": 4096,
           "G": 8, "kind": '"AllReduce"', "n_params": 7e9, "layers": 32, "kv_heads": 8,
           "head_dim": 128, "tokens": 4096, "batch": 4, "mfu": 0.5, "field": '"hbm_bw"',
           "dtype": '"bf16"', "weight_dtype": '"int8"', "tier": '"hbm"', "shard": '"D"',
           "result": '"time"'}


def _ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require_soffice() -> str:
    """``soffice_path()``, or skip the calling test (fail it under CI) when missing."""
    import pytest

    path = soffice_path()
    if path is None:
        reason = (
            "LibreOffice (soffice) is not installed; "
            "run .ci/install-libreoffice.sh to enable the LibreOffice cross-checks"
        )
        if _ci():
            pytest.fail(f"{reason} (CI is set, so this is an error, not a skip)")
        pytest.skip(reason)
    return path


def require_addin() -> str:
    """``require_soffice()``, and skip (fail under CI) unless the add-in can run here.

    The add-in needs python3-uno of the Python minor version of this
    environment (:func:`rooflinexl.libreoffice.check_python`).
    """
    import pytest

    from rooflinexl.libreoffice import AddinSetupError, check_python

    path = require_soffice()
    try:
        check_python()
    except AddinSetupError as exc:
        if _ci():
            pytest.fail(f"{exc} (CI is set, so this is an error, not a skip)")
        pytest.skip(str(exc))
    return path


def recalc_with_libreoffice(
    paths: list[Path], outdir: Path, *, timeout: float = DEFAULT_TIMEOUT
) -> list[Path]:
    """Open each workbook in LibreOffice, recalculate every formula, save as xlsx.

    All files go through one ``soffice --convert-to xlsx`` invocation with a
    fresh profile that forces recalculation on load.  The results are
    ``outdir/<stem>.xlsx`` in the order of *paths*; *outdir* must not be the
    folder of an input.  Read them with :func:`values`.

    Raises LibreOfficeError when soffice fails, runs past *timeout* seconds or
    leaves an output missing.
    """
    return convert(list(paths), outdir, "xlsx", ".xlsx", timeout)


def render_pngs(
    path: Path, outdir: Path, dpi: int = 80, *, timeout: float = DEFAULT_TIMEOUT
) -> list[Path]:
    """Print a workbook to PNG: xlsx -> PDF with soffice (recalculating), then pdftoppm.

    Returns the pages ``outdir/<stem>-<n>.png`` in page order, one per printed
    page (every sheet with content, split as LibreOffice paginates it).
    """
    pdftoppm = shutil.which("pdftoppm")
    if pdftoppm is None:
        raise LibreOfficeError(
            "pdftoppm not found; install poppler-utils (.ci/install-libreoffice.sh)")
    path = Path(path).resolve()
    outdir = Path(outdir).resolve()
    [pdf] = convert([path], outdir, "pdf", ".pdf", timeout)
    for old in outdir.glob(f"{path.stem}-*.png"):
        old.unlink()
    try:
        subprocess.run(
            [pdftoppm, "-png", "-r", str(dpi), str(pdf), str(outdir / path.stem)],
            check=True,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.CalledProcessError as exc:
        raise LibreOfficeError(f"pdftoppm failed on {pdf}: {exc.stderr}") from exc
    # pdftoppm pads the page number to the width of the page count: book-1 / book-01 ...
    pages = sorted(
        outdir.glob(f"{path.stem}-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1])
    )
    if not pages:
        raise LibreOfficeError(f"pdftoppm wrote no PNG for {pdf}")
    return pages


def values(path: Path) -> dict[str, dict[str, object]]:
    """Cached cell values per sheet: ``{sheet: {"A1": value, ...}}`` (empty cells left out).

    Read with openpyxl ``data_only=True``, so formula cells give the result the
    last application (LibreOffice, after ``recalc_with_libreoffice``) stored;
    errors come back as strings such as ``'#NAME?'``.
    """
    import openpyxl

    wb = openpyxl.load_workbook(path, data_only=True, read_only=True)
    try:
        out: dict[str, dict[str, object]] = {}
        for ws in wb.worksheets:
            cells: dict[str, object] = {}
            for row in ws.iter_rows():
                for cell in row:
                    if cell.value is not None and hasattr(cell, "coordinate"):
                        cells[cell.coordinate] = cell.value
            out[ws.title] = cells
        return out
    finally:
        wb.close()
