"""Random image augmentation layers (Keras 3's): RandomFlip, RandomRotation, RandomZoom,
RandomTranslation, RandomContrast and RandomCrop.

    augment = tk.Sequential([tk.layers.RandomFlip("horizontal"), tk.layers.RandomRotation(0.1)])
    model = tk.Sequential([tk.Input((32, 32, 3)), augment, ...])

In training (fit, or a direct call: their `training` defaults to True, as in Keras 3) each
image gets its own random transform; with training=False (evaluate, predict) each layer
returns its input unchanged. The draws come from tapekit's random streams
(`tk.random.set_seed`, and the layer's `seed`), so a seeded run repeats itself exactly; they
cannot be TensorFlow's draws, which come from another generator. What is Keras's is the
range of each draw, the geometry of each transform and the fill modes.

A transform moves pixels: each output pixel reads the input at a point (bilinear: the four
neighbours weighted; nearest: the closest), by a gather, so the gradient flows back to the
pixels read. Points outside the image are filled by `fill_mode`: "reflect" (d c b a | a b c
d | d c b a), "wrap" (a b c d | a b c d), "nearest" (a a a a | a b c d | d d d d) or
"constant" (`fill_value`).
"""
import math

import numpy as np

from ... import random
from ...ops import cast, clip_by_value, gather, reduce_mean, reshape, where
from .arguments import positive_int
from .base import Layer
from .preprocessing import check_channels_last, check_image_rank, smart_resize

FILL_MODES = ("reflect", "wrap", "constant", "nearest")
INTERPOLATIONS = ("bilinear", "nearest")


def factor_range(factor, bounds, what="factor", layer=""):
    """(lower, upper) of a factor given as a number f (-f..f, cut to `bounds`) or a pair, as
    Keras 3 reads it; a value outside `bounds` raises Keras's message."""
    message = (f"The `{what}` argument should be a number (or a list of two numbers) in the "
               f"range [{bounds[0]}, {bounds[1]}]. Received: {what}={factor}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or not all(isinstance(f, (int, float)) for f in factor):
            raise ValueError(message)
        lower, upper = sorted(float(f) for f in factor)
        if lower < bounds[0] or upper > bounds[1]:
            raise ValueError(message)
        return lower, upper
    if isinstance(factor, bool) or not isinstance(factor, (int, float)):
        raise ValueError(message)
    if not bounds[0] <= factor <= bounds[1]:
        raise ValueError(message)
    factor = abs(float(factor))
    return max(-factor, bounds[0]), factor


def _check_fill(layer, fill_mode, interpolation):
    if fill_mode not in FILL_MODES:
        raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one "
                                  f"{FILL_MODES}.")
    if interpolation not in INTERPOLATIONS:
        raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one "
                                  f"{INTERPOLATIONS}.")


def _fold(coordinate, size, fill_mode):
    """Integer coordinates folded into 0..size-1 by the fill mode, and where they were inside."""
    inside = (coordinate >= 0) & (coordinate < size)
    if fill_mode == "reflect":          # period 2*size: d c b a | a b c d | d c b a
        c = np.mod(coordinate, 2 * size)
        coordinate = np.where(c >= size, 2 * size - 1 - c, c)
    elif fill_mode == "wrap":
        coordinate = np.mod(coordinate, size)
    else:                               # nearest, and constant's (then masked) positions
        coordinate = np.clip(coordinate, 0, size - 1)
    return coordinate, inside


def sample(images, source_y, source_x, interpolation, fill_mode, fill_value):
    """images (batch, h, w, c) read at the points (source_y, source_x), each (batch, H, W):
    the (batch, H, W, c) output, by gathers of the flattened pixels (differentiable in the
    images)."""
    b, h, w, c = images.shape
    flat = reshape(images, (b * h * w, c))
    base = (np.arange(b) * h * w)[:, None, None]

    def read(y, x):
        (y, inside_y), (x, inside_x) = _fold(y, h, fill_mode), _fold(x, w, fill_mode)
        values = gather(flat, (base + y * w + x).reshape(-1))
        values = reshape(values, (b, *y.shape[1:], c))
        if fill_mode == "constant":
            inside = (inside_y & inside_x)[..., None]
            values = where(np.broadcast_to(inside, values.shape), values,
                           cast(fill_value, images.dtype))
        return values

    if interpolation == "nearest":
        return read(np.round(source_y).astype(np.int64), np.round(source_x).astype(np.int64))
    y0, x0 = np.floor(source_y), np.floor(source_x)
    wy, wx = (source_y - y0)[..., None], (source_x - x0)[..., None]
    y0, x0 = y0.astype(np.int64), x0.astype(np.int64)
    dtype = images.dtype
    weights = [((1 - wy) * (1 - wx)), ((1 - wy) * wx), (wy * (1 - wx)), (wy * wx)]
    reads = [read(y0, x0), read(y0, x0 + 1), read(y0 + 1, x0), read(y0 + 1, x0 + 1)]
    out = None
    for weight, value in zip(weights, reads):
        term = value * cast(weight.astype(np.float32), dtype)
        out = term if out is None else out + term
    return out


