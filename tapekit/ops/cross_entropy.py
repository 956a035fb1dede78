"""Softmax cross-entropy from logits, fused and stable (log-sum-exp), dense and sparse labels;
sigmoid cross-entropy (one two-class problem per entry), a stable composite."""
import numpy as np

from ..errors import InvalidArgumentError
from .activations import (log_softmax_array, log_softmax_op, max_keepdims, softmax_array, softmax_op,
                          sum_keepdims)
from .comparison import greater_equal
from .conversion import convert_to_tensor
from .reductions import reduce_sum_op
from .registry import defop
from .selection import where
from .shapes import expand_dims_op, negative_axis
from .transcendental import exp, log1p


def _xent(labels, logits, axis):
    return -np.sum(labels * log_softmax_array(logits, axis), axis=axis)


softmax_cross_entropy_op = defop(
    "softmax_cross_entropy_with_logits", _xent, args="labels logits", save="labels logits",
    same_dtype=True,
    vjp=[lambda g, ans, labels, logits, axis: -expand_dims_op(g, axis=axis) * log_softmax_op(logits, axis=axis),
         lambda g, ans, labels, logits, axis: expand_dims_op(g, axis=axis) * _dlogits(labels, logits, axis)],
    jvp=[lambda t, ans, labels, logits, axis: -reduce_sum_axis(t * log_softmax_op(logits, axis=axis), axis),
         lambda t, ans, labels, logits, axis: reduce_sum_axis(t * _dlogits(labels, logits, axis), axis)])


def _dlogits(labels, logits, axis):
    # softmax * sum(labels) - labels: equals TensorFlow's softmax - labels when each row of
    # labels is a distribution, and stays right when it is not.
    return softmax_op(logits, axis=axis) * reduce_sum_op(labels, axis=(axis,), keepdims=True) - labels


def reduce_sum_axis(x, axis):
    return reduce_sum_op(x, axis=(axis,), keepdims=False)


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """-sum(labels * log_softmax(logits)) along `axis`, one loss per example.

    >>> labels = tk.constant([[0.0, 1.0], [1.0, 0.0]])
    >>> logits = tk.constant([[0.0, 0.0], [2.0, 0.0]])
    >>> tk.nn.softmax_cross_entropy_with_logits(labels, logits)   # log 2, log(1 + e^-2)
    tk.Tensor([0.6931472  0.12692805], shape=(2,), dtype=float32)
    """
    ndim = logits.ndim if hasattr(logits, "ndim") else np.ndim(logits)
    return softmax_cross_entropy_op(labels, logits, axis=negative_axis(
        axis, ndim, "softmax_cross_entropy_with_logits"))


def _rows(labels, logits):
    """Fancy indices selecting logits[..., labels] as (row numbers, labels), over flat rows."""
    lab = np.asarray(labels).reshape(-1)
    return np.arange(lab.size), lab


def _sparse_xent(labels, logits):
    # logsumexp(logits) - logits[label], from the shifted logits z (stable): two reductions,
    # no log_softmax array. The labels are checked here, in the forward, so that a
    # tk.function replay (which runs only forwards) checks them as an eager call does.
    k = logits.shape[-1]
    _check_labels(labels, k, "sparse_softmax_cross_entropy_with_logits")
    z = logits - max_keepdims(logits, -1)
    lse = np.log(sum_keepdims(np.exp(z), -1))[..., 0]
    return lse - z.reshape(-1, k)[_rows(labels, logits)].reshape(lse.shape)


def _sparse_xent_dlogits(labels, logits):
    # softmax(logits) - one_hot(labels), computed in place on the softmax.
    k = logits.shape[-1]
    p = softmax_array(logits, -1)
    p.reshape(-1, k)[_rows(labels, logits)] -= 1
    return p


def _check_labels(labels, n, caller):
    """Raise unless `labels` (an array) are integer class ids in [0, n)."""
    if labels.dtype.kind not in "iu":
        raise TypeError(f"{caller}: labels must be integer class ids, got dtype {labels.dtype}")
    # One reduction: seen as unsigned, a negative label is larger than any class id.
    unsigned = labels.view(labels.dtype.str.replace("i", "u")) if labels.dtype.kind == "i" else labels
    if labels.size and np.maximum.reduce(unsigned, axis=None) >= n:
        bad = labels[(labels < 0) | (labels >= n)]
        raise ValueError(f"{caller}: labels must be in [0, {n}) (class ids), got values from "
                         f"{labels.min()} to {labels.max()} ({bad.size} outside, the first "
                         f"{bad.flat[0]}). Check the labels and the number of classes (the last "
                         f"axis of the logits or predictions)")


def _checked_class_ids(labels, n_classes, caller):
    labels = np.asarray(labels)
    _check_labels(labels, n_classes, caller)
    return labels


# The labels unchanged, after the check: a loss that turns labels into one-hot rows itself
# (an out-of-range id would give an all-zero row, a finite wrong loss) passes them through
# this op, so every tk.function replay checks them too. No gradient: labels are ids.
check_class_ids = defop("check_class_ids", _checked_class_ids, args="labels",
                        doc="The labels unchanged; raises unless they are class ids in [0, n_classes).")


def _softmax_vjp(g, s):
    """The softmax Jacobian (symmetric) applied to g, given s = softmax(logits)."""
    return s * (g - reduce_sum_op(g * s, axis=(-1,), keepdims=True))


