"""Nadam: Keras 3.15's update numbers, its slots and the product it keeps after them."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import optimizers

GRADS = [np.array([0.5, -1.0, 2.0]), np.array([0.1, 0.3, -0.2]), np.array([-1.0, 0.0, 0.7])]
START = np.array([1.0, -2.0, 0.5])


def steps(optimizer):
    var = tk.Variable(START.astype("float32"), name="w")
    out = []
    for g in GRADS:
        optimizer.apply_gradients([(tk.constant(g.astype("float32")), var)])
        out.append(var.numpy().tolist())
    return out, optimizer


@pytest.mark.parametrize("kwargs, expected", [
    # Keras 3.15 gives these weights after each of the 3 steps
    ({}, [[0.99893718957901, -1.9989372491836548, 0.4989372193813324],
          [0.998665988445282, -1.9991618394851685, 0.49896717071533203],
          [0.9995760917663574, -1.9991124868392944, 0.4985509216785431]]),
    (dict(learning_rate=0.05, beta_1=0.8),
     [[0.9447430968284607, -1.944743037223816, 0.4447430670261383],
      [0.9284045696258545, -1.9555416107177734, 0.44484230875968933],
      [0.9792662858963013, -1.952368974685669, 0.42060598731040955]]),
])
def test_nadam_steps_as_keras(kwargs, expected):
    got, _ = steps(optimizers.Nadam(**kwargs))
    np.testing.assert_allclose(got, expected, rtol=2e-6)


def test_nadam_keeps_keras_3s_variables_and_config():
    _, nadam = steps(optimizers.Nadam())
    # Keras 3.15: iteration, learning_rate, w_momentum, w_velocity, then "variable" (u_product)
    assert [v.name for v in nadam.variables] == [
        "Nadam/iteration:0", "Nadam/learning_rate:0", "Nadam/w/momentum:0",
        "Nadam/w/velocity:0", "Nadam/u_product:0"]
    u = [0.9 * (1 - 0.5 * 0.96 ** t) for t in (1, 2, 3)]
    assert float(nadam._u_product) == pytest.approx(np.prod(u), rel=1e-6)
    config = nadam.get_config()
    assert (config["name"], config["beta_1"], config["beta_2"], config["epsilon"]) == (
        "nadam", 0.9, 0.999, 1e-07)                      # Keras 3.15's config
    again = optimizers.Nadam.from_config(config)
    assert (again.name, again.beta_1) == ("Nadam", 0.9)
    assert tk.optimizers.get("nadam").__class__ is optimizers.Nadam


def test_nadam_in_a_traced_step_replays_the_product():
    var = tk.Variable(START.astype("float32"))
    nadam = optimizers.Nadam(0.05)

    @tk.function
    def step(g):
        nadam.apply_gradients([(g, var)])
    for g in GRADS:
        step(tk.constant(g.astype("float32")))
    eager, _ = steps(optimizers.Nadam(0.05))
    np.testing.assert_allclose(var.numpy(), eager[-1], rtol=1e-6)


@pytest.mark.parametrize("kwargs", [dict(beta_1=1.0), dict(epsilon=-1.0)])
def test_nadam_bad_hyperparameters_are_refused(kwargs):
    with pytest.raises(ValueError, match="Nadam"):
        optimizers.Nadam(**kwargs)
