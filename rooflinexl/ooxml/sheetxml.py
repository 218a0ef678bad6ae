"""The sheet XML scanner: cells found at the byte level, never re-serialised.

One cell scanner (:func:`iter_cells`, with :func:`child_res` for a cell's
``<f>``/``<v>``/``<is>``), one shared-string reader (:func:`shared_strings`),
one un-escaper (:func:`unescape_xml`, plus Excel's ``_xHHHH_`` escapes in
:func:`unescape_xstring`) and the codec between cached ``<v>`` text and Python
values (:func:`encode_value`, :func:`decode_value`). Cell addresses come from
:mod:`rooflinexl.addresses`.
"""
from __future__ import annotations

import contextlib
import gc
import heapq
import math
import re

import numpy as np

from rooflinexl.addresses import FILE_CELL_PATTERN, column_letters, parse_cell, parse_range
from rooflinexl.errors import EXCEL_ERRORS, ExcelError
from rooflinexl.ooxml.package import (
    UnusableWorkbookError,
    find_member,
    local_name,
    parse_xml,
    relationships,
    workbook_part,
)


@contextlib.contextmanager
def paused_gc():
    """Python's cycle collector paused while a sheet's cells are read or written.

    Reading a large sheet makes millions of small tuples, lists and strings and no
    cycles; each collection the allocations trigger walks every live object, which took
    a quarter of the time of reading or planning a 100,000-row sheet. The collector's
    state is restored on exit (reference counting frees everything meanwhile).
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# --------------------------------------------------------------------------
# sheet XML scanner (bytes, no re-serialisation)
# --------------------------------------------------------------------------

# attribute text of a start tag: quoted values may hold '>' or '/'
ATTRS = rb"""(?:[^>"'/]|"[^"]*"|'[^']*'|/(?!>))*"""
PREFIX = rb"(?:[A-Za-z_][\w.\-]*:)?"
_SHEETDATA_RE = re.compile(rb"<(" + PREFIX + rb")sheetData(?=[\s/>])" + ATTRS + rb"(/?)>")
# a cell element (cells never nest) or a row start tag
# (group r catches the usual leading r="B7" so that most cells need no second regex)
CELL_OR_ROW_RE = re.compile(
    rb"<(?:(?P<p>" + PREFIX + rb")c(?P<ca>(?:\s+r\s*=\s*\"(?P<r>[^\"]*)\")?(?:\s" + ATTRS + rb")?)"
    rb"(?:/>|>(?P<body>.*?)</(?P=p)c\s*>)"
    rb"|" + PREFIX + rb"row(?P<ra>(?:\s+r\s*=\s*\"(?P<rr>[0-9]+)\")?(?:\s" + ATTRS + rb")?)/?>)",
    re.DOTALL,
)
# same plus row end tags, for structural edits (inserting cells and rows)
STRUCT_RE = re.compile(
    rb"<(?:(?P<p>" + PREFIX + rb")c(?P<ca>(?:\s" + ATTRS + rb")?)"
    rb"(?:/>|>(?P<body>.*?)</(?P=p)c\s*>)"
    rb"|(?P<rp>" + PREFIX + rb")row(?P<ra>(?:\s" + ATTRS + rb")?)(?P<rse>/?)>"
    rb"|(?P<re>/" + PREFIX + rb"row\s*>))",
    re.DOTALL,
)
R_ATTR = re.compile(rb"""(?:^|\s)r\s*=\s*(?:"([^"]*)"|'([^']*)')""")
T_ATTR = re.compile(rb"""(\s)t\s*=\s*(?:"[^"]*"|'[^']*')""")
T_VAL = re.compile(rb"""(?:^|\s)t\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_REF_ATTR = re.compile(rb"""(?:^|\s)ref\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_ENC_DECL = re.compile(rb"""<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']""")

_child_cache: dict[bytes, tuple[re.Pattern, re.Pattern, re.Pattern]] = {}


def child_res(p: bytes):
    """Regexes for the <f>, <v> and <is> children of a cell with prefix ``p``."""
    hit = _child_cache.get(p)
    if hit is None:
        q = re.escape(p)

        def elem(name: bytes) -> re.Pattern:
            return re.compile(rb"<" + q + name + rb"(?P<a>(?:\s" + ATTRS + rb")?)"
                              rb"(?:/>|>(?P<t>.*?)</" + q + name + rb"\s*>)", re.DOTALL)

        hit = _child_cache[p] = (elem(b"f"), elem(b"v"), elem(b"is"))
    return hit


_plain_cache: dict[str, re.Pattern] = {}


def plain_cells_re(p: str) -> re.Pattern:
    """The everyday cell, as text: ``<c r="B7" ...>`` with optional ``<f>``, ``<v>``, ``<is>``.

    ``p`` is the sheet's namespace prefix (``""`` or ``"x:"``). Groups: column letters,
    row, the other attributes, the whole ``<f>`` element, its attributes, its text, the
    ``<v>`` text, the ``<is>`` content. A sheet where this does not find every cell (an
    unusual form) is read with :func:`iter_cells` instead.
    """
    rx = _plain_cache.get(p)
    if rx is None:
        q = re.escape(p)
        rx = _plain_cache[p] = re.compile(
            "<" + q + 'c r="' + FILE_CELL_PATTERN + '"([^<>/]*)'
            "(?:/>|>"
            "(<" + q + "f([^<>/]*)(?:/>|>([^<]*)</" + q + "f>))?"
            "(?:<" + q + "v\\s*/>|<" + q + "v>([^<]*)</" + q + "v>)?"
            "(?:<" + q + "is>(.*?)</" + q + "is>)?"
            "</" + q + "c>)", re.S)
    return rx


def attr_value(rx: re.Pattern, attrs: bytes) -> bytes | None:
    m = rx.search(attrs)
    if m is None:
        return None
    return m.group(1) if m.group(1) is not None else m.group(2)



def split_ref(ref: bytes) -> tuple[int, int]:
    """(row, column) of b'B7'; UnusableWorkbookError for a malformed r attribute."""
    try:
        return parse_cell(ref.decode("ascii"))
    except (ValueError, UnicodeDecodeError):
        raise UnusableWorkbookError(f"bad cell reference {ref.decode('utf-8', 'replace')!r} in "
                                    "the sheet XML: save the workbook again from Excel") from None


def holds(data: bytes, lo: int, hi: int, markup: bytes) -> bool:
    """Whether ``data[lo:hi]`` holds ``markup`` (``b"<!"``: a comment or CDATA, ``b"<?"``: a
    processing instruction), fast: its rare second byte searched for first (one byte is a
    memory-speed search; a pair starting with the ubiquitous ``<`` is ten times slower).

    >>> holds(b"<c><v>1</v></c>", 0, 15, b"<!"), holds(b"<c><!-- x --></c>", 0, 17, b"<!")
    (False, True)
    """
    return data.find(markup[1:], lo, hi) >= 0 and data.find(markup, lo, hi) >= 0


def sheet_data_span(data: bytes, part: str) -> tuple[int, int, bytes]:
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


def iter_cells(data: bytes, lo: int, hi: int):
    """Yield (ref, prefix, attrs, body, match) for every cell in data[lo:hi].

    ``ref`` is upper-case bytes; ``body`` is None for a self-closing cell. A
    missing ``r`` on a row or cell is computed from the previous row/cell, as
    the specification allows.
    """
    row = 0
    prev: bytes | int | None = None  # previous cell of this row: its ref, or its column
    for m in CELL_OR_ROW_RE.finditer(data, lo, hi):
        p, ca, r, body, ra = m.group("p", "ca", "r", "body", "ra")
        if ca is None:  # a row start tag
            r = m.group("rr") or attr_value(R_ATTR, ra)
            row = int(r) if r is not None and r.strip().isdigit() else row + 1
            prev = None
            continue
        if r is None and ca:
            r = attr_value(R_ATTR, ca)
        if r is not None:
            ref = r if r.isupper() else r.upper()
            prev = ref
        else:
            if prev is None:
                col = 1
            elif isinstance(prev, int):
                col = prev + 1
            else:
                col = split_ref(prev)[1] + 1
            prev = col
            ref = (column_letters(col) + str(row)).encode("ascii")
        yield ref, p, ca, body, m


def array_range(p: bytes, body: bytes):
    """The (r0, c0, r1, c1) of an array formula in this cell body, else None."""
    if b"array" not in body:
        return None
    fm = child_res(p)[0].search(body)
    if fm is None or attr_value(T_VAL, fm.group("a")) != b"array":
        return None
    ref = attr_value(_REF_ATTR, fm.group("a"))
    return parse_range(ref.decode("ascii", "replace")) if ref else None


def covered(ranges, cells) -> set:
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


def escape_text(s: str) -> str:
    """XML text with Excel's _xHHHH_ escapes for characters XML cannot carry.

    Examples
    --------
    >>> escape_text("a<b & _x0041_" + chr(13))
    'a&lt;b &amp; _x005F_x0041__x000D_'
    """
    if _NEEDS_ESCAPE.search(s) is None:
        return s
    s = _XSTR_ESCAPE.sub(lambda m: "_x005F_" if m.group() == "_" else f"_x{ord(m.group()):04X}_", s)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _xml_char(code: int) -> bool:
    """Whether ``code`` is a character XML 1.0 may carry (its ``Char`` production)."""
    return (code in (0x9, 0xA, 0xD) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
            or 0x10000 <= code <= 0x10FFFF)


def unescape_xml(s: str) -> str:
    """Text of XML element or attribute content: the five entities and character references.

    The one un-escaper of the package reader, the stamper and the headless engine. A
    character reference to no XML character (``&#0;``, ``&#xD800;``, ``&#99999999;``) makes
    the document not well-formed: Excel refuses such a file, and so do we. A line end
    written as such is a line feed, as every XML parser reads it (XML 1.0, 2.11 "End-of-Line
    Handling": Excel for Mac writes CHAR(10) as CR LF); ``&#13;`` stays a carriage return.

    Raises
    ------
    UnusableWorkbookError
        For a character reference XML does not allow.

    Examples
    --------
    >>> unescape_xml("a&lt;b &amp;&#65;&#x42;"), unescape_xml("a\\r\\nb\\rc&#13;")
    ('a<b &AB', 'a\\nb\\nc\\r')
    """
    if "\r" in s:
        s = s.replace("\r\n", "\n").replace("\r", "\n")
    if "&" not in s:
        return s

    def sub(m):
        e = m.group(1)
        if e[0] != "#":
            return _ENTITY_MAP[e]
        digits = e[2:] if e[1] in "xX" else e[1:]
        code = int(digits, 16 if e[1] in "xX" else 10) if len(digits) <= 8 else -1
        if not _xml_char(code):
            raise UnusableWorkbookError(
                f"bad character reference {m.group(0)!r} in the workbook XML (not an XML "
                "character): save the workbook again from Excel")
        return chr(code)

    return _ENTITY.sub(sub, s)


def unescape_xstring(s: str) -> str:
    return _XSTR_UNESCAPE.sub(lambda m: chr(int(m.group(1), 16)), s) if "_x" in s else s


def format_number(x: float) -> str:
    """Shortest round-trip text of a finite float; integers without '.0'.

    Examples
    --------
    >>> [format_number(x) for x in (5.0, 318.1552864301085, 3.1e-05, 1e+16, -0.5)]
    ['5', '318.1552864301085', '3.1e-05', '1e+16', '-0.5']
    """
    r = repr(x)
    return r.removesuffix(".0")


def encode_value(value, where: tuple[str, str]) -> tuple[bytes | None, bytes | None]:
    """(t attribute value or None, <v> text or None) for a Python value.

    ``where`` = (sheet, cell), only formatted into an error message.
    """
    if type(value) is float:  # the common case first
        if value - value == 0.0:  # finite
            return None, format_number(value).encode("ascii")
    elif value is None:
        return None, None
    elif isinstance(value, (bool, np.bool_)):
        return b"b", b"1" if value else b"0"
    if isinstance(value, ExcelError) or (isinstance(value, str) and value in _ERROR_VALUES):
        return b"e", str(value).encode("ascii")
    if isinstance(value, str):
        return b"str", escape_text(value).encode("utf-8")
    if isinstance(value, (int, float, np.integer, np.floating)):
        x = float(value)
        if not math.isfinite(x):
            raise ValueError(f"{where[0]}!{where[1]}: {value!r} is not finite; an Excel cell "
                             "cannot hold it (pass ExcelError('#NUM!') instead)")
        return None, format_number(x).encode("ascii")
    raise TypeError(f"{where[0]}!{where[1]}: cannot store a {type(value).__name__} as a cached "
                    "value (use bool, int, float, str, ExcelError or None)")


_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?Z?")


def iso_date_serial(text: str, date1904: bool = False) -> float | str:
    """The serial number of a ``t="d"`` cell's ISO 8601 date (ECMA-376 18.18.11; Strict
    Open XML workbooks store dates so), in the 1900 date system: days since 1899-12-30
    (Excel's day 1 is 1900-01-01 and it counts a 29 February 1900, so a date before
    1 March 1900 is one day less), the time of day as the fraction; in a workbook counting
    from 1904 (``date1904``) 1462 days fewer. Text that is not such a date is returned as
    it is.

    >>> iso_date_serial("2009-07-06"), iso_date_serial("1899-12-30T12:00:00")
    (40000.0, 0.5)
    >>> iso_date_serial("1900-01-01"), iso_date_serial("1900-03-01")
    (1.0, 61.0)
    >>> iso_date_serial("2009-07-06", date1904=True)
    38538.0
    """
    import datetime as dt

    m = _ISO_DATE.fullmatch(text.strip())
    if m is None:
        return text
    try:
        day = dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return text
    days = (day - dt.date(1899, 12, 30)).days
    if dt.date(1900, 1, 1) <= day < dt.date(1900, 3, 1):
        days -= 1
    h, mi, sec = (int(m.group(k) or 0) for k in (4, 5, 6))
    frac = float(m.group(7) or 0.0)
    return days - (1462 if date1904 else 0) + (h * 3600 + mi * 60 + sec + frac) / 86400


def decode_value(t: bytes | None, text: str | None, shared: list[str] | None):
    """Python value of a cached cell value."""
    t = (t or b"n").decode("ascii", "replace")
    if text is None:
        return None
    if t == "str":
        return unescape_xstring(unescape_xml(text))
    if t == "inlineStr":
        return text
    text = unescape_xml(text)
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
        return iso_date_serial(text)
    try:
        return float(text)
    except ValueError:
        return text



def shared_strings(zf, names) -> list[str]:
    wb = workbook_part(zf, names)
    member = None
    for _id, typ, part in relationships(zf, names, wb):
        if typ.endswith("/sharedStrings"):
            member = find_member(names, part)
    member = member or find_member(names, "xl/sharedStrings.xml")
    if member is None:
        return []
    root = parse_xml(zf.read(member), member)
    out = []
    for si in root:
        if local_name(si.tag) != "si":
            continue
        texts: list[str] = []
        si_texts(si, texts)
        out.append(unescape_xstring("".join(texts)))
    return out


def si_texts(el, texts: list[str]) -> None:
    """Append the <t> texts under ``el``, skipping phonetic runs."""
    for ch in el:
        name = local_name(ch.tag)
        if name == "t":
            texts.append(ch.text or "")
        elif name not in ("rPh", "phoneticPr"):
            si_texts(ch, texts)


def scan_sheet(data: bytes, part: str):
    """Yield (ref, p, attrs, body, is_formula) and collect array ranges.

    Returns a list of tuples and the list of array ranges.
    """
    lo, hi, _ = sheet_data_span(data, part)
    cells, ranges = [], []
    for ref, p, ca, body, _m in iter_cells(data, lo, hi):
        fm = child_res(p)[0].search(body) if body else None
        if fm is not None and b"array" in body:
            rng = array_range(p, body)
            if rng is not None:
                ranges.append(rng)
        cells.append((ref, p, ca, body, fm))
    return cells, ranges

def inline_text(is_xml: bytes) -> str:
    """Text of an <is> element (runs concatenated, phonetic runs skipped)."""
    is_xml = re.sub(rb"<(\w+:)?rPh\b.*?</(\w+:)?rPh\s*>", b"", is_xml, flags=re.DOTALL)
    texts = re.findall(rb"<(?:\w+:)?t(?:\s[^>]*)?>(.*?)</(?:\w+:)?t\s*>", is_xml, flags=re.DOTALL)
    return unescape_xstring(unescape_xml(b"".join(texts).decode("utf-8")))
