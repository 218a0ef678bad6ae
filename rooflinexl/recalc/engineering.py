"""Excel's engineering, text and matrix functions that were borrowed from ``formulas``,
written from Microsoft's documentation.

Complex arithmetic (``IMSUM`` ... ``IMCSCH``), ``CONVERT``, ``NUMBERVALUE``, the
regular-expression functions (``REGEXTEST``, ``REGEXEXTRACT``, ``REGEXREPLACE``),
``ROMAN``, ``VALUETOTEXT``, ``PERCENTOF``, ``MINVERSE``, ``ASC`` and ``LENB``. Each is
an entry of the engine's function table (:data:`rooflinexl.recalc.functions.BUILTINS`),
called through the one adapter of both evaluation paths with values as spreadsheet hosts
pass them (``None`` for an empty cell, ``bool``, numbers, ``str``,
:class:`~rooflinexl.errors.ExcelError`; a range as a list of row lists; a block column as a
numpy ``(m, 1)`` object array), as in :mod:`rooflinexl.recalc.scalars`, whose argument
rules (:func:`~rooflinexl.recalc.scalars.lift`) they share.

>>> from rooflinexl.recalc.functions import BUILTINS
>>> BUILTINS["IMSUM"]("3+4i", "5-3i"), BUILTINS["CONVERT"](1, "lbm", "kg")
('8+i', 0.45359237)
"""
from __future__ import annotations

import cmath
import math
import re

from rooflinexl.errors import ExcelError
from rooflinexl.recalc.functions import (
    BUILTINS,
    complex_text,
    imcsc,
    imlog2,
    minverse,
    value_text,
)
from rooflinexl.recalc.scalars import Fail, excel_number, excel_text, inumber, lift

__all__ = ["ENGINEERING", "convert", "pcre_pattern", "roman"]

#: the functions of this module, by Excel name (all added to BUILTINS)
ENGINEERING: dict = {}
#: an argument left out (not an empty cell)
_OMITTED = object()


def _no_column(args) -> None:
    """Functions of several values take no block column: the block evaluator then calls
    them row by row."""
    if any(hasattr(a, "shape") for a in args):
        raise TypeError("a block column")  # row by row


def _is_range(a) -> bool:
    """Whether a host argument is a range or array of more than one value."""
    return isinstance(a, list) and (len(a) > 1 or bool(a) and isinstance(a[0], list)
                                    and len(a[0]) > 1)


def _flat(args):
    """Every value of the arguments, ranges and arrays row by row."""
    for a in args:
        if isinstance(a, list):
            for row in (a if a and isinstance(a[0], list) else [a]):
                yield from row
        else:
            yield a


# ------------------------------------------------------------------ complex numbers
# Microsoft, "Engineering functions" (IMSUM, IMSUB, IMPRODUCT, IMDIV, IMPOWER, IMSQRT,
# IMEXP, IMLN, IMLOG10, IMLOG2, IMSIN ... IMCSCH pages, read 2026-12-01): inumber is
# "x+yi" or "x+yj" text or a number; text that is no complex number is #NUM!; the result
# is text written with 15 significant digits, with the suffix of the arguments ("i"
# unless one is written with "j"; "i" and "j" mixed is #NUM!: the `formulas` project's
# test.xlsx, saved by Excel, ENGINEERING!T38 IMDIV and T51 IMSUB; #VALUE! in IMSUM and
# IMPRODUCT, S52, T44). They come from the Analysis ToolPak: a boolean is #VALUE! and so
# is a range where one value belongs; IMDIV and IMSUB meet their arguments in order
# (IMDIV("yvj", TRUE) is #NUM!, IMDIV(TRUE, #VALUE!) #VALUE!: X38, Y38 there).


def _suffix(suffixes, mixed: str = "#NUM!") -> str:
    """The suffix of a result; "i" and "j" together are the error ``mixed``."""
    written = {s for s, explicit in suffixes if explicit}
    if len(written) > 1:
        raise Fail(mixed, "complex numbers written with both i and j")
    return written.pop() if written else "i"


def _parsed(x, name: str) -> tuple[complex, tuple[str, bool]]:
    """(z, (suffix, whether the text wrote one)) of one inumber argument."""
    if isinstance(x, bool):
        raise Fail("#VALUE!", f"{name}: a boolean is not a complex number", conversion=True)
    z, sfx = inumber(x, name)
    explicit = isinstance(x, str) and x.strip()[-1:] in ("i", "j") and \
        not isinstance(x, ExcelError)
    return z, (sfx, explicit)


def _text_of(z: complex, sfx: str, name: str) -> str:
    re_, im = z.real, z.imag
    if not (math.isfinite(re_) and math.isfinite(im)):
        raise Fail("#NUM!", f"{name}: the result is not a finite complex number")
    return complex_text(re_ + 0.0, im + 0.0, sfx)


def _unary(name: str, fn):
    """An IM function of one inumber, ``fn(z) -> complex`` (raising ZeroDivisionError,
    OverflowError or ValueError where Excel gives #NUM!)."""
    def one(x):
        z, s = _parsed(x, name)
        try:
            w = fn(z)
        except (ZeroDivisionError, OverflowError, ValueError) as ex:
            raise Fail("#NUM!", f"{name}({x}): {ex}") from None
        return _text_of(w, _suffix([s]), name)
    one.__doc__ = fn.__doc__
    ENGINEERING[name] = lift(name, one, 1, 1, atp=True)


def _polar(z: complex, p: float) -> complex:
    """z**p as Excel computes it: r**p (cos p*theta + i sin p*theta) (so IMSQRT("-1") has
    the real part 6.12323399573677E-17 of cos(pi/2): IronCalc's COMPLEXs.xlsx, saved by
    Excel, IMREAL(IMSQRT(-1)))."""
    r, t = abs(z), math.atan2(z.imag, z.real)
    if r == 0:
        if p <= 0:
            raise ZeroDivisionError("0 to a power of 0 or below")
        return 0j
    m = r ** p
    return complex(m * math.cos(p * t), m * math.sin(p * t))


