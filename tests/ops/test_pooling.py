"""tk.nn.max_pool2d and tk.nn.avg_pool2d (and tf.nn's max_pool, avg_pool): values and gradients
against plain loops, TensorFlow's shapes, max-pool tie-breaking, padding, errors.

Derivatives of every pool op against finite differences are in tests/contracts/test_ops_table.py.
"""
import numpy as np
import pytest

import tapekit as tk
from tapekit.ops import pooling as pool_ops
from tapekit.ops import windows as window_geometry
from tapekit.testing import check_grads


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


def max_pool2d_loops(x, ksize, strides, padding):
    """Values, and the gradient of sum(out * dy) sent to each window's first maximum."""
    (kh, kw), (sh, sw) = ksize, strides
    xp, (pt, _, pl, _) = pad_like_tf(x, kh, kw, sh, sw, padding, fill=-np.inf)
    ho, wo = (xp.shape[1] - kh) // sh + 1, (xp.shape[2] - kw) // sw + 1
    out = np.zeros((x.shape[0], ho, wo, x.shape[3]))
    where = np.zeros(out.shape + (2,), int)
    for n in range(x.shape[0]):
        for i in range(ho):
            for j in range(wo):
                for c in range(x.shape[3]):
                    win = xp[n, i * sh:i * sh + kh, j * sw:j * sw + kw, c]
                    a, b = np.unravel_index(np.argmax(win), win.shape)   # argmax: the first max
                    out[n, i, j, c] = win[a, b]
                    where[n, i, j, c] = (i * sh + a - pt, j * sw + b - pl)
    return out, where


def scatter_loops(where, dy, x_shape):
    dx = np.zeros(x_shape)
    for idx in np.ndindex(*dy.shape):
        r, c = where[idx]
        dx[idx[0], r, c, idx[3]] += dy[idx]
    return dx


def tape_grads(f, *xs, output_gradients=None):
    ts = [tk.constant(x) for x in xs]
    with tk.GradientTape() as tape:
        tape.watch(ts)
        y = f(*ts)
    return y, tape.gradient(y, ts, output_gradients=output_gradients)


rng = np.random.default_rng(0)
# --- max_pool2d ---------------------------------------------------------------------------------------

def distinct(shape):
    """Values without ties (a random permutation), so the argmax is unambiguous."""
    return rng.permutation(int(np.prod(shape))).reshape(shape) * 0.5 - 7.0


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("ksize, strides", [(2, 2), (3, 2), (3, 1), ([2, 3], [1, 2]), ([1, 3, 2, 1], [1, 2, 2, 1])])
def test_max_pool2d_values_and_gradient_match_loops(ksize, strides, padding):
    x = distinct((2, 7, 6, 3))
    k = window_geometry.spatial_pair("test", "ksize", ksize)
    s = window_geometry.spatial_pair("test", "strides", strides)
    ref, where = max_pool2d_loops(x, k, s, padding)
    dy = rng.standard_normal(ref.shape)
    y, (dx,) = tape_grads(lambda a: tk.nn.max_pool2d(a, ksize, strides, padding), x,
                          output_gradients=tk.constant(dy))
    np.testing.assert_array_equal(y.numpy(), ref)
    np.testing.assert_allclose(dx.numpy(), scatter_loops(where, dy, x.shape), rtol=1e-12)


@pytest.mark.parametrize("size, k, stride, padding, out", [
    (28, 2, 2, "VALID", 14), (27, 2, 2, "VALID", 13), (27, 2, 2, "SAME", 14), (28, 3, 2, "SAME", 14),
    (28, 3, 1, "VALID", 26),
])
def test_max_pool2d_output_shapes_are_tensorflows(size, k, stride, padding, out):
    x = rng.standard_normal((2, size, size, 4)).astype(np.float32)
    y = tk.nn.max_pool2d(x, k, stride, padding)
    assert y.shape == (2, out, out, 4) and y.dtype == np.float32


