"""tk.pad (three modes) and ops without a registered gradient (tk.image.adjust_contrast).

Gradients of tk.pad are also checked against finite differences in test_ops_table.py; here:
values worked out by hand, the constant's missing gradient, the errors, and the difference
between "no gradient registered" (LookupError, TensorFlow's behaviour) and "not
differentiable" / "integer output" (None).
"""
import warnings

import numpy as np
import pytest

import tapekit as tk
from tapekit.ops.registry import NO_GRADIENT, defop


# --- tk.pad --------------------------------------------------------------------------------------

def test_pad_modes_by_hand():
    x = tk.constant([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(tk.pad(x, [[2, 1]], constant_values=9.0).numpy(), [9, 9, 1, 2, 3, 9])
    np.testing.assert_array_equal(tk.pad(x, [[2, 2]], "REFLECT").numpy(), [3, 2, 1, 2, 3, 2, 1])
    np.testing.assert_array_equal(tk.pad(x, [[3, 2]], "symmetric").numpy(), [3, 2, 1, 1, 2, 3, 3, 2])
    assert tk.pad(x, [[1, 1]]).dtype == tk.float32


def test_pad_gradients_count_each_copy():
    # out = sum(w * pad(x)): each x[i] receives the weights of every position it was copied to.
    w = tk.constant([1.0, 10.0, 100.0, 1000.0, 10000.0, 100000.0, 1000000.0])
    x = tk.Variable([1.0, 2.0, 3.0])
    with tk.GradientTape(persistent=True) as tape:
        const = tk.reduce_sum(w[:5] * tk.pad(x, [[1, 1]], constant_values=5.0))
        reflect = tk.reduce_sum(w * tk.pad(x, [[2, 2]], "REFLECT"))    # [3 2 1 2 3 2 1]
        symmetric = tk.reduce_sum(w * tk.pad(x, [[2, 2]], "SYMMETRIC"))  # [2 1 1 2 3 3 2]
    np.testing.assert_array_equal(tape.gradient(const, x).numpy(), [10, 100, 1000])
    np.testing.assert_array_equal(tape.gradient(reflect, x).numpy(), [100 + 1000000, 10 + 1000 + 100000, 1 + 10000])
    np.testing.assert_array_equal(tape.gradient(symmetric, x).numpy(), [10 + 100, 1 + 1000 + 1000000, 10000 + 100000])


def test_pad_2d_and_the_constant_gets_no_gradient():
    # advanced_autodiff cell 72: the constant is a tensor computed on the tape (-max|j|)
    j = tk.Variable([[1.0, -2.0], [3.0, 4.0]])
    with tk.GradientTape() as tape:
        lim = tk.reduce_max(abs(j))
        padded = tk.pad(j, [[0, 1], [1, 0]], constant_values=-lim)
        y = tk.reduce_sum(padded * padded)
    np.testing.assert_array_equal(padded.numpy(), [[-4, 1, -2], [-4, 3, 4], [-4, -4, -4]])
    # d/dj of sum(padded**2): 2j from the inner block only; the border -lim gives nothing
    # (TensorFlow's PadV2 gradient for constant_values is None, and so is its path to j).
    np.testing.assert_array_equal(tape.gradient(y, j).numpy(), [[2, -4], [6, 8]])


def test_pad_jacobian_and_forward_mode():
    x = tk.constant([1.0, 2.0])
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.pad(x, [[1, 2]], "SYMMETRIC")     # [x0 x0 x1 x1 x0]
    expected = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [1, 0]], np.float32)
    np.testing.assert_array_equal(tape.jacobian(y, x).numpy(), expected)
    with tk.ForwardAccumulator(x, tk.constant([1.0, 10.0])) as acc:
        y = tk.pad(x, [[1, 1]], constant_values=7.0)
    np.testing.assert_array_equal(acc.jvp(y).numpy(), [0, 1, 10, 0])


def test_pad_in_a_function_reads_the_constant_at_each_call():
    f = tk.function(lambda x, c: tk.pad(x, [[1, 0]], constant_values=c))
    np.testing.assert_array_equal(f(tk.constant([1.0]), tk.constant(5.0)).numpy(), [5, 1])
    np.testing.assert_array_equal(f(tk.constant([1.0]), tk.constant(6.0)).numpy(), [6, 1])


