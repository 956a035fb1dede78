"""TerminateOnNaN (callbacks/terminate_on_nan.py): when it stops fit, what it prints and raises,
against Keras 3.15's numbers for the same fit."""
import numpy as np
import pytest

import tapekit as tk


def nan_at_sample_5():
    x = np.ones((8, 1), np.float32)
    y = np.ones((8, 1), np.float32)
    y[5] = np.nan                      # batch 2 of 4 (batches of 2) has a NaN loss
    return x, y


def ones_model():
    model = tk.Sequential([tk.Input((1,)), tk.layers.Dense(1, kernel_initializer="ones")])
    model.compile(optimizer="sgd", loss="mse")
    return model


class Ends(tk.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.train_ends = 0

    def on_train_end(self, logs=None):
        self.train_ends += 1


def test_it_is_exported_where_the_other_callbacks_are():
    assert tk.callbacks.TerminateOnNaN is tk.keras.callbacks.TerminateOnNaN
    assert "TerminateOnNaN" in dir(tk.callbacks) and "TerminateOnNaN" in tk.callbacks.__all__
    assert isinstance(tk.callbacks.TerminateOnNaN(), tk.callbacks.Callback)


@pytest.mark.parametrize("verbose", [0, 2])
def test_it_stops_after_the_first_nan_batch_as_keras(capsys, verbose):
    # Keras 3.15, the same fit: prints "Batch 2: Invalid loss, terminating training", 3 steps
    # (iterations 3), history {'loss': [nan], 'val_loss': [nan]}: the epoch still ends, with
    # its validation, and on_train_end runs; verbose=2 prints the epoch's line "4/4 - ..."
    x, y = nan_at_sample_5()
    model, ends = ones_model(), Ends()
    history = model.fit(x, y, batch_size=2, epochs=3, verbose=verbose, shuffle=False,
                        validation_data=(x[:2], y[:2]),
                        callbacks=[tk.callbacks.TerminateOnNaN(), ends])
    assert int(model.optimizer.iterations) == 3 and model.stop_training
    assert list(history.history) == ["loss", "val_loss"] and history.epoch == [0]
    assert np.isnan(history.history["loss"][0]) and np.isnan(history.history["val_loss"][0])
    assert ends.train_ends == 1
    out = capsys.readouterr().out
    assert ("Epoch 1/3\nBatch 2: Invalid loss, terminating training\n4/4 - loss: nan - "
            "val_loss: nan\n" if verbose else "Batch 2: Invalid loss, terminating training\n") == out


def test_raise_error_raises_keras_runtime_error_and_skips_on_train_end():
    # Keras 3.15: RuntimeError('NaN or Inf loss encountered at batch 2. Loss value: nan.
    # Terminating training immediately.'), after the step (iterations 3); no on_train_end
    x, y = nan_at_sample_5()
    model, ends = ones_model(), Ends()
    with pytest.raises(RuntimeError) as caught:
        model.fit(x, y, batch_size=2, epochs=3, verbose=0, shuffle=False,
                  callbacks=[tk.callbacks.TerminateOnNaN(raise_error=True), ends])
    assert str(caught.value) == ("NaN or Inf loss encountered at batch 2. Loss value: nan. "
                                 "Terminating training immediately.")
    assert int(model.optimizer.iterations) == 3 and ends.train_ends == 0


def test_it_reads_only_the_training_loss(capsys):
    stop = tk.callbacks.TerminateOnNaN()
    stop.set_model(ones_model())
    stop.model.stop_training = False
    stop.on_train_batch_end(0, {"loss": 0.5})
    stop.on_train_batch_end(1, None)
    stop.on_train_batch_end(2, {"accuracy": float("nan")})      # not the loss
    stop.on_test_batch_end(3, {"loss": float("nan")})           # evaluation: Keras neither
    assert not stop.model.stop_training and capsys.readouterr().out == ""
    stop.on_train_batch_end(7, {"loss": float("-inf")})         # inf counts, as in Keras
    assert stop.model.stop_training
    assert capsys.readouterr().out == "Batch 7: Invalid loss, terminating training\n"
