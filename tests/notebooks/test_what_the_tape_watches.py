"""Lesson 04's claims about what the tape recorded, checked with the tape's records and the
BackpropModel's steps (the lesson's own check cells use only public API). Each test re-states
the lesson's computation."""
import tapekit as tk


def test_only_the_watched_square_and_the_adds_are_recorded():
    # "only x0 is connected to y by recorded operations. Each unwatched value was squared
    # without being recorded, so those squares come in as anonymous constants."
    x0 = tk.Variable(3.0, name="x0")
    x1 = tk.Variable(3.0, name="x1", trainable=False)
    x2 = tk.Variable(2.0, name="x2") + 1.0
    x3 = tk.constant(3.0, name="x3")
    with tk.display.option_context(record=True), tk.GradientTape(persistent=True) as tape:
        y = x0 ** 2 + x1 ** 2 + x2 ** 2 + x3 ** 2
    assert [r.op.name for r in tape.records] == ["pow", "add", "add", "add"]
    steps = tk.widgets.BackpropModel(tape, y, [x0, x1, x2, x3])
    assert [s.op for s in steps.steps] == ["seed", "add", "add", "add", "pow"]
    assert [c.node for s in steps.steps for c in s.contributions] == ["n2", "n1", "n0", "s0"]
    assert float(steps.gradients()[0]) == 6.0 and steps.gradients()[1:] == [None, None, None]


def test_watch_accessed_variables_false_records_only_what_is_named():
    # "The picture shows that only y was recorded"
    variable_a = tk.Variable(3.0, name="a")
    variable_b = tk.Variable(2.0, name="b")
    with tk.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(variable_a)
        y = variable_a ** 2
        z = variable_b ** 3
    assert [r.op.name for r in tape.records] == ["pow"]
    assert float(tape.gradient(y, variable_a)) == 6.0 and tape.gradient(z, variable_b) is None
