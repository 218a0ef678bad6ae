"""Writing into a package: cached values stamped, formulas rewritten, every other byte kept.

:func:`stamp_cached_values` writes computed values as the cached ``<v>`` of the
formula cells of the *original* file: only the ``<v>`` element and ``t``
attribute of the targeted cells change (dynamic-array ``cm="1"``, shared and
array formulas, namespaces and whitespace stay), and every other zip member is
copied unchanged. :func:`rewrite_formulas` rewrites formula texts the same way.
"""
from __future__ import annotations

import math
import re
import shutil
import struct
import zipfile
from itertools import repeat
from operator import itemgetter

from rooflinexl.addresses import CELL_RE, FILE_CELL_PATTERN
from rooflinexl.ooxml.atomic import commit_temp, write_temp
from rooflinexl.ooxml.package import (
    CHUNK,
    Limits,
    UnusableWorkbookError,
    names_map,
    open_package,
    sheet_members,
    workbook_part,
)
from rooflinexl.ooxml.sheetxml import (
    ATTRS,
    CELL_OR_ROW_RE,
    PREFIX,
    R_ATTR,
    STRUCT_RE,
    T_ATTR,
    array_range,
    attr_value,
    child_res,
    covered,
    encode_value,
    holds,
    iter_cells,
    paused_gc,
    sheet_data_span,
    split_ref,
    unescape_xml,
)

# --------------------------------------------------------------------------
# stamping
# --------------------------------------------------------------------------


_CANON_REF = re.compile(FILE_CELL_PATTERN)
#: many canonical refs, one a line (no groups: a group inside the repeat costs sre several
#: times the scan, 0.5 s for 400,000 refs)
_REF = FILE_CELL_PATTERN.replace("(", "(?:")
_CANON_REFS = re.compile(f"(?:{_REF}\n)*{_REF}")


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
        m = CELL_RE.fullmatch(ref.strip()) if isinstance(ref, str) else None
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
    tm = T_ATTR.search(data, m.start("ca"), m.end("ca")) if b"t" in ca else None
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
    f_re, v_re, is_re = child_res(p)
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
                targets: dict[bytes, tuple[bytes | None, bytes | None]]) -> list[bytes] | None:
    """The stamped sheet (in pieces) in bulk (:func:`_stamp_split`) or via direct look-ups,
    or None when the full scan is needed.

    Finds each target as ``<c r="REF"`` (how Excel, openpyxl, xlsxwriter and
    LibreOffice all write cells) with ``bytes.find``, moving forward through the
    sheet, so the non-targeted cells cost nothing. Gives up (returns None) when
    a target is absent, is not a formula cell, is out of document order twice,
    or when the sheet data holds comments, CDATA or processing instructions
    that could fake a cell start.
    """
    if not targets or holds(data, lo, hi, b"<!") or holds(data, lo, hi, b"<?"):
        return None
    pieces = _stamp_split(data, lo, hi, p, targets)
    if pieces is not None:
        return pieces
    items = targets.items()
    for attempt in (0, 1):
        if attempt:
            try:
                items = sorted(targets.items(), key=lambda kv: split_ref(kv[0]))
            except UnusableWorkbookError:
                return None
        pieces: list[bytes] = [data[:lo]]
        last = pos = lo
        head = b"<" + p + b'c r="'
        fneedle = b"<" + p + b"f"
        match = CELL_OR_ROW_RE.match
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
                tm = T_ATTR.search(data, ts, te) if b"t" in m.group("ca") else None
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
            return [b"".join(pieces)]
        if find(head + ref + b'"', lo, hi) < 0:  # absent, not just out of order
            return None
    return None


_split_cache: dict[bytes, re.Pattern] = {}

#: sheet XML stamped this many bytes at a time (cut after a row's end tag)
_SPLIT_BYTES = 1 << 22


