"""Arithmetic: + - * / (add, subtract, multiply, divide), add_n, negative, pow, square, sqrt,
abs and sign, reciprocal, rsqrt and squared_difference.

sqrt, rsqrt and reciprocal follow TensorFlow's gradient kernels: their derivative is 0
wherever the arriving gradient is 0, even at a pole (zero_where_g_is_zero).

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

>>> tk.reciprocal(tk.constant([2.0, 4.0]))
tk.Tensor([0.5  0.25], shape=(2,), dtype=float32)

>>> tk.rsqrt(tk.constant([4.0, 16.0]))
tk.Tensor([0.5  0.25], shape=(2,), dtype=float32)

>>> tk.squared_difference(tk.constant([1.0, 5.0]), 3.0)
tk.Tensor([4. 4.], shape=(2,), dtype=float32)
"""
import math

import numpy as np

from .passthrough import identity
from .inputs import check_alike, input_shape
from .registry import binary, defop, unary
from .selection import where
from .transcendental import log


# --- + - * / and negative -------------------------------------------------------------
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


def _add_n(*xs):
    out = np.add(xs[0], xs[1])   # left to right, into one new array
    if type(out) is not np.ndarray:   # scalars: NumPy gives a NumPy scalar, no array to add into
        for x in xs[2:]:
            out = np.add(out, x)
        return out
    for x in xs[2:]:
        np.add(out, x, out=out)
    return out


def _add_n_jvp(ts, ans, *xs):
    present = [t for t in ts if t is not None]
    out = present[0]
    for t in present[1:]:
        out = add(out, t)
    return out


add_n_op = defop("add_n", _add_n, args="inputs", variadic=True, same_dtype=True,
                 vjp=lambda g, ans, *xs: [g] * len(xs),   # each input gets the whole cotangent
                 jvp=_add_n_jvp)


def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of one shape and dtype (`tf.math.add_n`, also
    `tf.add_n`); no broadcasting, unlike `+`.

    >>> tk.add_n([tk.constant([1.0, 2.0]), tk.constant([3.0, 4.0]), tk.constant([5.0, 6.0])])
    tk.Tensor([ 9. 12.], shape=(2,), dtype=float32)
    """
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else None
    if not inputs:   # TensorFlow's message
        raise ValueError("add_n: inputs must be a list of at least one tensor with the same dtype "
                         "and shape")
    if len(inputs) == 1:   # TensorFlow returns tf.identity(inputs[0])
        return identity(inputs[0])
    shapes = [input_shape(x, "add_n", k) for k, x in enumerate(inputs)]
    check_alike("add_n: inputs must all have the same shape (add_n does not broadcast)", shapes,
                "Give every input one shape first (tk.reshape, tk.broadcast_to), or add the odd "
                "ones separately with + (which broadcasts)")
    return add_n_op(*inputs)


# --- powers, abs and sign ---------------------------------------------------------------
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
abs = unary("abs", np.abs, save="x", ufunc=np.absolute, float_only=False,  # noqa: A001 - tf.abs
            deriv=lambda ans, x: sign(x))             # 0 at 0, as TensorFlow
# sign is flat almost everywhere: its derivative is 0, as in TensorFlow (so abs, whose
# derivative is sign(x), has second derivative 0, not None).
sign = defop("sign", np.sign, ufunc=np.sign,
             vjp=[lambda g, ans, x: zeros_cotangent(g)], jvp=[lambda t, ans, x: zeros_cotangent(t)])


def zeros_cotangent(g):
    """Zeros shaped like the cotangent `g`: the derivative of an op that is flat (sign)."""
    return np.zeros(g.shape, g.dtype)


# --- reciprocal and rsqrt ---------------------------------------------------------------------
# TensorFlow's ReciprocalGrad and RsqrtGrad: from the output alone, and 0 wherever the
# arriving gradient is 0 (at x = 0, where ans is inf, too: zero_where_g_is_zero).
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
