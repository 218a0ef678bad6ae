"""Host suites that need xlwings configured before its first import.

``from xlwings import func, arg`` gives a different decorator per host, chosen when
xlwings is first imported: the xlwings Server/Lite one when ``XLWINGS_ON_SERVER=true``
(and a licence key) is in the environment, the classic COM one on Windows with pywin32,
a no-op elsewhere. One process can hold one of them, so each suite here runs in its
own ``python -m pytest tests/hosts`` process started by ``tests/test_hosts_server.py``
or ``tests/test_hosts_classic.py`` with ``ROOFLINEXL_HOST_SUITE`` set. In the main
``pytest`` run (no ``ROOFLINEXL_HOST_SUITE``) nothing in this folder is collected, so
the rest of the suite keeps importing :mod:`rooflinexl.udfs` without xlwings.
"""
from __future__ import annotations

import os
import sys
import types

SUITE = os.environ.get("ROOFLINEXL_HOST_SUITE", "")

if SUITE == "server":
    collect_ignore_glob = ["test_classic_*.py"]
    if os.environ.get("XLWINGS_ON_SERVER") != "true" or "xlwings" in sys.modules:
        raise RuntimeError("the server suite needs XLWINGS_ON_SERVER=true before xlwings "
                           "is imported: run it through tests/test_hosts_server.py")
elif SUITE == "classic":
    collect_ignore_glob = ["test_server_*.py"]
    if os.environ.get("XLWINGS_ON_SERVER") or "xlwings" in sys.modules:
        raise RuntimeError("the classic suite needs a fresh process without "
                           "XLWINGS_ON_SERVER: run it through tests/test_hosts_classic.py")

    # The Windows-only modules xlwings.udfs imports at module level, as stubs: enough to
    # import it and generate the VBA wrappers; nothing here talks to COM.
    class _ComError(Exception):
        pass

    def _stub(name, **attrs):
        mod = types.ModuleType(name)
        mod.__dict__.update(attrs)
        sys.modules[name] = mod
        return mod

    _stub("pythoncom", CoInitialize=lambda: None)
    _stub("pywintypes", com_error=_ComError)
    _win32com = _stub("win32com")
    _win32com.client = _stub("win32com.client", Dispatch=lambda *a, **k: None,
                             gencache=types.SimpleNamespace(EnsureModule=lambda *a, **k: None))

    import xlwings
    import xlwings.udfs

    # What ``import xlwings`` binds on Windows with pywin32 (xlwings/__init__.py):
    # ``from .udfs import xlfunc as func, xlarg as arg, xlret as ret``.
    xlwings.func, xlwings.arg, xlwings.ret = (xlwings.udfs.xlfunc, xlwings.udfs.xlarg,
                                              xlwings.udfs.xlret)
else:
    collect_ignore_glob = ["*.py"]
