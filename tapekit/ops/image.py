"""Image ops (tf.image): contrast, brightness, resize, flips and rotations, crops and pads,
dtype and colour conversions, total variation, PSNR and standardization.

adjust_contrast is one that TensorFlow implements as a single op without a gradient; tapekit
has it for the autodiff guide's "No gradient registered" example: the forward pass is
TensorFlow's formula, and a gradient through it raises LookupError as in TensorFlow
(registry.NO_GRADIENT). The others are made of differentiable ops (resize is a linear map per
axis, a flip or crop a slice, a pad a pad), so each has its ops' gradients. The random ones
(random_flip_left_right, random_crop, ...) are in tapekit/image_augmentation.py: a draw from
tapekit.random, then one of these.
"""
import numpy as np

from .. import dtypes
from ..errors import InvalidArgumentError
from ..tensor import Tensor
from .arithmetic import abs as abs_, squared_difference
from .clipping import saturate_cast
from .conversion import convert_to_tensor
from .einsum import einsum
from .indexing import gather
from .inputs import python_value
from .matrix import tensordot
from .padding import pad
from .passthrough import cast
from .reductions import reduce_mean, reduce_sum
from .registry import NO_GRADIENT, defop
from .selection import maximum
from .shapes import expand_dims, transpose as transpose_axes
from .statistics import reduce_std
from .tiling import tile
from .transcendental import log


def _adjust_contrast(images, contrast_factor):
    # Per image and channel: the mean over height and width (axes -3, -2 of [..., H, W, C]).
    mean = images.mean(axis=(-3, -2), keepdims=True, dtype=images.dtype)
    factor = np.asarray(contrast_factor, dtype=images.dtype)
    return ((images - mean) * factor + mean).astype(images.dtype, copy=False)


adjust_contrast_op = defop("adjust_contrast", _adjust_contrast, args="images contrast_factor",
                           vjp=NO_GRADIENT)


def adjust_contrast(images, contrast_factor):
    """Scale each channel's distance from its mean: `(x - mean) * contrast_factor + mean`.

    `images` has shape [..., height, width, channels] and a floating dtype; the mean is taken
    per image and channel over height and width. As in TensorFlow (op AdjustContrastv2), no
    gradient is registered: `tape.gradient` through it raises LookupError (wrap the result in
    tk.stop_gradient to treat it as a constant).

    >>> image = tk.constant([[[0.0], [1.0]], [[2.0], [5.0]]])   # 2x2 pixels, one channel
    >>> tk.reshape(tk.image.adjust_contrast(image, 2.0), [-1])  # mean 2: 2 + 2 * (x - 2)
    tk.Tensor([-2.  0.  2.  8.], shape=(4,), dtype=float32)
    """
    shape = tuple(images.shape) if hasattr(images, "shape") else np.shape(images)
    dtype = getattr(images, "dtype", None)
    if len(shape) < 3:
        raise ValueError(f"adjust_contrast: images must have shape [..., height, width, channels] "
                         f"(at least 3 axes), got shape {shape}")
    if np.dtype(dtype if dtype is not None else np.asarray(images).dtype).kind != "f":
        raise TypeError(f"adjust_contrast: images must be floating point, got dtype {np.dtype(dtype).name}; "
                        f"convert first, e.g. tk.cast(images, tk.float32) / 255.0 for uint8 pixels")
    if np.ndim(getattr(contrast_factor, "_value", contrast_factor)) != 0:
        raise ValueError(f"adjust_contrast: contrast_factor must be one number, got shape "
                         f"{np.shape(getattr(contrast_factor, '_value', contrast_factor))}")
    return adjust_contrast_op(images, contrast_factor)


# --- resize: a linear map per spatial axis, so its gradient is the ops' own -------------------
RESIZE_METHODS = ("bilinear", "nearest")


class ResizeMethod:
    """The names of `resize`'s methods (`tf.image.ResizeMethod`); tapekit has the first two.

    >>> tk.image.ResizeMethod.NEAREST_NEIGHBOR
    'nearest'
    """
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _bilinear_matrix(size_in, size_out):
    """The (size_out, size_in) matrix of TensorFlow 2's bilinear resize along one axis (half
    pixel centres): output i reads the inputs at (i + 0.5) * size_in / size_out - 0.5, the
    two neighbours weighted by distance, clamped at the edges (no antialiasing)."""
    scale = size_in / size_out
    source = (np.arange(size_out, dtype=np.float64) + 0.5) * scale - 0.5
    low = np.floor(source)
    frac = (source - low).astype(np.float32)
    lower = np.clip(low, 0, size_in - 1).astype(np.int64)
    upper = np.clip(np.ceil(source), 0, size_in - 1).astype(np.int64)
    matrix = np.zeros((size_out, size_in), np.float32)
    rows = np.arange(size_out)
    np.add.at(matrix, (rows, lower), 1 - frac)
    np.add.at(matrix, (rows, upper), frac)
    return matrix


