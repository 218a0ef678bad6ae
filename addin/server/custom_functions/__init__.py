"""rooflinexl's Excel functions, served by xlwings Server.

xlwings Server registers every function this module holds (``inspect.getmembers``)
and dispatches calls by the Python name: ``=ROOFLINE.CRIT_BATCH(Chips, "H100", 8192,
8192)``. The functions, their descriptions and argument docs are defined once, in
:mod:`rooflinexl.udfs`. Here

* every call runs in a worker thread, off the server's event loop: xlwings Server
  calls a plain function, and converts its arguments and result, on the loop itself,
  so one long call stalled every other request (a one-cell call waited 11.5 s behind a
  million-cell one). :func:`xlwings.server.custom_functions_call`, which the
  ``/xlwings/custom-functions-call`` route awaits, is wrapped to run in :data:`POOL`
  (its own event loop per call, the caller's context variables carried over); the
  route itself, with its authentication, is unchanged;
* a call whose arguments broadcast to more than ``ROOFLINEXL_SERVER_MAX_RESULT_CELLS``
  cells (default 1,048,576, one full Excel column) answers ``#NUM!`` at once,
  before anything is computed, instead of spending gigabytes and failing with
  HTTP 500.

The request-size limit sits in front of the whole app (``serve.py``).
"""
import asyncio
import contextvars
import functools
import importlib.util
import inspect
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import xlwings.server
import xlwings.utils

import rooflinexl.udfs as _udfs
from rooflinexl.errors import ExcelError

# xlwings 0.37.8 checks every argument cell for Pyodide's JsNull with
# ``xlwings.utils.is_jsnull``, which tries ``from pyodide.ffi import JsNull`` on each
# call; outside Pyodide each try is a failed import (8 ms for the Chips range, 0.4 s for
# a 10,000-cell range). Where Pyodide is absent the answer is always False: say so once.
if (sys.platform != "emscripten" and importlib.util.find_spec("pyodide") is None
        and hasattr(xlwings.utils, "is_jsnull")):
    xlwings.utils.is_jsnull = lambda value: False

#: largest result a call may produce (cells); over it the call answers #NUM!
MAX_RESULT_CELLS = int(os.environ.get("ROOFLINEXL_SERVER_MAX_RESULT_CELLS") or 1_048_576)
#: the worker threads the functions run in (numpy releases the GIL for large arrays)
POOL = ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1),
                          thread_name_prefix="rooflinexl-udf")


def _shape(x) -> tuple:
    """Shape of a host argument (a scalar, a 1-D or a 2-D list) without copying it."""
    if isinstance(x, np.ndarray):
        return x.shape
    if isinstance(x, (list, tuple)):
        if x and isinstance(x[0], (list, tuple)):
            return (len(x), len(x[0]))
        return (len(x),)
    return ()


def result_cells(fn, args, kwargs) -> int | None:
    """Cells of the broadcast result of a call (None when the shapes do not broadcast:
    the function itself says why). The chip table is a lookup table, not broadcast."""
    bound = inspect.signature(fn).bind_partial(*args, **kwargs)
    shapes = [_shape(v) for name, v in bound.arguments.items() if name != "chips"]
    try:
        return int(np.prod(np.broadcast_shapes(*shapes), dtype=np.int64))
    except ValueError:
        return None


def _limited(fn):
    """``fn`` behind the result-size limit (same name, signature and xlwings metadata)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        n = result_cells(fn, args, kwargs)
        if n is not None and n > MAX_RESULT_CELLS:
            return ExcelError("#NUM!", f"the result would have {n:,} cells, over the server's "
                                       f"limit of {MAX_RESULT_CELLS:,}")
        return fn(*args, **kwargs)
    return call


def _in_worker(dispatch):
    """xlwings' call dispatcher run in :data:`POOL` with an event loop of its own."""
    if getattr(dispatch, "_rooflinexl_worker", False):
        return dispatch

    @functools.wraps(dispatch)
    async def run(*args, **kwargs):
        ctx = contextvars.copy_context()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(POOL, ctx.run, asyncio.run, dispatch(*args, **kwargs))
    run._rooflinexl_worker = True
    return run


if inspect.iscoroutinefunction(getattr(xlwings.server, "custom_functions_call", None)):
    xlwings.server.custom_functions_call = _in_worker(xlwings.server.custom_functions_call)

for _name in _udfs.__all__:
    _obj = getattr(_udfs, _name)
    if inspect.isfunction(_obj) and hasattr(_obj, "__xlfunc__"):
        globals()[_name] = _limited(_obj)
    else:
        globals()[_name] = _obj
del _name, _obj
