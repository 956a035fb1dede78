"""GradientTape behaviour: what is recorded, structures, errors, threads, memory."""
import gc
import threading
import weakref

import numpy as np
import pytest

import tapekit as tk
from tapekit.context import state


def test_sources_and_targets_keep_their_structure():
    a, b = tk.Variable(1.0), tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        y = {"u": a * 3.0, "v": tk.reduce_sum(b * b)}
    g = tape.gradient([y["u"], y["v"]], {"first": a, "rest": (b,)})
    assert g["first"].numpy() == 3.0
    np.testing.assert_array_equal(g["rest"][0].numpy(), [2.0, 4.0])


def test_unconnected_gradients_none_and_zero():
    x, y = tk.Variable([1.0, 2.0]), tk.Variable(5.0)
    with tk.GradientTape(persistent=True) as tape:
        z = x * 2.0
    assert tape.gradient(z, y) is None
    assert tape.gradient(z, y, unconnected_gradients=tk.UnconnectedGradients.ZERO).numpy() == 0.0
    assert tape.gradient(z, y, unconnected_gradients="zero").numpy() == 0.0
    with pytest.raises(ValueError, match="unconnected_gradients must be"):
        tape.gradient(z, y, unconnected_gradients="zeros")


def test_an_unwatched_constant_read_by_a_recorded_op_gets_no_gradient():
    # Found by tools/tf_diff. TF 2.21 gives None (zeros with 'zero') for c, the constant the
    # tape never watched, whether or not w is asked for too; tapekit gave d(c*w)/dc = w = 2.0
    # when c was the only source (and None beside w).
    c, w = tk.constant(3.0), tk.constant(2.0)
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(w)
        y = c * w
    assert tape.gradient(y, c) is None
    assert tape.gradient(y, [c]) == [None]
    assert tape.gradient(y, c, unconnected_gradients="zero").numpy() == 0.0
    assert tape.jacobian(y, c) is None
    assert tape.gradient(y, w).numpy() == 3.0
    assert tape.gradient(c, c).numpy() == 1.0   # a target that is its own source: TF 2.21 gives 1.0


