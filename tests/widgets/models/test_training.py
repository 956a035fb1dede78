"""tapekit.widgets.models.training: the TrainingLog's losses, epochs, metrics and gradient-norm
series (one per variable, keyed by its path)."""
import io

import numpy as np
import pytest

import tapekit as tk
from tapekit.widgets.models import TrainingLog


def test_training_log():
    log = TrainingLog()
    w = tk.Variable(np.ones(3, "float32"), name="w")
    for step in range(4):
        log.log(loss=tk.constant(1.0 / (step + 1)), grads=[(tk.constant([3.0, 4.0, 0.0]), w)],
                epoch=step // 2)
    assert log.steps == [0, 1, 2, 3] and log.losses[-1] == 0.25
    assert log.grad_norms == {"w:0": [5.0] * 4}
    assert log.epoch_losses() == {0: 0.75, 1: pytest.approx((1 / 3 + 1 / 4) / 2)}
    assert log.line(total=10) == "step 4/10  epoch 1  loss 0.25  |grad w:0| 5.0"
    log2 = TrainingLog()
    log2.log(loss=1.0, grads={"a": np.zeros(2)}, acc=0.5)
    assert log2.grad_norms == {"a": [0.0]} and log2.metrics == {"acc": [0.5]}


def test_monitor_keys_gradient_series_by_each_variables_path():
    """Issue 29: every Dense layer's weight is named `kernel`; the series are per path."""
    tk.random.set_seed(1)
    model = tk.Sequential([tk.layers.Dense(3), tk.layers.Dense(1)])
    x = tk.constant([[1.0, 2.0], [3.0, -1.0]])
    with tk.widgets.TrainingMonitor(total=2, file=io.StringIO()) as mon:
        for _ in range(2):
            with tk.GradientTape() as tape:
                loss = tk.reduce_mean(model(x) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
            mon.log(loss=loss, grads=zip(grads, model.trainable_variables))
    paths = [v.path for v in model.trainable_variables]
    assert len(set(paths)) == 4 and list(mon.log_.grad_norms) == paths
    for g, path in zip(grads, paths):      # each curve is its own variable's norms
        norms = mon.log_.grad_norms[path]
        assert len(norms) == 2
        assert norms[-1] == pytest.approx(float(np.linalg.norm(g.numpy())), rel=1e-6)
    # Two plain variables of one name: two series, never one.
    log = TrainingLog()
    a, b = tk.Variable(1.0, name="w"), tk.Variable(2.0, name="w")
    log.log(loss=1.0, grads=[(tk.constant(3.0), a), (tk.constant(4.0), b)])
    log.log(loss=1.0, grads=[(tk.constant(5.0), a), (tk.constant(6.0), b)])
    assert log.grad_norms == {"w:0": [3.0, 5.0], "w:0 (2)": [4.0, 6.0]}


def test_gradients_named_by_a_variables_list_and_an_empty_log():
    log = TrainingLog()
    assert log.line() == "no steps logged yet" and log.last_loss is None and len(log) == 0
    a, b = tk.Variable(1.0, name="a"), tk.Variable(2.0, name="b")
    log.log(grads=[tk.constant([6.0, 8.0]), None, tk.constant(1.0)], variables=[a, b, None])
    assert log.grad_norms == {"a:0": [10.0], "var2": [1.0]}     # None: no gradient, no series
    assert log.losses == [None] and log.last_loss is None
    log.log(loss=2.0, step=7)
    assert log.steps == [0, 7] and log.line() == "step 2  loss 2.0  |grad a:0| 10.0  |grad var2| 1.0"