def _nearest_indices(size_in, size_out):
    """The input index each output reads in TensorFlow 2's nearest resize (half pixel
    centres): floor((i + 0.5) * size_in / size_out), at most size_in - 1."""
    scale = size_in / size_out
    return np.minimum(np.floor((np.arange(size_out) + 0.5) * scale).astype(np.int64),
                      size_in - 1)


def resize(images, size, method="bilinear", preserve_aspect_ratio=False, antialias=False,
           name=None):
    """Resize images of shape [batch, height, width, channels] (or one image, without the
    batch axis) to `size` = (new_height, new_width), as `tf.image.resize` does.

    method "bilinear" (the output is float32, as TensorFlow's) or "nearest" (the dtype is
    kept). Each is linear in the pixels, and is computed as such (a matrix product per axis
    for bilinear, a gather for nearest), so the gradient flows back to the pixels read.

    >>> image = tk.reshape(tk.constant([0.0, 1.0, 2.0, 3.0]), [1, 2, 2, 1])
    >>> tk.reshape(tk.image.resize(image, [3, 3]), [3, 3])    # TensorFlow 2.21 gives these
    tk.Tensor(
    [[0.  0.5 1. ]
     [1.  1.5 2. ]
     [2.  2.5 3. ]], shape=(3, 3), dtype=float32)
    """
    images = images if isinstance(images, Tensor) else np.asarray(images)
    if method not in RESIZE_METHODS:
        raise ValueError(f"resize: method must be one of {RESIZE_METHODS} in tapekit, got "
                         f"{method!r}")
    if antialias or preserve_aspect_ratio:
        raise NotImplementedError("resize: antialias=True and preserve_aspect_ratio=True are "
                                  "not supported by tapekit; resize to an explicit size")
    if images.ndim not in (3, 4):
        raise ValueError(f"resize: images must have shape [batch, height, width, channels] or "
                         f"[height, width, channels], got shape {tuple(images.shape)}")
    height, width = (int(n) for n in size)
    if height < 1 or width < 1:
        raise ValueError(f"resize: size must be two positive numbers (height, width), got "
                         f"{tuple(size)}")
    batched = images if images.ndim == 4 else images[None]
    in_h, in_w = batched.shape[1], batched.shape[2]
    if method == "nearest":
        out = gather(gather(batched, _nearest_indices(in_h, height), axis=1),
                     _nearest_indices(in_w, width), axis=2)
    else:
        if batched.dtype != np.float32:
            batched = cast(batched, "float32")
        out = einsum("oh,bhwc->bowc", _bilinear_matrix(in_h, height), batched)
        out = einsum("pw,bowc->bopc", _bilinear_matrix(in_w, width), out)
    return out if images.ndim == 4 else out[0]


# --- geometry: flips, rotations, crops and pads, all slices and pads of the pixels --------------

def image_tensor(images, op, ranks=(3, 4)):
    """`images` as a tensor (or array) of rank 3 ([height, width, channels]) or 4 (a batch)."""
    images = images if isinstance(images, Tensor) else convert_to_tensor(images)
    if images.ndim not in ranks:
        raise ValueError(f"{op}: 'image' (shape {tuple(images.shape)}) must be [height, width, "
                         f"channels] or [batch, height, width, channels] (3 or 4 axes)")
    return images


def flip_left_right(image):
    """Mirror images left to right (the width axis), as `tf.image.flip_left_right`.

    >>> tk.reshape(tk.image.flip_left_right(tk.reshape(tk.range(6.0), [3, 2, 1])), [3, 2])
    tk.Tensor(
    [[1. 0.]
     [3. 2.]
     [5. 4.]], shape=(3, 2), dtype=float32)
    """
    return image_tensor(image, "flip_left_right")[..., ::-1, :]


def flip_up_down(image):
    """Mirror images top to bottom (the height axis), as `tf.image.flip_up_down`.

    >>> tk.reshape(tk.image.flip_up_down(tk.reshape(tk.range(4.0), [2, 2, 1])), [2, 2])
    tk.Tensor(
    [[2. 3.]
     [0. 1.]], shape=(2, 2), dtype=float32)
    """
    image = image_tensor(image, "flip_up_down")
    return image[::-1] if image.ndim == 3 else image[:, ::-1]


