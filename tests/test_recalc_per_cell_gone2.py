"""What went to the per-cell engine (the ``formulas`` library) before and is our own now:
array formulas over a range calling INDIRECT or OFFSET (ordered among the dynamic units,
evaluated once), an array formula on a cycle (computed as a whole by the cell scheduler,
a circle told as it tells it), what-if data tables, and constructs the compiler refused.

Expected values are Excel's cached values of the workbooks named at each test (copied by
hand into the test, with the cells they depend on) or Microsoft's documentation.
"""
from __future__ import annotations

import openpyxl
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.formula import ArrayFormula

from rooflinexl.errors import ExcelError
from rooflinexl.recalc.book import recalc_book


def _recalc(tmp_path, cells: dict, sheet: str = "S", names: dict | None = None):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = sheet
    for ref, x in cells.items():
        ws[ref] = x
    for name, text in (names or {}).items():
        wb.defined_names[name] = DefinedName(name, attr_text=text)
    path = tmp_path / "book.xlsx"
    wb.save(path)
    return recalc_book(path, write=False)


# pycel's tests/fixtures/lookup.xlsx, sheet Offset, saved by Excel: a 5x5 table B2:F6 part
# constants, part formulas (=1+B2 ...), read by array formulas {=OFFSET(B$2:F$6,r,c,h,w)}
# over ranges of their own size; Excel's cached values below.
_TABLE = {
    "B2": 1, "C2": "=1+B2", "D2": "=1+C2", "E2": "=1+D2", "F2": "=1+E2",
    "B3": "=5+B2", "C3": "X", "D3": 8, "E3": "=1+D3", "F3": "=1+E3",
    "B4": "=5+B3", "C4": "=1+B4", "D4": "=1+C4", "E4": "=1+D4", "F4": "=1+E4",
    "B5": "=5+B4", "C5": "=1+B5", "D5": "=1+C5", "E5": "=1+D5", "F5": "=1+E5",
    "B6": "=5+B5", "C6": "=1+B6", "D6": "=1+C6", "E6": "=1+D6", "F6": "25", "G6": "=1+F6",
}


def test_offset_array_formulas_over_ranges(tmp_path):
    cells = dict(_TABLE)
    for r, args in ((17, (1, 1, 2, 1)), (21, (1, 1, 2, 2)), (37, (0, 0, 3, 3))):
        for col, x in zip("BCDE", args, strict=True):
            cells[f"{col}{r}"] = x
    cells["F17"] = ArrayFormula("F17:F18", "=OFFSET(B$2:F$6,B17,C17,D17,E17)")
    cells["F21"] = ArrayFormula("F21:G22", "=OFFSET(B$2:F$6,B21,C21,D21,E21)")
    cells["F37"] = ArrayFormula("F37:H39", "=OFFSET(B$2:F$6,B37,C37,D37,E37)")
    ev = _recalc(tmp_path, cells, "Offset").evaluation
    excel = {"F17": "X", "F18": 12, "F21": "X", "G21": 8, "F22": 12, "G22": 13,
             "F37": 1, "G37": 2, "H37": 3, "F38": 6, "G38": "X", "H38": 8,
             "F39": 11, "G39": 12, "H39": 13}
    assert {c: ev.value("Offset", c) for c in excel} == excel
    assert ev.paths.unsupported_cells == 0


def test_indirect_array_formulas_read_another_array_formula(tmp_path):
    # the same book: {=OFFSET(B$2:F$6,B46,C46,D46,E46)} over F46:I48 with (0,0,3,4), read by
    # {=INDIRECT("H47:I48")} over B50:C51 (Excel: 8, 9; 13, 14) and {=INDIRECT(B54)} at
    # B53 with B54 "A50" (Excel: "Indirect", the text in A50)
    cells = dict(_TABLE)
    cells.update({"B46": 0, "C46": 0, "D46": 3, "E46": 4, "A50": "Indirect", "B54": "A50"})
    cells["F46"] = ArrayFormula("F46:I48", "=OFFSET(B$2:F$6,B46,C46,D46,E46)")
    cells["B50"] = ArrayFormula("B50:C51", '=INDIRECT("H47:I48")')
    cells["B53"] = ArrayFormula("B53", "=INDIRECT(B54)")
    ev = _recalc(tmp_path, cells, "Offset").evaluation
    excel = {"B50": 8, "C50": 9, "B51": 13, "C51": 14, "B53": "Indirect"}
    assert {c: ev.value("Offset", c) for c in excel} == excel
    assert ev.paths.unsupported_cells == 0


