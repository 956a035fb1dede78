"""A replay on tensors (tensor_replay.py): outer tapes and accumulators record it as they
record eager code.
"""
import numpy as np

import tapekit as tk


def test_an_outer_tape_differentiates_through_a_replay_to_second_order():
    w = tk.Variable([1.0, -2.0, 0.5])

    def f(x):
        return tk.reduce_sum(tk.tanh(w * x) ** 2)
    traced = tk.function(f)
    x = tk.constant([0.3, 0.1, -0.7])
    traced(x)                                                   # trace; the next calls replay
    results = []
    for fn in (f, traced):
        with tk.GradientTape() as outer:
            outer.watch(x)
            with tk.GradientTape() as inner:
                inner.watch(x)
                y = fn(x)
            dx, dw = inner.gradient(y, [x, w])
            s = tk.reduce_sum(dx)
        results.append([y, dx, dw, outer.gradient(s, x)])
    for eager, replayed in zip(*results):
        np.testing.assert_array_equal(eager.numpy(), replayed.numpy())
    with tk.ForwardAccumulator(x, tk.constant([1.0, 0.0, 0.0])) as acc:
        y = traced(x)
    with tk.ForwardAccumulator(x, tk.constant([1.0, 0.0, 0.0])) as acc2:
        y2 = f(x)
    np.testing.assert_array_equal(acc.jvp(y).numpy(), acc2.jvp(y2).numpy())
    assert traced.trace_count == 1
