"""More elementwise math (tk.math): erf, log1p, expm1, reciprocal, rsqrt, squared_difference,
the rounding ops (floor, ceil, round) and Python's `//` and `%` (floordiv, floormod).

TensorFlow registers no gradient for floor, ceil, round and floordiv: here too their VJP is
None, so a gradient through them is None (unconnected), not zeros.

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.erf(tk.constant([0.0, 0.5, -2.0]))          # also tk.math.erf
tk.Tensor([ 0.         0.5204999 -0.9953223], shape=(3,), dtype=float32)

>>> tk.log1p(tk.constant([0.0, 1e-10]))       # exact where log(1 + x) rounds to 0
tk.Tensor([0.e+00 1.e-10], shape=(2,), dtype=float32)

>>> tk.expm1(tk.constant([0.0, 1.0]))
tk.Tensor([0.        1.7182819], shape=(2,), dtype=float32)

>>> tk.reciprocal(tk.constant([2.0, 4.0]))
tk.Tensor([0.5  0.25], shape=(2,), dtype=float32)

>>> tk.rsqrt(tk.constant([4.0, 16.0]))
tk.Tensor([0.5  0.25], shape=(2,), dtype=float32)

>>> tk.squared_difference(tk.constant([1.0, 5.0]), 3.0)
tk.Tensor([4. 4.], shape=(2,), dtype=float32)

>>> tk.floor(tk.constant([-1.5, 1.5])), tk.ceil(tk.constant([-1.5, 1.5]))
(tk.Tensor([-2.  1.], shape=(2,), dtype=float32), tk.Tensor([-1.  2.], shape=(2,), dtype=float32))

>>> tk.round(tk.constant([0.5, 1.5, 2.5, -0.5]))   # halves to even, as TensorFlow
tk.Tensor([ 0.  2.  2. -0.], shape=(4,), dtype=float32)

>>> tk.floordiv(tk.constant([7, -7]), 2), tk.floormod(tk.constant([7, -7]), 2)   # also // and %
(tk.Tensor([ 3 -4], shape=(2,), dtype=int32), tk.Tensor([1 1], shape=(2,), dtype=int32))

>>> x = tk.Variable(7.5)
>>> with tk.GradientTape() as tape:
...     y = x % 2.0                    # tk.floormod: x - floor(x / 2) * 2
>>> tape.gradient(y, x)
tk.Tensor(1.0, shape=(), dtype=float32)
"""
import math

import numpy as np

from .elementwise import exp, zero_where_g_is_zero
from .registry import defop

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


# --- erf without SciPy ------------------------------------------------------------------------
# erf(x) = x * h(x) with h = erf(x) / x, an even, smooth function. h is interpolated on [0, 6]
# in 24 pieces of width 1/4, each a degree-10 polynomial in t in [-1, 1] (Chebyshev
# interpolation of math.erf at build time, stored in the power basis: evaluation is a Horner
# loop over gathered coefficients, about 20 array passes). Beyond |x| = 6 erf is +-1 in float64
# (erfc(6) = 2e-17). Measured against math.erf: relative error below 2.5e-15 everywhere
# (tests/ops/test_ops_extra.py checks 5e-15), so float32 results are correctly rounded or one ulp off.
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


def _erf(x):
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


erf = defop("erf", _erf, save="x", float_only=True,
            vjp=[lambda g, ans, x: g * (_TWO_OVER_SQRT_PI * exp(-(x * x)))],
            jvp=[lambda t, ans, x: t * (_TWO_OVER_SQRT_PI * exp(-(x * x)))],
            doc="The error function 2/sqrt(pi) * integral of exp(-t^2) from 0 to x.")

# --- exponentials and powers -------------------------------------------------------------------
log1p = defop("log1p", np.log1p, save="x", ufunc=np.log1p, float_only=True,
              vjp=[lambda g, ans, x: g / (1 + x)], jvp=[lambda t, ans, x: t / (1 + x)])
expm1 = defop("expm1", np.expm1, save="ans", ufunc=np.expm1, float_only=True,
              vjp=[lambda g, ans, x: g * (ans + 1)], jvp=[lambda t, ans, x: t * (ans + 1)])
# TensorFlow's ReciprocalGrad and RsqrtGrad: from the output alone, and 0 wherever the
# arriving gradient is 0 (at x = 0, where ans is inf, too: elementwise.zero_where_g_is_zero).
reciprocal = defop("reciprocal", np.reciprocal, save="ans", ufunc=np.reciprocal,
                   vjp=[lambda g, ans, x: zero_where_g_is_zero(g, -(ans * ans))],
                   jvp=[lambda t, ans, x: zero_where_g_is_zero(t, -(ans * ans))])


def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


rsqrt = defop("rsqrt", _rsqrt, save="ans", float_only=True,
              vjp=[lambda g, ans, x: zero_where_g_is_zero(g, -0.5 * ans * ans * ans)],
              jvp=[lambda t, ans, x: zero_where_g_is_zero(t, -0.5 * ans * ans * ans)])

squared_difference = defop(
    "squared_difference", lambda x, y: np.square(np.subtract(x, y)), args="x y", save="x y",
    same_dtype=True,
    vjp=[lambda g, ans, x, y: g * (2 * (x - y)), lambda g, ans, x, y: g * (2 * (y - x))],
    jvp=[lambda t, ans, x, y: t * (2 * (x - y)), lambda t, ans, x, y: t * (2 * (y - x))])

# --- rounding: piecewise constant; TensorFlow registers no gradient (None) -------------------
floor = defop("floor", np.floor, ufunc=np.floor, float_only=True, vjp=[None], jvp=[None])
ceil = defop("ceil", np.ceil, ufunc=np.ceil, float_only=True, vjp=[None], jvp=[None])
round_op = defop("round", np.round, vjp=[None], jvp=[None],
                 doc="Round half to even (banker's rounding), as TensorFlow and NumPy.")


def round(x, name=None):  # noqa: A001 - tf.math.round
    """Round to the nearest integer, halves to the even one (`tf.math.round`).

    >>> tk.math.round(tk.constant([0.4, 2.5, 3.5]))
    tk.Tensor([0. 2. 4.], shape=(3,), dtype=float32)
    """
    return round_op(x)


# --- Python's // and %: the remainder takes the divisor's sign --------------------------------
def _int_divisor_check(y):
    if np.asarray(y).dtype.kind in "iub" and np.any(np.asarray(y) == 0):
        raise ValueError("integer division by zero (TensorFlow raises too; NumPy would give 0)")


def _floordiv(x, y):
    if np.result_type(x, y).kind == "f":      # TensorFlow's floor(x / y) for floats
        return np.floor(np.true_divide(x, y))
    _int_divisor_check(y)
    return np.floor_divide(x, y)


def _floormod(x, y):
    if np.result_type(x, y).kind != "f":
        _int_divisor_check(y)
    return np.remainder(x, y)


floordiv = defop("floordiv", _floordiv, args="x y", same_dtype=True, ufunc=np.floor_divide,
                 vjp=[None, None], jvp=[None, None],
                 doc="floor(x / y) (Python's //); no gradient, as TensorFlow.")

floormod = defop(
    "floormod", _floormod, args="x y", save="x y", same_dtype=True, ufunc=np.remainder,
    vjp=[lambda g, ans, x, y: g, lambda g, ans, x, y: g * -floordiv(x, y)],
    jvp=[lambda t, ans, x, y: t, lambda t, ans, x, y: t * -floordiv(x, y)],
    doc="x - floor(x / y) * y (Python's %): d/dx = 1, d/dy = -floor(x / y), as TensorFlow.")

mod = floormod