# d loss / d logits = softmax(logits) - one_hot(labels): one op (as TensorFlow's kernel returns
# it with the loss), so the backward pass makes one array instead of four. Its own derivative
# in the logits is the softmax Jacobian; the labels are not differentiable.
sparse_xent_dlogits_op = defop(
    "sparse_softmax_cross_entropy_dlogits", _sparse_xent_dlogits, args="labels logits",
    save="labels logits",
    vjp=[None, lambda g, ans, labels, logits: _softmax_vjp(g, softmax_op(logits, axis=-1))],
    jvp=[None, lambda t, ans, labels, logits: _softmax_vjp(t, softmax_op(logits, axis=-1))],
    doc="softmax(logits) - one_hot(labels): the gradient of the sparse cross-entropy.")

sparse_softmax_cross_entropy_op = defop(
    "sparse_softmax_cross_entropy_with_logits", _sparse_xent, args="labels logits",
    save="labels logits",
    vjp=[None, lambda g, ans, labels, logits: expand_dims_op(g, axis=-1)
         * sparse_xent_dlogits_op(labels, logits)],
    jvp=[None, lambda t, ans, labels, logits: reduce_sum_axis(
        t * sparse_xent_dlogits_op(labels, logits), -1)])


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Cross-entropy with integer class ids: -log_softmax(logits)[label], one loss per example.

    >>> logits = tk.Variable([[0.0, 0.0], [2.0, 0.0]])
    >>> with tk.GradientTape() as tape:
    ...     loss = tk.nn.sparse_softmax_cross_entropy_with_logits(tk.constant([1, 0]), logits)
    >>> loss
    tk.Tensor([0.6931472  0.12692805], shape=(2,), dtype=float32)
    >>> tape.gradient(loss, logits)          # softmax(logits) - one_hot(labels)
    tk.Tensor(
    [[ 0.5        -0.5       ]
     [-0.11920297  0.11920292]], shape=(2, 2), dtype=float32)
    """
    lv = np.asarray(labels._value if hasattr(labels, "_value") else labels)
    gv = logits._value if hasattr(logits, "_value") else np.asarray(logits)
    if lv.shape != gv.shape[:-1]:
        raise InvalidArgumentError(f"sparse_softmax_cross_entropy_with_logits: labels of shape {lv.shape} "
                         f"do not match logits of shape {gv.shape} (expected labels shape "
                         f"{gv.shape[:-1]})")
    return sparse_softmax_cross_entropy_op(labels, logits)


# --- sigmoid cross-entropy: one yes/no question per entry ---------------------------------------
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """-z log(sigmoid(x)) - (1 - z) log(1 - sigmoid(x)) for labels z and logits x, entry by
    entry (`tf.nn.sigmoid_cross_entropy_with_logits`; each entry its own two-class problem).

    Written as TensorFlow writes it, in the form that neither overflows nor loses digits:
    max(x, 0) - x z + log(1 + exp(-abs(x))), with abs(x) and max(x, 0) taken by `where(x >= 0, ...)`.
    So it is a composite of differentiable ops, and its gradient is sigmoid(x) - z with
    respect to the logits (1/2 - z at x = 0) and -x with respect to the labels. Both must be
    given by name or position and have one shape and one floating dtype, as in TensorFlow.

    >>> tk.nn.sigmoid_cross_entropy_with_logits(labels=[0.0, 1.0, 1.0], logits=[0.0, -2.0, 3.0])
    tk.Tensor([0.6931472  2.126928   0.04858735], shape=(3,), dtype=float32)
    >>> x = tk.Variable([0.0, -2.0])
    >>> with tk.GradientTape() as tape:
    ...     loss = tk.nn.sigmoid_cross_entropy_with_logits(labels=[0.0, 1.0], logits=x)
    >>> tape.gradient(loss, x)                      # sigmoid(x) - labels
    tk.Tensor([ 0.5       -0.8807971], shape=(2,), dtype=float32)
    """
    if labels is None or logits is None:
        raise ValueError(f"sigmoid_cross_entropy_with_logits: both labels and logits must be "
                         f"given (labels=..., logits=...); got labels="
                         f"{'None' if labels is None else 'a value'} and logits="
                         f"{'None' if logits is None else 'a value'}")
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels, dtype=logits.dtype if not hasattr(labels, "_value") and
                               np.asarray(labels).dtype.kind == "f" else None)
    if tuple(labels.shape) != tuple(logits.shape):
        raise ValueError(f"sigmoid_cross_entropy_with_logits: logits and labels must have the "
                         f"same shape, got logits {tuple(logits.shape)} and labels "
                         f"{tuple(labels.shape)}")
    if logits.dtype.kind != "f" or labels.dtype != logits.dtype:
        raise InvalidArgumentError(
            f"sigmoid_cross_entropy_with_logits: labels and logits must share one floating "
            f"dtype, got labels {labels.dtype.name} and logits {logits.dtype.name}; cast the "
            f"labels first: tk.cast(labels, logits.dtype)")
    zeros = np.zeros((), logits.dtype)
    positive = greater_equal(logits, zeros)
    relu_logits = where(positive, logits, zeros)
    neg_abs_logits = where(positive, -logits, logits)
    return relu_logits - logits * labels + log1p(exp(neg_abs_logits))
