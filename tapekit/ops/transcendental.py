"""The transcendental functions: exp and log (with expm1 and log1p, exact near 0), sin and
cos, tanh and sigmoid. Each derivative is written with tapekit ops (cos's is -sin), so
second derivatives work.

Examples (an object's reference entry shows the paragraphs that name it):

>>> tk.exp(tk.constant([0.0, 1.0]))
tk.Tensor([1.       2.718282], shape=(2,), dtype=float32)

>>> tk.log(tk.constant([1.0, np.e]))
tk.Tensor([0. 1.], shape=(2,), dtype=float32)

>>> tk.sin(tk.constant([0.0, np.pi / 2]))
tk.Tensor([0. 1.], shape=(2,), dtype=float32)

>>> tk.cos(tk.constant([0.0, np.pi]))
tk.Tensor([ 1. -1.], shape=(2,), dtype=float32)

>>> tk.tanh(tk.constant([0.0, 1.0]))
tk.Tensor([0.        0.7615942], shape=(2,), dtype=float32)

>>> tk.sigmoid(tk.constant([0.0, 2.0]))
tk.Tensor([0.5      0.880797], shape=(2,), dtype=float32)

>>> tk.log1p(tk.constant([0.0, 1e-10]))       # exact where log(1 + x) rounds to 0
tk.Tensor([0.e+00 1.e-10], shape=(2,), dtype=float32)

>>> tk.expm1(tk.constant([0.0, 1e-10]))       # exact where exp(x) - 1 rounds to 0
tk.Tensor([0.e+00 1.e-10], shape=(2,), dtype=float32)

>>> w = tk.Variable(3.0)
>>> with tk.GradientTape() as tape:
...     y = tk.sin(w) * tk.exp(w)
>>> tape.gradient(y, w)               # (cos w + sin w) e^w at w = 3
tk.Tensor(-17.05006, shape=(), dtype=float32)
"""
import numpy as np

from .registry import defop, unary


# --- exponentials and logarithms --------------------------------------------------------------
exp = unary("exp", np.exp, save="ans", ufunc=np.exp, deriv=lambda ans, x: ans)
# g / x, not g * (1 / x): 1 / x overflows to inf for a float32 x below 3e-39.
log = defop("log", np.log, save="x", ufunc=np.log, float_only=True,
            vjp=[lambda g, ans, x: g / x], jvp=[lambda t, ans, x: t / x])
log1p = defop("log1p", np.log1p, save="x", ufunc=np.log1p, float_only=True,
              vjp=[lambda g, ans, x: g / (1 + x)], jvp=[lambda t, ans, x: t / (1 + x)])
expm1 = defop("expm1", np.expm1, save="ans", ufunc=np.expm1, float_only=True,
              vjp=[lambda g, ans, x: g * (ans + 1)], jvp=[lambda t, ans, x: t * (ans + 1)])

# --- trigonometric and hyperbolic functions, the logistic sigmoid --------------------------------
sin = unary("sin", np.sin, save="x", ufunc=np.sin, deriv=lambda ans, x: cos(x))
cos = unary("cos", np.cos, save="x", ufunc=np.cos, deriv=lambda ans, x: -sin(x))
tanh = unary("tanh", np.tanh, save="ans", ufunc=np.tanh, deriv=lambda ans, x: 1 - ans * ans)


def sigmoid_array(x):
    """The logistic sigmoid of an array, stable for large |x|: exp of a non-positive number only."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(np.result_type(x), copy=False)


sigmoid = unary("sigmoid", sigmoid_array, save="ans", deriv=lambda ans, x: ans * (1 - ans))
