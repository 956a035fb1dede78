"""Elementwise ops: arithmetic, powers, exponentials, trigonometry, comparisons, casts.

Unary ops with a derivative f'(x) are declared once with `unary(...)`: the VJP is
`g * f'` and the JVP `t * f'`, from the same `deriv` rule.

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.abs(tk.constant([-2.0, 0.5]))
tk.Tensor([2.  0.5], shape=(2,), dtype=float32)

>>> tk.negative(tk.constant([-2.0, 0.5]))
tk.Tensor([ 2.  -0.5], shape=(2,), dtype=float32)

>>> tk.sign(tk.constant([-2.0, 0.0, 0.5]))
tk.Tensor([-1.  0.  1.], shape=(3,), dtype=float32)

>>> tk.square(tk.constant([-2.0, 0.5]))
tk.Tensor([4.   0.25], shape=(2,), dtype=float32)

>>> tk.sqrt(tk.constant([1.0, 4.0, 9.0]))
tk.Tensor([1. 2. 3.], shape=(3,), dtype=float32)

>>> tk.exp(tk.constant([0.0, 1.0]))
tk.Tensor([1.       2.718282], shape=(2,), dtype=float32)

>>> tk.log(tk.constant([1.0, np.e]))
tk.Tensor([0. 1.], shape=(2,), dtype=float32)

>>> tk.sin(tk.constant([0.0, np.pi / 2]))
tk.Tensor([0. 1.], shape=(2,), dtype=float32)

>>> tk.cos(tk.constant([0.0, np.pi]))
tk.Tensor([ 1. -1.], shape=(2,), dtype=float32)

>>> tk.tanh(tk.constant([0.0, 1.0]))
tk.Tensor([0.        0.7615942], shape=(2,), dtype=float32)

>>> tk.sigmoid(tk.constant([0.0, 2.0]))
tk.Tensor([0.5      0.880797], shape=(2,), dtype=float32)

>>> tk.add(tk.constant([1.0, 2.0]), 1.0)           # also x + 1.0
tk.Tensor([2. 3.], shape=(2,), dtype=float32)

>>> tk.subtract(tk.constant([1.0, 2.0]), 1.0)      # also x - 1.0
tk.Tensor([0. 1.], shape=(2,), dtype=float32)

>>> tk.multiply(tk.constant([1.0, 2.0]), 3.0)      # also x * 3.0
tk.Tensor([3. 6.], shape=(2,), dtype=float32)

>>> tk.divide(tk.constant([1.0, 2.0]), 4.0)        # also x / 4.0
tk.Tensor([0.25 0.5 ], shape=(2,), dtype=float32)

>>> tk.pow(tk.constant([2.0, 3.0]), 2.0)           # also x ** 2.0
tk.Tensor([4. 9.], shape=(2,), dtype=float32)

>>> tk.maximum(tk.constant([-1.0, 2.0]), 0.0)
tk.Tensor([0. 2.], shape=(2,), dtype=float32)

>>> tk.minimum(tk.constant([-1.0, 2.0]), 0.0)
tk.Tensor([-1.  0.], shape=(2,), dtype=float32)

>>> tk.identity(tk.constant([1.0, 2.0]))
tk.Tensor([1. 2.], shape=(2,), dtype=float32)

>>> tk.equal(tk.constant([1.0, 2.0]), 2.0)
tk.Tensor([False  True], shape=(2,), dtype=bool)

>>> tk.not_equal(tk.constant([1.0, 2.0]), 2.0)
tk.Tensor([ True False], shape=(2,), dtype=bool)

>>> tk.greater(tk.constant([1.0, 2.0, 3.0]), 2.0)
tk.Tensor([False False  True], shape=(3,), dtype=bool)

>>> tk.greater_equal(tk.constant([1.0, 2.0, 3.0]), 2.0)
tk.Tensor([False  True  True], shape=(3,), dtype=bool)

>>> tk.less(tk.constant([1.0, 2.0, 3.0]), 2.0)
tk.Tensor([ True False False], shape=(3,), dtype=bool)

>>> tk.less_equal(tk.constant([1.0, 2.0, 3.0]), 2.0)
tk.Tensor([ True  True False], shape=(3,), dtype=bool)

>>> tk.is_nan(tk.constant([1.0, np.nan]))
tk.Tensor([False  True], shape=(2,), dtype=bool)

>>> tk.is_finite(tk.constant([1.0, np.inf, np.nan]))
tk.Tensor([ True False False], shape=(3,), dtype=bool)

>>> tk.logical_and(tk.constant([True, True]), tk.constant([True, False]))
tk.Tensor([ True False], shape=(2,), dtype=bool)

>>> tk.logical_or(tk.constant([True, False]), tk.constant([False, False]))
tk.Tensor([ True False], shape=(2,), dtype=bool)

>>> tk.logical_not(tk.constant([True, False]))
tk.Tensor([False  True], shape=(2,), dtype=bool)

>>> w = tk.Variable(3.0)
>>> with tk.GradientTape(persistent=True) as tape:
...     y = tk.sin(w) * tk.exp(w)
...     z = tk.maximum(w, 5.0)        # w is not the max: no gradient reaches it
>>> tape.gradient(y, w)               # (cos w + sin w) e^w at w = 3
tk.Tensor(-17.05006, shape=(), dtype=float32)
>>> tape.gradient(z, w)
tk.Tensor(0.0, shape=(), dtype=float32)
"""
import math

