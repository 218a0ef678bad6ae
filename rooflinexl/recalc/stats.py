"""Excel's statistical distributions and tests, written from Microsoft's documentation.

The distributions (``NORM.DIST``, ``T.INV``, ``BINOM.DIST`` ...) are functions of single
values, lifted element by element over ranges, arrays and block columns
(:func:`rooflinexl.recalc.scalars.lift`); the tests (``T.TEST``, ``CHISQ.TEST``,
``F.TEST``, ``Z.TEST``) and ``PROB`` read arrays. They are entries of the engine's
function table (:data:`rooflinexl.recalc.functions.BUILTINS`), called through the same
adapter by both evaluation paths.

Arguments as Excel reads them (Microsoft, each function's page in "Statistical functions
(reference)" and "Compatibility functions (reference)", read 2026-12-01):

* a number argument: an empty cell 0, TRUE 1, numeric or date text its number
  (:func:`~rooflinexl.recalc.scalars.excel_number`), other text ``#VALUE!``; an error
  value is the result;
* ``cumulative``: a logical value (a number is TRUE unless 0, text "TRUE"/"FALSE");
* degrees of freedom, trials and counts are truncated to integers;
* an argument outside the function's domain is ``#NUM!`` (the bounds are in each
  function's docstring);
* in the tests' arrays only numbers count (text, booleans and empty cells are left out),
  an error value in them is the result.

The special functions (the regularised incomplete beta and gamma functions, their
inverses, the normal distribution's) are scipy's (``scipy.special``, imported when a
function is first called: only the ``cli`` extra installs scipy).
"""
from __future__ import annotations

import math
from statistics import NormalDist

from rooflinexl.errors import ExcelError
from rooflinexl.recalc.functions import BUILTINS, mean_and_squares
from rooflinexl.recalc.scalars import Fail, excel_bool, lift
from rooflinexl.recalc.scalars import finite_number as _num
from rooflinexl.recalc.scalars import whole_number as _whole

__all__ = ["STATS"]


def _sp():
    """scipy.special, imported on first use."""
    import scipy.special as sp

    return sp


# ----------------------------------------------------------------- argument readers

def _need(ok: bool, name: str, why: str) -> None:
    """#NUM! (a range check, after every argument's conversion) unless ``ok``."""
    if not ok:
        raise Fail("#NUM!", f"{name}: {why}")


def _error_in(y) -> bool:
    """Whether ``y`` is an error value an array's reader stops at: every one but #NULL!,
    which Excel passes over in the tests' arrays (the `formulas` project's test.xlsx,
    saved by Excel: T.TEST, CHISQ.TEST and F.TEST of (#NULL!, #NUM!) and (#REF!, ...) are
    #NUM!; as in CORREL's pairs, functions._pairs)."""
    return isinstance(y, ExcelError) and str(y) != "#NULL!"


def _cells(x) -> list:
    """Every value of an array or reference argument, row by row."""
    if hasattr(x, "shape"):
        raise TypeError("a block column")  # the block evaluator calls row by row
    rows = x if isinstance(x, list) else [[x]]
    return [y for row in rows for y in (row if isinstance(row, list) else [row])]


def _is_num(y) -> bool:
    return isinstance(y, (int, float)) and not isinstance(y, bool)


def _numbers(x) -> list[float]:
    """The numbers of an array or reference argument, row by row (text, booleans and empty
    cells left out); an error value in it (:func:`_error_in`) is raised as the result."""
    out = []
    for y in _cells(x):
        if _error_in(y):
            raise Fail.passing(y)
        if _is_num(y):
            out.append(float(y))
    return out


def _shape_of(x) -> tuple[int, int]:
    if isinstance(x, list):
        if x and isinstance(x[0], list):
            return len(x), len(x[0])
        return 1, len(x)
    return 1, 1


#: the functions of this module, by name (added to BUILTINS)
STATS: dict = {}

#: an optional argument left out: its default applies (an empty cell passed there is None,
#: which reads 0; IronCalc's BINOM.xlsx, saved by Excel: BINOM.DIST.RANGE(2,0.1,2,D12)
#: with D12 empty is #NUM!, number_s2 0 being below number_s)
_OMITTED = object()


def _register(name: str, fn, low: int, high: int, *aliases: str) -> None:
    f = lift(name, fn, low, high)
    f.plain_text = True  # text that reads "#N/A" is text: errors are ExcelError values
    STATS[name] = f
    for a in aliases:
        g = lift(a, fn, low, high)
        g.plain_text = True
        STATS[a] = g


# ------------------------------------------------------------------ normal family

def _norm_dist(x, mean, standard_dev, cumulative):
    """NORM.DIST(x, mean, standard_dev, cumulative): the normal distribution; #NUM! for
    standard_dev <= 0 (Microsoft's example: NORM.DIST(42,40,1.5,TRUE) = 0.9087888, FALSE
    0.10934005).

    >>> round(_norm_dist(42, 40, 1.5, True), 7), round(_norm_dist(42, 40, 1.5, False), 7)
    (0.9087888, 0.10934)
    """
    x, m, s = _num(x, "x"), _num(mean, "mean"), _num(standard_dev, "standard_dev")
    c = excel_bool(cumulative, "cumulative")
    _need(s > 0, "NORM.DIST", "standard_dev must be > 0")
    z = (x - m) / s
    if c:
        return float(_sp().ndtr(z))
    return math.exp(-z * z / 2) / (math.sqrt(2 * math.pi) * s)


def _normdist(x, mean, standard_dev, cumulative):
    return _norm_dist(x, mean, standard_dev, cumulative)


def _norm_inv(probability, mean, standard_dev):
    """NORM.INV(probability, mean, standard_dev): the inverse of the normal cumulative
    distribution; #NUM! for probability <= 0 or >= 1 or standard_dev <= 0 (Microsoft's
    example: NORM.INV(0.908789,40,1.5) = 42.000002).

    >>> round(_norm_inv(0.908789, 40, 1.5), 6)
    42.000002
    """
    p = _num(probability, "probability")
    m, s = _num(mean, "mean"), _num(standard_dev, "standard_dev")
    _need(0 < p < 1, "NORM.INV", f"probability {p} out of (0, 1)")
    _need(s > 0, "NORM.INV", "standard_dev must be > 0")
    # the tails (p < 0.075 or > 0.925) by Wichura's algorithm AS 241 (Applied Statistics
    # 37, 1988) as the standard library has it, the centre by Cephes' ndtri (scipy): the
    # pair that gives Excel's digits in the `formulas` project's test.xlsx (saved by
    # Excel: NORM.S.INV(0.002) is -2.8781617390954826, which only AS 241 gives,
    # NORMINV(0.3,1,2) -0.04880102541608178, which only ndtri gives)
    z = float(_sp().ndtri(p)) if 0.075 <= p <= 0.925 else NormalDist().inv_cdf(p)
    return m + s * z


def _norm_s_dist(z, cumulative):
    """NORM.S.DIST(z, cumulative): the standard normal distribution (Microsoft's example:
    NORM.S.DIST(1.333333,TRUE) = 0.908788726).

    >>> round(_norm_s_dist(1.333333, True), 9)
    0.908788726
    """
    return _norm_dist(z, 0, 1, cumulative)


def _normsdist(z):
    return _norm_dist(z, 0, 1, True)


def _norm_s_inv(probability):
    """NORM.S.INV(probability): #NUM! for probability <= 0 or >= 1 (Microsoft's example:
    NORM.S.INV(0.908789) = 1.3333347).

    >>> round(_norm_s_inv(0.908789), 7)
    1.3333347
    """
    return _norm_inv(probability, 0, 1)


