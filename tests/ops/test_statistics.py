"""tapekit/ops/statistics.py: argmax/argmin, count_nonzero, reduce_variance, reduce_std and
reduce_logsumexp: values and gradients by hand, dtypes, errors.
"""
import math

import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads


def test_variance_and_logsumexp_gradients_by_hand():
    x = tk.Variable([1.0, 2.0, 3.0, 6.0], dtype=tk.float64)
    with tk.GradientTape(persistent=True) as tape:
        var, lse = tk.math.reduce_variance(x), tk.math.reduce_logsumexp(x)
    np.testing.assert_allclose(tape.gradient(var, x).numpy(), 2 * np.array([-2.0, -1.0, 0.0, 3.0]) / 4)
    e = np.exp([1.0, 2.0, 3.0, 6.0])
    np.testing.assert_allclose(tape.gradient(lse, x).numpy(), e / e.sum(), rtol=1e-14)    # softmax


@pytest.mark.parametrize("f", [tk.math.reduce_variance, tk.math.reduce_std, tk.math.reduce_logsumexp])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, False), (0, True)])
def test_gradients_match_finite_differences_to_second_order(f, axis, keepdims):
    x = np.random.default_rng(8).standard_normal((3, 4))
    check_grads(lambda a: f(a, axis=axis, keepdims=keepdims), x, order=2)


def test_argmax_defaults_to_axis_zero_and_int64_and_has_no_gradient():
    x = tk.constant([[1.0, 9.0, 3.0], [4.0, 2.0, 3.0]])
    np.testing.assert_array_equal(tk.argmax(x).numpy(), [1, 0, 0])      # ties: the first
    assert tk.argmax(x).dtype == tk.int64
    np.testing.assert_array_equal(tk.math.argmin(x, axis=-1, output_type=tk.int32).numpy(), [0, 1])
    assert tk.math.argmin(x, 1, output_type=tk.int32).dtype == tk.int32
    v = tk.Variable([1.0, 3.0])
    with tk.GradientTape() as tape:
        i = tk.argmax(v)
    with pytest.warns(tk.GradientDtypeWarning):
        assert tape.gradient(i, v) is None
    with pytest.raises(ValueError, match="argmax: axis = 2 is out of range"):
        tk.argmax(x, axis=2)


def test_variance_std_logsumexp_by_hand():
    x = tk.constant([[1.0, 2.0, 3.0, 6.0]])
    assert float(tk.math.reduce_variance(x)) == pytest.approx(3.5)          # deviations -2 -1 0 3
    assert float(tk.math.reduce_std(x)) == pytest.approx(math.sqrt(3.5))
    big = tk.constant([1000.0, 1000.0, -np.inf], tk.float64)
    assert float(tk.math.reduce_logsumexp(big)) == pytest.approx(1000 + math.log(2), abs=1e-12)
    assert float(tk.math.reduce_logsumexp(tk.constant([-np.inf, -np.inf]))) == -np.inf
    with pytest.raises(TypeError, match="reduce_variance: needs a floating input"):
        tk.math.reduce_variance(tk.constant([1, 2]))
    assert int(tk.math.count_nonzero(tk.constant([[0.0, 1.0], [2.0, 0.0]]))) == 2


# --- tf.nn.moments (values checked against TensorFlow 2.21) ---------------------------------------
def test_moments_match_tensorflow():
    x = tk.constant([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])
    mean, var = tk.nn.moments(x, [0])                  # TF: [2 3.5 6.5], [1 2.25 6.25]
    np.testing.assert_allclose(mean.numpy(), [2, 3.5, 6.5])
    np.testing.assert_allclose(var.numpy(), [1, 2.25, 6.25])
    mean, var = tk.nn.moments(x, [0, 1], keepdims=True)   # TF: [[4.]], [[6.6666665]]
    assert mean.shape == var.shape == (1, 1)
    np.testing.assert_allclose(var.numpy(), [[20 / 3]], rtol=1e-6)
    mean, var = tk.nn.moments(x, -1)                   # an int axis, negative
    np.testing.assert_allclose(var.numpy(), [14 / 9, 56 / 9], rtol=1e-6)
    m, v = tk.nn.moments(tk.constant([1, 2, 4]), [0])  # TF: integer mean 2, variance 1
    assert (m.dtype, m.numpy(), v.numpy()) == (tk.int32, 2, 1)
    m16, v16 = tk.nn.moments(tk.constant([1.0, 2.0, 4.0], tk.float16), [0])
    assert m16.dtype == tk.float16 and float(v16) == pytest.approx(1.5556640625)   # TF's float16
    same, zero = tk.nn.moments(x, [])                  # no axes: x itself and zeros
    np.testing.assert_array_equal(same.numpy(), x.numpy())
    np.testing.assert_array_equal(zero.numpy(), 0)
    assert tk.nn.moments(x, [0], shift=10.0)[0].shape == (3,)     # shift: accepted, unused


