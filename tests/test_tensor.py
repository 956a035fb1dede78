"""Assigning to a slice of a Variable (v[0, 0].assign(...)) with TensorFlow's gradient semantics;
a Variable's reads and the values it accepts; a tensor's format()."""
import re
import warnings

import numpy as np
import pytest

import tapekit as tk


def test_slice_assign_writes_into_the_variable():
    v = tk.Variable([[1.0, 2.0], [3.0, 4.0]])
    assert v[0, 0].assign(5.0) is v
    v[1].assign([7.0, 8.0])
    v[:, 1].assign_add([1.0, 1.0])
    v[0:1, 0].assign_sub([0.5])
    np.testing.assert_array_equal(v.numpy(), [[4.5, 3.0], [7.0, 9.0]])
    v[...].assign(0.0)                                          # a scalar broadcast to the slice
    np.testing.assert_array_equal(v.numpy(), np.zeros((2, 2)))


def test_slice_read_is_recorded_and_assign_is_not_differentiable():
    v = tk.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tk.GradientTape() as tape:
        s = v[0, 1] * 3.0                                       # a read: gradient 3 at [0, 1]
    np.testing.assert_array_equal(tape.gradient(s, v).numpy(), [[0, 3], [0, 0]])
    x = tk.Variable(2.0)
    with tk.GradientTape(persistent=True) as tape:
        w = x * 3.0
        v[0, 0].assign(w)                                       # TensorFlow: no gradient to x
        total = tk.reduce_sum(v)
    assert tape.gradient(total, x) is None
    np.testing.assert_array_equal(tape.gradient(total, v).numpy(), np.ones((2, 2)))
    assert v.numpy()[0, 0] == 6.0


def test_slice_assign_checks_shape_and_dtype():
    v = tk.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    with pytest.raises(ValueError, match=r"'w'\[0\]\.assign: the slice has shape \(2,\), got a value of shape \(3,\)"):
        v[0].assign([1.0, 2.0, 3.0])
    n = tk.Variable([1, 2, 3])
    with pytest.raises(TypeError, match="drop the fraction"):
        n[0].assign(1.5)
    np.testing.assert_array_equal(v.numpy(), [[1, 2], [3, 4]])     # unchanged after the errors


# --- Variable: reads and the values it accepts ------------------------------------------------

def test_read_value_is_a_recorded_read():
    v = tk.Variable(2.0)
    with tk.GradientTape() as tape:
        y = v.read_value() ** 2
    assert float(tape.gradient(y, v)) == pytest.approx(4.0)     # d(v^2)/dv = 2v at v = 2
    snapshot = v.read_value()
    v.assign(5.0)
    assert float(snapshot) == 2.0 and isinstance(snapshot, tk.Tensor)


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_variable_updates_need_the_variables_shape(method):
    # Found by tools/tf_diff: TF 2.21 raises (InvalidArgumentError: Cannot update variable with
    # shape [2] using a Tensor with shape [], shapes must be equal) for v.assign_add(1.0) on a
    # vector; tapekit added 1.0 to every element.
    v = tk.Variable([1.0, 2.0], name="v")
    for delta in (1.0, tk.constant(1.0), [1.0]):
        with pytest.raises(ValueError, match=r"of 'v:0'.*cannot give it a value of shape"):
            getattr(v, method)(delta)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    getattr(v, method)([1.0, 1.0])
    s = tk.Variable(1.0)
    s.assign_add(2.0)   # a scalar variable takes a scalar
    assert float(s) == 3.0


@pytest.mark.parametrize("call, match", [
    (lambda v: v.assign(True), r"Variable\.assign of 'v:0' \(float32.*True \(dtype bool\) to float32"),
    (lambda v: v.assign_add(np.array(True)), r"assign_add of 'v:0'.*bool.*tk\.cast"),
    (lambda v: v.assign("3"), r"assign of 'v:0'.*'3'.*<U1"),
    (lambda v: v.assign_sub(tk.constant(True)), r"assign_sub of 'v:0'.*bool"),
])
def test_variable_refuses_bools_and_text(call, match):
    v = tk.Variable(1.0, name="v")
    with pytest.raises(TypeError, match=match):
        call(v)
    assert float(v) == 1.0