def test_an_array_formula_on_a_cycle_of_blocks_that_is_no_circle(tmp_path):
    # the block A1:A2 reads the array formula {=A1*2} at D1, which reads A1: a cycle of
    # blocks, not of cells (A1's IF takes 3 without D1). By hand: A1 = 3, D1 = 6, A2 = 6;
    # Excel follows the cells a formula really reads (formulas' circular.xlsx, saved by
    # Excel: DATA!D6 =IF(IF(A6,B6,TRUE),1,B6) with A6 FALSE is 1, not a circle)
    cells = {"A1": "=IF(ROW()=1,3,$D$1)", "A2": "=IF(ROW()=1,3,$D$1)",
             "D1": ArrayFormula("D1:E1", "=A1:A1*2")}
    res = _recalc(tmp_path, cells)
    ev = res.evaluation
    assert [ev.value("S", c) for c in ("A1", "D1", "E1", "A2")] == [3, 6, 6, 6]
    assert res.exit_code == 0
    assert ev.paths.unsupported_cells == 0


def test_an_array_formula_reading_its_own_range_through_others_is_a_circle(tmp_path):
    # formulas' test/test_files/circular.xlsx, sheet DATA rows 8-9, saved by Excel with its
    # circular-reference warning (every cell there cached as 0, none computed): A8, A9
    # FALSE, {=IF(A8:A9,B8:B9,1)} over D8:D9 reads B8:B9, which read C8:C9, which read
    # D8:D9. An array formula evaluates every element of its arguments (Microsoft, "IF
    # function"), so it is a circle, not 1: each cell an error naming it, what reads them
    # "not computed", exit status 1.
    cells = {"A8": False, "A9": False, "B8": "=C8", "C8": "=D8", "B9": "=C9", "C9": "=D9",
             "D8": ArrayFormula("D8:D9", "=IF(A8:A9,B8:B9,1)"), "E8": "=B8+1"}
    res = _recalc(tmp_path, cells)
    ev = res.evaluation
    for cell in ("B8", "C8", "D8", "B9", "C9", "D9", "E8"):
        assert isinstance(ev.value("S", cell), ExcelError), cell
    assert ev.cells[("S", "D8")].reason.startswith("circular reference: S!D8 -> ")
    assert ev.cells[("S", "D9")].reason.startswith("circular reference: ")
    assert ev.cells[("S", "E8")].reason.startswith("not computed")
    assert res.exit_code == 1
    assert ev.paths.unsupported_cells == 0


def test_a_range_with_its_top_relative_and_its_bottom_fixed(tmp_path):
    # IronCalc's DATABASE book, saved by Excel: DGET!B51 =DGET(A1:$H$11,6,$A$14:$A$15) is
    # 11000 (its data reduced here to two rows and two columns: field 2 of the row whose
    # first column is "b"). Filled down, A1:$A$3 is the rectangle between the two corners
    # in every row (A4:$A$3 is A3:A4): by hand, with A1:A5 = 1..5, SUM is 6, 5, 3, 7, 12.
    cells = {"A1": 1, "A2": 2, "A3": 3, "A4": 4, "A5": 5,
             "D1": "Name", "E1": "Value", "D2": "a", "E2": 500, "D3": "b", "E3": 11000,
             "G1": "Name", "G2": "b", "H1": "=DGET(D1:$E$3,2,$G$1:$G$2)"}
    for r in range(1, 6):
        cells[f"B{r}"] = f"=SUM(A{r}:$A$3)"
    ev = _recalc(tmp_path, cells).evaluation
    assert ev.value("S", "H1") == 11000
    assert [ev.value("S", f"B{r}") for r in range(1, 6)] == [6, 5, 3, 7, 12]
    assert ev.paths.unsupported_cells == 0


