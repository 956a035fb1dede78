"""tapekit.display.tape_log: what display keeps about a tape on its own side (values, constants,
cotangents, released records), and that keeping it changes no gradient."""
import numpy as np

import tapekit as tk
from tapekit.display import graph
from tapekit.display.tape_log import log_of

from .tapes import small_tape


def tapekit_logs():
    from tapekit.display import tape_log as recording
    return recording._logs


def test_without_recording_values_are_what_rules_saved_and_hot_path_is_unchanged():
    assert not tk.display.recording()                   # pytest is not an IPython kernel
    x = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        y = tk.tanh(x + 1.0)
    assert tape not in tapekit_logs()           # display kept nothing about this tape
    assert not hasattr(tape.records[0], "value")
    m = graph.build(tape)
    assert m.node("n0").value is None and m.node("n0").shape == (2,)   # add saves nothing
    assert m.node("n1").value is not None                              # tanh saves its output
    assert any("record=True" in note for note in m.notes)


def test_recording_changes_no_gradient(record):
    x = tk.Variable([0.5, -1.5])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.sigmoid(x * x) * 3.0)
    g_on = tape.gradient(y, x).numpy()
    with tk.display.option_context(record=False):
        with tk.GradientTape() as tape2:
            y2 = tk.reduce_sum(tk.sigmoid(x * x) * 3.0)
        g_off = tape2.gradient(y2, x).numpy()
    np.testing.assert_array_equal(g_on, g_off)


def test_non_persistent_tape_is_shown_after_gradient(record):
    tape, x, c, w = small_tape(persistent=False)
    tape.gradient(w, x)
    assert tape._records == []                          # gradient released them ...
    assert len(graph.build(tape).nodes) == 9            # ... the display still has them
    with tape:                                          # reset() records anew: inside a block
        tape.reset()
    assert graph.build(tape).nodes == []


def test_non_persistent_gradient_that_was_computed_frees_everything():
    with tk.display.option_context(record=False):
        w = tk.Variable(2.0)
        with tk.GradientTape() as tape:
            y = w * w
        assert float(tape.gradient(y, w)) == 4.0
    log = log_of(tape)
    assert log.structure is None and log.released is None and tape.records == () and log.freed == 1


def test_recording_keeps_outputs_constants_and_the_last_cotangents(record):
    x = tk.Variable([1.0, 2.0], name="x")
    c = tk.constant([10.0, 20.0])
    with tk.GradientTape(persistent=True) as tape:
        y = x + c                                   # add keeps no values for its rule
        z = tk.reduce_sum(y * y)
    log = log_of(tape)
    assert log is log_of(tape)                      # one log per tape
    (add, mul, total) = tape.records
    assert log.values[add.out_tid].tolist() == [11.0, 22.0]
    assert list(log.constants.values())[0].tolist() == [10.0, 20.0]
    assert log.grads == {}                          # no gradient call yet
    tape.gradient(z, x)
    assert log.grads[add.out_tid].tolist() == [22.0, 44.0]     # dz/dy = 2y
    assert log.grads[mul.out_tid].tolist() == [1.0, 1.0]
    tape.gradient(y, x)                             # the last call replaces them
    assert mul.out_tid not in log.grads


def test_without_recording_nothing_but_a_none_gradients_structure_is_kept():
    with tk.display.option_context(record=False):
        w = tk.Variable(np.ones(3, np.float32))
        with tk.GradientTape() as tape:
            y = tk.reduce_sum(tk.stop_gradient(w * 2.0))
        assert tape.gradient(y, w) is None
    log = log_of(tape)
    assert log.values == {} and log.constants == {} and log.grads == {}
    assert [rec.op.name for rec in log.structure] == ["multiply", "stop_gradient", "reduce_sum"]
    assert log.structure[0].ans.shape == (3,) and log.freed == 3
