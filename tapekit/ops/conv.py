"""2-D convolution and max pooling on NHWC images: tk.nn.conv2d and tk.nn.max_pool2d.

conv2d is computed by im2col: every (fh, fw, c_in) patch the filter visits is
copied into one row of a matrix `cols`, so the whole convolution is ONE matrix
product `cols @ filters.reshape(fh * fw * c_in, c_out)`.

Derivatives follow TensorFlow, which gives each derivative its own op:
- conv2d_backprop_input(dy, w)  -> dx = col2im(dy @ w^T)   (the adjoint in x)
- conv2d_backprop_filter(x, dy) -> dw = cols(x)^T @ dy     (the adjoint in w)
All three ops are bilinear, and each one's VJPs are the other two ops, so the
rules are differentiable again (Hessians of CNNs work):
    conv2d(x, w):                 dx = backprop_input(g, w)   dw = backprop_filter(x, g)
    conv2d_backprop_input(dy, w): ddy = conv2d(g, w)          dw = backprop_filter(g, dy)
    conv2d_backprop_filter(x, dy): dx = backprop_input(dy, g)  ddy = conv2d(x, g)

max_pool2d is split in two: max_pool2d_argmax (not differentiable, like argmax)
finds the flat position of each window's FIRST maximum (TensorFlow's tie rule),
and max_pool2d(x, index) gathers x there. Its derivative op max_pool2d_backprop
is the matching scatter-add; gather and scatter are each other's adjoint, so
both are differentiable again (and the positions are computed once, not again
in the backward pass).

Batch convention: every kernel accepts extra LEADING axes on both operands and
broadcasts them against each other, NumPy style (like matmul's stacks). So a
batch of cotangents (jacobian) flows through each rule unchanged, and where an
operand had no such axes the result's extra axes are summed away by backprop's
sum_to, exactly as for a broadcast. (For the filter gradient this is what keeps
a cotangent batch B separate: cols^T @ dy sums over the images N, never over B.)

Padding is resolved to explicit numbers `pads = (top, bottom, left, right)` by
the public functions, so the ops and their rules never re-derive TF's SAME rule.
"""
import functools

import numpy as np

from ..tensor import Tensor, convert_to_tensor
from .registry import defop

_LAYOUT = "NHWC (batch, height, width, channels)"


# --- TensorFlow's arguments -> explicit geometry -------------------------------------------

def _spatial_pair(op, arg, value):
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


def _padding_mode(op, padding):
    if isinstance(padding, str) and padding.upper() in ("VALID", "SAME"):
        return padding.upper()
    raise ValueError(f"{op}: padding must be 'VALID' or 'SAME', got {padding!r} "
                     f"(explicit padding lists are not supported; pad with tk ops first)")


def _check_data_format(op, data_format):
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


def _geometry(op, mode, in_hw, window, strides, shapes):
    """Explicit pads (top, bottom, left, right); raises if no window fits."""
    (pt, pb), (pl, pr) = (_pads(mode, n, k, s) for n, k, s in zip(in_hw, window, strides))
    if in_hw[0] + pt + pb < window[0] or in_hw[1] + pl + pr < window[1]:
        raise ValueError(f"{op}: the window {window[0]}x{window[1]} is larger than the input's "
                         f"{in_hw[0]}x{in_hw[1]} image with padding {mode!r} ({shapes})")
    return pt, pb, pl, pr


def _out_size(size, window, stride, before, after):
    return (size + before + after - window) // stride + 1


def _shape(x):
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


# --- NumPy kernels: images with any leading axes, one batch axis inside ------------------------

def _images(x):
    """(..., N, H, W, C) -> (B, H, W, C): leading axes and the batch are all just images."""
    return x.reshape((-1,) + x.shape[-3:])


def _padded(x, pads, fill=0):
    pt, pb, pl, pr = pads
    if not any(pads):
        return x
    b, h, w, c = x.shape
    shape = (b, h + pt + pb, w + pl + pr, c)
    xp = np.zeros(shape, dtype=x.dtype) if fill == 0 else np.full(shape, fill, dtype=x.dtype)
    xp[:, pt:pt + h, pl:pl + w] = x
    return xp


