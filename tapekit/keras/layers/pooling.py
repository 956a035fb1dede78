"""Pooling layers: MaxPooling2D and AveragePooling2D over windows of NHWC inputs (one base,
_Pooling2D, as Keras 3's BasePooling), MaxPooling1D over the steps of (batch, steps,
features) inputs (the 2-D pooling of a height of 1), global pooling over height and width,
and global pooling over the steps of (batch, steps, features) inputs."""
from ... import ops   # tk.nn's ops, from where they are defined
from ...ops import cast, expand_dims, reduce_max, reduce_mean, reduce_sum, squeeze, where
from .. import masking
from .arguments import check_padding, conv_length, pair, positive_int
from .base import Layer


class _Pooling2D(Layer):
    """What MaxPooling2D and AveragePooling2D share: pool_size windows of NHWC inputs, strides
    (pool_size by default) and padding, the output shape and the config; a subclass names its
    op (`_pool`, one of tk.nn's)."""

    ndim = 4
    _pool = None

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", **kwargs):
        layer = type(self).__name__
        self.pool_size = pair(pool_size, "pool_size", layer)
        self.strides = self.pool_size if strides is None else pair(strides, "strides", layer)
        self.padding = check_padding(padding)
        super().__init__(**kwargs)

    def call(self, inputs):
        return self._pool(inputs, ksize=[1, *self.pool_size, 1], strides=[1, *self.strides, 1],
                          padding=self.padding.upper())

    def compute_output_shape(self, input_shape):
        b, h, w, c = input_shape
        (kh, kw), (sh, sw) = self.pool_size, self.strides
        return (b, conv_length(h, kh, sh, self.padding), conv_length(w, kw, sw, self.padding), c)

    def get_config(self):
        return {**super().get_config(), "pool_size": list(self.pool_size),
                "padding": self.padding, "strides": list(self.strides),
                "data_format": "channels_last"}


class MaxPooling2D(_Pooling2D):
    """Max over pool_size windows of NHWC inputs; strides default to pool_size.

    >>> x = tk.reshape(tk.range(1.0, 17.0), [1, 4, 4, 1])
    >>> tk.reshape(tk.layers.MaxPooling2D(2)(x), [2, 2])
    tk.Tensor(
    [[ 6.  8.]
     [14. 16.]], shape=(2, 2), dtype=float32)
    """

    _pool = staticmethod(ops.max_pool2d)


class AveragePooling2D(_Pooling2D):
    """Mean over pool_size windows of NHWC inputs; strides default to pool_size.

    >>> tk.layers.AveragePooling2D(2).compute_output_shape((None, 4, 6, 3))
    (None, 2, 3, 3)
    """

    _cast_integer_inputs = True
    _pool = staticmethod(ops.avg_pool2d)


class MaxPooling1D(Layer):
    """Max over pool_size steps of (batch, steps, features) inputs, every `strides` steps
    (pool_size by default); `keras.layers.MaxPool1D` is the same class, as in Keras 3.

    >>> x = tk.reshape(tk.constant([1.0, 3.0, 2.0, 5.0, 4.0]), [1, 5, 1])
    >>> tk.reshape(tk.layers.MaxPool1D(2)(x), [2])          # the fifth step has no pair
    tk.Tensor([3. 5.], shape=(2,), dtype=float32)
    """

    ndim = 3

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None,
                 name=None, **kwargs):
        layer = type(self).__name__
        pool_size = pool_size[0] if isinstance(pool_size, (list, tuple)) and len(pool_size) == 1 \
            else pool_size
        strides = strides[0] if isinstance(strides, (list, tuple)) and len(strides) == 1 \
            else strides
        self.pool_size = positive_int(pool_size, "pool_size", layer)
        self.strides = self.pool_size if strides is None else positive_int(strides, "strides",
                                                                           layer)
        self.padding = check_padding(padding)
        if data_format not in (None, "channels_last"):
            raise ValueError(f"{layer}: only data_format='channels_last' (batch, steps, "
                             f"features) is supported, got {data_format!r}")
        super().__init__(name=name, **kwargs)

    def call(self, inputs):
        pooled = ops.max_pool2d(expand_dims(inputs, 1), ksize=[1, 1, self.pool_size, 1],
                               strides=[1, 1, self.strides, 1], padding=self.padding.upper())
        return squeeze(pooled, 1)

    def compute_output_shape(self, input_shape):
        b, steps, c = input_shape
        return (b, conv_length(steps, self.pool_size, self.strides, self.padding), c)

    def get_config(self):
        return {**super().get_config(), "pool_size": [self.pool_size], "padding": self.padding,
                "strides": [self.strides], "data_format": "channels_last"}


