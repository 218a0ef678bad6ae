"""What the chip and model tables share: name lookup, loaders and column access.

:class:`NamedTable` is the base of :class:`rooflinexl.chips.ChipTable` and
:class:`rooflinexl.models.ModelTable`: one row per named thing (a chip, a
model), looked up by its name or an alias, with numeric columns as float arrays
(NaN where blank) and text columns as lists of str ('' where blank). A subclass
parses and validates its own schema in ``__init__`` (setting ``names``,
``columns``, ``row_numbers``, ``_numeric``, ``_text`` and ``_index``) and names
its kind, its packaged CSV and its error types; building from a CSV, a pandas
DataFrame or an Excel range, the packaged default, lookups and export live here
once.
"""
from __future__ import annotations

import csv
import math
import re
import sys
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from rooflinexl.errors import KeywordError
from rooflinexl.units import parse_header

__all__ = ["FACTORIZE_MIN", "NamedTable", "factorize", "is_blank", "normalize_name"]

_SEP = re.compile(r"[\s_\-]+")


def normalize_name(name: str) -> str:
    """Lookup key of a chip or model name: trimmed, case-folded, separator runs made one space.

    Examples
    --------
    >>> normalize_name("  tpu-v5e ") == normalize_name("TPU v5e")
    True
    """
    return _SEP.sub(" ", name.strip()).casefold()


