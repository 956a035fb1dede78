"""tapekit.traceback_utils: errors leave tapekit's entry points with the user's frames only
(TensorFlow's and Keras's traceback filtering), and whole tracebacks when it is turned off."""
import traceback
from pathlib import Path

import numpy as np
import pytest

import tapekit as tk
from tapekit import traceback_utils


def _frames(error):
    return [frame.filename for frame in traceback.extract_tb(error.__traceback__)]


def _in_tapekit(filenames):
    return [f for f in filenames if f.startswith(traceback_utils._PACKAGE)]


def _wrong_shape_gradient():
    @tk.custom_gradient
    def wrong_shape(x):
        def grad_fn(upstream):
            return tk.constant(1.0)          # a scalar for a (3,) input
        return tk.reduce_sum(x), grad_fn

    x = tk.constant([1.0, 2.0, 3.0])
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = wrong_shape(x)
    with pytest.raises(ValueError, match="shape") as caught:
        tape.gradient(y, x)
    return caught.value


def test_a_gradient_error_keeps_the_users_frames_and_one_of_tapekits():
    error = _wrong_shape_gradient()
    frames = _frames(error)
    assert frames[0] == __file__                               # the test's own line
    assert _in_tapekit(frames) == [traceback_utils.__file__]  # the wrapper that re-raises it
    assert "custom_gradient wrong_shape" in str(error)         # the message untouched


def test_the_wrappers_frame_says_what_it_left_out():
    # The review saw traceback_utils.py's error_handler, with its code, in lessons 05, 11, 22.
    # pytest, and IPython unless it is the last frame (as there), leave out a frame whose
    # locals set __tracebackhide__; where it shows, the lines above its raise (IPython shows
    # three) tell a student what is left out and how to see it.
    error = _wrong_shape_gradient()
    frames = [tb for tb in _walk(error.__traceback__)
              if tb.tb_frame.f_code.co_filename == traceback_utils.__file__]
    assert [tb.tb_frame.f_locals.get("__tracebackhide__") for tb in frames] == [True]
    lines = Path(traceback_utils.__file__).read_text().splitlines()
    shown = [line.strip() for line in lines[frames[0].tb_lineno - 4:frames[0].tb_lineno - 1]]
    assert all(line.startswith("#") for line in shown), shown
    assert "leaves out tapekit's own frames" in shown[0]
    assert shown[2] == "# tk.debugging.disable_traceback_filtering()"


def _walk(tb):
    while tb is not None:
        yield tb
        tb = tb.tb_next


def test_off_the_traceback_runs_through_tapekit(monkeypatch):
    tk.debugging.disable_traceback_filtering()
    try:
        assert not tk.debugging.is_traceback_filtering_enabled()
        frames = _frames(_wrong_shape_gradient())
    finally:
        tk.debugging.enable_traceback_filtering()
    assert tk.debugging.is_traceback_filtering_enabled()
    assert len(_in_tapekit(frames)) >= 5                      # tape, backprop, custom, ...


def test_a_users_function_called_by_tapekit_keeps_its_frame():
    def grad_fn_that_fails(upstream):
        raise ZeroDivisionError("the user's own bug")

    @tk.custom_gradient
    def f(x):
        return x * 2.0, grad_fn_that_fails

    x = tk.Variable(1.0)
    with tk.GradientTape() as tape:
        y = f(x)
    with pytest.raises(ZeroDivisionError) as caught:
        tape.gradient(y, x)
    names = [frame.name for frame in traceback.extract_tb(caught.value.__traceback__)]
    assert names[-1] == "grad_fn_that_fails"


def test_a_tk_function_error_keeps_the_users_line_and_the_cause():
    @tk.function
    def bad(x):
        return tk.matmul(x, x)               # (2, 3) @ (2, 3)

    with pytest.raises(ValueError) as caught:
        bad(tk.ones((2, 3)))
    names = [frame.name for frame in traceback.extract_tb(caught.value.__traceback__)]
    assert "bad" in names and names[0] == "test_a_tk_function_error_keeps_the_users_line_and_the_cause"
    assert len(_in_tapekit(_frames(caught.value))) == 1


def test_the_exception_and_its_cause_are_the_same_objects():
    cause = KeyError("inner")

    def fails():
        try:
            raise cause
        except KeyError as e:
            raise RuntimeError("outer") from e

    wrapped = traceback_utils.filter_traceback(fails)
    with pytest.raises(RuntimeError) as caught:
        wrapped()
    assert caught.value.__cause__ is cause and str(caught.value) == "outer"


def test_return_values_pass_through():
    x = tk.Variable(np.float32(3.0))
    with tk.GradientTape() as tape:
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0
