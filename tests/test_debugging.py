"""tk.debugging: check_numerics finds the first NaN/Inf, names the op, its record and the user line."""
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import tapekit as tk
from tapekit import debugging
from tapekit.context import state
from tapekit.debugging import NumericsChecker, NumericsError

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's log(-1), 1/0 warnings


def next_line():
    """The line number after the caller's current line (where the op under test is called)."""
    return sys._getframe(1).f_lineno + 1


@pytest.fixture(autouse=True)
def checking_off_afterwards():
    yield
    tk.debugging.disable_check_numerics()
    assert state.check_numerics is None


# --- forward: the op whose output holds NaN/Inf ------------------------------------------------

def test_forward_nan_names_the_op_its_record_and_the_user_line():
    x = tk.Variable([1.0, -2.0, 3.0])
    with tk.debugging.check_numerics_enabled():
        with pytest.raises(NumericsError) as info:
            with tk.GradientTape() as tape:
                y = x * 2.0
                line = next_line()
                tk.log(y)
    err = info.value
    assert (err.op, err.phase, err.index) == ("log", "forward", 1)
    assert (err.filename, err.lineno) == (__file__, line)
    text = str(err)
    assert "op 'log' produced NaN in its output (forward pass)" in text
    assert "output:   shape (3,) float32: 1 NaN at (1,); finite values in [0.6931, 1.792]" in text
    assert "input x: shape (3,) float32: min -4, max 6" in text
    assert "record #1 on the tape" in text
    assert f"called at {__file__}:{line}, in test_forward_nan" in text
    assert "tk.log(y)" in text  # the source line itself
    assert debugging._failures[tape] == {"index": 1, "phase": "forward", "op": "log",
                                      "reason": "output holds NaN"}


def model(x):
    h = x * 3.0
    return tk.exp(h)  # overflows to inf for large x


def test_forward_inf_inside_a_user_function_points_into_it():
    x = tk.constant(np.array([1.0, 100.0], np.float32))
    tk.debugging.enable_check_numerics()
    with pytest.raises(NumericsError) as info:
        with tk.GradientTape() as tape:
            tape.watch(x)
            model(x)
    assert info.value.op == "exp"
    assert info.value.lineno == model.__code__.co_firstlineno + 2
    assert "1 +Inf at (1,)" in str(info.value)


def test_an_op_no_tape_records_is_checked_too():
    with tk.debugging.check_numerics_enabled():
        with pytest.raises(NumericsError, match="not recorded on a tape") as info:
            tk.sqrt(tk.constant([-1.0]))
    assert info.value.index is None


def test_nan_arriving_from_outside_is_reported_at_the_first_op_and_said_so():
    bad = tk.constant([np.nan, 1.0])
    with tk.debugging.check_numerics_enabled():
        with pytest.raises(NumericsError, match="an input already holds NaN/Inf"):
            bad + 1.0


# --- backward: the op whose input-gradient holds NaN/Inf ---------------------------------------

def test_backward_inf_reports_the_forward_line_that_created_the_op():
    x = tk.Variable([0.0, 4.0])
    with tk.debugging.check_numerics_enabled():
        with tk.GradientTape() as tape:
            line = next_line()
            s = tk.sqrt(x)                   # finite forward: sqrt(0) = 0
            y = tk.reduce_sum(s * 3.0)
        with pytest.raises(NumericsError) as info:
            gradient_line = next_line()
            tape.gradient(y, x)              # d sqrt / dx at 0 = inf
    err = info.value
    assert (err.op, err.phase, err.index, err.input) == ("sqrt", "backward", 0, "x")
    assert (err.filename, err.lineno) == (__file__, line)
    text = str(err)
    assert "the gradient op 'sqrt' passes to its input x holds Inf (backward pass)" in text
    assert "gradient: shape (2,) float32: 1 +Inf at (0,); finite values in [0.75, 0.75]" in text
    assert "incoming gradient g: shape (2,) float32: min 3, max 3" in text
    assert "output: shape (2,) float32: min 0, max 2" in text
    assert "input x: shape (2,) float32 (its value is not kept on the tape)" in text
    assert f"the op was created (forward pass) at {__file__}:{line}" in text
    assert "s = tk.sqrt(x)" in text
    assert f"backward pass started at {__file__}:{gradient_line}" in text
    assert debugging._failures[tape] == {"index": 0, "phase": "backward", "op": "sqrt",
                                      "reason": "gradient for input x holds Inf"}