def _sin(z):
    return complex(math.sin(z.real) * math.cosh(z.imag), math.cos(z.real) * math.sinh(z.imag))


def _cos(z):
    return complex(math.cos(z.real) * math.cosh(z.imag), -math.sin(z.real) * math.sinh(z.imag))


def _sinh(z):
    return complex(math.sinh(z.real) * math.cos(z.imag), math.cosh(z.real) * math.sin(z.imag))


def _cosh(z):
    return complex(math.cosh(z.real) * math.cos(z.imag), math.sinh(z.real) * math.sin(z.imag))


def _tan(z: complex, cot: bool) -> complex:
    """tan z = (sin 2x + i sinh 2y) / (cos 2x + cosh 2y), cot z = (sin 2x - i sinh 2y) /
    (cosh 2y - cos 2x): the forms whose rounding is Excel's (IronCalc's COMPLEXs.xlsx,
    saved by Excel: IMREAL(IMTAN("-23.1234-45.899i")) is -2.0870098138858E-40, where
    sin z / cos z gives 0); of a real number cos x / sin x (IMCOT("1E-16") is 1E+16,
    where cosh 0 - cos 2E-16 is 0)."""
    if z.imag == 0:
        s, c = math.sin(z.real), math.cos(z.real)
        return complex(_real_quotient(c, s) if cot else _real_quotient(s, c))
    x2, y2 = 2 * z.real, 2 * z.imag
    d = math.cosh(y2) - math.cos(x2) if cot else math.cos(x2) + math.cosh(y2)
    if d == 0:
        raise ZeroDivisionError("division by 0")
    return complex(math.sin(x2) / d, (-1 if cot else 1) * math.sinh(y2) / d)


def _real_quotient(a: float, b: float) -> float:
    if b == 0:
        raise ZeroDivisionError("division by 0")
    return a / b


def _ln(z):
    if z == 0:
        raise ValueError("the logarithm of 0")
    return complex(math.log(abs(z)), math.atan2(z.imag, z.real))


def _inverse(z):
    if z == 0:
        raise ZeroDivisionError("division by 0")
    return 1 / z


for _name, _fn in (
        ("IMSQRT", lambda z: _polar(z, 0.5)),
        ("IMEXP", lambda z: cmath.exp(z)),
        ("IMLN", _ln),
        ("IMLOG10", lambda z: _ln(z) / math.log(10)),
        ("IMLOG2", lambda z: imlog2(z) if z != 0 else _ln(z)),
        ("IMSIN", _sin), ("IMCOS", _cos),
        ("IMTAN", lambda z: _tan(z, False)), ("IMCOT", lambda z: _tan(z, True)),
        ("IMSEC", lambda z: _inverse(_cos(z))),
        ("IMCSC", lambda z: imcsc(z) if z != 0 else _inverse(z)),
        ("IMSINH", _sinh), ("IMCOSH", _cosh),
        ("IMSECH", lambda z: _inverse(_cosh(z))),
        ("IMCSCH", lambda z: _inverse(_sinh(z)))):
    _unary(_name, _fn)
del _name, _fn


def _impower(x, number):
    """IMPOWER(inumber, number): inumber to a real power, r^n (cos n*t + i sin n*t)
    (Microsoft's example: IMPOWER("2+3i", 3) is -46+9i).

    >>> _impower("2+3i", 3)
    '-46+9.00000000000001i'
    """
    z, s = _parsed(x, "IMPOWER")
    if isinstance(number, bool):
        raise Fail("#VALUE!", "IMPOWER: a boolean is not a number", conversion=True)
    p = excel_number(number, "number")
    try:
        w = _polar(z, p)
    except (ZeroDivisionError, OverflowError) as ex:
        raise Fail("#NUM!", f"IMPOWER: {ex}") from None
    return _text_of(w, _suffix([s]), "IMPOWER")


def _imdiv(x, y):
    """IMDIV(inumber1, inumber2): the quotient; by 0 #NUM! (Microsoft's example:
    IMDIV("-238+240i", "10+24i") is 5+12i).

    >>> _imdiv("-238+240i", "10+24i")
    '5+12i'
    """
    a, s1 = _parsed(x, "IMDIV")
    b, s2 = _parsed(y, "IMDIV")
    if b == 0:
        raise Fail("#NUM!", "IMDIV: division by 0")
    # Smith's division (Python's): the rounding of Excel's IMDIV(IMLOG2(...), IMLOG10(...))
    # in SheetJS's formula_stress_test.xlsx, 3.32192809488737-8.28846662730513E-15j, where
    # a * conj(b) / |b|^2 gives ...-8.11707666704866E-15j
    return _text_of(a / b, _suffix([s1, s2]), "IMDIV")


def _imsub(x, y):
    """IMSUB(inumber1, inumber2): the difference (Microsoft's example: IMSUB("13+4i",
    "5+3i") is 8+i).

    >>> _imsub("13+4i", "5+3i")
    '8+i'
    """
    a, s1 = _parsed(x, "IMSUB")
    b, s2 = _parsed(y, "IMSUB")
    return _text_of(a - b, _suffix([s1, s2]), "IMSUB")


ENGINEERING["IMPOWER"] = lift("IMPOWER", _impower, 2, 2, atp=True)
def _in_order(name: str, fn):
    """An Analysis ToolPak function of two values whose errors come in argument order: a
    range where a value belongs is #VALUE! (test.xlsx ENGINEERING!AG38, {=IMDIV(C38:D38,
    C37:D37)})."""
    lifted = lift(name, fn, 2, 2)

    def call(*args):
        if any(_is_range(a) for a in args):
            return ExcelError("#VALUE!", f"{name}: a range where one value belongs")
        return lifted(*args)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = fn.__doc__
    call.elementwise = True
    return call


