"""The sweep's cases: one expression per differentiable op, written once for both libraries.

Each case is (label, source, inputs). `source` is a lambda's source text over the module `m`
(tensorflow or tapekit, which share the names) and `np`. `inputs` is a list of float32 arrays
(one per argument). Elementwise ops take all their singular points at once as one vector.
The gradient of sum(g * f(inputs)) is taken for g = 0 and g = 1 (the arriving gradient),
first order, and for elementwise one-input ops also second order (g = 1).
"""
import itertools

import numpy as np

INF, NAN = float("inf"), float("nan")
# Singular points every elementwise op meets: zeros of both signs, negatives, infinities, NaN.
COMMON = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0, INF, -INF, NAN, 1e-30, -1e-30]


def f32(values):
    return np.array(values, dtype=np.float32)


def unary(extra=()):
    return [f32(COMMON + list(extra))]


def binary(values=(0.0, -0.0, 1.0, -1.0, 2.0, -0.5, INF, -INF, NAN)):
    pairs = list(itertools.product(values, repeat=2))
    return [f32([a for a, _ in pairs]), f32([b for _, b in pairs])]


UNARY = [
    # (label, source, extra points: the op's own poles and edges)
    ("sqrt", "lambda x: m.sqrt(x)", ()),
    ("rsqrt", "lambda x: m.math.rsqrt(x)", ()),
    ("reciprocal", "lambda x: m.math.reciprocal(x)", ()),
    ("exp", "lambda x: m.exp(x)", (88.0, 89.0, -104.0)),
    ("log", "lambda x: m.math.log(x)", ()),
    ("log1p", "lambda x: m.math.log1p(x)", (-0.9999999,)),
    ("expm1", "lambda x: m.math.expm1(x)", (89.0,)),
    ("square", "lambda x: m.square(x)", (1e20,)),
    ("abs", "lambda x: m.abs(x)", ()),
    ("sign", "lambda x: m.sign(x) * x", ()),
    ("negative", "lambda x: m.negative(x)", ()),
    ("sin", "lambda x: m.sin(x)", ()),
    ("cos", "lambda x: m.cos(x)", ()),
    ("tanh", "lambda x: m.tanh(x)", (20.0, -20.0)),
    ("sigmoid", "lambda x: m.sigmoid(x)", (100.0, -100.0)),
    ("erf", "lambda x: m.math.erf(x)", (10.0,)),
    ("identity", "lambda x: m.identity(x)", ()),
    ("cast", "lambda x: m.cast(m.cast(x, m.float64), m.float32)", ()),
    ("relu", "lambda x: m.nn.relu(x)", ()),
    ("relu6", "lambda x: m.nn.relu6(x)", (6.0,)),
    ("leaky_relu", "lambda x: m.nn.leaky_relu(x, alpha=0.2)", ()),
    ("elu", "lambda x: m.nn.elu(x)", ()),
    ("selu", "lambda x: m.nn.selu(x)", ()),
    ("softplus", "lambda x: m.nn.softplus(x)", (100.0, -100.0)),
    ("softsign", "lambda x: m.nn.softsign(x)", ()),
    ("log_sigmoid", "lambda x: m.math.log_sigmoid(x)", (100.0, -100.0)),
    ("gelu", "lambda x: m.nn.gelu(x)", (10.0, -10.0)),
    ("gelu_tanh", "lambda x: m.nn.gelu(x, approximate=True)", (10.0, -10.0)),
    ("silu", "lambda x: m.nn.silu(x)", (100.0, -100.0)),
    ("clip_by_value", "lambda x: m.clip_by_value(x, -1.0, 1.0)", ()),
    ("pow_const_half", "lambda x: x ** 0.5", ()),
    ("pow_const_2", "lambda x: x ** 2.0", ()),
    ("pow_const_0", "lambda x: x ** 0.0", ()),
    ("pow_const_neg1", "lambda x: x ** -1.0", ()),
    ("pow_base_2", "lambda x: 2.0 ** x", ()),
    ("pow_base_0", "lambda x: m.pow(m.zeros_like(x), x)", ()),
    ("floormod", "lambda x: m.math.floormod(x, 2.0)", ()),
    ("where_sqrt", "lambda x: m.where(x > 0, m.sqrt(x), 0.0)", ()),
    ("where_log", "lambda x: m.where(x > 0, m.math.log(x), 0.0)", ()),
    # the ops issue 30 adds
    ("asin", "lambda x: m.asin(x)", (0.9999, -0.9999)),
    ("acos", "lambda x: m.acos(x)", (0.9999, -0.9999)),
    ("lgamma", "lambda x: m.math.lgamma(x)", (-1.0, -3.0, -0.5, 2.0, 1e-38)),
]

