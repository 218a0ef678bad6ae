"""References to other workbooks computed from the values the package caches for them.

Excel keeps the last values of another workbook's cells it reads in the package's
externalLink parts (ECMA-376 Part 1, 18.14, ``<sheetDataSet>``) and computes ``[1]Sheet1!A1``
from them. Expected values: the formulas project's test.xlsx (EUPL; saved by Microsoft Excel
for Mac) caches, with 2 in [1]Sheet1!A1 and A2 of its externalLink1.xml, 3 for
``=[1]Sheet1!$A$1+1`` (CORE!B17), 4 for ``=[1]Sheet1!$A$1+[1]Sheet1!$A$2`` (B18) and 2 for
``=m`` with the defined name m = ``[1]Sheet1!$A$1`` (O13). The book here is written the same
way (raw XML), with a text, a boolean and an error beside them.
"""
from __future__ import annotations

import zipfile
from xml.sax.saxutils import escape

import pytest
from formula_cases import ENGINES, matches_excel

from rooflinexl.recalc.book import recalc_book

_NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ' \
      'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

FORMULAS = {
    "B17": ("[1]Sheet1!$A$1+1", 3),
    "B18": ("[1]Sheet1!$A$1+[1]Sheet1!$A$2", 4),
    "O13": ("m", 2),
    "C1": ("'[1]My sheet'!B1&\"!\"", 'say "hi"!'),
    "C2": ("NOT([1]Sheet1!B2)", False),
    "C3": ("ISNA([1]Sheet1!C2)", True),
    # filled down, each row its own cell (Excel: ClosedXML's external-refs.xlsx caches
    # Andy, Bruce, Charlie for =[1]Sheet1!A2..A4, the linked book's cells row by row)
    "D1": ("[1]Sheet1!E1", 10), "D2": ("[1]Sheet1!E2", 20), "D3": ("[1]Sheet1!E3", 30),
    # the other book's names of one cell (Excel: EPPlus' ExtRef.xlsx caches 20 for
    # =[1]!CellH5, CellH5 = Sheet1!$H$5 holding 20, and 111 for =[1]Sheet1!FromF2, a name
    # of sheetId 0 for $F$2 holding 111)
    "E1": ("[1]!Whole", 10), "E2": ("[1]Sheet1!Local", 20),
}


def _book(path):
    rows: dict[int, str] = {}
    for ref, (f, _v) in sorted(FORMULAS.items()):
        rows[int(ref[1:])] = rows.get(int(ref[1:]), "") + f'<c r="{ref}"><f>{escape(f)}</f></c>'
    cells = "".join(f'<row r="{r}">{c}</row>' for r, c in sorted(rows.items()))
    files = {
        "[Content_Types].xml": '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.'
        'openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType='
        '"application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" '
        'ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType='
        '"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.'
        'openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName='
        '"/xl/externalLinks/externalLink1.xml" ContentType="application/vnd.openxmlformats-'
        'officedocument.spreadsheetml.externalLink+xml"/></Types>',
        "_rels/.rels": f'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
        f'relationships"><Relationship Id="rId1" Type="{_REL}/officeDocument" '
        'Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<workbook {_NS}><sheets><sheet name="CORE" sheetId="1" r:id="rId1"/>'
        '</sheets><externalReferences><externalReference r:id="rId2"/></externalReferences>'
        '<definedNames><definedName name="m">[1]Sheet1!$A$1</definedName></definedNames>'
        '</workbook>',
        "xl/_rels/workbook.xml.rels": f'<Relationships xmlns="http://schemas.openxmlformats.org/'
        f'package/2006/relationships"><Relationship Id="rId1" Type="{_REL}/worksheet" '
        f'Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="{_REL}/externalLink" '
        'Target="externalLinks/externalLink1.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": f"<worksheet {_NS}><sheetData>{cells}</sheetData></worksheet>",
        "xl/externalLinks/externalLink1.xml": f'<externalLink {_NS}><externalBook r:id="rId1">'
        '<sheetNames><sheetName val="Sheet1"/><sheetName val="My sheet"/></sheetNames>'
        '<definedNames><definedName name="Whole" refersTo="=\'Sheet1\'!$E$1"/>'
        '<definedName name="Local" refersTo="=Sheet1!$E$2" sheetId="0"/></definedNames>'
        '<sheetDataSet><sheetData sheetId="0" refreshError="1"><row r="1"><cell r="A1"><v>2</v>'
        '</cell><cell r="E1"><v>10</v></cell></row><row r="2"><cell r="A2"><v>2</v></cell>'
        '<cell r="B2" t="b"><v>1</v></cell><cell r="C2" t="e"><v>#N/A</v></cell>'
        '<cell r="E2"><v>20</v></cell></row><row r="3"><cell r="E3"><v>30</v></cell></row>'
        '</sheetData><sheetData sheetId="1">'
        '<row r="1"><cell r="B1" t="str"><v>say "hi"</v></cell></row></sheetData>'
        '</sheetDataSet></externalBook></externalLink>',
        "xl/externalLinks/_rels/externalLink1.xml.rels": '<Relationships xmlns="http://schemas.'
        f'openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{_REL}/'
        'externalLinkPath" Target="test_link.xlsx" TargetMode="External"/></Relationships>',
    }
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return path


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    path = _book(tmp_path_factory.mktemp("external") / "links.xlsx")
    return {e: recalc_book(path, write=False, engine=e).evaluation for e in ENGINES}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("cell", list(FORMULAS))
def test_excel_answer(evaluations, engine, cell):
    got = evaluations[engine].value("CORE", cell)
    assert matches_excel(got, FORMULAS[cell][1]), got
