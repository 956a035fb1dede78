"""W3: the Hessian of f(x) = sum(tanh(A @ x)), n = 64, float32, by nested tapes.

tapekit: outer.jacobian(inner.gradient(f, x), x), forward included.
PyTorch: torch.func.hessian(f)(x) (= jacfwd(jacrev(f)), vectorised with vmap).
Hand-written NumPy, two ways:
- closed form: t = tanh(A x), H = A^T diag(-2 t (1 - t^2)) A  (the floor);
- a loop of one reverse-over-reverse pass per Hessian row (what a non-vectorised
  jacobian costs at best; the issue quotes 0.65 ms for it).
"""
import numpy as np

from harness import assert_close, check, interleaved, na, row, to_numpy

NAME = "W3"
TITLE = "W3 Hessian of sum(tanh(A @ x)), n=64, float32: jacobian of a gradient (nested tapes)"
N = 64
UNIT = "ms"


def make_inputs(seed=3):
    rng = np.random.default_rng(seed)
    A = (rng.standard_normal((N, N)) / np.sqrt(N)).astype(np.float32)
    x = rng.standard_normal(N).astype(np.float32)
    return A, x


def numpy_closed_form(A, x):
    t = np.tanh(A @ x)
    d = -2 * t * (1 - t * t)
    return A.T @ (d[:, None] * A)


def numpy_row_loop(A, x):
    """One hand-written backward pass of the gradient per row (no vectorisation)."""
    t = np.tanh(A @ x)
    s = 1 - t * t                      # gradient: A^T s
    AT = np.ascontiguousarray(A.T)
    H = np.empty((N, N), dtype=x.dtype)
    for i in range(N):                 # cotangent e_i on the gradient A^T s
        s_bar = A[:, i]                # (A^T)^T e_i
        z_bar = -2 * t * s * s_bar     # through s = 1 - tanh(z)^2
        H[i] = AT @ z_bar              # through z = A x
    return H


def tapekit_hessian(tk, A, x):
    # A @ x for a vector x is tf.linalg.matvec (tk.matmul takes rank 2, as TensorFlow's does);
    # a tapekit from before tk.linalg.matvec multiplies by tk.matmul.
    matvec = getattr(getattr(tk, "linalg", None), "matvec", None) or tk.matmul
    with tk.GradientTape() as outer:
        outer.watch(x)
        with tk.GradientTape() as inner:
            inner.watch(x)
            y = tk.reduce_sum(tk.tanh(matvec(A, x)))
        g = inner.gradient(y, x)
    return outer.jacobian(g, x)


def torch_hessian_fn(torch):
    def f(x, A):
        return torch.tanh(A @ x).sum()
    hess = torch.func.hessian(f)     # jacfwd(jacrev(f)), vmap-vectorised
    return hess


def run(ctx):
    tk, torch = ctx.tk, ctx.torch
    A, x = make_inputs()
    want = numpy_closed_form(A, x)
    assert_close("W3 NumPy row loop vs closed form", numpy_row_loop(A, x), want, rtol=1e-4, atol=1e-6)
    tA, tx = tk.constant(A), tk.constant(x)
    assert_close("W3 tapekit Hessian vs NumPy closed form", to_numpy(tapekit_hessian(tk, tA, tx)), want,
                 rtol=1e-4, atol=1e-6)
    contenders = {
        "NumPy closed form": lambda: numpy_closed_form(A, x),
        "NumPy row loop (by hand)": lambda: numpy_row_loop(A, x),
        "tapekit nested tapes": lambda: tapekit_hessian(tk, tA, tx),
    }
    if torch is not None:
        hess = torch_hessian_fn(torch)
        pA, px = torch.from_numpy(A), torch.from_numpy(x)
        assert_close("W3 torch.func.hessian vs NumPy closed form", to_numpy(hess(px, pA)), want,
                     rtol=1e-4, atol=1e-6)
        contenders["PyTorch torch.func.hessian"] = lambda: hess(px, pA)
    stats = interleaved(contenders, reps=ctx.reps(300), time_budget=ctx.budget(20))
    rows = []
    for label in ("NumPy closed form", "NumPy row loop (by hand)", "tapekit nested tapes",
                  "PyTorch torch.func.hessian"):
        if label in stats:
            rows.append(row(label, stats[label]["median"] * 1e3, UNIT,
                            stats=_scaled(stats[label], 1e3)))
        else:
            rows.append(na(label, UNIT, ctx.torch_missing))
    checks = [check("tapekit / PyTorch torch.func", "tapekit nested tapes",
                    "PyTorch torch.func.hessian", 1.0, rows)]
    notes = ["Verified before timing: tapekit's and torch.func's Hessians and the row loop equal the "
             "closed form (rtol 1e-4)."]
    return {"rows": rows, "checks": checks, "notes": notes, "baseline": "NumPy closed form"}


def _scaled(s, k):
    return {key: (v * k if key in ("median", "p25", "p75", "min") else v) for key, v in s.items()}
