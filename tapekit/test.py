"""tk.test: is the tape's derivative right? Compare it with finite differences.

    theoretical, numerical = tk.test.compute_gradient(f, [x])      # as tf.test.compute_gradient
    tk.test.check_gradients(f, x, order=2)                          # a readable report

Thin doors to the one gradient checker, tapekit/testing.py (`tk.testing`), which
tapekit's own op table is tested with: compute_gradient lays its Jacobians out as
TensorFlow does, check_gradients is tk.testing.check_gradients itself.
"""
import numpy as np

from . import jacobians, testing
from .convert import constant, convert_to_tensor
from .namespaces import public_dir


# --- tf.test.compute_gradient -------------------------------------------------------------

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
    theoretical = jacobians.reverse_jacobian(f, xs, dtype=None)
    numerical = jacobians.numerical_jacobian(f, xs, eps=delta, dtype=None)
    y_size = int(np.prod(np.shape(y)))

    def as_matrix(jac, v):
        return np.asarray(jac).reshape(y_size, v.size).astype(v.dtype)

    return (tuple(as_matrix(j, v) for j, v in zip(theoretical, xs)),
            tuple(as_matrix(j, v) for j, v in zip(numerical, xs)))


# --- check_gradients: the report, from tapekit.testing ---------------------------------------

# The one checker lives in tapekit/testing.py; these are its TensorFlow-style names here,
# the same objects (tk.test.check_gradients is tk.testing.check_gradients).
GradientCheck = testing.GradientCheck
GradientCheckError = testing.GradientCheckError
GradientReport = testing.GradientReport
check_gradients = testing.check_gradients

__all__ = ["compute_gradient", "check_gradients", "GradientCheck", "GradientCheckError", "GradientReport"]


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
