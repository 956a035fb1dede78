"""The comparison of keras.ops's answers with Keras 3's, shared by tests/keras/ops/.

Each test file holds CASES, Keras 3 code as text (`ops` is keras.ops, `np` NumPy), and KERAS,
what Keras 3.15.1 on TensorFlow 2.21 answers to each (written by
tools/keras_interop/ops_values.py, in the TensorFlow venv). `keras_answer` runs a case on
tapekit and compares: the kind (tensor, tuple, list, Python value), dtype, shape and values
(floats to rtol 1e-6); a case Keras refuses must raise here too.
"""
import numpy as np
import pytest

import tapekit as tk


def encode(value):
    """A result as data: ["tensor", dtype, shape, values], ["tuple"/"list", [...]], ["py", v]."""
    if isinstance(value, (tuple, list)):
        return [type(value).__name__ if type(value) in (tuple, list) else "tuple",
                [encode(v) for v in value]]
    if isinstance(value, tk.Tensor):
        arr = value.numpy()
        return ["tensor", arr.dtype.name, list(arr.shape), arr.tolist()]
    if isinstance(value, np.ndarray):
        return ["ndarray", value.dtype.name, list(value.shape), value.tolist()]
    return ["py", value]


def same(got, want, where="result"):
    assert got[0] == want[0], f"{where}: a {got[0]}, Keras gives a {want[0]}"
    if got[0] in ("tuple", "list"):
        assert len(got[1]) == len(want[1]), f"{where}: {len(got[1])} parts, Keras {len(want[1])}"
        for i, (g, w) in enumerate(zip(got[1], want[1])):
            same(g, w, f"{where}[{i}]")
    elif got[0] == "py":
        assert type(got[1]) is type(want[1]) and got[1] == want[1], f"{where}: {got[1]!r}, Keras {want[1]!r}"
    else:
        assert got[1] == want[1], f"{where}: dtype {got[1]}, Keras gives {want[1]}"
        assert got[2] == want[2], f"{where}: shape {got[2]}, Keras gives {want[2]}"
        np.testing.assert_allclose(np.array(got[3], dtype=float), np.array(want[3], dtype=float),
                                   rtol=1e-6, atol=1e-7, err_msg=where)


@pytest.fixture
def keras_answer():
    """check(code, answer): run Keras 3 code on tapekit (keras.ops is tk.keras.ops) and
    compare with Keras 3's answer."""
    def check(code, answer):
        scope = {"ops": tk.keras.ops, "np": np, "keras": tk}
        if answer == ["raises"]:
            with pytest.raises((ValueError, TypeError, IndexError, NotImplementedError)):
                eval(code, scope)
            return
        same(encode(eval(code, scope)), answer)
    return check