def _out_hw(in_hw, window, strides, pads):
    return (_out_size(in_hw[0], window[0], strides[0], pads[0], pads[1]),
            _out_size(in_hw[1], window[1], strides[1], pads[2], pads[3]))


def _windows(xp, window, strides, out_hw):
    """Yield (a, b, view) per filter tap: the pixels tap (a, b) meets, a strided view of the
    padded images xp, whose spatial axes are its axes -3 and -2 (channels last)."""
    (sh, sw), (ho, wo) = strides, out_hw
    for a in range(window[0]):
        for b in range(window[1]):
            yield a, b, xp[..., a:a + sh * (ho - 1) + 1:sh, b:b + sw * (wo - 1) + 1:sw, :]


# im2col fills its matrix one filter tap at a time: each copy moves all B * Ho * Wo pixels
# a tap meets. NumPy copies fast along long contiguous runs and slowly along short ones
# (its inner loop restarts at each run), so the layout depends on the channel count:
# - many channels: cols is built as matmul reads it, (B, Ho, Wo, fh, fw, C); runs of C values;
# - few channels (grey or RGB images): it is built transposed, (fh, fw, C, B, Ho, Wo), one
#   channel of one tap per copy; runs of Wo pixels, 2-5x faster for C = 1..7. matmul reads
#   the transposed view without a copy.
# (Copying a sliding_window_view in one go builds the same array with runs of only C values
# too, and is slower still: about 4x for C = 1.)
_FEW_CHANNELS = 8


def _copy_pixels(dst, src):
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


def _im2col(x, window, strides, pads):
    """(B, H, W, C) -> cols, (B*Ho*Wo, fh*fw*C): row m is the patch under output pixel m."""
    bsz, h, w, c = x.shape
    fh, fw = window
    ho, wo = _out_hw((h, w), window, strides, pads)
    xp = _padded(x, pads)
    if c >= _FEW_CHANNELS:
        cols = np.empty((bsz, ho, wo, fh, fw, c), dtype=x.dtype)
        for a, b, view in _windows(xp, window, strides, (ho, wo)):
            _copy_pixels(cols[:, :, :, a, b], view)
        return cols.reshape(bsz * ho * wo, fh * fw * c)
    cols_t = np.empty((fh, fw, c, bsz, ho, wo), dtype=x.dtype)
    for a, b, view in _windows(xp, window, strides, (ho, wo)):
        for ch in range(c):                     # one channel at a time: (B, Ho, Wo) copies
            cols_t[a, b, ch] = view[..., ch]
    return cols_t.reshape(fh * fw * c, bsz * ho * wo).T


def _col2im(dcols, shape, window, strides, pads):
    """The adjoint of _im2col: images of `shape` (B, H, W, C), with every entry of dcols
    (B*Ho*Wo, fh*fw*C) added back where im2col read it from. Same layouts as _im2col."""
    bsz, h, w, c = shape
    fh, fw = window
    pt, pb, pl, pr = pads
    ho, wo = _out_hw((h, w), window, strides, pads)
    xp = np.zeros((bsz, h + pt + pb, w + pl + pr, c), dtype=dcols.dtype)
    if c >= _FEW_CHANNELS:
        taps = dcols.reshape(bsz, ho, wo, fh, fw, c)
        for a, b, view in _windows(xp, window, strides, (ho, wo)):
            view += taps[:, :, :, a, b]         # `view` is a window of xp: this writes into xp
    else:
        taps = dcols.T.reshape(fh, fw, c, bsz, ho, wo)   # no copy if dcols.T is C-ordered
        for a, b, view in _windows(xp, window, strides, (ho, wo)):
            for ch in range(c):
                view[..., ch] += taps[a, b, ch]
    if any(pads):
        xp = np.ascontiguousarray(xp[:, pt:pt + h, pl:pl + w])
    return xp


def _swap(a):
    return np.swapaxes(a, -1, -2)


