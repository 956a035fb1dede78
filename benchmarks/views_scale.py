"""Every view of a tape at 1,000, 10,000 and 100,000 records (issue 43: each within about a
second at 100,000 records), and the error of a 5,001-input op.

Two tapes per size, recorded with display recording on (what a notebook does):
- chain: `h = tanh(h * w + b)` repeated, a loss at the end (a long chain of ops);
- wide: add_n over 5,000 Variables, then `sin(h) * 1.0` repeated up to the size (one op
  with 5,000 inputs).
Views: the notebook display (`_repr_mimebundle_`: SVG, PNG and text), `tk.show` with a
target, `tape.explain` (words, and its picture), the text and HTML tables, the memory
report, NodeInspector (built, and its stored PNG), `explore` (with and without step=True),
BackpropStepper (built, and one click on "next"), GraphView. Python time in the kernel,
`dot` included; the median of `--repeat` runs on the same tape (the first view of a tape
also pays for reading it once: "snapshot" is that read on its own). The machine is shared
and noisy: compare medians, not single runs.

usage: python benchmarks/views_scale.py [--quick] [--repeat N] [--sizes 1000,10000,100000]
"""
import statistics
import sys
import time

import numpy as np

import tapekit as tk


def chain_tape(n):
    w = tk.Variable(np.full(4, 0.9, np.float32), name="w")
    b = tk.Variable(np.zeros(4, np.float32), name="b")
    h = tk.constant(np.linspace(-1, 1, 4, dtype=np.float32))
    with tk.display.option_context(record=True):
        with tk.GradientTape(persistent=True) as tape:
            for _ in range(max(n - 1, 3) // 3):
                h = tk.tanh(h * w + b)
            loss = tk.reduce_sum(h)
    return tape, loss, [w, b]


def wide_tape(n, width=5000):
    xs = [tk.Variable(np.full(2, 0.5 + k / width, np.float32), name=f"v{k}") for k in range(width)]
    with tk.display.option_context(record=True):
        with tk.GradientTape(persistent=True) as tape:
            h = tk.add_n(xs)
            for _ in range(max(n - 2, 0) // 2):
                h = tk.sin(h) * 1.0
            loss = tk.reduce_sum(h)
    return tape, loss, xs


def views(tape, loss, sources):
    """(name, function) for every view; each returns the size of what it made."""
    widgets = tk.widgets

    def stepper_click():
        stepper = widgets.BackpropStepper(tape, loss, sources)
        t = time.perf_counter()
        stepper.next_button.click()
        return f"click {1e3 * (time.perf_counter() - t):.0f} ms"

    return [
        ("notebook display", lambda: _bytes(tape._repr_mimebundle_())),
        ("tk.show(tape, loss, sources)", lambda: _bytes(tk.show(tape, loss, sources)._repr_mimebundle_())),
        ("tape.explain (words)", lambda: len(tape.explain(loss, sources[0]).message)),
        ("tape.explain (picture)", lambda: _bytes(tape.explain(loss, sources[0])._repr_mimebundle_())),
        ("text table", lambda: len(tk.show(tape).text)),
        ("HTML table", lambda: len(tk.show(tape).to_html())),
        ("memory report", lambda: len(str(tape.memory()))),
        ("NodeInspector", lambda: len(widgets.NodeInspector(tape, loss, sources).dropdown.options)),
        ("NodeInspector + PNG", lambda: _bytes(widgets.NodeInspector(tape, loss, sources)._repr_mimebundle_())),
        ("explore", lambda: len(widgets.explore(tape, loss, sources).graph.svg)),
        ("explore(step=True)", lambda: len(widgets.explore(tape, loss, sources, step=True).graph.svg)),
        ("BackpropStepper + 1 click", stepper_click),
        ("GraphView.from_tape", lambda: len(widgets.GraphView.from_tape(tape, loss, sources).svg)),
    ]


def _bytes(bundle):
    return f"{sum(len(v) for v in bundle.values() if isinstance(v, str)) // 1024} KB"


def median_time(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def op_error():
    values = [tk.ones(2) for _ in range(5001)]
    values[4217] = tk.ones(3)
    for name, join in (("stack", tk.stack), ("add_n", tk.add_n), ("concat", lambda v: tk.concat(v, 0))):
        if name == "concat":
            values[4217] = tk.ones((2, 2))
        try:
            join(values)
        except (ValueError, TypeError) as e:
            print(f"  {name} of 5,001 inputs: {len(str(e))} characters: {str(e)[:110]}...")


def main(sizes=(1000, 10_000, 100_000), repeat=3):
    import ipywidgets  # noqa: F401 - imported once, before the clock starts
    import matplotlib  # noqa: F401
    print(f"tapekit {tk.__version__}; python {sys.version.split()[0]}; median of {repeat}")
    for make in (chain_tape, wide_tape):
        for n in sizes:
            t = time.perf_counter()
            tape, loss, sources = make(n)
            recorded = time.perf_counter() - t
            t = time.perf_counter()
            tk.display.snapshot(tape)
            print(f"{make.__name__[:-5]}: {len(tape.record_list)} records ({recorded:.1f} s to record; "
                  f"snapshot {1e3 * (time.perf_counter() - t):.0f} ms)")
            for name, fn in views(tape, loss, sources):
                dt, out = median_time(fn, repeat)
                print(f"  {name:<30}{dt:8.2f} s   {out}")
            tk.widgets.GraphView.close_all()
    print("errors")
    op_error()


if __name__ == "__main__":
    args = sys.argv[1:]
    sizes = (1000, 10_000) if "--quick" in args else (1000, 10_000, 100_000)
    if "--sizes" in args:
        sizes = tuple(int(s) for s in args[args.index("--sizes") + 1].split(","))
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 3
    main(sizes, repeat)
