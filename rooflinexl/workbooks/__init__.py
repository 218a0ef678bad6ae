"""Generated workbooks: ``workbooks/Roofline.xlsx`` and ``templates/*.xlsx``, each also in
a ``lite/`` folder spelt for xlwings Server and Lite.

Built by code with openpyxl (``rooflinexl build``), never edited by hand; the
Chips sheet comes from the packaged chip CSV, every number on the other
sheets is a live formula over it. :func:`build_all` writes them and stamps the
cached values computed by the headless engine.
"""
from rooflinexl.workbooks.build import BUILDERS, build_all, outputs

__all__ = ["BUILDERS", "build_all", "outputs"]
