"""Cells the engine computed as a plausible wrong number, each against Excel's answer.

Every expected value is Excel's: a cached value of a workbook saved by Excel (named at
each case) or a rule of Microsoft's function documentation (read 2026-12-01) applied by
hand to the cells written here. Each case runs through both engine paths.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

# B3:B7 = 1, 3, 5, 7, 8 and C3:C7 = 10, 30, 50, 70, 80 (the layout of EPPlus's
# FormulaTest.xlsx, saved by Excel, whose cached VLOOKUP(8,B3:B7,FALSE) is #VALUE!)
LOOKUP_CASES = {
    "=VLOOKUP(8,B3:B7,FALSE)": "#VALUE!",   # EPPlus FormulaTest.xlsx: FALSE is 0, < 1
    "=VLOOKUP(8,B3:B7,0)": "#VALUE!",       # Microsoft: col_index_num < 1 is #VALUE!
    "=VLOOKUP(9,B3:B7,0,FALSE)": "#N/A",    # EPPlus FormulaTest.xlsx: not found comes first
    "=VLOOKUP(8,B3:C7,-1,FALSE)": "#VALUE!",
    "=VLOOKUP(8,B3:C7,3)": "#REF!",         # Microsoft: more than the table's columns
    "=VLOOKUP(8,B3:C7,TRUE)": 8,            # TRUE is 1: the first column
    "=VLOOKUP(8,B3:C7,2.9)": 80,            # a fraction is truncated
    '=VLOOKUP(8,B3:C7,"2")': 80,            # numeric text is its number
    '=VLOOKUP(8,B3:C7,"two")': "#VALUE!",
    "=VLOOKUP(4,B3:C7,2)": 30,              # approximate: the largest value <= 4 is 3
    "=VLOOKUP(4,B3:C7,2,FALSE)": "#N/A",
    "=VLOOKUP(5,B3:C7,2,0)": 50,
    '=VLOOKUP(4,B3:C7,2,"maybe")': "#VALUE!",  # range_lookup text that is no boolean
    "=HLOOKUP(1,B3:C4,FALSE)": "#VALUE!",   # row_index_num as VLOOKUP's col_index_num
    "=HLOOKUP(1,B3:C4,3)": "#REF!",
    "=HLOOKUP(10,B3:C4,2,FALSE)": 30,
}


def _lookup_sheet(ws):
    for r, (b, c) in enumerate(zip((1, 3, 5, 7, 8), (10, 30, 50, 70, 80), strict=True), 3):
        ws[f"B{r}"], ws[f"C{r}"] = b, c


@pytest.fixture(scope="module")
def lookups(tmp_path_factory):
    wb = openpyxl.Workbook()
    _lookup_sheet(wb.active)
    return evaluate_cases(wb, wb.active, "F", LOOKUP_CASES, tmp_path_factory.mktemp("lookup"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(LOOKUP_CASES))
def test_lookup_index_arguments(lookups, engine, formula):
    cells, evs = lookups
    got = evs[engine].value("Sheet", cells[formula])
    assert matches_excel(got, LOOKUP_CASES[formula]), got


# Microsoft, "POISSON.DIST function": x is truncated to an integer. ClosedXML's
# functions-excel-2010.xlsx (saved by Excel) caches POISSON.DIST(20/15, 2, 0) as
# 0.27067056647322535 (= 2 e^-2, x = 1) and the cumulative one as 0.40600584970983811
# (= 3 e^-2); POI's FormulaEvalTestData_Copy.xlsx POISSON(2, 5, FALSE) 0.084224337488568335.
DIST_CASES = {
    "=_xlfn.POISSON.DIST(20/15,2,0)": 0.27067056647322535,
    "=_xlfn.POISSON.DIST(20/15,2,1)": 0.40600584970983811,
    "=POISSON(2.9,2,FALSE)": 0.27067056647322535,   # x 2.9 is 2: 2^2/2! e^-2 = 2 e^-2
    "=POISSON(2,5,FALSE)": 0.084224337488568335,
    "=POISSON(2,5,TRUE)": 0.12465201948308113,
    "=_xlfn.POISSON.DIST(-1,2,0)": "#NUM!",
}


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    wb = openpyxl.Workbook()
    return evaluate_cases(wb, wb.active, "A", DIST_CASES, tmp_path_factory.mktemp("dist"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(DIST_CASES))
def test_distribution_integer_arguments(dists, engine, formula):
    cells, evs = dists
    got = evs[engine].value("Sheet", cells[formula])
    assert matches_excel(got, DIST_CASES[formula], rel=1e-12), got


# ---------------------------------------------------------------- SUBTOTAL, AGGREGATE
# ClosedXML's functions-excel-2010.xlsx (saved by Excel 2010), Sheet2: AGGREGATE with its
# function_num (row 14) and options (column A, row 17 blank) read from cells, over C1:C11
# (row 6 hidden; C10 and C11 a nested AGGREGATE and SUBTOTAL), D1:D11 and E1:E11 (E5 an
# error). The expected values are the book's cached "Excel-results" (rows 28-36); the cell
# values are copied from the book (C3, =K3 there, holds its cached 30).
AGG_DATA = {
    "C": [15, 77, 30, 28, 31, 96, 77, 53, 34, "=AGGREGATE(1,4,D1:D11)", "=SUBTOTAL(4,D1:D11)"],
    "D": [8, 65, 60, 63, 53, 71, 55, 83, -500, 91, 89],
    "E": [15, 77, 30, 28, "=1/0", 12, 77, 53, 34, "=AGGREGATE(1,4,D2:D11)",
          "=SUBTOTAL(4,D1:D11)"],
}
# column -> (function_num, [(option row, range text, k or None, Excel's value)])
AGG_CASES = {
    "G": (1, [(17, "$C$1:$C$11", None, 49), (18, "$C$1:$C$11", None, 49),
              (19, "$C$1:$C$11", None, 43.125), (20, "$E$1:$E$11", None, 40.75),
              (21, "$C$1:$C$11", None, 43.125), (22, "$C$1:$C$11", None, 49.50413223140495),
              (23, "$C$1:$C$11", None, 44.85454545454546), (24, "$E$1:$E$11", None, 43),
              (25, "$C$1:$C$11", None, 44.85454545454546)]),
    "H": (7, [(17, "$C$1:$C$11", None, 28.062430400804562),
              (19, "$C$1:$C$11", None, 23.344852598745252),
              (20, "$E$1:$E$11", None, 25.611102503183485),
              (22, "$C$1:$C$11", None, 30.643332458992404),
              (23, "$C$1:$C$11", None, 27.9127329575057),
              (24, "$E$1:$E$11", None, 29.507061301774304)]),
    "I": (14, [(17, "$C$1:$C$11", 2, 77), (19, "$C$1:$C$11", 2, 77),
               (20, "$D$1:$D$11", 1, 91), (22, "$C$1:$C$11", 2, 91),
               (23, "$C$1:$C$11", 1, 91)]),
    "J": (19, [(17, "$C$1:$C$11", 1, 29), (19, "$C$1:$C$11", 2, 32.5),
               (20, "$D$1:$D$11", 2, 63), (22, "$C$1:$C$11", 1, 28),
               (25, "$D$1:$D$11", 2, 61.5)]),
}


def _agg_formula(col, row, rng, k):
    return f"=AGGREGATE({col}$14,$A{row},{rng}{'' if k is None else f',{k}'})"


@pytest.fixture(scope="module")
def aggregates(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    for col, values in AGG_DATA.items():
        for r, v in enumerate(values, start=1):
            ws[f"{col}{r}"] = v
    ws.row_dimensions[6].hidden = True
    for r, opt in zip(range(18, 26), range(8), strict=True):
        ws[f"A{r}"] = opt
    for col, (num, cases) in AGG_CASES.items():
        ws[f"{col}14"] = num
        for row, rng, k, _ in cases:
            ws[f"{col}{row}"] = _agg_formula(col, row, rng, k)
    p = tmp_path_factory.mktemp("agg") / "agg.xlsx"
    wb.save(p)
    from rooflinexl.recalc.book import recalc_book

    return {e: recalc_book(p, write=False, engine=e).evaluation for e in ENGINES}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("col,row,want", [(c, r, w) for c, (_, cs) in AGG_CASES.items()
                                          for r, _, _, w in cs])
def test_aggregate_options_from_cells(aggregates, engine, col, row, want):
    got = aggregates[engine].value("Sheet", f"{col}{row}")
    assert matches_excel(got, want, rel=1e-12), got


# EPPlus's SubtotalFilters.xlsx (saved by Excel), sheet HiddenByAutoFilter: a filter in
# effect on A1:B4 (row 4 filtered out), row 16 hidden below it; Excel caches
# SUBTOTAL(9,$B14:$B16) as 3 (B14:B16 = 1, 2, 3: row 16 left out too) and
# SUBTOTAL(109,B14:B16) as 3. Without a filter's criteria (sheet
# HiddenRowWithAutoFilterNoFilter) SUBTOTAL(9,...) is 6.
@pytest.mark.parametrize("criteria,want9", [(True, 3), (False, 6)])
@pytest.mark.parametrize("engine", ENGINES)
def test_subtotal_with_a_filter_in_effect(tmp_path, engine, criteria, want9):
    from rooflinexl.recalc.book import recalc_book

    wb = openpyxl.Workbook()
    ws = wb.active
    for r, (a, b) in enumerate([("Name", "Age"), ("A", 1), ("B", 2), ("C", 3)], start=1):
        ws[f"A{r}"], ws[f"B{r}"] = a, b
    for r, v in zip((14, 15, 16), (1, 2, 3), strict=True):
        ws[f"B{r}"] = v
    ws["B18"], ws["B19"] = "=SUBTOTAL(9,$B14:$B16)", "=SUBTOTAL(109,B14:B16)"
    ws.auto_filter.ref = "A1:B4"
    if criteria:
        ws.auto_filter.add_filter_column(0, ["A", "B"])
        ws.row_dimensions[4].hidden = True
    ws.row_dimensions[16].hidden = True
    wb.save(tmp_path / "f.xlsx")
    ev = recalc_book(tmp_path / "f.xlsx", write=False, engine=engine).evaluation
    assert matches_excel(ev.value("Sheet", "B18"), want9)
    assert matches_excel(ev.value("Sheet", "B19"), 3)


# ---------------------------------------------------------------- ACCRINT
# Cached values of IronCalc's ACCRINT books, saved by Excel for Mac:
# FINANCIAL__accrint_cases.xlsx (row named) and FINANCIAL__ACCRINT_extended.xlsx (Sheet1),
# the first Microsoft's own example ("ACCRINT function": 16.666666667).
ACCRINT_CASES = {
    "=ACCRINT(39508,39691,39569,0.1,1000,2,0)": 16.666666666666664,             # ext. I2
    "=ACCRINT(39508,39691,39569,0.1,1000,4)": 16.944444444444446,               # ext. I5
    "=ACCRINT(DATE(2017,1,1),DATE(2017,12,1),DATE(2017,4,1),0.33,3000,4,1,FALSE)":
        -253.8763736263736,                                                    # ext. K8
    "=ACCRINT(DATE(2017,1,1),DATE(2017,12,1),DATE(2017,4,1),0.33,3000,4,1,TRUE)":
        241.12362637362637,                                                    # ext. K12
    "=ACCRINT(DATE(2021,6,21),DATE(2021,12,1),DATE(2021,9,1),0.1,1000,2,0,FALSE)":
        19.444444444444446,                                                    # cases 13
    "=ACCRINT(DATE(2020,12,1),DATE(2021,12,1),DATE(2021,3,1),0.075,100,2,2,FALSE)":
        -1.9166666666666665,                                                   # cases 37
    "=ACCRINT(DATE(2020,12,1),DATE(2021,12,1),DATE(2021,12,1),0.1,1000,2,3,TRUE)":
        100.13698630136987,                                                    # cases 58
    "=ACCRINT(DATE(2020,12,26),DATE(2021,12,1),DATE(2021,3,1),0.025,5000,2,1,TRUE)":
        22.494070137512765,                                                    # cases 64
    "=ACCRINT(DATE(2019,12,1),DATE(2021,12,1),DATE(2020,9,1),0.05,1000,2,3,FALSE)":
        -37.397260273972606,                                                   # cases 89
    "=ACCRINT(DATE(2023,8,31),DATE(2024,2,29),DATE(2023,11,1),0.1,1000,2,4,TRUE)":
        16.944444444444446,                                                    # cases 300
    "=ACCRINT(DATE(2020,1,1),DATE(2020,7,1),DATE(2021,4,1),0.075,100,2,4,TRUE)": 9.375,
    "=ACCRINT(39508,39691,39569,0.1,1000,3)": "#NUM!",  # Microsoft: frequency 1, 2 or 4
    "=ACCRINT(39569,39691,39508,0.1,1000,2)": "#NUM!",  # Microsoft: issue >= settlement
}


@pytest.fixture(scope="module")
def accrints(tmp_path_factory):
    wb = openpyxl.Workbook()
    return evaluate_cases(wb, wb.active, "A", ACCRINT_CASES, tmp_path_factory.mktemp("acc"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(ACCRINT_CASES))
def test_accrint(accrints, engine, formula):
    cells, evs = accrints
    got = evs[engine].value("Sheet", cells[formula])
    assert matches_excel(got, ACCRINT_CASES[formula], rel=1e-12), got


# ---------------------------------------------------------------- TEXT
# Cached values of POI's format test books, saved by Excel in the 1904 date system
# (workbookPr date1904="1"): DateFormatNumberTests.xlsx, DateFormatTests.xlsx,
# ElapsedFormatTests.xlsx, GeneralFormatTests.xlsx, TextFormatTests.xlsx (sheet Tests,
# =TEXT(C, B) of the value and format written here; the 1952 date is serial 17816.6079...
# in the 1904 system).
T1952 = 17816.607951388887  # 1952-10-11 14:35:27 in the 1904 system (the book's C5)
TEXT_1904_CASES = [
    (1, "yyyy-mm-dd hh:mm:ss.000", "1904-01-02 00:00:00.000"),   # DateFormatNumberTests A2
    (1.0032134017094, "yyyy-mm-dd hh:mm:ss.00", "1904-01-02 00:04:37.64"),  # A5
    (T1952, "dddd-mmmm-yyyy", "Saturday-October-1952"),           # DateFormatTests A5
    (T1952, "hh:mm:ss.000 am/pm", "02:35:27.000 PM"),              # A13: AM/PM in capitals
    (T1952, "hh:mm:ss a/p", "02:35:27 p"),                         # A11: a/p as written
    (T1952, 'd "days" h am/pm', "11 days 2 PM"),                   # A46
    (3.14159, 's:m" @ hour "[hh]', "53:23 @ hour 75"),             # Elapsed A8: s:m minutes
    (3.14159, '"It was "[h]" [yes, "h"] hours and "mm:ss',
     "It was 75 [yes, 75] hours and 23:53"),                       # A10: h beside [h]
    (3.14159, '[s]" [yes, "ss"] seconds"', "271433 [yes, 271433] seconds"),  # A11
    (-0.08546296296296296, "[h]:m:s.000", "-2:3:4.000"),           # A32
    (-0.08546296296296296, 's:m" @ hour "[hh]', "-4:3 @ hour 02"),  # A38
    (None, None, ""),                                              # A52: both empty
    (1e-09, "General", "0.000000001"),                             # General A27
    (-1e-10, "General", "-1E-10"),                                 # A62
    ("hello", "General", "hello"),                                 # A70
    (True, "General", "TRUE"),                                     # A72
    ("jello", ';;;"h""I"', "hI"),                                  # TextFormatTests A4
    ("jello", ";;;\\@@\\@", "@jello@"),                            # A6
    (True, ";;;-@-@-", "-TRUE-TRUE-"),                             # A20
]


@pytest.fixture(scope="module")
def text_1904(tmp_path_factory):
    from openpyxl.utils.datetime import CALENDAR_MAC_1904

    from rooflinexl.recalc.book import recalc_book

    wb = openpyxl.Workbook()
    wb.epoch = CALENDAR_MAC_1904
    ws = wb.active
    for r, (value, fmt, _) in enumerate(TEXT_1904_CASES, start=1):
        ws[f"B{r}"], ws[f"C{r}"] = fmt, value
        ws[f"A{r}"] = f"=TEXT(C{r}, B{r})"
    p = tmp_path_factory.mktemp("t1904") / "t.xlsx"
    wb.save(p)
    return {e: recalc_book(p, write=False, engine=e).evaluation for e in ENGINES}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("row", range(1, len(TEXT_1904_CASES) + 1))
def test_text_in_a_1904_workbook(text_1904, engine, row):
    got, want = text_1904[engine].value("Sheet", f"A{row}"), TEXT_1904_CASES[row - 1][2]
    assert matches_excel(got, want), (TEXT_1904_CASES[row - 1], got)


def test_text_of_date_text_in_a_1904_workbook_is_no_date_four_years_off(tmp_path):
    """Date text is read in the 1900 system; in a 1904 workbook that would be a date four
    years off, so it is #VALUE! with a reason, never a plausible wrong date."""
    from openpyxl.utils.datetime import CALENDAR_MAC_1904

    from rooflinexl.recalc.book import recalc_book

    wb = openpyxl.Workbook()
    wb.epoch = CALENDAR_MAC_1904
    wb.active["A1"] = '=TEXT("1/2/2003","yyyy")'
    wb.active["A2"] = '=TEXT("12.5","0.0")'  # numeric text is its number: 12.5
    wb.save(tmp_path / "d.xlsx")
    for engine in ENGINES:
        ev = recalc_book(tmp_path / "d.xlsx", write=False, engine=engine).evaluation
        assert matches_excel(ev.value("Sheet", "A1"), "#VALUE!")
        assert matches_excel(ev.value("Sheet", "A2"), "12.5")


