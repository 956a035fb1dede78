"""Core integrity (issue 14, part 1): values that cannot change under the tape, checked
inputs, atomic variable updates, clear errors.

Every test here failed (or passed a silent wrong number) before the fix it covers.
"""
import copy
import sys
import threading
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tapekit as tk
from tapekit import layers, optimizers
from tapekit.ops import getitem
from tapekit.tensor import TracedValueWarning


# --- 1. aliasing: what enters is copied, what leaves cannot change the tensor ---------------



def test_an_array_given_to_an_op_is_not_kept_by_the_tape():
    X = np.array([[1.0, 2.0]], np.float32)
    w = tk.Variable([[1.0], [1.0]])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(X @ w)        # matmul saves X for d y / d w = X^T
    X[:] = 0
    assert tape.gradient(y, w).numpy().tolist() == [[1.0], [2.0]]


@pytest.mark.parametrize("order", ["tensor first", "array first"])
def test_a_constant_array_beside_a_tensor_is_copied_when_saved(order):
    x = tk.Variable([1.0, 2.0])
    c = np.array([3.0, 4.0], np.float32)
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(x * c if order == "tensor first" else c * x)   # multiply saves c
    c[:] = 0
    assert tape.gradient(y, x).numpy().tolist() == [3.0, 4.0]


@pytest.mark.parametrize("op", [lambda a: tk.reshape(a, (4,)), tk.identity, tk.transpose,
                                tk.stop_gradient, lambda a: getitem(a, 0),
                                lambda a: tk.cast(a, tk.float32)])
def test_a_view_of_the_callers_array_is_not_the_result(op):
    arr = np.arange(4, dtype=np.float32).reshape(2, 2)
    out = op(arr)
    before = out.numpy().copy()
    arr[:] = -7
    np.testing.assert_array_equal(out.numpy(), before)


def test_index_and_gather_arrays_are_copied_for_the_gradient():
    x = tk.Variable([1.0, 2.0, 3.0])
    idx = np.array([2, 2])
    with tk.GradientTape(persistent=True) as tape:
        y1 = tk.reduce_sum(x[idx])
        y2 = tk.reduce_sum(tk.gather(x, idx))
    idx[:] = 0
    for y in (y1, y2):
        assert tape.gradient(y, x).numpy().tolist() == [0.0, 0.0, 2.0]


def test_np_asarray_hands_out_a_read_only_value():
    c = tk.constant([1.0, 2.0])
    a = np.asarray(c)
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 9
    assert c.numpy().tolist() == [1.0, 2.0]
    np.array(c)[0] = 9                       # np.array copies: the caller's to change
    assert c.numpy().tolist() == [1.0, 2.0]
    assert np.asarray(c, dtype=np.float64).flags.writeable   # a converted copy


def test_np_asarray_of_a_variable_is_read_only_and_updates_copy_on_write():
    v = tk.Variable([1.0, 2.0])
    held = np.asarray(v)
    with pytest.raises(ValueError, match="read-only"):
        held[0] = 9
    v.assign_add([1.0, 1.0])                 # a new array: the frozen one keeps its numbers
    assert held.tolist() == [1.0, 2.0] and v.numpy().tolist() == [2.0, 3.0]
    del held
    v.assign_add([1.0, 1.0])
    assert v.numpy().tolist() == [3.0, 4.0]


def test_numpy_functions_cannot_write_into_a_tensor():
    t, v = tk.constant([1.5, 2.5]), tk.Variable([1.0, 2.0])
    src = np.array([9.0, 9.0], np.float32)
    for call in (lambda: np.copyto(t, src), lambda: np.copyto(v, src), lambda: np.copyto(dst=t, src=src),
                 lambda: np.round(src, out=t), lambda: np.around(src, 1, t)):
        with pytest.raises(TypeError, match="cannot write into a tapekit tensor"):
            call()
    assert t.numpy().tolist() == [1.5, 2.5] and v.numpy().tolist() == [1.0, 2.0]
    out = np.empty(2, np.float32)
    np.copyto(out, t)                          # reading a tensor into an array is fine
    assert out.tolist() == [1.5, 2.5]


def test_numpy_returns_a_copy_the_user_may_change():
    for t in (tk.constant([1.0, 2.0]), tk.Variable([1.0, 2.0])):
        n = t.numpy()
        n[0] = 9
        assert t.numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize("update", [
    lambda v: v.assign_add([10.0, 10.0]), lambda v: v.assign_sub([10.0, 10.0]),
    lambda v: v.assign([10.0, 10.0]),
    lambda v: optimizers.SGD(1.0).apply_gradients([(tk.constant([1.0, 1.0]), v)]),
    lambda v: optimizers.Adam(1.0).apply_gradients([(tk.constant([1.0, 1.0]), v)])])
