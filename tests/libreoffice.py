"""LibreOffice as the real client in tests (test support, not a test module).

LibreOffice Calc opens the workbooks we generate, recalculates every formula
and saves them again, so a test can read back what a real spreadsheet
application computes (``values``) or look at how a sheet prints
(``render_pngs``).  See ``shared/reference/research-recalc.md`` section 3.

Install LibreOffice 25.x with ``.ci/install-libreoffice.sh`` (Debian 12,
bookworm-backports).  Without ``soffice`` the tests skip; under CI (the
``CI`` environment variable set) they fail instead, because CI installs it.

Every call uses its own throw-away LibreOffice profile whose
``registrymodifications.xcu`` sets ``OOXMLRecalcMode`` and ``ODFRecalcMode``
to 0 ("always recalculate on load"); the shipped default (1, "never") keeps
any cached value another tool stamped into the file.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

__all__ = [
    "LibreOfficeError",
    "soffice_path",
    "write_profile",
    "require_soffice",
    "recalc_with_libreoffice",
    "render_pngs",
    "values",
]

#: seconds one soffice invocation may take before it is killed
DEFAULT_TIMEOUT = 180.0

_RECALC_ALWAYS_XCU = """\
<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" \
xmlns:xs="http://www.w3.org/2001/XMLSchema" \
xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">\
<prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">\
<prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


class LibreOfficeError(RuntimeError):
    """soffice failed, timed out or did not write an expected output file."""


def soffice_path() -> str | None:
    """Path of the ``soffice`` executable, or None when LibreOffice is not installed.

    ``$ROOFLINEXL_SOFFICE`` overrides the search on ``PATH``.
    """
    override = os.environ.get("ROOFLINEXL_SOFFICE")
    if override:
        return override if Path(override).is_file() else shutil.which(override)
    return shutil.which("soffice") or shutil.which("libreoffice")


def require_soffice() -> str:
    """``soffice_path()``, or skip the calling test (fail it under CI) when missing."""
    import pytest

    path = soffice_path()
    if path is None:
        reason = (
            "LibreOffice (soffice) is not installed; "
            "run .ci/install-libreoffice.sh to enable the LibreOffice cross-checks"
        )
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail(f"{reason} (CI is set, so this is an error, not a skip)")
        pytest.skip(reason)
    return path


def write_profile(root: Path) -> Path:
    """Create a LibreOffice user profile under *root* that recalculates on load."""
    user = root / "user"
    user.mkdir(parents=True, exist_ok=True)
    (user / "registrymodifications.xcu").write_text(_RECALC_ALWAYS_XCU, encoding="utf-8")
    return root


def _run_soffice(args: list[str], profile: Path, timeout: float) -> subprocess.CompletedProcess:
    exe = soffice_path()
    if exe is None:
        raise LibreOfficeError(
            "soffice not found; run .ci/install-libreoffice.sh (or set $ROOFLINEXL_SOFFICE)"
        )
    cmd = [
        exe,
        "--headless",
        "--norestore",
        "--nologo",
        "--nolockcheck",
        f"-env:UserInstallation={profile.resolve().as_uri()}",
        *args,
    ]
    env = dict(os.environ, LC_ALL="C.UTF-8", LANG="C.UTF-8")
    env.pop("LANGUAGE", None)
    # own process group, so a timeout also kills soffice.bin started by the wrapper
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise LibreOfficeError(
            f"soffice timed out after {timeout:g} s: {' '.join(cmd)}\n"
            f"stdout: {out[-2000:]}\nstderr: {err[-2000:]}"
        ) from None
    result = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    if result.returncode != 0:
        raise LibreOfficeError(
            f"soffice exited with status {result.returncode}: {' '.join(cmd)}\n"
            f"stdout: {out[-2000:]}\nstderr: {err[-2000:]}"
        )
    return result


def _convert(paths: list[Path], outdir: Path, target: str, suffix: str,
             timeout: float) -> list[Path]:
    """Convert *paths* with one soffice call into *outdir*; return the output files."""
    paths = [Path(p).resolve() for p in paths]
    if not paths:
        return []
    outdir = Path(outdir).resolve()
    for p in paths:
        if not p.is_file():
            raise FileNotFoundError(f"no such workbook: {p}")
        if p.parent == outdir:
            raise ValueError(
                f"outdir {outdir} is the folder of {p.name}; LibreOffice would overwrite the "
                "input - pass a different outdir"
            )
    expected = [outdir / (p.stem + suffix) for p in paths]
    if len(set(expected)) != len(expected):
        raise ValueError(f"input workbooks share a base name: {[p.name for p in paths]}")
    outdir.mkdir(parents=True, exist_ok=True)
    for e in expected:  # so a missing output cannot be mistaken for an old one
        e.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="rooflinexl-lo-") as tmp:
        profile = write_profile(Path(tmp) / "profile")
        result = _run_soffice(
            ["--convert-to", target, "--outdir", str(outdir), *map(str, paths)],
            profile,
            timeout,
        )
    missing = [e for e in expected if not e.is_file()]
    if missing:
        raise LibreOfficeError(
            f"soffice wrote no {', '.join(m.name for m in missing)} in {outdir}\n"
            f"stdout: {result.stdout[-2000:]}\nstderr: {result.stderr[-2000:]}"
        )
    return expected


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
    return _convert(list(paths), outdir, "xlsx", ".xlsx", timeout)


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
    [pdf] = _convert([path], outdir, "pdf", ".pdf", timeout)
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
