"""keras.ops's math functions (Keras keeps them in keras/src/ops/math.py): top_k.

    >>> values, indices = tk.keras.ops.top_k(tk.constant([3.0, 1.0, 5.0]), 2)
    >>> values, indices
    (tk.Tensor([5. 3.], shape=(2,), dtype=float32), tk.Tensor([2 0], shape=(2,), dtype=int32))
"""
import numpy as np

from ... import ops as tk_ops   # tapekit's op table, by TensorFlow's names (tapekit/ops/)
from ...namespaces import missing, public_dir
from .promotion import INT, to_tensor

__all__ = ["top_k"]


def top_k(x, k, sorted=True):  # noqa: A002 - Keras's name
    """The k largest entries along the last axis and their indices (int32), largest first;
    of equal entries the one with the lower index comes first. The values are differentiable
    in x (each is a gather of x). Keras leaves the order unspecified for sorted=False; tapekit
    gives the sorted order then too."""
    x = to_tensor(x)
    k = int(k)
    n = int(x.shape[-1]) if x.ndim else 0
    if x.ndim == 0 or not 0 <= k <= n:
        raise ValueError(f"keras.ops.top_k: k={k} must lie in [0, {n}], the length of the last "
                         f"axis of x (shape {tuple(x.shape)})")
    if x.dtype == np.bool_:
        raise TypeError("keras.ops.top_k: x is a bool tensor, which Keras 3 refuses too; cast "
                        "it first: top_k(keras.ops.cast(x, 'int32'), k)")
    # a stable sort of -x: the largest first, ties in index order (unsigned values are
    # negated as int64: -x of a uint8 wraps around)
    values = x.numpy()
    key = -values.astype(np.int64) if values.dtype.kind == "u" else -values
    order = np.argsort(key, axis=-1, kind="stable")[..., :k].astype(INT)
    rows = int(np.prod(x.shape[:-1], dtype=np.int64))
    flat = order.reshape(rows, k) + (np.arange(rows, dtype=INT) * n)[:, None]
    values = tk_ops.gather(tk_ops.reshape(x, [-1]), to_tensor(flat.reshape(-1)), axis=0)
    return tk_ops.reshape(values, list(order.shape)), to_tensor(order)


__dir__ = public_dir(globals())
__getattr__ = missing(__name__)