def test_updating_a_variable_after_the_forward_pass_keeps_the_recorded_value(update):
    v = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(v * v)
    update(v)
    assert tape.gradient(y, v).numpy().tolist() == [2.0, 4.0]   # 2 v at the time of the forward


def test_a_tk_function_replay_does_not_return_a_view_of_the_callers_array():
    f = tk.function(lambda x: tk.reshape(x, [-1]))
    a = np.ones((2, 2), np.float32)
    traced, replayed, by_keyword = f(a), f(a), f(x=a)
    a[:] = 5
    for y in (traced, replayed, by_keyword):
        assert y.numpy().tolist() == [1.0] * 4


# Property: no mutation of any array a user passed in or got out changes a recorded value,
# a result or a gradient. Each example runs the same computation twice: once and mutated
# afterwards, once on untouched copies; the two must agree exactly.
floats = st.floats(-2, 2, allow_nan=False, width=32)


def _computation(x_arr, a, b, idx, read_out):
    x = tk.Variable(x_arr)
    c = tk.constant(a)
    with tk.GradientTape(persistent=True) as tape:
        h = tk.sin(x * c) * b + x[idx] * 0.5        # a constant, an op input, an index array
        y = tk.reduce_sum(h * tk.gather(x, idx))
    outs = read_out(h, x)
    return tape, x, y, h, outs


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=st.integers(1, 5))
def test_no_user_mutation_changes_a_recorded_value_or_gradient(data, n):
    arr = hnp.arrays(np.float32, n, elements=floats)
    x_arr, a, b = data.draw(arr), data.draw(arr), data.draw(arr)
    idx = data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, n - 1)))

    def reference():
        tape, x, y, h, _ = _computation(x_arr.copy(), a.copy(), b.copy(), idx.copy(), lambda h, x: None)
        return y.numpy(), h.numpy(), tape.gradient(y, x).numpy()

    want_y, want_h, want_g = reference()
    got = {}
    tape, x, y, h, outs = _computation(
        x_arr, a, b, idx, lambda h, x: (np.asarray(h), h.numpy(), np.asarray(x), x.numpy()))
    # mutate everything the user handed in or got out
    for user_array in (x_arr, a, b, outs[1], outs[3]):
        user_array[...] = 123.0
    idx[...] = 0
    for frozen in (outs[0], outs[2]):
        if frozen.ndim:
            with pytest.raises(ValueError, match="read-only"):
                frozen[...] = 123.0
    got["g"] = tape.gradient(y, x).numpy()
    np.testing.assert_array_equal(y.numpy(), want_y)
    np.testing.assert_array_equal(h.numpy(), want_h)
    np.testing.assert_array_equal(got["g"], want_g)


# --- 2. values that went through unchecked ------------------------------------------------

def test_int32_assign_out_of_range_raises_instead_of_wrapping():
    v = tk.Variable([1], dtype=tk.int32)
    with pytest.raises(ValueError, match=r"Variable.assign.*1099511627776.*int32"):
        v.assign([2 ** 40])
    with pytest.raises(ValueError, match="does not fit in int32"):
        v.assign(tk.constant([2 ** 40], dtype=tk.int64))
    assert v.numpy().tolist() == [1]
    v.assign([2 ** 31 - 1])                  # the largest int32 still fits
    assert v.numpy().tolist() == [2 ** 31 - 1]


def test_python_ints_beyond_int32_become_int64_as_in_tensorflow():
    assert tk.constant(2 ** 40).dtype == tk.int64 and int(tk.constant(2 ** 40)) == 2 ** 40
    assert tk.constant([1, 2]).dtype == tk.int32
    with pytest.raises(ValueError, match="does not fit in int32"):
        tk.constant([2 ** 40], dtype=tk.int32)


def test_a_fraction_into_an_int_variable_raises_instead_of_a_silent_no_op():
    v = tk.Variable(1)
    with pytest.raises(TypeError, match=r"Variable.assign_add.*0.9.*int32"):
        v.assign_add(0.9)
    with pytest.raises(TypeError, match="drop the fraction"):
        tk.constant([1.5], dtype=tk.int32)
    v.assign_add(2)
    assert int(v) == 3
    f = tk.Variable(1.0)
    f.assign_add(1)                          # an int into a float variable is exact: fine
    assert float(f) == 2.0