import numpy as np

from .. import dtypes
from ..tensor import _to_array
from .creation import _where_indices
from .registry import defop, numpy_function


def unary(name, forward, deriv, save, ufunc=None, doc=None, float_only=True):
    """An elementwise op whose VJP and JVP both multiply by `deriv(ans, x)`."""
    return defop(name, forward, args="x", save=save, ufunc=ufunc, doc=doc, float_only=float_only,
                 vjp=[lambda g, ans, x: g * deriv(ans, x)],
                 jvp=[lambda t, ans, x: t * deriv(ans, x)])


def binary(name, forward, dx, dy, save, ufunc=None, doc=None):
    """An elementwise op of two inputs with partials dx(ans, x, y) and dy(ans, x, y)."""
    return defop(name, forward, args="x y", save=save, ufunc=ufunc, same_dtype=True, doc=doc,
                 vjp=[lambda g, ans, x, y: g * dx(ans, x, y), lambda g, ans, x, y: g * dy(ans, x, y)],
                 jvp=[lambda t, ans, x, y: t * dx(ans, x, y), lambda t, ans, x, y: t * dy(ans, x, y)])


# --- arithmetic -------------------------------------------------------------------
def _trailing_broadcast(ufunc):
    """`ufunc`, faster when one operand is a short vector broadcast over a large array.

    x + bias with bias of shape (8,) and x of shape (32, 26, 26, 8): NumPy's inner loop then
    runs over 8 numbers at a time and pays its per-loop cost 21632 times (5x slower than
    the arithmetic). Tiling the short operand r times along the trailing axes makes each
    inner loop r times longer. Same numbers, same dtype: only the loop shape changes.

    `forward.specialize(x, y)` is what a tk.function program calls for inputs like these
    (codegen.py): the bare ufunc when the shapes rule tiling out, one Python call less per
    op (W1 under tk.function: 9% faster, PERFORMANCE.md).
    """
    def forward(x, y):
        if type(x) is np.ndarray and type(y) is np.ndarray and x.shape != y.shape:
            big, small = (x, y) if x.ndim > y.ndim else (y, x)
            n = small.size
            if (1 < n < _SHORT and big.size >= _LARGE and big.flags.c_contiguous
                    and small.shape == big.shape[big.ndim - small.ndim:]):
                r = 1
                for d in reversed(big.shape[:big.ndim - small.ndim]):
                    if r * d * n > _RUN:
                        break
                    r *= d
                if r > 1:
                    rows = big.reshape(-1, r * n)
                    tiled = np.tile(small.reshape(-1), r)
                    out = ufunc(rows, tiled) if big is x else ufunc(tiled, rows)
                    return out.reshape(big.shape)
        return ufunc(x, y)

    def specialize(x, y):
        may_tile = (type(x) is np.ndarray and type(y) is np.ndarray and x.shape != y.shape
                    and max(x.size, y.size) >= _LARGE)
        return forward if may_tile else ufunc
    forward.__name__ = ufunc.__name__
    forward.specialize = specialize
    return forward


_SHORT, _LARGE, _RUN = 64, 16384, 8192  # vector length, array size, longest tiled inner run

