"""VLOOKUP, HLOOKUP, MATCH and XLOOKUP of our own (issue 13 item 1: no function computed
by ``formulas``; :mod:`rooflinexl.recalc.lookups`), on every path and over a filled-down
column, and a recalculation with formulas' lookup code made unusable.

Expected values come from outside the code:

* Microsoft's function pages (read 2026-12-01): "MATCH function" (Bananas 25, Oranges 38,
  Apples 40, Pears 41: ``MATCH(39,B2:B5,1)`` 2, ``MATCH(41,B2:B5,0)`` 4,
  ``MATCH(40,B2:B5,-1)`` #N/A; ``MATCH("b",{"a","b","c"},0)`` 2; ``~`` before ``*`` or
  ``?`` finds the character itself), "HLOOKUP function" (Axles 4 5 6, Bearings 4 7 8,
  Bolts 9 10 11: ``HLOOKUP("Axles",A1:C4,2,TRUE)`` 4, ``HLOOKUP("Bearings",A1:C4,3,FALSE)``
  7, ``HLOOKUP("B",A1:C4,3,TRUE)`` 5, ``HLOOKUP("Bolts",A1:C4,4)`` 11,
  ``HLOOKUP(3,{1,2,3;"a","b","c";"d","e","f"},2,TRUE)`` "c"), "VLOOKUP function"
  (col_index_num below 1 #VALUE!, beyond the table #REF!; FALSE an exact match, #N/A when
  none), "XLOOKUP function" (if_not_found; match_mode -1 / 1 the next smaller / larger;
  search_mode 2 a binary search; return_array the row of the match);
* Excel's cached values: IronCalc's LOOKUP_AND_REFERENCE books (``tests/data/
  ironcalc-lookups``, MIT, saved by Excel), xlcalculator's VLOOKUP.xlsx (the dev corpus), and
  cells of the `formulas` project's test.xlsx (saved by Excel for Mac; not in the
  repository) cited by cell where a case repeats one;
* hand derivations from those rules, written beside each case.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest
from excel_oracle import assert_matches_excel, workbooks
from formula_cases import ENGINES, evaluate_cases, matches_excel

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
BOOKS = [*workbooks(DATA / "ironcalc-lookups"),
         DATA / "excel-oracle-dev" / "tests" / "resources" / "VLOOKUP.xlsx"]

#: (workbook, sheet, cell) -> (Excel's value, ours today, why). Nothing else may differ.
KNOWN: dict[tuple[str, str, str], tuple[object, object, str]] = {}

# ------------------------------------------------------------------ single formulas

CASES = {
    # Microsoft's MATCH examples (the Count column as an array)
    "=MATCH(39,{25;38;40;41},1)": 2,
    "=MATCH(41,{25;38;40;41},0)": 4,
    "=MATCH(40,{25;38;40;41},-1)": "#N/A",
    '=MATCH("b",{"a","b","c"},0)': 2,
    '=MATCH("~*",{"a","*","b"},0)': 2,  # ~ before * : the star itself
    '=MATCH("*",{"a","*","b"},0)': 1,  # * : any text
    '=MATCH("?",{"ab","*","b"},0)': 2,  # ? : one character
    "=MATCH(5,{25;38;40;41},1)": "#N/A",  # nothing at or below 5
    # bisection, not a scan: test.xlsx LOOKUP!E69 (Excel's cached value); a scan for the
    # largest value not above 3 would answer 4 (1.1)
    '=MATCH(3,{"c bau c",4.1,"a",1.1})': "#N/A",
    # types never equal: a boolean is not 1, text "1" not the number 1
    "=MATCH(TRUE,{1,TRUE},0)": 2,
    "=MATCH(1,{TRUE,1},0)": 2,
    '=MATCH("1",{1,"1"},0)': 2,
    # text without regard to case
    '=MATCH("BANANA",{"apple","banana"},0)': 2,
    # two dimensions: #N/A ("a range of cells": one row or column)
    "=MATCH(1,{1,2;3,4},0)": "#N/A",
    # an error value as the lookup value is the result
    "=MATCH(1/0,{1,2},0)": "#DIV/0!",
    # Microsoft's HLOOKUP examples (the table as an array constant)
    '=HLOOKUP("Axles",{"Axles","Bearings","Bolts";4,4,9;5,7,10;6,8,11},2,TRUE)': 4,
    '=HLOOKUP("Bearings",{"Axles","Bearings","Bolts";4,4,9;5,7,10;6,8,11},3,FALSE)': 7,
    '=HLOOKUP("B",{"Axles","Bearings","Bolts";4,4,9;5,7,10;6,8,11},3,TRUE)': 5,
    '=HLOOKUP("Bolts",{"Axles","Bearings","Bolts";4,4,9;5,7,10;6,8,11},4)': 11,
    '=HLOOKUP(3,{1,2,3;"a","b","c";"d","e","f"},2,TRUE)': "c",
    # VLOOKUP's col_index_num: beyond the table #REF!, below 1 #VALUE!, only when found
    '=VLOOKUP(2,{1,"a";2,"b"},3,FALSE)': "#REF!",
    '=VLOOKUP(2,{1,"a";2,"b"},0,FALSE)': "#VALUE!",
    '=VLOOKUP(7,{1,"a";2,"b"},3,FALSE)': "#N/A",
    '=VLOOKUP(2,{1,"a";2,"b"},"x",FALSE)': "#VALUE!",
    # an error value as the table is the result (MiniExcel's TestIssue772.xlsx, saved by
    # Excel: VLOOKUP($C11,#REF!,...,0) is #REF!)
    "=VLOOKUP(1,#REF!,2,0)": "#REF!",
    '=VLOOKUP("B",{"a",1;"b",2},2,FALSE)': 2,
    '=VLOOKUP("b*",{"a",1;"bc",2},2,FALSE)': 2,  # wildcards in an exact match
    '=VLOOKUP(2.5,{1,"a";2,"b";3,"c"},2)': "b",  # TRUE omitted: approximate
    # approximate over an unsorted column: the bisection's answer (Excel's cached LOOKUP
    # values, test.xlsx LOOKUP rows 56-63: 20 in {"b",4.1,"a",1.1} finds 1.1, 4 nothing)
    '=VLOOKUP(3,{"c bau c",1;4.1,2;"a",3;1.1,4},2,TRUE)': "#N/A",
    '=VLOOKUP(20,{"c bau c",1;4.1,2;"a",3;1.1,4},2,TRUE)': 4,
    '=VLOOKUP(2.5,{1,"a";2,"b";3,"c"},2,)': "#N/A",  # an empty argument is FALSE
    # XLOOKUP: if_not_found, the next smaller / larger, a binary search, a whole row
    '=XLOOKUP(4,{1;3;5},{"one";"three";"five"})': "#N/A",
    '=XLOOKUP(4,{1;3;5},{"one";"three";"five"},"none")': "none",
    '=XLOOKUP(4,{1;3;5},{"one";"three";"five"},,1)': "five",
    '=XLOOKUP(4,{1;3;5},{"one";"three";"five"},,-1)': "three",
    '=XLOOKUP(5,{1;3;5},{"one";"three";"five"},,0,2)': "five",
    '=XLOOKUP(5,{1;3;5},{"one";"three";"five"},,0,-1)': "five",
    '=XLOOKUP("T?REE",{"one";"three";"five"},{1;3;5},,2)': 3,
    "=SUM(XLOOKUP(3,{1;3;5},{1,10;3,30;5,50}))": 33,  # the row 3, 30
    # an error lookup value is the result, not if_not_found (test.xlsx LOOKUP!AA163)
    '=XLOOKUP(NA(),{1;3;5},{"one";"three";"five"},"none")': "#N/A",
    # return_array of another length: #VALUE!
    '=XLOOKUP(1,{1;3;5},{"one";"three"})': "#VALUE!",
    # a one-cell table (Z1 holds 5): a range of one value
    "=MATCH(5,Z1,0)": 1,
    "=VLOOKUP(5,Z1,1,FALSE)": 5,
    "=XLOOKUP(5,Z1,Z1)": 5,
    "=LOOKUP(5,Z1)": 5,
}


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    wb.active["Z1"] = 5
    return evaluate_cases(wb, wb.active, "A", CASES, tmp_path_factory.mktemp("lookups"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_documented_values(evaluations, engine, formula):
    cells, evs = evaluations
    got = evs[engine].value("Sheet", cells[formula])
    assert matches_excel(got, CASES[formula]), (formula, got)


# ------------------------------------------------------------- a filled-down column

#: the table (A1:C6), a descending column (L1:L3), a table across (N1:R2)
_TABLE = {"A": [1, 3, 5, "apple", "Banana", True],
          "B": ["one", "three", "five", "fruit a", "fruit b", "yes"],
          "C": [100, None, 500, 400, 300, 600],
          "L": [5, 3, 1],
          "N": [1, "h1"], "O": [3, "h3"], "P": ["banana", "hb"], "Q": [True, "ht"],
          "R": ["apple", "ha"]}
#: the lookup values, E1:E10 (E8 empty, E9 an error, E10 the text "3")
_VALUES = [3, 4, 0, "BANANA", "b*", "ap?le", True, None, "=NA()", "3"]
NA = "#N/A"
#: column -> (formula, the value for each lookup value, derived by the rules above)
COLUMN = {
    "F": ("=VLOOKUP(E{r},$A$1:$C$6,2,FALSE)",
          ["three", NA, NA, "fruit b", "fruit b", "fruit a", "yes", NA, NA, NA]),
    # an empty cell found is 0
    "G": ("=VLOOKUP(E{r},$A$1:$C$6,3,FALSE)", [0, NA, NA, 300, 300, 400, 600, NA, NA, NA]),
    "H": ("=MATCH(E{r},$A$1:$A$6,0)", [2, NA, NA, 5, 5, 4, 6, NA, NA, NA]),
    # approximate over 1, 3, 5: the largest not above; an empty value is 0, below 1
    "J": ("=VLOOKUP(E{r},$A$1:$C$3,2,TRUE)", ["three", "three", NA, NA, NA, NA, NA, NA, NA,
                                               NA]),
    # descending 5, 3, 1: the smallest not below (an empty value is 0: the last)
    "K": ("=MATCH(E{r},$L$1:$L$3,-1)", [2, 1, 3, NA, NA, NA, NA, 3, NA, NA]),
    "M": ("=HLOOKUP(E{r},$N$1:$R$2,2,FALSE)",
          ["h3", NA, NA, "hb", "hb", "ha", "ht", NA, NA, NA]),
    # XLOOKUP's match_mode 0 has no wildcards; nothing in A1:A6 is empty
    "S": ('=XLOOKUP(E{r},$A$1:$A$6,$B$1:$B$6,"none")',
          ["three", "none", "none", "fruit b", "none", "none", "yes", "none", NA, "none"]),
}

#: array formulas (the array evaluator): their range -> formula, and each cell's value
ARRAYS = {"T1:T3": "=MATCH(E1:E3,A1:A6,0)", "U1:W1": "=XLOOKUP(3,A1:A3,A1:C3)",
          "X1:X2": "=VLOOKUP(E1:E2,A1:C3,2,TRUE)"}
ARRAY_VALUES = {"T1": 2, "T2": NA, "T3": NA, "U1": 3, "V1": "three", "W1": 0,
                "X1": "three", "X2": "three"}


def _column_book(folder: Path) -> Path:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    for col, vals in _TABLE.items():
        for i, v in enumerate(vals, start=1):
            if v is not None:
                ws[f"{col}{i}"] = v
    for i, v in enumerate(_VALUES, start=1):
        if v is not None:
            ws[f"E{i}"] = v
    for col, (f, _) in COLUMN.items():
        for r in range(1, len(_VALUES) + 1):
            ws[f"{col}{r}"] = f.format(r=r)
    for ref, f in ARRAYS.items():
        ws[ref.split(":")[0]] = openpyxl.worksheet.formula.ArrayFormula(ref, f)
    path = folder / "column.xlsx"
    wb.save(path)
    return path


@pytest.fixture(scope="module")
def column_book(tmp_path_factory):
    return _column_book(tmp_path_factory.mktemp("lookup-column"))


def test_a_filled_down_column_takes_the_block_path(column_book):
    """Every lookup column is one block, computed without the per-cell engine, each value
    the one derived above (numbers, text, booleans, wildcards, an empty cell, an error, text
    that looks like a number); the array formulas likewise (one result per lookup value, a
    found row laid across)."""
    from rooflinexl.recalc.book import recalc_book

    ev = recalc_book(column_book, write=False).evaluation
    assert ev.paths.unsupported_cells == 0, ev.paths.unsupported
    for col, (f, want) in COLUMN.items():
        got = [ev.value("S", f"{col}{r}") for r in range(1, len(want) + 1)]
        assert all(matches_excel(g, w) for g, w in zip(got, want, strict=True)), (f, got)
    for cell, want in ARRAY_VALUES.items():
        assert matches_excel(ev.value("S", cell), want), cell


# ------------------------------------------------------------------ Excel's books

@pytest.mark.parametrize("path", BOOKS, ids=[p.name for p in BOOKS])
def test_every_lookup_cell_equals_excels_cached_value(path):
    assert_matches_excel(path, KNOWN)


def test_the_books_are_excel_saved_and_licensed():
    assert [p.name for p in BOOKS] == ["HVLOOKUP.xlsx", "MATCH.xlsx",
                                       "MATCH_LOOKUP_arrays.xlsx", "XMATCH.xlsx",
                                       "VLOOKUP.xlsx"]
    assert (DATA / "ironcalc-lookups" / "LICENSE-ironcalc-MIT.txt").is_file()


# ------------------------------------------------------- without formulas

_WITHOUT_LOOK = r"""
import json, sys
for name in ("formulas", "schedula"):
    sys.modules[name] = None  # `import formulas` (and any formulas.x) fails

