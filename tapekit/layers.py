"""Keras-style layers: Dense, Conv2D, MaxPooling2D, Flatten, Dropout.

    layer = tk.layers.Dense(3, activation="relu")
    y = layer(tk.ones((2, 4)))        # builds the kernel (4, 3) and bias (3,) on first call
    layer.trainable_variables         # [kernel, bias], in creation order as in Keras

A layer creates its weights the first time it sees an input (`build`), or at once when
given `input_shape=`. Names follow Keras: `dense`, `dense_1`, ... per process, and the
weights are named `dense/kernel:0`, `dense/bias:0`.
"""
import itertools
import math
import re
from collections import defaultdict

import numpy as np

from . import dtypes, nn, random
from .module import Module
from .ops import cast, matmul, reshape, sigmoid, tanh
from .convert import convert_to_tensor
from .tensor import Tensor, Variable

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


# --- activations and initializers, by name --------------------------------------------
def _linear(x):
    return x


ACTIVATIONS = {"linear": _linear, "relu": nn.relu, "sigmoid": sigmoid, "tanh": tanh,
               "softmax": nn.softmax}


def get_activation(activation):
    """A callable for `activation`: None, a name in ACTIVATIONS, or a callable.

    >>> tk.layers.get_activation("relu")(tk.constant([-1.0, 1.0]))
    tk.Tensor([0. 1.], shape=(2,), dtype=float32)
    >>> tk.layers.get_activation(None)(tk.constant([-1.0, 1.0]))      # linear
    tk.Tensor([-1.  1.], shape=(2,), dtype=float32)
    """
    if activation is None:
        return _linear
    if callable(activation):
        return activation
    if activation in ACTIVATIONS:
        return ACTIVATIONS[activation]
    raise ValueError(f"unknown activation {activation!r}; use one of {sorted(ACTIVATIONS)} "
                     f"or a callable")


def _fans(shape):
    # Dense kernels are (in, out); conv kernels (h, w, in, out) count each window position.
    receptive = math.prod(shape[:-2]) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


def _glorot_uniform(shape, dtype):
    fan_in, fan_out = _fans(shape)
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    return random.uniform(shape, -limit, limit, dtype=dtype)


def _he_uniform(shape, dtype):
    limit = math.sqrt(6.0 / _fans(shape)[0])
    return random.uniform(shape, -limit, limit, dtype=dtype)


INITIALIZERS = {"glorot_uniform": _glorot_uniform, "he_uniform": _he_uniform,
                "zeros": lambda shape, dtype: np.zeros(shape, dtype),
                "ones": lambda shape, dtype: np.ones(shape, dtype)}


def _initializer(init):
    if callable(init):
        return init
    if init in INITIALIZERS:
        return INITIALIZERS[init]
    raise ValueError(f"unknown initializer {init!r}; use one of {sorted(INITIALIZERS)} or a "
                     f"callable (shape, dtype) -> array")


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

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", input_shape=None, name=None, **kwargs):
        self.units = _positive_int(units, "units", "Dense")
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        super().__init__(name=name, input_shape=input_shape, **kwargs)

    def build(self, input_shape):
        self.add_weight("kernel", (input_shape[-1], self.units), self.kernel_initializer)
        if self.use_bias:
            self.add_weight("bias", (self.units,), self.bias_initializer)

    def call(self, x, training=None):
        y = matmul(x, self.kernel)
        if self.use_bias:
            y = y + self.bias
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)


def _nn_op(name):
    op = getattr(nn, name, None)
    if op is None:
        raise NotImplementedError(f"tk.nn.{name} is not available in this version of tapekit")
    return op


def _conv_length(n, k, stride, padding):
    if n is None:
        return None
    return -(-n // stride) if padding == "same" else (n - k) // stride + 1


def _padding(padding):
    padding = str(padding).lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"padding must be 'valid' or 'same', got {padding!r}")
    return padding


class Conv2D(Layer):
    """2-D convolution over NHWC inputs with an HWIO kernel (`tf.keras.layers.Conv2D`).

    >>> tk.random.set_seed(0)
    >>> conv = tk.layers.Conv2D(4, 3, padding="same")
    >>> conv(tk.zeros([2, 8, 8, 1])).shape              # NHWC in, NHWC out
    (2, 8, 8, 4)
    >>> conv.kernel.shape                               # HWIO
    (3, 3, 1, 4)
    """

    ndim = 4

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 input_shape=None, name=None, **kwargs):
        self.filters = _positive_int(filters, "filters", "Conv2D")
        self.kernel_size = _pair(kernel_size, "kernel_size", "Conv2D")
        self.strides = _pair(strides, "strides", "Conv2D")
        self.padding = _padding(padding)
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        super().__init__(name=name, input_shape=input_shape, **kwargs)

    def build(self, input_shape):
        if len(input_shape) != 4:
            raise ValueError(f"Conv2D {self.name!r} expects inputs (batch, height, width, "
                             f"channels), got shape {input_shape}")
        shape = self.kernel_size + (input_shape[-1], self.filters)
        self.add_weight("kernel", shape, self.kernel_initializer)
        if self.use_bias:
            self.add_weight("bias", (self.filters,), self.bias_initializer)

    def call(self, x, training=None):
        y = _nn_op("conv2d")(x, self.kernel, strides=[1, *self.strides, 1], padding=self.padding.upper())
        if self.use_bias:
            y = y + self.bias
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        b, h, w, _ = input_shape
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        return (b, _conv_length(h, kh, sh, self.padding), _conv_length(w, kw, sw, self.padding),
                self.filters)


class MaxPooling2D(Layer):
    """Max over pool_size windows of NHWC inputs; strides default to pool_size.

    >>> x = tk.reshape(tk.range(1.0, 17.0), [1, 4, 4, 1])
    >>> tk.reshape(tk.layers.MaxPooling2D(2)(x), [2, 2])
    tk.Tensor(
    [[ 6.  8.]
     [14. 16.]], shape=(2, 2), dtype=float32)
    """

    ndim = 4

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", name=None, **kwargs):
        self.pool_size = _pair(pool_size, "pool_size", "MaxPooling2D")
        self.strides = self.pool_size if strides is None else _pair(strides, "strides", "MaxPooling2D")
        self.padding = _padding(padding)
        super().__init__(name=name, **kwargs)

    def call(self, x, training=None):
        return _nn_op("max_pool2d")(x, ksize=[1, *self.pool_size, 1], strides=[1, *self.strides, 1],
                             padding=self.padding.upper())

    def compute_output_shape(self, input_shape):
        b, h, w, c = input_shape
        (kh, kw), (sh, sw) = self.pool_size, self.strides
        return (b, _conv_length(h, kh, sh, self.padding), _conv_length(w, kw, sw, self.padding), c)


class Flatten(Layer):
    """(batch, ...) -> (batch, everything else).

    >>> tk.layers.Flatten()(tk.zeros([2, 3, 4])).shape
    (2, 12)
    """

    min_ndim = 1   # a scalar has no batch axis

    def call(self, x, training=None):
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
