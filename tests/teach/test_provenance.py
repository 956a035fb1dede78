"""tapekit.teach.provenance: a check asks whether a value is a gradient a tape returned."""
import numpy as np

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
