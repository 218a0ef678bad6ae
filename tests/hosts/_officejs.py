"""Excel's Office.js client, as xlwings-server's custom-functions-code.js speaks it.

Every argument is a 2-D matrix (``[[8192]]`` for one cell, ``[[""]]`` for an empty
cell), an omitted optional argument is ``null``, and the answer is ``{"result": matrix}``
with Excel errors as ``{"type": "Error", "errorType": ...}`` (CustomFunctionsRuntime 1.4).
"""
from __future__ import annotations

import json
import math

from _catalogue import chips_range

CHIPS = chips_range()
NA = {"type": "Error", "errorType": "NotAvailable"}
NUM = {"type": "Error", "errorType": "Num"}
VALUE = {"type": "Error", "errorType": "Value"}
CALL = "/xlwings/custom-functions-call"
META = "/xlwings/custom-functions-meta"


def cell(v):
    """One Excel argument as Office.js sends it: a matrix, or null when omitted."""
    if v is None:
        return None
    if isinstance(v, list):
        return v if v and isinstance(v[0], list) else [v]
    return [[v]]


def body(func_name: str, args: list) -> dict:
    """The JSON body Excel POSTs for one custom-function call."""
    return {
        "client": "Office.js", "func_name": func_name, "args": args,
        "caller_address": "[Roofline.xlsx]Sheet1!B2", "session_id": "tests",
        "culture_info_name": "en-US", "date_format": "M/d/yyyy", "version": "0.37.8",
        "runtime": "1.4",
    }


def chip_call(func_name: str, args: list) -> dict:
    """A chip-aware call: the Chips range first, then the arguments (None = omitted)."""
    return body(func_name, [CHIPS] + [cell(a) for a in args])


def _no_constant(name):
    raise ValueError(f"non-JSON number {name} in the answer")


def strict_json(text: str):
    """Parse an answer as JSON proper: NaN and Infinity are not JSON."""
    return json.loads(text, parse_constant=_no_constant)


def check_matrix(result) -> tuple[int, int]:
    """Assert a result is a rectangular matrix of Excel values; return its shape."""
    assert isinstance(result, list) and result, result
    width = len(result[0])
    assert width, result
    for row in result:
        assert isinstance(row, list) and len(row) == width, result
        for v in row:
            if isinstance(v, dict):
                assert v.get("type") == "Error" and v.get("errorType") in {
                    "NotAvailable", "Num", "Value", "Div0", "Name", "Null", "Ref"}, v
            elif isinstance(v, float):
                assert math.isfinite(v), v
            else:
                assert isinstance(v, (int, str, bool)), v
    return len(result), width