def rot90(image, k=1, name=None):
    """Rotate images by 90 degrees `k` times, counter-clockwise, as `tf.image.rot90`.

    >>> tk.reshape(tk.image.rot90(tk.reshape(tk.range(4.0), [2, 2, 1])), [2, 2])
    tk.Tensor(
    [[1. 3.]
     [0. 2.]], shape=(2, 2), dtype=float32)
    """
    image = image_tensor(image, "rot90")
    k = int(python_value(k)) % 4
    h, w = image.ndim - 3, image.ndim - 2                # the height and width axes
    perm = list(range(image.ndim))
    perm[h], perm[w] = w, h
    if k == 1:
        return transpose_axes(flip_left_right(image), perm)
    if k == 2:
        return flip_up_down(flip_left_right(image))
    if k == 3:
        return transpose_axes(flip_up_down(image), perm)
    return image


def transpose(image, name=None):
    """Swap the height and width axes (`tf.image.transpose`; tk.transpose permutes any axes).

    >>> tk.image.transpose(tk.zeros([2, 5, 3])).shape
    (5, 2, 3)
    """
    image = image_tensor(image, "transpose")
    perm = list(range(image.ndim))
    perm[-3], perm[-2] = perm[-2], perm[-3]
    return transpose_axes(image, perm)


def _box(image, op, offset_height, offset_width, target_height, target_width):
    """The four sizes as ints, each checked: ValueError naming the one that does not fit."""
    sizes = {"offset_height": offset_height, "offset_width": offset_width,
             "target_height": target_height, "target_width": target_width}
    sizes = {k: int(python_value(v)) for k, v in sizes.items()}
    for k, v in sizes.items():
        if v < 0 or (k.startswith("target") and v == 0):
            raise ValueError(f"{op}: {k} must be {'> 0' if k.startswith('target') else '>= 0'}, "
                             f"got {v}")
    return sizes.values()


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The `target_height` x `target_width` box whose top-left corner is at (offset_height,
    offset_width), as `tf.image.crop_to_bounding_box`; the gradient reaches the pixels kept.

    >>> image = tk.reshape(tk.range(12.0), [3, 4, 1])
    >>> tk.reshape(tk.image.crop_to_bounding_box(image, 1, 1, 2, 2), [2, 2])
    tk.Tensor(
    [[ 5.  6.]
     [ 9. 10.]], shape=(2, 2), dtype=float32)
    """
    image = image_tensor(image, "crop_to_bounding_box")
    top, left, height, width = _box(image, "crop_to_bounding_box", offset_height, offset_width,
                                    target_height, target_width)
    in_h, in_w = image.shape[-3], image.shape[-2]
    if top + height > in_h or left + width > in_w:
        raise ValueError(f"crop_to_bounding_box: the box rows {top}..{top + height - 1}, columns "
                         f"{left}..{left + width - 1} does not fit in an image of height {in_h} "
                         f"and width {in_w} (TensorFlow: height and width must be >= target + "
                         f"offset)")
    return image[..., top:top + height, left:left + width, :]


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Zeros around the image so that it sits at (offset_height, offset_width) in a
    `target_height` x `target_width` canvas, as `tf.image.pad_to_bounding_box`.

    >>> tk.reshape(tk.image.pad_to_bounding_box(tk.ones([1, 1, 1]), 1, 1, 2, 3), [2, 3])
    tk.Tensor(
    [[0. 0. 0.]
     [0. 1. 0.]], shape=(2, 3), dtype=float32)
    """
    image = image_tensor(image, "pad_to_bounding_box")
    top, left, height, width = _box(image, "pad_to_bounding_box", offset_height, offset_width,
                                    target_height, target_width)
    in_h, in_w = image.shape[-3], image.shape[-2]
    bottom, right = height - top - in_h, width - left - in_w
    if bottom < 0 or right < 0:
        raise ValueError(f"pad_to_bounding_box: an image of height {in_h} and width {in_w} at "
                         f"offset ({top}, {left}) does not fit in {height} x {width} (TensorFlow: "
                         f"height and width must be <= target - offset)")
    paddings = [[0, 0]] * (image.ndim - 3) + [[top, bottom], [left, right], [0, 0]]
    return pad(image, paddings)


