"""tk.autograph.to_code (autograph.py): the source a tk.function runs.
"""
import pytest

import tapekit as tk


def test_to_code_reads_as_python_with_guards():
    @tk.function
    def f(x):
        if x > 0:
            return tk.sin(x)
        return x
    f(tk.constant(1.0))
    code = tk.autograph.to_code(f)
    assert code.startswith("def f(s0):")
    assert "guard_0(" in code and "bool(" in code and "sin(" in code
    # a plain function: its own source under a comment header (tapekit converts nothing)
    plain = tk.autograph.to_code(f.python_function)
    assert plain.startswith("# tapekit does not convert this source")
    assert "    if x > 0:\n        return tk.sin(x)\n" in plain and "guard_0" not in plain
    with pytest.raises(TypeError, match="expected a Python function or a tk.function"):
        tk.autograph.to_code(3)
    with pytest.raises(ValueError, match="source of .* is not available"):
        tk.autograph.to_code(len)
