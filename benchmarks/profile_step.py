"""Where a W2 MLP training step spends its time outside the matmuls (issue 33).

The step is mlp_step.py's (784-256-128-10, relu, batch 128, mean sparse softmax
cross-entropy, SGD lr 0.01), eager with `v.assign_sub(lr * g)` and compiled with
tk.function + optimizers.SGD (train_common.tapekit_variants). For each:

1. time it, the hand-written NumPy step and the 8 matmuls alone, interleaved (harness);
2. run it under cProfile and print the functions with the largest own time (tottime),
   each as a share of the profiled step. NumPy's ufuncs (matmul among them) are not
   Python functions: cProfile counts their time in the function that calls them, so read
   the shares of the functions that do not call matmul as overhead, and subtract the
   matmuls' measured time from their callers. cProfile adds about 1 us to every Python
   call it sees, so shares of small, often-called functions are upper bounds;
3. time the pieces of per-op work one by one (`unit_costs`: the minimum of many timeit
   repeats, which a loaded machine disturbs least), to multiply by their calls per step.

    python benchmarks/profile_step.py [--steps 300] [--top 25]
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import cProfile  # noqa: E402
import gc  # noqa: E402
import io  # noqa: E402
import pstats  # noqa: E402
import sys  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import tapekit as tk  # noqa: E402

from harness import interleaved  # noqa: E402
from mlp_step import eight_matmuls, make_inputs, numpy_grads, tk_loss  # noqa: E402
from train_common import numpy_sgd, tapekit_variants  # noqa: E402


def steps():
    """{label: zero-argument step} for the eager and the compiled tapekit steps."""
    init, x, y = make_inputs()
    tx, ty = tk.constant(x), tk.constant(y)
    out = {}
    for label, make, why in tapekit_variants(tk, tk_loss, init):
        if label.startswith("tapekit eager (") or label.startswith("tapekit tk.function"):
            step, _ = make()
            out[label] = (lambda step=step: step(tx, ty))
    eager = out["tapekit eager (assign_sub)"]

    def no_gc():   # what the cyclic garbage collector costs the eager step (its tape's objects)
        gc.disable()
        try:
            eager()
        finally:
            gc.enable()
    out["tapekit eager, gc off during the step"] = no_gc
    params = {k: v.copy() for k, v in init.items()}
    out["NumPy by hand"] = lambda: numpy_sgd(params, numpy_grads(params, x, y)[1])
    out["NumPy: its 8 matmuls alone"] = eight_matmuls(init, x, y)
    return out


# (file, function) -> the unit_costs piece it is, for the calls-per-step x cost estimate
COUNTED = {("tensor.py", "shape"): "Tensor.shape (a TensorShape per access)",
           ("registry.py", "run"): "Op.run(add) of two (4,) tensors",
           ("backprop.py", "is_floating"): "is_floating (per source of gradient)",
           ("cross_entropy.py", "_check_labels"): "_check_labels, 128 labels (sparse cross-entropy)",
           ("tensor.py", "_update"): "with threading.Lock(): (a function with an empty block)",
           ("replay.py", "_update"): "with threading.Lock(): (a function with an empty block)"}


def profile(fn, n, top):
    """cProfile of n calls: (total seconds, [(share, ncalls, tottime per step, where)], counts),
    counts = {(file, function): calls per step} for COUNTED."""
    for _ in range(20):
        fn()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        fn()
    prof.disable()
    stats = pstats.Stats(prof, stream=io.StringIO())
    total = stats.total_tt
    rows = []
    counts = {}
    for (path, line, func), (cc, nc, tt, ct, _) in stats.stats.items():
        key = (os.path.basename(path), func)
        if key in COUNTED:
            counts[key] = counts.get(key, 0) + nc / n
        where = f"{os.path.relpath(path, os.path.dirname(HERE)) if path.startswith('/') else path}:{line}({func})"
        rows.append((tt / total, nc / n, tt / n, where))
    rows.sort(reverse=True)
    return total / n, rows[:top], counts


def unit_costs():
    """{piece: seconds per call}: what one op call, one check or one update costs, alone."""
    import threading
    import timeit

    import numpy as np

    from tapekit.backprop import is_floating
    from tapekit.ops.cross_entropy import _check_labels
    from tapekit.ops.registry import OPS

    init, x, y = make_inputs()
    small = tk.constant(np.ones((4,), np.float32))
    t = tk.constant(np.ones((128, 256), np.float32))
    labels = y.astype(np.int32)
    d = np.full_like(init["W1"], 0.01)
    dt = tk.constant(d)
    v = tk.Variable(init["W1"].copy())
    p = init["W1"].copy()
    lock = threading.Lock()

    def locked():
        with lock:
            pass
    add = OPS["add"]
    pieces = {
        "Tensor.shape (a TensorShape per access)": lambda: t.shape,
        "ndarray.shape": lambda: t._value.shape,
        "tk add of two (4,) tensors, no tape (dispatch + wrap)": lambda: small + small,
        "np.add of two (4,) arrays": lambda: np.add(small._value, small._value),
        "Op.run(add) of two (4,) tensors": lambda: add.run((small, small), {}),
        "with threading.Lock(): (a function with an empty block)": locked,
        "a function with an empty block, no lock": lambda: None,
        "is_floating (per source of gradient)": lambda: is_floating(t, "source", 0),
        "_check_labels, 128 labels (sparse cross-entropy)": lambda: _check_labels(labels, 10, "x"),
        "Variable.assign_sub(d), d a tensor, W1 784x256 (a new array, checks, lock)": lambda: v.assign_sub(dt),
        "p -= d, W1 784x256 (NumPy, in place)": lambda: np.subtract(p, d, out=p),
        "p - d, W1 784x256 (NumPy, a new array)": lambda: p - d,
    }

    def taped():
        with tk.GradientTape() as tape:
            tape.watch(small)
            z = small + small
        return tape.gradient(z, small)

    pieces["GradientTape: one add recorded + gradient"] = taped
    out = {}
    for name, fn in pieces.items():
        number = 200 if "784" in name else 20000
        out[name] = min(timeit.repeat(fn, number=number, repeat=7)) / number
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--reps", type=int, default=200)
    args = ap.parse_args(argv)
    fns = steps()
    stats = interleaved(fns, reps=args.reps, time_budget=30)
    print(f"tapekit {tk.__version__}; medians over interleaved repetitions (ms per step):")
    base = stats["NumPy by hand"]["median"]
    for label, s in stats.items():
        print(f"   {label:<42} {s['median'] * 1e3:7.3f}  x{s['median'] / base:5.2f} NumPy")
    mm = stats["NumPy: its 8 matmuls alone"]["median"]
    costs = unit_costs()
    print("\n== unit costs (minimum over 7 timeit repeats), us per call:")
    for name, sec in costs.items():
        print(f"   {sec * 1e6:9.3f}  {name}")
    for label in fns:
        if not label.startswith("tapekit") or "gc off" in label:
            continue
        t = stats[label]["median"]
        print(f"\n== {label}: {t * 1e3:.3f} ms a step, of which the 8 matmuls {mm * 1e3:.3f} ms "
              f"({100 * mm / t:.0f}%), the rest {1e3 * (t - mm):.3f} ms")
        per_step, rows, counts = profile(fns[label], args.steps, args.top)
        print(f"   under cProfile: {per_step * 1e3:.3f} ms a step; own time (tottime) by function:")
        print(f"   {'share':>6} {'calls/step':>10} {'us/step':>8}  function")
        for share, calls, tt, where in rows:
            print(f"   {100 * share:5.1f}% {calls:10.1f} {tt * 1e6:8.1f}  {where}")
        print("   calls per step x unit cost (the lock: its cost over an empty function's):")
        for key, per in sorted(counts.items()):
            unit = costs[COUNTED[key]]
            if "Lock" in COUNTED[key]:
                unit -= costs["a function with an empty block, no lock"]
            print(f"   {key[0]}:{key[1]:<22} {per:6.1f} calls  x {unit * 1e6:6.3f} us = {per * unit * 1e6:7.1f} us "
                  f"({100 * per * unit / t:.1f}% of the step)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
