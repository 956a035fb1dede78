"""The Layer base class, and the helpers every layer shares (names, argument checks).

    layer = tk.layers.Dense(3, activation="relu")
    y = layer(tk.ones((2, 4)))        # builds the kernel (4, 3) and bias (3,) on first call
    layer.trainable_variables         # [kernel, bias], in creation order as in Keras

A layer creates its weights the first time it sees an input (`build`), or at once when
given `input_shape=`. Names follow Keras: `dense`, `dense_1`, ... per process, and the
weights are named `dense/kernel:0`, `dense/bias:0`.
"""
import itertools
import re
from collections import defaultdict

import numpy as np

from ... import dtypes
from ...module import Module
from ...ops import cast
from ...convert import convert_to_tensor
from ...tensor import Tensor, Variable
from ..initializers import _initializer

_name_counters = defaultdict(itertools.count)


def _unique_name(base):
    n = next(_name_counters[base])
    return base if n == 0 else f"{base}_{n}"


def clear_session():
    """Restart layer naming at `dense`, `dense_1`, ... (`tf.keras.backend.clear_session`).

    >>> tk.layers.clear_session()
    >>> tk.layers.Dense(1).name, tk.layers.Dense(1).name
    ('dense', 'dense_1')
    """
    _name_counters.clear()

def _pair(value, what, layer):
    """A positive int or a pair of them, as a pair: kernel_size=3 -> (3, 3).

    0, negative and fractional sizes raise here, naming the layer and the argument, rather
    than as a ZeroDivisionError in the initializer or a truncated 2.5 -> 2.
    """
    items = [value, value] if _is_int(value) else (list(value) if isinstance(value, (list, tuple)) else None)
    if items is None or len(items) != 2 or not all(_is_int(v) and v > 0 for v in items):
        raise ValueError(f"{layer}: {what} must be a positive integer or a pair of positive "
                         f"integers, got {value!r}")
    return tuple(int(v) for v in items)


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _positive_int(value, what, layer):
    if not _is_int(value) or value <= 0:
        raise ValueError(f"{layer}: {what} must be a positive integer, got {value!r}")
    return int(value)

# --- the base class -----------------------------------------------------------------------
def _layer_name(cls_name):
    """Keras's default layer name: Dense -> dense, Conv2D -> conv2d, MaxPooling2D -> max_pooling2d."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", cls_name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


class Layer(Module):
    """Base class: subclasses implement `build(input_shape)` and `call(x, training=None)`.

    >>> class Scale(tk.layers.Layer):
    ...     def build(self, input_shape):
    ...         self.s = tk.Variable(tk.ones(input_shape[-1:]), name="s")
    ...     def call(self, x, training=None):
    ...         return x * self.s
    >>> layer = Scale()
    >>> layer(tk.constant([[1.0, 2.0]]))            # built on the first call
    tk.Tensor([[1. 2.]], shape=(1, 2), dtype=float32)
    >>> [v.name for v in layer.trainable_variables]
    ['s:0']
    """

    _sorted_attributes = False   # weights in creation order (kernel, then bias), as Keras
    # The input ranks a layer takes (Keras's InputSpec): Dense needs (batch, features).
    min_ndim = None
    ndim = None

    def __init__(self, name=None, input_shape=None, dtype=dtypes.float32, trainable=True):
        super().__init__(name=name or _unique_name(_layer_name(type(self).__name__)))
        self.dtype = dtypes.as_dtype(dtype)
        self.trainable = trainable
        self.built = False
        self.input_shape = None if input_shape is None else (None,) + tuple(input_shape)
        if self.input_shape is not None:
            self._maybe_build(self.input_shape)

    def add_weight(self, name, shape, initializer="zeros", trainable=True):
        """Create a Variable named `<layer>/<name>` and keep it as attribute `name`."""
        value = _initializer(initializer)(tuple(shape), self.dtype)
        var = Variable(value, trainable=trainable and self.trainable, dtype=self.dtype,
                       name=f"{self.name}/{name}")
        setattr(self, name, var)
        return var

    def build(self, input_shape):
        pass

    def call(self, x, training=None):
        raise NotImplementedError(f"{type(self).__name__} must implement call(x, training=None)")

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def _check_rank(self, shape):
        n = len(shape)
        if (self.ndim is not None and n != self.ndim) or (self.min_ndim is not None and n < self.min_ndim):
            expected = f"ndim={self.ndim}" if self.ndim is not None else f"min_ndim={self.min_ndim}"
            raise ValueError(f"Input 0 of layer {self.name!r} ({type(self).__name__}) is "
                             f"incompatible with the layer: expected {expected}, found ndim={n}. "
                             f"Full shape received: {tuple(shape)}"
                             + (". Add a batch axis, e.g. x[None] or tk.reshape(x, (1, -1))"
                                if n == (self.ndim or self.min_ndim) - 1 else ""))

    def _maybe_build(self, input_shape):
        if not self.built:
            self._check_rank(input_shape)
            self.input_shape = (None,) + tuple(input_shape[1:])
            self.build(self.input_shape)
            self.built = True

    def __call__(self, x, training=None):
        if not isinstance(x, Tensor):
            x = convert_to_tensor(x, dtype=self.dtype if np.asarray(x).dtype.kind == "f" else None)
        elif x.dtype.kind == "f" and x.dtype != self.dtype:
            x = cast(x, self.dtype)  # Keras casts float inputs to the layer's dtype
        if self.built:
            self._check_rank(x.shape)
        self._maybe_build(x.shape)
        return self.call(x, training=training)

    def count_params(self):
        if not self.built:
            raise ValueError(f"layer {self.name!r} is not built yet: call it on an input, or "
                             f"give input_shape=, to create its weights")
        return super().count_params()

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r}{'' if self.built else ' (not built)'}>"
