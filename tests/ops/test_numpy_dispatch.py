"""tapekit/ops/numpy_dispatch.py: NumPy functions and ufuncs called on tensors are answered by
tapekit's ops (recorded, differentiable), or refused where that would break the gradient path.
"""

import numpy as np
import pytest

import tapekit as tk
from tapekit.ops.numpy_dispatch import NUMPY_CALLS, numpy_signature
from tapekit.ops.registry import FUNCTIONS


def test_numpy_ufuncs_and_functions_on_tensors_are_recorded_ops():
    x = tk.Variable([0.5, 2.0])
    with tk.GradientTape() as tape:
        y = np.sum(np.sin(x) * np.exp(x))
    assert isinstance(y, tk.Tensor)
    v = np.array([0.5, 2.0], np.float32)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), (np.cos(v) + np.sin(v)) * np.exp(v), rtol=1e-6)


def test_a_numpy_function_without_a_tapekit_op_says_what_to_do_inside_a_tape():
    # Lesson 10's review: np.linalg.det(J) raised "numpy.det ... Use a tapekit op (tk.math)"
    # even outside any tape, where TensorFlow's eager tensors give NumPy's answer, and
    # tk.linalg.det exists.
    x = tk.Variable([[1.0, 2.0], [3.0, 4.0]])
    with tk.GradientTape():
        with pytest.raises(TypeError, match=r"numpy\.linalg\.det on a tensor that a GradientTape records.*"
                                            r"Use tk\.linalg\.det, which is recorded.*numpy\.linalg\.det\(x\.numpy\(\)\)"):
            np.linalg.det(x)
        with pytest.raises(TypeError, match=r"numpy\.median .*tapekit ops \(tk\.math, tk\.linalg\)"):
            np.median(x * 2.0)
        with pytest.raises(TypeError, match=r"numpy\.exp2 on a tensor"):
            np.exp2(x)


def test_outside_any_tape_a_numpy_function_gives_numpys_answer_on_the_values():
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    t = tk.constant(a)
    assert np.linalg.det(t) == pytest.approx(np.linalg.det(a))     # TF 2.21 eager: -2.0 too
    np.testing.assert_array_equal(np.linalg.inv(t), np.linalg.inv(a))
    assert np.median(t) == 2.5 and np.cumsum(t).tolist() == [1.0, 3.0, 6.0, 10.0]
    np.testing.assert_array_equal(np.exp2(t), np.exp2(a))
    with tk.GradientTape() as tape:                         # a tape that does not record t
        tape.watch(tk.constant(1.0))
        assert np.linalg.det(t) == pytest.approx(-2.0)


@pytest.mark.parametrize("write", [
    lambda t: np.put(t, [0], 9.0), lambda t: np.add.at(t, [0], 1.0), lambda t: np.cumsum(t, out=t),
    lambda t: np.fill_diagonal(t, 0.0), lambda t: np.copyto(t, 1.0)])
def test_numpy_never_writes_into_a_tensor(write):
    t = tk.constant([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(TypeError, match=r"numpy\.[\w.]+ cannot write into a tapekit tensor: tensors are immutable"):
        write(t)
    assert t.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]


@pytest.mark.parametrize("func", [np.sort, np.unique, np.round])
def test_numpy_functions_tapekit_does_not_record_raise_inside_a_tape(func):
    x = tk.Variable([3.0, 1.0, 2.0])
    with tk.GradientTape():
        y = x * 2.0
        with pytest.raises(TypeError, match=rf"numpy\.{func.__name__}.*gradient path.*x\.numpy\(\)"):
            func(y)
    np.testing.assert_array_equal(func(tk.constant([3.0, 1.0])), func(np.array([3.0, 1.0], np.float32)))


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


# --- NumPy's signatures: every registered NumPy function takes NumPy's arguments ----------------
A = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)


