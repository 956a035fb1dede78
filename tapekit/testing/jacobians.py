"""Jacobians three ways, for checking gradients: central finite differences, reverse mode
(the tape) and forward mode (ForwardAccumulator), plus `gradient_function` for higher
orders, `compare_jacobians`, which says where two Jacobians differ most, and
`compute_gradient`, TensorFlow's tf.test.compute_gradient (tk.test.compute_gradient): the
tape's and the numerical Jacobian, laid out as TensorFlow lays them out.

Public as tk.testing.* (and compute_gradient as tk.test.*); checks.py compares these.
"""
import numpy as np

from ..forward import ForwardAccumulator
from ..ops import concat, reshape
from ..ops.conversion import constant, convert_to_tensor
from ..tape import GradientTape
from ..tensor import Tensor


# --- Jacobians three ways ---------------------------------------------------------------------

def numerical_jacobian(f, xs, eps=1e-6, dtype=np.float64):
    """Central differences: one array of shape out.shape + x.shape per input.

    Inputs are converted to `dtype` (None keeps each input's own dtype, as
    tk.test.compute_gradient does); the result is float64 either way.

    >>> tk.testing.numerical_jacobian(lambda x: x ** 2, [np.array([1.0, 3.0])])
    [array([[2., 0.],
           [0., 6.]])]
    """
    xs = [np.array(x, dtype=dtype) for x in xs]
    out0 = np.asarray(value_of(f(*[constant(x) for x in xs])))
    jacs = []
    for k, x in enumerate(xs):
        jac = np.zeros(out0.shape + x.shape)
        for idx in np.ndindex(*x.shape):
            plus = [v.copy() for v in xs]
            minus = [v.copy() for v in xs]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            d = (np.asarray(value_of(f(*map(constant, plus)))) -
                 np.asarray(value_of(f(*map(constant, minus))))) / (2 * eps)
            jac[(Ellipsis,) + idx] = d
        jacs.append(jac)
    return jacs


def reverse_jacobian(f, xs, dtype=np.float64):
    """The tape's Jacobian of f at xs, one row of cotangents at a time (no vectorisation).

    `dtype` as in numerical_jacobian; the result is float64.

    >>> tk.testing.reverse_jacobian(lambda x: x ** 2, [np.array([1.0, 3.0])])
    [array([[2., 0.],
           [0., 6.]])]
    """
    ts = [constant(np.array(x, dtype=dtype)) for x in xs]
    with GradientTape(persistent=True) as tape:
        tape.watch(ts)
        out = f(*ts)
    flat_out = int(np.prod(out.shape))
    jacs = [np.zeros(out.shape + t.shape) for t in ts]
    for i in range(flat_out):
        seed = np.zeros(flat_out, dtype=out.dtype)
        seed[i] = 1
        grads = tape.gradient(out, ts, output_gradients=constant(seed.reshape(out.shape)),
                              unconnected_gradients="zero")
        for jac, g in zip(jacs, grads):
            jac.reshape((flat_out,) + jac.shape[out.ndim:])[i] = g.numpy()
    return jacs


def forward_jacobian(f, xs):
    """The Jacobian of f at xs from ForwardAccumulator, one input direction at a time.

    >>> tk.testing.forward_jacobian(lambda x: x ** 2, [np.array([1.0, 3.0])])
    [array([[2., 0.],
           [0., 6.]])]
    """
    ts = [constant(np.array(x, dtype=np.float64)) for x in xs]
    jacs = []
    for k, t in enumerate(ts):
        cols = []
        for idx in np.ndindex(*t.shape):
            tangent = np.zeros(t.shape)
            tangent[idx] = 1
            with ForwardAccumulator(t, constant(tangent)) as acc:
                out = f(*ts)
            jv = acc.jvp(out, unconnected_gradients="zero")
            cols.append(np.asarray(jv.numpy()))
        out_shape = np.shape(out)
        jac = np.stack(cols, axis=-1).reshape(out_shape + t.shape) if cols else np.zeros(out_shape + t.shape)
        jacs.append(jac)
    return jacs


# --- higher orders -----------------------------------------------------------------------------

