"""Same-process A/B of conv2d's im2col matrix kept for the filter gradient (issue 48, 3).

A: `tapekit.ops.conv.PATCHES` off (limit 0: the filter gradient builds the matrix again);
B: on (its default limit). The CNN step (cnn_step.py: conv 3x3, max-pool, dense; SGD),
eager or under tk.function, one model for both; blocks of 3 steps alternate in a random
order per block, CPU time (`time.process_time`) per block, the paired median of B/A is
printed. The two variants give the same numbers bit for bit (checked first).

    python benchmarks/ab_conv_patches.py [BLOCKS] [eager|function] [null]

`null` runs B with the cache off too: the ratio it prints is the day's noise floor.
"""
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import cnn_step  # noqa: E402


def main(argv):
    import tapekit as tk
    from tapekit.ops import conv

    blocks = next((int(a) for a in argv if a.isdigit()), 400)
    compiled, null = "function" in argv, "null" in argv
    default = conv.PATCHES.limit / 2 ** 20
    init, x, y = cnn_step.make_inputs()
    xs, ys = tk.constant(x), tk.constant(y)
    p = {k: tk.Variable(v.copy(), name=k) for k, v in init.items()}
    names = sorted(p)

    def step(xs, ys):
        with tk.GradientTape() as tape:
            loss = cnn_step.tk_loss(tk, p, xs, ys)
        grads = tape.gradient(loss, [p[k] for k in names])
        for k, g in zip(names, grads):
            p[k].assign_sub(0.01 * g)
        return loss
    run_step = tk.function(step) if compiled else step

    def variant(limit):
        def run():
            conv.PATCHES.set_limit(limit)
            return run_step(xs, ys)
        return run
    run_a, run_b = variant(0), variant(0 if null else default)
    for run in (run_a, run_b):      # warm (and trace); then the same numbers both ways
        run(), run()
    start = {k: v.numpy() for k, v in p.items()}
    losses = []
    for run in (run_a, run_b):
        for k, v in p.items():
            v.assign(start[k])
        losses.append([float(run()) for _ in range(3)])
        losses.append({k: v.numpy() for k, v in p.items()})
    assert losses[0] == losses[2], losses
    for k in p:
        np.testing.assert_array_equal(losses[1][k], losses[3][k])
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
    conv.PATCHES.set_limit(default)
    what = f"CNN {'tk.function' if compiled else 'eager'} step{' (null A/B)' if null else ''}"
    print(f"{what}: CPU ms per step, median A (off) {np.median(times[run_a]) * 1e3:.3f}, B (on) "
          f"{np.median(times[run_b]) * 1e3:.3f}; paired median B/A {np.median(ratios):.3f} "
          f"({blocks} blocks)")


if __name__ == "__main__":
    main(sys.argv[1:])
