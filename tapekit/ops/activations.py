"""The activations of tf.nn (and Keras's, by name): relu, softmax and log_softmax, then
softplus, softsign, elu, selu, relu6, leaky_relu, gelu, silu (swish) and log_sigmoid
(sigmoid and tanh are in transcendental.py). Each is one op with its derivative beside it,
written with tapekit ops so that second derivatives work.

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.nn.relu(tk.constant([-1.0, 0.0, 2.0]))
tk.Tensor([0. 0. 2.], shape=(3,), dtype=float32)

>>> x = tk.Variable([-1.0, 2.0])
>>> with tk.GradientTape() as tape:
...     y = tk.reduce_sum(tk.nn.relu(x))
>>> tape.gradient(y, x)               # 1 where x > 0, else 0
tk.Tensor([0. 1.], shape=(2,), dtype=float32)

>>> x = tk.constant([-1.0, 0.0, 2.0])
>>> tk.nn.softplus(x)                      # log(1 + exp(x))
tk.Tensor([0.3132617 0.6931472 2.126928 ], shape=(3,), dtype=float32)
>>> tk.nn.softsign(x)                      # x / (1 + abs(x))
tk.Tensor([-0.5        0.         0.6666667], shape=(3,), dtype=float32)
>>> tk.nn.elu(x)                           # exp(x) - 1 below 0
tk.Tensor([-0.63212055  0.          2.        ], shape=(3,), dtype=float32)
>>> tk.nn.selu(x)
tk.Tensor([-1.1113307  0.         2.101402 ], shape=(3,), dtype=float32)
>>> tk.nn.relu6(tk.constant([-1.0, 3.0, 8.0]))
tk.Tensor([0. 3. 6.], shape=(3,), dtype=float32)
>>> tk.nn.leaky_relu(x)                    # alpha = 0.2, TensorFlow's default
tk.Tensor([-0.2  0.   2. ], shape=(3,), dtype=float32)
>>> tk.nn.gelu(x)                          # x * Phi(x), Phi the normal distribution function
tk.Tensor([-0.15865526  0.          1.9544997 ], shape=(3,), dtype=float32)
>>> tk.nn.gelu(x, approximate=True)        # the tanh form
tk.Tensor([-0.158808   0.         1.9545977], shape=(3,), dtype=float32)
>>> tk.nn.silu(x)                          # x * sigmoid(x), also tk.nn.swish
tk.Tensor([-0.2689414  0.         1.761594 ], shape=(3,), dtype=float32)
>>> tk.math.log_sigmoid(x)                 # -softplus(-x)
tk.Tensor([-1.3132617 -0.6931472 -0.126928 ], shape=(3,), dtype=float32)

>>> w = tk.Variable([-1.0, 2.0])
>>> with tk.GradientTape() as tape:
...     y = tk.reduce_sum(tk.nn.softplus(w))
>>> tape.gradient(y, w)                    # sigmoid(w)
tk.Tensor([0.2689414 0.880797 ], shape=(2,), dtype=float32)
"""
import math

import numpy as np

from ..errors import InvalidArgumentError
from ..tensor import Tensor
from .arithmetic import abs, add, square, zeros_cotangent
from .conversion import convert_to_tensor
from .passthrough import cast
from .reductions import reduce_sum_op
from .registry import defop
from .selection import minimum, where
from .shapes import negative_axis, ones_vector, reshape
from .special import erf, erf_array
from .transcendental import exp, sigmoid, sigmoid_array, tanh


# --- relu, softmax and log_softmax ----------------------------------------------------------
# relu's derivative is its own op, as TensorFlow's ReluGrad: g where the output is positive,
# 0 elsewhere (0 at 0). One multiply by the boolean mask: a select is several times slower on
# large arrays, and a float mask costs one more pass. Linear in g, so its derivative in g is
# itself; the output only selects: derivative 0 (not None), so relu's second derivative is
# zeros, as in TensorFlow.
relu_grad = defop("relu_grad", lambda g, ans: np.multiply(g, ans > 0), args="g ans",
                  save="ans",
                  vjp=[lambda gg, out, g, ans: relu_grad(gg, ans), lambda gg, out, g, ans: zeros_cotangent(gg)],
                  jvp=[lambda t, out, g, ans: relu_grad(t, ans), lambda t, out, g, ans: zeros_cotangent(t)])

