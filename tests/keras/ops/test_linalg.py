"""keras.ops.norm (tapekit/keras/ops/linalg.py)."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import numerical_jacobian, reverse_jacobian

ops = tk.keras.ops

# --- cases
M = "np.array([[1.0, -2], [3, 4]])"
CASES = {
    "vector": "ops.norm(np.array([3, 4]))", "matrix is Frobenius": f"ops.norm({M})",
    "matrix 1": f"ops.norm({M}, ord=1)", "matrix -1": f"ops.norm({M}, ord=-1)",
    "matrix inf": f"ops.norm({M}, ord=np.inf)", "matrix -inf": f"ops.norm({M}, ord=-np.inf)",
    "matrix fro": f"ops.norm({M}, ord='fro')", "rows": f"ops.norm({M}, axis=1, keepdims=True)",
    "columns float32": "ops.norm(np.array([[1.0, -2], [3, 4]], 'float32'), axis=0)",
    "vector 3": "ops.norm(np.array([1.0, -2, 3]), ord=3)", "vector 0": "ops.norm(np.array([1.0, 0, 3]), ord=0)",
    "vector 1": "ops.norm(np.array([1.0, -2, 3]), ord=1)", "vector inf": "ops.norm(np.array([1.0, -5, 3]), ord=np.inf)",
    "vector -inf": "ops.norm(np.array([1.0, -5, 3]), ord=-np.inf)",
    "batch of matrices": "ops.norm(np.arange(8.0).reshape(2, 2, 2), axis=(1, 2))",
    "matrix 1 keepdims": f"ops.norm({M}, ord=1, axis=(0, 1), keepdims=True)",
    "3-D without axis": "ops.norm(np.ones((2, 2, 2)))",
    "fro of a vector": "ops.norm(np.array([1.0, 0, 3]), ord='fro')",
    "keras.ops.linalg.norm": "ops.linalg.norm(np.array([[3.0], [4.0]]), axis=0)",
}
# --- end of cases

# --- Keras's answers (Keras 3.15.1, tools/keras_interop/ops_values.py)
KERAS = {'3-D without axis': ['raises'],
 'batch of matrices': ['tensor', 'float64', [2], [3.7416573867739413, 11.224972160321824]],
 'columns float32': ['tensor', 'float32', [2], [3.1622776985168457, 4.4721360206604]],
 'fro of a vector': ['raises'],
 'keras.ops.linalg.norm': ['tensor', 'float64', [1], [5.0]],
 'matrix -1': ['tensor', 'float64', [], 4.0],
 'matrix -inf': ['tensor', 'float64', [], 3.0],
 'matrix 1': ['tensor', 'float64', [], 6.0],
 'matrix 1 keepdims': ['tensor', 'float64', [1, 1], [[6.0]]],
 'matrix fro': ['tensor', 'float64', [], 5.477225575051661],
 'matrix inf': ['tensor', 'float64', [], 7.0],
 'matrix is Frobenius': ['tensor', 'float64', [], 5.477225575051661],
 'rows': ['tensor', 'float64', [2, 1], [[2.23606797749979], [5.0]]],
 'vector': ['tensor', 'float32', [], 5.0],
 'vector -inf': ['tensor', 'float64', [], 1.0],
 'vector 0': ['tensor', 'float64', [], 2.0],
 'vector 1': ['tensor', 'float64', [], 6.0],
 'vector 3': ['tensor', 'float64', [], 3.3019272488946263],
 'vector inf': ['tensor', 'float64', [], 5.0]}
# --- end of Keras's answers


@pytest.mark.parametrize("label", sorted(CASES))
def test_the_answer_is_keras_3s(label, keras_answer):
    keras_answer(CASES[label], KERAS[label])


def test_every_case_has_keras_3s_answer():
    assert sorted(KERAS) == sorted(CASES), "run tools/keras_interop/ops_values.py in the TF venv"


X = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.6]])


@pytest.mark.parametrize("kwargs", [{}, {"axis": 1}, {"ord": 1}, {"ord": np.inf}, {"ord": 3, "axis": 0},
                                    {"ord": 1, "axis": 1}])
def test_the_gradient_through_a_tape_is_the_finite_differences(kwargs):
    f = lambda t: ops.norm(t, **kwargs)        # noqa: E731
    for tape, numeric in zip(reverse_jacobian(f, [X]), numerical_jacobian(f, [X])):
        np.testing.assert_allclose(tape, numeric, rtol=1e-6, atol=1e-8)


def test_the_norms_that_need_singular_values_are_refused():
    with pytest.raises(NotImplementedError, match=r"ord='nuc' of a matrix needs its singular values"):
        ops.norm(np.eye(2), ord="nuc")
    with pytest.raises(NotImplementedError, match="singular values"):
        ops.norm(np.eye(2), ord=2)