def test_max_pool2d_ties_go_to_the_first_maximum():
    # each 2x2 window in row-major order: all equal -> top-left; [[1, 5], [5, 2]] -> top-right;
    # [[0, 0], [3, 3]] -> bottom-left
    x = np.array([[7, 7, 1, 5, 0, 0],
                  [7, 7, 5, 2, 3, 3]], dtype=np.float64).reshape(1, 2, 6, 1)
    y, (dx,) = tape_grads(lambda a: tk.nn.max_pool2d(a, 2, 2, "VALID"), x)
    np.testing.assert_array_equal(y.numpy().ravel(), [7, 5, 3])
    np.testing.assert_array_equal(dx.numpy()[0, :, :, 0], [[1, 0, 0, 1, 0, 0],
                                                           [0, 0, 0, 0, 1, 0]])


def test_max_pool2d_ties_after_relu():
    # relu makes whole windows of zeros: TensorFlow sends each one's gradient to its first pixel
    x = -np.ones((1, 4, 4, 2))
    with tk.GradientTape() as tape:
        xt = tk.constant(x)
        tape.watch(xt)
        y = tk.nn.max_pool2d(tk.nn.relu(xt) + xt * 0, 2, 2, "VALID")
    dx = tape.gradient(y, xt).numpy()
    assert dx.sum() == 0.0   # relu' = 0 there; the pool still picks one pixel per window:
    _, (dpool,) = tape_grads(lambda a: tk.nn.max_pool2d(a, 2, 2, "VALID"), np.zeros((1, 4, 4, 2)))
    np.testing.assert_array_equal(dpool.numpy()[0, :, :, 0], [[1, 0, 1, 0], [0, 0, 0, 0],
                                                              [1, 0, 1, 0], [0, 0, 0, 0]])


def test_overlapping_windows_add_up():
    x = np.zeros((1, 5, 5, 1))
    x[0, 2, 2, 0] = 1.0                    # the maximum of every 3x3 window that contains it
    y, (dx,) = tape_grads(lambda a: tk.nn.max_pool2d(a, 3, 1, "VALID"), x)
    np.testing.assert_array_equal(y.numpy(), np.ones((1, 3, 3, 1)))
    assert dx.numpy()[0, 2, 2, 0] == 9.0 and dx.numpy().sum() == 9.0


def test_padding_never_wins_a_max_pool_window():
    # all-negative input: SAME's padding must not show up as 0 (TF pads max pool with -inf)
    x = -1.0 - rng.random((1, 5, 5, 2))
    y = tk.nn.max_pool2d(x, 3, 2, "SAME")
    assert (y.numpy() < -1.0).all()
    # a window whose real pixels are all -inf: the value is -inf and the gradient goes to
    # the window's first real pixel, never outside the input
    x = np.full((1, 3, 3, 1), -np.inf)
    y, (dx,) = tape_grads(lambda a: tk.nn.max_pool2d(a, 2, 2, "SAME"), x)
    assert y.shape == (1, 2, 2, 1) and np.isneginf(y.numpy()).all()
    np.testing.assert_array_equal(dx.numpy()[0, :, :, 0], [[1, 0, 1], [0, 0, 0], [1, 0, 1]])


def test_max_pool2d_nan_is_the_maximum():
    x = distinct((1, 4, 4, 1))
    x[0, 1, 0, 0] = np.nan
    y, (dx,) = tape_grads(lambda a: tk.nn.max_pool2d(a, 2, 2, "VALID"), x)
    assert np.isnan(y.numpy()[0, 0, 0, 0]) and not np.isnan(y.numpy().ravel()[1:]).any()
    assert dx.numpy()[0, 1, 0, 0] == 1.0 and dx.numpy()[0, :2, :2].sum() == 1.0


def test_max_pool2d_jacobian_and_forward_mode():
    x = distinct((2, 5, 5, 2))
    xt = tk.constant(x)
    with tk.GradientTape() as tape:
        tape.watch(xt)
        y = tk.nn.max_pool2d(xt, 3, 2, "SAME")
    jac = tape.jacobian(y, xt).numpy()
    _, where = max_pool2d_loops(x, (3, 3), (2, 2), "SAME")
    expected = np.zeros(y.shape + x.shape)
    for idx in np.ndindex(*y.shape):
        expected[idx + (idx[0],) + tuple(where[idx]) + (idx[3],)] = 1.0
    np.testing.assert_array_equal(jac, expected)
    t = rng.standard_normal(x.shape)
    with tk.ForwardAccumulator(xt, tk.constant(t)) as acc:
        y = tk.nn.max_pool2d(xt, 3, 2, "SAME")
    np.testing.assert_array_equal(acc.jvp(y).numpy(), expected.reshape(y.shape + (-1,)) @ t.ravel())