@pytest.mark.parametrize("make", [
    lambda: optimizers.Adam(None), lambda: optimizers.Adam(-0.1), lambda: optimizers.Adam(float("nan")),
    lambda: optimizers.Adam(beta_1=1.0), lambda: optimizers.Adam(beta_1=1.5),
    lambda: optimizers.Adam(beta_2=-0.1), lambda: optimizers.Adam(epsilon=-1e-7),
    lambda: optimizers.Adam("0.01"), lambda: optimizers.SGD(-1.0), lambda: optimizers.SGD(float("inf")),
    lambda: optimizers.SGD(momentum=1.5), lambda: optimizers.SGD(momentum=None),
    lambda: optimizers.RMSprop(None), lambda: optimizers.RMSprop(rho=1.0), lambda: optimizers.RMSprop(rho=-1),
    lambda: optimizers.RMSprop(epsilon=-1.0), lambda: optimizers.RMSprop(momentum=-0.5),
    lambda: optimizers.RMSprop(momentum=2.0)])
def test_invalid_hyperparameters_raise_naming_the_argument(make):
    with pytest.raises((TypeError, ValueError)) as info:
        make()
    assert any(k in str(info.value) for k in ("learning_rate", "beta_1", "beta_2", "epsilon",
                                               "momentum", "rho"))


def test_learning_rate_setter_is_checked_and_valid_edges_are_accepted():
    opt = optimizers.Adam(learning_rate=0.0, epsilon=0.0)     # zero is allowed for both
    with pytest.raises(ValueError, match="learning_rate must be >= 0"):
        opt.learning_rate = -1
    with pytest.raises(TypeError, match="learning_rate must be a number"):
        opt.learning_rate = None
    opt.learning_rate = tk.constant(0.5)
    assert float(opt.learning_rate) == 0.5
    assert optimizers.SGD(np.float32(0.1), momentum=1).momentum == 1.0


@pytest.mark.parametrize("opt", [lambda: optimizers.SGD(0.1), lambda: optimizers.SGD(0.1, momentum=0.9),
                                 lambda: optimizers.Adam(0.1), lambda: optimizers.RMSprop(0.1)])
@pytest.mark.parametrize("grad", [tk.constant(1.0), tk.constant([1.0]), tk.constant([[1.0, 1.0, 1.0]])])
def test_apply_gradients_checks_the_gradient_shape(opt, grad):
    v = tk.Variable([1.0, 2.0, 3.0])
    optimizer = opt()
    with pytest.raises(ValueError, match=r"gradient for 'Variable:0' has shape .* the variable \(3,\)"):
        optimizer.apply_gradients([(grad, v)])
    assert v.numpy().tolist() == [1.0, 2.0, 3.0] and int(optimizer.iterations) == 0


def test_transpose_perm_must_be_a_permutation():
    x = tk.ones((2, 3))
    for perm in ([5, 0], [0, 0], [0], [0, 1, 2], [0.0, 1.0]):
        with pytest.raises((ValueError, TypeError), match="transpose: perm"):
            tk.transpose(x, perm=perm)
    assert tk.transpose(x, perm=[-1, 0]).shape == (3, 2)      # negative axes count from the end
    assert tk.transpose(x, perm=[1, 0]).shape == (3, 2)


@pytest.mark.parametrize("call, match", [
    (lambda x: tk.reduce_sum(x, axis=1.7), "reduce_sum: axis must be an integer, got 1.7"),
    (lambda x: tk.reduce_mean(x, axis=[0, 1.5]), "reduce_mean: axis"),
    (lambda x: tk.reduce_max(x, axis=True), "reduce_max: axis must be an integer, got the bool"),
    (lambda x: tk.reshape(x, [3.9, 2]), r"reshape: shape\[0\] must be an integer, got 3.9"),
    (lambda x: tk.reshape(x, np.array([3.0, 2.0])), "reshape: shape must hold integers"),
    (lambda x: tk.expand_dims(x, 1.5), "expand_dims: axis must be an integer"),
    (lambda x: tk.concat([x, x], axis=0.5), "concat: axis must be an integer"),
    (lambda x: tk.stack([x, x], axis=1.5), "stack: axis must be an integer"),
    (lambda x: tk.squeeze(x, axis=0.5), "squeeze: axis must be an integer"),
    (lambda x: tk.gather(x, [0], axis=1.5), "gather: axis must be an integer"),
    (lambda x: tk.zeros([2.5, 3]), r"shape\[0\] must be an integer"),
    (lambda x: tk.ones(2.5), r"shape\[0\] must be an integer"),
])
def test_fractional_axes_and_sizes_raise_instead_of_truncating(call, match):
    with pytest.raises(TypeError, match=match):
        call(tk.ones((3, 2)))


