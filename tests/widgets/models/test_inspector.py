"""tapekit.widgets.models.inspector: every node's numbers, and the finite-difference check of a
node's gradient (which catches a wrong gradient and says when it cannot replay)."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.widgets.models import InspectorModel

from ..shared import mlp_tape_and_weights, scalar_tape


def test_inspector_nodes_and_finite_difference_check(record):
    tape, loss, W, b = mlp_tape_and_weights()
    insp = InspectorModel(tape)
    assert insp.node_ids[:2] == ["s0", "s1"] and insp.target_node == insp.node_ids[-1]
    info = insp.node("s0")
    assert info.shape == (3, 2) and info.dtype == "float32"
    np.testing.assert_allclose(info.grad, tape.gradient(loss, W).numpy(), rtol=1e-6)
    for nid in insp.node_ids:
        if insp.grads.get(nid) is None:
            continue
        c = insp.check(nid)
        assert c.ok, str(c)
        assert "OK" in str(c)
    assert "cannot check" in str(insp.check("s2"))          # the constant input: no gradient
    n_matmul = next(n for n in insp.node_ids if insp.node(n).op == "matmul")
    assert insp.node(n_matmul).inputs == ("s2", "s0")


def test_inspector_catches_a_wrong_gradient(record):
    tape, y, x, w = scalar_tape()
    insp = InspectorModel(tape, y)
    insp.grads["s0"] = insp.grads["s0"] * 1.5            # as if a VJP rule were wrong
    c = insp.check("s0")
    assert not c.ok and "MISMATCH" in str(c)
    assert c.numerical == pytest.approx(1 + 3 * np.cos(6.0), rel=1e-5)


def test_inspector_says_when_it_cannot_replay(record):
    @tk.custom_gradient
    def square(x):
        return x * x, lambda g: g * 2.0 * x

    x = tk.Variable(1.5, name="x")
    with tk.GradientTape(persistent=True) as tape:
        y = square(x)
    c = InspectorModel(tape, y).check("s0")
    assert not c.ok and str(c).startswith("s0: cannot check: replaying custom_gradient(square)")


def test_constants_that_no_rule_saves_are_shown_and_replayed(record):
    # add saves neither input; display recording keeps the constant's value anyway, for
    # the picture and for the inspector's finite-difference replay.
    x = tk.Variable([1.0, 2.0], name="x")
    c = tk.constant([0.5, -1.0])
    with tk.GradientTape(persistent=True) as tape:
        y = tk.reduce_sum(tk.square(x + c))
    m = InspectorModel(tape, y)
    (const,) = [n for n in m.graph.nodes if n.kind == "constant"]
    assert const.value.tolist() == [0.5, -1.0]
    check = m.check("s0")
    assert check.ok, str(check)
    np.testing.assert_allclose(check.tape, [3.0, 2.0])


def test_inspector_check_is_the_testing_checker(record):
    # one gradient checker: the inspector's result is tk.testing's GradientCheck
    from tapekit.testing import GradientCheck
    tape, y, x, w = scalar_tape()
    c = InspectorModel(tape, y).check("s0")
    assert isinstance(c, GradientCheck) and c.input == "s0" and c.ok
    assert c.stats["abs_error"] < 1e-4
