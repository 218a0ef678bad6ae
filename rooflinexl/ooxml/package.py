"""The workbook package: opened and checked once, then its parts and relationships.

:func:`check_package` refuses, with one line that says what to do, anything
that is not a readable Office Open XML spreadsheet within :class:`Limits`:
legacy ``.xls``, password-encrypted workbooks, ``.xlsb``, ``.ods``, truncated
or corrupt zips, zip bombs and XML carrying a DOCTYPE (entity-expansion bombs,
external entities). :func:`open_package` does the same checks and yields the
open archive, which a command passes along to every reader and writer instead
of opening the file again. :func:`workbook_part`, :func:`relationships`,
:func:`sheet_members` and :func:`parse_xml` find and parse the parts inside.
"""
from __future__ import annotations

import math
import os
import posixpath
import re
import struct
import zipfile
import zlib
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from urllib.parse import unquote
from xml.etree.ElementTree import ParseError

import numpy as np

from rooflinexl.errors import RooflineError

try:  # pragma: no cover - exercised whichever way the environment is set up
    from defusedxml import DefusedXmlException
    from defusedxml import ElementTree as _ET

    _PARSE_KW = {"forbid_dtd": True}
    _XML_ERRORS: tuple[type[Exception], ...] = (ParseError, DefusedXmlException)
except ImportError:  # pragma: no cover
    from xml.etree import ElementTree as _ET

    _PARSE_KW = {}
    _XML_ERRORS = (ParseError,)


_MIB = 2**20


class UnusableWorkbookError(RooflineError):
    """One line naming the problem and what to do (CLI prints it, exit 2)."""


def _mib_bytes(text: str) -> int:
    """Bytes of a limit written in MB (MiB); ``inf`` means no limit."""
    mb = float(text)
    if mb != mb:
        raise ValueError(text)
    return round(mb * _MIB) if mb < math.inf else 2**63


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to a package before anything is parsed.

    Parameters
    ----------
    max_file_bytes : int
        Largest accepted file on disk (compressed size), bytes.
    max_uncompressed_bytes : int
        Largest accepted sum of member sizes, both as declared in the zip
        directory and as actually decompressed, bytes.
    max_ratio : float
        Largest accepted uncompressed/compressed ratio of one member.
    max_members : int
        Largest accepted number of zip members.
    ratio_floor_bytes : int
        Members whose declared uncompressed size is at most this many bytes are
        exempt from the ratio check (a few KiB of repetitive XML legitimately
        compress more than 200:1 and cannot hurt); they still count towards
        ``max_uncompressed_bytes``.
    """

    max_file_bytes: int = 200 * _MIB
    max_uncompressed_bytes: int = 1 * 2**30
    max_ratio: float = 200.0
    max_members: int = 10_000
    ratio_floor_bytes: int = 1 * _MIB

    @classmethod
    def from_env(cls, environ=None) -> Limits:
        """Limits from ``ROOFLINEXL_MAX_*`` environment variables.

        Parameters
        ----------
        environ : mapping, optional
            Defaults to :data:`os.environ`. Recognised variables:
            ``ROOFLINEXL_MAX_FILE_MB``, ``ROOFLINEXL_MAX_UNCOMPRESSED_MB``,
            ``ROOFLINEXL_MAX_RATIO``, ``ROOFLINEXL_MAX_MEMBERS``; unset or
            empty ones keep their default.

        Returns
        -------
        Limits

        Examples
        --------
        >>> Limits.from_env({"ROOFLINEXL_MAX_RATIO": "500"}).max_ratio
        500.0
        """
        env = os.environ if environ is None else environ
        kw = {}
        for var, field, conv in (
            ("ROOFLINEXL_MAX_FILE_MB", "max_file_bytes", _mib_bytes),
            ("ROOFLINEXL_MAX_UNCOMPRESSED_MB", "max_uncompressed_bytes", _mib_bytes),
            ("ROOFLINEXL_MAX_RATIO", "max_ratio", float),
            ("ROOFLINEXL_MAX_MEMBERS", "max_members", int),
        ):
            raw = (env.get(var) or "").strip()
            if raw:
                try:
                    kw[field] = conv(raw)
                except ValueError:
                    raise ValueError(f"{var}={raw!r} is not a number") from None
        return cls(**kw)


# --------------------------------------------------------------------------
# package checks
# --------------------------------------------------------------------------

_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTION_INFO = "EncryptionInfo".encode("utf-16-le")
_ODS_MIME = b"application/vnd.oasis.opendocument.spreadsheet"
_DTD_MARKERS = tuple(
    word.encode(enc) for word in ("<!doctype", "<!entity")
    for enc in ("ascii", "utf-16-le", "utf-16-be")
)
_ENTITY_MARKERS = _DTD_MARKERS[3:]
CHUNK = _MIB
_XML_SUFFIXES = (".xml", ".rels")
#: media that may legitimately carry a DOCTYPE (an SVG image's, with no internal subset);
#: an ENTITY declaration is refused there too
_DOCTYPE_OK_SUFFIXES = (".svg",)


def _looks_like_xml(head: bytes) -> bool:
    """Whether a member's first bytes are XML (whatever its name): a BOM or a '<' first."""
    if head.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return True
    head = head[:256].lstrip(b" \t\r\n\x00")
    return head.startswith(b"<")


