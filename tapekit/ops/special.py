"""Inverse trigonometry, the error function, the log-gamma family and the zero-safe products
of tf.math: asin, acos, atan2, erf, lgamma (with digamma, its derivative), xlogy, xdivy and
divide_no_nan.

Each derivative rule is TensorFlow's, written with tapekit ops (so it differentiates again),
including what it gives at the singular points: asin's g / sqrt(1 - x^2) is inf at x = +-1
and NaN beyond; atan2's is NaN at (0, 0); lgamma's digamma is NaN at 0, -1, -2, ... (the
poles, where lgamma is inf); xlogy and divide_no_nan are 0 where x = 0 (resp. y = 0), and so
are their gradients there. tools/tf_sweep/ compares them with TensorFlow point by point.

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.asin(tk.constant([0.0, 0.5, 1.0]))        # also tk.math.asin
tk.Tensor([0.        0.5235988 1.5707964], shape=(3,), dtype=float32)

>>> tk.acos(tk.constant([1.0, 0.0]))
tk.Tensor([0.        1.5707964], shape=(2,), dtype=float32)

>>> tk.atan2(tk.constant([1.0, 0.0]), tk.constant([0.0, -1.0]))   # angle of (x, y) = (0, 1), (-1, 0)
tk.Tensor([1.5707964 3.1415927], shape=(2,), dtype=float32)

>>> tk.erf(tk.constant([0.0, 0.5, -2.0]))          # also tk.math.erf
tk.Tensor([ 0.         0.5204999 -0.9953223], shape=(3,), dtype=float32)
"""
import math

import numpy as np

from .arithmetic import reciprocal, sqrt, square
from .comparison import not_equal
from .passthrough import cast
from .registry import NO_GRADIENT, defop
from .transcendental import exp

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _float(x):
    """x as float64 for the series below, and the dtype to give back (float32 stays float32)."""
    x = np.asarray(x)
    return x.astype(np.float64), (x.dtype if x.dtype.kind == "f" else np.dtype(np.float64))


# --- inverse trigonometry ------------------------------------------------------------------
# TensorFlow's AsinGrad / AcosGrad: g * reciprocal(sqrt(1 - x^2)), negated for acos.
asin = defop("asin", np.arcsin, save="x", ufunc=np.arcsin, float_only=True,
             vjp=[lambda g, ans, x: g * reciprocal(sqrt(1 - square(x)))],
             jvp=[lambda t, ans, x: t * reciprocal(sqrt(1 - square(x)))],
             doc="The inverse sine, in [-pi/2, pi/2]; NaN outside [-1, 1].")
acos = defop("acos", np.arccos, save="x", ufunc=np.arccos, float_only=True,
             vjp=[lambda g, ans, x: -g * reciprocal(sqrt(1 - square(x)))],
             jvp=[lambda t, ans, x: -t * reciprocal(sqrt(1 - square(x)))],
             doc="The inverse cosine, in [0, pi]; NaN outside [-1, 1].")


# atan2(y, x): the angle of the point (x, y). TensorFlow's Atan2Grad: with r2 = x^2 + y^2,
# d/dy = x / r2 and d/dx = -y / r2, as g / r2 first (NaN at the origin, where r2 = 0).
def _atan2_dy(g, ans, y, x):
    return x * (g / (square(x) + square(y)))


def _atan2_dx(g, ans, y, x):
    return -y * (g / (square(x) + square(y)))


atan2 = defop("atan2", np.arctan2, args="y x", save="y x", same_dtype=True, ufunc=np.arctan2,
              vjp=[_atan2_dy, _atan2_dx], jvp=[_atan2_dy, _atan2_dx],
              doc="The angle of the point (x, y) in (-pi, pi]; note the order: y first.")


