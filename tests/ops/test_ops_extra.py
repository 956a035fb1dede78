"""Issue 23's ops against hand-derived values and TensorFlow's documented behaviour.

Gradients of every new op are checked against finite differences in test_ops_table.py;
here: forward values worked out by hand (or by Python's math module), dtypes, TensorFlow's
argument conventions, and the errors.
"""
import io
import math
import sys

import numpy as np
import pytest

import tapekit as tk


# --- erf and the activations built on it --------------------------------------------------------

def test_erf_matches_pythons_math_erf_to_a_few_ulps():
    x = np.concatenate([np.linspace(-7, 7, 20001), np.logspace(-300, 1, 500), -np.logspace(-30, 1, 100)])
    x = x[x != 0]
    ref = np.array([math.erf(v) for v in x])
    got = tk.erf(tk.constant(x)).numpy()
    rel = np.abs(got - ref) / np.abs(ref)
    assert rel.max() < 5e-15
    assert got.dtype == np.float64
    assert tk.erf(tk.constant([0.5])).dtype == tk.float32
    np.testing.assert_array_equal(tk.erf(tk.constant([np.inf, -np.inf, 0.0])).numpy(), [1.0, -1.0, 0.0])
    assert np.isnan(tk.erf(tk.constant(np.nan)).numpy())


def test_gelu_is_x_times_the_normal_distribution_function():
    x = np.array([-3.0, -0.5, 0.0, 0.7, 2.0])
    phi = np.array([0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x])
    # 1 + erf(x / sqrt 2) cancels for x << 0: relative to the result, erf's 2e-16 grows there
    np.testing.assert_allclose(tk.nn.gelu(tk.constant(x)).numpy(), x * phi, rtol=1e-14, atol=1e-15)
    tanh_form = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(tk.nn.gelu(tk.constant(x), approximate=True).numpy(), tanh_form, rtol=1e-14)


def test_activations_by_hand():
    x = tk.constant([-2.0, 0.5, 7.0], tk.float64)
    e = math.exp(-2.0)
    np.testing.assert_allclose(tk.nn.softplus(x).numpy(), [math.log1p(e), math.log1p(math.exp(0.5)), 7 + math.log1p(math.exp(-7))])
    np.testing.assert_allclose(tk.nn.softsign(x).numpy(), [-2 / 3, 0.5 / 1.5, 7 / 8])
    np.testing.assert_allclose(tk.nn.elu(x).numpy(), [e - 1, 0.5, 7.0])
    scale, alpha = 1.0507009873554805, 1.6732632423543772
    np.testing.assert_allclose(tk.nn.selu(x).numpy(), [scale * alpha * (e - 1), scale * 0.5, scale * 7])
    np.testing.assert_allclose(tk.nn.relu6(x).numpy(), [0.0, 0.5, 6.0])
    np.testing.assert_allclose(tk.nn.leaky_relu(x).numpy(), [-0.4, 0.5, 7.0])        # alpha=0.2
    np.testing.assert_allclose(tk.nn.silu(x).numpy(), [-2 / (1 + math.exp(2)), 0.5 / (1 + math.exp(-0.5)),
                                                       7 / (1 + math.exp(-7))])
    assert tk.nn.swish is tk.nn.silu
    np.testing.assert_allclose(tk.math.log_sigmoid(x).numpy(), -tk.nn.softplus(-x).numpy())
    # no overflow where exp would overflow: softplus(1000) = 1000, log_sigmoid(-1000) = -1000
    assert tk.nn.softplus(tk.constant(1000.0)).numpy() == 1000.0
    assert tk.math.log_sigmoid(tk.constant(-1000.0)).numpy() == -1000.0
    assert tk.nn.leaky_relu(tk.constant([-1, 2])).dtype == tk.float32   # TensorFlow casts ints


def test_relu6_second_derivative_is_zero_like_relu():
    x = tk.Variable([-1.0, 3.0, 7.0])
    with tk.GradientTape() as outer:
        with tk.GradientTape() as inner:
            y = tk.reduce_sum(tk.nn.relu6(x))
        g = inner.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), [0.0, 1.0, 0.0])
    h = outer.gradient(g, x, unconnected_gradients="zero")
    np.testing.assert_array_equal(h.numpy(), [0.0, 0.0, 0.0])