def _mb(n: float) -> str:
    return f"{n / _MIB:.4g} MB"


def _refuse(path, what: str) -> UnusableWorkbookError:
    return UnusableWorkbookError(f"{os.fspath(path)}: {what}")


def _scan_ole(path) -> UnusableWorkbookError:
    """The refusal for an OLE2/CFB container: encrypted OOXML or legacy .xls."""
    tail = b""
    overlap = len(_ENCRYPTION_INFO) - 1
    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(CHUNK)
            if not chunk:
                break
            if _ENCRYPTION_INFO in tail + chunk:
                return _refuse(path, "encrypted (password-protected) workbook: "
                               "save it without a password (File > Info > Protect Workbook "
                               "> Encrypt with Password, clear it) and try again")
            tail = chunk[-overlap:]
    return _refuse(path, "legacy Excel 97-2003 .xls workbook (OLE2 container): "
                   "open it in Excel or LibreOffice and save as .xlsx")


def has_dtd(stream, markers=_DTD_MARKERS, first: bytes = b"") -> tuple[bool, int]:
    """(whether an XML stream declares a DOCTYPE or ENTITY, bytes read).

    Any case, UTF-8/ASCII or UTF-16 in either byte order; reads in chunks.
    ``first`` is data already read from the stream (scanned, and counted).
    """
    tail = b""
    total = 0
    keep = max(len(m) for m in markers) - 1
    found = False
    while True:
        chunk, first = (first or stream.read(CHUNK)), b""
        if not chunk:
            break
        total += len(chunk)
        if not found:
            window = tail + chunk
            # every marker starts '<!' (UTF-8/ASCII) or holds '<\0!' (UTF-16, either order),
            # bytes without case: a window with neither holds no marker (most: a search
            # for one byte, '!', clears them at memory speed)
            if b"!" in window and (b"<!" in window or b"<\x00!" in window):
                window = window.lower()
                found = any(m in window for m in markers)
            tail = chunk[-keep:]
    return found, total


def names_map(zf: zipfile.ZipFile) -> dict[str, str]:
    """Lower-cased member name -> actual member name (OPC part names ignore case)."""
    return {n.lower(): n for n in zf.namelist()}


def find_member(names: dict[str, str], part: str) -> str | None:
    """The member holding ``part`` (case-insensitive, percent-decoded), or None."""
    for cand in (part, unquote(part)):
        hit = names.get(cand.lower())
        if hit is not None:
            return hit
    return None


#: every ``t="s"`` (how Excel, openpyxl, xlsxwriter and LibreOffice write a shared-string
#: cell), with the cell's value when its start tag is followed directly by its <v>
_SST_FAST = re.compile(rb't="s"(?:[^<>]*>\s*<(?:[A-Za-z_][\w.\-]*:)?v>([^<]*)<)?')
#: t='s' or t = "s": another writer's spelling, read by the general scan
_SST_OTHER = re.compile(rb"""t(?:\s*=\s*'s'|\s+=\s*"s"|=\s+"s")""")
_SST_CELL = re.compile(rb"""\st\s*=\s*(?:"s"|'s')(?:[^>"']|"[^"]*"|'[^']*')*?(/?)>""")
_SST_ROOT = re.compile(rb"(?:\s|<\?.*?\?>|<!--.*?-->)*<(?:[A-Za-z_][\w.\-]*:)?([A-Za-z_][\w.\-]*)",
                       re.DOTALL)
_SST_ITEM = re.compile(rb"<(?:[A-Za-z_][\w.\-]*:)?si[\s/>]")
_V_TEXT = re.compile(rb"<(?:[A-Za-z_][\w.\-]*:)?v>([^<]*)<")
_CELL_END = re.compile(rb"</(?:[A-Za-z_][\w.\-]*:)?c\s*>")


