"""rooflinexl in LibreOffice Calc: the add-in and LibreOffice as a second recalculation engine.

* :mod:`rooflinexl.libreoffice.addin` generates the Calc add-in from
  :mod:`rooflinexl.udfs` (``rooflinexl build`` compiles its type library) and
  installs it (``rooflinexl libreoffice install`` / ``uninstall``).
* :mod:`rooflinexl.libreoffice.component` is the add-in itself; it runs inside
  LibreOffice's Python, never in rooflinexl's.
* :mod:`rooflinexl.libreoffice.engine` recalculates a workbook through
  headless LibreOffice with the add-in (``rooflinexl recalc --engine
  libreoffice``).
* :mod:`rooflinexl.libreoffice.soffice` runs ``soffice`` (throw-away profile
  that recalculates on load).

See docs/excel.md, section "LibreOffice Calc".
"""
from rooflinexl.libreoffice.addin import (
    AddinSetupError,
    addin_python,
    build_oxt,
    build_rdb,
    catalogue,
    check_python,
    idl_text,
    install,
    uninstall,
)
from rooflinexl.libreoffice.soffice import LibreOfficeError, soffice_path

__all__ = [
    "AddinSetupError",
    "LibreOfficeError",
    "addin_python",
    "build_oxt",
    "build_rdb",
    "catalogue",
    "check_python",
    "idl_text",
    "install",
    "soffice_path",
    "uninstall",
]
