"""The step records (steps.py): every kind answers `reads`, `result` and `effect` the same
way, which is all the passes ask of a step."""
import numpy as np

import tapekit as tk
from tapekit.compiler import steps
from tapekit.compiler.steps import Assign, Check, Guard, Op, Print, Read, Update

KINDS = [Op, Read, Assign, Update, Check, Guard, Print]


def test_each_kind_reads_its_slots_and_says_what_it_writes():
    v = tk.Variable(1.0)
    op = Op("op", (0, 1), {"axis": 0}, (2,), 3, np.add, np.dtype("float32"), (2,))
    assert (op.reads, op.result, op.effect) == ((0, 1, 2), 3, False)   # holes are read too
    assert (Read(v, 4).reads, Read(v, 4).result, Read(v, 4).effect) == ((), 4, False)
    assert (Assign(v, 5).reads, Assign(v, 5).result, Assign(v, 5).effect) == ((5,), None, True)
    update = Update(v, np.subtract, 6)
    assert (update.reads, update.result, update.effect) == ((6,), None, True)
    assert (Check(print, 7).reads, Check(print, 7).result) == ((7,), None)
    guard = Guard("bool", 8, True, ("f.py", 3))
    assert (guard.reads, guard.result, guard.effect) == ((8,), None, True)
    printed = Print(None, (9, 10), ((False, "x"), (True, 0), (True, 1)))
    assert (printed.reads, printed.result, printed.effect) == ((9, 10), None, True)


def test_fields_are_named_for_what_they_hold():
    # No generic fields shared across kinds: each names its own content.
    assert Op._fields == ("op", "inputs", "attrs", "holes", "result", "kernel", "dtype", "shape")
    assert Update._fields == ("variable", "ufunc", "delta")
    assert Guard._fields == ("kind", "value", "outcome", "site")
    assert Print._fields == ("printer", "values", "template")
    for kind in KINDS[1:]:
        assert "out" not in kind._fields and "attrs" not in kind._fields


def test_the_module_defines_exactly_these_kinds():
    defined = {v for v in vars(steps).values() if isinstance(v, type) and hasattr(v, "_fields")}
    assert defined == set(KINDS)
