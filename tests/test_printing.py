"""tapekit/printing.py: tk.print, in TensorFlow's format. Inside tk.function: tests/compiler."""
import io
import sys

import tapekit as tk


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