def _grid(h, w):
    """Each output pixel's offsets from the image's centre, (dy, dx), of shape (h, w)."""
    dy, dx = np.meshgrid(np.arange(h) - (h - 1) / 2, np.arange(w) - (w - 1) / 2, indexing="ij")
    return dy, dx


class _RandomImageLayer(Layer):
    """An augmentation: `transform(images)` in training, the input unchanged otherwise; one
    image (h, w, c) is handled as a batch of one."""

    _cast_integer_inputs = True

    def __init__(self, seed=None, data_format=None, **kwargs):
        self.seed = seed
        self.data_format = check_channels_last(type(self).__name__, data_format)
        super().__init__(**kwargs)

    def call(self, inputs, training=True):
        check_image_rank(f"{type(self).__name__} {self.name!r}", inputs.shape)
        if not training:
            return inputs
        batched = inputs if inputs.ndim == 4 else inputs[None]
        out = self.transform(batched)
        return out if inputs.ndim == 4 else out[0]

    def _uniform(self, shape, low, high):
        """Draws in [low, high) from tapekit's streams (the layer's seed, the global seed);
        a range of one value is that value."""
        if low == high:
            return np.full(shape, float(low))
        return random.uniform(shape, low, high, dtype="float32", seed=self.seed).numpy() \
            .astype(np.float64)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, "seed": self.seed}


class RandomFlip(_RandomImageLayer):
    """Flip each image left-right ("horizontal"), up-down ("vertical") or either
    ("horizontal_and_vertical", each independently), each with probability 1/2.

    >>> tk.random.set_seed(0)
    >>> flip = tk.layers.RandomFlip("horizontal", seed=3)
    >>> image = tk.reshape(tk.constant([1.0, 2.0, 3.0]), [1, 3, 1])
    >>> tk.reshape(flip(image, training=False), [3])             # inference: unchanged
    tk.Tensor([1. 2. 3.], shape=(3,), dtype=float32)
    >>> sorted({tuple(tk.reshape(flip(image), [3]).numpy().tolist()) for _ in range(20)})
    [(1.0, 2.0, 3.0), (3.0, 2.0, 1.0)]

    An unknown mode raises ValueError (Keras 3.15 accepts it and flips nothing).
    """

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None, **kwargs):
        if mode not in ("horizontal", "vertical", "horizontal_and_vertical"):
            raise ValueError(f"RandomFlip layer {kwargs.get('name')!r} received an unknown "
                             f"mode argument {mode!r}; expected 'horizontal', 'vertical' or "
                             f"'horizontal_and_vertical'")
        self.mode = mode
        super().__init__(seed=seed, data_format=data_format, **kwargs)

    def transform(self, images):
        b, h, w, _ = images.shape
        rows, cols = np.broadcast_to(np.arange(h)[:, None], (b, h, w)), \
            np.broadcast_to(np.arange(w)[None, :], (b, h, w))
        if "horizontal" in self.mode:
            flip = self._uniform((b, 1, 1), 0, 1) < 0.5
            cols = np.where(flip, w - 1 - cols, cols)
        if "vertical" in self.mode:
            flip = self._uniform((b, 1, 1), 0, 1) < 0.5
            rows = np.where(flip, h - 1 - rows, rows)
        return sample(images, rows.astype(float), cols.astype(float), "nearest", "nearest", 0)

    def get_config(self):
        return {**super().get_config(), "mode": self.mode}