def _lognorm_dist(x, mean, standard_dev, cumulative=True):
    """LOGNORM.DIST(x, mean, standard_dev, cumulative): the lognormal distribution of x,
    ln(x) normal with ``mean`` and ``standard_dev``; #NUM! for x <= 0 or standard_dev <= 0
    (Microsoft's example: LOGNORM.DIST(4,3.5,1.2,TRUE) = 0.0390836).

    >>> round(_lognorm_dist(4, 3.5, 1.2, True), 7), round(_lognorm_dist(4, 3.5, 1.2, False), 7)
    (0.0390836, 0.0176176)
    """
    x, m, s = _num(x, "x"), _num(mean, "mean"), _num(standard_dev, "standard_dev")
    c = excel_bool(cumulative, "cumulative")
    _need(x > 0, "LOGNORM.DIST", "x must be > 0")
    _need(s > 0, "LOGNORM.DIST", "standard_dev must be > 0")
    z = (math.log(x) - m) / s
    if c:
        return float(_sp().ndtr(z))
    return math.exp(-z * z / 2) / (math.sqrt(2 * math.pi) * s * x)


def _lognormdist(x, mean, standard_dev):
    return _lognorm_dist(x, mean, standard_dev, True)


def _lognorm_inv(probability, mean, standard_dev):
    """LOGNORM.INV(probability, mean, standard_dev) = exp(mean + standard_dev NORM.S.INV(p));
    #NUM! for probability <= 0 or >= 1, standard_dev <= 0 (Microsoft's example:
    LOGNORM.INV(0.039084,3.5,1.2) = 4.0000252).

    >>> round(_lognorm_inv(0.039084, 3.5, 1.2), 7)
    4.0000252
    """
    return math.exp(_norm_inv(probability, mean, standard_dev))


def _gauss(z):
    """GAUSS(z) = NORM.S.DIST(z, TRUE) - 0.5 (Microsoft's example: GAUSS(2) = 0.47725).

    >>> round(_gauss(2), 5)
    0.47725
    """
    return float(_sp().ndtr(_num(z, "z"))) - 0.5


def _phi(x):
    """PHI(x): the standard normal density (Microsoft's example: PHI(0.75) = 0.301137432).

    >>> round(_phi(0.75), 9)
    0.301137432
    """
    v = _num(x, "x")
    return math.exp(-v * v / 2) / math.sqrt(2 * math.pi)


def _standardize(x, mean, standard_dev):
    """STANDARDIZE(x, mean, standard_dev) = (x - mean) / standard_dev; #NUM! for
    standard_dev <= 0 (Microsoft's example: STANDARDIZE(42,40,1.5) = 1.33333333).

    >>> round(_standardize(42, 40, 1.5), 8)
    1.33333333
    """
    x, m, s = _num(x, "x"), _num(mean, "mean"), _num(standard_dev, "standard_dev")
    _need(s > 0, "STANDARDIZE", "standard_dev must be > 0")
    return (x - m) / s


def _fisher(x):
    """FISHER(x) = atanh(x); #NUM! for x <= -1 or x >= 1 (Microsoft's example:
    FISHER(0.75) = 0.9729551).

    >>> round(_fisher(0.75), 7)
    0.9729551
    """
    v = _num(x, "x")
    _need(-1 < v < 1, "FISHER", "x must be in (-1, 1)")
    return 0.5 * math.log((1 + v) / (1 - v))


def _fisherinv(y):
    """FISHERINV(y) = tanh(y) (Microsoft's example: FISHERINV(0.972955) = 0.75).

    >>> round(_fisherinv(0.972955), 6)
    0.75
    """
    v = _num(y, "y")
    e = math.exp(2 * v) if v < 350 else math.inf
    return 1.0 if e == math.inf else (e - 1) / (e + 1)


def _confidence_norm(alpha, standard_dev, size):
    """CONFIDENCE.NORM(alpha, standard_dev, size) = NORM.S.INV(1 - alpha/2) s / sqrt(n);
    #NUM! for alpha <= 0 or >= 1, standard_dev <= 0, size < 1 (truncated) (Microsoft's
    example: CONFIDENCE.NORM(0.05,2.5,50) = 0.692952).

    >>> round(_confidence_norm(0.05, 2.5, 50), 6)
    0.692952
    """
    a, s, n = _num(alpha, "alpha"), _num(standard_dev, "standard_dev"), _whole(size, "size")
    _need(0 < a < 1, "CONFIDENCE", "alpha must be in (0, 1)")
    _need(s > 0, "CONFIDENCE", "standard_dev must be > 0")
    _need(n >= 1, "CONFIDENCE", "size must be >= 1")
    return NormalDist().inv_cdf(1 - a / 2) * s / math.sqrt(n)


def _confidence_t(alpha, standard_dev, size):
    """CONFIDENCE.T(alpha, standard_dev, size) = T.INV.2T(alpha, n-1) s / sqrt(n); #NUM!
    as CONFIDENCE.NORM, #DIV/0! for size 1 (Microsoft's example:
    CONFIDENCE.T(0.05,1,50) = 0.284196855).

    >>> round(_confidence_t(0.05, 1, 50), 9)
    0.284196855
    """
    a, s, n = _num(alpha, "alpha"), _num(standard_dev, "standard_dev"), _whole(size, "size")
    _need(0 < a < 1, "CONFIDENCE.T", "alpha must be in (0, 1)")
    _need(s > 0, "CONFIDENCE.T", "standard_dev must be > 0")
    _need(n >= 1, "CONFIDENCE.T", "size must be >= 1")
    if n == 1:
        raise Fail("#DIV/0!", "CONFIDENCE.T: size 1 has no degrees of freedom")
    return float(_sp().stdtrit(n - 1, 1 - a / 2)) * s / math.sqrt(n)


for _n, _f, _lo, _hi, _al in (
        ("NORM.DIST", _norm_dist, 4, 4, ("NORMDIST",)),
        ("NORM.INV", _norm_inv, 3, 3, ("NORMINV",)),
        ("NORM.S.DIST", _norm_s_dist, 2, 2, ()),
        ("NORMSDIST", _normsdist, 1, 1, ()),
        ("NORM.S.INV", _norm_s_inv, 1, 1, ("NORMSINV",)),
        ("LOGNORM.DIST", _lognorm_dist, 4, 4, ()),
        ("LOGNORMDIST", _lognormdist, 3, 3, ()),
        ("LOGNORM.INV", _lognorm_inv, 3, 3, ("LOGINV",)),
        ("GAUSS", _gauss, 1, 1, ()), ("PHI", _phi, 1, 1, ()),
        ("STANDARDIZE", _standardize, 3, 3, ()),
        ("FISHER", _fisher, 1, 1, ()), ("FISHERINV", _fisherinv, 1, 1, ()),
        ("CONFIDENCE.NORM", _confidence_norm, 3, 3, ("CONFIDENCE",)),
        ("CONFIDENCE.T", _confidence_t, 3, 3, ())):
    _register(_n, _f, _lo, _hi, *_al)


# --------------------------------------------------------- t, chi-squared and F

def _df(x, name: str, what: str = "deg_freedom") -> int:
    """Degrees of freedom: truncated, at least 1 (else #NUM!)."""
    d = _whole(x, what)
    _need(d >= 1, name, f"{what} must be >= 1")
    return d