def test_a_range_argument_of_index_at_a_range_end_is_intersected_with_the_row(tmp_path):
    # koala's basic_evaluation.xlsx (also advanced.xlsx), Sheet1, saved by Excel: Indice is
    # A16:G16 (1, 2, ... 7), Liste3 is A17:G17 (A17 = 30), and each of B17:G17 sums its
    # row from A17 to the column before: INDEX(Liste3,1,Indice-1) takes Indice's cell in
    # the formula's column (implicit intersection). Excel: 30, 60, 120, 240, 480, 960.
    cells = {"A16": 1, "A17": 30}
    for col, prev in zip("BCDEFG", "ABCDEF", strict=True):
        cells[f"{col}16"] = f"={prev}16+1"
        cells[f"{col}17"] = "=SUM(INDEX(Liste3,1,1):INDEX(Liste3,1,Indice-1))"
    names = {"Indice": "Sheet1!$A$16:$G$16", "Liste3": "Sheet1!$A$17:$G$17"}
    ev = _recalc(tmp_path, cells, "Sheet1", names).evaluation
    assert [ev.value("Sheet1", f"{c}17") for c in "BCDEFG"] == [30, 60, 120, 240, 480, 960]
    assert ev.paths.unsupported_cells == 0


def test_a_range_argument_off_the_formula_s_row_is_not_intersected(tmp_path):
    # Microsoft, "Implicit intersection operator: @": a range gives the cell on the same
    # row or column as the formula; none there is #VALUE! in Excel. Here the row range
    # A1:C1 read from column E has no such cell: never a plausible number.
    cells = {"A1": 1, "B1": 2, "C1": 3, "A5": 10, "A6": 20,
             "E5": "=SUM(A5:INDEX(A5:A6,A1:C1+1))"}
    ev = _recalc(tmp_path, cells).evaluation
    assert isinstance(ev.value("S", "E5"), ExcelError)


def test_choose_at_an_end_of_a_range_operator(tmp_path):
    # IronCalc's LOOKUP_AND_REFERENCE CHOOSE book, saved by Excel: A9 "Ranges", A10:A12
    # 23, 45, 12; CHOOSE!B10 =SUM(A9:CHOOSE(2,A10,A11,A12)) is 68 (A9:A11). Its
    # range_operator book: A1:A5 1..5, =SUM(CHOOSE(1,A1,A2,A3,A4):CHOOSE(4,A1,A3,A4,A5))
    # is 15 (A1:A5).
    cells = {"A9": "Ranges", "A10": 23, "A11": 45, "A12": 12,
             "B10": "=SUM(A9:CHOOSE(2,A10,A11,A12))",
             "C1": 1, "C2": 2, "C3": 3, "C4": 4, "C5": 5,
             "D13": "=SUM(CHOOSE(1,C1,C2,C3,C4):CHOOSE(4,C1,C3,C4,C5))",
             "D14": "=SUM(C1:CHOOSE(0,C2,C3))"}  # index_num below 1: #VALUE! (Microsoft)
    ev = _recalc(tmp_path, cells).evaluation
    assert ev.value("S", "B10") == 68
    assert ev.value("S", "D13") == 15
    assert str(ev.value("S", "D14")) == "#VALUE!"
    assert ev.paths.unsupported_cells == 0


def test_offset_of_a_range_where_a_number_belongs(tmp_path):
    # POI's FormulaEvalTestData.xlsx, EverythingTests!G1008 =OFFSET(F7, E7:I7, E7:I7) is
    # 1.001 in Excel's cached value: E7:I7 (0, 1, 2, 3) read in column G is G7 = 1, so
    # OFFSET(F7,1,1) is G8.
    cells = {"E7": 0, "F7": 0, "G7": 1, "H7": 2, "I7": 3,
             "F8": 1, "G8": 1.001, "H8": 2.999, "G1008": "=OFFSET(F7, E7:I7, E7:I7)"}
    ev = _recalc(tmp_path, cells).evaluation
    assert ev.value("S", "G1008") == 1.001
    assert ev.paths.unsupported_cells == 0


