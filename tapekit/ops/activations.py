"""Activations of tapekit.nn: relu, softmax, log_softmax (sigmoid and tanh are elementwise).

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.nn.relu(tk.constant([-1.0, 0.0, 2.0]))
tk.Tensor([0. 0. 2.], shape=(3,), dtype=float32)

>>> x = tk.Variable([-1.0, 2.0])
>>> with tk.GradientTape() as tape:
...     y = tk.reduce_sum(tk.nn.relu(x))
>>> tape.gradient(y, x)               # 1 where x > 0, else 0
tk.Tensor([0. 1.], shape=(2,), dtype=float32)
"""
import numpy as np

from .elementwise import exp, zeros_cotangent
from .reductions import reduce_sum_op
from .registry import defop
from .shapes import _negative_axis, _ones

# relu's derivative is its own op, as TensorFlow's ReluGrad: g where the output is positive,
# 0 elsewhere (0 at 0). One multiply by the boolean mask: a select is several times slower on
# large arrays, and a float mask costs one more pass. Linear in g, so its derivative in g is
# itself; the output only selects: derivative 0 (not None), so relu's second derivative is
# zeros, as in TensorFlow.
relu_grad = defop("relu_grad", lambda g, ans: np.multiply(g, ans > 0), args="g ans",
                  save="ans",
                  vjp=[lambda gg, out, g, ans: relu_grad(gg, ans), lambda gg, out, g, ans: zeros_cotangent(gg)],
                  jvp=[lambda t, out, g, ans: relu_grad(t, ans), lambda t, out, g, ans: zeros_cotangent(t)])

relu = defop("relu", lambda x: np.maximum(x, 0), save="ans",
             vjp=[lambda g, ans, x: relu_grad(g, ans)],
             jvp=[lambda t, ans, x: relu_grad(t, ans)])


# Reductions along a short last axis (class scores: (batch, 10)) are NumPy's slow case: it
# sets up its inner loop once per row. These give the same maxima, and the same sums up to
# rounding, several times faster: the maximum over the transposed rows (one short loop
# per class), the sum as a product with a vector of ones (one BLAS call).
def _max_keep(x, axis):
    k = x.shape[axis] if x.ndim else 1
    if axis in (-1, x.ndim - 1) and x.ndim >= 2 and k <= 64 and x.size >= 256:
        m = np.maximum.reduce(np.ascontiguousarray(x.reshape(-1, k).T), axis=0)
        return m.reshape(x.shape[:-1] + (1,))
    return np.maximum.reduce(x, axis=axis, keepdims=True)


def _sum_keep(x, axis):
    k = x.shape[axis] if x.ndim else 1
    if axis in (-1, x.ndim - 1) and x.ndim >= 2 and x.dtype.kind == "f" and x.itemsize >= 4 \
            and k <= 64 and x.size >= 256:
        return (x.reshape(-1, k) @ _ones(k, x.dtype)).reshape(x.shape[:-1] + (1,))
    return np.add.reduce(x, axis=axis, keepdims=True)


def _softmax(x, axis):
    e = x - _max_keep(x, axis)
    e = np.exp(e, out=e) if e.dtype.kind == "f" else np.exp(e)   # in place when it can be
    e /= _sum_keep(e, axis)
    return e


def _log_softmax(x, axis):
    z = x - _max_keep(x, axis)
    return z - np.log(_sum_keep(np.exp(z), axis))


softmax_op = defop(
    "softmax", _softmax, save="ans",
    vjp=[lambda g, ans, x, axis: ans * (g - reduce_sum_op(g * ans, axis=(axis,), keepdims=True))],
    jvp=[lambda t, ans, x, axis: ans * (t - reduce_sum_op(t * ans, axis=(axis,), keepdims=True))])

log_softmax_op = defop(
    "log_softmax", _log_softmax, save="ans",
    vjp=[lambda g, ans, x, axis: g - exp(ans) * reduce_sum_op(g, axis=(axis,), keepdims=True)],
    jvp=[lambda t, ans, x, axis: t - reduce_sum_op(exp(ans) * t, axis=(axis,), keepdims=True)])


def softmax(logits, axis=-1, name=None):
    """exp(logits) / sum(exp(logits)) along `axis`, computed stably.

    >>> tk.nn.softmax(tk.constant([1.0, 2.0, 3.0]))
    tk.Tensor([0.09003057 0.24472846 0.66524094], shape=(3,), dtype=float32)
    """
    return softmax_op(logits, axis=_negative_axis(axis, _ndim(logits), "softmax"))


def log_softmax(logits, axis=-1, name=None):
    """logits - logsumexp(logits) along `axis`, computed stably.

    >>> tk.nn.log_softmax(tk.constant([1.0, 2.0, 3.0]))
    tk.Tensor([-2.4076061 -1.407606  -0.407606 ], shape=(3,), dtype=float32)
    """
    return log_softmax_op(logits, axis=_negative_axis(axis, _ndim(logits), "log_softmax"))


def _ndim(x):
    return x.ndim if hasattr(x, "ndim") else np.ndim(x)