def test_moments_gradients_are_tensorflows():
    v = tk.Variable([1.0, 2.0, 4.0])
    with tk.GradientTape() as outer:
        with tk.GradientTape() as inner:
            mean, var = tk.nn.moments(v, [0])
            y = mean * 2 + var * 3
        g = inner.gradient(y, v)
        h = tk.reduce_sum(g * tk.constant([1.0, 0.0, 0.0]))
    # by hand: 2/n + 3 * 2 (x - mean)/n with mean 7/3: [-2, 0, 4] (TF: [-2, 1.8e-07, 4])
    np.testing.assert_allclose(g.numpy(), [-2, 0, 4], atol=1e-6)
    # TF 2.21's second derivative: 3 * 2/n on the diagonal only (the mean is held constant)
    np.testing.assert_allclose(outer.gradient(h, v).numpy(), [2.0, 0, 0], atol=1e-6)


@pytest.mark.parametrize("axes, keepdims", [([0], False), ([0, 2], True), (-1, False)])
def test_moments_first_derivatives_match_finite_differences(axes, keepdims):
    x = np.random.default_rng(4).uniform(-1, 1, (3, 2, 4))
    check_grads(lambda a: tk.nn.moments(a, axes, keepdims=keepdims)[0], x, order=2)
    check_grads(lambda a: tk.nn.moments(a, axes, keepdims=keepdims)[1], x, order=1)


# --- top_k ---------------------------------------------------------------------------------------
A = [[1.0, 3.0, 3.0, 2.0], [5.0, 4.0, 4.0, 0.0]]


def test_top_k_matches_tensorflow():
    result = tk.math.top_k(tk.constant(A), 2)
    values, indices = result                           # TF: TopKV2(values, indices)
    assert type(result).__name__ == "TopKV2" and result.values is values and result.indices is indices
    assert values.numpy().tolist() == [[3, 3], [5, 4]]
    assert indices.numpy().tolist() == [[1, 2], [0, 1]] and indices.dtype == tk.int32   # ties: first first
    assert tk.nn.top_k is tk.math.top_k
    ints = tk.math.top_k(tk.constant([3, 1, 2]), 2)
    assert ints.values.numpy().tolist() == [3, 2] and ints.values.dtype == tk.int32
    assert tk.math.top_k(tk.constant(A), 0).values.shape == (2, 0)
    assert tk.math.top_k(tk.constant(A), 1, index_type=tk.int64).indices.dtype == tk.int64
    nan = tk.math.top_k(tk.constant([1.0, np.nan, 3.0]), 2)   # TF: NaN above everything
    assert nan.indices.numpy().tolist() == [1, 2]
    extremes = tk.math.top_k(tk.constant([0, -128, 127, 5], tk.int8), 4)
    assert extremes.values.numpy().tolist() == [127, 5, 0, -128]
    assert "TopKV2(values=" in repr(result)


def test_top_k_refuses_what_tensorflow_refuses():
    with pytest.raises(tk.errors.InvalidArgumentError, match=r"k = 5.*have 4 entries"):
        tk.math.top_k(tk.constant(A), 5)
    with pytest.raises(tk.errors.InvalidArgumentError, match="k = -1"):
        tk.math.top_k(tk.constant(A), -1)
    with pytest.raises(tk.errors.InvalidArgumentError, match="rank 1 or more"):
        tk.math.top_k(tk.constant(1.0))
    with pytest.raises(tk.errors.InvalidArgumentError, match="got bool"):
        tk.math.top_k(tk.constant([True, False]))


def test_top_k_gradient_goes_to_the_positions_picked():
    x = tk.Variable(A)
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.math.top_k(x, 2).values * tk.constant([[1.0, 10.0], [100.0, 1000.0]]))
    # TF: [[0 1 10 0] [100 1000 0 0]]
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[0, 1, 10, 0], [100, 1000, 0, 0]])