def test_subtotal_of_a_reference_it_leaves_out_entirely(tmp_path):
    # POI's 59736.xlsx, saved by Excel: A1 1, A2 =SUBTOTAL(9,A1) (1), A3 =SUBTOTAL(9,A1,A2)
    # is 1: the nested SUBTOTAL in A2 is left out (Microsoft, "SUBTOTAL function"), A1
    # is what is left.
    cells = {"A1": 1, "A2": "=SUBTOTAL(9,A1)", "A3": "=SUBTOTAL(9,A1,A2)"}
    ev = _recalc(tmp_path, cells).evaluation
    assert [ev.value("S", "A2"), ev.value("S", "A3")] == [1, 1]
    assert ev.paths.unsupported_cells == 0


def test_isref_and_isformula_of_what_index_and_indirect_give(tmp_path):
    # IronCalc's INFORMATION ISREF_ISFORMULA book, saved by Excel: ISREF(INDIRECT("A1"))
    # is TRUE, ISREF(INDEX(A1,1,2,2)) FALSE (A1 has no second area: #REF!),
    # ISFORMULA(INDIRECT("C9")) in C9 itself TRUE.
    cells = {"A1": 1, "F4": '=ISREF(INDIRECT("A1"))', "F9": "=ISREF(INDEX(A1,1,2,2))",
             "C9": '=ISFORMULA(INDIRECT("C9"))', "F5": '=ISREF(INDIRECT("no such"))',
             "F6": "=ISREF(INDEX(A1:A3,2))"}
    ev = _recalc(tmp_path, cells).evaluation
    # F5: INDIRECT of text naming no reference is #REF! (Microsoft, "INDIRECT function"),
    # not a reference; F6: INDEX's reference form gives a reference (Microsoft, "INDEX")
    assert {c: ev.value("S", c) for c in ("F4", "F9", "C9", "F5", "F6")} == {
        "F4": True, "F9": False, "C9": True, "F5": False, "F6": True}
    assert ev.paths.unsupported_cells == 0


def test_an_array_formula_naming_a_subtotal(tmp_path):
    # PhpSpreadsheet's tests/data/Calculation/TableFormulae.xlsx, saved by Excel: C10 is
    # {=CommissionTotal}, the name standing for SUBTOTAL(109,DeptSales[Commission Amount])
    # (570.2 there). Here the name's SUBTOTAL reads a nested SUBTOTAL (left out, Microsoft
    # "SUBTOTAL function"): by hand 120 + 10 = 130.
    cells = {"A1": 120, "A2": "=SUBTOTAL(9,A1)", "A3": 10,
             "C1": ArrayFormula("C1", "=Total"), "C2": "=Total"}
    ev = _recalc(tmp_path, cells, names={"Total": "SUBTOTAL(109,S!$A$1:$A$3)"}).evaluation
    assert [ev.value("S", "C1"), ev.value("S", "C2")] == [130, 130]
    assert ev.paths.unsupported_cells == 0


def _data_table(ref: str, **kw):
    from openpyxl.worksheet.formula import DataTableFormula

    return DataTableFormula(ref=ref, **kw)


def test_what_if_data_tables_of_one_variable(tmp_path):
    # ClosedXML's one-variable.xlsx, saved by Excel: A2 1, B2 2, C2 =A2*B2; down a column
    # (B5:B11, input cell A2, its values in A5:A11, the formula =C2 above in B4) B5 is 2;
    # across a row (E5:I5, input cell B2, its values in E4:I4 from 10, the formula =C2
    # left in D5) E5 is 10. Its DataTableFormula-Excel-Input.xlsx, sheet "1D Row": A1 0.5,
    # C3 =A1*10, values 1..5 in B4:B8, C4:C8 with input A1: C4 is 10.
    cells = {"A2": 1, "B2": 2, "C2": "=A2*B2", "B4": "=C2", "D5": "=C2",
             "B5": _data_table("B5:B11", r1="A2"),
             "E5": _data_table("E5:I5", dtr=True, r1="B2"),
             "K1": 0.5, "M3": "=K1*10", "M4": _data_table("M4:M8", r1="K1")}
    for i in range(7):
        cells[f"A{5 + i}"] = i + 1
    for i, col in enumerate("EFGHI"):
        cells[f"{col}4"] = 10 * (i + 1)
    for i in range(5):
        cells[f"L{4 + i}"] = i + 1
    ev = _recalc(tmp_path, cells).evaluation
    assert [ev.value("S", c) for c in ("B5", "E5", "M4")] == [2, 10, 10]
    # the input cells and what reads them are as they were
    assert [ev.value("S", c) for c in ("C2", "M3")] == [2, 5]
    assert ev.paths.unsupported_cells == 0


