"""Python calls per op in the MLP training step (issue 48): a count, not a time.

Seconds move with the machine and its load; the number of Python functions the interpreter
enters per recorded op does not. This counts them for one eager MLP step (mlp_step.py's
model: 784-256-128-10, relu, batch 128, `v.assign_sub(lr * g)`), phase by phase, with
`sys.setprofile`: a "call" event is a Python function entered (a frame: a function, a
method, a generator resumed), a "c_call" one a builtin or C method called from Python
(NumPy's ufuncs among them). The step runs three times first, so caches and lazy imports
are warm; the counted step is the fourth. The same inputs give the same counts on every run
(tests never rely on it; `benchmarks/README.md` keeps the counts each change reported).

    python benchmarks/calls_per_op.py            # the table
    python benchmarks/calls_per_op.py --json     # the same as JSON
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import mlp_step  # noqa: E402


class Counter:
    """Counts profile events while active; `phase` names where they go."""

    def __init__(self):
        self.counts = {}
        self.phase = None

    def __call__(self, frame, event, arg):
        if event in ("call", "c_call"):
            key = (self.phase, event)
            self.counts[key] = self.counts.get(key, 0) + 1

    def count(self, phase, fn):
        self.phase = phase
        sys.setprofile(self)
        try:
            return fn()
        finally:
            sys.setprofile(None)


def count_mlp_step(lr=0.01):
    import tapekit as tk

    init, x, y = mlp_step.make_inputs()
    p = {k: tk.Variable(v, name=k) for k, v in init.items()}
    xs, ys = tk.constant(x), tk.constant(y)
    names = sorted(p)
    counter, records = Counter(), {}

    def step(count):
        run = counter.count if count else (lambda phase, fn: fn())
        with tk.GradientTape() as tape:
            loss = run("forward", lambda: mlp_step.tk_loss(tk, p, xs, ys))
        records["forward"] = len(tape.records)
        grads = run("backward", lambda: tape.gradient(loss, [p[k] for k in names]))

        def update():
            for k, g in zip(names, grads):
                p[k].assign_sub(lr * g)
        run("update", update)
        records["update"] = len(names)     # one write per variable
        return float(loss.numpy())

    for _ in range(3):
        step(False)
    step(True)
    rows = []
    for phase, ops in (("forward", records["forward"]), ("backward", records["forward"]),
                       ("update", records["update"])):
        py = counter.counts.get((phase, "call"), 0)
        c = counter.counts.get((phase, "c_call"), 0)
        rows.append({"phase": phase, "ops": ops, "python_calls": py, "c_calls": c,
                     "python_per_op": round(py / ops, 1)})
    return rows


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    rows = count_mlp_step()
    total = sum(r["python_calls"] for r in rows)
    if "--json" in argv:
        print(json.dumps({"rows": rows, "python_calls": total, "numpy": np.__version__}, indent=1))
        return
    print(f"MLP eager step, Python calls (NumPy {np.__version__}, Python {sys.version.split()[0]})")
    print(f"{'phase':<9} {'ops':>4} {'Python calls':>13} {'per op':>7} {'C calls':>8}")
    for r in rows:
        what = "records" if r["phase"] != "update" else "writes"
        print(f"{r['phase']:<9} {r['ops']:>4} {r['python_calls']:>13} {r['python_per_op']:>7} "
              f"{r['c_calls']:>8}   ({r['ops']} {what})")
    print(f"{'step':<9} {'':>4} {total:>13}")


if __name__ == "__main__":
    main()
