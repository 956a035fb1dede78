"""tape.explain for a Variable written inside the tape (issue 30; TensorFlow's guide lists
`x1.assign_add(x0); y = x1**2` as a cause of a None gradient)."""
import pytest

import tapekit as tk


def test_assign_add_of_the_source_is_named_with_the_fix():
    x0 = tk.Variable(3.0, name="x0")
    x1 = tk.Variable(0.0, name="x1")
    with tk.GradientTape(persistent=True) as tape:
        x1.assign_add(x0)
        y = x1 ** 2
    assert tape.gradient(y, x0) is None
    e = tape.explain(y, x0)
    assert e.reason == "assigned"
    text = str(e)
    assert "x1.assign_add(...)" in text and "state change" in text
    assert "`x1 + x0`" in text                       # the fix, with the user's names
    assert "no op read it" not in text and "float(x)" not in text   # the old, wrong advice
    # the variable read after the write is still connected, as in TensorFlow (dy/dx1 = 2 * 3)
    assert float(tape.gradient(y, x1)) == 6.0
    assert tape.explain(y, x1).reason == "connected"


@pytest.mark.parametrize("method, expr", [("assign", "`value`"), ("assign_sub", "`v - value`")])
def test_a_value_computed_from_the_source_and_assigned(method, expr):
    w = tk.Variable(2.0, name="w")
    v = tk.Variable(1.0, name="v")
    with tk.GradientTape(persistent=True) as tape:
        z = w * 3.0
        getattr(v, method)(z)
        out = v * v
    assert tape.gradient(out, w) is None
    e = tape.explain(out, w)
    assert e.reason == "assigned"
    assert f"v.{method}(...)" in e.message and "computed from it" in e.message and expr in e.message


def test_an_unused_variable_without_assignment_keeps_the_old_answer():
    x0 = tk.Variable(3.0, name="x0")
    x1 = tk.Variable(1.0, name="x1")
    with tk.GradientTape() as tape:
        y = x1 ** 2
    assert tape.explain(y, x0).reason == "left_tape"


def test_an_assignment_the_target_does_not_read_is_not_blamed():
    x0 = tk.Variable(3.0, name="x0")
    x1 = tk.Variable(0.0, name="x1")
    x2 = tk.Variable(1.0, name="x2")
    with tk.GradientTape() as tape:
        x1.assign_add(x0)
        y = x2 ** 2                       # reads x2, not the written x1
    assert tape.explain(y, x0).reason == "left_tape"


def test_writes_outside_a_tape_are_not_noted():
    x0 = tk.Variable(3.0, name="x0")
    x1 = tk.Variable(0.0, name="x1")
    x1.assign_add(x0)                     # before the tape: x1 simply holds 3.0
    with tk.GradientTape() as tape:
        y = x1 ** 2
    assert tape.explain(y, x0).reason == "left_tape"


def test_a_non_persistent_tape_still_names_the_assignment_after_gradient():
    # gradient() releases the records; the structure kept for explain still shows the path
    x0 = tk.Variable(3.0, name="x0")
    x1 = tk.Variable(0.0, name="x1")
    with tk.GradientTape() as tape:
        x1.assign_add(x0)
        y = x1 ** 2
    assert tape.gradient(y, x0) is None
    assert tape.explain(y, x0).reason == "assigned"


def test_an_unused_variable_is_told_that_none_may_be_the_right_answer():
    # lesson 7, section 10: a Variable the target does not use gets None honestly; the
    # message says so, and still gives the advice for a value that left the tape
    a = tk.Variable(1.0, name="a")
    b = tk.Variable(2.0, name="b")
    with tk.GradientTape() as tape:
        y = a * 3.0
    assert tape.gradient(y, b) is None
    e = tape.explain(y, b)
    assert e.reason == "left_tape"
    text = e.message
    assert "None is the right answer" in text and 'unconnected_gradients="zero"' in text
    assert "x.numpy()" in text


def test_an_inert_source_is_explained_with_what_made_it_inert():
    # The tape records stop_gradient's output and values computed from integers alone (for
    # the picture), but, as TensorFlow's tape, tracks none of them: their gradient is None.
    x = tk.Variable([1.5, 2.0], name="x")
    with tk.GradientTape(persistent=True) as tape:
        s = tk.stop_gradient(x * 1.0)
        p = s * 3.0
        c = p + x
        f = tk.cast(tk.cast(x, tk.int32), tk.float32)
        g = f * x
    for source in (s, p):
        assert tape.gradient(c, source) is None
        e = tape.explain(c, source)
        assert e.reason == "stop_gradient" and "tape.watch" in e.message
    assert "is the output of stop_gradient" in tape.explain(c, s).message
    assert "computed only from n1 (stop_gradient)" in tape.explain(c, p).message
    e = tape.explain(g, f)
    assert e.reason == "integer_dtype" and "of dtype int32" in e.message and "Connected" not in e.message
    assert tape.explain(c, x).reason == "connected"


def test_a_connected_answer_names_the_paths_a_stop_gradient_cuts():
    # The README's example: explain(z, x) should say why d z / d x is only 1.0 in words, not
    # only in the picture (course review).
    x = tk.Variable(3.0, name="x")
    with tk.GradientTape(persistent=True) as tape:
        y = x ** 3
        z = tk.stop_gradient(y) + x
    e = tape.explain(z, x)
    assert e.reason == "connected"
    assert "The path through n1 (stop_gradient) adds nothing" in e.message
    assert "stop_gradient" not in tape.explain(y, x).message     # no stopped path there
