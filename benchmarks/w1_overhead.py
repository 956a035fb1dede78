"""W1, op overhead: a chain of 1000 elementwise ops on a float32 array of shape (4,).

The ops repeat mul, add, sin, tanh (250 times each); mul and add take constant
(unwatched) float32 arrays. One call = the forward pass under a tape + the gradient
of the output (seeded with ones, so no extra reduction op) with respect to the input.
With 4 elements, the arithmetic is nothing: this measures the per-op cost of recording
and of the backward walk. Reported as microseconds per op (total / 1000).

The constants are close to 1 and 0 so that the gradient stays a normal float32
number (1e-11..1e-4) after 1000 ops: no vanishing to zero, no slow denormals,
and the verification below compares real numbers.
"""
import numpy as np

from harness import assert_close, check, interleaved, na, optional_attr, row, tf_ratio, tf_row, to_numpy

NAME = "W1"
TITLE = "W1 op overhead: 1000 elementwise ops (mul, add, sin, tanh) on float32 (4,), forward under a tape + gradient"
N_OPS = 1000
UNIT = "us/op"


def make_inputs(seed=0):
    rng = np.random.default_rng(seed)
    c1 = rng.uniform(0.99, 1.01, 4).astype(np.float32)
    c2 = rng.uniform(-0.01, 0.01, 4).astype(np.float32)
    x = rng.standard_normal(4).astype(np.float32)
    return x, c1, c2


# --- hand-written NumPy: forward saves what the backward reads, backward by hand ---------

def numpy_chain(x, c1, c2, n_ops=N_OPS):
    """Forward and backward written out: sin saves its input, tanh its output."""
    saved = []
    h = x
    for k in range(n_ops):
        r = k % 4
        if r == 0:
            h = h * c1
        elif r == 1:
            h = h + c2
        elif r == 2:
            saved.append(h)                 # sin' = cos(input)
            h = np.sin(h)
        else:
            h = np.tanh(h)
            saved.append(h)                 # tanh' = 1 - output**2
    g = np.ones_like(h)
    for k in range(n_ops - 1, -1, -1):
        r = k % 4
        if r == 0:
            g = g * c1
        elif r == 2:
            g = g * np.cos(saved.pop())
        elif r == 3:
            t = saved.pop()
            g = g * (1 - t * t)
        # r == 1 (add): the gradient passes unchanged
    return h, g


# --- tapekit -------------------------------------------------------------------------------

def tapekit_chain(tk, x, c1, c2, n_ops=N_OPS):
    with tk.GradientTape() as tape:
        tape.watch(x)
        h = x
        for k in range(n_ops):
            r = k % 4
            if r == 0:
                h = h * c1
            elif r == 1:
                h = h + c2
            elif r == 2:
                h = tk.sin(h)
            else:
                h = tk.tanh(h)
    return h, tape.gradient(h, x)


# --- PyTorch eager ---------------------------------------------------------------------------

def torch_chain(torch, x, c1, c2, n_ops=N_OPS):
    x = x.detach().requires_grad_(True)
    h = x
    for k in range(n_ops):
        r = k % 4
        if r == 0:
            h = h * c1
        elif r == 1:
            h = h + c2
        elif r == 2:
            h = torch.sin(h)
        else:
            h = torch.tanh(h)
    h.backward(torch.ones_like(h))
    return h, x.grad


# --- HOOK (issue 7: check_numerics) ----------------------------------------------------------
# Issue 7 asks for W1 "with and without check_numerics": the feature must cost nothing while
# it is off. The hook below adds a row only when tk.debugging.enable_check_numerics exists
# (else the row is N/A):
#   - the "tapekit" row is W1 with the feature present but OFF (the default). "Without the
#     feature compiled in" means an older tapekit: compare this row with the "tapekit" row of
#     a results.json recorded before the feature landed (run `python benchmarks/run.py W1`
#     on that commit), or read both from one run's history;
#   - the "check_numerics on" row times W1 with the feature ON (what a user pays while debugging).

def check_numerics_contender(tk, x, c1, c2):
    """(callable, None) timing W1 with tk.debugging.enable_check_numerics() on, or (None, why)."""
    enable = optional_attr(tk, "debugging.enable_check_numerics")
    disable = optional_attr(tk, "debugging.disable_check_numerics")
    if enable is None or disable is None:
        return None, "tk.debugging.enable_check_numerics does not exist yet (issue 7; hook in w1_overhead.py)"

    def run():
        enable()
        try:
            return tapekit_chain(tk, x, c1, c2)
        finally:
            disable()
    return run, None


# --- tk.function, and TensorFlow's tf.function in its own interpreter -------------------------

def traced_contender(tk, x, c1, c2):
    """(callable, None): the whole call (forward under a tape + gradient) under tk.function."""
    function = optional_attr(tk, "function")
    if function is None:
        return None, "tk.function not importable"
    f = function(lambda a: tapekit_chain(tk, a, c1, c2))
    return (lambda: f(x)), None


