"""2-D convolution of NHWC images: tk.nn.conv2d, its two gradients and tk.nn.conv2d_transpose.

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

conv2d_transpose is conv2d's input gradient used as a forward pass (TensorFlow's definition),
so it is the op conv2d_backprop_input, whose rules are conv2d and the filter gradient.
TensorFlow's filter layout for it is (height, width, out_channels, in_channels).

>>> y = tk.nn.conv2d_transpose(tk.ones([1, 2, 2, 1]), tk.ones([2, 2, 1, 1]),
...                            output_shape=[1, 4, 4, 1], strides=2, padding="SAME")
>>> y.shape                                   # each input pixel paints a 2x2 block
(1, 4, 4, 1)

Batch convention: every kernel accepts extra LEADING axes on both operands and
broadcasts them against each other, NumPy style (like matmul's stacks). So a
batch of cotangents (jacobian) flows through each rule unchanged, and where an
operand had no such axes the result's extra axes are summed away by backprop's
sum_to, exactly as for a broadcast. (For the filter gradient this is what keeps
a cotangent batch B separate: cols^T @ dy sums over the images N, never over B.)

Padding is resolved to explicit numbers `pads = (top, bottom, left, right)` by
the public functions (windows.resolve_pads), so the ops and their rules never
re-derive TF's SAME rule.

This module holds the NumPy kernels (im2col, col2im), the ops with their rules and
TensorFlow's argument checks; the window geometry it shares with pooling.py (TensorFlow's
ksize/strides/padding forms, pads, output sizes, strided views) is in windows.py.
"""
import numpy as np

from ..tensor import Tensor
from .registry import defop
from .windows import (LAYOUT, as_images, check_data_format, copy_pixels, out_size, output_hw, padded,
                      padding_mode, patch_rows, resolve_pads, shape_of, spatial_pair, window_views)


# --- NumPy kernels: im2col, col2im and the three bilinear maps --------------------------------

# im2col fills its matrix one filter tap at a time: each copy moves all B * Ho * Wo pixels
# a tap meets. NumPy copies fast along long contiguous runs and slowly along short ones
# (its inner loop restarts at each run), so the layout depends on the channel count:
# - many channels: cols is built as matmul reads it, (B, Ho, Wo, fh, fw, C). Its row for one
#   output pixel and one filter row a is fw * C numbers that also lie side by side in the
#   image, so the whole matrix is ONE copy of runs of fw * C (windows.patch_rows), 1.5x faster
#   than nine tap copies of runs of C;
# - few channels (grey or RGB images): it is built transposed, (fh, fw, C, B, Ho, Wo), one
#   channel of one tap per copy; runs of Wo pixels, 2-5x faster for C = 1..7. matmul reads
#   the transposed view without a copy.
# (Copying a sliding_window_view in one go builds the same array with runs of only C values
# too, and is slower still: about 4x for C = 1.)
_FEW_CHANNELS = 8


def _im2col(x, window, strides, pads):
    """(B, H, W, C) -> cols, (B*Ho*Wo, fh*fw*C): row m is the patch under output pixel m."""
    bsz, h, w, c = x.shape
    fh, fw = window
    ho, wo = output_hw((h, w), window, strides, pads)
    xp = padded(x, pads)
    if c >= _FEW_CHANNELS:
        if window == (1, 1) and tuple(strides) == (1, 1) and not any(pads) and x.flags.c_contiguous:
            return x.reshape(bsz * h * w, c)   # a 1x1 filter: the images are the matrix already
        cols = np.empty((bsz, ho, wo, fh, fw, c), dtype=x.dtype)
        rows = patch_rows(xp, window, strides, (ho, wo))
        if rows is not None and rows.size:   # one copy; each item a patch row of fw * C numbers
            run = np.dtype((np.void, fw * c * x.itemsize))
            cols.reshape(rows.shape).view(run)[..., 0] = rows.view(run)[..., 0]
        else:
            for a, b, view in window_views(xp, window, strides, (ho, wo)):
                copy_pixels(cols[:, :, :, a, b], view)
        return cols.reshape(bsz * ho * wo, fh * fw * c)
    cols_t = np.empty((fh, fw, c, bsz, ho, wo), dtype=x.dtype)
    for a, b, view in window_views(xp, window, strides, (ho, wo)):
        for ch in range(c):                     # one channel at a time: (B, Ho, Wo) copies
            cols_t[a, b, ch] = view[..., ch]
    return cols_t.reshape(fh * fw * c, bsz * ho * wo).T