relu = defop("relu", lambda x: np.maximum(x, 0), args="features", save="ans",   # tf.nn.relu(features)
             vjp=[lambda g, ans, x: relu_grad(g, ans)],
             jvp=[lambda t, ans, x: relu_grad(t, ans)])


# Reductions along a short last axis (class scores: (batch, 10)) are NumPy's slow case: it
# sets up its inner loop once per row. These give the same maxima, and the same sums up to
# rounding, several times faster: the maximum over the transposed rows (one short loop
# per class), the sum as a product with a vector of ones (one BLAS call).
def max_keepdims(x, axis):
    k = x.shape[axis] if x.ndim else 1
    if axis in (-1, x.ndim - 1) and x.ndim >= 2 and k <= 64 and x.size >= 256:
        m = np.maximum.reduce(np.ascontiguousarray(x.reshape(-1, k).T), axis=0)
        return m.reshape(x.shape[:-1] + (1,))
    return np.maximum.reduce(x, axis=axis, keepdims=True)


def sum_keepdims(x, axis):
    k = x.shape[axis] if x.ndim else 1
    if axis in (-1, x.ndim - 1) and x.ndim >= 2 and x.dtype.kind == "f" and x.itemsize >= 4 \
            and k <= 64 and x.size >= 256:
        return (x.reshape(-1, k) @ ones_vector(k, x.dtype)).reshape(x.shape[:-1] + (1,))
    return np.add.reduce(x, axis=axis, keepdims=True)


def softmax_array(x, axis):
    if not x.size:   # nothing to normalise: an empty result, as TensorFlow's (NumPy's max raises)
        return x.copy()
    e = x - max_keepdims(x, axis)
    e = np.exp(e, out=e) if e.dtype.kind == "f" else np.exp(e)   # in place when it can be
    e /= sum_keepdims(e, axis)
    return e


def log_softmax_array(x, axis):
    if not x.size:   # as softmax_array
        return x.copy()
    z = x - max_keepdims(x, axis)
    return z - np.log(sum_keepdims(np.exp(z), axis))


softmax_op = defop(
    "softmax", softmax_array, save="ans", float_only=True,
    vjp=[lambda g, ans, x, axis: ans * (g - reduce_sum_op(g * ans, axis=(axis,), keepdims=True))],
    jvp=[lambda t, ans, x, axis: ans * (t - reduce_sum_op(t * ans, axis=(axis,), keepdims=True))])

log_softmax_op = defop(
    "log_softmax", log_softmax_array, save="ans", float_only=True,
    vjp=[lambda g, ans, x, axis: g - exp(ans) * reduce_sum_op(g, axis=(axis,), keepdims=True)],
    jvp=[lambda t, ans, x, axis: t - reduce_sum_op(exp(ans) * t, axis=(axis,), keepdims=True)])


def softmax(logits, axis=-1, name=None):
    """exp(logits) / sum(exp(logits)) along `axis`, computed stably.

    >>> tk.nn.softmax(tk.constant([1.0, 2.0, 3.0]))
    tk.Tensor([0.09003057 0.24472846 0.66524094], shape=(3,), dtype=float32)
    """
    return softmax_op(logits, axis=negative_axis(axis, _ndim(logits), "softmax"))


def log_softmax(logits, axis=-1, name=None):
    """logits - logsumexp(logits) along `axis`, computed stably.

    >>> tk.nn.log_softmax(tk.constant([1.0, 2.0, 3.0]))
    tk.Tensor([-2.4076061 -1.407606  -0.407606 ], shape=(3,), dtype=float32)
    """
    return log_softmax_op(logits, axis=negative_axis(axis, _ndim(logits), "log_softmax"))


def _ndim(x):
    return x.ndim if hasattr(x, "ndim") else np.ndim(x)


# --- the other activations of tf.nn -----------------------------------------------------------
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_TANH_K = math.sqrt(2 / math.pi)       # gelu's tanh form
_TANH_C = 0.044715


def _defop(name, forward, save, deriv, doc):
    """A one-input float op whose VJP and JVP multiply by deriv(ans, x, **attrs)."""
    return defop(name, forward, save=save, float_only=True, doc=doc,
                 vjp=[lambda g, ans, x, **a: g * deriv(ans, x, **a)],
                 jvp=[lambda t, ans, x, **a: t * deriv(ans, x, **a)])


def _softplus(x):
    return np.logaddexp(np.zeros((), x.dtype), x)


softplus_op = _defop("softplus", _softplus, "x", lambda ans, x: sigmoid(x),
                     "log(1 + exp(x)), computed stably; its derivative is sigmoid(x).")
