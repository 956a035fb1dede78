"""tk.nn.conv2d, its two gradients and tk.nn.conv2d_transpose: values against plain loops,
TensorFlow's shapes and padding rule, nested derivatives with batched cotangents, errors.

Derivatives of every conv op against finite differences (first and second order, forward
and reverse, vectorised jacobian) are in tests/contracts/test_ops_table.py's SAMPLES.
"""
import numpy as np
import pytest

import tapekit as tk
from tapekit.ops import conv as conv_ops
from tapekit.ops import windows as window_geometry
from tapekit.testing import check_grads, numerical_jacobian



# --- references: straightforward loops over pixels (test code only) ------------------------------

def same_pads(size, k, s):
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2        # the extra pixel goes after (bottom / right)


def pad_like_tf(x, kh, kw, sh, sw, padding, fill=0.0):
    if padding == "VALID":
        return x, (0, 0, 0, 0)
    (pt, pb), (pl, pr) = same_pads(x.shape[1], kh, sh), same_pads(x.shape[2], kw, sw)
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=fill)
    return xp, (pt, pb, pl, pr)


def conv2d_loops(x, w, strides, padding):
    sh, sw = strides
    kh, kw, _, co = w.shape
    xp, _ = pad_like_tf(x, kh, kw, sh, sw, padding)
    ho, wo = (xp.shape[1] - kh) // sh + 1, (xp.shape[2] - kw) // sw + 1
    out = np.zeros((x.shape[0], ho, wo, co))
    for n in range(x.shape[0]):
        for i in range(ho):
            for j in range(wo):
                patch = xp[n, i * sh:i * sh + kh, j * sw:j * sw + kw, :]
                for o in range(co):
                    out[n, i, j, o] = np.sum(patch * w[:, :, :, o])
    return out


def tape_grads(f, *xs, output_gradients=None):
    ts = [tk.constant(x) for x in xs]
    with tk.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return y, tape.gradient(y, ts, output_gradients=output_gradients)


rng = np.random.default_rng(0)


@pytest.fixture(params=["few", "many"])
def layout(request, monkeypatch):
    """Run a test with each im2col layout (channels-first for few channels, channels-last for many)."""
    monkeypatch.setattr(conv_ops, "_FEW_CHANNELS", 1000 if request.param == "few" else 0)
    return request.param


# --- conv2d values ----------------------------------------------------------------------------------

