"""Convolution and pooling layers over NHWC inputs."""
from ... import nn
from .. import activations, initializers
from ..activations import get_activation
from ._utils import _pair, _positive_int
from .core import _optional_configs
from .base import Layer


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
    _cast_integer_inputs = True

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 input_shape=None, name=None, **kwargs):
        layer = type(self).__name__     # Conv2D, or Conv2DTranspose, which shares this
        self.filters = _positive_int(filters, "filters", layer)
        self.kernel_size = _pair(kernel_size, "kernel_size", layer)
        self.strides = _pair(strides, "strides", layer)
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
        self.kernel = self.add_weight(shape=shape, initializer=self.kernel_initializer, name="kernel")
        self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                    name="bias") if self.use_bias else None
        self._input_axes = {-1: input_shape[-1]}

    def call(self, x):
        y = _nn_op("conv2d")(x, self.kernel, strides=[1, *self.strides, 1], padding=self.padding.upper())
        if self.use_bias:
            y = y + self.bias
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        b, h, w, _ = input_shape
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        return (b, _conv_length(h, kh, sh, self.padding), _conv_length(w, kw, sw, self.padding),
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
                **_optional_configs(self, "kernel_regularizer", "bias_regularizer",
                                    "activity_regularizer", "kernel_constraint",
                                    "bias_constraint")}

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

    def call(self, x):
        return _nn_op("max_pool2d")(x, ksize=[1, *self.pool_size, 1], strides=[1, *self.strides, 1],
                             padding=self.padding.upper())

    def compute_output_shape(self, input_shape):
        b, h, w, c = input_shape
        (kh, kw), (sh, sw) = self.pool_size, self.strides
        return (b, _conv_length(h, kh, sh, self.padding), _conv_length(w, kw, sw, self.padding), c)

    def get_config(self):
        return {**super().get_config(), "pool_size": list(self.pool_size),
                "padding": self.padding, "strides": list(self.strides),
                "data_format": "channels_last"}


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
        self.kernel = self.add_weight(shape=shape, initializer=self.kernel_initializer, name="kernel")
        self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                    name="bias") if self.use_bias else None
        self._input_axes = {-1: input_shape[-1]}

    def call(self, inputs):
        _, h, w, _ = self.compute_output_shape(inputs.shape)
        y = _nn_op("conv2d_transpose")(inputs, self.kernel, [inputs.shape[0], h, w, self.filters],
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