add = defop("add", _trailing_broadcast(np.add), args="x y", same_dtype=True, ufunc=np.add,
            vjp=[lambda g, ans, x, y: g, lambda g, ans, x, y: g],
            jvp=[lambda t, ans, x, y: t, lambda t, ans, x, y: t])

subtract = defop("subtract", np.subtract, args="x y", same_dtype=True, ufunc=np.subtract,
                 vjp=[lambda g, ans, x, y: g, lambda g, ans, x, y: -g],
                 jvp=[lambda t, ans, x, y: t, lambda t, ans, x, y: -t])

multiply = defop("multiply", np.multiply, args="x y", save="x y", same_dtype=True,
                 ufunc=np.multiply,
                 vjp=[lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x],
                 jvp=[lambda t, ans, x, y: t * y, lambda t, ans, x, y: x * t])

# d(x/y)/dy = -x / y^2, computed as -(g / y) * (x / y): y * y underflows to 0 in float32 for
# |y| < 1e-19 (1e-23 / y at y = 1e-23 gave -inf, not -1e23), and g * x can overflow.
divide = defop("divide", np.true_divide, args="x y", save="x y", same_dtype=True,
               ufunc=np.true_divide,
               vjp=[lambda g, ans, x, y: g / y, lambda g, ans, x, y: -(g / y) * (x / y)],
               jvp=[lambda t, ans, x, y: t / y, lambda t, ans, x, y: -(t / y) * (x / y)])

negative = defop("negative", np.negative, ufunc=np.negative,
                 vjp=[lambda g, ans, x: -g], jvp=[lambda t, ans, x: -t])


def _pow_dy(ans, x, y):
    # d(x**y)/dy = log(x) * x**y; TensorFlow takes log(x) as 0 where x <= 0.
    if type(x) in (int, float):   # 2.0 ** t: a weak Python number stays one (float32 stays)
        return ans * (math.log(x) if x > 0 else 0.0)
    positive = x > 0
    return ans * where(positive, log(where(positive, x, 1)), 0)


pow = binary("pow", np.power, save="ans x y", ufunc=np.power,  # noqa: A001 - tf.pow
             dx=lambda ans, x, y: y * x ** (y - 1), dy=_pow_dy)

square = unary("square", np.square, save="x", ufunc=np.square, float_only=False,
               deriv=lambda ans, x: 2 * x)


def zero_where_g_is_zero(g, d):
    """g * d, but 0 wherever the arriving gradient g is 0, even where d is inf or NaN.

    TensorFlow's SqrtGrad, RsqrtGrad and ReciprocalGrad kernels work so: at x = 0 (d = inf)
    or x < 0 (d = NaN) a zero g gives 0, not NaN. That is what makes
    tf.where(s > 0, tf.sqrt(s), 0.0) differentiable at s = 0: the branch where() did not
    pick receives g = 0. (log, divide and the other ops multiply as they are: 0 * inf is NaN.)
    """
    return where(g == 0, 0, g * d)


# sqrt's derivative 0.5 / sqrt(x) is inf at 0 and NaN below, as TensorFlow's; a zero arriving
# gradient gives 0 there (zero_where_g_is_zero).
sqrt = defop("sqrt", np.sqrt, save="ans", ufunc=np.sqrt, float_only=True,
             vjp=[lambda g, ans, x: zero_where_g_is_zero(g, 0.5 / ans)],
             jvp=[lambda t, ans, x: zero_where_g_is_zero(t, 0.5 / ans)])
exp = unary("exp", np.exp, save="ans", ufunc=np.exp, deriv=lambda ans, x: ans)
# g / x, not g * (1 / x): 1 / x overflows to inf for a float32 x below 3e-39.
log = defop("log", np.log, save="x", ufunc=np.log, float_only=True,
            vjp=[lambda g, ans, x: g / x], jvp=[lambda t, ans, x: t / x])
abs = unary("abs", np.abs, save="x", ufunc=np.absolute, float_only=False,  # noqa: A001 - tf.abs
            deriv=lambda ans, x: sign(x))             # 0 at 0, as TensorFlow
# sign is flat almost everywhere: its derivative is 0, as in TensorFlow (so abs, whose
# derivative is sign(x), has second derivative 0, not None).
sign = defop("sign", np.sign, ufunc=np.sign,
             vjp=[lambda g, ans, x: zeros_cotangent(g)], jvp=[lambda t, ans, x: zeros_cotangent(t)])