@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("strides", [1, 2, [2, 3], [1, 3, 2, 1], [3]])
@pytest.mark.parametrize("shape", [(2, 7, 6, 3), (1, 8, 9, 1)])
def test_conv2d_matches_loops(padding, strides, shape, layout):
    x = rng.standard_normal(shape)
    w = rng.standard_normal((3, 2, shape[3], 4))
    got = tk.nn.conv2d(x, w, strides, padding)
    s = window_geometry.spatial_pair("test", "strides", strides)
    np.testing.assert_allclose(got.numpy(), conv2d_loops(x, w, s, padding), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("strides", [1, 2, (3, 2)])
def test_conv2d_gradients_match_loop_adjoints(padding, strides, layout):
    # d/dx and d/dw of sum(conv * dy), differentiated by hand from the loop reference:
    # output pixel (n, i, j) sends w @ dy[n, i, j] back to its patch, and patch * dy to w.
    x = rng.standard_normal((2, 7, 8, 2))
    w = rng.standard_normal((3, 3, 2, 3))
    s = window_geometry.spatial_pair("test", "strides", strides)
    y = conv2d_loops(x, w, s, padding)
    dy = rng.standard_normal(y.shape)
    _, (dx, dw) = tape_grads(lambda a, b: tk.nn.conv2d(a, b, strides, padding), x, w,
                             output_gradients=tk.constant(dy))
    xp, (pt, _, pl, _) = pad_like_tf(x, 3, 3, s[0], s[1], padding)
    dxp, dw_ref = np.zeros_like(xp), np.zeros_like(w)
    for n, i, j in np.ndindex(*y.shape[:3]):
        rows, cols = slice(i * s[0], i * s[0] + 3), slice(j * s[1], j * s[1] + 3)
        dxp[n, rows, cols] += w @ dy[n, i, j]
        dw_ref += xp[n, rows, cols][..., None] * dy[n, i, j]
    dx_ref = dxp[:, pt:pt + x.shape[1], pl:pl + x.shape[2]]
    np.testing.assert_allclose(dx.numpy(), dx_ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dw.numpy(), dw_ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("size, k, stride, padding, out", [
    (28, 3, 2, "SAME", 14),    # SAME: ceil(28 / 2)
    (28, 3, 1, "VALID", 26),   # VALID: 28 - 3 + 1
    (28, 3, 1, "SAME", 28),
    (28, 3, 2, "VALID", 13),   # floor((28 - 3) / 2) + 1
    (28, 5, 3, "SAME", 10),    # ceil(28 / 3)
    (27, 5, 3, "VALID", 8),
    (7, 7, 1, "VALID", 1),
])
def test_conv2d_output_shapes_are_tensorflows(size, k, stride, padding, out):
    x = np.zeros((2, size, size, 3), np.float32)
    w = np.zeros((k, k, 3, 5), np.float32)
    assert tk.nn.conv2d(x, w, stride, padding).shape == (2, out, out, 5)


def test_same_padding_puts_the_extra_pixel_at_the_bottom_right():
    # one row [1, 2, 3, 4]; SAME with a 2-wide filter of ones pads one zero on the RIGHT
    x = np.array([1.0, 2.0, 3.0, 4.0]).reshape(1, 1, 4, 1)
    y = tk.nn.conv2d(x, np.ones((1, 2, 1, 1)), 1, "SAME")
    np.testing.assert_array_equal(y.numpy().ravel(), [3.0, 5.0, 7.0, 4.0])
    # stride 2, 3-wide: out = 2, total padding 1, all of it on the right: [1,2,3] and [3,4,0]
    y = tk.nn.conv2d(x, np.ones((1, 3, 1, 1)), 2, "same")    # padding is case-insensitive
    np.testing.assert_array_equal(y.numpy().ravel(), [6.0, 7.0])
    # even padding (5 pixels, 3 wide, stride 2) splits it: [0,1,2], [2,3,4], [4,5,0]
    x5 = np.array([1.0, 2.0, 3.0, 4.0, 5.0]).reshape(1, 1, 5, 1)
    y = tk.nn.conv2d(x5, np.ones((1, 3, 1, 1)), 2, "SAME")
    np.testing.assert_array_equal(y.numpy().ravel(), [3.0, 9.0, 9.0])


def test_conv2d_keeps_float32(layout):
    x = tk.constant(rng.standard_normal((2, 6, 6, 2)).astype(np.float32))
    w = tk.Variable(rng.standard_normal((3, 3, 2, 4)).astype(np.float32))
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.nn.conv2d(x, w, 2, "SAME")
    dx, dw = tape.gradient(y, [x, w])
    assert (y.dtype, dx.dtype, dw.dtype) == (np.float32, np.float32, np.float32)
    assert y.numpy().flags["C_CONTIGUOUS"] and dx.numpy().flags["C_CONTIGUOUS"]


def test_conv2d_jvp_is_bilinear():
    x, w = rng.standard_normal((2, 5, 5, 2)), rng.standard_normal((3, 3, 2, 3))
    tx, tw = rng.standard_normal(x.shape), rng.standard_normal(w.shape)
    xt, wt = tk.constant(x), tk.constant(w)
    with tk.ForwardAccumulator([xt, wt], [tk.constant(tx), tk.constant(tw)]) as acc:
        y = tk.nn.conv2d(xt, wt, [1, 2], "SAME")
    expected = conv2d_loops(tx, w, (1, 2), "SAME") + conv2d_loops(x, tw, (1, 2), "SAME")
    np.testing.assert_allclose(acc.jvp(y).numpy(), expected, rtol=1e-10, atol=1e-12)


def test_backprop_helpers_equal_the_tape_gradients(layout):
    x, w = rng.standard_normal((2, 6, 5, 2)), rng.standard_normal((3, 3, 2, 3))
    dy = rng.standard_normal((2, 3, 3, 3))
    _, (dx, dw) = tape_grads(lambda a, b: tk.nn.conv2d(a, b, 2, "SAME"), x, w, output_gradients=tk.constant(dy))
    got_dx = conv_ops.conv2d_backprop_input(x.shape, w, dy, 2, "SAME")
    got_dw = conv_ops.conv2d_backprop_filter(x, w.shape, dy, 2, "SAME")
    np.testing.assert_allclose(got_dx.numpy(), dx.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got_dw.numpy(), dw.numpy(), rtol=1e-12)


def test_conv_ops_second_order_in_both_layouts(layout):
    # test_ops_table checks the conv ops with 2 channels (the channels-first layout);
    # the same checks, here in both layouts
    x, w = rng.standard_normal((2, 5, 4, 2)), rng.standard_normal((3, 2, 2, 3))
    check_grads(lambda a, b: tk.nn.conv2d(a, b, [2, 1], "SAME"), x, w, order=2)
    dy = rng.standard_normal((2, 3, 4, 3))
    check_grads(lambda d, b: conv_ops.conv2d_backprop_input(x.shape, b, d, [2, 1], "SAME"), dy, w, order=2)
    check_grads(lambda a, d: conv_ops.conv2d_backprop_filter(a, w.shape, d, [2, 1], "SAME"), x, dy, order=2)


# --- nested derivatives with a batch of cotangents (the leading-axes convention) ------------------

def _tanh_conv(x, w):
    return tk.tanh(tk.nn.conv2d(x, w, [2, 1], "SAME"))


def test_jacobian_of_a_gradient_is_the_hessian(layout):
    # outer jacobian (a batch of cotangents) through the recorded backward pass of conv2d:
    # conv2d_backprop_filter then sees a batched image and an unbatched dy, and
    # conv2d_backprop_input a batched dy.
    x, w = rng.standard_normal((2, 5, 4, 2)), rng.standard_normal((3, 2, 2, 2))

    def grads(xt, wt):
        with tk.GradientTape() as inner:
            inner.watch([xt, wt])
            y = tk.reduce_sum(_tanh_conv(xt, wt) ** 2)
        dx, dw = inner.gradient(y, [xt, wt])
        return tk.concat([tk.reshape(dx, (-1,)), tk.reshape(dw, (-1,))], axis=0)

    xt, wt = tk.constant(x), tk.constant(w)
    with tk.GradientTape(persistent=True) as outer:
        outer.watch([xt, wt])
        g = grads(xt, wt)
    hx, hw = outer.jacobian(g, [xt, wt])
    nx, nw = numerical_jacobian(grads, [x, w])
    np.testing.assert_allclose(hx.numpy(), nx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(hw.numpy(), nw, rtol=1e-5, atol=1e-6)


def test_jacobian_of_a_jacobian(layout):
    # both operands of the inner rules carry leading axes: the inner jacobian's batch, then
    # the outer one's on top; the filter gradient must sum over images only, per batch entry.
    x, w = rng.standard_normal((2, 4, 4, 1)), rng.standard_normal((2, 2, 1, 2))

    def jac_w(xt, wt):
        with tk.GradientTape() as inner:
            inner.watch(wt)
            y = _tanh_conv(xt, wt)
        return inner.jacobian(y, wt)

    xt, wt = tk.constant(x), tk.constant(w)
    with tk.GradientTape(persistent=True) as outer:
        outer.watch([xt, wt])
        j = jac_w(xt, wt)
    jx, jw = outer.jacobian(j, [xt, wt])
    nx, nw = numerical_jacobian(jac_w, [x, w])
    np.testing.assert_allclose(jx.numpy(), nx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(jw.numpy(), nw, rtol=1e-5, atol=1e-6)


def test_filter_jacobian_keeps_the_cotangent_batch_apart(layout):
    # d y[n, i, j, o] / d w: one filter gradient per output element, not summed over them
    x, w = rng.standard_normal((3, 4, 4, 2)), rng.standard_normal((2, 2, 2, 2))
    xt, wt = tk.constant(x), tk.constant(w)
    with tk.GradientTape() as tape:
        tape.watch(wt)
        y = tk.nn.conv2d(xt, wt, 2, "VALID")
    jac = tape.jacobian(y, wt).numpy()
    for n, i, j, o in np.ndindex(*y.shape):
        expected = np.zeros(w.shape)
        expected[..., o] = x[n, 2 * i:2 * i + 2, 2 * j:2 * j + 2, :]
        np.testing.assert_allclose(jac[n, i, j, o], expected, rtol=1e-12)


# --- errors name the op, the argument and the shapes ------------------------------------------------

X, W = np.zeros((2, 5, 5, 3), np.float32), np.zeros((3, 3, 3, 4), np.float32)


@pytest.mark.parametrize("call, words", [
    (lambda: tk.nn.conv2d(X[0], W, 1, "SAME"), ["conv2d", "input", "(5, 5, 3)", "(3, 3, 3, 4)", "4-D"]),
    (lambda: tk.nn.conv2d(X, np.zeros((3, 3, 2, 4), np.float32), 1, "SAME"),
     ["conv2d", "3 channels", "expect 2", "(2, 5, 5, 3)", "(3, 3, 2, 4)"]),
    (lambda: tk.nn.conv2d(X, W[0], 1, "SAME"), ["conv2d", "filters", "(3, 3, 4)", "(2, 5, 5, 3)"]),
    (lambda: tk.nn.conv2d(X, np.zeros((7, 7, 3, 1), np.float32), 1, "VALID"),
     ["conv2d", "7x7", "5x5", "VALID"]),
    (lambda: tk.nn.conv2d(X, W, 1, "SAME", data_format="NCHW"), ["conv2d", "data_format", "NCHW", "NHWC"]),
    (lambda: tk.nn.conv2d(X, W, 1, "SAME", dilations=2), ["conv2d", "dilations"]),
    (lambda: tk.nn.conv2d(X, W, 1, "FULL"), ["conv2d", "padding", "FULL"]),
    (lambda: tk.nn.conv2d(X, W, 1, [[0, 0], [1, 1], [1, 1], [0, 0]]), ["conv2d", "padding"]),
    (lambda: tk.nn.conv2d(X, W, [1, 2, 2], "SAME"), ["conv2d", "strides", "1, 2 or 4"]),
    (lambda: tk.nn.conv2d(X, W, [2, 1, 1, 1], "SAME"), ["conv2d", "strides", "[1, h, w, 1]"]),
    (lambda: tk.nn.conv2d(X, W, 0, "SAME"), ["conv2d", "strides", "positive"]),
    (lambda: conv_ops.conv2d_backprop_input(X.shape, W, np.zeros((2, 5, 5, 3)), 1, "SAME"),
     ["conv2d_backprop_input", "out_backprop", "(2, 5, 5, 3)", "(2, 5, 5, 4)"]),
    (lambda: conv_ops.conv2d_backprop_filter(X, W.shape, np.zeros((2, 5, 5, 4)), 1, "VALID"),
     ["conv2d_backprop_filter", "out_backprop", "(2, 5, 5, 4)", "(2, 3, 3, 4)"]),
])
def test_errors_are_clear(call, words):
    with pytest.raises(ValueError) as err:
        call()
    for word in words:
        assert word in str(err.value), (word, str(err.value))


def test_dilations_of_one_and_the_default_format_are_accepted():
    y = tk.nn.conv2d(X, W, [1, 1, 1, 1], "VALID", data_format="NHWC", dilations=[1, 1, 1, 1])
    assert y.shape == (2, 3, 3, 4)


def test_mixed_dtypes_are_refused():
    with pytest.raises(TypeError, match="conv2d"):
        tk.nn.conv2d(tk.constant(X), tk.constant(W.astype(np.float64)), 1, "SAME")


def test_channel_strided_and_empty_inputs():
    # im2col copies whole pixels when channels are contiguous (windows.copy_pixels); a
    # strided channel view must give the same numbers.
    rng = np.random.default_rng(7)
    full = rng.standard_normal((2, 6, 6, 16))
    x, dense = full[..., ::2], np.ascontiguousarray(full[..., ::2])
    w = rng.standard_normal((3, 3, 8, 4))
    np.testing.assert_array_equal(tk.nn.conv2d(x, w, 1, "SAME").numpy(), tk.nn.conv2d(dense, w, 1, "SAME").numpy())


# --- conv2d_transpose ------------------------------------------------------------------------------

def test_conv2d_transpose_is_the_adjoint_of_conv2d():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 6, 5, 3))
    w = rng.normal(size=(3, 3, 3, 4))                  # conv2d: 3 -> 4 channels
    for strides, padding in ((1, "VALID"), (2, "SAME"), ([2, 1], "VALID")):
        y = tk.nn.conv2d(x, w, strides, padding)
        z = rng.normal(size=y.shape)
        back = tk.nn.conv2d_transpose(z, w, x.shape, strides, padding)   # filters (h, w, out=3, in=4)
        # <conv2d(x), z> = <x, conv2d_transpose(z)>
        assert np.sum(y.numpy() * z) == pytest.approx(np.sum(x * back.numpy()), rel=1e-10)
    with pytest.raises(ValueError, match="conv2d_transpose: input has shape"):
        tk.nn.conv2d_transpose(np.ones((2, 3, 2, 4)), w, (2, 6, 5, 3), 2, "SAME")   # needs (2, 3, 3, 4)


@pytest.mark.parametrize("shape, filters, strides, pads", [
    ((64, 13, 13, 16), (3, 3, 16, 32), (1, 1), (0, 0, 0, 0)),    # the fit CNN's second conv
    ((2, 6, 6, 16), (3, 3, 16, 32), (1, 1), (0, 0, 0, 0)),       # small: another BLAS kernel
    ((2, 4, 6, 24), (3, 3, 24, 43), (1, 2), (1, 1, 1, 1)),
    ((5, 4, 5, 10), (3, 1, 10, 43), (2, 2), (1, 0, 0, 1)),
])
def test_input_gradient_by_tap_is_the_one_product_col2im(shape, filters, strides, pads):
    # Many channels: the input gradient adds dy @ w[a, b]^T tap by tap instead of slicing
    # one product dy @ w^T. Each entry is the same dot product over the output channels, so
    # the two differ at most by the rounding of that sum in another order (on the fit CNN's
    # shape, with OpenBLAS, not at all); the taps reach each pixel in the same order.
    fh, fw, ci, co = filters
    ho = (shape[1] + pads[0] + pads[1] - fh) // strides[0] + 1
    wo = (shape[2] + pads[2] + pads[3] - fw) // strides[1] + 1
    dy = rng.standard_normal((shape[0], ho, wo, co)).astype(np.float32)
    w = rng.standard_normal(filters).astype(np.float32)
    got = conv_ops._conv2d_backprop_input(dy, w, shape[1:3], strides, pads)
    one_product = conv_ops._col2im(dy.reshape(-1, co) @ w.reshape(-1, co).T, shape, (fh, fw), strides, pads)
    assert got.dtype == np.float32 and got.shape == shape and got.flags.c_contiguous
    magnitude = conv_ops._col2im(np.abs(dy.reshape(-1, co)) @ np.abs(w.reshape(-1, co)).T, shape,
                                 (fh, fw), strides, pads)
    assert np.all(np.abs(got - one_product) <= co * np.finfo(np.float32).eps * magnitude)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("strides, pads", [((1, 1), (0, 0, 0, 0)), ((2, 1), (1, 1, 0, 1)), ((1, 3), (0, 1, 1, 1))])
@pytest.mark.parametrize("make", [lambda a: a, lambda a: np.asfortranarray(a),
                                  lambda a: np.repeat(a, 2, axis=-1)[..., ::2]])
def test_im2col_of_many_channels_is_every_tap_copied(dtype, strides, pads, make):
    # One copy of patch rows (or, for pixels not side by side, nine tap copies): the same
    # matrix, bit for bit, as copying each tap's pixels into its columns.
    x = make(rng.standard_normal((3, 7, 8, 9)).astype(dtype))
    window = (3, 2)
    got = conv_ops._im2col(x, window, strides, pads)
    xp = window_geometry.padded(np.ascontiguousarray(x), pads)
    ho, wo = window_geometry.output_hw(x.shape[1:3], window, strides, pads)
    want = np.empty((3, ho, wo, 3, 2, 9), dtype)
    for a, b, view in window_geometry.window_views(xp, window, strides, (ho, wo)):
        want[:, :, :, a, b] = view
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want.reshape(3 * ho * wo, -1))


def test_a_1x1_filter_over_many_channels_uses_the_images_as_the_matrix():
    # A 1x1 window with stride 1 and no padding: im2col is the images themselves (a view, no
    # copy), and conv2d, both gradients are one matrix product each against plain sums.
    x = rng.standard_normal((2, 5, 4, 9)).astype(np.float32)
    w = rng.standard_normal((1, 1, 9, 6)).astype(np.float32)
    cols = conv_ops._im2col(x, (1, 1), (1, 1), (0, 0, 0, 0))
    assert np.shares_memory(cols, x) and cols.shape == (40, 9)
    y, (dx, dw) = tape_grads(lambda a, b: tk.nn.conv2d(a, b, 1, "SAME"), x, w,
                             output_gradients=tk.constant(np.ones((2, 5, 4, 6), np.float32)))
    np.testing.assert_allclose(y.numpy(), np.einsum("nhwc,co->nhwo", x, w[0, 0]), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dx.numpy(), np.broadcast_to(w[0, 0].sum(axis=1), x.shape), rtol=1e-5)
    np.testing.assert_allclose(dw.numpy()[0, 0], np.broadcast_to(x.sum(axis=(0, 1, 2))[:, None], (9, 6)),
                               rtol=1e-5)
    # strided or padded 1x1 windows, and strided channels, still go through the copies
    assert not np.shares_memory(conv_ops._im2col(x, (1, 1), (2, 1), (0, 0, 0, 0)), x)
    wide = np.repeat(x, 2, axis=-1)[..., ::2]      # 9 channels, not side by side
    cols = conv_ops._im2col(wide, (1, 1), (1, 1), (0, 0, 0, 0))
    assert not np.shares_memory(cols, wide) and np.array_equal(cols, x.reshape(40, 9))