def _stamp_split(data: bytes, lo: int, hi: int, p: bytes,
                 targets: dict[bytes, tuple[bytes | None, bytes | None]]) -> list[bytes] | None:
    """:func:`_stamp_fast` for a sheet whose targets are all everyday formula cells
    (``<c r="REF" ...><f ...>...</f>[<v>...</v>]</c>``), in bulk: one ``re.split`` of each
    stretch of rows lays out every such cell's reference, attributes and ``<v>`` as list
    items, and the targets' items are replaced. The stamped sheet in pieces (joined, the
    same bytes as the look-ups of :func:`_stamp_fast`); None when a target is not such a
    cell (or is one twice).
    """
    rx = _split_cache.get(p)
    if rx is None:
        q = re.escape(p)
        rx = _split_cache[p] = re.compile(
            rb"(<" + q + rb'c r=")([A-Z]{1,3}[1-9][0-9]{0,6})("[^<>/]*>)'
            rb"(<" + q + rb"f(?:\s[^<>]*)?(?:/>|>[^<]*</" + q + rb"f>))"
            rb"(<" + q + rb"v\s*/>|<" + q + rb"v>[^<]*</" + q + rb"v>)?(?=</" + q + rb"c>)")
    vopen, vclose = b"<" + p + b"v>", b"</" + p + b"v>"
    row_end = b"</" + p + b"row>"
    typed = any(map(itemgetter(0), targets.values()))  # a t attribute to write (b"str" ...)
    out = [data[:lo]]
    found = 0
    get = targets.get
    pos = lo
    while pos < hi:
        end = data.find(row_end, min(pos + _SPLIT_BYTES, hi), hi)
        end = hi if end < 0 else end + len(row_end)
        parts = rx.split(data[pos:end])
        # parts: text, then per cell: '<c r="', its reference, the rest of the start tag,
        # <f>, <v>, then text ...
        hits = list(map(get, parts[2::6]))
        found += len(hits) - hits.count(None)
        # a t attribute to write, or one to remove (in the targets' start tags: a 't' there
        # is one; the rest of the sheet's t="n", t="s" ... are no matter)
        if typed or b"t" in b"".join(parts[3::6]):
            parts[3::6] = [rest if tv is None or (tv[0] is None and b"t" not in rest)
                           else _retype(rest, tv[0]) for rest, tv in zip(parts[3::6], hits,
                                                                         strict=True)]
        pos = end
        parts[5::6] = [(old or b"") if tv is None else
                       b"" if tv[1] is None else vopen + tv[1] + vclose
                       for old, tv in zip(parts[5::6], hits, strict=True)]
        out.append(b"".join(parts))
    if found != len(targets):
        return None
    out.append(data[hi:])
    return out


def _retype(rest: bytes, t: bytes | None) -> bytes:
    """The end of a cell's start tag (``" s="1" t="str">``) with its ``t`` set to ``t``
    (removed for None), as :func:`_stamp_fast` edits it."""
    tm = T_ATTR.search(rest)
    if tm is not None:
        return rest[:tm.start()] + (tm.group(1) + b't="' + t + b'"' if t is not None
                                    else b"") + rest[tm.end():]
    if t is None:
        return rest
    return rest[:-1] + b' t="' + t + b'">'


def _stamp_sheet(data: bytes, part: str, sheet: str,
                 targets: dict[bytes, tuple[bytes | None, bytes | None]]) -> bytes:
    """Sheet XML with the targeted cells' values replaced.

    ``targets`` maps an upper-case ref to (t, v) as made by :func:`encode_value`.
    """
    return b"".join(_stamp_pieces(data, part, sheet, targets))


