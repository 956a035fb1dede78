"""Off-page checks of lesson 20 (notebooks/20_compile_fit_and_callbacks.md): its claims
about fit's displays and its loop that need more than the lesson's own cells."""
import io
import re

import numpy as np

import tapekit as tk


def _model():
    tk.random.set_seed(0)
    model = tk.Sequential([tk.layers.Dense(3)])
    model.compile(optimizer=tk.optimizers.SGD(0.1),
                  loss=tk.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(70, 2)).astype(np.float32)
    return x, (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0)


def test_verbose_1_shows_a_bar_that_is_removed_and_lines_without_timings():
    """"1 ... adds a progress bar that runs during each epoch and disappears at its end";
    the lines hold no timings, the bar does."""
    x, y = _data()
    out, bar = io.StringIO(), io.StringIO()
    _model().fit(x, y, epochs=2, verbose=1,
                 callbacks=[tk.callbacks.ProgbarLogger(file=out, bar_file=bar)])
    lines = out.getvalue().splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2"
    assert re.fullmatch(r"3/3 ━{20} - accuracy: \d\.\d{4} - loss: \d\.\d{4}", lines[1]), lines[1]
    assert not re.search(r"\d+(ms|s)/step|\d+s\b", out.getvalue())
    drawn = bar.getvalue()
    assert "/3 [" in drawn and re.search(r"\[\d\d:\d\d", drawn)   # the bar, with its times
    assert drawn.endswith("\r")                                   # tqdm's leave=False: wiped


def test_verbose_2_prints_only_the_lines_and_0_nothing(capsys):
    x, y = _data()
    _model().fit(x, y, epochs=2, verbose=2)
    captured = capsys.readouterr()
    assert captured.out.count("Epoch ") == 2 and captured.err == ""
    _model().fit(x, y, epochs=2, verbose=0)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_stop_training_set_in_on_epoch_end_ends_fit_after_that_epoch():
    """The exercise's mechanism: fit checks model.stop_training after on_epoch_end."""
    x, y = _data()

    class StopAfter(tk.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 2:
                self.model.stop_training = True

    history = _model().fit(x, y, epochs=10, verbose=0, callbacks=[StopAfter()])
    assert history.epoch == [0, 1, 2]
