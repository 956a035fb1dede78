"""Reductions over axes: sum, mean, max, min, prod; any and all (of bools).

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

>>> b = tk.constant([[True, False], [False, False]])
>>> tk.reduce_any(b, axis=1)
tk.Tensor([ True False], shape=(2,), dtype=bool)
>>> tk.reduce_all(tk.constant([[True, False], [True, True]]), axis=0, keepdims=True)
tk.Tensor([[ True False]], shape=(1, 2), dtype=bool)
"""
import math

import numpy as np

from ..errors import InvalidArgumentError
from ..tensor import Tensor
from .passthrough import cast_op
from .inputs import as_axis, python_value
from .registry import defop, numpy_function
from .selection import where
from .shapes import broadcast_to_op as broadcast_to
from .shapes import expand_dims_op, reshape_op, transpose_op


def reduction_axes(axis, ndim, op="reduction"):
    """`axis` as a sorted tuple of negative axes (None: all axes)."""
    if axis is None:
        return tuple(range(-ndim, 0))
    axis = python_value(axis)
    axes = np.atleast_1d(np.asarray(axis)).tolist()
    out = set()
    for a in axes:
        a = as_axis(a, ndim, f"{op}: axis")   # 1.7 raises (int() would truncate it)
        a = a - ndim if a >= 0 else a
        if a in out:   # TensorFlow refuses it; NumPy too, with a less clear message
            raise InvalidArgumentError(
                f"{op}: axis {list(axes)} names axis {a + ndim} twice (for a tensor of rank "
                f"{ndim}); give each axis once, e.g. axis={sorted(set(x % ndim for x in axes))}")
        out.add(a)
    return tuple(sorted(out))


def expand_back(g, ans, x, axis, keepdims):
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
    g = expand_back(g, ans, x, axis, keepdims)
    return broadcast_to(g, shape=tuple(g.shape[: g.ndim - x.ndim]) + tuple(x.shape))


# The forwards call the ufuncs' reduce directly: np.sum and friends are that call behind a
# Python layer (about 1.5 us each), with the same results for every dtype.
# Integer sums and products keep their dtype (int32 stays int32, as TensorFlow); NumPy would
# widen them to int64.
def _int_kept(x):
    # np.int32(3) too: a full reduction (reduce_max of an int32 tensor) leaves a NumPy scalar
    return x.dtype if isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind in "iu" else None