# --- erf without SciPy ------------------------------------------------------------------------
# erf(x) = x * h(x) with h = erf(x) / x, an even, smooth function. h is interpolated on [0, 6]
# in 24 pieces of width 1/4, each a degree-10 polynomial in t in [-1, 1] (Chebyshev
# interpolation of math.erf at build time, stored in the power basis: evaluation is a Horner
# loop over gathered coefficients, about 20 array passes). Beyond |x| = 6 erf is +-1 in float64
# (erfc(6) = 2e-17). Measured against math.erf: relative error below 2.5e-15 everywhere
# (tests/ops/test_special.py checks 5e-15), so float32 results are correctly rounded or one ulp off.
_PIECE, _N_PIECES, _DEGREE = 0.25, 24, 10


def _erf_table():
    nodes = np.cos(np.pi * (np.arange(_DEGREE + 1) + 0.5) / (_DEGREE + 1))   # Chebyshev, in (-1, 1)
    rows = []
    for k in range(_N_PIECES):
        xs = (k + (nodes + 1) / 2) * _PIECE
        cheb = np.polynomial.chebyshev.chebfit(nodes, [math.erf(v) / v for v in xs], _DEGREE)
        rows.append(np.polynomial.chebyshev.cheb2poly(cheb))
    return np.array(rows)[:, ::-1].T.copy()     # (power, piece), highest power first


_ERF_TABLE = _erf_table()


def erf_array(x):
    """erf of a NumPy array (erf's forward; gelu's too)."""
    x = np.asarray(x)
    out_dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    v = x.astype(np.float64, copy=False)
    end = _N_PIECES * _PIECE
    a = np.minimum(np.abs(v), end)
    a = np.where(np.isnan(a), 0.0, a)
    piece = np.minimum((a * (1 / _PIECE)).astype(np.intp), _N_PIECES - 1)
    t = (a - (piece + 0.5) * _PIECE) * (2 / _PIECE)
    h = _ERF_TABLE[0].take(piece)
    for row in _ERF_TABLE[1:]:
        h *= t
        h += row.take(piece)
    out = np.where(np.abs(v) >= end, np.sign(v), v * h)
    return np.where(np.isnan(v), v, out).astype(out_dtype, copy=False)


erf = defop("erf", erf_array, save="x", float_only=True,
            vjp=[lambda g, ans, x: g * (_TWO_OVER_SQRT_PI * exp(-(x * x)))],
            jvp=[lambda t, ans, x: t * (_TWO_OVER_SQRT_PI * exp(-(x * x)))],
            doc="The error function 2/sqrt(pi) * integral of exp(-t^2) from 0 to x.")


# --- lgamma and its derivatives ------------------------------------------------------------
def _lgamma_one(v):
    try:
        return math.lgamma(v)
    except ValueError:      # a pole: 0, -1, -2, ... where |Gamma| is infinite
        return math.inf


_lgamma_each = np.frompyfunc(_lgamma_one, 1, 1)


def _lgamma(x):
    v, dtype = _float(x)
    return np.asarray(_lgamma_each(v), dtype=np.float64).astype(dtype)


def _poles(v):
    return (v <= 0) & (v == np.floor(v))


def _shift_to_series(v, term):
    """Where the asymptotic series holds: reflect v below 1/2 to 1 - v, then step z up to 10
    by the recurrence, adding term(z) at each step. Returns (reflected?, z, the terms' sum)."""
    reflect = v < 0.5
    z = np.where(reflect, 1 - v, v)
    acc = np.zeros_like(z)
    for _ in range(10):
        low = z < 10
        acc += np.where(low, term(z), 0)
        z = np.where(low, z + 1, z)
    return reflect, z, acc


def _digamma(x):
    """psi(x) = d lgamma(x)/dx: reflection below 1/2, recurrence up to 10, then the asymptotic
    series (float64 relative error about 1e-13). NaN at the poles and at -inf, as TensorFlow."""
    v, dtype = _float(x)
    with np.errstate(all="ignore"):
        reflect, z, acc = _shift_to_series(v, lambda z: -1 / z)     # psi(z) = psi(z + 1) - 1/z
        r = 1 / (z * z)
        psi = np.log(z) - 0.5 / z - r * (1 / 12 - r * (1 / 120 - r * (1 / 252 - r * (1 / 240 - r / 132))))
        psi = psi + acc
        psi = np.where(reflect, psi - np.pi / np.tan(np.pi * v), psi)
        psi = np.where(_poles(v) | (v == -np.inf), np.nan, psi)
        psi = np.where(v == np.inf, np.inf, psi)
    return psi.astype(dtype)