def test_stop_gradients_output_is_recorded_but_never_a_source():
    # Found by tools/tf_diff. TF 2.21 gives None for s (stop_gradient's output) and for p,
    # computed from s alone, and [1. 1.] for x; tapekit gave d c / d s = [3. 3.] and
    # d c / d p = [1. 1.]. Watched again, s is a source: TF gives [3. 3.].
    x = tk.constant([1.5, 2.0])
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(x)
        s = tk.stop_gradient(x)
        p = s * 3.0
        c = p + x
        w = tk.stop_gradient(x * 1.0)
        tape.watch(w)
        z = w * 3.0
    assert tape.gradient(c, s) is None and tape.gradient(c, p) is None
    assert tape.gradient(c, [s, x])[0] is None
    np.testing.assert_array_equal(tape.gradient(c, x).numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(tape.gradient(z, w).numpy(), [3.0, 3.0])
    assert tape.gradient(z, x) is None
    assert tape.jacobian(s, s) is None                       # TF 2.21: None
    np.testing.assert_array_equal(tape.gradient(s, s).numpy(), [1.0, 1.0])   # TF 2.21: ones
    # Still on the tape, for the picture and explain:
    assert [r.op.name for r in tape.records][:3] == ["stop_gradient", "multiply", "add"]


def test_a_value_computed_from_integers_alone_is_not_a_source():
    # Found by tools/tf_diff. TensorFlow's tape tracks floating values only: f (a float32 cast
    # of an int32 value) and b (a cast of a comparison) get None in TF 2.21; tapekit gave
    # [1.5 2.] (x, the other factor). Gradients with respect to x are unchanged.
    x = tk.constant([1.5, 2.0])
    n = tk.constant([1, 2])
    with pytest.warns(UserWarning, match="int32"):
        with tk.GradientTape(persistent=True) as tape:
            tape.watch([x, n])
            f = tk.cast(tk.cast(x, tk.int32), tk.float32)
            b = tk.cast(x > 1.6, tk.float32)
            h = tk.cast(n, tk.float32)
            g, k, m = f * x, b * x, h * x
    assert tape.gradient(g, f) is None and tape.gradient(k, b) is None and tape.gradient(m, h) is None
    np.testing.assert_array_equal(tape.gradient(g, x).numpy(), [1.0, 2.0])   # f: 1, 2
    np.testing.assert_array_equal(tape.gradient(k, x).numpy(), [0.0, 1.0])   # b: 0, 1
    assert tape.jacobian(f, f) is None                                     # TF 2.21: None
    assert "cast" in [r.op.name for r in tape.records]


def test_zeros_like_and_ones_like_of_a_tracked_tensor_are_sources():
    # Found by tools/tf_diff. TF 2.21 records ZerosLike and OnesLike: d q / d zl = [1. 1.] and
    # the jacobian of zl w.r.t. itself is the identity; tapekit made constants (None). With
    # another dtype TensorFlow makes a constant: None.
    x = tk.constant([1.5, 2.0])
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(x)
        zl, ol = tk.zeros_like(x), tk.ones_like(x)
        z64 = tk.zeros_like(x, dtype=tk.float64)
        q = zl + ol * x * x
        r = z64 * 2.0
    np.testing.assert_array_equal(tape.gradient(q, zl).numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(tape.gradient(q, ol).numpy(), [2.25, 4.0])   # x * x
    np.testing.assert_array_equal(tape.gradient(q, x).numpy(), [3.0, 4.0])     # 2 x, not through zl
    np.testing.assert_array_equal(tape.jacobian(zl, zl).numpy(), np.eye(2))
    assert tape.gradient(r, z64) is None


def test_batch_jacobian_of_an_unconnected_source_has_the_targets_dtype():
    # Found by tools/tf_diff: TF 2.21 gives float32 zeros of shape (2, 3, 1) here (the zeros
    # take the target's dtype); tapekit gave the source's float64.
    x = tk.constant(np.ones((2, 3), np.float32))
    s = tk.constant(np.ones((2, 1)))
    with tk.GradientTape() as tape:
        tape.watch([x, s])
        y = x * 2.0
    j = tape.batch_jacobian(y, s)
    assert j.dtype == np.float32 and j.shape == (2, 3, 1) and not j.numpy().any()


def test_an_integer_target_beside_float_ones_drops_only_itself():
    # Found by tools/tf_diff: TF 2.21 gives [3. 3.] (the float target's gradient) for both
    # calls; tapekit dropped every target when one was an integer, and gave None (zeros).
    x = tk.constant([1.0, 2.0])
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(x)
        i, f = tk.cast(x, tk.int32), x * 3.0
    with pytest.warns(UserWarning, match="int32"):
        np.testing.assert_array_equal(tape.gradient([i, f], x).numpy(), [3.0, 3.0])
    with pytest.warns(UserWarning, match="int32"):
        g = tape.gradient({"i": i, "f": f}, x, unconnected_gradients="zero")
    np.testing.assert_array_equal(g.numpy(), [3.0, 3.0])
    with pytest.warns(UserWarning, match="int32"):
        assert tape.gradient(i, x) is None


def test_jacobian_of_an_untracked_target_is_none_even_wrt_itself():
    # Found by tools/tf_diff: TF 2.21 gives None for jacobian(c, c) of a constant the tape never
    # watched (zeros with 'zero'), and the identity when the tape tracks it; tapekit gave 1.0.
    c, x = tk.constant(2.0), tk.constant([1.0, 2.0])
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * c
    assert tape.jacobian(c, c) is None
    assert tape.jacobian(c, c, unconnected_gradients="zero").numpy() == 0.0
    np.testing.assert_array_equal(tape.jacobian(y, y).numpy(), np.eye(2))
    assert tape.gradient(c, c).numpy() == 1.0   # TF 2.21 gives 1.0 for gradient(c, c)


def test_output_gradients_weight_the_targets():
    x = tk.Variable([1.0, 2.0, 3.0])
    with tk.GradientTape(persistent=True) as tape:
        y = x * x
    g = tape.gradient(y, x, output_gradients=tk.constant([1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(g.numpy(), [2.0, 0.0, 12.0])
    with pytest.raises(ValueError, match=r"output_gradients has shape \(2,\).*\(3,\)"):
        tape.gradient(y, x, output_gradients=tk.constant([1.0, 2.0]))


def test_bad_arguments_have_clear_errors():
    x = tk.Variable(1.0)
    with tk.GradientTape() as tape:
        with pytest.raises(TypeError, match="can only watch tk.Tensor or tk.Variable, got float"):
            tape.watch(3.0)
        y = x * 2.0
    with pytest.raises(TypeError, match=r"source must be a tk.Tensor.*got float"):
        tape.gradient(y, 1.0)
    with pytest.raises(TypeError, match="source #1 must be a tk.Tensor.*got NoneType"):
        tape.gradient(y, [x, None])


def test_shape_mismatch_names_the_op_and_both_shapes():
    with pytest.raises(ValueError, match=r"add: .*shape \(2,\).*shape \(3,\)"):
        tk.constant([1.0, 2.0]) + tk.constant([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"matmul: .*shape \(2, 3\).*shape \(2, 3\)"):
        tk.matmul(tk.ones((2, 3)), tk.ones((2, 3)))
    with pytest.raises(ValueError, match=r"reshape: .*shape \(2, 3\).*shape=\(4,\)"):
        tk.reshape(tk.ones((2, 3)), (4,))   # one input with attributes


def test_mixed_dtypes_are_refused_with_the_fix():
    with pytest.raises(TypeError, match=r"multiply: inputs have different dtypes float32 and int32.*tk.cast"):
        tk.constant(1.0) * tk.constant(2)
    # Python scalars and lists adopt the tensor's dtype, as in TensorFlow
    assert (tk.constant(1.0) * 2).dtype == np.float32
    assert (tk.constant([1.0, 2.0]) + [1, 2]).dtype == np.float32


def test_integer_and_bool_sources_warn_every_time():
    x = tk.Variable(3)
    for _ in range(3):
        with tk.GradientTape() as tape:
            y = x * x
        with pytest.warns(tk.GradientDtypeWarning, match="int32"):
            assert tape.gradient(y, x) is None


def test_nan_and_inf_propagate_like_numpy():
    x = tk.Variable([0.0, -1.0, 4.0])
    with tk.GradientTape() as tape:
        y = tk.sqrt(x)
    with np.errstate(all="ignore"):
        g = tape.gradient(y, x).numpy()
    assert g[0] == np.inf and np.isnan(g[1]) and g[2] == 0.25


def test_non_persistent_tape_drops_records_after_gradient():
    x = tk.Variable(np.ones(1000, np.float32))
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.tanh(x))
    big = tape.records[0].ans
    ref = weakref.ref(big)
    del big
    tape.gradient(y, x)
    gc.collect()
    assert tape._records == [] and ref() is None


def test_exception_inside_with_leaves_no_tape_active():
    with pytest.raises(ZeroDivisionError):
        with tk.GradientTape():
            1 / 0
    assert state.tapes == []


def test_tape_stack_is_per_thread():
    seen = {}
    x = tk.Variable(2.0)

    def worker():
        seen["tapes_in_thread"] = list(state.tapes)
        with tk.GradientTape() as t:
            y = x * x
        seen["grad"] = t.gradient(y, x).numpy()

    with tk.GradientTape() as outer:
        th = threading.Thread(target=worker)
        th.start()
        th.join()
        z = x * 3.0
    assert seen == {"tapes_in_thread": [], "grad": 4.0}
    assert len(outer._records) == 1   # the thread's op was not recorded here
    assert outer.gradient(z, x).numpy() == 3.0


def test_only_ops_touching_watched_tensors_are_recorded():
    a, c = tk.Variable(1.0), tk.constant(2.0)
    with tk.GradientTape() as tape:
        u = c * c          # constant only: not recorded
        v = a * u          # recorded
        w = v + 1.0        # recorded (v is tracked)
    assert [r.op.name for r in tape.records] == ["multiply", "add"]
    assert tape.gradient(w, a).numpy() == 4.0


def test_stop_recording_reset_and_watched_variables():
    a, b = tk.Variable(1.0, name="a"), tk.Variable(2.0, name="b")
    with tk.GradientTape(persistent=True) as tape:
        y = a * b
        with tape.stop_recording():
            z = a * 10.0
        tape.reset()
        w = b * 3.0
    assert [v.name for v in tape.watched_variables()] == ["b:0"]
    assert tape.gradient(w, b).numpy() == 3.0 and tape.gradient(w, a) is None
    assert tape.gradient(z, a) is None and y.numpy() == 2.0
    # Outside the block, TensorFlow 2.21's error types: ValueError once the block has ended,
    # RuntimeError for a tape never entered; a persistent tape's records are never lost.
    with pytest.raises(ValueError, match="stop_recording: the tape is not recording: its `with` block has ended"):
        with tape.stop_recording():
            pass
    with pytest.raises(ValueError, match=r"reset: the tape is not recording.*inside the tape's `with` block"):
        tape.reset()
    assert tape.gradient(w, b).numpy() == 3.0
    fresh = tk.GradientTape()
    with pytest.raises(RuntimeError, match="stop_recording: the tape is not recording"):
        with fresh.stop_recording():
            pass
    with pytest.raises(ValueError, match="reset: the tape is not recording"):
        fresh.reset()
    with tk.GradientTape() as once:
        y = a * b
    once.gradient(y, a)
    with pytest.raises(RuntimeError, match="stop_recording"):     # TF: its tape is gone
        with once.stop_recording():
            pass
    with tk.GradientTape(persistent=True) as paused:
        with paused.stop_recording():
            with pytest.raises(ValueError, match="not inside stop_recording"):
                paused.reset()


def test_gradient_of_a_gradient_of_a_gradient():
    x = tk.Variable(2.0)
    with tk.GradientTape() as t3:
        with tk.GradientTape() as t2:
            with tk.GradientTape() as t1:
                y = x ** 4
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    assert (d1.numpy(), d2.numpy(), d3.numpy()) == (32.0, 48.0, 48.0)


def test_variable_assign_after_recording_keeps_the_recorded_value():
    w = tk.Variable([1.0, 2.0])
    x = tk.constant([3.0, 4.0])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(w * x * w)
    w.assign([100.0, 100.0])            # must not change the gradient computed from the record
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), [6.0, 16.0])
    w.assign_add([1.0, 1.0])
    w.assign_sub(tk.constant([0.5, 0.5]))
    np.testing.assert_array_equal(w.numpy(), [100.5, 100.5])
    with pytest.raises(ValueError, match=r"shape \(2,\).*shape \(3,\)"):
        w.assign([1.0, 2.0, 3.0])


def test_numpy_returns_a_copy_so_state_cannot_be_changed_by_accident():
    w = tk.Variable([1.0, 2.0])
    w.numpy()[0] = 99.0
    assert w.numpy()[0] == 1.0


def test_jacobian_and_batch_jacobian():
    x = tk.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    w = tk.constant([[1.0, -1.0, 0.5], [2.0, 0.0, 1.0]])
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tk.tanh(x @ w)
    j = tape.jacobian(y, x).numpy()
    bj = tape.batch_jacobian(y, x).numpy()
    d = 1 - np.tanh(x.numpy() @ w.numpy()) ** 2
    assert j.shape == (3, 3, 3, 2) and bj.shape == (3, 3, 2)
    for i in range(3):
        np.testing.assert_allclose(bj[i], d[i][:, None] * w.numpy().T, rtol=1e-6)
        np.testing.assert_allclose(j[i, :, i], bj[i], rtol=1e-6)
    other = tk.constant(1.0)
    assert tape.jacobian(y, other) is None
    assert tape.batch_jacobian(y, tk.constant(np.ones((3, 4), np.float32))).numpy().shape == (3, 3, 4)


def test_hessian_by_nested_tapes_is_vectorised_and_right():
    rng = np.random.default_rng(0)
    a = tk.constant(rng.normal(size=(5, 5)))
    x = tk.constant(rng.normal(size=5))
    with tk.GradientTape() as outer:
        outer.watch(x)
        with tk.GradientTape() as inner:
            inner.watch(x)
            y = tk.reduce_sum(tk.tanh(a @ tk.expand_dims(x, -1)))   # a matrix: as in TF
        g = inner.gradient(y, x)
    h = outer.jacobian(g, x).numpy()
    t = np.tanh(a.numpy() @ x.numpy())
    expected = a.numpy().T @ np.diag(-2 * t * (1 - t * t)) @ a.numpy()
    np.testing.assert_allclose(h, expected, rtol=1e-10)


def test_forward_over_reverse_and_reverse_over_forward():
    x = tk.constant([1.0, 2.0])
    v = tk.constant([1.0, 0.0])
    f = lambda t: tk.reduce_sum(t ** 3)
    with tk.ForwardAccumulator(x, v) as acc:      # Hessian-vector product
        with tk.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
    np.testing.assert_allclose(acc.jvp(g).numpy(), [6.0, 0.0])
    with tk.GradientTape() as tape:               # gradient of a directional derivative
        tape.watch(x)
        with tk.ForwardAccumulator(x, v) as acc:
            y = f(x)
        d = acc.jvp(y)
    np.testing.assert_allclose(tape.gradient(d, x).numpy(), [6.0, 0.0])
    assert acc.jvp(tk.constant(1.0)) is None


def test_custom_gradient_replaces_the_rule():
    @tk.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return tk.clip_by_value(dy, -0.5, 0.5)
        return tk.identity(x), grad

    x = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(clip_grad(x) * 3.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.5, 0.5])


def test_custom_gradient_with_variables_and_second_order():
    w = tk.Variable(3.0)

    @tk.custom_gradient
    def scaled_square(x):
        y = w * x * x

        def grad(dy, variables=None):
            return dy * 2.0 * w * x, [dy * x * x]
        return y, grad

    x = tk.constant(2.0)
    with tk.GradientTape() as outer:
        outer.watch(x)
        with tk.GradientTape() as tape:
            tape.watch(x)
            y = scaled_square(x)
        dx, dw = tape.gradient(y, [x, w])
    assert (dx.numpy(), dw.numpy()) == (12.0, 4.0)
    assert outer.gradient(dx, x).numpy() == 6.0

    @tk.custom_gradient
    def bad(x):
        return w * x, (lambda dy: dy)
    with pytest.raises(TypeError, match="must accept a `variables` keyword"):
        with tk.GradientTape():
            bad(x)


def test_numpy_functions_are_recorded_or_refused():
    x = tk.Variable([0.5, 1.0])
    a = tk.constant([[1.0, 2.0], [3.0, 4.0]])
    with tk.GradientTape() as tape:
        ax = tk.reshape(np.matmul(a, tk.reshape(x, (2, 1))), (2,))   # matrices only, as in TF
        y = np.sum(np.sin(x) * ax) + np.mean(np.exp(x))
    assert isinstance(y, tk.Tensor)
    g = tape.gradient(y, x).numpy()
    xv, av = x.numpy(), a.numpy()
    expected = np.cos(xv) * (av @ xv) + av.T @ np.sin(xv) + np.exp(xv) / 2
    np.testing.assert_allclose(g, expected, rtol=1e-6)
    with tk.GradientTape():
        with pytest.raises(TypeError, match=r"numpy\.fft\.fft on a tensor that a GradientTape records"):
            np.fft.fft(x)
        with pytest.raises(TypeError, match=r"numpy\.cumsum on a tensor that a GradientTape records"):
            np.cumsum(x)
    with pytest.raises(tk.errors.InvalidArgumentError, match=r"rank 2 or more.*\(2, 2\).*\(2,\)"):
        np.matmul(a, x)                 # tk.matmul's rule, not NumPy's vector product
    assert np.allclose(x, [0.5, 1.0]) and np.asarray(x).dtype == np.float32


def test_dtype_defaults_follow_tensorflow():
    assert tk.constant(1.0).dtype == tk.float32
    assert tk.constant(1).dtype == tk.int32
    assert tk.constant([1, 2]).dtype == tk.int32
    assert tk.constant(np.array([1.0])).dtype == tk.float64
    assert tk.constant(True).dtype == tk.bool
    assert tk.Variable(2.0).dtype == tk.float32
    assert tk.constant(1, dtype=tk.float64).dtype == np.float64


def test_tensor_python_protocol():
    t = tk.constant([[1.0, 2.0], [3.0, 4.0]])
    assert len(t) == 2 and t.shape == (2, 2) and t.ndim == 2
    assert [r.numpy().tolist() for r in t] == [[1.0, 2.0], [3.0, 4.0]]
    assert float(t[1, 0]) == 3.0 and int(tk.constant(7)) == 7
    assert f"{tk.constant(2.5):.2f}" == "2.50"
    assert (t > 2.0).dtype == np.bool_
    assert "0x" not in repr(t) and repr(tk.GradientTape()).startswith("<GradientTape")


def test_variables_read_next_to_watched_tensors_are_watched():
    w, x = tk.Variable(2.0, name="w"), tk.constant(3.0)
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = x * w
    assert [v.name for v in tape.watched_variables()] == ["w:0"]
    assert tape.gradient(y, w).numpy() == 3.0


def test_gradient_with_respect_to_some_of_the_watched_only_walks_their_paths():
    a, b = tk.Variable(2.0), tk.Variable(5.0)
    with tk.GradientTape(persistent=True) as tape:
        y = a * a + tk.sin(b)
    assert tape.gradient(y, a).numpy() == 4.0
    np.testing.assert_allclose(tape.gradient(y, b).numpy(), np.cos(5.0), rtol=1e-6)


def test_forward_mode_refuses_ops_without_a_jvp_rule():
    # Every op of the table has JVP rules (custom_gradient's too, since issue 47): an op
    # made without them stands for one that would not
    from tapekit.ops.registry import Op
    no_jvp = Op("no_jvp_demo", lambda x: x * 2.0, "x", [lambda g, ans, x: g * 2.0], None, "",
                variadic=False, same_dtype=False, doc="an op with only a VJP")
    x = tk.constant(1.0)
    with tk.ForwardAccumulator(x, tk.constant(1.0)):
        with pytest.raises(NotImplementedError, match="op 'no_jvp_demo' has no forward-mode"):
            no_jvp(x)
        assert (x > 0.0).dtype == np.bool_   # non-differentiable ops just carry no tangent


def test_variable_updates_never_change_an_array_someone_holds():
    # Every update makes a new array (in-place updates were removed: about 3% of an MLP step).
    v = tk.Variable([1.0, 2.0])
    held = np.asarray(v)                 # the user holds the array: it must not change
    v.assign_sub([1.0, 1.0])
    assert held.tolist() == [1.0, 2.0] and v.numpy().tolist() == [0.0, 1.0]
    del held
    v.assign_add([1.0, 1.0])
    assert v.numpy().tolist() == [1.0, 2.0] and v._value.dtype == np.float32
    with tk.GradientTape(persistent=True) as tape:
        y = tk.reduce_sum(v * v)         # the tape keeps the value it read
    v.assign_add([10.0, 10.0])
    assert tape.gradient(y, v).numpy().tolist() == [2.0, 4.0]


def test_records_compare_by_the_op_they_record():
    # Comparing records must not compare their saved arrays (an error for arrays of more
    # than one element): one executed op is one output tape id, on every tape.
    x = tk.constant(np.ones(3))
    with tk.GradientTape() as outer:
        outer.watch(x)
        with tk.GradientTape() as inner:
            inner.watch(x)
            x * x
            x + x
    a, b = outer.records[0], inner.records[0]
    assert a == outer.records[0] and a == b and a in [b] and len({a, b}) == 1
    assert a != outer.records[1] and a != tuple(a)


def test_reading_records_mid_recording_changes_nothing():
    # tape.records is a copy: reading it inside the block (display does) leaves the tape's
    # list, and the gradients, as they were.
    x = tk.constant([1.0, 2.0])
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tk.sin(x) * x
        first = tape.records
        assert [r.op.name for r in first] == ["sin", "multiply"]
        z = tk.tanh(y)
    assert isinstance(first, tuple) and tape.records[:2] == first
    want = (1 - np.tanh(np.sin([1.0, 2.0]) * [1.0, 2.0]) ** 2) * (np.cos([1.0, 2.0]) * [1.0, 2.0]
                                                                     + np.sin([1.0, 2.0]))
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), want, rtol=1e-5)
    assert [r.op.name for r in tape.records] == ["sin", "multiply", "tanh"]
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), want, rtol=1e-5)


