"""Window geometry shared by conv.py and pooling.py: TensorFlow's arguments, padding, views.

A filter or a pooling window slides over NHWC images. This module turns TensorFlow's
arguments (ksize and strides as an int or a list of 1, 2 or 4 ints, padding "VALID" or
"SAME", data_format) into explicit numbers, `pads = (top, bottom, left, right)`, so that
the ops and their rules never re-derive TF's SAME rule; and it gives the NumPy pieces
every window kernel is made of: the output size, the padded images, and one strided view
per window tap. Images are (..., N, H, W, C) with any leading axes (see conv.py's batch
convention). No op or tape appears here: the kernels are in conv.py and pooling.py.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..tensor import Tensor

LAYOUT = "NHWC (batch, height, width, channels)"


# --- TensorFlow's arguments -> explicit geometry -------------------------------------------

def spatial_pair(op, arg, value):
    """TF's int / [n] / [h, w] / [1, h, w, 1] forms (NHWC) as a pair (h, w) of positive ints."""
    if isinstance(value, Tensor):
        value = value.numpy()
    items = [value] if np.ndim(value) == 0 else list(np.asarray(value).ravel())
    try:
        items = [int(v) for v in items]
    except (TypeError, ValueError):
        raise ValueError(f"{op}: {arg} must be an int or a list of 1, 2 or 4 ints, got {value!r}") from None
    if len(items) == 1:
        pair = (items[0], items[0])
    elif len(items) == 2:
        pair = tuple(items)
    elif len(items) == 4:
        if items[0] != 1 or items[3] != 1:
            raise ValueError(f"{op}: {arg}={items} would act on the batch or channel axis; "
                             f"in NHWC the 4-element form must be [1, h, w, 1]")
        pair = (items[1], items[2])
    else:
        raise ValueError(f"{op}: {arg} must be an int or a list of 1, 2 or 4 ints, got {value!r}")
    if min(pair) < 1:
        raise ValueError(f"{op}: {arg} must be positive, got {value!r}")
    return pair


def padding_mode(op, padding):
    if isinstance(padding, str) and padding.upper() in ("VALID", "SAME"):
        return padding.upper()
    raise ValueError(f"{op}: padding must be 'VALID' or 'SAME', got {padding!r} "
                     f"(explicit padding lists are not supported; pad with tk ops first)")


def check_data_format(op, data_format):
    if data_format != "NHWC":
        raise ValueError(f"{op}: data_format {data_format!r} is not supported; tapekit supports "
                         f"only 'NHWC'. Convert NCHW with tk.transpose(x, [0, 2, 3, 1])")


def _pads(mode, size, window, stride):
    """(before, after) padding along one axis. SAME: out = ceil(size / stride), extra at the end."""
    if mode == "VALID":
        return 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + window - size, 0)
    return total // 2, total - total // 2


def resolve_pads(op, mode, in_hw, window, strides, shapes):
    """Explicit pads (top, bottom, left, right); raises if no window fits."""
    (pt, pb), (pl, pr) = (_pads(mode, n, k, s) for n, k, s in zip(in_hw, window, strides))
    if in_hw[0] + pt + pb < window[0] or in_hw[1] + pl + pr < window[1]:
        raise ValueError(f"{op}: the window {window[0]}x{window[1]} is larger than the input's "
                         f"{in_hw[0]}x{in_hw[1]} image with padding {mode!r} ({shapes})")
    return pt, pb, pl, pr


def shape_of(x):
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


# --- images, padding and the view of each window tap ------------------------------------

def out_size(size, window, stride, before, after):
    return (size + before + after - window) // stride + 1


def as_images(x):
    """(..., N, H, W, C) -> (B, H, W, C): leading axes and the batch are all just images."""
    return x.reshape((-1,) + x.shape[-3:])


def padded(x, pads, fill=0):
    pt, pb, pl, pr = pads
    if not any(pads):
        return x
    b, h, w, c = x.shape
    shape = (b, h + pt + pb, w + pl + pr, c)
    xp = np.zeros(shape, dtype=x.dtype) if fill == 0 else np.full(shape, fill, dtype=x.dtype)
    xp[:, pt:pt + h, pl:pl + w] = x
    return xp


def output_hw(in_hw, window, strides, pads):
    return (out_size(in_hw[0], window[0], strides[0], pads[0], pads[1]),
            out_size(in_hw[1], window[1], strides[1], pads[2], pads[3]))


def window_views(xp, window, strides, out_hw):
    """Yield (a, b, view) per filter tap: the pixels tap (a, b) meets, a strided view of the
    padded images xp, whose spatial axes are its axes -3 and -2 (channels last)."""
    (sh, sw), (ho, wo) = strides, out_hw
    for a in range(window[0]):
        for b in range(window[1]):
            yield a, b, xp[..., a:a + sh * (ho - 1) + 1:sh, b:b + sw * (wo - 1) + 1:sw, :]


def copy_pixels(dst, src):
    """dst[...] = src for image arrays (channels last), a whole pixel at a time if possible.

    A copy between strided views moves runs of C numbers per pixel; NumPy restarts its
    inner loop at each run, so for a few channels the loop overhead dominates. Copying
    whole pixels as single items (a void dtype of C * itemsize bytes) is about 2x faster
    for C = 8, and moves exactly the same bytes. That needs the channels contiguous in
    both arrays; otherwise (e.g. x[..., ::2]) it is a plain copy.
    """
    nbytes = src.shape[-1] * src.itemsize
    if nbytes and src.strides[-1] == src.itemsize and dst.strides[-1] == dst.itemsize:
        pixel = np.dtype((np.void, nbytes))
        dst.view(pixel)[..., 0] = src.view(pixel)[..., 0]
    else:
        dst[...] = src


def patch_rows(xp, window, strides, out_hw):
    """A read-only view (B, Ho, Wo, fh, fw * C) of padded images xp (B, H, W, C): for output
    pixel (n, i, j) and filter row a, the fw pixels of image row i * sh + a that the window
    covers, channels last. Those fw * C numbers lie next to each other in xp (its W and C axes
    contiguous), so each is one run to copy; None when xp's pixels are not laid out so."""
    item = xp.itemsize
    if xp.strides[-1] != item or xp.strides[-2] != xp.shape[-1] * item:
        return None
    (sh, sw), (ho, wo), (fh, fw) = strides, out_hw, window
    sb, srow, scol = xp.strides[:3]
    return as_strided(xp, (xp.shape[0], ho, wo, fh, fw * xp.shape[-1]),
                      (sb, srow * sh, scol * sw, srow, item), writeable=False)
