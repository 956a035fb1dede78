"""Running sums and products along one axis: cumsum and cumprod (`tf.math.cumsum`,
`tf.math.cumprod`), with TensorFlow's `exclusive` (start from 0 or 1, leave the element
itself out) and `reverse` (run from the end of the axis).

cumsum's gradient is a cumsum running the other way. cumprod's gradient is exact where an
input is 0: element j of y = cumprod(x) has d y_i / d x_j = the product of the other factors
of y_i, computed as the cumprod of x with x_j replaced by 1 (n * n numbers for an axis of n).
TensorFlow 2.21 divides by x instead (with div_no_nan), so its gradient is 0 at a zero input
where the true one is not: here tapekit gives the derivative, not TensorFlow's number.

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.cumsum(tk.constant([1.0, 2.0, 3.0, 4.0]))
tk.Tensor([ 1.  3.  6. 10.], shape=(4,), dtype=float32)
>>> tk.cumsum(tk.constant([1.0, 2.0, 3.0, 4.0]), exclusive=True)
tk.Tensor([0. 1. 3. 6.], shape=(4,), dtype=float32)
>>> tk.cumsum(tk.constant([1.0, 2.0, 3.0, 4.0]), reverse=True)
tk.Tensor([10.  9.  7.  4.], shape=(4,), dtype=float32)
>>> tk.cumsum(tk.constant([[1, 2, 3], [4, 5, 6]]), axis=1)
tk.Tensor(
[[ 1  3  6]
 [ 4  9 15]], shape=(2, 3), dtype=int32)

>>> tk.math.cumprod(tk.constant([1.0, 2.0, 3.0, 4.0]))
tk.Tensor([ 1.  2.  6. 24.], shape=(4,), dtype=float32)
>>> tk.math.cumprod(tk.constant([1.0, 2.0, 3.0, 4.0]), exclusive=True, reverse=True)
tk.Tensor([24. 12.  4.  1.], shape=(4,), dtype=float32)

>>> w = tk.Variable([2.0, 0.0, 3.0])
>>> with tk.GradientTape() as tape:
...     y = tk.reduce_sum(tk.math.cumprod(w))     # 2 + 2*w1 + 2*w1*3
>>> tape.gradient(y, w)                            # exact at the zero (TensorFlow gives 0 there)
tk.Tensor([1. 8. 0.], shape=(3,), dtype=float32)
"""
import numpy as np

from ..errors import InvalidArgumentError
from ..tensor import Tensor
from .indexing import ndim_of
from .reductions import reduce_sum_op
from .inputs import as_axis
from .registry import defop
from .selection import where
from .shapes import expand_dims_op, transpose_op


def _accumulate(ufunc, identity):
    """The forward of cumsum (np.add, 0) or cumprod (np.multiply, 1) along `axis`."""
    def forward(x, axis, exclusive, reverse):
        x = np.asarray(x)
        if reverse:
            x = np.flip(x, axis)
        out = ufunc.accumulate(x, axis=axis, dtype=x.dtype)   # int32 stays int32, as in TF
        if exclusive and x.shape[axis]:
            # shifted one place: the identity first, the last running value dropped
            first = [slice(None)] * x.ndim
            first[axis] = slice(0, 1)
            head = np.full(x[tuple(first)].shape, identity, x.dtype)
            first[axis] = slice(0, -1)
            out = np.concatenate([head, out[tuple(first)]], axis=axis)
        return np.flip(out, axis) if reverse else out
    return forward


def _cumsum_vjp(g, ans, x, axis, exclusive, reverse):
    # y_i sums x_j for j up to i (or past i): x_j's cotangent sums g_i over those i
    return cumsum_op(g, axis=axis, exclusive=exclusive, reverse=not reverse)


cumsum_op = defop("cumsum", _accumulate(np.add, 0), same_dtype=True, vjp=[_cumsum_vjp],
                  jvp=[lambda t, ans, x, axis, exclusive, reverse:
                       cumsum_op(t, axis=axis, exclusive=exclusive, reverse=reverse)])


