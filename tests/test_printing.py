"""tk.print (printing.py): TensorFlow's format. Inside tk.function: tests/compiler."""
import io

import tapekit as tk


def test_tk_print_formats_like_tf_print():
    out = io.StringIO()
    tk.print("v", tk.constant([1.0, 2.5]), 3, output_stream=out)
    assert out.getvalue() == "v [1 2.5] 3\n"
