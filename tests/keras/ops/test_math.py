"""keras.ops.top_k (tapekit/keras/ops/math.py)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import tapekit as tk
from tapekit.testing import numerical_jacobian, reverse_jacobian

ops = tk.keras.ops

# --- cases
CASES = {
    "top_k ties keep index order": "ops.top_k(np.array([[1.0, 5, 5, 2], [7, 0, 7, 9]], 'float32'), 2)",
    "top_k int": "ops.top_k(np.array([3, 1, 2]), 2)", "top_k all": "ops.top_k(np.array([0.5, -1.0, 2.0]), 3)",
    "top_k 3-D": "ops.top_k(np.arange(24.0).reshape(2, 3, 4) % 5, 1)",
    "top_k k too big": "ops.top_k(np.array([3.0, 1.0]), 3)",
    "top_k uint8": "ops.top_k(np.array([[3, 0, 4], [1, 1, 0]], 'uint8'), 2)",     # -x would wrap
    "top_k bool": "ops.top_k(np.array([False, True, True]), 2)",
}
# --- end of cases

# --- Keras's answers (Keras 3.15.1, tools/keras_interop/ops_values.py)
KERAS = {'top_k 3-D': ['tuple',
               [['tensor', 'float64', [2, 3, 1], [[[3.0], [4.0], [4.0]], [[4.0], [4.0], [3.0]]]],
                ['tensor', 'int32', [2, 3, 1], [[[3], [0], [1]], [[2], [3], [3]]]]]],
 'top_k all': ['tuple',
               [['tensor', 'float64', [3], [2.0, 0.5, -1.0]], ['tensor', 'int32', [3], [2, 0, 1]]]],
 'top_k bool': ['raises'],
 'top_k int': ['tuple', [['tensor', 'int64', [2], [3, 2]], ['tensor', 'int32', [2], [0, 2]]]],
 'top_k k too big': ['raises'],
 'top_k ties keep index order': ['tuple',
                                 [['tensor', 'float32', [2, 2], [[5.0, 5.0], [9.0, 7.0]]],
                                  ['tensor', 'int32', [2, 2], [[1, 2], [3, 0]]]]],
 'top_k uint8': ['tuple',
                 [['tensor', 'uint8', [2, 2], [[4, 3], [1, 1]]],
                  ['tensor', 'int32', [2, 2], [[2, 0], [0, 1]]]]]}
# --- end of Keras's answers


@pytest.mark.parametrize("label", sorted(CASES))
def test_the_answer_is_keras_3s(label, keras_answer):
    keras_answer(CASES[label], KERAS[label])


def test_every_case_has_keras_3s_answer():
    assert sorted(KERAS) == sorted(CASES), "run tools/keras_interop/ops_values.py in the TF venv"


def test_the_values_pass_the_gradient_to_the_entries_picked():
    x = np.array([[0.3, -1.2, 0.7, 2.0], [1.1, 0.4, -0.6, 0.2]])
    f = lambda t: ops.top_k(t, 2)[0] ** 2       # noqa: E731
    for tape, numeric in zip(reverse_jacobian(f, [x]), numerical_jacobian(f, [x])):
        np.testing.assert_allclose(tape, numeric, rtol=1e-6, atol=1e-8)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=8), st.data())
def test_top_k_is_a_stable_sort_of_the_largest(values, data):
    k = data.draw(st.integers(0, len(values)))
    got_values, got_indices = ops.top_k(np.array(values, "float32"), k)
    want = sorted(range(len(values)), key=lambda i: (-values[i], i))[:k]
    assert got_indices.numpy().tolist() == want
    assert got_values.numpy().tolist() == [values[i] for i in want]
