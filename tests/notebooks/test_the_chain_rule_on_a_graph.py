"""Lesson 02's claims about the backward walk's steps, checked with the BackpropModel's
step internals (the lesson's own check cells use only public API). Each test re-states the
lesson's computation."""
import numpy as np
import pytest

import tapekit as tk


@pytest.fixture(autouse=True)
def _recording():
    with tk.display.option_context(record=True):   # values kept for the pictures, as in Jupyter
        yield


def test_the_steps_are_the_hand_computed_chain_rule():
    # Section 3: f = tanh(a*b + c) at a = 1.5, b = -2, c = 2.5; the steps are tanh, add,
    # multiply, and each "local" is the local derivative of section 2.
    a, b, c = 1.5, -2.0, 2.5
    u = a * b + c
    df_du = 1 - np.tanh(u) ** 2
    df_da, df_db, df_dc = df_du * b, df_du * a, df_du
    a_var, b_var, c_var = (tk.Variable(v, dtype=tk.float64) for v in (a, b, c))
    with tk.GradientTape(persistent=True) as tape:
        f = tk.tanh(a_var * b_var + c_var)
    steps = tk.widgets.BackpropModel(tape, f, [a_var, b_var, c_var])
    assert [s.op for s in steps.steps] == ["seed", "tanh", "add", "multiply"]
    assert np.isclose(float(steps.steps[1].contributions[0].local), df_du)
    mul_step = steps.steps[3]
    assert [float(x.local) for x in mul_step.contributions] == [b, a]
    assert np.allclose([float(x.sent) for x in mul_step.contributions], [df_da, df_db])
    assert np.allclose([float(g) for g in steps.gradients()], [df_da, df_db, df_dc])


def test_a_value_used_twice_adds_its_two_gradients():
    # Section 4: y = sin(x*w) + x at x = 2, w = 3. "At step 1, the add sends it 1 ... At step
    # 3 the multiply sends it cos(6)·3 = 2.8805 on top, and its total becomes 3.8805."
    x = tk.Variable(2.0, dtype=tk.float64)
    w = tk.Variable(3.0, dtype=tk.float64)
    with tk.GradientTape(persistent=True) as tape:
        y = tk.sin(x * w) + x
    fan = tk.widgets.BackpropModel(tape, y, [x, w]).steps
    assert fan[1].op == "add" and fan[3].op == "multiply"
    assert float(fan[1].contributions[1].total) == 1.0
    assert round(float(fan[3].contributions[0].sent), 4) == 2.8805
    assert round(float(fan[3].contributions[0].total), 4) == 3.8805
