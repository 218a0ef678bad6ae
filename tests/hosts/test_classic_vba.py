"""Classic xlwings (Windows): the VBA wrappers "Import Functions" writes for rooflinexl.udfs.

Runs in its own process (tests/test_hosts_classic.py) where conftest.py stubs the
Windows-only modules and binds ``xlwings.func``/``xlwings.arg`` to xlwings.udfs'
decorators, as ``import xlwings`` does on Windows with pywin32. ``import_udfs`` then runs
unchanged against a recording stand-in for the workbook: what it would import into
the VBA project and every ``Application.MacroOptions`` call (the function wizard's
description, category and argument descriptions).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import xlwings
import xlwings.udfs
from _catalogue import CATALOGUE, params

from rooflinexl import udfs

# The snapshot: what Excel gets for CRIT_BATCH, written out.
ARGS = "Array(chips, chip, D, F, dtype, weight_dtype, tier)"
CRIT_BATCH_VBA = "\n".join([
    ("Function crit_batch(chips, chip, Optional D, Optional F, Optional dtype, "
     "Optional weight_dtype, Optional tier)"),
    '    #If App = "Microsoft Excel" Then',
    "        If TypeOf Application.Caller Is Range Then On Error GoTo failed",
    f'        crit_batch = XLPy.CallUDF("rooflinexl.udfs", "crit_batch", {ARGS}, '
    "ThisWorkbook, Application.Caller)",
    "        Exit Function",
    "    #Else",
    f'        crit_batch = XLPy.CallUDF("rooflinexl.udfs", "crit_batch", {ARGS})',
    "        Exit Function",
    "    #End If",
    "failed:",
    "    crit_batch = Err.Description",
    "End Function",
    "",
])
CRIT_BATCH_HELP = {
    "Description": "Critical token batch of X[B,D]·W[D,F]: B* = w / (2/I − a/F − a/D), "
                   "I = peak/bandwidth.",
    "Category": "Roofline",
    "ArgumentDescriptions": [
        ("Chip table range including its header row (the name Chips in the shipped "
         "workbooks)."),
        "Chip name or alias, e.g. \"H100\", \"TPU v5e\"; a range gives one result per chip.",
        "Contracting dimension (elements); omit to drop its term.",
        "Output dimension (elements); omit to drop its term.",
        "Compute dtype: bf16 (default), fp16, fp8, int8, int4, fp4, fp32 (vector unit).",
        "Weight storage dtype (bytes only); default: dtype.",
        "Bandwidth tier: hbm (default), vmem, l2, ici (nvlink), ici_egress (all links), "
        "dcn (ib, nic), pcie.",
    ],
}
VBA_RESERVED = {"and", "as", "byref", "byval", "call", "case", "date", "dim", "do", "else",
                "end", "error", "exit", "false", "for", "function", "get", "if", "in", "is",
                "len", "let", "like", "me", "mod", "name", "new", "next", "not", "nothing",
                "on", "open", "optional", "or", "print", "property", "resume", "set", "step",
                "string", "sub", "then", "to", "true", "type", "until", "wend", "while",
                "with", "xor"}


class ComError(Exception):
    pass


class RecordingWorkbook:
    """The bits of a COM Workbook that ``xlwings.udfs.import_udfs`` touches."""

    def __init__(self, name):
        self.Name = name
        self.vba = None
        self.macro_options = []
        book = self

        class Components:
            def __call__(self, name):  # the old module: not there yet
                raise xlwings.udfs.pywintypes.com_error(name)

            def Remove(self, component):
                raise AssertionError("nothing to remove")

            def Import(self, path):
                book.vba = Path(path).read_text()

        class Application:
            Version = "16.0"

            def MacroOptions(self, macro, **options):
                book.macro_options.append((macro, options))

        self.VBProject = type("VBProject", (), {"VBComponents": Components()})()
        self.Application = Application()


@pytest.fixture(scope="module", params=["Roofline.xlsx", "rooflinexl.xlam"])
def imported(request):
    assert xlwings.func is xlwings.udfs.xlfunc and not xlwings.__pro__
    # The UDF server's module cache, as after its first call: import_udfs then needs no COM.
    xlwings.udfs.udf_modules["rooflinexl.udfs"] = {
        "module": udfs, "filename": udfs.__file__, "filetime": None}
    book = RecordingWorkbook(request.param)
    xlwings.udfs.import_udfs("rooflinexl.udfs", book)
    assert book.vba is not None
    return book


def functions(vba: str) -> dict[str, str]:
    """Function name -> its VBA text, from 'Function' to 'End Function'."""
    found = re.findall(r"^(Function (\w+)\(.*?^End Function\n)", vba,
                       re.MULTILINE | re.DOTALL)
    names = [name for _, name in found]
    assert len(names) == len(set(names)), f"a function is defined twice: {names}"
    return {name: text for text, name in found}


def test_one_wrapper_per_catalogue_function(imported):
    assert imported.vba.startswith('Attribute VB_Name = "xlwings_udfs"\n')
    assert sorted(functions(imported.vba)) == sorted(name.lower() for name in CATALOGUE)


def test_signatures_mark_optional_arguments(imported):
    wrappers = functions(imported.vba)
    for name in CATALOGUE:
        sig = ", ".join(("Optional " if optional else "") + p for p, optional in params(name))
        text = wrappers[name.lower()]
        assert text.startswith(f"Function {name.lower()}({sig})\n"), text.splitlines()[0]
        args = ", ".join(p for p, _ in params(name))
        assert (f'{name.lower()} = XLPy.CallUDF("rooflinexl.udfs", "{name.lower()}", '
                f'Array({args}))') in text
        assert "Application.Volatile" not in text


def test_argument_names_are_vba_identifiers(imported):
    for name in CATALOGUE:
        for p, _ in params(name):
            assert re.fullmatch(r"[A-Za-z]\w{0,254}", p) and p.lower() not in VBA_RESERVED, p


def test_crit_batch_wrapper_snapshot(imported):
    text = functions(imported.vba)["crit_batch"]
    expected = CRIT_BATCH_VBA
    if imported.Name.endswith(".xlam"):  # an add-in calls for the active workbook
        expected = expected.replace("ThisWorkbook", "ActiveWorkbook")
    assert text == expected


def test_function_wizard_help(imported):
    options = {macro: opts for macro, opts in imported.macro_options}
    assert sorted(options) == sorted(f"'{imported.Name}'!{name.lower()}" for name in CATALOGUE)
    help_ = options[f"'{imported.Name}'!crit_batch"]
    assert {k: help_[k] for k in CRIT_BATCH_HELP} == CRIT_BATCH_HELP
    assert options[f"'{imported.Name}'!version"]["ArgumentDescriptions"] is None
    for name in CATALOGUE:
        opts = options[f"'{imported.Name}'!{name.lower()}"]
        assert opts["Category"] == "Roofline"
        assert 0 < len(opts["Description"]) <= 255
        assert not opts["Description"].startswith("Python function")
        docs = opts["ArgumentDescriptions"] or []
        assert len(docs) == len(params(name)), name
        for doc in docs:
            assert 0 < len(doc) <= 255 and not doc.startswith("Positional argument"), doc


# ------------------------------------------------------------------ calls
# Values as the classic UDF server hands them over with ndim=2: every argument a 2-D
# list (rows of a range), numbers as floats (COM has no ints), None for an empty cell,
# the Python default for an omitted Optional argument. (Reading a COM Range needs
# Excel; xlwings' converter itself is not exercised here.)
def com_table():
    from _catalogue import chips_range
    return [[None if v == "" else float(v) if isinstance(v, int) else v for v in row]
            for row in chips_range()]


def test_classic_values_floats_and_empty_cells():
    got = udfs.crit_batch(com_table(), [["H100"]], [[8192.0]], [[8192.0]], None, [[None]],
                          None)
    assert got == [[pytest.approx(318.155, abs=0.001)]]  # reference section 5


def test_classic_column_and_unknown_chip():
    got = udfs.crit_intensity(com_table(), [["H100"], ["B900"]])
    assert got[0][0] == pytest.approx(295.2, abs=0.05)  # reference section 2
    assert got[1][0] == "#N/A"  # classic Excel shows it as the text #N/A


def test_classic_bad_keyword_raises_an_xlwings_error():
    # The wrapper's "On Error GoTo failed" puts the message in the cell.
    with pytest.raises(xlwings.XlwingsError, match="bf17"):
        udfs.crit_batch(com_table(), [["H100"]], [[8192.0]], [[8192.0]], [["bf17"]])
