"""Lesson 11b's claims that its cells do not check themselves."""
import warnings

import numpy as np

import tapekit as tk


def test_softplus_never_overflows_its_exponent():
    # "computed in a rearranged form ... whose exponent is never positive": no overflow warning,
    # at 1000 as at -1000, and the value is x itself at the top.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = tk.nn.softplus(tk.constant([-1000.0, 0.0, 1000.0])).numpy()
    assert y[0] == 0.0 and np.isclose(y[1], np.log(2.0)) and y[2] == 1000.0


def test_a_stable_custom_gradient_is_one_op_on_the_tape():
    # Lesson 11's "the tape records the whole function as one operation", for 11b's softplus.
    @tk.custom_gradient
    def stable_softplus(x):
        y = tk.maximum(x, 0.0) + tk.math.log1p(tk.exp(-tk.abs(x)))
        return y, lambda dy: dy * tk.sigmoid(x)

    x = tk.Variable([-1000.0, 0.0, 1000.0])
    with tk.GradientTape() as tape:
        y = stable_softplus(x)
    assert [r.op.name for r in tape.records] == ["custom_gradient(stable_softplus)"]
    assert np.allclose(tape.gradient(y, x).numpy(), [0.0, 0.5, 1.0])
