"""Hostile and unusable workbooks through ``rooflinexl recalc`` (issue #7, item 2).

Each file here is refused cleanly: exit status 2, exactly one line on stderr that
names the problem and what to do, no traceback, nothing written (no output, no
temporary file, the input untouched). Covered: encrypted workbooks, legacy
``.xls``, ``.xlsb``, ``.ods``, truncated and non-zip files, XML entity-expansion
bombs and external entities (in any part, whatever its name or encoding), zip
bombs (compression ratio and total size, each limit named in the message and
configurable by option and environment variable), files over the size limit and
packages with too many members.

Also: macros never run (nothing is executed, ``vbaProject.bin`` kept byte for
byte), external links are never followed and nothing touches the network: a
run under a Python audit hook records every socket, subprocess and exec event
and every open of a planted "secret" file, and a local TCP server records any
connection.
"""
from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import openpyxl
import pytest

ROOT = Path(__file__).resolve().parents[1]
SAVED = ROOT / "tests" / "data" / "excel-saved"
BOOK = ROOT / "workbooks" / "Roofline.xlsx"
TIMEOUT = 60

BILLION_LAUGHS = (
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
    + b"".join(b'<!ENTITY lol%d "%s">' % (i, b"".join([b"&lol%d;" % (i - 1) if i > 1
                                                          else b"&lol;"] * 10))
               for i in range(1, 10))
    + b"]>\n"
)
XXE_FILE = b'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
XXE_HTTP = b'<?xml version="1.0"?>\n<!DOCTYPE x SYSTEM "http://127.0.0.1:9/evil.dtd">\n'
XXE_PARAM = (b'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY % p SYSTEM '
             b'"http://127.0.0.1:9/p.dtd"> %p;]>\n')


# ---------------------------------------------------------------------------- helpers
def recalc(*args, env=None, timeout=TIMEOUT):
    """``rooflinexl recalc ARGS`` in a subprocess (what a user runs)."""
    return subprocess.run([sys.executable, "-m", "rooflinexl.cli", "recalc", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def assert_refused(book: Path, *words: str, args=(), env=None) -> str:
    """Exit 2, one line naming the problem (``words``), nothing written; the line."""
    folder = book.parent
    before = sorted(p.name for p in folder.iterdir())
    src_hash = digest(book) if book.is_file() else None
    out = folder / "refused-out.xlsx"
    proc = recalc(book, "-o", out, *args, env=env)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == "", proc.stdout
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rooflinexl: "), proc.stderr
    line = lines[0].lower()
    for word in words:
        assert word.lower() in line, (word, lines[0])
    assert any(w in line for w in ("save", "raise it", "check the path", "give the path")), \
        f"the message says what to do: {lines[0]}"
    assert sorted(p.name for p in folder.iterdir()) == before, "something was written"
    if src_hash is not None:
        assert digest(book) == src_hash
    return lines[0]


def make_book(path: Path, formulas=("=A1*2",), sheet="Sheet") -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = sheet
    ws["A1"] = 21
    for i, f in enumerate(formulas, start=1):
        ws.cell(row=i, column=2, value=f)
    wb.save(path)
    return path


def rewrite(src: Path, dst: Path, replace=None, add=None, drop=(), rename=None,
            compression=zipfile.ZIP_DEFLATED) -> Path:
    """A copy of the zip ``src`` with members replaced, added, dropped or renamed."""
    replace, add, rename = dict(replace or {}), dict(add or {}), dict(rename or {})
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", compression) as zout:
        for info in zin.infolist():
            if info.filename in drop:
                continue
            data = replace.pop(info.filename, None)
            data = zin.read(info) if data is None else data
            if callable(data):
                data = data(zin.read(info))
            zout.writestr(rename.get(info.filename, info.filename), data)
        for name, data in add.items():
            zout.writestr(name, data)
    return dst


def with_prolog(prolog: bytes):
    """Replace a part's XML declaration by ``prolog`` (which may carry a DOCTYPE)."""
    def edit(data: bytes) -> bytes:
        if data.startswith(b"<?xml"):
            data = data.split(b"?>", 1)[1].lstrip()
        return prolog + data
    return edit


@pytest.fixture
def base(tmp_path) -> Path:
    folder = tmp_path / "src"
    folder.mkdir()
    return make_book(folder / "base.xlsx")


def hostile(base: Path, name: str, **kw) -> Path:
    """A variant of ``base`` in a folder of its own (so 'nothing written' is checkable)."""
    folder = base.parent.parent / name.replace(".", "_")
    folder.mkdir()
    return rewrite(base, folder / name, **kw)


# ------------------------------------------------------------------ formats and corruption
def test_encrypted_workbook(tmp_path):
    """An encrypted OOXML package is an OLE2 container holding an EncryptionInfo stream."""
    ole = (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504) + "EncryptionInfo".encode("utf-16-le")
           + bytes(2000) + "EncryptedPackage".encode("utf-16-le") + os.urandom(3000))
    book = tmp_path / "secret.xlsx"
    book.write_bytes(ole)
    assert_refused(book, "encrypted", "without a password")


def test_real_excel_encrypted_workbook(tmp_path):
    book = tmp_path / "pass_protected.xlsx"
    book.write_bytes((SAVED / "pass_protected.xlsx").read_bytes())
    assert_refused(book, "encrypted")


def test_legacy_xls(tmp_path):
    book = tmp_path / "old.xls"
    book.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
                     + "Workbook".encode("utf-16-le") + os.urandom(4000))
    assert_refused(book, ".xls", "save as .xlsx")