class _AffineLayer(_RandomImageLayer):
    """The fill_mode / interpolation / fill_value arguments of the geometric augmentations."""

    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        _check_fill(type(self).__name__, fill_mode, interpolation)
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value
        super().__init__(seed=seed, data_format=data_format, **kwargs)

    def _sample(self, images, source_y, source_x):
        return sample(images, source_y, source_x, self.interpolation, self.fill_mode,
                      self.fill_value)

    def get_config(self):
        return {**super().get_config(), "fill_mode": self.fill_mode,
                "interpolation": self.interpolation, "fill_value": self.fill_value}


class RandomRotation(_AffineLayer):
    """Rotate each image about its centre by an angle drawn from factor * 2π: factor=0.1 is
    up to ±36°, factor=(-0.1, 0.3) from -36° to 108°; a positive angle turns the picture
    counter-clockwise, as in Keras 3.

    >>> image = tk.reshape(tk.constant([[1.0, 2.0], [3.0, 4.0]]), [2, 2, 1])
    >>> quarter = tk.layers.RandomRotation((0.25, 0.25))       # exactly 90°
    >>> tk.reshape(quarter(image), [2, 2])                      # np.rot90's turn
    tk.Tensor(
    [[2. 4.]
     [1. 3.]], shape=(2, 2), dtype=float32)
    """

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        self.factor = factor_range(factor, (-1, 1))
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)

    def transform(self, images):
        b, h, w, _ = images.shape
        angle = self._uniform((b, 1, 1), *self.factor) * 2 * math.pi
        dy, dx = _grid(h, w)
        cos, sin = np.cos(angle), np.sin(angle)
        # output pixel (dy, dx) reads the input where the counter-clockwise turn brought it from
        source_x = cos * dx - sin * dy + (w - 1) / 2
        source_y = sin * dx + cos * dy + (h - 1) / 2
        return self._sample(images, _snap(source_y), _snap(source_x))

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor)}


def _snap(coordinates):
    """Coordinates within float rounding of an integer made that integer (a 90° turn reads
    whole pixels, not 1e-16 of a neighbour)."""
    rounded = np.round(coordinates)
    return np.where(np.abs(coordinates - rounded) < 1e-9, rounded, coordinates)


class RandomZoom(_AffineLayer):
    """Zoom each image about its centre: the height is scaled by 1 + a draw from
    height_factor (positive: zoom out, negative: zoom in; 0.2 is -0.2..0.2), the width by 1 +
    a draw from width_factor, or by the height's scale when width_factor is None (the aspect
    ratio kept).

    >>> tk.random.set_seed(0)
    >>> zoom = tk.layers.RandomZoom((-0.5, -0.5), interpolation="nearest")   # 2x zoom in
    >>> image = tk.reshape(tk.range(16.0), [4, 4, 1])
    >>> tk.reshape(zoom(image), [4, 4])
    tk.Tensor(
    [[ 5.  5.  6.  6.]
     [ 5.  5.  6.  6.]
     [ 9.  9. 10. 10.]
     [ 9.  9. 10. 10.]], shape=(4, 4), dtype=float32)
    """

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        self.height_factor, self.width_factor = height_factor, width_factor
        self._height = _zoom_range(height_factor, "height_factor")
        self._width = None if width_factor is None else _zoom_range(width_factor, "width_factor")
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)

    def transform(self, images):
        b, h, w, _ = images.shape
        zoom_h = 1 + self._uniform((b, 1, 1), *self._height)
        zoom_w = zoom_h if self._width is None else 1 + self._uniform((b, 1, 1), *self._width)
        dy, dx = _grid(h, w)
        return self._sample(images, _snap(dy * zoom_h + (h - 1) / 2),
                            _snap(dx * zoom_w + (w - 1) / 2))

    def get_config(self):
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor}


def _zoom_range(factor, what):
    lower, upper = (sorted(factor) if isinstance(factor, (tuple, list)) else (-factor, factor))
    if lower <= -1 or upper <= -1 or (isinstance(factor, (tuple, list)) and len(factor) != 2):
        raise ValueError(f"The `height_factor` and `width_factor` arguments should be a number "
                         f"(or a list of two numbers) in the range (-1.0, 1.0]. Received: "
                         f"input_number={factor}")
    return lower, upper


