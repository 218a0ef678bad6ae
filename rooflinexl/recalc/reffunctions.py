"""Functions of a reference itself, not of its values, in the array evaluator: ISREF,
AREAS, ISFORMULA, FORMULATEXT.

Microsoft, "ISREF function" (TRUE when the value is a reference), "AREAS function" (the
number of areas in a reference; several areas written as a union in parentheses,
``AREAS((B2:D4,E5,F6:I9))`` is 3), "ISFORMULA function" (TRUE when the referenced cell
holds a formula; of a range in an array formula, one TRUE/FALSE per cell, as Excel cached
for ``{=ISFORMULA(C10:J10)}`` in the `formulas` project's test.xlsx, sheet INFORMATION;
read 2026-12-01), "FORMULATEXT function" (the formula as the formula bar shows it, of a
range's upper-left cell; ``#N/A`` where there is no formula). A cell of a legacy
(Ctrl+Shift+Enter) array formula's range holds the formula; the cells a dynamic array
spills into do not.

What the evaluator cannot tell from the formula alone (an argument that may or may not
be a reference: IF, CHOOSE, INDEX, a LAMBDA parameter ...) raises
:class:`~rooflinexl.recalc.compile.Unsupported`; those cells go per cell.
"""
from __future__ import annotations

import numpy as np

from rooflinexl.recalc.compile import OPERATORS, UNION, Arr, Call, Lit, Rng, Unsupported
from rooflinexl.recalc.values import BOOL, ERR, NUM, kind_of

__all__ = ["REFERENCE_FUNCTIONS", "FormulaCells", "index_of_union", "reference_function"]

#: the functions of a reference evaluated here
REFERENCE_FUNCTIONS = frozenset({"ISREF", "AREAS", "ISFORMULA", "FORMULATEXT"})
#: functions whose result may be a reference: ISREF of them is not decided here
_MAYBE_REFERENCE = frozenset({"INDEX", "OFFSET", "INDIRECT", "IF", "IFS", "IFERROR", "IFNA",
                              "CHOOSE", "SWITCH", "XLOOKUP", "LET", "LAMBDA", "{call}",
                              "SINGLE", "ANCHORARRAY", "TRIMRANGE", "TAKE", "DROP",
                              "CHOOSEROWS", "CHOOSECOLS", "SORT", "SORTBY", "FILTER",
                              "UNIQUE", "VSTACK", "HSTACK"})
#: ISFORMULA of more cells than this is not built here
_MAX_CELLS = 1_000_000


class FormulaCells:
    """Which cells of a workbook (:class:`~rooflinexl.recalc.loader.Book`) hold a formula.

    >>> from types import SimpleNamespace as NS
    >>> s = NS(name="S", f_rows=[2], f_cols=[3], special=[NS(row=5, col=1, kind="array",
    ...        array_ref=(5, 1, 6, 2), dynamic=False)])
    >>> cells = FormulaCells(NS(sheets=[s]))
    >>> cells("S", 2, 3), cells("S", 6, 2), cells("S", 2, 2)
    (True, True, False)
    """

    def __init__(self, book):
        self.book = book
        self._texts: dict[str, dict] = {}
        self.cells: dict[str, set] = {}
        self.areas: dict[str, list] = {}
        for s in book.sheets:
            cells = set(zip(s.f_rows, s.f_cols, strict=True))
            for fc in s.special:
                cells.add((fc.row, fc.col))
                if fc.kind == "array" and fc.array_ref is not None and not fc.dynamic:
                    self.areas.setdefault(s.name, []).append(fc.array_ref)
            self.cells[s.name] = cells

    def __call__(self, sheet: str, row: int, col: int) -> bool:
        return (row, col) in self.cells.get(sheet, ()) or any(
            r1 <= row <= r2 and c1 <= col <= c2 for r1, c1, r2, c2 in self.areas.get(sheet, ()))

    def text(self, sheet: str, row: int, col: int) -> str | None:
        """The formula of the cell as written in the file (``=...``; a shared formula's
        child written out from its master; an array formula's in its anchor only), or
        None.

        Raises
        ------
        Unsupported
            A what-if data table's cell.
        """
        texts = self._texts.get(sheet)
        if texts is None:
            texts = self._texts[sheet] = self._read(sheet)
        text = texts.get((row, col))
        if text is _DATA_TABLE:
            raise Unsupported("FORMULATEXT of a what-if data table's cell")
        return text

    def _read(self, sheet: str) -> dict:
        from rooflinexl.recalc.refs import render, template

        s = next(x for x in self.book.sheets if x.name == sheet)
        texts: dict = dict(zip(zip(s.f_rows, s.f_cols, strict=True), s.f_texts, strict=True))
        masters: dict = {}
        for fc in s.special:
            if fc.kind == "shared" and not fc.text:
                if fc.shared not in s.shared:
                    continue
                if fc.shared not in masters:
                    r, c, t = s.shared[fc.shared]
                    masters[fc.shared] = template(t, r, c)
                texts[(fc.row, fc.col)] = render(masters[fc.shared], fc.row, fc.col)
            else:
                texts[(fc.row, fc.col)] = _DATA_TABLE if fc.kind == "dataTable" else fc.text
        return texts


