"""Lesson 01's claims that need tapekit's internals to check (the lesson's own check cells
use only public API). Each test re-states the lesson's computation."""
import numpy as np

import tapekit as tk


def test_the_picture_shows_pow_with_local_derivative_6():
    # "the derivative of pow (d(x²)/dx = 2x) turns that into 2 * x * 1 = 6 at x"
    x = tk.Variable(3.0, name="x")
    with tk.display.option_context(record=True), tk.GradientTape(persistent=True) as tape:
        y = x ** 2   # values kept for the picture, as in Jupyter
    steps = tk.widgets.BackpropModel(tape, y, x).steps
    assert [s.op for s in steps] == ["seed", "pow"]
    assert float(y) == 9.0 and float(steps[1].grad_in) == 1.0
    assert float(steps[1].contributions[0].local) == 6.0 == float(steps[1].contributions[0].total)


class _CountSteps(tk.TapeObserver):
    def __init__(self):
        self.steps = []

    def backward_step(self, tape, record, g, sent, grads):
        self.steps.append(record)


def test_one_backward_pass_serves_every_source():
    # "One backward pass gave *both* gradients": each record (pow, pow, add) visited once.
    x = tk.Variable(2.0, name="x")
    y = tk.Variable(3.0, name="y")
    counter = _CountSteps()
    with tk.GradientTape() as tape:
        tape.add_observer(counter)
        z = x ** 2 + y ** 3
    grads = tape.gradient(z, {"x": x, "pair": [y, (x,)]})
    assert [float(grads["x"]), float(grads["pair"][0]), float(grads["pair"][1][0])] == [4.0, 27.0, 4.0]
    assert len(counter.steps) == 3