log_sigmoid_op = _defop("log_sigmoid", lambda x: -_softplus(-x), "x", lambda ans, x: sigmoid(-x),
                        "log(sigmoid(x)) = -softplus(-x); its derivative is sigmoid(-x).")
softsign_op = _defop("softsign", lambda x: x / (1 + np.abs(x)), "x",
                     lambda ans, x: 1 / square(1 + abs(x)), "x / (1 + abs(x)).")

# elu and selu differentiate from their output, as TensorFlow's EluGrad / SeluGrad: below 0
# the derivative of exp(x) - 1 is ans + 1. TensorFlow tests `ans < 0`, so x = 0 takes the right
# branch (selu: scale, not scale * alpha; elu's second derivative 0) and a NaN x passes g.
elu_op = _defop("elu", lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))), "ans",
                lambda ans, x: where(ans < 0, ans + 1, 1), "x above 0, exp(x) - 1 below.")
selu_op = _defop("selu", lambda x: _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(np.minimum(x, 0))),
                 "ans", lambda ans, x: where(ans < 0, ans + _SELU_SCALE * _SELU_ALPHA, _SELU_SCALE),
                 "scale * elu(x) with alpha * (exp(x) - 1) below 0 (self-normalising constants).")
# Flat pieces: the derivative is a mask, and the mask's own derivative is 0 (as relu's).
relu6_op = _defop("relu6", lambda x: np.minimum(np.maximum(x, 0), 6), "x",
                  lambda ans, x: cast((x > 0) & (x < 6), x.dtype), "min(max(x, 0), 6).")
leaky_relu_op = _defop("leaky_relu", lambda x, alpha: np.where(x > 0, x, x * alpha), "x",
                       lambda ans, x, alpha: cast(where(x > 0, 1.0, alpha), x.dtype),
                       "x above 0, alpha * x below.")


def _gelu(x, approximate):
    if approximate:
        return 0.5 * x * (1 + np.tanh(_TANH_K * (x + _TANH_C * x * x * x)))
    return 0.5 * x * (1 + erf_array(x * _SQRT_HALF))


def _gelu_deriv(ans, x, approximate):
    if approximate:   # d/dx of 0.5 x (1 + tanh(u)), u = k (x + c x^3)
        th = tanh(_TANH_K * (x + _TANH_C * x * x * x))
        return 0.5 * (1 + th) + 0.5 * x * (1 - th * th) * (_TANH_K * (1 + 3 * _TANH_C * x * x))
    return 0.5 * (1 + erf(x * _SQRT_HALF)) + x * (_INV_SQRT_2PI * exp(-0.5 * x * x))  # Phi + x phi


gelu_op = _defop("gelu", _gelu, "x", _gelu_deriv, "x * Phi(x) (erf form), or its tanh approximation.")


def _silu_deriv(ans, x, beta):
    s = sigmoid(x * beta) if beta != 1 else sigmoid(x)
    return s * (1 + beta * x * (1 - s))


silu_op = _defop("silu", lambda x, beta: x * sigmoid_array(x * beta), "x", _silu_deriv,
                 "x * sigmoid(beta * x) (swish).")


# --- the other activations: TensorFlow's functions ----------------------------------------------
def softplus(features, name=None):
    """log(1 + exp(features)), stable for large abs(features) (`tf.nn.softplus`, `tf.math.softplus`).

    >>> tk.nn.softplus(tk.constant([0.0, 100.0]))      # log 2; no overflow at 100
    tk.Tensor([  0.6931472 100.       ], shape=(2,), dtype=float32)
    """
    return softplus_op(features)


def softsign(features, name=None):
    """features / (1 + abs(features)) (`tf.nn.softsign`).

    >>> tk.nn.softsign(tk.constant([-3.0, 1.0]))
    tk.Tensor([-0.75  0.5 ], shape=(2,), dtype=float32)
    """
    return softsign_op(features)


def log_sigmoid(x, name=None):
    """log(sigmoid(x)), computed as -softplus(-x) (`tf.math.log_sigmoid`).

    >>> tk.math.log_sigmoid(tk.constant([0.0, -100.0]))     # -log 2; no log(0) at -100
    tk.Tensor([  -0.6931472 -100.       ], shape=(2,), dtype=float32)
    """
    return log_sigmoid_op(x)


