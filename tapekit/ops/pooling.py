"""Pooling of NHWC images: tk.nn.max_pool2d and tk.nn.avg_pool2d (and tf.nn's max_pool, avg_pool).

max_pool2d is split in two: max_pool2d_argmax (not differentiable, like argmax)
finds the flat position of each window's FIRST maximum (TensorFlow's tie rule),
and max_pool2d(x, index) gathers x there. Its derivative op max_pool2d_backprop
is the matching scatter-add; gather and scatter are each other's adjoint, so
both are differentiable again (and the positions are computed once, not again
in the backward pass).

avg_pool2d is linear: each output pixel is the mean of its window's real pixels (with SAME
padding the padded pixels are not counted, as TensorFlow). Its VJP spreads each cotangent
evenly back over its window (avg_pool2d_backprop), and that op's VJP is avg_pool2d again:
the pair are each other's adjoint, so higher derivatives pass through.

Both follow conv.py's batch convention (extra leading axes on the operands pass through
every kernel), and take their geometry (TensorFlow's ksize/strides/padding forms, pads,
output sizes, strided views) from windows.py.

>>> x = tk.reshape(tk.range(1.0, 17.0), [1, 4, 4, 1])
>>> tk.reshape(tk.nn.avg_pool2d(x, ksize=2, strides=2, padding="VALID"), [2, 2])
tk.Tensor(
[[ 3.5  5.5]
 [11.5 13.5]], shape=(2, 2), dtype=float32)
"""
import functools

import numpy as np

from ..tensor import Tensor
from .conversion import convert_to_tensor
from .registry import defop
from .windows import (LAYOUT, as_images, check_data_format, copy_pixels, out_size, output_hw, padded,
                      padding_mode, resolve_pads, shape_of, spatial_pair, window_views)


# --- max pooling: NumPy kernels (the first maximum of each window, gather / scatter there) ---

def first_max_index(x, window, strides, pads):
    """Flat positions in x (N, H, W, C) of each window's first maximum, shape (N, Ho, Wo, C).

    "First" is row-major order inside the window, as TensorFlow breaks ties.
    Padding never wins: it is filled with the lowest value, and a window whose
    real pixels all hold that value too is sent to its first real pixel.
    """
    n, h, w, c = x.shape
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = padded(x, pads, fill=lowest)
    ho, wo = output_hw((h, w), window, strides, pads)
    # One contiguous (N, Ho, Wo, C) block per window tap: the passes below then run on
    # contiguous memory (a strided view costs several times more per pass).
    taps = np.empty((window[0] * window[1], n, ho, wo, c), dtype=x.dtype)
    offsets = np.empty(len(taps), dtype=np.intp)   # tap (a, b) -> flat offset from the window's corner
    for k, (a, b, view) in enumerate(window_views(xp, window, strides, (ho, wo))):
        copy_pixels(taps[k], view)
        offsets[k] = (a * w + b) * c
    best = taps.max(axis=0)
    if best.dtype.kind == "f" and np.isnan(best).any():   # np.max propagates NaN: NaN is the max
        def is_max(v):
            return (v == best) | np.isnan(v)
    else:
        def is_max(v):
            return v == best
    # The first maximum's tap number = how many taps come before it: count taps
    # while the maximum is not found yet (vectorised over all windows at once).
    found = is_max(taps[0])
    first = np.zeros(best.shape, dtype=np.uint8 if len(taps) < 256 else np.intp)
    for v in taps[1:]:
        first += ~found
        found |= is_max(v)
    # Flat index = tap offset + the window's top-left corner (n, row, col, channel).
    # The corner may lie in the padding; the sum is still right for every real pixel.
    index = offsets.take(first)
    index += _corners(x.shape, (ho, wo), strides, pads)
    if any(pads):
        # Every real pixel of such a window equals `lowest`, so padding may have won the tie:
        # send it to the window's first real pixel (a maximum too, and TF's choice).
        hidden = best == lowest
        if hidden.any():
            corner_h = np.arange(ho) * strides[0] - pads[0]
            corner_w = np.arange(wo) * strides[1] - pads[2]
            first_real = (np.maximum(corner_h, 0)[:, None, None] * (w * c)
                          + np.maximum(corner_w, 0)[:, None] * c) + np.arange(c)
            first_real = first_real + np.arange(n)[:, None, None, None] * (h * w * c)
            index = np.where(hidden, first_real, index)
    return index


@functools.lru_cache(maxsize=8)
def _corners(shape, out_hw, strides, pads):
    """Flat position of each window's top-left corner plus its channel, (N, Ho, Wo, C).

    The same for every call with this geometry (every training step), so it is kept.
    """
    n, h, w, c = shape
    corner_h = np.arange(out_hw[0]) * strides[0] - pads[0]
    corner_w = np.arange(out_hw[1]) * strides[1] - pads[2]
    corners = (corner_h[:, None, None] * (w * c) + corner_w[:, None] * c) + np.arange(c)
    corners = corners + np.arange(n)[:, None, None, None] * (h * w * c)
    corners.flags.writeable = False
    return corners


