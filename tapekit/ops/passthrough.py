"""Ops that pass a value through: cast (to another dtype), identity (unchanged) and
stop_gradient (unchanged, without its gradient). saturate_cast, a cast that clamps, is in
clipping.py.

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.identity(tk.constant([1.0, 2.0]))
tk.Tensor([1. 2.], shape=(2,), dtype=float32)
"""
import numpy as np

from .. import dtypes
from .registry import defop


# --- cast: differentiable between floating dtypes only ----------------------------------
def _cast_vjp(g, ans, x, dtype):
    if ans.dtype.kind != "f" or x.dtype.kind != "f":
        return None
    return cast_op(g, dtype=x.dtype)


def _cast_jvp(t, ans, x, dtype):
    if ans.dtype.kind != "f" or x.dtype.kind != "f":
        return None
    return cast_op(t, dtype=ans.dtype)


cast_op = defop("cast", lambda x, dtype: np.asarray(x).astype(dtype, copy=False),
                vjp=[_cast_vjp], jvp=[_cast_jvp])


def cast(x, dtype, name=None):
    """`x` converted to `dtype`; the gradient flows back only between floating dtypes.

    >>> tk.cast(tk.constant([1.7, -1.7]), tk.int32)      # truncates toward zero, as TensorFlow
    tk.Tensor([ 1 -1], shape=(2,), dtype=int32)

    >>> x = tk.Variable(2.0)
    >>> with tk.GradientTape() as tape:
    ...     y = tk.cast(x, tk.float64) ** 2
    >>> tape.gradient(y, x)            # float32 -> float64 -> float32: the gradient flows
    tk.Tensor(4.0, shape=(), dtype=float32)
    """
    return cast_op(x, dtype=dtypes.as_dtype(dtype))


# --- identity and stop_gradient ---------------------------------------------------------
identity = defop("identity", lambda x: x, args="input",   # tf.identity(input)
                 vjp=[lambda g, ans, x: g], jvp=[lambda t, ans, x: t])

stop_gradient_op = defop(
    "stop_gradient", lambda x: x, vjp=[None], jvp=[None],
    doc="Identity forward; no gradient flows back through it (recorded, so the display can show it).")


def stop_gradient(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """Treat `input` as a constant for differentiation (`tf.stop_gradient`).

    >>> x = tk.Variable(3.0)
    >>> with tk.GradientTape() as tape:
    ...     y = tk.stop_gradient(x * x) + x     # the value of x * x, but no gradient through it
    >>> y
    tk.Tensor(12.0, shape=(), dtype=float32)
    >>> tape.gradient(y, x)
    tk.Tensor(1.0, shape=(), dtype=float32)
    """
    return stop_gradient_op(input)
