"""tapekit/ops/activations.py: relu, softmax, log_softmax and the other activations of tf.nn,
against hand-derived values and finite differences; errors name the op.
"""
import math

import numpy as np
import pytest

import tapekit as tk
from tapekit.ops import activations
from tapekit.testing import check_grads

IAE = tk.errors.InvalidArgumentError


def test_relu_and_its_gradient_by_hand():
    x = tk.Variable([-1.5, 0.0, 2.0])
    with tk.GradientTape() as tape:
        y = tk.nn.relu(x)
    np.testing.assert_array_equal(y.numpy(), [0.0, 0.0, 2.0])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, 0.0, 1.0])   # 0 at 0, as TF


def test_softmax_and_log_softmax_by_hand():
    x = np.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, -np.inf]])
    e = np.exp([1.0, 2.0, 3.0])
    p = tk.nn.softmax(tk.constant(x, tk.float64)).numpy()
    np.testing.assert_allclose(p, [e / e.sum(), [0.5, 0.5, 0.0]], rtol=1e-15)   # no overflow at 1000
    lp = tk.nn.log_softmax(tk.constant(x, tk.float64)).numpy()
    np.testing.assert_allclose(lp[0], np.log(e / e.sum()), rtol=1e-15)
    np.testing.assert_allclose(lp[1], [-math.log(2), -math.log(2), -np.inf])
    np.testing.assert_allclose(tk.nn.softmax(tk.constant(x[:1], tk.float64), axis=0).numpy(), [[1.0, 1.0, 1.0]])