class _SharedStringsCheck:
    """The shared-strings part and the worksheets that index it, checked while the
    package is read: Excel calls a workbook corrupt when that part's root is not
    ``<sst>`` or a ``t="s"`` cell indexes past its last ``<si>``; read on, such a
    cell would be empty text (``LEN(A1)`` = 0), a wrong number."""

    def __init__(self, zf, names, wb: str):
        self.sst = None
        sheets = set()
        try:
            rels = relationships(zf, names, wb)
        except UnusableWorkbookError:
            rels = []
        for _id, typ, part in rels:
            member = find_member(names, part)
            if member is None:
                continue
            if typ.endswith("/sharedStrings"):
                self.sst = member
            elif typ.endswith("/worksheet"):
                sheets.add(member)
        if self.sst is None:
            self.sst = find_member(names, "xl/sharedStrings.xml")
        self.members = sheets | ({self.sst} if self.sst else set())
        self.count: int | None = None  # <si> items
        self.root_problem: str | None = None
        self.worst: tuple[int, str] | None = None  # (largest index used, sheet part)
        self.bad_index: tuple[str, str] | None = None  # (text, sheet part)

    def scan(self, member: str, data: bytes) -> None:
        if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
            try:
                data = data.decode("utf-16").encode("utf-8")
            except UnicodeDecodeError:
                return  # the readers refuse it
        if member == self.sst:
            m = _SST_ROOT.match(data.lstrip(b"\xef\xbb\xbf"))
            root = m.group(1).decode("utf-8", "replace") if m else None
            if root != "sst":
                self.root_problem = (f"corrupt shared-strings part {member!r}: its root element "
                                     f"is {'<' + root + '>' if root else 'missing'}, not <sst> "
                                     "(Excel reports such a file as corrupt): open it in Excel, "
                                     "let Excel repair it, and save it again")
            self.count = sum(1 for _ in _SST_ITEM.finditer(data))
            return
        found = _SST_FAST.findall(data)
        if b"" in found or _SST_OTHER.search(data):  # cells in another form: one by one
            found = []
            for m in _SST_CELL.finditer(data):
                if m.group(1):
                    continue  # <c t="s"/>: no value, an empty cell
                close = _CELL_END.search(data, m.end())
                v = _V_TEXT.search(data, m.end(), close.start() if close else len(data))
                if v is not None:
                    found.append(v.group(1))
        if not found:
            return
        try:
            nums = np.array(found).astype(np.int64)
            top = int(nums.max()) if nums.min() >= 0 else None
        except (ValueError, OverflowError):
            top = None
        if top is not None:
            if self.worst is None or top > self.worst[0]:
                self.worst = (top, member)
            return
        top = -1
        for text in found:
            t = text.strip()
            if not t:
                continue  # <v></v>: an empty cell
            if not t.isdigit():
                self.bad_index = self.bad_index or (text.decode("utf-8", "replace"), member)
                continue
            top = max(top, int(t))
        if top >= 0 and (self.worst is None or top > self.worst[0]):
            self.worst = (top, member)

    def problem(self) -> str | None:
        if self.root_problem:
            return self.root_problem
        if self.bad_index:
            text, member = self.bad_index
            return (f"corrupt worksheet {member!r}: a shared-string cell holds {text!r}, not a "
                    "string number (Excel reports such a file as corrupt): open it in Excel, let "
                    "Excel repair it, and save it again")
        if self.worst is not None and self.worst[0] >= (self.count or 0):
            top, member = self.worst
            held = (f"the shared-strings part {self.sst!r} holds {self.count or 0}"
                    if self.sst else "the workbook has no shared-strings part")
            return (f"corrupt workbook: a cell of {member!r} uses shared string #{top} but "
                    f"{held} (Excel reports such a file as corrupt): open it in Excel, let "
                    "Excel repair it, and save it again")
        return None


#: decompressed bytes a :class:`Package` keeps for its readers (beyond it, parts are
#: decompressed again when read: slower, never different)
KEEP_BYTES = 256 * _MIB


class Package(zipfile.ZipFile):
    """An open, checked workbook package: a read-only zip whose sheet parts are
    decompressed once.

    The check (:func:`check_package`) decompresses every worksheet and the
    shared strings in full; those bytes are kept in :attr:`parts` (up to
    :data:`KEEP_BYTES` in all), and :meth:`read` of such a member returns them
    instead of decompressing it again (the engine's reader and the
    cached-value reader each read every sheet).
    """

    def __init__(self, file, *args, **kwargs):
        super().__init__(file, *args, **kwargs)
        self.parts: dict[str, bytes] = {}
        self._kept = 0

    def keep(self, member: str, data: bytes) -> None:
        """Keep a member's decompressed bytes for later reads (while under the budget)."""
        if self._kept + len(data) <= KEEP_BYTES:
            self.parts[member] = data
            self._kept += len(data)

    def read(self, name, pwd=None) -> bytes:
        """The member's bytes, decompressed at most once while kept (see the class doc)."""
        data = self.parts.get(getattr(name, "filename", name)) if pwd is None else None
        return data if data is not None else super().read(name, pwd)