# POI's NumberFormatTests.xlsx (saved by Excel), sheet Tests: =TEXT(C, B) cached values.
TEXT_NUMBER_CASES = {
    '=TEXT(1234567,"?,???????")': " 1,234,567",          # A44
    '=TEXT(1234567,"?,?????????")': "    1,234,567",      # A46: a separator in the padding
    '=TEXT(-1234567,"?,????????")': "-  1,234,567",       # A81
    '=TEXT(1234567,"0,0000000")': "01,234,567",           # A67
    '=TEXT(1234567,"0,000000000")': "0,001,234,567",      # A69
    '=TEXT(1234567,"0.#,")': "1234.6",                    # A92: a comma after the decimals
    '=TEXT(-1234567,"#,.#,")': "-1.2",                    # A97
    '=TEXT(314159,"$000,000,000")': "$000,314,159",       # A335
    '=TEXT(1234567,"#,##0")': "1,234,567",
    # POI's FormatConditionTests.xlsx: a number that does not meet a one-section
    # condition is shown as General
    '=TEXT(10,"[<10]#"" Wow""")': "10",                  # A3
    '=TEXT(1,"[<10]#"" Wow""")': "1 Wow",                 # A2
    '=TEXT(-11,"[=-10]#"" Wow""")': "-11",                # A32
    '=TEXT(-10,"[<=-10]#"" Wow""")': "-10 Wow",           # A27
    '=TEXT(10,"[<      10]#"" Wow""")': "10",            # A44
}


