"""Lesson 11's claims that need tapekit's internals (the lesson's cells use public API only)."""
import numpy as np

import tapekit as tk


def clip_gradient_as_in_the_lesson():
    @tk.custom_gradient
    def clip_gradient(x):
        def grad_fn(dy):
            return tk.clip_by_value(dy, -1.0, 1.0)
        return tk.identity(x), grad_fn
    return clip_gradient


def test_a_custom_gradient_is_one_node_on_the_tape():
    # "The tape records the whole function as one operation"
    clip_gradient = clip_gradient_as_in_the_lesson()
    x = tk.Variable([1.0, 2.0, 3.0], name="x")
    c = tk.constant([0.5, -3.0, 10.0])
    with tk.GradientTape(persistent=True) as tape:
        loss = tk.reduce_sum(c * clip_gradient(x))
    assert [r.op.name for r in tape.records] == ["custom_gradient(clip_gradient)", "multiply", "reduce_sum"]
    assert np.array_equal(tape.gradient(loss, x).numpy(), [0.5, -1.0, 1.0])
