"""Safe reading of .xlsx/.xlsm packages and stamping of cached values.

The headless engine (DESIGN.md section 7) computes every formula and must hand
the results to Excel, LibreOffice, pandas and ``openpyxl(data_only=True)``
without disturbing anything else in the user's workbook. This module does
both halves of the file work:

* :func:`check_package` refuses, with one line that says what to do, anything
  that is not a readable Office Open XML spreadsheet within resource limits:
  legacy ``.xls``, password-encrypted workbooks, ``.xlsb``, ``.ods``, truncated
  or corrupt zips, zip bombs and XML carrying a DOCTYPE (entity-expansion bombs,
  external entities). Entities are never resolved and nothing touches the
  network.
* :func:`stamp_cached_values` writes computed values as the cached ``<v>`` of
  the formula cells of the *original* file. It edits the sheet XML with a
  byte-level scanner, so every byte outside the ``<v>`` element and ``t``
  attribute of the targeted cells stays as it was (dynamic-array ``cm="1"``,
  shared and array formulas, namespaces, whitespace), and copies every other
  zip member unchanged.
* :func:`formula_cells`, :func:`read_cached_values` and :func:`sheet_parts`
  read a package back.

Only the standard library (plus numpy scalar types, and defusedxml when it is
installed) is used.
"""
from __future__ import annotations

import heapq
import math
import os
import posixpath
import re
import secrets
import shutil
import stat
import struct
import zipfile
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import unquote
from xml.etree.ElementTree import ParseError

import numpy as np

from rooflinexl.errors import EXCEL_ERRORS, ExcelError, RooflineError, WriteError

try:  # pragma: no cover - exercised whichever way the environment is set up
    from defusedxml import DefusedXmlException
    from defusedxml import ElementTree as _ET

    _PARSE_KW = {"forbid_dtd": True}
    _XML_ERRORS: tuple[type[Exception], ...] = (ParseError, DefusedXmlException)
except ImportError:  # pragma: no cover
    from xml.etree import ElementTree as _ET

    _PARSE_KW = {}
    _XML_ERRORS = (ParseError,)

__all__ = [
    "Limits",
    "UnusableWorkbookError",
    "atomic_write",
    "check_package",
    "formula_cells",
    "output_path",
    "read_cached_values",
    "rewrite_formulas",
    "sheet_parts",
    "stamp_cached_values",
]

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
_CHUNK = _MIB
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
            chunk = fh.read(_CHUNK)
            if not chunk:
                break
            if _ENCRYPTION_INFO in tail + chunk:
                return _refuse(path, "encrypted (password-protected) workbook: "
                               "save it without a password (File > Info > Protect Workbook "
                               "> Encrypt with Password, clear it) and try again")
            tail = chunk[-overlap:]
    return _refuse(path, "legacy Excel 97-2003 .xls workbook (OLE2 container): "
                   "open it in Excel or LibreOffice and save as .xlsx")


def _has_dtd(stream, markers=_DTD_MARKERS, first: bytes = b"") -> tuple[bool, int]:
    """(whether an XML stream declares a DOCTYPE or ENTITY, bytes read).

    Any case, UTF-8/ASCII or UTF-16 in either byte order; reads in chunks.
    ``first`` is data already read from the stream (scanned, and counted).
    """
    tail = b""
    total = 0
    keep = max(len(m) for m in markers) - 1
    found = False
    while True:
        chunk, first = (first or stream.read(_CHUNK)), b""
        if not chunk:
            break
        total += len(chunk)
        if not found:
            window = (tail + chunk).lower()
            if any(m in window for m in markers):
                found = True
            tail = chunk[-keep:]
    return found, total


def _names_map(zf: zipfile.ZipFile) -> dict[str, str]:
    """Lower-cased member name -> actual member name (OPC part names ignore case)."""
    return {n.lower(): n for n in zf.namelist()}


def _member(names: dict[str, str], part: str) -> str | None:
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
            rels = _relationships(zf, names, wb)
        except UnusableWorkbookError:
            rels = []
        for _id, typ, part in rels:
            member = _member(names, part)
            if member is None:
                continue
            if typ.endswith("/sharedStrings"):
                self.sst = member
            elif typ.endswith("/worksheet"):
                sheets.add(member)
        if self.sst is None:
            self.sst = _member(names, "xl/sharedStrings.xml")
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


def _check_open_zip(path, zf: zipfile.ZipFile, limits: Limits) -> None:
    """Structure, format and size checks on an open zip; reads every member."""
    infos = zf.infolist()
    if len(infos) > limits.max_members:
        raise _refuse(path, f"zip holds {len(infos)} members, over the limit of "
                      f"{limits.max_members}: raise it with --max-members "
                      "(or ROOFLINEXL_MAX_MEMBERS) if you trust the file")
    names = _names_map(zf)
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
    wb = _workbook_part(zf, names)
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
                dtd, n = _has_dtd(_BytesReader(data))
                if not dtd:
                    strings.scan(info.filename, data)
                del data
                if dtd:
                    raise _refuse(path, f"XML part {info.filename!r} declares a DOCTYPE/ENTITY "
                                  "(entity-expansion bomb or external entity); refused, "
                                  "entities are never resolved: save the workbook again "
                                  "from Excel")
                actual += n
                continue
            head = b"" if lower.endswith(_XML_SUFFIXES) else fh.read(_CHUNK)
            if not head or _looks_like_xml(head):  # XML by name or by content
                markers = (_ENTITY_MARKERS if lower.endswith(_DOCTYPE_OK_SUFFIXES)
                           else _DTD_MARKERS)
                dtd, n = _has_dtd(fh, markers, head)
                if dtd:
                    raise _refuse(path, f"XML part {info.filename!r} declares a DOCTYPE/ENTITY "
                                  "(entity-expansion bomb or external entity); refused, "
                                  "entities are never resolved: save the workbook again "
                                  "from Excel")
            else:
                n = len(head)
                while True:
                    chunk = fh.read(_CHUNK)
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


def _open_checked(path, limits: Limits) -> zipfile.ZipFile:
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
        zf = zipfile.ZipFile(path)
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


