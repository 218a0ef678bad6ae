"""Running headless LibreOffice: find ``soffice``, a throw-away profile, one conversion.

LibreOffice Calc opens a workbook, recalculates every formula and saves it
again (``soffice --convert-to xlsx``). Every call uses its own throw-away
user profile whose ``registrymodifications.xcu`` sets ``OOXMLRecalcMode`` and
``ODFRecalcMode`` to 0 ("always recalculate on load"); the shipped default
(1, "never") keeps any cached value another tool stamped into the file.

Install LibreOffice 25.x with ``.ci/install-libreoffice.sh`` (Debian 12,
bookworm-backports). ``$ROOFLINEXL_SOFFICE`` names another ``soffice``.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from rooflinexl.errors import RooflineError

__all__ = [
    "DEFAULT_TIMEOUT",
    "LibreOfficeError",
    "convert",
    "program_dir",
    "run_soffice",
    "soffice_path",
    "write_profile",
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


class LibreOfficeError(RooflineError, RuntimeError):
    """soffice failed, timed out or did not write an expected output file."""


def soffice_path() -> str | None:
    """Path of the ``soffice`` executable, or None when LibreOffice is not installed.

    ``$ROOFLINEXL_SOFFICE`` overrides the search on ``PATH``.
    """
    override = os.environ.get("ROOFLINEXL_SOFFICE")
    if override:
        return override if Path(override).is_file() else shutil.which(override)
    return shutil.which("soffice") or shutil.which("libreoffice")


def program_dir() -> Path:
    """LibreOffice's ``program`` folder (where ``soffice.bin``, ``types/`` and ``services/`` are).

    Raises LibreOfficeError when soffice is not installed.
    """
    exe = soffice_path()
    if exe is None:
        raise LibreOfficeError(
            "soffice not found; install LibreOffice (.ci/install-libreoffice.sh) or set "
            "$ROOFLINEXL_SOFFICE")
    return Path(os.path.realpath(exe)).parent


def write_profile(root: Path) -> Path:
    """Create a LibreOffice user profile under *root* that recalculates on load."""
    user = root / "user"
    user.mkdir(parents=True, exist_ok=True)
    (user / "registrymodifications.xcu").write_text(_RECALC_ALWAYS_XCU, encoding="utf-8")
    return root


def office_env(**extra: str) -> dict[str, str]:
    """The environment for ``soffice`` and ``unopkg``: ours, less a virtual environment.

    LibreOffice's embedded Python (python3-uno) finds its standard library
    from the first ``python3`` on ``PATH``; with a virtual environment
    activated that is the venv's interpreter, whose ``pyvenv.cfg`` points the
    embedded Python at another installation's library, and LibreOffice then
    cannot load the add-in (the document fails to load: "source file could not
    be loaded"). So every ``PATH`` entry that is a virtual environment's
    ``bin`` folder (its parent holds ``pyvenv.cfg``) and ``VIRTUAL_ENV`` are
    left out; the add-in finds rooflinexl through its own site configuration
    (:func:`rooflinexl.libreoffice.addin.stage`). ``extra`` is added.

    >>> env = office_env(LC_ALL="C.UTF-8")
    >>> "VIRTUAL_ENV" in env, env["LC_ALL"]
    (False, 'C.UTF-8')
    """
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    keep = [d for d in env.get("PATH", "").split(os.pathsep)
            if d and not (Path(d).parent / "pyvenv.cfg").is_file()]
    env["PATH"] = os.pathsep.join(keep)
    env.update(extra)
    return env


def run_soffice(args: list[str], profile: Path, timeout: float = DEFAULT_TIMEOUT,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``soffice --headless ... ARGS`` with the user profile *profile*.

    ``env`` adds environment variables. soffice runs in its own process
    group, so a timeout also kills the ``soffice.bin`` the wrapper started.
    Raises LibreOfficeError when it fails or runs past *timeout* seconds.
    """
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
    full_env = office_env(LC_ALL="C.UTF-8", LANG="C.UTF-8", **(env or {}))
    full_env.pop("LANGUAGE", None)
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=full_env,
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


def convert(paths: list[Path], outdir: Path, target: str, suffix: str,
            timeout: float = DEFAULT_TIMEOUT, *, extra_args: list[str] = (),
            env: dict[str, str] | None = None) -> list[Path]:
    """Convert *paths* with one soffice call into *outdir*; return the output files.

    Each workbook is opened (and recalculated: a fresh profile from
    :func:`write_profile`) and saved as ``outdir/<stem><suffix>`` in the
    ``--convert-to`` *target* format (``xlsx``, ``pdf``). *outdir* must not
    be the folder of an input. ``extra_args`` go before ``--convert-to``
    (``-env:`` settings), ``env`` into soffice's environment.

    Raises LibreOfficeError when soffice fails, runs past *timeout* seconds
    or leaves an output missing.
    """
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
        result = run_soffice(
            [*extra_args, "--convert-to", target, "--outdir", str(outdir), *map(str, paths)],
            profile,
            timeout,
            env,
        )
    missing = [e for e in expected if not e.is_file()]
    if missing:
        raise LibreOfficeError(
            f"soffice wrote no {', '.join(m.name for m in missing)} in {outdir}\n"
            f"stdout: {result.stdout[-2000:]}\nstderr: {result.stderr[-2000:]}"
        )
    return expected
