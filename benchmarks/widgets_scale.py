"""How the widgets scale with the tape (issue 17): build time and step time of the
BackpropStepper at 10, 200 and 1,000 records, the other widgets' build time at 5,000 ops,
and the stepper's memory at 2,000 and 4,000 records.

Python time only (what a click waits for in the kernel; the browser adds its own, see
tests/ui/test_stepper_ui.py). Medians of several steps; the machine is shared and noisy.

usage: python benchmarks/widgets_scale.py [--quick]
"""
import gc
import statistics
import sys
import time
import tracemalloc

import numpy as np

import tapekit as tk


def chain_tape(n_records):
    """A loss at the end of about `n_records` records: h = tanh(h * w + b), repeated."""
    w = tk.Variable(np.full(4, 0.9, np.float32), name="w")
    b = tk.Variable(np.zeros(4, np.float32), name="b")
    h = tk.constant(np.linspace(-1, 1, 4, dtype=np.float32))
    with tk.display.option_context(record=True):
        with tk.GradientTape(persistent=True) as tape:
            for _ in range(max(n_records - 1, 3) // 3):
                h = tk.tanh(h * w + b)
            loss = tk.reduce_sum(h)
    return tape, loss, [w, b]


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def stepper_row(n, steps):
    tape, loss, sources = chain_tape(n)
    build, stepper = timed(lambda: tk.widgets.BackpropStepper(tape, loss, sources))
    times = []
    for _ in range(steps):
        t, _ = timed(stepper.next_button.click)      # what a click on "next" runs
        times.append(t)
    return len(tape._records), build, statistics.median(times), max(times)


def stepper_memory(n):
    tape, loss, sources = chain_tape(n)
    gc.collect()
    tracemalloc.start()
    model = tk.widgets.BackpropModel(tape, loss, sources)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del model
    return peak


def main(quick=False):
    print(f"tapekit {tk.__version__}; python {sys.version.split()[0]}")
    print("BackpropStepper: build, and one step (a click on next), Python time")
    print(f"  {'records':>8} {'build s':>9} {'step ms (median)':>17} {'step ms (max)':>14}")
    for n in (10, 200, 1000):
        records, build, med, worst = stepper_row(n, 5 if quick else 20)
        print(f"  {records:>8} {build:>9.2f} {med * 1e3:>17.1f} {worst * 1e3:>14.1f}")
    n = 5000
    tape, loss, sources = chain_tape(n)
    print(f"widgets on a {len(tape._records)}-record tape: build time (s)")
    for name, make in [("BackpropStepper", lambda: tk.widgets.BackpropStepper(tape, loss, sources)),
                       ("NodeInspector", lambda: tk.widgets.NodeInspector(tape, loss, sources)),
                       ("GraphView", lambda: tk.widgets.GraphView.from_tape(tape, loss, sources)),
                       ("explore", lambda: tk.widgets.explore(tape, loss, sources))]:
        print(f"  {name:<16} {timed(make)[0]:.2f}")
    if not quick:
        small, big = stepper_memory(2000), stepper_memory(4000)
        print(f"BackpropModel peak memory: 2,000 records {small / 1e6:.1f} MB, 4,000 records "
              f"{big / 1e6:.1f} MB (ratio {big / small:.2f}; linear is 2)")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