def test_a_what_if_data_table_of_two_variables_through_a_chain(tmp_path):
    # DataTableFormula-Excel-Input.xlsx, sheet "2D", saved by Excel: B1 "Z", B2 1,
    # B4 =B1 & B2, C4:D4 2, 3, B5:B8 "A".."D", C5:D8 with row input B2 and column input
    # B1: C5 is "A2". Then by hand: A11 3, B11 =A11*2, C11 =B11+1 (7), E12 =C11*10,
    # E13:E15 with input A11 and values 1, 2, 5 in D13:D15: E13 is (1*2+1)*10 = 30.
    cells = {"B1": "Z", "B2": 1, "B4": "=B1 & B2", "C4": 2, "D4": 3,
             "B5": "A", "B6": "B", "B7": "C", "B8": "D",
             "C5": _data_table("C5:D8", dt2D=True, dtr=True, r1="B2", r2="B1"),
             "A11": 3, "B11": "=A11*2", "C11": "=B11+1", "E12": "=C11*10",
             "D13": 1, "D14": 2, "D15": 5, "E13": _data_table("E13:E15", r1="A11"),
             "F11": "=C11"}
    ev = _recalc(tmp_path, cells).evaluation
    assert ev.value("S", "C5") == "A2"
    assert ev.value("S", "E13") == 30
    assert [ev.value("S", c) for c in ("B4", "C11", "E12", "F11")] == ["Z1", 7, 70, 7]
    assert ev.paths.unsupported_cells == 0


def test_a_what_if_data_table_whose_input_cell_was_deleted(tmp_path):
    # DataTableFormula-Excel-Input.xlsx, sheet "1D Row - Deleted Input", saved by Excel:
    # C3:C5 with del1 (its input cell deleted) is #REF!.
    cells = {"C2": "=#REF!*3", "B3": 1, "B4": 2, "B5": 3,
             "C3": _data_table("C3:C5", dtr=True, del1=True, r1="B1")}
    ev = _recalc(tmp_path, cells).evaluation
    assert str(ev.value("S", "C3")) == "#REF!"
    assert ev.paths.unsupported_cells == 0


def test_a_lookup_over_a_relative_range_in_a_cell_of_its_own(tmp_path):
    # SheetJS's formula_stress_test.xlsx, sheet Lookup, saved by Excel: A10 "ADDRESS",
    # A19 "LOOKUP (arr)", C15 "ADDRESS"; B15 =HLOOKUP(C15,A10:C21,10,FALSE) is
    # "LOOKUP (arr)" (the 10th row of the range under the match).
    cells = {"A10": "ADDRESS", "B10": "$B$2", "A19": "LOOKUP (arr)", "C15": "ADDRESS",
             "B15": "=HLOOKUP(C15,A10:C21,10,FALSE)"}
    ev = _recalc(tmp_path, cells).evaluation
    assert ev.value("S", "B15") == "LOOKUP (arr)"
    assert ev.paths.unsupported_cells == 0


def test_a_chain_of_range_operators_over_fixed_and_relative_ranges(tmp_path):
    # formulas' test.xlsx, CORE!D9 =SUM(B2:E5:f) with the name f = CORE!$G$2:$H$5 is 81 in
    # Excel's cached value: the rectangle holding both, B2:H5. By hand here, with 1 in
    # each of B2:H5 but for 10 in H5: 27 + 10 = 37.
    cells = {f"{c}{r}": 1 for c in "BCDEFGH" for r in range(2, 6)}
    cells["H5"] = 10
    cells["D9"] = "=SUM(B2:E5:f)"
    ev = _recalc(tmp_path, cells, "CORE", names={"f": "CORE!$G$2:$H$5"}).evaluation
    assert ev.value("CORE", "D9") == 37
    assert ev.paths.unsupported_cells == 0


