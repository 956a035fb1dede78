"""The backward walk lesson 12 prints: short, and its rule callers built once by defop."""
import inspect
import warnings

import numpy as np
import pytest

import tapekit as tk
from tapekit import backprop
from tapekit.ops import registry
from tapekit.ops.registry import defop


@pytest.fixture(autouse=True)
def _ops_defined_here_are_forgotten(monkeypatch):
    # These tests define throwaway ops; the op table (tests/contracts/test_ops_table.py) must not see them.
    monkeypatch.setattr(registry, "OPS", dict(registry.OPS))


def test_backward_is_short_enough_to_print_in_a_lesson():
    lines = inspect.getsource(backprop.backward).splitlines()
    assert len(lines) <= 60, f"backprop.backward is {len(lines)} lines; lesson 12 prints it"


def test_defop_builds_the_rule_caller_once():
    with_rules = defop("test_walk_square", lambda x: x * x, save="x",
                       vjp=[lambda g, ans, x: 2 * x * g])
    without = defop("test_walk_floor", np.floor)
    assert callable(with_rules.call_vjp)
    assert without.call_vjp is None


def test_two_input_rule_with_attributes_gets_them():
    # x * y * scale: the rules must see `scale` (an attribute, not an input).
    op = defop("test_walk_scaled_mul", lambda x, y, scale: x * y * scale, args="x y", save="x y",
               vjp=[lambda g, ans, x, y, scale: g * y * scale,
                    lambda g, ans, x, y, scale: g * x * scale])
    x, y = tk.Variable([1.0, 2.0]), tk.Variable([3.0, -1.0])
    with tk.GradientTape() as tape:
        z = tk.reduce_sum(op(x, y, scale=3.0))
    gx, gy = tape.gradient(z, [x, y])
    np.testing.assert_allclose(gx.numpy(), [9.0, -3.0])   # y * 3
    np.testing.assert_allclose(gy.numpy(), [3.0, 6.0])    # x * 3


def test_only_inputs_on_a_path_to_a_source_have_their_rule_called():
    calls = []
    op = defop("test_walk_pair", lambda x, y: x * y, args="x y", save="x y",
               vjp=[lambda g, ans, x, y: calls.append("x") or g * y,
                    lambda g, ans, x, y: calls.append("y") or g * x])
    x, c = tk.Variable(2.0), tk.constant(5.0)
    with tk.GradientTape() as tape:
        z = op(x, c)
    assert float(tape.gradient(z, x)) == 5.0
    assert calls == ["x"]


def test_an_input_used_twice_gets_the_sum_of_its_cotangents():
    x = tk.Variable(3.0)
    with tk.GradientTape() as tape:
        y = tk.sin(x) * x
    expected = np.cos(3.0) * 3.0 + np.sin(3.0)
    np.testing.assert_allclose(float(tape.gradient(y, x)), expected, rtol=1e-6)
    eps = 1e-3
    fd = ((3 + eps) * np.sin(3 + eps) - (3 - eps) * np.sin(3 - eps)) / (2 * eps)
    np.testing.assert_allclose(expected, fd, rtol=1e-5)


def test_an_exploding_gradient_is_silent_like_tensorflow():
    x = tk.Variable(np.float32(1e30))
    with tk.GradientTape() as tape, np.errstate(over="ignore"):
        y = x * x * x                     # inf forward too: that warning is NumPy's own
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = tape.gradient(y, x)
    assert np.isinf(float(g))


def test_reachable_can_stop_at_integer_values():
    x = tk.constant([1.5, 2.5])
    with tk.GradientTape() as tape:
        tape.watch(x)
        i = tk.cast(x, tk.int32)
        y = tk.cast(i, tk.float32) * 2.0
    records = tape.records
    assert y._tid in backprop.reachable(records, [x._tid])
    through = backprop.reachable(records, [x._tid], floating_only=True)
    assert i._tid not in through and y._tid not in through
