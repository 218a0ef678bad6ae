"""Excel's financial functions of securities and loans, written from Microsoft's documentation.

Bonds and bills (``PRICE``, ``YIELD``, ``DURATION``, ``COUPPCD`` ..., ``DISC``,
``PRICEMAT`` ...), the interest and principal parts of a loan's payment (``IPMT``,
``PPMT``) and the present value and return of dated cash flows (``XNPV``, ``XIRR``). They
are entries of the engine's function table (:data:`rooflinexl.recalc.functions.BUILTINS`,
registered when :mod:`rooflinexl.recalc.scalars` is), called through the same adapter by
both evaluation paths, with values as spreadsheet hosts pass them (see
:mod:`rooflinexl.recalc.scalars`, whose helpers and time-value-of-money functions they use).

Arguments as Excel reads them (Microsoft, "PRICE function", "YIELD function", "COUPDAYS
function" ... each function's page, read 2026-12-01): dates are serial numbers (date text
read as a date) truncated to whole days, ``frequency`` and ``basis`` are truncated to
integers; a date before 1900 or after 9999, a frequency other than 1, 2 or 4, a basis other
than 0 to 4, or a settlement on or after maturity is ``#NUM!``; text that is no number is
``#VALUE!``. These functions came from the Analysis ToolPak: a boolean, or a range where one
value belongs, is ``#VALUE!``.

Day-count bases (Microsoft, "YEARFRAC function", "COUPDAYS function"): 0 US (NASD) 30/360,
1 actual/actual, 2 actual/360, 3 actual/365, 4 European 30/360. The coupon dates step
back from maturity by 12 / frequency months (on month ends when maturity is a month end).
How each basis counts the days of a coupon period, the days from its start to settlement
and the year's length is Excel's as the ExcelFinancialFunctions project documents it (its
day-count notes, a description of Excel's results): for basis 0 the days from the period's
start count by 30/360 changing the start date only, the period's remaining days are its 30/360
length less those; PRICE, YIELD and DURATION take the remaining days as E - A (the
period's length less the days from its start) in every basis. Each rule here is checked on
workbooks saved by Excel (IronCalc's COUPDAYS, PRICE_YIELD, DISC, INTRATE, IPMT_PPMT, XIRR
and XNPV test books, the ``formulas`` project's regression workbook, SheetJS's
formula_stress_test.xlsx).
"""
from __future__ import annotations

import calendar
import math
from typing import NamedTuple

from rooflinexl.errors import ExcelError
from rooflinexl.recalc.functions import (
    BUILTINS,
    excel_serial,
    excel_ymd,
    ppmt,
    xirr_rate,
    xnpv_sum,
)
from rooflinexl.recalc.scalars import SCALARS, Fail, excel_number, lift
from rooflinexl.recalc.scalars import finite_number as _number

__all__ = ["FINANCE"]

#: the last day Excel knows, 9999-12-31
_LAST_DAY = 2958465


# ------------------------------------------------------------------------- dates


class _Day(NamedTuple):
    serial: int
    y: int
    m: int
    d: int


def _month_days(y: int, m: int) -> int:
    """Days of month ``m`` of year ``y``, February 1900 with Excel's 29th."""
    return 29 if (y, m) == (1900, 2) else calendar.monthrange(y, m)[1]


def _day(serial: int) -> _Day:
    return _Day(serial, *excel_ymd(serial))


def _serial_of(x, what: str) -> int:
    """A date argument as a whole serial number (range checked by :func:`_dates`)."""
    return math.floor(excel_number(x, what))


def _dates(name: str, *serials: int) -> list[_Day]:
    for s in serials:
        if not 0 <= s <= _LAST_DAY:
            raise Fail("#NUM!", f"{name}: {s} is not a date from 1900 to 9999")
    return [_day(s) for s in serials]


def _shift(day: _Day, months: int, month_end: bool) -> _Day:
    """``day`` moved by ``months`` months: its day cut to the month's length, or the
    month's last day where ``month_end``."""
    t = day.y * 12 + day.m - 1 + months
    y, m = divmod(t, 12)
    m += 1
    if not 1900 <= y <= 9999:
        raise Fail("#NUM!", "a coupon date before 1900 or after 9999")
    last = _month_days(y, m)
    d = last if month_end else min(day.d, last)
    return _Day(excel_serial(y, m, d), y, m, d)


def _is_month_end(day: _Day) -> bool:
    return day.d == _month_days(day.y, day.m)


def _feb_end(day: _Day) -> bool:
    return day.m == 2 and _is_month_end(day)


def _days360_us(a: _Day, b: _Day, both: bool = False) -> int:
    """30/360 US (NASD) days from ``a`` to ``b``: a start on the 31st or on February's last
    day is the 30th; an end on the 31st is the 30th when the start is the 30th or 31st, an
    end on February's last day the 30th when the start is one too; ``both`` moves the end
    date alike in every case (a coupon period's own length)."""
    sd, ed = a.d, b.d
    if _feb_end(b) and (_feb_end(a) or both):
        ed = 30
    if ed == 31 and (sd >= 30 or both):
        ed = 30
    if sd == 31 or _feb_end(a):
        sd = 30
    return (b.y - a.y) * 360 + (b.m - a.m) * 30 + ed - sd


def _days360_eu(a: _Day, b: _Day) -> int:
    """European 30/360 days: the 31st is the 30th."""
    return (b.y - a.y) * 360 + (b.m - a.m) * 30 + min(b.d, 30) - min(a.d, 30)


def _days(a: _Day, b: _Day, basis: int) -> int:
    """Days from ``a`` to ``b`` as ``basis`` counts accrued days."""
    if basis == 0:
        return _days360_us(a, b)
    if basis == 4:
        return _days360_eu(a, b)
    return b.serial - a.serial


def _leap(y: int) -> bool:
    return calendar.isleap(y) or y == 1900


def _year_days(a: _Day, b: _Day, basis: int) -> float:
    """The length of a year from ``a`` to ``b`` in ``basis``: 360, 365, or for
    actual/actual 366 where the span holds a 29 February (within a year), else 365, and
    the average length of the calendar years spanned over more than a year."""
    if basis in (0, 2, 4):
        return 360.0
    if basis == 3:
        return 365.0
    if not (a.y == b.y or b.y == a.y + 1 and (a.m, a.d) >= (b.m, b.d)):
        return (excel_serial(b.y + 1, 1, 1) - excel_serial(a.y, 1, 1)) / (b.y - a.y + 1)
    if a.y == b.y and _leap(a.y) or (b.m, b.d) == (2, 29):
        return 366.0
    if b.y == a.y + 1 and (_leap(a.y) and a.m <= 2 or _leap(b.y) and b.m > 2):
        return 366.0
    return 365.0


