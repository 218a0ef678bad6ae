"""The engine's own array, lookup and statistics functions (XMATCH, COUNTA, SUMPRODUCT,
LARGE, PERCENTILE.*, SLOPE, TAKE, FILTER, MMULT ...), through both evaluation paths.

Expected values are Microsoft's documented examples (the function's support page, read
2026-12-01, named per case) or derivations by hand written next to the case; Excel's
argument rules (text, booleans and empty cells in a reference are ignored by the
statistics functions, typed ones counted) come from the same pages.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

# column -> values from row 1 (None: an empty cell)
DATA = {
    "A": [4, 5, 8, 7, 11, 4, 3],  # DEVSQ, GEOMEAN, HARMEAN examples
    "B": [1345, 1301, 1368, 1322, 1310, 1370, 1318, 1350, 1303, 1299],  # STDEV.S example
    "C": ["Sales", 39790, None, 19, 22.24, True, "#DIV/0!"],  # COUNTA example (text)
    "D": [2, 3, 9, 1, 8, 7, 5],  # SLOPE / INTERCEPT / STEYX / RSQ known_y's
    "E": [6, 5, 11, 7, 5, 4, 4],  # ... known_x's
    "F": [13, 12, 11, 8, 4, 3, 2, 1, 1, 1],  # PERCENTRANK.INC example
    "G": [1, 2, 3, 6, 6, 6, 7, 8, 9],  # PERCENTRANK.EXC / PERCENTILE.EXC examples
    "H": [7, 3.5, 3.5, 1, 2],  # RANK.EQ example
    "I": [79, 85, 78, 85, 50, 81, 95, 88, 97],  # FREQUENCY example: data
    "J": [70, 79, 89],  # ... bins
    "K": ["Apple", "Grape", "Pear", "Banana", "Cherry"],  # XMATCH example 1
    "L": [3, "x", True, None, "3", 2],  # mixed values: only 3 and 2 are numbers
    "M": [1, 2, 3, 4, 3, 2, 1, 2, 3, 5, 6, 1],  # MODE.MULT example
    # TREND example: monthly costs, months 1-12
    "N": [133890, 135000, 135790, 137300, 138130, 139100, 139900, 141120, 141890, 143230,
          144000, 145290],
    "O": list(range(1, 13)),
    # GROWTH and LOGEST examples: units sold in months 11-16
    "P": [33100, 47300, 69000, 102000, 150000, 220000],
    "Q": list(range(11, 17)),
    "R": ["Dakota Lennon Sanchez", "1,2,3;4,5", None, "", 0],  # TEXTSPLIT, COUNTBLANK
    # the `formulas` project's test.xlsx (saved by Excel), STATISTICAL row 57 (LARGE)
    "S": [0.1, -10, 0.9, 2.2, -0.1, None, "01/01/1900", True],
    # IronCalc's PERCENTIL_QUARTIL.xlsx (saved by Excel), A14:A20
    "T": [12, -1, 7.5, 56, 12, -4, 3],
    "U": ["=NA()", "=1/0", 2, 3, 4],  # error values computed in cells
}

CASES = {
    # Microsoft, "DEVSQ function": 48
    "=DEVSQ(A1:A7)": 48.0,
    # Microsoft, "STDEV.S function" / "STDEV.P function" / "VAR.S" / "VAR.P" examples
    "=_xlfn.STDEV.S(B1:B10)": pytest.approx(27.46392, abs=5e-6),
    "=STDEV(B1:B10)": pytest.approx(27.46392, abs=5e-6),
    "=_xlfn.STDEV.P(B1:B10)": pytest.approx(26.05456, abs=5e-6),
    "=_xlfn.VAR.S(B1:B10)": pytest.approx(754.2667, abs=5e-5),
    "=VARP(B1:B10)": pytest.approx(678.84, abs=5e-9),
    # Microsoft, "AVEDEV function": AVEDEV(4,5,6,7,5,4,3) = 1.020408163
    "=AVEDEV(4,5,6,7,5,4,3)": pytest.approx(1.020408163, abs=5e-10),
    # Microsoft, "GEOMEAN function" / "HARMEAN function" (data 4,5,8,7,11,4,3)
    "=GEOMEAN(A1:A7)": pytest.approx(5.476987, abs=5e-7),
    "=HARMEAN(A1:A7)": pytest.approx(5.028376, abs=5e-7),
    # Microsoft, "KURT function": -0.151799637
    "=KURT(3,4,5,2,3,4,5,6,4,7)": pytest.approx(-0.151799637, abs=5e-10),
    # Microsoft, "MEDIAN function", "MODE.SNGL function", "SUMSQ function"
    "=MEDIAN(1,2,3,4,5)": 3.0,
    "=MEDIAN(1,2,3,4,5,6)": 3.5,
    "=_xlfn.MODE.SNGL(5.6,4,4,3,2,4)": 4.0,
    "=SUMSQ(3,4)": 25.0,
    # typed numeric text and booleans count, the same in a reference do not (Microsoft,
    # "MEDIAN function" remarks): L holds 3, "x", TRUE, blank, "3", 2 -> numbers 3 and 2
    "=MEDIAN(L1:L6)": 2.5,
    "=MEDIAN(L1:L6,\"7\",TRUE)": 2.5,  # numbers 3, 2, 7, 1
    "=SUMSQ(L1:L6,\"2\")": 17.0,  # 9 + 4 + 4
    "=SUMSQ(\"x\")": "#VALUE!",
    "=MEDIAN(C3)": "#NUM!",  # no number ([MS-OI29500] 2.1.931 for DEVSQ, the same rule)
    "=DEVSQ(C1)": "#NUM!",
    "=STDEV(4)": "#DIV/0!",
    "=MODE(1,2,3)": "#N/A",
    "=GEOMEAN(4,-1)": "#NUM!",
    # Microsoft, "COUNTA function": Sales, 12/8/2008, blank, 19, 22.24, TRUE, #DIV/0! -> 6
    # (the error is text here; COUNTA counts it either way)
    "=COUNTA(C1:C7)": 6,
    "=COUNTA(C1:C7,\"\",1)": 8,  # typed empty text counts
    "=COUNT(L1:L6,\"4\",TRUE)": 4,  # 3, 2 in the reference; "4" and TRUE typed
    # Microsoft, "LARGE function" ({3,5,3,5,4;4,2,4,6,7}: 3rd largest 5, 7th largest 4)
    "=LARGE({3,5,3,5,4;4,2,4,6,7},3)": 5.0,
    "=LARGE({3,5,3,5,4;4,2,4,6,7},7)": 4.0,
    # Microsoft, "SMALL function": 4th smallest of 3,4,5,2,3,4,6,4,7 is 4; 2nd of B is 3
    "=SMALL({3,4,5,2,3,4,6,4,7},4)": 4.0,
    "=SMALL({1,4,8,3,7,12,54,8,23},2)": 3.0,
    "=SMALL(L1:L6,2)": 3.0,
    "=LARGE(A1:A7,0)": "#NUM!",
    "=LARGE(A1:A7,8)": "#NUM!",
    # Microsoft, "PERCENTILE.INC function": 1.9; "PERCENTILE.EXC function": 2.5, #NUM!
    "=_xlfn.PERCENTILE.INC({1,3,2,4},0.3)": pytest.approx(1.9, rel=1e-12),
    "=PERCENTILE({1,3,2,4},0.3)": pytest.approx(1.9, rel=1e-12),
    "=_xlfn.PERCENTILE.EXC(G1:G9,0.25)": 2.5,
    "=_xlfn.PERCENTILE.EXC(G1:G9,0)": "#NUM!",
    "=_xlfn.PERCENTILE.EXC(G1:G9,0.01)": "#NUM!",
    "=_xlfn.PERCENTILE.EXC(G1:G9,2)": "#NUM!",
    # Microsoft, "QUARTILE.INC function": 3.5; "QUARTILE.EXC function": 15, 43
    "=_xlfn.QUARTILE.INC({1,2,4,7,8,9,10,12},1)": 3.5,
    "=QUARTILE({1,2,4,7,8,9,10,12},1)": 3.5,
    "=_xlfn.QUARTILE.EXC({6,7,15,36,39,40,41,42,43,47,49},1)": 15.0,
    "=_xlfn.QUARTILE.EXC({6,7,15,36,39,40,41,42,43,47,49},3)": 43.0,
    "=_xlfn.QUARTILE.EXC({6,7,15,36,39,40,41,42,43,47,49},4)": "#NUM!",
    # Microsoft, "PERCENTRANK.INC function": 0.333, 0.555, 0.666, 0.583
    "=_xlfn.PERCENTRANK.INC(F1:F10,2)": 0.333,
    "=_xlfn.PERCENTRANK.INC(F1:F10,4)": 0.555,
    "=_xlfn.PERCENTRANK.INC(F1:F10,8)": 0.666,
    "=_xlfn.PERCENTRANK.INC(F1:F10,5)": 0.583,
    "=PERCENTRANK(F1:F10,5)": 0.583,
    "=_xlfn.PERCENTRANK.INC(F1:F10,14)": "#N/A",
    # Microsoft, "PERCENTRANK.EXC function": 0.7, 0.381, 0.3
    "=_xlfn.PERCENTRANK.EXC(G1:G9,7)": 0.7,
    "=_xlfn.PERCENTRANK.EXC(G1:G9,5.43)": 0.381,
    "=_xlfn.PERCENTRANK.EXC(G1:G9,5.43,1)": 0.3,
    # Microsoft, "RANK.EQ function": 5, 4, 3; "RANK.AVG function": 94 in
    # {89,88,92,101,94,97,95} is 4th
    "=_xlfn.RANK.EQ(7,H1:H5,1)": 5.0,
    "=_xlfn.RANK.EQ(2,H1:H5)": 4.0,
    "=_xlfn.RANK.EQ(3.5,H1:H5,1)": 3.0,
    "=RANK(3.5,H1:H5)": 2.0,
    "=_xlfn.RANK.AVG(3.5,H1:H5)": 2.5,  # ranks 2 and 3 of the equal pair
    "=_xlfn.RANK.AVG(94,{89,88,92,101,94,97,95})": 4.0,
    "=RANK(6,H1:H5)": "#N/A",
    # Microsoft, "TRIMMEAN function": 3.777777778
    "=TRIMMEAN({4,5,6,7,2,3,4,5,1,2,3},0.2)": pytest.approx(3.777777778, abs=5e-10),
    "=TRIMMEAN(A1:A7,1)": "#NUM!",
    # Microsoft, "FREQUENCY function": {1;2;4;2}
    "=INDEX(FREQUENCY(I1:I9,J1:J3),1)": 1.0,
    "=INDEX(FREQUENCY(I1:I9,J1:J3),3)": 4.0,
    "=INDEX(FREQUENCY(I1:I9,J1:J3),4)": 2.0,
    "=ROWS(FREQUENCY(I1:I9,J1:J3))": 4,
    # Microsoft, "MODE.MULT function": {1;2;3}
    "=ROWS(_xlfn.MODE.MULT(M1:M12))": 3,
    "=INDEX(_xlfn.MODE.MULT(M1:M12),2)": 2.0,
    # Microsoft, "SLOPE", "INTERCEPT", "STEYX", "RSQ" (y 2,3,9,1,8,7,5; x 6,5,11,7,5,4,4)
    "=SLOPE(D1:D7,E1:E7)": pytest.approx(0.305556, abs=5e-7),
    "=INTERCEPT(D1:D5,E1:E5)": pytest.approx(0.0483871, abs=5e-8),  # its page: 5 points
    "=STEYX(D1:D7,E1:E7)": pytest.approx(3.305719, abs=5e-7),
    "=RSQ(D1:D7,E1:E7)": pytest.approx(0.05795, abs=5e-6),
    # Microsoft, "PEARSON function": 0.699379; "CORREL function": 0.997054
    "=PEARSON({9,7,5,3,1},{10,6,1,5,3})": pytest.approx(0.699379, abs=5e-7),
    "=CORREL({3,2,4,5,6},{9,7,12,15,17})": pytest.approx(0.997054486, abs=5e-10),
    # Microsoft, "COVARIANCE.P": 5.2; "COVARIANCE.S": 9.666666667; "COVAR": 5.2
    "=_xlfn.COVARIANCE.P({3,2,4,5,6},{9,7,12,15,17})": pytest.approx(5.2, rel=1e-12),
    "=COVAR({3,2,4,5,6},{9,7,12,15,17})": pytest.approx(5.2, rel=1e-12),
    "=_xlfn.COVARIANCE.S({2,4,8},{5,11,12})": pytest.approx(9.666666667, abs=5e-10),
    "=SLOPE({1,2},{1,2,3})": "#N/A",  # different numbers of values
    "=SLOPE({1,2},{3,3})": "#DIV/0!",
    # Microsoft, "FORECAST and FORECAST.LINEAR functions": 10.607253
    "=FORECAST(30,{6,7,9,15,21},{20,28,31,38,40})": pytest.approx(10.607253, abs=5e-7),
    "=_xlfn.FORECAST.LINEAR(30,{6,7,9,15,21},{20,28,31,38,40})": pytest.approx(
        10.607253, abs=5e-7),
    # Microsoft, "SUMX2MY2 function" -55, "SUMX2PY2 function" 521, "SUMXMY2 function" 79
    "=SUMX2MY2({2,3,9,1,8,7,5},{6,5,11,7,5,4,4})": -55.0,
    "=SUMX2PY2({2,3,9,1,8,7,5},{6,5,11,7,5,4,4})": 521.0,
    "=SUMXMY2({2,3,9,1,8,7,5},{6,5,11,7,5,4,4})": 79.0,
    # Microsoft, "SUMPRODUCT function": 156; arrays of other sizes #VALUE!
    "=SUMPRODUCT({3,4;8,6;1,9},{2,7;6,7;5,3})": 156.0,
    "=SUMPRODUCT(L1:L6,L1:L6)": 13.0,  # non-numbers count as 0: 9 + 4
    "=SUMPRODUCT(A1:A7,D1:D6)": "#VALUE!",
    "=SUMPRODUCT((A1:A7>4)*1,A1:A7)": 31.0,  # 5 + 8 + 7 + 11
    # Microsoft, "MMULT function": {2,6;14,4}; "MDETERM function": 88, 1, -3, #VALUE!
    "=INDEX(MMULT({1,3;7,2},{2,0;0,2}),2,1)": 14.0,
    "=MMULT({1,2},{3,4})": "#VALUE!",
    "=MDETERM({1,3,8,5;1,3,6,1;1,1,1,0;7,3,10,2})": pytest.approx(88.0, rel=1e-12),
    "=MDETERM({3,6,1;1,1,0;3,10,2})": pytest.approx(1.0, rel=1e-12),
    "=MDETERM({3,6;1,1})": pytest.approx(-3.0, rel=1e-12),
    "=MDETERM({1,3,8,5;1,3,6,1})": "#VALUE!",
    # Microsoft, "MUNIT function": the identity matrix
    "=SUM(_xlfn.MUNIT(3))": 3.0,
    "=INDEX(_xlfn.MUNIT(3),2,2)": 1.0,
    # hand derivations of the array functions (Microsoft's pages define them)
    "=SUM(TRANSPOSE(A1:A7))": 42.0,
    "=COLUMNS(TRANSPOSE(A1:A7))": 7,
    "=SUM(_xlfn.TAKE(A1:A7,2))": 9.0,
    "=SUM(_xlfn.TAKE(A1:A7,-2))": 7.0,
    "=SUM(_xlfn.DROP(A1:A7,5))": 7.0,
    "=SUM(_xlfn.DROP(A1:A7,-5))": 9.0,
    "=INDEX(_xlfn.CHOOSECOLS(D1:E7,2,1),3,1)": 11.0,
    "=INDEX(_xlfn.CHOOSEROWS(D1:E7,-1),1,2)": 4.0,
    "=_xlfn.CHOOSECOLS(D1:E7,3)": "#VALUE!",
    "=ROWS(_xlfn.VSTACK(A1:A7,D1:E7))": 14,
    "=COLUMNS(_xlfn.HSTACK(A1:A7,D1:E7))": 3,
    "=ROWS(_xlfn.TOCOL(D1:E7))": 14,
    "=INDEX(_xlfn.TOROW(D1:E2),1,2)": 6.0,
    "=INDEX(_xlfn.TOROW(D1:E2,0,TRUE),1,2)": 3.0,
    "=COLUMNS(_xlfn.WRAPROWS(A1:A7,3))": 3,
    "=ROWS(_xlfn.WRAPROWS(A1:A7,3))": 3,
    "=INDEX(_xlfn.WRAPCOLS(A1:A7,3),1,3)": 3.0,
    "=ROWS(_xlfn.EXPAND(A1:A7,9))": 9,
    "=SUM(_xlfn._xlws.FILTER(A1:A7,A1:A7>5))": 26.0,  # 8 + 7 + 11
    "=ROWS(_xlfn.UNIQUE(A1:A7))": 6,  # 4 occurs twice
    "=ROWS(_xlfn.UNIQUE(A1:A7,FALSE,TRUE))": 5,
    # Microsoft, "XMATCH function", example 1: "Gra" with match_mode 1 -> Grape, 2
    "=_xlfn.XMATCH(\"Gra\",K1:K5,1)": 2.0,
    "=_xlfn.XMATCH(\"cherry\",K1:K5)": 5.0,  # without regard to case
    "=_xlfn.XMATCH(\"b*\",K1:K5,2)": 4.0,
    "=_xlfn.XMATCH(4,A1:A7,0,-1)": 6.0,  # last to first
    "=_xlfn.XMATCH(6,A1:A7,-1)": 2.0,  # next smaller: 5, first found
    "=_xlfn.XMATCH(6,A1:A7,1)": 4.0,  # next larger: 7
    "=_xlfn.XMATCH(5,{1,3,5,7},0,2)": 3.0,  # binary search
    "=_xlfn.XMATCH(4,{1,3,5,7},-1,2)": 2.0,
    "=_xlfn.XMATCH(4,{7,5,3,1},1,-2)": 2.0,
    "=_xlfn.XMATCH(9,A1:A7)": "#N/A",
    "=_xlfn.XMATCH(\"4\",A1:A7)": "#N/A",  # text never equals a number
    "=_xlfn.XMATCH(1,D1:E7)": "#VALUE!",  # not one row or column
    "=INDEX(_xlfn.XMATCH({4,8,9},A1:A7),1,1)": 1.0,  # an array of lookup values
    "=INDEX(_xlfn.XMATCH({4,8,9},A1:A7,0,-1),1,1)": 6.0,
    "=INDEX(_xlfn.XMATCH({4,8,9},A1:A7,0,-1),1,2)": 3.0,
    "=INDEX(_xlfn.XMATCH({4,8,9},A1:A7,0,-1),1,3)": "#N/A",
    # Microsoft, "CHOOSE function": "2nd"; an array of indexes picks element by element
    "=CHOOSE(2,\"1st\",\"2nd\",\"3rd\",\"Finished\")": "2nd",
    "=CHOOSE(5,1,2)": "#VALUE!",
    "=SUM(CHOOSE(2,A1:A7,D1:D7))": 35.0,
    "=INDEX(CHOOSE({1,2},D1:D7,E1:E7),3,2)": 11.0,
    "=VLOOKUP(11,CHOOSE({1,2},E1:E7,D1:D7),2,FALSE)": 9.0,
    # COUNTBLANK: R3 empty and R4 empty text count, R5's 0 does not (Microsoft, "COUNTBLANK
    # function": "cells with formulas that return "" (empty text) are also counted")
    "=COUNTBLANK(R1:R5)": 2,
    # Microsoft, "ADDRESS function" examples
    "=ADDRESS(2,3)": "$C$2",
    "=ADDRESS(2,3,2)": "C$2",
    "=ADDRESS(2,3,2,FALSE)": "R2C[3]",
    "=ADDRESS(2,3,1,FALSE,\"[Book1]Sheet1\")": "'[Book1]Sheet1'!R2C3",
    "=ADDRESS(2,3,1,FALSE,\"EXCEL SHEET\")": "'EXCEL SHEET'!R2C3",
    "=ADDRESS(0,3)": "#VALUE!",
    # Microsoft, "TEXTSPLIT function": "Dakota Lennon Sanchez" at spaces
    "=INDEX(_xlfn.TEXTSPLIT(R1,\" \"),1,3)": "Sanchez",
    "=COLUMNS(_xlfn.TEXTSPLIT(R1,\" \"))": 3,
    "=INDEX(_xlfn.TEXTSPLIT(R2,\",\",\";\"),2,2)": "5",
    "=INDEX(_xlfn.TEXTSPLIT(R2,\",\",\";\"),2,3)": "#N/A",
    "=INDEX(_xlfn.TEXTSPLIT(R2,\",\",\";\",FALSE,0,\"-\"),2,3)": "-",
    # Microsoft, "TREND function": 133953.3333 for month 1, 146171.5152 for month 13
    "=INDEX(TREND(N1:N12,O1:O12),1)": pytest.approx(133953.3333, abs=5e-5),
    "=TREND(N1:N12,O1:O12,13)": pytest.approx(146171.5152, abs=5e-5),
    "=INDEX(TREND(N1:N12,O1:O12,{13;14;15;16;17}),5)": pytest.approx(150244.2424, abs=5e-5),
    # Microsoft, "GROWTH function": 32618.20377 for month 11; 320196.7184 for month 17
    "=INDEX(GROWTH(P1:P6,Q1:Q6),1)": pytest.approx(32618.20377, abs=5e-6),
    "=GROWTH(P1:P6,Q1:Q6,17)": pytest.approx(320196.7184, abs=5e-5),
    # (the page shows 468536.0539; the least-squares fit gives ...0542, 6e-10 relative)
    "=GROWTH(P1:P6,Q1:Q6,18)": pytest.approx(468536.0539, rel=1e-9),
    "=GROWTH({1,-1},{1,2})": "#NUM!",
    # Microsoft, "LOGEST function": m 1.463275628, b 495.3047702
    "=INDEX(LOGEST(P1:P6,Q1:Q6),1,1)": pytest.approx(1.463275628, abs=5e-10),
    "=INDEX(LOGEST(P1:P6,Q1:Q6),1,2)": pytest.approx(495.3047702, abs=5e-8),
    # by hand: y = 2 * 3^x exactly for x = 1, 2, 3: m 3, b 2, r2 1, ssresid 0
    "=INDEX(LOGEST({2;6;18},{1;2;3},TRUE,TRUE),1,1)": pytest.approx(3.0, rel=1e-12),
    "=INDEX(LOGEST({2;6;18},{1;2;3},TRUE,TRUE),3,1)": pytest.approx(1.0, rel=1e-12),
    "=INDEX(LOGEST({2;6;18},{1;2;3},TRUE,TRUE),4,2)": 1.0,  # df = 3 - 1 - 1
    # Excel's cached values in the `formulas` project's test.xlsx, sheet LOOKUP rows
    # 171-197: XMATCH orders all types as numbers < text < booleans < an empty lookup value
    "=_xlfn.XMATCH(\"*b?u*\",{-1.1,2.1,3.1,4.1},-1)": 4.0,
    "=_xlfn.XMATCH(TRUE,{-1.1,2.1,3.1,4.1},-1)": 4.0,
    "=_xlfn.XMATCH(TRUE,{-1.1,2.1,3.1,4.1},1)": "#N/A",
    "=_xlfn.XMATCH(R3,{\"c bau c\",4.1,\"a\",1.1},-1)": 1.0,  # R3 is empty
    "=_xlfn.XMATCH(R3,{-1.1,2.1,3.1,4.1},1)": "#N/A",
    "=_xlfn.XMATCH(-2,{\"\",4.1,\"a\",1.1},1,2)": 1.0,
    "=_xlfn.XMATCH(R3,{TRUE,4.1,FALSE,1.1},-1,2)": 4.0,
    "=_xlfn.XMATCH(1.1,{TRUE,4.1,FALSE,1.1},-1,2)": "#N/A",
    "=_xlfn.XMATCH(\"*b?u*\",{TRUE,4.1,FALSE,\"c bau c\"},-1,-2)": 2.0,
    # ... sheet EXTRA rows 75-77: "ß" equals "ss" except in a wildcard match; match_mode 4
    # is #VALUE!; IronCalc's XMATCH.xlsx: match_mode 3 (a regular expression) finds none
    "=_xlfn.XMATCH(\"ß\",{1,\"ss\",2.1,\"c bau c\",4.1},0)": 2.0,
    "=_xlfn.XMATCH(\"ß\",{1,\"ss\",2.1,\"c bau c\",4.1},2)": "#N/A",
    "=_xlfn.XMATCH(\"ß\",{1,\"ss\",2.1,\"c bau c\",4.1},4)": "#VALUE!",
    "=_xlfn.XMATCH(42,K1:K5,3)": "#N/A",
    "=_xlfn.XMATCH(\"^Gr\",K1:K5,3)": 2.0,  # by hand: Grape starts with "Gr"
    # test.xlsx, STATISTICAL row 57: k of 0.9 is #NUM!; text is converted, dates too
    "=LARGE(S1:S5,S3)": "#NUM!",
    "=LARGE(S1:S5,S7)": 2.2,
    "=LARGE(S1:S5,S8)": 2.2,
    "=LARGE(S1:S5,S6)": "#NUM!",
    "=SMALL(S1:S5,2.2)": -0.1,  # k truncated (test.xlsx, STATISTICAL AK95)
    "=LARGE(S1:S5,2.2)": 0.1,  # k rounded up (test.xlsx, STATISTICAL AK57)
    # test.xlsx, EXTRA J50:J51: bins of empty cells only are one bin of 0
    "=INDEX(FREQUENCY(A1:A7,R3:R4),1)": 0.0,
    "=INDEX(FREQUENCY(A1:A7,R3:R4),2)": 7.0,
    "=ROWS(FREQUENCY(A1:A7,R3:R4))": 2,
    "=LARGE(U1:U5,NA())": "#N/A",  # the error in k comes first (test.xlsx AA57)
    "=_xlfn.PERCENTILE.INC(S2:S3,S7)": 0.9,  # test.xlsx, STATISTICAL W79
    # IronCalc's PERCENTIL_QUARTIL.xlsx: 40 lies between 12 (the second of two) and 56
    "=_xlfn.PERCENTRANK.INC(T1:T7,40)": 0.939,
    "=_xlfn.PERCENTRANK.EXC(T1:T7,40)": 0.829,
    "=_xlfn.PERCENTRANK.INC(T1:T7,10.5)": 0.611,
    # two arrays: sizes first, then the first pair's error (test.xlsx CORREL row 20)
    "=CORREL({1,2,3},{1,2})": "#N/A",
    "=CORREL(U3:U5,U1:U3)": "#N/A",
    "=CORREL(U1:U3,U2:U4)": "#N/A",
    # NPOI's FormulaEvalTestData (saved by Excel): no pair of numbers is #DIV/0!
    "=SUMX2MY2(R1:R3,L2:L4)": "#DIV/0!",
    # IronCalc's WRAPCOLS_ROWS.xlsx: the padding may be an error value; by hand otherwise
    "=INDEX(_xlfn.WRAPROWS({1,2,3},2,NA()),2,2)": "#N/A",
    "=INDEX(_xlfn.WRAPROWS({1,2,3},2,0),2,2)": 0.0,
    "=_xlfn.WRAPROWS({1,2,3},0)": "#NUM!",  # test.xlsx, LOOKUP O156
    # lifting: a single-value parameter given an array (test.xlsx, CORE P31: 6)
    "=SUM(_xlfn.MUNIT({1,2;3,4;7,8}))": 6.0,
    "=SUM(TRIMMEAN(A1:A7,{0,0.3}))": pytest.approx(11.6, rel=1e-12),  # 6 + 5.6 by hand
    "=SUM(LARGE(A1:A7,{1,2}))": 19.0,  # 11 + 8
    # test.xlsx, LOOKUP S3: ADDRESS with an empty sheet_text
    "=ADDRESS(1,3,4,TRUE,R3)": "!C1",
    "=_xlfn.TEXTSPLIT(R3,\",\")": "#VALUE!",  # test.xlsx, TEXT AM47: an empty cell
    # test.xlsx, LOOKUP AK142:AM142: UNIQUE with an array of by_col values
    "=INDEX(_xlfn.UNIQUE({2,1,2,1},{1,1,1}),1,1)": 2.0,
    "=INDEX(_xlfn.UNIQUE({2,1,2,1},{1,1,1}),1,2)": 0.0,
    # test.xlsx, STATISTICAL V42: a single empty cell as known_x's
    "=_xlfn.FORECAST.LINEAR(1,A1,R3)": "#VALUE!",
}


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    for col, values in DATA.items():
        for i, v in enumerate(values, start=1):
            if v is not None:
                ws[f"{col}{i}"] = v
    return ws.title, *evaluate_cases(wb, ws, "Z", CASES, tmp_path_factory.mktemp("arrays"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_documented_value(evaluated, engine, formula):
    sheet, cells, evaluations = evaluated
    got = evaluations[engine].value(sheet, cells[formula])
    assert matches_excel(got, CASES[formula]), (formula, engine, got)


def test_functions_are_the_engines_own():
    """The functions of this file are the engine's (BUILTINS, or the list functions read by
    Excel's argument rules), not the ``formulas`` library's."""
    from rooflinexl.recalc.functions import BUILTINS, EXCEL_NUMBERS

    own = set(BUILTINS) | EXCEL_NUMBERS
    for name in ("XMATCH", "COUNT", "COUNTA", "SUMPRODUCT", "MMULT", "LARGE", "SMALL",
                 "MEDIAN", "STDEV.S", "VAR.P", "PERCENTILE.EXC", "QUARTILE.INC", "SLOPE",
                 "FILTER", "UNIQUE", "TAKE", "DROP", "VSTACK", "TOCOL", "FREQUENCY",
                 "CHOOSE", "COUNTBLANK", "ADDRESS", "TEXTSPLIT", "TREND", "GROWTH", "LOGEST"):
        assert name in own, name


@pytest.mark.parametrize("engine", ENGINES)
def test_count_and_counta_filled_down(tmp_path, engine):
    """COUNT and COUNTA over a window of each row, filled down (the block path counts every
    row at once): COUNT counts the numbers in the references, COUNTA every value, empty text
    and error values too (Microsoft, "COUNT function", "COUNTA function"); by hand per row."""
    from rooflinexl.recalc.book import recalc_book

    wb = openpyxl.Workbook()
    ws = wb.active
    rows = [(1, "x", True), (None, '=""', "=1/0"), ("3", 2.5, None), (None, None, None)]
    for r, values in enumerate(rows, start=1):
        for c, v in enumerate(values, start=1):
            if v is not None:
                ws.cell(r, c, v)
        ws.cell(r, 5, f"=COUNT(A{r}:C{r})")
        ws.cell(r, 6, f"=COUNTA(A{r}:C{r})")
        ws.cell(r, 7, f"=COUNT(A{r},B{r},$A$1:$C$4)")
    wb.save(tmp_path / "count.xlsx")
    ev = recalc_book(tmp_path / "count.xlsx", write=False, engine=engine).evaluation
    got = [[ev.value(ws.title, f"{c}{r}") for c in "EFG"] for r in range(1, 5)]
    # numbers: A1 1, B3 2.5 ("3" in A3 is text); the whole block holds 2 numbers
    assert got == [[1, 3, 3], [0, 2, 2], [1, 2, 3], [0, 0, 2]]
