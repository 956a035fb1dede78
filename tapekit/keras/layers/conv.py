"""Convolution layers over NHWC inputs (Conv1D over (batch, steps, channels)); the pooling
layers are pooling.py's."""
from ... import ops   # tk.nn's ops, from where they are defined
from ...ops import expand_dims, pad, squeeze
from .. import activations, constraints, initializers, regularizers
from ..activations import get_activation
from .arguments import check_padding, conv_length, is_int, pair, positive_int
from .base import Layer
from .core import optional_configs
from .pooling import MaxPooling2D  # noqa: F401  (pickles made before issue 44 name it here)


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
    _cast_integer_inputs = True

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, input_shape=None, name=None, **kwargs):
        layer = type(self).__name__     # Conv2D, or Conv2DTranspose, which shares this
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.filters = positive_int(filters, "filters", layer)
        self.kernel_size = pair(kernel_size, "kernel_size", layer)
        self.strides = pair(strides, "strides", layer)
        self.padding = check_padding(padding)
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        super().__init__(name=name, input_shape=input_shape, **kwargs)

    def build(self, input_shape):
        if len(input_shape) != 4:
            raise ValueError(f"Conv2D {self.name!r} expects inputs (batch, height, width, "
                             f"channels), got shape {input_shape}")
        _add_kernel_and_bias(self, input_shape)

    def call(self, x):
        y = ops.conv2d(x, self.kernel, strides=[1, *self.strides, 1], padding=self.padding.upper())
        if self.use_bias:
            y = y + self.bias
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        b, h, w, _ = input_shape
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        return (b, conv_length(h, kh, sh, self.padding), conv_length(w, kw, sw, self.padding),
                self.filters)

    _keras_only = {"dilation_rate": [1, 1], "groups": 1}

    def get_config(self):
        return {**super().get_config(), "filters": self.filters,
                "kernel_size": list(self.kernel_size), "strides": list(self.strides),
                "padding": self.padding, "data_format": "channels_last", "dilation_rate": [1, 1],
                "groups": 1, "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                **optional_configs(self, "kernel_regularizer", "bias_regularizer",
                                    "activity_regularizer", "kernel_constraint",
                                    "bias_constraint")}

def _transpose_length(n, k, stride, padding):
    """Keras's deconv_output_length (no output_padding): the input length of the Conv2D
    this layer is the gradient of."""
    if n is None:
        return None
    return n * stride if padding == "same" else n * stride + max(k - stride, 0)


