"""GROUPBY and PIVOTBY (issue 13): every case of the `formulas` project's regression book.

Expected values: Excel's cached values in ``test/test_files/test.xlsx`` of the ``formulas``
project (commit 78e4b77; saved by Microsoft Excel for Mac), sheets LOOKUP (GROUPBY M25:AI41,
PIVOTBY N93:AW111, on the input tables copied below) and EXTRA (PIVOTBY of array constants);
each formula is written with the range its array fills in that book, and every cell of the
range must equal Excel's value (empty cells in Excel's spill are empty text). The results
must be the same through both engines. Microsoft, "GROUPBY function" and "PIVOTBY function"
(read 2026-12-01) for the arguments.
"""
from __future__ import annotations

import openpyxl
import pytest
from openpyxl.utils import range_boundaries
from openpyxl.worksheet.formula import ArrayFormula

from rooflinexl.cellvalues import values_equal
from rooflinexl.errors import EXCEL_ERRORS, ExcelError
from rooflinexl.recalc.book import recalc_book
from rooflinexl.recalc.prepass import rewrite_formula
from tests.formula_cases import ENGINES

# test.xlsx, LOOKUP!C25:K43 (GROUPBY's input) and LOOKUP!C93:L111 (PIVOTBY's)
TABLE_25 = [
    ('row-2', 'row-1', 'row-3', 'col-1', 'col-2', 'col-3', 'val1', 'val2', 'filter'),
    ('r2', 'r2-1', 'r2-1-1', 'b', 'd', 'c1-2-1', 1, 5, 1),
    ('r2', 'r2-2', 'r2-2-2', 'b', 'f', 'c1-1-2', 6, 9, 0),
    ('r3', 'r1-1', 'r1-1-2', 'b', 'd', 'c1-2-2', -9, 8, 0),
    ('r2', 'r2-2', 'r2-2-1', 'b', 'd', 'c1-2-2', -1, 7, 1),
    ('r3', 'r1-2', 'r1-2-2', 'b', 'd', 'c1-2-1', 6, 3, 0),
    ('r2', 'r2-1', 'r2-1-2', 'b', 'd', 'c1-2-1', 3, -7, 0),
    ('r3', 'r1-2', 'r1-2-1', 'a', 'e', 'c2-1-2', 7, -4, 1),
    ('r2', 'r2-2', 'r2-2-2', 'a', 'e', 'c2-1-2', -4, 1, 0),
    ('r2', 'r2-1', 'r2-1-2', 'a', 'e', 'c2-1-2', -7, 6, 0),
    ('r2', 'r2-2', 'r2-2-1', 'a', 'g', 'c2-2-2', 9, -9, 1),
    ('r2', 'r2-2', 'r2-2-2', 'b', 'd', 'c1-2-1', 7, -1, 1),
    ('r2', 'r2-2', 'r2-2-1', 'a', 'g', 'c2-2-2', 5, 7, 1),
    ('r3', 'r1-1', 'r1-1-2', 'b', 'f', 'c1-1-1', 9, 3, 1),
    ('r2', 'r2-1', 'r2-1-2', 'a', 'e', 'c2-1-1', 8, -7, 1),
    ('r3', 'r1-2', 'r1-2-2', 'a', 'e', 'c2-1-2', 8, -4, 1),
    ('r2', 'r2-2', 'r2-2-2', 'a', 'g', 'c2-2-1', -6, -7, 0),
    ('r3', 'r1-2', 'r1-2-2', 'b', 'd', 'c1-2-1', 1, -1, 0),
    ('r3', 'r1-1', 'r1-1-2', 'b', 'd', 'c1-2-2', -2, -2, 0),
]
TABLE_93 = [
    ('row-2', 'row-1', 'row-3', 'col-1', 'col-2', 'col-3', 'val1', 'val2', 'filter', None),
    ('r2', 'r2-1', 'r2-1-1', 'b', 'd', 'c1-2-1', 1, 5, 1, 1),
    ('r2', 'r2-2', 'r2-2-2', 'b', 'f', 'c1-1-2', 6, 9, 0, 1),
    ('r3', 'r1-1', 'r1-1-2', 'b', 'd', 'c1-2-2', -9, 8, 0, '#VALUE!'),
    ('r2', 'r2-2', 'r2-2-1', 'b', 'd', 'c1-2-2', -1, 7, 1, 1),
    ('r3', 'r1-2', 'r1-2-2', 'b', 'd', 'c1-2-1', '#VALUE!', 3, 0, 0),
    ('r2', 'r2-1', 'r2-1-2', 'b', 'd', 'c1-2-1', 3, -7, 0, 0),
    ('r3', 'r1-2', 'r1-2-1', 'a', 'e', 'c2-1-2', 7, -4, 1, 1),
    ('r2', 'r2-2', 'r2-2-2', 'a', 'e', 'c2-1-2', -4, 1, 0, 0),
    ('r2', 'r2-1', 'r2-1-2', 'a', 'e', 'c2-1-2', -7, 6, 0, 0),
    ('r2', 'r2-2', 'r2-2-1', 'a', 'g', 'c2-2-2', 9, -9, 1, 1),
    ('r2', 'r2-2', 'r2-2-2', 'b', 'd', 'c1-2-1', 7, -1, 1, 1),
    ('r2', 'r2-2', 'r2-2-1', 'a', 'g', 'c2-2-2', 5, 7, 1, 1),
    ('r3', 'r1-1', 'r1-1-2', 'b', 'f', 'c1-1-1', 9, 3, 1, 1),
    ('r2', 'r2-1', 'r2-1-2', 'a', 'e', 'c2-1-1', 8, -7, 1, 1),
    ('r3', 'r1-2', 'r1-2-2', 'a', 'e', 'c2-1-2', 8, -4, 1, 0),
    ('r2', 'r2-2', 'r2-2-2', 'a', 'g', 'c2-2-1', -6, -7, 0, 0),
    ('r3', 'r1-2', 'r1-2-2', 'b', 'd', 'c1-2-1', 1, -1, 0, 0),
    ('r3', 'r1-1', 'r1-1-2', 'b', 'd', 'c1-2-2', -2, -2, 0, 0),
]

