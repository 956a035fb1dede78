"""keras.ops.nn: Keras 3's activations and one_hot (also at keras.ops), on tk.nn's ops.

Keras's defaults differ from TensorFlow's in one place: `gelu(x)` is the tanh approximation
(approximate=True), where tk.nn.gelu's default is the exact form.

    >>> tk.keras.ops.softmax(tk.constant([0.0, 1.0]))
    tk.Tensor([0.2689414 0.7310586], shape=(2,), dtype=float32)
    >>> tk.keras.ops.one_hot(tk.constant([0, 2]), 3)
    tk.Tensor(
    [[1. 0. 0.]
     [0. 0. 1.]], shape=(2, 3), dtype=float32)
"""
import numbers

from ... import ops as tk_ops   # tapekit's op table, by TensorFlow's names (tapekit/ops/)
from ...dtypes import as_dtype
from ...namespaces import missing, public_dir
from .promotion import FLOATX, float_only, to_tensor

__all__ = ["gelu", "one_hot", "relu", "sigmoid", "softmax"]


def relu(x):
    """max(x, 0), in x's dtype (an int tensor stays int)."""
    return tk_ops.relu(to_tensor(x))


def sigmoid(x):
    """1 / (1 + exp(-x)), for a floating x."""
    return tk_ops.sigmoid(float_only(x, "sigmoid"))


def gelu(x, approximate=True):
    """x * P(X <= x) for a standard normal X; Keras's default is the tanh approximation."""
    return tk_ops.gelu(float_only(x, "gelu"), approximate=bool(approximate))


def softmax(x, axis=-1):
    """exp(x) normalised to sum to 1 along `axis` (an int, or a tuple: over those axes
    together)."""
    x = float_only(x, "softmax")
    if isinstance(axis, numbers.Integral):
        return tk_ops.softmax(x, axis=int(axis))
    axes = [int(a) % x.ndim for a in axis]           # over several axes at once: e^(x - max) / sum
    shifted = x - tk_ops.stop_gradient(tk_ops.reduce_max(x, axis=axes, keepdims=True))
    e = tk_ops.exp(shifted)
    return e / tk_ops.reduce_sum(e, axis=axes, keepdims=True)


def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """A new axis of length num_classes with 1 at each index of x (a row of zeros for an
    index outside [0, num_classes)); float32 unless `dtype` is given."""
    if sparse:
        raise ValueError("keras.ops.one_hot: tapekit has no sparse tensors; leave sparse=False")
    return tk_ops.one_hot(x, int(num_classes), axis=int(axis), dtype=as_dtype(dtype) or FLOATX)


__dir__ = public_dir(globals())
__getattr__ = missing(__name__)
