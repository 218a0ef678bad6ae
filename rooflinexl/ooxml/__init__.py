"""Office Open XML workbooks (.xlsx/.xlsm), read and written at the byte level.

The headless engine (DESIGN.md section 7) computes every formula and must hand
the results to Excel, LibreOffice, pandas and ``openpyxl(data_only=True)``
without disturbing anything else in the user's workbook. One module per idea:

* :mod:`~rooflinexl.ooxml.package` opens and checks a package once (legacy
  ``.xls``, encryption, ``.xlsb``/``.ods``, corrupt zips, zip bombs and DOCTYPEs
  are refused within :class:`Limits`) and finds its parts and relationships;
* :mod:`~rooflinexl.ooxml.sheetxml` scans sheet XML (one cell scanner, one
  shared-string reader, one un-escaper, the value codec);
* :mod:`~rooflinexl.ooxml.stamp` writes cached values and rewrites formulas,
  every other byte kept;
* :mod:`~rooflinexl.ooxml.cached` reads formula texts and cached values back;
* :mod:`~rooflinexl.ooxml.atomic` writes any output file atomically.

Only the standard library (plus numpy scalar types, and defusedxml when it is
installed) is used; entities are never resolved and nothing touches the network.
"""
from rooflinexl.ooxml.atomic import atomic_write, commit_temp, output_path
from rooflinexl.ooxml.cached import formula_cells, read_cached_values
from rooflinexl.ooxml.package import (
    Limits,
    UnusableWorkbookError,
    check_package,
    open_package,
    sheet_parts,
)
from rooflinexl.ooxml.stamp import rewrite_formulas, stamp_cached_values, stamped_temp

__all__ = [
    "Limits",
    "UnusableWorkbookError",
    "atomic_write",
    "check_package",
    "commit_temp",
    "formula_cells",
    "open_package",
    "output_path",
    "read_cached_values",
    "rewrite_formulas",
    "sheet_parts",
    "stamp_cached_values",
    "stamped_temp",
]