def _stamp_pieces(data: bytes, part: str, sheet: str,
                  targets: dict[bytes, tuple[bytes | None, bytes | None]]) -> list[bytes]:
    """:func:`_stamp_sheet` in pieces (joined, the stamped sheet)."""
    lo, hi, sd_prefix = sheet_data_span(data, part)
    fast = _stamp_fast(data, lo, hi, sd_prefix, targets)
    if fast is not None:
        return fast
    pieces: list[bytes] = []
    last = lo
    ranges: list[tuple[int, int, int, int]] = []
    plain: list[bytes] = []  # targeted cells that hold no formula
    remaining = dict(targets)
    pop = remaining.pop
    for ref, p, ca, body, m in iter_cells(data, lo, hi):
        if body is not None and b"array" in body:
            rng = array_range(p, body)
            if rng is not None:
                ranges.append(rng)
        tgt = pop(ref, None)
        if tgt is None:
            continue
        if body is None or b"<" + p + b"f" not in body:
            plain.append(ref)
        last = _edit_cell(data, m, p, ca, body, tgt[0], tgt[1], pieces, last)
    loose = [(*split_ref(r), r) for r in (*plain, *remaining)]
    for row, col, ref in loose:
        if col > 16384 or row > 1048576:
            raise ValueError(f"{sheet}!{ref.decode()}: outside the Excel grid (A1:XFD1048576)")
    inside = covered(ranges, loose)
    for ref in plain:
        if ref not in inside:
            raise ValueError(f"{sheet}!{ref.decode()} is not a formula cell (nor inside an array "
                             "formula's range): rooflinexl never overwrites inputs")
    inserts: dict[int, list[tuple[int, bytes]]] = {}
    for ref, (t, v) in remaining.items():
        row, col = split_ref(ref)
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
    return [out]


