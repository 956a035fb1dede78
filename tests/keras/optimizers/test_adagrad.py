"""Adagrad: Keras 3.15's update numbers and its accumulator slot."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import optimizers

from .test_nadam import steps


@pytest.mark.parametrize("kwargs, expected", [
    # Keras 3.15 gives these weights after each of the 3 steps
    ({}, [[0.9991548657417297, -1.9990465641021729, 0.4990122616291046],
          [0.9989882111549377, -1.9993215799331665, 0.49911054968833923],
          [0.9998456835746765, -1.9993215799331665, 0.49878522753715515]]),
    (dict(learning_rate=0.1, initial_accumulator_value=0.5),
     [[0.942264974117279, -1.918350338935852, 0.4057191014289856],
      [0.9307941794395447, -1.9421418905258179, 0.41510558128356934],
      [1.0061720609664917, -1.9421418905258179, 0.3838941156864166]]),
])
def test_adagrad_steps_as_keras(kwargs, expected):
    got, _ = steps(optimizers.Adagrad(**kwargs))
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_adagrad_accumulator_starts_at_its_initial_value():
    adagrad = optimizers.Adagrad(initial_accumulator_value=0.5)
    adagrad.build([tk.Variable(np.zeros(2, "float32"), name="w")])
    assert [v.name for v in adagrad.variables] == [
        "Adagrad/iteration:0", "Adagrad/learning_rate:0", "Adagrad/w/accumulator:0"]
    assert adagrad.variables[-1].numpy().tolist() == [0.5, 0.5]
    config = adagrad.get_config()
    assert (config["name"], config["initial_accumulator_value"], config["epsilon"]) == (
        "adagrad", 0.5, 1e-07)                          # Keras 3.15's config
    with pytest.raises(ValueError, match="initial_accumulator_value must be"):
        optimizers.Adagrad(initial_accumulator_value=-1)