def verify(tk, torch, xs):
    """Same inputs, same gradient: hand-written NumPy == tapekit (== PyTorch)."""
    x, c1, c2 = xs
    for n in (N_OPS, 40):     # the full chain, and a short one with O(1) gradients
        h_np, g_np = numpy_chain(x, c1, c2, n)
        tx, tc1, tc2 = tk.constant(x), tk.constant(c1), tk.constant(c2)
        h_tk, g_tk = tapekit_chain(tk, tx, tc1, tc2, n)
        assert_close(f"W1[{n} ops] tapekit output vs NumPy", to_numpy(h_tk), h_np, rtol=1e-4, atol=0)
        assert_close(f"W1[{n} ops] tapekit gradient vs NumPy", to_numpy(g_tk), g_np, rtol=1e-3, atol=0)
        if torch is not None:
            h_t, g_t = torch_chain(torch, torch.from_numpy(x), torch.from_numpy(c1), torch.from_numpy(c2), n)
            assert_close(f"W1[{n} ops] PyTorch output vs NumPy", to_numpy(h_t), h_np, rtol=1e-4, atol=0)
            assert_close(f"W1[{n} ops] PyTorch gradient vs NumPy", to_numpy(g_t), g_np, rtol=1e-3, atol=0)


def run(ctx):
    tk, torch = ctx.tk, ctx.torch
    xs = make_inputs()
    verify(tk, torch, xs)
    x, c1, c2 = xs
    tx, tc1, tc2 = tk.constant(x), tk.constant(c1), tk.constant(c2)
    contenders = {
        "NumPy by hand": lambda: numpy_chain(x, c1, c2),
        "tapekit": lambda: tapekit_chain(tk, tx, tc1, tc2),
    }
    notes = []
    cn, why = check_numerics_contender(tk, tx, tc1, tc2)
    if cn is not None:
        contenders["tapekit, check_numerics on"] = cn
    traced, why_traced = traced_contender(tk, tx, tc1, tc2)
    if traced is not None:
        h_f, g_f = traced()
        h_f, g_f = traced()   # the replay, not the trace
        h_np, g_np = numpy_chain(x, c1, c2)
        assert_close("W1 tk.function output vs NumPy", to_numpy(h_f), h_np, rtol=1e-4, atol=0)
        assert_close("W1 tk.function gradient vs NumPy", to_numpy(g_f), g_np, rtol=1e-3, atol=0)
        contenders["tapekit tk.function"] = traced
    if torch is not None:
        px, pc1, pc2 = torch.from_numpy(x), torch.from_numpy(c1), torch.from_numpy(c2)
        contenders["PyTorch eager"] = lambda: torch_chain(torch, px, pc1, pc2)
    stats = interleaved(contenders, reps=ctx.reps(300), time_budget=ctx.budget(30))
    # TensorFlow afterwards, in its own process (never at the same time as the timing above).
    tf_res, why_tf = tf_ratio(getattr(ctx, "tf_python", None), "w1_tf.py", ctx.reps(300), ctx.budget(30))
    rows = []
    for label in ("NumPy by hand", "tapekit", "tapekit, check_numerics on", "tapekit tk.function",
                  "TensorFlow tf.function", "PyTorch eager"):
        if label == "TensorFlow tf.function":
            if tf_res is None:
                rows.append(na(label, UNIT, why_tf))
                continue
            rows.append(tf_row(label, tf_res, stats["NumPy by hand"]["median"] * 1e6 / N_OPS, UNIT))
            continue
        if label in stats:
            s = stats[label]
            rows.append(row(label, s["median"] * 1e6 / N_OPS, UNIT,
                            stats={k: (v * 1e6 / N_OPS if k in ("median", "p25", "p75", "min") else v)
                                   for k, v in s.items()}))
        elif label == "PyTorch eager":
            rows.append(na(label, UNIT, ctx.torch_missing))
        elif label == "tapekit tk.function":
            rows.append(na(label, UNIT, why_traced))
        else:
            rows.append(na(label, UNIT, why))
    checks = [check("tapekit / PyTorch eager", "tapekit", "PyTorch eager", 0.8, rows)]
    if tf_res is not None:   # issue 24: tk.function at most tf.function, each against its NumPy floor
        checks.append(check("tk.function / NumPy, at most tf.function's", "tapekit tk.function",
                            "NumPy by hand", round(tf_res["ratio"], 3), rows))
        notes.append(f"tf.function: {tf_res['ratio']:.3f}x its NumPy floor, timed by w1_tf.py in "
                     f"TensorFlow {tf_res['tensorflow']}'s interpreter right after this process's timing.")
    else:
        notes.append(f"tf.function N/A: {why_tf}")
    notes.append(f"Verified before timing: {'tapekit' if torch is None else 'tapekit and PyTorch'}: output "
                 f"and gradient equal the hand-written NumPy ones (rtol 1e-3) for the 1000-op chain and a "
                 f"40-op chain.")
    if cn is not None:
        notes.append("The 'tapekit' row runs with check_numerics off (the default); see the issue-7 hook "
                     "in w1_overhead.py for comparing against a tapekit without the feature.")
    return {"rows": rows, "checks": checks, "notes": notes, "baseline": "NumPy by hand"}