ENGINEERING["IMDIV"] = _in_order("IMDIV", _imdiv)
ENGINEERING["IMSUB"] = _in_order("IMSUB", _imsub)


def _fold(name: str, product: bool):
    def call(*args):
        if not 1 <= len(args) <= 255:
            return ExcelError("#VALUE!", f"{name} takes 1 to 255 arguments")
        _no_column(args)
        try:
            acc, sfx = (1 + 0j if product else 0j), []
            for v in _flat(args):
                if isinstance(v, ExcelError):
                    return v
                z, s = _parsed(0 if v is None else v, name)  # an empty cell is 0
                sfx.append(s)
                acc = complex(acc.real * z.real - acc.imag * z.imag,
                              acc.real * z.imag + acc.imag * z.real) if product else acc + z
            return _text_of(acc, _suffix(sfx, "#VALUE!"), name)
        except Fail as ex:
            return ex.error

    call.__name__ = call.__qualname__ = name
    call.__doc__ = (f"{name}(inumber1, [inumber2], ...): the "
                    f"{'product' if product else 'sum'} of the complex numbers.")
    return call


ENGINEERING["IMSUM"] = _fold("IMSUM", False)
ENGINEERING["IMPRODUCT"] = _fold("IMPRODUCT", True)


# ------------------------------------------------------------------------- CONVERT
# Microsoft, "CONVERT function" (read 2026-12-01): units by measurement kind, case
# sensitive; a decimal prefix (Y 1E+24 ... y 1E-24, da 10) before a metric unit, a binary
# prefix (ki 2^10 ... Yi 2^80) before bit or byte; units of different kinds or a unit not
# in the list are #N/A. A squared or cubed metric unit takes the prefix squared or cubed
# ("km2" is 1E+06 m2). Factors: exact definitions (NIST SP 811) where Excel uses them, else
# the constants Excel uses (lbf 4.4482216152605 N, u 1.660538782E-24 g, eV
# 1.602176487E-19 J, psi, BTU, HP: checked against Excel-saved CONVERT books, IronCalc's
# CONVERT.xlsx and the `formulas` project's test.xlsx ENGINEERING sheet).

_IN, _FT, _MI, _NMI = 0.0254, 0.3048, 1609.344, 1852.0
_LY, _PICA = 9460730472580800.0, 0.0254 / 72
_LBF = 4.4482216152605
#: kind -> {unit: factor to the kind's base unit}
_UNITS: dict[str, dict[str, float]] = {
    "mass": {"g": 1.0, "sg": _LBF / _FT * 1000, "lbm": 453.59237, "u": 1.660538782e-24,
             "ozm": 28.349523125, "grain": 0.06479891, "cwt": 45359.237,
             "shweight": 45359.237, "uk_cwt": 50802.34544, "lcwt": 50802.34544,
             "hweight": 50802.34544, "stone": 6350.29318, "ton": 907184.74,
             "uk_ton": 1016046.9088, "LTON": 1016046.9088, "brton": 1016046.9088},
    "distance": {"m": 1.0, "mi": _MI, "Nmi": _NMI, "in": _IN, "ft": _FT, "yd": 0.9144,
                 "ang": 1e-10, "ell": 1.143, "ly": _LY, "parsec": 30856775812815500.0,
                 "pc": 30856775812815500.0, "Picapt": _PICA, "Pica": _PICA,
                 "pica": _IN / 6, "survey_mi": 6336000 / 3937},
    "time": {"yr": 31557600.0, "day": 86400.0, "d": 86400.0, "hr": 3600.0, "mn": 60.0,
             "min": 60.0, "sec": 1.0, "s": 1.0},
    "pressure": {"Pa": 1.0, "p": 1.0, "atm": 101325.0, "at": 101325.0, "mmHg": 133.322,
                 "psi": 6894.75729316836, "Torr": 101325 / 760},
    "force": {"N": 1.0, "dyn": 1e-5, "dy": 1e-5, "lbf": _LBF, "pond": 9.80665e-3},
    "energy": {"J": 1.0, "e": 1e-7, "c": 4.184, "cal": 4.1868, "eV": 1.602176487e-19,
               "ev": 1.602176487e-19, "HPh": 2684519.53769617, "hh": 2684519.53769617,
               "Wh": 3600.0, "wh": 3600.0, "flb": _LBF * _FT, "BTU": 1055.05585262,
               "btu": 1055.05585262},
    "power": {"HP": 745.69987158227, "h": 745.69987158227, "PS": 735.49875, "W": 1.0,
              "w": 1.0},
    "magnetism": {"T": 1.0, "ga": 1e-4},
    # a temperature's factor is that of its prefix ("mK"): the scale goes through Celsius
    "temperature": {"C": 1.0, "cel": 1.0, "F": 1.0, "fah": 1.0, "K": 1.0, "kel": 1.0,
                    "Rank": 1.0, "Reau": 1.0},
    "volume": {"tsp": 4.92892159375e-6, "tspm": 5e-6, "tbs": 1.478676478125e-5,
               "oz": 2.95735295625e-5, "cup": 2.365882365e-4, "pt": 4.73176473e-4,
               "us_pt": 4.73176473e-4, "uk_pt": 5.6826125e-4, "qt": 9.46352946e-4,
               "uk_qt": 1.1365225e-3, "gal": 3.785411784e-3, "uk_gal": 4.54609e-3,
               "l": 1e-3, "L": 1e-3, "lt": 1e-3, "barrel": 0.158987294928,
               "bushel": 0.03523907016688, "GRT": 2.8316846592, "regton": 2.8316846592,
               "MTON": 1.13267386368},
    "area": {"uk_acre": 4046.8564224, "us_acre": 4046.87260987425, "ar": 100.0,
             "ha": 10000.0, "Morgen": 2500.0},
    "information": {"bit": 1.0, "byte": 8.0},
    "speed": {"admkn": 6080 * _FT / 3600, "kn": _NMI / 3600, "m/h": 1 / 3600,
              "m/hr": 1 / 3600, "m/s": 1.0, "m/sec": 1.0, "mph": _MI / 3600},
}
for _unit, _f in (("ang", 1e-10), ("ft", _FT), ("in", _IN), ("ly", _LY), ("m", 1.0),
                  ("mi", _MI), ("Nmi", _NMI), ("yd", 0.9144), ("Pica", _PICA),
                  ("Picapt", _PICA)):
    for _p, _kind in ((2, "area"), (3, "volume")):
        _UNITS[_kind][f"{_unit}{_p}"] = _UNITS[_kind][f"{_unit}^{_p}"] = _f ** _p
