"""Ops that pick elements: where, maximum and minimum. The gradient goes where the value came
from: to x where the condition holds, else to y (where); to the larger input (maximum), ties
sending the whole gradient to the first argument.

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.maximum(tk.constant([-1.0, 2.0]), 0.0)
tk.Tensor([0. 2.], shape=(2,), dtype=float32)

>>> tk.minimum(tk.constant([-1.0, 2.0]), 0.0)
tk.Tensor([-1.  0.], shape=(2,), dtype=float32)

>>> w = tk.Variable(3.0)
>>> with tk.GradientTape() as tape:
...     z = tk.maximum(w, 5.0)        # w is not the max: no gradient reaches it
>>> tape.gradient(z, w)
tk.Tensor(0.0, shape=(), dtype=float32)
"""
import numpy as np

from ..tensor import Tensor, to_array
from .creation import where_indices
from .registry import defop, numpy_function


# --- maximum / minimum: ties send the whole gradient to the first argument -----------
maximum = defop("maximum", np.maximum, args="x y", save="x y", same_dtype=True, ufunc=np.maximum,
                vjp=[lambda g, ans, x, y: where(x >= y, g, 0), lambda g, ans, x, y: where(x >= y, 0, g)],
                jvp=[lambda t, ans, x, y: where(x >= y, t, 0), lambda t, ans, x, y: where(x >= y, 0, t)])
minimum = defop("minimum", np.minimum, args="x y", save="x y", same_dtype=True, ufunc=np.minimum,
                vjp=[lambda g, ans, x, y: where(x <= y, g, 0), lambda g, ans, x, y: where(x <= y, 0, g)],
                jvp=[lambda t, ans, x, y: where(x <= y, t, 0), lambda t, ans, x, y: where(x <= y, 0, t)])


# --- where: the gradient passes where the value passes --------------------------------
def _where(condition, x, y):
    # A Python scalar branch (the 0 in where(c, g, 0), common in rules) as a NumPy scalar of
    # the other branch's dtype: NumPy's select is several times faster than with a weak int.
    if type(y) in (int, float) and hasattr(x, "dtype"):
        y = x.dtype.type(y)
    elif type(x) in (int, float) and hasattr(y, "dtype"):
        x = y.dtype.type(x)
    return np.where(condition, x, y)


where_op = defop("where", _where, args="condition x y", save="condition",
                 vjp=[None, lambda g, ans, c, x, y: where(c, g, 0), lambda g, ans, c, x, y: where(c, 0, g)],
                 jvp=[None, lambda t, ans, c, x, y: where(c, t, 0), lambda t, ans, c, x, y: where(c, 0, t)])


@numpy_function(np.where)
def where(condition, x=None, y=None, name=None):
    """Elements of x where condition is true, else of y (`tf.where`, NumPy broadcasting).

    >>> x = tk.constant([-1.0, 2.0, -3.0])
    >>> tk.where(x > 0, x, tk.zeros_like(x))
    tk.Tensor([0. 2. 0.], shape=(3,), dtype=float32)

    >>> tk.where(tk.constant([True, False, True]))      # one argument: the indices of True
    tk.Tensor(
    [[0]
     [2]], shape=(2, 1), dtype=int64)
    """
    if x is None and y is None:
        return where_indices(condition)
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither (for the indices of true elements)")
    if type(x) in _PY_NUMBERS and type(y) in _PY_NUMBERS:
        # Two Python numbers are constants of TensorFlow's dtypes (float32, int32), not the
        # float64 NumPy would make of them; and TensorFlow refuses to mix the two.
        x, y = to_array(x), to_array(y)     # arrays: op inputs in raw mode too
        if x.dtype != y.dtype:
            raise TypeError(f"where: x and y must have one dtype; got the Python numbers "
                            f"{x.item()!r} ({x.dtype.name}) and {y.item()!r} ({y.dtype.name}). "
                            f"Write both as floats, e.g. tk.where(c, 1.0, 0.2)")
    elif isinstance(x, Tensor) and isinstance(y, Tensor) and x.dtype != y.dtype:
        # NumPy would promote (float32 and float64 give float64); TensorFlow raises.
        raise TypeError(f"where: x and y must have one dtype; got {x.dtype.name} {x.shape} and "
                        f"{y.dtype.name} {y.shape}. Cast one of them, e.g. tk.cast(y, tk.{x.dtype.name})")
    return where_op(condition, x, y)


_PY_NUMBERS = (int, float)
