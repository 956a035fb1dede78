"""Lesson 06's claims about what the tape recorded, checked with the tape's records and the
BackpropModel's steps (the lesson's own check cells use only public API). The lesson's f is
re-stated here."""
import tapekit as tk


def f(x, n):
    output = 1.0
    for i in range(n):
        if 1 < i < 5:
            output = tk.multiply(output, x)
    return output


def test_the_tape_of_the_loop_has_exactly_three_multiplies():
    # "The tape of f(x, 6) has exactly three multiplies. ... (The output = 1.0 start value
    # enters as a constant.)"
    x = tk.convert_to_tensor(2.0)
    with tk.display.option_context(record=True), tk.GradientTape(persistent=True) as tape:
        tape.watch(x)
        out = f(x, 6)
    assert [r.op.name for r in tape.records] == ["multiply"] * 3
    assert tape.records[0].in_tids[0] is None and float(tape.records[0].inputs[0]) == 1.0
    walk = tk.widgets.BackpropModel(tape, out, x)
    assert [s.op for s in walk.steps] == ["seed"] + ["multiply"] * 3
    assert float(tape.gradient(out, x)) == 3 * 2.0 ** 2