def _t_dist(x, deg_freedom, cumulative):
    """T.DIST(x, deg_freedom, cumulative): Student's left-tailed t-distribution; #NUM! for
    deg_freedom < 1 (Microsoft's example: T.DIST(60,1,TRUE) = 0.99469533,
    T.DIST(8,3,FALSE) = 0.00073691).

    >>> round(_t_dist(60, 1, True), 8), round(_t_dist(8, 3, False), 8)
    (0.99469533, 0.00073691)
    """
    t, n = _num(x, "x"), _num(deg_freedom, "deg_freedom")
    c = excel_bool(cumulative, "cumulative")
    n = math.trunc(n)
    if n == 0 and not c:  # test.xlsx (saved by Excel): T.DIST(0,,) is #DIV/0!
        raise Fail("#DIV/0!", "T.DIST: the density with 0 degrees of freedom")
    _need(n >= 1, "T.DIST", "deg_freedom must be >= 1")
    if c:
        return float(_sp().stdtr(n, t))
    return math.exp(math.lgamma((n + 1) / 2) - math.lgamma(n / 2)) / math.sqrt(
        n * math.pi) * (1 + t * t / n) ** (-(n + 1) / 2)


def _t_dist_rt(x, deg_freedom):
    """T.DIST.RT(x, deg_freedom): the right tail (Microsoft's example:
    T.DIST.RT(1.959999998,60) = 0.027322).

    >>> round(_t_dist_rt(1.959999998, 60), 6)
    0.027322
    """
    t, n = _num(x, "x"), _df(deg_freedom, "T.DIST.RT")
    return float(_sp().stdtr(n, -t))


def _t_dist_2t(x, deg_freedom):
    """T.DIST.2T(x, deg_freedom): both tails; #NUM! for x < 0 (Microsoft's example:
    T.DIST.2T(1.959999998,60) = 0.054645).

    >>> round(_t_dist_2t(1.959999998, 60), 6)
    0.054645
    """
    t, n = _num(x, "x"), _df(deg_freedom, "T.DIST.2T")
    _need(t >= 0, "T.DIST.2T", "x must be >= 0")
    return 2 * float(_sp().stdtr(n, -t))


def _tdist(x, deg_freedom, tails):
    """TDIST(x, deg_freedom, tails): one (1) or both (2) tails; #NUM! for x < 0, tails
    other than 1 or 2 (truncated), deg_freedom < 1 (Microsoft's example:
    TDIST(1.959999998,60,2) = 0.054644930, tails 1 0.027322465).

    >>> round(_tdist(1.959999998, 60, 2), 9), round(_tdist(1.959999998, 60, 1), 9)
    (0.05464493, 0.027322465)
    """
    t, n, k = _num(x, "x"), _df(deg_freedom, "TDIST"), _whole(tails, "tails")
    _need(k in (1, 2), "TDIST", "tails must be 1 or 2")
    _need(t >= 0, "TDIST", "x must be >= 0")
    return k * float(_sp().stdtr(n, -t))


def _t_inv(probability, deg_freedom):
    """T.INV(probability, deg_freedom): the left-tailed inverse; #NUM! for probability
    <= 0 or > 1, deg_freedom < 1 (Microsoft's example: T.INV(0.75,2) = 0.8164966).

    >>> round(_t_inv(0.75, 2), 7)
    0.8164966
    """
    p, n = _num(probability, "probability"), _df(deg_freedom, "T.INV")
    _need(0 < p <= 1, "T.INV", f"probability {p} out of (0, 1]")
    if p == 1:
        raise Fail("#NUM!", "T.INV: no finite t has probability 1")
    return float(_sp().stdtrit(n, p))


def _t_inv_2t(probability, deg_freedom):
    """T.INV.2T(probability, deg_freedom): the t with both tails together ``probability``;
    #NUM! for probability <= 0 or > 1, deg_freedom < 1 (Microsoft's example:
    T.INV.2T(0.546449,60) = 0.606533076).

    >>> round(_t_inv_2t(0.546449, 60), 9)
    0.606533076
    """
    p, n = _num(probability, "probability"), _df(deg_freedom, "T.INV.2T")
    _need(0 < p <= 1, "T.INV.2T", f"probability {p} out of (0, 1]")
    return float(_sp().stdtrit(n, 1 - p / 2))


def _chisq_dist(x, deg_freedom, cumulative):
    """CHISQ.DIST(x, deg_freedom, cumulative): the chi-squared distribution; #NUM! for
    x < 0, deg_freedom < 1 or > 10^10 (Microsoft's examples: CHISQ.DIST(0.5,1,TRUE) =
    0.52049988, CHISQ.DIST(2,3,FALSE) = 0.20755375).

    >>> round(_chisq_dist(0.5, 1, True), 8), round(_chisq_dist(2, 3, False), 8)
    (0.52049988, 0.20755375)
    """
    v, n = _num(x, "x"), _num(deg_freedom, "deg_freedom")
    c = excel_bool(cumulative, "cumulative")
    n = math.trunc(n)
    _need(v >= 0, "CHISQ.DIST", "x must be >= 0")
    _need(1 <= n <= 1e10, "CHISQ.DIST", "deg_freedom must be in [1, 10^10]")
    if c:
        return float(_sp().gammainc(n / 2, v / 2))
    if v == 0:
        if n == 2:
            return 0.5
        _need(n > 2, "CHISQ.DIST", "the density at 0 is infinite")
        return 0.0
    return math.exp((n / 2 - 1) * math.log(v) - v / 2 - n / 2 * math.log(2) - math.lgamma(n / 2))


def _chisq_dist_rt(x, deg_freedom):
    """CHISQ.DIST.RT(x, deg_freedom): the right tail; #NUM! for x < 0, deg_freedom < 1 or
    > 10^10 (Microsoft's example: CHISQ.DIST.RT(18.307,10) = 0.0500006).

    >>> round(_chisq_dist_rt(18.307, 10), 7)
    0.0500006
    """
    v, n = _num(x, "x"), _df(deg_freedom, "CHISQ.DIST.RT")
    _need(v >= 0, "CHISQ.DIST.RT", "x must be >= 0")
    _need(n <= 1e10, "CHISQ.DIST.RT", "deg_freedom must be <= 10^10")
    return float(_sp().gammaincc(n / 2, v / 2))


def _chisq_inv(probability, deg_freedom):
    """CHISQ.INV(probability, deg_freedom): the left-tailed inverse; #NUM! for probability
    < 0 or > 1, deg_freedom < 1 or > 10^10 (Microsoft's examples: CHISQ.INV(0.93,1) =
    3.283020287, CHISQ.INV(0.6,2) = 1.832581464).

    >>> round(_chisq_inv(0.93, 1), 9), round(_chisq_inv(0.6, 2), 9)
    (3.283020287, 1.832581464)
    """
    p, n = _num(probability, "probability"), _df(deg_freedom, "CHISQ.INV")
    _need(0 <= p <= 1, "CHISQ.INV", f"probability {p} out of [0, 1]")
    _need(n <= 1e10, "CHISQ.INV", "deg_freedom must be <= 10^10")
    _need(p < 1, "CHISQ.INV", "no finite x has probability 1")
    return 2 * float(_sp().gammaincinv(n / 2, p))


def _chisq_inv_rt(probability, deg_freedom):
    """CHISQ.INV.RT(probability, deg_freedom): the right-tailed inverse; #NUM! for
    probability < 0 or > 1 (Microsoft's example: CHISQ.INV.RT(0.050001,10) = 18.306973).

    >>> round(_chisq_inv_rt(0.050001, 10), 6)
    18.306973
    """
    p, n = _num(probability, "probability"), _df(deg_freedom, "CHISQ.INV.RT")
    _need(0 <= p <= 1, "CHISQ.INV.RT", f"probability {p} out of [0, 1]")
    _need(n <= 1e10, "CHISQ.INV.RT", "deg_freedom must be <= 10^10")
    _need(p > 0, "CHISQ.INV.RT", "no finite x has a right tail of 0")
    return 2 * float(_sp().gammainccinv(n / 2, p))


