"""Tapes the tests of tapekit/display/ draw: a small one, and one whose every name is hostile."""
import tapekit as tk

EVIL = "<script>alert(1)</script>"


def small_tape(persistent=True):
    x = tk.Variable(3.0, name="x")
    c = tk.constant([1.0, 2.0])
    with tk.GradientTape(persistent=persistent) as tape:
        y = x ** 2
        z = y * c + 1.0
        w = tk.reduce_sum(tk.stop_gradient(z) * x + z)
    return tape, x, c, w


def evil_tape():
    x = tk.Variable(1.0, name=EVIL)
    q = tk.Variable(2.0, name="\"&'")

    @tk.custom_gradient
    def f(t):
        return tk.identity(t), lambda dy: dy
    f.__wrapped__.__name__ = "<b>bold</b>"
    with tk.GradientTape(persistent=True) as tape:
        with tk.display.name_scope("<i>scope</i>"):
            y = f(x) * q
    return tape, y, x


def wide_tape(n=5000, join="add_n"):
    """One op over `n` Variables named v0, v1, ... (add_n, stack or concat), then a loss."""
    import numpy as np
    xs = [tk.Variable(np.full(2, 0.5 + k / n, np.float32), name=f"v{k}") for k in range(n)]
    with tk.GradientTape(persistent=True) as tape:
        if join == "add_n":
            y = tk.add_n(xs)
        else:
            y = (tk.stack if join == "stack" else lambda v: tk.concat(v, 0))(xs)
        loss = tk.reduce_sum(tk.sin(y))
    return tape, loss, xs