del _unit, _f, _p, _kind
_KIND = {u: k for k, units in _UNITS.items() for u in units}
#: units a decimal prefix may stand before (the metric ones), with the power it takes
_PREFIXABLE = {u: 1 for u in (
    "g", "u", "m", "ang", "ly", "parsec", "pc", "sec", "s", "Pa", "p", "atm", "at",
    "mmHg", "N", "dyn", "dy", "pond", "J", "e", "c", "cal", "eV", "ev", "Wh", "wh", "W",
    "w", "T", "ga", "K", "kel", "l", "L", "lt", "ar", "bit", "byte", "m/h", "m/hr", "m/s",
    "m/sec", "mph", "uk_pt")}
_PREFIXABLE.update({"m2": 2, "m^2": 2, "ang2": 2, "ang^2": 2, "m3": 3, "m^3": 3,
                    "ang3": 3, "ang^3": 3})
_DECIMAL = {"Y": 1e24, "Z": 1e21, "E": 1e18, "P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6,
            "k": 1e3, "h": 1e2, "da": 1e1, "e": 1e1, "d": 1e-1, "c": 1e-2, "m": 1e-3,
            "u": 1e-6, "n": 1e-9, "p": 1e-12, "f": 1e-15, "a": 1e-18, "z": 1e-21,
            "y": 1e-24}
_BINARY = {"ki": 2.0 ** 10, "Mi": 2.0 ** 20, "Gi": 2.0 ** 30, "Ti": 2.0 ** 40,
           "Pi": 2.0 ** 50, "Ei": 2.0 ** 60, "Zi": 2.0 ** 70, "Yi": 2.0 ** 80}


def _units(text: str) -> list[tuple[str, str, float]]:
    """Every reading (kind, base unit, factor) of a unit as written, the unit itself
    first, then with a prefix ("pc" is a parsec, or a picocalorie)."""
    out = []
    if text in _KIND:
        out.append((_KIND[text], text, _UNITS[_KIND[text]][text]))
    for k in (1, 2):
        pre, base = text[:k], text[k:]
        if base in _UNITS["information"] and pre in _BINARY:
            out.append(("information", base, _BINARY[pre] * _UNITS["information"][base]))
        if base in _PREFIXABLE and pre in _DECIMAL:
            kind = _KIND[base]
            out.append((kind, base, _DECIMAL[pre] ** _PREFIXABLE[base] * _UNITS[kind][base]))
    if not out:
        raise Fail("#N/A", f"CONVERT: unknown unit {text!r}")
    return out


#: temperatures to and from degrees Celsius
_TO_C = {"C": lambda v: v, "F": lambda v: (v - 32) / 1.8, "K": lambda v: v - 273.15,
         "Rank": lambda v: (v - 491.67) / 1.8, "Reau": lambda v: v * 1.25}
_FROM_C = {"C": lambda c: c, "F": lambda c: c * 1.8 + 32, "K": lambda c: c + 273.15,
           "Rank": lambda c: (c + 273.15) * 1.8, "Reau": lambda c: c * 0.8}
_TEMPERATURE = {"cel": "C", "fah": "F", "kel": "K"}


def convert(number: float, from_unit: str, to_unit: str) -> float:
    """``number`` in ``from_unit`` as a number of ``to_unit`` (Excel's CONVERT).

    Parameters
    ----------
    number : float
        The value in ``from_unit``.
    from_unit, to_unit : str
        Units as Microsoft's "CONVERT function" page writes them, case sensitive, with a
        decimal prefix before a metric unit or a binary one before bit or byte.

    Returns
    -------
    float
        ``number * factor(from_unit) / factor(to_unit)``; temperatures through degrees
        Celsius.

    Raises
    ------
    rooflinexl.recalc.scalars.Fail
        ``#N/A``: a unit not in the list, or units of different kinds.

    Examples
    --------
    Microsoft's examples:

    >>> convert(1, "lbm", "kg"), round(convert(68, "F", "C"), 12)
    (0.45359237, 20.0)
    >>> round(convert(2.5, "ft", "sec"), 3)
    Traceback (most recent call last):
    ...
    rooflinexl.recalc.scalars.Fail: CONVERT: ft and sec are of different kinds
    >>> round(convert(100, "ft2", "m2"), 6), convert(1, "kibyte", "bit")
    (9.290304, 8192.0)
    """
    pairs = [(a, b) for a in _units(from_unit) for b in _units(to_unit) if a[0] == b[0]]
    if not pairs:  # the first readings of each that are of one kind (the test.xlsx's
        # EXTRA!AN59: CONVERT(1, "pc", "J") is 4.184E-12, a picocalorie)
        raise Fail("#N/A", f"CONVERT: {from_unit} and {to_unit} are of different kinds")
    (k1, u1, f1), (_, u2, f2) = pairs[0]
    t1, t2 = _TEMPERATURE.get(u1, u1), _TEMPERATURE.get(u2, u2)
    if k1 == "temperature" and t1 != t2:
        return _FROM_C[t2](_TO_C[t1](number * f1)) / f2
    return number * f1 / f2  # also kelvin to kelvin ("uK" to "K" is 1E-06, test.xlsx)