@pytest.mark.parametrize("call, error, words", [
    (lambda x: tk.pad(x, [[1, 1]]), ValueError, "shape [2, 2]"),
    (lambda x: tk.pad(x, [[1, -1], [0, 0]]), ValueError, ">= 0"),
    (lambda x: tk.pad(x, [[1.5, 1], [0, 0]]), TypeError, "paddings[0][0]"),
    (lambda x: tk.pad(x, [[0, 0], [0, 3]], "REFLECT"), ValueError, "at most 2"),
    (lambda x: tk.pad(x, [[0, 0], [0, 4]], "SYMMETRIC"), ValueError, "at most 3"),
    (lambda x: tk.pad(x, [[0, 0], [0, 1]], "WRAP"), ValueError, "REFLECT"),
    (lambda x: tk.pad(x, [[0, 0], [0, 1]], constant_values=tk.constant([1.0, 2.0])), ValueError, "one number"),
])
def test_pad_errors_name_the_argument(call, error, words):
    with pytest.raises(error, match=__import__("re").escape(words)):
        call(tk.zeros([2, 3]))


# --- no gradient registered: adjust_contrast -------------------------------------------------

def test_adjust_contrast_is_tensorflows_formula():
    # two images of 2x2 pixels and 2 channels; per image and channel: (x - mean) * f + mean
    x = np.arange(16, dtype=np.float32).reshape(2, 2, 2, 2) ** 2
    got = tk.image.adjust_contrast(tk.constant(x), 1.5).numpy()
    for b in range(2):
        for c in range(2):
            pixels = x[b, :, :, c]
            m = pixels.sum() / 4
            np.testing.assert_allclose(got[b, :, :, c], (pixels - m) * 1.5 + m, rtol=1e-6)
    assert got.dtype == np.float32


def test_a_gradient_through_an_op_without_one_raises_lookup_error():
    # autodiff.ipynb cell 70: TensorFlow raises LookupError ("No gradient defined for operation")
    image, delta = tk.Variable([[[0.5, 0.0, 0.0]]]), tk.Variable(0.1)
    with tk.GradientTape(persistent=True) as tape:
        new_image = tk.image.adjust_contrast(image, delta)
        after = tk.reduce_sum(new_image * 2.0)
    for target in (new_image, after):
        with pytest.raises(LookupError, match="adjust_contrast.*stop_gradient"):
            tape.gradient(target, [image, delta])
    with pytest.raises(LookupError, match="adjust_contrast"):
        tape.jacobian(new_image, image)
    with pytest.raises(LookupError, match="adjust_contrast"):
        with tk.ForwardAccumulator(image, tk.ones_like(image)):
            tk.image.adjust_contrast(image, delta)


def test_stop_gradient_or_no_path_means_no_error():
    image = tk.Variable([[[0.5, 0.0, 0.0]]])
    with tk.GradientTape(persistent=True) as tape:
        frozen = tk.stop_gradient(tk.image.adjust_contrast(image, 2.0))
        y = tk.reduce_sum(frozen * image)
        z = tk.reduce_sum(image * 3.0) + 0.0 * tk.reduce_sum(frozen)
    np.testing.assert_array_equal(tape.gradient(y, image).numpy(), frozen.numpy())
    np.testing.assert_array_equal(tape.gradient(z, image).numpy(), [[[3, 3, 3]]])


def test_not_differentiable_and_integer_outputs_stay_none():
    # The distinction kept: an op marked not differentiable (argmax) gives None; an op without
    # a registered gradient whose output is an integer carries no gradient either: None with
    # the integer-target warning, not LookupError.
    x = tk.Variable([1.0, 3.0, 2.0])
    with tk.GradientTape() as tape:
        i = tk.argmax(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tape.gradient(i, x) is None
    count = defop("test_count_no_gradient", lambda x: np.asarray(x.size, np.int32), vjp=NO_GRADIENT)
    try:
        with tk.GradientTape() as tape:
            n = count(x)
            y = tk.cast(n, tk.float32) * x
        with pytest.warns(UserWarning):
            assert tape.gradient(n, x) is None
    finally:
        del tk.ops.OPS["test_count_no_gradient"]


def test_pad_of_bools_fills_with_false_by_default():
    # TF 2.21: tf.pad(tf.constant([True]), [[1, 1]]) is [False, True, False]; tapekit refused
    # the default constant 0 as an int meeting a bool tensor
    out = tk.pad(tk.constant([True]), [[1, 1]])
    assert out.dtype == tk.bool and out.numpy().tolist() == [False, True, False]
