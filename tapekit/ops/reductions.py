"""Reductions over axes: sum, mean, max, min, prod.

Axes are normalised at call time to a tuple of negative numbers, so the rules
work unchanged when the cotangent carries leading batch axes.

Examples (an object's reference entry shows the paragraphs that name it):

>>> x = tk.constant([[1.0, 2.0], [3.0, 4.0]])
>>> tk.reduce_sum(x)
tk.Tensor(10.0, shape=(), dtype=float32)
>>> tk.reduce_sum(x, axis=0)
tk.Tensor([4. 6.], shape=(2,), dtype=float32)
>>> tk.reduce_sum(x, axis=1, keepdims=True)
tk.Tensor(
[[3.]
 [7.]], shape=(2, 1), dtype=float32)

>>> x = tk.constant([[1.0, 2.0], [3.0, 4.0]])
>>> tk.reduce_mean(x)
tk.Tensor(2.5, shape=(), dtype=float32)
>>> tk.reduce_mean(x, axis=1)
tk.Tensor([1.5 3.5], shape=(2,), dtype=float32)

>>> w = tk.Variable([1.0, 2.0, 3.0, 4.0])
>>> with tk.GradientTape() as tape:
...     y = tk.reduce_mean(w)
>>> tape.gradient(y, w)                # 1/n for each element
tk.Tensor([0.25 0.25 0.25 0.25], shape=(4,), dtype=float32)

>>> x = tk.constant([[1.0, 5.0], [3.0, 4.0]])
>>> tk.reduce_max(x)
tk.Tensor(5.0, shape=(), dtype=float32)
>>> tk.reduce_max(x, axis=0)
tk.Tensor([3. 5.], shape=(2,), dtype=float32)

>>> w = tk.Variable([1.0, 5.0, 5.0])
>>> with tk.GradientTape() as tape:
...     y = tk.reduce_max(w)
>>> tape.gradient(y, w)                # ties share the gradient, as in TensorFlow
tk.Tensor([0.  0.5 0.5], shape=(3,), dtype=float32)

>>> tk.reduce_min(tk.constant([[1.0, 5.0], [3.0, 4.0]]), axis=1)
tk.Tensor([1. 3.], shape=(2,), dtype=float32)

>>> tk.reduce_prod(tk.constant([1.0, 2.0, 3.0, 4.0]))
tk.Tensor(24.0, shape=(), dtype=float32)

>>> w = tk.Variable([2.0, 3.0, 4.0])
>>> with tk.GradientTape() as tape:
...     y = tk.reduce_prod(w)
>>> tape.gradient(y, w)                # the product of the other elements
tk.Tensor([12.  8.  6.], shape=(3,), dtype=float32)
"""
import math

import numpy as np

from ..tensor import Tensor
from .registry import defop, numpy_function
from .shapes import broadcast_to, reshape_op


def _axes(axis, ndim):
    """`axis` as a sorted tuple of negative axes (None: all axes)."""
    if axis is None:
        return tuple(range(-ndim, 0))
    if hasattr(axis, "_value"):
        axis = axis._value
    axes = np.atleast_1d(np.asarray(axis)).tolist()
    out = set()
    for a in axes:
        a = int(a)
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"axis {a} is out of range for a tensor of rank {ndim}")
        out.add(a - ndim if a >= 0 else a)
    return tuple(sorted(out))


def _expand_back(g, ans, x, axis, keepdims):
    """Broadcast a reduced cotangent back over the reduced axes of x."""
    if not keepdims:
        nlead = g.ndim - ans.ndim
        shape = list(g.shape)
        full = list(g.shape[:nlead]) + [1 if (k - x.ndim) in axis else n
                                        for k, n in enumerate(x.shape)]
        g = reshape_op(g, shape=tuple(full)) if full != shape else g
    return g


def _sum_vjp(g, ans, x, axis, keepdims):
    if g.ndim == 0:   # a full reduction, no batch of cotangents: () broadcasts to any shape
        return broadcast_to(g, shape=tuple(x.shape))
    g = _expand_back(g, ans, x, axis, keepdims)
    return broadcast_to(g, shape=tuple(g.shape[: g.ndim - x.ndim]) + tuple(x.shape))


# The forwards call the ufuncs' reduce directly: np.sum and friends are that call behind a
# Python layer (about 1.5 us each), with the same results for every dtype.
reduce_sum_op = defop("reduce_sum", lambda x, axis, keepdims: np.add.reduce(x, axis=axis, keepdims=keepdims),
                      vjp=[_sum_vjp],
                      jvp=[lambda t, ans, x, axis, keepdims: reduce_sum_op(t, axis=axis, keepdims=keepdims)])


