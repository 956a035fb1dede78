"""Same-process A/B of donation in `tk.function` programs that write (issue 48).

A: the training step traced with no donation at all (what main did before issue 48 for a
program that writes variables); B: the same step with passes.donors as it is (ufunc steps
and updates write into dead arrays this call made). Both run the same numbers (checked
bit for bit first), then blocks of 3 calls alternate in a random order per block; CPU time
(`time.process_time`) per block, the paired median of B/A is printed.

    python benchmarks/ab_donation.py [BLOCKS] [mlp|cnn] [sgd|adam] [null]

`null` makes B a copy of A: the ratio it prints is the day's noise floor.
"""
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import cnn_step  # noqa: E402
import mlp_step  # noqa: E402


def make_step(tk, workload, adam, donate):
    from tapekit.compiler import program

    init, x, y = workload.make_inputs()
    xs, ys = tk.constant(x), tk.constant(y)
    p = {k: tk.Variable(v.copy(), name=k) for k, v in init.items()}
    names = sorted(p)
    opt = tk.optimizers.Adam(1e-3) if adam else None

    @tk.function
    def step(xs, ys):
        with tk.GradientTape() as tape:
            loss = workload.tk_loss(tk, p, xs, ys)
        grads = tape.gradient(loss, [p[k] for k in names])
        if adam:
            opt.apply_gradients(zip(grads, [p[k] for k in names]))
        else:
            for k, g in zip(names, grads):
                p[k].assign_sub(0.01 * g)
        return loss

    real = program.donors
    program.donors = real if donate else (lambda *args: {})
    try:        # traced (and its program made) with or without donation
        step(xs, ys)
        step(xs, ys)
    finally:
        program.donors = real
    return (lambda: step(xs, ys)), p, step


def main(argv):
    import tapekit as tk

    blocks = next((int(a) for a in argv if a.isdigit()), 400)
    workload = cnn_step if "cnn" in argv else mlp_step
    adam, null = "adam" in argv, "null" in argv
    run_a, p_a, step_a = make_step(tk, workload, adam, donate=False)
    run_b, p_b, step_b = make_step(tk, workload, adam, donate=not null)
    for _ in range(3):
        assert run_a().numpy() == run_b().numpy()
    for k in p_a:
        np.testing.assert_array_equal(p_a[k].numpy(), p_b[k].numpy())
    donated = [sum(prog.code.count("written into") for progs in s.programs.values() for prog in progs)
               for s in (step_a, step_b)]
    ratios, times = [], {run_a: [], run_b: []}
    for _ in range(blocks):
        took = {}
        for run in random.sample([run_a, run_b], 2):
            t0 = time.process_time()
            run(), run(), run()
            took[run] = time.process_time() - t0
        for run in took:
            times[run].append(took[run] / 3)
        ratios.append(took[run_b] / took[run_a])
    what = f"{workload.NAME} {'Adam' if adam else 'SGD'} step{' (null A/B)' if null else ''}"
    print(f"{what}: lines written into A {donated[0]}, B {donated[1]}; CPU ms per step, median "
          f"A {np.median(times[run_a]) * 1e3:.3f}, B {np.median(times[run_b]) * 1e3:.3f}; "
          f"paired median B/A {np.median(ratios):.3f} ({blocks} blocks)")


if __name__ == "__main__":
    main(sys.argv[1:])
