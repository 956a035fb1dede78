"""tapekit/ops/arithmetic.py: + - * /, negative, pow, square, sqrt, abs, sign, reciprocal, rsqrt,
squared_difference: values and derivatives by hand, at the points where they are delicate.
"""
import numpy as np
import pytest

import tapekit as tk
from tapekit.ops import arithmetic
from tapekit.testing import check_grads


def grads(f, *values):
    xs = [tk.Variable(v, dtype=tk.float64) for v in values]
    with tk.GradientTape() as tape:
        y = f(*xs)
    return [g.numpy() for g in tape.gradient(y, xs)]


def test_divide_gradient_by_hand_even_where_y_squared_underflows():
    gx, gy = grads(lambda x, y: x / y, [3.0, 1.0], [2.0, -4.0])
    np.testing.assert_allclose(gx, [0.5, -0.25])
    np.testing.assert_allclose(gy, [-3.0 / 4.0, -1.0 / 16.0])          # -x / y^2
    x, y = tk.Variable(np.float32(1e-23)), tk.Variable(np.float32(1e-23))
    with tk.GradientTape() as tape:
        z = x / y
    assert float(tape.gradient(z, y)) == pytest.approx(-1e23, rel=1e-6)   # y * y is 0 in float32


def test_pow_gradients_by_hand_and_log_taken_as_zero_where_x_is_not_positive():
    gx, gy = grads(lambda x, y: x ** y, [2.0, 0.0, -2.0], [3.0, 2.0, 2.0])
    np.testing.assert_allclose(gx, [12.0, 0.0, -4.0])                   # y x^(y-1)
    np.testing.assert_allclose(gy, [8.0 * np.log(2.0), 0.0, 0.0])       # x^y log x; 0 where x <= 0


def test_abs_and_sign_derivatives_are_zero_at_zero_and_sign_is_flat():
    x = tk.Variable([-2.0, 0.0, 3.0])
    with tk.GradientTape() as outer:
        with tk.GradientTape() as inner:
            y = tk.reduce_sum(tk.abs(x))
        g = inner.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), [-1.0, 0.0, 1.0])
    np.testing.assert_array_equal(outer.gradient(g, x).numpy(), [0.0, 0.0, 0.0])   # zeros, not None


def test_sqrt_gradient_is_zero_where_the_arriving_gradient_is_zero():
    s = tk.Variable([0.0, 4.0])
    with tk.GradientTape() as tape:
        y = tk.where(s > 0, tk.sqrt(s), 0.0)
    np.testing.assert_array_equal(tape.gradient(y, s).numpy(), [0.0, 0.25])   # not NaN at 0
    with np.errstate(invalid="ignore"):      # 0 * inf, computed and then replaced by 0
        got = arithmetic.zero_where_g_is_zero(np.array([0.0, 2.0]), np.array([np.inf, 3.0]))
    np.testing.assert_array_equal(got, [0.0, 6.0])


@pytest.mark.parametrize("f", [lambda x, y: x + y, lambda x, y: x - y, lambda x, y: x * y, lambda x, y: x / y,
                               lambda x, y: x ** y, tk.squared_difference, lambda x, y: tk.negative(x) * y])
def test_binary_gradients_match_finite_differences_to_second_order(f):
    rng = np.random.default_rng(5)
    check_grads(f, rng.uniform(0.5, 2.0, (3, 4)), rng.uniform(0.5, 2.0, (4,)), order=2)


@pytest.mark.parametrize("f", [tk.square, tk.sqrt, tk.abs, tk.reciprocal, tk.rsqrt])
def test_unary_gradients_match_finite_differences_to_second_order(f):
    check_grads(f, np.array([[0.3, 1.7], [2.5, 0.9]]), order=2)


def test_add_of_a_short_vector_over_a_large_array_gives_numpys_numbers_exactly():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((32, 26, 26, 8)).astype(np.float32)   # large enough to tile the bias
    b = rng.standard_normal(8).astype(np.float32)
    np.testing.assert_array_equal(tk.add(x, b).numpy(), x + b)
    np.testing.assert_array_equal(tk.add(b, x).numpy(), b + x)


def test_mixed_tensor_dtypes_are_refused_naming_the_op_and_the_fix():
    with pytest.raises(TypeError, match=r"add: inputs have different dtypes float32 and float64.*tk\.cast"):
        tk.add(tk.constant([1.0]), tk.constant([1.0], tk.float64))


def test_reciprocal_rsqrt_squared_difference_by_hand():
    np.testing.assert_allclose(tk.reciprocal(tk.constant([4.0, -0.5])).numpy(), [0.25, -2.0])
    np.testing.assert_allclose(tk.rsqrt(tk.constant([4.0, 0.25])).numpy(), [0.5, 2.0])
    np.testing.assert_allclose(tk.squared_difference(tk.constant([1.0, 5.0]), tk.constant([3.0, 2.0])).numpy(),
                               [4.0, 9.0])


