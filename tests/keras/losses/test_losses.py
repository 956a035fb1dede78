"""Losses against values computed by hand with NumPy (Keras's formulas), and their gradients."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import losses

EPS = 1e-7


def close(t, expected, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(t.numpy(), np.float64), expected, rtol=rtol, atol=1e-7)


def test_keras_docstring_examples():
    # The values printed in Keras's own docstrings.
    close(losses.BinaryCrossentropy()([[0., 1.], [0., 0.]], [[0.6, 0.4], [0.4, 0.6]]), 0.815, 1e-3)
    close(losses.BinaryCrossentropy(from_logits=True)([0, 1, 0, 0], [-18.6, 0.51, 2.94, -12.8]),
          0.865, 1e-3)
    close(losses.CategoricalCrossentropy()([[0, 1, 0], [0, 0, 1]], [[.05, .95, 0], [.1, .8, .1]]),
          1.177, 1e-3)
    close(losses.SparseCategoricalCrossentropy()([1, 2], [[.05, .95, 0], [.1, .8, .1]]), 1.177, 1e-3)
    close(losses.MeanSquaredError()([[0., 1.], [0., 0.]], [[1., 1.], [1., 0.]]), 0.5)


def test_mean_squared_error_by_hand():
    y_true = np.array([[1.0, 2.0], [3.0, 4.0], [0.5, 0.0]])
    y_pred = np.array([[1.5, 1.0], [3.0, 2.0], [0.0, 1.0]])
    per_example = ((y_true - y_pred) ** 2).mean(-1)          # [0.625, 2.0, 0.625]
    close(losses.MeanSquaredError()(y_true, y_pred), per_example.mean())
    close(losses.MeanSquaredError(reduction="sum")(y_true, y_pred), per_example.sum())
    close(losses.MeanSquaredError(reduction="none")(y_true, y_pred), per_example)
    # Keras matches ranks: labels (3,) against predictions (3, 1) are one column, not a 3x3 grid.
    close(losses.MeanSquaredError()([1.0, 2.0, 3.0], [[1.0], [2.0], [5.0]]), 4 / 3)


def test_binary_crossentropy_clips_probabilities():
    y = np.array([[1.0, 0.0, 1.0, 0.0]])
    p = np.array([[0.9, 0.2, 0.0, 1.0]])                     # 0 and 1: clipped, stays finite
    # in float32, as the loss casts p (Keras 3.15 on TF 2.21 gives 8.097246 here)
    q = np.clip(p.astype("float32"), np.float32(EPS), np.float32(1 - EPS))
    expected = -(y * np.log(q) + (1 - y) * np.log(np.float32(1) - q)).mean()
    got = losses.BinaryCrossentropy()(y, p)
    assert np.isfinite(got.numpy())
    close(got, expected, rtol=1e-5)


def test_binary_crossentropy_from_logits_is_stable():
    y = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    x = np.array([2.0, -1.0, 0.0, 300.0, -300.0])            # exp(300) would overflow float32
    expected = (np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))).mean()
    loss = losses.BinaryCrossentropy(from_logits=True)
    close(loss(y, x), expected)
    logits = tk.constant(x.astype(np.float32))
    with tk.GradientTape() as tape:
        tape.watch(logits)
        value = loss(y, logits)
    sigmoid = 1 / (1 + np.exp(-np.clip(x, -50, 50)))
    close(tape.gradient(value, logits), (sigmoid - y) / len(x))   # also at x = 0 exactly


def test_categorical_crossentropy_normalises_and_clips():
    y = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    p = np.array([[0.2, 0.6, 0.2], [0.0, 1.0, 1.0]])        # second row sums to 2, holds a 0
    q = np.clip(p / p.sum(-1, keepdims=True), EPS, 1 - EPS)
    close(losses.CategoricalCrossentropy()(y, p), (-(y * np.log(q)).sum(-1)).mean(), rtol=1e-5)


def test_categorical_crossentropy_from_logits_value_and_gradient():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 5)) * 3
    y = np.eye(5)[[0, 3, 3, 1]]
    log_softmax = x - x.max(-1, keepdims=True)
    log_softmax -= np.log(np.exp(log_softmax).sum(-1, keepdims=True))
    loss = losses.CategoricalCrossentropy(from_logits=True)
    close(loss(y, x), -(y * log_softmax).sum(-1).mean())
    logits = tk.constant(x)
    with tk.GradientTape() as tape:
        tape.watch(logits)
        value = loss(y, logits)
    close(tape.gradient(value, logits), (np.exp(log_softmax) - y) / 4)


@pytest.mark.parametrize("from_logits", [False, True])
def test_sparse_equals_categorical_with_one_hot_labels(from_logits):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(6, 4))
    pred = x if from_logits else np.exp(x) / np.exp(x).sum(-1, keepdims=True)
    labels = np.array([0, 3, 1, 1, 2, 3])
    dense = losses.CategoricalCrossentropy(from_logits=from_logits)(np.eye(4)[labels], pred)
    sparse = losses.SparseCategoricalCrossentropy(from_logits=from_logits)
    close(sparse(labels, pred), dense.numpy(), rtol=1e-10)
    close(sparse(labels[:, None], pred), dense.numpy(), rtol=1e-10)            # (N, 1) labels
    close(sparse(labels.astype(np.float32), pred), dense.numpy(), rtol=1e-10)  # float labels


def test_sparse_gradient_is_softmax_minus_one_hot():
    x = tk.constant(np.random.default_rng(2).normal(size=(3, 4)))
    labels = tk.constant([2, 0, 3])
    with tk.GradientTape() as tape:
        tape.watch(x)
        value = losses.SparseCategoricalCrossentropy(from_logits=True)(labels, x)
    softmax = np.exp(x.numpy()) / np.exp(x.numpy()).sum(-1, keepdims=True)
    close(tape.gradient(value, x), (softmax - np.eye(4)[[2, 0, 3]]) / 3)


def test_sparse_labels_out_of_range_are_an_error():
    with pytest.raises(ValueError, match=r"labels must be in \[0, 3\)"):
        losses.SparseCategoricalCrossentropy()([0, 3], [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])


def test_losses_are_float32_scalars_by_default():
    value = losses.MeanSquaredError()(tk.zeros((8, 1)), tk.ones((8, 1)))
    assert value.shape == () and value.dtype == tk.float32 and value.numpy() == 1.0


def test_sparse_negative_labels_are_an_error():
    with pytest.raises(ValueError, match=r"got values from -1 to 2"):
        losses.SparseCategoricalCrossentropy()(np.array([2, -1], np.int64), [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])


def test_label_smoothing_moves_labels_as_keras_does():
    # By hand: binary labels move toward 1/2 (y (1 - s) + s / 2), one-hot toward 1/K.
    y, p = [[1.0, 0.0]], [[0.8, 0.3]]
    s = 0.2
    yb = np.array([[0.9, 0.1]])
    by_hand = -np.mean(yb * np.log([[0.8, 0.3]]) + (1 - yb) * np.log([[0.2, 0.7]]))
    close(losses.BinaryCrossentropy(label_smoothing=s)(y, p), by_hand)
    close(losses.binary_crossentropy(y, p, label_smoothing=s), [by_hand])
    yc, pc = [[0.0, 1.0, 0.0]], [[0.2, 0.7, 0.1]]
    smoothed = np.array([0.1, 0.8, 0.1])                 # 0.3 over 3 classes: 0.1 each
    close(losses.CategoricalCrossentropy(label_smoothing=0.3)(yc, pc),
          -np.sum(smoothed * np.log([0.2, 0.7, 0.1])))
    # with logits: the same as passing the smoothed labels
    z = tk.constant([[0.3, -1.2, 2.0], [1.5, 0.1, -0.4]])
    onehot = tk.constant([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    for cls, smooth in [(losses.CategoricalCrossentropy, lambda t: t * 0.7 + 0.1),
                        (losses.BinaryCrossentropy, lambda t: t * 0.7 + 0.15)]:
        close(cls(from_logits=True, label_smoothing=0.3)(onehot, z),
              float(cls(from_logits=True)(smooth(onehot), z)))
    x = tk.Variable(z)
    with tk.GradientTape() as tape:
        value = losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.3)(onehot, x)
    softmax = np.exp(z.numpy()) / np.exp(z.numpy()).sum(-1, keepdims=True)
    close(tape.gradient(value, x), (softmax - (onehot.numpy() * 0.7 + 0.1)) / 2, rtol=1e-5)


@pytest.mark.parametrize("bad", [-0.1, 1.5, "0.1x"])
def test_label_smoothing_outside_zero_to_one_is_refused(bad):
    with pytest.raises((ValueError, TypeError), match="CategoricalCrossentropy: label_smoothing must"):
        losses.CategoricalCrossentropy(label_smoothing=bad)


# --- found by tools/tf_diff/keras_diff.py (Keras 3.15 on TF 2.21) ----------------------------
def test_binary_crossentropy_refuses_labels_that_only_broadcast():
    # Keras 3.15 raises "Arguments `target` and `output` must have the same shape" for labels
    # (4, 2) against predictions (4, 1); tapekit broadcast them to (4, 2) and gave 0.746941.
    labels, probabilities = np.ones((4, 2), np.float32), np.full((4, 1), 0.5, np.float32)
    with pytest.raises(ValueError, match=r"same shape, got \(4, 2\) and \(4, 1\)"):
        losses.BinaryCrossentropy()(labels, probabilities)
    with pytest.raises(ValueError, match="same shape"):
        tk.metrics.BinaryCrossentropy().update_state(labels, probabilities)
    # labels (4,) against (4, 1) are one column, as Keras matches the ranks: -log(0.5) each
    close(losses.BinaryCrossentropy()(np.ones(4, np.float32), probabilities), np.log(2.0))


def test_crossentropy_of_keras_sigmoid_output_is_read_from_its_logits():
    # Keras 3.15 gives 30.0 and the gradient [0.5, -0.5] (its sigmoid keeps its logits, the
    # loss reads them); tapekit clipped sigmoid(30) = 1.0 to 1 - 1e-7 and gave
    # -log(1e-7) = 16.118 with a zero gradient. By hand: softplus(30) - 0 = 30 + log(1 + e^-30)
    # for label 0, softplus(-30) + 30 for label 1: 30 each; d/dx = (sigmoid(x) - y) / 2.
    x = tk.constant([30.0, -30.0])
    with tk.GradientTape() as tape:
        tape.watch(x)
        loss = losses.BinaryCrossentropy()([0.0, 1.0], tk.keras.activations.sigmoid(x))
    close(loss, 30.0)
    close(tape.gradient(loss, x), [0.5, -0.5])
    metric = tk.metrics.BinaryCrossentropy()                   # the same function: 30.0
    metric.update_state([0.0, 1.0], tk.keras.activations.sigmoid(x))
    close(metric.result(), 30.0)


@pytest.mark.parametrize("loss, label", [(losses.CategoricalCrossentropy(), [[0.0, 0.0, 1.0]]),
                                         (losses.SparseCategoricalCrossentropy(), [2])])
def test_crossentropy_of_keras_softmax_output_is_read_from_its_logits(loss, label):
    # Keras 3.15 gives 60.0 for both: logsumexp(30, 0, -30) - (-30) = 30 + 30 (+ e^-30);
    # tapekit clipped the probability 0 of class 2 and gave -log(1e-7) = 16.118
    z = tk.constant([[30.0, 0.0, -30.0]])
    with tk.GradientTape() as tape:
        tape.watch(z)
        value = loss(label, tk.keras.activations.softmax(z))
    close(value, 60.0)
    close(tape.gradient(value, z), [[1.0, 0.0, -1.0]])          # softmax - one_hot


def test_from_logits_true_on_a_keras_sigmoid_output_warns_and_reads_its_logits():
    # Keras 3.15 warns and gives log 2 = 0.6931472 (the logit 0); tapekit read 0.5 as a logit
    # and gave softplus(0.5) - 0.5 = 0.474
    with pytest.warns(UserWarning, match="from_logits=True, but the predictions come from a sigmoid"):
        value = losses.BinaryCrossentropy(from_logits=True)([1.0], tk.keras.activations.sigmoid(tk.constant([0.0])))
    close(value, np.log(2.0))


def test_a_saturated_sigmoid_model_evaluates_from_its_logits():
    # Keras 3.15's evaluate gives 15.0; tapekit gave 4.02952 (clipped). Logits x * -30 for
    # x = 1, 2, -1, 0.5: -30, -60, 30, -15 against labels 0, 1, 1, 0: losses ~0, 60, ~0, ~0
    model = tk.Sequential([tk.Input((1,)), tk.layers.Dense(1, activation="sigmoid")])
    model.set_weights([np.array([[-30.0]], np.float32), np.zeros(1, np.float32)])
    model.compile(optimizer="sgd", loss="binary_crossentropy")
    x = np.array([[1.0], [2.0], [-1.0], [0.5]], np.float32)
    assert model.evaluate(x, np.array([0.0, 1.0, 1.0, 0.0]), verbose=0) == pytest.approx(15.0, rel=1e-6)


def test_per_sample_weights_on_one_dimensional_data_say_how_to_shape_it():
    # Keras 3.15 gives MSE()(y, p, sample_weight=w) = mean((y - p)^2) * mean(w) for 1-D y and p
    # (one loss, broadcast against the weights); tapekit refuses, and now says why
    y, p = np.array([0.0, 1.0, 1.0, 0.0], np.float32), np.array([0.2, 0.7, 0.9, 0.4], np.float32)
    with pytest.raises(ValueError, match=r"1-D labels and predictions are one example.*shape \(N, 1\)"):
        losses.MeanSquaredError()(y, p, sample_weight=[1.0, 2.0, 3.0, 4.0])
    # shaped (N, 1): one loss per example, weighted: (0.04 + 2 * 0.09 + 3 * 0.01 + 4 * 0.16) / 4
    close(losses.MeanSquaredError()(y[:, None], p[:, None], sample_weight=[1.0, 2.0, 3.0, 4.0]),
          0.2225, rtol=1e-5)


# --- MeanAbsolutePercentageError, MeanSquaredLogarithmicError, LogCosh, CosineSimilarity -----
REG_T = [[1.0, 2.0, 0.0], [3.0, -1.0, 0.5]]      # a 0 label: MAPE divides by 1e-7 there
REG_P = [[1.5, 1.0, 0.3], [2.0, 0.5, 0.5]]
W = [0.5, 2.0]


def _by_hand(name, y, p):
    y, p = np.asarray(y, np.float64), np.asarray(p, np.float64)
    if name == "mean_absolute_percentage_error":
        return 100 * (np.abs(y - p) / np.maximum(np.abs(y), EPS)).mean(-1)
    if name == "mean_squared_logarithmic_error":
        return ((np.log(np.maximum(p, EPS) + 1) - np.log(np.maximum(y, EPS) + 1)) ** 2).mean(-1)
    if name == "log_cosh":
        return np.log(np.cosh(p - y)).mean(-1)
    unit = lambda v: v / np.linalg.norm(v, axis=-1, keepdims=True)   # noqa: E731
    return -(unit(y) * unit(p)).sum(-1)


# Keras 3.15 on TF 2.21, on REG_T and REG_P: [default, reduction="sum", sample_weight=W, per example]
@pytest.mark.parametrize("cls, keras", [
    (losses.MeanAbsolutePercentageError, (50000048.0, 100000096.0, 25000070.0, [100000032.0, 61.11111])),
    (losses.MeanSquaredLogarithmicError, (0.08836546, 0.17673092, 0.10597343, [0.09434331, 0.0823876])),
    (losses.LogCosh, (0.3145762, 0.62915242, 0.47959334, [0.19941205, 0.42974034])),
    (losses.CosineSimilarity, (-0.85155356, -1.7031071, -1.0607581, [-0.85646534, -0.84664178])),
])
def test_regression_losses_match_keras(cls, keras):
    default, summed, weighted, per_example = keras
    np.testing.assert_allclose(_by_hand(cls().name, REG_T, REG_P), per_example, rtol=1e-6)
    close(cls()(REG_T, REG_P), default)
    close(cls(reduction="sum")(REG_T, REG_P), summed)
    close(cls()(REG_T, REG_P, sample_weight=W), weighted)
    close(cls(reduction="none")(REG_T, REG_P), per_example)


def test_regression_losses_at_their_edges_as_keras():
    # Keras 3.15 on TF 2.21 gives each number in the comment.
    close(losses.CosineSimilarity(axis=0, reduction="none")(REG_T, REG_P),
          [-0.94868326, -0.59999996, -0.85749292])                                  # axis=0
    close(losses.CosineSimilarity()([[0.0, 0.0]], [[1.0, 2.0]]), 0.0)               # -0.0: a zero norm
    close(losses.LogCosh()([[0.0, 0.0]], [[100.0, -100.0]]), 99.306854)             # no cosh overflow
    close(losses.MeanSquaredLogarithmicError()([[-1.0, 2.0]], [[0.5, -3.0]]), 0.68567532)  # negatives: 1e-7
    close(losses.MeanAbsolutePercentageError()([[0.0, 2.0]], [[1.0, 1.0]]), 5e8)   # 500000000.0


def test_mape_is_one_function_for_losses_and_metrics():
    assert tk.metrics.mean_absolute_percentage_error is losses.mean_absolute_percentage_error


@pytest.mark.parametrize("fn", [losses.mean_absolute_percentage_error, losses.mean_squared_logarithmic_error,
                                losses.log_cosh, losses.cosine_similarity])
def test_regression_gradients_match_finite_differences(fn):
    y = tk.constant(np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 0.5]]))
    p = np.array([[1.5, 1.0, 0.3], [2.0, 0.5, 0.75]])          # no |y - p| = 0 kink
    theoretical, numerical = tk.test.compute_gradient(lambda q: fn(y, q), [p])
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-4, atol=1e-6)   # step 1/1024
    assert np.abs(theoretical[0]).sum() > 0


@pytest.mark.parametrize("name, found", [
    ("mape", losses.mean_absolute_percentage_error), ("MAPE", losses.mean_absolute_percentage_error),
    ("msle", losses.mean_squared_logarithmic_error), ("MSLE", losses.mean_squared_logarithmic_error),
    ("log_cosh", losses.log_cosh), ("cosine_similarity", losses.cosine_similarity),
    ("LogCosh", losses.LogCosh), ("CosineSimilarity", losses.CosineSimilarity),
    ("MeanAbsolutePercentageError", losses.MeanAbsolutePercentageError),
    ("MeanSquaredLogarithmicError", losses.MeanSquaredLogarithmicError)])
def test_the_new_losses_resolve_by_keras_names(name, found):
    got = losses.get(name)
    assert got is found or type(got) is found


@pytest.mark.parametrize("loss", ["msle", "log_cosh", "cosine_similarity", "mape"])
def test_compile_takes_the_new_losses_by_name(loss):
    model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(3)])
    model.compile(optimizer="sgd", loss=loss)
    x = np.array([[1.0, 0.0, 2.0], [0.5, -1.0, 0.0]], "float32")
    y = np.array([[1.0, 2.0, 0.5], [3.0, 1.0, 0.5]], "float32")
    expected = float(tk.reduce_mean(losses.get(loss)(y, model(x))))
    assert model.evaluate(x, y, verbose=0) == pytest.approx(expected, rel=1e-6)


def test_a_model_compiled_with_cosine_similarity_saves_and_loads(tmp_path):
    model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(3)])
    model.compile(optimizer="sgd", loss=losses.CosineSimilarity(axis=-1, reduction="sum"))
    model.save(tmp_path / "m.keras")
    loaded = tk.models.load_model(tmp_path / "m.keras")
    assert type(loaded.loss) is losses.CosineSimilarity
    assert loaded.loss.reduction == "sum" and repr(loaded.loss) == repr(model.loss)