def test_xlsb(base):
    book = hostile(base, "binary.xlsb", rename={"xl/workbook.xml": "xl/workbook.bin"})
    assert_refused(book, ".xlsb", "save as .xlsx")


def test_ods(tmp_path):
    book = tmp_path / "sheet.ods"
    with zipfile.ZipFile(book, "w") as zf:
        zf.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        zf.writestr("content.xml", "<office:document-content/>")
    assert_refused(book, ".ods", "save as .xlsx")


@pytest.mark.parametrize("fraction", [0.0, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999])
def test_truncated_workbook(tmp_path, fraction):
    data = BOOK.read_bytes()
    book = tmp_path / "cut.xlsx"
    book.write_bytes(data[:int(len(data) * fraction)] if fraction else b"")
    assert_refused(book, "truncated", "save it again")


def test_last_byte_missing(tmp_path):
    data = BOOK.read_bytes()
    book = tmp_path / "cut.xlsx"
    book.write_bytes(data[:-1])
    assert_refused(book, "save it again")


@pytest.mark.parametrize("content", [
    b"hello, not a workbook\n",
    b"\x89PNG\r\n\x1a\n" + bytes(100),
    b"PK\x03\x04" + bytes(200),  # a zip signature and nothing else
    b"%PDF-1.7\n",
])
def test_not_a_zip(tmp_path, content):
    book = tmp_path / "x.xlsx"
    book.write_bytes(content)
    assert_refused(book, "not a zip")


def test_random_bytes(tmp_path):
    book = tmp_path / "x.xlsx"
    book.write_bytes(os.urandom(20000))
    assert_refused(book, "save it again")


def test_zip_without_workbook(tmp_path):
    book = tmp_path / "x.xlsx"
    with zipfile.ZipFile(book, "w") as zf:
        zf.writestr("hello.txt", "hi")
    assert_refused(book, "xl/workbook.xml")


def test_missing_file_and_directory(tmp_path):
    assert_refused(tmp_path / "nope.xlsx", "no such file")
    (tmp_path / "dir.xlsx").mkdir()
    assert_refused(tmp_path / "dir.xlsx", "not a regular file")