def _check_open_zip(path, zf: Package, limits: Limits) -> None:
    """Structure, format and size checks on an open zip; reads every member."""
    infos = zf.infolist()
    if len(infos) > limits.max_members:
        raise _refuse(path, f"zip holds {len(infos)} members, over the limit of "
                      f"{limits.max_members}: raise it with --max-members "
                      "(or ROOFLINEXL_MAX_MEMBERS) if you trust the file")
    names = names_map(zf)
    if len(names) != len(infos):
        raise _refuse(path, "zip holds two members with the same name (a tampered or broken "
                      "package): open it in Excel and save it again")
    if "mimetype" in names:
        try:
            with zf.open(names["mimetype"]) as fh:
                mime = fh.read(200).strip()
        except Exception:  # noqa: BLE001 - any failure here only means "not ODS"
            mime = b""
        if mime.startswith(_ODS_MIME):
            raise _refuse(path, "OpenDocument spreadsheet (.ods), not .xlsx: "
                          "open it in LibreOffice or Excel and save as .xlsx")
    if "xl/workbook.bin" in names:
        raise _refuse(path, "binary Excel workbook (.xlsb), not .xlsx: "
                      "open it in Excel and save as .xlsx (Excel Workbook)")
    declared = 0
    for info in infos:
        if info.flag_bits & 0x1:
            raise _refuse(path, f"zip member {info.filename!r} is encrypted: "
                          "save the workbook without a password")
        declared += info.file_size
        if info.file_size > limits.ratio_floor_bytes:
            ratio = info.file_size / max(info.compress_size, 1)
            if ratio > limits.max_ratio:
                raise _refuse(path, f"zip bomb suspected: member {info.filename!r} expands "
                              f"{ratio:.0f}x ({_mb(info.compress_size)} -> "
                              f"{_mb(info.file_size)}), over the limit of {limits.max_ratio:g}x: "
                              "raise it with --max-ratio (or ROOFLINEXL_MAX_RATIO) "
                              "if you trust the file")
    if declared > limits.max_uncompressed_bytes:
        raise _refuse(path, f"zip bomb suspected: members declare {_mb(declared)} uncompressed, "
                      f"over the limit of {_mb(limits.max_uncompressed_bytes)}: raise it with "
                      "--max-uncompressed-mb (or ROOFLINEXL_MAX_UNCOMPRESSED_MB) "
                      "if you trust the file")
    wb = workbook_part(zf, names)
    if wb is None:
        raise _refuse(path, "zip archive without xl/workbook.xml: not an Excel .xlsx/.xlsm "
                      "workbook; save it from Excel as .xlsx")
    strings = _SharedStringsCheck(zf, names, wb)

    actual = 0
    for info in infos:
        if info.is_dir():
            continue
        with zf.open(info) as fh:
            lower = info.filename.lower()
            if info.filename in strings.members:
                data = fh.read()
                dtd, n = has_dtd(BytesReader(data))
                if not dtd:
                    strings.scan(info.filename, data)
                    zf.keep(info.filename, data)
                del data
                if dtd:
                    raise _refuse(path, f"XML part {info.filename!r} declares a DOCTYPE/ENTITY "
                                  "(entity-expansion bomb or external entity); refused, "
                                  "entities are never resolved: save the workbook again "
                                  "from Excel")
                actual += n
                continue
            head = b"" if lower.endswith(_XML_SUFFIXES) else fh.read(CHUNK)
            if not head or _looks_like_xml(head):  # XML by name or by content
                markers = (_ENTITY_MARKERS if lower.endswith(_DOCTYPE_OK_SUFFIXES)
                           else _DTD_MARKERS)
                dtd, n = has_dtd(fh, markers, head)
                if dtd:
                    raise _refuse(path, f"XML part {info.filename!r} declares a DOCTYPE/ENTITY "
                                  "(entity-expansion bomb or external entity); refused, "
                                  "entities are never resolved: save the workbook again "
                                  "from Excel")
            else:
                n = len(head)
                while True:
                    chunk = fh.read(CHUNK)
                    if not chunk:
                        break
                    n += len(chunk)
        actual += n
        if actual > limits.max_uncompressed_bytes:
            raise _refuse(path, f"zip bomb suspected: members expand beyond the limit of "
                          f"{_mb(limits.max_uncompressed_bytes)}: raise it with "
                          "--max-uncompressed-mb (or ROOFLINEXL_MAX_UNCOMPRESSED_MB) "
                          "if you trust the file")
    problem = strings.problem()
    if problem:
        raise _refuse(path, problem)


_EOCD = struct.Struct("<4s4H2LH")  # end of central directory record, 22 bytes
_EOCD64_LOCATOR = struct.Struct("<4sLQL")  # 20 bytes before the EOCD in a zip64 file
_EOCD64 = struct.Struct("<4sQ2H2L4Q")  # zip64 end of central directory record, 56 bytes
_CD_ENTRY = struct.Struct("<4s24x3H12x")  # a central directory entry's fixed 46 bytes


