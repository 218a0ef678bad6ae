"""rooflinexl in xlwings Lite: paste this file into the main.py tab (docs/excel.md).

With ``rooflinexl`` in the requirements.txt tab (addin/lite/requirements.txt), the
import below registers every rooflinexl function in the workbook, e.g.

    =ROOFLINE.CRIT_BATCH(Chips, "H100", 8192, 8192)
    =ROOFLINE.VERSION()

Your own @func and @script functions may follow below it (other names than these).
"""
from rooflinexl.udfs import *  # noqa: F403