class RandomTranslation(_AffineLayer):
    """Shift each image by a fraction of its height (height_factor: 0.2 is up to 20% up or
    down; positive moves it down) and of its width (positive moves it right).

    >>> shift = tk.layers.RandomTranslation((0.5, 0.5), 0.0, fill_mode="constant")
    >>> image = tk.reshape(tk.constant([1.0, 2.0, 3.0, 4.0]), [4, 1, 1])
    >>> tk.reshape(shift(image), [4])                      # two rows down, zeros above
    tk.Tensor([0. 0. 1. 2.], shape=(4,), dtype=float32)
    """

    def __init__(self, height_factor, width_factor, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        self.height_factor, self.width_factor = height_factor, width_factor
        self._height = _translation_range(height_factor)
        self._width = _translation_range(width_factor)
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)

    def transform(self, images):
        b, h, w, _ = images.shape
        shift_y = self._uniform((b, 1, 1), *self._height) * h
        shift_x = self._uniform((b, 1, 1), *self._width) * w
        rows, cols = np.meshgrid(np.arange(h, dtype=float), np.arange(w, dtype=float),
                                 indexing="ij")
        return self._sample(images, _snap(rows - shift_y), _snap(cols - shift_x))

    def get_config(self):
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor}


def _translation_range(factor):
    message = (f"The `factor` argument should be a number (or a list of two numbers) in the "
               f"range [-1.0, 1.0]. Received: input_number={factor}")
    lower, upper = (sorted(factor) if isinstance(factor, (tuple, list)) else (-factor, factor))
    if lower < -1 or upper > 1 or (isinstance(factor, (tuple, list)) and len(factor) != 2):
        raise ValueError(message)
    return lower, upper


class RandomContrast(_RandomImageLayer):
    """Scale each image's distance from its mean (per channel, over height and width) by a
    contrast factor drawn for that image, then clip to `value_range`.

    As in Keras 3.15 the factor is drawn from [1 - lower, 1 + upper] where factor=f reads as
    (lower, upper) = (0, f): RandomContrast(0.3) draws from 1..1.3 (it never lowers the
    contrast); factor=(a, b) draws from 1 - a .. 1 + b.

    >>> tk.random.set_seed(0)
    >>> contrast = tk.layers.RandomContrast(0.5, value_range=(0, 1))
    >>> image = tk.reshape(tk.constant([0.25, 0.75]), [1, 2, 1])
    >>> out = tk.reshape(contrast(image), [2]).numpy()
    >>> bool(out[0] <= 0.25 and out[1] >= 0.75 and abs(out.mean() - 0.5) < 1e-6)
    True
    """

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        self.factor = factor_range(factor, (0, 1))
        self.value_range = value_range
        super().__init__(seed=seed, **kwargs)

    def transform(self, images):
        b = images.shape[0]
        factor = self._uniform((b, 1, 1, 1), 1 - self.factor[0], 1 + self.factor[1])
        mean = reduce_mean(reduce_mean(images, axis=1, keepdims=True), axis=2, keepdims=True)
        out = (images - mean) * cast(factor.astype(np.float32), images.dtype) + mean
        return clip_by_value(out, *(cast(v, images.dtype) for v in self.value_range))

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor),
                "value_range": list(self.value_range)}


class RandomCrop(_RandomImageLayer):
    """In training, a random (height, width) crop of each batch (one window for the batch, as
    Keras 3 draws it); an input not larger than that on both sides is centre-cropped to the
    aspect ratio and resized instead. With training=False the input is returned unchanged
    (what Keras 3.15 does, whatever its size).

    >>> tk.random.set_seed(0)
    >>> image = tk.reshape(tk.range(16.0), [4, 4, 1])
    >>> crop = tk.layers.RandomCrop(2, 2)
    >>> crop(image).shape, crop(image, training=False).shape
    ((2, 2, 1), (4, 4, 1))
    """

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        self.height = positive_int(height, "height", "RandomCrop")
        self.width = positive_int(width, "width", "RandomCrop")
        super().__init__(seed=seed, data_format=data_format, name=name, **kwargs)

    def transform(self, images):
        _, h, w, _ = images.shape
        if h > self.height and w > self.width:
            top = int(self._uniform((), 0, h - self.height + 1))
            left = int(self._uniform((), 0, w - self.width + 1))
            return images[:, top:top + self.height, left:left + self.width, :]
        return cast(smart_resize(images, self.height, self.width), self.dtype)

    def compute_output_shape(self, input_shape):
        check_image_rank(f"RandomCrop {self.name!r}", input_shape)
        return (*input_shape[:-3], self.height, self.width, input_shape[-1])

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width}