def _trigamma(x):
    """psi'(x): reflection psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x), recurrence, series.
    inf at the poles and at -inf, 0 at +inf, as TensorFlow's polygamma(1, x)."""
    v, dtype = _float(x)
    with np.errstate(all="ignore"):
        reflect, z, acc = _shift_to_series(v, lambda z: 1 / (z * z))   # psi'(z) = psi'(z+1) + 1/z^2
        r = 1 / (z * z)
        psi1 = 1 / z + r / 2 + (r / z) * (1 / 6 - r * (1 / 30 - r * (1 / 42 - r / 30)))
        psi1 = psi1 + acc
        psi1 = np.where(reflect, (np.pi / np.sin(np.pi * v)) ** 2 - psi1, psi1)
        psi1 = np.where(_poles(v) | (v == -np.inf), np.inf, psi1)
        psi1 = np.where(v == np.inf, 0.0, psi1)
    return psi1.astype(dtype)


# polygamma(1, x): lgamma's second derivative. Its own derivative (tetragamma) is not here:
# a third derivative of lgamma raises a LookupError naming it instead of a wrong number.
trigamma_op = defop("trigamma", _trigamma, float_only=True, vjp=NO_GRADIENT,
                 doc="psi'(x) = polygamma(1, x), the derivative of digamma.")
digamma_op = defop("digamma", _digamma, save="x", float_only=True,
                vjp=[lambda g, ans, x: g * trigamma_op(x)], jvp=[lambda t, ans, x: t * trigamma_op(x)],
                doc="psi(x) = d lgamma(x) / dx; NaN at 0, -1, -2, ...")
# TensorFlow's LgammaGrad: g * digamma_op(x).
lgamma_op = defop("lgamma", _lgamma, save="x", float_only=True,
               vjp=[lambda g, ans, x: g * digamma_op(x)], jvp=[lambda t, ans, x: t * digamma_op(x)],
               doc="log |Gamma(x)|; inf at 0, -1, -2, ...")


# --- products that are 0 where a factor is 0 ---------------------------------------------------
def _xlogy(x, y):
    with np.errstate(all="ignore"):
        return np.where(x == 0, np.zeros((), np.result_type(x, y)), x * np.log(y))


def _xdivy(x, y):
    with np.errstate(all="ignore"):
        return np.where(x == 0, np.zeros((), np.result_type(x, y)), x / y)


def _divide_no_nan(x, y):
    with np.errstate(all="ignore"):
        return np.where(y == 0, np.zeros((), np.result_type(x, y)), x / y)


def _nonzero(x):
    return cast(not_equal(x, 0), x.dtype)


# TensorFlow's XlogyGrad: d/dx = xlogy(x != 0, y), d/dy = xdivy(x, y); both 0 where x = 0.
xlogy_op = defop("xlogy", _xlogy, args="x y", save="x y", same_dtype=True,
              vjp=[lambda g, ans, x, y: g * xlogy_op(_nonzero(x), y), lambda g, ans, x, y: g * xdivy_op(x, y)],
              jvp=[lambda t, ans, x, y: t * xlogy_op(_nonzero(x), y), lambda t, ans, x, y: t * xdivy_op(x, y)],
              doc="x * log(y), and 0 where x = 0 (whatever y is).")