def zeros_cotangent(g):
    """Zeros shaped like the cotangent `g`: the derivative of an op that is flat (sign)."""
    return np.zeros(g.shape, g.dtype)
sin = unary("sin", np.sin, save="x", ufunc=np.sin, deriv=lambda ans, x: cos(x))
cos = unary("cos", np.cos, save="x", ufunc=np.cos, deriv=lambda ans, x: -sin(x))
tanh = unary("tanh", np.tanh, save="ans", ufunc=np.tanh, deriv=lambda ans, x: 1 - ans * ans)


def _sigmoid(x):
    # Stable for large |x|: exp of a non-positive number only.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(np.result_type(x), copy=False)


sigmoid = unary("sigmoid", _sigmoid, save="ans", deriv=lambda ans, x: ans * (1 - ans))


# --- maximum / minimum: ties send the whole gradient to the first argument -----------
maximum = defop("maximum", np.maximum, args="x y", save="x y", same_dtype=True, ufunc=np.maximum,
                vjp=[lambda g, ans, x, y: where(x >= y, g, 0), lambda g, ans, x, y: where(x >= y, 0, g)],
                jvp=[lambda t, ans, x, y: where(x >= y, t, 0), lambda t, ans, x, y: where(x >= y, 0, t)])
minimum = defop("minimum", np.minimum, args="x y", save="x y", same_dtype=True, ufunc=np.minimum,
                vjp=[lambda g, ans, x, y: where(x <= y, g, 0), lambda g, ans, x, y: where(x <= y, 0, g)],
                jvp=[lambda t, ans, x, y: where(x <= y, t, 0), lambda t, ans, x, y: where(x <= y, 0, t)])


# --- where and clip: the gradient passes where the value passes --------------------------
def _where(condition, x, y):
    # A Python scalar branch (the 0 in where(c, g, 0), common in rules) as a NumPy scalar of
    # the other branch's dtype: NumPy's select is several times faster than with a weak int.
    if type(y) in (int, float) and hasattr(x, "dtype"):
        y = x.dtype.type(y)
    elif type(x) in (int, float) and hasattr(y, "dtype"):
        x = y.dtype.type(x)
    return np.where(condition, x, y)


where_op = defop("where", _where, args="condition x y", save="condition",
                 vjp=[None, lambda g, ans, c, x, y: where(c, g, 0), lambda g, ans, c, x, y: where(c, 0, g)],
                 jvp=[None, lambda t, ans, c, x, y: where(c, t, 0), lambda t, ans, c, x, y: where(c, 0, t)])


@numpy_function(np.where)
def where(condition, x=None, y=None, name=None):
    """Elements of x where condition is true, else of y (`tf.where`, NumPy broadcasting).

    >>> x = tk.constant([-1.0, 2.0, -3.0])
    >>> tk.where(x > 0, x, tk.zeros_like(x))
    tk.Tensor([0. 2. 0.], shape=(3,), dtype=float32)

    >>> tk.where(tk.constant([True, False, True]))      # one argument: the indices of True
    tk.Tensor(
    [[0]
     [2]], shape=(2, 1), dtype=int64)
    """
    if x is None and y is None:
        return _where_indices(condition)
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither (for the indices of true elements)")
    if type(x) in _PY_NUMBERS and type(y) in _PY_NUMBERS:
        # Two Python numbers are constants of TensorFlow's dtypes (float32, int32), not the
        # float64 NumPy would make of them; and TensorFlow refuses to mix the two.
        x, y = _to_array(x), _to_array(y)     # arrays: op inputs in raw mode too
        if x.dtype != y.dtype:
            raise TypeError(f"where: x and y must have one dtype; got the Python numbers "
                            f"{x.item()!r} ({x.dtype.name}) and {y.item()!r} ({y.dtype.name}). "
                            f"Write both as floats, e.g. tk.where(c, 1.0, 0.2)")
    return where_op(condition, x, y)


_PY_NUMBERS = (int, float)


def _clip(x, lo, hi):
    return np.clip(x, lo, hi)


def _inside(x, lo, hi):
    return (x >= lo) & (x <= hi)


