"""tapekit.widgets.models.backprop: the backward pass as steps, in backprop's order, with the
chain rule's numbers at each (hand-derived), ending on tape.gradient's answer."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.widgets.models import BackpropModel

from ..shared import mlp_tape_and_weights, scalar_tape


def test_steps_follow_reversed_record_order_with_chain_rule_numbers(record):
    tape, y, x, w = scalar_tape()
    m = BackpropModel(tape, y)
    assert [s.record for s in m.steps] == [None, 2, 1, 0]
    assert [s.node for s in m.steps] == ["n2", "n2", "n1", "n0"]
    assert m.current.op == "seed" and float(m.current.grad_in) == 1.0
    s = m.go_to(3)                                   # n0 = multiply(x, w)
    g = np.cos(6.0)
    assert s.args == ("s0", "s1")
    assert float(s.grad_in) == pytest.approx(g, rel=1e-6)
    (cx, cw) = s.contributions
    assert (cx.node, float(cx.local), float(cw.local)) == ("s0", 3.0, 2.0)
    assert float(cx.sent) == pytest.approx(3 * g, rel=1e-6)
    assert float(cx.total) == pytest.approx(1 + 3 * g, rel=1e-6)   # 1 arrived earlier from add
    text = str(s)
    assert "step 3: n0 = multiply(s0, s1) = 6.0" in text
    assert "0.9602 x local dn0/ds0 = 3.0 -> sends 2.8805" in text


def test_last_step_equals_tape_gradient(record):
    tape, y, x, w = scalar_tape()
    m = BackpropModel(tape, y, [x, w])
    expected = tape.gradient(y, [x, w])
    for got, exp in zip(m.gradients(), expected):
        np.testing.assert_array_equal(got, exp.numpy())
    tape, loss, W, b = mlp_tape_and_weights()
    m = BackpropModel(tape, loss, [W, b])
    expected = tape.gradient(loss, [W, b])
    assert m.steps[-1].grads["s0"].shape == (3, 2)
    for got, exp in zip(m.gradients(), expected):
        np.testing.assert_allclose(got, exp.numpy(), rtol=1e-6)
        assert got.dtype == exp.numpy().dtype
    assert not m.steps[-1].elementwise          # matmul: the chain rule is a VJP, not a product


def test_the_stepper_inside_an_active_tape_records_nothing_there(record):
    # Its steps come from the real backward walk, in raw mode: a tape or accumulator active
    # around the widget must not receive the stepper's arithmetic (here the rule of W * W
    # reads W under W's tape id, which both of them follow).
    W = tk.Variable([1.0, 2.0], name="W")
    with tk.GradientTape(persistent=True) as tape:
        y = tk.reduce_sum(W * W * W)
    expected = tape.gradient(y, W).numpy()
    tangent = tk.ones_like(W)     # made outside: inside `outer` it would be recorded (W is watched)
    with tk.GradientTape() as outer:
        outer.watch(W)
        with tk.ForwardAccumulator(W, tangent):
            m = BackpropModel(tape, y, [W])
    assert outer._records == []
    np.testing.assert_array_equal(m.gradients()[0], expected)
    # W is used three times: after each step, its total is everything sent to it so far.
    sent = {}
    for s in m.steps[1:]:
        for c in s.contributions:
            sent[c.node] = sent.get(c.node, 0) + c.sent
        for c in s.contributions:
            np.testing.assert_allclose(c.total, sent[c.node], rtol=1e-6)
    assert m.steps[-1].grads["s0"].tolist() == [3.0, 12.0]


def test_navigation(record):
    tape, y, *_ = scalar_tape()
    m = BackpropModel(tape, y)
    assert m.step().index == 1 and m.step().index == 2
    assert m.back().index == 1
    assert m.reset().index == 0 and m.back().index == 0
    assert m.go_to(-1).index == 3 and m.at_end and m.step().index == 3
    assert set(m.grads_so_far) == {"n2", "n1", "n0", "s0", "s1"}
    assert m.go_to(1).done == ("n2",)
    with pytest.raises(IndexError):
        m.go_to(9)


def test_clear_errors():
    with tk.display.option_context(record=False):
        tape, y, *_ = scalar_tape()
    with pytest.raises(ValueError, match=r"set_options\(record=True\)"):
        BackpropModel(tape, y)
    with tk.display.option_context(record=True):
        tape, y, *_ = scalar_tape()
        with pytest.raises(ValueError, match="not recorded on this tape"):
            BackpropModel(tape, tk.constant(1.0))
        with pytest.raises(TypeError, match="one tk.Tensor"):
            BackpropModel(tape, [y, y])


def test_a_long_walk_makes_each_step_only_when_it_is_read(record):
    # 100,000 records: 27 s, a Step and its local derivatives made for every record up front
    from ..shared import chain_tape
    tape, loss, sources = chain_tape(1000)
    m = BackpropModel(tape, loss, sources)
    assert len(m) == 1001 and m.steps._made == {}
    assert m.node_at(0) == "n999" and m.node_at(1000) == "n0"
    step = m.go_to(500)
    assert list(m.steps._made) == [500] and step.node == m.node_at(500) == "n500"
    assert m.steps[500] is step and m.steps[-1].index == 1000 and len(m.steps[1:4]) == 3
    for got, want in zip(m.gradients(), tape.gradient(loss, sources)):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)
    with pytest.raises(IndexError):
        m.steps[1001]