def gradient_function(f):
    """The tape's gradient of f as a function: all inputs' gradients, flattened and joined.

    f's output is first weighted by a fixed vector (cos(k + 0.3)), so a vector output
    checks more than the gradient of its plain sum. Its derivatives are f's second ones.

    >>> df = tk.testing.gradient_function(lambda x: x ** 3)
    >>> df(tk.constant(2.0))                           # 3 x^2
    tk.Tensor([12.], shape=(1,), dtype=float32)
    """
    def df(*ts):
        with GradientTape() as tape:
            tape.watch(list(ts))
            out = f(*ts)
            v = np.cos(np.arange(int(np.prod(out.shape)), dtype=np.float64) + 0.3)
            target = (out * constant(v.reshape(out.shape))) if out.shape else out
        grads = tape.gradient(target, list(ts), unconnected_gradients="zero")
        return concat([reshape(g, (-1,)) for g in grads], axis=0)
    return df


# --- tf.test.compute_gradient ---------------------------------------------------------------

def compute_gradient(f, x, delta=None):
    """The theoretical (tape) and numerical Jacobians of `f` at `x` (`tf.test.compute_gradient`).

    `x` is a list or tuple of f's arguments. Returns two tuples with one 2-D NumPy
    array per argument, of shape (y.size, x.size): row i, column j is d y.flat[i] /
    d x.flat[j]. As TensorFlow: inputs keep their dtype (Python floats become float32),
    central differences use step `delta` (default 1/1024, exact in binary).

    >>> theoretical, numerical = tk.test.compute_gradient(lambda x: x * x, [1.0])
    >>> theoretical, numerical
    ((array([[2.]], dtype=float32),), (array([[2.]], dtype=float32),))
    """
    if not isinstance(x, (list, tuple)):
        raise ValueError(f"compute_gradient: `x` must be a list or tuple of f's arguments, "
                         f"not a {type(x).__name__}")
    delta = 1.0 / 1024 if delta is None else delta
    xs = [np.array(convert_to_tensor(v)._value) for v in x]
    for k, v in enumerate(xs):
        if v.dtype.kind not in "fc":
            raise TypeError(f"compute_gradient: argument #{k} has dtype {v.dtype.name}; "
                            f"gradients need a floating dtype")
    y = f(*[constant(v) for v in xs])
    theoretical = reverse_jacobian(f, xs, dtype=None)
    numerical = numerical_jacobian(f, xs, eps=delta, dtype=None)
    y_size = int(np.prod(np.shape(y)))

    def as_matrix(jac, v):
        return np.asarray(jac).reshape(y_size, v.size).astype(v.dtype)

    return (tuple(as_matrix(j, v) for j, v in zip(theoretical, xs)),
            tuple(as_matrix(j, v) for j, v in zip(numerical, xs)))


# --- comparing ---------------------------------------------------------------------------------

def compare_jacobians(got, expected, rtol, atol):
    """How far one Jacobian is from another: a dict of the largest errors and where they are.

    ok: allclose(got, expected, rtol, atol) with NaN == NaN. abs_error: the largest
    `abs(got - expected)`; rel_error: the largest `abs(got - expected) / max(abs(expected), atol)`.
    abs_at / rel_at: their indices. A NaN on one side only counts as an infinite error.

    >>> stats = tk.testing.compare_jacobians(np.array([1.0, 2.0]), np.array([1.0, 2.5]), rtol=1e-5, atol=1e-6)
    >>> stats["ok"], stats["abs_error"], stats["abs_at"]
    (False, 0.5, (1,))
    """
    g = np.asarray(got, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    ok = bool(np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True))
    both_nan = np.isnan(g) & np.isnan(e)
    with np.errstate(invalid="ignore"):
        err = np.where(both_nan, 0.0, np.abs(g - e))
    err = np.where(np.isnan(err), np.inf, err)
    rel = err / np.maximum(np.abs(np.nan_to_num(e)), atol)
    if not err.size:
        return {"ok": ok, "abs_error": 0.0, "abs_at": (), "rel_error": 0.0, "rel_at": (),
                "got": None, "expected": None}
    abs_at = np.unravel_index(np.argmax(err), err.shape)
    rel_at = np.unravel_index(np.argmax(rel), rel.shape)
    return {"ok": ok, "abs_error": float(err[abs_at]), "abs_at": tuple(int(i) for i in abs_at),
            "rel_error": float(rel[rel_at]), "rel_at": tuple(int(i) for i in rel_at),
            "got": float(g[abs_at]), "expected": float(e[abs_at])}


def value_of(t):
    """The array of a tensor; anything else as it is."""
    return t._value if isinstance(t, Tensor) else t
