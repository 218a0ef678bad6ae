"""Pure roofline formulas on numbers: numpy broadcasting, no chips, no Excel, no I/O.

Every function behaves like a ufunc (numpy-financial's habit): scalars in give
a Python float out, arrays in broadcast to an array out. Inputs outside a
formula's domain are masked explicitly. Called plainly, a function raises the
precise :mod:`rooflinexl.errors` exception for the first bad element; given a
:class:`Checks` collector (``checks=``) it records the bad elements instead
and returns values that are meaningless there, so that the Excel adapters can
turn exactly those elements into ``#NUM!``/``#DIV/0!`` while the others compute.

Notation follows the reference ("How to Scale Your Model", summarised in
``reference/000_9409a66f59c20631.txt``): B tokens, D contracting dimension,
F output dimension, T/S query/key lengths, G query heads per KV head, E
experts, k experts per token, n chips. Units are SI: FLOP, FLOP/s, bytes,
B/s, seconds, USD per chip-hour.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rooflinexl.errors import EXCEPTION_FOR, DomainError, RooflineError, ZeroDivisionInputError

__all__ = [
    "Checks", "arith_intensity", "critical_intensity", "roofline_flops", "roofline_terms",
    "crit_batch", "matmul_terms", "moe_min_batch", "net_critical_d", "attn_intensity",
    "collective_time", "weight_load_time", "kv_cache_bytes", "cost_per_flop",
    "collective_seconds", "COLLECTIVE_KINDS", "TOPOLOGIES",
    "moe_expert_fraction", "model_params", "kv_values_per_token",
    "decode_flops_bytes", "prefill_flops_bytes", "train_flops", "step_terms", "max_batch",
]


@dataclass
class Checks:
    """Collects masks of bad elements: ``(mask, exception class, reason)``.

    The exception class carries its Excel error value as ``.excel``; an Excel
    error string (``"#REF!"``) may stand in its place for an error passed
    through from an input. ``reason`` is a str, or an object array giving one
    reason per element.
    """

    items: list = field(default_factory=list)

    def add(self, mask, exc, reason) -> None:
        """Record the elements where ``mask`` is true (nothing when none is)."""
        mask = np.asarray(mask, dtype=bool)
        if mask.any():
            self.items.append((mask, exc, reason))

    def raise_first(self) -> None:
        """Raise the first recorded problem as its exception (Python API semantics)."""
        for mask, exc, reason in self.items:
            if isinstance(reason, np.ndarray):
                reason = np.broadcast_to(reason, mask.shape)[mask].flat[0]
            if isinstance(exc, str):  # an Excel error code passed through from an input
                exc = EXCEPTION_FOR.get(exc, RooflineError)
            raise exc(reason)

    def codes(self, shape) -> tuple[np.ndarray, np.ndarray]:
        """(error code array, reason array), object dtype, None where the element is fine.

        The first recorded problem of an element wins.
        """
        code = np.full(shape, None, dtype=object)
        why = np.full(shape, None, dtype=object)
        for mask, exc, reason in self.items:
            m = np.broadcast_to(mask, shape) & (code == None)  # noqa: E711
            if not m.any():
                continue
            code[m] = exc if isinstance(exc, str) else exc.excel
            if isinstance(reason, np.ndarray):
                why[m] = np.broadcast_to(reason, shape)[m]
            else:
                why[m] = reason
        return code, why


def _f(x) -> np.ndarray:
    return np.asarray(x, dtype=float)


def _out(x):
    """0-d -> Python float, else the array (ufunc-like)."""
    x = np.asarray(x)
    return x.item() if x.ndim == 0 else x


class Run:
    """Per-call checks of one model function: collected into a :class:`Checks` when the
    caller gives one (the Excel adapters, batch), else the first problem raised at the end."""

    def __init__(self, checks: Checks | None):
        self.own = checks is None
        self.checks = Checks() if checks is None else checks

    def require(self, bad, reason, exc=DomainError):
        self.checks.add(bad, exc, reason)

    # The checks below first ask one reduction whether every element is fine (NaN fails it,
    # as it fails the element test) and build the mask of bad elements only where one is not.

    def positive(self, name, x):
        if np.size(x) and not (np.min(x) > 0):
            self.require(~(x > 0), f"{name} must be > 0")

    def nonneg(self, name, x):
        if np.size(x) and not (np.min(x) >= 0):
            self.require(~(x >= 0), f"{name} must be >= 0")

    def integer(self, name, x, low):
        self.require(~((x >= low) & (np.floor(x) == x)),
                     f"{name} must be a whole number >= {low}")

    def finite(self, *values):
        """Record elements whose result overflowed to inf (or became NaN) from valid inputs."""
        for v in values:
            v = np.asarray(v)
            if v.dtype.kind == "f" and v.size and not (np.isfinite(np.min(v))
                                                       and np.isfinite(np.max(v))):
                self.require(~np.isfinite(v), "the result is not a finite number (overflow)")

    def done(self, value):
        self.finite(value)
        if self.own:
            self.checks.raise_first()
        with np.errstate(all="ignore"):
            return _out(value)


def arith_intensity(flops, bytes, *, checks=None):
    r"""Arithmetic intensity: FLOPs per byte moved.

    Parameters
    ----------
    flops : array_like
        Floating-point operations (FLOP), >= 0. Broadcasts with ``bytes``.
    bytes : array_like
        Bytes moved (bytes), > 0.

    Returns
    -------
    float or ndarray
        FLOP/byte, the broadcast shape of the inputs.

    Raises
    ------
    DomainError
        ``flops`` < 0 or ``bytes`` < 0.
    ZeroDivisionInputError
        ``bytes`` == 0.

    Notes
    -----
    .. math:: I = \mathrm{FLOPs} / \mathrm{bytes}

    References
    ----------
    Reference section 2 (算术强度与临界强度); Williams, Waterman & Patterson,
    "Roofline", CACM 2009.

    Examples
    --------
    fp32 elementwise add of N elements reads 8N bytes, writes 4N, does N FLOPs
    (reference section 4: intensity 1/12):

    >>> round(arith_intensity(1024, 12 * 1024), 6)
    0.083333
    """
    run = Run(checks)
    flops, nbytes = np.broadcast_arrays(_f(flops), _f(bytes))
    run.nonneg("flops", flops)
    run.nonneg("bytes", nbytes)
    run.require(nbytes == 0, "bytes is zero", ZeroDivisionInputError)
    with np.errstate(all="ignore"):
        return run.done(flops / nbytes)


def critical_intensity(peak, bandwidth, *, checks=None):
    r"""Critical (ridge-point) intensity of a chip at one bandwidth tier.

    Parameters
    ----------
    peak : array_like
        Peak throughput (FLOP/s), > 0.
    bandwidth : array_like
        Bandwidth of the tier (B/s, one direction for links), > 0.

    Returns
    -------
    float or ndarray
        FLOP/byte above which an operation is compute-bound.

    Raises
    ------
    DomainError
        A non-positive peak or bandwidth.

    Notes
    -----
    .. math:: I_\mathrm{crit} = \mathrm{peak} / \mathrm{bandwidth}

    References
    ----------
    Reference section 2; H100 numbers from the NVIDIA H100 datasheet (dense
    bf16 989 TFLOP/s, HBM3 3.35 TB/s).

    Examples
    --------
    H100 bf16 over HBM (reference: "H100 约 295"):

    >>> round(critical_intensity(9.89e14, 3.35e12), 1)
    295.2
    """
    run = Run(checks)
    peak, bw = np.broadcast_arrays(_f(peak), _f(bandwidth))
    run.positive("peak", peak)
    run.positive("bandwidth", bw)
    with np.errstate(all="ignore"):
        return run.done(peak / bw)


def roofline_flops(peak, bandwidth, intensity, *, checks=None):
    r"""Attainable throughput at an arithmetic intensity: the roofline.

    Parameters
    ----------
    peak : array_like
        Peak throughput (FLOP/s), > 0.
    bandwidth : array_like
        Bandwidth (B/s), > 0.
    intensity : array_like
        Arithmetic intensity (FLOP/byte), >= 0.

    Returns
    -------
    float or ndarray
        FLOP/s.

    Raises
    ------
    DomainError
        Non-positive peak or bandwidth, negative intensity.

    Notes
    -----
    .. math:: P(I) = \min(\mathrm{peak},\ I \cdot \mathrm{bandwidth})

    References
    ----------
    Reference section 3 (Roofline 图).

    Examples
    --------
    A bf16 matmul with B = 100 tokens has intensity about 100; on an H100 it
    reaches 100 x 3.35e12 = 3.35e14 FLOP/s, a third of peak:

    >>> roofline_flops(9.89e14, 3.35e12, 100)
    335000000000000.0
    """
    run = Run(checks)
    peak, bw, i = np.broadcast_arrays(_f(peak), _f(bandwidth), _f(intensity))
    run.positive("peak", peak)
    run.positive("bandwidth", bw)
    run.nonneg("intensity", i)
    with np.errstate(all="ignore"):
        return run.done(np.minimum(peak, i * bw))


def roofline_terms(flops, bytes, peak, bandwidth, *, checks=None):
    r"""The two roofline terms of an operation: (T_math, T_comms) in seconds.

    Parameters
    ----------
    flops : array_like
        FLOPs of the operation, >= 0.
    bytes : array_like
        Bytes moved over the tier, >= 0.
    peak : array_like
        FLOP/s, > 0.
    bandwidth : array_like
        B/s of the tier, > 0.

    Returns
    -------
    tuple of (float or ndarray)
        ``(T_math, T_comms)``; the lower bound is their max, the upper bound
        their sum (at most 2x apart).

    Raises
    ------
    DomainError
        Negative FLOPs or bytes, non-positive peak or bandwidth.

    Notes
    -----
    .. math:: T_\mathrm{math} = \mathrm{FLOPs}/\mathrm{peak},\quad
              T_\mathrm{comms} = \mathrm{bytes}/\mathrm{bandwidth}

    References
    ----------
    Reference section 1 (时间花在哪) and section 4 (逐元素运算).

    Examples
    --------
    fp32 add of N = 1024**3 elements on an H100 (vector unit 3.35e13 FLOP/s,
    HBM 3.35e12 B/s); the reference predicts about 3.84 ms:

    >>> n = 1024**3
    >>> t_math, t_comms = roofline_terms(n, 12 * n, 3.35e13, 3.35e12)
    >>> round(max(t_math, t_comms) * 1e3, 2)
    3.85
    """
    run = Run(checks)
    flops, nbytes, peak, bw = np.broadcast_arrays(_f(flops), _f(bytes), _f(peak),
                                                  _f(bandwidth))
    run.nonneg("flops", flops)
    run.nonneg("bytes", nbytes)
    run.positive("peak", peak)
    run.positive("bandwidth", bw)
    with np.errstate(all="ignore"):
        t_math, t_comms = flops / peak, nbytes / bw
    run.finite(t_math, t_comms)
    if run.own:
        run.checks.raise_first()
    return _out(t_math), _out(t_comms)


def crit_batch(intensity, D=None, F=None, a=2.0, w=None, *, checks=None):
    r"""Critical token batch of ``X[B, D] @ W[D, F]``: smallest B that is compute-bound.

    Parameters
    ----------
    intensity : array_like
        Critical intensity I = peak(dtype) / bandwidth(tier) of the chip
        (FLOP/byte), > 0.
    D, F : array_like or None
        Contracting and output dimensions (elements), > 0. None (or inf)
        drops their term: the B << D, F limit.
    a : array_like
        Bytes per element of activations and output (dtype), default 2 (bf16).
    w : array_like or None
        Bytes per weight element (``weight_dtype``); None means ``a``.

    Returns
    -------
    float or ndarray
        B* in tokens (real-valued; round up for a whole batch).

    Raises
    ------
    DomainError
        Non-positive intensity, D, F, a or w; or no B reaches the roof
        (2/I <= a/F + a/D: the weights alone outweigh the compute).

    Notes
    -----
    Setting 2BDF / peak = (aBD + wDF + aBF) / bandwidth and solving for B:

    .. math:: B^* = \frac{w}{2/I - a/F - a/D}

    With D, F -> inf this is B* = I w / 2 (bf16: B* = I; int8 weights with
    bf16 compute: B* = I / 2).

    References
    ----------
    Reference section 5 (矩阵乘法, 精确的临界值与形状的影响, 量化).

    Examples
    --------
    H100 bf16 (I = 9.89e14 / 3.35e12), D = F = 8192; the reference says
    B >= 319 (exact 318.2):

    >>> round(crit_batch(9.89e14 / 3.35e12, 8192, 8192), 1)
    318.2

    int8 [B, 4096] @ [4096, 16384] on TPU v5e (int8 peak 3.94e14, HBM
    8.2e11); the reference says B > 259:

    >>> round(crit_batch(3.94e14 / 8.2e11, 4096, 16384, a=1), 1)
    259.3
    """
    run = Run(checks)
    D = np.inf if D is None else D
    F = np.inf if F is None else F
    w = a if w is None else w
    i, D, F, a, w = np.broadcast_arrays(_f(intensity), _f(D), _f(F), _f(a), _f(w))
    run.positive("critical intensity", i)
    run.positive("D", D)
    run.positive("F", F)
    run.positive("dtype bytes", a)
    run.positive("weight_dtype bytes", w)
    with np.errstate(all="ignore"):
        denom = 2.0 / i - a / F - a / D
        if denom.size and not (np.min(denom) > 0):
            run.require((i > 0) & (D > 0) & (F > 0) & ~(denom > 0),
                        "no batch size reaches the roof: 2/I <= a/F + a/D "
                        "(the matrices are too small for this chip)")
        return run.done(w / denom)


def matmul_terms(B, D, F, peak, hbm_bw, ici_bw=np.nan, a=2.0, w=None, n=1.0, shard="none",
                 ici_latency=0.0, domain=np.inf, dcn_bw=np.nan, dcn_latency=0.0, *,
                 base_latency=0.0, checks=None):
    r"""Roofline terms of a (possibly sharded) matmul ``X[B, D] @ W[D, F]``.

    Parameters
    ----------
    B, D, F : array_like
        Tokens, contracting and output dimensions (elements), > 0.
    peak : array_like
        Per-chip FLOP/s of the compute dtype, > 0.
    hbm_bw : array_like
        Per-chip HBM B/s, > 0.
    ici_bw : array_like
        Per-chip one-direction B/s of the ring the AllReduce runs on; only
        needed for ``shard="D"`` with n > 1.
    a, w : array_like
        Bytes per activation/output and per weight element (w defaults to a).
    n : array_like
        Number of chips, a whole number >= 1.
    shard : {"none", "D", "F"}
        ``"D"``: X and W split along D, every chip writes the full [B, F]
        partial sum and the partial sums are AllReduced. ``"F"``: W and the
        output split along F, X replicated, no communication. ``"none"``:
        unsharded, n must be 1.
    ici_latency, domain, dcn_bw, dcn_latency : array_like
        Seconds per ring step, chips per scale-up domain and the scale-out
        tier's B/s and latency, for the AllReduce of :func:`collective_seconds`
        (defaults: no latency, one domain of any size).
    base_latency : array_like
        Fixed seconds per collective call (``collective_latency``), added once
        to the AllReduce; default 0.

    Returns
    -------
    tuple of (float or ndarray)
        ``(T_math, T_hbm, T_comms, flops_per_chip, bytes_per_chip)`` in
        seconds, seconds, seconds, FLOP, bytes.

    Raises
    ------
    DomainError
        Non-positive sizes, n not a whole number >= 1, n > 1 with shard "none".
    MissingSpecError
        Only at the chip-aware layer (a blank ici_bw where it is needed).

    Notes
    -----
    .. math::
        T_\mathrm{math} = \frac{2BDF}{n\,\mathrm{peak}},\qquad
        T_\mathrm{hbm} = \frac{\text{per-chip bytes}}{\mathrm{hbm\_bw}},\qquad
        T_\mathrm{comms} = \frac{2(n-1)}{n}\frac{aBF}{\mathrm{ici\_bw}}\ (\text{shard D})

    plus base_latency + 2(n−1)·ici_latency, and two-level beyond the domain
    (:func:`collective_seconds`, kind ``allreduce``).

    Per-chip bytes: none ``aBD + wDF + aBF``; D ``(aBD + wDF)/n + aBF``;
    F ``aBD + (wDF + aBF)/n``.

    References
    ----------
    Reference section 5 (推导) and section 6 (矩阵乘法耗时计算器), section 7
    (网络的 roofline) for the ring AllReduce.

    Examples
    --------
    bf16 [8192, 8192] @ [8192, 8192] on one H100: compute-bound, T_math =
    2 * 8192**3 / 9.89e14 = 1.11 ms:

    >>> t = matmul_terms(8192, 8192, 8192, 9.89e14, 3.35e12)
    >>> round(t[0] * 1e3, 3), t[0] > t[1]
    (1.112, True)
    """
    run = Run(checks)
    w = a if w is None else w
    shard_arr = np.asarray(shard, dtype=object)  # compared before broadcasting: often one str
    is_d, is_f = (np.asarray(shard_arr == s, dtype=bool) for s in ("D", "F"))
    B, D, F, peak, hbm, ici, a, w, n = map(_f, (B, D, F, peak, hbm_bw, ici_bw, a, w, n))
    # every argument is checked and combined in its own shape (a scalar n or shard costs
    # nothing per element); the masks broadcast in Checks, the results at the end
    shape = np.broadcast_shapes(*(x.shape for x in (B, D, F, peak, hbm, ici, a, w, n, is_d)))
    for name, x in (("B", B), ("D", D), ("F", F), ("peak", peak), ("hbm_bw", hbm),
                    ("dtype bytes", a), ("weight_dtype bytes", w)):
        run.positive(name, x)
    run.integer("n_chips", n, 1)
    run.require(~is_d & ~is_f & (n > 1),
                "shard 'none' needs n_chips = 1; use shard 'D' or 'F' to split the matmul")
    with np.errstate(all="ignore"):
        x_bytes, w_bytes, o_bytes = a * B * D, w * D * F, a * B * F
        if is_d.ndim == 0 and not is_d and not is_f:  # one shard, "none": no split
            per_chip = x_bytes + w_bytes + o_bytes
        else:
            per_chip = np.where(is_d, (x_bytes + w_bytes) / n + o_bytes,
                                np.where(is_f, x_bytes + (w_bytes + o_bytes) / n,
                                         x_bytes + w_bytes + o_bytes))
        flops = 2.0 * B * D * F
        if n.ndim or n != 1:  # one chip: the division changes no bit, skip its pass
            flops = flops / n
        t_math = flops / peak
        t_hbm = per_chip / hbm
        needs_ici = is_d & (n > 1)
        run.require(needs_ici & ~(ici > 0), "ici_bw must be > 0 for shard 'D'")
        comms_shape = np.broadcast_shapes(  # the shape the AllReduce would have had
            shape, *map(np.shape, (ici_latency, domain, dcn_bw, dcn_latency, base_latency)))
        t_comms = np.zeros(comms_shape)
        if needs_ici.any():  # the AllReduce of shard 'D' over more than one chip
            sub = Checks()
            t_ar = np.asarray(collective_seconds(
                "allreduce", o_bytes, n, np.where(needs_ici, ici, 1.0), ici_latency, domain,
                dcn_bw, dcn_latency, base_latency=base_latency, checks=sub), dtype=float)
            for mask, exc, reason in sub.items:  # only where the AllReduce happens
                run.require(np.broadcast_to(mask, comms_shape) & needs_ici, reason, exc)
            t_comms = np.where(needs_ici, t_ar, 0.0)
            run.finite(t_comms)
    run.finite(t_math, t_hbm, per_chip)
    if run.own:
        run.checks.raise_first()
    return tuple(_out(x if x.shape == s else np.broadcast_to(x, s).copy())
                 for x, s in ((t_math, shape), (t_hbm, shape), (t_comms, comms_shape),
                              (flops, shape), (per_chip, shape)))


def moe_min_batch(intensity, E, k, w=2.0, *, checks=None):
    r"""Minimum tokens per step for every expert's matmul of an MoE layer to be compute-bound.

    Parameters
    ----------
    intensity : array_like
        Critical intensity I of the compute dtype over the tier (FLOP/byte), > 0.
    E : array_like
        Number of experts, whole number >= 1.
    k : array_like
        Experts per token, whole number, 1 <= k <= E.
    w : array_like
        Bytes per weight element (int8: 1).

    Returns
    -------
    float or ndarray
        Tokens per step (all experts together).

    Raises
    ------
    DomainError
        k > E, k <= 0, E <= 0, non-whole E or k, non-positive I or w.

    Notes
    -----
    Each weight matrix streams E·DF weights but does 2k·BDF FLOPs, so
    compute-bound needs 2kBDF / (w E DF) > I:

    .. math:: B > \frac{I\,E\,w}{2k}

    References
    ----------
    Reference section 5 (MoE); DeepSeek-V3 E = 256, k = 8.

    Examples
    --------
    TPU v5e, int8 weights, bf16 compute (I = 1.97e14 / 8.2e11), E = 256,
    k = 8; the reference's "B > 3840" uses I = 240:

    >>> round(moe_min_batch(1.97e14 / 8.2e11, 256, 8, w=1), 1)
    3843.9
    """
    run = Run(checks)
    i, E, k, w = np.broadcast_arrays(_f(intensity), _f(E), _f(k), _f(w))
    run.positive("critical intensity", i)
    run.integer("E", E, 1)
    run.integer("k", k, 1)
    run.require(k > E, "k (experts per token) must not exceed E (experts)")
    run.positive("weight_dtype bytes", w)
    with np.errstate(all="ignore"):
        return run.done(i * E * w / (2.0 * k))


def net_critical_d(peak, bandwidth, n, a=2.0, domain=np.inf, out_bandwidth=np.nan, *,
                   checks=None):
    r"""Contracting dimension D above which a D-sharded matmul on an n-chip ring is compute-bound.

    Parameters
    ----------
    peak : array_like
        Per-chip FLOP/s of the dtype, > 0.
    bandwidth : array_like
        One-direction per-chip B/s of the link tier, > 0.
    n : array_like
        Chips in the ring, whole number >= 1 (n = 1 gives 0: no communication).
    a : array_like
        Bytes per element of the partial sums (dtype).
    domain : array_like
        Chips in one scale-up domain (``scaleup_size``); ``inf`` = no limit.
    out_bandwidth : array_like
        Per-chip one-direction B/s of the scale-out network (``dcn_bw``),
        used where n > domain (n then a multiple of domain).

    Returns
    -------
    float or ndarray
        D in elements (the full contracting dimension, before sharding).

    Raises
    ------
    DomainError
        Non-positive peak, bandwidth or a; n not a whole number >= 1.

    Notes
    -----
    Per chip: T_math = 2BDF / (n peak); the ring AllReduce of the [B, F]
    partial sums moves 2(n-1)/n · aBF bytes per chip at ``bandwidth``.
    Compute-bound when T_math > T_comms:

    .. math:: D > \frac{a\,(n-1)\,\mathrm{peak}}{\mathrm{bandwidth}}

    Beyond one domain (n = m·d) the AllReduce is the two-level one of
    :func:`collective_seconds`, so

    .. math:: D > a\,n\,\mathrm{peak}\cdot\max\left(\frac{d-1}{d\,W_{in}},
              \frac{m-1}{m\,d\,W_{out}}\right)

    Link latency is left out: it does not grow with D (the large-array limit).

    References
    ----------
    Reference section 7 (网络的 roofline): two TPU v5e, 4.5e10 B/s each way,
    1.97e14 FLOP/s; "D > 2(n-1)·P/W".

    Examples
    --------
    TPU v5e, n = 2, bf16:

    >>> round(net_critical_d(1.97e14, 4.5e10, 2), 1)
    8755.6

    16 H100s in two 8-GPU NVLink domains (450 GB/s NVLink, 50 GB/s NIC):
    2 · 16 · 9.89e14 · max(7/(8·450e9), 1/(2·8·50e9)) (the NVLink level is
    the slower one at m = 2):

    >>> round(net_critical_d(9.89e14, 4.5e11, 16, domain=8, out_bandwidth=5e10))
    61538
    """
    run = Run(checks)
    peak, bw, n, a = np.broadcast_arrays(_f(peak), _f(bandwidth), _f(n), _f(a))
    run.positive("peak", peak)
    run.positive("bandwidth", bw)
    run.integer("n_chips", n, 1)
    run.positive("dtype bytes", a)
    with np.errstate(all="ignore"):
        # the AllReduce's seconds per byte of partial sums, / 2 (ReduceScatter + AllGather)
        per_byte = collective_seconds("allgather", 1.0, n, bw, 0.0, domain, out_bandwidth,
                                      checks=run.checks)
        return run.done(a * n * peak * np.asarray(per_byte, dtype=float))


def attn_intensity(T, S, G, *, checks=None):
    r"""Arithmetic intensity of GQA attention (QK^T and the product with V), equal dtypes.

    Parameters
    ----------
    T : array_like
        Query length (tokens), > 0.
    S : array_like
        Key/value length (tokens), > 0.
    G : array_like
        Query heads per KV head, > 0.

    Returns
    -------
    float or ndarray
        FLOP/byte.

    Raises
    ------
    DomainError
        A non-positive T, S or G.

    Notes
    -----
    FLOPs 4BTSKGH, bytes 4BHK(TG + S):

    .. math:: I = \frac{T\,S\,G}{T\,G + S}

    Generation (T = 1) tends to G; prefill (T = S) is SG/(G+1).

    References
    ----------
    Reference section 5 (强度永远很低的两种情况: 生成阶段的注意力).

    Examples
    --------
    Decode with 8 query heads per KV head over an 8192-token cache: about G:

    >>> round(attn_intensity(1, 8192, 8), 3)
    7.992
    """
    run = Run(checks)
    T, S, G = np.broadcast_arrays(_f(T), _f(S), _f(G))
    run.positive("T", T)
    run.positive("S", S)
    run.positive("G", G)
    with np.errstate(all="ignore"):
        return run.done(T * S * G / (T * G + S))


#: collectives of :func:`collective_time` (canonical names)
COLLECTIVE_KINDS = ("allgather", "reducescatter", "allreduce", "alltoall")
#: scale-up topologies: ``switch`` (every chip reaches every other directly: NVSwitch,
#: a full mesh) and ``torus`` (neighbour links; a 1-D ring along one axis: TPU ICI)
TOPOLOGIES = ("switch", "torus")


def _kind_masks(kind, shape):
    k = np.broadcast_to(np.asarray(kind, dtype=object), shape)
    return k == "allreduce", k == "alltoall"


def collective_seconds(kind, bytes, n, bandwidth, latency=0.0, domain=np.inf,
                       out_bandwidth=np.nan, out_latency=0.0, torus=False, *,
                       base_latency=0.0, checks=None):
    r"""Time of a collective over n chips: α–β ring model, two-level beyond the scale-up domain.

    Parameters
    ----------
    kind : str or array_like of str
        ``"allgather"``, ``"reducescatter"``, ``"allreduce"`` or ``"alltoall"``
        (canonical names, :data:`COLLECTIVE_KINDS`).
    bytes : array_like
        Size of the full array, all shards together (bytes), >= 0. Each chip
        holds ``bytes / n`` of it before an AllGather, after a ReduceScatter,
        and before and after an AllToAll; an AllReduce reduces ``bytes`` on
        every chip.
    n : array_like
        Chips taking part, whole number >= 1.
    bandwidth : array_like
        One-direction per-chip B/s of the scale-up link (``ici_bw``), > 0.
    latency : array_like
        Seconds per ring step on the scale-up link (α), >= 0; 0 is the
        bandwidth-only bound.
    domain : array_like
        Chips in one scale-up domain (``scaleup_size``); ``inf`` = no limit.
        Where ``n > domain``, n must be a multiple of it.
    out_bandwidth, out_latency : array_like
        Per-chip one-direction B/s and seconds per step of the scale-out
        network (``dcn_bw``, ``dcn_latency``); only used where ``n > domain``.
    torus : bool or array_like
        True where the scale-up domain is a torus (AllToAll on a ring), False
        where it is switched.
    base_latency : array_like
        Fixed seconds per collective call (α₀: launch and synchronisation,
        NCCL's ``baseLatencies``; the chip table's ``collective_latency``),
        >= 0, added once where n > 1; default 0.

    Returns
    -------
    float or ndarray
        Seconds.

    Raises
    ------
    DomainError
        Negative bytes or latencies, n not a whole number >= 1, non-positive
        bandwidth, n > domain but not a multiple of it, or a non-positive
        ``out_bandwidth`` where n > domain.

    Notes
    -----
    Within one domain (n <= domain), ring steps s(kind) and bytes factor f(kind):

    .. math:: T = \alpha_0 + \alpha\,s + f\cdot\frac{\mathrm{bytes}}{\mathrm{bandwidth}}

    (α₀ = ``base_latency``, only where n > 1; α per ring step; NCCL's own
    ring model, ``src/graph/tuning.cc``: baseLat + nsteps·hwLat + bytes/bw)

    with AllGather/ReduceScatter s = n−1, f = (n−1)/n; AllReduce
    (ReduceScatter + AllGather) s = 2(n−1), f = 2(n−1)/n; AllToAll s = n−1
    and, on a switched domain, f = (n−1)/n² (each chip sends (n−1)/n of its
    bytes/n, straight to each destination), on a torus ring one direction
    f = (n−1)/(2n) (a byte travels n/2 hops on average).

    Beyond the domain (n = m·d chips in m domains of d), the book's
    hierarchical treatment: a ring at each level, the levels overlapped, so
    the bandwidth term is the slower level; the latencies add (α₀ once):

    .. math::
        T_{AG} = \alpha_{in}(d-1) + \alpha_{out}(m-1) + \mathrm{bytes}\cdot
        \max\left(\frac{d-1}{d\,W_{in}}, \frac{m-1}{m\,d\,W_{out}}\right)

    (d·W_out is the domain's egress), AllReduce twice that, and AllToAll
    ``bytes·(m−1)/(m²·d·W_out)`` over the scale-out network (each chip sends
    the (m−1)/m of its shard that leaves its domain through its own NIC),
    with α_in(d−1) + α_out(n−d) steps.

    References
    ----------
    Reference section 7 (ring AllReduce); How to Scale Your Model Part 12
    ("Intra-node collectives": AllToAll B(N−1)/(W·N²); "Cross-node
    collectives": bytes · max over levels of (D_i−1)/(D_i·W_i), AllToAll
    B(M−1)/(M²·W_node)); Part 2 Q5 for a 1 µs ICI hop.

    Examples
    --------
    AllReduce of a bf16 [8192, 8192] array (134 MB) over 8 H100s at 450 GB/s
    one way, no latency:

    >>> round(collective_seconds("allreduce", 2 * 8192 * 8192, 8, 4.5e11) * 1e3, 3)
    0.522

    AllGather of 1 GB over 16 H100s (two 8-GPU NVLink domains, 50 GB/s NIC
    per GPU): max(7/(8·450e9), 1/(2·8·50e9)) = 1.944e-12 s per byte:

    >>> round(collective_seconds("allgather", 1e9, 16, 4.5e11, domain=8,
    ...                          out_bandwidth=5e10) * 1e3, 3)
    1.944

    AllToAll of 1 GB within one 8-GPU node: 1e9 · 7 / (64 · 450e9) s:

    >>> round(collective_seconds("alltoall", 1e9, 8, 4.5e11) * 1e6, 2)
    243.06
    """
    run = Run(checks)
    kind_arr = np.asarray(kind, dtype=object)
    nbytes, n, bw, lat, dom, bw2, lat2, tor, base = np.broadcast_arrays(
        _f(bytes), _f(n), _f(bandwidth), _f(latency), _f(domain), _f(out_bandwidth),
        _f(out_latency), np.asarray(torus, dtype=bool), _f(base_latency))
    shape = np.broadcast_shapes(nbytes.shape, kind_arr.shape)
    is_ar, is_a2a = _kind_masks(kind_arr, shape)
    run.nonneg("bytes", nbytes)
    run.integer("n_chips", n, 1)
    run.positive("bandwidth", bw)
    run.nonneg("latency", lat)
    run.nonneg("base_latency", base)
    beyond = n > dom
    with np.errstate(all="ignore"):
        m = n / dom
        run.require(beyond & (np.floor(m) != m),
                    "n_chips beyond one scale-up domain must be a whole number of domains "
                    "(a multiple of scaleup_size)")
        run.require(beyond & ~(bw2 > 0), "the scale-out bandwidth (dcn_bw) must be > 0 "
                    "for n_chips beyond one scale-up domain")
        run.require(beyond & ~(lat2 >= 0), "the scale-out latency (dcn_latency) must be >= 0")
        d = np.where(beyond, dom, n)
        m = np.where(beyond, m, 1.0)
        ring = np.where(tor, (d - 1) / (2 * d), (d - 1) / (d * d))
        a2a_in = np.where(beyond, 0.0, ring) / bw
        a2a_out = np.where(beyond, (m - 1) / (m * m * d * bw2), 0.0)
        ag = np.maximum((d - 1) / (d * bw), np.where(beyond, (m - 1) / (m * d * bw2), 0.0))
        lat2 = np.where(beyond, lat2, 0.0)
        steps_ag = lat * (d - 1) + lat2 * (m - 1)
        per_byte = np.where(is_a2a, a2a_in + a2a_out, np.where(is_ar, 2 * ag, ag))
        alpha = np.where(is_a2a, lat * (d - 1) + lat2 * (n - d),
                         np.where(is_ar, 2 * steps_ag, steps_ag))
        alpha = alpha + np.where(n > 1, base, 0.0)
        return run.done(alpha + per_byte * nbytes)


def collective_time(kind, bytes, n, bandwidth, latency=0.0, *, base_latency=0.0, checks=None):
    r"""Time of a collective over n chips on one link tier (no domain limit): α₀ + α·s + β·bytes.

    :func:`collective_seconds` with one scale-up domain holding all n chips
    on a switched fabric; see it for the parameters, the equations and the
    meaning of ``bytes`` (the full array).

    Parameters
    ----------
    kind : str or array_like of str
        ``"allgather"``, ``"reducescatter"``, ``"allreduce"``, ``"alltoall"``.
    bytes, n, bandwidth, latency : array_like
        Full-array bytes, chips, one-direction per-chip B/s, seconds per step.
    base_latency : array_like
        Fixed seconds per collective call (where n > 1); default 0.

    Returns
    -------
    float or ndarray
        Seconds.

    Raises
    ------
    DomainError
        See :func:`collective_seconds`.

    References
    ----------
    Reference section 7; How to Scale Your Model Part 12.

    Examples
    --------
    AllReduce of 134 MB over 8 H100s at 450 GB/s one way, plus 14 steps of
    1 µs:

    >>> round(collective_time("allreduce", 2 * 8192 * 8192, 8, 4.5e11, 1e-6) * 1e3, 3)
    0.536

    NCCL's latency for a tiny (16 KB) AllReduce over 8 NVLink GPUs, Ring/LL
    protocol (``src/graph/tuning.cc``: baseLat 6.6 µs + 14 steps x 0.6 µs =
    15.0 µs) plus 2·7/8·16384 B / 450 GB/s = 0.064 µs:

    >>> round(collective_time("allreduce", 16384, 8, 4.5e11, 0.6e-6,
    ...                       base_latency=6.6e-6) * 1e6, 3)
    15.064
    """
    return collective_seconds(kind, bytes, n, bandwidth, latency, base_latency=base_latency,
                              checks=checks)


def weight_load_time(n_params, w, n, hbm_bw, *, checks=None):
    r"""Time to stream all weights from HBM once: the decode-step lower bound.

    Parameters
    ----------
    n_params : array_like
        Parameters (count), >= 0.
    w : array_like
        Bytes per parameter.
    n : array_like
        Chips the weights are sharded over, whole number >= 1.
    hbm_bw : array_like
        Per-chip HBM B/s, > 0.

    Returns
    -------
    float or ndarray
        Seconds.

    Raises
    ------
    DomainError
        Negative parameters, n not a whole number >= 1, non-positive bandwidth.

    Notes
    -----
    .. math:: T = \frac{n_\mathrm{params}\,w}{n\,\mathrm{hbm\_bw}}

    References
    ----------
    Reference section 5 (推理的生成阶段).

    Examples
    --------
    200B bf16 parameters on 32 TPU v4 (1.2e12 B/s each); the reference says
    about 10 ms:

    >>> round(weight_load_time(200e9, 2, 32, 1.2e12) * 1e3, 2)
    10.42
    """
    run = Run(checks)
    p, w, n, bw = np.broadcast_arrays(_f(n_params), _f(w), _f(n), _f(hbm_bw))
    run.nonneg("n_params", p)
    run.positive("dtype bytes", w)
    run.integer("n_chips", n, 1)
    run.positive("hbm_bw", bw)
    with np.errstate(all="ignore"):
        return run.done(p * w / (n * bw))


def kv_cache_bytes(layers, kv_heads, head_dim, tokens, batch=1.0, a=2.0, *, checks=None):
    r"""Bytes of the KV cache.

    Parameters
    ----------
    layers, kv_heads, head_dim : array_like
        Transformer layers, KV heads (not query heads), head dimension; > 0.
    tokens : array_like
        Cached tokens per sequence, >= 0.
    batch : array_like
        Sequences, >= 0.
    a : array_like
        Bytes per element of the cache dtype.

    Returns
    -------
    float or ndarray
        Bytes.

    Raises
    ------
    DomainError
        Non-positive layers, heads, head_dim or a; negative tokens or batch.

    Notes
    -----
    .. math:: 2\,\mathrm{layers}\,K\,H\,\mathrm{tokens}\,\mathrm{batch}\,a

    References
    ----------
    Reference section 5 (生成阶段的注意力: K and V each 2BSKH bytes in bf16).

    Examples
    --------
    Llama 3 70B (80 layers, 8 KV heads, head_dim 128), 8192 tokens, bf16:

    >>> kv_cache_bytes(80, 8, 128, 8192) / 1e9
    2.68435456
    """
    run = Run(checks)
    L, K, H, T, Bt, a = np.broadcast_arrays(_f(layers), _f(kv_heads), _f(head_dim), _f(tokens),
                                            _f(batch), _f(a))
    run.positive("layers", L)
    run.positive("kv_heads", K)
    run.positive("head_dim", H)
    run.nonneg("tokens", T)
    run.nonneg("batch", Bt)
    run.positive("dtype bytes", a)
    with np.errstate(all="ignore"):
        return run.done(2.0 * L * K * H * T * Bt * a)


def cost_per_flop(price_per_hour, peak, mfu=1.0, *, checks=None):
    r"""USD per FLOP at a fraction of peak.

    Parameters
    ----------
    price_per_hour : array_like
        USD per chip-hour, >= 0.
    peak : array_like
        FLOP/s of the dtype, > 0.
    mfu : array_like
        Model FLOPs utilisation, 0 < mfu <= 1.

    Returns
    -------
    float or ndarray
        USD per FLOP (the workbooks show it per 1e18 FLOP).

    Raises
    ------
    DomainError
        Negative price, non-positive peak, mfu outside (0, 1].

    Notes
    -----
    .. math:: \frac{\mathrm{price}}{3600\cdot\mathrm{peak}\cdot\mathrm{mfu}}

    References
    ----------
    Reference section 12 (H200 about 10 USD/h, TPU v5p about 4 USD/h on
    Google Cloud); prices in the chip table carry their own date and source.

    Examples
    --------
    H200 at 10 USD per chip-hour, 9.89e14 FLOP/s, per 1e18 FLOP:

    >>> round(cost_per_flop(10, 9.89e14) * 1e18, 2)
    2.81
    """
    run = Run(checks)
    price, peak, mfu = np.broadcast_arrays(_f(price_per_hour), _f(peak), _f(mfu))
    run.nonneg("price_per_hour", price)
    run.positive("peak", peak)
    run.require(~((mfu > 0) & (mfu <= 1)), "mfu must be in (0, 1]")
    with np.errstate(all="ignore"):
        return run.done(price / (3600.0 * peak * mfu))


# ------------------------------------------------------------- whole models
#
# Conventions (issue 12): the input embedding table is a lookup -- no FLOPs and
# not read whole; every other weight, the output projection included, does 2
# FLOPs per token and is read once per step. An MoE reads its non-expert
# weights plus the expected fraction 1 - (1 - k/E)^tokens of its routed-expert
# weights; its FLOPs use the k active experts only.


def moe_expert_fraction(k, E, tokens, *, checks=None):
    r"""Expected fraction of E routed experts that a step of ``tokens`` tokens touches.

    Parameters
    ----------
    k : array_like
        Experts per token, 1 <= k <= E.
    E : array_like
        Routed experts (whole number >= 1).
    tokens : array_like
        Tokens in the step (whole number >= 0). Broadcasts with k and E.

    Returns
    -------
    float or ndarray
        Fraction in [0, 1].

    Raises
    ------
    DomainError
        k outside [1, E], E < 1, negative tokens.

    Notes
    -----
    With uniform, independent routing each token leaves a given expert
    untouched with probability 1 - k/E, so

    .. math:: f = 1 - (1 - k/E)^{\mathrm{tokens}}

    References
    ----------
    How to Scale Your Model, Part 12 appendix ("More on AllToAll costs": the
    same 1 - ((Z-1)/Z)^K expression for the share of shards a token batch hits).

    Examples
    --------
    Mixtral 8x7B (E = 8, k = 2): one token reads 2 of 8 experts; 64 tokens
    read all but 0.75^64 = 1e-8 of them:

    >>> moe_expert_fraction(2, 8, 1)
    0.25
    >>> round(moe_expert_fraction(2, 8, 64), 8)
    0.99999999
    """
    run = Run(checks)
    k, E, T = np.broadcast_arrays(_f(k), _f(E), _f(tokens))
    run.integer("experts", E, 1)
    run.require(~((k >= 1) & (k <= E)), "active_experts must be between 1 and experts")
    run.nonneg("tokens", T)
    with np.errstate(all="ignore"):
        return run.done(1.0 - np.power(1.0 - k / E, T))


def model_params(params, vocab, d_model, tied=0.0, expert_params=0.0, E=1.0, k=1.0,
                 fraction=None, *, checks=None):
    r"""Parameters a step computes with (active) or reads (with ``fraction``).

    Parameters
    ----------
    params : array_like
        Total parameters as published (count).
    vocab, d_model : array_like
        Vocabulary and model width: the input embedding is vocab x d_model.
    tied : array_like
        1 where the output projection is the embedding matrix (then it is read and
        multiplied as the output projection), 0 where it is separate.
    expert_params : array_like
        Parameters of all routed experts together (0 for a dense model).
    E, k : array_like
        Routed experts and experts per token (ignored where expert_params is 0).
    fraction : array_like, optional
        Share of the routed-expert weights read in the step
        (:func:`moe_expert_fraction`). Omitted: the active share k/E, i.e. the
        parameters whose FLOPs a token costs.

    Returns
    -------
    float or ndarray
        Parameters (count).

    Raises
    ------
    DomainError
        Negative counts, fraction outside [0, 1], expert_params > params, or
        fewer parameters than the input embedding.

    Notes
    -----
    .. math:: P = \mathrm{params} - (1-\mathrm{tied})\,V d - P_E + f\,P_E,
              \qquad f = k/E \text{ (active) or the touched fraction (read)}

    References
    ----------
    Issue 12's conventions; Kaplan et al. 2020 (non-embedding parameters);
    gpt-oss model card (active parameters exclude the embedding: 5.13B of 116.83B).

    Examples
    --------
    gpt-oss-120b: 116.83e9 total, vocab 201088 x 2880 embedding, 114.7016e9 in
    128 experts, 4 per token -- the model card's 5.13B active:

    >>> round(model_params(116.83e9, 201088, 2880, 0, 114701598720, 128, 4) / 1e9, 2)
    5.13
    """
    run = Run(checks)
    P, V, d, t, PE, E, k, f = np.broadcast_arrays(
        _f(params), _f(vocab), _f(d_model), _f(tied), _f(expert_params), _f(E), _f(k),
        _f(np.nan if fraction is None else fraction))
    with np.errstate(all="ignore"):
        if fraction is None:
            f = k / E
        run.nonneg("params", P)
        run.nonneg("expert_params", PE)
        run.require(~((f >= 0) & (f <= 1)), "the expert fraction must be in [0, 1]")
        base = P - (1.0 - t) * V * d - PE
        run.require(~(base >= 0), "params must exceed the input embedding (vocab x d_model) "
                                  "plus expert_params")
        return run.done(base + f * PE)


def kv_values_per_token(layers, kv_heads, head_dim, kv_lora_rank=np.nan, qk_rope_dim=np.nan,
                        *, checks=None):
    r"""KV-cache values (elements) one token holds across all layers.

    Parameters
    ----------
    layers, kv_heads, head_dim : array_like
        Layers, KV heads and head dimension (> 0).
    kv_lora_rank, qk_rope_dim : array_like, optional
        MLA's latent rank and decoupled RoPE key dimension; NaN (blank) for
        multi-head / grouped-query attention.

    Returns
    -------
    float or ndarray
        Elements per token (multiply by the KV dtype's bytes).

    Raises
    ------
    DomainError
        Non-positive layers, heads or head_dim.

    Notes
    -----
    .. math:: \mathrm{GQA}: 2\,L\,K\,H \qquad \mathrm{MLA}: L\,(r_{kv} + d_{rope})

    References
    ----------
    Reference section 5 (K and V each 2BSKH bytes in bf16); DeepSeek-V2/V3
    technical reports (MLA caches the compressed latent and the RoPE key).

    Examples
    --------
    Llama 3.1 70B and DeepSeek-V3 per token:

    >>> kv_values_per_token(80, 8, 128)
    163840.0
    >>> kv_values_per_token(61, 128, 128, 512, 64)
    35136.0
    """
    run = Run(checks)
    L, K, H, r, q = np.broadcast_arrays(_f(layers), _f(kv_heads), _f(head_dim),
                                        _f(kv_lora_rank), _f(qk_rope_dim))
    run.positive("layers", L)
    run.positive("kv_heads", K)
    run.positive("head_dim", H)
    with np.errstate(all="ignore"):
        return run.done(np.where(np.isnan(r), 2.0 * L * K * H, L * (r + q)))


def decode_flops_bytes(active, read, kv_per_token, layers, n_heads, head_dim, context,
                       batch=1.0, w=2.0, a_kv=2.0, *, checks=None):
    r"""FLOPs and HBM bytes of one decode step (one new token for each of ``batch`` sequences).

    Parameters
    ----------
    active : array_like
        Active parameters (:func:`model_params` without ``fraction``).
    read : array_like
        Parameters read in the step (:func:`model_params` with the touched
        fraction for ``batch`` tokens).
    kv_per_token : array_like
        KV values per cached token (:func:`kv_values_per_token`).
    layers, n_heads, head_dim : array_like
        Query heads and head dimension give the attention FLOPs.
    context : array_like
        Tokens already cached per sequence (>= 0).
    batch : array_like
        Sequences (>= 1).
    w, a_kv : array_like
        Bytes per weight and per KV value.

    Returns
    -------
    (flops, bytes) : tuple of float or ndarray
        For the whole step (all chips together).

    Raises
    ------
    DomainError
        Negative context, batch < 1, non-positive byte sizes.

    Notes
    -----
    .. math::
        \mathrm{FLOPs} = B\,(2 P_\mathrm{active} + 4\,L\,S\,n_h\,H), \qquad
        \mathrm{bytes} = P_\mathrm{read}\,w + B\,S\,\mathrm{kv}\,a_{kv}

    with S = context: QK^T and PV each cost 2 S n_h H FLOPs per token and
    layer. Activations and the one new KV entry are left out (small).

    References
    ----------
    Reference section 5 (推理的生成阶段: weights and KV cache read once per step).

    Examples
    --------
    Llama 3.1 8B, one sequence of 4096 tokens, bf16: 8.03e9 - 128256 x 4096
    = 7.5047e9 active and read parameters, 2 x 32 x 8 x 128 = 65536 KV values
    per token; FLOPs 2 x 7.5047e9 + 4 x 32 x 4096 x 32 x 128 = 17.16e9;
    bytes 2 x 7.5047e9 + 4096 x 65536 x 2 = 15.546e9.

    >>> f, b = decode_flops_bytes(7.5046634e9, 7.5046634e9, 65536, 32, 32, 128, 4096)
    >>> round(f / 1e9, 2), round(b / 1e9, 3)
    (17.16, 15.546)
    """
    run = Run(checks)
    P, R, kv, L, nh, H, S, B, w, a = np.broadcast_arrays(
        _f(active), _f(read), _f(kv_per_token), _f(layers), _f(n_heads), _f(head_dim),
        _f(context), _f(batch), _f(w), _f(a_kv))
    run.nonneg("context", S)
    run.require(~(B >= 1), "batch must be >= 1")
    run.positive("dtype bytes", w)
    run.positive("kv dtype bytes", a)
    with np.errstate(all="ignore"):
        flops = B * (2.0 * P + 4.0 * L * S * nh * H)
        nbytes = R * w + B * S * kv * a
        run.finite(flops, nbytes)
        return run.done(flops), _out(nbytes)


def prefill_flops_bytes(active, read, out_proj, kv_per_token, layers, n_heads, head_dim,
                        prompt, batch=1.0, w=2.0, a_kv=2.0, *, checks=None):
    r"""FLOPs and HBM bytes of a prefill: ``prompt`` tokens of ``batch`` sequences.

    Parameters
    ----------
    active : array_like
        Active parameters, the output projection included.
    read : array_like
        Parameters read (touched fraction for ``batch * prompt`` tokens).
    out_proj : array_like
        Parameters of the output projection (vocab x d_model): it runs for the
        last token of each sequence only.
    kv_per_token, layers, n_heads, head_dim : array_like
        As in :func:`decode_flops_bytes`.
    prompt : array_like
        Prompt tokens per sequence (>= 1).
    batch : array_like
        Sequences (>= 1).
    w, a_kv : array_like
        Bytes per weight and per KV value.

    Returns
    -------
    (flops, bytes) : tuple of float or ndarray

    Raises
    ------
    DomainError
        prompt or batch < 1, non-positive byte sizes.

    Notes
    -----
    .. math::
        \mathrm{FLOPs} = B\,[\,2 (P_\mathrm{active} - P_\mathrm{out})\,T + 2 P_\mathrm{out}
        + 2\,L\,T^2 n_h H\,], \qquad
        \mathrm{bytes} = P_\mathrm{read}\,w + B\,T\,\mathrm{kv}\,a_{kv}

    Causal attention: QK^T and PV over the T(T+1)/2 ~ T^2/2 visible pairs,
    2 FLOPs each per head dimension: 2 x 2 x T^2/2 x n_h x H per layer.
    The weights are read once, the KV cache written once.

    References
    ----------
    Reference section 5 (prefill is compute-bound); How to Scale Your Model
    Part 4 (attention FLOPs).

    Examples
    --------
    7e9 active parameters of which 0.5e9 output projection, 1000 prompt tokens:
    2 x 6.5e9 x 1000 + 2 x 0.5e9 + 2 x 32 x 1000^2 x 32 x 128 = 13.263e12 FLOPs;
    2 x 7e9 + 1000 x 131072 x 2 = 14.262e9 bytes.

    >>> f, b = prefill_flops_bytes(7.0e9, 7.0e9, 0.5e9, 131072, 32, 32, 128, 1000)
    >>> round(f / 1e12, 3), round(b / 1e9, 3)
    (13.263, 14.262)
    """
    run = Run(checks)
    P, R, Po, kv, L, nh, H, T, B, w, a = np.broadcast_arrays(
        _f(active), _f(read), _f(out_proj), _f(kv_per_token), _f(layers), _f(n_heads),
        _f(head_dim), _f(prompt), _f(batch), _f(w), _f(a_kv))
    run.require(~(T >= 1), "prompt must be >= 1")
    run.require(~(B >= 1), "batch must be >= 1")
    run.positive("dtype bytes", w)
    run.positive("kv dtype bytes", a)
    with np.errstate(all="ignore"):
        flops = B * (2.0 * (P - Po) * T + 2.0 * Po + 2.0 * L * T * T * nh * H)
        nbytes = R * w + B * T * kv * a
        run.finite(flops, nbytes)
        return run.done(flops), _out(nbytes)


def train_flops(active, tokens, layers=0.0, n_heads=0.0, head_dim=0.0, seq_len=0.0, *,
                checks=None):
    r"""Training FLOPs: forward and backward over ``tokens`` tokens.

    Parameters
    ----------
    active : array_like
        Active parameters (:func:`model_params`).
    tokens : array_like
        Training tokens (>= 0).
    layers, n_heads, head_dim, seq_len : array_like, optional
        With ``seq_len`` > 0 the causal attention FLOPs are added.

    Returns
    -------
    float or ndarray
        FLOPs.

    Raises
    ------
    DomainError
        Negative tokens or seq_len.

    Notes
    -----
    .. math:: \mathrm{FLOPs} = 6\,N\,D + 6\,L\,S\,n_h H\,D

    6 per parameter per token (2 forward, 4 backward: the book's 6ND);
    causal attention costs 2 S n_h H FLOPs per token and layer forward
    (2 x 2 x S^2/2 per sequence), three times that with the backward pass.

    References
    ----------
    How to Scale Your Model, Part 4 (6ND) and Part 12 Q5.2.

    Examples
    --------
    The book's Part 12 Q5.2: 6 x 70e9 x 15e12 = 6.3e24 FLOPs.

    >>> train_flops(70e9, 15e12)
    6.3e+24
    """
    run = Run(checks)
    P, D, L, nh, H, S = np.broadcast_arrays(_f(active), _f(tokens), _f(layers), _f(n_heads),
                                            _f(head_dim), _f(seq_len))
    run.nonneg("tokens", D)
    run.nonneg("seq_len", S)
    with np.errstate(all="ignore"):
        return run.done(6.0 * P * D + 6.0 * L * S * nh * H * D)


def step_terms(flops, bytes, n, peak, hbm_bw, mfu=1.0, mbu=1.0, *, checks=None):
    r"""Per-chip compute and memory times of a whole-model step split over n chips.

    Parameters
    ----------
    flops, bytes : array_like
        FLOPs and HBM bytes of the whole step (>= 0).
    n : array_like
        Chips the step is split over evenly (whole number >= 1).
    peak, hbm_bw : array_like
        Per-chip FLOP/s of the dtype and HBM B/s (> 0).
    mfu, mbu : array_like
        Achieved fractions of peak FLOP/s and of HBM bandwidth, in (0, 1].

    Returns
    -------
    (t_math, t_hbm) : tuple of float or ndarray
        Seconds.

    Raises
    ------
    DomainError
        n not a whole number >= 1, mfu or mbu outside (0, 1], non-positive
        peak or bandwidth.

    Notes
    -----
    .. math:: T_\mathrm{math} = \frac{\mathrm{FLOPs}}{n\,\mathrm{peak}\,\mathrm{mfu}},\qquad
              T_\mathrm{hbm} = \frac{\mathrm{bytes}}{n\,\mathrm{hbm\_bw}\,\mathrm{mbu}}

    References
    ----------
    Reference sections 1 and 5; AIConfigurator's 0.8 HBM efficiency (mbu).

    Examples
    --------
    >>> step_terms(9.89e14, 3.35e12, 1, 9.89e14, 3.35e12, mbu=0.8)
    (1.0, 1.25)
    """
    run = Run(checks)
    F, nb, n, p, bw, u, m = np.broadcast_arrays(_f(flops), _f(bytes), _f(n), _f(peak),
                                                _f(hbm_bw), _f(mfu), _f(mbu))
    run.integer("n_chips", n, 1)
    run.positive("peak", p)
    run.positive("hbm_bw", bw)
    run.require(~((u > 0) & (u <= 1)), "mfu must be in (0, 1]")
    run.require(~((m > 0) & (m <= 1)), "mbu must be in (0, 1]")
    with np.errstate(all="ignore"):
        t_math, t_hbm = F / (n * p * u), nb / (n * bw * m)
        run.finite(t_math, t_hbm)
        return run.done(t_math), _out(t_hbm)


def max_batch(capacity, weight_bytes, kv_bytes_per_seq, *, checks=None):
    r"""Largest whole batch whose weights and KV cache fit in a memory capacity.

    Parameters
    ----------
    capacity : array_like
        Usable bytes of all the replica's chips together (>= 0).
    weight_bytes : array_like
        Bytes of all weights held (>= 0).
    kv_bytes_per_seq : array_like
        KV-cache bytes of one sequence at its full length (> 0).

    Returns
    -------
    float or ndarray
        Sequences, a whole number >= 0 (0: the weights alone do not fit).

    Raises
    ------
    DomainError
        Negative capacity or weights, non-positive KV bytes per sequence.

    Notes
    -----
    .. math:: B_\max = \max\!\left(0, \left\lfloor
              \frac{\mathrm{capacity} - \mathrm{weights}}{\mathrm{kv}_\mathrm{seq}}
              \right\rfloor\right)

    References
    ----------
    Reference section 5 (KV cache and batch size).

    Examples
    --------
    Llama 3.1 70B in bf16 on 4 H200 (4 x 141e9 bytes): 141.2e9 of weights,
    2.68e9 of KV per 8k sequence:

    >>> max_batch(4 * 141e9, 141.2e9, 2.68435456e9)
    157.0
    """
    run = Run(checks)
    cap, w, kv = np.broadcast_arrays(_f(capacity), _f(weight_bytes), _f(kv_bytes_per_seq))
    run.nonneg("capacity", cap)
    run.nonneg("weight bytes", w)
    run.positive("KV bytes per sequence", kv)
    with np.errstate(all="ignore"):
        return run.done(np.maximum(0.0, np.floor((cap - w) / kv)))