BINARY = [
    ("add", "lambda x, y: m.add(x, y)"),
    ("subtract", "lambda x, y: m.subtract(x, y)"),
    ("multiply", "lambda x, y: m.multiply(x, y)"),
    ("divide", "lambda x, y: m.divide(x, y)"),
    ("pow", "lambda x, y: m.pow(x, y)"),
    ("maximum", "lambda x, y: m.maximum(x, y)"),
    ("minimum", "lambda x, y: m.minimum(x, y)"),
    ("squared_difference", "lambda x, y: m.math.squared_difference(x, y)"),
    ("floormod2", "lambda x, y: m.math.floormod(x, y)"),
    ("where2", "lambda x, y: m.where(x > y, x, y)"),
    ("clip_by_value_bounds", "lambda x, y: m.clip_by_value(m.constant([-3.0, 0.0, 3.0] * 27), x, y)"),
    ("atan2", "lambda x, y: m.math.atan2(x, y)"),
    ("xlogy", "lambda x, y: m.math.xlogy(x, y)"),
    ("divide_no_nan", "lambda x, y: m.math.divide_no_nan(x, y)"),
    ("xdivy", "lambda x, y: m.math.xdivy(x, y)"),
]

VECTORS = [f32(v) for v in ([0.0, 0.0, 0.0], [0.0, 1.0, 2.0], [1.0, 1.0, -1.0], [1.0, INF, 2.0],
                            [-INF, INF, 0.0], [NAN, 1.0, 2.0], [INF, INF, 1.0], [-INF, -INF, -INF],
                            [1e-30, -1e-30, 0.0], [3.0, -2.0, 0.5])]

VECTOR = [
    ("reduce_sum", "lambda x: m.reduce_sum(x)"),
    ("reduce_mean", "lambda x: m.reduce_mean(x)"),
    ("reduce_max", "lambda x: m.reduce_max(x)"),
    ("reduce_min", "lambda x: m.reduce_min(x)"),
    ("reduce_prod", "lambda x: m.reduce_prod(x)"),
    ("reduce_prod_axis", "lambda x: m.reduce_prod(m.reshape(x, (1, 3)), axis=1)"),
    ("reduce_variance", "lambda x: m.math.reduce_variance(x)"),
    ("reduce_std", "lambda x: m.math.reduce_std(x)"),
    ("reduce_logsumexp", "lambda x: m.math.reduce_logsumexp(x)"),
    ("softmax", "lambda x: m.nn.softmax(x)"),
    ("log_softmax", "lambda x: m.nn.log_softmax(x)"),
    ("softmax_xent", "lambda x: m.nn.softmax_cross_entropy_with_logits(m.constant([0.0, 1.0, 0.0]), x)"),
    ("sparse_softmax_xent",
     "lambda x: m.nn.sparse_softmax_cross_entropy_with_logits(m.constant([1]), m.reshape(x, (1, 3)))"),
    ("l2_normalize", "lambda x: m.math.l2_normalize(x)"),
    ("norm", "lambda x: m.norm(x)"),
    ("global_norm", "lambda x: m.linalg.global_norm([x])"),
    ("clip_by_norm", "lambda x: m.clip_by_norm(x, 1.0)"),
    ("clip_by_global_norm", "lambda x: m.clip_by_global_norm([x], 1.0)[0]"),
    ("reshape", "lambda x: m.reshape(x, (3, 1))"),
    ("expand_dims", "lambda x: m.expand_dims(x, 0)"),
    ("squeeze", "lambda x: m.squeeze(m.expand_dims(x, 1), axis=1)"),
    ("transpose", "lambda x: m.transpose(m.reshape(x, (1, 3)))"),
    ("concat", "lambda x: m.concat([x, x * x], axis=0)"),
    ("stack", "lambda x: m.stack([x, x], axis=1)"),
    ("getitem", "lambda x: x[1:] * x[0]"),
    ("gather", "lambda x: m.gather(x, [2, 0, 2])"),
    ("broadcast_to", "lambda x: m.broadcast_to(x, (2, 3))"),
    ("broadcast_add", "lambda x: m.reshape(x, (3, 1)) + m.constant([[1.0, 2.0]])"),
    ("matmul", "lambda x: m.matmul(m.reshape(x, (1, 3)), m.reshape(x, (3, 1)))"),
    ("einsum", "lambda x: m.einsum('i,i->', x, x)"),
    ("pad", "lambda x: m.pad(x, [[1, 1]], 'REFLECT')"),
    ("matrix_diag", "lambda x: m.linalg.diag(x)"),
    ("diag_part", "lambda x: m.linalg.diag_part(m.linalg.diag(x))"),
    ("trace", "lambda x: m.linalg.trace(m.linalg.diag(x))"),
    ("det", "lambda x: m.linalg.det(m.linalg.diag(x))"),
    ("inv", "lambda x: m.linalg.inv(m.linalg.diag(x))"),
    ("slogdet", "lambda x: m.linalg.slogdet(m.linalg.diag(x))[1]"),
    ("solve", "lambda x: m.linalg.solve(m.linalg.diag(x), m.ones((3, 1)))"),
]

