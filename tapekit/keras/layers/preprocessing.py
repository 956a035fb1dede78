"""Preprocessing layers that put data into the range and shape a model expects (Keras 3's):
Rescaling, Normalization (its statistics from `adapt`), Resizing, CenterCrop and
CategoryEncoding.

    model = tk.Sequential([tk.Input((64, 80, 3)), tk.layers.Resizing(32, 32),
                           tk.layers.Rescaling(1 / 255), ...])

They run in every call (training or not) and are made of differentiable ops, so a gradient
flows through them to their input. Images are (batch, height, width, channels) or one image
(height, width, channels): channels_last, as Keras 3's default.
"""
import math

import numpy as np

from ...ops import cast, maximum, one_hot, reduce_max, reduce_sum, reshape, sqrt
from ...ops.image import RESIZE_METHODS, resize
from ..backend import EPSILON          # keras.backend.epsilon(): the smallest std divided by
from .arguments import positive_int
from .base import Layer


def check_channels_last(layer, data_format):
    if data_format not in (None, "channels_last"):
        raise ValueError(f"{layer}: only data_format='channels_last' (batch, height, width, "
                         f"channels) is supported, got {data_format!r}")
    return "channels_last"


def check_image_rank(layer, shape):
    if len(shape) not in (3, 4):
        raise ValueError(f"{layer}: expected images of shape (batch, height, width, channels) "
                         f"or (height, width, channels), got shape {tuple(shape)}")


def crop_to_aspect_ratio(images, height, width):
    """The centred crop of `images` with the aspect ratio height:width (Keras 3's box: the
    largest such box, its start rounded down)."""
    in_h, in_w = images.shape[-3], images.shape[-2]
    crop_h = max(min(in_h, int(float(in_w * height) / width)), 1)
    crop_w = max(min(in_w, int(float(in_h * width) / height)), 1)
    top, left = int(float(in_h - crop_h) / 2), int(float(in_w - crop_w) / 2)
    return images[..., top:top + crop_h, left:left + crop_w, :]


def smart_resize(images, height, width, interpolation="bilinear"):
    """Crop to the aspect ratio height:width, then resize to (height, width)."""
    return resize(crop_to_aspect_ratio(images, height, width), (height, width),
                  method=interpolation)


class Rescaling(Layer):
    """`inputs * scale + offset`: e.g. Rescaling(1 / 255) takes pixels 0..255 to 0..1, and
    Rescaling(1 / 127.5, offset=-1) to -1..1. Integer inputs are cast to the layer's dtype.

    >>> tk.layers.Rescaling(1 / 255)(np.array([[0, 51, 255]], "uint8"))   # as Keras 3.15
    tk.Tensor([[0.         0.20000002 1.        ]], shape=(1, 3), dtype=float32)
    """

    _cast_integer_inputs = True
    _supports_masking = True

    def __init__(self, scale, offset=0.0, **kwargs):
        self.scale, self.offset = scale, offset
        super().__init__(**kwargs)

    def call(self, inputs):
        return inputs * cast(self.scale, self.dtype) + cast(self.offset, self.dtype)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}


