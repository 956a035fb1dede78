"""What fit, evaluate and predict print (callbacks/progbar.py): Keras 3's epoch lines, the tqdm bar, MonitorCallback."""
import io
import re

import numpy as np
import pytest

import tapekit as tk


def make_model(seed=0, units=(5, 3)):
    tk.random.set_seed(seed)
    model = tk.Sequential([tk.layers.Dense(units[0], activation="relu", input_shape=(4,)),
                           tk.layers.Dense(units[1])])
    return model


def data(n=20, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0)
    return x, y


BAR = "\u2501" * 20


# Keras 3's epoch line without its timings: "3/3 [bar at verbose=1] - name: value ...", sorted
LINE = re.compile(r"^\d+/\d+( " + BAR + r")? - (accuracy: \d\.\d{4} - )?loss: \d+\.\d{4}"
                  r"( - [a-z_]+: -?\d\.\d{4}(e[-+]\d+)?| - [a-z_]+: \d+\.\d{4})*$")


def ones_model(n_in=2):
    """y = sum(x) exactly: Dense(1) with a kernel of ones and no bias error."""
    return tk.Sequential([tk.Input((n_in,)), tk.layers.Dense(1, kernel_initializer="ones")])


XS = np.arange(40, dtype="float32").reshape(20, 2) / 40


YS = XS.sum(1, keepdims=True)


def test_verbose_2_prints_a_deterministic_line_per_epoch(capsys):
    x, y = data(10)
    model = make_model()
    model.compile(optimizer="sgd", loss=tk.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(x, y, batch_size=4, epochs=2, verbose=2, validation_split=0.2)
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    for line in (lines[1], lines[3]):
        assert line.startswith("2/2 - accuracy: ") and LINE.match(line), line
        assert re.search(r" - loss: \d+\.\d{4} - val_accuracy: \d\.\d{4} - val_loss: ", line)
    assert err == ""         # no bar at verbose=2


def test_verbose_1_shows_a_tqdm_bar(capsys):
    x, y = data(10)
    model = make_model()
    model.compile(optimizer="sgd", loss=tk.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, batch_size=4, epochs=1)       # verbose="auto" is 1
    out, err = capsys.readouterr()
    assert LINE.match(out.splitlines()[0])      # Keras 3 prints no "Epoch 1/1"
    assert re.search(r"\d+/3 \[", err) and "step" in err    # tqdm's "3/3 [00:00<..., step/s]"
    model.evaluate(x, y, batch_size=5)
    out, _ = capsys.readouterr()
    assert LINE.match(out.strip()) and out.startswith(f"2/2 {BAR} - loss: ")


def test_verbose_1_with_tqdm_disabled_prints_the_lines_and_no_bar(capsys, monkeypatch):
    # basic_training_loops cell 34 under TQDM_DISABLE=1: the disabled bar lacks mininterval
    # (fit raised AttributeError); it must simply not draw.
    monkeypatch.setenv("TQDM_DISABLE", "1")
    x, y = data(10)
    model = make_model()
    model.compile(optimizer="sgd", loss=tk.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, batch_size=4, epochs=2, verbose=1)
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    assert LINE.match(lines[1]) and lines[3].startswith(f"3/3 {BAR} - loss: ")
    assert f"{history.history['loss'][-1]:.4f}" in lines[3]
    assert err == ""            # no bar drawn
    mon = tk.widgets.TrainingMonitor(total=2, file=io.StringIO(), mode="text")
    model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[tk.callbacks.MonitorCallback(mon)])
    assert mon.count == 2 and mon._finished


def test_monitor_callback_feeds_the_training_monitor():
    x, y = data(8)
    model = make_model()
    model.compile(optimizer="sgd", loss=tk.losses.SparseCategoricalCrossentropy(from_logits=True))
    mon = tk.widgets.TrainingMonitor(total=4, file=io.StringIO(), mode="text")
    history = model.fit(x, y, batch_size=4, epochs=2, verbose=0,
                        callbacks=[tk.callbacks.MonitorCallback(mon)])
    assert mon.count == 4 and mon._finished
    assert mon.log_.last_loss == pytest.approx(history.history["loss"][-1])