def _f_args(x, d1, d2, name: str) -> tuple[float, int, int]:
    v = _num(x, "x")
    n1, n2 = _whole(d1, "deg_freedom1"), _whole(d2, "deg_freedom2")
    _need(v >= 0, name, "x must be >= 0")
    _need(n1 >= 1 and n2 >= 1, name, "degrees of freedom must be >= 1")
    _need(n1 < 1e10 and n2 < 1e10, name, "degrees of freedom must be < 10^10")
    return v, n1, n2


def _f_dist(x, deg_freedom1, deg_freedom2, cumulative):
    """F.DIST(x, deg_freedom1, deg_freedom2, cumulative): the F distribution; #NUM! for
    x < 0, a degree of freedom < 1 (Microsoft's examples: F.DIST(15.2069,6,4,TRUE) =
    0.99, FALSE 0.0012238).

    >>> round(_f_dist(15.2068649, 6, 4, True), 2), round(_f_dist(15.2068649, 6, 4, False), 7)
    (0.99, 0.0012238)
    """
    v, n1, n2 = _num(x, "x"), _num(deg_freedom1, "deg_freedom1"), _num(deg_freedom2,
                                                                       "deg_freedom2")
    c = excel_bool(cumulative, "cumulative")
    v, n1, n2 = _f_args(v, n1, n2, "F.DIST")
    if c:
        return float(_sp().fdtr(n1, n2, v))
    if v == 0:
        if n1 == 2:
            return 1.0
        _need(n1 > 2, "F.DIST", "the density at 0 is infinite")
        return 0.0
    lg = (math.lgamma((n1 + n2) / 2) - math.lgamma(n1 / 2) - math.lgamma(n2 / 2)
          + n1 / 2 * math.log(n1 / n2) + (n1 / 2 - 1) * math.log(v)
          - (n1 + n2) / 2 * math.log1p(n1 * v / n2))
    return math.exp(lg)


def _f_dist_rt(x, deg_freedom1, deg_freedom2):
    """F.DIST.RT(x, deg_freedom1, deg_freedom2): the right tail (Microsoft's example:
    F.DIST.RT(15.2068649,6,4) = 0.01); FDIST is the same.

    >>> round(_f_dist_rt(15.2068649, 6, 4), 2)
    0.01
    """
    v, n1, n2 = _f_args(x, deg_freedom1, deg_freedom2, "F.DIST.RT")
    return float(_sp().fdtrc(n1, n2, v))


def _f_inv_args(probability, d1, d2, name: str) -> tuple[float, int, int]:
    p = _num(probability, "probability")
    n1, n2 = _whole(d1, "deg_freedom1"), _whole(d2, "deg_freedom2")
    _need(0 <= p <= 1, name, f"probability {p} out of [0, 1]")
    _need(n1 >= 1 and n2 >= 1, name, "degrees of freedom must be >= 1")
    _need(n1 < 1e10 and n2 < 1e10, name, "degrees of freedom must be < 10^10")
    return p, n1, n2


def _f_inv(probability, deg_freedom1, deg_freedom2):
    """F.INV(probability, deg_freedom1, deg_freedom2): the left-tailed inverse; #NUM! for
    probability < 0 or > 1 (Microsoft's example: F.INV(0.01,6,4) = 0.10930991).

    >>> round(_f_inv(0.01, 6, 4), 8)
    0.10930991
    """
    p, n1, n2 = _f_inv_args(probability, deg_freedom1, deg_freedom2, "F.INV")
    _need(p < 1, "F.INV", "no finite x has probability 1")
    return float(_sp().fdtri(n1, n2, p))


def _f_inv_rt(probability, deg_freedom1, deg_freedom2):
    """F.INV.RT(probability, deg_freedom1, deg_freedom2): the right-tailed inverse (FINV);
    #NUM! for probability < 0 or > 1 (Microsoft's example: F.INV.RT(0.01,6,4) =
    15.20686).

    >>> round(_f_inv_rt(0.01, 6, 4), 5)
    15.20686
    """
    p, n1, n2 = _f_inv_args(probability, deg_freedom1, deg_freedom2, "F.INV.RT")
    _need(p > 0, "F.INV.RT", "no finite x has a right tail of 0")
    return float(_sp().fdtri(n1, n2, 1 - p)) if p > 0.5 else _f_inv_upper(n1, n2, p)


def _f_inv_upper(n1: int, n2: int, p: float) -> float:
    """The x with F.DIST.RT(x, n1, n2) = p, through the incomplete beta function's inverse
    (no cancellation in 1 - p): x = n2 w / (n1 (1 - w)), w = I^-1_{1-p}(n1/2, n2/2)."""
    sp = _sp()
    u = float(sp.betainccinv(n2 / 2, n1 / 2, 1 - p)) if p > 0.5 else float(
        sp.betaincinv(n2 / 2, n1 / 2, p))
    # u = n2 / (n2 + n1 x)
    return n2 * (1 - u) / (n1 * u)


for _n, _f, _lo, _hi, _al in (
        ("T.DIST", _t_dist, 3, 3, ()), ("T.DIST.RT", _t_dist_rt, 2, 2, ()),
        ("T.DIST.2T", _t_dist_2t, 2, 2, ()), ("TDIST", _tdist, 3, 3, ()),
        ("T.INV", _t_inv, 2, 2, ()), ("T.INV.2T", _t_inv_2t, 2, 2, ("TINV",)),
        ("CHISQ.DIST", _chisq_dist, 3, 3, ()),
        ("CHISQ.DIST.RT", _chisq_dist_rt, 2, 2, ("CHIDIST",)),
        ("CHISQ.INV", _chisq_inv, 2, 2, ()),
        ("CHISQ.INV.RT", _chisq_inv_rt, 2, 2, ("CHIINV",)),
        ("F.DIST", _f_dist, 4, 4, ()), ("F.DIST.RT", _f_dist_rt, 3, 3, ("FDIST",)),
        ("F.INV", _f_inv, 3, 3, ()), ("F.INV.RT", _f_inv_rt, 3, 3, ("FINV",))):
    _register(_n, _f, _lo, _hi, *_al)


# ----------------------------------------------------------------- beta and gamma

def _beta_args(x, alpha, beta, a, b, name: str):
    v, al, be = _num(x, "x"), _num(alpha, "alpha"), _num(beta, "beta")
    lo = 0.0 if a is _OMITTED else _num(a, "A")
    hi = 1.0 if b is _OMITTED else _num(b, "B")
    _need(al > 0 and be > 0, name, "alpha and beta must be > 0")
    _need(lo < hi, name, "A must be below B")
    return v, al, be, lo, hi


def _beta_dist(x, alpha, beta, cumulative, a=_OMITTED, b=_OMITTED):
    """BETA.DIST(x, alpha, beta, cumulative, [A], [B]): the beta distribution on [A, B]
    (default [0, 1]); #NUM! for alpha or beta <= 0, x < A, x > B or A = B (Microsoft's
    examples: BETA.DIST(2,8,10,TRUE,1,3) = 0.6854706, FALSE 1.4837646).

    >>> round(_beta_dist(2, 8, 10, True, 1, 3), 7), round(_beta_dist(2, 8, 10, False, 1, 3), 7)
    (0.6854706, 1.4837646)
    """
    v = _num(x, "x")
    al, be = _num(alpha, "alpha"), _num(beta, "beta")
    c = excel_bool(cumulative, "cumulative")
    v, al, be, lo, hi = _beta_args(v, al, be, a, b, "BETA.DIST")
    _need(lo <= v <= hi, "BETA.DIST", "x must lie between A and B")
    z = (v - lo) / (hi - lo)
    if c:
        return float(_sp().betainc(al, be, z))
    if z in (0.0, 1.0):
        e = al if z == 0 else be
        _need(e >= 1, "BETA.DIST", "the density at the end is infinite")
        if e > 1:
            return 0.0
    lg = ((al - 1) * math.log(z) if al != 1 else 0.0) + (
        (be - 1) * math.log1p(-z) if be != 1 else 0.0) - float(_sp().betaln(al, be))
    return math.exp(lg) / (hi - lo)