def _convert(number, from_unit, to_unit):
    """CONVERT(number, from_unit, to_unit) (see :func:`convert`)."""
    v = excel_number(number, "number")
    if isinstance(from_unit, ExcelError) or isinstance(to_unit, ExcelError):
        raise Fail.passing(from_unit if isinstance(from_unit, ExcelError) else to_unit)
    if not isinstance(from_unit, str) or not isinstance(to_unit, str):
        raise Fail("#N/A", "CONVERT: a unit must be text")
    return convert(v, from_unit, to_unit)


ENGINEERING["CONVERT"] = lift("CONVERT", _convert, 3, 3, atp=True)


# ---------------------------------------------------------- regular expressions
# Microsoft, "REGEXTEST function", "REGEXEXTRACT function", "REGEXREPLACE function" (read
# 2026-12-01): patterns are PCRE2's; case_sensitivity 0 (the default) case-sensitive, 1
# not; REGEXEXTRACT's return_mode 0 the first match, 1 every match (a row), 2 the capture
# groups of the first match (a row), no match #N/A; REGEXREPLACE's occurrence 0 every
# match, n the n-th, -n the n-th from the end; in the replacement $n and ${n} are groups.
# Python's ``re`` reads most of PCRE2's syntax alike; a construct it reads otherwise or
# not at all is #VALUE! naming it, never a different match.

#: PCRE2 escapes Python's re lacks or reads otherwise (\v is a vertical space to PCRE2, a
#: VT character to Python; \Z also matches before a final newline in PCRE2)
_PCRE_ONLY = {"Q": r"\Q...\E quoting", "E": r"\Q...\E quoting", "K": r"\K",
              "G": r"\G", "R": r"\R", "X": r"\X", "h": r"\h", "H": r"\H", "v": r"\v",
              "V": r"\V", "N": r"\N", "p": r"\p{...}", "P": r"\P{...}", "e": r"\e",
              "c": r"\cX", "o": r"\o{...}", "g": r"\g", "Z": r"\Z", "z": r"\z",
              "C": r"\C", "x": r"\x{...}", "u": r"\u (Python's)", "U": r"\U (Python's)"}
#: classes whose members differ between PCRE2 and Python for text beyond ASCII
_UNICODE_CLASSES = set("dDwWsSb")


def pcre_pattern(pattern: str, ascii_text: bool) -> str:
    """A PCRE2 pattern as Python's ``re`` writes it: ``(?<name>`` as ``(?P<name>``,
    ``\\k<name>`` as ``(?P=name)``; constructs Python reads otherwise are refused.

    Parameters
    ----------
    pattern : str
        The pattern as Excel's REGEX functions take it.
    ascii_text : bool
        Whether the text searched is ASCII only: else ``\\d``, ``\\w``, ``\\s`` and ``\\b``,
        which Python extends to every Unicode digit, letter and space, are refused.

    Raises
    ------
    rooflinexl.recalc.scalars.Fail
        ``#VALUE!`` naming the construct.

    Examples
    --------
    >>> pcre_pattern(r"(?<year>\\d{4})-\\k<year>", True)
    '(?P<year>\\\\d{4})-(?P=year)'
    >>> pcre_pattern(r"\\p{Lu}", True)
    Traceback (most recent call last):
    ...
    rooflinexl.recalc.scalars.Fail: REGEX: the pattern's \\p{...} (PCRE2) is not supported
    """
    out, i, n, depth = [], 0, len(pattern), 0

    def refuse(what: str):
        raise Fail("#VALUE!", f"REGEX: the pattern's {what} (PCRE2) is not supported")

    in_class = False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            nxt = pattern[i + 1:i + 2]
            if nxt in _PCRE_ONLY and not (nxt == "x" and re.match(r"[0-9A-Fa-f]{2}",
                                                                   pattern[i + 2:i + 4])):
                refuse(_PCRE_ONLY[nxt])
            if nxt == "k":
                m = re.match(r"k(?:<(\w+)>|\{(\w+)\}|'(\w+)')", pattern[i + 1:])
                if not m or in_class:
                    refuse(r"\k")
                out.append(f"(?P={next(g for g in m.groups() if g)})")
                i += 1 + m.end()
                continue
            if nxt in _UNICODE_CLASSES and not ascii_text:
                refuse(f"\\{nxt} on text beyond ASCII")
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch == "[" and pattern[i + 1:i + 2] in (":", ".", "="):
                refuse("POSIX class [:...:]")
            if ch == "]" and not (out and out[-1] in ("[", "[^")):
                in_class = False
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            in_class = True
            if pattern[i + 1:i + 2] == "^":
                out.append("[^")
                i += 2
            else:
                out.append("[")
                i += 1
            if pattern[i:i + 1] == "]":  # a leading ] is a member in both
                out.append("\\]")
                i += 1
            continue
        if ch == "(":
            depth += 1
            rest = pattern[i + 1:]
            if rest.startswith("*"):
                refuse("(*VERB)")
            if rest.startswith("?"):
                m = re.match(r"\?<(\w+)>", rest) or re.match(r"\?'(\w+)'", rest) or \
                    re.match(r"\?P<(\w+)>", rest)
                if m:
                    out.append(f"(?P<{m.group(1)}>")
                    i += 1 + m.end()
                    continue
                if re.match(r"\?(?:[:=!>]|<[=!]|#|\(|[aimsxu-]*[:)])", rest) is None:
                    refuse(f"({rest[:3]}")
        elif ch in "*+?}" and pattern[i + 1:i + 2] == "+":
            refuse("possessive quantifier")
        elif ch == "{" and re.match(r"\{,\d+\}", pattern[i:]):
            refuse("{,n}")  # a quantifier to Python, literal text to PCRE2 before 10.43
        out.append(ch)
        i += 1
    return "".join(out)


