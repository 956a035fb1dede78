"""Gradients of one library at the sweep's points: run with `m` = tensorflow or tapekit.

`run(m)` returns {key: list or None or "error: ..."} where key is "label|g=0|order" etc.
Used by sweep.py in the TensorFlow venv and, as `python compute.py` (reading nothing, printing
JSON), in tapekit's venv.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402


def _numpy(t):
    if t is None:
        return None
    if hasattr(t, "indices") and hasattr(t, "dense_shape"):   # TensorFlow's IndexedSlices (gather)
        import tensorflow as tf
        t = tf.convert_to_tensor(t)
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t, np.float64)


def run(m, recorded_ops=None):
    out = {}
    for label, src, inputs in cases.all_cases():
        fn = eval(src, {"m": m, "np": np})   # the sweep's own case table, not user text
        for gval in (0.0, 1.0):
            key = f"{label}|g={gval:g}|1"
            try:
                xs = [m.constant(a) for a in inputs]
                with m.GradientTape() as tape:
                    tape.watch(xs)
                    y = fn(*xs)
                    # g arrives at every element of y: the gradient of sum(y * g) (TensorFlow's
                    # output_gradients= fails on clip_by_global_norm's output, so not that)
                    total = m.reduce_sum(y * gval)
                if recorded_ops is not None:
                    recorded_ops.update(r.op.name for r in tape.records)
                grads = tape.gradient(total, xs)
                out[key] = [None if d is None else _numpy(d).ravel().tolist() for d in grads]
            except Exception as e:  # noqa: BLE001 - a raise is a result to compare too
                out[key] = f"error: {type(e).__name__}"
        if cases.second_order(label):
            key = f"{label}|g=1|2"
            try:
                xs = [m.constant(a) for a in inputs]
                with m.GradientTape(persistent=True) as outer:
                    outer.watch(xs)
                    with m.GradientTape() as inner:
                        inner.watch(xs)
                        y = fn(*xs)
                    if recorded_ops is not None:
                        recorded_ops.update(r.op.name for r in inner.records)
                    d = inner.gradient(y, xs[0])
                    s = m.reduce_sum(d)
                if recorded_ops is not None:
                    recorded_ops.update(r.op.name for r in outer.records)
                dd = outer.gradient(s, xs[0])
                out[key] = [None if dd is None else _numpy(dd).ravel().tolist()]
            except Exception as e:  # noqa: BLE001
                out[key] = f"error: {type(e).__name__}"
    return out


if __name__ == "__main__":   # tapekit's side
    import tapekit as tk
    ops = set()
    result = run(tk, ops)
    json.dump({"results": result, "ops": sorted(ops)}, sys.stdout)
