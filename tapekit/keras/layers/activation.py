"""Activation layers: Activation, ReLU, LeakyReLU, Softmax (Keras 3's names and defaults)."""
from ...ops import cast, exp, reduce_logsumexp, softmax
from .. import activations
from .base import Layer


class _Elementwise(Layer):
    """Shape and dtype pass through, and so does a mask (Keras 3)."""

    _supports_masking = True

    def compute_output_shape(self, input_shape):
        return input_shape


class Activation(_Elementwise):
    """Apply an activation by name or callable (`keras.layers.Activation`).

    >>> tk.layers.Activation("relu")(tk.constant([[-1.0, 2.0]]))
    tk.Tensor([[0. 2.]], shape=(1, 2), dtype=float32)
    """

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def get_config(self):
        return {**super().get_config(), "activation": activations.serialize(self.activation)}


class ReLU(_Elementwise):
    """`max_value` if x >= max_value; x if threshold <= x < max_value; else
    negative_slope * (x - threshold) (`keras.layers.ReLU`).

    >>> tk.layers.ReLU(max_value=1.0)(tk.constant([-1.0, 0.5, 3.0]))
    tk.Tensor([0.  0.5 1. ], shape=(3,), dtype=float32)
    >>> tk.layers.ReLU(negative_slope=0.1, threshold=1.0)(tk.constant([0.0, 2.0]))
    tk.Tensor([-0.1  2. ], shape=(2,), dtype=float32)
    """

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        if max_value is not None and max_value < 0:
            raise ValueError(f"ReLU: max_value must be >= 0 or None, got {max_value!r}")
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"ReLU: negative_slope must be >= 0, got {negative_slope!r}")
        super().__init__(**kwargs)
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope,
                                max_value=self.max_value, threshold=self.threshold)

    def get_config(self):
        return {**super().get_config(), "max_value": self.max_value,
                "negative_slope": self.negative_slope, "threshold": self.threshold}


class LeakyReLU(_Elementwise):
    """x for x > 0, negative_slope * x otherwise; Keras 3's default slope is 0.3.

    >>> tk.layers.LeakyReLU()(tk.constant([-1.0, 2.0]))
    tk.Tensor([-0.3  2. ], shape=(2,), dtype=float32)
    >>> tk.layers.LeakyReLU(negative_slope=0.2)(tk.constant([-1.0, 2.0]))
    tk.Tensor([-0.2  2. ], shape=(2,), dtype=float32)
    """

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            raise ValueError("LeakyReLU: Keras 3 names the argument negative_slope "
                             f"(got alpha={kwargs['alpha']!r}): use LeakyReLU(negative_slope=...)")
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"LeakyReLU: negative_slope must be >= 0, got {negative_slope!r}")
        super().__init__(**kwargs)
        self.negative_slope = negative_slope

    def call(self, inputs):
        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self):
        return {**super().get_config(), "negative_slope": self.negative_slope}


class Softmax(_Elementwise):
    """The softmax along `axis` (an int or a list of them); with a mask (True: keep) the
    masked entries get probability 0 and the kept ones share 1, as in Keras 3 (a row with
    nothing kept is all zeros).

    >>> tk.layers.Softmax()(tk.constant([[1.0, 1.0, 5.0]]), mask=np.array([[True, True, False]]))
    tk.Tensor([[0.5 0.5 0. ]], shape=(1, 3), dtype=float32)
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        if mask is not None:
            keep = cast(mask, inputs.dtype)
            inputs = inputs + (1.0 - keep) * cast(-1e9, inputs.dtype)   # Keras's large negative
        if isinstance(self.axis, (list, tuple)):
            out = exp(inputs - reduce_logsumexp(inputs, axis=list(self.axis), keepdims=True))
        else:
            out = softmax(inputs, axis=self.axis)
        return out if mask is None else out * keep

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}
