"""The passes (passes.py), through tk.function and directly on steps.
"""
import numpy as np

import tapekit as tk
from tapekit import layers


def test_building_inside_the_first_call_does_not_draw_again():
    # The initializer's draw is dead code after tracing: replays must not consume randomness.
    def run(traced):
        tk.random.set_seed(1)
        layer = layers.Dense(3)
        fn = tk.function(lambda x: layers.Dropout(0.5)(layer(x), training=True)) if traced else \
            (lambda x: layers.Dropout(0.5)(layer(x), training=True))
        return [fn(tk.ones((2, 4))).numpy() for _ in range(3)]
    np.testing.assert_array_equal(run(False), run(True))


def test_steps_on_constants_are_computed_once():
    w = tk.Variable([1.0, -2.0, 3.0])

    @tk.function
    def grad(x):
        with tk.GradientTape() as tape:
            loss = tk.reduce_mean(w * x)
        return tape.gradient(loss, w)
    x = tk.constant([2.0, 4.0, 8.0])
    np.testing.assert_allclose(grad(x).numpy(), [2 / 3, 4 / 3, 8 / 3], rtol=1e-6)
    np.testing.assert_allclose(grad(x * 2).numpy(), [4 / 3, 8 / 3, 16 / 3], rtol=1e-6)  # replayed
    ((program,),) = grad.programs.values()
    # The seed (ones) spread over the mean's 3 inputs and divided by 3 is a constant, and
    # the loss itself is not returned: what is left is g * x.
    names = [line.split("= ")[-1].split("(")[0] for line in str(program).splitlines()[1:]
             if " = " in line]
    assert names == ["multiply"], str(program)
