"""keras.io's guide "Training & evaluation with the built-in methods" on tapekit (issue 32).

Cells of keras-team/keras-io guides/training_with_built_in_methods.py (numbered as
tools/guides/extract.py prints them) re-stated in our own code on small stand-in data, with
the expected numbers worked out by hand or with NumPy: the validation holdout (cell 18),
a dataset with steps_per_epoch (cell 20) and validation_steps (cell 22), class weights as
sample weights (cells 23-24), per-output losses, weights and metrics (cells 28-33).
"""
import numpy as np
import pytest

import tapekit as keras

RNG = np.random.default_rng(32)
X = RNG.normal(size=(40, 4)).astype("float32")
LABELS = RNG.integers(0, 3, 40)


def classifier(lr=0.0):
    model = keras.Sequential([keras.Input((4,)),
                              keras.layers.Dense(3, activation="softmax",
                                                 kernel_initializer="ones")])
    model.compile(optimizer=keras.optimizers.SGD(lr), loss="sparse_categorical_crossentropy",
                  metrics=["sparse_categorical_accuracy"])
    return model


class Batches(keras.utils.PyDataset):
    """cells 19-22's tf.data pipelines, as a PyDataset of (x, y[, sample_weight]) batches."""

    def __init__(self, *arrays, batch_size):
        super().__init__()
        self.arrays, self.batch_size = arrays, batch_size

    def __len__(self):
        return -(-len(self.arrays[0]) // self.batch_size)

    def __getitem__(self, i):
        return tuple(a[i * self.batch_size:(i + 1) * self.batch_size] for a in self.arrays)


def test_cell_18_validation_split_holds_out_the_last_samples():
    # a kernel of ones gives every class the same score: loss log(3), accuracy of guessing 0
    model = classifier()
    history = model.fit(X, LABELS, batch_size=8, validation_split=0.25, epochs=1, verbose=0)
    assert history.history["loss"][0] == pytest.approx(np.log(3), rel=1e-5)
    assert history.history["val_sparse_categorical_accuracy"][0] == pytest.approx(
        np.mean(LABELS[30:] == 0))


def test_cell_20_steps_per_epoch_draws_the_next_batches():
    # 40 samples in batches of 8 are 5 batches; 2 steps per epoch take batches 0-1, 2-3, 4
    # (then the data runs out), with one target per batch so each epoch's loss tells which
    y = np.repeat(np.arange(5, dtype="float32"), 8)[:, None]
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")
    with pytest.warns(UserWarning, match="ran out of data"):
        history = model.fit(Batches(X, y, batch_size=8), epochs=3, steps_per_epoch=2,
                            shuffle=False, verbose=0)
    assert history.history["loss"] == [pytest.approx(v) for v in
                                       [(0 + 1) / 2, (4 + 9) / 2, 16.0]]


def test_cell_22_validation_steps_evaluates_the_same_first_batches():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mse")
    y_val = np.arange(40, dtype="float32")[:, None]            # sample i's loss: i squared
    history = model.fit(Batches(X, np.zeros((40, 1), "float32"), batch_size=8), epochs=2,
                        validation_data=Batches(X, y_val, batch_size=8), validation_steps=2,
                        verbose=0)
    assert history.history["val_loss"] == [pytest.approx(np.mean(np.arange(16) ** 2))] * 2


def test_cells_23_24_class_weight_is_sample_weight_by_class():
    class_weight = {0: 1.0, 1: 1.0, 2: 2.0}
    a, b = classifier(0.1), classifier(0.1)
    a.fit(X, LABELS, class_weight=class_weight, batch_size=8, epochs=2, shuffle=False,
          verbose=0)
    sample_weight = np.where(LABELS == 2, 2.0, 1.0)
    b.fit(X, LABELS, sample_weight=sample_weight, batch_size=8, epochs=2, shuffle=False,
          verbose=0)
    np.testing.assert_allclose(a.layers[0].kernel.numpy(), b.layers[0].kernel.numpy(),
                               rtol=1e-6)
    # cell 25: the weights as the third item of each batch train the same way
    c = classifier(0.1)
    c.fit(Batches(X, LABELS, sample_weight, batch_size=8), epochs=2, shuffle=False, verbose=0)
    np.testing.assert_allclose(c.layers[0].kernel.numpy(), b.layers[0].kernel.numpy(),
                               rtol=1e-6)


def two_outputs():
    inp = keras.Input((4,), name="features")
    score = keras.layers.Dense(1, name="score_output", kernel_initializer="zeros")(inp)
    classes = keras.layers.Dense(3, activation="softmax", name="class_output",
                                 kernel_initializer="ones")(inp)
    return keras.Model(inputs=inp, outputs=[score, classes])


def test_cells_28_to_33_losses_weights_and_metrics_per_output():
    score_targets = np.linspace(0, 1, 40).astype("float32")[:, None]
    class_targets = np.eye(3, dtype="float32")[LABELS]
    model = two_outputs()
    model.compile(optimizer=keras.optimizers.SGD(0.0),
                  loss={"score_output": keras.losses.MeanSquaredError(),
                        "class_output": keras.losses.CategoricalCrossentropy()},
                  metrics={"score_output": [keras.metrics.MeanAbsoluteError()],
                           "class_output": [keras.metrics.CategoricalAccuracy()]},
                  loss_weights={"score_output": 2.0, "class_output": 1.0})
    history = model.fit({"features": X},
                        {"score_output": score_targets, "class_output": class_targets},
                        batch_size=40, epochs=1, verbose=0).history
    mse, cce = np.mean(score_targets ** 2), np.log(3)      # zero scores, uniform classes
    assert list(history) == ["class_output_categorical_accuracy", "class_output_loss", "loss",
                             "score_output_loss", "score_output_mean_absolute_error"]
    assert history["score_output_loss"][0] == pytest.approx(mse, rel=1e-5)
    assert history["class_output_loss"][0] == pytest.approx(cce, rel=1e-5)
    assert history["loss"][0] == pytest.approx(2 * mse + cce, rel=1e-5)
    assert history["score_output_mean_absolute_error"][0] == pytest.approx(
        np.mean(score_targets), rel=1e-5)
    # cell 32: no loss for the score output, a list in output order
    model.compile(optimizer=keras.optimizers.SGD(0.0),
                  loss=[None, keras.losses.CategoricalCrossentropy()])
    history = model.fit(X, [score_targets, class_targets], batch_size=40, verbose=0).history
    assert history["loss"][0] == pytest.approx(cce, rel=1e-5)