def test_nan_only_in_the_backward_pass():
    # Forward: asin(1) * 0 = 0 everywhere, all finite. Backward: 0 * 1 / sqrt(1 - 1) = 0 * inf
    # = NaN at asin (as in TensorFlow; sqrt itself gives 0 for a zero arriving gradient).
    x = tk.Variable([1.0, 0.0])
    with tk.debugging.check_numerics_enabled():
        with tk.GradientTape() as tape:
            line = next_line()
            y = tk.asin(x) * 0.0
        assert np.isfinite(y.numpy()).all()
        with pytest.raises(NumericsError) as info:
            tape.gradient(y, x)
    assert (info.value.op, info.value.index, info.value.lineno) == ("asin", 0, line)
    assert "holds NaN (backward pass)" in str(info.value)
    assert "1 NaN at (0,)" in str(info.value)


def test_backward_failure_of_a_later_record_names_its_index():
    x = tk.Variable([1.0, 2.0])
    with tk.debugging.check_numerics_enabled():
        with tk.GradientTape(persistent=True) as tape:
            a = x * 2.0
            b = a - 2.0                      # [0, 2]
            line = next_line()
            c = tk.sqrt(b)
        with pytest.raises(NumericsError) as info:
            tape.gradient(c, x)
    assert (info.value.op, info.value.index, info.value.lineno) == ("sqrt", 2, line)
    assert debugging._failures[tape]["index"] == 2


def test_nested_tapes_recorded_backward_is_checked_too():
    x = tk.Variable([0.0, 1.0])
    with tk.debugging.check_numerics_enabled():
        with tk.GradientTape() as outer:
            with tk.GradientTape() as inner:
                line = next_line()
                y = tk.sqrt(x)
            with pytest.raises(NumericsError) as info:
                inner.gradient(y, x)
    assert (info.value.op, info.value.phase, info.value.lineno) == ("sqrt", "backward", line)
    assert debugging._failures[inner]["op"] == "sqrt"


def test_forward_mode_tangent_rules_are_checked():
    x = tk.constant([0.0, 1.0])
    with tk.debugging.check_numerics_enabled():
        with pytest.raises(NumericsError, match=r"tangent \(JVP rule\) of op 'sqrt'") as info:
            with tk.ForwardAccumulator(x, tk.constant([1.0, 1.0])):
                line = next_line()
                tk.sqrt(x)
    assert info.value.lineno == line


# --- on, off, and what stays in the op path ------------------------------------------------------

def test_disabled_means_no_error_and_nothing_in_the_op_path():
    assert state.accumulators == [] and state.check_numerics is None
    x = tk.Variable([0.0, -1.0])
    with tk.GradientTape() as tape:
        y = tk.sqrt(x)                        # NaN forward, inf backward: no error when off
    g = tape.gradient(y, x)
    assert np.isinf(g.numpy()[0]) and np.isnan(y.numpy()[1])
    tk.debugging.enable_check_numerics()
    assert isinstance(state.check_numerics, NumericsChecker)
    assert state.accumulators == [state.check_numerics]
    tk.debugging.disable_check_numerics()
    assert state.accumulators == [] and state.check_numerics is None
    tk.debugging.disable_check_numerics()     # twice is fine


