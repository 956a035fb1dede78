"""The widgets' plain-Python models (no ipywidgets needed)."""
import subprocess
import sys

import numpy as np
import pytest

import tapekit as tk
from tapekit.widgets.models import (BackpropModel, ExplorerModel, InspectorModel, TrainingLog)


@pytest.fixture
def record():
    with tk.display.option_context(record=True):
        yield


def _scalar_tape():
    x = tk.Variable(2.0, name="x")
    w = tk.Variable(3.0, name="w")
    with tk.GradientTape(persistent=True) as tape:
        y = tk.sin(x * w) + x
    return tape, y, x, w


def _mlp_tape():
    rng = np.random.default_rng(0)
    W = tk.Variable(rng.normal(size=(3, 2)).astype("float32"), name="W")
    b = tk.Variable(np.zeros(2, "float32"), name="b")
    x = tk.constant(rng.normal(size=(4, 3)).astype("float32"))
    with tk.GradientTape(persistent=True) as tape:
        h = tk.tanh(tk.matmul(x, W) + b)          # b broadcasts over the batch
        loss = tk.reduce_mean(tk.square(h - 0.5))
    return tape, loss, W, b


def test_import_tapekit_does_not_import_ipywidgets():
    code = "import sys, tapekit; import tapekit.widgets.models; print('ipywidgets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_steps_follow_reversed_record_order_with_chain_rule_numbers(record):
    tape, y, x, w = _scalar_tape()
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
    tape, y, x, w = _scalar_tape()
    m = BackpropModel(tape, y, [x, w])
    expected = tape.gradient(y, [x, w])
    for got, exp in zip(m.gradients(), expected):
        np.testing.assert_array_equal(got, exp.numpy())
    tape, loss, W, b = _mlp_tape()
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
    with tk.GradientTape() as outer:
        outer.watch(W)
        with tk.ForwardAccumulator(W, tk.ones_like(W)):
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
    tape, y, *_ = _scalar_tape()
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
        tape, y, *_ = _scalar_tape()
    with pytest.raises(ValueError, match=r"set_options\(record=True\)"):
        BackpropModel(tape, y)
    with tk.display.option_context(record=True):
        tape, y, *_ = _scalar_tape()
        with pytest.raises(ValueError, match="not recorded on this tape"):
            BackpropModel(tape, tk.constant(1.0))
        with pytest.raises(TypeError, match="one tk.Tensor"):
            BackpropModel(tape, [y, y])


def test_inspector_nodes_and_finite_difference_check(record):
    tape, loss, W, b = _mlp_tape()
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
    tape, y, x, w = _scalar_tape()
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


def test_explorer_one_input():
    m = ExplorerModel(lambda x: tk.sin(x) * x, (-3, 3), samples=31)
    assert m.xs.shape == (31,)
    np.testing.assert_allclose(m.fs, np.sin(m.xs) * m.xs, atol=1e-12)
    np.testing.assert_allclose(m.dfs, np.cos(m.xs) * m.xs + np.sin(m.xs), atol=1e-12)
    np.testing.assert_allclose(m.d2fs, 2 * np.cos(m.xs) - m.xs * np.sin(m.xs), atol=1e-12)
    p = m.set_point(1.0)
    assert p["df"] == pytest.approx(np.cos(1) + np.sin(1))
    (x0, t0), (x1, t1) = m.tangent()
    assert (x0, x1) == (-3.0, 3.0)
    assert (t1 - t0) / 6 == pytest.approx(p["df"])
    assert t0 + (1 - x0) * p["df"] == pytest.approx(p["f"])
    assert m.set_point(99)["x"] == 3.0
    assert str(ExplorerModel(lambda x: 2 * x, (0, 1), x=0.5)) == \
        "f(0.5) = 1.0; f' = 2.0 (tape), f'' = 0.0 (nested tapes)"


