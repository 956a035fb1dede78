"""Rounding (floor, ceil, round) and Python's `//` and `%` (floordiv, floormod).

TensorFlow registers no gradient for floor, ceil, round and floordiv: here too their VJP is
None, so a gradient through them is None (unconnected), not zeros. floormod's derivative is
1 in x and -floor(x / y) in y, as TensorFlow's.

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.floor(tk.constant([-1.5, 1.5])), tk.ceil(tk.constant([-1.5, 1.5]))
(tk.Tensor([-2.  1.], shape=(2,), dtype=float32), tk.Tensor([-1.  2.], shape=(2,), dtype=float32))

>>> tk.round(tk.constant([0.5, 1.5, 2.5, -0.5]))   # halves to even, as TensorFlow
tk.Tensor([ 0.  2.  2. -0.], shape=(4,), dtype=float32)

>>> tk.floordiv(tk.constant([7, -7]), 2), tk.floormod(tk.constant([7, -7]), 2)   # also // and %
(tk.Tensor([ 3 -4], shape=(2,), dtype=int32), tk.Tensor([1 1], shape=(2,), dtype=int32))

>>> x = tk.Variable(7.5)
>>> with tk.GradientTape() as tape:
...     y = x % 2.0                    # tk.floormod: x - floor(x / 2) * 2
>>> tape.gradient(y, x)
tk.Tensor(1.0, shape=(), dtype=float32)
"""
import numpy as np

from .registry import defop


# --- rounding: piecewise constant; TensorFlow registers no gradient (None) -------------------
floor = defop("floor", np.floor, ufunc=np.floor, float_only=True, vjp=[None], jvp=[None])
ceil = defop("ceil", np.ceil, ufunc=np.ceil, float_only=True, vjp=[None], jvp=[None])
round_op = defop("round", np.round, vjp=[None], jvp=[None],
                 doc="Round half to even (banker's rounding), as TensorFlow and NumPy.")


def round(x, name=None):  # noqa: A001 - tf.math.round
    """Round to the nearest integer, halves to the even one (`tf.math.round`).

    >>> tk.math.round(tk.constant([0.4, 2.5, 3.5]))
    tk.Tensor([0. 2. 4.], shape=(3,), dtype=float32)
    """
    return round_op(x)


# --- Python's // and %: the remainder takes the divisor's sign --------------------------------
def _int_divisor_check(y):
    if np.asarray(y).dtype.kind in "iub" and np.any(np.asarray(y) == 0):
        raise ValueError("integer division by zero (TensorFlow raises too; NumPy would give 0)")


def _floordiv(x, y):
    if np.result_type(x, y).kind == "f":      # TensorFlow's floor(x / y) for floats
        return np.floor(np.true_divide(x, y))
    _int_divisor_check(y)
    return np.floor_divide(x, y)


def _floormod(x, y):
    if np.result_type(x, y).kind != "f":
        _int_divisor_check(y)
    return np.remainder(x, y)


floordiv = defop("floordiv", _floordiv, args="x y", same_dtype=True, ufunc=np.floor_divide,
                 vjp=[None, None], jvp=[None, None],
                 doc="floor(x / y) (Python's //); no gradient, as TensorFlow.")

floormod = defop(
    "floormod", _floormod, args="x y", save="x y", same_dtype=True, ufunc=np.remainder,
    vjp=[lambda g, ans, x, y: g, lambda g, ans, x, y: g * -floordiv(x, y)],
    jvp=[lambda t, ans, x, y: t, lambda t, ans, x, y: t * -floordiv(x, y)],
    doc="x - floor(x / y) * y (Python's %): d/dx = 1, d/dy = -floor(x / y), as TensorFlow.")

mod = floormod