def _insert_cells(data: bytes, part: str, p: bytes,
                  inserts: dict[int, list[tuple[int, bytes]]]) -> bytes:
    """Insert new cells (inside array-formula ranges) in row/column order."""
    lo, hi, _ = sheet_data_span(data, part)
    edits: list[tuple[int, int, bytes]] = []  # (start, end, replacement)
    pending = sorted(inserts)
    todo = {r: sorted(cells) for r, cells in inserts.items()}

    def new_row(r: int) -> bytes:
        return (b"<" + p + b'row r="' + str(r).encode() + b'">'
                + b"".join(x for _, x in todo.pop(r)) + b"</" + p + b"row>")

    row = 0
    cur: list[tuple[int, bytes]] | None = None  # cells still to place in the current row
    prev: int | None = None
    for m in STRUCT_RE.finditer(data, lo, hi):
        ra = m.group("ra")
        if ra is not None:
            r = attr_value(R_ATTR, ra)
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
        r = attr_value(R_ATTR, ca) if ca else None
        if r is not None:
            col = split_ref(r.upper())[1]
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
    >>> from rooflinexl.ooxml import read_cached_values
    >>> read_cached_values(p)
    {'Sheet': {'B1': 4.0}}
    """
    with open_package(src, limits) as zin:
        tmp = _write_package(zin, _stamped_parts(zin, values), dst, like=src)
    commit_temp(tmp, dst)  # after closing src, so that in-place works on Windows too


def stamped_temp(src, dst, values: dict[str, dict[str, object]], *,
                 limits: Limits = Limits()) -> str:
    """:func:`stamp_cached_values` up to the temp file: its path, not yet moved onto ``dst``.

    For a caller that holds ``src`` open (:func:`open_package`) while it stamps, so that the
    package is read once per command: the caller moves the temp file onto ``dst`` with
    :func:`~rooflinexl.ooxml.atomic.commit_temp` after closing ``src`` (so that an in-place
    write works on Windows too). Arguments and errors as :func:`stamp_cached_values`.
    """
    with open_package(src, limits) as zin:
        return _write_package(zin, _stamped_parts(zin, values), dst, like=src)


@paused_gc()
def _stamped_parts(zin: zipfile.ZipFile, values) -> dict[str, list[bytes]]:
    """The sheet parts of ``zin`` with ``values`` stamped in, by member name, each in
    pieces (a large sheet is never joined into one bytes object)."""
    parts = sheet_members(zin)
    folded = {name.casefold(): member for name, member in parts.items()}
    new_parts: dict[str, bytes] = {}
    for sheet, cells in values.items():
        member = parts.get(sheet) or folded.get(str(sheet).casefold())
        if member is None:
            raise ValueError(f"no worksheet named {sheet!r} (sheets: "
                             f"{', '.join(map(repr, parts)) or 'none'})")
        if not cells:
            continue
        targets = dict(zip(_normalise_refs(cells, sheet), _encode_values(cells, sheet),
                           strict=True))
        data = new_parts.get(member)
        data = zin.read(member) if data is None else b"".join(data)
        new_parts[member] = _stamp_pieces(data, member, sheet, targets)
        del data
    return new_parts


def _encode_values(cells: dict[str, object], sheet: str) -> list[tuple[bytes | None,
                                                                         bytes | None]]:
    """:func:`encode_value` of each of ``cells``' values; when all are finite floats (a
    plan's usual sheet), in bulk: one ``repr`` a value, the ``.0`` of whole numbers dropped
    and the text encoded all at once (:func:`format_number`'s text, each)."""
    vals = cells.values()
    if set(map(type, vals)) == {float} and all(map(math.isfinite, vals)):
        texts = map(repr, vals)
        distinct = set(vals)
        # a column looked up from a table repeats a few numbers: each written once (0.0
        # and -0.0 are one key but two texts, "0" and "-0")
        if 4 * len(distinct) < len(vals) and 0.0 not in distinct:
            texts = map(dict(zip(distinct, map(repr, distinct), strict=True)).__getitem__, vals)
        text = ("\n".join(texts) + "\n").replace(".0\n", "\n")
        return list(zip(repeat(None), text.encode("ascii").split(b"\n")[:-1]))
    return [encode_value(value, (sheet, ref)) for ref, value in cells.items()]


def _write_package(zin: zipfile.ZipFile, new_parts: dict[str, bytes], dst, like=None) -> str:
    """A temp file beside ``dst``: ``zin`` with ``new_parts`` replaced, all else copied.

    ``like``: the file whose permission bits a new ``dst`` takes (:func:`write_temp`)."""

    def write(fh) -> None:
        with zipfile.ZipFile(fh, "w", allowZip64=True) as zout:
            zout.comment = zin.comment
            for info in zin.infolist():
                zi = _copy_info(info)
                if info.is_dir():
                    zout.writestr(zi, b"")
                elif info.filename in new_parts:
                    data = new_parts[info.filename]  # bytes, or a list of pieces
                    pieces = [data] if isinstance(data, bytes) else data
                    zi.file_size = sum(map(len, pieces))
                    if zi.compress_type == zipfile.ZIP_DEFLATED:
                        zi._compresslevel = _REWRITE_LEVEL
                    with zout.open(zi, "w") as out:
                        for piece in pieces:
                            out.write(piece)
                else:
                    with zin.open(info) as inp, zout.open(zi, "w") as out:
                        shutil.copyfileobj(inp, out, CHUNK)
                # zipfile turns external_attr 0 into 0o600 << 16 while writing; the
                # central directory is written on close, from this object
                zi.external_attr = info.external_attr

    return write_temp(dst, write, like=like)


_DEFINED_NAME_RE = re.compile(rb"<(?P<p>" + PREFIX + rb")definedName(?=[\s>])" + ATTRS
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
    >>> from rooflinexl.ooxml import formula_cells
    >>> formula_cells(p)
    {'Sheet': {'A1': 'MAX(1,2)&"SUM("'}}
    """
    changed = 0

    def edit(data: bytes, start: int, end: int, edits: list) -> None:
        nonlocal changed
        text = unescape_xml(data[start:end].decode("utf-8"))
        new = rewrite(text)
        if new != text:
            edits.append((start, end, _escape_formula(new)))
            changed += 1

    with open_package(src, limits) as zin:
        names = names_map(zin)
        new_parts: dict[str, bytes] = {}
        for member in sheet_members(zin, names).values():
            data = zin.read(member)
            lo, hi, _ = sheet_data_span(data, member)
            edits: list[tuple[int, int, bytes]] = []
            for _ref, p, _ca, body, m in iter_cells(data, lo, hi):
                fm = child_res(p)[0].search(body) if body else None
                if fm is not None and fm.group("t"):
                    at = m.start("body")
                    edit(data, at + fm.start("t"), at + fm.end("t"), edits)
            if edits:
                new_parts[member] = _splice(data, edits)
        book = workbook_part(zin, names)
        if book is not None:
            data = zin.read(book)
            edits = []
            for m in _DEFINED_NAME_RE.finditer(data):
                edit(data, m.start("t"), m.end("t"), edits)
            if edits:
                new_parts[book] = _splice(data, edits)
        tmp = _write_package(zin, new_parts, dst, like=src)
    commit_temp(tmp, dst)
    return changed