# ------------------------------------------------------------------- arguments


def _frequency(x, name: str) -> int:
    return math.trunc(_number(x, f"{name}: frequency"))


def _basis(x, name: str) -> int:
    return math.trunc(_number(x, f"{name}: basis"))


def _check(ok: bool, name: str, why: str) -> None:
    if not ok:
        raise Fail("#NUM!", f"{name}: {why}")


def _check_frequency_basis(name: str, f: int | None, b: int) -> None:
    _check(f is None or f in (1, 2, 4), name, f"frequency {f} is not 1, 2 or 4")
    _check(0 <= b <= 4, name, f"basis {b} is not 0 to 4")


# -------------------------------------------------------------------- coupons


class _Coupon(NamedTuple):
    pcd: _Day  # the coupon date at or before settlement
    ncd: _Day  # the coupon date after settlement
    n: int  # coupons from settlement to maturity
    e: float  # days of the coupon period holding settlement
    a: float  # days from the period's start to settlement
    dsc: float  # days from settlement to the next coupon


def _coupon(name: str, settlement, maturity, frequency, basis) -> _Coupon:
    """The coupon period holding settlement (arguments as the COUP functions take them)."""
    s = _serial_of(settlement, f"{name}: settlement")
    m = _serial_of(maturity, f"{name}: maturity")
    f = _frequency(frequency, name)
    b = _basis(basis, name)
    settle, mat = _dates(name, s, m)
    _check_frequency_basis(name, f, b)
    _check(s < m, name, "settlement is not before maturity")
    return _coupon_of(settle, mat, f, b)