def test_out_of_range_axes_and_sizes_raise():
    x = tk.ones((3, 2))
    with pytest.raises(ValueError, match="gather: axis = 5 is out of range"):
        tk.gather(x, [0], axis=5)                 # was 5 % 2 = axis 1
    with pytest.raises(ValueError, match="reshape: shape"):
        tk.reshape(x, [-1, -1])
    with pytest.raises(ValueError, match="zeros: shape"):
        tk.zeros([-2])


def test_gather_index_out_of_range_raises_instead_of_wrapping():
    params = tk.constant([1.0, 2.0, 3.0])
    for bad in ([-1], [3], [[0, 7]]):
        with pytest.raises(IndexError, match=r"out of range \[0, 3\)"):
            tk.gather(params, bad)
    x = tk.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.gather(x, [1, 1, 0], axis=1))
    assert tape.gradient(y, x).numpy().tolist() == [[1.0, 2.0], [1.0, 2.0]]


def test_an_integer_tensor_and_a_python_float_raise_as_in_tensorflow():
    i = tk.constant([1, 2])
    for call in (lambda: i + 1.5, lambda: 1.5 + i, lambda: i * 0.5, lambda: i ** 0.5,
                 lambda: i - 1.0, lambda: i / 1.5, lambda: tk.add(i, 1.5),
                 lambda: i + np.array([1.5, 2.5])):
        with pytest.raises(TypeError, match="int32"):
            call()
    b = tk.constant([True, False])
    with pytest.raises(TypeError, match="bool"):
        b + 1
    with pytest.raises(TypeError, match="add: inputs have different dtypes"):
        tk.add([1], [2.5])
    # what TensorFlow allows still works, with TensorFlow's dtypes
    assert (i + 2).dtype == tk.int32 and (i * 3).numpy().tolist() == [3, 6]
    assert (i / 2).dtype == tk.float64          # truediv of int32 is float64 in TensorFlow too
    assert (tk.constant([1.0]) + 2).dtype == tk.float32
    assert (i < 1.5).numpy().tolist() == [True, False]     # comparisons: a bool, no number changes
    with pytest.raises(ValueError, match="add: .*out of bounds for int32"):
        i + 2 ** 40


def test_float_only_math_refuses_integers_and_bools():
    for x in (tk.constant([True]), tk.constant([1]), tk.constant([1], dtype=tk.int64)):
        for f in (tk.exp, tk.log, tk.sin, tk.cos, tk.tanh, tk.sqrt, tk.sigmoid, np.exp):
            with pytest.raises(TypeError, match=r"needs a floating input .* got dtype"):
                f(x)
    with pytest.raises(TypeError, match="exp: needs a floating input"):
        tk.exp([1, 2])
    assert tk.square(tk.constant([3])).numpy().tolist() == [9]       # TensorFlow allows these
    assert tk.abs(tk.constant([-3])).numpy().tolist() == [3]
    assert tk.exp(tk.constant([0.0], dtype=tk.float16)).dtype == tk.float16


# --- 3. atomic variable updates ----------------------------------------------------------------

@pytest.fixture
def tiny_switch_interval():
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)     # switch threads as often as possible: races show up
    yield
    sys.setswitchinterval(old)