IMAGES = [f32(np.where(np.arange(16).reshape(1, 4, 4, 1) % 5 == 0, v, np.arange(16).reshape(1, 4, 4, 1)))
          for v in (0.0, INF, -INF, NAN)]
IMAGE = [
    ("conv2d", "lambda x: m.nn.conv2d(x, m.ones((2, 2, 1, 1)), 1, 'VALID')"),
    ("max_pool2d", "lambda x: m.nn.max_pool2d(x, 2, 2, 'VALID')"),
    ("avg_pool2d", "lambda x: m.nn.avg_pool2d(x, 2, 2, 'SAME')"),
]

SECOND_ORDER = {"sqrt", "rsqrt", "reciprocal", "exp", "log", "log1p", "square", "abs", "sin", "tanh",
                "sigmoid", "relu", "softplus", "elu", "erf", "pow_const_half", "asin", "acos", "lgamma",
                "where_sqrt", "max_pool2d", "atan2", "xlogy", "xdivy", "divide_no_nan", "divide", "pow", "conv2d", "avg_pool2d", "softmax", "reduce_prod", "det", "inv"}


def all_cases():
    """[(label, source, [input arrays], orders)]"""
    out = []
    for label, src, extra in UNARY:
        out.append((label, src, unary(extra)))
    for label, src in BINARY:
        out.append((label, src, binary()))
    for label, src in VECTOR:
        for i, v in enumerate(VECTORS):
            out.append((f"{label}#{i}", src, [v]))
    for label, src in IMAGE:
        for i, v in enumerate(IMAGES):
            out.append((f"{label}#{i}", src, [v]))
    return out


def second_order(label):
    return label.split("#")[0] in SECOND_ORDER


# Differences kept on purpose (case label prefix -> why tapekit keeps its value). The sweep
# lists them apart from the mismatches to fix.
KEPT = {
    "clip_by_value_bounds": "min > max or a NaN bound: an invalid clip (TensorFlow asks for min <= max); "
                            "its gradients there mean nothing either way",
    "reduce_prod#": "second derivative with a 0, inf or NaN factor: TensorFlow's cumprod-based rule "
                    "gives 0 or NaN where the exact d2/dx_i dx_j = product of the other factors is finite",
    "max_pool2d#": "second derivative: TensorFlow gives zeros, tapekit None (its max pool reads x "
                   "through argmax indices, which carry no gradient); unconnected_gradients='zero' gives zeros",
    "det#5": "a NaN matrix: TensorFlow raises 'not invertible', tapekit gives NaN (NaN in, NaN out; "
             "tk.debugging.check_numerics finds it)",
    "inv#5": "as det#5", "solve#5": "as det#5", "slogdet#5": "as det#5",
    "elu": "x = -1e-30: TensorFlow computes exp(x) - 1 = 0 there, so takes the x >= 0 branch; "
           "tapekit's expm1 gives -1e-30 < 0 and the exact derivative",
    "selu": "as elu",
    "lgamma": "x = 1e-38: TensorFlow's float32 digamma gives NaN; tapekit the exact -1e38",
    "reduce_variance#": "infinite deviations: TensorFlow also differentiates through the mean, "
                        "whose gradient inf - inf is NaN everywhere; the mean's exact gradient is 0",
    "reduce_std#": "as reduce_variance#",
}


def kept(label):
    """Why the difference at this case is kept, or None."""
    for prefix, why in KEPT.items():
        if label == prefix or (prefix.endswith("#") and label.startswith(prefix)) or label.startswith(prefix + "#"):
            return why
    return None