def _coupon_of(settle: _Day, mat: _Day, f: int, b: int) -> _Coupon:
    step = 12 // f
    month_end = _is_month_end(mat)
    months = (mat.y - settle.y) * 12 + mat.m - settle.m
    k = max(0, months // step - 2)  # the k-th coupon before maturity is after settlement
    ncd = _shift(mat, -k * step, month_end)
    while True:
        pcd = _shift(mat, -(k + 1) * step, month_end)
        if pcd.serial <= settle.serial:
            break
        k, ncd = k + 1, pcd
    if b == 1:
        e = float(ncd.serial - pcd.serial)
    else:
        e = (365.0 if b == 3 else 360.0) / f
    a = float(_days(pcd, settle, b))
    if b == 0:
        dsc = float(_days360_us(pcd, ncd, both=True)) - a
    elif b == 4:
        dsc = float(_days360_eu(settle, ncd))
    else:
        dsc = float(ncd.serial - settle.serial)
    return _Coupon(pcd, ncd, k + 1, e, a, dsc)


def _coupdaybs(settlement, maturity, frequency, basis=None):
    """COUPDAYBS(settlement, maturity, frequency, [basis]): the days from the start of the
    coupon period to settlement (Microsoft's example: 25 Jan 2011, 15 Nov 2011, 2, 1).

    >>> _coupdaybs(40568, 40862, 2, 1)
    71.0
    """
    return _coupon("COUPDAYBS", settlement, maturity, frequency, basis).a


def _coupdays(settlement, maturity, frequency, basis=None):
    """COUPDAYS(settlement, maturity, frequency, [basis]): the days of the coupon period
    holding settlement (Microsoft's example).

    >>> _coupdays(40568, 40862, 2, 1)
    181.0
    """
    return _coupon("COUPDAYS", settlement, maturity, frequency, basis).e


def _coupdaysnc(settlement, maturity, frequency, basis=None):
    """COUPDAYSNC(settlement, maturity, frequency, [basis]): the days from settlement to the
    next coupon date (Microsoft's example).

    >>> _coupdaysnc(40568, 40862, 2, 1)
    110.0
    """
    return _coupon("COUPDAYSNC", settlement, maturity, frequency, basis).dsc


def _coupncd(settlement, maturity, frequency, basis=None):
    """COUPNCD(settlement, maturity, frequency, [basis]): the next coupon date after
    settlement (Microsoft's example: 15 May 2011).

    >>> _coupncd(40568, 40862, 2, 1)
    40678.0
    """
    return float(_coupon("COUPNCD", settlement, maturity, frequency, basis).ncd.serial)


def _couppcd(settlement, maturity, frequency, basis=None):
    """COUPPCD(settlement, maturity, frequency, [basis]): the coupon date at or before
    settlement (Microsoft's example: 15 Nov 2010).

    >>> _couppcd(40568, 40862, 2, 1)
    40497.0
    """
    return float(_coupon("COUPPCD", settlement, maturity, frequency, basis).pcd.serial)


def _coupnum(settlement, maturity, frequency, basis=None):
    """COUPNUM(settlement, maturity, frequency, [basis]): the coupons payable from
    settlement to maturity (Microsoft's example: 25 Jan 2007, 15 Nov 2008, 2, 1: 4).

    >>> _coupnum(39107, 39767, 2, 1)
    4.0
    """
    return float(_coupon("COUPNUM", settlement, maturity, frequency, basis).n)


# ------------------------------------------------------- coupon bonds: price and yield


def _bond_args(name: str, settlement, maturity, rate, value, redemption, frequency, basis,
               value_name: str):
    s = _serial_of(settlement, f"{name}: settlement")
    m = _serial_of(maturity, f"{name}: maturity")
    r = _number(rate, f"{name}: rate")
    v = _number(value, f"{name}: {value_name}")
    red = _number(redemption, f"{name}: redemption")
    f = _frequency(frequency, name)
    b = _basis(basis, name)
    settle, mat = _dates(name, s, m)
    _check_frequency_basis(name, f, b)
    _check(s < m, name, "settlement is not before maturity")
    return settle, mat, r, v, red, f, b


def _bond_price(c: _Coupon, rate: float, yld: float, redemption: float, f: int) -> float:
    """Microsoft's PRICE equation over the coupon period ``c`` (DSC taken as E - A)."""
    coupon = 100.0 * rate / f
    dsc = c.e - c.a
    accrued = coupon * c.a / c.e
    if c.n == 1:
        return (redemption + coupon) / (1.0 + dsc / c.e * yld / f) - accrued
    base = 1.0 + yld / f
    x = dsc / c.e
    total = redemption / base ** (c.n - 1 + x)
    for k in range(1, c.n + 1):
        total += coupon / base ** (k - 1 + x)
    return total - accrued


def _price(settlement, maturity, rate, yld, redemption, frequency, basis=None):
    """PRICE(settlement, maturity, rate, yld, redemption, frequency, [basis]): the price per
    100 face value of a bond paying periodic interest (Microsoft's example: 15 Feb 2008,
    15 Nov 2017, 5.75 %, 6.5 %, 100, 2, 0).

    >>> round(_price(39493, 43054, 0.0575, 0.065, 100, 2, 0), 6)
    94.634362
    """
    settle, mat, r, y, red, f, b = _bond_args("PRICE", settlement, maturity, rate, yld,
                                              redemption, frequency, basis, "yld")
    _check(r >= 0 and y >= 0, "PRICE", "rate or yld is negative")
    _check(red > 0, "PRICE", "redemption is not positive")
    return _bond_price(_coupon_of(settle, mat, f, b), r, y, red, f)


def _solve(f, guess: float, name: str, low: float = -1.0 + 1e-10) -> float:
    """The root of ``f`` by Newton's method from ``guess`` (a numerical derivative), or by
    bisection of a bracket found from it; #NUM! where neither finds one."""
    x = guess
    for _ in range(100):
        try:
            fx = f(x)
            h = 1e-7 * max(1.0, abs(x))
            d = (f(x + h) - fx) / h
        except (OverflowError, ZeroDivisionError):
            break
        if not (math.isfinite(fx) and math.isfinite(d)) or d == 0:
            break
        step = fx / d
        x -= step
        if not math.isfinite(x) or x <= low:
            break
        if abs(step) < 1e-12 * max(1.0, abs(x)):
            return x
    lo, hi = low, max(guess, 0.1)
    try:
        f_lo = f(lo)
        while (f(hi) > 0) == (f_lo > 0) and hi < 1e6:
            hi *= 2.0
        if (f(hi) > 0) == (f_lo > 0):
            raise Fail("#NUM!", f"{name}: no root found")
        for _ in range(200):
            mid = (lo + hi) / 2.0
            f_mid = f(mid)
            if f_mid == 0 or hi - lo < 1e-15:
                return mid
            if (f_mid > 0) == (f_lo > 0):
                lo, f_lo = mid, f_mid
            else:
                hi = mid
        return (lo + hi) / 2.0
    except (OverflowError, ZeroDivisionError):
        raise Fail("#NUM!", f"{name}: no root found") from None


def _yield(settlement, maturity, rate, pr, redemption, frequency, basis=None):
    """YIELD(settlement, maturity, rate, pr, redemption, frequency, [basis]): the yield of a
    bond paying periodic interest; with one coupon period left Microsoft's closed form,
    else the yield at which PRICE is ``pr`` (Microsoft's example: 15 Feb 2008, 15 Nov
    2016, 5.75 %, 95.04287, 100, 2, 0 gives 6.5 %).

    >>> round(_yield(39493, 42689, 0.0575, 95.04287, 100, 2, 0), 6)
    0.065
    """
    settle, mat, r, p, red, f, b = _bond_args("YIELD", settlement, maturity, rate, pr,
                                              redemption, frequency, basis, "pr")
    _check(r >= 0, "YIELD", "rate is negative")
    _check(p > 0 and red > 0, "YIELD", "pr or redemption is not positive")
    c = _coupon_of(settle, mat, f, b)
    if c.n <= 1:
        dsr = c.e - c.a
        held = p / 100.0 + c.a / c.e * r / f
        return (red / 100.0 + r / f - held) / held * f * c.e / dsr
    return _solve(lambda y: _bond_price(c, r, y, red, f) - p, 0.05, "YIELD")


def _duration_of(name: str, settlement, maturity, coupon, yld, frequency, basis):
    """(the Macaulay duration in years, 1 + yld / frequency)."""
    settle, mat, r, y, _, f, b = _bond_args(name, settlement, maturity, coupon, yld, 100.0,
                                            frequency, basis, "yld")
    _check(r >= 0 and y >= 0, name, "coupon or yld is negative")
    c = _coupon_of(settle, mat, f, b)
    x = (c.e - c.a) / c.e
    base = 1.0 + y / f
    last = x + c.n - 1
    weighted = last * 100.0 / base ** last
    total = 100.0 / base ** last
    for k in range(1, c.n + 1):
        t = k - 1 + x
        pv = 100.0 * r / f / base ** t
        weighted += pv * t
        total += pv
    return weighted / total / f, base


def _duration(settlement, maturity, coupon, yld, frequency, basis=None):
    """DURATION(settlement, maturity, coupon, yld, frequency, [basis]): the Macaulay
    duration in years, the coupons' and redemption's times weighted by their present
    values (Microsoft's example: 1 Jan 2018, 1 Jan 2026, 8 %, 9 %, 2, 1).

    >>> round(_duration(43101, 46023, 0.08, 0.09, 2, 1), 6)
    5.993775
    """
    return _duration_of("DURATION", settlement, maturity, coupon, yld, frequency, basis)[0]


def _mduration(settlement, maturity, coupon, yld, frequency, basis=None):
    """MDURATION(settlement, maturity, coupon, yld, frequency, [basis]): DURATION / (1 +
    yld / frequency) (Microsoft's example: 1 Jan 2008, 1 Jan 2016, 8 %, 9 %, 2, 1).

    >>> round(_mduration(39448, 42370, 0.08, 0.09, 2, 1), 6)
    5.73567
    """
    d, base = _duration_of("MDURATION", settlement, maturity, coupon, yld, frequency, basis)
    return d / base


# ------------------------------------------------------ discounted and at-maturity


def _span_args(name: str, settlement, maturity, x, y, basis, x_name: str, y_name: str):
    s = _serial_of(settlement, f"{name}: settlement")
    m = _serial_of(maturity, f"{name}: maturity")
    u = _number(x, f"{name}: {x_name}")
    v = _number(y, f"{name}: {y_name}")
    b = _basis(basis, name)
    settle, mat = _dates(name, s, m)
    _check_frequency_basis(name, None, b)
    _check(s < m, name, "settlement is not before maturity")
    return settle, mat, u, v, b


def _fraction(a: _Day, b: _Day, basis: int) -> float:
    """The days from ``a`` to ``b`` over the year's length, as ``basis`` counts both."""
    return _days(a, b, basis) / _year_days(a, b, basis)


def _disc(settlement, maturity, pr, redemption, basis=None):
    """DISC(settlement, maturity, pr, redemption, [basis]): (redemption - pr) / redemption
    x B / DSM (MESCIUS Spread's documented example, DISC("5/15/2004", "9/1/2004", 98.2,
    100, 3) = 0.0602752294).

    >>> round(_disc(38122, 38231, 98.2, 100, 3), 10)
    0.0602752294
    """
    settle, mat, p, red, b = _span_args("DISC", settlement, maturity, pr, redemption, basis,
                                        "pr", "redemption")
    _check(p > 0 and red > 0, "DISC", "pr or redemption is not positive")
    return (red - p) / red / _fraction(settle, mat, b)


def _intrate(settlement, maturity, investment, redemption, basis=None):
    """INTRATE(settlement, maturity, investment, redemption, [basis]): (redemption -
    investment) / investment x B / DIM (Microsoft's example: 15 Feb 2008, 15 May 2008,
    1,000,000, 1,014,420, 2).

    >>> round(_intrate(39493, 39583, 1000000, 1014420, 2), 6)
    0.05768
    """
    settle, mat, inv, red, b = _span_args("INTRATE", settlement, maturity, investment,
                                          redemption, basis, "investment", "redemption")
    _check(inv > 0 and red > 0, "INTRATE", "investment or redemption is not positive")
    return (red - inv) / inv / _fraction(settle, mat, b)


def _received(settlement, maturity, investment, discount, basis=None):
    """RECEIVED(settlement, maturity, investment, discount, [basis]): investment / (1 -
    discount x DIM / B) (Microsoft's example: 15 Feb 2008, 15 May 2008, 1,000,000, 5.75 %,
    2).

    >>> round(_received(39493, 39583, 1000000, 0.0575, 2), 2)
    1014584.65
    """
    settle, mat, inv, d, b = _span_args("RECEIVED", settlement, maturity, investment,
                                        discount, basis, "investment", "discount")
    _check(inv > 0 and d > 0, "RECEIVED", "investment or discount is not positive")
    left = 1.0 - d * _fraction(settle, mat, b)
    _check(left > 0, "RECEIVED", "the discount takes the whole amount")
    return inv / left


def _pricedisc(settlement, maturity, discount, redemption, basis=None):
    """PRICEDISC(settlement, maturity, discount, redemption, [basis]): redemption - discount
    x redemption x DSM / B (Microsoft's example: 16 Feb 2008, 1 Mar 2008, 5.25 %, 100, 2).

    >>> round(_pricedisc(39494, 39508, 0.0525, 100, 2), 6)
    99.795833
    """
    settle, mat, d, red, b = _span_args("PRICEDISC", settlement, maturity, discount,
                                        redemption, basis, "discount", "redemption")
    _check(d > 0 and red > 0, "PRICEDISC", "discount or redemption is not positive")
    return red - d * red * _fraction(settle, mat, b)


def _yielddisc(settlement, maturity, pr, redemption, basis=None):
    """YIELDDISC(settlement, maturity, pr, redemption, [basis]): (redemption - pr) / pr x
    B / DSM (Microsoft's example: 16 Feb 2008, 1 Mar 2008, 99.795, 100, 2).

    >>> round(_yielddisc(39494, 39508, 99.795, 100, 2), 6)
    0.052823
    """
    settle, mat, p, red, b = _span_args("YIELDDISC", settlement, maturity, pr, redemption,
                                        basis, "pr", "redemption")
    _check(p > 0 and red > 0, "YIELDDISC", "pr or redemption is not positive")
    return (red - p) / p / _fraction(settle, mat, b)


def _maturity_args(name: str, settlement, maturity, issue, rate, value, basis, v_name: str):
    s = _serial_of(settlement, f"{name}: settlement")
    m = _serial_of(maturity, f"{name}: maturity")
    i = _serial_of(issue, f"{name}: issue")
    r = _number(rate, f"{name}: rate")
    v = _number(value, f"{name}: {v_name}")
    b = _basis(basis, name)
    settle, mat, iss = _dates(name, s, m, i)
    _check_frequency_basis(name, None, b)
    _check(s < m, name, "settlement is not before maturity")
    _check(i < s, name, "issue is not before settlement")
    b_days = _year_days(iss, settle, b)
    dim = _days(iss, mat, b)
    a = _days(iss, settle, b)
    return r, v, b_days, float(dim), float(a), float(dim - a)


def _pricemat(settlement, maturity, issue, rate, yld, basis=None):
    """PRICEMAT(settlement, maturity, issue, rate, yld, [basis]): the price per 100 face
    value of a security paying interest at maturity, (100 + DIM/B rate 100) / (1 + DSM/B
    yld) - A/B rate 100 (Microsoft's example: 15 Feb 2008, 13 Apr 2008, 11 Nov 2007,
    6.1 %, 6.1 %, 0).

    >>> round(_pricemat(39493, 39551, 39397, 0.061, 0.061, 0), 6)
    99.984499
    """
    r, y, b, dim, a, dsm = _maturity_args("PRICEMAT", settlement, maturity, issue, rate, yld,
                                          basis, "yld")
    _check(r >= 0 and y >= 0, "PRICEMAT", "rate or yld is negative")
    return (100.0 + dim / b * r * 100.0) / (1.0 + dsm / b * y) - a / b * r * 100.0


def _yieldmat(settlement, maturity, issue, rate, pr, basis=None):
    """YIELDMAT(settlement, maturity, issue, rate, pr, [basis]): the annual yield of a
    security paying interest at maturity (Microsoft's example: 15 Mar 2008, 3 Nov 2008,
    8 Nov 2007, 6.25 %, 100.0123, 0).

    >>> round(_yieldmat(39522, 39755, 39394, 0.0625, 100.0123, 0), 6)
    0.060954
    """
    r, p, b, dim, a, dsm = _maturity_args("YIELDMAT", settlement, maturity, issue, rate, pr,
                                          basis, "pr")
    _check(r >= 0 and p > 0, "YIELDMAT", "rate is negative or pr not positive")
    held = p / 100.0 + a / b * r
    return (1.0 + dim / b * r - held) / held * b / dsm


def _accrintm(issue, settlement, rate, par=1000.0, basis=None):
    """ACCRINTM(issue, settlement, rate, [par], [basis]): the interest accrued on a security
    paying at maturity, par x rate x A / D (Microsoft's example: 1 Apr 2008, 15 Jun 2008,
    10 %, 1000, 3).

    >>> round(_accrintm(39539, 39614, 0.1, 1000, 3), 6)
    20.547945
    """
    i = _serial_of(issue, "ACCRINTM: issue")
    s = _serial_of(settlement, "ACCRINTM: settlement")
    r = _number(rate, "ACCRINTM: rate")
    p = _number(par, "ACCRINTM: par")
    b = _basis(basis, "ACCRINTM")
    iss, settle = _dates("ACCRINTM", i, s)
    _check_frequency_basis("ACCRINTM", None, b)
    _check(r > 0 and p > 0, "ACCRINTM", "rate or par is not positive")
    _check(i < s, "ACCRINTM", "issue is not before settlement")
    return p * r * _fraction(iss, settle, b)


# ------------------------------------------------------ odd first and last periods
# Microsoft, "ODDFPRICE function", "ODDFYIELD function", "ODDLPRICE function", "ODDLYIELD
# function" (read 2026-12-01): the odd period is cut into quasi-coupon periods of the
# regular schedule; DC_i is the days of the i-th one the odd period covers, NL_i its normal
# length, A_i its days accrued before settlement, DSC_i its days after settlement. The
# quasi-coupon periods of an odd last period step forward from the last interest date; those
# of an odd first period back from the first coupon. How each basis counts them is Excel's as
# the ExcelFinancialFunctions project documents it (checked on IronCalc's PRICE_YIELD book).


def _nonneg_days(a: _Day, b: _Day, basis: int) -> float:
    return float(max(_days(a, b, basis), 0))


def _odd_args(name: str, dates: tuple, rate, value, redemption, frequency, basis,
              value_name: str):
    serials = [_serial_of(x, f"{name}: {what}") for x, what in dates]
    r = _number(rate, f"{name}: rate")
    v = _number(value, f"{name}: {value_name}")
    red = _number(redemption, f"{name}: redemption")
    f = _frequency(frequency, name)
    b = _basis(basis, name)
    days = _dates(name, *serials)
    _check_frequency_basis(name, f, b)
    return days, r, v, red, f, b


def _oddl_sums(settle: _Day, mat: _Day, last: _Day, f: int, b: int):
    """(sum DC_i/NL_i, sum A_i/NL_i, sum DSC_i/NL_i) of an odd last period."""
    step = 12 // f
    nc = _coupon_of(last, mat, f, b).n
    dc_nl = a_nl = dsc_nl = 0.0
    early = last
    for i in range(1, nc + 1):
        late = _shift(early, step, False)
        if b == 0:
            nl = float(max(_days360_us(early, late, both=True), 0))
            dc = nl if i < nc else float(max(_days360_us(early, mat, both=True), 0))
        else:
            nl = _nonneg_days(early, late, b)
            dc = nl if i < nc else _nonneg_days(early, mat, b)
        if late.serial < settle.serial:
            a = dc
        elif early.serial < settle.serial:
            a = _nonneg_days(early, settle, b)
        else:
            a = 0.0
        start = settle if settle.serial > early.serial else early
        end = mat if mat.serial < late.serial else late
        dsc = _nonneg_days(start, end, b)
        dc_nl += dc / nl
        a_nl += a / nl
        dsc_nl += dsc / nl
        early = late
    return dc_nl, a_nl, dsc_nl


def _oddl(name: str, settlement, maturity, last_interest, rate, value, redemption, frequency,
          basis, value_name: str):
    (settle, mat, last), r, v, red, f, b = _odd_args(
        name, ((settlement, "settlement"), (maturity, "maturity"),
               (last_interest, "last_interest")), rate, value, redemption, frequency, basis,
        value_name)
    _check(mat.serial > settle.serial > last.serial, name,
           "maturity, settlement and last_interest are not in that order")
    _check(r >= 0 and v >= 0, name, f"rate or {value_name} is negative")
    _check(red > 0, name, "redemption is not positive")
    return r, v, red, f, _oddl_sums(settle, mat, last, f, b)


def _oddlprice(settlement, maturity, last_interest, rate, yld, redemption, frequency,
               basis=None):
    """ODDLPRICE(settlement, maturity, last_interest, rate, yld, redemption, frequency,
    [basis]): the price per 100 face value of a bond with an odd last period (Microsoft's
    example: 7 Feb 2008, 15 Jun 2008, 15 Oct 2007, 3.75 %, 4.05 %, 100, 2, 0: 99.87829).

    >>> round(_oddlprice(39485, 39614, 39370, 0.0375, 0.0405, 100, 2, 0), 5)
    99.87829
    """
    r, y, red, f, (dc_nl, a_nl, dsc_nl) = _oddl(
        "ODDLPRICE", settlement, maturity, last_interest, rate, yld, redemption, frequency,
        basis, "yld")
    coupon = 100.0 * r / f
    return (dc_nl * coupon + red) / (dsc_nl * y / f + 1.0) - a_nl * coupon


def _oddlyield(settlement, maturity, last_interest, rate, pr, redemption, frequency,
               basis=None):
    """ODDLYIELD(settlement, maturity, last_interest, rate, pr, redemption, frequency,
    [basis]): the yield of a bond with an odd last period (Microsoft's example: 20 Apr
    2008, 15 Jun 2008, 24 Dec 2007, 3.75 %, 99.875, 100, 2, 0: 0.045192).

    >>> round(_oddlyield(39558, 39614, 39440, 0.0375, 99.875, 100, 2, 0), 6)
    0.045192
    """
    r, p, red, f, (dc_nl, a_nl, dsc_nl) = _oddl(
        "ODDLYIELD", settlement, maturity, last_interest, rate, pr, redemption, frequency,
        basis, "pr")
    _check(p > 0, "ODDLYIELD", "pr is not positive")
    coupon = 100.0 * r / f
    held = a_nl * coupon + p
    return (dc_nl * coupon + red - held) / held * f / dsc_nl


def _oddf_price(settle: _Day, mat: _Day, issue: _Day, first: _Day, r: float, y: float,
                red: float, f: int, b: int) -> float:
    """Microsoft's ODDFPRICE equations, short or long first period."""
    step = 12 // f
    c = _coupon_of(settle, first, f, b)
    e = c.e
    coupon = 100.0 * r / f
    base = 1.0 + y / f
    dfc = _nonneg_days(issue, first, b)
    if dfc < e:  # a short first period
        n = _coupon_of(settle, mat, f, b).n
        dsc = _nonneg_days(settle, first, b)
        a = _nonneg_days(issue, settle, b)
        x = dsc / e
        total = red / base ** (n - 1 + x) + coupon * dfc / e / base ** x
        for k in range(2, n + 1):
            total += coupon / base ** (k - 1 + x)
        return total - coupon * a / e
    nc = _coupon_of(issue, first, f, b).n
    dc_nl = a_nl = 0.0
    late = first
    for index in range(nc, 0, -1):
        early = _shift(late, -step, False)
        nl = _nonneg_days(early, late, b) if b == 1 else e
        dc = nl if index > 1 else _nonneg_days(issue, late, b)
        start = issue if issue.serial > early.serial else early
        end = settle if settle.serial < late.serial else late
        a = _nonneg_days(start, end, b)
        dc_nl += dc / nl
        a_nl += a / nl
        late = early
    if b in (2, 3):
        dsc = _nonneg_days(settle, c.ncd, b)
    else:
        dsc = e - _days(c.pcd, settle, b)
    nq = c.n - 1  # whole quasi-coupon periods from settlement to the first coupon
    n = _coupon_of(first, mat, f, b).n
    x = dsc / e
    total = red / base ** (x + nq + n) + coupon * dc_nl / base ** (nq + x)
    for k in range(1, n + 1):
        total += coupon / base ** (k + nq + x)
    return total - coupon * a_nl


def _oddf(name: str, settlement, maturity, issue, first_coupon, rate, value, redemption,
          frequency, basis, value_name: str):
    (settle, mat, iss, first), r, v, red, f, b = _odd_args(
        name, ((settlement, "settlement"), (maturity, "maturity"), (issue, "issue"),
               (first_coupon, "first_coupon")), rate, value, redemption, frequency, basis,
        value_name)
    _check(mat.serial > first.serial > settle.serial > iss.serial, name,
           "maturity, first_coupon, settlement and issue are not in that order")
    _check(r >= 0 and v >= 0, name, f"rate or {value_name} is negative")
    _check(red > 0, name, "redemption is not positive")
    return settle, mat, iss, first, r, v, red, f, b


def _oddfprice(settlement, maturity, issue, first_coupon, rate, yld, redemption, frequency,
               basis=None):
    """ODDFPRICE(settlement, maturity, issue, first_coupon, rate, yld, redemption,
    frequency, [basis]): the price per 100 face value of a bond with an odd first period
    (Microsoft's example: 11 Nov 2008, 1 Mar 2021, 15 Oct 2008, 1 Mar 2009, 7.85 %,
    6.25 %, 100, 2, 1: 113.597717).

    >>> round(_oddfprice(39763, 44256, 39736, 39873, 0.0785, 0.0625, 100, 2, 1), 6)
    113.597717
    """
    return _oddf_price(*_oddf("ODDFPRICE", settlement, maturity, issue, first_coupon, rate,
                              yld, redemption, frequency, basis, "yld"))


def _oddfyield(settlement, maturity, issue, first_coupon, rate, pr, redemption, frequency,
               basis=None):
    """ODDFYIELD(settlement, maturity, issue, first_coupon, rate, pr, redemption, frequency,
    [basis]): the yield at which ODDFPRICE is ``pr`` (Microsoft's example: 11 Nov 2008,
    1 Mar 2021, 15 Oct 2008, 1 Mar 2009, 5.75 %, 84.50, 100, 2, 0: 0.077246).

    >>> round(_oddfyield(39763, 44256, 39736, 39873, 0.0575, 84.5, 100, 2, 0), 6)
    0.077246
    """
    settle, mat, iss, first, r, p, red, f, b = _oddf(
        "ODDFYIELD", settlement, maturity, issue, first_coupon, rate, pr, redemption,
        frequency, basis, "pr")
    _check(p > 0, "ODDFYIELD", "pr is not positive")
    return _solve(lambda y: _oddf_price(settle, mat, iss, first, r, y, red, f, b) - p, 0.05,
                  "ODDFYIELD")


# ---------------------------------------------------------------- loans: IPMT, PPMT


def _host(v):
    """A value of one of the time-value-of-money functions (a float or an error)."""
    if isinstance(v, ExcelError):
        raise Fail(str(v), v.reason, v)
    return v


def _loan_args(name: str, rate, per, nper, pv, fv, type):  # noqa: A002
    r = _number(rate, f"{name}: rate")
    k = _number(per, f"{name}: per")
    n = _number(nper, f"{name}: nper")
    v = _number(pv, f"{name}: pv")
    f = _number(fv, f"{name}: fv")
    t = 0 if _number(type, f"{name}: type") == 0 else 1
    _check(1 <= k < n + 1, name, f"per {k:g} is not from 1 to nper {n:g}")
    return r, k, n, v, f, t


def _interest(r: float, k: float, n: float, v: float, f: float, t: int) -> float:
    """The interest part of payment ``k``: the balance after ``k - 1`` payments (FV)
    times the rate; none in the first period of payments in advance."""
    pmt = _host(SCALARS["PMT"](r, n, v, f, t))
    if t == 1:
        if k == 1:
            return 0.0
        return (_host(SCALARS["FV"](r, k - 2, pmt, v, 1)) - pmt) * r
    return _host(SCALARS["FV"](r, k - 1, pmt, v, 0)) * r


def _ipmt(rate, per, nper, pv, fv=None, type=None):  # noqa: A002 - Excel's argument name
    """IPMT(rate, per, nper, pv, [fv], [type]): the interest part of payment ``per``
    (Microsoft's examples: 10 % a year, 3 years, 8000: -66.67 and -292.45).

    >>> round(_ipmt(0.1 / 12, 1, 3 * 12, 8000), 2), round(_ipmt(0.1, 3, 3, 8000), 2)
    (-66.67, -292.45)
    """
    r, k, n, v, f, t = _loan_args("IPMT", rate, per, nper, pv, fv, type)
    return _interest(r, k, n, v, f, t)


def _ppmt(rate, per, nper, pv, fv=None, type=None):  # noqa: A002
    """PPMT(rate, per, nper, pv, [fv], [type]): the principal part of payment ``per``,
    PMT - IPMT without that subtraction's cancellation
    (:func:`rooflinexl.recalc.functions.ppmt`; payments in advance repay in period ``per``
    what payments in arrears repay in ``per - 1``, and in the first the whole payment)
    (Microsoft's examples: -75.62, -27598.05).

    >>> round(_ppmt(0.1 / 12, 1, 2 * 12, 2000), 2), round(_ppmt(0.08, 10, 10, 200000), 2)
    (-75.62, -27598.05)
    """
    r, k, n, v, f, t = _loan_args("PPMT", rate, per, nper, pv, fv, type)
    if r != 0 and (t == 0 or k >= 2):  # in advance: the previous period's in arrears
        return ppmt(r, k - t, n, v, f)
    return _host(SCALARS["PMT"](r, n, v, f, t)) - _interest(r, k, n, v, f, t)


# ------------------------------------------------------------- French depreciation
# Microsoft, "AMORLINC function", "AMORDEGRC function" (read 2026-12-01): the French
# accounting system's depreciation of an asset bought during a period, prorated in the
# first period by the days from purchase to the end of the first period; AMORDEGRC applies
# a coefficient to the rate by the asset's life (1/rate: 3-4 years 1.5, 5-6 years 2, over
# 6 years 2.5), rounds its results to whole numbers, takes 50 % of the remaining cost in
# the period before the last and all of it in the last, and is #NUM! for a life between 0
# and 3 or 4 and 5 years (3, 4 and 5 years themselves have coefficients). How the first
# period's days and the year are counted (29 February, basis 1's year of the purchase) is
# Excel's as the ExcelFinancialFunctions project documents it; basis 2 is #NUM!.


def _amor_args(name: str, cost, date_purchased, first_period, salvage, period, rate, basis):
    c = _number(cost, f"{name}: cost")
    d = _serial_of(date_purchased, f"{name}: date_purchased")
    first = _serial_of(first_period, f"{name}: first_period")
    sv = _number(salvage, f"{name}: salvage")
    per = math.trunc(_number(period, f"{name}: period"))
    r = _number(rate, f"{name}: rate")
    b = _basis(basis, name)
    bought, end = _dates(name, d, first)
    _check_frequency_basis(name, None, b)
    _check(b != 2, name, "basis 2 (actual/360) is not allowed")
    _check(0 <= sv <= c and per >= 0 and r > 0, name,
           "cost, salvage, period or rate out of range")
    _check(d < first, name, "date_purchased is not before first_period")
    return c, bought, end, sv, per, r, b


def _first_depreciation(c: float, bought: _Day, end: _Day, sv: float, r: float, b: int):
    """(the first period's depreciation, whether it is a fraction of a period)."""
    def no_29_feb(day: _Day) -> _Day:
        if b in (1, 3) and day.m == 2 and day.d >= 28 and _leap(day.y):
            return _day(excel_serial(day.y, 2, 28))
        return day

    year = (366.0 if _leap(bought.y) else 365.0) if b == 1 else _year_days(bought, bought, b)
    part = _days(no_29_feb(bought), no_29_feb(end), b) / year * r * c
    first = c * r if part == 0 else part
    return min(first, c - sv), part != 0


def _amorlinc(cost, date_purchased, first_period, salvage, period, rate, basis=None):
    """AMORLINC(cost, date_purchased, first_period, salvage, period, rate, [basis]): the
    straight-line depreciation of ``period`` (Microsoft's example: 2400, 19 Aug 2008,
    31 Dec 2008, 300, 1, 15 %, 1: 360).

    >>> _amorlinc(2400, 39679, 39813, 300, 1, 0.15, 1)
    360.0
    """
    c, bought, end, sv, per, r, b = _amor_args("AMORLINC", cost, date_purchased,
                                               first_period, salvage, period, rate, basis)
    if per > math.ceil(1.0 / r):
        return 0.0
    first, _ = _first_depreciation(c, bought, end, sv, r, b)
    if per == 0:
        return first
    left = c - sv - first
    dep = r * c
    for _ in range(per):
        dep = min(dep, left)
        left = max(left - dep, 0.0)
    return dep


def _whole(x: float) -> float:
    """``x`` rounded to a whole number, half up, from its 15 significant digits
    (2812.4999999999995, 0.3 x 1.5 x 6250 in binary, is 2812.5 and so 2813)."""
    return float(math.floor(float(f"{x:.15g}") + 0.5))


def _amordegrc(cost, date_purchased, first_period, salvage, period, rate, basis=None):
    """AMORDEGRC(cost, date_purchased, first_period, salvage, period, rate, [basis]): the
    declining-balance depreciation of ``period`` (Microsoft's example: 2400, 19 Aug 2008,
    31 Dec 2008, 300, 1, 15 %, 1: 776).

    >>> _amordegrc(2400, 39679, 39813, 300, 1, 0.15, 1)
    776.0
    """
    c, bought, end, sv, per, r, b = _amor_args("AMORDEGRC", cost, date_purchased,
                                               first_period, salvage, period, rate, basis)
    life = 1.0 / r
    _check(not (life < 3 or 4 < life < 5), "AMORDEGRC", f"an asset life of {life:g} years")
    periods = math.ceil(life)
    if per > periods or c == sv:
        return 0.0
    coefficient = 1.5 if periods <= 4 else 2.0 if periods <= 6 else 2.5
    dr = r * coefficient
    first, fraction = _first_depreciation(c, bought, end, sv, dr, b)
    first = _whole(first)
    if per == 0:
        return first
    life_periods = periods + 1 if fraction else periods
    left = c - first
    dep = 0.0
    for k in range(2, per + 2):
        if life_periods - k == 2:
            step, dr = left * 0.5, 1.0
        else:
            step = dr * left
        dep = max(left - sv, 0.0) if left < sv else step
        left -= dep
    return _whole(dep)


# -------------------------------------------------------------------- XNPV, XIRR
# Microsoft, "XNPV function", "XIRR function" (read 2026-12-01): XNPV = sum of P_i / (1 +
# rate)^((d_i - d_1) / 365); XIRR the rate at which XNPV is 0. Dates are truncated to whole
# days; a date before the first, a non-numeric value or date, or values and dates of
# different counts are errors. The rest is Excel's as its cached values show (the
# ``formulas`` project's regression workbook, FINANCIAL!R54:AH56; IronCalc's XIRR and XNPV
# books): an error among the dates comes before one among the values; a rate (XNPV) or guess
# (XIRR) that is a range of several cells or a boolean is #VALUE!; a rate <= 0 or a guess
# < 0 is #NUM!; a date below 0 (XIRR) or not above 0 (XNPV) is #NUM!; a boolean among the
# values or dates is #VALUE! for XIRR; an empty, text or boolean amount is #NUM! for
# XNPV; a payment whose amount or date is empty is no payment.


def _flat(x, name: str) -> list:
    if hasattr(x, "shape"):
        raise TypeError("a block column")  # row by row
    if isinstance(x, list):
        rows = x if x and isinstance(x[0], list) else [x]
        return [v for row in rows for v in row]
    return [x]


def _single(x, name: str, what: str) -> float:
    """A rate or guess: one value, a number (numeric text read), no boolean."""
    vals = _flat(x, name)
    if len(vals) != 1:
        raise Fail("#VALUE!", f"{name}: {what} is a range of several cells")
    v = vals[0]
    if isinstance(v, bool):
        raise Fail("#VALUE!", f"{name}: {what} is a boolean")
    return _number(v, f"{name}: {what}")


def _first_error(*groups: list) -> None:
    for group in groups:
        for v in group:
            if isinstance(v, ExcelError):
                raise Fail.passing(v)


def _payments(name: str, values: list, dates: list, xnpv: bool) -> tuple[list, list]:
    """(amounts, years from the first date) of the payments (see the notes above)."""
    if xnpv and (len(values) != len(dates) or any(
            v is None or isinstance(v, (bool, str)) for v in values)):
        raise Fail("#NUM!", f"{name}: an amount is not a number, or the counts differ")
    if any(isinstance(v, bool) for v in values + dates):
        raise Fail("#VALUE!", f"{name}: a boolean among the values or dates")
    if len(values) != len(dates):
        raise Fail("#NUM!", f"{name}: values and dates of different counts")
    amounts, days = [], []
    for v, d in zip(values, dates, strict=True):
        if v is None or d is None:
            continue
        amounts.append(_number(v, f"{name}: a value"))
        days.append(math.floor(_number(d, f"{name}: a date")))
    if not days:
        raise Fail("#NUM!", f"{name}: no payments")
    low = 1 if xnpv else 0
    if any(not low <= d <= _LAST_DAY for d in days) or any(d < days[0] for d in days):
        raise Fail("#NUM!", f"{name}: a date outside 1900-9999 or before the first")
    return amounts, [(d - days[0]) / 365 for d in days]


def _xnpv(rate, values, dates):
    """XNPV(rate, values, dates): the present value of payments on the given dates
    (Microsoft's example: 9 %, -10,000 on 1 Jan 2008, 2,750 on 1 Mar 2008, 4,250 on 30 Oct
    2008, 3,250 on 15 Feb 2009, 2,750 on 1 Apr 2009: 2086.65).

    >>> round(_xnpv(0.09, [[-10000, 2750, 4250, 3250, 2750]],
    ...             [[39448, 39508, 39751, 39859, 39904]]), 2)
    2086.65
    """
    try:
        if isinstance(rate, ExcelError):
            return rate
        r = _single(rate, "XNPV", "rate")
        vals, days = _flat(values, "XNPV"), _flat(dates, "XNPV")
        _first_error(days, vals)
        _check(r > 0, "XNPV", "rate is not positive")
        amounts, years = _payments("XNPV", vals, days, True)
        return _result(xnpv_sum(r, amounts, years))
    except Fail as ex:
        return ex.error


def _xirr(values, dates, guess=0.1):
    """XIRR(values, dates, [guess]): the rate at which XNPV is 0, as Excel finds it
    (:func:`rooflinexl.recalc.functions.xirr_rate`) (Microsoft's example, the payments of
    XNPV's: 0.373362535).

    >>> round(_xirr([[-10000, 2750, 4250, 3250, 2750]],
    ...             [[39448, 39508, 39751, 39859, 39904]], 0.1), 6)
    0.373363
    """
    try:
        g = _single(guess, "XIRR", "guess")
        vals, days = _flat(values, "XIRR"), _flat(dates, "XIRR")
        _first_error(days, vals)
        _check(g >= 0, "XIRR", "guess is negative")
        amounts, years = _payments("XIRR", vals, days, False)
        rate = xirr_rate(lambda r: xnpv_sum(r, amounts, years), g)
        _check(rate is not None, "XIRR", "no rate makes XNPV 0")
        return _result(rate)
    except Fail as ex:
        return ex.error


def _result(v: float):
    return v if math.isfinite(v) else ExcelError("#NUM!", "the result is not finite")


FINANCE: dict = {}
for _name, _fn, _lo, _hi in (
        ("COUPDAYBS", _coupdaybs, 3, 4), ("COUPDAYS", _coupdays, 3, 4),
        ("COUPDAYSNC", _coupdaysnc, 3, 4), ("COUPNCD", _coupncd, 3, 4),
        ("COUPPCD", _couppcd, 3, 4), ("COUPNUM", _coupnum, 3, 4),
        ("PRICE", _price, 6, 7), ("YIELD", _yield, 6, 7),
        ("DURATION", _duration, 5, 6), ("MDURATION", _mduration, 5, 6),
        ("DISC", _disc, 4, 5), ("INTRATE", _intrate, 4, 5), ("RECEIVED", _received, 4, 5),
        ("PRICEDISC", _pricedisc, 4, 5), ("YIELDDISC", _yielddisc, 4, 5),
        ("PRICEMAT", _pricemat, 5, 6), ("YIELDMAT", _yieldmat, 5, 6),
        ("ACCRINTM", _accrintm, 3, 5), ("ODDLPRICE", _oddlprice, 7, 8),
        ("ODDLYIELD", _oddlyield, 7, 8), ("ODDFPRICE", _oddfprice, 8, 9),
        ("ODDFYIELD", _oddfyield, 8, 9), ("AMORLINC", _amorlinc, 6, 7),
        ("AMORDEGRC", _amordegrc, 6, 7)):
    FINANCE[_name] = lift(_name, _fn, _lo, _hi, atp=True)
for _name, _fn, _lo, _hi in (("IPMT", _ipmt, 4, 6), ("PPMT", _ppmt, 4, 6)):
    FINANCE[_name] = lift(_name, _fn, _lo, _hi)
del _name, _fn, _lo, _hi
FINANCE.update(XNPV=_xnpv, XIRR=_xirr)

for _fn in FINANCE.values():
    _fn.plain_text = True  # text that reads "#N/A" is text: errors are ExcelError values
del _fn
BUILTINS.update(FINANCE)