def test_every_dispatch_route_records_the_same():
    # Every call enters Op.__call__: operators and calls on tensors and Python numbers are
    # read there directly, a call with an array input or inputs given by name converts them
    # first (dispatch.take_inputs, Op._bind). The records must not differ.
    x = tk.constant([1.0, 2.0])
    c = np.array([3.0, 4.0], np.float32)
    routes = {
        "operator": lambda: x * tk.constant(c),
        "function": lambda: tk.multiply(x, tk.constant(c)),
        "array input": lambda: tk.multiply(x, c),
        "inputs by name": lambda: tk.multiply(y=tk.constant(c), x=x),
        "reflected scalar": lambda: 3.0 * x,
    }
    for name, call in routes.items():
        with tk.GradientTape() as tape:
            tape.watch(x)
            y = tk.sin(call())
        (mul, sin) = tape.records
        assert mul.op.name == "multiply" and sin.op.name == "sin", name
        assert sin.in_tids == (mul.out_tid,) and x._tid in mul.in_tids, name
        assert type(mul.in_tids) is tuple and type(mul.inputs) is tuple, name  # kept as they are
        k = 3.0 if name == "reflected scalar" else c
        np.testing.assert_array_equal(sin.inputs[0], x.numpy() * k, err_msg=name)  # sin keeps its input
        want = np.cos(x.numpy() * k) * k
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-6, err_msg=name)


