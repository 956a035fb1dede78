"""tapekit/ops/rounding.py: floor, ceil, round, floordiv and floormod (Python's // and %)."""
import numpy as np
import pytest

import tapekit as tk


def test_floordiv_and_floormod_follow_python():
    for a in (7, -7, 6, 0):
        for b in (2, -2, 3, -4):
            assert int(tk.constant(a) // b) == a // b
            assert int(tk.constant(a) % b) == a % b
            assert int(a % tk.constant(b)) == a % b and int(a // tk.constant(b)) == a // b
    assert (tk.constant([7, -7]) // 2).dtype == tk.int32
    np.testing.assert_allclose((tk.constant([7.5, -7.5]) % 2.0).numpy(), [1.5, 0.5])
    np.testing.assert_allclose((tk.constant([7.5, -7.5]) // 2.0).numpy(), [3.0, -4.0])
    with pytest.raises(ValueError, match="floordiv: .*integer division by zero"):
        tk.constant([1, 2]) // 0
    with pytest.raises(ValueError, match="floormod: .*integer division by zero"):
        tk.constant([1, 2]) % tk.constant([1, 0])
    with pytest.raises(TypeError, match="int32"):
        tk.constant([1, 2]) % 1.5          # TensorFlow's dtype rule, as for +


def test_floormod_gradient_is_one_and_minus_floor_of_the_quotient():
    x, y = tk.Variable(7.5), tk.Variable(2.0)
    with tk.GradientTape() as tape:
        z = x % y
    gx, gy = tape.gradient(z, [x, y])
    assert float(gx) == 1.0 and float(gy) == -3.0


def test_rounding_and_floordiv_have_no_gradient_as_in_tensorflow():
    x = tk.Variable([1.5, -2.5])
    for f in (tk.floor, tk.math.ceil, tk.round, lambda v: v // 2.0):
        with tk.GradientTape() as tape:
            y = f(x)
        assert tape.gradient(y, x) is None
    np.testing.assert_array_equal(tk.round(tk.constant([0.5, 1.5, 2.5, -2.5])).numpy(), [0.0, 2.0, 2.0, -2.0])
    assert tk.round(tk.constant([3])).dtype == tk.int32
    with pytest.raises(TypeError, match="floor: needs a floating input"):
        tk.floor(tk.constant([1, 2]))