def test_softmax_gradient_is_diag_p_minus_p_p_transposed():
    z = tk.constant([0.5, -1.0, 2.0], tk.float64)
    with tk.GradientTape() as tape:
        tape.watch(z)
        p = tk.nn.softmax(z)
    p_ = p.numpy()
    np.testing.assert_allclose(tape.jacobian(p, z).numpy(), np.diag(p_) - np.outer(p_, p_), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("f", [tk.nn.relu, tk.nn.softmax, tk.nn.log_softmax, tk.nn.softplus, tk.nn.softsign,
                               tk.nn.elu, tk.nn.selu, tk.nn.gelu, lambda x: tk.nn.gelu(x, approximate=True),
                               tk.nn.silu, lambda x: tk.nn.silu(x, beta=0.5), tk.nn.leaky_relu,
                               tk.math.log_sigmoid, lambda x: tk.nn.softmax(x, axis=0)])
def test_gradients_match_finite_differences_to_second_order(f):
    # points away from the kinks at 0 (relu, elu, leaky_relu) and 6 (relu6)
    x = np.array([[-2.1, -0.4, 0.3], [0.8, 1.7, -1.2]])
    check_grads(f, x, order=2)


def test_the_fast_row_reductions_give_numpys_maxima_and_sums():
    # softmax's max and sum along a short last axis take a faster path for large arrays
    x = np.random.default_rng(0).standard_normal((64, 10)).astype(np.float32)
    np.testing.assert_array_equal(activations.max_keepdims(x, -1), x.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(activations.sum_keepdims(x, -1), x.sum(axis=-1, keepdims=True), rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(activations.softmax_array(x, -1).sum(axis=-1), 1.0, rtol=1e-6)


def test_gelu_is_x_times_the_normal_distribution_function():
    x = np.array([-3.0, -0.5, 0.0, 0.7, 2.0])
    phi = np.array([0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x])
    # 1 + erf(x / sqrt 2) cancels for x << 0: relative to the result, erf's 2e-16 grows there
    np.testing.assert_allclose(tk.nn.gelu(tk.constant(x)).numpy(), x * phi, rtol=1e-14, atol=1e-15)
    tanh_form = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(tk.nn.gelu(tk.constant(x), approximate=True).numpy(), tanh_form, rtol=1e-14)


def test_activations_by_hand():
    x = tk.constant([-2.0, 0.5, 7.0], tk.float64)
    e = math.exp(-2.0)
    np.testing.assert_allclose(tk.nn.softplus(x).numpy(), [math.log1p(e), math.log1p(math.exp(0.5)), 7 + math.log1p(math.exp(-7))])
    np.testing.assert_allclose(tk.nn.softsign(x).numpy(), [-2 / 3, 0.5 / 1.5, 7 / 8])
    np.testing.assert_allclose(tk.nn.elu(x).numpy(), [e - 1, 0.5, 7.0])
    scale, alpha = 1.0507009873554805, 1.6732632423543772
    np.testing.assert_allclose(tk.nn.selu(x).numpy(), [scale * alpha * (e - 1), scale * 0.5, scale * 7])
    np.testing.assert_allclose(tk.nn.relu6(x).numpy(), [0.0, 0.5, 6.0])
    np.testing.assert_allclose(tk.nn.leaky_relu(x).numpy(), [-0.4, 0.5, 7.0])        # alpha=0.2
    np.testing.assert_allclose(tk.nn.silu(x).numpy(), [-2 / (1 + math.exp(2)), 0.5 / (1 + math.exp(-0.5)),
                                                       7 / (1 + math.exp(-7))])
    assert tk.nn.swish is tk.nn.silu
    np.testing.assert_allclose(tk.math.log_sigmoid(x).numpy(), -tk.nn.softplus(-x).numpy())
    # no overflow where exp would overflow: softplus(1000) = 1000, log_sigmoid(-1000) = -1000
    assert tk.nn.softplus(tk.constant(1000.0)).numpy() == 1000.0
    assert tk.math.log_sigmoid(tk.constant(-1000.0)).numpy() == -1000.0
    assert tk.nn.leaky_relu(tk.constant([-1, 2])).dtype == tk.float32   # TensorFlow casts ints


def test_relu6_of_integers_stays_integer():
    # TF 2.21 gives int32 [0 3 6] for tf.nn.relu6([-2, 3, 9]); tapekit raised TypeError
    # saying "TensorFlow refuses it too".
    y = tk.nn.relu6(tk.constant([-2, 3, 9]))
    assert y.dtype == tk.int32 and y.numpy().tolist() == [0, 3, 6]
    assert tk.nn.relu6([-7, 6, 7]).numpy().tolist() == [0, 6, 6]


def test_relu6_second_derivative_is_zero_like_relu():
    x = tk.Variable([-1.0, 3.0, 7.0])
    with tk.GradientTape() as outer:
        with tk.GradientTape() as inner:
            y = tk.reduce_sum(tk.nn.relu6(x))
        g = inner.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), [0.0, 1.0, 0.0])
    h = outer.gradient(g, x, unconnected_gradients="zero")
    np.testing.assert_array_equal(h.numpy(), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("call, name", [
    (lambda x: tk.nn.softmax(x, axis=3), "softmax"),
    (lambda x: tk.nn.log_softmax(x, axis=-3), "log_softmax")])
def test_softmax_axes_name_the_op(call, name):
    with pytest.raises(IAE, match=rf"^{name}: axis = -?3 is out of range for a tensor of rank 2"):
        call(tk.ones((2, 3)))


@pytest.mark.parametrize("f", [tk.nn.softmax, tk.nn.log_softmax])
def test_softmax_of_an_empty_tensor_is_empty(f):
    # Found by tools/tf_diff: TF 2.21 returns an empty (2, 0) float32 tensor (and an empty
    # gradient); tapekit raised from NumPy's max of nothing.
    x = tk.constant(np.zeros((2, 0), np.float32))
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert y.shape == (2, 0) and y.dtype == np.float32
    assert tape.gradient(y, x).shape == (2, 0)
    assert f(tk.constant(np.zeros((0, 3)))).shape == (0, 3)


@pytest.mark.parametrize("fn", [tk.nn.softmax, tk.nn.log_softmax])
def test_softmax_refuses_integer_logits(fn):
    # TF 2.21 raises (int32 is not an allowed dtype); tapekit returned float64 [0.269, 0.731]
    # the hint names the function where it is: tk.nn.softmax (there is no tk.softmax)
    with pytest.raises(TypeError, match=r"softmax: needs a floating input .* got dtype int32.*"
                                        r"Cast first: tk\.nn\.(log_)?softmax\(tk\.cast"):
        fn(tk.constant([1, 2]))
    np.testing.assert_allclose(tk.nn.softmax(tk.constant([0.0, np.log(3.0)])).numpy(), [0.25, 0.75],
                               rtol=1e-6)   # e^0 : e^log 3 = 1 : 3


# --- bias_add (values and errors checked against TensorFlow 2.21) ---------------------------------
def test_bias_add_matches_tensorflow():
    x = tk.reshape(tk.range(12.0), (3, 4))
    got = tk.nn.bias_add(x, [1, 2, 3, 4])                 # a list takes the value's dtype
    assert got.dtype == tk.float32 and got.numpy()[0].tolist() == [1, 3, 5, 7]
    nchw = tk.nn.bias_add(tk.ones((1, 2, 2, 2)), [1.0, 2.0], data_format="NCHW")
    assert nchw.numpy()[0, :, 0, 0].tolist() == [2, 3] and nchw.numpy()[0, 1].tolist() == [[3, 3], [3, 3]]
    nhwc = tk.nn.bias_add(tk.ones((1, 2, 2, 2)), [1.0, 2.0], data_format="NHWC")
    assert nhwc.numpy()[0, 0, 0].tolist() == [2, 3]


def test_bias_add_refuses_what_tensorflow_refuses():
    x = tk.zeros((3, 4))
    with pytest.raises(IAE, match=r"3 biases for 4 channels \(axis 1"):
        tk.nn.bias_add(x, [1.0, 2.0, 3.0])
    with pytest.raises(IAE, match=r"bias must be a vector.*\(1, 4\)"):
        tk.nn.bias_add(x, [[1.0, 2.0, 3.0, 4.0]])
    with pytest.raises(IAE, match=r"rank 2 or more.*\(3,\)"):
        tk.nn.bias_add(tk.ones(3), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="data_format must be"):
        tk.nn.bias_add(x, tk.zeros(4), data_format="HWC")


def test_bias_add_gradient_sums_over_the_batch():
    x = tk.Variable(tk.ones((2, 3, 4)))
    b = tk.Variable([0.0, 0.0, 0.0])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.nn.bias_add(x, b, data_format="NCW") * 2.0)
    gx, gb = tape.gradient(y, [x, b])
    np.testing.assert_array_equal(gb.numpy(), [16, 16, 16])     # 2 * (2 examples * 4 places)
    np.testing.assert_array_equal(gx.numpy(), np.full((2, 3, 4), 2.0))
    rng = np.random.default_rng(0)
    check_grads(lambda v, c: tk.nn.bias_add(v * v, c * c), rng.uniform(-1, 1, (2, 3)),
                rng.uniform(-1, 1, 3), order=2)