def gather_windows(x, index):
    """x (..., N, H, W, C) at the flat positions `index` of each (N, H, W, C) block."""
    if x.ndim == 4:
        return np.take(x, index)
    return np.take(x.reshape(x.shape[:-4] + (-1,)), index, axis=-1)


def scatter_windows(dy, index, input_shape):
    """The adjoint of gather_windows: zeros of input_shape with dy added at `index`."""
    lead = dy.shape[:dy.ndim - index.ndim]
    size = int(np.prod(input_shape))
    flat = index.ravel()
    if lead:   # a batch of cotangents: one block of `size` per leading element
        flat = (np.arange(int(np.prod(lead)))[:, None] * size + flat).ravel()
    out = np.zeros(flat.size // index.size * size, dtype=dy.dtype)
    # add.at, not assignment: with overlapping windows one pixel can be the max of several.
    # (1-D add.at is fast; NumPy's multi-dimensional add.at is ~10x slower.)
    np.add.at(out, flat, dy.ravel())
    return out.reshape(lead + tuple(input_shape))


# --- max pooling: the ops (find the first maxima, then gather / scatter there) -------------

max_pool2d_argmax_op = defop(
    "max_pool2d_argmax", first_max_index, args="x",   # vjp=None: not differentiable (like argmax)
    doc="Flat positions in x of each pooling window's first maximum (an integer tensor).")

max_pool2d_op = defop(
    "max_pool2d", gather_windows, args="x index", save="index",
    vjp=[lambda g, ans, x, index: max_pool2d_backprop_op(g, index, input_shape=tuple(x.shape[-4:])), None],
    jvp=[lambda t, ans, x, index: max_pool2d_op(t, index), None],
    doc="x at `index`, the flat positions of each pooling window's first maximum (see max_pool2d).")

max_pool2d_backprop_op = defop(
    "max_pool2d_backprop", scatter_windows, args="dy index", save="index",
    vjp=[lambda g, ans, dy, index, input_shape: max_pool2d_op(g, index), None],
    jvp=[lambda t, ans, dy, index, input_shape: max_pool2d_backprop_op(t, index, input_shape=input_shape), None],
    doc="Zeros of input_shape with dy added at `index` (the gradient of max_pool2d).")


def _pool_index(op, x, ksize, strides, padding, data_format):
    """Check max_pool2d's arguments (TensorFlow's forms); the index tensor of the window maxima."""
    check_data_format(op, data_format)
    window = spatial_pair(op, "ksize", ksize)
    strides = spatial_pair(op, "strides", strides)
    mode = padding_mode(op, padding)
    if x.ndim != 4:
        raise ValueError(f"{op}: input must be 4-D {LAYOUT}, got input shape {x.shape}")
    pads = resolve_pads(op, mode, x.shape[1:3], window, strides, f"input shape {x.shape}")
    # A registered op, not a NumPy call on x's value: tk.function then recomputes the
    # positions at every replay instead of freezing the first call's.
    return max_pool2d_argmax_op(x, window=window, strides=strides, pads=pads)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """The maximum of each ksize window of NHWC `input`; its gradient goes to the first maximum.

    ksize, strides: an int or a list of 1, 2 or 4 ints; padding: "VALID" or "SAME"
    (padded pixels never count as the maximum). Overlapping windows add up their gradients.

    >>> x = tk.reshape(tk.range(1.0, 17.0), [1, 4, 4, 1])
    >>> tk.reshape(tk.nn.max_pool2d(x, ksize=2, strides=2, padding="VALID"), [2, 2])
    tk.Tensor(
    [[ 6.  8.]
     [14. 16.]], shape=(2, 2), dtype=float32)
    """
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    return max_pool2d_op(x, _pool_index("max_pool2d", x, ksize, strides, padding, data_format))


def max_pool2d_grad(orig_input, grad, ksize, strides, padding, data_format="NHWC", name=None):
    """The gradient of max_pool2d w.r.t. orig_input, given the output's cotangent `grad`."""
    x = orig_input if isinstance(orig_input, Tensor) else convert_to_tensor(orig_input)
    index = _pool_index("max_pool2d_grad", x, ksize, strides, padding, data_format)
    if shape_of(grad) != index.shape:
        raise ValueError(f"max_pool2d_grad: grad of shape {shape_of(grad)} does not match the pooled "
                         f"output's shape {index.shape} (orig_input shape {x.shape})")
    return max_pool2d_backprop_op(grad, index, input_shape=tuple(x.shape))


# --- average pooling: NumPy kernels --------------------------------------------------------------
def _counts(in_hw, window, strides, pads, dtype):
    """How many real (not padding) pixels each window covers: (Ho, Wo, 1)."""
    per_axis = []
    for size, k, s, before, after in ((in_hw[0], window[0], strides[0], pads[0], pads[1]),
                                       (in_hw[1], window[1], strides[1], pads[2], pads[3])):
        start = np.arange(out_size(size, k, s, before, after)) * s - before
        per_axis.append(np.minimum(start + k, size) - np.maximum(start, 0))
    return (per_axis[0][:, None] * per_axis[1][None, :])[:, :, None].astype(dtype)


def _avg_pool(x, window, strides, pads):
    images = as_images(x)
    ho_wo = output_hw(images.shape[1:3], window, strides, pads)
    xp = padded(images, pads)
    total = np.zeros((images.shape[0],) + ho_wo + (images.shape[3],), x.dtype)
    for _, _, view in window_views(xp, window, strides, ho_wo):
        total += view
    total /= _counts(images.shape[1:3], window, strides, pads, x.dtype)
    return total.reshape(x.shape[:-3] + total.shape[1:])


def _avg_pool_backprop(dy, input_size, window, strides, pads):
    grads = as_images(dy)
    h, w = input_size
    pt, pb, pl, pr = pads
    share = grads / _counts(input_size, window, strides, pads, dy.dtype)
    (fh, fw), (ho, wo) = window, grads.shape[1:3]
    if tuple(strides) == (fh, fw) and not any(pads):
        # Windows side by side: each pixel of the covered (ho * fh, wo * fw) block gets its
        # window's share once; the block viewed as (B, Ho, fh, Wo, fw, C) takes them all in one
        # broadcast assignment. (+ 0.0 as the adds below: a -0.0 share lands as 0.0.)
        share += 0.0
        dx = np.zeros((grads.shape[0], h, w, grads.shape[3]), dy.dtype)
        blocks = np.reshape(dx[:, :ho * fh, :wo * fw], (grads.shape[0], ho, fh, wo, fw, grads.shape[3]),
                            copy=False)   # a view: the assignment lands in dx
        blocks[...] = share[:, :, None, :, None]
        return dx.reshape(dy.shape[:-3] + dx.shape[1:])
    xp = np.zeros((grads.shape[0], h + pt + pb, w + pl + pr, grads.shape[3]), dy.dtype)
    for _, _, view in window_views(xp, window, strides, grads.shape[1:3]):
        view += share                      # a window of xp: writes into xp
    dx = xp[:, pt:pt + h, pl:pl + w]
    return np.ascontiguousarray(dx).reshape(dy.shape[:-3] + dx.shape[1:])


# --- average pooling: the ops, each other's adjoint -------------------------------------------
avg_pool2d_op = defop(
    "avg_pool2d", _avg_pool,
    vjp=[lambda g, ans, x, window, strides, pads: avg_pool2d_backprop_op(
        g, input_size=tuple(x.shape[-3:-1]), window=window, strides=strides, pads=pads)],
    jvp=[lambda t, ans, x, **geo: avg_pool2d_op(t, **geo)],
    doc="The mean of each pooling window of NHWC x (padding not counted).")

avg_pool2d_backprop_op = defop(
    "avg_pool2d_backprop", _avg_pool_backprop, args="dy",
    vjp=[lambda g, ans, dy, input_size, **geo: avg_pool2d_op(g, **geo)],
    jvp=[lambda t, ans, dy, **geo: avg_pool2d_backprop_op(t, **geo)],
    doc="The gradient of avg_pool2d: each dy spread evenly over its window.")


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """The mean of each ksize window of NHWC `input` (`tf.nn.avg_pool2d`).

    ksize, strides: an int or a list of 1, 2 or 4 ints; padding "VALID" or "SAME" (padded
    pixels are left out of the mean, as TensorFlow).

    >>> x = tk.reshape(tk.constant([1.0, 2.0, 3.0, 4.0]), [1, 2, 2, 1])
    >>> tk.reshape(tk.nn.avg_pool2d(x, ksize=2, strides=1, padding="SAME"), [2, 2])
    tk.Tensor(
    [[2.5 3. ]
     [3.5 4. ]], shape=(2, 2), dtype=float32)
    """
    x = input if isinstance(input, Tensor) else convert_to_tensor(input)
    check_data_format("avg_pool2d", data_format)
    window = spatial_pair("avg_pool2d", "ksize", ksize)
    strides = spatial_pair("avg_pool2d", "strides", strides)
    mode = padding_mode("avg_pool2d", padding)
    if x.ndim != 4:
        raise ValueError(f"avg_pool2d: input must be 4-D {LAYOUT}, got input shape {x.shape}")
    pads = resolve_pads("avg_pool2d", mode, x.shape[1:3], window, strides, f"input shape {x.shape}")
    return avg_pool2d_op(x, window=window, strides=strides, pads=pads)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """`tf.nn.avg_pool` for 4-D NHWC input: avg_pool2d.

    >>> tk.nn.avg_pool(tk.ones([1, 4, 4, 2]), 2, 2, "VALID").shape
    (1, 2, 2, 2)
    """
    return avg_pool2d(input, ksize, strides, padding, data_format or "NHWC")


def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """`tf.nn.max_pool` for 4-D NHWC input: max_pool2d.

    >>> tk.nn.max_pool(tk.ones([1, 4, 4, 2]), 2, 2, "VALID").shape
    (1, 2, 2, 2)
    """
    return max_pool2d(input, ksize, strides, padding, data_format or "NHWC")