from excel_oracle import compare_book
from rooflinexl.recalc.book import recalc_book

out = {"mismatches": [], "column": {}}
for path in sys.argv[2:]:
    m = compare_book(path)
    assert not m.failure, m.failure
    out["mismatches"] += [[m.path.name, x.sheet, x.cell, str(x.ours)] for x in m.mismatches]
ev = recalc_book(sys.argv[1], write=False).evaluation
out["column"] = {f"{s}!{c}": str(v) if isinstance(v, str) else v
                 for (s, c), v in ((k, ev.value(*k)) for k in ev.cells)}
print(json.dumps(out))
"""


def test_every_lookup_form_without_formulas(tmp_path):
    """In a fresh interpreter in which the ``formulas`` library cannot be imported,
    Excel's books and the filled-down column recalculate to Excel's values."""
    book = _column_book(tmp_path)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")])}
    run = subprocess.run([sys.executable, "-c", _WITHOUT_LOOK, str(book), *map(str, BOOKS)],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert sorted(tuple(x[:3]) for x in out["mismatches"]) == sorted(KNOWN)
    for col, (f, want) in COLUMN.items():
        got = [out["column"][f"S!{col}{r}"] for r in range(1, len(want) + 1)]
        assert [g if isinstance(g, str) else float(g) for g in got] == [
            w if isinstance(w, str) else float(w) for w in want], f
    for cell, want in ARRAY_VALUES.items():
        got = out["column"][f"S!{cell}"]
        assert (got if isinstance(want, str) else float(got)) == want, cell


# ------------------------------------------------------------------ the functions

def test_an_array_of_lookup_values_gives_an_array():
    """An array formula's lookup values: one result each (Excel lifts lookup_value)."""
    from rooflinexl.recalc.lookups import match, vlookup, xlookup

    assert match([[39, 41]], [[25], [38], [40], [41]], 0)[0][1] == 4.0
    assert str(match([[39, 41]], [[25], [38], [40], [41]], 0)[0][0]) == "#N/A"
    assert vlookup([[1], [2]], [[1, "a"], [2, "b"]], 2, False) == [["a"], ["b"]]
    assert xlookup([[2, 9]], [[1], [2]], [["a"], ["b"]], "no") == [["b", "no"]]


