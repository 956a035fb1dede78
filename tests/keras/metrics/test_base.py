"""Metric, Mean, Sum and MeanMetricWrapper (metrics/base.py): state, weights, reset, tk.function."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.keras.metrics.base import divide_no_nan, reduce_to_samplewise


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


def test_a_subclass_keeps_its_state_in_named_zero_variables():
    class Count(tk.metrics.Metric):
        def __init__(self):
            super().__init__()
            self.n = self.add_variable(name="n")

        def update_state(self, values):
            self.n.assign_add(tk.cast(tk.size(values), "float32"))

        def result(self):
            return self.n

    c = Count()
    assert c.name == "count" and c.n.name.startswith("count/n")
    assert float(c([1, 2, 3])) == 3.0 and float(c([4])) == 4.0       # __call__ updates
    c.reset_state()
    assert float(c.result()) == 0.0
    with pytest.raises(ValueError, match=r"Count.add_variable: only initializer='zeros'"):
        c.add_variable(initializer="ones")
    with pytest.raises(NotImplementedError, match="Metric must implement update_state"):
        tk.metrics.Metric().update_state(1.0)


def test_divide_no_nan_reads_zero_where_the_divisor_is_zero():
    out = divide_no_nan(tk.constant([1.0, 2.0]), tk.constant([0.0, 4.0]))
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.5])


def test_reduce_to_samplewise_averages_over_the_axes_the_weights_lack():
    values = np.array([[1.0, 3.0], [5.0, 7.0]], np.float32)
    v, w = reduce_to_samplewise(values, None, tk.float32)
    np.testing.assert_array_equal(v.numpy(), [2.0, 6.0])
    assert w is None
    v, w = reduce_to_samplewise(values, [0.5, 2.0], tk.float32)          # per-sample weights
    np.testing.assert_array_equal(v.numpy(), [1.0, 12.0])
    np.testing.assert_array_equal(w.numpy(), [0.5, 2.0])
    v, w = reduce_to_samplewise(values, [[1.0, 0.0], [0.0, 1.0]], tk.float32)   # per entry
    np.testing.assert_array_equal(v.numpy(), [0.5, 3.5])
    np.testing.assert_array_equal(w.numpy(), [0.5, 0.5])
    with pytest.raises(ValueError, match=r"sample_weight of shape \(3,\) does not broadcast to "
                                         r"the values' shape \(2,\): give one weight per sample"):
        reduce_to_samplewise(values, [1.0, 2.0, 3.0], tk.float32)


def test_mean_metric_wrapper_passes_its_arguments_and_weights():
    m = tk.metrics.MeanMetricWrapper(tk.metrics.top_k_categorical_accuracy, k=2)
    assert m.name == "top_k_categorical_accuracy"
    y_pred = np.array([[0.1, 0.3, 0.6], [0.5, 0.4, 0.1]], np.float32)
    m.update_state(np.array([[1, 0, 0], [0, 0, 1]]), y_pred, sample_weight=[3.0, 1.0])
    assert value(m) == 0.0                                # class 0 and 2 not in the top 2
    m.update_state(np.array([[0, 1, 0]]), y_pred[:1])     # class 1 is: a hit, weight 1
    assert value(m) == pytest.approx(1 / 5)


def test_sum_adds_every_entry_of_multi_axis_values():
    # Keras 3.15 on TF 2.21: Sum().update_state([[1.704, -0.162, -2.142]]) reads -0.6 (the
    # entries' sum; Keras reduces with ops.sum for Sum); with per-sample weights on (2, 2)
    # values each row's sum is weighed: 2 * (1 + 2) + 0.5 * (3 + 4) = 9.5.
    s = tk.metrics.Sum()
    s.update_state(np.array([[1.704, -0.162, -2.142]], "float32"))
    assert value(s) == pytest.approx(-0.6, rel=1e-6)
    s.reset_state()
    s.update_state([[1.0, 2.0], [3.0, 4.0]], sample_weight=[2.0, 0.5])
    assert value(s) == 9.5
    m = tk.metrics.Mean()                    # Mean still averages a row: (2 * 1.5 + 0.5 * 3.5) / 2.5
    m.update_state([[1.0, 2.0], [3.0, 4.0]], sample_weight=[2.0, 0.5])
    assert value(m) == pytest.approx(4.75 / 2.5)


def test_a_masked_prediction_weighs_the_metrics_values_as_keras_3():
    """Issue 43, Keras 3.15: MeanAbsoluteError and BinaryAccuracy of a prediction whose
    _keras_mask pads step 1 of row 0 average the 3 steps with data."""
    p = tk.constant([[[1.0], [2.0]], [[3.0], [4.0]]])
    p._keras_mask = tk.constant([[True, False], [True, True]])
    np.testing.assert_allclose(float(tk.metrics.MeanAbsoluteError()(np.zeros((2, 2, 1)), p)),
                               2.6666667, rtol=1e-6)
    acc = tk.metrics.BinaryAccuracy()
    acc.update_state(np.array([[[1.0], [1.0]], [[0.0], [1.0]]]), p)
    np.testing.assert_allclose(float(acc.result()), 0.6666667, rtol=1e-6)
    m = tk.metrics.MeanAbsoluteError()
    m.update_state(np.zeros((2, 2, 1)), p, sample_weight=np.array([[1.0, 3.0], [0.5, 2.0]]))
    np.testing.assert_allclose(float(m.result()), (1 + 1.5 + 8) / 3.5, rtol=1e-6)


def test_a_metric_takes_any_text_as_its_name_as_keras_3():
    """Keras 3.15's Mean(name=...) takes any string, "/" included (layers refuse "/"), and
    fails on another type (an AttributeError deep inside); tapekit says so."""
    for name in ("平均 误差", "a/b", "x\n"):
        assert tk.metrics.Mean(name=name).name == name
    assert tk.metrics.Mean(name="").name == "mean"
    with pytest.raises(TypeError, match=r"Mean: name must be a string .* got int 3"):
        tk.metrics.Mean(name=3)
