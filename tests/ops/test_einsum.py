"""tapekit/ops/einsum.py: tk.einsum's values against NumPy, its gradients (by hand and finite
differences), and the errors that quote the equation.
"""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads


def test_einsum_values_and_errors():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(tk.einsum("ij,jk->ik", a, b).numpy(), a @ b)
    np.testing.assert_allclose(tk.einsum("ij,jk", a, b).numpy(), a @ b)          # implicit output
    np.testing.assert_allclose(tk.einsum("ij->ji", a).numpy(), a.T)
    np.testing.assert_allclose(tk.einsum("ii", b[:, :3]).numpy(), b[0, 0] + b[1, 1] + b[2, 2])
    with pytest.raises(ValueError, match="'ij,jk->ik' has 2 input terms but 1"):
        tk.einsum("ij,jk->ik", a)
    with pytest.raises(ValueError, match="'i...j->ij'"):
        tk.einsum("i...j->ij", a)
    with pytest.raises(ValueError, match="'...ij->ij' sums over the '...' axes"):
        tk.einsum("...ij->ij", a)


def test_einsum_gradient_by_hand():
    # y = sum_ij a_ij b_j: dy/da = b broadcast over rows, dy/db = column sums of a
    a = tk.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = tk.Variable([1.0, -1.0, 2.0])
    with tk.GradientTape() as tape:
        y = tk.einsum("ij,j->", a, b)
    da, db = tape.gradient(y, [a, b])
    assert float(y) == (1 - 2 + 6) + (4 - 5 + 12)
    np.testing.assert_array_equal(da.numpy(), [[1.0, -1.0, 2.0]] * 2)
    np.testing.assert_array_equal(db.numpy(), [5.0, 7.0, 9.0])


@pytest.mark.parametrize("equation, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("ii->i", [(3, 3)]),
    ("i,j->ij", [(2,), (3,)]), ("...ij,jk->...ik", [(2, 2, 3), (3, 2)]), ("ij->", [(2, 3)]),
])
def test_gradients_match_finite_differences_to_second_order(equation, shapes):
    rng = np.random.default_rng(10)
    check_grads(lambda *xs: tk.einsum(equation, *xs), *[rng.standard_normal(s) for s in shapes], order=2)