def test_top_k_gradients_match_finite_differences():
    x = np.random.default_rng(6).permutation(24).reshape(2, 3, 4) / 10.0   # no ties
    check_grads(lambda a: tk.math.top_k(a * a, 3).values, x, order=2)


# --- confusion_matrix ----------------------------------------------------------------------------
def test_confusion_matrix_matches_tensorflow():
    got = tk.math.confusion_matrix([0, 1, 1, 2], [0, 1, 2, 2])
    assert got.dtype == tk.int32 and got.numpy().tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
    wide = tk.math.confusion_matrix([0, 1], [1, 1], num_classes=4)
    assert wide.shape == (4, 4) and wide.numpy()[:2, :2].tolist() == [[0, 1], [0, 1]]
    weighted = tk.math.confusion_matrix([0, 1], [1, 1], weights=[0.5, 2.0], dtype=tk.float32)
    assert weighted.numpy().tolist() == [[0, 0.5], [0, 2.0]]
    assert tk.math.confusion_matrix([0.0, 1.0], [1.0, 1.0]).numpy().tolist() == [[0, 1], [0, 1]]
    assert tk.math.confusion_matrix([[0], [1]], [1, 1]).shape == (2, 2)   # a column, squeezed


def test_confusion_matrix_refuses_what_tensorflow_refuses():
    IAE = tk.errors.InvalidArgumentError
    with pytest.raises(IAE, match="labels must be >= 0"):
        tk.math.confusion_matrix([0, -1], [1, 1])
    with pytest.raises(IAE, match="must be < num_classes = 3, got 5"):
        tk.math.confusion_matrix([0, 5], [1, 1], num_classes=3)
    with pytest.raises(IAE, match=r"one shape, got \(3,\) and \(2,\)"):
        tk.math.confusion_matrix([0, 1, 1], [1, 1])
    with pytest.raises(IAE, match="must be integer class ids"):
        tk.math.confusion_matrix([0.5, 1.0], [1, 1])


# --- compute_average_loss and scale_regularization_loss (checked against TensorFlow 2.21) -----------
def test_compute_average_loss_matches_tensorflow():
    c = tk.nn.compute_average_loss
    assert float(c([1.0, 2.0, 3.0, 4.0])) == 2.5
    assert float(c([1.0, 2.0], global_batch_size=4)) == 0.75
    # a weight per example multiplies its row; the sum is divided by the batch (2), not by 4
    assert float(c([[1.0, 2.0], [3.0, 4.0]], sample_weight=[0.5, 1.0])) == 4.25
    assert float(c([[1.0, 2.0], [3.0, 4.0]])) == 5.0
    ints = c(tk.constant([1, 2]))                         # TF: 1.5, float64
    assert ints.dtype == tk.float64 and float(ints) == 1.5
    assert float(c([1.0, 2.0], global_batch_size=0)) == 0.0     # TF: 0 (divide_no_nan)
    assert float(c(tk.zeros((0,)))) == 0.0
    assert c(tk.constant([1.0, 2.0], tk.float64)).dtype == tk.float64
    with pytest.raises(ValueError, match="rank 1 or more"):
        c(tk.constant(3.0))
    with pytest.raises(TypeError, match="global_batch_size must be an integer, got 2.5"):
        c([1.0, 2.0], global_batch_size=2.5)


def test_compute_average_loss_gradient():
    v = tk.Variable([1.0, 2.0, 3.0])
    with tk.GradientTape() as tape:
        y = tk.nn.compute_average_loss(v * v, sample_weight=[1.0, 0.0, 2.0], global_batch_size=6)
    # by hand: w 2 v / 6; TF (without weights): [0.33333334 0.6666667 1.]
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [1 / 3, 0, 2.0], rtol=1e-6)
    x = np.random.default_rng(1).uniform(-1, 1, (4, 3))
    check_grads(lambda a: tk.nn.compute_average_loss(a * a, sample_weight=[1.0, 2.0, 0.5, 1.0]), x,
                order=2)


def test_scale_regularization_loss_is_the_sum_on_one_replica():
    assert float(tk.nn.scale_regularization_loss(3.0)) == 3.0              # TF: 3.0
    assert float(tk.nn.scale_regularization_loss([1.0, 2.0])) == 3.0
    check_grads(lambda a: tk.nn.scale_regularization_loss(a * a), np.array([0.5, -1.0]), order=2)
