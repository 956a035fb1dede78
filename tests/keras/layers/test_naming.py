"""Layer and weight names (layers/naming.py): Keras's default names and the ASCII rule."""
import pytest

import tapekit as tk
from tapekit import layers


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


@pytest.mark.parametrize("name", ["a\u00b5", "a\u03bc", "w b", "x\nprint(1)", "1st", "a/b", "", "\ufb01"])
def test_layer_and_weight_names_follow_the_ascii_rule(name):
    """Issue 29: names are checked with an ASCII rule (letters, digits, _ . -), as TensorFlow
    checks op and scope names: `aµ` and `aμ` are one identifier to Python (NFKC)."""
    if name:
        with pytest.raises(ValueError, match=r"Dense\(name=...\).*not a valid module name.*"
                                             r"ASCII letters, digits, _ \. and -.*Use e\.g\."):
            tk.layers.Dense(1, name=name)
    layer = tk.layers.Layer(name="ok")
    with pytest.raises(ValueError, match=r"add_weight\(name=...\).*ASCII"):
        layer.add_weight(shape=(1,), name=name or "a b")
    for good in ("dense_1", "Block.2-a", "_private"):
        assert tk.layers.Dense(1, name=good).name == good
        assert layer.add_weight(shape=(1,), name=good).path == f"ok/{good}"