def test_context_manager_forms_restore_the_previous_setting():
    with tk.debugging.enable_check_numerics():
        assert tk.debugging.is_check_numerics_enabled()
        with tk.debugging.check_numerics_enabled():   # nested: leaving it keeps checking on
            pass
        assert tk.debugging.is_check_numerics_enabled()
        assert len(state.accumulators) == 1
    assert not tk.debugging.is_check_numerics_enabled() and state.accumulators == []
    with pytest.raises(NumericsError):
        with tk.debugging.check_numerics_enabled():
            tk.log(tk.constant(-1.0))
    assert not tk.debugging.is_check_numerics_enabled() and state.accumulators == []


def test_checking_is_per_thread():
    seen = []
    tk.debugging.enable_check_numerics()
    t = threading.Thread(target=lambda: seen.append(tk.debugging.is_check_numerics_enabled()))
    t.start()
    t.join()
    assert seen == [False] and tk.debugging.is_check_numerics_enabled()


def test_results_are_the_same_with_checking_on():
    x = tk.Variable([0.5, 1.5, 2.5])

    def grads():
        with tk.GradientTape() as tape:
            y = tk.reduce_sum(tk.tanh(x * x) * tk.sin(x))
        return y.numpy(), tape.gradient(y, x).numpy()

    off = grads()
    with tk.debugging.check_numerics_enabled():
        on = grads()
    np.testing.assert_allclose(on[0], off[0], rtol=1e-6)
    np.testing.assert_allclose(on[1], off[1], rtol=1e-6)


def test_benchmark_contenders_time_the_same_workload_off_and_on():
    # the helper lives with the benchmarks now, not in tk.debugging
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    try:
        from check_numerics import check_numerics_contenders
    finally:
        sys.path.pop(0)
    assert not hasattr(tk.debugging, "check_numerics_contenders")
    calls = []
    contenders = check_numerics_contenders(tk, lambda: calls.append(
        tk.debugging.is_check_numerics_enabled()) or len(calls))
    assert sorted(contenders) == ["check_numerics off", "check_numerics on"]
    assert contenders["check_numerics off"]() == 1
    assert contenders["check_numerics on"]() == 2
    assert calls == [False, True] and not tk.debugging.is_check_numerics_enabled()


# --- check_numerics on one tensor ----------------------------------------------------------------

def test_check_numerics_of_one_tensor():
    t = tk.constant([1.0, 2.0])
    assert tk.debugging.check_numerics(t, "fine") is t
    with pytest.raises(NumericsError) as info:
        line = next_line()
        tk.debugging.check_numerics(tk.constant([1.0, np.nan, np.inf, 4.0]), "after layer 2")
    text = str(info.value)
    assert text.startswith("after layer 2 : Tensor had Inf and NaN values")  # TensorFlow's wording
    assert "1 NaN, 1 +Inf at (1,), (2,); finite values in [1, 4]" in text
    assert info.value.lineno == line
    with pytest.raises(NumericsError, match="x : Tensor had NaN values"):
        tk.debugging.check_numerics(np.array([np.nan]), "x")
    with pytest.raises(TypeError, match="needs a floating tensor"):
        tk.debugging.check_numerics(tk.constant([1, 2]), "ints")


def test_the_jvp_rule_running_is_told_by_forward_not_read_from_a_frame():
    # debugging used to read ForwardAccumulator._propagate's local `op` by frame
    # introspection; forward.py now says which op's JVP rule is running.
    from tapekit.forward import jvp_rule_running
    seen = []

    class Spy:
        def _propagate(self, op, *rest):
            seen.append((op.name, getattr(jvp_rule_running(), "name", None)))

    x = tk.constant(4.0)
    with tk.ForwardAccumulator(x, tk.constant(1.0)) as acc:
        from tapekit.context import push_accumulator, remove_accumulator
        spy = Spy()
        push_accumulator(spy)
        try:
            y = tk.sqrt(x)
        finally:
            remove_accumulator(spy)
    assert acc.jvp(y).numpy() == pytest.approx(0.25)
    assert ("sqrt", None) in seen                        # the op itself: no rule running
    assert any(rule == "sqrt" for name, rule in seen if name != "sqrt")   # the ops of its JVP rule
    assert jvp_rule_running() is None                    # and none after