def test_the_fast_path_hints_count_what_is_active():
    # registry skips the per-thread look-ups while context.hints are 0 (context.py): they
    # must count every active accumulator and raw-mode thread, and return to 0 afterwards.
    from tapekit.context import ACCUMULATORS, RAW, hints
    x = tk.constant(2.0)
    start = list(hints)
    with tk.ForwardAccumulator(x, tk.constant(1.0)) as outer:
        with tk.ForwardAccumulator(x, tk.constant(3.0)) as inner:
            assert hints[ACCUMULATORS] == start[ACCUMULATORS] + 2
            y = x * x
    assert outer.jvp(y).numpy() == 4.0 and inner.jvp(y).numpy() == 12.0
    with pytest.raises(ZeroDivisionError):
        with tk.ForwardAccumulator(x, tk.constant(1.0)):
            1 / 0
    with tk.debugging.enable_check_numerics():
        assert hints[ACCUMULATORS] == start[ACCUMULATORS] + 1
    seen = []
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.custom_gradient(lambda v: (v * v, lambda dy: seen.append(hints[RAW]) or dy * 2 * v))(x)
    assert tape.gradient(y, x).numpy() == 4.0
    assert seen and seen[0] >= 1            # the backward pass ran in raw mode, and said so
    assert hints == start


