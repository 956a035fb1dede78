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

This module holds the ops, their rules and TensorFlow's argument checks; the NumPy
kernels they call (im2col, col2im, the pooling search) are in windows.py.
"""
import numpy as np


from ..tensor import Tensor
from . import windows
from .conversion import convert_to_tensor
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


def _shape(x):
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


# --- the conv ops: three bilinear maps, whose VJPs are the other two ------------------------

conv2d_op = defop(
    "conv2d", windows.conv2d, args="x w", save="x w", same_dtype=True,
    vjp=[lambda g, ans, x, w, strides, pads: conv2d_backprop_input_op(
             g, w, input_size=x.shape[-3:-1], strides=strides, pads=pads),
         lambda g, ans, x, w, strides, pads: conv2d_backprop_filter_op(
             x, g, filter_size=w.shape[-4:-2], strides=strides, pads=pads)],
    jvp=[lambda t, ans, x, w, strides, pads: conv2d_op(t, w, strides=strides, pads=pads),
         lambda t, ans, x, w, strides, pads: conv2d_op(x, t, strides=strides, pads=pads)],
    doc="Cross-correlate NHWC images x with HWIO filters w; pads = (top, bottom, left, right).")

conv2d_backprop_input_op = defop(
    "conv2d_backprop_input", windows.conv2d_backprop_input, args="dy w", save="dy w", same_dtype=True,
    vjp=[lambda g, ans, dy, w, input_size, strides, pads: conv2d_op(g, w, strides=strides, pads=pads),
         lambda g, ans, dy, w, input_size, strides, pads: conv2d_backprop_filter_op(
             g, dy, filter_size=w.shape[-4:-2], strides=strides, pads=pads)],
    jvp=[lambda t, ans, dy, w, **geo: conv2d_backprop_input_op(t, w, **geo),
         lambda t, ans, dy, w, **geo: conv2d_backprop_input_op(dy, t, **geo)],
    doc="The gradient of conv2d w.r.t. its input, given dy (the output's cotangent) and w.")

conv2d_backprop_filter_op = defop(
    "conv2d_backprop_filter", windows.conv2d_backprop_filter, args="x dy", save="x dy", same_dtype=True,
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
    expected = (input_shape[0], windows.out_size(input_shape[1], filter_shape[0], strides[0], *pads[:2]),
                windows.out_size(input_shape[2], filter_shape[1], strides[1], *pads[2:]), filter_shape[3])
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

max_pool2d_argmax_op = defop(
    "max_pool2d_argmax", windows.first_max_index, args="x",   # vjp=None: not differentiable (like argmax)
    doc="Flat positions in x of each pooling window's first maximum (an integer tensor).")

max_pool2d_op = defop(
    "max_pool2d", windows.gather_windows, args="x index", save="index",
    vjp=[lambda g, ans, x, index: max_pool2d_backprop_op(g, index, input_shape=tuple(x.shape[-4:])), None],
    jvp=[lambda t, ans, x, index: max_pool2d_op(t, index), None],
    doc="x at `index`, the flat positions of each pooling window's first maximum (see max_pool2d).")

max_pool2d_backprop_op = defop(
    "max_pool2d_backprop", windows.scatter_windows, args="dy index", save="index",
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