# (sheet, the range the array formula fills, formula, Excel's cached values)
CASES = [
    ('LOOKUP', 'M25:Q39',
     '=_xlfn.GROUPBY(C25:E43,I25:J43,_xleta.SUM,3, 3)',
     [
         ['row-2', 'row-1', 'row-3', 'val1', 'val2'],
         ['r2', 'r2-1', 'r2-1-1', 1, 5],
         ['r2', 'r2-1', 'r2-1-2', 4, -8],
         ['r2', 'r2-1', '', 5, -3],
         ['r2', 'r2-2', 'r2-2-1', 13, 5],
         ['r2', 'r2-2', 'r2-2-2', 3, 2],
         ['r2', 'r2-2', '', 16, 7],
         ['r2', '', '', 21, 4],
         ['r3', 'r1-1', 'r1-1-2', -2, 9],
         ['r3', 'r1-1', '', -2, 9],
         ['r3', 'r1-2', 'r1-2-1', 7, -4],
         ['r3', 'r1-2', 'r1-2-2', 15, -2],
         ['r3', 'r1-2', '', 22, -6],
         ['r3', '', '', 20, 3],
         ['Grand Total', '', '', 41, 7],
     ]),
    ('LOOKUP', 'S25:W39',
     '=_xlfn.GROUPBY(C25:E43,I25:J43,_xleta.PERCENTOF,3, 3)',
     [
         ['row-2', 'row-1', 'row-3', 'val1', 'val2'],
         ['r2', 'r2-1', 'r2-1-1', 0.024390243902439025, 0.7142857142857143],
         ['r2', 'r2-1', 'r2-1-2', 0.0975609756097561, -1.1428571428571428],
         ['r2', 'r2-1', '', 0.12195121951219512, -0.42857142857142855],
         ['r2', 'r2-2', 'r2-2-1', 0.3170731707317073, 0.7142857142857143],
         ['r2', 'r2-2', 'r2-2-2', 0.07317073170731707, 0.2857142857142857],
         ['r2', 'r2-2', '', 0.3902439024390244, 1],
         ['r2', '', '', 0.5121951219512195, 0.5714285714285714],
         ['r3', 'r1-1', 'r1-1-2', -0.04878048780487805, 1.2857142857142858],
         ['r3', 'r1-1', '', -0.04878048780487805, 1.2857142857142858],
         ['r3', 'r1-2', 'r1-2-1', 0.17073170731707318, -0.5714285714285714],
         ['r3', 'r1-2', 'r1-2-2', 0.36585365853658536, -0.2857142857142857],
         ['r3', 'r1-2', '', 0.5365853658536586, -0.8571428571428571],
         ['r3', '', '', 0.4878048780487805, 0.42857142857142855],
         ['Grand Total', '', '', 1, 1],
     ]),
    ('LOOKUP', 'Y25:AC32',
     '=_xlfn.GROUPBY(C25:E43,I25:J43,_xleta.AVERAGE)',
     [
         ['r2', 'r2-1', 'r2-1-1', 1, 5],
         ['r2', 'r2-1', 'r2-1-2', 1.3333333333333333, -2.6666666666666665],
         ['r2', 'r2-2', 'r2-2-1', 4.333333333333333, 1.6666666666666667],
         ['r2', 'r2-2', 'r2-2-2', 0.75, 0.5],
         ['r3', 'r1-1', 'r1-1-2', -0.6666666666666666, 3],
         ['r3', 'r1-2', 'r1-2-1', 7, -4],
         ['r3', 'r1-2', 'r1-2-2', 5, -0.6666666666666666],
         ['Total', '', '', 2.2777777777777777, 0.3888888888888889],
     ]),
    ('LOOKUP', 'AE25:AI32',
     '=_xlfn.GROUPBY(F25:H43,I25:J43,_xleta.AVERAGE,3,1,1,K25:K43,1)',
     [
         ['col-1', 'col-2', 'col-3', 'val1', 'val2'],
         ['a', 'e', 'c2-1-1', 8, -7],
         ['a', 'e', 'c2-1-2', 7.5, -4],
         ['a', 'g', 'c2-2-2', 7, -1],
         ['b', 'd', 'c1-2-1', 4, 2],
         ['b', 'd', 'c1-2-2', -1, 7],
         ['b', 'f', 'c1-1-1', 9, 3],
         ['Total', '', '', 5.888888888888889, -0.3333333333333333],
     ]),
    ('LOOKUP', 'Y34',
     '=_xlfn.GROUPBY(C25:E43,I25:J42,_xleta.AVERAGE)',
     [
         ['#VALUE!'],
     ]),
    ('LOOKUP', 'Z34',
     '=_xlfn.GROUPBY(C25:E43,I25:J43,_xleta.AVERAGE,1,2,6)',
     [
         ['#VALUE!'],
     ]),
    ('LOOKUP', 'AE34:AI41',
     '=_xlfn.GROUPBY(F25:H43,I25:J43,_xleta.AVERAGE,3,1,1,K25:K43,0)',
     [
         ['col-1', 'col-2', 'col-3', 'val1', 'val2'],
         ['a', 'e', 'c2-1-1', 8, -7],
         ['a', 'e', 'c2-1-2', 7.5, -4],
         ['a', 'g', 'c2-2-2', 7, -1],
         ['b', 'd', 'c1-2-1', 4, 2],
         ['b', 'd', 'c1-2-2', -1, 7],
         ['b', 'f', 'c1-1-1', 9, 3],
         ['Total', '', '', 5.888888888888889, -0.3333333333333333],
     ]),
    ('LOOKUP', 'AJ92:AM95',
     '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.SUM,1,-1,2'
     ',-1,2,LOOKUP!K93:K111)',
     [
         ['', 'Total', 'b', 'a'],
         ['Total', 53, 16, 37],
         ['r3', 24, 9, 15],
         ['r2', 29, 7, 22],
     ]),
    ('LOOKUP', 'N93:AB103',
     '=_xlfn.PIVOTBY(C93:E111,F93:H111,I93:J111,_xleta.SUM,1,1,1,0,3,K93:L111)',
     [
         ['', '', '', 'a', 'a', 'a', 'a', 'a', 'a', 'b', 'b', 'b', 'b', 'b', 'b'],
         ['', '', '', 'e', 'e', 'e', 'e', 'g', 'g', 'd', 'd', 'd', 'd', 'f', 'f'],
         ['', '', '', 'c2-1-1', 'c2-1-1', 'c2-1-2', 'c2-1-2', 'c2-2-2', 'c2-2-2', 'c1-2-1',
          'c1-2-1', 'c1-2-2', 'c1-2-2', 'c1-1-1', 'c1-1-1'],
         ['r2', 'r2-1', 'r2-1-1', '', '', '', '', '', '', 1, 5, '', '', '', ''],
         ['r2', 'r2-1', 'r2-1-2', 8, -7, '', '', '', '', '', '', '', '', '', ''],
         ['r2', 'r2-2', 'r2-2-1', '', '', '', '', 14, -2, '', '', -1, 7, '', ''],
         ['r2', 'r2-2', 'r2-2-2', '', '', '', '', '', '', 7, -1, '', '', '', ''],
         ['r3', 'r1-1', 'r1-1-2', '', '', '', '', '', '', '', '', '', '', 9, 3],
         ['r3', 'r1-2', 'r1-2-1', '', '', 7, -4, '', '', '', '', '', '', '', ''],
         ['r3', 'r1-2', 'r1-2-2', '', '', 8, -4, '', '', '', '', '', '', '', ''],
         ['Total', '', '', 8, -7, 15, -8, 14, -2, 8, 4, -1, 7, 9, 3],
     ]),
    ('LOOKUP', 'AE96:AH99',
     '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.PERCENTOF,'
     '1,1,1,1,1,LOOKUP!K93:K111,0)',
     [
         ['', 'a', 'b', 'Total'],
         ['r2', 0.5945945945945946, 0.4375, 0.5471698113207547],
         ['r3', 0.40540540540540543, 0.5625, 0.4528301886792453],
         ['Total', 1, 1, 1],
     ]),
    ('LOOKUP', 'AJ96:AM99',
     '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.SUM,1,1,2,'
     '1,2,LOOKUP!K93:K111)',
     [
         ['', 'b', 'a', 'Total'],
         ['r3', 9, 15, 24],
         ['r2', 7, 22, 29],
         ['Total', 16, 37, 53],
     ]),
    ('LOOKUP', 'AR96:AW99',
     '=_xlfn.PIVOTBY(C93:C111,F93:G111,I93:I111,_xleta.SUM,1,0,2,1,3,K93:K111)',
     [
         ['', 'a', 'a', 'b', 'b', 'Total'],
         ['', 'g', 'e', 'd', 'f', ''],
         ['r3', '', 15, '', 9, 24],
         ['r2', 14, 8, 7, '', 29],
     ]),
    ('LOOKUP', 'AE100:AH103',
     '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.PERCENTOF,'
     '1,1,1,1,1,LOOKUP!K93:K111,1)',
     [
         ['', 'a', 'b', 'Total'],
         ['r2', 0.7586206896551724, 0.2413793103448276, 1],
         ['r3', 0.625, 0.375, 1],
         ['Total', 0.6981132075471698, 0.3018867924528302, 1],
     ]),
    ('LOOKUP', 'AJ101:AO105',
     '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:G111,LOOKUP!I93:I111,_xleta.SUM,1,1,1,'
     '1,{1,-2},LOOKUP!K93:K111)',
     [
         ['', 'a', 'a', 'b', 'b', 'Total'],
         ['', 'g', 'e', 'f', 'd', ''],
         ['r2', 14, 8, '', 7, 29],
         ['r3', '', 15, 9, '', 24],
         ['Total', 14, 23, 9, 7, 53],
     ]),
    ('LOOKUP', 'AP101:AU105',
     '=_xlfn.PIVOTBY(C93:C111,F93:G111,I93:I111,_xleta.SUM,1,1,2,1,3,K93:K111)',
     [
         ['', 'a', 'a', 'b', 'b', 'Total'],
         ['', 'g', 'e', 'd', 'f', ''],
         ['r3', '', 15, '', 9, 24],
         ['r2', 14, 8, 7, '', 29],
         ['Total', 14, 23, 7, 9, 53],
     ]),
    ('LOOKUP', 'AE104:AH107',
     '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.PERCENTOF,'
     '1,1,1,1,1,LOOKUP!K93:K111,2)',
     [
         ['', 'a', 'b', 'Total'],
         ['r2', 0.41509433962264153, 0.1320754716981132, 0.5471698113207547],
         ['r3', 0.2830188679245283, 0.16981132075471697, 0.4528301886792453],
         ['Total', 0.6981132075471698, 0.3018867924528302, 1],
     ]),
    ('LOOKUP', 'N105',
     '=_xlfn.PIVOTBY(C93:E111,F93:H111,I93:J111,_xleta.SUM,1,1,1,0,1,L93:L111)',
     [
         ['#VALUE!'],
     ]),
    ('LOOKUP', 'R105:U108',
     '=_xlfn.PIVOTBY({"r2";"r2";"r3";"r2";"r2";"r2";"r3";"r2";"r3"},{"c1";"c1";"c2";"c'
     '2";"c1";"c2";"c1";"c2";"c2"},{1;-1;-7;-1;7;5;9;8;-8},_xleta.SUM,0,1,1,1,1,{1;1;1'
     ';1;1;1;1;1;1},3)',
     [
         ['', 'c1', 'c2', 'Total'],
         ['r2', 7, 12, 19],
         ['r3', 9, -15, -6],
         ['Total', 16, -3, 13],
     ]),
    ('LOOKUP', 'N106:Q109',
     '=_xlfn.PIVOTBY({"r2";"r2";"r3";"r2";"r2";"r2";"r3";"r2";"r3"},{"c1";"c1";"c2";"c'
     '2";"c1";"c2";"c1";"c2";"c2"},{1;-1;-7;-1;7;5;9;8;-8},_xleta.PERCENTOF,0,1,1,1,1,'
     '{1;1;1;1;1;1;1;1;1},3)',
     [
         ['', 'c1', 'c2', 'Total'],
         ['r2', 0.3684210526315789, 0.631578947368421, 1],
         ['r3', -1.5, 2.5, 1],
         ['Total', 1.2307692307692308, -0.23076923076923078, 1],
     ]),
    ('LOOKUP', 'AE108:AH111',
     '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.PERCENTOF,'
     '1,1,1,1,1,LOOKUP!K93:K111,3)',
     [
         ['', 'a', 'b', 'Total'],
         ['r2', 0.7586206896551724, 0.2413793103448276, 1],
         ['r3', 0.625, 0.375, 1],
         ['Total', 0.6981132075471698, 0.3018867924528302, 1],
     ]),
    ('EXTRA', 'AX3',
     '=_xlfn.PIVOTBY(LOOKUP!C93:C111,LOOKUP!F93:F111,LOOKUP!I93:I111,_xleta.PERCENTOF,'
     '1,3,1,3,1,LOOKUP!K93:K111,0)',
     [
         ['#VALUE!'],
     ]),
    ('EXTRA', 'BD95:BK104',
     '=_xlfn.PIVOTBY({"r1","r2";2,1;2,2;3,1},{"c1","c2";1,1;2,1;2,2},{"v1","v2";1,3;2,'
     '5;3,2},_xleta.PERCENTOF,3,2,1,0,1,{"f";1;1;1},3)',
     [
         ['', '', 'c1, c2', '', '', '', '', ''],
         ['', '', 1, 1, 2, 2, 2, 2],
         ['', '', 1, 1, 1, 1, 2, 2],
         ['r1', 'r2', 'v1', 'v2', 'v1', 'v2', 'v1', 'v2'],
         [2, 1, 1, 1, '', '', '', ''],
         [2, 2, '', '', 1, 1, '', ''],
         [2, '', 1, 1, 1, 1, '', ''],
         [3, 1, '', '', '', '', 1, 1],
         [3, '', '', '', '', '', 1, 1],
         ['Grand Total', '', 1, 1, 0.4, 0.7142857142857143, 0.6, 0.2857142857142857],
     ]),
    ('EXTRA', 'BM95:BT104',
     '=_xlfn.PIVOTBY({"r1","r2";2,1;2,2;3,1},{"c1","c2";1,1;2,1;2,2},{"v1","v2";1,3;2,'
     '5;3,2},_xleta.PERCENTOF,3,2,1,0,1,{"f";1;1;1},4)',
     [
         ['', '', 'c1, c2', '', '', '', '', ''],
         ['', '', 1, 1, 2, 2, 2, 2],
         ['', '', 1, 1, 1, 1, 2, 2],
         ['r1', 'r2', 'v1', 'v2', 'v1', 'v2', 'v1', 'v2'],
         [2, 1, 1, 1, '', '', '', ''],
         [2, 2, '', '', 1, 1, '', ''],
         [2, '', 1, 1, 1, 1, '', ''],
         [3, 1, '', '', '', '', 1, 1],
         [3, '', '', '', '', '', 1, 1],
         ['Grand Total', '', 1, 1, 1, 1, 1, 1],
     ]),
    ('EXTRA', 'H96:K99',
     '=_xlfn.PIVOTBY({2;2;3},{1;2;2},{1;2;3},_xleta.SUM)',
     [
         ['', 1, 2, 'Total'],
         [2, 1, 2, 3],
         [3, '', 3, 3],
         ['Total', 1, 5, 6],
     ]),
    ('EXTRA', 'L96',
     '=_xlfn.PIVOTBY({2;2;3},{1;2;2},{1;2;3},LOOKUP!L91)',
     [
         ['#N/A'],
     ]),
    ('EXTRA', 'H100:K103',
     '=_xlfn.PIVOTBY({2;2;3},{1;2;2},{1;2;3},_xleta.IF)',
     [
         ['', 1, 2, 'Total'],
         [2, '#VALUE!', '#VALUE!', '#VALUE!'],
         [3, '', '#VALUE!', '#VALUE!'],
         ['Total', '#VALUE!', '#VALUE!', '#VALUE!'],
     ]),
    ('EXTRA', 'N100:Q103',
     '=_xlfn.PIVOTBY({2;2;3},{1;2;2},{1;2;3},_xleta.SUM)',
     [
         ['', 1, 2, 'Total'],
         [2, 1, 2, 3],
         [3, '', 3, 3],
         ['Total', 1, 5, 6],
     ]),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    wb = openpyxl.Workbook()
    lookup = wb.active
    lookup.title = "LOOKUP"
    extra = wb.create_sheet("EXTRA")
    for top, table in ((25, TABLE_25), (93, TABLE_93)):
        for i, row in enumerate(table):
            for j, x in enumerate(row):
                if x is not None:
                    lookup.cell(top + i, 3 + j, x)
    lookup["L91"] = "#N/A"  # an error value where EXTRA!L96 takes its function
    sheets = {"LOOKUP": lookup, "EXTRA": extra}
    for sheet, ref, formula, _ in CASES:
        anchor = ref.split(":")[0]
        sheets[sheet][anchor] = ArrayFormula(ref, formula)
    path = tmp_path_factory.mktemp("groupby") / "groupby.xlsx"
    wb.save(path)
    return {e: recalc_book(path, write=False, engine=e).evaluation for e in ENGINES}


def assert_range(ev, sheet, ref, excel):
    """Every cell of ``ref`` holds the value at its place in ``excel`` (rows of values)."""
    c1, r1, c2, r2 = range_boundaries(ref)
    wrong = []
    for i, r in enumerate(range(r1, r2 + 1)):
        for j, c in enumerate(range(c1, c2 + 1)):
            cell = f"{openpyxl.utils.get_column_letter(c)}{r}"
            got = ev.value(sheet, cell)
            want = ExcelError(excel[i][j]) if excel[i][j] in EXCEL_ERRORS else excel[i][j]
            if not values_equal(want, got):
                wrong.append(f"{cell}: Excel {excel[i][j]!r}, ours {got!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("sheet,ref,formula,excel", CASES, ids=[f"{c[0]}!{c[1]}" for c in CASES])
def test_matches_excel(results, engine, sheet, ref, formula, excel):
    assert_range(results[engine], sheet, ref, excel)


def test_eta_only_inside_groupby_and_pivotby():
    """``_xleta.SUM`` reaches GROUPBY/PIVOTBY as a function name; elsewhere it is left alone
    (the pre-pass's undefined-name rule and the per-cell path decide there)."""
    text = rewrite_formula("=_xlfn.PIVOTBY(A1:A3,B1:B3,C1:C3, _xleta.SUM )+_xleta.SUM").text
    assert text == '=_xlfn.PIVOTBY(A1:A3,B1:B3,C1:C3, "__ROOFLINEXL_FUNCTION__.SUM" )+_xleta.SUM'
    assert rewrite_formula("=_xlfn.BYROW(A1:B3,_xleta.SUM)").text == (
        "=_xlfn.BYROW(A1:B3,_xleta.SUM)")


# Hand-derived cases on a small table (Microsoft's GROUPBY/PIVOTBY pages for the arguments;
# the layout as in test.xlsx above): A1:A6 = b a b a c a, B1:B6 = 1 2 3 4 "x" 6, D1:F3 = a
# two-level table p/x 1, p/y 2, q/x 3, G1:G3 = "v" 1 2 (a values column with a header).
HAND = [
    ("H1:I3", "=_xlfn.GROUPBY(A1:A6,B1:B6,_xleta.COUNT,0,0)", [["a", 3], ["b", 2], ["c", 0]]),
    ("K1:L3", "=_xlfn.GROUPBY(A1:A6,B1:B6,_xleta.COUNTA,0,0)", [["a", 3], ["b", 2], ["c", 1]]),
    ("N1:O4", "=_xlfn.GROUPBY(A1:A6,B1:B6,_xleta.MAX,0,1)",
     [["a", 6], ["b", 3], ["c", 0], ["Total", 6]]),
    ("Q1:R3", "=_xlfn.GROUPBY(A1:A6,B1:B6,_xleta.MEDIAN,0,0)",
     [["a", 4], ["b", 2], ["c", "#NUM!"]]),
    ("T1:U3", "=_xlfn.GROUPBY(A1:A6,B1:B6,_xleta.CONCAT,0,0)", [["a", "246"], ["b", "13"],
                                                               ["c", "x"]]),
    ("W1:X3", "=_xlfn.GROUPBY(A1:A6,B1:B6,_xleta.ARRAYTOTEXT,0,0)",
     [["a", "2, 4, 6"], ["b", "1, 3"], ["c", "x"]]),
    # sorted by the aggregate, descending
    ("H11:I14", "=_xlfn.GROUPBY(A1:A6,B1:B6,_xleta.SUM,0,1,-2)",
     [["a", 12], ["b", 4], ["c", 0], ["Total", 16]]),
    # the total on top, the keys descending
    ("K11:L14", "=_xlfn.GROUPBY(A1:A6,B1:B6,_xleta.SUM,0,-1,-1)",
     [["Total", 16], ["c", 0], ["b", 4], ["a", 12]]),
    # grand total and subtotals on top
    ("N11:P16", "=_xlfn.GROUPBY(D1:E3,F1:F3,_xleta.SUM,0,-2)",
     [["Grand Total", "", 6], ["p", "", 3], ["p", "x", 1], ["p", "y", 2], ["q", "", 3],
      ["q", "x", 3]]),
    # what the engine does not implement is an error, never a guess
    ("R11", "=_xlfn.GROUPBY(A1:A6,B1:B6,_xleta.SUM,2)", [["#VALUE!"]]),
    ("S11", "=_xlfn.GROUPBY(A1:A6,B1:B6,_xlfn.LAMBDA(_xlpm.x,SUM(_xlpm.x)))", [["#VALUE!"]]),
    ("T11", "=_xlfn.GROUPBY(A1:A6,B1:B6,_xleta.FORECAST.ETS)", [["#NAME?"]]),
    ("U11", '=_xlfn.GROUPBY(A1:A6,B1:B6,_xleta.SUM,0,1,1,{1;1;"y";1;1;1})', [["#VALUE!"]]),
    # PIVOTBY's defaults for several fields are not verified against Excel: an error
    ("V11", "=_xlfn.PIVOTBY(D1:E3,D1:D3,F1:F3,_xleta.SUM,0)", [["#VALUE!"]]),
    ("W11", "=_xlfn.PIVOTBY(D1:E3,D1:D3,G1:G3,_xleta.SUM,,1,1,1)", [["#VALUE!"]]),
    # ... and given, they work: row 1 is the headers (hidden), rows 2-3 the data
    ("H21:K23", "=_xlfn.PIVOTBY(D1:E3,D1:D3,G1:G3,_xleta.SUM,1,0,1,0)",
     [["", "", "p", "q"], ["p", "y", 1, ""], ["q", "x", "", 2]]),
]


@pytest.fixture(scope="module")
def hand_results(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    for i, (a, b) in enumerate(zip("babaca", [1, 2, 3, 4, "x", 6], strict=True), start=1):
        ws[f"A{i}"], ws[f"B{i}"] = a, b
    for i, row in enumerate([("p", "x", 1, "v"), ("p", "y", 2, 1), ("q", "x", 3, 2)], start=1):
        ws[f"D{i}"], ws[f"E{i}"], ws[f"F{i}"], ws[f"G{i}"] = row
    for ref, formula, _ in HAND:
        ws[ref.split(":")[0]] = ArrayFormula(ref, formula)
    path = tmp_path_factory.mktemp("groupby_hand") / "hand.xlsx"
    wb.save(path)
    return {e: recalc_book(path, write=False, engine=e).evaluation for e in ENGINES}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("ref,formula,want", HAND, ids=[c[0] for c in HAND])
def test_hand_derived(hand_results, engine, ref, formula, want):
    assert_range(hand_results[engine], "Sheet", ref, want)


def test_whole_columns_keep_the_blank_group(tmp_path):
    """``GROUPBY(A:A, B:B, SUM)``: Excel groups all 1,048,576 rows, so the empty rows below
    the data are a group of their own (an empty label, SUM 0) before the total; the engine
    clips whole columns to the used area, plus the one blank row that stands for them."""
    wb = openpyxl.Workbook()
    ws = wb.active
    for i, (k, v) in enumerate([("key", "v"), ("a", 1), ("b", 2), ("a", 3)], start=1):
        ws[f"A{i}"], ws[f"B{i}"] = k, v
    ws["D1"] = ArrayFormula("D1:E4", "=_xlfn.GROUPBY(A:A,B:B,_xleta.SUM)")
    ws["G1"] = ArrayFormula("G1:H4", "=_xlfn.GROUPBY(A:A,B:B,_xleta.COUNT,,,-1)")
    wb.save(tmp_path / "whole.xlsx")
    for engine in ENGINES:
        ev = recalc_book(tmp_path / "whole.xlsx", write=False, engine=engine).evaluation
        # the headers "key"/"v" are found (text over a number) and hidden
        assert_range(ev, "Sheet", "D1:E4", [["a", 4], ["b", 2], ["", 0], ["Total", 6]])
        # descending: the blank group stays last, as SORT keeps blanks last
        assert_range(ev, "Sheet", "G1:H4", [["b", 1], ["a", 2], ["", 0], ["Total", 3]])
