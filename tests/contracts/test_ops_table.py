"""Every registered op, checked against finite differences: registering an op adds its tests.

Each differentiable op in the registry needs an entry in SAMPLES (a function built
from that op, and input shapes); `test_every_op_has_a_sample` fails otherwise.
Inputs are float64 so central differences are accurate.
"""
import numpy as np
import pytest

import tapekit as tk
from tapekit.ops import conv as conv_ops   # tk.ops.conv is keras.ops.conv (issue 45)
from tapekit.ops.registry import OPS
from tapekit.testing import check_grads, numerical_jacobian, reverse_jacobian


def pos(shape):
    return ("pos", shape)   # strictly positive inputs (log, sqrt, pow)


SAMPLES = {
    "add": (lambda x, y: x + y, [(3, 4), (4,)]),
    "subtract": (lambda x, y: x - y, [(3, 1), (1, 4)]),
    "multiply": (lambda x, y: x * y, [(2, 3), (2, 3)]),
    "divide": (lambda x, y: x / y, [(3, 4), pos((3, 4))]),
    "negative": (lambda x: -x, [(5,)]),
    "pow": (lambda x, y: x ** y, [pos((3,)), (3,)]),
    "square": (tk.square, [(4,)]),
    "sqrt": (tk.sqrt, [pos((4,))]),
    "exp": (tk.exp, [(4,)]),
    "log": (tk.log, [pos((4,))]),
    "abs": (tk.abs, [(6,)]),
    "sign": (lambda x: tk.sign(x) * x, [(6,)]),   # derivative 0 (TensorFlow's), so d/dx = sign(x)
    "sin": (tk.sin, [(2, 3)]),
    "cos": (tk.cos, [(2, 3)]),
    "tanh": (tk.tanh, [(2, 3)]),
    "sigmoid": (tk.sigmoid, [(2, 3)]),
    "maximum": (tk.maximum, [(3, 4), (4,)]),
    "minimum": (tk.minimum, [(3, 4), (3, 1)]),
    "where": (lambda x, y: tk.where(x > y, x, y * 2), [(3, 4), (4,)]),
    "clip_by_value": (lambda x: tk.clip_by_value(x, -0.3, 0.4), [(10,)]),
    "cast": (lambda x: tk.cast(x, tk.float64) * x, [(3,)]),  # float32 round trips defeat finite differences
    "identity": (lambda x: tk.identity(x) * x, [(3,)]),
    "matmul": (tk.matmul, [(3, 4), (4, 2)]),
    # A column or a row against one matrix: a batch of cotangents (a jacobian) takes a rule
    # of its own there (one matrix product, not a stack of matrix-vector products).
    "matmul_column": (tk.matmul, [(3, 4), (4, 1)]),
    "matmul_row": (tk.matmul, [(1, 4), (4, 3)]),
    "matvec": (tk.linalg.matvec, [(3, 4), (4,)]),
    "reduce_sum": (lambda x: tk.reduce_sum(x, axis=1), [(3, 4, 2)]),
    "reduce_mean": (lambda x: tk.reduce_mean(x, axis=[0, 2], keepdims=True), [(3, 4, 2)]),
    "reduce_max": (lambda x: tk.reduce_max(x, axis=0), [(3, 4)]),
    "reduce_min": (lambda x: tk.reduce_min(x, axis=-1, keepdims=True), [(3, 4)]),
    "reduce_prod": (lambda x: tk.reduce_prod(x, axis=1), [pos((3, 4))]),
    "prod_others": (lambda x: tk.reduce_prod(x), [pos((2, 3))]),
    "reshape": (lambda x: tk.reshape(x, (4, 3))[1:] * tk.reshape(x, (4, 3))[:-1], [(3, 4)]),
    "transpose": (lambda x: tk.transpose(x, [2, 0, 1]), [(2, 3, 4)]),
    "expand_dims": (lambda x: tk.expand_dims(x, 1), [(3, 2)]),
    "squeeze": (lambda x: tk.squeeze(x, axis=1), [(3, 1, 2)]),
    "concat": (lambda x, y: tk.concat([x, y], axis=-1), [(2, 3), (2, 2)]),
    "stack": (lambda x, y: tk.stack([x, y], axis=1), [(2, 3), (2, 3)]),
    "getitem": (lambda x: x[1:, ::2] * x[0, 1], [(3, 4)]),
    "gather": (lambda x: tk.gather(x, [2, 0, 2], axis=1), [(2, 3)]),
    "scatter_add": (lambda x: tk.gather(x, [1, 1, 0]) * 1.5, [(3, 2)]),
    "scatter_update": (lambda x, u: tk.tensor_scatter_nd_update(x, [[2], [0]], u), [(3, 2), (2, 2)]),
    "sum_to": (lambda x, y: x * y, [(3, 1), (3, 4)]),
    "broadcast_to": (lambda x: tk.reduce_sum(x, axis=0) * x, [(3, 2)]),
    # svd: its three outputs, each as something that does not depend on the vectors' signs
    "svd_s": (lambda x: tk.linalg.svd(x, compute_uv=False), [(3, 2)]),
    "svd_u": (lambda x: tk.linalg.svd(x)[1] ** 2, [(3, 2)]),
    "svd_v": (lambda x: tk.linalg.svd(x)[2] ** 2, [(2, 3)]),
    "relu": (tk.nn.relu, [(8,)]),
    "relu_grad": (lambda g: tk.ops.activations.relu_grad(g, tk.constant([0.5, 0.0, -1.0, 2.0, 3.0, -0.1])),
                  [(2, 6)]),
    "softmax": (lambda x: tk.nn.softmax(x, axis=0), [(3, 4)]),
    "log_softmax": (tk.nn.log_softmax, [(3, 4)]),
    "softmax_cross_entropy_with_logits":
        (lambda labels, logits: tk.nn.softmax_cross_entropy_with_logits(labels, logits), [pos((3, 4)), (3, 4)]),
    "sparse_softmax_cross_entropy_with_logits":
        (lambda logits: tk.nn.sparse_softmax_cross_entropy_with_logits(tk.constant([0, 3, 1]), logits), [(3, 4)]),
    "sparse_softmax_cross_entropy_dlogits":
        (lambda logits: tk.ops.cross_entropy.sparse_xent_dlogits_op(tk.constant([[0, 3], [1, 1]]), logits),
         [(2, 2, 4)]),
    # conv: VALID stride 1 and SAME stride 2 (6 rows: SAME pads 0 above, 1 below) in one output
    "conv2d": (lambda x, w: tk.concat([tk.reshape(tk.nn.conv2d(x, w, 1, "VALID"), (-1,)),
                                       tk.reshape(tk.nn.conv2d(x, w, 2, "SAME"), (-1,))], axis=0),
               [(2, 6, 5, 2), (3, 3, 2, 3)]),
    "conv2d_backprop_input": (lambda dy, w: conv_ops.conv2d_backprop_input([2, 6, 5, 2], w, dy, [2, 1], "SAME"),
                              [(2, 3, 5, 3), (3, 3, 2, 3)]),
    "conv2d_backprop_filter": (lambda x, dy: conv_ops.conv2d_backprop_filter(x, [3, 3, 2, 3], dy, 2, "VALID"),
                               [(2, 6, 5, 2), (2, 2, 2, 3)]),
    # max pool: x * 0.1 + a permutation grid has no ties and keeps every argmax fixed
    # within finite-difference steps; non-overlapping VALID and overlapping SAME windows
    "max_pool2d": (lambda x: tk.concat([
        tk.reshape(tk.nn.max_pool2d(x * 0.1 + np.random.default_rng(3).permutation(100).reshape(2, 5, 5, 2) * 1.0,
                                    2, 2, "VALID"), (-1,)),
        tk.reshape(tk.nn.max_pool2d(x * 0.1 + np.random.default_rng(4).permutation(100).reshape(2, 5, 5, 2) * 1.0,
                                    3, [1, 2], "SAME"), (-1,))], axis=0), [(2, 5, 5, 2)]),
    "max_pool2d_backprop": (lambda dy: tk.ops.pooling.max_pool2d_grad(
        np.random.default_rng(3).permutation(100).reshape(2, 5, 5, 2) * 1.0, dy, 3, [1, 2], "SAME"), [(2, 5, 3, 2)]),
    # issue 23: more of tf.math and tf.nn
    "erf": (tk.erf, [(6,)]),
    "log1p": (tk.log1p, [pos((4,))]),
    "expm1": (tk.expm1, [(4,)]),
    "reciprocal": (tk.reciprocal, [pos((4,))]),
    "rsqrt": (tk.rsqrt, [pos((4,))]),
    "squared_difference": (tk.squared_difference, [(3, 4), (4,)]),
    "floormod": (lambda x, y: (x * 3.0) % y, [(6,), pos((6,))]),   # no sample within 1e-2 of a jump
    "softplus": (tk.nn.softplus, [(6,)]),
    "log_sigmoid": (tk.math.log_sigmoid, [(6,)]),
    "softsign": (tk.nn.softsign, [(6,)]),
    "elu": (tk.nn.elu, [(8,)]),
    "selu": (tk.nn.selu, [(8,)]),
    "relu6": (lambda x: tk.nn.relu6(x * 8.0), [(8,)]),
    "leaky_relu": (lambda x: tk.nn.leaky_relu(x, alpha=0.3), [(8,)]),
    "gelu": (lambda x: tk.concat([tk.nn.gelu(x), tk.nn.gelu(x * 2.0, approximate=True)], axis=0), [(6,)]),
    "silu": (lambda x: tk.nn.silu(x, beta=1.5), [(6,)]),
    "reduce_variance": (lambda x: tk.math.reduce_variance(x, axis=1), [(3, 4)]),
    "reduce_logsumexp": (lambda x: tk.math.reduce_logsumexp(x, axis=[0, 2], keepdims=True), [(2, 3, 2)]),
    # linear algebra: matrices kept well-conditioned by adding a multiple of the identity
    "inv": (lambda x: tk.linalg.inv(x + 3.0 * np.eye(3)), [(2, 3, 3)]),
    "solve": (lambda a, b: tk.linalg.solve(a + 3.0 * np.eye(3), b), [(2, 3, 3), (3, 2)]),
    "det": (lambda x: tk.linalg.det(x + 2.0 * np.eye(3)), [(2, 3, 3)]),
    "log_abs_det": (lambda x: tk.linalg.slogdet(x - 2.0 * np.eye(3))[1], [(3, 3)]),
    "trace": (lambda x: tk.linalg.trace(x * x), [(2, 3, 3)]),
    "diag_part": (lambda x: tk.linalg.diag_part(x) ** 2, [(2, 3, 4)]),
    "matrix_diag": (lambda x: tk.linalg.diag(x * x, num_rows=3, num_cols=4), [(2, 3)]),
    "einsum": (lambda a, b, c: tk.concat([tk.reshape(e, (-1,)) for e in (
        tk.einsum("ij,jk->ik", a, b),              # a product
        tk.einsum("ii->i", a * a),                  # a diagonal (repeated subscript)
        tk.einsum("ii", a) * a,                     # the trace, implicit output
        tk.einsum("ij->j", a * a),                  # a subscript summed in one input only
        tk.einsum("ki,kj->ij", b, b),               # the same tensor twice
        tk.einsum("...ij,jk->...ik", c, b),         # broadcast over '...'
        tk.einsum("ij,jk,kl->il", a, a, b))], axis=0),     # three operands
        [(3, 3), (3, 2), (2, 3, 3)]),
    "avg_pool2d": (lambda x: tk.concat([
        tk.reshape(tk.nn.avg_pool2d(x * x, 2, 2, "VALID"), (-1,)),
        tk.reshape(tk.nn.avg_pool2d(x * x, 3, [1, 2], "SAME"), (-1,))], axis=0), [(2, 5, 5, 2)]),
    # the three modes in one output: a constant border, a mirror without and with the edge
    "pad": (lambda x: tk.concat([tk.reshape(tk.pad(x * x, [[1, 0], [2, 1]], constant_values=0.5), (-1,)),
                                 tk.reshape(tk.pad(x * x, [[2, 1], [0, 2]], "REFLECT"), (-1,)),
                                 tk.reshape(tk.pad(x * x, [[3, 1], [1, 4]], "symmetric"), (-1,))], axis=0),
            [(3, 4)]),
    # issue 30: inverse trigonometry, lgamma, and the zero-safe products (inputs kept inside
    # their domains: |x| < 1 for asin/acos, away from lgamma's poles, y > 0 for xlogy)
    "asin": (lambda x: tk.asin(x * 0.9), [(6,)]),
    "acos": (lambda x: tk.acos(x * 0.9), [(6,)]),
    "atan2": (tk.atan2, [(3, 4), pos((4,))]),
    "lgamma": (tk.math.lgamma, [pos((6,))]),
    "digamma": (tk.math.digamma, [pos((6,))]),
    "xlogy": (tk.math.xlogy, [(3, 4), pos((4,))]),
    "xdivy": (tk.math.xdivy, [(3, 4), pos((4,))]),
    "divide_no_nan": (tk.math.divide_no_nan, [(3, 4), pos((4,))]),
    "avg_pool2d_backprop": (lambda dy: tk.ops.pooling.avg_pool2d_backprop_op(
        dy * dy, input_size=(5, 5), window=(3, 3), strides=(1, 2), pads=(1, 1, 1, 1)), [(2, 5, 3, 2)]),
    # tile, fill, add_n, cumsum, cumprod (cumprod with a 0 in the input: its rule is exact there)
    "tile": (lambda x: tk.tile(x * x, [2, 1, 3]), [(2, 3, 1)]),
    "fill": (lambda x: tk.fill([2, 3], x * x), [()]),
    "add_n": (lambda x, y: tk.add_n([x * y, y, x]), [(2, 3), (2, 3)]),
    "cumsum": (lambda x: tk.cumsum(x * x, axis=1, exclusive=True), [(2, 4)]),
    "cumprod": (lambda x: tk.math.cumprod(x * tk.constant([1.0, 0.0, 1.0, 1.0], x.dtype), axis=-1,
                                          reverse=True), [(3, 4)]),
}