@pytest.mark.parametrize("dtype, call, bad", [
    (tk.float32, lambda v: v.assign_add(np.float64(1e40)), "1e+40"),
    (tk.float16, lambda v: v.assign(70000.0), "70000.0"),
    (tk.float16, lambda v: v.assign(70000), "70000"),
    (tk.float32, lambda v: v.assign(np.array([1.0, -1e39])), "-1e+39"),
])
def test_a_finite_value_that_overflows_the_variable_dtype_raises(dtype, call, bad):
    v = tk.Variable(1.0, dtype=dtype, name="v") if bad != "-1e+39" else tk.Variable([1.0, 1.0], name="v")
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # and no NumPy overflow warning on the way
        with pytest.raises(ValueError, match=rf"of 'v:0'.*{re.escape(bad)}.*overflows {dtype.name}.*inf"):
            call(v)
    assert np.all(v.numpy() == 1.0)


def test_inf_and_nan_given_on_purpose_are_kept():
    v = tk.Variable(1.0)
    assert np.isinf(float(v.assign(float("inf"))))
    assert np.isnan(float(v.assign(np.float64("nan"))))
    assert np.isinf(float(tk.Variable(1.0, dtype=tk.float16).assign(np.float64(-np.inf))))


# --- formatting ------------------------------------------------------------------------------------

def test_format_gives_the_value():
    t = tk.constant(2.0)
    assert f"{t}" == "2.0" and "{}".format(t) == "2.0" and f"{t:.3f}" == "2.000"
    assert f"{tk.constant([1, 2])}" == "[1 2]"
    assert str(t).startswith("tk.Tensor(")


# --- set_shape and tk.newaxis (checked against TensorFlow 2.21) -----------------------------------
def test_set_shape_checks_and_changes_nothing():
    x = tk.constant([[1.0, 2.0, 3.0]])
    for ok in ([1, 3], [None, 3], (1, None), tk.TensorShape([1, 3]), None):
        assert x.set_shape(ok) is None and x.shape == (1, 3)        # TF: compatible, None
    with pytest.raises(ValueError, match=re.escape("Tensor's shape (1, 3) is not compatible with "
                                                   "supplied shape (3, 1).")):
        x.set_shape([3, 1])                                        # TF's message
    with pytest.raises(ValueError, match=re.escape("supplied shape (3,)")):
        x.set_shape([3])                                           # another rank
    v = tk.Variable([1.0, 2.0])
    v.set_shape([2])
    with pytest.raises(ValueError, match="not compatible"):
        v.set_shape([3])                                           # TF: ValueError too
    with pytest.raises(TypeError):
        x.set_shape([1.5, 3])


def test_newaxis_is_none_as_in_tensorflow():
    assert tk.newaxis is None
    x = tk.constant([1.0, 2.0])
    assert x[tk.newaxis].shape == (1, 2) and x[:, tk.newaxis].shape == (2, 1)


def test_device_is_tensorflows_name_of_the_cpu():
    # TF 2.21 on a CPU: '/job:localhost/replica:0/task:0/device:CPU:0' for tensors and variables
    for t in (tk.constant([1.0]), tk.Variable(2.0), tk.constant(1.0) * 2.0):
        assert t.device == "/job:localhost/replica:0/task:0/device:CPU:0"


@pytest.mark.parametrize("symbol, fix", [("+", "v.assign_add(value)"), ("-", "v.assign_sub(value)"),
                                         ("*", "v.assign(v * value)"), ("/", "v.assign(v / value)"),
                                         ("**", "v.assign(v ** value)")])
def test_in_place_operators_on_a_variable_raise_as_tf(symbol, fix):
    # TF 2.21 raises RuntimeError for `v += 1` (eager and in tf.function): rebinding the name to
    # a new tensor left the variable unchanged and, inside tk.function, leaked a traced tensor.
    v = tk.Variable([2.0, 4.0])
    names = {"v": v}
    with pytest.raises(RuntimeError, match=re.escape(f"`v {symbol}= value` on a tk.Variable") + ".*" + re.escape(fix)):
        exec(f"v {symbol}= 2.0", names)
    assert names["v"] is v and v.numpy().tolist() == [2.0, 4.0]          # nothing changed
    assert getattr(v, {"+": "__add__", "-": "__sub__", "*": "__mul__", "/": "__truediv__",
                       "**": "__pow__"}[symbol])(2.0).numpy().shape == (2,)   # `out = v + value` works


def test_in_place_operator_inside_tk_function_raises_at_the_trace():
    count = tk.Variable(0)

    @tk.function
    def step():
        nonlocal count
        count += 1
        return count

    with pytest.raises(RuntimeError, match=r"v\.assign_add\(value\)"):
        step()
    assert int(count.numpy()) == 0 and isinstance(count, tk.Variable)
