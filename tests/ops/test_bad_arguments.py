"""Issue 22 item 5 and issue 23: each bad argument gets an error that names the op, the
argument, what was given and what was expected (tk.errors.InvalidArgumentError where
TensorFlow raises it; a ValueError too)."""
import re
import warnings

import numpy as np
import pytest

import tapekit as tk
from tapekit.ops.linalg import matmul_op

IAE = tk.errors.InvalidArgumentError


def test_read_value_is_a_recorded_read():
    v = tk.Variable(2.0)
    with tk.GradientTape() as tape:
        y = v.read_value() ** 2
    assert float(tape.gradient(y, v)) == pytest.approx(4.0)     # d(v^2)/dv = 2v at v = 2
    snapshot = v.read_value()
    v.assign(5.0)
    assert float(snapshot) == 2.0 and isinstance(snapshot, tk.Tensor)


@pytest.mark.parametrize("func", [np.sort, np.unique, np.round])
def test_numpy_functions_tapekit_does_not_record_raise_inside_a_tape(func):
    x = tk.Variable([3.0, 1.0, 2.0])
    with tk.GradientTape():
        y = x * 2.0
        with pytest.raises(TypeError, match=rf"numpy\.{func.__name__}.*gradient path.*x\.numpy\(\)"):
            func(y)
    np.testing.assert_array_equal(func(tk.constant([3.0, 1.0])), func(np.array([3.0, 1.0], np.float32)))


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


def test_constant_refuses_text_and_names_numpys_dtype():
    with pytest.raises(TypeError, match=r"constant: cannot convert \[1, 'a'\].*dtype <U21"):
        tk.constant([1, "a"])


@pytest.mark.parametrize("reduce", [tk.reduce_sum, tk.reduce_mean, tk.reduce_max, tk.reduce_min,
                                    tk.reduce_prod])
@pytest.mark.parametrize("axis", [[0, 0], (1, -1)])
def test_duplicate_reduction_axes_raise(reduce, axis):
    with pytest.raises(IAE, match=rf"{reduce.__name__}: axis \[{axis[0]}, {axis[1]}\] names axis \d twice"):
        reduce(tk.ones((2, 3)), axis=axis)


@pytest.mark.parametrize("call", [
    lambda x, y: x @ y, lambda x, y: tk.matmul(x, y), lambda x, y: np.matmul(x, y),
    lambda x, y: tk.matmul(x.numpy(), y)])
@pytest.mark.parametrize("sx, sy", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2))])
def test_matmul_needs_matrices(call, sx, sy):
    x, y = tk.ones(sx), tk.ones(sy)
    with pytest.raises(IAE, match=rf"matmul.*rank 2 or more.*{sx}.*{sy}.*tk\.reshape"):
        call(x, y)


def test_matmul_shape_mismatch_in_plain_words_and_its_error_type():
    x, y = tk.ones((2, 3)), tk.ones((2, 4))
    try:
        tk.linalg.matmul(x, y) if hasattr(tk, "linalg") else tk.matmul(x, y)
    except tk.errors.InvalidArgumentError as e:     # the TF guide's pattern
        text = f"{type(e).__name__} {e}"
    assert text.startswith("InvalidArgumentError matmul:")
    assert "(2, 3)" in text and "(2, 4)" in text and "3 columns" in text and "2 rows" in text
    assert "gufunc" not in text and "signature" not in text
    with pytest.raises(ValueError):                 # still a ValueError
        x @ y
    assert tk.matmul(x, y, transpose_a=True).shape == (3, 4)


def test_the_internal_op_keeps_numpys_vector_rules_for_tapekits_own_code():
    a, v = tk.constant([[1.0, 2.0], [3.0, 4.0]]), tk.Variable([1.0, -1.0])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(matmul_op(a, v))
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [4.0, 6.0])   # column sums of a