def test_max_pool2d_grad_helper():
    x = distinct((2, 6, 5, 2))
    dy = rng.standard_normal((2, 3, 3, 2))
    _, (dx,) = tape_grads(lambda a: tk.nn.max_pool2d(a, 3, 2, "SAME"), x, output_gradients=tk.constant(dy))
    np.testing.assert_array_equal(pool_ops.max_pool2d_grad(x, dy, 3, 2, "SAME").numpy(), dx.numpy())


@pytest.mark.filterwarnings("ignore:tk.function")  # it may still fall back to eager for max_pool2d
def test_a_small_cnn_under_tk_function_matches_eager():
    # tk.function must recompute the pooling positions on every call, not reuse the first's
    w = tk.Variable(rng.standard_normal((3, 3, 2, 4)))

    def loss_and_grad(x):
        with tk.GradientTape() as tape:
            h = tk.nn.max_pool2d(tk.nn.relu(tk.nn.conv2d(x, w, 1, "SAME")), 3, 2, "SAME")
            loss = tk.reduce_sum(h * h)
        return loss, tape.gradient(loss, w)

    traced = tk.function(loss_and_grad)
    for _ in range(3):
        x = tk.constant(rng.standard_normal((2, 7, 7, 2)))
        (l1, g1), (l2, g2) = traced(x), loss_and_grad(x)
        np.testing.assert_allclose(l1.numpy(), l2.numpy(), rtol=1e-12)
        np.testing.assert_allclose(g1.numpy(), g2.numpy(), rtol=1e-12)


# --- errors name the op, the argument and the shapes ------------------------------------------------

X = np.zeros((2, 5, 5, 3), np.float32)


@pytest.mark.parametrize("call, words", [
    (lambda: pool_ops.max_pool2d_grad(X, np.zeros((2, 2, 2, 3)), 2, 1, "VALID"),
     ["max_pool2d_grad", "(2, 2, 2, 3)", "(2, 4, 4, 3)"]),
    (lambda: tk.nn.max_pool2d(X[0], 2, 2, "VALID"), ["max_pool2d", "input", "(5, 5, 3)", "4-D"]),
    (lambda: tk.nn.max_pool2d(X, [2, 2, 2], 2, "VALID"), ["max_pool2d", "ksize"]),
    (lambda: tk.nn.max_pool2d(X, 2, 2, "VALID", data_format="NCHW"), ["max_pool2d", "data_format"]),
    (lambda: tk.nn.max_pool2d(X, 6, 1, "VALID"), ["max_pool2d", "6x6", "5x5"]),
    (lambda: tk.nn.max_pool2d(X, 2, 2, "full"), ["max_pool2d", "padding"]),
])
def test_errors_are_clear(call, words):
    with pytest.raises(ValueError) as err:
        call()
    for word in words:
        assert word in str(err.value), (word, str(err.value))

def test_channel_strided_and_empty_inputs():
    # The pooling search copies whole pixels when channels are contiguous (windows.copy_pixels);
    # a strided channel view or no channels must still work.
    rng = np.random.default_rng(7)
    full = rng.standard_normal((2, 6, 6, 16))
    x, dense = full[..., ::2], np.ascontiguousarray(full[..., ::2])
    np.testing.assert_array_equal(tk.nn.max_pool2d(x, 2, 2, "SAME").numpy(),
                                  tk.nn.max_pool2d(dense, 2, 2, "SAME").numpy())
    assert tk.nn.max_pool2d(np.zeros((2, 4, 4, 0)), 2, 2, "VALID").shape == (2, 2, 2, 0)


# --- avg_pool2d ----------------------------------------------------------------------------------------

def test_avg_pool_same_padding_leaves_padding_out_of_the_mean():
    x = np.arange(1.0, 10.0).reshape(1, 3, 3, 1)       # 1..9
    y = tk.nn.avg_pool2d(x, ksize=2, strides=2, padding="SAME").numpy()[0, :, :, 0]
    # SAME, 3 -> 2 windows, the padding at the bottom/right: 2x2, 2x1, 1x2, 1x1 real pixels
    np.testing.assert_allclose(y, [[(1 + 2 + 4 + 5) / 4, (3 + 6) / 2], [(7 + 8) / 2, 9.0]])


