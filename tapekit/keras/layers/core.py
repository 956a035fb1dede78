"""Dense, Flatten, Reshape, Dropout, Lambda, Embedding and Masking."""
import math
import numbers

import numpy as np

from ... import dtypes, random
from ...errors import InvalidArgumentError
from ...ops import cast, gather, matmul, not_equal, reduce_any, reshape, squeeze, where
from .. import activations, constraints, initializers, regularizers
from ..activations import get_activation
from ..saving import serialization_lib as lib
from ..saving.serialization_lib import serialize_keras_object
from .arguments import positive_int
from .base import Layer
from .shapes import checked_shape


def optional_configs(layer, *names):
    """{name: config} of optional attributes (regularizers, constraints); None when unset."""
    return {name: serialize_keras_object(getattr(layer, name, None)) for name in names}


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
    _supports_masking = True        # (batch, steps, features) in: the steps' mask goes on

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, input_shape=None, name=None,
                 **kwargs):
        self.units = positive_int(units, "units", "Dense")
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        super().__init__(name=name, input_shape=input_shape, **kwargs)

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        self.bias = self.add_weight(shape=(self.units,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None
        self._input_axes = {-1: input_shape[-1]}

    def call(self, x):
        y = matmul(x, self.kernel)
        if self.use_bias:
            y = y + self.bias
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)

    def get_config(self):
        return {**super().get_config(), "units": self.units,
                "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                **optional_configs(self, "kernel_regularizer", "bias_regularizer",
                                    "kernel_constraint", "bias_constraint"),
                "quantization_config": None}

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

    def get_config(self):
        return {**super().get_config(), "data_format": "channels_last"}

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

    _supports_masking = True

    def __init__(self, rate, noise_shape=None, seed=None, name=None, **kwargs):
        if isinstance(rate, bool) or not isinstance(rate, (int, float, np.floating, np.integer)) \
                or not 0 <= rate < 1:
            raise ValueError(f"Dropout: rate must be a number in [0, 1), got {rate!r}")
        self.rate = float(rate)
        self.seed = seed
        super().__init__(name=name, **kwargs)
        self.noise_shape = None if noise_shape is None else checked_shape(
            noise_shape, f"Dropout {self.name!r}: noise_shape")

    def compute_output_shape(self, input_shape):
        return input_shape        # Keras 3's: no call on zeros to find it

    def call(self, x, training=None):
        if not training or self.rate == 0:
            return x
        shape = x.shape if self.noise_shape is None else self._noise_shape(x.shape)
        # A random op: under tk.function the mask is drawn again on every call.
        keep = random.uniform(shape, dtype=x.dtype, seed=self.seed) >= self.rate
        return x * (1.0 / (1.0 - self.rate)) * cast(keep, x.dtype)

    def _noise_shape(self, input_shape):
        """noise_shape with None read from the input (Keras 3: by position), checked to
        broadcast against the input, so the mask is never larger than the input."""
        shape = tuple(n if n is not None else input_shape[i] if i < len(input_shape) else 1
                      for i, n in enumerate(self.noise_shape))
        fits = len(shape) <= len(input_shape) and all(
            n in (1, d) for n, d in zip(reversed(shape), reversed(input_shape)))
        if not fits:
            raise InvalidArgumentError(
                f"Dropout {self.name!r}: noise_shape {list(self.noise_shape)} (here {shape}) "
                f"does not broadcast against the input of shape {tuple(input_shape)}: each "
                f"entry must be 1, None (the input's size) or the input's size on that axis")
        return shape

    def get_config(self):
        noise_shape = None if self.noise_shape is None else list(self.noise_shape)
        return {**super().get_config(), "rate": self.rate, "seed": self.seed,
                "noise_shape": noise_shape}


class Reshape(Layer):
    """(batch, ...) -> (batch, ``*target_shape``); one entry of target_shape may be -1.

    >>> tk.layers.Reshape((2, -1))(tk.zeros([5, 6])).shape
    (5, 2, 3)
    >>> tk.layers.Reshape((7, 7, 128)).compute_output_shape((None, 6272))
    (None, 7, 7, 128)
    """

    def __init__(self, target_shape, **kwargs):
        target_shape = tuple(target_shape)
        if sum(d == -1 for d in target_shape) > 1 or any(d < -1 or d == 0 for d in target_shape):
            raise ValueError(f"Reshape: target_shape must hold positive sizes and at most one "
                             f"-1, got {target_shape}")
        self.target_shape = target_shape
        super().__init__(**kwargs)

    def call(self, inputs):
        return reshape(inputs, (inputs.shape[0],) + self.target_shape)

    def compute_output_shape(self, input_shape):
        if -1 not in self.target_shape:
            return (input_shape[0],) + self.target_shape
        rest = input_shape[1:]
        known = math.prod(d for d in self.target_shape if d != -1)
        if None in rest:
            return (input_shape[0],) + tuple(None if d == -1 else d for d in self.target_shape)
        if math.prod(rest) % known:
            raise ValueError(f"Reshape {self.name!r}: cannot reshape inputs of shape "
                             f"{tuple(input_shape)} to (batch, *{self.target_shape})")
        return (input_shape[0],) + tuple(math.prod(rest) // known if d == -1 else d
                                         for d in self.target_shape)

    def get_config(self):
        return {**super().get_config(), "target_shape": list(self.target_shape)}