def test_monitor_callback_makes_its_own_monitor():
    # MonitorCallback() without a monitor imported tk.widgets one package level too high.
    model = tk.Sequential([tk.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    callback = tk.callbacks.MonitorCallback()
    history = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[callback])
    assert len(history.history["loss"]) == 2
    assert callback.monitor is not None


def test_fit_in_a_notebook_stores_the_epoch_lines_not_frozen_bars():
    # verbose=1 in Jupyter shows a tqdm widget per epoch; a saved notebook has no widget state,
    # so each bar used to be stored as its text fallback, "0%| | 0/4". Closing it empties it.
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import numpy as np, tapekit as tk\n"
        "m = tk.Sequential([tk.layers.Dense(1)]); m.compile(optimizer='sgd', loss='mse')\n"
        "h = m.fit(np.ones((64, 1)), np.ones((64, 1)), epochs=2, batch_size=16, verbose=1)")]
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120).execute()
    outputs = nb.cells[0].outputs
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert re.fullmatch(r"Epoch 1/2\n4/4 \u2501{20} - loss: \S+\nEpoch 2/2\n4/4 \u2501{20} - loss: "
                        r"\S+\n", text), text
    shown = [o["data"].get("text/plain", "") for o in outputs if o.output_type == "display_data"]
    assert shown and all(s == "" for s in shown), shown   # the live bars, emptied when done


def test_epoch_lines_are_keras_3s_without_timings(capsys):
    # a TensorFlow venv (Keras 3.15) printed, for this fit, at verbose=2:
    #   "3/3 - 0s - 134ms/step - loss: 0.0000e+00 - mae: 0.0000e+00 - val_loss: ..."
    # and at verbose=1 the finished bar "3/3 ━━━━━━━━━━━━━━━━━━━━ 1s 147ms/step - loss: ...".
    m = ones_model()
    m.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    tail = " - loss: 0.0000e+00 - mae: 0.0000e+00 - val_loss: 0.0000e+00 - val_mae: 0.0000e+00"
    for verbose, head in ((2, "3/3"), (1, "3/3 " + BAR)):
        m.fit(XS, YS, batch_size=8, epochs=2, verbose=verbose, shuffle=False,
              validation_data=(XS[:4], YS[:4]))
        out = capsys.readouterr().out
        assert out == f"Epoch 1/2\n{head}{tail}\nEpoch 2/2\n{head}{tail}\n"
    assert m.evaluate(XS, YS, verbose=2) == [0.0, 0.0]
    assert capsys.readouterr().out == "1/1 - loss: 0.0000e+00 - mae: 0.0000e+00\n"
    m.predict(XS, verbose=1)
    assert capsys.readouterr().out == f"1/1 {BAR}\n"


def test_format_logs_e_notation_below_1e3_and_verbose_2_signed():
    fmt = tk.callbacks.format_logs
    assert fmt({"a": 0.0, "b": 0.00123, "c": 12.5}) == "a: 0.0000e+00 - b: 0.0012 - c: 12.5000"
    assert fmt({"d": -0.5}) == "d: -0.5000"                   # verbose=1: abs(value) > 1e-3
    assert fmt({"d": -0.5}, verbose=2) == "d: -5.0000e-01"    # verbose=2: value > 1e-3


def test_metric_names_in_any_language_are_log_keys_and_print_escaped():
    """Issue 43, Keras 3.15: a metric named "平均 误差/x\\n" is the key of fit's logs and
    history as it is ("val_" before it for validation); Keras's bar prints the newline, which
    breaks the line. tapekit's lines show it escaped, one line each."""
    tk.layers.clear_session()
    model = tk.Sequential([tk.Input((2,)), tk.layers.Dense(3, name="密集层")])
    name = "平均 误差/x\n"
    model.compile(optimizer="sgd", loss="mse", metrics=[tk.metrics.MeanAbsoluteError(name=name)])
    x, y = np.ones((4, 2), np.float32), np.ones((4, 3), np.float32)
    out = io.StringIO()
    history = model.fit(x, y, epochs=1, verbose=2, validation_data=(x, y),
                        callbacks=[tk.callbacks.ProgbarLogger(file=out)]).history
    assert set(history) == {"loss", name, "val_loss", "val_" + name}
    assert set(model.evaluate(x, y, verbose=0, return_dict=True)) == {"loss", name}
    lines = out.getvalue().splitlines()
    assert any("平均 误差/x\\x0a: " in line for line in lines)
    assert all(line.isprintable() for line in lines)
    assert tk.callbacks.format_logs({"a\x00": 1.0}) == "a\\x00: 1.0000"
