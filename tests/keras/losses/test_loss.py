"""The Loss base (keras/losses/loss.py): Keras 3's reductions and sample weights, its float32
cast; and labels and predictions made comparable, as losses and metrics need them."""
import numpy as np

import tapekit as tk
from tapekit import losses
from tapekit.keras.losses.loss import as_float, prepare, squeeze_or_expand


def close(t, expected, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(t.numpy(), np.float64), expected, rtol=rtol, atol=1e-7)


def test_an_unknown_reduction_is_refused_with_the_known_ones():
    try:
        losses.MeanSquaredError(reduction="average")
    except ValueError as err:
        assert "reduction must be one of 'sum_over_batch_size'" in str(err) and "'average'" in str(err)
    else:
        raise AssertionError("reduction='average' was accepted")


# --- found by tools/tf_diff/keras_diff.py (Keras 3.15 on TF 2.21) ----------------------------
def test_mean_with_sample_weight_divides_by_the_weights_as_given():
    # Keras 3.15 on TF 2.21 gives 4.527068 for a scalar weight 0.141 on two per-example MSEs:
    # sum(w * mse) / 0.141 (the scalar counts once), not / (2 * 0.141); here mse = [2.5, 4.0].
    y = np.array([[0.0, 1.0], [2.0, 0.0]], "float32")
    p = np.array([[1.0, 3.0], [0.0, 2.0]], "float32")
    mse = np.array([2.5, 4.0])
    loss = losses.MeanSquaredError(reduction="mean_with_sample_weight")
    close(loss(y, p, sample_weight=0.5), (0.5 * mse).sum() / 0.5)
    # per-sample weights (2, 1) on per-entry losses (2, 2): Keras divides by 1.5 + 0.5, once each
    y3, p3 = y[..., None], p[..., None]
    per_entry = (y - p) ** 2
    w = np.array([[1.5], [0.5]], "float32")
    close(loss(y3, p3, sample_weight=w), (per_entry * w).sum() / 2.0)


def test_mean_with_sample_weight_of_zero_weights_is_zero():
    # Keras 3.15 on TF 2.21 gives 0.0 and a zero gradient (divide_no_nan), not NaN.
    p = tk.constant([[0.5, 0.25], [1.0, 3.0]])
    with tk.GradientTape() as tape:
        tape.watch(p)
        loss = losses.MeanSquaredError(reduction="mean_with_sample_weight")(
            [[0.0, 1.0], [2.0, 0.0]], p, sample_weight=[0.0, 0.0])
    assert float(loss) == 0.0
    np.testing.assert_array_equal(tape.gradient(loss, p).numpy(), np.zeros((2, 2), "float32"))


def test_a_loss_casts_float64_predictions_to_float32():
    # Keras 3.15 on TF 2.21: MeanSquaredError()(y, float64 p) is a float32 tensor (a Loss's dtype
    # is float32); the gradient w.r.t. p stays float64. The loss functions keep p's dtype.
    p = tk.constant(np.array([[0.5], [2.0]]))
    with tk.GradientTape() as tape:
        tape.watch(p)
        loss = losses.MeanSquaredError()([[0.0], [1.0]], p)
    assert loss.dtype == tk.float32 and float(loss) == 0.625
    grad = tape.gradient(loss, p)
    assert grad.dtype == tk.float64
    np.testing.assert_allclose(grad.numpy(), [[0.5], [1.0]])
    assert losses.mean_squared_error([[0.0], [1.0]], p).dtype == tk.float64


def masked_prediction():
    """(batch 2, steps 2, 1) predictions whose step 1 of row 0 is padding (its _keras_mask)."""
    p = tk.constant([[[1.0], [2.0]], [[3.0], [4.0]]])
    p._keras_mask = tk.constant([[True, False], [True, True]])
    return p


def test_a_masked_prediction_counts_only_its_steps_with_data_as_keras_3():
    """Issue 43, Keras 3.15's MeanSquaredError(reduction=...)(zeros, p) with p's mask, without
    and with sample_weight [[1, 3], [0.5, 2]] (one per step): the mean reductions divide by the
    3 steps with data, "sum" and "none" zero the padded step."""
    y = np.zeros((2, 2, 1), np.float32)
    w = np.array([[1.0, 3.0], [0.5, 2.0]], np.float32)
    keras = {"sum_over_batch_size": (8.6666670, 12.5), "mean": (8.6666670, 12.5),
             "sum": (26.0, 37.5), "mean_with_sample_weight": (8.6666670, 10.7142859),
             "none": ([[1.0, 0.0], [9.0, 16.0]], [[1.0, 0.0], [4.5, 32.0]])}
    for reduction, (plain, weighted) in keras.items():
        loss = losses.MeanSquaredError(reduction=reduction)
        close(loss(y, masked_prediction()), plain)
        close(loss(y, masked_prediction(), sample_weight=w), weighted)
    close(losses.MeanSquaredError()(y, tk.constant(masked_prediction().numpy())), 7.5)   # no mask
    # every step padded: 0 (Keras's divide_no_nan), not NaN
    p = masked_prediction()
    p._keras_mask = tk.constant([[False, False], [False, False]])
    close(losses.MeanSquaredError()(y, p), 0.0)


def test_a_mask_and_sample_weights_that_do_not_meet_are_refused_clearly():
    p = masked_prediction()
    try:
        losses.MeanSquaredError()(np.zeros((2, 2, 1)), p, sample_weight=np.ones((3,)))
    except ValueError as err:
        assert "sample_weight of shape (3,) does not broadcast to the mask" in str(err)
    else:
        raise AssertionError("a (3,) weight against a (2, 2) mask was accepted")


# --- labels and predictions made comparable ------------------------------------------------
def test_as_float_casts_ints_and_keeps_floats():
    assert as_float(np.array([1, 2])).dtype == tk.float32
    assert as_float(np.array([1.0], np.float64)).dtype == tk.float64


def test_prepare_casts_the_labels_to_the_predictions_dtype():
    y_true, y_pred = prepare(np.array([1, 0]), np.array([0.5, 0.25], np.float64))
    assert y_true.dtype == y_pred.dtype == tk.float64
    np.testing.assert_array_equal(y_true.numpy(), [1.0, 0.0])


def test_squeeze_or_expand_matches_ranks_one_apart_with_a_trailing_one():
    a, b = squeeze_or_expand(tk.ones((4, 1)), tk.ones((4,)))        # a vector grows an axis
    assert (a.shape, b.shape) == ((4, 1), (4, 1))
    a, b = squeeze_or_expand(tk.ones((2, 3)), tk.ones((2, 3, 1)))    # else the 1 goes
    assert (a.shape, b.shape) == ((2, 3), (2, 3))
    a, b = squeeze_or_expand(tk.ones((2, 3)), tk.ones((2,)))         # no trailing 1: unchanged
    assert (a.shape, b.shape) == ((2, 3), (2,))


def test_prepare_leaves_the_ranks_when_asked():
    y_true, y_pred = prepare(np.array([1, 2]), np.ones((2, 1)), same_rank=False)
    assert (y_true.shape, y_pred.shape) == ((2,), (2, 1))
    y_true, y_pred = prepare(np.array([1, 2]), np.ones((2, 1)))
    assert (y_true.shape, y_pred.shape) == ((2, 1), (2, 1))