def _conv2d(x, w, strides, pads):
    fh, fw, ci, co = w.shape[-4:]
    k = fh * fw * ci
    cols = _im2col(_images(x), (fh, fw), strides, pads)        # (B*Ho*Wo, k)
    n_ho_wo = x.shape[-4:-3] + _out_hw(x.shape[-3:-1], (fh, fw), strides, pads)
    if w.ndim == 4:   # the usual case: one filter bank, one big matrix product
        out = cols @ w.reshape(k, co)
        return out.reshape(x.shape[:-4] + n_ho_wo + (co,))
    # stacked filters (a batch of cotangents): stacked products, leading axes broadcast
    out = np.matmul(cols.reshape(x.shape[:-4] + (-1, k)), w.reshape(w.shape[:-4] + (k, co)))
    return out.reshape(out.shape[:-2] + n_ho_wo + (co,))


def _conv2d_backprop_input(dy, w, input_size, strides, pads):
    fh, fw, ci, co = w.shape[-4:]
    k = fh * fw * ci
    if w.ndim == 4:
        lead = dy.shape[:-3]                                    # (..., N)
        if ci < _FEW_CHANNELS:   # the layout _col2im reads without a copy (see _im2col)
            dcols = (w.reshape(k, co) @ dy.reshape(-1, co).T).T
        else:
            dcols = dy.reshape(-1, co) @ w.reshape(k, co).T
    else:
        dcols = np.matmul(dy.reshape(dy.shape[:-4] + (-1, co)), _swap(w.reshape(w.shape[:-4] + (k, co))))
        lead = dcols.shape[:-2] + dy.shape[-4:-3]
        dcols = dcols.reshape(-1, k)
    images = (int(np.prod(lead)),) + tuple(input_size) + (ci,)
    dx = _col2im(dcols, images, (fh, fw), strides, pads)
    return dx.reshape(lead + dx.shape[1:])


def _conv2d_backprop_filter(x, dy, filter_size, strides, pads):
    fh, fw = filter_size
    ci, co = x.shape[-1], dy.shape[-1]
    k = fh * fw * ci
    cols = _im2col(_images(x), filter_size, strides, pads)    # (B*Ho*Wo, k)
    if x.ndim == 4 and dy.ndim == 4:   # sum over every image and pixel: one product
        dw = cols.T @ dy.reshape(-1, co)
    else:   # keep leading (cotangent batch) axes apart: sum over N, Ho, Wo only
        dw = np.matmul(_swap(cols.reshape(x.shape[:-4] + (-1, k))), dy.reshape(dy.shape[:-4] + (-1, co)))
    return dw.reshape(dw.shape[:-2] + (fh, fw, ci, co))


# --- the conv ops: three bilinear maps, whose VJPs are the other two ------------------------

conv2d_op = defop(
    "conv2d", _conv2d, args="x w", save="x w", same_dtype=True,
    vjp=[lambda g, ans, x, w, strides, pads: conv2d_backprop_input_op(
             g, w, input_size=x.shape[-3:-1], strides=strides, pads=pads),
         lambda g, ans, x, w, strides, pads: conv2d_backprop_filter_op(
             x, g, filter_size=w.shape[-4:-2], strides=strides, pads=pads)],
    jvp=[lambda t, ans, x, w, strides, pads: conv2d_op(t, w, strides=strides, pads=pads),
         lambda t, ans, x, w, strides, pads: conv2d_op(x, t, strides=strides, pads=pads)],
    doc="Cross-correlate NHWC images x with HWIO filters w; pads = (top, bottom, left, right).")

conv2d_backprop_input_op = defop(
    "conv2d_backprop_input", _conv2d_backprop_input, args="dy w", save="dy w", same_dtype=True,
    vjp=[lambda g, ans, dy, w, input_size, strides, pads: conv2d_op(g, w, strides=strides, pads=pads),
         lambda g, ans, dy, w, input_size, strides, pads: conv2d_backprop_filter_op(
             g, dy, filter_size=w.shape[-4:-2], strides=strides, pads=pads)],
    jvp=[lambda t, ans, dy, w, **geo: conv2d_backprop_input_op(t, w, **geo),
         lambda t, ans, dy, w, **geo: conv2d_backprop_input_op(dy, t, **geo)],
    doc="The gradient of conv2d w.r.t. its input, given dy (the output's cotangent) and w.")

