"""tapekit/forward.py: tk.ForwardAccumulator."""
import numpy as np
import pytest

import tapekit as tk


@pytest.mark.parametrize("tangent", [np.array([1.0]), tk.constant([1.0], dtype=tk.float64)])
def test_forward_accumulator_needs_the_primals_dtype(tangent):
    with pytest.raises(TypeError, match=r"ForwardAccumulator: tangent #0 has dtype float64.*float32"):
        tk.ForwardAccumulator(tk.Variable([1.0]), tangent)
    with tk.ForwardAccumulator(x := tk.constant([1.0]), np.float32([1.0])) as acc:
        y = x * 3.0
    assert acc.jvp(y).numpy().tolist() == [3.0]
