"""keras.ops.image: resize and extract_patches, on tapekit's ops (tk.image.resize, slicing).

Images are channels_last, (batch, height, width, channels) or one image without the batch
axis; data_format="channels_first" reads (batch, channels, height, width).

    >>> image = tk.reshape(tk.range(16.0), [1, 4, 4, 1])
    >>> tk.keras.ops.shape(tk.keras.ops.image.resize(image, (2, 2)))
    (1, 2, 2, 1)
    >>> patches = tk.keras.ops.image.extract_patches(image, 2)      # 2x2 patches, stride 2
    >>> patches[0, 0, 0]
    tk.Tensor([0. 1. 4. 5.], shape=(4,), dtype=float32)
"""
import numbers

import numpy as np

from ... import ops as tk_ops   # tapekit's op table, by TensorFlow's names (tapekit/ops/)
from ...ops.image import resize as tf_resize
from ...namespaces import missing, public_dir
from .promotion import is_float, to_tensor

__all__ = ["extract_patches", "resize"]

INTERPOLATIONS = ("bilinear", "nearest")


def _data_format(data_format, what):
    data_format = data_format or "channels_last"      # keras.config.image_data_format()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"keras.ops.image.{what}: data_format must be 'channels_last' or "
                         f"'channels_first', got {data_format!r}")
    return data_format


def _channels_last(images, data_format, what):
    """(images as a 4-D channels_last tensor, a function that gives a result back the way the
    images came: without the batch axis, or channels first)."""
    x = to_tensor(images)
    if x.ndim not in (3, 4):
        raise ValueError(f"keras.ops.image.{what}: images must have 3 axes (one image) or 4 "
                         f"(a batch), got shape {tuple(x.shape)}")
    single, first = x.ndim == 3, _data_format(data_format, what) == "channels_first"
    if single:
        x = tk_ops.expand_dims(x, 0)
    if first:
        x = tk_ops.transpose(x, [0, 2, 3, 1])

    def back(y):
        y = tk_ops.transpose(y, [0, 3, 1, 2]) if first else y
        return tk_ops.squeeze(y, axis=0) if single else y
    return x, back


def resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
           pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, data_format=None):
    """images resized to size = (height, width), bilinear or nearest (tk.image.resize does
    it, differentiably). An integer image comes back in its dtype, rounded and clipped to
    its range, as in Keras 3; antialias and the aspect-ratio options are not in tapekit."""
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"keras.ops.image.resize: interpolation must be one of "
                         f"{INTERPOLATIONS} in tapekit, got {interpolation!r}")
    if antialias or crop_to_aspect_ratio or pad_to_aspect_ratio:
        raise NotImplementedError("keras.ops.image.resize: antialias, crop_to_aspect_ratio and "
                                  "pad_to_aspect_ratio are not in tapekit; leave them False "
                                  "(crop or pad the images first with slicing or tk.pad)")
    x, back = _channels_last(images, data_format, "resize")
    dtype = x.dtype
    out = tf_resize(x, [int(s) for s in size], method=interpolation)
    if out.dtype != dtype:                         # bilinear gives float32; Keras gives x's dtype
        if is_float(dtype):
            out = tk_ops.cast(out, dtype)
        else:
            info = np.iinfo(dtype)
            out = tk_ops.cast(tk_ops.clip_by_value(tk_ops.round(out), float(info.min),
                                                   float(info.max)), dtype)
    return back(out)


def _pair(value, what, name):
    if isinstance(value, numbers.Integral):
        return int(value), int(value)
    pair = tuple(int(v) for v in value)
    if len(pair) != 2:
        raise ValueError(f"keras.ops.image.{what}: {name} must be an int or a pair "
                         f"(height, width), got {value!r}")
    return pair


def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid",
                    data_format=None):
    """Every size[0] x size[1] patch of the images, `strides` apart (size by default), each
    flattened into the last axis (rows, then columns, then channels): shape (batch, rows,
    cols, size[0] * size[1] * channels). padding "same" pads with zeros so there are
    ceil(height / stride) rows. Built from strided slices, so the gradient reaches every
    pixel a patch holds."""
    kh, kw = _pair(size, "extract_patches", "size")
    sh, sw = _pair(strides if strides is not None else (kh, kw), "extract_patches", "strides")
    dh, dw = _pair(dilation_rate, "extract_patches", "dilation_rate")
    if padding not in ("valid", "same"):
        raise ValueError(f"keras.ops.image.extract_patches: padding must be 'valid' or 'same', "
                         f"got {padding!r}")
    x, back = _channels_last(images, data_format, "extract_patches")
    _, height, width, channels = (int(d) for d in x.shape)
    eh, ew = (kh - 1) * dh + 1, (kw - 1) * dw + 1        # the span a dilated patch covers
    if padding == "same":
        rows, cols = -(-height // sh), -(-width // sw)
        ph, pw = max((rows - 1) * sh + eh - height, 0), max((cols - 1) * sw + ew - width, 0)
        x = tk_ops.pad(x, [[0, 0], [ph // 2, ph - ph // 2], [pw // 2, pw - pw // 2], [0, 0]])
    else:
        rows, cols = (height - eh) // sh + 1, (width - ew) // sw + 1
        if rows <= 0 or cols <= 0:
            raise ValueError(f"keras.ops.image.extract_patches: a {kh}x{kw} patch (dilation "
                             f"{dh}x{dw}) does not fit in a {height}x{width} image; use "
                             f"padding='same' or a smaller size")
    pieces = [x[:, i * dh: i * dh + (rows - 1) * sh + 1: sh, j * dw: j * dw + (cols - 1) * sw + 1: sw, :]
              for i in range(kh) for j in range(kw)]
    patches = tk_ops.stack(pieces, axis=3)            # (batch, rows, cols, kh * kw, channels)
    patches = tk_ops.reshape(patches, [-1, rows, cols, kh * kw * channels])
    return back(patches)


__dir__ = public_dir(globals())
__getattr__ = missing(__name__)
