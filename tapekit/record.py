"""What a tape keeps for each op (a Record), and what every recorder is shown (Recorder).

A Record holds exactly what the op's derivative rules need, and nothing for display:

    Record(op, in_tids, inputs, ans, attrs, out_tid)
        op        the Op (its name, rules, which inputs it saves)
        in_tids   tape ids of the inputs (None for a Python number or an untracked array)
        inputs    the inputs the rules read, as arrays; the others as Meta (shape, dtype)
        ans       the output, if the rules read it (tanh, exp, sqrt), else its Meta
        attrs     the op's keyword arguments (axis=..., perm=...)
        out_tid   tape id of the output

A tape keeps each record as a plain tuple of these six fields, in this order (the
backward walk unpacks it), because a Record object per op costs 6% of the smallest
ops' time (docs/PERFORMANCE.md). Everything that reads records by name gets Records:
`tape.records`, and the observers (observers.py). `tape.record_list` and the observers'
gradient_done get the tape's list itself through a read-only view (RecordList).

A tape is one kind of Recorder: what sits in the list of active tapes (context.state.tapes)
and is shown every op and every variable event. The other is the tracer of tk.function
(compiler/trace.py). Recorder names every call a recorder gets; the defaults do nothing,
so a GradientTape overrides only what it records.
"""
from collections import namedtuple
from collections.abc import Sequence

from .namespaces import missing, public_dir

__all__ = ["Record", "RecordList", "Recorder"]


class Record(namedtuple("Record", "op in_tids inputs ans attrs out_tid")):
    """One executed op, as a tape keeps it for the backward pass.

    >>> x = tk.Variable(2.0)
    >>> with tk.GradientTape() as tape:
    ...     y = tk.sin(x) * 3.0
    >>> rec = tape.records[-1]
    >>> rec.op.name, rec.in_tids == (rec.in_tids[0], None), rec.inputs[1]
    ('multiply', True, 3.0)
    """

    __slots__ = ()

    # One executed op is one output tape id, on every tape that recorded it: records are
    # compared and hashed by it. (Comparing the contents would compare the saved arrays.)
    def __eq__(self, other):
        return isinstance(other, Record) and self.out_tid == other.out_tid

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.out_tid)

    def __repr__(self):
        ins = ", ".join("const" if t is None else f"t{t}" for t in self.in_tids)
        return f"<Record t{self.out_tid} = {self.op.name}({ins})>"




class RecordList(Sequence):
    """A read-only view of a tape's list of records, plain tuples in Record's field order
    (`tape.record_list`, and the `records` of an observer's gradient_done on a persistent tape).

    A tape keeps one view per list: the same view object until reset() or a non-persistent
    gradient() starts a new list, so readers can tell "the same list, grown" with `is`.

    >>> x = tk.Variable(2.0)
    >>> with tk.GradientTape() as tape:
    ...     y = tk.sin(x) * x
    >>> view = tape.record_list
    >>> len(view), tk.Record._make(view[-1]).op.name, view is tape.record_list
    (2, 'multiply', True)
    """

    __slots__ = ("_list",)

    def __init__(self, records):
        self._list = records

    def __len__(self):
        return len(self._list)

    def __getitem__(self, k):
        return tuple(self._list[k]) if isinstance(k, slice) else self._list[k]

    def __iter__(self):
        return iter(self._list)

    def __reversed__(self):
        return reversed(self._list)

    def __repr__(self):
        return f"<RecordList of {len(self._list)} records>"


class Recorder:
    """Base class of the recorders in the active-tape list: GradientTape, and tk.function's
    tracer. Each method is one event a recorder is shown; each does nothing here.

    Op.run (and custom_gradient) call `_record(op, args, values, tids, result,
    attrs)` for every op: each recorder defines it. The rest come from tensor.py (Variable,
    Tensor's Python reads), printing.py, debugging.py and optimizers (compiler/trace.py's
    hold_in_traces), only while some recorder is active.

    >>> class Writes(tk.record.Recorder):
    ...     def _record(self, op, args, values, tids, result, attrs):
    ...         pass
    ...     def record_assign(self, variable, value, new):
    ...         print("assign", new)
    >>> from tapekit.context import state
    >>> v = tk.Variable(1.0)
    >>> state.tapes.append(Writes())
    >>> _ = v.assign(2.0)
    assign 2.0
    >>> _ = state.tapes.pop()
    """

    # True: variable writes are steps of a program (a tk.function tracer); Variable.assign_add
    # then keeps a recorded delta as a tensor, and v[i].assign refuses (tensor.tracing()).
    records_writes = False
    # True: traced without being run (get_concrete_function): tk.print only records.
    dry = False

    def _record(self, op, args, values, tids, result, attrs):
        """The op `op` ran on `args` (their arrays `values`, tape ids `tids`) giving `result`."""
        raise NotImplementedError(f"{type(self).__name__} records no ops")

    def record_create(self, variable):
        """`variable` was just created."""

    def record_assign(self, variable, value, new):
        """`variable.assign(value)`, before the write; `new` is the checked array it stores."""

    def record_update(self, variable, ufunc, delta):
        """`variable.assign_add/assign_sub(delta)` (ufunc np.add/np.subtract) while
        `records_writes`, before the update."""

    def record_guard(self, tensor, kind, value):
        """Python read `kind` ("bool", "int", "float", "index", "numpy") of `tensor` gave
        `value`."""

    def record_print(self, printer, items):
        """tk.print of `items` (tensors or Python values) by `printer`."""

    def record_check(self, tensor, check):
        """A value check outside any op (tk.debugging.check_numerics): `check(array)` raises
        if the value is bad."""

    def record_lock(self, lock):
        """Code holding `lock` runs as one step for other threads (hold_in_traces)."""


__dir__ = public_dir(globals())   # dir(tk.record): its __all__, not namedtuple, Sequence
__getattr__ = missing(__name__)
