"""How long tapekit.display takes on a tape of thousands of ops (issue 4: "a few seconds").

Two tapes, recorded with display recording on (what a notebook does):
- loop: 2,500 steps of `h = tanh(h * w + b)` on shape (8,): 7,500 ops, a repeated block;
- mixed: 5,000 ops cycling through 7 different ops, with irregular runs;
then `gradient`, and the time for each display step; and `tape.explain` on a chain of
200,000 ops: the GraphModel (summarised
to max_nodes=100), its DOT text, the text table, and the SVG (when `dot` exists).

usage: python benchmarks/display_5000.py [n_ops]
"""
import shutil
import sys
import time

import numpy as np

import tapekit as tk


def loop_tape(n_ops):
    w, b = tk.Variable(np.full(8, 0.9, np.float32), name="w"), tk.Variable(np.zeros(8, np.float32), name="b")
    h = tk.constant(np.linspace(-1, 1, 8, dtype=np.float32))
    with tk.GradientTape() as tape:
        for _ in range(n_ops // 3):
            h = tk.tanh(h * w + b)
        loss = tk.reduce_sum(h)
    tape.gradient(loss, [w, b])
    return tape, loss, [w, b]


def mixed_tape(n_ops):
    x = tk.Variable(np.linspace(0.1, 1, 8, dtype=np.float32), name="x")
    ops = [tk.sin, tk.cos, tk.tanh, tk.sigmoid, lambda t: t * 0.5, lambda t: t + 1.0, tk.abs]
    rng = np.random.default_rng(0)
    with tk.GradientTape() as tape:
        h = x
        for k in range(n_ops - 1):
            h = ops[int(rng.integers(len(ops))) if k % 3 else k % len(ops)](h)
        loss = tk.reduce_sum(h)
    tape.gradient(loss, x)
    return tape, loss, [x]


def timed(label, fn):
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    print(f"  {label:<34}{dt * 1000:9.1f} ms")
    return out, dt


def main(n_ops=5000):
    tk.display.set_options(record=True)
    for make in (loop_tape, mixed_tape):
        tape, loss, sources = make(n_ops)
        print(f"{make.__name__}: {len(tape.records)} records")
        total = 0.0
        view, dt = timed("model (tk.show, max_nodes=100)", lambda: tk.show(tape, loss, sources))
        total += dt
        src, dt = timed("DOT text", lambda: view.source)
        total += dt
        text, dt = timed("text table", lambda: view.text)
        total += dt
        print(f"  {'-> summarised DOT, from the tape':<34}{total * 1000:9.1f} ms "
              f"({len(view.model.nodes)} nodes, {len(src)} characters)")
        if shutil.which("dot"):
            svg, dt = timed("SVG (dot)", view.svg)
            print(f"  {'-> whole notebook display':<34}{(total + dt) * 1000:9.1f} ms")
        _, dt = timed("model, all nodes (max_nodes=None)", lambda: tk.show(tape, max_nodes=None).model)
    # explain on a long chain (issue 14: 22 s at 200k ops once; the unit test has no clock)
    x = tk.Variable(1.0)
    with tk.GradientTape(persistent=True) as tape:
        y = x
        for _ in range(200_000):
            y = y * 1.0
    print("chain: 200000 records")
    e, _ = timed("tape.explain (words)", lambda: tape.explain(y, x))
    timed("its picture (view + mimebundle)", lambda: e.view()._repr_mimebundle_())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