def elu(features, name=None):
    """features if > 0, else exp(features) - 1 (`tf.nn.elu`).

    >>> tk.nn.elu(tk.constant([-100.0, 0.5]))
    tk.Tensor([-1.   0.5], shape=(2,), dtype=float32)
    """
    return elu_op(features)


def selu(features, name=None):
    """scale * elu with alpha (`tf.nn.selu`; scale 1.0507..., alpha 1.6732...).

    >>> tk.nn.selu(tk.constant([1.0, -100.0]))          # scale, and -scale * alpha
    tk.Tensor([ 1.050701  -1.7580993], shape=(2,), dtype=float32)
    """
    return selu_op(features)


def relu6(features, name=None):
    """min(max(features, 0), 6) (`tf.nn.relu6`); integer input stays integer, as in TensorFlow.

    >>> tk.nn.relu6(tk.constant([-2.0, 2.5, 7.0]))
    tk.Tensor([0.  2.5 6. ], shape=(3,), dtype=float32)
    """
    if _dtype(features).kind in "iu":   # as relu: no gradient to carry, so no float-only op
        return minimum(relu(features), 6)
    return relu6_op(features)


def leaky_relu(features, alpha=0.2, name=None):
    """features if > 0, else alpha * features (`tf.nn.leaky_relu`; integer input becomes float32).

    >>> tk.nn.leaky_relu(tk.constant([-2, 3]), alpha=0.5)
    tk.Tensor([-1.  3.], shape=(2,), dtype=float32)
    """
    if _dtype(features).kind in "iu":
        features = cast(features, np.float32)
    return leaky_relu_op(features, alpha=float(alpha))


def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit x * Phi(x) (`tf.nn.gelu`); approximate=True: the tanh form.

    >>> tk.nn.gelu(tk.constant([1.0]))                  # Phi(1) = 0.8413447
    tk.Tensor([0.8413447], shape=(1,), dtype=float32)
    """
    return gelu_op(features, approximate=bool(approximate))


def silu(features, beta=1.0, name=None):
    """features * sigmoid(beta * features) (`tf.nn.silu`, also `tf.nn.swish`).

    >>> tk.nn.silu(tk.constant([0.0, 2.0]), beta=0.5)     # 2 * sigmoid(1)
    tk.Tensor([0.        1.4621172], shape=(2,), dtype=float32)
    """
    return silu_op(features, beta=float(beta))


swish = silu


def _dtype(x):
    return x.dtype if isinstance(x, Tensor) or hasattr(x, "dtype") else np.asarray(x).dtype


# --- bias_add: a layer's bias, added before its activation -------------------------------------
def bias_add(value, bias, data_format=None, name=None):
    """`value + bias` with the bias along the channels axis (`tf.nn.bias_add`): the last axis,
    or axis 1 when `data_format` starts "NC" ("NCHW"). Unlike `+`, it checks that the bias
    is one number per channel; its gradient with respect to the bias sums over every other
    axis.

    >>> tk.nn.bias_add(tk.zeros((2, 3)), [1.0, 2.0, 3.0])
    tk.Tensor(
    [[1. 2. 3.]
     [1. 2. 3.]], shape=(2, 3), dtype=float32)
    """
    value = convert_to_tensor(value)
    if not hasattr(bias, "_value"):
        bias = convert_to_tensor(bias, dtype=value.dtype)
    if data_format is not None and not (isinstance(data_format, str) and data_format.startswith("N")
                                        and len(data_format) >= 2):
        raise ValueError(f"bias_add: data_format must be None, 'N...C' (channels last) or "
                         f"'NC...' (channels first), got {data_format!r}")
    first = data_format is not None and data_format[1] == "C"
    if value.ndim < 2 or (first and value.ndim < 3):
        raise InvalidArgumentError(f"bias_add: value must have rank {3 if first else 2} or more "
                                   f"(a batch of examples), got shape {tuple(value.shape)}")
    if bias.ndim != 1:
        raise InvalidArgumentError(f"bias_add: bias must be a vector (one number per channel), "
                                   f"got shape {tuple(bias.shape)}")
    axis = 1 if first else value.ndim - 1
    if bias.shape[0] != value.shape[axis]:
        raise InvalidArgumentError(
            f"bias_add: {bias.shape[0]} biases for {value.shape[axis]} channels (axis {axis} of "
            f"value, shape {tuple(value.shape)}); give one bias per channel"
            + ("" if first else "; for channels first, data_format='NCHW'"))
    if first:
        bias = reshape(bias, (-1,) + (1,) * (value.ndim - 2))
    return add(value, bias)