class Conv2DTranspose(Conv2D):
    """Transposed 2-D convolution ("deconvolution"): upsamples NHWC inputs by `strides`.

    The kernel is (height, width, filters, in_channels), TensorFlow's layout for
    `tk.nn.conv2d_transpose`.

    >>> up = tk.layers.Conv2DTranspose(8, 4, strides=2, padding="same")
    >>> up.compute_output_shape((None, 7, 7, 16))
    (None, 14, 14, 8)
    """

    # __init__ and its argument checks are Conv2D's.

    def build(self, input_shape):
        shape = self.kernel_size + (self.filters, input_shape[-1])
        self.kernel = self.add_weight(shape=shape, initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None
        self._input_axes = {-1: input_shape[-1]}

    def call(self, inputs):
        _, h, w, _ = self.compute_output_shape(inputs.shape)
        y = ops.conv2d_transpose(inputs, self.kernel, [inputs.shape[0], h, w, self.filters],
                                strides=[1, *self.strides, 1], padding=self.padding.upper())
        if self.use_bias:
            y = y + self.bias
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        b, h, w, _ = input_shape
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        return (b, _transpose_length(h, kh, sh, self.padding),
                _transpose_length(w, kw, sw, self.padding), self.filters)

    _keras_only = {"dilation_rate": [1, 1], "output_padding": None}

    def get_config(self):
        config = super().get_config()
        del config["groups"]
        return {**config, "output_padding": None}

def _one(value, what, layer):
    """A positive int or a 1-tuple of one, as an int: kernel_size=(3,) -> 3."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(items) != 1 or not is_int(items[0]) or items[0] <= 0:
        raise ValueError(f"{layer}: {what} must be a positive integer (or a 1-tuple of one), "
                         f"got {value!r}")
    return int(items[0])


class Conv1D(Layer):
    """1-D convolution over (batch, steps, channels) with a (kernel_size, channels, filters)
    kernel (`keras.layers.Conv1D`). `padding="causal"` pads `kernel_size - 1` zeros on the
    left only, so output step t sees input steps up to t.

    It runs as a Conv2D over a height-1 image: the same op, and the same derivative rules.

    >>> conv = tk.layers.Conv1D(2, 3, kernel_initializer="ones", use_bias=False)
    >>> conv(tk.reshape(tk.range(5.0), [1, 5, 1]))     # sums of 3 neighbours: 0+1+2, 1+2+3, ...
    tk.Tensor(
    [[[3. 3.]
      [6. 6.]
      [9. 9.]]], shape=(1, 3, 2), dtype=float32)
    >>> tk.layers.Conv1D(2, 3, padding="causal").compute_output_shape((None, 5, 1))
    (None, 5, 2)
    """

    ndim = 3
    _cast_integer_inputs = True

    def __init__(self, filters, kernel_size, strides=1, padding="valid", dilation_rate=1,
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        self.filters = positive_int(filters, "filters", "Conv1D")
        self.kernel_size = (_one(kernel_size, "kernel_size", "Conv1D"),)
        self.strides = (_one(strides, "strides", "Conv1D"),)
        if _one(dilation_rate, "dilation_rate", "Conv1D") != 1:
            raise NotImplementedError(f"Conv1D: dilation_rate={dilation_rate!r} is not supported "
                                      f"yet (only 1)")
        self.dilation_rate = (1,)
        padding = str(padding).lower()
        if padding not in ("valid", "same", "causal"):
            raise ValueError(f"Conv1D: padding must be 'valid', 'same' or 'causal', got {padding!r}")
        self.padding = padding
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        super().__init__(**kwargs)

    def build(self, input_shape):
        _add_kernel_and_bias(self, input_shape)

    def call(self, x):
        padding = self.padding
        if padding == "causal":
            x = pad(x, [[0, 0], [self.kernel_size[0] - 1, 0], [0, 0]])
            padding = "valid"
        y = ops.conv2d(expand_dims(x, 1), expand_dims(self.kernel, 0),
                      strides=[1, 1, self.strides[0], 1], padding=padding.upper())
        y = squeeze(y, [1])
        if self.use_bias:
            y = y + self.bias
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        b, n, _ = input_shape
        k, s = self.kernel_size[0], self.strides[0]
        if self.padding == "causal":
            n = None if n is None else n + k - 1
        return (b, conv_length(n, k, s, "valid" if self.padding == "causal" else self.padding),
                self.filters)

    # Keras 3.15 writes groups=1 in every Conv1D config; tapekit has no grouped convolution.
    _keras_only = {"groups": 1}

    def get_config(self):
        """Keras 3's keys, as Conv2D writes them (lists for the sizes, groups=1)."""
        return {**super().get_config(), "filters": self.filters,
                "kernel_size": list(self.kernel_size), "strides": list(self.strides),
                "padding": self.padding, "data_format": "channels_last",
                "dilation_rate": list(self.dilation_rate), "groups": 1,
                "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                **optional_configs(self, "kernel_regularizer", "bias_regularizer",
                                    "activity_regularizer", "kernel_constraint",
                                    "bias_constraint")}


def _add_kernel_and_bias(layer, input_shape):
    """A convolution's weights: the kernel (kernel_size + (input channels, filters)) and, with
    use_bias, one bias per filter; the input's channels are fixed from then on."""
    shape = layer.kernel_size + (input_shape[-1], layer.filters)
    layer.kernel = layer.add_weight(shape=shape, initializer=layer.kernel_initializer,
                                    regularizer=layer.kernel_regularizer,
                                    constraint=layer.kernel_constraint, name="kernel")
    layer.bias = layer.add_weight(shape=(layer.filters,), initializer=layer.bias_initializer,
                                  regularizer=layer.bias_regularizer,
                                  constraint=layer.bias_constraint,
                                  name="bias") if layer.use_bias else None
    layer._input_axes = {-1: input_shape[-1]}
