"""tapekit/ops/comparison.py: `&`, `|`, `~` are logical on bools and bitwise on integers."""
import numpy as np
import pytest

import tapekit as tk


def test_and_or_invert_on_integers_are_bitwise():
    # TF 2.21 gives 6 & 3 = 2, 6 | 3 = 7, ~5 = -6 (int32) and ~uint8(5) = 250; tapekit gave
    # the logical results True, True, False (bools) before.
    six, three = tk.constant(6), tk.constant(3)
    assert (six & three).dtype == np.int32 and int(six & three) == 2      # 110 & 011 = 010
    assert int(six | three) == 7 and int(3 | six) == 7                    # 110 | 011 = 111
    assert int(six & 3) == 2
    assert (~tk.constant(5)).dtype == np.int32 and int(~tk.constant(5)) == -6   # -(5 + 1)
    assert int(~tk.constant(np.uint8(5))) == 250                          # 255 - 5


def test_and_or_invert_on_bools_stay_logical():
    p, q = tk.constant([True, True, False]), tk.constant([True, False, False])
    assert (p & q).numpy().tolist() == [True, False, False]
    assert (p | False).numpy().tolist() == [True, True, False]
    assert (~p).numpy().tolist() == [False, False, True]


@pytest.mark.parametrize("expr", [lambda: tk.constant(6.0) & tk.constant(3.0),
                                  lambda: ~tk.constant(5.0),
                                  lambda: tk.constant([True]) | tk.constant([1]),
                                  lambda: tk.constant(True) & 1])
def test_and_or_invert_refuse_floats_and_bools_with_integers(expr):
    # TF 2.21 raises for each (floats have no bitwise ops; a bool meets an int32)
    with pytest.raises(TypeError, match="needs bools .logical. or integers .bitwise."):
        expr()
