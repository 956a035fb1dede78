"""How NaN/Inf findings are described (tapekit/numerics_report.py, for tk.debugging)."""
import numpy as np

import tapekit as tk
from tapekit.numerics_report import describe, has_nonfinite, nonfinite_kinds, op_text
from tapekit.ops.registry import OPS, meta


def test_nonfinite_values_are_found_and_named():
    assert not has_nonfinite(np.array([1.0, 2.0])) and not has_nonfinite(np.array([1, 2]))
    assert has_nonfinite(np.array([1.0, np.inf]))
    assert nonfinite_kinds(np.array([np.nan, np.inf, 1.0])) == "NaN and Inf"
    assert nonfinite_kinds(np.array([np.nan])) == "NaN"
    assert nonfinite_kinds(np.array([1.0])) == "no NaN/Inf"


def test_describe_gives_counts_places_and_the_finite_range():
    assert describe(np.array([-1.0, 2.0], np.float32)) == "shape (2,) float32: min -1, max 2"
    text = describe(np.array([np.nan, 1.0, -np.inf, 4.0]))
    assert text == ("shape (4,) float64: 1 NaN, 1 -Inf at (0,), (2,); finite values in [1, 4]")
    assert describe(tk.constant([1, 5])) == "shape (2,) int32: min 1, max 5"
    # one number: its value, not "min 1, max 1"
    assert describe(np.float32(2.5)) == "shape () float32: 2.5"
    assert describe(tk.constant([7])) == "shape (1,) int32: 7"
    assert describe(np.zeros((0, 2))) == "shape (0, 2) float64: empty"
    assert describe(2.5) == "2.5"
    assert describe(meta(np.zeros(3, np.float32))) == "shape (3,) float32 (its value is not kept on the tape)"


def test_op_text_shows_attributes_but_not_arrays():
    op = OPS["reduce_sum"]
    assert op_text(op, {"axis": 1, "index": np.arange(2)}) == "reduce_sum(axis=1)"
    assert op_text(op, {}) == "reduce_sum"
