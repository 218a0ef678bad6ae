"""Excel's statistical distributions, tests and the A-forms, by every engine.

Expected values, from outside the code:

* Excel's cached values in the `formulas` project's regression workbook test.xlsx (saved
  by Excel; sheet STATISTICAL, the row named in each comment). The input rows of that
  sheet are copied here to rows 1-5 of columns C:J (C:L for the tests' row); the
  formulas are the book's, with their references moved to these rows. Those values are
  asserted to the bit (Excel's order of operations: variances, NORM.S.INV, HYPGEOM.DIST)
  or to 5e-15 where the last digits are Excel's own algorithms;
* Excel's cached values in IronCalc's BINOM.xlsx (MIT), where named;
* Microsoft's documented examples ("NORM.DIST function", "T.INV function" ... each
  function's page, read 2026-12-01), rounded as the page shows them.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

#: input rows (STATISTICAL row 5: AVERAGEA; rows 99/118/119: STDEVA, VARA, VARPA; rows
#: 17/34/121: the tests; row 63: MAXA; row 69: MODE.MULT), columns C:J
ROWS = {
    1: [0, 0.1, 0.2, 0.3, -0.1, None, "29/02/1900", True],
    2: [0, -10, 0.9, 2.2, -0.1, None, "1/01/1900", True],
    3: [10, 3.2, 0.7, 2, 4, None, "13/01/1900", True, "=1/0", "=NA()"],
    4: [0, 0.1, -2, -3, 4, None, "29/02/1900", True],
    5: [0, 0.1, 0.1, 0.3, -0.1, None, "29/02/1900", True],
}

#: test.xlsx (saved by Excel), to the bit
EXACT = {
    # row 5: in a reference TRUE is 1, text 0, an empty cell left out; typed "" #VALUE!
    "=AVERAGEA(C1:D1,D1:E1,E1:F1)": 0.15000000000000002,
    '=AVERAGEA(D1:E1,E1:F1,F1:G1,"")': "#VALUE!",
    '=AVERAGEA(E1:F1,F1:G1,G1:H1,"29/02/1900")': 10.1,
    "=AVERAGEA(F1:G1,G1:H1,H1:I1)": 0.024999999999999994,
    "=AVERAGEA(I1,G1:H1)": -0.05,
    "=AVERAGEA(J1,H1:I1)": 0.5,
    "=AVERAGEA(C1:J1)": 0.21428571428571427,
    "=AVERAGEA(H1)": "#DIV/0!",
    # rows 99, 116-119: Excel's own variance formulas
    '=STDEVA(C2:D2,D2:E2,E2:F2,"2")': 5.514526271584894,
    '=STDEVA(E2:F2,F2:G2,G2:H2,"29/02/1900")': 24.100518666617944,
    "=STDEVA(I2,G2,E2)": 0.5507570547286103,
    "=STDEVA(F2:J2)": 1.0719919153924,
    '=VARA(C2:D2,D2:E2,E2:F2,"2")': 30.409999999999997,
    '=VARA(E2:F2,F2:G2,G2:H2,"29/02/1900")': 580.835,
    "=VARA(I2,G2,E2)": 0.30333333333333334,
    "=VARA(G2:H2)": "#DIV/0!",
    '=VARPA(E2:F2,F2:G2,G2:H2,"29/02/1900")': 484.02916666666675,
    "=VARPA(C2:J2)": 14.50244897959184,
    "=VARPA(I2,G2)": 0.0025000000000000005,
    "=VARPA(G2:H2)": 0,
    "=_xlfn.VAR.S(C2:J2)": 23.965000000000003,
    "=_xlfn.VAR.P(C2:J2)": 19.172000000000004,
    "=_xlfn.STDEV.P(C2:J2)": 4.378584246077721,
    # row 63
    '=MAXA(E4,F4,J4,"29/02/1900")': 60,
    "=MAXA(H4)": 0,
    "=MAXA(H4,F4)": -3,
    "=MAXA(H4:J4)": 1,
    # row 69: an argument left out is #VALUE!
    "=_xlfn.MODE.MULT(H5:J5,D5:I5,E5:G5,F5:H5,)": "#VALUE!",
    "=_xlfn.MODE.MULT(C5:D5,D5:E5,E5:F5)": 0.1,
    # rows 17, 34, 121: the tests; sizes, errors and too few numbers
    "=_xlfn.CHISQ.TEST(D3:E3,E3:G3)": "#N/A",
    "=_xlfn.CHISQ.TEST(D3,F3)": "#N/A",
    "=_xlfn.CHISQ.TEST(G3:I3,H3:J3)": "#DIV/0!",
    "=_xlfn.F.TEST(E3:F3,G3:H3)": "#DIV/0!",
    "=_xlfn.F.TEST(D3,F3)": "#DIV/0!",
    "=_xlfn.Z.TEST(D3:E3,F3,0)": "#NUM!",
    "=_xlfn.Z.TEST(G3:I3,H3,2)": "#DIV/0!",
    "=_xlfn.Z.TEST(J3:K3,L3)": "#N/A",  # x's error before the array's
    "=_xlfn.T.TEST(D3,F3,2,1)": "#DIV/0!",
    # STATISTICAL rows 9, 54, 72, 75, 76, 86, 102: domains and Excel's digits
    "=_xlfn.NORM.S.INV(0.002)": -2.8781617390954826,
    "=NORMINV(0.002,4,3)": -4.634485217286448,
    "=NORMINV(0.3,1,2)": -0.04880102541608178,
    "=_xlfn.HYPGEOM.DIST(0,,,,)": 1,
    "=_xlfn.HYPGEOM.DIST(5,10,30,7,FALSE)": "#NUM!",
    "=_xlfn.HYPGEOM.DIST(0,2,3,3,1)": 0,
    "=_xlfn.HYPGEOM.DIST(0,3,2,30,1)": 0.806896551724138,
    "=_xlfn.NEGBINOM.DIST(60,60,,1)": "#NUM!",
    "=_xlfn.BETA.INV(TRUE,3,2)": "#NUM!",
    "=_xlfn.T.DIST(0,,)": "#DIV/0!",
    '=_xlfn.T.DIST(0.7,-1,"TRUE")': "#NUM!",
    "=PROB({1,2,3,4,5},{0.1,0.2,0.3,0.3,0.1},1,H3)": 0,
    "=PROB({1,2,3,4,5},{0.1,0.2,0.3,0.2,0.1},0.7)": "#NUM!",
    "=PROB({1,2,3,4,5},{0.1,0.2,0.3,0.4},4)": "#N/A",
    "=PROB({1,2,3,1,5},{0.1,0.2,0.3,0.3,0.1},TRUE)": 0.4,
    # IronCalc's BINOM.xlsx (MIT; saved by Excel): probabilities 0 and 1 refused, an empty
    # cell for number_s2 reads 0 (below number_s), not as a number_s2 left out
    "=_xlfn.BINOM.INV(10,0.7,0)": "#NUM!",
    "=_xlfn.BINOM.INV(10,0.7,1)": "#NUM!",
    "=_xlfn.BINOM.INV(10,1,0.8)": "#NUM!",
    "=_xlfn.BINOM.INV(10,0.7,0.8)": 8,
    "=_xlfn.BINOM.DIST.RANGE(2,0.1,2,H3)": "#NUM!",
    "=_xlfn.NEGBINOM.DIST(2,10,1,TRUE)": "#NUM!",
    "=_xlfn.NORM.DIST(-0.1,1,2,FALSE)": 0.17147192750969195,  # row 73
    "=FISHERINV(0.1)": 0.09966799462495583,  # row 36
    "=FISHERINV(-0.1)": -0.09966799462495585,
}

#: test.xlsx (saved by Excel), to 5e-15 (the last digits are Excel's own algorithms)
CLOSE = {
    "=_xlfn.CHISQ.TEST(E3:F3,G3:H3)": 0.09894293606729619,  # rows 17, 34, 121
    "=_xlfn.F.TEST(D3:E3,E3:G3)": 0.7979982021244996,
    "=_xlfn.Z.TEST(D3:E3,E3,3)": 0.2778448951413972,
    "=_xlfn.Z.TEST(E3:F3,G3, 2)": 0.9695232747225335,
    "=_xlfn.Z.TEST(F3:I3,J3)": 0.02275013194817919,
    '=_xlfn.BETA.DIST(0.7,"1","3",5, 0.5, 5)': 0.12749519890260627,  # row 8
    '=_xlfn.T.DIST(0.7,"1",5)': 0.6944001122142147,
    '=_xlfn.HYPGEOM.DIST(0.7,"1",5,8, 3)': 0.37500000000000006,  # row 54
    "=_xlfn.T.DIST(5,10,FALSE)": 0.0003960010564637988,  # row 102
    "=_xlfn.T.DIST(4, 7,1)": 0.9974050433253516,
    "=_xlfn.T.DIST.RT(4, 7)": 0.0025949566746484073,  # row 104
    "=_xlfn.T.DIST.RT(5,10)": 0.0002686668013782261,
    "=_xlfn.T.INV(0.1,9)": -1.383028738396632,  # row 105
    "=_xlfn.T.INV(0.01, 100)": -2.3642173662384813,
    "=_xlfn.CHISQ.DIST.RT(4, 7)": 0.7797774084757159,  # row 14
    "=_xlfn.CHISQ.DIST.RT(5,10)": 0.8911780189141513,
    "=_xlfn.F.INV(0.1,90,9)": 0.5875257721802675,  # row 32
    "=_xlfn.F.INV(0.01, 100,2)": 0.20730072492563645,
    "=_xlfn.GAMMA.INV(0.1,90,9)": 702.6868178036511,  # row 46
    "=_xlfn.GAMMA.INV(0.01, 100,2)": 156.43196610759165,
    "=_xlfn.POISSON.DIST(5,10,FALSE)": 0.037833274802070715,  # row 85
    "=_xlfn.POISSON.DIST(4, 7,1)": 0.17299160788207132,
}

#: Microsoft's documented examples, as rounded on each function's page
DOCUMENTED = {
    "=_xlfn.NORM.DIST(42,40,1.5,TRUE)": (0.9087888, 5e-8),
    "=_xlfn.NORM.DIST(42,40,1.5,FALSE)": (0.10934005, 5e-9),
    "=_xlfn.NORM.S.INV(0.908789)": (1.3333347, 5e-8),
    "=_xlfn.T.INV(0.75,2)": (0.8164966, 5e-8),
    "=_xlfn.CHISQ.INV(0.93,1)": (3.283020287, 5e-10),
    "=_xlfn.CHISQ.INV(0.6,2)": (1.832581464, 5e-10),
    "=_xlfn.BINOM.DIST.RANGE(60,0.75,48)": (0.084, 5e-4),
    "=_xlfn.BINOM.DIST.RANGE(60,0.75,45,50)": (0.524, 5e-4),
    "=_xlfn.BINOM.DIST(6,10,0.5,FALSE)": (0.2050781, 5e-8),
    "=_xlfn.BINOM.INV(6,0.5,0.75)": (4, 0),
    "=_xlfn.T.DIST(60,1,TRUE)": (0.99469533, 5e-9),
    "=_xlfn.T.DIST(8,3,FALSE)": (0.00073691, 5e-9),
    "=_xlfn.F.INV.RT(0.01,6,4)": (15.20686, 5e-6),
    "=_xlfn.EXPON.DIST(0.2,10,TRUE)": (0.86466472, 5e-9),
    "=_xlfn.WEIBULL.DIST(105,20,100,TRUE)": (0.929581, 5e-7),
    "=_xlfn.GAMMA.DIST(10.00001131,9,2,TRUE)": (0.068094, 5e-7),
    "=_xlfn.POISSON.DIST(2,5,TRUE)": (0.124652, 5e-7),
    "=_xlfn.HYPGEOM.DIST(1,4,8,20,TRUE)": (0.4654, 5e-5),
    "=_xlfn.NEGBINOM.DIST(10,5,0.25,FALSE)": (0.0550487, 5e-8),
    "=_xlfn.CONFIDENCE.NORM(0.05,2.5,50)": (0.692952, 5e-7),
    "=_xlfn.CONFIDENCE.T(0.05,1,50)": (0.284196855, 5e-10),
    "=FISHER(0.75)": (0.9729551, 5e-8),
    "=STANDARDIZE(42,40,1.5)": (1.33333333, 5e-9),
    "=_xlfn.PHI(0.75)": (0.301137432, 5e-10),
    "=_xlfn.GAUSS(2)": (0.47725, 5e-6),
    "=TDIST(1.959999998,60,2)": (0.054644930, 5e-10),
    "=_xlfn.LOGNORM.DIST(4,3.5,1.2,TRUE)": (0.0390836, 5e-8),
    "=_xlfn.BETA.DIST(2,8,10,TRUE,1,3)": (0.6854706, 5e-8),
}

CASES = {**EXACT, **CLOSE, **{f: v for f, (v, _) in DOCUMENTED.items()}}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r, values in ROWS.items():
        for j, v in enumerate(values):
            if v is not None:
                ws.cell(r, 3 + j, v)
    return evaluate_cases(wb, ws, "A", CASES, tmp_path_factory.mktemp("stats"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(EXACT))
def test_cached_value_to_the_bit(evaluations, engine, formula):
    cells, evs = evaluations
    got = evs[engine].value("S", cells[formula])
    assert matches_excel(got, EXACT[formula]), got


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CLOSE))
def test_cached_value(evaluations, engine, formula):
    cells, evs = evaluations
    got = evs[engine].value("S", cells[formula])
    assert matches_excel(got, CLOSE[formula], rel=5e-15), got


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(DOCUMENTED))
def test_documented_example(evaluations, engine, formula):
    cells, evs = evaluations
    want, tol = DOCUMENTED[formula]
    assert matches_excel(evs[engine].value("S", cells[formula]), pytest.approx(want, abs=tol))


def test_no_formulas_function_for_the_distributions():
    """The distributions are the engine's own (functions.BUILTINS), on both paths."""
    from rooflinexl.recalc.functions import BUILTINS, EXCEL_NUMBERS

    for name in ("NORM.DIST", "NORMSINV", "T.TEST", "CHISQ.INV.RT", "BETADIST", "CRITBINOM",
                 "HYPGEOMDIST", "POISSON", "WEIBULL", "ZTEST", "PROB", "CONFIDENCE"):
        assert name in BUILTINS, name
    for name in ("AVERAGEA", "MAXA", "MINA", "STDEVA", "STDEVPA", "VARA", "VARPA", "SKEW",
                 "SKEW.P"):
        assert name in EXCEL_NUMBERS, name


@pytest.mark.parametrize("engine", ENGINES)
def test_whole_column_is_the_cell_in_the_formulas_row(tmp_path, engine):
    """A distribution takes single values: a range there, in an ordinary formula, is the
    cell in the formula's row (implicit intersection). IronCalc's NORM_DIST.xlsx (MIT;
    saved by Excel): NORM.DIST(H:H,B64,C64,D64) in row 64, H64 = 42, is
    0.9087887802741321."""
    from rooflinexl.recalc.book import recalc_book

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    ws["B64"], ws["C64"], ws["D64"], ws["H64"] = 40, 1.5, True, 42
    ws["H63"] = 1
    ws["E64"] = "=_xlfn.NORM.DIST(H:H,B64,C64,D64)"
    wb.save(tmp_path / "col.xlsx")
    got = recalc_book(tmp_path / "col.xlsx", write=False, engine=engine).evaluation.value(
        "S", "E64")
    assert matches_excel(got, 0.9087887802741321, rel=1e-15), got
