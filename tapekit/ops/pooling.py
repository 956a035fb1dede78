"""Average pooling and the transposed convolution (tk.nn.avg_pool2d, tk.nn.conv2d_transpose).

avg_pool2d is linear: each output pixel is the mean of its window's real pixels (with SAME
padding the padded pixels are not counted, as TensorFlow). Its VJP spreads each cotangent
evenly back over its window (avg_pool2d_backprop), and that op's VJP is avg_pool2d again:
the pair are each other's adjoint, so higher derivatives pass through.

conv2d_transpose is conv2d's input gradient used as a forward pass (TensorFlow's definition),
so it is the op conv2d_backprop_input, whose rules are conv2d and the filter gradient.
TensorFlow's filter layout for it is (height, width, out_channels, in_channels).

>>> x = tk.reshape(tk.range(1.0, 17.0), [1, 4, 4, 1])
>>> tk.reshape(tk.nn.avg_pool2d(x, ksize=2, strides=2, padding="VALID"), [2, 2])
tk.Tensor(
[[ 3.5  5.5]
 [11.5 13.5]], shape=(2, 2), dtype=float32)

>>> y = tk.nn.conv2d_transpose(tk.ones([1, 2, 2, 1]), tk.ones([2, 2, 1, 1]),
...                            output_shape=[1, 4, 4, 1], strides=2, padding="SAME")
>>> y.shape                                   # each input pixel paints a 2x2 block
(1, 4, 4, 1)
"""
import numpy as np

from ..tensor import Tensor
from . import windows
from .conversion import convert_to_tensor
from .conv import (_LAYOUT, _check_data_format, _conv_geometry, _geometry, _padding_mode, _shape,
                   _spatial_pair, conv2d_backprop_input_op, max_pool2d)
from .registry import defop


# --- NumPy kernels ----------------------------------------------------------------------------------
def _counts(in_hw, window, strides, pads, dtype):
    """How many real (not padding) pixels each window covers: (Ho, Wo, 1)."""
    per_axis = []
    for size, k, s, before, after in ((in_hw[0], window[0], strides[0], pads[0], pads[1]),
                                       (in_hw[1], window[1], strides[1], pads[2], pads[3])):
        start = np.arange(windows.out_size(size, k, s, before, after)) * s - before
        per_axis.append(np.minimum(start + k, size) - np.maximum(start, 0))
    return (per_axis[0][:, None] * per_axis[1][None, :])[:, :, None].astype(dtype)


def _avg_pool(x, window, strides, pads):
    images = windows._images(x)
    ho_wo = windows._out_hw(images.shape[1:3], window, strides, pads)
    xp = windows._padded(images, pads)
    total = np.zeros((images.shape[0],) + ho_wo + (images.shape[3],), x.dtype)
    for _, _, view in windows._windows(xp, window, strides, ho_wo):
        total += view
    total /= _counts(images.shape[1:3], window, strides, pads, x.dtype)
    return total.reshape(x.shape[:-3] + total.shape[1:])


def _avg_pool_backprop(dy, input_size, window, strides, pads):
    grads = windows._images(dy)
    h, w = input_size
    pt, pb, pl, pr = pads
    share = grads / _counts(input_size, window, strides, pads, dy.dtype)
    xp = np.zeros((grads.shape[0], h + pt + pb, w + pl + pr, grads.shape[3]), dy.dtype)
    for _, _, view in windows._windows(xp, window, strides, grads.shape[1:3]):
        view += share                      # a window of xp: writes into xp
    dx = xp[:, pt:pt + h, pl:pl + w]
    return np.ascontiguousarray(dx).reshape(dy.shape[:-3] + dx.shape[1:])


# --- the ops: each other's adjoint --------------------------------------------------------------------
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
    _check_data_format("avg_pool2d", data_format)
    window = _spatial_pair("avg_pool2d", "ksize", ksize)
    strides = _spatial_pair("avg_pool2d", "strides", strides)
    mode = _padding_mode("avg_pool2d", padding)
    if x.ndim != 4:
        raise ValueError(f"avg_pool2d: input must be 4-D {_LAYOUT}, got input shape {x.shape}")
    pads = _geometry("avg_pool2d", mode, x.shape[1:3], window, strides, f"input shape {x.shape}")
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


# --- conv2d_transpose ------------------------------------------------------------------------------------
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
    in_shape, f_shape = _shape(input), _shape(filters)
    if len(out_shape) != 4:
        raise ValueError(f"conv2d_transpose: output_shape must have 4 entries {_LAYOUT}, got {output_shape!r}")
    if len(f_shape) == 4 and len(in_shape) == 4 and f_shape[3] != in_shape[3]:
        raise ValueError(f"conv2d_transpose: the input has {in_shape[3]} channels but the filters "
                         f"{f_shape} expect {f_shape[3]} (filters are (height, width, out_channels, "
                         f"in_channels) here)")
    strides, pads = _conv_geometry("conv2d_transpose", out_shape, f_shape, strides, padding,
                                   data_format, dilations)
    expected = (out_shape[0],
                windows.out_size(out_shape[1], f_shape[0], strides[0], *pads[:2]),
                windows.out_size(out_shape[2], f_shape[1], strides[1], *pads[2:]), f_shape[3])
    if in_shape != expected:
        raise ValueError(f"conv2d_transpose: input has shape {in_shape}, but output_shape {out_shape} "
                         f"with filters {f_shape}, strides {strides} and padding {padding!r} "
                         f"needs input shape {expected}; pick output_shape so that conv2d of it "
                         f"gives the input's shape")
    return conv2d_backprop_input_op(input, filters, input_size=out_shape[1:3], strides=strides, pads=pads)
