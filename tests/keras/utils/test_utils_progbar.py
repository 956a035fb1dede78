"""Progbar (keras/utils/progbar.py): Keras 3.15's averages and lines, without timings.

Named apart from tests/keras/callbacks/test_progbar.py: pytest needs unique basenames."""
import pytest

import tapekit as tk


def test_verbose_2_prints_one_line_with_keras_3s_numbers(capsys):
    bar = tk.utils.Progbar(4, verbose=2)
    for step in range(4):
        bar.add(1, values=[("loss", 1.0 / (step + 1)), ("acc", 0.5)])
    # Keras 3.15 prints "4/4 - 0s - 14us/step - loss: 0.2500 - acc: 0.5000" (the final
    # update's value replaces the average)
    assert capsys.readouterr().out == "4/4 - loss: 0.2500 - acc: 0.5000\n"


def test_values_are_averaged_over_their_steps(capsys):
    bar = tk.utils.Progbar(10, verbose=2)
    bar.update(4, [("loss", 2.0)])
    bar.update(9, [("loss", 1.0)])
    bar.update(10, [("x", 1e-5)])
    # Keras 3.15 prints "10/10 - 0s - 1us/step - loss: 1.4444 - x: 1.0000e-05"
    assert capsys.readouterr().out == "10/10 - loss: 1.4444 - x: 1.0000e-05\n"


def test_stateful_metrics_are_shown_as_given(capsys):
    bar = tk.utils.Progbar(3, verbose=2, stateful_metrics=["acc"])
    for step in range(3):
        bar.update(step + 1, values=[("loss", float(step)), ("acc", 0.1 * step)])
    # Keras 3.15 prints "3/3 - 0s - 5us/step - loss: 2.0000 - acc: 0.2000"
    assert capsys.readouterr().out == "3/3 - loss: 2.0000 - acc: 0.2000\n"
    bar = tk.utils.Progbar(3, verbose=2, stateless_metrics=["loss"])
    bar.update(1, [("loss", 3.0), ("acc", 0.1)])
    bar.update(2, [("loss", 1.0), ("acc", 0.2)])
    bar.update(3, finalize=True)
    assert capsys.readouterr().out == "3/3 - loss: 2.0000 - acc: 0.2000\n"


def test_verbose_1_redraws_one_line_and_ends_it(capsys):
    bar = tk.utils.Progbar(4, width=4, verbose=1)
    bar.update(1, [("loss", 1.0)])
    bar.update(4, [("loss", 3.0)])
    out = capsys.readouterr().out
    assert out == "\r1/4 ━─── - loss: 1.0000\r4/4 ━━━━ - loss: 3.0000\n"
    unknown = tk.utils.Progbar(None)
    unknown.add(3)
    assert capsys.readouterr().out == "\r      3/Unknown"


def test_verbose_0_prints_nothing(capsys):
    bar = tk.utils.Progbar(2, verbose=0)
    bar.add(2, [("loss", 1.0)])
    assert capsys.readouterr().out == ""


def test_both_metric_lists_are_refused():
    with pytest.raises(ValueError, match="Only one of `stateful_metrics` or `stateless_metrics`"):
        tk.utils.Progbar(2, stateful_metrics=["a"], stateless_metrics=["b"])
