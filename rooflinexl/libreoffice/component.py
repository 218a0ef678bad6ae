"""rooflinexl's functions as a LibreOffice Calc add-in (a UNO component; runs inside LibreOffice).

LibreOffice's Python (``python3-uno``) loads this file from the extension or
the staged folder (:func:`rooflinexl.libreoffice.addin.stage`); the
``rooflinexl-site.json`` beside it names the Python minor version it needs,
the folders holding rooflinexl and numpy, and the message log. Every method
of ``org.rooflinexl.XRooflineFunctions`` is the Excel function of the same
name in :data:`rooflinexl.udfs.FUNCTIONS`, called as the xlwings hosts call it.

* Results: always a 2-D block (``sequence<sequence<any>>``); a single cell
  shows its one value, an array formula the whole array.
* Errors: an Excel error value of a result element becomes the same error in
  Calc (a NaN whose payload is Calc's error code, as Calc stores errors in
  arrays); ``ISNA``/``IFERROR`` see it and .xlsx stores it as an error.
* A bad call (unknown keyword, unusable chip table, shapes that do not
  combine) gives ``#VALUE!``; its message, and the reason of every error
  element, go to the log (and stderr).
* Blank optional arguments: Calc passes an empty cell as the number 0 and an
  omitted argument as nothing, so a single 0 in an optional argument is taken
  as blank (the default) - see docs/excel.md, "LibreOffice Calc".
"""
import json
import os
import struct
import sys
import traceback

import unohelper
from com.sun.star.lang import Locale, XServiceInfo, XServiceName
from com.sun.star.sheet import LocalizedName, XAddIn, XCompatibilityNames
from org.rooflinexl import XRooflineFunctions

IMPLEMENTATION = "org.rooflinexl.CalcAddIn"
SERVICES = ("com.sun.star.sheet.AddIn", IMPLEMENTATION)
CATEGORY = "Add-In"

#: Calc's error code (FormulaError) of each Excel error value
ERROR_CODES = {"#NULL!": 521, "#DIV/0!": 532, "#VALUE!": 519, "#REF!": 524, "#NAME?": 525,
               "#NUM!": 503, "#N/A": 0x7FFF}


def error_value(code):
    """The double Calc reads as an error: a quiet NaN carrying the error code in its payload."""
    return struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000000 | ERROR_CODES[code]))[0]


_HERE = os.path.dirname(os.path.abspath(__file__))
_STATE = {}
_SEEN = set()


def _config():
    path = os.path.join(_HERE, "rooflinexl-site.json")
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError) as exc:
        raise RuntimeError(f"rooflinexl add-in: cannot read {path}: {exc}") from None


def _log_path():
    cfg = _STATE.get("config") or {}
    if cfg.get("log"):
        return cfg["log"]
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "rooflinexl", "libreoffice.log")


def log(message):
    """Write a message once per process to stderr and the log file (never raises)."""
    if message in _SEEN:
        return
    _SEEN.add(message)
    line = "rooflinexl: " + message.replace("\n", " | ")
    try:
        print(line, file=sys.stderr, flush=True)
        path = _log_path()
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.exists(path) and os.path.getsize(path) > 1 << 20:
            os.replace(path, path + ".1")
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    except Exception:  # the log is a courtesy; a cell result never depends on it
        pass


def _load():
    """Import rooflinexl.udfs from the configured environment, once; the error text otherwise."""
    if "udfs" in _STATE or "error" in _STATE:
        return _STATE.get("udfs")
    try:
        cfg = _STATE["config"] = _config()
        have = "{}.{}".format(*sys.version_info[:2])
        if cfg.get("python") != have:
            raise RuntimeError(
                f"LibreOffice runs Python {have} but rooflinexl was installed from Python "
                f"{cfg.get('python')}: install rooflinexl into a Python {have} environment and "
                "run `rooflinexl libreoffice install` from there")
        for folder in reversed(cfg.get("paths") or []):
            if folder not in sys.path:
                sys.path.insert(0, folder)
        from rooflinexl import udfs
        from rooflinexl.errors import EXCEL_ERRORS
    except Exception as exc:
        _STATE["error"] = f"the add-in cannot load rooflinexl: {exc}"
        log(_STATE["error"])
        return None
    _STATE["udfs"] = udfs
    _STATE["errors"] = frozenset(EXCEL_ERRORS)
    _STATE["optional"] = {
        name: [p.default is not p.empty for p in _signature(fn)]
        for name, fn in udfs.FUNCTIONS.items()}
    _STATE["chips_at"] = {
        name: [i for i, p in enumerate(_signature(fn)) if p.name == "chips"]
        for name, fn in udfs.FUNCTIONS.items()}
    _STATE["tables"] = {}
    return udfs


def _signature(fn):
    import inspect

    return list(inspect.signature(fn).parameters.values())


def _arg(value, optional):
    """A Calc argument as the xlwings hosts pass it: None blank, 2-D lists for blocks."""
    if isinstance(value, tuple):
        return [list(row) for row in value]
    if optional and isinstance(value, float) and value == 0.0:
        return None  # Calc passes an empty cell as 0: an optional argument left blank
    return value


