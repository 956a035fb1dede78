"""Property tests (hypothesis): gradients match finite differences over random shapes,
broadcasting and axes, in float64."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tapekit as tk
from tapekit.testing import check_grads, reverse_jacobian
from tapekit.ops.linalg import matmul_op

SETTINGS = settings(max_examples=25, deadline=None)

BINARY = {
    "add": lambda x, y: x + y,
    "subtract": lambda x, y: x - y,
    "multiply": lambda x, y: x * y,
    "divide": lambda x, y: x / (y * y + 1.0),
    "maximum": tk.maximum,
    "minimum": tk.minimum,
    "pow": lambda x, y: (x * x + 1.0) ** y,
    "atan2": tk.atan2,
    "xlogy": lambda x, y: tk.math.xlogy(x, y * y + 0.5),
    "divide_no_nan": lambda x, y: tk.math.divide_no_nan(x, y * y + 0.5),
}
UNARY = {
    "exp": tk.exp, "sin": tk.sin, "cos": tk.cos, "tanh": tk.tanh, "sigmoid": tk.sigmoid,
    "square": tk.square, "log": lambda x: tk.log(x * x + 0.5), "sqrt": lambda x: tk.sqrt(x * x + 0.5),
    "abs": tk.abs, "relu": tk.nn.relu, "negative": tk.negative,
    "asin": lambda x: tk.asin(tk.tanh(x) * 0.9), "acos": lambda x: tk.acos(tk.tanh(x) * 0.9),
    "lgamma": lambda x: tk.math.lgamma(x * x + 0.3), "rsqrt": lambda x: tk.math.rsqrt(x * x + 0.5),
    "reciprocal": lambda x: tk.math.reciprocal(x * x + 0.5),
}
REDUCTIONS = {"sum": tk.reduce_sum, "mean": tk.reduce_mean, "max": tk.reduce_max,
              "min": tk.reduce_min, "prod": tk.reduce_prod}


def values(shape, seed):
    rng = np.random.default_rng(seed)
    v = rng.uniform(-1.5, 1.5, shape)
    # keep clear of kinks and ties, where finite differences are not defined
    return np.where(np.abs(v) < 0.1, 0.7, v) + rng.uniform(0, 1e-3, shape)


@SETTINGS
@given(name=st.sampled_from(sorted(BINARY)),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
       seed=st.integers(0, 2**16))
def test_binary_ops_with_broadcasting(name, shapes, seed):
    a, b = shapes.input_shapes
    check_grads(BINARY[name], values(a, seed), values(b, seed + 1) + (0.05 if name in ("maximum", "minimum") else 0))


@SETTINGS
@given(name=st.sampled_from(sorted(UNARY)),
       shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=4), seed=st.integers(0, 2**16))
def test_unary_ops_first_and_second_order(name, shape, seed):
    check_grads(UNARY[name], values(shape, seed), order=2)


@SETTINGS
@given(name=st.sampled_from(sorted(REDUCTIONS)), data=st.data(), keepdims=st.booleans(),
       seed=st.integers(0, 2**16))
def test_reductions_over_random_axes(name, data, keepdims, seed):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
    axes = data.draw(st.none() | st.lists(st.integers(-len(shape), len(shape) - 1),
                                          min_size=1, max_size=len(shape), unique_by=lambda a: a % len(shape)))
    x = values(shape, seed)
    if name in ("max", "min"):
        x = x + np.arange(x.size).reshape(shape) * 1e-2   # no ties
    check_grads(lambda t: REDUCTIONS[name](t, axis=axes, keepdims=keepdims), x, order=2)


@SETTINGS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), data=st.data(), seed=st.integers(0, 99))
def test_softmax_family_over_random_axis(shape, data, seed):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = values(shape, seed)
    check_grads(lambda t: tk.nn.softmax(t, axis=axis) * t, x, order=2)
    check_grads(lambda t: tk.nn.log_softmax(t, axis=axis), x)


@SETTINGS
@given(n=st.integers(1, 4), m=st.integers(1, 4), k=st.integers(1, 4), batch=st.sampled_from([(), (2,), (1, 3)]),
       seed=st.integers(0, 99))
def test_matmul_shapes(n, m, k, batch, seed):
    check_grads(tk.matmul, values(batch + (n, m), seed), values((m, k), seed + 1), order=2)


@SETTINGS
@given(n=st.integers(1, 4), m=st.integers(1, 4), k=st.integers(1, 4), batch=st.sampled_from([(), (2,)]),
       transpose_a=st.booleans(), transpose_b=st.booleans(), seed=st.integers(0, 99))
def test_matmul_transposed_operands(n, m, k, batch, transpose_a, transpose_b, seed):
    # tf.linalg.matmul's transpose_a / transpose_b: the last two axes swapped before the product
    a = values(batch + ((m, n) if transpose_a else (n, m)), seed)
    b = values((k, m) if transpose_b else (m, k), seed + 1)
    got = tk.matmul(tk.constant(a), tk.constant(b), transpose_a=transpose_a, transpose_b=transpose_b)
    want = (np.swapaxes(a, -1, -2) if transpose_a else a) @ (b.T if transpose_b else b)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    check_grads(lambda x, y: tk.matmul(x, y, transpose_a=transpose_a, transpose_b=transpose_b), a, b,
                order=2)


@SETTINGS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), seed=st.integers(0, 99))
def test_forward_mode_agrees_with_reverse_mode(shape, seed):
    x = tk.constant(values(shape, seed))
    f = lambda t: tk.reduce_sum(tk.tanh(t) * tk.sin(t * 2.0) + tk.nn.softmax(t), axis=-1)
    v = tk.constant(values(shape, seed + 7))
    with tk.ForwardAccumulator(x, v) as acc:
        y = f(x)
    jvp = acc.jvp(y).numpy()
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    jac = tape.jacobian(y, x).numpy()
    expected = np.tensordot(jac, v.numpy(), axes=len(shape))
    np.testing.assert_allclose(jvp, expected, rtol=1e-10, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(lead=st.lists(st.integers(1, 40), min_size=1, max_size=3), tail=st.lists(st.integers(1, 9), min_size=1, max_size=2),
       small_first=st.booleans(), dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**16))
def test_add_of_a_short_vector_is_numpys_add(lead, tail, small_first, dtype, seed):
    # add tiles a short broadcast operand for speed (ops/arithmetic.py); the numbers, the
    # dtype and the shape must be exactly NumPy's, large arrays (the tiled path) or not.
    rng = np.random.default_rng(seed)
    big = rng.standard_normal(tuple(lead) + tuple(tail) + (1,) * 0).astype(dtype)
    big = np.repeat(big, max(1, 20000 // big.size), axis=0)     # often past the tiling size
    small = rng.standard_normal(tuple(tail)).astype(dtype)
    x, y = (small, big) if small_first else (big, small)
    got = (tk.constant(x) + tk.constant(y)).numpy()
    want = np.add(x, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=6), data=st.data(),
       dtype=st.sampled_from([np.float32, np.float64]), seed=st.integers(0, 2**16))
def test_reduce_mean_is_numpys_mean(shape, data, dtype, seed):
    # reduce_mean divides the sum itself (ops/reductions.py): bit for bit np.mean's result
    axes = data.draw(st.lists(st.integers(0, max(len(shape) - 1, 0)), unique=True, max_size=len(shape)))
    x = (np.random.default_rng(seed).standard_normal(shape) * 100).astype(dtype)
    got = tk.reduce_mean(tk.constant(x), axis=axes or None).numpy()
    want = np.mean(x, axis=tuple(axes) or None)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
       kind=st.sampled_from(["0-d array", "NumPy scalar", "vector"]),
       dtype=st.sampled_from([np.float32, np.float64, np.int32]), seed=st.integers(0, 2**16))
def test_broadcast_to_is_numpys(shape, kind, dtype, seed):
    # broadcast_to makes the view of one number itself (ops/shapes.py): the same values,
    # dtype and strides as np.broadcast_to, read-only, and still the same error for bad shapes.
    from tapekit.ops.shapes import broadcast_to_op as broadcast_to
    v = np.random.default_rng(seed).standard_normal(3).astype(dtype)
    x = {"0-d array": v[:1].reshape(()), "NumPy scalar": v[0], "vector": v[:1]}[kind]
    shape = shape + (2,) if kind == "vector" else shape  # a (1,) vector needs an axis to fill
    got = broadcast_to.forward(x, shape)
    want = np.broadcast_to(x, shape)
    assert got.dtype == want.dtype and got.shape == want.shape and got.strides == want.strides
    assert not got.flags.writeable
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="non-negative"):
        broadcast_to.forward(x, (2, -1))


@SETTINGS
@given(n=st.integers(1, 4), m=st.integers(1, 4), batch=st.sampled_from([(), (2,), (1, 3)]),
       vector_first=st.booleans(), seed=st.integers(0, 99))
def test_matmul_with_a_vector(n, m, batch, vector_first, seed):
    # matrix @ vector and vector @ matrix (stacked or not): first and second order, and the
    # vectorised jacobian (a batch of cotangents) against row-by-row gradients. tk.matmul and
    # `@` refuse a vector (as TensorFlow); the op under them keeps NumPy's 1-D rules for
    # tapekit's own code, checked here.
    mat, vec = values(batch + (n, m), seed), values((n,) if vector_first else (m,), seed + 1)
    f = (lambda v, a: matmul_op(v, a)) if vector_first else (lambda a, v: matmul_op(a, v))
    args = (vec, mat) if vector_first else (mat, vec)
    check_grads(f, *args, order=2)
    xs = [tk.constant(a) for a in args]
    with tk.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    for jac, rows in zip(tape.jacobian(y, xs), reverse_jacobian(f, list(args))):
        np.testing.assert_allclose(jac.numpy(), rows, rtol=1e-10, atol=1e-12)


@settings(max_examples=20, deadline=None)
@given(rows=st.integers(26, 300), classes=st.integers(2, 64), scale=st.sampled_from([1.0, 30.0, 1e3]),
       seed=st.integers(0, 2**16))
def test_softmax_family_on_class_scores(rows, classes, scale, seed):
    # (batch, classes) arrays take the transposed-max / BLAS-sum path (ops/activations.py):
    # the same values as a float64 reference, stable for large logits
    rng = np.random.default_rng(seed)
    z = (rng.standard_normal((rows, classes)) * scale).astype(np.float32)
    labels = rng.integers(0, classes, rows)
    ref = z.astype(np.float64) - z.max(axis=1, keepdims=True)
    log_p = ref - np.log(np.exp(ref).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(tk.nn.log_softmax(z).numpy(), log_p, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tk.nn.softmax(z).numpy(), np.exp(log_p), rtol=1e-5, atol=1e-6)
    loss = tk.nn.sparse_softmax_cross_entropy_with_logits(labels=tk.constant(labels), logits=z)
    np.testing.assert_allclose(loss.numpy(), -log_p[np.arange(rows), labels], rtol=1e-5, atol=1e-5)
    zt = tk.constant(z)
    with tk.GradientTape() as tape:
        tape.watch(zt)
        total = tk.reduce_sum(tk.nn.sparse_softmax_cross_entropy_with_logits(labels=tk.constant(labels), logits=zt))
    want = np.exp(log_p)
    want[np.arange(rows), labels] -= 1
    np.testing.assert_allclose(tape.gradient(total, zt).numpy(), want, rtol=1e-4, atol=1e-6)


def test_softmax_propagates_nan_and_handles_infinite_logits():
    z = np.zeros((32, 10), np.float32)
    z[3, 4] = np.nan
    z[5, 2] = np.inf      # an infinite score: NaN for its row, as NumPy's shifted softmax gives
    z[7, :] = -np.inf
    z[7, 1] = 0.0         # -inf scores are probability 0
    with np.errstate(invalid="ignore"):   # inf - inf: NumPy's warning, NaN as NumPy gives
        p = tk.nn.softmax(z).numpy()
    assert np.isnan(p[3]).all() and np.isnan(p[5]).all()
    np.testing.assert_array_equal(p[7], np.eye(10, dtype=np.float32)[1])
    np.testing.assert_allclose(p[0], np.full(10, 0.1, np.float32), rtol=1e-6)