def _same(got, want):
    """got (tapekit's answer) equals want (NumPy's on the arrays): values, shape and dtype."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    got = got.numpy() if isinstance(got, tk.Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


# Each call as NumPy's documentation writes it: positional forms (where the TensorFlow signature
# used to take dtype, out or order for something else) and keyword forms.
CALLS = [
    lambda a: np.sum(a, 0, np.float32),                     # dtype used to land in keepdims
    lambda a: np.sum(a, 1, None, None, True),
    lambda a: np.sum(a, axis=(0, 1), keepdims=True),
    lambda a: np.mean(a, 0, np.float32, None, True),
    lambda a: np.mean(a, axis=-1),
    lambda a: np.prod(a, 1, None, None, True),
    lambda a: np.max(a, 1, None, True),                     # out used to land in keepdims
    lambda a: np.amax(a, axis=0, out=None, keepdims=True),
    lambda a: np.min(a, 0, None, False),
    lambda a: np.amin(a, 1, None, True),
    lambda a: np.reshape(a, (3, 2), "C"),                   # order used to land in name
    lambda a: np.reshape(a, shape=[-1], order="C", copy=True),
    lambda a: np.take(a, [0, 4]),                           # axis=None: the flattened array
    lambda a: np.take(a, 5),
    lambda a: np.take(a, [2, -1], 1, None, "raise"),        # out used to land in batch_dims
    lambda a: np.take(a, [[1, 0]], axis=0, mode="raise"),
    lambda a: np.transpose(a, axes=(1, 0)),
    lambda a: np.transpose(a, (1, 0)),
    lambda a: np.transpose(a),
    lambda a: np.concatenate([a, a]),                       # NumPy's default axis=0
    lambda a: np.concatenate((a, a), 1),
    lambda a: np.concatenate([a, a], None),                 # flattened first
    lambda a: np.concatenate([a, a], axis=-1, out=None, dtype=np.float32, casting="same_kind"),
    lambda a: np.stack([a, a], 2),
    lambda a: np.stack((a, a), axis=-1, dtype=np.float32),
    lambda a: np.expand_dims(a, 1),
    lambda a: np.expand_dims(a, axis=(0, -1)),
    lambda a: np.squeeze(np.expand_dims(a, 0), axis=0),
    lambda a: np.squeeze(np.expand_dims(a, 0)),
    lambda a: np.where(a > 2, a, 0),
    lambda a: np.where(a > 2),                              # np.nonzero: a tuple of indices
    lambda a: np.clip(a, 2, None),                          # one-sided clips
    lambda a: np.clip(a, None, 3),
    lambda a: np.clip(a, min=2),
    lambda a: np.clip(a, max=3.5),
    lambda a: np.clip(a, a_min=2, a_max=4),
    lambda a: np.clip(a, min=2, max=4),
    lambda a: np.clip(a, 2, 4, None),
    lambda a: np.clip(a),
]


@pytest.mark.parametrize("call", CALLS, ids=range(len(CALLS)))
def test_numpy_functions_on_tensors_give_numpys_result(call):
    _same(call(tk.constant(A)), call(A))


def test_numpy_mean_of_integers_is_a_float64_mean_as_in_numpy():
    # tk.reduce_mean of integers truncates (TensorFlow); numpy's mean of integers does not.
    x = np.array([1, 2], np.int32)
    _same(np.mean(tk.constant(x)), np.mean(x))
    _same(np.mean(tk.constant(x), dtype=np.int32), np.mean(x, dtype=np.int32))
    assert tk.reduce_mean(tk.constant(x)).numpy() == 1                # tk's own call unchanged


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.uint32, np.bool_])
@pytest.mark.parametrize("func", [np.sum, np.prod])
def test_numpy_sum_and_prod_of_narrow_integers_add_up_as_numpy_does(func, dtype):
    # np.sum of an int32 ndarray is an int64 (no wrap-around); on a tensor it once wrapped to
    # -2147483648 for [2**30, 2**30]. tk.reduce_sum keeps TensorFlow's int32.
    x = np.array([100, 120, 2 ** 30 if np.dtype(dtype).itemsize >= 4 else 90], dtype)
    _same(func(tk.constant(x)), func(x))
    _same(func(tk.constant(x), axis=0, keepdims=True), func(x, axis=0, keepdims=True))
    wide = func(x).dtype
    _same(func(tk.constant(x), dtype=wide), func(x, dtype=wide))
    if dtype is np.int32:
        assert tk.reduce_sum(tk.constant([2 ** 30, 2 ** 30], tk.int32)).numpy() == -2 ** 31
        _same(func(tk.constant(x), dtype=np.int32), func(x, dtype=np.int32))   # asked for: kept


def test_tapekit_functions_keep_tensorflows_signature():
    t = tk.constant(A)
    assert tk.reduce_sum(t, 0, True).shape == (1, 3)                  # keepdims is third
    assert tk.reduce_max(t, 1, True).shape == (2, 1)
    assert tk.gather(t, [1], 1).shape == (2, 1)
    assert tk.concat([t, t], 1).shape == (2, 6)
    np.testing.assert_array_equal(tk.clip_by_value(t, 2.0, 4.0).numpy(), np.clip(A, 2, 4))


def test_one_sided_numpy_clip_passes_the_gradient_inside_and_at_its_bound():
    x = tk.Variable([-1.0, 0.0, 2.0, np.inf])
    with tk.GradientTape(persistent=True) as tape:
        low = np.clip(x, 0.0, None)
        high = np.clip(x, max=0.0)
        ys = np.sum(low[:3] * tk.constant([1.0, 2.0, 3.0])), np.sum(high[:3])
    np.testing.assert_array_equal(low.numpy(), [0.0, 0.0, 2.0, np.inf])   # inf stays inf
    np.testing.assert_array_equal(tape.gradient(ys[0], x).numpy(), [0.0, 2.0, 3.0, 0.0])
    np.testing.assert_array_equal(tape.gradient(ys[1], x).numpy(), [1.0, 1.0, 0.0, 0.0])


def test_one_sided_numpy_clip_of_integers_keeps_the_dtype():
    x = np.array([-5, 3, 9], np.int32)
    _same(np.clip(tk.constant(x), 0, None), np.clip(x, 0, None))
    _same(np.clip(tk.constant(x), max=4), np.clip(x, max=4))


def test_numpy_concatenate_sends_each_input_its_slice_of_the_gradient():
    a, b = tk.Variable([[1.0, 2.0], [3.0, 4.0]]), tk.Variable([5.0])
    w = tk.constant([1.0, 2.0, 3.0, 4.0, 5.0])
    with tk.GradientTape() as tape:
        y = np.sum(np.concatenate([a, b], axis=None) * w)           # a flattened, then b
    ga, gb = tape.gradient(y, [a, b])
    np.testing.assert_array_equal(ga.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(gb.numpy(), [5.0])
    with tk.GradientTape() as tape:
        y = np.sum(np.concatenate([a, a]) * tk.constant([[1.0], [2.0], [3.0], [4.0]]))
    np.testing.assert_array_equal(tape.gradient(y, a).numpy(), [[4.0, 4.0], [6.0, 6.0]])


@pytest.mark.parametrize("call, arg", [
    (lambda t: np.sum(t, 0, np.float64), "dtype"),
    (lambda t: np.mean(t, dtype=np.float64), "dtype"),
    (lambda t: np.prod(t, dtype="int32"), "dtype"),
    (lambda t: np.concatenate([t, t], dtype=np.float64), "dtype"),
    (lambda t: np.clip(t, 0, 1, dtype=np.float64), "dtype"),
    (lambda t: np.sum(t, 0, None, np.empty(3)), "out"),
    (lambda t: np.max(t, 0, np.empty(3)), "out"),
    (lambda t: np.take(t, [0], 0, np.empty(1)), "out"),
    (lambda t: np.concatenate([t, t], out=np.empty((4, 3))), "out"),
    (lambda t: np.stack([t, t], out=np.empty((2, 2, 3))), "out"),
    (lambda t: np.clip(t, 0, 1, np.empty((2, 3))), "out"),
    (lambda t: np.reshape(t, (3, 2), "F"), "order"),
    (lambda t: np.reshape(t, (3, 2), order="A"), "order"),
    (lambda t: np.take(t, [0], 0, None, "clip"), "mode"),
    (lambda t: np.take(t, [0], mode="wrap"), "mode"),
    (lambda t: np.sum(t, initial=1.0), "initial"),
    (lambda t: np.max(t, initial=3.0), "initial"),
    (lambda t: np.amin(t, initial=3.0), "initial"),
    (lambda t: np.sum(t, where=np.array([True, False, True])), "where"),
    (lambda t: np.mean(t, where=t > 2), "where"),
    (lambda t: np.max(t, initial=0.0, where=t > 2), "initial"),
    (lambda t: np.clip(t, 0, 1, casting="unsafe"), "casting"),
    (lambda t: np.clip(t, 0, 1, where=np.array(True)), "where"),
])
def test_unsupported_numpy_arguments_raise_naming_the_function_and_argument(call, arg):
    with pytest.raises(TypeError, match=rf"numpy\.\w+\(\.\.\., {arg}="):
        call(tk.constant(A))


def test_a_bound_given_twice_to_numpy_clip_raises():
    with pytest.raises(TypeError, match=r"numpy\.clip: give a_min or min, not both"):
        np.clip(tk.constant(A), 1.0, min=2.0)


def test_the_refusals_say_what_to_do_instead():
    t = tk.constant(A)
    with pytest.raises(TypeError, match=r"tensors are immutable"):
        np.sum(t, out=np.empty(()))
    with pytest.raises(TypeError, match=r"cast first with tk\.cast\(x, tk\.float64\)"):
        np.sum(t, dtype=np.float64)
    with pytest.raises(TypeError, match=r"np\.reshape\(t\.numpy\(\), \.\.\., order='F'\) outside"):
        np.reshape(t, (3, 2), order="F")


# NumPy's parameter names, each with a supported value, for every registered function: a new
# @numpy_function registration must add its line here (and its adapter in NUMPY_CALLS).
# np.clip takes its bounds as a_min/a_max or as min/max: two calls.
KEYWORDS = {
    np.sum: dict(a=A, axis=0, dtype=None, out=None, keepdims=True, where=True),
    np.mean: dict(a=A, axis=0, dtype=np.float32, out=None, keepdims=True, where=True),
    np.prod: dict(a=A, axis=1, dtype=None, out=None, keepdims=False, where=True),
    np.max: dict(a=A, axis=1, out=None, keepdims=True, where=True),
    np.amax: dict(a=A, axis=0, out=None, keepdims=False, where=True),
    np.min: dict(a=A, axis=1, out=None, keepdims=True, where=True),
    np.amin: dict(a=A, axis=0, out=None, keepdims=False, where=True),
    np.take: dict(a=A, indices=[1, 0], axis=1, out=None, mode="raise"),
    np.reshape: dict(shape=(3, 2), order="C", copy=None),          # a is positional-only
    np.expand_dims: dict(a=A, axis=2),
    np.squeeze: dict(a=A[None], axis=0),
    np.transpose: dict(a=A, axes=(1, 0)),
    np.concatenate: dict(axis=1, out=None, dtype=None, casting="same_kind"),   # arrays too
    np.stack: dict(arrays=[A, A], axis=1, out=None, dtype=None, casting="same_kind"),
    np.where: dict(),                                              # all positional-only
    np.clip: dict(a=A, out=None, min=2.0, max=4.0),
}
MORE_KEYWORDS = {np.clip: dict(a=A, a_min=2.0, a_max=None, out=None)}
POSITIONAL_ONLY = {np.reshape: (A,), np.concatenate: ([A, A],), np.where: (A > 2, A, 0.0)}


def _tensors(v):
    if isinstance(v, np.ndarray) and v.dtype == np.float32:
        return tk.constant(v)
    if isinstance(v, list) and v and isinstance(v[0], np.ndarray):
        return [tk.constant(x) for x in v]
    return v


def test_every_registered_numpy_function_has_an_adapter_and_a_keyword_check():
    assert set(FUNCTIONS) == set(NUMPY_CALLS) == set(KEYWORDS)


@pytest.mark.parametrize("func", list(KEYWORDS), ids=lambda f: f.__name__)
def test_numpys_parameter_names_are_accepted_on_tensors(func):
    params = numpy_signature(func).parameters   # C functions state none before NumPy 2.4
    calls = [KEYWORDS[func]] + ([MORE_KEYWORDS[func]] if func in MORE_KEYWORDS else [])
    named = {n for n, p in params.items() if p.kind not in (p.POSITIONAL_ONLY, p.VAR_KEYWORD)}
    # initial: refused (tested apart); newshape: reshape's old name for shape (NumPy < 2.4)
    assert named - {k for c in calls for k in c} <= {"initial", "newshape"}, "give each NumPy keyword a value"
    args = POSITIONAL_ONLY.get(func, ())
    for keywords in calls:
        assert set(keywords) <= set(params)
        want = func(*args, **keywords)
        got = func(*[_tensors(v) for v in args], **{k: _tensors(v) for k, v in keywords.items()})
        _same(got, want)


def test_numpy_arithmetic_on_bool_tensors_is_numpys_as_on_tensorflows_tensors():
    # TF 2.21: tf.constant([True, False]) + itself raises, np.add on the same tensors gives
    # NumPy's array([True, False]) (a logical or); tapekit's `+` refuses, np.add answers.
    b = tk.constant([True, False])
    with pytest.raises(TypeError, match="cannot apply to bools"):
        b + b
    assert np.add(b, b).tolist() == [True, False]
    assert np.multiply(b, tk.constant([True, True])).tolist() == [True, False]
    assert np.maximum(b, False).tolist() == [True, False]
    assert isinstance(np.add(tk.constant([1.0]), 1.0), tk.Tensor)      # floats: still the op


def test_numpy_on_an_inert_tensor_inside_a_tape_breaks_no_gradient_path():
    # Comparisons, integers and stop_gradient's output are never sources (TF tracks none of
    # them), so a NumPy function on them loses no gradient; on a live value it still raises.
    x = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        y = x * 2.0
        assert np.logical_xor(x > 1.0, x > 0.0).tolist() == [True, False]
        assert np.add(x > 1.0, x > 0.0).tolist() == [True, True]
        assert float(np.linalg.norm(tk.stop_gradient(y))) == pytest.approx(20 ** 0.5)
        with pytest.raises(TypeError, match="numpy.linalg.norm on a tensor that a GradientTape records"):
            np.linalg.norm(y)
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 2.0]