reduce_sum_op = defop("reduce_sum", lambda x, axis, keepdims: np.add.reduce(x, axis=axis, keepdims=keepdims,
                                                                           dtype=_int_kept(x)),
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
    if _int_kept(x) is not None:   # TensorFlow's integer mean: sum / n, truncated toward zero
        total = np.add.reduce(x, axis=axis, keepdims=keepdims, dtype=np.int64)
        n = max(_count(x, axis), 1)
        return (np.sign(total) * (np.abs(total) // n)).astype(x.dtype)
    return np.mean(x, axis=axis, keepdims=keepdims)


reduce_mean_op = defop(
    "reduce_mean", _mean,
    vjp=[lambda g, ans, x, axis, keepdims: _sum_vjp(g / _count(x, axis), ans, x, axis, keepdims)],
    jvp=[lambda t, ans, x, axis, keepdims: reduce_mean_op(t, axis=axis, keepdims=keepdims)])


def _share(ans, x, axis, keepdims, like):
    """1/k on each of the k tied extreme elements of a group, 0 elsewhere (TensorFlow's rule)."""
    a = ans if keepdims else expand_back(ans, ans, x, axis, False)
    m = cast_like(x == a, like)
    return m / reduce_sum_op(m, axis=axis, keepdims=True)


def _extreme_vjp(g, ans, x, axis, keepdims):
    return expand_back(g, ans, x, axis, keepdims) * _share(ans, x, axis, keepdims, g)


def _extreme_jvp(t, ans, x, axis, keepdims):
    return reduce_sum_op(t * _share(ans, x, axis, keepdims, t), axis=axis, keepdims=keepdims)


def cast_like(x, like):
    return cast_op(x, dtype=like.dtype)


def _extreme(ufunc, lowest):
    """max (lowest=True) or min over axes; over an empty set, TensorFlow's identity: -inf
    (the lowest integer) for max, inf (the highest) for min, where NumPy raises."""
    def forward(x, axis, keepdims):
        if x.size:
            return ufunc.reduce(x, axis=axis, keepdims=keepdims)
        dt = x.dtype
        if dt.kind == "f":
            start = -np.inf if lowest else np.inf
        elif dt.kind == "b":
            start = not lowest
        else:
            start = np.iinfo(dt).min if lowest else np.iinfo(dt).max
        return ufunc.reduce(x, axis=axis, keepdims=keepdims, initial=start)
    return forward


reduce_max_op = defop("reduce_max", _extreme(np.maximum, True),
                      save="x ans", vjp=[_extreme_vjp], jvp=[_extreme_jvp])
reduce_min_op = defop("reduce_min", _extreme(np.minimum, False),
                      save="x ans", vjp=[_extreme_vjp], jvp=[_extreme_jvp])


def _prod_others_last(x):
    """For each element, the product of the other elements along the last axis (zero-safe):
    the product of those before it (an exclusive cumprod from the left) times those after."""
    if x.shape[-1] == 0:   # an empty group: no elements, no products (not one 1)
        return np.empty(x.shape, x.dtype)
    ones = np.ones(x.shape[:-1] + (1,), dtype=x.dtype)
    left = np.cumprod(np.concatenate([ones, x[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, x[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return left * right


def _prod_others_vjp(g, ans, x):
    # d ans_i / d x_j = product over k != i, j (0 on the diagonal); symmetric in i and j. Row j
    # of xj is x with x_j replaced by 1, so prod_others(xj)[j, i] is that product for i != j
    # and ans_j for i = j. No division: exact where an x is 0 (x_j / x_j would be NaN). It
    # takes n * n numbers per group; only second derivatives of reduce_prod get here.
    n = x.shape[-1]
    xj = where(np.eye(n, dtype=bool), 1, expand_dims_op(x, axis=-2))
    both = prod_others(xj)
    return reduce_sum_op(expand_dims_op(g, axis=-2) * both, axis=(-1,), keepdims=False) - g * ans


prod_others = defop("prod_others", _prod_others_last, save="x ans", vjp=[_prod_others_vjp],
                    jvp=[_prod_others_vjp],   # the Jacobian is symmetric: the same product
                    doc="Product of the other elements along the last axis (for reduce_prod's rule).")


def _others(x, axis):
    """prod_others over the reduction group `axis` (negative axes): the group is moved last
    and flattened, then put back; with tapekit ops, so higher derivatives pass through."""
    nd, k = x.ndim, len(axis)
    perm = None
    if axis != tuple(range(-k, 0)):
        kept = [a for a in range(-nd, 0) if a not in axis]
        perm = tuple(a + nd for a in kept + list(axis))
        x = transpose_op(x, perm=perm)
    shape = tuple(x.shape)
    if k != 1:
        x = reshape_op(x, shape=shape[:nd - k] + (math.prod(shape[nd - k:]),))
    out = prod_others(x)
    if k != 1:
        out = reshape_op(out, shape=shape)
    if perm is not None:
        out = transpose_op(out, perm=tuple(np.argsort(perm).tolist()))
    return out


reduce_prod_op = defop(
    "reduce_prod", lambda x, axis, keepdims: np.multiply.reduce(x, axis=axis, keepdims=keepdims,
                                                                dtype=_int_kept(x)),
    save="x",
    vjp=[lambda g, ans, x, axis, keepdims: expand_back(g, ans, x, axis, keepdims) * _others(x, axis)],
    jvp=[lambda t, ans, x, axis, keepdims: reduce_sum_op(t * _others(x, axis), axis=axis,
                                                         keepdims=keepdims)])


def _reduction(op, np_func):
    def reduce(input_tensor, axis=None, keepdims=False, name=None):
        x = input_tensor
        ndim = x._value.ndim if isinstance(x, Tensor) else np.ndim(x)
        return op(x, axis=reduction_axes(axis, ndim, op.name), keepdims=bool(keepdims))
    reduce.__name__ = op.name
    reduce.__doc__ = f"{op.name.replace('reduce_', '').capitalize()} over `axis` (all axes when None)."
    numpy_function(*np_func)(reduce)
    return reduce


reduce_sum = _reduction(reduce_sum_op, (np.sum,))
reduce_mean = _reduction(reduce_mean_op, (np.mean,))
reduce_max = _reduction(reduce_max_op, (np.max, np.amax))
reduce_min = _reduction(reduce_min_op, (np.min, np.amin))
reduce_prod = _reduction(reduce_prod_op, (np.prod,))


# any and all: bools in, bools out; no gradient (TensorFlow registers none for Any and All).
reduce_any_op = defop("reduce_any", lambda x, axis, keepdims: np.logical_or.reduce(x, axis=axis,
                                                                                  keepdims=keepdims))
reduce_all_op = defop("reduce_all", lambda x, axis, keepdims: np.logical_and.reduce(x, axis=axis,
                                                                                   keepdims=keepdims))


def _bool_reduction(op, word):
    def reduce(input_tensor, axis=None, keepdims=False, name=None):
        x = input_tensor
        value = x._value if isinstance(x, Tensor) else np.asarray(x)
        if value.dtype != np.bool_:   # TensorFlow refuses: "expected to be a bool tensor"
            raise InvalidArgumentError(
                f"{op.name}: input_tensor must be a bool tensor, got dtype {value.dtype.name}; "
                f"compare first, e.g. tk.{op.name}(x > 0), or cast: tk.cast(x, tk.bool)")
        return op(x, axis=reduction_axes(axis, value.ndim, op.name), keepdims=bool(keepdims))
    reduce.__name__ = op.name
    reduce.__doc__ = f"""True where {word} element over `axis` (all axes when None) is True; bools only.

    >>> tk.{op.name}(tk.constant([True, False]))
    tk.Tensor({"False" if op.name == "reduce_all" else "True"}, shape=(), dtype=bool)
    """
    return reduce


reduce_any = _bool_reduction(reduce_any_op, "any")
reduce_all = _bool_reduction(reduce_all_op, "every")
