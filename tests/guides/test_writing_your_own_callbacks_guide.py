"""keras.io's guide "Writing your own callbacks" on tapekit (issue 32).

Cells of keras-team/keras-io guides/writing_your_own_callbacks.py (numbered as
tools/guides/extract.py prints them) re-stated in our own code, on stand-in data of MNIST's
shapes: the order of the hooks and their logs' keys (cell 4), the running mean the batch
logs hold (cell 5), stopping from a callback (cell 6) and a callback that sets the learning
rate each epoch (cell 7). The expected counts and values are worked out by hand.
"""
import numpy as np
import pytest

import tapekit as keras


def get_model():
    # cell 1: one Dense unit on 784 inputs, RMSprop(0.1), mse, metric mean_absolute_error
    model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=0.1),
                  loss="mean_squared_error", metrics=["mean_absolute_error"])
    return model


def data(n=1000, seed=2):
    rng = np.random.default_rng(seed)
    return rng.uniform(size=(n, 784)).astype("float32"), rng.integers(0, 10, n)


class Recorder(keras.callbacks.Callback):
    """Every hook, with its argument and the keys of its logs (cell 3's callback, as data)."""

    def __init__(self, events):
        super().__init__()
        self.events = events


def _hook(name, indexed):
    def hook(self, *args, logs=None):
        logs = (args[1] if indexed else args[0]) if len(args) > indexed else logs
        self.events.append((name,) + ((args[0],) if indexed else ()) + (list(logs),))
    return hook


for _name in ("on_train_begin", "on_train_end", "on_test_begin", "on_test_end",
              "on_predict_begin", "on_predict_end"):
    setattr(Recorder, _name, _hook(_name, False))
for _name in ("on_epoch_begin", "on_epoch_end", "on_train_batch_begin", "on_train_batch_end",
              "on_test_batch_begin", "on_test_batch_end", "on_predict_batch_begin",
              "on_predict_batch_end"):
    setattr(Recorder, _name, _hook(_name, True))


def test_cell_4_hook_order_and_log_keys():
    x, y = data()
    model = get_model()
    events = []
    # validation_split=0.5: 500 samples train (4 batches of 128), 500 validate (4 batches)
    model.fit(x, y, batch_size=128, epochs=1, verbose=0, validation_split=0.5,
              callbacks=[Recorder(events)])
    keys = ["loss", "mean_absolute_error"]
    train = [e for i in range(4) for e in (("on_train_batch_begin", i, []),
                                           ("on_train_batch_end", i, keys))]
    val = [e for i in range(4) for e in (("on_test_batch_begin", i, []),
                                         ("on_test_batch_end", i, keys))]
    val_keys = keys + ["val_loss", "val_mean_absolute_error"]
    assert events == ([("on_train_begin", []), ("on_epoch_begin", 0, [])] + train +
                      [("on_test_begin", [])] + val + [("on_test_end", keys),
                                                        ("on_epoch_end", 0, val_keys),
                                                        ("on_train_end", val_keys)])
    events.clear()
    model.predict(x, batch_size=128, verbose=0, callbacks=[Recorder(events)])
    assert len(events) == 2 + 2 * 8                              # ceil(1000 / 128) = 8
    assert events[-2] == ("on_predict_batch_end", 7, ["outputs"])
    assert events[-1] == ("on_predict_end", [])


def test_cell_5_batch_logs_hold_the_running_mean_of_the_epoch():
    x, y = data(256)
    model = get_model()
    model.compile(optimizer=keras.optimizers.SGD(0.0), loss="mean_squared_error",
                  metrics=["mean_absolute_error"])
    seen = []
    model.fit(x, y, batch_size=128, epochs=1, verbose=0, shuffle=False,
              callbacks=[keras.callbacks.LambdaCallback(
                  on_train_batch_end=lambda batch, logs: seen.append(logs["loss"]))])
    err = (model.predict(x, verbose=0)[:, 0] - y) ** 2           # weights never move (lr 0)
    assert seen == [pytest.approx(err[:128].mean(), rel=1e-5),
                    pytest.approx(err.mean(), rel=1e-5)]


def test_cell_6_a_callback_stops_training_at_the_epoch_it_chooses():
    x, y = data(320)

    class StopAtThird(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 2:
                self.model.stop_training = True

    model = get_model()
    # steps_per_epoch=5 of batches of 64: one pass of 320 samples per epoch
    history = model.fit(x, y, batch_size=64, steps_per_epoch=5, epochs=30, verbose=0,
                        callbacks=[StopAtThird()])
    assert history.epoch == [0, 1, 2] and int(model.optimizer.iterations) == 15


def test_cell_7_a_callback_sets_the_learning_rate_each_epoch():
    schedule = {3: 0.05, 6: 0.01, 9: 0.005, 12: 0.001}      # cell 7's table: epoch -> rate
    rates = []

    class Scheduler(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            lr = float(self.model.optimizer.learning_rate)
            self.model.optimizer.learning_rate = schedule.get(epoch, lr)
            rates.append(float(self.model.optimizer.learning_rate))

    x, y = data(320)
    model = get_model()
    model.fit(x, y, batch_size=64, steps_per_epoch=5, epochs=15, verbose=0,
              callbacks=[Scheduler()])
    expected = [0.1] * 3 + [0.05] * 3 + [0.01] * 3 + [0.005] * 3 + [0.001] * 3
    assert rates == [pytest.approx(r) for r in expected]