def test_apply_gradients_refuses_an_integer_gradient():
    w = tk.Variable([1.0, 2.0], name="w")
    with pytest.raises(TypeError, match=r"SGD\.apply_gradients.*'w:0' \(float32\).*dtype int32"):
        tk.optimizers.SGD(0.1).apply_gradients([(tk.constant([1, 1]), w)])
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])


@pytest.mark.parametrize("tangent", [np.array([1.0]), tk.constant([1.0], dtype=tk.float64)])
def test_forward_accumulator_needs_the_primals_dtype(tangent):
    with pytest.raises(TypeError, match=r"ForwardAccumulator: tangent #0 has dtype float64.*float32"):
        tk.ForwardAccumulator(tk.Variable([1.0]), tangent)
    with tk.ForwardAccumulator(x := tk.constant([1.0]), np.float32([1.0])) as acc:
        y = x * 3.0
    assert acc.jvp(y).numpy().tolist() == [3.0]


def test_range_with_a_zero_step():
    with pytest.raises(IAE, match=r"range: delta=0.*limit=5"):
        tk.range(0, 5, 0)


def test_linspace_needs_at_least_one_value():
    with pytest.raises(IAE, match=r"linspace: num must be at least 1.*num=0"):
        tk.linspace(0.0, 1.0, 0)
    assert tk.linspace(0.0, 1.0, 1).numpy().tolist() == [0.0]


@pytest.mark.parametrize("call, name", [
    (lambda x: tk.nn.softmax(x, axis=3), "softmax"),
    (lambda x: tk.nn.log_softmax(x, axis=-3), "log_softmax"),
    (lambda x: tk.nn.softmax_cross_entropy_with_logits(x, x, axis=3),
     "softmax_cross_entropy_with_logits")])
def test_softmax_axes_name_the_op(call, name):
    with pytest.raises(IAE, match=rf"^{name}: axis = -?3 is out of range for a tensor of rank 2"):
        call(tk.ones((2, 3)))


def test_a_second_gradient_after_a_failed_first_says_what_happened():
    x = tk.Variable(0.0)
    with tk.GradientTape() as tape:
        y = tk.sqrt(x)
    with pytest.raises(tk.debugging.NumericsError):
        with tk.debugging.check_numerics_enabled():
            tape.gradient(y, x)                       # 1 / (2 sqrt(0)): inf, raised
    with pytest.raises(RuntimeError, match=r"first gradient call raised NumericsError.*released "
                                           r"the tape's records.*persistent=True"):
        tape.gradient(y, x)


def test_a_read_only_view_of_a_writable_array_is_copied():
    b = np.arange(3.0)
    a = b.view()
    a.flags.writeable = False
    c, v = tk.constant(a), tk.Variable(a)
    with tk.GradientTape() as tape:
        tape.watch(c)
        y = tk.reduce_sum(c * a)          # `a` as an op input, saved by the tape
    b[:] = 100.0
    np.testing.assert_array_equal(c.numpy(), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(tape.gradient(y, c).numpy(), [0.0, 1.0, 2.0])


def test_an_exploding_gradient_is_silent_like_tensorflow():
    x = tk.Variable(np.float32(1e30))
    with tk.GradientTape() as tape, np.errstate(over="ignore"):
        y = x * x * x                     # inf forward too: that warning is NumPy's own
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = tape.gradient(y, x)
    assert np.isinf(float(g))


def test_numpy_function_on_a_trainable_variable_inside_a_tape_raises():
    # A trainable Variable is watched as soon as an op reads it; np.sort would have read it
    # past the tape and returned a plain array (the path to v broken, silently).
    v = tk.Variable([2.0, 1.0])
    with tk.GradientTape():
        with pytest.raises(TypeError, match="numpy.sort"):
            np.sort(v)
    with tk.GradientTape(watch_accessed_variables=False):
        assert np.sort(v).tolist() == [1.0, 2.0]     # nothing watches v here
    assert np.sort(v).tolist() == [1.0, 2.0]         # and outside any tape
