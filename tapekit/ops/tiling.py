"""tile: a tensor repeated whole along each axis (`tf.tile`); its gradient sums the copies.

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
from .indexing import ndim_of
from .reductions import reduce_sum_op
from .inputs import as_int, python_value
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
