"""tapekit/display/scopes.py: tk.name_scope, TensorFlow's object (checked against TF 2.21's
eager behaviour) over the display scope."""
import numpy as np
import pytest

import tapekit as tk


def test_name_scope_is_tensorflows_object():
    with tk.name_scope("outer") as outer:
        with tk.name_scope("inner") as inner:
            y = tk.constant(2.0) * 3.0
    assert (outer, inner) == ("outer/", "outer/inner/")        # TF: 'outer/', 'outer/inner/'
    assert tk.name_scope("abc").name == "abc"
    assert float(y) == 6.0                                      # no number changes
    with pytest.raises(ValueError, match="must be a string, got 3"):
        tk.name_scope(3)                                        # TF: ValueError
    with pytest.raises(ValueError, match="must be a string, got None"):
        tk.name_scope(None)


def test_name_scope_groups_the_ops_for_the_picture_and_leaves_gradients_alone(record):
    x = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        h = x
        for _ in range(30):
            with tk.name_scope("layer"):
                h = tk.tanh(h * 0.5 + 1.0)
    blocks = [n for n in tk.show(tape, max_nodes=10).model.nodes if n.kind == "block"]
    assert [b.label for b in blocks] == ["layer x30"]
    with tk.GradientTape() as plain:
        h2 = x
        for _ in range(30):
            h2 = tk.tanh(h2 * 0.5 + 1.0)
    np.testing.assert_array_equal(tape.gradient(h, x).numpy(), plain.gradient(h2, x).numpy())


def test_name_scope_closes_on_an_error():
    with pytest.raises(RuntimeError):
        with tk.name_scope("broken"):
            raise RuntimeError("inside")
    with tk.name_scope("after") as scope:
        assert scope == "after/"                               # the stack was unwound