def _in_threads(n, work):
    threads = [threading.Thread(target=work) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_assign_add_and_assign_sub_are_atomic_across_threads(tiny_switch_interval):
    v = tk.Variable(0.0, dtype=tk.float64)
    w = tk.Variable(np.zeros(3))

    def work():
        for _ in range(2000):
            v.assign_add(1.0)
            w.assign_sub(np.ones(3))
    _in_threads(8, work)
    assert float(v) == 16000.0
    assert w.numpy().tolist() == [-16000.0] * 3


def test_an_optimizer_shared_by_threads_loses_no_step(tiny_switch_interval):
    v = tk.Variable([0.0, 0.0], dtype=tk.float64)
    opt = optimizers.SGD(1.0, momentum=0.5)
    g = tk.constant([1.0, 2.0], dtype=tk.float64)

    def work():
        for _ in range(100):
            opt.apply_gradients([(g, v)])
    _in_threads(8, work)
    assert int(opt.iterations) == 800
    sequential = tk.Variable([0.0, 0.0], dtype=tk.float64)
    ref = optimizers.SGD(1.0, momentum=0.5)
    for _ in range(800):
        ref.apply_gradients([(g, sequential)])
    np.testing.assert_array_equal(v.numpy(), sequential.numpy())


def test_a_variable_still_copies_with_its_lock():
    v = tk.Variable([1.0, 2.0])
    c = copy.deepcopy(v)
    c.assign_add([1.0, 1.0])
    assert v.numpy().tolist() == [1.0, 2.0] and c.numpy().tolist() == [2.0, 3.0]


# --- 5. obscure errors made clear ----------------------------------------------------------

def test_dense_on_a_rank_1_input_names_the_layer_and_the_shapes():
    with pytest.raises(ValueError, match=r"expected min_ndim=2, found ndim=1.*\(3,\).*batch axis"):
        layers.Dense(2)(tk.ones((3,)))
    layer = layers.Dense(2)
    layer(tk.ones((1, 3)))
    with pytest.raises(ValueError, match="min_ndim=2"):
        layer(tk.ones((3,)))


@pytest.mark.parametrize("make, match", [
    (lambda: layers.Conv2D(2, 0), "Conv2D: kernel_size must be a positive integer"),
    (lambda: layers.Conv2D(2, (3, -1)), "Conv2D: kernel_size"),
    (lambda: layers.Conv2D(2, 2.5), "Conv2D: kernel_size"),
    (lambda: layers.Conv2D(2, 3, strides=0), "Conv2D: strides"),
    (lambda: layers.Conv2D(-1, 3), "Conv2D: filters must be a positive integer, got -1"),
    (lambda: layers.Conv2D(0, 3), "Conv2D: filters"),
    (lambda: layers.MaxPooling2D(0), "MaxPooling2D: pool_size"),
    (lambda: layers.Dense(0), "Dense: units must be a positive integer, got 0"),
    (lambda: layers.Dropout(None), "Dropout: rate"),
])
def test_layer_arguments_are_checked(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_conv2d_on_the_wrong_rank_and_flatten_of_a_scalar():
    with pytest.raises(ValueError, match=r"expected ndim=4, found ndim=3"):
        layers.Conv2D(2, 3)(tk.ones((4, 4, 1)))
    with pytest.raises(ValueError, match=r"\"flatten(_\d+)?\".*expected min_ndim=1, found ndim=0.*Flatten"):
        layers.Flatten()(tk.constant(1.0))
    assert layers.Flatten()(tk.ones((2, 3, 4))).shape == (2, 12)


def test_apply_gradients_given_non_pairs():
    v = tk.Variable([1.0, 2.0])
    g = tk.constant([1.0, 1.0])
    opt = optimizers.SGD()
    with pytest.raises(TypeError, match=r"item 0 is a tensor of shape \(2,\).*|pairs"):
        opt.apply_gradients([g])
    with pytest.raises(TypeError, match="got one tensor of shape"):
        opt.apply_gradients(g)
    with pytest.raises(TypeError, match=r"got a Tensor in place of the variable.*\(gradient, variable\)"):
        opt.apply_gradients([(v, g)])          # the pair the wrong way round
    opt.apply_gradients([[g, v]])              # a list pair is fine
    assert v.numpy().tolist() == pytest.approx([0.99, 1.99])




def test_reading_a_traced_value_in_tk_function_gives_the_eager_numbers():
    # It used to be frozen with a TracedValueWarning; now float(x) is a guard: a call whose
    # value differs traces again (issue 24).
    @tk.function
    def f(x):
        return x * float(x)

    with warnings.catch_warnings():
        warnings.simplefilter("error", TracedValueWarning)
        assert [float(f(tk.constant(v))) for v in (2.0, 3.0, 2.0)] == [4.0, 9.0, 4.0]
    assert f.experimental_get_tracing_count() == 2        # one path per value of float(x)


@pytest.mark.parametrize("read", [lambda x, v, c: x.numpy(), lambda x, v, c: int(x),
                                  lambda x, v, c: float(v)])
def test_numpy_int_and_variables_read_in_tk_function_follow_every_call(read):
    v = tk.Variable(1.0)
    c = tk.constant(5.0)

    def f(x):
        return x * float(read(x, v, c)) + v

    traced = tk.function(f)
    for x, v_value in ((2.0, 1.0), (3.0, 1.0), (3.0, 4.0), (2.0, 1.0)):
        v.assign(v_value)
        assert float(traced(tk.constant(x))) == float(f(tk.constant(x)))


def test_reading_a_constant_from_outside_in_tk_function_does_not_warn():
    c = tk.constant(5.0)

    @tk.function
    def f(x):
        return x * float(c)                    # a constant: the same number at every call

    with warnings.catch_warnings():
        warnings.simplefilter("error", TracedValueWarning)
        assert float(f(tk.constant(2.0))) == 10.0
