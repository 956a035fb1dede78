"""get_concrete_function (concrete.py): one trace, printed, that runs nothing until called.
"""
import numpy as np
import pytest

import tapekit as tk


def test_get_concrete_function_prints_the_program_and_runs_nothing():
    v = tk.Variable(1.0)

    @tk.function
    def f(x):
        v.assign_add(1.0)
        return x * 3.0 + v
    concrete = f.get_concrete_function(tk.TensorSpec([None], tk.float32))
    assert float(v) == 1.0                                      # traced, not run
    text = str(concrete)
    assert text.startswith("ConcreteFunction f(x: TensorSpec(shape=(None,)")
    assert "multiply(s0, f32_3)" in text and "assign_add(" in text   # 3.0 as a float32 constant
    assert concrete.code == tk.autograph.to_code(f)
    np.testing.assert_array_equal(concrete(tk.constant([1.0])).numpy(), [5.0])
    assert float(v) == 2.0
    with pytest.raises(ValueError, match="traced for TensorSpec"):
        concrete(tk.constant([[1.0]]))