def is_blank(value) -> bool:
    """Whether a table cell is blank: None, NaN or text of spaces only."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and value.strip() == ""


#: arrays at least this long are factorised (hashed once per distinct value) before lookups
FACTORIZE_MIN = 256


def factorize(values) -> tuple[np.ndarray, list] | None:
    """(codes, uniques) of an array whose elements are all str, or None.

    ``uniques[codes]`` rebuilds the array; uniques are in order of first
    appearance and equal strings share a code. A numpy str array uses
    ``np.unique``; an object array uses ``pandas.factorize`` when pandas is
    already imported (never imported here: the Excel path stays numpy-only),
    else one dict of its distinct values. None means "no fast path": a small
    array, or an element that is not a str (None, NaN, a number); callers
    then loop in Python with their exact per-element semantics.

    Examples
    --------
    >>> codes, uniques = factorize(np.array(["b", "a", "b"] * 100))
    >>> uniques, codes[:3].tolist()
    (['b', 'a'], [0, 1, 0])
    >>> factorize(np.array(["b", None] * 200, dtype=object)) is None
    True
    """
    if not isinstance(values, np.ndarray) or values.size < FACTORIZE_MIN:
        return None
    flat = values.reshape(-1)
    if values.dtype.kind == "U":
        uniq, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return rank[inverse].reshape(values.shape), [str(u) for u in uniq[order]]
    if values.dtype != object:
        return None
    pd = sys.modules.get("pandas")
    try:
        if pd is not None:
            codes, uniq = pd.factorize(flat)
            uniq = list(uniq)
            if (codes < 0).any():  # None or NaN
                return None
        else:
            index = dict.fromkeys(flat)
            uniq = list(index)
            codes = None
    except TypeError:  # unhashable elements
        return None
    if not all(isinstance(u, str) for u in uniq):
        return None
    if codes is None:
        for j, u in enumerate(uniq):
            index[u] = j
        codes = np.fromiter(map(index.__getitem__, flat), dtype=np.intp, count=flat.size)
    return np.asarray(codes, dtype=np.intp).reshape(values.shape), uniq


class NamedTable:
    """Base of the chip and model tables: loaders, the packaged default, lookups, export.

    Subclasses set :attr:`kind` (``"chip"``), :attr:`data_file` (the packaged
    CSV under ``rooflinexl/data``), :attr:`columns_order` (the schema's column
    order for :meth:`to_rows`), :attr:`range_hint` (the leading columns named
    when a range is unusable), :attr:`table_error` and :attr:`unknown_error`
    (exception types), and build ``names``, ``columns``, ``row_numbers``,
    ``_numeric``, ``_text`` and ``_index`` (normalised name or alias -> row)
    in ``__init__(header, rows)``.
    """

    kind = "named"
    data_file = ""
    columns_order: tuple[str, ...] = ()
    range_hint = ""
    table_error: type[Exception] = ValueError
    unknown_error: type[Exception] = KeyError
    _defaults: dict[type, NamedTable] = {}

    names: tuple[str, ...]
    columns: tuple[str, ...]
    row_numbers: list[int]
    _numeric: dict[str, np.ndarray]
    _text: dict[str, list[str]]
    _index: dict[str, int]

    def _layout(self, keys: Sequence[str], rows: Sequence[Sequence], first_row: int,
                required: Sequence[str]) -> tuple[dict[str, int], list[tuple[int, list]]]:
        """The header's column positions and the table's rows: ``({column: index},
        [(sheet row number, row padded or cut to the header's width)])``, blank rows left
        out. Raises :attr:`table_error` for a column named twice, a ``required`` column
        missing, or no row below the header."""
        err = self.table_error
        seen: dict[str, int] = {}
        for i, k in enumerate(keys):
            if not k:
                continue
            if k in seen:
                raise err(f"{self.kind} table: column {k!r} appears twice in the header")
            seen[k] = i
        missing = [c for c in required if c not in seen]
        if missing:
            raise err(f"{self.kind} table: required column {missing[0]!r} is missing "
                      f"(required: {', '.join(required)}; header has: "
                      f"{', '.join(k for k in keys if k) or 'nothing'})")
        width = len(keys)
        body = []
        for n, row in enumerate(rows):
            row = list(row)[:width] + [None] * max(0, width - len(row))
            if all(is_blank(v) for v in row):
                continue  # trailing blank rows of a selected range
            body.append((first_row + n, row))
        if not body:
            raise err(f"{self.kind} table: no {self.kind} rows below the header")
        return seen, body

    def _index_names(self, name_column: str) -> None:
        """Build ``_index`` (normalised name or alias -> row) from ``names`` and the
        ``aliases`` column (``;``-separated); a blank name, or a name or alias used twice, is
        :attr:`table_error` naming the row and the column."""
        self._index = {}
        owner: dict[str, str] = {}
        aliases = self._text.get("aliases", [""] * len(self.names))
        for j, (name, alias_text) in enumerate(zip(self.names, aliases, strict=True)):
            r = self.row_numbers[j]
            if not name:
                raise self.table_error(f"{self.kind} table row {r}, column {name_column!r}: "
                                       f"{self.kind} name is blank")
            for label, col in [(name, name_column)] + [
                    (a, "aliases") for a in alias_text.split(";") if a.strip()]:
                key = normalize_name(label)
                if key in self._index and self._index[key] != j:
                    raise self.table_error(
                        f"{self.kind} table row {r}, column {col!r}: {label.strip()!r} is "
                        f"already the name or an alias of {owner[key]!r} "
                        f"(row {self.row_numbers[self._index[key]]})")
                self._index[key] = j
                owner[key] = name

    # ----------------------------------------------------------------- loaders
    @classmethod
    def from_rows(cls, rows: Sequence[Sequence]):
        """Table from an Excel range: a 2-D list whose first row is the header."""
        rows = list(rows) if rows is not None else []
        if not rows or not isinstance(rows[0], (list, tuple)):
            raise cls.table_error(f"{cls.kind} table must be a range of rows with the header "
                                  f"first ({cls.range_hint}, ...)")
        return cls(rows[0], rows[1:])

    @classmethod
    def from_csv(cls, path):
        """Table from a CSV file with a header row (UTF-8, comma-separated)."""
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = list(csv.reader(fh))
        if not rows:
            raise cls.table_error(f"{cls.kind} table {path}: the file is empty")
        return cls(rows[0], rows[1:])

    @classmethod
    def from_dataframe(cls, df):
        """Table from a pandas DataFrame whose columns are the header."""
        return cls(list(df.columns), df.astype(object).values.tolist())

    @classmethod
    def default(cls):
        """The packaged table (``rooflinexl/data/<data_file>``), parsed once."""
        table = NamedTable._defaults.get(cls)
        if table is None:
            path = resources.files("rooflinexl") / "data" / cls.data_file
            with resources.as_file(path) as p:
                table = NamedTable._defaults[cls] = cls.from_csv(Path(p))
        return table

    @classmethod
    def load(cls, source=None):
        """Table from ``source``: None (the packaged default), a table of this type, a CSV
        path, a pandas DataFrame, or a 2-D list whose first row is the header."""
        if source is None:
            return cls.default()
        if isinstance(source, cls):
            return source
        if isinstance(source, (str, Path)):
            return cls.from_csv(source)
        if hasattr(source, "columns") and hasattr(source, "values"):
            return cls.from_dataframe(source)
        return cls.from_rows(source)

    # ------------------------------------------------------------------ access
    def __len__(self) -> int:
        return len(self.names)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} {self.kind}s: {', '.join(self.names)})"

    def has(self, column: str) -> bool:
        """Whether the table has ``column`` (numeric or text)."""
        return column in self._numeric or column in self._text

    def is_numeric(self, column: str) -> bool:
        """Whether ``column`` is one of the table's numeric columns."""
        return column in self._numeric

    def numeric(self, column: str) -> np.ndarray:
        """Float column (NaN where blank); all-NaN when the table lacks the column."""
        if column in self._numeric:
            return self._numeric[column]
        return np.full(len(self), np.nan)

    def text(self, column: str) -> list[str]:
        """Text column ('' where blank, all '' when the table lacks it)."""
        return self._text.get(column, [""] * len(self))

    def row_of(self, name) -> int | None:
        """Row index of a name or alias; None when unknown."""
        if not isinstance(name, str):
            return None
        return self._index.get(normalize_name(name))

    def index(self, names) -> tuple[np.ndarray, np.ndarray]:
        """Vectorised lookup: (row index array, unknown mask) of an array of names."""
        arr = names if isinstance(names, np.ndarray) and names.dtype.kind == "U" else \
            np.asarray(names, dtype=object)
        fast = factorize(arr)
        if fast is not None:  # large all-str array: one lookup per distinct name
            codes, uniq = fast
            rows = np.array([-1 if (j := self.row_of(u)) is None else j for u in uniq],
                            dtype=np.intp)
            out = rows[codes]
            return out, out < 0
        flat = arr.ravel()
        cache: dict = {}
        out = np.empty(flat.shape, dtype=np.intp)
        for i, v in enumerate(flat.tolist()):
            try:
                j = cache[v]
            except (KeyError, TypeError):
                j = self.row_of(v)
                j = -1 if j is None else j
                try:
                    cache[v] = j
                except TypeError:
                    pass
            out[i] = j
        out = out.reshape(arr.shape)
        return out, out < 0

    def unknown_message(self, name) -> str:
        """The ``#N/A`` reason for a name that is not in the table, listing the known names."""
        if name is None or (isinstance(name, str) and not name.strip()):
            return f"no {self.kind} name given (known: {', '.join(self.names)})"
        return f"unknown {self.kind} {name!r} (known: {', '.join(self.names)})"

    def field(self, name: str, field: str):
        """One field of one row: float (NaN when blank) or str.

        Raises :attr:`unknown_error` for an unknown name and
        :class:`~rooflinexl.errors.KeywordError` for a field that is no column.
        """
        j = self.row_of(name)
        if j is None:
            raise self.unknown_error(self.unknown_message(name))
        col = parse_header(field)[0]
        if col in self._numeric:
            return float(self._numeric[col][j])
        if col in self._text:
            return self._text[col][j]
        raise KeywordError(f"field {field!r} is not a column of the {self.kind} table "
                           f"({', '.join(self.columns)})")

    def to_rows(self, columns: Iterable[str] | None = None) -> list[list]:
        """Header + rows as a 2-D list (numbers as floats, blanks as None); default columns:
        the schema's, in its order."""
        cols = [c for c in (self.columns_order if columns is None else columns) if self.has(c)]
        out = [list(cols)]
        for j in range(len(self)):
            row = []
            for c in cols:
                if c in self._numeric:
                    x = self._numeric[c][j]
                    row.append(None if math.isnan(x) else float(x))
                else:
                    row.append(self._text[c][j] or None)
            out.append(row)
        return out