_DATA_TABLE = object()

def _is_reference(ev, node) -> bool:
    if isinstance(node, Rng):
        return True
    if isinstance(node, Call) and node.name == UNION:
        return True
    if isinstance(node, Call) and node.name == "INDEX" and node.args and (
            isinstance(node.args[0], Rng) or isinstance(node.args[0], Call)
            and node.args[0].name == UNION):
        # INDEX's reference form returns a reference (Microsoft, "INDEX function"), or an
        # error value: IronCalc's ISREF book, saved by Excel, ISREF(INDEX(A1,1,2,2)) is
        # FALSE (no second area)
        v = ev.value(node)
        return isinstance(v, np.ndarray) or kind_of(v) != ERR
    if isinstance(node, (Lit, Arr)) or isinstance(node, Call) and (
            node.name in OPERATORS or node.name not in _MAYBE_REFERENCE):
        return False
    raise Unsupported("ISREF of what may be a reference")


def reference_function(ev, node: Call):
    """The value of an ISREF, AREAS or ISFORMULA call ``node`` in ``ev`` (an
    :class:`~rooflinexl.recalc.arrays.ArrayEval`)."""
    name = node.name
    if len(node.args) != 1:
        return ev.error("#VALUE!", f"{name} takes one argument")
    arg = node.args[0]
    if name == "ISREF":
        return _is_reference(ev, arg)
    if name == "AREAS":
        if isinstance(arg, Rng):
            return 1.0
        if isinstance(arg, Call) and arg.name == UNION:
            return float(len(arg.args))
        if isinstance(arg, Lit) and kind_of(arg.value) == ERR:  # an empty intersection
            return arg.value
        raise Unsupported("AREAS of other than a reference")
    if name == "FORMULATEXT":
        if not isinstance(arg, Rng) or ev.cells is None:
            raise Unsupported("FORMULATEXT of other than a reference")
        from rooflinexl.recalc.prepass import displayed_formula

        a, _b = ev.rows_of(arg)
        text = ev.cells.text(arg.sheet, a, arg.c1)
        if text is None:
            return ev.error("#N/A", "FORMULATEXT: the cell holds no formula")
        return displayed_formula(text)
    # ISFORMULA
    if not isinstance(arg, Rng) or ev.cells is None:
        raise Unsupported("ISFORMULA of other than a reference")
    a, b = ev.rows_of(arg)
    if (a, arg.c1) == (b, arg.c2):
        return ev.cells(arg.sheet, a, arg.c1)
    if ev.plain:
        raise Unsupported("ISFORMULA of a range in a plain cell")
    if (b - a + 1) * (arg.c2 - arg.c1 + 1) > _MAX_CELLS:
        raise Unsupported("ISFORMULA of a range too large")
    out = np.array([[ev.cells(arg.sheet, r, c) for c in range(arg.c1, arg.c2 + 1)]
                    for r in range(a, b + 1)], dtype=object)
    return ev.array(out)


def index_of_union(ev, node: Call):
    """INDEX(reference, row_num, [column_num], [area_num]) of a union of references
    (Microsoft, "INDEX function", reference form: area_num picks the area, 1 the first;
    one past the last is ``#REF!``). Arrays of positions or area numbers give one value
    per element, as Excel cached for ``{=INDEX((C52:C54,D52:D54),E52:E54,1,E52:E54)}``
    in test.xlsx (LOOKUP!AS52:AS54)."""
    from rooflinexl.recalc.arrays import each_element, first_value

    areas = node.args[0].args
    if not 2 <= len(node.args) <= 4:
        return ev.error("#VALUE!", "INDEX takes 2 to 4 arguments")
    rest = list(node.args[1:3])
    area_node = node.args[3] if len(node.args) == 4 else Lit(1.0)
    values = [ev.value(a) for a in [*rest, area_node]]

    def one(vals):
        k = vals[-1]
        kind = kind_of(k)
        if kind == ERR:
            return k
        if kind not in (NUM, BOOL):
            return ev.error("#VALUE!", "INDEX: area_num is not a number")
        k = int(float(k))
        if not 1 <= k <= len(areas):
            return ev.error("#REF!", f"INDEX: area_num {k} of {len(areas)} areas")
        return ev.value(Call("INDEX", [areas[k - 1], *[Lit(v) for v in vals[:-1]]], "INDEX"))

    if not any(isinstance(v, np.ndarray) and v.size > 1 for v in values):
        return one([first_value(v) if isinstance(v, np.ndarray) else v for v in values])
    grids = [v if isinstance(v, np.ndarray) else np.array([[v]], dtype=object) for v in values]
    return ev.array(each_element(grids, lambda vals: first_value(one(vals))))