@pytest.fixture(scope="module")
def text_numbers(tmp_path_factory):
    wb = openpyxl.Workbook()
    return evaluate_cases(wb, wb.active, "A", TEXT_NUMBER_CASES,
                          tmp_path_factory.mktemp("tnum"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(TEXT_NUMBER_CASES))
def test_text_number_grouping_and_scaling(text_numbers, engine, formula):
    cells, evs = text_numbers
    got = evs[engine].value("Sheet", cells[formula])
    assert matches_excel(got, TEXT_NUMBER_CASES[formula]), got


# ------------------------------------------------- implicit intersection in arguments
# POI's FormulaEvalTestData_Copy.xlsx (saved by Excel), sheet EverythingTests: a range
# given to a function that takes one value, in an ordinary formula, is the cell in the
# formula's column (a row range) or row (a column range), else #VALUE!. Written here at
# the book's own cells (row 8: K8=1, L8=2, M8=3; column K rows 274-277 = 0, 5, 1, 3).
INTERSECT_CELLS = {
    "M1252": ("=SIN(K8:M8)", 0.1411200080598672),        # SIN(M8) = sin 3
    "N1252": ("=SIN(K8:M8)", "#VALUE!"),                 # column N is not in K:M
    "L276": ("=COS(K274:K277)", 0.5403023058681398),     # COS(K276) = cos 1: row 276
    "M108": ("=ACOSH(K8:N8)", 1.762747174039086),        # ACOSH(M8) = acosh 3
    "M368": ("=DEGREES(K8:N8)", 171.88733853924697),     # DEGREES(3)
    "M756": ("=INT(K8:N8)", 3),
    "M1184": ("=ROUNDDOWN(K8:L9,3)", "#VALUE!"),         # two rows and two columns
    "P796": ("=ISNUMBER(G7:J7)", False),                 # column P outside G:J: #VALUE!
    "M800": ("=ROUND(SIN(K8:M8),2)", 0.14),              # nested in one-value functions
    "M804": ("=SUM(K8:M8)", 6),                          # SUM takes the range
}


@pytest.fixture(scope="module")
def intersections(tmp_path_factory):
    from rooflinexl.recalc.book import recalc_book

    wb = openpyxl.Workbook()
    ws = wb.active
    ws["K8"], ws["L8"], ws["M8"], ws["N8"] = 1, 2, 3, 4
    ws["K9"], ws["L9"] = 5, 6
    for r, v in zip(range(274, 278), (0, 5, 1, 3), strict=True):
        ws[f"K{r}"] = v
    for cell, (formula, _) in INTERSECT_CELLS.items():
        ws[cell] = formula
    p = tmp_path_factory.mktemp("isect") / "i.xlsx"
    wb.save(p)
    return {e: recalc_book(p, write=False, engine=e).evaluation for e in ENGINES}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("cell", list(INTERSECT_CELLS))
def test_range_in_a_one_value_argument(intersections, engine, cell):
    got, want = intersections[engine].value("Sheet", cell), INTERSECT_CELLS[cell][1]
    assert matches_excel(got, want, rel=1e-12), got


# Microsoft's examples ("COMBIN function": COMBIN(8,2) 28; "COMBINA function":
# COMBINA(4,3) 20, COMBINA(10,3) 220; "DOLLAR function": DOLLAR(1234.567,2) "$1,234.57",
# DOLLAR(1234.567,-2) "$1,200", DOLLAR(-1234.567,-2) "($1,200)", DOLLAR(-0.123,4)
# "($0.1230)", DOLLAR(99.888) "$99.89") and POI's FormulaEvalTestData_Copy.xlsx
# (COMBIN(19,7) 50388.00000000001, COMBIN(-23,12) #NUM!, HYPERLINK's link text).
NEW_FUNCTION_CASES = {
    "=COMBIN(8,2)": 28, "=COMBIN(19,7)": 50388.00000000001, "=COMBIN(-23,12)": "#NUM!",
    "=COMBIN(99,1)": 99, "=_xlfn.COMBINA(4,3)": 20, "=_xlfn.COMBINA(10,3)": 220,
    "=DOLLAR(1234.567,2)": "$1,234.57", "=DOLLAR(1234.567,-2)": "$1,200",
    "=DOLLAR(-1234.567,-2)": "($1,200)", "=DOLLAR(-0.123,4)": "($0.1230)",
    "=DOLLAR(99.888)": "$99.89", '=DOLLAR("abc")': "#VALUE!", "=USDOLLAR(-1)": "($1.00)",
    '=HYPERLINK("http://poi.apache.org")': "http://poi.apache.org",
}


@pytest.fixture(scope="module")
def new_functions(tmp_path_factory):
    wb = openpyxl.Workbook()
    return evaluate_cases(wb, wb.active, "A", NEW_FUNCTION_CASES,
                          tmp_path_factory.mktemp("newf"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(NEW_FUNCTION_CASES))
def test_combin_dollar_hyperlink(new_functions, engine, formula):
    cells, evs = new_functions
    got = evs[engine].value("Sheet", cells[formula])
    assert matches_excel(got, NEW_FUNCTION_CASES[formula], rel=1e-12), got


# Fractions and scientific notation: POI's NumberFormatTests.xlsx and
# NumberFormatApproxTests.xlsx (saved by Excel), =TEXT(C, B) cached values, the value
# written in C1 (so that it is read from the file), and Microsoft's "TEXT function"
# example =TEXT(4.34,"# ?/?") "4 1/3".
TEXT_FRACTION_CASES = [
    (4.34, "# ?/?", "4 1/3"),                           # Microsoft
    (23.75, "|#\\:#/#|", "|23:3/4|"),                   # NumberFormatTests A120
    (0.75, "|#\\:#/#|", "|3/4|"),                       # A122
    (0, "|#\\:#/#|", "|0|"),                            # A124
    (23.75, "|#-#-#\\:#/#|", "|-2-3:3/4|"),             # A127
    (0, "|#\\:#=/=?|", "|0      |"),                    # A141
    (0, "|#\\:? ?=/=#|", "|:0      |"),                 # A151
    (23.75, "|#\\:? ?0#/000", "|2:3  03/004"),          # A160
    (3.75, "|#_#/#|", "|15 /4|"),                       # A165
    (0, "|#\\:0=/=#|", "|0=/=1|"),                      # A204
    (0, "|?\\:0=/=#|", "|0:0=/=1|"),                    # A213
    (0.75, "|#\\:?=/=#|", "| 3=/=4|"),                  # A228
    (1, "|#\\:0=/=#|", "|1:0=/=1|"),                    # A258
    (-0.75, "|?\\:?=/=?|", "-|  3=/=4|"),               # A292
    (123456.789, "|#e-#%|", "|1e5%|"),                  # NumberFormatApproxTests A5
    (123456.789, "|####.####|e-|#|", "|12.3457|e|4|"),  # A8: engineering notation
    (1.2345678e-142, "|#.#|e+|0|", "|1.2|e|-142|"),     # A240: the double as written
    (1.2345678e-142, "|#.#|e+|?????|", "|1.2|e|-  142|"),  # A248
]


@pytest.fixture(scope="module")
def text_fractions(tmp_path_factory):
    from rooflinexl.recalc.book import recalc_book

    wb = openpyxl.Workbook()
    ws = wb.active
    for r, (value, fmt, _) in enumerate(TEXT_FRACTION_CASES, start=1):
        ws[f"B{r}"], ws[f"C{r}"] = fmt, value
        ws[f"A{r}"] = f"=TEXT(C{r}, B{r})"
    ws["D1"], ws["E1"] = 1e-20, "=D1*1E+20"  # the double as written: 1, never 0
    # TRUNC cuts the number's 15 significant digits: the formulas project's test.xlsx
    # (saved by Excel), EXTRA!C24, caches TRUNC(-0.79999999999999993, 1) as -0.8, while
    # POI's FormulaEvalTestData_Copy.xlsx needs every digit of -17406.785214815641 (FV)
    ws["D2"], ws["E2"] = -0.79999999999999993, "=TRUNC(D2,1)"
    p = tmp_path_factory.mktemp("tfrac") / "t.xlsx"
    wb.save(p)
    return {e: recalc_book(p, write=False, engine=e).evaluation for e in ENGINES}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("row", range(1, len(TEXT_FRACTION_CASES) + 1))
def test_text_fractions_and_exponents(text_fractions, engine, row):
    got = text_fractions[engine].value("Sheet", f"A{row}")
    assert matches_excel(got, TEXT_FRACTION_CASES[row - 1][2]), (TEXT_FRACTION_CASES[row - 1],
                                                                 got)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_tiny_number_keeps_its_double(text_fractions, engine):
    assert matches_excel(text_fractions[engine].value("Sheet", "E1"), 1.0, rel=1e-15)
    assert matches_excel(text_fractions[engine].value("Sheet", "E2"), -0.8)


# ---------------------------------------------------------------- LINEST
# pycel's stats.xlsx (saved by Excel), sheet Stats: y J3:N3 = 1, 2.1, 3.1, 4.1, 5.1 on
# x J4:N4 = -2, -4, -7, -9, -11 (LINEST(...,,TRUE) in Q16:R20), and y 1, 3, 6, 9, 12 on a
# constant x (removed: slope 0, intercept the mean). Microsoft's "LINEST function" example
# 1: y 1, 9, 5, 7 on x 0, 4, 2, 3 is {2, 1}.
LINEST_CELLS = {
    "Q16": -0.4409774436090227, "R16": 0.16954887218045034, "Q17": 0.01981575107847483,
    "R17": 0.14588484603131655, "Q18": 0.9939787497182618, "R18": 0.1445327793643257,
    "G5": 0.0, "H5": 6.2, "G6": 2.0, "H6": 1.0,
}


@pytest.fixture(scope="module")
def linest(tmp_path_factory):
    from openpyxl.worksheet.formula import ArrayFormula

    from rooflinexl.recalc.book import recalc_book

    wb = openpyxl.Workbook()
    ws = wb.active
    for j, (a, b, c, d) in enumerate(zip((1, 2.1, 3.1, 4.1, 5.1), (-2, -4, -7, -9, -11),
                                         (1, 3, 6, 9, 12), (1, 1, 1, 1, 1), strict=True)):
        col = "JKLMN"[j]
        ws[f"{col}3"], ws[f"{col}4"], ws[f"{col}5"], ws[f"{col}6"] = a, b, c, d
    for r, (y, x) in enumerate(((1, 0), (9, 4), (5, 2), (7, 3)), start=30):
        ws[f"A{r}"], ws[f"B{r}"] = y, x
    ws["Q16"] = ArrayFormula("Q16:R20", "=LINEST(J3:N3,J4:N4,,TRUE)")
    ws["G5"] = ArrayFormula("G5:H5", "=LINEST(J5:N5,J6:N6)")
    ws["G6"] = ArrayFormula("G6:H6", "=LINEST(A30:A33,B30:B33)")
    p = tmp_path_factory.mktemp("linest") / "l.xlsx"
    wb.save(p)
    return {e: recalc_book(p, write=False, engine=e).evaluation for e in ENGINES}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("cell", list(LINEST_CELLS))
def test_linest(linest, engine, cell):
    got = linest[engine].value("Sheet", cell)
    assert matches_excel(got, pytest.approx(LINEST_CELLS[cell], rel=1e-12, abs=1e-15)), got