def _col2im(dcols, shape, window, strides, pads):
    """The adjoint of _im2col: images of `shape` (B, H, W, C), with every entry of dcols
    (B*Ho*Wo, fh*fw*C) added back where im2col read it from. Same layouts as _im2col."""
    bsz, h, w, c = shape
    fh, fw = window
    pt, pb, pl, pr = pads
    ho, wo = output_hw((h, w), window, strides, pads)
    xp = np.zeros((bsz, h + pt + pb, w + pl + pr, c), dtype=dcols.dtype)
    if c >= _FEW_CHANNELS:
        taps = dcols.reshape(bsz, ho, wo, fh, fw, c)
        for a, b, view in window_views(xp, window, strides, (ho, wo)):
            view += taps[:, :, :, a, b]         # `view` is a window of xp: this writes into xp
    else:
        taps = dcols.T.reshape(fh, fw, c, bsz, ho, wo)   # no copy if dcols.T is C-ordered
        for a, b, view in window_views(xp, window, strides, (ho, wo)):
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
    cols = _im2col(as_images(x), (fh, fw), strides, pads)        # (B*Ho*Wo, k)
    n_ho_wo = x.shape[-4:-3] + output_hw(x.shape[-3:-1], (fh, fw), strides, pads)
    if w.ndim == 4:   # the usual case: one filter bank, one big matrix product
        out = cols @ w.reshape(k, co)
        return out.reshape(x.shape[:-4] + n_ho_wo + (co,))
    # stacked filters (a batch of cotangents): stacked products, leading axes broadcast
    out = np.matmul(cols.reshape(x.shape[:-4] + (-1, k)), w.reshape(w.shape[:-4] + (k, co)))
    return out.reshape(out.shape[:-2] + n_ho_wo + (co,))


def _col2im_by_tap(dy, w, images, strides, pads):
    """_col2im(dy @ w^T) for one filter bank and many channels, one filter tap at a time.

    dcols = dy @ w^T, (B*Ho*Wo, fh*fw*C), holds each tap's block as C of every fh*fw*C
    columns, so _col2im's strided adds read runs of C numbers (as im2col's copies write them),
    and NumPy restarts its inner loop at each run. Here tap (a, b)'s block is made on its own,
    dy @ w[a, b]^T, (B*Ho*Wo, C) contiguous, and added into its window view of the padded
    images, whose rows are contiguous for stride 1. The same numbers as _col2im(dy @ w^T): each
    entry is the same dot product over the Co output channels, and every pixel receives the
    taps in the same order (a, b), onto the same zeros.
    """
    bsz, h, w_, c = images
    fh, fw, _, co = w.shape
    pt, pb, pl, pr = pads
    ho, wo = output_hw((h, w_), (fh, fw), strides, pads)
    dtype = np.result_type(dy, w)
    xp = np.zeros((bsz, h + pt + pb, w_ + pl + pr, c), dtype=dtype)
    rows = dy.reshape(-1, co)
    block = np.empty((rows.shape[0], c), dtype=dtype)
    for a, b, view in window_views(xp, (fh, fw), strides, (ho, wo)):
        np.matmul(rows, w[a, b].T, out=block)
        view += block.reshape(bsz, ho, wo, c)   # `view` is a window of xp: this writes into xp
    if any(pads):
        xp = np.ascontiguousarray(xp[:, pt:pt + h, pl:pl + w_])
    return xp


def _conv2d_backprop_input(dy, w, input_size, strides, pads):
    fh, fw, ci, co = w.shape[-4:]
    k = fh * fw * ci
    if w.ndim == 4:
        lead = dy.shape[:-3]                                    # (..., N)
        if ci < _FEW_CHANNELS:   # the layout _col2im reads without a copy (see _im2col)
            dcols = (w.reshape(k, co) @ dy.reshape(-1, co).T).T
        else:
            images = (int(np.prod(lead)),) + tuple(input_size) + (ci,)
            dx = _col2im_by_tap(dy, w, images, strides, pads)
            return dx.reshape(lead + dx.shape[1:])
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
    cols = _im2col(as_images(x), filter_size, strides, pads)    # (B*Ho*Wo, k)
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
    check_data_format(op, data_format)
    if dilations is not None and set(spatial_pair(op, "dilations", dilations)) != {1}:
        raise ValueError(f"{op}: dilations other than 1 are not supported, got {dilations!r}")
    strides = spatial_pair(op, "strides", strides)
    mode = padding_mode(op, padding)
    shapes = f"input shape {input_shape}, filters shape {filter_shape}"
    if len(input_shape) != 4:
        raise ValueError(f"{op}: input must be 4-D {LAYOUT}, got input shape {input_shape} "
                         f"(filters shape {filter_shape}); add a batch axis with tk.expand_dims(x, 0)")
    if len(filter_shape) != 4:
        raise ValueError(f"{op}: filters must be 4-D (height, width, in_channels, out_channels), "
                         f"got filters shape {filter_shape} (input shape {input_shape})")
    if input_shape[3] != filter_shape[2]:
        raise ValueError(f"{op}: the input has {input_shape[3]} channels but the filters expect "
                         f"{filter_shape[2]} ({shapes}; filters are (height, width, in_channels, "
                         f"out_channels))")
    return strides, resolve_pads(op, mode, input_shape[1:3], filter_shape[:2], strides, shapes)


