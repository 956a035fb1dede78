"""tapekit/ops/cross_entropy.py: softmax cross-entropy from logits, dense and sparse labels:
values and gradients by hand, errors naming the op.
"""
import math

import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads

IAE = tk.errors.InvalidArgumentError


def test_values_by_hand():
    labels = tk.constant([[0.0, 1.0, 0.0], [0.5, 0.5, 0.0]], tk.float64)
    logits = tk.constant([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], tk.float64)
    lse = math.log(math.exp(1) + math.exp(2) + math.exp(3))
    got = tk.nn.softmax_cross_entropy_with_logits(labels, logits).numpy()
    np.testing.assert_allclose(got, [lse - 2.0, math.log(3)], rtol=1e-14)
    sparse = tk.nn.sparse_softmax_cross_entropy_with_logits(tk.constant([1, 2]), logits).numpy()
    np.testing.assert_allclose(sparse, [lse - 2.0, math.log(3)], rtol=1e-14)


def test_gradient_in_the_logits_is_softmax_minus_labels():
    labels = tk.constant([[0.0, 1.0, 0.0]], tk.float64)
    logits = tk.Variable([[1.0, 2.0, 3.0]], dtype=tk.float64)
    with tk.GradientTape(persistent=True) as tape:
        dense = tk.nn.softmax_cross_entropy_with_logits(labels, logits)
        sparse = tk.nn.sparse_softmax_cross_entropy_with_logits(tk.constant([1]), logits)
    e = np.exp([1.0, 2.0, 3.0])
    expected = [e / e.sum() - [0.0, 1.0, 0.0]]
    np.testing.assert_allclose(tape.gradient(dense, logits).numpy(), expected, rtol=1e-14)
    np.testing.assert_allclose(tape.gradient(sparse, logits).numpy(), expected, rtol=1e-14)


def test_gradients_match_finite_differences_to_second_order():
    rng = np.random.default_rng(3)
    labels = rng.dirichlet(np.ones(4), size=3)
    logits = rng.standard_normal((3, 4))
    check_grads(lambda a, b: tk.nn.softmax_cross_entropy_with_logits(a, b), labels, logits, order=2)
    check_grads(lambda b: tk.nn.softmax_cross_entropy_with_logits(labels.T, b, axis=0), logits.T, order=2)
    ids = tk.constant([0, 3, 1])
    check_grads(lambda b: tk.nn.sparse_softmax_cross_entropy_with_logits(ids, b), logits, order=2)


def test_class_ids_out_of_range_are_refused_naming_the_id_and_the_classes():
    with pytest.raises(IAE, match=r"sparse_softmax_cross_entropy_with_logits: labels must be in "
                                  r"\[0, 4\).*the first 5"):
        tk.nn.sparse_softmax_cross_entropy_with_logits(tk.constant([0, 5]), tk.ones((2, 4)))


def test_the_axis_error_names_the_op():
    with pytest.raises(IAE, match=r"^softmax_cross_entropy_with_logits: axis = 3 is out of range for a "
                                  r"tensor of rank 2"):
        tk.nn.softmax_cross_entropy_with_logits(tk.ones((2, 3)), tk.ones((2, 3)), axis=3)


# --- sigmoid_cross_entropy_with_logits (values checked against TensorFlow 2.21) --------------------
Z = [0.0, 1.0, 0.3, 1.0]
X = [0.0, -2.0, 50.0, -100.0]


def test_sigmoid_cross_entropy_matches_tensorflow():
    got = tk.nn.sigmoid_cross_entropy_with_logits(labels=tk.constant(Z), logits=tk.constant(X))
    # TF: [0.6931472 2.126928 35. 100.]: no overflow at |x| = 50, 100
    np.testing.assert_allclose(got.numpy(), [math.log(2), 2.126928, 35.0, 100.0], rtol=1e-6)
    assert got.dtype == tk.float32
    by_position = tk.nn.sigmoid_cross_entropy_with_logits(Z, X)
    np.testing.assert_array_equal(by_position.numpy(), got.numpy())
    f64 = tk.nn.sigmoid_cross_entropy_with_logits(labels=tk.constant([1.0], tk.float64),
                                                  logits=tk.constant([1e3], tk.float64))
    assert f64.dtype == tk.float64 and f64.numpy() == [0.0]


def test_sigmoid_cross_entropy_refuses_what_tensorflow_refuses():
    with pytest.raises(ValueError, match="both labels and logits must be given"):
        tk.nn.sigmoid_cross_entropy_with_logits(logits=X)
    with pytest.raises(ValueError, match=r"same shape, got logits \(4,\) and labels \(3,\)"):
        tk.nn.sigmoid_cross_entropy_with_logits(labels=Z[:3], logits=X)
    with pytest.raises(IAE, match="labels int32 and logits float32"):
        tk.nn.sigmoid_cross_entropy_with_logits(labels=[0, 1, 0, 1], logits=tk.constant(X))
    with pytest.raises(IAE, match="labels float64 and logits float32"):
        tk.nn.sigmoid_cross_entropy_with_logits(labels=tk.constant(Z, tk.float64), logits=tk.constant(X))


def test_sigmoid_cross_entropy_gradients_are_tensorflows():
    x = tk.Variable(X)
    z = tk.Variable(Z)
    with tk.GradientTape(persistent=True) as outer:
        with tk.GradientTape(persistent=True) as tape:
            loss = tk.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
        dx = tape.gradient(loss, x)
    # by hand: sigmoid(x) - z, with sigmoid(0) = 1/2 (TF: [0.5 -0.8807971 0.7 -1.])
    sig = 1 / (1 + np.exp(-np.array(X, np.float64)))
    np.testing.assert_allclose(dx.numpy(), sig - np.array(Z), rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(loss, z).numpy(), np.negative(X))   # TF: -x
    # TF: sigmoid'(x) = [0.25 0.10499357 1.9287499e-22 0.]; tapekit's last is exp(-100) in
    # float32 (3.8e-44, a denormal TF's CPU flushes to 0)
    np.testing.assert_allclose(outer.gradient(dx, x).numpy(), [0.25, 0.10499357, 1.9287499e-22, 0.0],
                               rtol=1e-5, atol=1e-40)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sigmoid_cross_entropy_gradients_match_finite_differences(seed):
    rng = np.random.default_rng(seed)
    logits = rng.uniform(-4, 4, (3, 4))
    logits[np.abs(logits) < 0.05] = 0.3          # away from the where's switch at 0
    labels = rng.uniform(0, 1, (3, 4))
    check_grads(lambda z, x: tk.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
                labels, logits, order=2)