def _betadist(x, alpha, beta, a=_OMITTED, b=_OMITTED):
    """BETADIST(x, alpha, beta, [A], [B]): the cumulative beta distribution, BETA.DIST's
    rules (Microsoft's example: BETADIST(2,8,10,1,3) = 0.6854706).

    >>> round(_betadist(2, 8, 10, 1, 3), 7)
    0.6854706
    """
    return _beta_dist(x, alpha, beta, True, a, b)


def _beta_inv(probability, alpha, beta, a=_OMITTED, b=_OMITTED):
    """BETA.INV(probability, alpha, beta, [A], [B]): the inverse of the cumulative beta
    distribution; #NUM! for probability <= 0 or >= 1, alpha or beta <= 0, A >= B
    (Microsoft's example: BETA.INV(0.685470581,8,10,1,3) = 2).

    >>> round(_beta_inv(0.685470581, 8, 10, 1, 3), 7)
    2.0
    """
    p = _num(probability, "probability")
    al, be = _num(alpha, "alpha"), _num(beta, "beta")
    _, al, be, lo, hi = _beta_args(0, al, be, a, b, "BETA.INV")
    # Excel: #NUM! for probability 1 too (test.xlsx, saved by Excel: STATISTICAL AO9)
    _need(0 < p < 1, "BETA.INV", f"probability {p} out of (0, 1)")
    return lo + (hi - lo) * float(_sp().betaincinv(al, be, p))


def _gamma_dist(x, alpha, beta, cumulative):
    """GAMMA.DIST(x, alpha, beta, cumulative): the gamma distribution of shape alpha and
    scale beta; #NUM! for x < 0, alpha <= 0 or beta <= 0 (Microsoft's examples:
    GAMMA.DIST(10.00001131,9,2,FALSE) = 0.032639, TRUE 0.068094).

    >>> round(_gamma_dist(10.00001131, 9, 2, False), 6), round(_gamma_dist(10.00001131, 9, 2,
    ...     True), 6)
    (0.032639, 0.068094)
    """
    v, al, be = _num(x, "x"), _num(alpha, "alpha"), _num(beta, "beta")
    c = excel_bool(cumulative, "cumulative")
    _need(v >= 0, "GAMMA.DIST", "x must be >= 0")
    _need(al > 0 and be > 0, "GAMMA.DIST", "alpha and beta must be > 0")
    if c:
        return float(_sp().gammainc(al, v / be))
    if v == 0:
        _need(al >= 1, "GAMMA.DIST", "the density at 0 is infinite")
        return 1 / be if al == 1 else 0.0
    return math.exp((al - 1) * math.log(v) - v / be - math.lgamma(al) - al * math.log(be))


def _gamma_inv(probability, alpha, beta):
    """GAMMA.INV(probability, alpha, beta): the inverse of the cumulative gamma
    distribution; #NUM! for probability < 0 or > 1, alpha or beta <= 0 (Microsoft's
    example: GAMMA.INV(0.068094,9,2) = 10.0000112).

    >>> round(_gamma_inv(0.068094, 9, 2), 7)
    10.0000112
    """
    p, al, be = _num(probability, "probability"), _num(alpha, "alpha"), _num(beta, "beta")
    _need(0 <= p <= 1, "GAMMA.INV", f"probability {p} out of [0, 1]")
    _need(al > 0 and be > 0, "GAMMA.INV", "alpha and beta must be > 0")
    _need(p < 1, "GAMMA.INV", "no finite x has probability 1")
    return be * float(_sp().gammaincinv(al, p))


def _expon_dist(x, lambda_, cumulative):
    """EXPON.DIST(x, lambda, cumulative): the exponential distribution; #NUM! for x < 0 or
    lambda <= 0 (Microsoft's examples: EXPON.DIST(0.2,10,TRUE) = 0.86466472, FALSE
    1.35335283).

    >>> round(_expon_dist(0.2, 10, True), 8), round(_expon_dist(0.2, 10, False), 8)
    (0.86466472, 1.35335283)
    """
    v, lam = _num(x, "x"), _num(lambda_, "lambda")
    c = excel_bool(cumulative, "cumulative")
    _need(v >= 0, "EXPON.DIST", "x must be >= 0")
    _need(lam > 0, "EXPON.DIST", "lambda must be > 0")
    return -math.expm1(-lam * v) if c else lam * math.exp(-lam * v)


def _weibull_dist(x, alpha, beta, cumulative):
    """WEIBULL.DIST(x, alpha, beta, cumulative): the Weibull distribution; #NUM! for
    x < 0, alpha <= 0 or beta <= 0 (Microsoft's examples: WEIBULL.DIST(105,20,100,TRUE) =
    0.929581, FALSE 0.035589).

    >>> round(_weibull_dist(105, 20, 100, True), 6), round(_weibull_dist(105, 20, 100,
    ...     False), 6)
    (0.929581, 0.035589)
    """
    v, al, be = _num(x, "x"), _num(alpha, "alpha"), _num(beta, "beta")
    c = excel_bool(cumulative, "cumulative")
    _need(v >= 0, "WEIBULL.DIST", "x must be >= 0")
    _need(al > 0 and be > 0, "WEIBULL.DIST", "alpha and beta must be > 0")
    t = (v / be) ** al
    if c:
        return -math.expm1(-t)
    if v == 0:
        _need(al >= 1, "WEIBULL.DIST", "the density at 0 is infinite")
        return 1 / be if al == 1 else 0.0
    return al / be ** al * v ** (al - 1) * math.exp(-t)


for _n, _f, _lo, _hi, _al in (
        ("BETA.DIST", _beta_dist, 4, 6, ()), ("BETADIST", _betadist, 3, 5, ()),
        ("BETA.INV", _beta_inv, 3, 5, ("BETAINV",)),
        ("GAMMA.DIST", _gamma_dist, 4, 4, ("GAMMADIST",)),
        ("GAMMA.INV", _gamma_inv, 3, 3, ("GAMMAINV",)),
        ("EXPON.DIST", _expon_dist, 3, 3, ("EXPONDIST",)),
        ("WEIBULL.DIST", _weibull_dist, 4, 4, ("WEIBULL",))):
    _register(_n, _f, _lo, _hi, *_al)


# ------------------------------------------------------------------ discrete ones

#: the largest n whose binomial coefficients are taken exactly (math.comb; beyond, C(n, k)
#: overflows a float anyway and the exact integer grows slow to compute)
_EXACT_COMB = 1030


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def _binom_pmf(k: int, n: int, p: float) -> float:
    if p in (0.0, 1.0):
        return float(k == (0 if p == 0 else n))
    if n <= _EXACT_COMB:
        try:
            return math.comb(n, k) * p ** k * (1 - p) ** (n - k)
        except OverflowError:
            pass
    return math.exp(_log_comb(n, k) + k * math.log(p) + (n - k) * math.log1p(-p))


def _binom_cdf(k: int, n: int, p: float) -> float:
    if k >= n:
        return 1.0
    return float(_sp().bdtr(k, n, p))


