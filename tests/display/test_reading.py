"""tapekit.display.reading: questions about a tape's snapshot (node ids, which ids depend on
which, the values the records saw), asked of a small tape worked out by hand."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.display import reading
from tapekit.display.snapshot import snapshot


def _tape():
    """n0 = x * w, n1 = stop_gradient(n0), n2 = n1 + w, n3 = n0 > 1 (not differentiable)."""
    x = tk.Variable(2.0, name="x")
    w = tk.Variable(3.0, name="w")
    c = tk.constant(1.0)
    with tk.GradientTape(persistent=True) as tape:
        a = x * w
        b = tk.stop_gradient(a)
        y = b + w
        m = a > c
    return tape, x, w, c, (a, b, y, m)


def test_index_tape_names_records_and_leaves_in_order():
    tape, x, w, c, (a, b, y, m) = _tape()
    snap = snapshot(tape)
    ids, leaves = reading.index_tape(snap, snap.records)
    assert [ids[t._tid] for t in (a, b, y, m)] == ["n0", "n1", "n2", "n3"]
    assert [ids[t] for t in leaves] == ["s0", "s1", "s2"]          # x, w, then the constant
    assert ids[x._tid] == "s0" and ids[w._tid] == "s1" and ids[c._tid] == "s2"
    other = tk.Variable(5.0)
    ids, leaves = reading.index_tape(snap, snap.records, extra=[other])
    assert ids[other._tid] == "s3" and len(leaves) == 4


def test_reach_from_and_ancestors_follow_differentiable_inputs_only():
    tape, x, w, c, (a, b, y, m) = _tape()
    recs = snapshot(tape).records
    assert reading.reach_from(recs, {x._tid}) == {x._tid, a._tid}   # stop_gradient, > block
    assert reading.reach_from(recs, {x._tid}, differentiable=False) == \
        {x._tid, a._tid, b._tid, y._tid, m._tid}
    assert reading.reach_from(recs, {x._tid}, differentiable=False, floating=True) == \
        {x._tid, a._tid, b._tid, y._tid}                         # m is bool
    assert reading.ancestors(recs, {y._tid}) == {y._tid, b._tid, w._tid}   # not through n1
    assert reading.ancestors(recs, {y._tid}, differentiable=False) == \
        {y._tid, b._tid, a._tid, x._tid, w._tid}


def test_tensors_and_values_seen():
    tape, x, w, c, (a, b, y, m) = _tape()
    assert reading.tensors(None, "target") == []
    assert reading.tensors([x, (w,)], "sources") == [x, w]
    with pytest.raises(TypeError, match="the sources must be tk.Tensor .* got float"):
        reading.tensors([x, 1.0], "sources")
    snap = snapshot(tape)
    values, metas = reading.values_seen(snap, snap.records)
    assert values[x._tid] == np.float32(2.0) and values[w._tid] == np.float32(3.0)  # multiply saved them
    assert reading.out_dtype(snap.records[3]) == np.dtype(bool)