MaxPool1D = MaxPooling1D          # Keras 3's alias: one class


class _GlobalPooling2D(Layer):
    ndim = 4

    def __init__(self, keepdims=False, **kwargs):
        self.keepdims = bool(keepdims)
        super().__init__(**kwargs)

    def compute_output_shape(self, input_shape):
        b, _, _, c = input_shape
        return (b, 1, 1, c) if self.keepdims else (b, c)

    def get_config(self):
        return {**super().get_config(), "data_format": "channels_last", "keepdims": self.keepdims}


class GlobalMaxPooling2D(_GlobalPooling2D):
    """Max over height and width: (batch, h, w, c) -> (batch, c) (or (batch, 1, 1, c)).

    >>> x = tk.reshape(tk.range(8.0), [1, 2, 2, 2])
    >>> tk.layers.GlobalMaxPooling2D()(x)
    tk.Tensor([[6. 7.]], shape=(1, 2), dtype=float32)
    """

    def call(self, inputs):
        return reduce_max(inputs, axis=[1, 2], keepdims=self.keepdims)


class GlobalAveragePooling2D(_GlobalPooling2D):
    """Mean over height and width: (batch, h, w, c) -> (batch, c) (or (batch, 1, 1, c)).

    >>> x = tk.reshape(tk.range(8.0), [1, 2, 2, 2])
    >>> tk.layers.GlobalAveragePooling2D(keepdims=True)(x).shape
    (1, 1, 1, 2)
    """

    _cast_integer_inputs = True

    def call(self, inputs):
        return reduce_mean(inputs, axis=[1, 2], keepdims=self.keepdims)


class _GlobalPooling1D(Layer):
    ndim = 3

    def __init__(self, keepdims=False, **kwargs):
        self.keepdims = bool(keepdims)
        super().__init__(**kwargs)

    def compute_output_shape(self, input_shape):
        b, _, c = input_shape
        return (b, 1, c) if self.keepdims else (b, c)


class GlobalMaxPooling1D(_GlobalPooling1D):
    """Max over the steps: (batch, steps, features) -> (batch, features) (or (batch, 1, features)).

    >>> tk.layers.GlobalMaxPooling1D()(tk.constant([[[1.0, 6.0], [5.0, 2.0]]]))
    tk.Tensor([[5. 6.]], shape=(1, 2), dtype=float32)
    """

    def call(self, inputs):
        return reduce_max(inputs, axis=1, keepdims=self.keepdims)


class GlobalAveragePooling1D(_GlobalPooling1D):
    """Mean over the steps: (batch, steps, features) -> (batch, features) (or (batch, 1, features)).

    With a mask (batch, steps) (`mask=`, or the input's from Embedding(mask_zero=True) or
    Masking), the mean over the steps that hold data only, as Keras 3 (NaN for a row with
    none: 0 / 0); the output carries no mask.

    >>> tk.layers.GlobalAveragePooling1D()(tk.constant([[[1.0, 6.0], [5.0, 2.0]]]))
    tk.Tensor([[3. 4.]], shape=(1, 2), dtype=float32)
    >>> tk.layers.GlobalAveragePooling1D()(tk.constant([[[1.0, 6.0], [5.0, 2.0]]]),
    ...                                    mask=tk.constant([[True, False]]))
    tk.Tensor([[1. 6.]], shape=(1, 2), dtype=float32)
    """

    _cast_integer_inputs = True
    _supports_masking = True

    def call(self, inputs, mask=None):
        keep = masking.step_mask(self, mask, inputs)
        if keep is None:
            return reduce_mean(inputs, axis=1, keepdims=self.keepdims)
        keep = expand_dims(keep, 2)
        total = reduce_sum(where(keep, inputs, 0.0), axis=1, keepdims=self.keepdims)
        return total / reduce_sum(cast(keep, inputs.dtype), axis=1, keepdims=self.keepdims)

    def compute_mask(self, inputs, mask=None):
        return None
