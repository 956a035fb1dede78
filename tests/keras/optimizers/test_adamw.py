"""AdamW: Adam with Keras 3.15's decoupled weight decay."""
import numpy as np
import pytest

from tapekit import optimizers

from .test_nadam import steps


@pytest.mark.parametrize("kwargs, expected", [
    # Keras 3.15 gives these weights after each of the 3 steps
    ({}, [[0.9989960193634033, -1.9989919662475586, 0.4989980161190033],
          [0.9981889724731445, -1.998556137084961, 0.4984033703804016],
          [0.9984724521636963, -1.9982174634933472, 0.49775850772857666]]),
    (dict(learning_rate=0.05, weight_decay=0.1, amsgrad=True),
     [[0.9450006484985352, -1.9400005340576172, 0.44750040769577026],
      [0.9001242518424988, -1.9089083671569824, 0.4156308174133301],
      [0.9099962115287781, -1.882835865020752, 0.38140925765037537]]),
])
def test_adamw_steps_as_keras(kwargs, expected):
    got, _ = steps(optimizers.AdamW(**kwargs))
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_adamw_slots_and_config_are_keras_3s():
    _, adamw = steps(optimizers.AdamW(amsgrad=True))
    assert [v.name for v in adamw.variables][2:] == [
        "AdamW/w/momentum:0", "AdamW/w/velocity:0", "AdamW/w/velocity_hat:0"]
    config = adamw.get_config()
    # Keras 3.15's: name "adam_w", weight_decay 0.004 by default
    assert (config["name"], config["weight_decay"], config["amsgrad"]) == ("adam_w", 0.004, True)
    assert optimizers.AdamW.from_config(config).weight_decay == 0.004
    with pytest.raises(ValueError, match="Argument `weight_decay` must be a float"):
        optimizers.AdamW(weight_decay=None)
