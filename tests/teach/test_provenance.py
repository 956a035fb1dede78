"""tapekit.teach.provenance: a check asks whether a value is a gradient a tape returned."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.teach.provenance import GradientLog


def test_the_log_holds_what_tapes_returned_and_not_a_value_typed_in():
    W = tk.constant(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    image = tk.constant([[1.0, 2.0, 3.0]])
    log = GradientLog.start()
    try:
        with tk.GradientTape() as tape:
            tape.watch(image)
            score = (image @ W)[0, 1]
        saliency = tape.gradient(score, image).numpy().reshape(3)
    finally:
        log.stop()
    assert log.holds(saliency)                       # reshaped: the same numbers
    assert not log.holds(saliency + 1e-3)
    assert not log.holds(np.ones(3))
    assert not log.holds("not a number")
    # a tape created after stop() is not watched
    with tk.GradientTape() as tape:
        tape.watch(image)
        other = tape.gradient(tk.reduce_sum(image * 5.0), image)
    assert not log.holds(other)


def test_the_log_changes_no_gradient():
    x = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.sin(x) * x)
    plain = tape.gradient(y, x).numpy()
    log = GradientLog.start()
    try:
        with tk.GradientTape() as tape:
            y = tk.reduce_sum(tk.sin(x) * x)
        logged = tape.gradient(y, x).numpy()
    finally:
        log.stop()
    np.testing.assert_array_equal(plain, logged)
    assert log.holds(logged)


def test_a_none_gradient_is_not_logged():
    x, unused = tk.Variable(1.0), tk.Variable(2.0)
    log = GradientLog.start()
    try:
        with tk.GradientTape() as tape:
            y = x * 3.0
        assert tape.gradient(y, unused) is None
    finally:
        log.stop()
    assert log.results == []


def test_the_log_counts_what_the_tapes_record_under_any_name():
    log = GradientLog.start()
    try:
        Tape = tk.GradientTape             # the tape under another name is still a tape
        x = tk.Variable([1.0, 2.0])
        assert log.records == 0
        with Tape() as t:
            y = tk.reduce_sum(x * x)
        assert log.records == 2            # multiply, reduce_sum
        np.sum(np.asarray(x) * 2.0)        # NumPy by hand records nothing
        assert log.records == 2
        t.gradient(y, x)
    finally:
        log.stop()
    assert log.records == 2                # the backward pass records nothing on it


def test_what_a_check_asks_the_students_tape_while_paused_is_not_kept():
    x = tk.Variable([3.0, 2.0])
    log = GradientLog.start()
    try:
        with tk.GradientTape(persistent=True) as tape:
            y = tk.stack([x[0] * x[1], x[1] ** 2])
        with log.paused():                 # the check's own question
            row = tape.gradient(y, x, output_gradients=tk.one_hot(1, 2)).numpy()
        assert not log.holds(row) and log.results == []
        taken = tape.gradient(y, x, output_gradients=tk.one_hot(1, 2))   # the student's
    finally:
        log.stop()
    assert log.holds(taken) and log.holds(row)


def test_one_calls_gradients_together_are_held_as_one_row():
    x, y = tk.Variable(1.0), tk.Variable(2.0)
    log = GradientLog.start()
    try:
        with tk.GradientTape() as tape:
            f = x * x * y
        row = [float(g) for g in tape.gradient(f, [x, y])]     # (2xy, x²) = (4, 1)
    finally:
        log.stop()
    assert log.holds(row) and log.holds(4.0) and log.holds(1.0)
    assert not log.holds([1.0, 4.0])                           # the sources' order counts


def test_by_hand_refuses_a_function_that_records_a_tape():
    def grads_by_hand(x):
        return 2 * x

    def grads_by_tape(x):
        v = tk.Variable(x)
        with tk.GradientTape() as tape:
            y = v * v
        return tape.gradient(y, v).numpy()
    log = GradientLog.start()
    try:
        assert log.by_hand(grads_by_hand)(3.0) == 6.0
        with pytest.raises(AssertionError, match="grads_by_tape records a tape"):
            log.by_hand(grads_by_tape)(3.0)
    finally:
        log.stop()
