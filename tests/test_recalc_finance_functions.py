"""Excel's bond, bill, loan and dated-cash-flow functions (rooflinexl.recalc.finance).

Expected values: Microsoft's function reference (each function's page, read 2026-12-01),
whose worked examples are rounded (compared to their shown digits), and values Excel
computed and saved in workbooks (to 1e-9, relative): IronCalc's financial test books
(``FINANCIAL__PRICE_YIELD.xlsx``, ``__DISC.xlsx``, ``__COUPDAYS.xlsx``, ``__XIRR.xlsx``),
the ``formulas`` project's regression workbook ``test.xlsx`` (sheet FINANCIAL) and SheetJS's
``formula_stress_test.xlsx`` (sheet Finance), each saved by Excel; the inputs are written
here, as the cached value's cell had them.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel


def ms(value: float, digits: int):
    """Microsoft's example result, shown to ``digits`` decimals."""
    return pytest.approx(value, abs=0.5 * 10.0 ** -digits)


CASES = {
    # Microsoft's examples
    "=COUPDAYBS(DATE(2011,1,25),DATE(2011,11,15),2,1)": 71,
    "=COUPDAYS(DATE(2011,1,25),DATE(2011,11,15),2,1)": 181,
    "=COUPDAYSNC(DATE(2011,1,25),DATE(2011,11,15),2,1)": 110,
    "=COUPNCD(DATE(2011,1,25),DATE(2011,11,15),2,1)": 40678,  # 15 May 2011
    "=COUPPCD(DATE(2011,1,25),DATE(2011,11,15),2,1)": 40497,  # 15 Nov 2010
    "=COUPNUM(DATE(2007,1,25),DATE(2008,11,15),2,1)": 4,
    "=PRICE(DATE(2008,2,15),DATE(2017,11,15),0.0575,0.065,100,2,0)": ms(94.63436, 5),
    "=YIELD(DATE(2008,2,15),DATE(2016,11,15),0.0575,95.04287,100,2,0)": ms(0.065, 4),
    "=DURATION(DATE(2018,7,1),DATE(2048,1,1),0.08,0.09,2,1)": ms(10.9191453, 7),
    "=MDURATION(DATE(2008,1,1),DATE(2016,1,1),0.08,0.09,2,1)": ms(5.73567, 5),
    "=INTRATE(DATE(2008,2,15),DATE(2008,5,15),1000000,1014420,2)": ms(0.05768, 5),
    "=RECEIVED(DATE(2008,2,15),DATE(2008,5,15),1000000,0.0575,2)": ms(1014584.654, 3),
    "=PRICEDISC(DATE(2008,2,16),DATE(2008,3,1),0.0525,100,2)": ms(99.79583, 5),
    "=YIELDDISC(DATE(2008,2,16),DATE(2008,3,1),99.795,100,2)": ms(0.052823, 6),
    "=PRICEMAT(DATE(2008,2,15),DATE(2008,4,13),DATE(2007,11,11),0.061,0.061,0)":
        ms(99.98449888, 8),
    "=YIELDMAT(DATE(2008,3,15),DATE(2008,11,3),DATE(2007,11,8),0.0625,100.0123,0)":
        ms(0.060954, 6),
    "=ACCRINTM(DATE(2008,4,1),DATE(2008,6,15),0.1,1000,3)": ms(20.54794521, 8),
    "=ODDFPRICE(DATE(2008,11,11),DATE(2021,3,1),DATE(2008,10,15),DATE(2009,3,1),"
    "0.0785,0.0625,100,2,1)": ms(113.597717, 6),
    "=ODDFYIELD(DATE(2008,11,11),DATE(2021,3,1),DATE(2008,10,15),DATE(2009,3,1),"
    "0.0575,84.5,100,2,0)": ms(0.077245542, 9),
    "=ODDLPRICE(DATE(2008,2,7),DATE(2008,6,15),DATE(2007,10,15),0.0375,0.0405,100,2,0)":
        ms(99.87829, 5),
    "=ODDLYIELD(DATE(2008,4,20),DATE(2008,6,15),DATE(2007,12,24),0.0375,99.875,100,2,0)":
        ms(0.045192, 6),
    "=AMORDEGRC(2400,DATE(2008,8,19),DATE(2008,12,31),300,1,0.15,1)": 776,
    "=AMORLINC(2400,DATE(2008,8,19),DATE(2008,12,31),300,1,0.15,1)": 360,
    "=IPMT(0.1/12,1,3*12,8000)": ms(-66.67, 2),
    "=IPMT(0.1,3,3,8000)": ms(-292.45, 2),
    "=PPMT(0.1/12,1,2*12,2000)": ms(-75.62, 2),
    "=PPMT(0.08,10,10,200000)": ms(-27598.05, 2),
    "=XNPV(0.09,{-10000,2750,4250,3250,2750},{39448,39508,39751,39859,39904})":
        ms(2086.65, 2),
    # 0.373362535 shown; Excel's own bisection stops within 1e-8 of the root (its cached
    # values below, functions.xirr_rate)
    "=XIRR({-10000,2750,4250,3250,2750},{39448,39508,39751,39859,39904},0.1)":
        ms(0.373362535, 8),
    # Microsoft's error rules
    "=COUPDAYS(DATE(2011,11,15),DATE(2011,1,25),2,1)": "#NUM!",  # settlement >= maturity
    "=COUPDAYS(DATE(2011,1,25),DATE(2011,11,15),3,1)": "#NUM!",  # frequency not 1, 2, 4
    '=PRICE("x",DATE(2017,11,15),0.0575,0.065,100,2,0)': "#VALUE!",  # not a date
    "=PRICE(DATE(2008,2,15),DATE(2017,11,15),-0.01,0.065,100,2,0)": "#NUM!",  # rate < 0
    "=YIELD(DATE(2008,2,15),DATE(2016,11,15),0.0575,0,100,2,0)": "#NUM!",  # pr <= 0
    "=IPMT(0.1,4,3,8000)": "#NUM!",  # per after the last period
    # Excel's cached values: IronCalc's PRICE_YIELD.xlsx, sheet ODDLPRICE_ODDLYIELD I2:I10
    "=ODDLPRICE(DATE(2020,3,1),DATE(2030,3,1),DATE(2020,1,15),0.075,0.06,120,2,1)":
        121.51937811334447,
    "=ODDLPRICE(DATE(2020,3,1),DATE(2030,3,1),DATE(2020,1,15),0.075,0.0589,120,2,2)":
        122.36705839417525,
    "=ODDLPRICE(DATE(2020,3,1),DATE(2030,3,1),DATE(2020,1,15),0.08,0.0711,120,2,3)":
        116.47102012136368,
    "=ODDLPRICE(DATE(2020,3,1),DATE(2030,3,1),DATE(2020,1,15),0.08,0.0711,120,1,3)":
        116.47338382128387,
    "=ODDLPRICE(DATE(2020,3,1),DATE(2030,3,1),DATE(2020,1,15),0.075,0.02,120,2,4)":
        162.34027777777777,
    # ... sheet ODDFPRICE_ODDFYIELD J2, J50 (frequency 2.3 is 2), K2; basis 5 is #NUM! (J6)
    "=ODDFPRICE(DATE(2020,3,1),DATE(2030,3,1),DATE(2020,1,15),DATE(2021,3,1),0.075,0.05,"
    "120,1,1)": 131.5377155865953,
    "=ODDFPRICE(DATE(2020,3,17),DATE(2030,3,1),DATE(2020,1,15),DATE(2021,3,1),0.075,0.067,"
    "120,2.3,2)": 115.85503392508934,
    "=ODDFYIELD(DATE(2020,3,1),DATE(2030,3,1),DATE(2020,1,15),DATE(2021,3,1),0.075,"
    "131.5377155865953,120,1,1)": 0.04999999999851281,
    "=ODDFPRICE(DATE(2020,3,1),DATE(2040,3,15),DATE(2020,1,15),DATE(2021,3,1),0.075,0.06,"
    "120,1,5)": "#NUM!",
    # ... sheet PRICE_YIELD H2, H6, H29 (basis 2: DSC is E - A), I2
    "=PRICE(DATE(2020,3,1),DATE(2030,3,1),0.06,0.07,130,1,0)": 108.22689722310892,
    "=PRICE(DATE(2020,3,1),DATE(2040,3,15),0.06,0.07876,1000,1,4)": 278.38557902933076,
    "=PRICE(DATE(2025,4,1),DATE(2028,3,13),0.22,0.12,15,1,2)": 62.736929069290866,
    "=YIELD(DATE(2020,3,1),DATE(2030,3,1),0.06,108.22689722310892,130,1,0)": 0.07,
    # DISC.xlsx F2:F9 (39472 is 23 Jan 2008, 39614 13 Jun 2008)
    "=DISC(39472,39614,97.975,100,0)": 0.05207142857142884,
    "=DISC(39472,39614,97.975,100,1)": 0.05219366197183125,
    "=DISC(39472,39614,97.975,100,3)": 0.05205105633802843,
    "=DISC(39472,39614,97.975,100,2.4)": 0.051338028169014345,
    "=DISC(39472,39614,97.975,100,5)": "#NUM!",
    "=DISC(39472,39614,97.975,100,-1)": "#NUM!",
    # COUPDAYS.xlsx rows 21-37: the bases' day counts
    "=COUPDAYBS(DATE(2020,1,1),DATE(2024,3,17),1,0)": 284,
    "=COUPDAYBS(DATE(2020,1,1),DATE(2024,3,17),1,1)": 290,
    "=COUPDAYSNC(DATE(2020,1,1),DATE(2024,3,17),2,0)": 76,
    "=COUPDAYS(DATE(2020,1,1),DATE(2024,3,17),4,3)": 91.25,
    "=COUPDAYBS(DATE(2020,1,1),DATE(2024,3,17),4,4)": 14,
    "=COUPNUM(DATE(2020,1,1),DATE(2024,3,17),4,2)": 17,
    "=COUPPCD(DATE(2020,1,1),DATE(2024,3,17),4,1)": 43816,
    "=COUPDAYSNC(DATE(2020,1,1),DATE(2021,1,1),2,3)": 182,
    # Excel's answers reported in PhpSpreadsheet's issues #1265 and #1020 and PHPExcel's
    # #1184 (Excel 2016): a maturity on a month's last day puts every coupon on a month's
    # last day; COUPNUM counts a coupon on settlement's period end, never 0
    "=COUPNCD(DATE(2016,10,18),DATE(2019,9,30),2,4)": 42825,  # 31 Mar 2017
    "=COUPNUM(DATE(2000,12,24),DATE(2000,12,24),4,0)": "#NUM!",
    "=COUPNUM(DATE(2000,12,23),DATE(2000,12,24),4,0)": 1,
    "=COUPNUM(DATE(2000,9,24),DATE(2000,12,24),4,0)": 1,
    "=COUPNUM(DATE(2000,9,23),DATE(2000,12,24),4,0)": 2,
    # test.xlsx, FINANCIAL: IPMT T25, PPMT S40 and W40 (fv "1"), XIRR R54, S55, U54, XNPV
    # S56, U56
    "=IPMT(7/12,1,3*12,8000)": -4666.666666666667,
    '=PPMT(2,"3","33","10000","1")': -3.238280962129199e-11,
    '=PPMT(0,"3","33","10000","1")': -303.06060606060606,
    "=XIRR({-10,1,5,0.0001,4.5},{1,99,55,4,9},1)": 0.5993197485804558,
    "=XIRR({-10,1,5,0.0001,4.5},{1,99,55,4,9},-0.1)": "#NUM!",
    "=XIRR({-10,#N/A,1,2,7},{3,#REF!,7,4,9})": "#REF!",  # the dates' error first
    "=XNPV(-0.1,{-10,1,5,0.0001,4.5},{1,99,55,4,9})": "#NUM!",
    "=XNPV(0,{-10,1,5,0.0001,4.5},{1,99,55,4,9})": "#NUM!",
    # XIRR.xlsx, R2: payments on 1 Feb, 1 Mar, 1 Apr, 1 Jun, 1 Jul, 1 Aug 2023
    "=XIRR({-20,5,5,5,5,5},{44958,44986,45017,45078,45108,45139})": 1.1859161972999572,
    # IronCalc's CUMPRINC_CUMIPMT.xlsx G6:H26: periods from the first whole one at or after
    # start_period; a principal without PMT - IPMT's cancellation
    "=CUMPRINC(0.01,36,8000,1.2,8.53,1)": -1339.6579298169904,
    "=CUMPRINC(0.1,36,8000,1.5,10,1)": -363.1764634420559,
    "=CUMIPMT(0.8,36,18000,2.7,9.667,1)": -55999.99877582575,
    "=CUMPRINC(0.8,36,18000,2.7,9.667,1)": -0.0012603466877548824,
    "=CUMPRINC(0.7,36,8000,2,10,1)": -0.0047565423422487076,
    '=CUMPRINC(7,36,8000,3,"10","1")': -3.308722252996902e-21,
    # IPMT_PPMT.xlsx G3:J3, PMT.xlsx F8, G8, F10, G24, FV.xlsx Sheet2!A1 and F8
    "=IPMT(0.1,3,3,8000,0,1)": -265.8610271903324,
    "=PPMT(0.1,3,3,8000,0,1)": -2658.610271903324,
    "=PPMT(0.1,3,3,8000)": -2924.4712990936564,
    "=PMT(-3,5,100,300,1)": "#NUM!",
    "=PMT(-3,5,100)": "#NUM!",
    "=PMT(-0.9,3,120,300,1)": -2703.783783783783,
    "=PMT(-1,1,-100)": "#NUM!",
    "=FV(-1,-2,1)": "#DIV/0!",
    "=FV(-3,5,100,300,1)": 11800,
    # MIRR.xlsx: no positive flow is -1, a negative ratio #NUM!
    "=MIRR({-6,-1,-2},0.1,0.2)": -1,
    "=MIRR({-50,25,30},0.5,-12)": "#NUM!",
    # TBILLs.xlsx D5, D6, D9: a bill of a whole leap year is one year
    "=TBILLEQ(14640,15005,0.5)": 0.8482759796652481,
    "=TBILLEQ(14640,15006,0.5)": 0.8522961312491701,
    "=TBILLEQ(45332,45650,0.5)": 0.7787541318484793,
    # RATE.xlsx F17, G17 (Newton's method settles below -1), F19
    "=RATE(10,-1200,2000,0,1)": "#NUM!",
    "=RATE(10,-1200,2000)": "#NUM!",
    "=RATE(300,-200,8000,0,1)": 0.025627751816686105,
    # formula_stress_test.xlsx, Finance!B62
    "=AMORLINC(2400,DATE(2008,8,9),DATE(2008,12,31),300,1,0.15,1)": 360,
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    return evaluate_cases(wb, wb.active, "A", CASES, tmp_path_factory.mktemp("finance"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got = evs[engine].cells[("Sheet", cells[formula])].value
    want = CASES[formula]
    assert matches_excel(got, want, rel=1e-9), (formula, got, want)


def test_the_financial_functions_are_ours():
    """Every function of Microsoft's "Financial functions (reference)" (read 2026-12-02)
    is our own."""
    from rooflinexl.recalc.functions import BUILTINS

    financial = """ACCRINT ACCRINTM AMORDEGRC AMORLINC COUPDAYBS COUPDAYS COUPDAYSNC COUPNCD
    COUPNUM COUPPCD CUMIPMT CUMPRINC DB DDB DISC DOLLARDE DOLLARFR DURATION EFFECT FV
    FVSCHEDULE INTRATE IPMT IRR ISPMT MDURATION MIRR NOMINAL NPER NPV ODDFPRICE ODDFYIELD
    ODDLPRICE ODDLYIELD PDURATION PMT PPMT PRICE PRICEDISC PRICEMAT PV RATE RECEIVED RRI SLN
    SYD TBILLEQ TBILLPRICE TBILLYIELD VDB XIRR XNPV YIELD YIELDDISC YIELDMAT""".split()
    assert len(financial) == 55
    assert set(financial) <= {k.removeprefix("_XLFN.") for k in BUILTINS}
