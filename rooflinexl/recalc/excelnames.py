"""The names of Excel's worksheet functions, to tell a function Excel has but the engine
does not implement (``#NAME?``, "function X is not implemented") from a name Excel does
not know at all (``#NAME?``, "unknown function X").

Sources (read 2026-12-02): the predefined functions of ISO/IEC 29500-1:2016 section
18.17.7, as the openpyxl library lists them (``openpyxl.utils.formulas.FORMULAE``), and
the "future functions" Excel saves with the ``_xlfn.`` prefix, from Microsoft's
[MS-XLSX] "2.2.3 Functions" and "Excel functions (alphabetical)" (the functions added
since, such as GROUPBY, TRIMRANGE and the REGEX functions).
"""
from __future__ import annotations

__all__ = ["EXCEL_FUNCTIONS", "is_excel_function"]

#: functions Excel saves with the ``_xlfn.`` (or ``_xlfn._xlws.``) prefix, without it
_FUTURE = frozenset("""
ACOT ACOTH AGGREGATE ANCHORARRAY ARABIC ARRAYTOTEXT BASE BETA.DIST BETA.INV BINOM.DIST
BINOM.DIST.RANGE BINOM.INV BITAND BITLSHIFT BITOR BITRSHIFT BITXOR BYCOL BYROW
CEILING.MATH CEILING.PRECISE CHISQ.DIST CHISQ.DIST.RT CHISQ.INV CHISQ.INV.RT CHISQ.TEST
CHOOSECOLS CHOOSEROWS COMBINA CONCAT CONFIDENCE.NORM CONFIDENCE.T COPILOT COT COTH
COVARIANCE.P COVARIANCE.S CSC CSCH DAYS DECIMAL DETECTLANGUAGE DROP ECMA.CEILING ENCODEURL
ERF.PRECISE ERFC.PRECISE EXPAND EXPON.DIST F.DIST F.DIST.RT F.INV F.INV.RT F.TEST
FIELDVALUE FILTER FILTERXML FLOOR.MATH FLOOR.PRECISE FORECAST.ETS FORECAST.ETS.CONFINT
FORECAST.ETS.SEASONALITY FORECAST.ETS.STAT FORECAST.LINEAR FORMULATEXT GAMMA GAMMA.DIST
GAMMA.INV GAMMALN.PRECISE GAUSS GROUPBY HSTACK HYPGEOM.DIST IFNA IFS IMAGE IMCOSH IMCOT
IMCSC IMCSCH IMSEC IMSECH IMSINH IMTAN ISFORMULA ISO.CEILING ISOMITTED ISOWEEKNUM LAMBDA
LET LOGNORM.DIST LOGNORM.INV MAKEARRAY MAP MAXIFS MINIFS MODE.MULT MODE.SNGL MUNIT
NEGBINOM.DIST NETWORKDAYS.INTL NORM.DIST NORM.INV NORM.S.DIST NORM.S.INV NUMBERVALUE
PDURATION PERCENTILE.EXC PERCENTILE.INC PERCENTOF PERCENTRANK.EXC PERCENTRANK.INC
PERMUTATIONA PHI PIVOTBY POISSON.DIST PY QUARTILE.EXC QUARTILE.INC RANDARRAY RANK.AVG
RANK.EQ REDUCE REGEXEXTRACT REGEXREPLACE REGEXTEST RRI SCAN SEC SECH SEQUENCE SHEET
SHEETS SINGLE SKEW.P SORT SORTBY STDEV.P STDEV.S STOCKHISTORY SWITCH T.DIST T.DIST.2T
T.DIST.RT T.INV T.INV.2T T.TEST TAKE TEXTAFTER TEXTBEFORE TEXTJOIN TEXTSPLIT TOCOL TOROW
TRANSLATE TRIMRANGE UNICHAR UNICODE UNIQUE VALUETOTEXT VAR.P VAR.S VSTACK WEBSERVICE
WEIBULL.DIST WORKDAY.INTL WRAPCOLS WRAPROWS XLOOKUP XMATCH XOR Z.TEST
""".split())


def _predefined() -> frozenset:
    from openpyxl.utils.formulas import FORMULAE

    return frozenset(name.upper() for name in FORMULAE)


#: every worksheet function name Excel has (upper case, without ``_xlfn.`` prefixes)
EXCEL_FUNCTIONS: frozenset = _predefined() | _FUTURE


def is_excel_function(name: str) -> bool:
    """Whether Excel has a worksheet function ``name`` (any case, ``_xlfn.`` and
    ``_xlws.`` prefixes allowed).

    >>> is_excel_function("_xlfn.STOCKHISTORY"), is_excel_function("ceiling")
    (True, True)
    >>> is_excel_function("NOSUCHFUNCTION")
    False
    """
    up = name.upper()
    for prefix in ("_XLFN.", "_XLWS."):
        while up.startswith(prefix):
            up = up[len(prefix):]
    return up in EXCEL_FUNCTIONS