def test_ops_accept_tensorflows_name_argument():
    # Every TensorFlow op takes name=None; code ported from TensorFlow passes it.
    x, w = tk.constant([[1.0, -2.0]]), tk.constant([[3.0], [4.0]])
    calls = {
        "sin": (lambda **k: tk.sin(x, **k)),
        "add": (lambda **k: tk.add(x, x, **k)),
        "matmul": (lambda **k: tk.matmul(x, w, **k)),
        "relu": (lambda **k: tk.nn.relu(x, **k)),
        "reduce_sum": (lambda **k: tk.reduce_sum(x, axis=1, **k)),
    }
    for op, call in calls.items():
        with tk.GradientTape() as tape:
            tape.watch(x)
            y = call(name="my_" + op)
        np.testing.assert_array_equal(y.numpy(), call().numpy(), err_msg=op)
        assert tape.gradient(y, x) is not None, op


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


def test_what_a_tape_shows_others_cannot_change_it():
    x = tk.Variable(2.0)
    c = tk.constant(5.0)
    with tk.GradientTape(watch_accessed_variables=True) as tape:
        tape.watch(c)
        y = x * c
    assert tape.watch_accessed_variables and not tape.persistent and not tape.used
    assert list(tape.watched) == [c._tid, x._tid] and tape.watched[x._tid] is x
    with pytest.raises(TypeError):
        tape.watched[123] = x                       # a read-only mapping
    assert tape.tracked == {c._tid, x._tid, y._tid} and isinstance(tape.tracked, frozenset)
    assert tape.is_tracked(y._tid) and not tape.is_tracked(-1)
    assert len(tape.record_list) == 1
    assert float(tape.gradient(y, x)) == 5.0        # dy/dx = c
    assert tape.used and len(tape.record_list) == 0
    assert not tk.GradientTape(watch_accessed_variables=False).watch_accessed_variables


