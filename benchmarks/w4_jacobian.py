"""W4: tape.jacobian of y = tanh(W @ x), R^256 -> R^256, float32, forward included.

tapekit: tape.jacobian(y, x) with W @ x written tk.linalg.matvec(W, x) (tk.matmul on an
older tapekit, which took a vector), which pushes a batch of 256 one-hot cotangents
through the backward pass at once.
PyTorch: torch.func.jacrev(f)(x) (vmap-vectorised).
Hand-written NumPy, two ways:
- a loop of one backward pass per row: J[i] = W^T (e_i * (1 - y^2)) (the issue quotes 3.1 ms);
- the closed form J = (1 - y^2)[:, None] * W (the floor).
"""
import numpy as np

from harness import assert_close, check, interleaved, na, row, to_numpy
from w3_hessian import _scaled

NAME = "W4"
TITLE = "W4 jacobian of tanh(W @ x), R^256 -> R^256, float32"
N = 256
UNIT = "ms"


def make_inputs(seed=4):
    rng = np.random.default_rng(seed)
    W = (rng.standard_normal((N, N)) / np.sqrt(N)).astype(np.float32)
    x = rng.standard_normal(N).astype(np.float32)
    return W, x


def numpy_closed_form(W, x):
    y = np.tanh(W @ x)
    return (1 - y * y)[:, None] * W


def numpy_row_loop(W, x):
    """One hand-written backward pass per output element."""
    y = np.tanh(W @ x)
    s = 1 - y * y
    WT = np.ascontiguousarray(W.T)
    J = np.empty((N, N), dtype=x.dtype)
    e = np.zeros(N, dtype=x.dtype)
    for i in range(N):
        e[i] = 1
        J[i] = WT @ (e * s)            # cotangent e_i through tanh, then through W @ x
        e[i] = 0
    return J


def tapekit_jacobian(tk, W, x):
    # W @ x for a vector x is tf.linalg.matvec (tk.matmul takes rank 2 or more, as
    # tf.linalg.matmul does); a tapekit from before tk.linalg.matvec multiplies by tk.matmul.
    linalg = getattr(tk, "linalg", None)
    matvec = getattr(linalg, "matvec", None) or tk.matmul
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.tanh(matvec(W, x))
    return tape.jacobian(y, x)


def run(ctx):
    tk, torch = ctx.tk, ctx.torch
    W, x = make_inputs()
    want = numpy_closed_form(W, x)
    assert_close("W4 NumPy row loop vs closed form", numpy_row_loop(W, x), want, rtol=1e-5, atol=1e-7)
    tW, tx = tk.constant(W), tk.constant(x)
    assert_close("W4 tapekit jacobian vs NumPy closed form", to_numpy(tapekit_jacobian(tk, tW, tx)), want,
                 rtol=1e-5, atol=1e-7)
    contenders = {
        "NumPy closed form": lambda: numpy_closed_form(W, x),
        "NumPy row loop (by hand)": lambda: numpy_row_loop(W, x),
        "tapekit tape.jacobian": lambda: tapekit_jacobian(tk, tW, tx),
    }
    if torch is not None:
        def f(x, W):
            return torch.tanh(W @ x)
        jac = torch.func.jacrev(f)   # vectorised over the rows with vmap
        pW, px = torch.from_numpy(W), torch.from_numpy(x)
        assert_close("W4 torch.func.jacrev vs NumPy closed form", to_numpy(jac(px, pW)), want,
                     rtol=1e-5, atol=1e-7)
        contenders["PyTorch torch.func.jacrev"] = lambda: jac(px, pW)
    stats = interleaved(contenders, reps=ctx.reps(300), time_budget=ctx.budget(20))
    rows = []
    for label in ("NumPy closed form", "NumPy row loop (by hand)", "tapekit tape.jacobian",
                  "PyTorch torch.func.jacrev"):
        if label in stats:
            rows.append(row(label, stats[label]["median"] * 1e3, UNIT, stats=_scaled(stats[label], 1e3)))
        else:
            rows.append(na(label, UNIT, ctx.torch_missing))
    checks = [check("tapekit / PyTorch torch.func", "tapekit tape.jacobian",
                    "PyTorch torch.func.jacrev", 1.0, rows)]
    notes = ["Verified before timing: tapekit's and torch.func's Jacobians and the row loop equal the "
             "closed form (rtol 1e-5)."]
    return {"rows": rows, "checks": checks, "notes": notes, "baseline": "NumPy closed form"}