def test_corrupt_member_crc(base):
    """A flipped byte inside a compressed member: refused (bad CRC), not half-read."""
    raw = bytearray(base.read_bytes())
    with zipfile.ZipFile(base) as zf:
        info = zf.getinfo("xl/worksheets/sheet1.xml")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    raw[start + info.compress_size // 2] ^= 0xFF
    book = base.parent / "crc.xlsx"
    book.write_bytes(bytes(raw))
    assert_refused(book, "save it again")


# ------------------------------------------------------------------ XML: DTDs and entities
@pytest.mark.parametrize("part", ["xl/workbook.xml", "xl/worksheets/sheet1.xml",
                                  "[Content_Types].xml", "_rels/.rels", "xl/styles.xml",
                                  "docProps/core.xml"])
@pytest.mark.parametrize("prolog", [BILLION_LAUGHS, XXE_FILE, XXE_HTTP, XXE_PARAM],
                         ids=["billion-laughs", "xxe-file", "xxe-http-dtd", "xxe-parameter"])
def test_dtd_in_any_part_is_refused(base, part, prolog):
    book = hostile(base, "dtd.xlsx", replace={part: with_prolog(prolog)})
    assert_refused(book, "DOCTYPE", part)


def test_utf16_entity_bomb(base):
    def edit(data: bytes) -> bytes:
        text = with_prolog(BILLION_LAUGHS)(data).decode("utf-8")
        return text.replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="UTF-16"?>',
                            1).encode("utf-16")
    book = hostile(base, "utf16.xlsx", replace={"xl/workbook.xml": edit})
    assert_refused(book, "DOCTYPE")


def test_entity_bomb_in_a_part_not_named_xml(base):
    """The worksheet renamed ``sheet1.dat`` (its relationship follows): still scanned."""
    def sheet(data: bytes) -> bytes:
        data = with_prolog(BILLION_LAUGHS)(data)
        return data.replace(b"<sheetData>", b'<sheetData><row r="9"><c r="A9" t="inlineStr">'
                            b"<is><t>&lol9;</t></is></c></row>", 1)
    book = hostile(base, "dat.xlsx",
                   rename={"xl/worksheets/sheet1.xml": "xl/worksheets/sheet1.dat"},
                   replace={"xl/worksheets/sheet1.xml": sheet,
                            "xl/_rels/workbook.xml.rels":
                                lambda d: d.replace(b"sheet1.xml", b"sheet1.dat"),
                            "[Content_Types].xml":
                                lambda d: d.replace(b"sheet1.xml", b"sheet1.dat")})
    assert_refused(book, "DOCTYPE", "sheet1.dat")


