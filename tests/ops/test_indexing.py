"""tapekit/ops/indexing.py: x[...] (getitem) and tk.gather: values, gradients that scatter back
(adding where an index repeats), and the errors.
"""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads

IAE = tk.errors.InvalidArgumentError


def test_gather_gradient_adds_where_an_index_repeats():
    x = tk.Variable([[1.0, 3.0, 3.0], [2.0, 0.0, 5.0]])
    with tk.GradientTape() as tape:
        g = tk.gather(x, [1, 1, 0])
    np.testing.assert_array_equal(g.numpy(), [[2, 0, 5], [2, 0, 5], [1, 3, 3]])
    np.testing.assert_array_equal(tape.gradient(g, x).numpy(), [[1, 1, 1], [2, 2, 2]])


def test_gather_with_a_python_int_picks_one_slice_as_tensorflow_does():
    # tf.gather(params, 1) drops the axis; a Python int index once crashed with an AttributeError
    x = tk.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tk.GradientTape() as tape:
        row = tk.gather(x, 1)
        y = tk.reduce_sum(row * row)
    np.testing.assert_array_equal(row.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[0, 0], [6, 8]])
    np.testing.assert_array_equal(tk.gather(x, 0, axis=1).numpy(), [1.0, 3.0])
    with pytest.raises(IndexError, match="index 2 is out of range"):
        tk.gather(x, 2)
    with pytest.raises(TypeError, match="indices must be integers"):
        tk.gather(x, 1.0)


def test_getitem_gradient_lands_on_the_selected_elements():
    x = tk.Variable(np.arange(12.0).reshape(3, 4))
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(x[1:, ::2] * 2.0) + x[0, -1]
    expected = np.zeros((3, 4))
    expected[1:, ::2] = 2.0
    expected[0, -1] = 1.0
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), expected)


def test_gradients_match_finite_differences_to_second_order():
    x = np.random.default_rng(11).standard_normal((4, 3))
    check_grads(lambda a: tk.gather(a, [3, 0, 3], axis=0) ** 2, x, order=2)
    check_grads(lambda a: tk.gather(a, [[2, 1]], axis=1) ** 2, x, order=2)
    check_grads(lambda a: a[::-1, 1:] ** 2, x, order=2)


def test_errors_name_the_op_the_shapes_and_the_index():
    x = tk.ones((2, 3))
    with pytest.raises(IndexError, match=r"gather: .*index 5 is out of range \[0, 2\) for axis 0.*\(2, 3\)"):
        tk.gather(x, [5])
    with pytest.raises(IAE, match=r"gather: axis = 2 is out of range for a tensor of rank 2"):
        tk.gather(x, [0], axis=2)
    with pytest.raises(TypeError, match=r"gather: .*indices must be integers, got dtype float32"):
        tk.gather(x, [0.5])
    with pytest.raises(IndexError, match=r"getitem: .*\(2, 3\).*index 5 is out of bounds"):
        x[5]
