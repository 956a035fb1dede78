"""Metric, Mean, Sum and MeanMetricWrapper (metrics/base.py): state, weights, reset, tk.function."""
import numpy as np
import pytest

import tapekit as tk


def value(m):
    r = m.result()
    assert r.dtype == tk.float32 and r.shape == ()
    return float(r)


def test_mean_and_sum_weights_and_reset():
    m = tk.metrics.Mean()
    assert value(m) == 0.0                              # empty: 0, not NaN
    m.update_state([1.0, 3.0, 5.0, 7.0], sample_weight=[1, 1, 0, 0])
    assert value(m) == 2.0
    m.update_state([[10.0, 20.0]], sample_weight=[2.0])  # the row's mean 15, weight 2
    assert value(m) == pytest.approx((4 + 30) / 4)
    m.reset_state()
    assert value(m) == 0.0 and [float(v) for v in m.variables] == [0.0, 0.0]
    s = tk.metrics.Sum()
    s.update_state([1.0, 3.0, 5.0, 7.0], sample_weight=[1, 1, 0, 0])
    assert value(s) == 4.0
    assert all(isinstance(v, tk.Variable) and not v.trainable for v in m.variables + s.variables)


def test_state_counts_inside_tk_function():
    """A compiled step updates the metric at every replay, and matches the eager metric."""
    compiled, eager = tk.metrics.SparseCategoricalAccuracy(), tk.metrics.SparseCategoricalAccuracy()
    loss_c, loss_e = tk.metrics.Mean(), tk.metrics.Mean()

    @tk.function
    def step(y, logits):
        compiled.update_state(y, logits)
        loss_c.update_state(tk.reduce_sum(logits, axis=-1))
        return compiled.result()

    rng = np.random.default_rng(0)
    for k in range(4):
        logits = rng.normal(size=(6, 3)).astype(np.float32)
        y = rng.integers(0, 3, size=6)
        got = step(tk.constant(y), tk.constant(logits))
        eager.update_state(y, logits)
        loss_e.update_state(logits.sum(-1))
        assert float(got) == pytest.approx(value(eager))
        assert value(compiled) == pytest.approx(value(eager))
        assert value(loss_c) == pytest.approx(value(loss_e), rel=1e-6)
    assert step.trace_count == 1
    compiled.reset_state()
    assert value(compiled) == 0.0