def _regex(pattern, case_sensitivity, text: str):
    if isinstance(pattern, ExcelError):
        raise Fail.passing(pattern)
    p = excel_text(pattern)
    mode = 0 if case_sensitivity is None else math.trunc(excel_number(case_sensitivity,
                                                                       "case_sensitivity"))
    if mode not in (0, 1):
        raise Fail("#VALUE!", f"REGEX: case_sensitivity {mode} is not 0 or 1")
    try:
        return re.compile(pcre_pattern(p, text.isascii()), re.IGNORECASE if mode else 0)
    except re.error as ex:
        raise Fail("#VALUE!", f"REGEX: the pattern {p!r} is not valid ({ex})") from None


def _regextest(text, pattern, case_sensitivity=None):
    """REGEXTEST(text, pattern, [case_sensitivity]): whether any part of the text matches
    (Microsoft's example: REGEXTEST("alpha", "[a-z]") is TRUE).

    >>> _regextest("Mr. Sherlock Holmes", "[A-Z]her"), _regextest("abc", "[0-9]+")
    (True, False)
    """
    t = excel_text(text)
    return _regex(pattern, case_sensitivity, t).search(t) is not None


def _regexextract(text, pattern, return_mode=None, case_sensitivity=None):
    """REGEXEXTRACT(text, pattern, [return_mode], [case_sensitivity]) (see the notes).

    >>> _regexextract("LonelyPlanet", "[A-Z][a-z]+", 1)
    [['Lonely', 'Planet']]
    >>> _regexextract("DylanWilliams", "([A-Z][a-z]+)([A-Z][a-z]+)", 2)
    [['Dylan', 'Williams']]
    """
    t = excel_text(text)
    mode = 0 if return_mode is None else math.trunc(excel_number(return_mode, "return_mode"))
    if mode not in (0, 1, 2):
        raise Fail("#VALUE!", f"REGEXEXTRACT: return_mode {mode} is not 0, 1 or 2")
    rx = _regex(pattern, case_sensitivity, t)
    if mode == 1:
        found = [m.group(0) for m in rx.finditer(t)]
        if not found:
            raise Fail("#N/A", "REGEXEXTRACT: no match")
        return [found]
    m = rx.search(t)
    if m is None:
        raise Fail("#N/A", "REGEXEXTRACT: no match")
    if mode == 0:
        return m.group(0)
    if not m.groups():
        raise Fail("#VALUE!", "REGEXEXTRACT: the pattern has no capture group")
    # a group that took no part in the match is #N/A (test.xlsx EXTRA!O3:
    # REGEXEXTRACT("1a2b3c", "((\d)[bc]+|(3c))", 2) is 2b, 2, #N/A)
    return [[ExcelError("#N/A", "REGEXEXTRACT: the group took no part in the match")
             if g is None else g for g in m.groups()]]


def _replacement(text: str, m: re.Match) -> str:
    """PCRE2's replacement text for match ``m``: $n and ${n} (or a name) its group, $$ a
    dollar; anything else itself (a backslash too)."""
    def group(k: str) -> str:
        try:
            g = m.group(int(k) if k.isdigit() else k)
        except IndexError:
            raise Fail("#VALUE!", f"REGEXREPLACE: no group {k} in the pattern") from None
        return g or ""

    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "$" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
                continue
            br = re.match(r"\{(\w+)\}", text[i + 1:])
            if br:
                out.append(group(br.group(1)))
                i += 1 + br.end()
                continue
            d = re.match(r"\d+", text[i + 1:])
            if d:
                out.append(group(d.group(0)))
                i += 1 + d.end()
                continue
            raise Fail("#VALUE!", f"REGEXREPLACE: ${nxt} in the replacement is not supported")
        out.append(ch)
        i += 1
    return "".join(out)


def _regexreplace(text, pattern, replacement, occurrence=None, case_sensitivity=None):
    """REGEXREPLACE(text, pattern, replacement, [occurrence], [case_sensitivity]).

    >>> _regexreplace("JamesBond", "([A-Z][a-z]+)([A-Z][a-z]+)", "$2, $1 $2")
    'Bond, James Bond'
    >>> _regexreplace("a1b2c3", "[0-9]", "#", -1)
    'a1b2c#'
    """
    t = excel_text(text)
    rep = excel_text(replacement)
    k = 0 if occurrence is None else math.trunc(excel_number(occurrence, "occurrence"))
    rx = _regex(pattern, case_sensitivity, t)
    found = list(rx.finditer(t))
    if k:
        idx = k - 1 if k > 0 else len(found) + k
        found = [found[idx]] if 0 <= idx < len(found) else []
    out, last = [], 0
    for m in found:
        out.append(t[last:m.start()])
        out.append(_replacement(rep, m))
        last = m.end()
    out.append(t[last:])
    return "".join(out)


ENGINEERING["REGEXTEST"] = lift("REGEXTEST", _regextest, 2, 3)
def _first(fn):
    def one(*args):
        r = fn(*args)
        return r[0][0] if isinstance(r, list) else r
    return one


_EXTRACT = lift("REGEXEXTRACT", _regexextract, 2, 4)
_EXTRACT_EACH = lift("REGEXEXTRACT", _first(_regexextract), 2, 4)


def _regexextract_call(*args):
    # over a range of texts or modes one value per element: the first of each result
    # (test.xlsx EXTRA!J3:J4, {=REGEXEXTRACT(H2:H3, ..., G2:G3)})
    if any(_is_range(a) for a in args):
        return _EXTRACT_EACH(*args)
    return _EXTRACT(*args)