def _binom_args(number_s, trials, probability_s, name: str) -> tuple[int, int, float]:
    k, n = _whole(number_s, "number_s"), _whole(trials, "trials")
    p = _num(probability_s, "probability_s")
    _need(0 <= p <= 1, name, "probability_s must be in [0, 1]")
    _need(0 <= k <= n, name, "number_s must be in [0, trials]")
    return k, n, p


def _binom_dist(number_s, trials, probability_s, cumulative):
    """BINOM.DIST(number_s, trials, probability_s, cumulative): the binomial distribution
    (number_s and trials truncated); #NUM! for number_s < 0 or > trials, probability_s
    < 0 or > 1 (Microsoft's example: BINOM.DIST(6,10,0.5,FALSE) = 0.2050781).

    >>> round(_binom_dist(6, 10, 0.5, False), 7)
    0.2050781
    """
    k, n = _num(number_s, "number_s"), _num(trials, "trials")
    p = _num(probability_s, "probability_s")
    c = excel_bool(cumulative, "cumulative")
    k, n, p = _binom_args(k, n, p, "BINOM.DIST")
    return _binom_cdf(k, n, p) if c else _binom_pmf(k, n, p)


def _binom_dist_range(trials, probability_s, number_s, number_s2=_OMITTED):
    """BINOM.DIST.RANGE(trials, probability_s, number_s, [number_s2]): the probability of
    number_s to number_s2 successes (just number_s without it); #NUM! for trials < 0,
    probability_s out of [0, 1], number_s < 0 or > trials, number_s2 < number_s or >
    trials (Microsoft's examples: BINOM.DIST.RANGE(60,0.75,48) = 0.084,
    BINOM.DIST.RANGE(60,0.75,45,50) = 0.524).

    >>> round(_binom_dist_range(60, 0.75, 48), 3), round(_binom_dist_range(60, 0.75, 45,
    ...     50), 3)
    (0.084, 0.524)
    """
    n, p = _whole(trials, "trials"), _num(probability_s, "probability_s")
    k1 = _whole(number_s, "number_s")
    k2 = k1 if number_s2 is _OMITTED else _whole(number_s2, "number_s2")
    _need(n >= 0, "BINOM.DIST.RANGE", "trials must be >= 0")
    _need(0 <= p <= 1, "BINOM.DIST.RANGE", "probability_s must be in [0, 1]")
    _need(0 <= k1 <= n, "BINOM.DIST.RANGE", "number_s must be in [0, trials]")
    _need(k1 <= k2 <= n, "BINOM.DIST.RANGE", "number_s2 must be in [number_s, trials]")
    if k2 - k1 > _EXACT_COMB:  # a wide range: the difference of the distribution
        return _binom_cdf(k2, n, p) - (_binom_cdf(k1 - 1, n, p) if k1 else 0.0)
    total = 0.0
    for k in range(k1, k2 + 1):
        total += _binom_pmf(k, n, p)
    return total


def _binom_inv(trials, probability_s, alpha):
    """BINOM.INV(trials, probability_s, alpha): the smallest k whose cumulative binomial
    probability is >= alpha; #NUM! for trials < 0, probability_s or alpha 0 or 1 or
    beyond (IronCalc's BINOM.xlsx, saved by Excel: alpha 0, alpha 1 and probability 1 are
    #NUM!) (Microsoft's example: BINOM.INV(6,0.5,0.75) = 4).

    >>> _binom_inv(6, 0.5, 0.75)
    4
    """
    n, p, a = _whole(trials, "trials"), _num(probability_s, "probability_s"), _num(
        alpha, "alpha")
    _need(n >= 0, "BINOM.INV", "trials must be >= 0")
    _need(0 < p < 1, "BINOM.INV", "probability_s must be in (0, 1)")
    _need(0 < a < 1, "BINOM.INV", "alpha must be in (0, 1)")
    if n > _EXACT_COMB:  # bisection on the distribution
        lo, hi = 0, n
        while lo < hi:
            mid = (lo + hi) // 2
            if _binom_cdf(mid, n, p) >= a:
                hi = mid
            else:
                lo = mid + 1
        return lo
    total = 0.0
    for k in range(n + 1):
        total += _binom_pmf(k, n, p)
        if total >= a:
            return k
    return n


def _negbinom_dist(number_f, number_s, probability_s, cumulative=False):
    """NEGBINOM.DIST(number_f, number_s, probability_s, cumulative): the probability of
    number_f failures before the number_s-th success (truncated); #NUM! for
    probability_s <= 0 or >= 1, number_f < 0, number_s < 1 (Microsoft's examples:
    NEGBINOM.DIST(10,5,0.25,TRUE) = 0.3135141, FALSE 0.0550487).

    >>> round(_negbinom_dist(10, 5, 0.25, True), 7), round(_negbinom_dist(10, 5, 0.25,
    ...     False), 7)
    (0.3135141, 0.0550487)
    """
    f, s = _whole(number_f, "number_f"), _whole(number_s, "number_s")
    p = _num(probability_s, "probability_s")
    c = excel_bool(cumulative, "cumulative")
    # p = 0 and p = 1 are #NUM! too (test.xlsx, saved by Excel: NEGBINOM.DIST(60,60,,1);
    # IronCalc's BINOM.xlsx: NEGBINOM.DIST(2,10,1,TRUE))
    _need(0 < p < 1, "NEGBINOM.DIST", "probability_s must be in (0, 1)")
    _need(f >= 0 and s >= 1, "NEGBINOM.DIST", "number_f must be >= 0, number_s >= 1")
    if c:
        return float(_sp().betainc(s, f + 1, p))
    if f + s - 1 <= _EXACT_COMB:
        try:
            return math.comb(f + s - 1, s - 1) * p ** s * (1 - p) ** f
        except OverflowError:
            pass
    return math.exp(_log_comb(f + s - 1, f) + s * math.log(p) + f * math.log1p(-p))


def _negbinomdist(number_f, number_s, probability_s):
    return _negbinom_dist(number_f, number_s, probability_s, False)


def _hypgeom_pmf(k: int, n: int, big_k: int, big_n: int) -> float:
    if big_n <= _EXACT_COMB:
        try:
            return math.comb(big_k, k) * math.comb(big_n - big_k, n - k) / math.comb(big_n, n)
        except OverflowError:
            pass
    return math.exp(_log_comb(big_k, k) + _log_comb(big_n - big_k, n - k)
                    - _log_comb(big_n, n))


def _hypgeom_dist(sample_s, number_sample, population_s, number_pop, cumulative=False):
    """HYPGEOM.DIST(sample_s, number_sample, population_s, number_pop, cumulative): the
    hypergeometric distribution (arguments truncated); #NUM! for a number_sample or
    population_s < 0 or > number_pop, number_pop < 0, and (the probability) for a
    sample_s outside [max(0, number_sample - number_pop + population_s),
    min(number_sample, population_s)]; the cumulative distribution there is 0 below and
    1 above (the `formulas` project's test.xlsx, saved by Excel: HYPGEOM.DIST(0,,,,) is
    1, HYPGEOM.DIST({0,5},2,3,3,1) is {0,1}) (Microsoft's examples:
    HYPGEOM.DIST(1,4,8,20,TRUE) = 0.4654, FALSE 0.3633).

    >>> round(_hypgeom_dist(1, 4, 8, 20, True), 4), round(_hypgeom_dist(1, 4, 8, 20, False), 4)
    (0.4654, 0.3633)
    """
    k, n = _whole(sample_s, "sample_s"), _whole(number_sample, "number_sample")
    big_k, big_n = _whole(population_s, "population_s"), _whole(number_pop, "number_pop")
    c = excel_bool(cumulative, "cumulative")
    name = "HYPGEOM.DIST"
    _need(big_n >= 0, name, "number_pop must be >= 0")
    _need(0 <= n <= big_n, name, "number_sample must be in [0, number_pop]")
    _need(0 <= big_k <= big_n, name, "population_s must be in [0, number_pop]")
    low, high = max(0, n - big_n + big_k), min(n, big_k)
    if c and k > high:
        return 1.0
    if c and 0 <= k < low:
        return 0.0
    _need(low <= k <= high, name, "sample_s out of range")
    if not c:
        return _hypgeom_pmf(k, n, big_k, big_n)
    if high - k > 1_000_000:  # not computed, rather than a wait
        raise Fail("#NUM!", f"{name}: a cumulative sum of more than a million terms")
    upper = 0.0  # 1 - the upper tail: Excel's digits (test.xlsx: STATISTICAL AH54)
    for j in range(k + 1, high + 1):
        upper += _hypgeom_pmf(j, n, big_k, big_n)
    return 1 - upper