def _table(rows):
    """The chip table of a ``chips`` range, parsed once per distinct content.

    Calc passes the whole range on every call; parsing it once saves about
    40 % of a cell's time.
    """
    tables = _STATE["tables"]
    table = tables.get(rows) if isinstance(rows, tuple) else None
    if table is None:
        table = _STATE["udfs"].table(_arg(rows, False))
        if isinstance(rows, tuple):
            if len(tables) >= 16:
                tables.clear()
            tables[rows] = table
    return table


def _cell(v):
    if isinstance(v, str):
        if v in _STATE["errors"]:
            reason = getattr(v, "reason", "")
            if reason:
                log(f"{_STATE['current']}: {v} {reason}")
            return error_value(str(v))
        return v
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (int, float)):
        return float(v)
    log(f"{_STATE['current']}: unexpected result {v!r}")
    return error_value("#VALUE!")


def _block(result):
    if not isinstance(result, list):
        return ((_cell(result),),)
    if result and not isinstance(result[0], list):
        result = [result]
    return tuple(tuple(_cell(v) for v in row) for row in result)


def call(name, args):
    """Call the Excel function *name* with Calc's arguments; a 2-D block for Calc."""
    udfs = _load()
    if udfs is None:
        return ((error_value("#VALUE!"),),)
    fn = udfs.FUNCTIONS.get(name)
    if fn is None:
        log(f"{name}: not a function of this rooflinexl version; reinstall the add-in")
        return ((error_value("#NAME?"),),)
    optional = _STATE["optional"][name]
    if len(args) != len(optional):
        log(f"{name}: #VALUE! LibreOffice passed {len(args)} arguments, this rooflinexl "
            f"version takes {len(optional)}: reinstall the add-in")
        return ((error_value("#VALUE!"),),)
    _STATE["current"] = name
    try:
        values = [_arg(v, opt) for v, opt in zip(args, optional, strict=True)]
        for i in _STATE["chips_at"][name]:
            values[i] = _table(args[i])
        return _block(fn(*values))
    except udfs.RooflineInputError as exc:
        log(f"{name}: #VALUE! {exc}")
    except Exception:
        log(f"{name}: #VALUE! unexpected error: {traceback.format_exc(limit=3)}")
    return ((error_value("#VALUE!"),),)


class RooflineAddIn(unohelper.Base, XRooflineFunctions, XAddIn, XCompatibilityNames,
                    XServiceName, XServiceInfo):
    """The Calc add-in service: XAddIn describes each function, the methods compute them."""

    def __init__(self, ctx=None):
        self.ctx = ctx
        self.locale = Locale("en", "US", "")

    # each method of XRooflineFunctions: the Excel function of that name
    def __getattr__(self, name):
        if name.startswith("_") or not name.isupper():
            raise AttributeError(name)
        return lambda *args: call(name, args)

    # XAddIn --------------------------------------------------------------
    def _functions(self):
        udfs = _load()
        return udfs.FUNCTIONS if udfs is not None else {}

    def getProgrammaticFuntionName(self, display):  # sic: the UNO API's spelling
        name = display.upper()
        return name if name in self._functions() else ""

    def getDisplayFunctionName(self, name):
        return name

    def getFunctionDescription(self, name):
        fn = self._functions().get(name)
        if fn is None:
            return _STATE.get("error", "")
        return (fn.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")

    def _argument(self, name, index):
        fn = self._functions().get(name)
        if fn is None:
            return None, None
        params = _signature(fn)
        if not 0 <= index < len(params):
            return None, fn
        return params[index], fn

    def getDisplayArgumentName(self, name, index):
        param, _ = self._argument(name, index)
        return param.name if param is not None else ""

    def getArgumentDescription(self, name, index):
        param, fn = self._argument(name, index)
        if param is None:
            return ""
        return _STATE["udfs"].arg_docs(fn).get(param.name, "")

    def getProgrammaticCategoryName(self, name):
        return CATEGORY

    def getDisplayCategoryName(self, name):
        return CATEGORY

    # XLocalizable --------------------------------------------------------
    def setLocale(self, locale):
        self.locale = locale

    def getLocale(self):
        return self.locale

    # XCompatibilityNames: the en-US name is the Excel name (plain CRIT_BATCH in .xlsx)
    def getCompatibilityNames(self, name):
        return (LocalizedName(Locale("en", "US", ""), name),)

    # XServiceName, XServiceInfo -------------------------------------------
    def getServiceName(self):
        return IMPLEMENTATION

    def getImplementationName(self):
        return IMPLEMENTATION

    def supportsService(self, name):
        return name in SERVICES

    def getSupportedServiceNames(self):
        return SERVICES


g_ImplementationHelper = unohelper.ImplementationHelper()
g_ImplementationHelper.addImplementation(RooflineAddIn, IMPLEMENTATION, SERVICES)