conv2d_backprop_filter_op = defop(
    "conv2d_backprop_filter", _conv2d_backprop_filter, args="x dy", save="x dy", same_dtype=True,
    vjp=[lambda g, ans, x, dy, filter_size, strides, pads: conv2d_backprop_input_op(
             dy, g, input_size=x.shape[-3:-1], strides=strides, pads=pads),
         lambda g, ans, x, dy, filter_size, strides, pads: conv2d_op(x, g, strides=strides, pads=pads)],
    jvp=[lambda t, ans, x, dy, **geo: conv2d_backprop_filter_op(t, dy, **geo),
         lambda t, ans, x, dy, **geo: conv2d_backprop_filter_op(x, t, **geo)],
    doc="The gradient of conv2d w.r.t. its filters, given its input x and dy.")


def _conv_geometry(op, input_shape, filter_shape, strides, padding, data_format, dilations):
    """Check conv2d's arguments (TensorFlow's forms) and resolve them to (strides, pads)."""
    _check_data_format(op, data_format)
    if dilations is not None and set(_spatial_pair(op, "dilations", dilations)) != {1}:
        raise ValueError(f"{op}: dilations other than 1 are not supported, got {dilations!r}")
    strides = _spatial_pair(op, "strides", strides)
    mode = _padding_mode(op, padding)
    shapes = f"input shape {input_shape}, filters shape {filter_shape}"
    if len(input_shape) != 4:
        raise ValueError(f"{op}: input must be 4-D {_LAYOUT}, got input shape {input_shape} "
                         f"(filters shape {filter_shape}); add a batch axis with tk.expand_dims(x, 0)")
    if len(filter_shape) != 4:
        raise ValueError(f"{op}: filters must be 4-D (height, width, in_channels, out_channels), "
                         f"got filters shape {filter_shape} (input shape {input_shape})")
    if input_shape[3] != filter_shape[2]:
        raise ValueError(f"{op}: the input has {input_shape[3]} channels but the filters expect "
                         f"{filter_shape[2]} ({shapes}; filters are (height, width, in_channels, "
                         f"out_channels))")
    return strides, _geometry(op, mode, input_shape[1:3], filter_shape[:2], strides, shapes)


def _check_out_backprop(op, out_backprop, input_shape, filter_shape, strides, pads):
    expected = (input_shape[0], _out_size(input_shape[1], filter_shape[0], strides[0], *pads[:2]),
                _out_size(input_shape[2], filter_shape[1], strides[1], *pads[2:]), filter_shape[3])
    if _shape(out_backprop) != expected:
        raise ValueError(f"{op}: out_backprop has shape {_shape(out_backprop)}, but conv2d of input "
                         f"shape {input_shape} with filters of shape {filter_shape} gives {expected}")


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """2-D convolution (cross-correlation, as TensorFlow) of NHWC `input` with HWIO `filters`.

    strides: an int or a list of 1, 2 or 4 ints; padding: "VALID" or "SAME"
    (output size ceil(in / stride), extra padding at the bottom and right).

    >>> x = tk.reshape(tk.range(1.0, 10.0), [1, 3, 3, 1])     # one 3x3 image, NHWC
    >>> w = tk.ones([2, 2, 1, 1])                               # a 2x2 box filter, HWIO
    >>> y = tk.nn.conv2d(x, w, strides=1, padding="VALID")
    >>> y.shape
    (1, 2, 2, 1)
    >>> tk.reshape(y, [2, 2])                                   # sums of each 2x2 window
    tk.Tensor(
    [[12. 16.]
     [24. 28.]], shape=(2, 2), dtype=float32)
    """
    strides, pads = _conv_geometry("conv2d", _shape(input), _shape(filters), strides, padding,
                                   data_format, dilations)
    return conv2d_op(input, filters, strides=strides, pads=pads)