class Normalization(Layer):
    """`(x - mean) / sqrt(variance)` per feature along `axis` (invert=True undoes it), the
    statistics given as `mean=` and `variance=` or learnt from data by `adapt(data)`.

    `axis` names the axes that keep their own statistics (-1: one mean per feature);
    axis=None one mean and variance for everything. adapt takes an array, a Tensor or an
    iterable of batches and computes the population variance (NumPy's var, ddof 0); the
    statistics are non-trainable weights `mean`, `variance` and `count`, saved and loaded
    with the model as Keras 3's are. The divisor is never below keras.backend.epsilon().

    >>> norm = tk.layers.Normalization()
    >>> norm.adapt(np.array([[1.0, 2.0], [3.0, 6.0]]))
    >>> norm(np.array([[2.0, 4.0]]))                    # the means: 0 standard deviations
    tk.Tensor([[0. 0.]], shape=(1, 2), dtype=float32)
    >>> norm(np.array([[3.0, 6.0]]))
    tk.Tensor([[1. 1.]], shape=(1, 2), dtype=float32)
    """

    _cast_integer_inputs = True
    _supports_masking = True

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        self.axis = () if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
        self.input_mean, self.input_variance, self.invert = mean, variance, invert
        if (mean is None) != (variance is None):
            raise ValueError(f"When setting values directly, both `mean` and `variance` must "
                             f"be set. Received: mean={mean} and variance={variance}")
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError(f"When setting values directly, `mean` and `variance` must "
                                 f"have the same shape. Received: mean shape {np.shape(mean)} "
                                 f"and variance shape {np.shape(variance)}")
            if np.ndim(mean) > len(self.axis):
                raise ValueError(f"The rank of `mean` must be less than or equal to the number "
                                 f"of axes ({len(self.axis)}). Received: mean shape "
                                 f"{np.shape(mean)} for axis {self.axis}")
        super().__init__(**kwargs)

    def build(self, input_shape):
        ndim = len(input_shape)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(f"Normalization {self.name!r}: all `axis` values must be in the "
                             f"range [-ndim, ndim). Received inputs with ndim={ndim}, while "
                             f"axis={self.axis}")
        self._keep_axis = tuple(sorted(a % ndim for a in self.axis))
        for a in self._keep_axis:
            if input_shape[a] is None:
                raise ValueError(f"Normalization {self.name!r}: all `axis` values to be kept "
                                 f"must have a known size. Received axis={self.axis}, "
                                 f"inputs.shape={tuple(input_shape)}, unknown at index {a}")
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        self._broadcast_shape = [input_shape[d] if d in self._keep_axis else 1
                                 for d in range(ndim)]
        self._stats_shape = tuple(input_shape[d] for d in self._keep_axis)
        self._build_input_shape = tuple(input_shape)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(shape=self._stats_shape, initializer="zeros",
                                              trainable=False, name="mean")
            self.adapt_variance = self.add_weight(shape=self._stats_shape, initializer="ones",
                                                  trainable=False, name="variance")
            self.count = self.add_weight(shape=(), dtype="int64", initializer="zeros",
                                         trainable=False, name="count")
        else:
            # given statistics: their trailing axes are the kept axes' trailing ones
            shape = [1] * ndim
            for i in range(1, np.ndim(self.input_mean) + 1):
                shape[self._keep_axis[-i]] = np.shape(self.input_mean)[-i]
            self._given = [np.broadcast_to(np.reshape(np.asarray(v, self.dtype), shape),
                                           self._broadcast_shape)
                           for v in (self.input_mean, self.input_variance)]
        self.built = True

    @property
    def mean(self):
        """The mean, shaped to broadcast against the inputs (None before build)."""
        return self._statistics()[0] if self.built else None

    @property
    def variance(self):
        return self._statistics()[1] if self.built else None

    def _statistics(self):
        if self.input_mean is not None:
            return self._given
        return (reshape(self.adapt_mean, self._broadcast_shape),
                reshape(self.adapt_variance, self._broadcast_shape))

    def adapt(self, data):
        """Set mean and variance to those of `data` (an array or Tensor, or an iterable of
        batches, merged batch by batch as Keras 3 merges them)."""
        batches = [data] if isinstance(data, np.ndarray) or hasattr(data, "numpy") else data
        try:
            batches = [np.asarray(getattr(b, "numpy", lambda b=b: b)()) for b in batches]
        except TypeError:
            raise TypeError(f"Normalization.adapt: unsupported data type: {type(data).__name__}; "
                            f"pass an array, a Tensor or an iterable of batches") from None
        if not batches:
            raise ValueError("adapt() received an empty iterable (no batches). Expected at "
                             "least one batch, e.g. layer.adapt([x])")
        if not self.built:
            self._maybe_build(batches[0].shape)
        for batch in batches:
            if any(batch.shape[d] != self._build_input_shape[d] for d in self._keep_axis) \
                    or batch.ndim != len(self._build_input_shape):
                raise ValueError(f"Normalization {self.name!r}: the layer was built with "
                                 f"input_shape={self._build_input_shape}, but adapt() is "
                                 f"being called with data with an incompatible shape, "
                                 f"data.shape={batch.shape}")
        if self.input_mean is not None:
            raise ValueError(f"Normalization {self.name!r} was given mean= and variance=: "
                             f"there is nothing to adapt")
        if len(batches) == 1:
            mean = np.mean(batches[0], axis=self._reduce_axis)
            var = np.var(batches[0], axis=self._reduce_axis)
        else:                       # a running merge of each batch's mean and variance
            mean = var = np.zeros(self._stats_shape, np.float32)
            total = 0
            for batch in batches:
                batch = batch.astype(self.dtype)
                count = math.prod(batch.shape[d] for d in self._reduce_axis)
                total += count
                w = count / total
                b_mean = np.mean(batch, axis=self._reduce_axis)
                b_var = np.var(batch, axis=self._reduce_axis)
                new_mean = mean * (1 - w) + b_mean * w
                var = ((var + (mean - new_mean) ** 2) * (1 - w)
                       + (b_var + (b_mean - new_mean) ** 2) * w)
                mean = new_mean
        self.adapt_mean.assign(np.asarray(mean, self.dtype))
        self.adapt_variance.assign(np.asarray(var, self.dtype))

    def call(self, inputs):
        mean, variance = self._statistics()
        std = maximum(sqrt(cast(variance, self.dtype)), EPSILON)
        if self.invert:
            return mean + inputs * std
        return (inputs - mean) / std

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": list(self.axis), "invert": self.invert,
                "mean": np.array(self.input_mean).tolist(),
                "variance": np.array(self.input_variance).tolist()}

    def get_build_config(self):
        shape = getattr(self, "_build_input_shape", None)
        return {"input_shape": list(shape)} if shape else None

    def build_from_config(self, config):
        if config and not self.built:
            self._maybe_build(tuple(config["input_shape"]))