_regexextract_call.__doc__ = _regexextract.__doc__
ENGINEERING["REGEXEXTRACT"] = _regexextract_call
ENGINEERING["REGEXREPLACE"] = lift("REGEXREPLACE", _regexreplace, 3, 5)


# --------------------------------------------------------------------------- ROMAN
# Microsoft, "ROMAN function" (read 2026-12-01): ROMAN(number, [form]), number 0 to 3999
# (truncated; else #VALUE!), form 0 (or TRUE, or omitted) classic to 4 (or FALSE)
# simplified: each form lets a subtractive pair reach one more place further
# (ROMAN(499, 0..4): CDXCIX, LDVLIV, XDIX, VDIV, ID).

_NUMERALS = "MDCLXVI"
_VALUES = (1000, 500, 100, 50, 10, 5, 1)


def roman(number: int, form: int = 0) -> str:
    """``number`` (0 to 3999) in Roman numerals of ``form`` 0 (classic) to 4 (simplified).

    A digit of 4 or 9 in the place of numeral ``I_k`` is written as a subtractive pair
    whose smaller numeral may be up to ``form`` places below the usual one, as long as
    the pair's value still fits in what remains of the number.

    Examples
    --------
    Microsoft's examples:

    >>> [roman(499, f) for f in range(5)]
    ['CDXCIX', 'LDVLIV', 'XDIX', 'VDIV', 'ID']
    >>> roman(2013), roman(0)
    ('MMXIII', '')
    """
    out, rest = [], number
    for i in range(0, 7, 2):
        if not rest:
            break
        digit = rest // _VALUES[i]
        if digit % 5 == 4:
            big = i - 1 if digit == 4 else i - 2  # the numeral subtracted from
            small, steps = i, 0
            while steps < form and small < 6:
                steps += 1
                if _VALUES[big] - _VALUES[small + 1] <= rest:
                    small += 1
                else:
                    break
            out += [_NUMERALS[small], _NUMERALS[big]]
            rest += _VALUES[small] - _VALUES[big]
        else:
            if digit > 4:
                out.append(_NUMERALS[i - 1])
            out.append(_NUMERALS[i] * (digit % 5))
            rest %= _VALUES[i]
    return "".join(out)


def _roman(number, form=None):
    """ROMAN(number, [form]) (see :func:`roman`)."""
    v = math.trunc(excel_number(number, "number"))
    if isinstance(form, bool):
        f = 0 if form else 4
    else:
        f = 0 if form is None else math.trunc(excel_number(form, "form"))
    if not 0 <= v <= 3999:
        raise Fail("#VALUE!", f"ROMAN: {v} is not from 0 to 3999")
    if not 0 <= f <= 4:
        raise Fail("#VALUE!", f"ROMAN: form {f} is not from 0 to 4")
    return roman(v, f)


ENGINEERING["ROMAN"] = lift("ROMAN", _roman, 1, 2)


# --------------------------------------------------------------------- NUMBERVALUE
# Microsoft, "NUMBERVALUE function" (read 2026-12-01): NUMBERVALUE(text, [decimal_separator],
# [group_separator]); the first character of each separator is used; "" is 0; spaces are
# ignored, also inside the number; one or more % at the end each divide by 100; a group
# separator before the decimal separator is ignored, one after it, or more than one decimal
# separator, is #VALUE!; any other text is #VALUE!.

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _numbervalue(text, decimal_separator=_OMITTED, group_separator=_OMITTED):
    """NUMBERVALUE(text, [decimal_separator], [group_separator]) (Microsoft's examples;
    test.xlsx, saved by Excel, TEXT!R27:W28: accounting parentheses negate,
    ``NUMBERVALUE("(2,500.27%)%", ".", ",.,")`` is -0.250027, spaces go also inside an
    exponent, and a default group separator equal to the decimal one is none).

    >>> _numbervalue("2.500,27", ",", "."), _numbervalue("3.5%"), _numbervalue("")
    (2500.27, 0.035, 0.0)
    >>> _numbervalue("(,25,,0,0.27E + 6%)%", ".", ",.,")
    -250027.0
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text)
    t = excel_text(text)
    dec = "." if decimal_separator is _OMITTED else excel_text(decimal_separator)[:1]
    grp = "," if group_separator is _OMITTED else excel_text(group_separator)[:1]
    if not dec or not grp:  # an empty separator (test.xlsx TEXT!AB28, AC28)
        raise Fail("#VALUE!", "NUMBERVALUE: an empty separator")
    if dec == grp:
        if group_separator is not _OMITTED:
            raise Fail("#VALUE!", "NUMBERVALUE: the decimal and group separators are equal")
        grp = ""
    t = "".join(t.split())
    if t == "":
        return 0.0
    sign, after = 1.0, 0
    if t[:1] == "(" and "(" not in (dec, grp):  # accounting negative: (2.5%)%
        close = t.rfind(")")
        if close < 0 or t[close + 1:].strip("%") or t[1:2] in ("+", "-"):
            raise Fail("#VALUE!", f"NUMBERVALUE: {text!r} is not a number")
        sign, after, t = -1.0, len(t) - close - 1, t[1:close]
    body = t.rstrip("%")
    pct = after + len(t) - len(body)
    if body.count(dec) > 1:
        raise Fail("#VALUE!", f"NUMBERVALUE: {text!r} has more than one decimal separator")
    whole, sep, frac = body.partition(dec)
    if grp and grp in frac:
        raise Fail("#VALUE!", "NUMBERVALUE: a group separator after the decimal one")
    num = (whole.replace(grp, "") if grp else whole) + ("." if sep else "") + frac
    if not _NUMBER.fullmatch(num):
        raise Fail("#VALUE!", f"NUMBERVALUE: {text!r} is not a number")
    return sign * float(num) / 100.0 ** pct


ENGINEERING["NUMBERVALUE"] = lift("NUMBERVALUE", _numbervalue, 1, 3)


# ----------------------------------------------------------- VALUETOTEXT, PERCENTOF


def _valuetotext(value, format=None):  # noqa: A002 - Excel's argument name
    """VALUETOTEXT(value, [format]): format 0 (concise) text as it is, 1 (strict) text in
    double quotes; numbers with 15 significant digits, booleans and error values as
    written (Microsoft, "VALUETOTEXT function").

    >>> _valuetotext("Hello"), _valuetotext("Hello", 1), _valuetotext(1234.01234)
    ('Hello', '"Hello"', '1234.01234')
    """
    if isinstance(format, ExcelError):
        raise Fail.passing(format)
    mode = 0 if format is None else math.trunc(excel_number(format, "format"))
    if mode not in (0, 1):
        raise Fail("#VALUE!", f"VALUETOTEXT: format {mode} is not 0 or 1")
    if value is None:
        return ""
    if isinstance(value, (ExcelError, bool, int, float)):
        return value_text(value)
    return '"' + value.replace('"', '""') + '"' if mode else value


ENGINEERING["VALUETOTEXT"] = lift("VALUETOTEXT", _valuetotext, 1, 2, errors=True)


def _sum_of(x, what: str) -> float:
    """SUM's rules: in a range only numbers count; a value given itself is read as a
    number; an error value anywhere is #NUM! (test.xlsx, saved by Excel, MATH &
    TRIG!W49:AF49: PERCENTOF over ranges holding #VALUE!, #N/A ... #REF! is #NUM!)."""
    if isinstance(x, ExcelError):
        raise Fail("#NUM!", f"PERCENTOF: {what} is an error value")
    if isinstance(x, list):
        total = 0.0
        for v in _flat([x]):
            if isinstance(v, ExcelError):
                raise Fail("#NUM!", f"PERCENTOF: {what} holds an error value")
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                total += v
        return total
    return excel_number(x, what)


