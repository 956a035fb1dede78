"""Image adjustments (tf.image) that TensorFlow implements as single ops without a gradient.

tapekit has them for the autodiff guide's "No gradient registered" example: the forward
pass is TensorFlow's formula, and a gradient through them raises LookupError as in
TensorFlow (registry.NO_GRADIENT).
"""
import numpy as np

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
