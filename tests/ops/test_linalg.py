"""tapekit/ops/linalg.py: matmul (tk.matmul, @, np.matmul): values, gradients by hand,
transposes and adjoints, and the errors for vectors and mismatched shapes.
"""
import numpy as np
import pytest

import tapekit as tk
from tapekit.ops.linalg import matmul_op
from tapekit.testing import check_grads

IAE = tk.errors.InvalidArgumentError


def test_matmul_gradients_by_hand():
    a = tk.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    b = tk.Variable([[1.0, -1.0, 0.5], [2.0, 0.0, 1.0]])
    g = np.arange(9.0, dtype=np.float32).reshape(3, 3)
    with tk.GradientTape() as tape:
        y = a @ b
    da, db = tape.gradient(y, [a, b], output_gradients=tk.constant(g))
    np.testing.assert_allclose(da.numpy(), g @ b.numpy().T)      # g b^T
    np.testing.assert_allclose(db.numpy(), a.numpy().T @ g)      # a^T g


@pytest.mark.parametrize("kwargs", [{}, {"transpose_a": True}, {"transpose_b": True},
                                    {"adjoint_a": True, "adjoint_b": True}])
def test_gradients_match_finite_differences_to_second_order(kwargs):
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    check_grads(lambda x, y: tk.matmul(x, y, **kwargs), a, b, order=2)
    check_grads(tk.matmul, rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 2)), order=2)   # a stack


def test_matmul_adjoint_arguments():
    a = tk.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(tk.linalg.matmul(a, a, adjoint_a=True).numpy(), [[10, 14], [14, 20]])
    assert tk.linalg.matmul is tk.matmul
    with pytest.raises(ValueError, match="not both"):
        tk.matmul(a, a, transpose_a=True, adjoint_a=True)


@pytest.mark.parametrize("call", [
    lambda x, y: x @ y, lambda x, y: tk.matmul(x, y), lambda x, y: np.matmul(x, y),
    lambda x, y: tk.matmul(x.numpy(), y)])
@pytest.mark.parametrize("sx, sy", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2))])
def test_matmul_needs_matrices(call, sx, sy):
    x, y = tk.ones(sx), tk.ones(sy)
    with pytest.raises(IAE, match=rf"matmul.*rank 2 or more.*{sx}.*{sy}.*tk\.reshape"):
        call(x, y)


def test_matmul_shape_mismatch_in_plain_words_and_its_error_type():
    x, y = tk.ones((2, 3)), tk.ones((2, 4))
    try:
        tk.linalg.matmul(x, y) if hasattr(tk, "linalg") else tk.matmul(x, y)
    except tk.errors.InvalidArgumentError as e:     # the TF guide's pattern
        text = f"{type(e).__name__} {e}"
    assert text.startswith("InvalidArgumentError matmul:")
    assert "(2, 3)" in text and "(2, 4)" in text and "3 columns" in text and "2 rows" in text
    assert "gufunc" not in text and "signature" not in text
    with pytest.raises(ValueError):                 # still a ValueError
        x @ y
    assert tk.matmul(x, y, transpose_a=True).shape == (3, 4)


def test_the_internal_op_keeps_numpys_vector_rules_for_tapekits_own_code():
    a, v = tk.constant([[1.0, 2.0], [3.0, 4.0]]), tk.Variable([1.0, -1.0])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(matmul_op(a, v))
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [4.0, 6.0])   # column sums of a