def test_svg_image_with_doctype_is_accepted_but_entities_are_not(base, tmp_path):
    """An SVG image's standard DOCTYPE is harmless (media are never parsed); ENTITY is not."""
    svg = (b'<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
           b'"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
           b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>')
    book = hostile(base, "svg.xlsx", add={"xl/media/image1.svg": svg})
    out = tmp_path / "svg-out.xlsx"
    proc = recalc(book, "-o", out)
    assert proc.returncode == 0, proc.stderr
    with zipfile.ZipFile(out) as zf:
        assert zf.read("xl/media/image1.svg") == svg
    bomb = hostile(base, "svgbomb.xlsx",
                   add={"xl/media/image1.svg": BILLION_LAUGHS + b"<svg>&lol9;</svg>"})
    assert_refused(bomb, "DOCTYPE/ENTITY")


# --------------------------------------------------------------------------- zip bombs
def _bomb(base: Path, name: str, member_mb: int, members: int = 1) -> Path:
    zeros = bytes(member_mb * 2**20)
    return hostile(base, name, add={f"xl/media/blob{i}.bin": zeros for i in range(members)})


def test_zip_bomb_ratio_is_refused_and_configurable(base):
    book = _bomb(base, "ratio.xlsx", 40)  # 40 MB of zeros, deflated ~1000:1
    line = assert_refused(book, "zip bomb", "over the limit of 200x", "--max-ratio",
                          "ROOFLINEXL_MAX_RATIO")
    assert "xl/media/blob0.bin" in line
    out = book.parent / "ok.xlsx"
    for kw in ({"args": ("--max-ratio", "5000")}, {"env": {"ROOFLINEXL_MAX_RATIO": "5000"}}):
        proc = recalc(book, "-o", out, *kw.get("args", ()), env=kw.get("env"))
        assert proc.returncode == 0, proc.stderr
        out.unlink()


def test_zip_bomb_total_size_is_refused_and_configurable(base):
    book = _bomb(base, "total.xlsx", 1, members=8)  # 8 x 1 MiB, each under the ratio floor
    assert_refused(book, "zip bomb", "over the limit of 4 MB", "--max-uncompressed-mb",
                   args=("--max-uncompressed-mb", "4"))
    assert_refused(book, "zip bomb", "4 MB", env={"ROOFLINEXL_MAX_UNCOMPRESSED_MB": "4"})
    out = book.parent / "ok.xlsx"
    assert recalc(book, "-o", out, "--max-uncompressed-mb", "20").returncode == 0


def test_zip_member_lying_about_its_size(base):
    """A member whose directory entry declares 10 bytes but which inflates to 5 MB."""
    book = base.parent.parent / "liar" / "liar.xlsx"
    book.parent.mkdir()
    rewrite(base, book, add={"xl/media/liar.bin": bytes(5 * 2**20)})
    raw = bytearray(book.read_bytes())
    with zipfile.ZipFile(book) as zf:
        info = zf.getinfo("xl/media/liar.bin")
    size = (5 * 2**20).to_bytes(4, "little")
    n = 0
    for pos in range(len(raw) - 4):  # uncompressed size in the local header and the directory
        if raw[pos:pos + 4] == size:
            raw[pos:pos + 4] = (10).to_bytes(4, "little")
            n += 1
    assert n == 2 and info.file_size == 5 * 2**20
    book.write_bytes(bytes(raw))
    assert_refused(book, "save it again")


def test_file_size_limit(tmp_path):
    book = tmp_path / "Roofline.xlsx"
    book.write_bytes(BOOK.read_bytes())
    assert_refused(book, "over the limit of 0.01 MB", "--max-file-mb", args=("--max-file-mb",
                                                                             "0.01"))
    assert_refused(book, "0.01 MB", "ROOFLINEXL_MAX_FILE_MB",
                   env={"ROOFLINEXL_MAX_FILE_MB": "0.01"})


def test_member_count_limit(base):
    book = hostile(base, "many.xlsx", add={f"customXml/item{i}.txt": b"x" for i in range(50)})
    assert_refused(book, "over the limit of 20", "--max-members", args=("--max-members", "20"))


def test_bad_limit_value_is_one_line(base):
    proc = recalc(base, "-o", base.parent / "o.xlsx", env={"ROOFLINEXL_MAX_RATIO": "lots"})
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_duplicate_member_names(base):
    book = base.parent.parent / "dup" / "dup.xlsx"
    book.parent.mkdir()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name
        rewrite(base, book, add={"xl/workbook.xml": b"<workbook/>"})
    assert_refused(book, "same name")


# ------------------------------------------------------- no macros, no links, no network
AUDIT_RUNNER = textwrap.dedent("""
    import json, sys
    log, secret = sys.argv[1], sys.argv[2]
    watched = ("socket.", "urllib.", "http.", "ftplib.", "smtplib.", "subprocess.", "os.system",
               "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.startfile", "webbrowser.",
               "pty.", "os.kill")
    events = []

    def hook(event, args):
        if event.startswith(watched):
            events.append([event, repr(args)[:300]])
        elif event == "open" and secret in str(args[0]):
            events.append([event, str(args[0])])

    sys.addaudithook(hook)
    from rooflinexl.cli import main
    try:
        main(sys.argv[3:], prog_name="rooflinexl")
    except SystemExit as exc:
        code = exc.code
    else:
        code = 0
    with open(log, "w") as fh:
        json.dump({"code": code, "events": events}, fh)
""")


def audited_recalc(book: Path, out: Path, secret: str = "rooflinexl-secret"):
    """recalc under an audit hook: (exit code, events, stdout+stderr)."""
    log = out.with_suffix(".log.json")
    proc = subprocess.run([sys.executable, "-c", AUDIT_RUNNER, str(log), secret, "recalc",
                           str(book), "-o", str(out)], capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert "Traceback" not in proc.stderr, proc.stderr
    result = json.loads(log.read_text())
    return result["code"], result["events"], proc.stdout + proc.stderr


class Listener:
    """A local TCP server that records whether anybody connected."""

    def __enter__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        return self

    def connections(self) -> int:
        n = 0
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return n
            conn.close()
            n += 1

    def __exit__(self, *exc):
        self.sock.close()


def _external_link_book(folder: Path, target: str, secret_value=424242) -> Path:
    """A workbook whose A1 is ``=[1]S!A1``, link 1 pointing to ``target`` (cached value 7)."""
    base = make_book(folder / "linkbase.xlsx", formulas=())
    book = folder / "linked.xlsx"
    ext = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
           b'<externalLink xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
           b'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
           b'<externalBook r:id="rId1"><sheetNames><sheetName val="S"/></sheetNames>'
           b'<sheetDataSet><sheetData sheetId="0"><row r="1"><cell r="A1"><v>7</v></cell></row>'
           b"</sheetData></sheetDataSet></externalBook></externalLink>")
    rels = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            b'<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
            b'relationships/externalLinkPath" Target="' + target.encode() + b'" '
            b'TargetMode="External"/></Relationships>')
    return rewrite(base, book, replace={
        "[Content_Types].xml": lambda d: d.replace(
            b"</Types>", b'<Override PartName="/xl/externalLinks/externalLink1.xml" ContentType='
            b'"application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"/>'
            b"</Types>"),
        "xl/_rels/workbook.xml.rels": lambda d: d.replace(
            b"</Relationships>", b'<Relationship Id="rId99" Type="http://schemas.openxmlformats.'
            b'org/officeDocument/2006/relationships/externalLink" '
            b'Target="externalLinks/externalLink1.xml"/></Relationships>'),
        "xl/workbook.xml": lambda d: d.replace(
            b"</sheets>", b'</sheets><externalReferences><externalReference r:id="rId99"/>'
            b"</externalReferences>"),
        "xl/worksheets/sheet1.xml": lambda d: d.replace(
            b'<c r="A1" t="n"><v>21</v></c>',
            b'<c r="A1" t="n"><v>21</v></c><c r="B1"><f>[1]S!A1</f><v>7</v></c>'),
    }, add={"xl/externalLinks/externalLink1.xml": ext,
            "xl/externalLinks/_rels/externalLink1.xml.rels": rels})