# TensorFlow's XdivyGrad: d/dx = xdivy(x != 0, y), d/dy = xdivy(-x, y^2).
xdivy_op = defop("xdivy", _xdivy, args="x y", save="x y", same_dtype=True,
              vjp=[lambda g, ans, x, y: g * xdivy_op(_nonzero(x), y), lambda g, ans, x, y: g * xdivy_op(-x, square(y))],
              jvp=[lambda t, ans, x, y: t * xdivy_op(_nonzero(x), y), lambda t, ans, x, y: t * xdivy_op(-x, square(y))],
              doc="x / y, and 0 where x = 0 (whatever y is).")
# TensorFlow's DivNoNanGrad: d/dx = divide_no_nan(g, y), d/dy = g * divide_no_nan(divide_no_nan(-x, y), y).
divide_no_nan_op = defop(
    "divide_no_nan", _divide_no_nan, args="x y", save="x y", same_dtype=True,
    vjp=[lambda g, ans, x, y: divide_no_nan_op(g, y),
         lambda g, ans, x, y: g * divide_no_nan_op(divide_no_nan_op(-x, y), y)],
    jvp=[lambda t, ans, x, y: divide_no_nan_op(t, y),
         lambda t, ans, x, y: t * divide_no_nan_op(divide_no_nan_op(-x, y), y)],
    doc="x / y, and 0 where y = 0 (also for x = 0 or NaN).")



# --- tf.math's functions (TensorFlow has them in tf.math only, not at top level) ---------------
def lgamma(x, name=None):
    """`log |Gamma(x)|` (`tf.math.lgamma`); inf at the poles 0, -1, -2, ...

    >>> tk.math.lgamma(tk.constant([1.0, 5.0, 0.5, 0.0]))    # log 4! = 3.178, log sqrt(pi) = 0.572
    tk.Tensor([0.        3.1780539 0.5723649       inf], shape=(4,), dtype=float32)

    Its derivative is digamma(x):

    >>> x = tk.Variable(1.0)
    >>> with tk.GradientTape() as tape:
    ...     y = tk.math.lgamma(x)
    >>> tape.gradient(y, x)                                   # -0.5772: minus Euler's constant
    tk.Tensor(-0.5772157, shape=(), dtype=float32)
    """
    return lgamma_op(x)


def digamma(x, name=None):
    """psi(x), the derivative of lgamma (`tf.math.digamma`); NaN at 0, -1, -2, ...

    >>> tk.math.digamma(tk.constant([1.0, 2.0]))              # psi(2) = psi(1) + 1
    tk.Tensor([-0.5772157   0.42278433], shape=(2,), dtype=float32)
    """
    return digamma_op(x)


def xlogy(x, y, name=None):
    """x * log(y), and 0 where x = 0 (`tf.math.xlogy`): entropies without 0 * log 0 = NaN.

    >>> tk.math.xlogy(tk.constant([0.0, 2.0]), tk.constant([0.0, 3.0]))
    tk.Tensor([0.        2.1972246], shape=(2,), dtype=float32)

    The gradient is 0 where x = 0 too:

    >>> p = tk.Variable([0.0, 0.5])
    >>> with tk.GradientTape() as tape:
    ...     y = tk.reduce_sum(tk.math.xlogy(p, p))     # sum of p log p
    >>> tape.gradient(y, p)                            # log p + 1 where p > 0, 0 at p = 0
    tk.Tensor([0.         0.30685282], shape=(2,), dtype=float32)
    """
    return xlogy_op(x, y)


def xdivy(x, y, name=None):
    """x / y, and 0 where x = 0 (`tf.math.xdivy`).

    >>> tk.math.xdivy(tk.constant([0.0, 3.0]), tk.constant([0.0, 2.0]))
    tk.Tensor([0.  1.5], shape=(2,), dtype=float32)
    """
    return xdivy_op(x, y)


def divide_no_nan(x, y, name=None):
    """x / y, and 0 where y = 0 (`tf.math.divide_no_nan`); so is its gradient there.

    >>> tk.math.divide_no_nan(tk.constant([1.0, 3.0]), tk.constant([0.0, 2.0]))
    tk.Tensor([0.  1.5], shape=(2,), dtype=float32)
    """
    return divide_no_nan_op(x, y)
