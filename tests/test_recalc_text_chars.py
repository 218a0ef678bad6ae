"""Characters: ``_xHHHH_`` escapes in the file, CHAR/CODE in the saving Excel's character set.

Expected values are Excel's: the cached values of the formulas project's test.xlsx, saved by
"Microsoft Macintosh Excel" (sheets CORE and TEXT, cited beside each case), IronCalc's
CHAR.xlsx saved by Windows Excel, and Microsoft's function reference (read 2026-12-01):
"CHAR function" / "CODE function" ("Windows: ANSI; Macintosh: Macintosh character set"),
"CLEAN function" (removes the characters of codes 0 to 31), ECMA-376 Part 1, 22.9.2.19
ST_Xstring (``_xHHHH_`` is the character U+HHHH; ``_x005F_`` escapes an underscore).
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
import zipfile

import openpyxl
import pytest
from formula_cases import ENGINES

from rooflinexl.ooxml import read_cached_values
from rooflinexl.recalc.book import recalc_book
from rooflinexl.recalc.functions import character_set

MAC = "Microsoft Macintosh Excel"


def _book(tmp_path, cells: dict, *, xml: dict | None = None, app: str | None = None,
          name: str = "book.xlsx"):
    """A workbook of ``cells`` whose sheet XML has each ``xml`` placeholder replaced by raw
    stored text (openpyxl cannot write an escape itself) and whose <Application> is ``app``."""
    wb = openpyxl.Workbook()
    ws = wb.active
    for ref, v in cells.items():
        ws[ref] = v
    plain = tmp_path / ("plain-" + name)
    wb.save(plain)
    out = tmp_path / name
    with zipfile.ZipFile(plain) as zi, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zo:
        for it in zi.infolist():
            data = zi.read(it.filename)
            if it.filename.startswith("xl/worksheets/"):
                for k, v in (xml or {}).items():
                    data = data.replace(k.encode(), v.encode())
            if it.filename == "docProps/app.xml" and app is not None:
                data = re.sub(rb"<Application>[^<]*</Application>",
                              b"<Application>" + app.encode() + b"</Application>", data)
            zo.writestr(it, data)
    return out


def _values(path, engine):
    ev = recalc_book(path, write=False, engine=engine).evaluation
    return {cell: res.value for (_s, cell), res in ev.cells.items()}


def _mismatches(tmp_path, engine, inputs: dict, cases: dict, column: str = "A",
                start: int = 1, **book) -> dict:
    """Each formula of ``cases`` down ``column`` from row ``start`` of a book with
    ``inputs``: {formula: (ours, Excel's)} where they differ."""
    formulas = {f"{column}{i}": f for i, f in enumerate(cases, start=start)}
    got = _values(_book(tmp_path, inputs | formulas, **book), engine)
    return {f: (got[c], cases[f]) for c, f in formulas.items() if not _same(got[c], cases[f])}


def _same(got, want) -> bool:
    if isinstance(want, str) and want.startswith("#"):
        return str(got) == want
    return got == want and type(got) is not bool or got is want


# --------------------------------------------------------------- character sets


def test_character_set_follows_the_saving_application():
    assert character_set(MAC) == "mac_roman"
    assert character_set("Microsoft Excel") == "cp1252"
    assert character_set("Microsoft Excel Online") == "cp1252"
    assert character_set(None) == "cp1252"


# A1 = 128, A2 = 219, A3 = 129, A4 = 256, A5 = TRUE
_CHAR_INPUTS = {"A1": 128, "A2": 219, "A3": 129, "A4": 256, "A5": True, "A6": 1.9}
MAC_CASES = {
    "=CHAR(A1)": "Ä",  # test.xlsx CORE!B159
    "=UNICODE(CHAR(A1))": 196,  # test.xlsx CORE!E159
    "=CODE(CHAR(A1))": 128,  # test.xlsx CORE!C159
    "=CHAR(A2)": "€",  # test.xlsx CORE!B250
    "=CODE(CHAR(A2))": 219,  # test.xlsx CORE!C250
    "=CHAR(130)": "Ç",  # test.xlsx CORE!B161
    "=CHAR(A4)": "#VALUE!",
    "=CHAR(A5)": "\x01",  # test.xlsx TEXT!Y7: CHAR(TRUE) is CHAR(1)
    "=CODE(A6)": 49,  # test.xlsx TEXT!S9: the text "1.9"
    "=CODE(A5)": 84,  # test.xlsx TEXT!Y9: "TRUE"
    "=CODE(A9)": "#VALUE!",  # test.xlsx TEXT!W9: an empty cell
    '=_xlfn.UNICODE("Ä")': 196,
}
WINDOWS_CASES = {
    "=CHAR(A1)": "€",  # IronCalc CHAR.xlsx, saved by Windows Excel
    "=CODE(CHAR(A1))": 128,
    "=UNICODE(CHAR(A1))": 8364,
    "=CHAR(A3)": "\x81",  # IronCalc CHAR.xlsx: a code Windows-1252 leaves undefined
    "=CODE(CHAR(A3))": 129,
    "=CHAR(A2)": "Û",  # Windows-1252 0xDB
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("app", "cases"), [(MAC, MAC_CASES), ("Microsoft Excel", WINDOWS_CASES),
                                            (None, WINDOWS_CASES)])
def test_char_and_code_use_the_saving_excels_character_set(tmp_path, engine, app, cases):
    assert not _mismatches(tmp_path, engine, _CHAR_INPUTS, cases, "C", app=app)


@pytest.mark.parametrize("engine", ENGINES)
def test_char_over_a_range_in_an_array_formula(tmp_path, engine):
    # test.xlsx TEXT!AH7:AW7, {=CHAR(C7:Q7)} over 0, 157, 65, 65.8, -1: one character per
    # cell, errors where they are
    from openpyxl.worksheet.formula import ArrayFormula

    wb = openpyxl.Workbook()
    ws = wb.active
    for ref, v in {"A1": 0, "B1": 157, "C1": 65, "D1": 65.8, "E1": -1}.items():
        ws[ref] = v
    ws["A3"] = ArrayFormula("A3:E3", "=CHAR(A1:E1)")
    ws["A4"] = ArrayFormula("A4:E4", "=CODE(CHAR(A1:E1))")
    p = tmp_path / "a.xlsx"
    wb.save(p)
    patched = _book(tmp_path, {}, app=MAC)  # only for its app.xml
    with zipfile.ZipFile(patched) as z:
        app_xml = z.read("docProps/app.xml")
    out = tmp_path / "mac.xlsx"
    with zipfile.ZipFile(p) as zi, zipfile.ZipFile(out, "w") as zo:
        for it in zi.infolist():
            zo.writestr(it, app_xml if it.filename == "docProps/app.xml" else zi.read(it))
    got = _values(out, engine)
    assert [str(got[f"{c}3"]) for c in "ABCDE"] == ["#VALUE!", "ù", "A", "A", "#VALUE!"]
    assert [str(got[f"{c}4"]) for c in "ABCDE"] == ["#VALUE!", "157.0", "65.0", "65.0",
                                                    "#VALUE!"]


# --------------------------------------------------------------- _xHHHH_ escapes

#: A1 holds CHAR(1) stored as _x0001_; A2 the text "_x0001_" a user typed (_x005F_x0001_)
_ESCAPED = {"A1": "CTRLONE", "A2": "LITERAL"}
_RAW = {"CTRLONE": "_x0001_", "LITERAL": "_x005F_x0001_"}
ESCAPE_CASES = {
    "=CODE(A1)": 1,  # test.xlsx CORE!C28 (B28 stored as _x0001_)
    "=CODE(A2)": 95,  # test.xlsx CORE!C27 (B27 stored as _x005F_x0001_): "_"
    "=LEN(A1)": 1,
    "=LEN(A2)": 7,
    "=LEN(A1&A2)-LEN(CLEAN(A1&A2))": 1,  # CLEAN drops CHAR(1), keeps the typed text
    '=A1&"x"': "\x01x",
    '=A2&"x"': "_x0001_x",
}


@pytest.mark.parametrize("engine", ENGINES)
def test_escaped_strings_are_read_as_the_characters_they_stand_for(tmp_path, engine):
    assert not _mismatches(tmp_path, engine, _ESCAPED, ESCAPE_CASES, "C", xml=_RAW)


def test_clean_removes_codes_0_to_31(tmp_path):
    # test.xlsx TEXT!X8: I8 = CHAR(1) ... CHAR(31) & " !" & CHAR(127) & "Åçèêù" (the control
    # characters stored as _x0001_ ... _x001F_, tab and line feed as themselves): 31 removed
    raw = "".join("\t\n" if k == 9 else "" if k == 10 else f"_x{k:04X}_" for k in range(1, 32))
    cells = {"A1": "CONTROLS", "B1": "=LEN(A1)-LEN(CLEAN(A1))", "B2": "=CLEAN(A1)",
             "B3": "=CLEAN(TRUE)"}
    book = _book(tmp_path, cells, xml={"CONTROLS": raw + " !\x7fÅçèêù"})
    for engine in ENGINES:
        got = _values(book, engine)
        assert got["B1"] == 31  # test.xlsx TEXT!X8
        assert got["B2"] == " !\x7fÅçèêù"  # test.xlsx TEXT!AN8
        assert got["B3"] == "TRUE"  # test.xlsx TEXT!Y8


def test_a_control_character_result_is_written_escaped_and_round_trips(tmp_path):
    cells = _ESCAPED | {"B1": "=A1&\"x\"", "B2": "=A2&\"\"", "B3": "=CHAR(7)"}
    src = _book(tmp_path, cells, xml=_RAW)
    dst = tmp_path / "out.xlsx"
    recalc_book(src, dst)
    with zipfile.ZipFile(dst) as z:
        sheet = z.read("xl/worksheets/sheet1.xml")
    ET.fromstring(sheet)  # still well-formed XML
    stored = dict(re.findall(rb'<c r="(B[123])"[^>]*>.*?<v>([^<]*)</v>', sheet))
    assert stored == {b"B1": b"_x0001_x", b"B2": b"_x005F_x0001_", b"B3": b"_x0007_"}
    assert read_cached_values(dst)["Sheet"] == {"B1": "\x01x", "B2": "_x0001_", "B3": "\x07"}
    # the recalculated file recalculates to the same values (nothing lost in the round trip)
    again = recalc_book(dst, write=False).evaluation
    assert {c: r.value for (_s, c), r in again.cells.items()} == {
        "B1": "\x01x", "B2": "_x0001_", "B3": "\x07"}


# --------------------------------------------------------------- small functions

#: inputs as in the formulas project's test.xlsx rows: C1 = 2.55, D1 = -222.5, E1 = #N/A,
#: G1 = -0.4, H1 empty, I1 empty text, J1 = TRUE, K1 = #DIV/0!
_SMALL_INPUTS = {"C1": 2.55, "D1": -222.5, "E1": "=NA()", "G1": -0.4, "I1": "EMPTYTEXT",
                 "J1": True, "K1": "=1/0", "B20": "=1+1", "B22": 5}
SMALL_CASES = {
    # LOOKUP!S15, V15, S115: a reference of several areas is #REF!
    "=COLUMNS((D15:G15,I15:J15,K15:N15))": "#REF!",
    "=COLUMNS(((F15:G15,G15:I15,F19:G19,G19:I19) G14:G44))": "#REF!",
    "=ROWS((D115:G115,I114:J115,K115:N115))": "#REF!",
    # LOOKUP!Z15 ... AF15, Z115 ...: the size of a reference to an error value
    "=COLUMNS(E1)": 1,
    "=ROWS(K1)": 1,
    "=ROWS(C1:K3)": 3,  # Microsoft, "ROWS function": ROWS(C1:E4) is 4
    "=COLUMNS(C1:K3)": 9,
    "=N(J1)": 1,  # INFORMATION!Y19
    "=N(C1)": 2.55,
    "=MROUND(J1,0)": "#VALUE!",  # MATH & TRIG!Y45: a boolean
    "=MROUND(E1,K1)": "#N/A",  # MATH & TRIG!AA45: the first error
    '=MROUND(C1,"1.4")': 2.8,  # MATH & TRIG!R45
    "=MROUND(D1,-2)": -222,  # MATH & TRIG!S45
    "=GCD(G1,J1)": "#VALUE!",  # MATH & TRIG!Y34: a boolean wins over a negative number
    "=LCM(G1,J1)": "#VALUE!",  # MATH & TRIG!Y37
    "=GCD(G1)": "#NUM!",  # MATH & TRIG!U34
    "=COUNTA(H1:J1)": 2,  # STATISTICAL!AG23: empty text counts, an empty cell does not
    "=IF(,,4)": 4,  # CORE!F29
    "=IF(,4,)": 0,  # CORE!F30, the row below (not one block with F29)
    "=CHAR(E1)": "#N/A",  # TEXT!AA7: an error is itself
    "=CODE(K1)": "#DIV/0!",
}


@pytest.mark.parametrize("engine", ENGINES)
def test_small_functions_as_excel_caches_them(tmp_path, engine):
    assert not _mismatches(tmp_path, engine, _SMALL_INPUTS, SMALL_CASES,
                           xml={"EMPTYTEXT": ""}, app=MAC)


@pytest.mark.parametrize("engine", ENGINES)
def test_array_formulas_over_ranges(tmp_path, engine):
    from openpyxl.worksheet.formula import ArrayFormula

    cells = {"C1": 2.55, "D1": 3, "E1": "=1+1", "F1": "x",
             # MATH & TRIG!AH45:AL45: MROUND takes no range, #VALUE! in every cell
             "A3": ArrayFormula("A3:C3", "=MROUND(C1:E1,2)"),
             # INFORMATION!AH10:AW10: ISFORMULA of each cell, #N/A past the range
             "A4": ArrayFormula("A4:E4", "=_xlfn.ISFORMULA(C1:F1)"),
             # INFORMATION!AH19:AW19: N of a range is N of its first cell, everywhere
             "A5": ArrayFormula("A5:B5", "=N(C1:F1)")}
    got = _values(_book(tmp_path, cells), engine)
    assert [str(got[f"{c}3"]) for c in "ABC"] == ["#VALUE!"] * 3
    assert [got[f"{c}4"] for c in "ABCD"] == [False, False, True, False]
    assert str(got["E4"]) == "#N/A"
    assert [got["A5"], got["B5"]] == [2.55, 2.55]


# --------------------------------------------------------------- BAHTTEXT, SORT, LOOKUP

#: TEXT row 6 of test.xlsx: C6 = 0, D6 = 157, E6 = 65, F6 = 65.8, G6 = -1, I6 = "ciao",
#: J6 = TRUE, L6 = #N/A
_BAHT_INPUTS = {"C1": 0, "D1": 157, "E1": 65, "F1": 65.8, "G1": -1, "I1": "ciao", "J1": True,
                "L1": "=NA()"}
BAHT_CASES = {  # test.xlsx TEXT!R6 ... AA6, cached by Excel
    "=BAHTTEXT(C1)": "ศูนย์บาทถ้วน",
    "=BAHTTEXT(D1)": "หนึ่งร้อยห้าสิบเจ็ดบาทถ้วน",
    "=BAHTTEXT(E1)": "หกสิบห้าบาทถ้วน",
    "=BAHTTEXT(F1)": "หกสิบห้าบาทแปดสิบสตางค์",
    "=BAHTTEXT(G1)": "ลบหนึ่งบาทถ้วน",
    "=BAHTTEXT(H1)": "ศูนย์บาทถ้วน",  # an empty cell
    "=BAHTTEXT(I1)": "#VALUE!",
    "=BAHTTEXT(J1)": "หนึ่งบาทถ้วน",
    "=BAHTTEXT(L1)": "#N/A",
    # Microsoft, "BAHTTEXT function": 1234 is หนึ่งพันสองร้อยสามสิบสี่บาทถ้วน
    "=BAHTTEXT(1234)": "หนึ่งพันสองร้อยสามสิบสี่บาทถ้วน",
    # where the references differ (หนึ่งร้อยเอ็ด or หนึ่งร้อยหนึ่ง): an error, not a guess
    "=BAHTTEXT(101)": "#VALUE!",
}
SORT_LOOKUP_CASES = {
    # LOOKUP!U119:AH119: errors sort by Excel's error codes, after numbers, text, booleans
    '=_xlfn.ARRAYTOTEXT(_xlfn._xlws.SORT({#VALUE!,1,"b",#DIV/0!,#N/A,#NAME?,#REF!,#NULL!,'
    'TRUE,#NUM!},1,1,1))': "1, b, TRUE, #NULL!, #DIV/0!, #VALUE!, #REF!, #NAME?, #NUM!, #N/A",
    # LOOKUP!V56 ... V62: a binary search; an equal value is the answer
    "=LOOKUP(4.1,{-1.1,2.1,3.1,4.1})": 4.1,
    '=LOOKUP(4.1,{"a",2.1,"b",4.1})': 4.1,
    "=LOOKUP(4.1,{4.1,2.1,3.1,1.1})": 1.1,
    '=LOOKUP(4.1,{"b",4.1,"a",1.1})': 4.1,
    "=LOOKUP(4.1,{TRUE,4.1,FALSE,1.1})": 4.1,
    '=LOOKUP(4.1,{"b",4.1,"a",1.1},{"L","ML","MR","R"})': "ML",  # LOOKUP!AL60
    '=LOOKUP("b",{"b",4.1,"a",1.1})': "a",  # LOOKUP!X60
    "=LOOKUP(TRUE,{TRUE,4.1,FALSE,1.1})": False,  # LOOKUP!Y62
    '=LOOKUP(TRUE,{TRUE,4.1,FALSE,"b"})': False,  # LOOKUP!Y63
    '=LOOKUP(TRUE,{TRUE,FALSE,"a","b"},{"L","ML","MR","R"})': "ML",  # LOOKUP!AO64
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("inputs", "cases"), [(_BAHT_INPUTS, BAHT_CASES),
                                               ({}, SORT_LOOKUP_CASES)])
def test_bahttext_sort_and_lookup(tmp_path, engine, inputs, cases):
    assert not _mismatches(tmp_path, engine, inputs, cases, start=2)


#: TEXT rows 3-4 of test.xlsx: C = 0, D = 1.9, E = 2.3, H empty, I = "1987-08-26" (row 3) or
#: empty text (row 4), J = TRUE, K = #VALUE!, L = #N/A
_ATT_INPUTS = {"C3": 0, "D3": 1.9, "E3": 2.3, "I3": "1987-08-26", "J3": True, "K3": "=1+#VALUE!",
               "L3": "=NA()", "C4": 0, "D4": 1.9, "E4": 2.3, "I4": "EMPTYTEXT", "J4": True,
               "K4": "=1+#VALUE!", "L4": "=NA()"}
ATT_CASES = {  # test.xlsx TEXT!R3 ... Z4, cached by Excel
    "=_xlfn.ARRAYTOTEXT(C3:D4,0)": "0, 1.9, 0, 1.9",
    "=_xlfn.ARRAYTOTEXT(H3:I3,0)": ", 1987-08-26",
    "=_xlfn.ARRAYTOTEXT(J3:K3,0)": "TRUE, #VALUE!",
    "=_xlfn.ARRAYTOTEXT(C4:D4,2)": "#VALUE!",
    "=_xlfn.ARRAYTOTEXT(D3:E4,1)": "{1.9,2.3;1.9,2.3}",
    "=_xlfn.ARRAYTOTEXT(H4,1)": "#VALUE!",
    "=_xlfn.ARRAYTOTEXT(I4,1)": '{""}',
    "=_xlfn.ARRAYTOTEXT(I4:J4,1)": '{"",TRUE}',
    "=_xlfn.ARRAYTOTEXT(K4:L4,0.9)": "#VALUE!, #N/A",
    "=_xlfn.ARRAYTOTEXT(H3:J3,1)": '{,"1987-08-26",TRUE}',
}


@pytest.mark.parametrize("engine", ENGINES)
def test_arraytotext(tmp_path, engine):
    assert not _mismatches(tmp_path, engine, _ATT_INPUTS, ATT_CASES, start=10,
                           xml={"EMPTYTEXT": ""})


@pytest.mark.parametrize("engine", ENGINES)
def test_isformula_of_the_cells_of_an_array_formula(tmp_path, engine):
    from openpyxl.worksheet.formula import ArrayFormula

    # test.xlsx EXTRA!BG79:BG83: every cell of a legacy array formula's range (BB78:BC82,
    # written with Ctrl+Shift+Enter) holds the formula. A spilling (dynamic) array formula,
    # marked cm="1", is in its anchor cell only (Microsoft, "Dynamic array formulas vs.
    # legacy CSE array formulas").
    cells = {"A1": 1, "A2": 2, "A3": 3,
             "B1": ArrayFormula("B1:B3", "=A1:A3*2"), "E1": ArrayFormula("E1:E3", "=A1:A3*3"),
             "C1": ArrayFormula("C1:C3", "=_xlfn.ISFORMULA(B1:B3)"),
             "F1": ArrayFormula("F1:F3", "=_xlfn.ISFORMULA(E1:E3)"),
             "G1": "=_xlfn.ISFORMULA(B2)", "G2": "=_xlfn.ISFORMULA(E2)"}
    got = _values(_book(tmp_path, cells, xml={'<c r="E1">': '<c r="E1" cm="1">'}), engine)
    assert [got["C1"], got["C2"], got["C3"]] == [True, True, True]
    assert [got["F1"], got["F2"], got["F3"]] == [True, False, False]
    assert [got["G1"], got["G2"]] == [True, False]