def _secret_book(folder: Path) -> Path:
    wb = openpyxl.Workbook()
    wb.active.title = "S"
    wb.active["A1"] = 424242
    path = folder / "rooflinexl-secret.xlsx"
    wb.save(path)
    return path


@pytest.mark.parametrize("kind", ["relative", "absolute", "parent"])
def test_external_links_are_never_followed(tmp_path, kind):
    secret = _secret_book(tmp_path)
    target = {"relative": secret.name, "absolute": str(secret),
              "parent": "../../../../../../../../.." + str(secret)}[kind]
    book = _external_link_book(tmp_path, target)
    code, events, output = audited_recalc(book, tmp_path / "out.xlsx")
    opened = [e for e in events if e[0] == "open"]
    assert not opened, f"the linked workbook was opened: {opened}"
    from rooflinexl.ooxml import read_cached_values

    got = read_cached_values(tmp_path / "out.xlsx")["Sheet"]["B1"]
    assert got != 424242.0, "the linked workbook's value was read"
    assert code in (0, 1), output


def test_no_network_no_processes(tmp_path):
    """Links, web functions, DDE and hyperlinks aimed at a local server: no connection."""
    with Listener() as server:
        url = f"http://127.0.0.1:{server.port}/"
        book = make_book(tmp_path / "net.xlsx", formulas=(
            f'=WEBSERVICE("{url}x")',
            f'=FILTERXML(WEBSERVICE("{url}y"),"//a")',
            f'=HYPERLINK("{url}z","click")',
            f"=INDIRECT(\"'{url}[a.xlsx]S'!A1\")",
            '=CALL("libc.so.6","system","JC","touch /tmp/rooflinexl-pwned")',
            '=RTD("prog.id",,"topic")',
            "=cmd|'/c touch /tmp/rooflinexl-pwned'!A0",
            '=IMPORTDATA("' + url + 'd.csv")',
        ))
        wb = openpyxl.load_workbook(book)
        wb.active["C1"].hyperlink = url + "link"
        wb.save(book)
        linked = _external_link_book(tmp_path, url + "remote.xlsx")
        for path in (book, linked):
            out = tmp_path / f"out-{path.name}"
            code, events, output = audited_recalc(path, out)
            assert code in (0, 1, 2), output
            assert not events, events  # no socket, no subprocess, no exec
            assert server.connections() == 0
    assert not Path("/tmp/rooflinexl-pwned").exists()