def test_add_n_values_and_checks_match_tensorflow():
    x = tk.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    got = tk.add_n([x, x, 2 * x])                 # TF: [[ 4.  8. 12.] [16. 20. 24.]], float32
    assert got.dtype == tk.float32
    np.testing.assert_array_equal(got.numpy(), [[4, 8, 12], [16, 20, 24]])
    assert tk.math.add_n([[1, 2], [3, 4]]).numpy().tolist() == [4, 6]
    assert tk.add_n([tk.constant([True])]).numpy().tolist() == [True]   # TF: one input is returned
    # TF: InvalidArgumentError (shapes; float32 and float64), ValueError (no inputs)
    with pytest.raises(tk.errors.InvalidArgumentError, match=r"same shape.*got shapes \(2,\), \(3,\)"):
        tk.add_n([tk.ones(2), tk.ones(3)])
    # TF: "Input 0: [2] != input 2: [1,2]": a short list is named whole, a scalar among vectors too
    with pytest.raises(tk.errors.InvalidArgumentError, match=r"got shapes \(2,\), \(2,\), \(1, 2\)"):
        tk.add_n([tk.ones(2), tk.ones(2), tk.ones((1, 2))])
    with pytest.raises(tk.errors.InvalidArgumentError, match=r"got shapes \(\), \(1,\)"):
        tk.add_n([tk.constant(1.0), tk.constant([1.0])])
    with pytest.raises(TypeError, match="different dtypes float32 and float64"):
        tk.add_n([tk.ones(2), tk.ones(2, tk.float64)])
    with pytest.raises(ValueError, match="at least one tensor"):
        tk.add_n([])


def test_add_n_of_5001_names_the_odd_input_in_a_short_message():
    # TF 2.21: "Inputs to operation AddN of type AddN must have the same size and shape.
    # Input 0: [2] != input 4217: [3]"; tapekit listed all 5,001 shapes (25 KB)
    values = [tk.ones(2) for _ in range(5001)]
    values[4217] = tk.ones(3)
    with pytest.raises(tk.errors.InvalidArgumentError) as info:
        tk.add_n(values)
    message = str(info.value)
    assert len(message) < 1000 and "does not broadcast" in message
    assert "input 4,217 has shape (3,); the other 5,000 have shape (2,)" in message
    values[4217] = None           # was reported as a shape () among the others
    with pytest.raises(TypeError, match="add_n: input 4,217 is None; did a gradient come back None"):
        tk.add_n(values)


def test_add_n_of_scalars_as_tensorflow():
    # issue 43: three scalar tensors raised a TypeError (NumPy's 0-d sum is a scalar, not an
    # array to add into). TF 2.21: 6.0 float32, for tensors and for Python floats alike.
    got = tk.add_n([tk.constant(1.0), tk.constant(2.0), tk.constant(3.0)])
    assert got.dtype == tk.float32 and got.shape == () and float(got) == 6.0
    assert float(tk.add_n([1.0, 2.0, 3.0])) == 6.0 and tk.add_n([1.0, 2.0, 3.0]).dtype == tk.float32
    assert float(tk.add_n([tk.constant(1.0), 2.0, 3.0, 4.0])) == 10.0
    assert int(tk.add_n([tk.constant(1), tk.constant(2), tk.constant(3)])) == 6
    # Variables among them, and the gradient: TF gives 12.0, and [3.0, 4.0] for d/d[x, v] of
    # x + v + x * v + 1 at x = 3, v = 2
    x, v = tk.constant(3.0), tk.Variable(2.0)
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.add_n([x, v, x * v, tk.constant(1.0)])
    assert float(y) == 12.0
    assert [float(g) for g in tape.gradient(y, [x, v])] == [3.0, 4.0]
    check_grads(lambda a, b, c: tk.add_n([a * b, b, c * a, a]), 0.5, -1.5, 2.0, order=2)
    # Shaped tensors and Variables together: [1 2] + [3 4] + [5 6]
    w = tk.Variable([1.0, 2.0])
    assert tk.add_n([w, tk.constant([3.0, 4.0]), w + 4.0]).numpy().tolist() == [9.0, 12.0]
    # A compiled replay runs the same forward on 0-d values
    f = tk.function(lambda a, b, c: tk.add_n([a, b, c]))
    assert [float(f(tk.constant(1.0), tk.constant(2.0), tk.constant(float(k)))) for k in range(3)] \
        == [3.0, 4.0, 5.0]


def test_add_n_gives_every_input_the_whole_gradient():
    a = tk.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.add_n([a, a * a, 3 * a]))
    np.testing.assert_array_equal(tape.gradient(y, a).numpy(), [[6, 8], [10, 12]])   # TF: same
    rng = np.random.default_rng(7)
    check_grads(lambda x, y, z: tk.add_n([x * y, y * z, z, x]), *rng.uniform(-1, 1, (3, 2, 3)), order=2)
