"""tk.regularizers: penalties by hand, their gradients (2*l2*w, l1*sign(w)), and fit adding them."""
import numpy as np
import pytest

import tapekit as tk


def test_penalties_by_hand():
    w = tk.constant([[1.0, -2.0], [0.5, 0.0]])
    assert float(tk.regularizers.L1(0.1)(w)) == pytest.approx(0.1 * 3.5)
    assert float(tk.regularizers.L2(0.1)(w)) == pytest.approx(0.1 * 5.25)
    assert float(tk.regularizers.L1L2(l1=0.2, l2=0.3)(w)) == pytest.approx(0.2 * 3.5 + 0.3 * 5.25)
    assert float(tk.regularizers.L1L2()(w)) == 0.0
    assert tk.regularizers.get("l1").l1 == 0.01 and tk.regularizers.get("l2").l2 == 0.01
    assert tk.regularizers.get({"class_name": "L2", "config": {"l2": 0.5}}).l2 == 0.5
    assert tk.regularizers.L2(0.1).get_config() == {"l2": 0.1}


def test_gradients_of_the_penalties():
    w = tk.Variable([[1.0, -2.0], [0.5, -0.25]])
    with tk.GradientTape(persistent=True) as tape:
        l1 = tk.regularizers.L1(0.1)(w)
        l2 = tk.regularizers.L2(0.1)(w)
    np.testing.assert_allclose(tape.gradient(l1, w).numpy(), 0.1 * np.sign(w.numpy()), rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(l2, w).numpy(), 2 * 0.1 * w.numpy(), rtol=1e-6)


def test_layer_losses_and_fit_include_the_penalty():
    layer = tk.layers.Dense(2, kernel_initializer="ones", bias_initializer="ones",
                            kernel_regularizer="l2", bias_regularizer=tk.regularizers.L1(0.5))
    layer(np.ones((1, 3), np.float32))
    assert [float(x) for x in layer.losses] == pytest.approx([0.01 * 6, 0.5 * 2])
    # fit's loss = mse + penalties: with zero error, the logged loss is the penalty alone
    tk.random.set_seed(0)
    model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(
        1, kernel_initializer="ones", use_bias=False, kernel_regularizer=tk.regularizers.L2(0.1))])
    x = np.eye(3, dtype=np.float32)
    model.compile(optimizer=tk.optimizers.SGD(0.0), loss="mse")
    hist = model.fit(x, np.ones((3, 1), np.float32), epochs=1, batch_size=3, verbose=0)
    assert hist.history["loss"][0] == pytest.approx(0.1 * 3)
    # and the gradient step shrinks the weights by lr * 2 * l2 * w
    model.compile(optimizer=tk.optimizers.SGD(0.5), loss="mse")
    model.fit(x, np.ones((3, 1), np.float32), epochs=1, batch_size=3, verbose=0)
    np.testing.assert_allclose(model.layers[0].kernel.numpy(), np.full((3, 1), 1 - 0.5 * 0.2), rtol=1e-6)


def test_regularizers_on_conv_and_recurrent_weights():
    conv = tk.layers.Conv1D(1, 2, kernel_initializer="ones", kernel_regularizer=tk.regularizers.L1(1.0))
    conv(np.zeros((1, 4, 3), np.float32))
    assert float(conv.losses[0]) == 6.0                       # 2 * 3 * 1 weights of |1|
    rnn = tk.layers.SimpleRNN(2, recurrent_initializer="ones",
                              recurrent_regularizer=tk.regularizers.L2(1.0))
    rnn(np.zeros((1, 3, 1), np.float32))
    assert float(rnn.losses[0]) == 4.0


def test_bad_factors_and_names():
    with pytest.raises(ValueError, match="L2: l2 must be a number >= 0"):
        tk.regularizers.L2(-1)
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier: 'l3'. Known names: 'L1', "):
        tk.layers.Dense(2, kernel_regularizer="l3")