def test_a_recorded_backward_pass_skips_paths_through_integers():
    # Found by tools/tf_diff: inside tk.function (and under an outer tape) the backward pass
    # asked divide's rule for the cotangent of its int32 inputs, and float64 g / int32 y raised
    # TypeError. TF 2.21 gives [3.4 6.4] and [2. 2.] here (only x * x carries a gradient), and
    # None for the path through the integers alone, as tapekit's eager pass does.
    x, v = tk.constant([1.7, 3.2]), tk.Variable(2, trainable=False)

    def through_ints(x):
        return tk.cast(tk.exp(tk.cast(x, tk.int32) / v), tk.float32)

    with tk.GradientTape() as outer:
        outer.watch(x)
        with tk.GradientTape() as inner:
            inner.watch(x)
            y = through_ints(x) + x * x
        g = inner.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), [3.4, 6.4], rtol=1e-6)
    np.testing.assert_array_equal(outer.gradient(g, x).numpy(), [2.0, 2.0])

    @tk.function
    def f(x):
        with tk.GradientTape() as tape:
            tape.watch(x)
            y = through_ints(x)
        return y, tape.gradient(y, x)

    y, none = f(x)
    np.testing.assert_allclose(y.numpy(), np.exp([0.5, 1.5]).astype(np.float32))
    assert none is None


