"""FORECAST.ETS, .CONFINT, .SEASONALITY and .STAT where Excel's answer follows from the
series alone (issue 13): a series that is exactly a line plus a repeating pattern.

Expected values: Excel's cached values in the ``formulas`` project's regression workbook
(test.xlsx, saved by Excel for Mac), sheet STATISTICAL rows 38-41, whose arguments are
written here: values {3,3,1,2,3,2,1,3,2,1} on the timeline {3,7,5,6,7,8,1,3,4,9} (dates
3 and 7 twice, date 2 missing) are 1,2,3,2,1,2,3,2,1 on dates 1..9 once aggregated and
completed. Anything else Excel's undocumented fit decides is an error with a message,
never a number. Both evaluation paths.
"""
from __future__ import annotations

import openpyxl
import pytest
from formula_cases import ENGINES, evaluate_cases, matches_excel

from rooflinexl.errors import ExcelError

V, T = "{3,3,1,2,3,2,1,3,2,1}", "{3,7,5,6,7,8,1,3,4,9}"
CASES = {
    f"=_xlfn.FORECAST.ETS(10,{V},{T},4)": 2,  # R38
    f"=_xlfn.FORECAST.ETS(0.1,{V},{T},4,1,4)": 0.09999999999999964,  # S38
    f"=_xlfn.FORECAST.ETS(0.7,{V},{T},4,1)": 0.6999999999999993,  # T38
    f"=_xlfn.FORECAST.ETS(100,{V},{T},4,1)": 2,  # U38
    f"=_xlfn.FORECAST.ETS(-1,{V},{T},4,1)": "#NUM!",  # V38
    f"=_xlfn.FORECAST.ETS(A1,{V},{T},4,1)": "#NUM!",  # W38 (empty target)
    f'=_xlfn.FORECAST.ETS("29/02/1900",{V},{T},4,1)': 2,  # X38 (date text: 60)
    f"=_xlfn.FORECAST.ETS(TRUE,{V},{T},4,1)": 1,  # Y38
    f"=_xlfn.FORECAST.ETS(#N/A,{V},{T},4,1)": "#N/A",  # AA38
    f"=_xlfn.FORECAST.ETS.CONFINT(50,{V},{T},10,4,1,)": "#NUM!",  # R39
    f"=_xlfn.FORECAST.ETS.CONFINT(50,{V},{T},0.1,4,1,)": 0,  # S39
    f"=_xlfn.FORECAST.ETS.CONFINT(50,{V},{T},A1,4,1,)": 0,  # W39 (empty: 0.95)
    f"=_xlfn.FORECAST.ETS.CONFINT(50,{V},{T},TRUE,4,1,)": "#NUM!",  # Y39
    f"=_xlfn.FORECAST.ETS.SEASONALITY({V},{T},1)": 0,  # R40
    f"=_xlfn.FORECAST.ETS.SEASONALITY({V},{T},2)": "#NUM!",  # S40
    f"=_xlfn.FORECAST.ETS.SEASONALITY({V},{T},A1)": 0,  # W40
    f"=_xlfn.FORECAST.ETS.STAT({V},{T},4,4,1,)": 0,  # R41 (MASE)
    f"=_xlfn.FORECAST.ETS.STAT({V},{T},7,4,1,)": 0,  # U41 (RMSE)
    f"=_xlfn.FORECAST.ETS.STAT({V},{T},8,4,1,)": 1,  # V41 (the step)
    f"=_xlfn.FORECAST.ETS.STAT({V},{T},FALSE,4,1,)": "#NUM!",  # Y41
}
#: what Excel's fit decides is not reproduced: an error that says so, never a number
UNSUPPORTED = [
    "=_xlfn.FORECAST.ETS(11,{1,5,2,7,3,9},{1,2,3,4,5,6})",  # noise: smoothing matters
    f"=_xlfn.FORECAST.ETS(10,{V},{T})",  # season detection on a repeating series
    f"=_xlfn.FORECAST.ETS.STAT({V},{T},1,4,1,)",  # alpha
    f"=_xlfn.FORECAST.ETS.SEASONALITY({V},{T},0)",  # U40: Excel 0, not reproduced
]


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "S"
    return evaluate_cases(wb, ws, "C", [*CASES, *UNSUPPORTED],
                          tmp_path_factory.mktemp("ets"))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", list(CASES))
def test_excel_answer(evaluations, engine, formula):
    cells, evs = evaluations
    got, want = evs[engine].value("S", cells[formula]), CASES[formula]
    assert matches_excel(got, want, rel=1e-15), got


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("formula", UNSUPPORTED)
def test_not_reproduced_is_an_error(evaluations, engine, formula):
    cells, evs = evaluations
    res = evs[engine].cells[("S", cells[formula])]
    assert isinstance(res.value, ExcelError) and str(res.value) == "#VALUE!", res.value
    assert "not reproduced" in res.reason or "reproduced only" in res.reason, res.reason
