"""Lesson 02b's claims about `tk.testing.check_grads` (section 4), checked with what the lesson
does not show: the inputs the function is called with, the default step, and the report of a
wrong gradient. Each test re-states the lesson's computation."""
import inspect

import numpy as np
import pytest

import tapekit as tk


def test_check_grads_converts_the_inputs_to_float64_and_steps_by_1e_6():
    # "it converts the inputs to float64, computes every partial derivative by central
    # differences (with ε = 10^-6 ...)": Python floats in, float64 tensors seen by f.
    seen = set()

    def f_abc(a, b, c):
        seen.add((a.dtype, b.dtype, c.dtype))
        return tk.tanh(a * b + c)

    assert tk.testing.check_grads(f_abc, 1.5, -2.0, 2.5) is None
    assert seen == {(np.dtype("float64"),) * 3}
    assert inspect.signature(tk.testing.check_grads).parameters["eps"].default == 1e-6


def test_a_wrong_gradient_raises_an_assertion_error_naming_the_input():
    # "raises an AssertionError that names the input and the largest error": a custom
    # gradient with the factor b forgotten, as in the lesson's forgot_tanh slip.
    a0, b0, c0 = 1.5, -2.0, 2.5

    @tk.custom_gradient
    def mul_wrong(a, b):
        return a * b, lambda up: (up, up * a)      # d(ab)/da should be b, not 1

    with pytest.raises(AssertionError) as caught:
        tk.testing.check_grads(lambda a, b, c: tk.tanh(mul_wrong(a, b) + c), a0, b0, c0,
                               modes=("rev",))
    rows = {line.split()[2]: line.split()[3] for line in str(caught.value).splitlines()
            if line.strip().startswith("1 ")}
    assert rows == {"a": "FAIL", "b": "ok", "c": "ok"}
    assert "max abs err" in str(caught.value)


def test_check_gradient_calls_any_number_the_tape_gradient():
    # Section 4: check_gradient's report says "tape gradient" for a number worked out by hand.
    a0, b0, c0 = 1.5, -2.0, 2.5
    check = tk.testing.check_gradient("a", np.array(b0), lambda t: tk.tanh(t * b0 + c0), a0)
    assert not check.ok and "tape gradient" in str(check)