def _count(x, axis):
    return math.prod(map(x.shape.__getitem__, axis))


def _mean(x, axis, keepdims):
    # np.mean's numbers without its Python layer (5 us of 6 on small arrays): the float32 or
    # float64 sum divided by the count. np.mean divides in float64 and rounds back, which
    # gives the same float32 quotient. Other dtypes keep np.mean (float16 sums in float32).
    if type(x) is np.ndarray and x.dtype.char in "fd":  # float32, float64
        return np.add.reduce(x, axis=axis, keepdims=keepdims) / _count(x, axis)
    return np.mean(x, axis=axis, keepdims=keepdims)


reduce_mean_op = defop(
    "reduce_mean", _mean,
    vjp=[lambda g, ans, x, axis, keepdims: _sum_vjp(g / _count(x, axis), ans, x, axis, keepdims)],
    jvp=[lambda t, ans, x, axis, keepdims: reduce_mean_op(t, axis=axis, keepdims=keepdims)])


def _share(ans, x, axis, keepdims, like):
    """1/k on each of the k tied extreme elements of a group, 0 elsewhere (TensorFlow's rule)."""
    a = ans if keepdims else _expand_back(ans, ans, x, axis, False)
    m = cast_like(x == a, like)
    return m / reduce_sum_op(m, axis=axis, keepdims=True)


def _extreme_vjp(g, ans, x, axis, keepdims):
    return _expand_back(g, ans, x, axis, keepdims) * _share(ans, x, axis, keepdims, g)


def _extreme_jvp(t, ans, x, axis, keepdims):
    return reduce_sum_op(t * _share(ans, x, axis, keepdims, t), axis=axis, keepdims=keepdims)


def cast_like(x, like):
    from .elementwise import cast_op
    return cast_op(x, dtype=like.dtype)


reduce_max_op = defop("reduce_max", lambda x, axis, keepdims: np.maximum.reduce(x, axis=axis, keepdims=keepdims),
                      save="x ans", vjp=[_extreme_vjp], jvp=[_extreme_jvp])
reduce_min_op = defop("reduce_min", lambda x, axis, keepdims: np.minimum.reduce(x, axis=axis, keepdims=keepdims),
                      save="x ans", vjp=[_extreme_vjp], jvp=[_extreme_jvp])


def _prod_others(x, axis):
    """For each element, the product of the other elements in its reduction group (zero-safe)."""
    moved = np.moveaxis(x, axis, tuple(range(x.ndim - len(axis), x.ndim)))
    flat = moved.reshape(moved.shape[: moved.ndim - len(axis)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), dtype=x.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    out = (left * right).reshape(moved.shape)
    return np.moveaxis(out, tuple(range(x.ndim - len(axis), x.ndim)), axis)


def _prod_others_vjp(g, ans, x, axis):
    # d others_i / d x_j = prod over k != i, j: written as others_i / x_j (valid where x_j != 0).
    return reduce_sum_op(g * ans, axis=axis, keepdims=True) / x - g * ans / x


prod_others = defop("prod_others", _prod_others, save="x ans", vjp=[_prod_others_vjp],
                    jvp=[lambda t, ans, x, axis: reduce_sum_op(t * ans, axis=axis, keepdims=True) / x
                         - t * ans / x],
                    doc="Product of the other elements of each reduction group (for reduce_prod's rule).")

reduce_prod_op = defop(
    "reduce_prod", lambda x, axis, keepdims: np.multiply.reduce(x, axis=axis, keepdims=keepdims),
    save="x",
    vjp=[lambda g, ans, x, axis, keepdims: _expand_back(g, ans, x, axis, keepdims)
         * prod_others(x, axis=axis)],
    jvp=[lambda t, ans, x, axis, keepdims: reduce_sum_op(t * prod_others(x, axis=axis), axis=axis,
                                                         keepdims=keepdims)])


def _reduction(op, np_func):
    def reduce(input_tensor, axis=None, keepdims=False, name=None):
        x = input_tensor
        ndim = x._value.ndim if isinstance(x, Tensor) else np.ndim(x)
        return op(x, axis=_axes(axis, ndim), keepdims=bool(keepdims))
    reduce.__name__ = op.name
    reduce.__doc__ = f"{op.name.replace('reduce_', '').capitalize()} over `axis` (all axes when None)."
    numpy_function(*np_func)(reduce)
    return reduce


reduce_sum = _reduction(reduce_sum_op, (np.sum,))
reduce_mean = _reduction(reduce_mean_op, (np.mean,))
reduce_max = _reduction(reduce_max_op, (np.max, np.amax))
reduce_min = _reduction(reduce_min_op, (np.min, np.amin))
reduce_prod = _reduction(reduce_prod_op, (np.prod,))