NOT_DIFFERENTIABLE = {"less", "less_equal", "greater", "greater_equal", "equal",
                      "not_equal", "logical_and", "logical_or", "logical_not", "is_nan",
                      "is_finite", "stop_gradient",
                      "floor", "ceil", "round", "floordiv", "argmax", "argmin", "count_nonzero",
                      "det_sign", "reduce_any", "reduce_all"}


def make_inputs(specs, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for spec in specs:
        if isinstance(spec, tuple) and spec and spec[0] == "pos":
            out.append(rng.uniform(0.5, 1.5, spec[1]))
        else:
            # away from kinks (abs, relu, max) so finite differences are valid
            v = rng.uniform(-1, 1, spec)
            out.append(np.where(np.abs(v) < 0.05, 0.3, v))
    return out


def test_every_op_has_a_sample():
    missing = [name for name, op in OPS.items()
               if op.vjp is not None and op.gradient_registered
               and name not in SAMPLES and name not in NOT_DIFFERENTIABLE
               and any(op.differentiable_input(i) for i in range(max(len(op.args), 1)))]
    assert missing == [], f"ops without a gradient test sample: {missing}"


def test_non_differentiable_ops_are_marked():
    for name in NOT_DIFFERENTIABLE:
        op = OPS[name]
        assert not any(op.differentiable_input(i) for i in range(len(op.args))), name


# Ops whose derivative op has no derivative of its own: checked to first order (their second
# derivative raises LookupError, tested in tests/ops/test_special.py).
FIRST_ORDER_ONLY = {"digamma"}   # d/dx digamma = trigamma, registered without a gradient


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_first_and_second_derivatives_match_finite_differences(name):
    f, specs = SAMPLES[name]
    check_grads(f, *make_inputs(specs), order=1 if name in FIRST_ORDER_ONLY else 2, modes=("rev", "fwd"))


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_vectorised_jacobian_equals_row_by_row_gradients(name):
    f, specs = SAMPLES[name]
    xs = [tk.constant(x) for x in make_inputs(specs, seed=1)]
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = f(*xs)
    jacs = tape.jacobian(y, xs, unconnected_gradients="zero")
    rows = reverse_jacobian(f, [x.numpy() for x in xs])
    for j, r in zip(jacs, rows):
        np.testing.assert_allclose(j.numpy(), r, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_float32_gradients_keep_float32(name):
    if name == "cast":
        pytest.skip("the cast sample mixes float64 in on purpose")
    f, specs = SAMPLES[name]
    xs = [tk.constant(x.astype(np.float32)) for x in make_inputs(specs, seed=2)]
    with tk.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    for x, g in zip(xs, tape.gradient(y, xs)):
        if g is not None:
            assert g.dtype == np.float32 and g.shape == x.shape


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_float32_rules_stay_float32_when_recorded(name):
    # With an outer tape recording, rules run as ops on tensors (not raw NumPy), where a
    # float64 constant inside a rule is a dtype error, not a silent promotion: tk.function
    # traces this way (a leaky_relu rule built where(x > 0, 1, alpha) in float64 once).
    if name == "cast":
        pytest.skip("the cast sample mixes float64 in on purpose")
    f, specs = SAMPLES[name]
    xs = [tk.constant(x.astype(np.float32)) for x in make_inputs(specs, seed=3)]
    with tk.GradientTape() as outer:
        outer.watch(xs)
        with tk.GradientTape() as tape:
            tape.watch(xs)
            y = f(*xs)
        grads = tape.gradient(y, xs)
    for x, g in zip(xs, grads):
        if g is not None:
            assert g.dtype == np.float32 and g.shape == x.shape


def test_numerical_jacobian_itself_is_right():
    # the reference must be trustworthy: d(x^3)/dx = 3x^2 by hand
    (j,) = numerical_jacobian(lambda x: x ** 3, [np.array([1.0, 2.0])])
    np.testing.assert_allclose(j, np.diag([3.0, 12.0]), rtol=1e-8)


def test_jacobian_of_a_matvec_jacobian_is_its_closed_form():
    # W4's path with an outer tape recording: the batched column rule runs as ops on tensors.
    # y = tanh(W x): J = (1 - y^2)[:, None] * W, and dJ_ij/dx_k = -2 y_i (1 - y_i^2) W_ij W_ik.
    rng = np.random.default_rng(5)
    W, x0 = rng.standard_normal((3, 4)), rng.standard_normal(4)
    x = tk.constant(x0)
    with tk.GradientTape() as outer:
        outer.watch(x)
        with tk.GradientTape() as inner:
            inner.watch(x)
            y = tk.tanh(tk.linalg.matvec(tk.constant(W), x))
        J = inner.jacobian(y, x)
    H = outer.jacobian(J, x)
    t = np.tanh(W @ x0)
    np.testing.assert_allclose(J.numpy(), (1 - t ** 2)[:, None] * W, rtol=1e-12)
    want = (-2 * t * (1 - t ** 2))[:, None, None] * W[:, :, None] * W[:, None, :]
    np.testing.assert_allclose(H.numpy(), want, rtol=1e-10, atol=1e-12)
