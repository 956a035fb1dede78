"""Dense, Flatten and Dropout."""
import math

import numpy as np

from ... import random
from ...ops import cast, matmul, reshape
from ..activations import get_activation
from ._utils import _positive_int
from .base import Layer


class Dense(Layer):
    """`activation(x @ kernel + bias)`; kernel Glorot-uniform, bias zeros (`tf.keras.layers.Dense`).

    >>> tk.random.set_seed(0)
    >>> layer = tk.layers.Dense(2, activation="relu", kernel_initializer="ones")
    >>> layer(tk.constant([[1.0, 3.0]]))           # relu([1 + 3, 1 + 3] + bias 0)
    tk.Tensor([[4. 4.]], shape=(1, 2), dtype=float32)
    >>> layer.kernel.shape, layer.bias.shape
    ((2, 2), (2,))
    """

    min_ndim = 2
    _cast_integer_inputs = True     # uint8 pixels in, float32 out, as Keras's promotion gives

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", input_shape=None, name=None, **kwargs):
        self.units = _positive_int(units, "units", "Dense")
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        super().__init__(name=name, input_shape=input_shape, **kwargs)

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units),
                                      initializer=self.kernel_initializer, name="kernel")
        self.bias = self.add_weight(shape=(self.units,), initializer=self.bias_initializer,
                                    name="bias") if self.use_bias else None
        self._input_axes = {-1: input_shape[-1]}

    def call(self, x):
        y = matmul(x, self.kernel)
        if self.use_bias:
            y = y + self.bias
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)

class Flatten(Layer):
    """(batch, ...) -> (batch, everything else).

    >>> tk.layers.Flatten()(tk.zeros([2, 3, 4])).shape
    (2, 12)
    """

    min_ndim = 1   # a scalar has no batch axis

    def call(self, x):
        return reshape(x, (x.shape[0], -1))

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        return (input_shape[0], None if None in rest else math.prod(rest))

class Dropout(Layer):
    """Zero each input with probability `rate` and scale the rest by 1/(1-rate), in training only.

    >>> tk.random.set_seed(0)             # the same mask on every run
    >>> x = tk.ones([2, 4])
    >>> drop = tk.layers.Dropout(0.5, seed=1)
    >>> drop(x)                          # unchanged: training defaults to False
    tk.Tensor(
    [[1. 1. 1. 1.]
     [1. 1. 1. 1.]], shape=(2, 4), dtype=float32)
    >>> drop(x, training=True)           # about half the entries zeroed, the rest doubled
    tk.Tensor(
    [[2. 2. 2. 2.]
     [0. 0. 2. 0.]], shape=(2, 4), dtype=float32)
    """

    def __init__(self, rate, noise_shape=None, seed=None, name=None, **kwargs):
        if isinstance(rate, bool) or not isinstance(rate, (int, float, np.floating, np.integer)) \
                or not 0 <= rate < 1:
            raise ValueError(f"Dropout: rate must be a number in [0, 1), got {rate!r}")
        self.rate = float(rate)
        self.noise_shape = noise_shape
        self.seed = seed
        super().__init__(name=name, **kwargs)

    def call(self, x, training=None):
        if not training or self.rate == 0:
            return x
        shape = x.shape if self.noise_shape is None else tuple(
            n if n is not None else x.shape[i] for i, n in enumerate(self.noise_shape))
        # A random op: under tk.function the mask is drawn again on every call.
        keep = random.uniform(shape, dtype=x.dtype, seed=self.seed) >= self.rate
        return x * (1.0 / (1.0 - self.rate)) * cast(keep, x.dtype)