class Lambda(Layer):
    """A layer around any function of tensors (`keras.layers.Lambda`); its output shape is
    `output_shape` when given, else found by running the function on a zero batch.

    >>> tk.layers.Lambda(lambda x: x * 2.0)(tk.constant([[1.0, 2.0]]))
    tk.Tensor([[2. 4.]], shape=(1, 2), dtype=float32)
    """

    def __init__(self, function, output_shape=None, arguments=None, **kwargs):
        if not callable(function):
            raise TypeError(f"Lambda: function must be callable, got {type(function).__name__}")
        self.function, self.arguments = function, dict(arguments or {})
        self.output_shape = None if output_shape is None else tuple(output_shape)
        super().__init__(**kwargs)

    def call(self, inputs):
        return self.function(inputs, **self.arguments)

    def compute_output_shape(self, input_shape):
        if self.output_shape is not None:
            return (input_shape[0],) + self.output_shape
        return Layer.compute_output_shape(self, input_shape)

    def get_config(self):
        """The function as Keras 3 writes it: a named (registered) function by name, a
        Python lambda as its code, which loads only with safe_mode=False."""
        config = {**super().get_config(), "function": serialize_keras_object(self.function)}
        if self.output_shape is not None:
            config["output_shape"] = list(self.output_shape)
        config["arguments"] = serialize_keras_object(self.arguments)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None, safe_mode=None):
        """Refuses a Python lambda's code unless loading runs with safe_mode=False (Keras 3)."""
        config = dict(config)
        fn = config.get("function")
        mode = safe_mode if safe_mode is not None else lib.in_safe_mode()
        if mode is not False and isinstance(fn, dict) and fn.get("class_name") == "__lambda__":
            raise ValueError(lib.LAMBDA_REFUSED)
        config["function"] = lib.deserialize_keras_object(fn, custom_objects=custom_objects,
                                                          safe_mode=mode is not False)
        config["arguments"] = lib.deserialize_keras_object(config.get("arguments") or {},
                                                           custom_objects=custom_objects)
        for key in ("mask", "output_shape_type"):
            if config.get(key) is not None:
                raise ValueError(f"Lambda.from_config: tapekit does not support {key}=")
            config.pop(key, None)
        return super().from_config(config)


class Embedding(Layer):
    """Row `i` of an (input_dim, output_dim) table for each integer `i` of the input.

    Integer inputs stay integers (they are indices); the table is initialized uniformly
    on [-0.05, 0.05), Keras's "uniform". With `mask_zero=True` the index 0 is padding: the
    output carries the mask `inputs != 0` (its `_keras_mask`), which the layers after it
    pass on or use (an LSTM skips the padded steps), as in Keras 3.

    >>> emb = tk.layers.Embedding(10, 3, embeddings_initializer="ones")
    >>> emb(tk.constant([[1, 2]])).shape
    (1, 2, 3)
    >>> tk.layers.Embedding(10, 3, mask_zero=True)(tk.constant([[4, 0]]))._keras_mask
    tk.Tensor([[ True False]], shape=(1, 2), dtype=bool)
    """

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False,
                 **kwargs):
        self.input_dim = positive_int(input_dim, "input_dim", "Embedding")
        self.output_dim = positive_int(output_dim, "output_dim", "Embedding")
        self.embeddings_initializer = embeddings_initializer
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = bool(mask_zero)
        self._supports_masking = self.mask_zero     # Keras 3: masks only with mask_zero
        super().__init__(**kwargs)

    def build(self, input_shape):
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint,
                                          name="embeddings")

    def call(self, inputs):
        if inputs.dtype.kind not in "iu":
            inputs = cast(inputs, dtypes.int32)
        return gather(self.embeddings, inputs)

    def compute_mask(self, inputs, mask=None):
        """`inputs != 0` with mask_zero=True (the padding index), else None (Keras 3)."""
        return not_equal(inputs, 0) if self.mask_zero else None

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (self.output_dim,)

    def _output_dtype(self, dtype):
        return self.dtype

    def get_config(self):
        return {**super().get_config(), "input_dim": self.input_dim, "output_dim": self.output_dim,
                "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
                "embeddings_regularizer": serialize_keras_object(self.embeddings_regularizer),
                "activity_regularizer": serialize_keras_object(self.activity_regularizer),
                "embeddings_constraint": serialize_keras_object(self.embeddings_constraint),
                "mask_zero": self.mask_zero,
                "quantization_config": None}


class Masking(Layer):
    """Mask the steps whose features all equal `mask_value` (`keras.layers.Masking`): those
    steps become zeros, and the output carries the mask (True where a step holds data), so
    the recurrent layers after it skip them.

    >>> x = tk.constant([[[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]]])
    >>> y = tk.layers.Masking(mask_value=0.0)(x)
    >>> y._keras_mask
    tk.Tensor([[ True False  True]], shape=(1, 3), dtype=bool)
    """

    _supports_masking = True

    def __init__(self, mask_value=0.0, **kwargs):
        if isinstance(mask_value, bool) or not isinstance(mask_value, numbers.Real):
            raise TypeError(f"Masking: mask_value must be a number (the value of a padded "
                            f"step's features), got {mask_value!r}")
        self.mask_value = mask_value
        super().__init__(**kwargs)

    def _data(self, inputs, keepdims):
        return reduce_any(not_equal(inputs, self.mask_value), axis=-1, keepdims=keepdims)

    def call(self, inputs):
        data = self._data(inputs, keepdims=True)
        outputs = where(data, inputs, 0.0)             # a masked step's features become 0
        outputs._keras_mask = squeeze(data, axis=-1)
        return outputs

    def compute_mask(self, inputs, mask=None):
        return self._data(inputs, keepdims=False)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}