def test_a_function_excel_does_not_know_inside_an_array_formula(tmp_path):
    # IronCalc's LOGICAL IFERROR book, saved by Excel: {=IFERROR(SUMM(G4:G7), "masked!")}
    # is "masked!", {=IFNA(SUMM(G4:G7), "hidden")} #NAME? (SUMM is no function: #NAME?,
    # which IFNA lets through), {=IFERROR(XYZ(1), "caught")} "caught". POI's stress002.xlsx:
    # a branch not taken calling a macro's function (broundTO) is no error (Excel: 0).
    cells = {"G4": 1, "G5": 2,
             "C13": ArrayFormula("C13", '=IFERROR(SUMM(G4:G7), "masked!")'),
             "C14": ArrayFormula("C14", '=_xlfn.IFNA(SUMM(G4:G7), "hidden")'),
             "C20": ArrayFormula("C20", '=IFERROR(XYZ(1), "caught")'),
             "C21": ArrayFormula("C21", "=IF(G4<800,0,broundTO(G4))")}
    ev = _recalc(tmp_path, cells).evaluation
    assert [ev.value("S", c) for c in ("C13", "C20", "C21")] == ["masked!", "caught", 0]
    assert str(ev.value("S", "C14")) == "#NAME?"
    assert "SUMM" in ev.cells[("S", "C14")].reason
    assert ev.paths.unsupported_cells == 0


def test_subtotal_of_only_references_it_leaves_out(tmp_path):
    # IronCalc's tables book (calc_test_no_export), sheet Hidden, saved by Excel:
    # SUBTOTAL(109,B6:B7) over two SUBTOTAL cells is 0, the sum of no value; AVERAGE of no
    # value is #DIV/0! (Microsoft, "AVERAGE function").
    cells = {"B2": 5, "B3": 7, "B6": "=SUBTOTAL(109,B2:B3)", "B7": "=SUBTOTAL(9,B2:B3)",
             "B15": "=SUBTOTAL(109,B6:B7)", "B16": "=SUBTOTAL(1,B6:B7)"}
    ev = _recalc(tmp_path, cells).evaluation
    assert [ev.value("S", c) for c in ("B6", "B7", "B15")] == [12, 12, 0]
    assert str(ev.value("S", "B16")) == "#DIV/0!"
    assert ev.paths.unsupported_cells == 0


def test_an_array_formula_reading_its_own_range_directly(tmp_path):
    # Microsoft, "Remove or allow a circular reference": a formula that refers to its own
    # cell is a circular reference. An array formula over A1:A2 summing A1:A2, and one
    # over C1:C2 reading itself through INDIRECT: each cell an error naming the circle.
    cells = {"A1": ArrayFormula("A1:A2", "=ROW(A1:A2)+SUM(A1:A2)"),
             "C1": ArrayFormula("C1:C2", '=INDIRECT("C1:C2")'), "E1": "=A1+1"}
    res = _recalc(tmp_path, cells)
    ev = res.evaluation
    assert ev.cells[("S", "A2")].reason == "circular reference: S!A1 -> S!A1"
    assert ev.cells[("S", "C2")].reason == "circular reference: S!C1 -> S!C1"
    assert ev.cells[("S", "E1")].reason.startswith("not computed")
    assert res.exit_code == 1
    assert ev.paths.unsupported_cells == 0


def test_subtotal_of_a_reference_indirect_gives(tmp_path):
    # IronCalc's tables book, sheet filters, saved by Excel: =SUBTOTAL(109,
    # INDIRECT("B2"):INDIRECT("B6")) leaves the hidden rows out (4 there). Here B2:B6 are
    # 1..5 with row 4 hidden, no filter (Microsoft, "SUBTOTAL function": 109 leaves
    # hidden rows out, 9 only rows a filter hides): 12 and 15.
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for r in range(2, 7):
        ws[f"B{r}"] = r - 1
    ws.row_dimensions[4].hidden = True
    ws["D1"] = '=SUBTOTAL(109, INDIRECT("B2"):INDIRECT("B6"))'
    ws["D2"] = '=SUBTOTAL(9, INDIRECT("B2:B6"))'
    path = tmp_path / "book.xlsx"
    wb.save(path)
    ev = recalc_book(path, write=False).evaluation
    assert [ev.value("S", "D1"), ev.value("S", "D2")] == [12, 15]
    assert ev.paths.unsupported_cells == 0
