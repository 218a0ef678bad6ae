"""rooflinexl's Excel functions, served by xlwings Server.

xlwings Server registers every function this module holds (``inspect.getmembers``)
and dispatches calls by the Python name, so re-exporting :mod:`rooflinexl.udfs`
is all it takes: ``=ROOFLINE.CRIT_BATCH(Chips, "H100", 8192, 8192)``. The
functions, their descriptions and argument docs are defined once, in the package.
"""
import importlib.util
import sys

import xlwings.utils

# xlwings 0.37.8 checks every argument cell for Pyodide's JsNull with
# ``xlwings.utils.is_jsnull``, which tries ``from pyodide.ffi import JsNull`` on each
# call; outside Pyodide each try is a failed import (8 ms for the Chips range, 0.4 s for
# a 10,000-cell range). Where Pyodide is absent the answer is always False: say so once.
if (sys.platform != "emscripten" and importlib.util.find_spec("pyodide") is None
        and hasattr(xlwings.utils, "is_jsnull")):
    xlwings.utils.is_jsnull = lambda value: False

from rooflinexl.udfs import *  # noqa: F403