def _xlsm(folder: Path) -> Path:
    """A macro-enabled workbook with an Auto_Open macro name and a (fake) VBA project."""
    base = make_book(folder / "m.xlsx")
    vba = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504) + b"Attribute VB_Name Auto_Open Shell"
    return rewrite(base, folder / "macro.xlsm", replace={
        "[Content_Types].xml": lambda d: d.replace(
            b"spreadsheetml.sheet.main+xml", b"ms-excel.sheet.macroEnabled.main+xml").replace(
            b"</Types>", b'<Default Extension="bin" ContentType="application/vnd.ms-office.'
            b'vbaProject"/></Types>'),
        "xl/_rels/workbook.xml.rels": lambda d: d.replace(
            b"</Relationships>", b'<Relationship Id="rId77" Type="http://schemas.microsoft.com/'
            b'office/2006/relationships/vbaProject" Target="vbaProject.bin"/></Relationships>'),
        "xl/workbook.xml": lambda d: d.replace(
            b"<definedNames />", b'<definedNames><definedName name="Auto_Open">Sheet!$A$1'
            b"</definedName></definedNames>"),
    }, add={"xl/vbaProject.bin": vba})


@pytest.mark.parametrize("source", ["synthetic", "vba.xlsm"])
def test_macros_never_run_and_survive(tmp_path, source):
    if source == "synthetic":
        book = _xlsm(tmp_path)
    else:
        book = tmp_path / source
        book.write_bytes((SAVED / source).read_bytes())
    out = tmp_path / "out.xlsm"
    code, events, output = audited_recalc(book, out)
    assert code == 0, output
    assert not events, events
    with zipfile.ZipFile(book) as za, zipfile.ZipFile(out) as zb:
        assert za.read("xl/vbaProject.bin") == zb.read("xl/vbaProject.bin")


def test_deflate64_or_unknown_compression_is_refused(base):
    """A member compressed with a method zipfile cannot read: one line, exit 2."""
    raw = bytearray(base.read_bytes())
    with zipfile.ZipFile(base) as zf:
        infos = zf.infolist()
    for info in infos:  # compression method 9 (Deflate64) in the local and central headers
        raw[info.header_offset + 8:info.header_offset + 10] = (9).to_bytes(2, "little")
    cd = raw.rfind(b"PK\x05\x06")
    pos = int.from_bytes(raw[cd + 16:cd + 20], "little")
    while raw[pos:pos + 4] == b"PK\x01\x02":
        raw[pos + 10:pos + 12] = (9).to_bytes(2, "little")
        pos += 46 + sum(int.from_bytes(raw[pos + k:pos + k + 2], "little") for k in (28, 30, 32))
    book = base.parent / "d64.xlsx"
    book.write_bytes(bytes(raw))
    assert_refused(book, "save it again")