def test_an_index_array_uses_its_first_value():
    """``HLOOKUP(C44:Q44,{-1.1,2.1,3.1,4.1;5,6,7,8},{2,1},0)`` over AH44:AV44: row 2 for
    every lookup value (test.xlsx LOOKUP!AI44 is 6 for 2.1, AL44 8 for 4.1: Excel's
    cached values)."""
    from rooflinexl.recalc.lookups import hlookup

    table = [[-1.1, 2.1, 3.1, 4.1], [5, 6, 7, 8]]
    assert hlookup([[2.1, 4.1]], table, [[2, 1]], 0) == [[6, 8]]


def test_xlookup_search_mode_is_rounded_down():
    """search_mode -1.1 searches as -2 (a binary search over a descending array):
    test.xlsx LOOKUP!AH162 (``XLOOKUP(-1.1,{-1.1,2.1,3.1,4.1},{"L","ML","MR","R"},1,1,
    -1.1)``) is "R" in Excel's cached values, where -1 would find "L"."""
    from rooflinexl.recalc.lookups import xlookup

    ret = [["L", "ML", "MR", "R"]]
    assert xlookup(-1.1, [[-1.1, 2.1, 3.1, 4.1]], ret, 1, 1, -1.1) == "R"
    assert xlookup(-1.1, [[-1.1, 2.1, 3.1, 4.1]], ret, 1, 1, -1) == "L"