def _swap_last(v, axis):
    """`v` with (negative) `axis` and the last axis swapped; the swap undoes itself."""
    if axis == -1:
        return v
    perm = list(range(v.ndim))
    perm[v.ndim + axis], perm[-1] = perm[-1], perm[v.ndim + axis]
    return transpose_op(v, perm=tuple(perm))


def _cumprod_partials(x, exclusive, reverse):
    """d[..., j, i] = d cumprod(x)_i / d x_j along the last axis, exact where an x is 0.

    Row j is the cumprod of x with x_j replaced by 1: at i it is the product of y_i's factors
    other than x_j, where x_j is one of them; elsewhere the entry is 0. No division."""
    n = x.shape[-1]
    xj = where(np.eye(n, dtype=bool), 1, expand_dims_op(x, axis=-2))
    j, i = np.indices((n, n))
    if reverse:
        uses = j > i if exclusive else j >= i
    else:
        uses = j < i if exclusive else j <= i
    return where(uses, cumprod_op(xj, axis=-1, exclusive=exclusive, reverse=reverse), 0)


def _cumprod_vjp(g, ans, x, axis, exclusive, reverse):
    d = _cumprod_partials(_swap_last(x, axis), exclusive, reverse)
    g = expand_dims_op(_swap_last(g, axis), axis=-2)        # leading batch axes broadcast
    return _swap_last(reduce_sum_op(g * d, axis=(-1,), keepdims=False), axis)


def _cumprod_jvp(t, ans, x, axis, exclusive, reverse):
    d = _cumprod_partials(_swap_last(x, axis), exclusive, reverse)
    t = expand_dims_op(_swap_last(t, axis), axis=-1)
    return _swap_last(reduce_sum_op(t * d, axis=(-2,), keepdims=False), axis)


cumprod_op = defop("cumprod", _accumulate(np.multiply, 1), save="x", same_dtype=True,
                   vjp=[_cumprod_vjp], jvp=[_cumprod_jvp])


def _cumulative(op, x, axis, exclusive, reverse):
    ndim = ndim_of(x)
    if ndim == 0:   # TensorFlow: "input must be at least 1-D"
        raise InvalidArgumentError(f"{op.name}: x must be at least 1-D (it runs along an axis), "
                                   f"got a scalar; wrap it: tk.{op.name}([x])")
    if (x._value if isinstance(x, Tensor) else np.asarray(x)).dtype == np.bool_:
        raise InvalidArgumentError(f"{op.name}: x must be numbers, got bools (TensorFlow refuses "
                                   f"them too); count with tk.{op.name}(tk.cast(x, tk.int32))")
    axis = as_axis(axis, ndim, f"{op.name}: axis")
    return op(x, axis=axis - ndim if axis >= 0 else axis, exclusive=bool(exclusive),
              reverse=bool(reverse))


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running sum of `x` along `axis` (`tf.math.cumsum`, also `tf.cumsum`).

    `exclusive=True` leaves each element out of its own sum (the first is 0);
    `reverse=True` sums from the end of the axis.

    >>> tk.cumsum([1, 2, 3], exclusive=True)
    tk.Tensor([0 1 3], shape=(3,), dtype=int32)
    """
    return _cumulative(cumsum_op, x, axis, exclusive, reverse)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Running product of `x` along `axis` (`tf.math.cumprod`).

    `exclusive=True` leaves each element out of its own product (the first is 1);
    `reverse=True` multiplies from the end of the axis.

    >>> tk.math.cumprod(tk.constant([[1.0, 2.0], [3.0, 4.0]]), axis=1)
    tk.Tensor(
    [[ 1.  2.]
     [ 3. 12.]], shape=(2, 2), dtype=float32)
    """
    return _cumulative(cumprod_op, x, axis, exclusive, reverse)