def _check_directory(path, fh, size: int, limits: Limits) -> None:
    """Refuse a zip whose central directory holds more than ``max_members`` entries,
    reading at most that many entry headers, before :mod:`zipfile` parses it whole.

    The entry count of the end-of-central-directory record (or its zip64
    twin) is checked first; since a tampered record can understate it, the
    directory's entries are then counted by walking their fixed-size headers,
    stopping after ``max_members + 1``. Anything that does not look like a
    zip is left for :mod:`zipfile` to refuse.
    """
    tail_len = min(size, _EOCD.size + 0xFFFF)
    fh.seek(size - tail_len)
    tail = fh.read(tail_len)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _EOCD.size:
        return
    _sig, _d, _cdd, _nd, entries, cd_size, _cd_off, _clen = _EOCD.unpack_from(tail, at)
    eocd = size - tail_len + at
    cd_end = eocd
    if at >= _EOCD64_LOCATOR.size:
        sig, _d, rec64, _n = _EOCD64_LOCATOR.unpack_from(tail, at - _EOCD64_LOCATOR.size)
        if sig == b"PK\x06\x07" and 0 <= rec64 <= size - _EOCD64.size:
            fh.seek(rec64)
            raw = fh.read(_EOCD64.size)
            if len(raw) == _EOCD64.size and raw[:4] == b"PK\x06\x06":
                fields = _EOCD64.unpack(raw)
                entries, cd_size = fields[7], fields[8]
                cd_end = eocd - _EOCD64_LOCATOR.size - _EOCD64.size
    too_many = (f"zip holds {{}} members, over the limit of {limits.max_members}: raise it "
                "with --max-members (or ROOFLINEXL_MAX_MEMBERS) if you trust the file")
    if entries > limits.max_members:
        raise _refuse(path, too_many.format(f"{entries:,}"))
    start = cd_end - cd_size
    if cd_size > size or start < 0:
        return  # zipfile says what is wrong with it
    fh.seek(start)
    count, pos = 0, start
    while pos + _CD_ENTRY.size <= cd_end:
        raw = fh.read(_CD_ENTRY.size)
        if len(raw) < _CD_ENTRY.size:
            break
        sig, n_name, n_extra, n_comment = _CD_ENTRY.unpack(raw)
        if sig != b"PK\x01\x02":
            break
        count += 1
        if count > limits.max_members:
            raise _refuse(path, too_many.format(f"more than {limits.max_members:,}"))
        pos += _CD_ENTRY.size + n_name + n_extra + n_comment
        fh.seek(pos)


def _open_checked(path, limits: Limits) -> Package:
    """Run every check of :func:`check_package` and return the open zip."""
    if not os.path.lexists(path):
        raise _refuse(path, "no such file: check the path")
    if not os.path.isfile(path):
        raise _refuse(path, "not a regular file (a directory?): give the path of an .xlsx file")
    bad = ("not an .xlsx workbook: not a zip archive, or a truncated/corrupt one ({}): "
           "save it again from Excel as .xlsx")
    try:
        size = os.path.getsize(path)
        if size > limits.max_file_bytes:
            raise _refuse(path, f"file is {_mb(size)}, over the limit of "
                          f"{_mb(limits.max_file_bytes)}: raise it with --max-file-mb "
                          "(or ROOFLINEXL_MAX_FILE_MB) if you trust the file")
        with open(path, "rb") as fh:
            head = fh.read(8)
            if head != _OLE_MAGIC:
                _check_directory(path, fh, size, limits)
    except OSError as exc:
        raise _refuse(path, f"cannot read: {exc.strerror or exc}") from None
    if head == _OLE_MAGIC:
        raise _scan_ole(path)
    try:
        zf = Package(path)
    except zipfile.BadZipFile as exc:
        raise _refuse(path, bad.format(exc)) from None
    except OSError as exc:
        raise _refuse(path, bad.format(exc)) from None
    try:
        _check_open_zip(path, zf, limits)
    except UnusableWorkbookError:
        zf.close()
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError,
            ValueError) as exc:
        zf.close()
        raise _refuse(path, bad.format(exc)) from None
    except (NotImplementedError, RuntimeError) as exc:
        zf.close()
        raise _refuse(path, f"unsupported zip feature ({exc}): save it again from Excel as "
                      ".xlsx") from None
    except BaseException:
        zf.close()
        raise
    return zf


#: the packages open (and checked) in this context, by :func:`_identity`
_HELD: ContextVar[dict | None] = ContextVar("rooflinexl_open_packages", default=None)