clip_by_value_op = defop(
    "clip_by_value", _clip, args="x lo hi", save="x lo hi",
    vjp=[lambda g, ans, x, lo, hi: where(_inside(x, lo, hi), g, 0),   # passes at the bounds
         lambda g, ans, x, lo, hi: where(x < lo, g, 0),
         lambda g, ans, x, lo, hi: where(x > hi, g, 0)],
    jvp=[lambda t, ans, x, lo, hi: where(_inside(x, lo, hi), t, 0),
         lambda t, ans, x, lo, hi: where(x < lo, t, 0),
         lambda t, ans, x, lo, hi: where(x > hi, t, 0)])


@numpy_function(np.clip)
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clip values to [min, max]; the gradient passes inside and at the bounds.

    >>> tk.clip_by_value(tk.constant([-2.0, 0.5, 3.0]), -1.0, 1.0)
    tk.Tensor([-1.   0.5  1. ], shape=(3,), dtype=float32)
    """
    return clip_by_value_op(t, clip_value_min, clip_value_max)


# --- comparisons and logic: no gradient ----------------------------------------------
less = defop("less", np.less, args="x y", ufunc=np.less)
less_equal = defop("less_equal", np.less_equal, args="x y", ufunc=np.less_equal)
greater = defop("greater", np.greater, args="x y", ufunc=np.greater)
greater_equal = defop("greater_equal", np.greater_equal, args="x y", ufunc=np.greater_equal)
equal = defop("equal", np.equal, args="x y", ufunc=np.equal)
not_equal = defop("not_equal", np.not_equal, args="x y", ufunc=np.not_equal)
logical_and = defop("logical_and", np.logical_and, args="x y", ufunc=np.logical_and)
logical_or = defop("logical_or", np.logical_or, args="x y", ufunc=np.logical_or)
logical_not = defop("logical_not", np.logical_not, ufunc=np.logical_not)
is_nan = defop("is_nan", np.isnan, ufunc=np.isnan)
is_finite = defop("is_finite", np.isfinite, ufunc=np.isfinite)


# --- cast: differentiable between floating dtypes only ----------------------------------
def _cast_vjp(g, ans, x, dtype):
    if ans.dtype.kind != "f" or x.dtype.kind != "f":
        return None
    return cast_op(g, dtype=x.dtype)


def _cast_jvp(t, ans, x, dtype):
    if ans.dtype.kind != "f" or x.dtype.kind != "f":
        return None
    return cast_op(t, dtype=ans.dtype)


cast_op = defop("cast", lambda x, dtype: np.asarray(x).astype(dtype, copy=False),
                vjp=[_cast_vjp], jvp=[_cast_jvp])


def cast(x, dtype, name=None):
    """`x` converted to `dtype`; the gradient flows back only between floating dtypes.

    >>> tk.cast(tk.constant([1.7, -1.7]), tk.int32)      # truncates toward zero, as TensorFlow
    tk.Tensor([ 1 -1], shape=(2,), dtype=int32)

    >>> x = tk.Variable(2.0)
    >>> with tk.GradientTape() as tape:
    ...     y = tk.cast(x, tk.float64) ** 2
    >>> tape.gradient(y, x)            # float32 -> float64 -> float32: the gradient flows
    tk.Tensor(4.0, shape=(), dtype=float32)
    """
    return cast_op(x, dtype=dtypes.as_dtype(dtype))


# --- identity and stop_gradient ---------------------------------------------------------
identity = defop("identity", lambda x: x,
                 vjp=[lambda g, ans, x: g], jvp=[lambda t, ans, x: t])

stop_gradient_op = defop(
    "stop_gradient", lambda x: x, vjp=[None], jvp=[None],
    doc="Identity forward; no gradient flows back through it (recorded, so the display can show it).")


def stop_gradient(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """Treat `input` as a constant for differentiation (`tf.stop_gradient`).

    >>> x = tk.Variable(3.0)
    >>> with tk.GradientTape() as tape:
    ...     y = tk.stop_gradient(x * x) + x     # the value of x * x, but no gradient through it
    >>> y
    tk.Tensor(12.0, shape=(), dtype=float32)
    >>> tape.gradient(y, x)
    tk.Tensor(1.0, shape=(), dtype=float32)
    """
    return stop_gradient_op(input)
