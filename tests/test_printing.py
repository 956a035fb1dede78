"""tk.print (tapekit/printing.py): tensors by value, like tf.print."""
import io
import sys

import numpy as np
import pytest

import tapekit as tk
from tapekit.printing import format_inputs


def test_print_writes_values_with_sep_and_end():
    out = io.StringIO()
    assert tk.print("loss", tk.constant(0.25), 3, [tk.constant(1), 2.5], output_stream=out,
                    sep=", ", end=".\n") is None
    assert out.getvalue() == "loss, 0.25, 3, [1, 2.5].\n"


def test_long_axes_are_summarized_at_both_ends():
    assert format_inputs(tk.range(10)) == "[0 1 2 ... 7 8 9]\n"
    assert format_inputs(tk.range(10), summarize=1) == "[0 ... 9]\n"
    assert format_inputs(tk.range(5), summarize=-1) == "[0 1 2 3 4]\n"
    assert format_inputs(np.eye(2, dtype=np.float32)) == "[[1 0]\n [0 1]]\n"
    with pytest.raises(TypeError, match="summarize must be an int"):
        format_inputs(tk.range(3), summarize=1.5)


def test_summarize_none_shows_three_at_each_end_as_tensorflow():
    # TF 2.21: tf.print(tf.range(8), summarize=None) prints [0 1 2 ... 5 6 7] (None means its
    # default, 3); tapekit printed every element.
    assert format_inputs(tk.range(8), summarize=None) == "[0 1 2 ... 5 6 7]\n"
    assert format_inputs(tk.range(8), summarize=-1) == "[0 1 2 3 4 5 6 7]\n"


def test_float16_prints_the_digits_that_read_back_as_float32():
    # TF 2.21 prints float16 0.1 as 0.0999755859 and 1/3 as 0.333251953 (they are 0.0999755859375
    # and 0.333251953125: 6 digits, 0.0999756, are another float32), 1.5 and 65504 as they are;
    # tapekit printed 0.0999756 and 0.333252.
    x = tk.constant([0.1, 1 / 3, 1.5, 65504.0], tk.float16)
    assert format_inputs(x) == "[0.0999755859 0.333251953 1.5 65504]\n"


def test_print_to_a_file_appends(tmp_path):
    path = tmp_path / "log.txt"
    tk.print("a", output_stream=f"file://{path}")
    tk.print(tk.constant([1.5, 2.0]), output_stream=f"file://{path}")
    assert path.read_text() == "a\n[1.5 2]\n"
    with pytest.raises(ValueError, match="output_stream must be a stream"):
        tk.print("x", output_stream="stdout")


def test_print_in_a_tk_function_prints_at_every_call():
    out = io.StringIO()

    @tk.function
    def f(x):
        tk.print("x is", x * 2.0, output_stream=out)
        return x

    f(tk.constant(1.0))
    f(tk.constant(3.0))           # a replay: the traced print runs with the new value
    assert out.getvalue() == "x is 2\nx is 6\n"
    assert f.experimental_get_tracing_count() == 1


def test_tk_print_formats_like_tf_print():
    out = io.StringIO()
    tk.print("v", tk.constant([1.0, 2.5]), 3, output_stream=out)
    assert out.getvalue() == "v [1 2.5] 3\n"


def test_print_writes_values_to_stderr_by_default(capsys):
    tk.print("x =", tk.constant([[1, 2], [3, 4]]), tk.constant(1 / 3), tk.constant(0.5, tk.float64))
    err = capsys.readouterr().err
    assert err == "x = [[1 2]\n [3 4]] 0.333333343 0.5\n"
    buf = io.StringIO()
    tk.print(tk.range(100), [tk.constant(1.0), "a"], summarize=2, sep=",", end="!", output_stream=buf)
    assert buf.getvalue() == "[0 1 ... 98 99],[1, a]!"
    tk.print(tk.constant([True, False]), output_stream=sys.stdout)
    assert capsys.readouterr().out == "[True False]\n"
