"""tapekit/ops/cumulative.py: cumsum and cumprod with exclusive and reverse, against TensorFlow
2.21's numbers; gradients against finite differences, cumprod's exact where an input is 0."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.testing import check_grads

IAE = tk.errors.InvalidArgumentError
V = [1.0, 2.0, 3.0, 4.0]


@pytest.mark.parametrize("exclusive, reverse, tf_cumsum, tf_cumprod", [
    (False, False, [1, 3, 6, 10], [1, 2, 6, 24]),     # TF: [ 1.  3.  6. 10.]  [ 1.  2.  6. 24.]
    (False, True, [10, 9, 7, 4], [24, 24, 12, 4]),    # TF: [10.  9.  7.  4.]  [24. 24. 12.  4.]
    (True, False, [0, 1, 3, 6], [1, 1, 2, 6]),        # TF: [0. 1. 3. 6.]      [1. 1. 2. 6.]
    (True, True, [9, 7, 4, 0], [24, 12, 4, 1]),       # TF: [9. 7. 4. 0.]      [24. 12.  4.  1.]
])
def test_values_match_tensorflow(exclusive, reverse, tf_cumsum, tf_cumprod):
    s = tk.cumsum(tk.constant(V), exclusive=exclusive, reverse=reverse)
    p = tk.math.cumprod(tk.constant(V), exclusive=exclusive, reverse=reverse)
    assert s.dtype == tk.float32 and p.dtype == tk.float32
    np.testing.assert_array_equal(s.numpy(), tf_cumsum)
    np.testing.assert_array_equal(p.numpy(), tf_cumprod)


def test_axis_and_integer_dtype_match_tensorflow():
    x = tk.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_array_equal(tk.math.cumsum(x, axis=1).numpy(), [[1, 3, 6], [4, 9, 15]])   # TF: same
    np.testing.assert_array_equal(tk.math.cumprod(x, axis=0).numpy(), [[1, 2, 3], [4, 10, 18]])  # TF: same
    n = tk.cumsum(tk.constant([1, 2, 3]))        # TF: [1 3 6], dtype=int32
    assert n.dtype == tk.int32 and n.numpy().tolist() == [1, 3, 6]
    assert tk.cumsum(x, axis=-1).numpy().tolist() == tk.cumsum(x, axis=1).numpy().tolist()
    assert tk.cumsum(tk.zeros((2, 0)), axis=1, exclusive=True).shape == (2, 0)
    assert tk.cumsum is tk.math.cumsum


def test_bools_scalars_and_bad_axes_are_refused():
    with pytest.raises(IAE, match="cumsum: x must be numbers, got bools"):   # TF: InvalidArgumentError
        tk.cumsum(tk.constant([True, False]))
    with pytest.raises(IAE, match="cumprod: x must be at least 1-D"):
        tk.math.cumprod(tk.constant(2.0))
    with pytest.raises(IAE, match="cumsum: axis = 2 is out of range"):
        tk.cumsum(tk.ones((2, 3)), axis=2)


W = np.array([2.0, 0.0, 3.0, 0.0, 5.0])     # zeros, where dividing by x (TF's rule) fails
G = np.array([1.0, 2.0, 3.0, 4.0, 5.0])


def _grad(f, w):
    v = tk.Variable(w)
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(f(v) * G[:len(w)])
    return tape.gradient(y, v).numpy()


@pytest.mark.parametrize("exclusive, reverse, tf_grad, exact", [
    # TF 2.21 gives [1 0 0 0 0], [0 0 0 0 5], [2 0 0 0 0], [0 0 0 0 4]: 0 wherever div_no_nan
    # divides by a zero input. Here the derivative (dy/dw1 = 2*w0 + 3*w0*w2 = 22, by hand).
    (False, False, [1, 0, 0, 0, 0], [1, 22, 0, 0, 0]),
    (False, True, [0, 0, 0, 0, 5], [0, 0, 0, 65, 5]),
    (True, False, [2, 0, 0, 0, 0], [2, 30, 0, 0, 0]),
    (True, True, [0, 0, 0, 0, 4], [0, 0, 0, 45, 4]),
])
def test_cumprod_gradient_is_exact_at_zeros(exclusive, reverse, tf_grad, exact):
    got = _grad(lambda v: tk.math.cumprod(v, exclusive=exclusive, reverse=reverse), W)
    np.testing.assert_array_equal(got, exact)
    # TF agrees away from the zeros' influence: the entries where TF's number is not 0
    np.testing.assert_array_equal(got[np.nonzero(tf_grad)], np.array(tf_grad)[np.nonzero(tf_grad)])
    check_grads(lambda v: tk.math.cumprod(v, exclusive=exclusive, reverse=reverse), W, order=2)


def test_cumprod_gradient_without_zeros_matches_tensorflow():
    got = _grad(tk.math.cumprod, np.array([2.0, 0.5, 3.0, 1.5]))
    np.testing.assert_allclose(got, [15.5, 58.0, 9.0, 12.0], rtol=1e-12)   # TF: [15.5 58.   9.  12. ]


def test_cumsum_gradient_matches_tensorflow():
    # TF: [15 14 12 9 5], [1 3 6 10 15], [14 12 9 5 0], [0 1 3 6 10]
    for (exclusive, reverse), tf_grad in {(False, False): [15, 14, 12, 9, 5], (False, True): [1, 3, 6, 10, 15],
                                          (True, False): [14, 12, 9, 5, 0], (True, True): [0, 1, 3, 6, 10]}.items():
        got = _grad(lambda v: tk.cumsum(v, exclusive=exclusive, reverse=reverse), W)
        np.testing.assert_array_equal(got, tf_grad)


@pytest.mark.parametrize("f", [tk.cumsum, tk.math.cumprod])
@pytest.mark.parametrize("axis, exclusive, reverse", [(0, False, False), (1, True, False), (-1, False, True),
                                                      (0, True, True)])
def test_gradients_match_finite_differences_to_second_order(f, axis, exclusive, reverse):
    x = np.random.default_rng(4).uniform(-1.5, 1.5, (3, 4))
    x[1, 2] = 0.0                                        # a zero factor too
    check_grads(lambda a: f(a, axis=axis, exclusive=exclusive, reverse=reverse), x, order=2)