def central_crop(image, central_fraction):
    """The central part of each image: `central_fraction` of its height and of its width,
    the offsets rounded down as TensorFlow's `tf.image.central_crop` does.

    >>> tk.image.central_crop(tk.zeros([6, 9, 3]), 0.5).shape
    (4, 5, 3)
    """
    image = image_tensor(image, "central_crop")
    fraction = float(python_value(central_fraction))
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"central_crop: central_fraction must be within (0, 1], got {fraction}")
    if fraction == 1.0:
        return image
    in_h, in_w = image.shape[-3], image.shape[-2]
    top, left = int((in_h - in_h * fraction) / 2), int((in_w - in_w * fraction) / 2)
    return image[..., top:in_h - top, left:in_w - left, :]


# --- colour and dtype ---------------------------------------------------------------------------

def _max(dtype):
    return np.iinfo(dtype).max


def _pixels_to_int(scaled, dtype):
    # The range check is part of the op, so that a tk.function's replay checks each new input
    # (a check read in Python would run at its trace only, and a replay would wrap around).
    info = np.iinfo(dtype)
    if scaled.size and (scaled.min() <= info.min - 1 or scaled.max() >= info.max + 1):
        raise ValueError(f"convert_image_dtype: {scaled.dtype.name} pixels scaled to "
                         f"{np.dtype(dtype).name} reach {scaled.min():g}..{scaled.max():g}, outside "
                         f"{info.min}..{info.max}; TensorFlow wraps such values around without a "
                         f"word. Pass saturate=True to clip them, or keep float pixels in [0, 1]")
    return scaled.astype(dtype)


