"""Atomic file writes: a temporary file beside the target, then one rename.

:func:`atomic_write` is how every file rooflinexl writes (recalculated
workbooks, batch outputs, plots, generated workbooks) reaches the disk: the
previous file stays whole until the new one is complete, and a new file takes
the permission bits of the file it was made from.
"""
from __future__ import annotations

import os
import re
import secrets
import stat

from rooflinexl.errors import WriteError

_TMP_NAME = ".{base}.rooflinexl-{pid}-{token}.tmp"
_TMP_RE = r"\.{base}\.rooflinexl-([0-9]+)-[0-9a-f]{{12}}\.tmp"


def output_path(dst) -> str:
    """The file a write to ``dst`` replaces: ``dst``, or the file a symbolic link points to.

    Parameters
    ----------
    dst : str or os.PathLike
        Where the caller asked to write.

    Returns
    -------
    str
        ``dst`` itself; for a symbolic link (or a chain of them) the file it
        finally points to, so that the link stays a link and the workbook it
        names is the one updated.

    Raises
    ------
    WriteError
        For a dangling link (writing would create a file somewhere the user
        did not name).

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp(); open(os.path.join(d, "real.csv"), "w").close()
    >>> os.symlink("real.csv", os.path.join(d, "link.csv"))
    >>> os.path.basename(output_path(os.path.join(d, "link.csv")))
    'real.csv'
    """
    path = os.fspath(dst)
    if not os.path.islink(path):
        return path
    real = os.path.realpath(path)
    if not os.path.exists(real):
        raise WriteError(f"{path}: symbolic link to {real}, which does not exist: "
                         "give the real path to create a new file")
    return real


def _stale_temp_files(folder: str, base: str) -> list[str]:
    """Our temporary files for ``base`` in ``folder`` left by runs that no longer exist.

    POSIX only (a process id is checked with signal 0); only files this user owns.
    """
    if os.name != "posix":
        return []
    rx = re.compile(_TMP_RE.format(base=re.escape(base)))
    out = []
    try:
        entries = os.scandir(folder)
    except OSError:
        return []
    with entries:
        for entry in entries:
            m = rx.fullmatch(entry.name)
            if m is None or int(m.group(1)) == os.getpid():
                continue
            try:
                if entry.stat(follow_symlinks=False).st_uid != os.getuid():
                    continue
                os.kill(int(m.group(1)), 0)
            except ProcessLookupError:
                out.append(entry.path)
            except (OSError, OverflowError, ValueError):
                continue  # alive (another user's process), or unreadable: leave it
    return out


def _write_error(dst: str, exc: OSError, existed: bool) -> WriteError:
    """One line naming the path and the operating system's reason."""
    why = exc.strerror or str(exc) or type(exc).__name__
    where = exc.filename if getattr(exc, "filename", None) and exc.filename != dst else None
    kept = "; the existing file is unchanged" if existed else ""
    detail = f" ({where})" if where and not str(where).endswith(".tmp") else ""
    return WriteError(f"{dst}: cannot write: {why}{detail}{kept}")


def write_temp(dst, write, like=None) -> str:
    """Call ``write(fileobj)`` on a new temp file beside ``dst``; return its path.

    ``dst`` is first resolved with :func:`output_path` (a symbolic link is
    written through). The temp file is created with ``dst``'s permission bits
    (the umask can only narrow them; they are then set exactly, before any byte
    is written), or for a new file the usual ones (0666 less the umask), so it
    is never readable by anyone who cannot read ``dst``; a new ``dst`` made from
    another file ``like`` (a recalculated copy of a workbook) gets ``like``'s
    bits, so a private workbook never yields a readable copy. Temporary files
    of ours for the same target left by killed runs are removed first. Any
    failure removes the temp file; an operating-system error becomes a
    :class:`~rooflinexl.errors.WriteError` naming ``dst`` and the reason.
    """
    dst = output_path(dst)
    folder = os.path.dirname(os.path.abspath(dst))
    base = os.path.basename(dst)[:180]
    try:
        st = os.stat(dst)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise _write_error(dst, exc, False) from None
    existed = st is not None
    if st is None and like is not None:
        try:
            st = os.stat(like)
        except OSError:
            st = None
    mode = None if st is None else stat.S_IMODE(st.st_mode)
    if not os.path.isdir(folder):
        raise WriteError(f"{dst}: cannot write: the folder {folder} does not exist")
    for stale in _stale_temp_files(folder, base):
        _unlink_quietly(stale)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = os.path.join(folder, _TMP_NAME.format(base=base, pid=os.getpid(),
                                                    token=secrets.token_hex(6)))
        try:
            fd = os.open(tmp, flags, 0o666 if mode is None else mode & 0o777)
            break
        except FileExistsError:
            continue
        except OSError as exc:
            raise _write_error(dst, exc, existed) from None
    else:  # pragma: no cover
        raise WriteError(f"{dst}: cannot create a temporary file in {folder}")
    try:
        if mode is not None:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            else:  # pragma: no cover - Windows: only the read-only bit exists
                os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException as exc:
        _unlink_quietly(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, WriteError):
            raise _write_error(dst, exc, existed) from None
        raise
    return tmp


def commit_temp(tmp: str, dst) -> None:
    """Atomically move the finished temp file onto ``dst`` (through a symbolic link)."""
    dst = output_path(dst)
    try:
        os.replace(tmp, dst)
    except BaseException as exc:
        _unlink_quietly(tmp)
        if isinstance(exc, OSError):
            raise _write_error(dst, exc, os.path.exists(dst)) from None
        raise


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def atomic_write(dst, write, *, like=None) -> str:
    """Write a file atomically: ``write(fileobj)`` to a temp file beside ``dst``, then rename.

    The one atomic-write helper of the package (workbooks, batch outputs,
    reports). A reader, a crash or a full disk sees the previous file or the
    new one, never a mix.

    Parameters
    ----------
    dst : str or os.PathLike
        The file to create or replace. A symbolic link is written through:
        the file it points to is replaced and the link stays. A hard link is
        broken: the rename gives ``dst`` a new inode, the other names keep the
        old content.
    write : callable
        ``write(fileobj)`` writes the whole content to a binary file object.
    like : str or os.PathLike, optional
        The file the output is made from (a workbook, a scenario table): a
        new ``dst`` gets its permission bits instead of 0666 less the umask,
        so a private (0600) input never yields a copy others can read. An
        existing ``dst`` always keeps its own bits.

    Returns
    -------
    str
        The path written (``dst``, or the target of a symbolic link).

    Raises
    ------
    WriteError
        When the operating system refuses (permission denied, missing folder,
        full disk ...): one line naming ``dst`` and the reason; ``dst`` is
        unchanged and no temporary file remains. Exceptions raised by
        ``write`` itself propagate (after the same clean-up).

    Notes
    -----
    The temporary file ``.NAME.rooflinexl-<pid>-<random>.tmp`` is created in
    ``dst``'s folder with ``dst``'s permission bits (a new file: 0666 less
    the umask) and fsynced before :func:`os.replace`. A run killed with
    SIGKILL can leave it behind; the next write to the same target removes
    the ones whose process is gone.

    Examples
    --------
    >>> import os, stat, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "r.md"); open(p, "w").close(); os.chmod(p, 0o600)
    >>> os.path.basename(atomic_write(p, lambda fh: fh.write(b"# ok")))
    'r.md'
    >>> open(p).read(), oct(stat.S_IMODE(os.stat(p).st_mode))
    ('# ok', '0o600')
    """
    tmp = write_temp(dst, write, like)
    commit_temp(tmp, dst)
    return output_path(dst)