@contextmanager
def _package(path, limits: Limits):
    """The checked, open zip; refusals raised while reading it name ``path``."""
    zf = _open_checked(path, limits)
    prefix = f"{os.fspath(path)}: "
    try:
        with zf:
            yield zf
    except UnusableWorkbookError as exc:
        if str(exc).startswith(prefix):
            raise
        raise UnusableWorkbookError(prefix + str(exc)) from None


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
    rooflinexl.xlsxio.UnusableWorkbookError: /no/such/book.xlsx: no such file: check the path
    """
    _open_checked(path, limits).close()


# --------------------------------------------------------------------------
# package structure: workbook part, relationships, sheets
# --------------------------------------------------------------------------


def _parse_xml(data: bytes, part: str):
    """Parse a small XML part, refusing DTDs (defusedxml when installed)."""
    found, _ = _has_dtd(_BytesReader(data))
    if found:
        raise UnusableWorkbookError(f"XML part {part!r} declares a DOCTYPE/ENTITY; refused")
    try:
        return _ET.fromstring(data, **_PARSE_KW)
    except _XML_ERRORS as exc:
        raise UnusableWorkbookError(f"malformed XML in part {part!r} ({exc}): "
                                    "save the workbook again from Excel") from None


class _BytesReader:
    """Minimal ``read(n)`` over bytes without copying into BytesIO."""

    def __init__(self, data: bytes):
        self._data = memoryview(data)
        self._pos = 0

    def read(self, n: int = -1) -> bytes:
        end = len(self._data) if n < 0 else self._pos + n
        out = bytes(self._data[self._pos:end])
        self._pos += len(out)
        return out


def _local(tag: str) -> str:
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


def _relationships(zf, names, source_part: str) -> list[tuple[str, str, str]]:
    """[(Id, Type, resolved part)] of the internal relationships of ``source_part``."""
    member = _member(names, _rels_part(source_part)) if source_part else _member(
        names, "_rels/.rels")
    if member is None:
        return []
    root = _parse_xml(zf.read(member), member)
    out = []
    for el in root.iter():
        if _local(el.tag) != "Relationship":
            continue
        if (el.get("TargetMode") or "").lower() == "external":
            continue
        target = el.get("Target") or ""
        out.append((el.get("Id") or "", el.get("Type") or "", _resolve_target(source_part, target)))
    return out


def _workbook_part(zf, names) -> str | None:
    """Member name of the workbook part (via _rels/.rels, else xl/workbook.xml)."""
    try:
        rels = _relationships(zf, names, "")
    except UnusableWorkbookError:
        rels = []
    for _id, typ, part in rels:
        if typ.endswith("/officeDocument"):
            hit = _member(names, part)
            if hit is not None and hit.lower().endswith(".xml"):
                return hit
    return _member(names, "xl/workbook.xml")


def _sheet_parts_zf(zf, names=None) -> dict[str, str]:
    names = names or _names_map(zf)
    wb = _workbook_part(zf, names)
    if wb is None:
        raise UnusableWorkbookError("zip archive without xl/workbook.xml")
    rels = {rid: (typ, part) for rid, typ, part in _relationships(zf, names, wb)}
    root = _parse_xml(zf.read(wb), wb)
    out: dict[str, str] = {}
    for el in root.iter():
        if _local(el.tag) != "sheet":
            continue
        name = el.get("name")
        rid = next((v for k, v in el.attrib.items()
                    if _local(k) == "id" and "relationships" in k), None)
        if name is None or rid is None or rid not in rels:
            continue
        typ, part = rels[rid]
        if not typ.endswith("/worksheet"):
            continue  # chartsheets, dialog and macro sheets hold no formula cells we stamp
        member = _member(names, part)
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
    with _package(path, limits) as zf:
        return _sheet_parts_zf(zf)


# --------------------------------------------------------------------------
# sheet XML scanner (bytes, no re-serialisation)
# --------------------------------------------------------------------------

# attribute text of a start tag: quoted values may hold '>' or '/'
_ATTRS = rb"""(?:[^>"'/]|"[^"]*"|'[^']*'|/(?!>))*"""
_PFX = rb"(?:[A-Za-z_][\w.\-]*:)?"
_SHEETDATA_RE = re.compile(rb"<(" + _PFX + rb")sheetData(?=[\s/>])" + _ATTRS + rb"(/?)>")
# a cell element (cells never nest) or a row start tag
# (group r catches the usual leading r="B7" so that most cells need no second regex)
_CELL_OR_ROW_RE = re.compile(
    rb"<(?:(?P<p>" + _PFX + rb")c(?P<ca>(?:\s+r\s*=\s*\"(?P<r>[^\"]*)\")?(?:\s" + _ATTRS + rb")?)"
    rb"(?:/>|>(?P<body>.*?)</(?P=p)c\s*>)"
    rb"|" + _PFX + rb"row(?P<ra>(?:\s+r\s*=\s*\"(?P<rr>[0-9]+)\")?(?:\s" + _ATTRS + rb")?)/?>)",
    re.DOTALL,
)
# same plus row end tags, for structural edits (inserting cells and rows)
_STRUCT_RE = re.compile(
    rb"<(?:(?P<p>" + _PFX + rb")c(?P<ca>(?:\s" + _ATTRS + rb")?)"
    rb"(?:/>|>(?P<body>.*?)</(?P=p)c\s*>)"
    rb"|(?P<rp>" + _PFX + rb")row(?P<ra>(?:\s" + _ATTRS + rb")?)(?P<rse>/?)>"
    rb"|(?P<re>/" + _PFX + rb"row\s*>))",
    re.DOTALL,
)
_R_ATTR = re.compile(rb"""(?:^|\s)r\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_T_ATTR = re.compile(rb"""(\s)t\s*=\s*(?:"[^"]*"|'[^']*')""")
_T_VAL = re.compile(rb"""(?:^|\s)t\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_REF_ATTR = re.compile(rb"""(?:^|\s)ref\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_CELL_REF = re.compile(r"\$?([A-Za-z]{1,3})\$?([1-9][0-9]{0,6})")
_CELL_REF_B = re.compile(rb"([A-Za-z]{1,3})([0-9]+)")
_ENC_DECL = re.compile(rb"""<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']""")

_child_cache: dict[bytes, tuple[re.Pattern, re.Pattern, re.Pattern]] = {}


def _child_res(p: bytes):
    """Regexes for the <f>, <v> and <is> children of a cell with prefix ``p``."""
    hit = _child_cache.get(p)
    if hit is None:
        q = re.escape(p)

        def elem(name: bytes) -> re.Pattern:
            return re.compile(rb"<" + q + name + rb"(?P<a>(?:\s" + _ATTRS + rb")?)"
                              rb"(?:/>|>(?P<t>.*?)</" + q + name + rb"\s*>)", re.DOTALL)

        hit = _child_cache[p] = (elem(b"f"), elem(b"v"), elem(b"is"))
    return hit


def _attr(rx: re.Pattern, attrs: bytes) -> bytes | None:
    m = rx.search(attrs)
    if m is None:
        return None
    return m.group(1) if m.group(1) is not None else m.group(2)


def _col_num(letters: bytes | str) -> int:
    n = 0
    for ch in letters.upper() if isinstance(letters, str) else letters.upper().decode("ascii"):
        n = n * 26 + ord(ch) - 64
    return n


def _col_letters(n: int) -> str:
    s = ""
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


def _split_ref(ref: bytes) -> tuple[int, int]:
    """(row, column) of b'B7'; UnusableWorkbookError for a malformed r attribute."""
    m = _CELL_REF_B.fullmatch(ref)
    if m is None:
        raise UnusableWorkbookError(f"bad cell reference {ref.decode('utf-8', 'replace')!r} in "
                                    "the sheet XML: save the workbook again from Excel")
    return int(m.group(2)), _col_num(m.group(1))


def _parse_range(ref: bytes) -> tuple[int, int, int, int] | None:
    """(row0, col0, row1, col1) of 'B2:C4' or 'B2'; None when unparsable."""
    try:
        parts = ref.replace(b"$", b"").strip().split(b":")
        (r0, c0), (r1, c1) = _split_ref(parts[0]), _split_ref(parts[-1])
    except UnusableWorkbookError:
        return None
    return min(r0, r1), min(c0, c1), max(r0, r1), max(c0, c1)


def _sheet_data_span(data: bytes, part: str) -> tuple[int, int, bytes]:
    """(start, end, prefix) of the content of <sheetData>; start == end if empty."""
    head = data[:4]
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(head) == 4
                                                   and (head[0] == 0 or head[1] == 0)):
        raise UnusableWorkbookError(f"sheet part {part!r} is UTF-16 encoded, which rooflinexl "
                                    "does not edit: save the workbook again from Excel")
    enc = _ENC_DECL.match(data.lstrip(b"\xef\xbb\xbf")[:200])
    if enc and enc.group(1).lower().replace(b"-", b"").replace(b"_", b"") not in (
            b"utf8", b"ascii", b"usascii"):
        raise UnusableWorkbookError(f"sheet part {part!r} is {enc.group(1).decode()!s}-encoded, "
                                    "which rooflinexl does not edit: save it again from Excel")
    m = _SHEETDATA_RE.search(data)
    if m is None:
        return len(data), len(data), b""
    if m.group(2):
        return m.end(), m.end(), m.group(1)
    close = data.find(b"</" + m.group(1) + b"sheetData", m.end())
    if close < 0:
        raise UnusableWorkbookError(f"sheet part {part!r} has no </sheetData>: the file is "
                                    "broken; save it again from Excel")
    return m.end(), close, m.group(1)


def _iter_cells(data: bytes, lo: int, hi: int):
    """Yield (ref, prefix, attrs, body, match) for every cell in data[lo:hi].

    ``ref`` is upper-case bytes; ``body`` is None for a self-closing cell. A
    missing ``r`` on a row or cell is computed from the previous row/cell, as
    the specification allows.
    """
    row = 0
    prev: bytes | int | None = None  # previous cell of this row: its ref, or its column
    for m in _CELL_OR_ROW_RE.finditer(data, lo, hi):
        p, ca, r, body, ra = m.group("p", "ca", "r", "body", "ra")
        if ca is None:  # a row start tag
            r = m.group("rr") or _attr(_R_ATTR, ra)
            row = int(r) if r is not None and r.strip().isdigit() else row + 1
            prev = None
            continue
        if r is None and ca:
            r = _attr(_R_ATTR, ca)
        if r is not None:
            ref = r if r.isupper() else r.upper()
            prev = ref
        else:
            if prev is None:
                col = 1
            elif isinstance(prev, int):
                col = prev + 1
            else:
                col = _split_ref(prev)[1] + 1
            prev = col
            ref = (_col_letters(col) + str(row)).encode("ascii")
        yield ref, p, ca, body, m


def _array_range(p: bytes, body: bytes):
    """The (r0, c0, r1, c1) of an array formula in this cell body, else None."""
    if b"array" not in body:
        return None
    fm = _child_res(p)[0].search(body)
    if fm is None or _attr(_T_VAL, fm.group("a")) != b"array":
        return None
    ref = _attr(_REF_ATTR, fm.group("a"))
    return _parse_range(ref) if ref else None


def _covered(ranges, cells) -> set:
    """The keys of ``cells`` [(row, col, key)] that lie inside one of ``ranges``.

    A sweep over rows keeps only the ranges spanning the current row active, so
    many one-cell dynamic arrays cost no more than a few large ones.
    """
    out = set()
    if not ranges or not cells:
        return out
    ranges = sorted(ranges)
    active: list[tuple[int, int, int]] = []  # heap of (r1, c0, c1)
    i = 0
    for row, col, key in sorted(cells, key=lambda c: (c[0], c[1])):
        while i < len(ranges) and ranges[i][0] <= row:
            _r0, c0, r1, c1 = ranges[i]
            heapq.heappush(active, (r1, c0, c1))
            i += 1
        while active and active[0][0] < row:
            heapq.heappop(active)
        if any(c0 <= col <= c1 for _r1, c0, c1 in active):
            out.add(key)
    return out


# --------------------------------------------------------------------------
# value encoding / decoding
# --------------------------------------------------------------------------

#: Error values a cell may cache with t="e" (ECMA-376 ST_CellErrorValue set).
_ERROR_VALUES = frozenset(EXCEL_ERRORS) | {"#GETTING_DATA"}
_XSTR_ESCAPE = re.compile(
    "_(?=x[0-9A-Fa-f]{4}_)|[\x00-\x08\x0b\x0c\x0d\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_XSTR_UNESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")
_ENTITY = re.compile(r"&(#[0-9]+|#x[0-9A-Fa-f]+|lt|gt|amp|quot|apos);")
_ENTITY_MAP = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'"}


_NEEDS_ESCAPE = re.compile("[&<>_\x00-\x1f\ud800-\udfff\ufffe\uffff]")


def _escape_text(s: str) -> str:
    """XML text with Excel's _xHHHH_ escapes for characters XML cannot carry.

    Examples
    --------
    >>> _escape_text("a<b & _x0041_" + chr(13))
    'a&lt;b &amp; _x005F_x0041__x000D_'
    """
    if _NEEDS_ESCAPE.search(s) is None:
        return s
    s = _XSTR_ESCAPE.sub(lambda m: "_x005F_" if m.group() == "_" else f"_x{ord(m.group()):04X}_", s)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _unescape_xml(s: str) -> str:
    if "&" not in s:
        return s

    def sub(m):
        e = m.group(1)
        if e[0] == "#":
            return chr(int("0" + e[1:], 0) if e[1] in "xX" else int(e[1:]))
        return _ENTITY_MAP[e]

    return _ENTITY.sub(sub, s)


def _unescape_xstring(s: str) -> str:
    return _XSTR_UNESCAPE.sub(lambda m: chr(int(m.group(1), 16)), s) if "_x" in s else s


def _fmt_number(x: float) -> str:
    """Shortest round-trip text of a finite float; integers without '.0'.

    Examples
    --------
    >>> [_fmt_number(x) for x in (5.0, 318.1552864301085, 3.1e-05, 1e+16, -0.5)]
    ['5', '318.1552864301085', '3.1e-05', '1e+16', '-0.5']
    """
    r = repr(x)
    return r.removesuffix(".0")


def _encode_value(value, where: tuple[str, str]) -> tuple[bytes | None, bytes | None]:
    """(t attribute value or None, <v> text or None) for a Python value.

    ``where`` = (sheet, cell), only formatted into an error message.
    """
    if type(value) is float:  # the common case first
        if value - value == 0.0:  # finite
            return None, _fmt_number(value).encode("ascii")
    elif value is None:
        return None, None
    elif isinstance(value, (bool, np.bool_)):
        return b"b", b"1" if value else b"0"
    if isinstance(value, ExcelError) or (isinstance(value, str) and value in _ERROR_VALUES):
        return b"e", str(value).encode("ascii")
    if isinstance(value, str):
        return b"str", _escape_text(value).encode("utf-8")
    if isinstance(value, (int, float, np.integer, np.floating)):
        x = float(value)
        if not math.isfinite(x):
            raise ValueError(f"{where[0]}!{where[1]}: {value!r} is not finite; an Excel cell "
                             "cannot hold it (pass ExcelError('#NUM!') instead)")
        return None, _fmt_number(x).encode("ascii")
    raise TypeError(f"{where[0]}!{where[1]}: cannot store a {type(value).__name__} as a cached "
                    "value (use bool, int, float, str, ExcelError or None)")


def _decode_value(t: bytes | None, text: str | None, shared: list[str] | None):
    """Python value of a cached cell value."""
    t = (t or b"n").decode("ascii", "replace")
    if text is None:
        return None
    if t == "str":
        return _unescape_xstring(_unescape_xml(text))
    if t == "inlineStr":
        return text
    text = _unescape_xml(text)
    if text == "":
        return None
    if t == "b":
        return text.strip().lower() in ("1", "true")
    if t == "e":
        code = text.strip()
        return ExcelError(code) if code in EXCEL_ERRORS else code
    if t == "s":
        try:
            return (shared or [])[int(text)]
        except (ValueError, IndexError):
            return None
    if t == "d":
        return text
    try:
        return float(text)
    except ValueError:
        return text


# --------------------------------------------------------------------------
# stamping
# --------------------------------------------------------------------------


_CANON_REF = re.compile(r"[A-Z]{1,3}[1-9][0-9]{0,6}")
_CANON_REFS = re.compile(r"[A-Z]{1,3}[1-9][0-9]{0,6}(?:\n[A-Z]{1,3}[1-9][0-9]{0,6})*")


def _normalise_refs(refs, sheet: str) -> list[bytes]:
    """:func:`_normalise_ref` of each ref, checked in one regex when all are canonical."""
    refs = list(refs)
    try:
        joined = "\n".join(refs)
    except TypeError:
        joined = None
    if joined is not None and _CANON_REFS.fullmatch(joined):
        return joined.encode("ascii").split(b"\n")
    return [_normalise_ref(r, sheet) for r in refs]


def _normalise_ref(ref: str, sheet: str) -> bytes:
    """'B7' (upper case, no '$') as bytes; ValueError for anything else."""
    if isinstance(ref, str) and _CANON_REF.fullmatch(ref):
        key = ref
    else:
        m = _CELL_REF.fullmatch(ref.strip()) if isinstance(ref, str) else None
        if m is None:
            raise ValueError(f"{sheet}!{ref!r}: not a cell reference like 'B7'")
        key = m.group(1).upper() + m.group(2)
    return key.encode("ascii")


def _new_cell(p: bytes, ref: bytes, t: bytes | None, v: bytes) -> bytes:
    """A new cell element holding only a cached value."""
    tattr = b"" if t is None else b' t="' + t + b'"'
    return (b"<" + p + b'c r="' + ref + b'"' + tattr + b"><" + p + b"v>" + v
            + b"</" + p + b"v></" + p + b"c>")


def _edit_cell(data: bytes, m: re.Match, p: bytes, ca: bytes, body: bytes | None,
               t: bytes | None, v: bytes | None, pieces: list[bytes], last: int) -> int:
    """Append ``data[last:]`` up to the end of cell ``m`` to ``pieces``, with the
    cell's ``t`` attribute and value children (``<v>``, ``<is>``) replaced.

    Returns the offset in ``data`` from which copying resumes. Only the bytes of
    the ``t`` attribute and of the value children change.
    """
    tm = _T_ATTR.search(data, m.start("ca"), m.end("ca")) if b"t" in ca else None
    if tm is not None:
        pieces.append(data[last:tm.start()])
        if t is not None:
            pieces.append(tm.group(1) + b't="' + t + b'"')
        last = tm.end()
    elif t is not None:
        at = m.end("ca")
        pieces.append(data[last:at])
        pieces.append(b' t="' + t + b'"')
        last = at
    new_v = b"" if v is None else b"<" + p + b"v>" + v + b"</" + p + b"v>"
    if body is None:  # <c .../>: open it up to hold the value
        if v is not None:
            end = m.end()
            pieces.append(data[last:end - 2])
            pieces.append(b">" + new_v + b"</" + p + b"c>")
            last = end
        return last
    bs, be = m.span("body")
    f_re, v_re, is_re = _child_res(p)
    edits = []
    vm = v_re.search(data, bs, be)
    if vm is not None:
        edits.append((vm.start(), vm.end(), new_v))
    elif v is not None:
        fm = f_re.search(data, bs, be)
        at = fm.end() if fm is not None else bs
        edits.append((at, at, new_v))
    if b"is" in body:
        im = is_re.search(data, bs, be)
        if im is not None:
            edits.append((im.start(), im.end(), b""))
            edits.sort()
    for a, b, rep in edits:
        pieces.append(data[last:a])
        pieces.append(rep)
        last = b
    return last


_simple_cache: dict[bytes, re.Pattern] = {}


def _simple_cell_re(p: bytes) -> re.Pattern:
    """Regex of the everyday formula cell ``<c r=".." ...><f>..</f><v>..</v></c>``."""
    rx = _simple_cache.get(p)
    if rx is None:
        q = re.escape(p)
        rx = _simple_cache[p] = re.compile(
            rb"<" + q + rb"c(?P<ca>\s[^<>/]*)>"
            rb"(?P<f><" + q + rb"f(?:\s[^<>]*)?(?:/>|>[^<]*</" + q + rb"f>))"
            rb"(?P<v><" + q + rb"v\s*/>|<" + q + rb"v>[^<]*</" + q + rb"v>)?"
            rb"</" + q + rb"c>")
    return rx


def _stamp_fast(data: bytes, lo: int, hi: int, p: bytes,
                targets: dict[bytes, tuple[bytes | None, bytes | None]]) -> bytes | None:
    """The stamped sheet via direct look-ups, or None when the full scan is needed.

    Finds each target as ``<c r="REF"`` (how Excel, openpyxl, xlsxwriter and
    LibreOffice all write cells) with ``bytes.find``, moving forward through the
    sheet, so the non-targeted cells cost nothing. Gives up (returns None) when
    a target is absent, is not a formula cell, is out of document order twice,
    or when the sheet data holds comments, CDATA or processing instructions
    that could fake a cell start.
    """
    if not targets or data.find(b"<!", lo, hi) >= 0 or data.find(b"<?", lo, hi) >= 0:
        return None
    items = targets.items()
    for attempt in (0, 1):
        if attempt:
            try:
                items = sorted(targets.items(), key=lambda kv: _split_ref(kv[0]))
            except UnusableWorkbookError:
                return None
        pieces: list[bytes] = [data[:lo]]
        last = pos = lo
        head = b"<" + p + b'c r="'
        fneedle = b"<" + p + b"f"
        match = _CELL_OR_ROW_RE.match
        simple = _simple_cell_re(p).match
        vopen, vclose = b"<" + p + b"v>", b"</" + p + b"v>"
        find = data.find
        for ref, (t, v) in items:
            i = find(head + ref + b'"', pos, hi)
            if i < 0:
                break
            m = simple(data, i, hi)
            if m is not None:
                # the everyday formula cell <c r=".." ...><f ...>...</f>[<v ...>...</v>]</c>
                ts, te = m.span("ca")
                vs, ve = m.span("v")
                if ve < 0:
                    vs = ve = m.end("f")
                tm = _T_ATTR.search(data, ts, te) if b"t" in m.group("ca") else None
                if tm is not None:
                    pieces.append(data[last:tm.start()])
                    if t is not None:
                        pieces += (tm.group(1), b't="', t, b'"')
                    pieces.append(data[tm.end():vs])
                elif t is not None:
                    pieces += (data[last:te], b' t="', t, b'"', data[te:vs])
                else:
                    pieces.append(data[last:vs])
                if v is not None:
                    pieces += (vopen, v, vclose)
                last = pos = ve
                continue
            m = match(data, i, hi)
            if m is None:
                return None
            body = m.group("body")
            if body is None or fneedle not in body:
                return None
            last = _edit_cell(data, m, p, m.group("ca"), body, t, v, pieces, last)
            pos = m.end()
        else:
            pieces.append(data[last:])
            return b"".join(pieces)
        if find(head + ref + b'"', lo, hi) < 0:  # absent, not just out of order
            return None
    return None


def _stamp_sheet(data: bytes, part: str, sheet: str,
                 targets: dict[bytes, tuple[bytes | None, bytes | None]]) -> bytes:
    """Sheet XML with the targeted cells' values replaced.

    ``targets`` maps an upper-case ref to (t, v) as made by :func:`_encode_value`.
    """
    lo, hi, sd_prefix = _sheet_data_span(data, part)
    fast = _stamp_fast(data, lo, hi, sd_prefix, targets)
    if fast is not None:
        return fast
    pieces: list[bytes] = []
    last = lo
    ranges: list[tuple[int, int, int, int]] = []
    plain: list[bytes] = []  # targeted cells that hold no formula
    remaining = dict(targets)
    pop = remaining.pop
    for ref, p, ca, body, m in _iter_cells(data, lo, hi):
        if body is not None and b"array" in body:
            rng = _array_range(p, body)
            if rng is not None:
                ranges.append(rng)
        tgt = pop(ref, None)
        if tgt is None:
            continue
        if body is None or b"<" + p + b"f" not in body:
            plain.append(ref)
        last = _edit_cell(data, m, p, ca, body, tgt[0], tgt[1], pieces, last)
    loose = [(*_split_ref(r), r) for r in (*plain, *remaining)]
    for row, col, ref in loose:
        if col > 16384 or row > 1048576:
            raise ValueError(f"{sheet}!{ref.decode()}: outside the Excel grid (A1:XFD1048576)")
    inside = _covered(ranges, loose)
    for ref in plain:
        if ref not in inside:
            raise ValueError(f"{sheet}!{ref.decode()} is not a formula cell (nor inside an array "
                             "formula's range): rooflinexl never overwrites inputs")
    inserts: dict[int, list[tuple[int, bytes]]] = {}
    for ref, (t, v) in remaining.items():
        row, col = _split_ref(ref)
        if ref not in inside:
            raise ValueError(f"{sheet}!{ref.decode()} holds no formula (the cell is empty or "
                             "absent): only formula cells get cached values")
        if v is None:
            continue
        xml = _new_cell(sd_prefix, ref, t, v)
        inserts.setdefault(row, []).append((col, xml))
    pieces.append(data[last:])
    out = data[:lo] + b"".join(pieces)
    if inserts:
        out = _insert_cells(out, part, sd_prefix, inserts)
    return out


def _insert_cells(data: bytes, part: str, p: bytes,
                  inserts: dict[int, list[tuple[int, bytes]]]) -> bytes:
    """Insert new cells (inside array-formula ranges) in row/column order."""
    lo, hi, _ = _sheet_data_span(data, part)
    edits: list[tuple[int, int, bytes]] = []  # (start, end, replacement)
    pending = sorted(inserts)
    todo = {r: sorted(cells) for r, cells in inserts.items()}

    def new_row(r: int) -> bytes:
        return (b"<" + p + b'row r="' + str(r).encode() + b'">'
                + b"".join(x for _, x in todo.pop(r)) + b"</" + p + b"row>")

    row = 0
    cur: list[tuple[int, bytes]] | None = None  # cells still to place in the current row
    prev: int | None = None
    for m in _STRUCT_RE.finditer(data, lo, hi):
        ra = m.group("ra")
        if ra is not None:
            r = _attr(_R_ATTR, ra)
            row = int(r) if r is not None and r.strip().isdigit() else row + 1
            prev = None
            while pending and pending[0] < row:  # whole rows to create before this one
                edits.append((m.start(), m.start(), new_row(pending.pop(0))))
            cur = None
            if pending and pending[0] == row:
                pending.pop(0)
                cur = todo.pop(row)
                if m.group("rse"):  # <row .../> becomes <row ...>cells</row>
                    tag = m.group(0)
                    opened = tag[:-2].rstrip(b"/") + b">"
                    edits.append((m.start(), m.end(), opened + b"".join(x for _, x in cur)
                                  + b"</" + m.group("rp") + b"row>"))
                    cur = None
            continue
        if m.group("re") is not None:
            if cur:
                edits.append((m.start(), m.start(), b"".join(x for _, x in cur)))
            cur = None
            continue
        ca = m.group("ca")
        r = _attr(_R_ATTR, ca) if ca else None
        if r is not None:
            col = _split_ref(r.upper())[1]
        else:
            col = 1 if prev is None else prev + 1
        prev = col
        if cur:
            before = [x for c, x in cur if c < col]
            if before:
                edits.append((m.start(), m.start(), b"".join(before)))
                cur = [(c, x) for c, x in cur if c > col]
    for r in list(pending):
        edits.append((hi, hi, new_row(r)))
    if not edits:
        return data
    if lo == hi and data[lo - 2:lo] == b"/>":  # <sheetData/> cannot hold the new rows
        raise ValueError(f"{part}: sheetData is empty; nothing to insert into")
    out, last = [], 0
    for start, end, rep in sorted(edits, key=lambda e: (e[0], e[1])):
        out.append(data[last:start])
        out.append(rep)
        last = end
    out.append(data[last:])
    return b"".join(out)


def _copy_info(info: zipfile.ZipInfo) -> zipfile.ZipInfo:
    """A fresh ZipInfo with the original's name, date, attributes and comment."""
    zi = zipfile.ZipInfo(info.filename, info.date_time)
    zi.compress_type = info.compress_type
    zi.comment = info.comment
    zi.extra = _strip_zip64_extra(info.extra)
    zi.create_system = info.create_system
    zi.create_version = info.create_version
    zi.extract_version = info.extract_version
    zi.external_attr = info.external_attr
    zi.internal_attr = info.internal_attr
    zi.file_size = info.file_size  # lets zipfile decide on zip64 before writing
    level = _level_from_flags(info)
    if level is not None:
        zi._compresslevel = level  # honoured by ZipFile.open(zi, "w") (3.8+)
    return zi


#: zlib level for the rewritten sheet parts: Excel's own "super fast" deflate setting;
#: level 6 would cost about 4x the time for a file about 12% smaller.
_REWRITE_LEVEL = 1


def _level_from_flags(info: zipfile.ZipInfo) -> int | None:
    """zlib level matching the deflate option bits the original writer recorded."""
    if info.compress_type != zipfile.ZIP_DEFLATED:
        return None
    return {0: 6, 1: 9, 2: 1, 3: 1}[(info.flag_bits >> 1) & 3]


def _strip_zip64_extra(extra: bytes) -> bytes:
    """Drop a zip64 (0x0001) extra block; zipfile writes its own when needed."""
    out, i = [], 0
    while i + 4 <= len(extra):
        tag, size = struct.unpack("<HH", extra[i:i + 4])
        if tag != 1:
            out.append(extra[i:i + 4 + size])
        i += 4 + size
    return b"".join(out)


#: name of our temporary files: ``.BOOK.xlsx.rooflinexl-<pid>-<random>.tmp``
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


def _write_temp(dst, write, like=None) -> str:
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


def _commit(tmp: str, dst) -> None:
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
    tmp = _write_temp(dst, write, like)
    _commit(tmp, dst)
    return output_path(dst)


def stamp_cached_values(src, dst, values: dict[str, dict[str, object]], *,
                        limits: Limits = Limits()) -> None:
    """Write computed values as the cached values of the formula cells of ``src``.

    Parameters
    ----------
    src : str or os.PathLike
        The original workbook (.xlsx/.xlsm); checked with :func:`check_package`.
    dst : str or os.PathLike
        Where to write; may equal ``src`` for an in-place update. Written
        atomically (:func:`atomic_write`): a temp file in ``dst``'s folder, then
        :func:`os.replace`; on any failure the temp file is removed and ``dst``
        is untouched. An existing ``dst`` keeps its permission bits, a new one
        gets ``src``'s.
    values : dict of str to dict of str to object
        ``{sheet name: {"B7": value}}``. ``bool`` -> ``t="b"``; finite
        ``int``/``float`` (numpy scalars too) -> a round-trip number without
        ``t``; :class:`~rooflinexl.errors.ExcelError` or an Excel error string
        (``"#N/A"`` ...) -> ``t="e"``; other ``str`` -> ``t="str"``; ``None`` ->
        the cached value is removed (the cell is left uncached).
    limits : Limits, optional
        Passed to :func:`check_package`.

    Raises
    ------
    UnusableWorkbookError
        When ``src`` is refused by :func:`check_package`.
    ValueError
        For an unknown sheet, a malformed reference, a non-finite number, or a
        cell that holds no formula and is not inside an array formula's range
        (inputs are never touched). Nothing is written then.
    TypeError
        For a value of another type.

    Notes
    -----
    Only the ``<v>`` child (and an ``<is>`` inline string, if a writer left
    one) and the ``t`` attribute of the targeted ``<c>`` elements change; a
    cell inside an array formula's ``ref`` that is absent is created in row
    and column order (with its ``<row>`` when needed). Every other byte of the
    sheet XML stays, and every other zip member is copied with the same
    decompressed bytes, name, order, compression type, date, attributes and
    comment. ``xl/calcChain.xml`` and ``calcPr`` are left alone.

    Examples
    --------
    >>> import openpyxl, tempfile, os
    >>> wb = openpyxl.Workbook(); ws = wb.active; ws["A1"] = 2; ws["B1"] = "=A1*2"
    >>> p = os.path.join(tempfile.mkdtemp(), "b.xlsx"); wb.save(p)
    >>> stamp_cached_values(p, p, {"Sheet": {"B1": 4}})
    >>> read_cached_values(p)
    {'Sheet': {'B1': 4.0}}
    """
    with _package(src, limits) as zin:
        parts = _sheet_parts_zf(zin)
        folded = {name.casefold(): member for name, member in parts.items()}
        new_parts: dict[str, bytes] = {}
        for sheet, cells in values.items():
            member = parts.get(sheet) or folded.get(str(sheet).casefold())
            if member is None:
                raise ValueError(f"no worksheet named {sheet!r} (sheets: "
                                 f"{', '.join(map(repr, parts)) or 'none'})")
            if not cells:
                continue
            targets = dict(zip(_normalise_refs(cells, sheet),
                               [_encode_value(value, (sheet, ref)) for ref, value in cells.items()],
                               strict=True))
            data = new_parts.get(member)
            if data is None:
                data = zin.read(member)
            new_parts[member] = _stamp_sheet(data, member, sheet, targets)

        tmp = _write_package(zin, new_parts, dst, like=src)
    _commit(tmp, dst)  # after closing src, so that in-place works on Windows too


def _write_package(zin: zipfile.ZipFile, new_parts: dict[str, bytes], dst, like=None) -> str:
    """A temp file beside ``dst``: ``zin`` with ``new_parts`` replaced, all else copied.

    ``like``: the file whose permission bits a new ``dst`` takes (:func:`_write_temp`)."""

    def write(fh) -> None:
        with zipfile.ZipFile(fh, "w", allowZip64=True) as zout:
            zout.comment = zin.comment
            for info in zin.infolist():
                zi = _copy_info(info)
                if info.is_dir():
                    zout.writestr(zi, b"")
                elif info.filename in new_parts:
                    data = new_parts[info.filename]
                    zi.file_size = len(data)
                    if zi.compress_type == zipfile.ZIP_DEFLATED:
                        zi._compresslevel = _REWRITE_LEVEL
                    with zout.open(zi, "w") as out:
                        out.write(data)
                else:
                    with zin.open(info) as inp, zout.open(zi, "w") as out:
                        shutil.copyfileobj(inp, out, _CHUNK)
                # zipfile turns external_attr 0 into 0o600 << 16 while writing; the
                # central directory is written on close, from this object
                zi.external_attr = info.external_attr

    return _write_temp(dst, write, like=like)


_DEFINED_NAME_RE = re.compile(rb"<(?P<p>" + _PFX + rb")definedName(?=[\s>])" + _ATTRS
                              + rb">(?P<t>[^<]*)</(?P=p)definedName\s*>")


def _escape_formula(s: str) -> bytes:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").encode("utf-8")


def _splice(data: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    out, at = [], 0
    for start, end, new in edits:
        out += [data[at:start], new]
        at = end
    out.append(data[at:])
    return b"".join(out)


def rewrite_formulas(src, dst, rewrite, *, limits: Limits = Limits()) -> int:
    """Rewrite the text of every formula of ``src`` with ``rewrite`` and write ``dst``.

    Parameters
    ----------
    src, dst : str or os.PathLike
        The workbook (checked with :func:`check_package`) and where to write
        (may equal ``src``); written atomically with ``dst``'s permissions.
    rewrite : callable
        ``str -> str`` on the formula text as stored (no leading ``=``,
        XML-unescaped), of every cell formula (``<f>``, shared and array
        masters included) and every workbook-level defined name.
    limits : Limits, optional
        Passed to :func:`check_package`.

    Returns
    -------
    int
        The number of formulas (cells and names) whose text changed.

    Notes
    -----
    Only the text of the changed ``<f>``/``<definedName>`` elements changes:
    cached values, every other byte of those parts and every other zip member
    stay as they were (as :func:`stamp_cached_values`).

    Examples
    --------
    >>> import openpyxl, tempfile, os
    >>> wb = openpyxl.Workbook(); ws = wb.active; ws["A1"] = '=SUM(1,2)&"SUM("'
    >>> p = os.path.join(tempfile.mkdtemp(), "b.xlsx"); wb.save(p)
    >>> rewrite_formulas(p, p, lambda f: f.replace("SUM(1", "MAX(1"))
    1
    >>> formula_cells(p)
    {'Sheet': {'A1': 'MAX(1,2)&"SUM("'}}
    """
    changed = 0

    def edit(data: bytes, start: int, end: int, edits: list) -> None:
        nonlocal changed
        text = _unescape_xml(data[start:end].decode("utf-8"))
        new = rewrite(text)
        if new != text:
            edits.append((start, end, _escape_formula(new)))
            changed += 1

    with _package(src, limits) as zin:
        names = _names_map(zin)
        new_parts: dict[str, bytes] = {}
        for member in _sheet_parts_zf(zin, names).values():
            data = zin.read(member)
            lo, hi, _ = _sheet_data_span(data, member)
            edits: list[tuple[int, int, bytes]] = []
            for _ref, p, _ca, body, m in _iter_cells(data, lo, hi):
                fm = _child_res(p)[0].search(body) if body else None
                if fm is not None and fm.group("t"):
                    at = m.start("body")
                    edit(data, at + fm.start("t"), at + fm.end("t"), edits)
            if edits:
                new_parts[member] = _splice(data, edits)
        book = _workbook_part(zin, names)
        if book is not None:
            data = zin.read(book)
            edits = []
            for m in _DEFINED_NAME_RE.finditer(data):
                edit(data, m.start("t"), m.end("t"), edits)
            if edits:
                new_parts[book] = _splice(data, edits)
        tmp = _write_package(zin, new_parts, dst, like=src)
    _commit(tmp, dst)
    return changed


# --------------------------------------------------------------------------
# reading back
# --------------------------------------------------------------------------


def _shared_strings(zf, names) -> list[str]:
    wb = _workbook_part(zf, names)
    member = None
    for _id, typ, part in _relationships(zf, names, wb):
        if typ.endswith("/sharedStrings"):
            member = _member(names, part)
    member = member or _member(names, "xl/sharedStrings.xml")
    if member is None:
        return []
    root = _parse_xml(zf.read(member), member)
    out = []
    for si in root:
        if _local(si.tag) != "si":
            continue
        texts: list[str] = []
        _si_texts(si, texts)
        out.append(_unescape_xstring("".join(texts)))
    return out


def _si_texts(el, texts: list[str]) -> None:
    """Append the <t> texts under ``el``, skipping phonetic runs."""
    for ch in el:
        name = _local(ch.tag)
        if name == "t":
            texts.append(ch.text or "")
        elif name not in ("rPh", "phoneticPr"):
            _si_texts(ch, texts)


def _scan_sheet(data: bytes, part: str):
    """Yield (ref, p, attrs, body, is_formula) and collect array ranges.

    Returns a list of tuples and the list of array ranges.
    """
    lo, hi, _ = _sheet_data_span(data, part)
    cells, ranges = [], []
    for ref, p, ca, body, _m in _iter_cells(data, lo, hi):
        fm = _child_res(p)[0].search(body) if body else None
        if fm is not None and b"array" in body:
            rng = _array_range(p, body)
            if rng is not None:
                ranges.append(rng)
        cells.append((ref, p, ca, body, fm))
    return cells, ranges


def formula_cells(path, *, limits: Limits = Limits()) -> dict[str, dict[str, str]]:
    """Formula text of every formula cell, per worksheet.

    Parameters
    ----------
    path : str or os.PathLike
        An .xlsx/.xlsm workbook; checked with :func:`check_package` first.
    limits : Limits, optional
        Passed to :func:`check_package`.

    Returns
    -------
    dict of str to dict of str to str
        ``{sheet: {"B7": formula}}`` for every worksheet (empty dict when a
        sheet has no formula). The formula is the text of ``<f>`` as stored
        (no leading ``=``), XML-unescaped; ``''`` for the child cells of a
        shared formula (``<f t="shared" si="0"/>``).

    Examples
    --------
    >>> import openpyxl, tempfile, os
    >>> wb = openpyxl.Workbook(); ws = wb.active; ws["A1"] = 2; ws["B1"] = '=A1&"<x>"'
    >>> p = os.path.join(tempfile.mkdtemp(), "b.xlsx"); wb.save(p)
    >>> formula_cells(p)
    {'Sheet': {'B1': 'A1&"<x>"'}}
    """
    with _package(path, limits) as zf:
        out: dict[str, dict[str, str]] = {}
        for sheet, member in _sheet_parts_zf(zf).items():
            cells, _ = _scan_sheet(zf.read(member), member)
            out[sheet] = {
                ref.decode("ascii"): _unescape_xml((fm.group("t") or b"").decode("utf-8"))
                for ref, _p, _a, _b, fm in cells if fm is not None
            }
        return out


def read_cached_values(path, *, limits: Limits = Limits()) -> dict[str, dict[str, object]]:
    """Cached values of the formula cells, per worksheet.

    Parameters
    ----------
    path : str or os.PathLike
        An .xlsx/.xlsm workbook; checked with :func:`check_package` first.
    limits : Limits, optional
        Passed to :func:`check_package`.

    Returns
    -------
    dict of str to dict of str to object
        ``{sheet: {"B7": value}}`` for every formula cell and every existing
        cell inside an array formula's range (the spilled results): ``float``
        for numbers, ``bool``, ``str`` (``t="str"``, ``t="s"`` resolved through
        the shared strings, inline strings), :class:`~rooflinexl.errors.ExcelError`
        for ``t="e"`` (a plain ``str`` for an error code outside
        :data:`~rooflinexl.errors.EXCEL_ERRORS`), ``None`` when uncached.

    Examples
    --------
    >>> import openpyxl, tempfile, os
    >>> wb = openpyxl.Workbook(); ws = wb.active; ws["B1"] = "=1/0"
    >>> p = os.path.join(tempfile.mkdtemp(), "b.xlsx"); wb.save(p)
    >>> read_cached_values(p)
    {'Sheet': {'B1': None}}
    """
    with _package(path, limits) as zf:
        names = _names_map(zf)
        shared: list[str] | None = None
        out: dict[str, dict[str, object]] = {}
        for sheet, member in _sheet_parts_zf(zf, names).items():
            cells, ranges = _scan_sheet(zf.read(member), member)
            spilled = _covered(ranges, [(*_split_ref(c[0]), c[0]) for c in cells
                                        if c[4] is None]) if ranges else set()
            vals: dict[str, object] = {}
            for ref, p, attrs, body, fm in cells:
                if fm is None and ref not in spilled:
                    continue
                t = _attr(_T_VAL, attrs) if attrs else None
                text = None
                if body:
                    _f, v_re, is_re = _child_res(p)
                    vm = v_re.search(body)
                    if vm is not None:
                        text = (vm.group("t") or b"").decode("utf-8")
                    elif t == b"inlineStr":
                        im = is_re.search(body)
                        if im is not None:
                            text = _inline_text(im.group(0))
                if t == b"s" and shared is None:
                    shared = _shared_strings(zf, names)
                vals[ref.decode("ascii")] = _decode_value(t, text, shared)
            out[sheet] = vals
        return out


def _inline_text(is_xml: bytes) -> str:
    """Text of an <is> element (runs concatenated, phonetic runs skipped)."""
    is_xml = re.sub(rb"<(\w+:)?rPh\b.*?</(\w+:)?rPh\s*>", b"", is_xml, flags=re.DOTALL)
    texts = re.findall(rb"<(?:\w+:)?t(?:\s[^>]*)?>(.*?)</(?:\w+:)?t\s*>", is_xml, flags=re.DOTALL)
    return _unescape_xstring(_unescape_xml(b"".join(texts).decode("utf-8")))