def _check_out_backprop(op, out_backprop, input_shape, filter_shape, strides, pads):
    expected = (input_shape[0], out_size(input_shape[1], filter_shape[0], strides[0], *pads[:2]),
                out_size(input_shape[2], filter_shape[1], strides[1], *pads[2:]), filter_shape[3])
    if shape_of(out_backprop) != expected:
        raise ValueError(f"{op}: out_backprop has shape {shape_of(out_backprop)}, but conv2d of input "
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
    strides, pads = _conv_geometry("conv2d", shape_of(input), shape_of(filters), strides, padding,
                                   data_format, dilations)
    return conv2d_op(input, filters, strides=strides, pads=pads)


def conv2d_backprop_input(input_sizes, filters, out_backprop, strides, padding,
                          data_format="NHWC", dilations=None, name=None):
    """The gradient of conv2d w.r.t. its input (tf.compat.v1.nn.conv2d_backprop_input)."""
    input_shape = tuple(int(n) for n in np.asarray(input_sizes).ravel())
    strides, pads = _conv_geometry("conv2d_backprop_input", input_shape, shape_of(filters), strides,
                                   padding, data_format, dilations)
    _check_out_backprop("conv2d_backprop_input", out_backprop, input_shape, shape_of(filters), strides, pads)
    return conv2d_backprop_input_op(out_backprop, filters, input_size=input_shape[1:3],
                                    strides=strides, pads=pads)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           data_format="NHWC", dilations=None, name=None):
    """The gradient of conv2d w.r.t. its filters (tf.compat.v1.nn.conv2d_backprop_filter)."""
    filter_shape = tuple(int(n) for n in np.asarray(filter_sizes).ravel())
    strides, pads = _conv_geometry("conv2d_backprop_filter", shape_of(input), filter_shape, strides,
                                   padding, data_format, dilations)
    _check_out_backprop("conv2d_backprop_filter", out_backprop, shape_of(input), filter_shape, strides, pads)
    return conv2d_backprop_filter_op(input, out_backprop, filter_size=filter_shape[:2],
                                     strides=strides, pads=pads)


# --- the transposed convolution: conv2d's input gradient as a forward pass ----------------
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",  # noqa: A002
                     dilations=None, name=None):
    """The transposed convolution (`tf.nn.conv2d_transpose`): conv2d's gradient w.r.t. its input.

    input (N, h, w, in_channels); filters (height, width, out_channels, in_channels), TensorFlow's
    layout; output_shape (N, H, W, out_channels), the shape a conv2d with these filters, strides
    and padding would map back onto input's shape. With SAME padding H = h * stride.

    >>> x = tk.reshape(tk.constant([1.0, 2.0]), [1, 1, 2, 1])
    >>> y = tk.nn.conv2d_transpose(x, tk.ones([1, 2, 1, 1]), [1, 1, 4, 1], strides=2, padding="VALID")
    >>> tk.reshape(y, [4])                     # each input pixel copied into a 1x2 block
    tk.Tensor([1. 1. 2. 2.], shape=(4,), dtype=float32)
    """
    out_shape = tuple(int(n) for n in np.asarray(
        output_shape.numpy() if isinstance(output_shape, Tensor) else output_shape).ravel())
    in_shape, f_shape = shape_of(input), shape_of(filters)
    if len(out_shape) != 4:
        raise ValueError(f"conv2d_transpose: output_shape must have 4 entries {LAYOUT}, got {output_shape!r}")
    if len(f_shape) == 4 and len(in_shape) == 4 and f_shape[3] != in_shape[3]:
        raise ValueError(f"conv2d_transpose: the input has {in_shape[3]} channels but the filters "
                         f"{f_shape} expect {f_shape[3]} (filters are (height, width, out_channels, "
                         f"in_channels) here)")
    strides, pads = _conv_geometry("conv2d_transpose", out_shape, f_shape, strides, padding,
                                   data_format, dilations)
    expected = (out_shape[0],
                out_size(out_shape[1], f_shape[0], strides[0], *pads[:2]),
                out_size(out_shape[2], f_shape[1], strides[1], *pads[2:]), f_shape[3])
    if in_shape != expected:
        raise ValueError(f"conv2d_transpose: input has shape {in_shape}, but output_shape {out_shape} "
                         f"with filters {f_shape}, strides {strides} and padding {padding!r} "
                         f"needs input shape {expected}; pick output_shape so that conv2d of it "
                         f"gives the input's shape")
    return conv2d_backprop_input_op(input, filters, input_size=out_shape[1:3], strides=strides, pads=pads)