class Resizing(Layer):
    """Resize images to (height, width) as Keras 3 does: bilinear (TensorFlow's resize with
    half-pixel centres and no antialiasing) or nearest; crop_to_aspect_ratio=True first crops
    the centred box with the target's aspect ratio, so the picture is not distorted.

    >>> image = tk.reshape(tk.constant([0.0, 1.0, 2.0, 3.0]), [1, 2, 2, 1])
    >>> tk.reshape(tk.layers.Resizing(1, 4)(image), [4])      # Keras 3.15 gives these
    tk.Tensor([1.   1.25 1.75 2.  ], shape=(4,), dtype=float32)

    Beyond tapekit: interpolation other than "bilinear" and "nearest", pad_to_aspect_ratio,
    antialias=True and data_format="channels_first" raise.
    """

    _cast_integer_inputs = True

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0,
                 antialias=False, data_format=None, **kwargs):
        self.height = positive_int(height, "height", "Resizing")
        self.width = positive_int(width, "width", "Resizing")
        if interpolation not in RESIZE_METHODS:
            raise ValueError(f"Resizing: interpolation must be one of {RESIZE_METHODS} in "
                             f"tapekit, got {interpolation!r}")
        if pad_to_aspect_ratio or antialias:
            raise NotImplementedError("Resizing: pad_to_aspect_ratio=True and antialias=True "
                                      "are not supported by tapekit")
        if fill_mode != "constant":
            raise ValueError(f"Invalid value for argument `fill_mode`. Only `'constant'` is "
                             f"supported. Received: fill_mode={fill_mode}")
        self.interpolation, self.crop_to_aspect_ratio = interpolation, crop_to_aspect_ratio
        self.pad_to_aspect_ratio, self.fill_mode, self.fill_value = (pad_to_aspect_ratio,
                                                                     fill_mode, fill_value)
        self.antialias = antialias
        self.data_format = check_channels_last("Resizing", data_format)
        super().__init__(**kwargs)

    def call(self, inputs):
        check_image_rank(f"Resizing {self.name!r}", inputs.shape)
        if self.crop_to_aspect_ratio:
            inputs = crop_to_aspect_ratio(inputs, self.height, self.width)
        return cast(resize(inputs, (self.height, self.width), method=self.interpolation),
                    self.dtype)

    def compute_output_shape(self, input_shape):
        check_image_rank(f"Resizing {self.name!r}", input_shape)
        return (*input_shape[:-3], self.height, self.width, input_shape[-1])

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format,
                "height": self.height, "width": self.width,
                "interpolation": self.interpolation,
                "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                "pad_to_aspect_ratio": self.pad_to_aspect_ratio, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "antialias": self.antialias}