def test_explorer_two_inputs_and_errors():
    m = ExplorerModel(lambda x, y: x * x * y + 3 * y, (-1, 1), (-2, 2), x=0.5, y=1.0, samples=5)
    assert m.grid.shape == (5, 5)
    assert m.grid[0, 0] == pytest.approx(1 * -2 + 3 * -2)    # f(xs[0], ys[0])
    p = m.point()
    assert (p["dfdx"], p["dfdy"]) == (pytest.approx(1.0), pytest.approx(3.25))
    with pytest.raises(ValueError, match="one number"):
        ExplorerModel(lambda x: tk.stack([x, x]), (-1, 1))
    with pytest.raises(ValueError, match="low < high"):
        ExplorerModel(lambda x: x, (1, 0))


def test_training_log():
    log = TrainingLog()
    w = tk.Variable(np.ones(3, "float32"), name="w")
    for step in range(4):
        log.log(loss=tk.constant(1.0 / (step + 1)), grads=[(tk.constant([3.0, 4.0, 0.0]), w)],
                epoch=step // 2)
    assert log.steps == [0, 1, 2, 3] and log.losses[-1] == 0.25
    assert log.grad_norms == {"w:0": [5.0] * 4}
    assert log.epoch_losses() == {0: 0.75, 1: pytest.approx((1 / 3 + 1 / 4) / 2)}
    assert log.line(total=10) == "step 4/10  epoch 1  loss 0.25  |grad w:0| 5.0"
    log2 = TrainingLog()
    log2.log(loss=1.0, grads={"a": np.zeros(2)}, acc=0.5)
    assert log2.grad_norms == {"a": [0.0]} and log2.metrics == {"acc": [0.5]}


def test_inspector_check_is_the_testing_checker(record):
    # one gradient checker: the inspector's result is tk.testing's GradientCheck
    from tapekit.testing import GradientCheck
    tape, y, x, w = _scalar_tape()
    c = InspectorModel(tape, y).check("s0")
    assert isinstance(c, GradientCheck) and c.input == "s0" and c.ok
    assert c.stats["abs_error"] < 1e-4


def test_monitor_keys_gradient_series_by_each_variables_path():
    """Issue 29: every Dense layer's weight is named `kernel`; the series are per path."""
    import io
    tk.random.set_seed(1)
    model = tk.Sequential([tk.layers.Dense(3), tk.layers.Dense(1)])
    x = tk.constant([[1.0, 2.0], [3.0, -1.0]])
    with tk.widgets.TrainingMonitor(total=2, file=io.StringIO()) as mon:
        for _ in range(2):
            with tk.GradientTape() as tape:
                loss = tk.reduce_mean(model(x) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
            mon.log(loss=loss, grads=zip(grads, model.trainable_variables))
    paths = [v.path for v in model.trainable_variables]
    assert len(set(paths)) == 4 and list(mon.log_.grad_norms) == paths
    for g, path in zip(grads, paths):      # each curve is its own variable's norms
        norms = mon.log_.grad_norms[path]
        assert len(norms) == 2
        assert norms[-1] == pytest.approx(float(np.linalg.norm(g.numpy())), rel=1e-6)
    # Two plain variables of one name: two series, never one.
    log = TrainingLog()
    a, b = tk.Variable(1.0, name="w"), tk.Variable(2.0, name="w")
    log.log(loss=1.0, grads=[(tk.constant(3.0), a), (tk.constant(4.0), b)])
    log.log(loss=1.0, grads=[(tk.constant(5.0), a), (tk.constant(6.0), b)])
    assert log.grad_norms == {"w:0": [3.0, 5.0], "w:0 (2)": [4.0, 6.0]}


@pytest.mark.parametrize("name", ["cost_$a_b_c$_usd", "$\\undefinedmacro{$", "$$", "a$b"])
def test_monitor_draws_names_as_plain_text_not_tex(name):
    """A `$` in a variable's name or the title is a dollar sign: matplotlib's mathtext would
    read `$\\undefinedmacro{$` as TeX and raise in the middle of training."""
    from tapekit.widgets import plots
    log = TrainingLog()
    w = tk.Variable(1.0, name=name)
    for k in range(3):
        log.log(loss=1.0 / (k + 1), grads=[(tk.constant(float(k)), w)])
    png = plots.monitor_png(log, 4, f"train {name}")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib
    with matplotlib.rc_context(plots.RC):
        import matplotlib.pyplot as plt
        fig = plt.figure()
        t = fig.text(0, 0, name)
        assert t.get_parse_math() is False
        plt.close(fig)
