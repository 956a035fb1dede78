"""tile: a tensor repeated whole along each axis (`tf.tile`); its gradient sums the copies.
repeat (each element repeated in place, `tf.repeat`) and roll (elements shifted around an
axis, `tf.roll`) are gathers along one axis, so their gradients are gather's: the copies
summed, or the shift undone.

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.tile(tk.constant([[1, 2], [3, 4]]), [1, 2])
tk.Tensor(
[[1 2 1 2]
 [3 4 3 4]], shape=(2, 4), dtype=int32)

>>> w = tk.Variable([1.0, 2.0])
>>> with tk.GradientTape() as tape:
...     y = tk.reduce_sum(tk.tile(w, [3]) * tk.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
>>> tape.gradient(y, w)                # each element's three copies: 1+3+5 and 2+4+6
tk.Tensor([ 9. 12.], shape=(2,), dtype=float32)
"""
import numpy as np

from ..errors import InvalidArgumentError
from .conversion import convert_to_tensor
from .indexing import gather_op, ndim_of
from .reductions import reduce_sum_op
from .inputs import as_axis, as_int, python_value
from .registry import defop
from .shapes import reshape_op


def _tile_vjp(g, ans, x, multiples):
    # Axis k of g, of size m_k * n_k, split as (m_k, n_k): copy number, then position; the
    # copies are summed. Leading batch axes of g (a jacobian) are kept as they are.
    k = len(multiples)
    split = tuple(g.shape[:g.ndim - k])
    for m, n in zip(multiples, x.shape):
        split += (m, n)
    return reduce_sum_op(reshape_op(g, shape=split), axis=tuple(range(-2 * k, 0, 2)), keepdims=False)


tile_op = defop("tile", lambda x, multiples: np.tile(x, multiples), vjp=[_tile_vjp],
                jvp=[lambda t, ans, x, multiples: tile_op(t, multiples=multiples)])


def tile(input, multiples, name=None):  # noqa: A002 - TensorFlow's argument name
    """`input` repeated `multiples[k]` times along axis k (`tf.tile`): one multiple per axis.

    >>> tk.tile(tk.constant([1.0, 2.0]), [3])
    tk.Tensor([1. 2. 1. 2. 1. 2.], shape=(6,), dtype=float32)
    """
    ndim = ndim_of(input)
    reps = np.asarray(python_value(multiples))
    if reps.ndim != 1 or reps.size != ndim:
        # TensorFlow: "Expected multiples argument to be a vector of length 2 but got length 3"
        raise InvalidArgumentError(
            f"tile: multiples must give one count per axis of the input (a vector of length "
            f"{ndim}), got {reps.tolist()}; tk.broadcast_to or tk.expand_dims add axes first")
    reps = tuple(as_int(m, "tile: multiples") for m in reps.reshape(-1).tolist()) if reps.size else ()
    if any(m < 0 for m in reps):
        raise InvalidArgumentError(f"tile: multiples must be >= 0, got {list(reps)}")
    return tile_op(input, multiples=reps)


# --- repeat and roll: one gather per axis ------------------------------------------------------
def _as_tensor(x):
    return x if hasattr(x, "_value") else convert_to_tensor(x)


def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TensorFlow's argument name
    """Each element (each slice along `axis`) repeated in place (`tf.repeat`): `repeats` is one
    count for all, or one per slice. Without `axis` the input is flattened first. The gradient
    sums each element's copies.

    >>> tk.repeat(tk.constant([[1, 2], [3, 4]]), 2)
    tk.Tensor([1 1 2 2 3 3 4 4], shape=(8,), dtype=int32)
    >>> tk.repeat(tk.constant([[1, 2], [3, 4]]), [1, 2], axis=0)
    tk.Tensor(
    [[1 2]
     [3 4]
     [3 4]], shape=(3, 2), dtype=int32)
    """
    x = _as_tensor(input)
    if axis is None or x.ndim == 0:
        x = reshape_op(x, shape=(-1,))
        axis = 0 if axis is None else as_int(axis, "repeat: axis")
        if axis not in (0, -1):
            raise InvalidArgumentError(f"repeat: axis {axis} is out of range for a scalar "
                                       f"(repeated as a vector: axis 0)")
    axis = as_axis(axis, x.ndim, "repeat: axis") % x.ndim
    n = int(x.shape[axis])
    counts = np.asarray(python_value(repeats))
    if counts.dtype.kind not in "iu" and counts.size:
        raise TypeError(f"repeat: repeats must be integers, got dtype {counts.dtype.name}")
    if counts.ndim > 1 or (counts.ndim == 1 and counts.size not in (1, n)):
        # TensorFlow: ValueError "Dimensions 2 and 3 are not compatible"
        raise ValueError(f"repeat: repeats must be one count or one count per slice along "
                         f"axis {axis} ({n} of them), got {counts.tolist()}")
    if (counts < 0).any():
        raise InvalidArgumentError(f"repeat: repeats must be >= 0, got {counts.tolist()}")
    indices = np.repeat(np.arange(n, dtype=np.int64), np.broadcast_to(counts.reshape(-1), (n,)))
    return gather_op(x, indices, axis=axis)


def roll(input, shift, axis, name=None):  # noqa: A002 - TensorFlow's argument name
    """The elements shifted `shift` places along `axis`, those pushed off one end coming back
    at the other (`tf.roll`). `shift` and `axis` are one number each or lists of the same
    length; an axis named twice is shifted by the sum. The gradient shifts back.

    >>> tk.roll(tk.constant([0, 1, 2, 3, 4]), shift=2, axis=0)
    tk.Tensor([3 4 0 1 2], shape=(5,), dtype=int32)
    >>> tk.roll(tk.constant([[0, 1, 2], [3, 4, 5]]), shift=[1, -1], axis=[0, 1])
    tk.Tensor(
    [[4 5 3]
     [1 2 0]], shape=(2, 3), dtype=int32)
    """
    x = _as_tensor(input)
    shifts = np.asarray(python_value(shift)).reshape(-1)
    axes = np.asarray(python_value(axis)).reshape(-1)
    if np.ndim(python_value(shift)) > 1 or np.ndim(python_value(axis)) > 1 or shifts.size != axes.size:
        raise InvalidArgumentError(f"roll: shift and axis must have the same size (one shift "
                                   f"per axis), got shift={shifts.tolist()} and axis={axes.tolist()}")
    total = {}
    for s, a in zip(shifts.tolist(), axes.tolist()):
        a = as_axis(a, x.ndim, "roll: axis") % max(x.ndim, 1)
        total[a] = total.get(a, 0) + as_int(s, "roll: shift")
    out = x
    for a, s in sorted(total.items()):
        n = int(x.shape[a])
        if n and s % n:
            out = gather_op(out, (np.arange(n, dtype=np.int64) - s) % n, axis=a)
    return out if out is not x else reshape_op(x, shape=tuple(x.shape))   # a new tensor, as TF's