# --- rounding, // and % --------------------------------------------------------------------------

def test_floordiv_and_floormod_follow_python():
    for a in (7, -7, 6, 0):
        for b in (2, -2, 3, -4):
            assert int(tk.constant(a) // b) == a // b
            assert int(tk.constant(a) % b) == a % b
            assert int(a % tk.constant(b)) == a % b and int(a // tk.constant(b)) == a // b
    assert (tk.constant([7, -7]) // 2).dtype == tk.int32
    np.testing.assert_allclose((tk.constant([7.5, -7.5]) % 2.0).numpy(), [1.5, 0.5])
    np.testing.assert_allclose((tk.constant([7.5, -7.5]) // 2.0).numpy(), [3.0, -4.0])
    with pytest.raises(ValueError, match="floordiv: .*integer division by zero"):
        tk.constant([1, 2]) // 0
    with pytest.raises(ValueError, match="floormod: .*integer division by zero"):
        tk.constant([1, 2]) % tk.constant([1, 0])
    with pytest.raises(TypeError, match="int32"):
        tk.constant([1, 2]) % 1.5          # TensorFlow's dtype rule, as for +


def test_floormod_gradient_is_one_and_minus_floor_of_the_quotient():
    x, y = tk.Variable(7.5), tk.Variable(2.0)
    with tk.GradientTape() as tape:
        z = x % y
    gx, gy = tape.gradient(z, [x, y])
    assert float(gx) == 1.0 and float(gy) == -3.0


def test_rounding_and_floordiv_have_no_gradient_as_in_tensorflow():
    x = tk.Variable([1.5, -2.5])
    for f in (tk.floor, tk.math.ceil, tk.round, lambda v: v // 2.0):
        with tk.GradientTape() as tape:
            y = f(x)
        assert tape.gradient(y, x) is None
    np.testing.assert_array_equal(tk.round(tk.constant([0.5, 1.5, 2.5, -2.5])).numpy(), [0.0, 2.0, 2.0, -2.0])
    assert tk.round(tk.constant([3])).dtype == tk.int32
    with pytest.raises(TypeError, match="floor: needs a floating input"):
        tk.floor(tk.constant([1, 2]))


def test_small_math_functions_by_hand():
    np.testing.assert_allclose(tk.log1p(tk.constant([1e-20, 1.0], tk.float64)).numpy(), [1e-20, math.log(2)])
    np.testing.assert_allclose(tk.expm1(tk.constant([1e-20, 1.0], tk.float64)).numpy(), [1e-20, math.e - 1])
    np.testing.assert_allclose(tk.reciprocal(tk.constant([4.0, -0.5])).numpy(), [0.25, -2.0])
    np.testing.assert_allclose(tk.rsqrt(tk.constant([4.0, 0.25])).numpy(), [0.5, 2.0])
    np.testing.assert_allclose(tk.squared_difference(tk.constant([1.0, 5.0]), tk.constant([3.0, 2.0])).numpy(),
                               [4.0, 9.0])


# --- reductions ------------------------------------------------------------------------------------

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


def test_integer_reductions_keep_the_dtype_and_mean_truncates():
    i = tk.constant([1, 2, 4])
    for f in (tk.reduce_sum, tk.reduce_prod, tk.reduce_max, tk.reduce_min, tk.reduce_mean):
        assert f(i).dtype == tk.int32, f
    assert int(tk.reduce_sum(i)) == 7 and int(tk.reduce_prod(i)) == 8
    assert int(tk.reduce_mean(i)) == 2                        # 7 / 3 truncated, as TensorFlow
    assert int(tk.reduce_mean(tk.constant([-1, -2]))) == -1   # toward zero, not down
    assert tk.reduce_sum(tk.constant(np.array([1, 2], np.int64))).dtype == tk.int64


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


# --- linear algebra ----------------------------------------------------------------------------------

A = [[2.0, 1.0], [1.0, 3.0]]   # det 5, inverse [[3, -1], [-1, 2]] / 5


def test_inv_solve_det_by_hand():
    a = tk.constant(A, tk.float64)
    np.testing.assert_allclose(tk.linalg.inv(a).numpy(), np.array([[3, -1], [-1, 2]]) / 5)
    assert float(tk.linalg.det(a)) == pytest.approx(5.0)
    x = tk.linalg.solve(a, tk.constant([[3.0, 1.0], [4.0, 1.0]], tk.float64))
    np.testing.assert_allclose(x.numpy(), [[1.0, 0.4], [1.0, 0.2]])
    at = tk.constant([[2.0, 0.0], [1.0, 1.0]], tk.float64)           # solve A^T x = rhs
    np.testing.assert_allclose(tk.linalg.solve(at, tk.constant([[2.0], [3.0]], tk.float64), adjoint=True).numpy(),
                               [[-0.5], [3.0]])
    sign, logdet = tk.linalg.slogdet(tk.constant([[0.0, 2.0], [3.0, 0.0]], tk.float64))
    assert float(sign) == -1.0 and float(logdet) == pytest.approx(math.log(6))
    with pytest.raises(ValueError, match="solve: rhs must have shape"):
        tk.linalg.solve(a, tk.constant([1.0, 2.0], tk.float64))
    with pytest.raises(ValueError, match="det: needs square matrices"):
        tk.linalg.det(tk.ones([2, 3]))


def test_inverse_gradient_rule_by_hand():
    # d/dA sum(inv(A)) = -inv(A)^T ones inv(A)^T
    w = tk.Variable(np.array(A))
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.linalg.inv(w))
    inv = np.array([[3, -1], [-1, 2]]) / 5
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), -inv.T @ np.ones((2, 2)) @ inv.T)


def test_trace_diag_eye_matvec_tensordot():
    m = tk.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert float(tk.linalg.trace(m)) == 6.0
    np.testing.assert_array_equal(tk.linalg.diag_part(m).numpy(), [1.0, 5.0])
    np.testing.assert_array_equal(tk.linalg.diag(tk.constant([1.0, 2.0])).numpy(), [[1, 0], [0, 2]])
    np.testing.assert_array_equal(tk.eye(2, batch_shape=[3]).numpy(), np.broadcast_to(np.eye(2), (3, 2, 2)))
    assert tk.eye(3).dtype == tk.float32 and tk.linalg.eye is tk.eye
    np.testing.assert_array_equal(tk.linalg.matvec(m, tk.constant([1.0, 0.0, -1.0])).numpy(), [-2.0, -2.0])
    np.testing.assert_array_equal(tk.linalg.matvec(m, tk.constant([1.0, 1.0]), transpose_a=True).numpy(),
                                  [5.0, 7.0, 9.0])
    a, b = np.arange(24.0).reshape(2, 3, 4), np.arange(12.0).reshape(4, 3)
    np.testing.assert_allclose(tk.tensordot(a, b, axes=[[1, 2], [1, 0]]).numpy(),
                               [sum(a[i, j, k] * b[k, j] for j in range(3) for k in range(4)) for i in range(2)])
    np.testing.assert_allclose(tk.linalg.tensordot(a, b, 1).numpy(), np.einsum("ijk,kl->ijl", a, b))
    with pytest.raises(ValueError, match="tensordot: contracted axes"):
        tk.tensordot(a, b, axes=[[0], [0]])


def test_matmul_adjoint_arguments():
    a = tk.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(tk.linalg.matmul(a, a, adjoint_a=True).numpy(), [[10, 14], [14, 20]])
    assert tk.linalg.matmul is tk.matmul
    with pytest.raises(ValueError, match="not both"):
        tk.matmul(a, a, transpose_a=True, adjoint_a=True)


def test_norms_by_hand():
    v = tk.constant([3.0, -4.0])
    assert float(tk.norm(v)) == 5.0 and float(tk.norm(v, ord=1)) == 7.0 and float(tk.norm(v, ord=np.inf)) == 4.0
    assert float(tk.norm(v, ord=3)) == pytest.approx((27 + 64) ** (1 / 3), rel=1e-6)
    m = tk.constant([[1.0, -2.0], [3.0, -4.0]])
    assert float(tk.norm(m)) == pytest.approx(math.sqrt(30))                 # all elements
    assert float(tk.linalg.norm(m, ord="fro", axis=[0, 1])) == pytest.approx(math.sqrt(30))
    assert float(tk.norm(m, ord=1, axis=[-2, -1])) == 6.0                     # largest column sum
    assert float(tk.norm(m, ord=np.inf, axis=[-2, -1])) == 7.0                # largest row sum
    np.testing.assert_allclose(tk.norm(m, axis=1, keepdims=True).numpy(), [[math.sqrt(5)], [5.0]], rtol=1e-6)
    with pytest.raises(ValueError, match="norm: ord=2 is not supported for a matrix norm"):
        tk.norm(m, ord=2, axis=[0, 1])
    np.testing.assert_allclose(tk.nn.l2_normalize(m, axis=0).numpy(),
                               np.array([[1, -2], [3, -4]]) / np.array([math.sqrt(10), math.sqrt(20)]), rtol=1e-6)


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


# --- pooling and the transposed convolution -------------------------------------------------------

def test_avg_pool_same_padding_leaves_padding_out_of_the_mean():
    x = np.arange(1.0, 10.0).reshape(1, 3, 3, 1)       # 1..9
    y = tk.nn.avg_pool2d(x, ksize=2, strides=2, padding="SAME").numpy()[0, :, :, 0]
    # SAME, 3 -> 2 windows, the padding at the bottom/right: 2x2, 2x1, 1x2, 1x1 real pixels
    np.testing.assert_allclose(y, [[(1 + 2 + 4 + 5) / 4, (3 + 6) / 2], [(7 + 8) / 2, 9.0]])


def test_conv2d_transpose_is_the_adjoint_of_conv2d():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 6, 5, 3))
    w = rng.normal(size=(3, 3, 3, 4))                  # conv2d: 3 -> 4 channels
    for strides, padding in ((1, "VALID"), (2, "SAME"), ([2, 1], "VALID")):
        y = tk.nn.conv2d(x, w, strides, padding)
        z = rng.normal(size=y.shape)
        back = tk.nn.conv2d_transpose(z, w, x.shape, strides, padding)   # filters (h, w, out=3, in=4)
        # <conv2d(x), z> = <x, conv2d_transpose(z)>
        assert np.sum(y.numpy() * z) == pytest.approx(np.sum(x * back.numpy()), rel=1e-10)
    with pytest.raises(ValueError, match="conv2d_transpose: input has shape"):
        tk.nn.conv2d_transpose(np.ones((2, 3, 2, 4)), w, (2, 6, 5, 3), 2, "SAME")   # needs (2, 3, 3, 4)


# --- dtypes of mixed inputs, formatting, print ----------------------------------------------------

def test_python_numbers_take_a_numpy_arrays_dtype():
    out = tk.multiply(np.ones([2]), 42)
    assert out.dtype == tk.float64 and out.numpy().tolist() == [42.0, 42.0]
    assert tk.add(2, np.ones([2], np.float32)).dtype == tk.float32
    with pytest.raises(TypeError, match="int64 with the Python float 1.5"):
        tk.add(np.array([1, 2]), 1.5)


def test_format_gives_the_value():
    t = tk.constant(2.0)
    assert f"{t}" == "2.0" and "{}".format(t) == "2.0" and f"{t:.3f}" == "2.000"
    assert f"{tk.constant([1, 2])}" == "[1 2]"
    assert str(t).startswith("tk.Tensor(")


def test_print_writes_values_to_stderr_by_default(capsys):
    tk.print("x =", tk.constant([[1, 2], [3, 4]]), tk.constant(1 / 3), tk.constant(0.5, tk.float64))
    err = capsys.readouterr().err
    assert err == "x = [[1 2]\n [3 4]] 0.333333343 0.5\n"
    buf = io.StringIO()
    tk.print(tk.range(100), [tk.constant(1.0), "a"], summarize=2, sep=",", end="!", output_stream=buf)
    assert buf.getvalue() == "[0 1 ... 98 99],[1, a]!"
    tk.print(tk.constant([True, False]), output_stream=sys.stdout)
    assert capsys.readouterr().out == "[True False]\n"


def test_where_of_two_python_numbers_has_tensorflows_dtypes():
    # np.where(c, 1.0, 0.2) is float64; TensorFlow makes float32 constants, and refuses to
    # mix an int with a float.
    c = tk.constant([1.0, -1.0]) > 0
    out = tk.where(c, 1.0, 0.2)
    assert out.dtype == np.float32 and np.allclose(out, [1.0, 0.2])
    with pytest.raises(TypeError, match=r"where: x and y must have one dtype.*int32.*float32"):
        tk.where(c, 1, 0.2)