def test_avg_pool2d_values_and_gradient_by_hand():
    # VALID 2x2, stride 1 on a 3x3 image: each output is the mean of 4 pixels, so each pixel
    # receives 1/4 of the cotangent of every window that covers it (corners 1, edges 2, centre 4).
    x = np.arange(9.0).reshape(1, 3, 3, 1)
    y, (dx,) = tape_grads(lambda a: tk.nn.avg_pool2d(a, 2, 1, "VALID"), x)
    np.testing.assert_array_equal(y.numpy()[0, :, :, 0], [[2.0, 3.0], [5.0, 6.0]])
    np.testing.assert_array_equal(dx.numpy()[0, :, :, 0], np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]]) / 4)


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_avg_pool2d_gradients_match_finite_differences_to_second_order(padding):
    x = rng.standard_normal((2, 5, 4, 3))
    check_grads(lambda a: tk.nn.avg_pool2d(a, [3, 2], [2, 1], padding), x, order=2)
    check_grads(lambda a: tk.nn.avg_pool2d(a, 2, 2, padding) ** 2, x, order=2)


def test_max_pool_and_avg_pool_are_the_2d_pools_with_tensorflows_default_format():
    x = distinct((1, 4, 4, 2))
    np.testing.assert_array_equal(tk.nn.max_pool(x, 2, 2, "VALID").numpy(), tk.nn.max_pool2d(x, 2, 2, "VALID").numpy())
    np.testing.assert_array_equal(tk.nn.avg_pool(x, 2, 2, "VALID").numpy(), tk.nn.avg_pool2d(x, 2, 2, "VALID").numpy())
    with pytest.raises(ValueError, match="avg_pool2d: data_format 'NCHW' is not supported"):
        tk.nn.avg_pool(x, 2, 2, "VALID", data_format="NCHW")


@pytest.mark.parametrize("call, words", [
    (lambda: tk.nn.avg_pool2d(X[0], 2, 2, "VALID"), ["avg_pool2d", "input", "(5, 5, 3)", "4-D"]),
    (lambda: tk.nn.avg_pool2d(X, 6, 1, "VALID"), ["avg_pool2d", "6x6", "5x5"]),
    (lambda: tk.nn.avg_pool2d(X, 2, [1, 2, 2, 2], "VALID"), ["avg_pool2d", "strides", "[1, h, w, 1]"]),
    (lambda: tk.nn.avg_pool2d(X, 2, 2, "full"), ["avg_pool2d", "padding", "'full'"]),
])
def test_avg_pool2d_errors_are_clear(call, words):
    with pytest.raises(ValueError) as err:
        call()
    for word in words:
        assert word in str(err.value), (word, str(err.value))


@pytest.mark.parametrize("shape, window, lead", [((2, 6, 8, 3), (2, 2), ()), ((2, 7, 9, 3), (2, 3), ()),
                                                 ((1, 5, 5, 2), (3, 3), (4,))])
def test_avg_pool_backprop_of_windows_side_by_side_is_the_sum_of_the_tap_adds(shape, window, lead):
    # stride == window, no padding: one broadcast assignment into the covered block instead of
    # a strided add per tap; the same numbers bit for bit, a -0.0 cotangent included, and the
    # rows and columns no window covers stay zero.
    ho, wo = shape[1] // window[0], shape[2] // window[1]
    dy = np.random.default_rng(5).standard_normal(lead + (shape[0], ho, wo, shape[3])).astype(np.float32)
    dy.flat[0] = -0.0
    got = pool_ops._avg_pool_backprop(dy, shape[1:3], window, window, (0, 0, 0, 0))
    want = np.zeros(lead + shape, np.float32)
    for a, b in np.ndindex(*window):
        want[..., a:ho * window[0]:window[0], b:wo * window[1]:window[1], :] += dy / np.float32(window[0] * window[1])
    assert got.shape == want.shape and got.dtype == np.float32
    assert got.tobytes() == want.tobytes()