def conv2d_backprop_input(input_sizes, filters, out_backprop, strides, padding,
                          data_format="NHWC", dilations=None, name=None):
    """The gradient of conv2d w.r.t. its input (tf.compat.v1.nn.conv2d_backprop_input)."""
    input_shape = tuple(int(n) for n in np.asarray(input_sizes).ravel())
    strides, pads = _conv_geometry("conv2d_backprop_input", input_shape, _shape(filters), strides,
                                   padding, data_format, dilations)
    _check_out_backprop("conv2d_backprop_input", out_backprop, input_shape, _shape(filters), strides, pads)
    return conv2d_backprop_input_op(out_backprop, filters, input_size=input_shape[1:3],
                                    strides=strides, pads=pads)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           data_format="NHWC", dilations=None, name=None):
    """The gradient of conv2d w.r.t. its filters (tf.compat.v1.nn.conv2d_backprop_filter)."""
    filter_shape = tuple(int(n) for n in np.asarray(filter_sizes).ravel())
    strides, pads = _conv_geometry("conv2d_backprop_filter", _shape(input), filter_shape, strides,
                                   padding, data_format, dilations)
    _check_out_backprop("conv2d_backprop_filter", out_backprop, _shape(input), filter_shape, strides, pads)
    return conv2d_backprop_filter_op(input, out_backprop, filter_size=filter_shape[:2],
                                     strides=strides, pads=pads)


# --- max pooling: find the first maximum of each window, then gather / scatter there ------------

def _first_max_index(x, window, strides, pads):
    """Flat positions in x (N, H, W, C) of each window's first maximum, shape (N, Ho, Wo, C).

    "First" is row-major order inside the window, as TensorFlow breaks ties.
    Padding never wins: it is filled with the lowest value, and a window whose
    real pixels all hold that value too is sent to its first real pixel.
    """
    n, h, w, c = x.shape
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = _padded(x, pads, fill=lowest)
    ho, wo = _out_hw((h, w), window, strides, pads)
    # One contiguous (N, Ho, Wo, C) block per window tap: the passes below then run on
    # contiguous memory (a strided view costs several times more per pass).
    taps = np.empty((window[0] * window[1], n, ho, wo, c), dtype=x.dtype)
    offsets = np.empty(len(taps), dtype=np.intp)   # tap (a, b) -> flat offset from the window's corner
    for k, (a, b, view) in enumerate(_windows(xp, window, strides, (ho, wo))):
        _copy_pixels(taps[k], view)
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


def _gather_windows(x, index):
    """x (..., N, H, W, C) at the flat positions `index` of each (N, H, W, C) block."""
    if x.ndim == 4:
        return np.take(x, index)
    return np.take(x.reshape(x.shape[:-4] + (-1,)), index, axis=-1)


def _scatter_windows(dy, index, input_shape):
    """The adjoint of _gather_windows: zeros of input_shape with dy added at `index`."""
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


max_pool2d_argmax_op = defop(
    "max_pool2d_argmax", _first_max_index, args="x",   # vjp=None: not differentiable (like argmax)
    doc="Flat positions in x of each pooling window's first maximum (an integer tensor).")

max_pool2d_op = defop(
    "max_pool2d", _gather_windows, args="x index", save="index",
    vjp=[lambda g, ans, x, index: max_pool2d_backprop_op(g, index, input_shape=tuple(x.shape[-4:])), None],
    jvp=[lambda t, ans, x, index: max_pool2d_op(t, index), None],
    doc="x at `index`, the flat positions of each pooling window's first maximum (see max_pool2d).")

max_pool2d_backprop_op = defop(
    "max_pool2d_backprop", _scatter_windows, args="dy index", save="index",
    vjp=[lambda g, ans, dy, index, input_shape: max_pool2d_op(g, index), None],
    jvp=[lambda t, ans, dy, index, input_shape: max_pool2d_backprop_op(t, index, input_shape=input_shape), None],
    doc="Zeros of input_shape with dy added at `index` (the gradient of max_pool2d).")


def _pool_index(op, x, ksize, strides, padding, data_format):
    """Check max_pool2d's arguments (TensorFlow's forms); the index tensor of the window maxima."""
    _check_data_format(op, data_format)
    window = _spatial_pair(op, "ksize", ksize)
    strides = _spatial_pair(op, "strides", strides)
    mode = _padding_mode(op, padding)
    if x.ndim != 4:
        raise ValueError(f"{op}: input must be 4-D {_LAYOUT}, got input shape {x.shape}")
    pads = _geometry(op, mode, x.shape[1:3], window, strides, f"input shape {x.shape}")
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
    if _shape(grad) != index.shape:
        raise ValueError(f"max_pool2d_grad: grad of shape {_shape(grad)} does not match the pooled "
                         f"output's shape {index.shape} (orig_input shape {x.shape})")
    return max_pool2d_backprop_op(grad, index, input_shape=tuple(x.shape))