def _hypgeomdist(sample_s, number_sample, population_s, number_pop):
    return _hypgeom_dist(sample_s, number_sample, population_s, number_pop, False)


def _poisson_dist(x, mean, cumulative):
    """POISSON.DIST(x, mean, cumulative): the Poisson distribution (x truncated); #NUM!
    for x < 0 or mean < 0 (Microsoft's examples: POISSON.DIST(2,5,TRUE) = 0.124652,
    FALSE 0.084224).

    >>> round(_poisson_dist(2, 5, True), 6), round(_poisson_dist(2, 5, False), 6)
    (0.124652, 0.084224)
    """
    v, m = _num(x, "x"), _num(mean, "mean")
    c = excel_bool(cumulative, "cumulative")
    _need(v >= 0 and m >= 0, "POISSON.DIST", "x and mean must be >= 0")
    k = math.trunc(v)
    if c:
        return float(_sp().pdtr(k, m))
    if m == 0:
        return float(k == 0)
    return math.exp(k * math.log(m) - m - math.lgamma(k + 1))


for _n, _f, _lo, _hi, _al in (
        ("BINOM.DIST", _binom_dist, 4, 4, ("BINOMDIST",)),
        ("BINOM.DIST.RANGE", _binom_dist_range, 3, 4, ()),
        ("BINOM.INV", _binom_inv, 3, 3, ("CRITBINOM",)),
        ("NEGBINOM.DIST", _negbinom_dist, 4, 4, ()),
        ("NEGBINOMDIST", _negbinomdist, 3, 3, ()),
        ("HYPGEOM.DIST", _hypgeom_dist, 5, 5, ()),
        ("HYPGEOMDIST", _hypgeomdist, 4, 4, ()),
        ("POISSON.DIST", _poisson_dist, 3, 3, ("POISSON",))):
    _register(_n, _f, _lo, _hi, *_al)
del _n, _f, _lo, _hi, _al


# ------------------------------------------------------------------------- tests
#
# The tests read arrays; their single-value arguments (tails, type, x, sigma, the limits)
# are lifted: given an array there, the result is an array of one test per element (the
# `formulas` project's test.xlsx, saved by Excel: {=T.TEST(a, b, {1;2;1;2;1;2},
# {1;2;3;1;2;3})}, {=Z.TEST(C119:E121, C121:J121)}, {=PROB(..., C86:Q86)}).

def _tested(name: str, fn, scalars: tuple[int, ...]):
    """An array function ``fn`` whose arguments at ``scalars`` are single values, lifted
    over arrays there; its :class:`Fail` becomes the error value it carries."""
    def one(*args):
        try:
            return fn(*args)
        except Fail as ex:
            return ex.error
        except (OverflowError, ValueError, ZeroDivisionError) as ex:
            return ExcelError("#NUM!", f"{name}: {ex}")

    def call(*args):
        if any(hasattr(a, "shape") for a in args):
            raise TypeError("a block column")  # the block evaluator calls row by row
        at = [i for i in scalars if i < len(args) and isinstance(args[i], list)
              and _shape_of(args[i]) != (1, 1)]
        args = [_cells(a)[0] if i in scalars and isinstance(a, list) and i not in at else a
                for i, a in enumerate(args)]
        if not at:
            return one(*args)
        h = max(_shape_of(args[i])[0] for i in at)
        w = max(_shape_of(args[i])[1] for i in at)
        grids = {i: args[i] if isinstance(args[i][0], list) else [args[i]] for i in at}

        def pick(i, r, c):
            g = grids[i]
            rr, cc = (0 if len(g) == 1 else r), (0 if len(g[0]) == 1 else c)
            if rr < len(g) and cc < len(g[rr]):
                return g[rr][cc]
            return ExcelError("#N/A", "arrays of different sizes")
        out = []
        for r in range(h):
            row = []
            for c in range(w):
                a = list(args)
                for i in at:
                    a[i] = pick(i, r, c)
                row.append(one(*a))
            out.append(row)
        return out
    call.__name__ = call.__qualname__ = name
    call.__doc__ = fn.__doc__
    return call


def _mean_var(v: list[float]) -> tuple[float, float]:
    """(mean, sample variance) of ``v`` (:func:`~rooflinexl.recalc.functions.
    mean_and_squares`)."""
    n = len(v)
    mean, ss = mean_and_squares(v)
    return mean, ss / (n - 1) if n > 1 else 0.0


def _t_test(array1, array2, tails, type_):
    """T.TEST(array1, array2, tails, type): the probability of Student's t-test; tails 1 or
    2, type 1 paired, 2 equal variances, 3 unequal (truncated; else #NUM!); paired arrays of
    different sizes are #N/A, an error value in them the result (pair by pair for type 1),
    fewer than two numbers #DIV/0! (Microsoft, "T.TEST function": example
    T.TEST(A2:A10,B2:B10,2,1) = 0.196016).

    >>> a = [[3], [4], [5], [8], [9], [1], [2], [4], [5]]
    >>> b = [[6], [19], [3], [2], [14], [4], [5], [17], [1]]
    >>> round(_t_test(a, b, 2, 1), 6)
    0.196016
    """
    k, kind = _whole(tails, "tails"), _whole(type_, "type")
    if kind == 1:
        c1, c2 = _cells(array1), _cells(array2)
        if len(c1) != len(c2):
            raise Fail("#N/A", "T.TEST: paired arrays of different sizes")
        for p, q in zip(c1, c2, strict=True):
            if isinstance(p, ExcelError) and str(p) == "#NULL!":
                continue  # the pair passed over, as in functions._pairs
            for y in (p, q):
                if isinstance(y, ExcelError):
                    raise Fail.passing(y)
    else:
        x, y = _numbers(array1), _numbers(array2)
    _need(k in (1, 2), "T.TEST", "tails must be 1 or 2")
    _need(kind in (1, 2, 3), "T.TEST", "type must be 1, 2 or 3")
    if kind == 1:
        d = [float(p) - float(q) for p, q in zip(c1, c2, strict=True)
             if _is_num(p) and _is_num(q)]
        if len(d) < 2:
            raise Fail("#DIV/0!", "T.TEST: fewer than two pairs of numbers")
        mean, var = _mean_var(d)
        if var == 0:
            raise Fail("#DIV/0!", "T.TEST: the differences do not vary")
        t = mean / math.sqrt(var / len(d))
        df = len(d) - 1
    else:
        if len(x) < 2 or len(y) < 2:
            raise Fail("#DIV/0!", "T.TEST: fewer than two numbers in an array")
        (m1, v1), (m2, v2) = _mean_var(x), _mean_var(y)
        n1, n2 = len(x), len(y)
        if kind == 2:
            df = n1 + n2 - 2
            se = math.sqrt(((n1 - 1) * v1 + (n2 - 1) * v2) / df * (1 / n1 + 1 / n2))
        else:
            a, b = v1 / n1, v2 / n2
            se = math.sqrt(a + b)
            df = (a + b) ** 2 / (a * a / (n1 - 1) + b * b / (n2 - 1)) if se else 1
        if se == 0:
            raise Fail("#DIV/0!", "T.TEST: the numbers do not vary")
        t = (m1 - m2) / se
    return k * float(_sp().stdtr(df, -abs(t)))