def test_jacobian_of_a_variable_with_respect_to_itself_is_the_identity_when_it_would_be_watched():
    """TF 2.21: jacobian(v, v) of a trainable Variable is the identity even on an empty tape
    (its jacobian reads v on the tape, which watches it); None for a non-trainable Variable, a
    constant, or with watch_accessed_variables=False (tools/tf_diff, seed 7, program 880)."""
    v = tk.Variable([1.0, 2.0])
    with tk.GradientTape(persistent=True) as tape:
        v.assign([3.0, 4.0])
    np.testing.assert_array_equal(tape.jacobian(v, v).numpy(), np.eye(2))
    frozen, c = tk.Variable([1.0, 2.0], trainable=False), tk.constant([1.0, 2.0])
    with tk.GradientTape(persistent=True) as tape:
        pass
    assert tape.jacobian(frozen, frozen) is None and tape.jacobian(c, c) is None
    with tk.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        pass
    assert tape.jacobian(v, v) is None


def test_output_gradients_as_a_python_list_for_one_target_says_to_give_a_tensor():
    # TF 2.21 reads [1., 0., 2.] for the one target y = x * x at x = [1, 2, 3] as three
    # output gradients and uses the first, 1.0, for every entry: [2, 4, 6] instead of
    # 2x * [1, 0, 2] = [2, 0, 12]. tapekit refuses, and says how to pass it
    x = tk.Variable([1.0, 2.0, 3.0])
    with tk.GradientTape(persistent=True) as tape:
        y = x * x
    with pytest.raises(ValueError, match=r"1 target\(s\) but 3 output_gradients; a list holds one per target"):
        tape.gradient(y, x, output_gradients=[1.0, 0.0, 2.0])
    assert tape.gradient(y, x, output_gradients=tk.constant([1.0, 0.0, 2.0])).numpy().tolist() == [2.0, 0.0, 12.0]
