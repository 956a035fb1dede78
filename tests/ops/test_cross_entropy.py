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