def _percentof(data_subset, data_all):
    """PERCENTOF(data_subset, data_all): SUM(data_subset) / SUM(data_all); a total of 0 is
    #DIV/0! (Microsoft, "PERCENTOF function").

    >>> _percentof([[10, 20]], [[10, 20, 70]])
    0.3
    """
    try:
        _no_column([data_subset, data_all])
        part, total = _sum_of(data_subset, "data_subset"), _sum_of(data_all, "data_all")
        if total == 0:
            return ExcelError("#DIV/0!", "PERCENTOF: the total is 0")
        return part / total
    except Fail as ex:
        return ex.error


ENGINEERING["PERCENTOF"] = _percentof


# ---------------------------------------------------------------------- ASC, LENB
# Microsoft, "ASC function", "LENB function" (read 2026-12-01): ASC changes full-width
# characters to half-width, and LENB counts two bytes a character, only where a
# double-byte (DBCS) language is Excel's default; elsewhere LENB is LEN (test.xlsx, saved
# by Excel for Mac: LENB("山田太郎ciao") is 8, ASC("ciao") "ciao"). Which language the
# saving Excel had is not in the workbook: ASC of text that holds a full-width or a
# half-width katakana character (whose result depends on it) is #VALUE! naming why.

#: full-width forms, the ideographic space and the half-width katakana block
_WIDTH_DEPENDENT = re.compile("[\u3000\uff01-\uff60\uffe0-\uffe6\uff61-\uff9f]")


def _asc(text):
    """ASC(text): the text unchanged, where Excel's language is single-byte.

    >>> _asc("ciao"), _asc(157), _asc(True)
    ('ciao', '157', 'TRUE')
    """
    t = excel_text(text)
    if _WIDTH_DEPENDENT.search(t):
        raise Fail("#VALUE!", "ASC of full-width or half-width characters depends on "
                              "Excel's language (DBCS or not), which the workbook does not say")
    return t


def _lenb(text):
    """LENB(text): the number of characters, as LEN (UTF-16 code units, as Excel counts).

    >>> _lenb("山田太郎ciao"), _lenb(1.9), _lenb(None)
    (8, 3, 0)
    """
    return len(excel_text(text).encode("utf-16-le")) // 2


ENGINEERING["ASC"] = lift("ASC", _asc, 1, 1)
ENGINEERING["LENB"] = lift("LENB", _lenb, 1, 1)


def _minverse(array):
    """MINVERSE(array): the inverse of a square matrix of numbers (Microsoft, "MINVERSE
    function": not square, or a cell that is empty or not a number, is #VALUE!; a singular
    matrix #NUM!), computed as :func:`rooflinexl.recalc.functions.minverse`.

    >>> _minverse([[4, 7], [2, 6]])
    [[0.6000000000000001, -0.7000000000000001], [-0.2, 0.4]]
    """
    _no_column([array])
    rows = array if isinstance(array, list) and array and isinstance(array[0], list) else \
        [array] if isinstance(array, list) else [[array]]
    for v in _flat([rows]):
        if isinstance(v, ExcelError):
            return v
    if len({len(r) for r in rows}) != 1 or len(rows) != len(rows[0]):
        return ExcelError("#VALUE!", "MINVERSE: the array is not square")
    if any(not isinstance(v, (int, float)) or isinstance(v, bool) for v in _flat([rows])):
        return ExcelError("#VALUE!", "MINVERSE: a cell that is not a number")
    r = minverse(rows)
    return r if isinstance(r, ExcelError) or len(rows) > 1 else r[0][0]


ENGINEERING["MINVERSE"] = _minverse

for _fn in ENGINEERING.values():
    _fn.plain_text = True  # text that reads "#N/A" is text: errors are ExcelError values
del _fn
BUILTINS.update(ENGINEERING)
