"""ExplorerModel: a function of one or two scalars sampled with its derivatives (first by the
tape, second by nested tapes) and the tangent at the current point (the FunctionExplorer's model).
"""


import numpy as np

from ...display.format import number
from ...tape import GradientTape
from ...convert import constant
from ...tensor import Tensor
from .common import as_array


# --- exploring a function ------------------------------------------------------------------

class ExplorerModel:
    """A function of one (or two) scalars, with derivatives by the tape.

    One input: `xs`, `f`, `df` (tape), `d2f` (nested tapes) sampled over `x_range`,
    and `tangent()` at the current point `x`. Two inputs (`y_range` given): `grid`
    of f over x_range x y_range and the partial derivatives at the current point.

    >>> m = tk.widgets.ExplorerModel(lambda x: x ** 3, (-3, 3))
    >>> m.set_point(2.0)
    {'x': 2.0, 'f': 8.0, 'df': 12.0, 'd2f': 12.0}
    >>> print(m)
    f(2.0) = 8.0; f' = 12.0 (tape), f'' = 12.0 (nested tapes)
    """

    def __init__(self, f, x_range=(-3.0, 3.0), y_range=None, *, x=None, y=None, samples=None):
        if not callable(f):
            raise TypeError(f"ExplorerModel: f must be a function, got {type(f).__name__}")
        self.f = f
        self.x_range = _range(x_range, "x_range")
        self.y_range = None if y_range is None else _range(y_range, "y_range")
        self.two = self.y_range is not None
        lo, hi = self.x_range
        self.x = float((lo + hi) / 2 if x is None else x)
        if self.two:
            self.y = float(sum(self.y_range) / 2 if y is None else y)
        n = samples or (25 if self.two else 101)
        self.xs = np.linspace(lo, hi, n)
        if self.two:
            self.ys = np.linspace(self.y_range[0], self.y_range[1], n)
            self.grid = np.array([[self.derivatives(xv, yv, order=0)[0] for xv in self.xs]
                                  for yv in self.ys])       # grid[i, j] = f(xs[j], ys[i])
        else:
            rows = [self.derivatives(xv) for xv in self.xs]
            self.fs, self.dfs, self.d2fs = (np.array(c) for c in zip(*rows))

    def derivatives(self, x, y=None, order=2):
        """(f, f', f'') at x; with two inputs (f, df/dx, df/dy) at (x, y) (order 0: f only)."""
        if self.two:
            y = self.y if y is None else y
            tx, ty = constant(np.float64(x)), constant(np.float64(y))
            with GradientTape() as tape:
                tape.watch([tx, ty])
                out = self._call(tx, ty)
            if order == 0:
                return (float(out._value),)
            gx, gy = tape.gradient(out, [tx, ty])
            return float(out._value), _float(gx), _float(gy)
        t = constant(np.float64(x))
        with GradientTape() as outer:
            outer.watch(t)
            with GradientTape() as inner:
                inner.watch(t)
                out = self._call(t)
            d1 = inner.gradient(out, t)
        d2 = outer.gradient(d1, t) if d1 is not None else None
        return float(out._value), _float(d1), _float(d2)

    def _call(self, *args):
        out = self.f(*args)
        if not isinstance(out, Tensor):
            out = constant(np.asarray(out, dtype=np.float64))
        if out.shape != ():
            raise ValueError(f"the function must return one number (a scalar), but it returned "
                             f"shape {tuple(out.shape)}. Reduce it first, e.g. tk.reduce_sum(...)")
        if out.dtype.kind not in "fc":
            raise ValueError(f"the function must return a floating-point number, got {out.dtype}")
        return out

    def set_point(self, x, y=None):
        lo, hi = self.x_range
        self.x = float(np.clip(x, lo, hi))
        if self.two and y is not None:
            self.y = float(np.clip(y, *self.y_range))
        return self.point()

    def point(self):
        """{'x', 'f', 'df', 'd2f'} at the current point ({'x', 'y', 'f', 'dfdx', 'dfdy'} for two)."""
        if self.two:
            fv, gx, gy = self.derivatives(self.x, self.y)
            return {"x": self.x, "y": self.y, "f": fv, "dfdx": gx, "dfdy": gy}
        fv, d1, d2 = self.derivatives(self.x)
        return {"x": self.x, "f": fv, "df": d1, "d2f": d2}

    def tangent(self):
        """Two points (x, y) of the tangent line at the current point, at the range's ends."""
        p = self.point()
        lo, hi = self.x_range
        return [(lo, p["f"] + p["df"] * (lo - p["x"])), (hi, p["f"] + p["df"] * (hi - p["x"]))]

    def __str__(self):
        p = self.point()
        if self.two:
            return (f"f({number(p['x'])}, {number(p['y'])}) = {number(p['f'])}; "
                    f"df/dx = {number(p['dfdx'])}, df/dy = {number(p['dfdy'])}")
        return (f"f({number(p['x'])}) = {number(p['f'])}; f' = {number(p['df'])} (tape), "
                f"f'' = {number(p['d2f'])} (nested tapes)")


def _range(r, name):
    try:
        lo, hi = (float(v) for v in r)
    except (TypeError, ValueError):
        raise TypeError(f"ExplorerModel: {name} must be two numbers (low, high), got {r!r}") from None
    if not lo < hi:
        raise ValueError(f"ExplorerModel: {name} must have low < high, got {r!r}")
    return lo, hi


def _float(t):
    """A derivative as a float; None (unconnected: the function does not depend on it) is 0."""
    return 0.0 if t is None else float(np.asarray(as_array(t)))