class CenterCrop(Layer):
    """The centred (height, width) crop of each image (its start rounded down). An image
    smaller than that is first cropped to the aspect ratio height:width and resized up
    (bilinear), as Keras 3 does.

    >>> image = tk.reshape(tk.range(16.0), [4, 4, 1])
    >>> tk.reshape(tk.layers.CenterCrop(2, 2)(image), [2, 2])
    tk.Tensor(
    [[ 5.  6.]
     [ 9. 10.]], shape=(2, 2), dtype=float32)
    """

    _cast_integer_inputs = True

    def __init__(self, height, width, data_format=None, **kwargs):
        self.height = positive_int(height, "height", "CenterCrop")
        self.width = positive_int(width, "width", "CenterCrop")
        self.data_format = check_channels_last("CenterCrop", data_format)
        super().__init__(**kwargs)

    def call(self, inputs):
        check_image_rank(f"CenterCrop {self.name!r}", inputs.shape)
        h_diff, w_diff = inputs.shape[-3] - self.height, inputs.shape[-2] - self.width
        if h_diff >= 0 and w_diff >= 0:
            top, left = h_diff // 2, w_diff // 2
            return inputs[..., top:top + self.height, left:left + self.width, :]
        return cast(smart_resize(inputs, self.height, self.width), self.dtype)

    def compute_output_shape(self, input_shape):
        check_image_rank(f"CenterCrop {self.name!r}", input_shape)
        return (*input_shape[:-3], self.height, self.width, input_shape[-1])

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format,
                "height": self.height, "width": self.width}


class CategoryEncoding(Layer):
    """Integer category ids (0 .. num_tokens - 1) as vectors of length num_tokens:
    output_mode "one_hot" (one vector per id; a trailing axis of 1 is dropped), "multi_hot"
    (one vector per sample: 1 where any of its ids is), or "count" (how many times each id
    occurs, or the sum of `count_weights` given with the call). A rank-1 input is one sample
    in multi_hot and count modes, as in Keras 3.

    >>> tk.layers.CategoryEncoding(num_tokens=4)(np.array([[0, 1], [3, 3]]))
    tk.Tensor(
    [[1. 1. 0. 0.]
     [0. 0. 0. 1.]], shape=(2, 4), dtype=float32)

    Beyond Keras: an id outside 0 .. num_tokens - 1 raises ValueError (Keras 3.15 leaves it
    out silently).
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of "
                             "tokens is not known beforehand, use the IntegerLookup layer "
                             "instead.")
        if output_mode not in ("one_hot", "multi_hot", "count"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if sparse:
            raise NotImplementedError("CategoryEncoding: sparse=True is not supported by "
                                      "tapekit (it has no sparse tensors)")
        self.num_tokens = positive_int(num_tokens, "num_tokens", "CategoryEncoding")
        self.output_mode, self.sparse = output_mode, sparse
        super().__init__(**kwargs)

    def call(self, inputs, count_weights=None):
        ids = np.asarray(inputs.numpy())
        if ids.size and (ids.min() < 0 or ids.max() >= self.num_tokens):
            bad = ids[(ids < 0) | (ids >= self.num_tokens)].ravel()[:5].tolist()
            raise ValueError(f"CategoryEncoding {self.name!r}: ids must be in 0 .. "
                             f"{self.num_tokens - 1} (num_tokens={self.num_tokens}), got "
                             f"{bad}")
        if self.output_mode == "one_hot" and ids.ndim > 1 and ids.shape[-1] == 1:
            inputs = reshape(inputs, ids.shape[:-1])
        encoded = one_hot(cast(inputs, "int64"), self.num_tokens, dtype=self.dtype)
        if self.output_mode == "one_hot":
            return encoded
        if self.output_mode == "multi_hot":
            return reduce_max(encoded, axis=-2)
        if count_weights is not None:
            encoded = encoded * cast(count_weights, self.dtype)[..., None]
        return reduce_sum(encoded, axis=-2)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "one_hot":
            kept = input_shape[:-1] if len(input_shape) > 1 and input_shape[-1] == 1 \
                else input_shape
            return (*kept, self.num_tokens)
        return (*input_shape[:-1], self.num_tokens)

    def get_config(self):
        return {**super().get_config(), "num_tokens": self.num_tokens,
                "output_mode": self.output_mode}