pixels_to_int_op = defop("pixels_to_int", _pixels_to_int, args="x", vjp=None)   # integer pixels


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Convert pixels between dtypes, as `tf.image.convert_image_dtype`: floats are in [0, 1],
    integers in [0, the dtype's max]; float to float is a cast, integer to float scales by
    1/max, float to integer by max + 0.5 (then truncates), integer to integer by a power of two.

    Where TensorFlow's float-to-integer cast overflows (a value outside [0, 1], or 1.0 into
    int32, which float32 rounds up to 2**31) it wraps around silently; tapekit raises a
    ValueError instead, unless saturate=True, which clips first as TensorFlow does.

    >>> tk.image.convert_image_dtype(tk.constant([0, 128, 255], dtype=tk.uint8), tk.float32)
    tk.Tensor([0.        0.5019608 1.       ], shape=(3,), dtype=float32)
    >>> tk.image.convert_image_dtype(tk.constant([0.0, 0.5, 1.0]), tk.uint8)
    tk.Tensor([  0 127 255], shape=(3,), dtype=uint8)
    """
    image = image if isinstance(image, Tensor) else convert_to_tensor(image)
    src, dst = np.dtype(image.dtype), dtypes.as_dtype(dtype)
    for d in (src, dst):
        if d.kind not in "fiu":
            raise TypeError(f"convert_image_dtype: images are floating or integer pixels, got "
                            f"dtype {d.name}")
    if src == dst:
        return image
    if src.kind in "iu" and dst.kind in "iu":
        scale_in, scale_out = _max(src) + 1, _max(dst) + 1
        if scale_in > scale_out:
            return cast(image // (scale_in // scale_out), dst)
        return cast(image, dst) * (scale_out // scale_in)
    if src.kind == "f" and dst.kind == "f":
        return cast(image, dst)
    if src.kind in "iu":                                   # integer -> float
        return cast(image, dst) * np.asarray(1.0 / _max(src), dst)
    scaled = image * np.asarray(_max(dst) + 0.5, src)       # float -> integer
    if saturate:
        return saturate_cast(scaled, dst)
    return pixels_to_int_op(scaled, dtype=dst)


RGB_WEIGHTS = (0.2989, 0.5870, 0.1140)    # TensorFlow's (ITU-R BT.601 luma)


def rgb_to_grayscale(images, name=None):
    """One channel of luma, 0.2989 R + 0.5870 G + 0.1140 B, in the input's dtype (computed in
    float32, as `tf.image.rgb_to_grayscale`).

    >>> tk.image.rgb_to_grayscale(tk.constant([[[1.0, 1.0, 0.0]]]))
    tk.Tensor([[[0.8859]]], shape=(1, 1, 1), dtype=float32)
    """
    images = image_tensor(images, "rgb_to_grayscale", ranks=range(1, 64))
    if images.shape[-1] != 3:
        raise InvalidArgumentError(f"rgb_to_grayscale: the last axis holds the R, G, B channels "
                                   f"and must have size 3, got shape {tuple(images.shape)}")
    flt = convert_image_dtype(images, dtypes.float32)
    gray = tensordot(flt, np.asarray(RGB_WEIGHTS, np.float32), [[-1], [-1]])
    return convert_image_dtype(expand_dims(gray, -1), images.dtype)


def grayscale_to_rgb(images, name=None):
    """The one channel repeated as R, G and B (`tf.image.grayscale_to_rgb`).

    >>> tk.image.grayscale_to_rgb(tk.constant([[[0.5]]]))
    tk.Tensor([[[0.5 0.5 0.5]]], shape=(1, 1, 3), dtype=float32)
    """
    images = image_tensor(images, "grayscale_to_rgb", ranks=range(2, 64))
    if images.shape[-1] != 1:
        raise ValueError(f"grayscale_to_rgb: the last axis of a grayscale image must have size "
                         f"1, got shape {tuple(images.shape)}")
    return tile(images, [1] * (images.ndim - 1) + [3])


def adjust_brightness(image, delta):
    """Add `delta` to every pixel (`tf.image.adjust_brightness`); integer pixels are converted
    to float in [0, 1], shifted, and converted back, clipped.

    >>> tk.image.adjust_brightness(tk.constant([0.2, 0.7]), 0.1)
    tk.Tensor([0.3 0.8], shape=(2,), dtype=float32)
    """
    image = image if isinstance(image, Tensor) else convert_to_tensor(image)
    if np.dtype(image.dtype).kind == "f":
        return image + cast(delta, image.dtype)
    shifted = convert_image_dtype(image, dtypes.float32) + cast(delta, dtypes.float32)
    return convert_image_dtype(shifted, image.dtype, saturate=True)


# --- measures over images -----------------------------------------------------------------------

def total_variation(images, name=None):
    """The sum of absolute differences between neighbouring pixels, down and across: one
    number for an image, one per image for a batch (`tf.image.total_variation`).

    >>> tk.image.total_variation(tk.constant([[[1.0], [3.0]], [[0.0], [5.0]]]))  # |3-1|+|5-0|+|0-1|+|5-3|
    tk.Tensor(10.0, shape=(), dtype=float32)
    """
    images = image_tensor(images, "total_variation")
    down = images[..., 1:, :, :] - images[..., :-1, :, :]
    across = images[..., :, 1:, :] - images[..., :, :-1, :]
    axes = [-3, -2, -1]
    return reduce_sum(abs_(down), axis=axes) + reduce_sum(abs_(across), axis=axes)


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio between two batches of images, in decibels, one per image:
    20 log10(max_val) - 10 log10(mean squared difference), in float32 (`tf.image.psnr`;
    integer pixels and `max_val` are first converted to [0, 1] as TensorFlow does).

    >>> a = tk.fill([1, 2, 2, 1], 0.5)
    >>> round(float(tk.image.psnr(a, a + 0.1, max_val=1.0)[0]), 4)   # -10 log10(0.1 ** 2)
    20.0
    """
    a = image_tensor(a, "psnr", ranks=range(3, 64))
    b = image_tensor(b, "psnr", ranks=range(3, 64))
    if a.dtype != b.dtype:
        raise TypeError(f"psnr: a and b must have one dtype, got {a.dtype.name} and {b.dtype.name}")
    peak = convert_image_dtype(cast(max_val, a.dtype), dtypes.float32)
    mse = reduce_mean(squared_difference(convert_image_dtype(a, dtypes.float32),
                                         convert_image_dtype(b, dtypes.float32)), axis=[-3, -2, -1])
    ln10 = np.float32(np.log(10.0))
    return 20.0 * log(peak) / ln10 - (10.0 / ln10) * log(mse)


def per_image_standardization(image):
    """Each image scaled to mean 0 and standard deviation 1: (x - mean) / max(std, 1/sqrt(N))
    over its N pixel values (`tf.image.per_image_standardization`; integers become float32).

    >>> tk.reshape(tk.image.per_image_standardization(tk.constant([[[1.0], [3.0]]])), [-1])
    tk.Tensor([-1.  1.], shape=(2,), dtype=float32)
    """
    image = image_tensor(image, "per_image_standardization")
    if np.dtype(image.dtype).kind != "f":
        image = cast(image, dtypes.float32)
    n = int(np.prod(image.shape[-3:]))
    axes = [-3, -2, -1]
    mean = reduce_mean(image, axis=axes, keepdims=True)
    std = maximum(reduce_std(image, axis=axes, keepdims=True), np.asarray(1.0 / np.sqrt(n), image.dtype))
    return (image - mean) / std
