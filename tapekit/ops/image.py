"""Image ops (tf.image): adjust_contrast and resize.

adjust_contrast is one that TensorFlow implements as a single op without a gradient; tapekit
has it for the autodiff guide's "No gradient registered" example: the forward pass is
TensorFlow's formula, and a gradient through it raises LookupError as in TensorFlow
(registry.NO_GRADIENT). resize is made of differentiable ops (a linear map per axis).
"""
import numpy as np

from ..tensor import Tensor
from .passthrough import cast
from .einsum import einsum
from .indexing import gather
from .registry import NO_GRADIENT, defop


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