def _identity(path, limits: Limits):
    """What makes a second open of ``path`` the same package: the file as it is now."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (os.path.realpath(path), st.st_ino, st.st_size, st.st_mtime_ns, limits)


@contextmanager
def open_package(path, limits: Limits = Limits()):
    """The checked, open zip of ``path``; refusals raised while reading it name ``path``.

    The package is opened and checked (:func:`check_package`) once per command:
    while the archive is open, a nested ``open_package`` of the same, unchanged
    file with the same limits (any reader or writer of this package) yields the
    same open archive instead of opening and checking the file again. A file
    replaced meanwhile (an in-place write) is a different package.

    Examples
    --------
    >>> import openpyxl, tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "b.xlsx"); openpyxl.Workbook().save(p)
    >>> with open_package(p) as zf, open_package(p) as again:
    ...     again is zf
    True
    """
    held = _HELD.get() or {}
    key = _identity(path, limits)
    if key is not None and key in held:
        yield held[key]
        return
    zf = _open_checked(path, limits)
    prefix = f"{os.fspath(path)}: "
    token = _HELD.set({**held, key: zf}) if key is not None else None
    try:
        with zf:
            yield zf
    except UnusableWorkbookError as exc:
        if str(exc).startswith(prefix):
            raise
        raise UnusableWorkbookError(prefix + str(exc)) from None
    finally:
        if token is not None:
            _HELD.reset(token)


def check_package(path, limits: Limits = Limits()) -> None:
    """Refuse anything that is not a readable .xlsx/.xlsm package within limits.

    Parameters
    ----------
    path : str or os.PathLike
        The workbook file.
    limits : Limits, optional
        Size, ratio and member-count limits (defaults: 200 MB file, 1 GiB
        uncompressed, ratio 200, 10,000 members).

    Returns
    -------
    None
        When the package is usable.

    Raises
    ------
    UnusableWorkbookError
        With one line naming the problem and what to do: missing file, not a
        file, password-encrypted workbook (an OLE2 container with an
        ``EncryptionInfo`` stream), legacy ``.xls``, ``.ods``, ``.xlsb``, not a
        zip or a truncated/corrupt one (including a CRC failure while reading),
        a zip without ``xl/workbook.xml``, a zip bomb (declared or actual
        uncompressed total over ``max_uncompressed_bytes``, a member above
        ``max_ratio``), a file over ``max_file_bytes``, too many members, or an
        ``.xml``/``.rels`` part with a DOCTYPE/ENTITY declaration.

    Notes
    -----
    Every member is decompressed once (CRC-checked, sizes counted); XML parts
    are scanned for ``<!DOCTYPE``/``<!ENTITY`` in ASCII and UTF-16 without
    being parsed. Nothing is resolved, nothing touches the network.

    Examples
    --------
    >>> check_package("/no/such/book.xlsx")
    Traceback (most recent call last):
    ...
    rooflinexl.ooxml.package.UnusableWorkbookError: /no/such/book.xlsx: no such file: check the path
    """
    with open_package(path, limits):
        pass


# --------------------------------------------------------------------------
# package structure: workbook part, relationships, sheets
# --------------------------------------------------------------------------


def parse_xml(data: bytes, part: str):
    """Parse a small XML part, refusing DTDs (defusedxml when installed)."""
    found, _ = has_dtd(BytesReader(data))
    if found:
        raise UnusableWorkbookError(f"XML part {part!r} declares a DOCTYPE/ENTITY; refused")
    try:
        return _ET.fromstring(data, **_PARSE_KW)
    except _XML_ERRORS as exc:
        raise UnusableWorkbookError(f"malformed XML in part {part!r} ({exc}): "
                                    "save the workbook again from Excel") from None


class BytesReader:
    """Minimal ``read(n)`` over bytes without copying into BytesIO."""

    def __init__(self, data: bytes):
        self._data = memoryview(data)
        self._pos = 0

    def read(self, n: int = -1) -> bytes:
        end = len(self._data) if n < 0 else self._pos + n
        out = bytes(self._data[self._pos:end])
        self._pos += len(out)
        return out


def local_name(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _rels_part(part: str) -> str:
    d, b = posixpath.split(part)
    return posixpath.join(d, "_rels", b + ".rels")


def _resolve_target(source_part: str, target: str) -> str:
    """Part name a relationship target points to (absolute or relative)."""
    if target.startswith("/"):
        part = target.lstrip("/")
    else:
        part = posixpath.join(posixpath.dirname(source_part), target)
    part = posixpath.normpath(part)
    return "" if part.startswith("..") else part


def relationships(zf, names, source_part: str) -> list[tuple[str, str, str]]:
    """[(Id, Type, resolved part)] of the internal relationships of ``source_part``."""
    member = find_member(names, _rels_part(source_part)) if source_part else find_member(
        names, "_rels/.rels")
    if member is None:
        return []
    root = parse_xml(zf.read(member), member)
    out = []
    for el in root.iter():
        if local_name(el.tag) != "Relationship":
            continue
        if (el.get("TargetMode") or "").lower() == "external":
            continue
        target = el.get("Target") or ""
        out.append((el.get("Id") or "", el.get("Type") or "", _resolve_target(source_part, target)))
    return out


def _root_targets(zf, names, kind: str) -> list[str | None]:
    """The members the package's own relationships (``_rels/.rels``) of type ``kind``
    (``officeDocument``, ``extended-properties`` ...) point to, in order; None for a
    target that is not in the package. Unreadable relationships count as none."""
    try:
        rels = relationships(zf, names, "")
    except UnusableWorkbookError:
        rels = []
    return [find_member(names, part) for _id, typ, part in rels if typ.endswith("/" + kind)]


def workbook_part(zf, names) -> str | None:
    """Member name of the workbook part (via _rels/.rels, else xl/workbook.xml)."""
    for hit in _root_targets(zf, names, "officeDocument"):
        if hit is not None and hit.lower().endswith(".xml"):
            return hit
    return find_member(names, "xl/workbook.xml")


def application(zf, names) -> str | None:
    """The application that saved the package: docProps/app.xml's ``<Application>`` text
    (ECMA-376 Part 1, 22.2.2.2), e.g. ``"Microsoft Macintosh Excel"``; None without one.

    Examples
    --------
    >>> import io, zipfile
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as z:
    ...     z.writestr("docProps/app.xml", "<Properties><Application>Microsoft Excel"
    ...                "</Application></Properties>")
    >>> with zipfile.ZipFile(buf) as z:
    ...     application(z, names_map(z))
    'Microsoft Excel'
    """
    targets = _root_targets(zf, names, "extended-properties")
    member = (targets[-1] if targets else None) or find_member(names, "docProps/app.xml")
    if member is None:
        return None
    for el in parse_xml(zf.read(member), member):
        if local_name(el.tag) == "Application":
            return (el.text or "").strip() or None
    return None


def external_link_parts(zf, names: dict):
    """``(n, root)`` of each external link part the package holds: ``n`` the 1-based index
    formulas write as ``[n]`` (the order of ``<externalReference>`` in the workbook part,
    ECMA-376 Part 1, 18.2.9), ``root`` the parsed externalLink part (18.14)."""
    wb = workbook_part(zf, names)
    if wb is None:
        return
    rels = {rid: (typ, part) for rid, typ, part in relationships(zf, names, wb)}
    n = 0
    for el in parse_xml(zf.read(wb), wb).iter():
        if local_name(el.tag) != "externalReference":
            continue
        n += 1
        rid = next((v for k, v in el.attrib.items() if local_name(k) == "id"), None)
        typ, part = rels.get(rid, ("", ""))
        member = find_member(names, part) if typ.endswith("/externalLink") else None
        if member is not None:
            yield n, parse_xml(zf.read(member), member)


def external_names(zf, names_map) -> dict[tuple[int, str, str], str | None]:
    """The defined names other workbooks have, as the package keeps them: ``(n, SHEET,
    NAME) -> refersTo`` (``SHEET`` ``""`` for a workbook-scope name; ``refersTo`` None for
    a name kept without one, which Excel shows as ``#NAME?``: the formulas project's
    test.xlsx caches ``#NAME?`` for ``=[2]!A`` with ``<definedName name="A"/>``).

    >>> import io, zipfile
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as z:
    ...     z.writestr("xl/workbook.xml", '<workbook xmlns:r="urn:r"><externalReferences>'
    ...                '<externalReference r:id="rId9"/></externalReferences></workbook>')
    ...     z.writestr("xl/_rels/workbook.xml.rels", '<Relationships><Relationship Id="rId9" '
    ...                'Type="x/externalLink" Target="externalLinks/externalLink1.xml"/>'
    ...                '</Relationships>')
    ...     z.writestr("xl/externalLinks/externalLink1.xml", '<externalLink><externalBook>'
    ...                '<sheetNames><sheetName val="S"/></sheetNames><definedNames>'
    ...                '<definedName name="R" refersTo="=S!$A$1:$B$2"/><definedName name="A"/>'
    ...                '</definedNames></externalBook></externalLink>')
    >>> with zipfile.ZipFile(buf) as z:
    ...     external_names(z, names_map(z))
    {(1, '', 'R'): '=S!$A$1:$B$2', (1, '', 'A'): None}
    """
    out: dict[tuple[int, str, str], str | None] = {}
    for n, root in external_link_parts(zf, names_map):
        sheets = [x.get("val") or "" for x in root.iter() if local_name(x.tag) == "sheetName"]
        for name in root.iter():
            if local_name(name.tag) != "definedName" or not name.get("name"):
                continue
            try:
                scope = sheets[int(name.get("sheetId"))].upper() if name.get(
                    "sheetId") is not None else ""
            except (ValueError, IndexError):
                continue
            out[(n, scope, name.get("name").upper())] = name.get("refersTo")
    return out


def external_cells(zf, names=None) -> dict[tuple[int, str, str], object]:
    """The cached values of other workbooks' cells that the package keeps, keyed by
    ``(n, SHEET, "A1")``: ``n`` the 1-based index that formulas write as ``[n]`` (the order
    of ``<externalReference>`` in the workbook part), the sheet name upper case. Excel
    computes ``[1]Sheet1!A1`` from these values (ECMA-376 Part 1, 18.14: externalLink
    part, ``<sheetDataSet>``) until the link is refreshed. Numbers are floats, ``t="b"``
    booleans, ``t="str"`` text, ``t="e"`` an :class:`~rooflinexl.errors.ExcelError`; a
    cell of another type is left out (it stays an unresolved reference). A defined name of
    the other workbook that refers to one cell with a cached value is keyed
    ``(n, "", NAME)`` (workbook scope, ``[1]!Name``) or ``(n, SHEET, NAME)`` (``sheetId``
    scope, ``[1]Sheet1!Name``).

    >>> import io, zipfile
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as z:
    ...     z.writestr("xl/workbook.xml", '<workbook xmlns:r="urn:r"><externalReferences>'
    ...                '<externalReference r:id="rId9"/></externalReferences></workbook>')
    ...     z.writestr("xl/_rels/workbook.xml.rels", '<Relationships><Relationship Id="rId9" '
    ...                'Type="x/externalLink" Target="externalLinks/externalLink1.xml"/>'
    ...                '</Relationships>')
    ...     z.writestr("xl/externalLinks/externalLink1.xml", '<externalLink><externalBook>'
    ...                '<sheetNames><sheetName val="Sheet1"/></sheetNames><sheetDataSet>'
    ...                '<sheetData sheetId="0"><row r="1"><cell r="A1"><v>2</v></cell>'
    ...                '<cell r="B1" t="str"><v>x</v></cell></row></sheetData></sheetDataSet>'
    ...                '</externalBook></externalLink>')
    >>> with zipfile.ZipFile(buf) as z:
    ...     external_cells(z)
    {(1, 'SHEET1', 'A1'): 2.0, (1, 'SHEET1', 'B1'): 'x'}
    """
    from rooflinexl.errors import ExcelError

    out: dict[tuple[int, str, str], object] = {}
    for n, root in external_link_parts(zf, names or names_map(zf)):
        sheet_names = [x.get("val") or "" for x in root.iter() if local_name(x.tag) == "sheetName"]
        for data in root.iter():
            if local_name(data.tag) != "sheetData":
                continue
            try:
                sheet = sheet_names[int(data.get("sheetId") or "")].upper()
            except (ValueError, IndexError):
                continue
            for cell in data.iter():
                if local_name(cell.tag) != "cell":
                    continue
                v = next((x.text for x in cell if local_name(x.tag) == "v"), None)
                t, ref = cell.get("t") or "n", (cell.get("r") or "").upper()
                if v is None or not ref:
                    continue
                if t == "n":
                    try:
                        value: object = float(v)
                    except ValueError:
                        continue
                    if not math.isfinite(value):
                        continue
                elif t == "b" and v in ("0", "1"):
                    value = v == "1"
                elif t == "str":
                    value = v
                elif t == "e":
                    value = ExcelError(v, f"cached for [{n}]{sheet}!{ref} in the external link")
                else:
                    continue
                out[(n, sheet, ref)] = value
        for name in root.iter():  # a name of one cell: that cell's value
            m = _EXTERNAL_NAME.match(name.get("refersTo") or "")
            if local_name(name.tag) != "definedName" or m is None or not name.get("name"):
                continue
            target = (n, (m.group(1) or m.group(2)).replace("''", "'").upper(),
                      m.group(3).replace("$", "").upper())
            try:
                scope = sheet_names[int(name.get("sheetId"))].upper() if name.get(
                    "sheetId") is not None else ""
            except (ValueError, IndexError):
                continue
            if target in out:
                out[(n, scope, name.get("name").upper())] = out[target]
    return out


_EXTERNAL_NAME = re.compile(r"^=(?:'((?:[^']|'')+)'|([^'!]+))!(\$?[A-Za-z]{1,3}\$?\d+)$")


def sheet_members(zf, names=None) -> dict[str, str]:
    names = names or names_map(zf)
    wb = workbook_part(zf, names)
    if wb is None:
        raise UnusableWorkbookError("zip archive without xl/workbook.xml")
    rels = {rid: (typ, part) for rid, typ, part in relationships(zf, names, wb)}
    root = parse_xml(zf.read(wb), wb)
    out: dict[str, str] = {}
    for el in root.iter():
        if local_name(el.tag) != "sheet":
            continue
        name = el.get("name")
        rid = next((v for k, v in el.attrib.items()
                    if local_name(k) == "id" and "relationships" in k), None)
        if name is None or rid is None or rid not in rels:
            continue
        typ, part = rels[rid]
        if not typ.endswith("/worksheet"):
            continue  # chartsheets, dialog and macro sheets hold no formula cells we stamp
        member = find_member(names, part)
        if member is None:
            raise UnusableWorkbookError(f"sheet {name!r} points to missing part {part!r}: "
                                        "the package is broken; save it again from Excel")
        out[name] = member
    return out


def sheet_parts(path, *, limits: Limits = Limits()) -> dict[str, str]:
    """Map each worksheet name to the zip member holding its XML.

    Parameters
    ----------
    path : str or os.PathLike
        An .xlsx/.xlsm workbook; checked with :func:`check_package` first.
    limits : Limits, optional
        Passed to :func:`check_package`.

    Returns
    -------
    dict of str to str
        ``{sheet name: member name}`` in workbook order, worksheets only
        (chartsheets are left out). Resolved through ``xl/workbook.xml`` and
        its relationships; absolute (``/xl/worksheets/sheet1.xml``) and
        relative (``worksheets/sheet1.xml``) targets both work.

    Examples
    --------
    >>> import openpyxl, tempfile, os
    >>> wb = openpyxl.Workbook(); wb.active.title = "Calc"
    >>> p = os.path.join(tempfile.mkdtemp(), "b.xlsx"); wb.save(p)
    >>> sheet_parts(p)
    {'Calc': 'xl/worksheets/sheet1.xml'}
    """
    with open_package(path, limits) as zf:
        return sheet_members(zf)


