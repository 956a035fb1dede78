"""InverseTimeDecay (optimizers/schedules.py): Keras 3.15's rates, config and saving."""
import numpy as np
import pytest

import tapekit as tk

STEPS = [0, 1, 5, 10, 25]


@pytest.mark.parametrize("staircase, expected", [
    # Keras 3.15 gives these rates at steps 0, 1, 5, 10, 25
    (False, [0.10000000149011612, 0.0952381044626236, 0.07999999821186066,
             0.06666667014360428, 0.04444444552063942]),
    (True, [0.10000000149011612, 0.10000000149011612, 0.10000000149011612,
            0.06666667014360428, 0.05000000074505806]),
])
def test_inverse_time_decay_as_keras(staircase, expected):
    lr = tk.optimizers.schedules.InverseTimeDecay(0.1, 10, 0.5, staircase=staircase)
    assert [float(lr(tk.constant(s))) for s in STEPS] == expected


def test_inverse_time_decay_drives_an_optimizer_and_saves(tmp_path):
    lr = tk.optimizers.schedules.InverseTimeDecay(0.1, 1, 1.0)
    w = tk.Variable(0.0)
    opt = tk.optimizers.SGD(lr)
    for _ in range(3):
        opt.apply([tk.constant(1.0)], [w])
    assert float(w) == pytest.approx(-(0.1 + 0.05 + 0.1 / 3), rel=1e-6)
    model = tk.Sequential([tk.Input((1,)), tk.layers.Dense(1)])
    model.compile(optimizer=tk.optimizers.Adam(lr), loss="mse")
    model.fit(np.ones((2, 1)), np.ones((2, 1)), epochs=1, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = tk.models.load_model(tmp_path / "m.keras").optimizer._schedule
    assert type(loaded) is tk.optimizers.schedules.InverseTimeDecay
    # Keras 3.15's get_config of the schedule
    assert vars(loaded) == {"initial_learning_rate": 0.1, "decay_steps": 1,
                            "decay_rate": 1.0, "staircase": False, "name": "InverseTimeDecay"}


def test_inverse_time_decay_refuses_zero_steps():
    with pytest.raises(ValueError, match="decay_steps must be > 0"):
        tk.optimizers.schedules.InverseTimeDecay(0.1, 0, 0.5)