def _chisq_test(actual_range, expected_range):
    """CHISQ.TEST(actual_range, expected_range): the probability of the chi-squared
    statistic sum((A - E)^2 / E) over the pairs of numbers, with (rows - 1)(columns - 1)
    degrees of freedom of actual_range (one row or column: its length - 1). Ranges of
    different sizes, or one value, #N/A; an error value in actual_range, then in
    expected_range, the result; text in expected_range (read as 0) #DIV/0!, as an
    expected 0 (the `formulas` project's test.xlsx, saved by Excel: STATISTICAL row 17);
    a negative expected value #NUM! (Microsoft, "CHISQ.TEST function": example 0.0003082).

    >>> act = [[58, 35], [11, 25], [10, 23]]
    >>> exp = [[45.35, 47.65], [17.56, 18.44], [16.09, 16.91]]
    >>> round(_chisq_test(act, exp), 7)
    0.0003082
    """
    h, w = _shape_of(actual_range)
    ca, ce = _cells(actual_range), _cells(expected_range)
    if len(ca) != len(ce):
        raise Fail("#N/A", "CHISQ.TEST: the ranges differ in size")
    for y in ca:
        if _error_in(y):
            raise Fail.passing(y)
    stat = 0.0
    for a, e in zip(ca, ce, strict=True):
        if _error_in(e):
            raise Fail.passing(e)
        if isinstance(e, str) and not isinstance(e, ExcelError) or _is_num(e) and e == 0:
            raise Fail("#DIV/0!", "CHISQ.TEST: an expected value is 0 or text")
        if not (_is_num(a) and _is_num(e)):
            continue
        _need(e > 0, "CHISQ.TEST", "an expected value is negative")
        stat += (a - e) * (a - e) / e
    df = (h - 1) * (w - 1) if h > 1 and w > 1 else max(h, w) - 1
    if df < 1:
        raise Fail("#N/A", "CHISQ.TEST: a single value has no degrees of freedom")
    return float(_sp().gammaincc(df / 2, stat / 2))


def _f_test(array1, array2):
    """F.TEST(array1, array2): the two-tailed probability that the two arrays' variances
    do not differ; fewer than two numbers in either, or a variance of 0, #DIV/0!
    (Microsoft, "F.TEST function": example 0.64831785).

    >>> round(_f_test([[6], [7], [9], [15], [21]], [[20], [28], [31], [38], [40]]), 8)
    0.64831785
    """
    x, y = _numbers(array1), _numbers(array2)
    if len(x) < 2 or len(y) < 2:
        raise Fail("#DIV/0!", "F.TEST: fewer than two numbers in an array")
    v1, v2 = _mean_var(x)[1], _mean_var(y)[1]
    if v1 == 0 or v2 == 0:
        raise Fail("#DIV/0!", "F.TEST: an array does not vary")
    # the right tail of the larger variance over the smaller, doubled
    if v1 >= v2:
        right = float(_sp().fdtrc(len(x) - 1, len(y) - 1, v1 / v2))
    else:
        right = float(_sp().fdtrc(len(y) - 1, len(x) - 1, v2 / v1))
    return min(1.0, 2 * right)


def _z_test(array, x, sigma=_OMITTED):
    """Z.TEST(array, x, [sigma]) = 1 - NORM.S.DIST((mean - x) / (sigma / sqrt(n)), TRUE),
    sigma the sample standard deviation when left out. An error value in x or sigma comes
    before one in the array; fewer than two numbers in the array #DIV/0!; sigma
    <= 0 #NUM! (the `formulas` project's test.xlsx, saved by Excel: STATISTICAL row 121;
    Microsoft, "Z.TEST function": example Z.TEST(A2:A11,4) = 0.090574).

    >>> d = [[3], [6], [7], [8], [6], [5], [4], [2], [1], [9]]
    >>> round(_z_test(d, 4), 6), round(_z_test(d, 6), 6)
    (0.090574, 0.863043)
    """
    mu = _num(x, "x")
    s = None if sigma is _OMITTED else _num(sigma, "sigma")
    v = _numbers(array)
    if s is not None:
        _need(s > 0, "Z.TEST", "sigma must be > 0")
    if len(v) < 2:  # one number is #DIV/0! with sigma too (test.xlsx: STATISTICAL V121)
        raise Fail("#DIV/0!", "Z.TEST: too few numbers in the array")
    mean, var = _mean_var(v)
    if s is None:
        s = math.sqrt(var)
        if s == 0:
            raise Fail("#DIV/0!", "Z.TEST: the numbers do not vary")
    return 1 - float(_sp().ndtr((mean - mu) / (s / math.sqrt(len(v)))))


def _prob_fn(x_range, prob_range, lower_limit, upper_limit=_OMITTED):
    """PROB(x_range, prob_range, lower_limit, [upper_limit]): the sum of the probabilities
    of the x values between the limits (equal to lower_limit without upper_limit); a
    probability < 0 or > 1, or probabilities not summing to 1, #NUM!; ranges of different
    sizes #N/A (Microsoft, "PROB function": examples PROB(A3:A6,B3:B6,2) = 0.1,
    PROB(A3:A6,B3:B6,1,3) = 0.8).

    >>> xs, ps = [[0], [1], [2], [3]], [[0.2], [0.3], [0.1], [0.4]]
    >>> round(_prob_fn(xs, ps, 2), 6), round(_prob_fn(xs, ps, 1, 3), 6)
    (0.1, 0.8)
    """
    cx, cp = _cells(x_range), _cells(prob_range)
    if len(cx) != len(cp):
        raise Fail("#N/A", "PROB: x_range and prob_range differ in size")
    for y in (*cx, *cp):
        if isinstance(y, ExcelError):
            raise Fail.passing(y)
    lo = _num(lower_limit, "lower_limit")
    hi = lo if upper_limit is _OMITTED else _num(upper_limit, "upper_limit")
    pairs = [(float(a), float(p)) for a, p in zip(cx, cp, strict=True)
             if _is_num(a) and _is_num(p)]
    total = 0.0
    for _, p in pairs:
        _need(0 <= p <= 1, "PROB", "a probability out of [0, 1]")
        total += p
    _need(abs(total - 1) < 1e-9, "PROB", "the probabilities do not sum to 1")
    out = 0.0
    for a, p in pairs:
        if lo <= a <= hi:
            out += p
    return out


for _n, _f, _sc, _al in (("T.TEST", _t_test, (2, 3), ("TTEST",)),
                         ("CHISQ.TEST", _chisq_test, (), ("CHITEST",)),
                         ("F.TEST", _f_test, (), ("FTEST",)),
                         ("Z.TEST", _z_test, (1, 2), ("ZTEST",)),
                         ("PROB", _prob_fn, (2, 3), ())):
    for _k in (_n, *_al):
        STATS[_k] = _tested(_k, _f, _sc)
del _n, _f, _sc, _al, _k

BUILTINS.update(STATS)
