"""TEXT with a number format, as Excel writes it.

Expected values are Excel's cached values in IronCalc's TEXT.xlsx (MIT; saved by Excel),
sheet NUMBERS: the numbers (column A) and the formats (row 2) are copied here.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases

from rooflinexl.recalc.functions import text_format

FORMATS = ["0", "0.00", "#,##0", "#,##0_);(#,##0)", "$#,##0_);($#,##0)", "00-00-00-00",
           "General", "[Red]#.#", '#,#.00 "Millions!"', "0.00%", "0.00E+0"]
# number -> its TEXT in each format above (NUMBERS!B:M, without L)
EXPECTED = {
    12: ["12", "12.00", "12", "12 ", "$12 ", "00-00-00-12", "12", "12.", "12.00 Millions!",
         "1200.00%", "1.20E+1"],
    -1 / 3: ["0", "-0.33", "0", "(0)", "($0)", "00-00-00-00", "-0.333333333", "-.3",
             "-.33 Millions!", "-33.33%", "-3.33E-1"],
    -12345.6789: ["-12346", "-12345.68", "-12,346", "(12,346)", "($12,346)",
                  "-00-01-23-46", "-12345.6789", "-12345.7", "-12,345.68 Millions!",
                  "-1234567.89%", "-1.23E+4"],
    0: ["0", "0.00", "0", "0 ", "$0 ", "00-00-00-00", "0", ".", ".00 Millions!", "0.00%",
        "0.00E+0"],
    123456789012: ["123456789012", "123456789012.00", "123,456,789,012",
                   "123,456,789,012 ", "$123,456,789,012 ", "123456-78-90-12",
                   "1.23457E+11", "123456789012.", "123,456,789,012.00 Millions!",
                   "12345678901200.00%", "1.23E+11"],
    1.23456e19: ["12345600000000000000", "12345600000000000000.00",
                 "12,345,600,000,000,000,000", "12,345,600,000,000,000,000 ",
                 "$12,345,600,000,000,000,000 ", "12345600000000-00-00-00", "1.23456E+19",
                 "12345600000000000000.", "12,345,600,000,000,000,000.00 Millions!",
                 "1234560000000000000000.00%", "1.23E+19"],
    -2.5e-09: ["0", "0.00", "0", "(0)", "($0)", "00-00-00-00", "-2.5E-09", ".",
               ".00 Millions!", "0.00%", "-2.50E-9"],
    -1e-08: ["0", "0.00", "0", "(0)", "($0)", "00-00-00-00", "-0.00000001", ".",
             ".00 Millions!", "0.00%", "-1.00E-8"],
    -1e9: ["-1000000000", "-1000000000.00", "-1,000,000,000", "(1,000,000,000)",
           "($1,000,000,000)", "-1000-00-00-00", "-1000000000", "-1000000000.",
           "-1,000,000,000.00 Millions!", "-100000000000.00%", "-1.00E+9"],
}


@pytest.mark.parametrize("number", list(EXPECTED))
def test_text_format(number):
    assert [text_format(number, f) for f in FORMATS] == EXPECTED[number]


def test_scaling_by_thousands():
    assert text_format(123456789012, '#,##,, "Millions"') == "123,457 Millions"  # NUMBERS!L10


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["Z1"], ws["Z2"] = 12345.6789, "12"
    cases = {'=TEXT(Z1,"#,##0_);(#,##0)")': "12,346 ", '=TEXT(-Z1,"$#,##0_);($#,##0)")':
             "($12,346)", '=TEXT(Z1,"General")': "12345.6789", '=TEXT(Z2,"0.00")': "12.00",
             '=TEXT(41181,"dddd/mmmm/yyyyy")': "Saturday/September/2012",
             '=TEXT(41181,"mm###")': "#VALUE!"}
    return cases, evaluate_cases(wb, ws, "A", cases, tmp_path_factory.mktemp("text"))


@pytest.mark.parametrize("engine", ENGINES)
def test_through_the_engines(evaluations, engine):
    from rooflinexl.errors import ExcelError

    cases, (cells, evs) = evaluations
    got = {f: evs[engine].value("S", cells[f]) for f in cases}
    assert got == cases
    assert isinstance(got['=TEXT(41181,"mm###")'], ExcelError)  # an error, not its text


# pycel's text.xlsx (saved by Excel), sheet TextNumbers: a format without integer
# placeholders still shows the integer part, the last section holding @ is the text
# section; several points and literals among grouped placeholders (rows 25, 34 and 2).
PYCEL = [
    (890123.456789, "#.###.#.#.#", "890123.456.7.8.9"),
    (890123.456789, "0,x#.00.0", "89012x3.45.7"),
    (1234.56, ".##0", "1234.560"), (1234567.89, '#,#"ZZ"#.0"YY"00', "1,234,56ZZ7.8YY90"),
    (-1, "w;x;z@", "x"),
    (0, "w;x;z@", "w"), (0, "w;x;z", "z"), (-1, "w;x@", "-w"), (-1, "", "-"), (1, "", ""),
    (-1, '##.00;-  ##.0;"ZERO"', "-  1.0"), (0, '##.00;-  ##.0;"ZERO"', "ZERO"),
]


@pytest.mark.parametrize(("number", "fmt", "want"), PYCEL)
def test_pycel_cases(number, fmt, want):
    assert text_format(number, fmt) == want


# date formats: IronCalc's TEXT.xlsx, sheet DATES (41181 is 29 Sep 2012, 100 is 9 Apr
# 1900); elapsed times and ranges: pycel's text.xlsx, sheet TextDates
DATES = [
    (41181, "m/d/y", "9/29/12"), (41304, "m/d/y", "1/30/13"), (41181, "dd/mm--yy", "29/09--12"),
    (41181, "ddd--/--mmm--/++yyy", "Sat--/--Sep--/++2012"),
    (41304, "dddd/mmmm/yyyyy", "Wednesday/January/2013"),
    (41181, "ddddd/mmmmm/yyyyy", "Saturday/S/2012"), (100, "m/d/y", "4/9/00"),
    (100, "dddd/mmmm/yyyyy", "Monday/April/1900"), (2958465, "m/d/y", "12/31/99"),
    (2958466, "m/d/y", "#VALUE!"), (-1, "m/d/y", "#VALUE!"), (41181, "mm###", "#VALUE!"),
    (71003160, "[hh]", "1704075840"), (-1, "[h]", "-24"), (-1, "[m]", "-1440"),
    (-1, "[h]:m", "#VALUE!"), (0, "[h]:m", "0:0"), (2958466, "h", "#VALUE!"),
    (0, "[s].000", "0.000"),
]


@pytest.mark.parametrize(("number", "fmt", "want"), DATES)
def test_date_formats(number, fmt, want):
    assert str(text_format(number, fmt)) == want
