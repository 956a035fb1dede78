"""What the tests of tapekit/widgets/ share: the tapes they show, and how they read a view's
picture."""
import base64
import shutil

import numpy as np
import pytest

import tapekit as tk

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")
VIEW = "application/vnd.jupyter.widget-view+json"


def scalar_tape():
    x = tk.Variable(2.0, name="x")
    w = tk.Variable(3.0, name="w")
    with tk.GradientTape(persistent=True) as tape:
        y = tk.sin(x * w) + x
    return tape, y, x, w


def mlp_tape_and_weights():
    """Lesson 12's second tape: nodes s0 (W), s1 (b), s2 (inputs), n0..n5."""
    rng = np.random.default_rng(0)
    W = tk.Variable(rng.normal(size=(3, 2)).astype("float32"), name="W")
    b = tk.Variable(np.zeros(2, "float32"), name="b")
    inputs = tk.constant(rng.normal(size=(4, 3)).astype("float32"))
    with tk.GradientTape(persistent=True) as tape:
        h = tk.tanh(tk.matmul(inputs, W) + b)          # b broadcasts over the batch
        loss = tk.reduce_mean(tk.square(h - 0.5))
    return tape, loss, W, b


def mlp_tape():
    tape, loss, _, _ = mlp_tape_and_weights()
    return tape, loss


def png(bundle):
    data = base64.b64decode(bundle["image/png"])
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return data


def png_out(out_widget):
    out, = out_widget.outputs
    return png(out["data"])


def chain_tape(n_records):
    """A loss at the end of `n_records` records: h = tanh(h * w + b), repeated (display
    recording on, as in a notebook)."""
    w = tk.Variable(np.full(4, 0.9, np.float32), name="w")
    b = tk.Variable(np.zeros(4, np.float32), name="b")
    h = tk.constant(np.linspace(-1, 1, 4, dtype=np.float32))
    with tk.display.option_context(record=True):
        with tk.GradientTape(persistent=True) as tape:
            for _ in range((n_records - 1) // 3):
                h = tk.tanh(h * w + b)
            loss = tk.reduce_sum(h)
    return tape, loss, [w, b]


def wide_tape(n=600):
    """add_n over `n` Variables v0, v1, ..., then a loss (display recording on)."""
    xs = [tk.Variable(np.full(2, 0.5 + k / n, np.float32), name=f"v{k}") for k in range(n)]
    with tk.display.option_context(record=True):
        with tk.GradientTape(persistent=True) as tape:
            loss = tk.reduce_sum(tk.sin(tk.add_n(xs)))
    return tape, loss, xs
