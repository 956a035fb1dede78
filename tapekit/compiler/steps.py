"""The steps of a traced program: one record per kind, each field named for what it holds.

A program (trace.py records it) is a flat list of these over numbered slots: s0, s1, ...
are the tensor arguments, then each step's result, or a constant the trace captured.

    Op      result = op(inputs..., **attrs)         an op's forward (NumPy)
    Read    result = variable's value now
    Assign  variable = value
    Update  variable = ufunc(variable, delta)       assign_add (np.add) / assign_sub
    Check   check(value)                            tk.debugging.check_numerics
    Guard   kind(value) must give outcome           a Python decision on a traced value
    Print   printer shows template, values filled   tk.print, at every call

Every record answers the same two questions for the passes (passes.py): `reads`, the
slots it reads, and `result`, the slot it writes (None when it writes none); `effect`
says whether it must run even when nothing reads its result. What each kind means when
it runs, as a line of the program and as ops on tensors, is in program.py.
"""
from typing import NamedTuple


class Op(NamedTuple):
    """`result = op(inputs..., **attrs)`. `holes`: the slots whose arrays fill the attrs' Holes
    (trace.py: an attribute that is a traced tensor's value, such as gather's indices in its
    gradient). `kernel` is what the program calls (op.forward, or a NumPy ufunc the forward
    chose for the traced shapes); `dtype` and `shape` are the traced result's (shape None:
    not an ndarray)."""
    op: object
    inputs: tuple
    attrs: dict
    holes: tuple
    result: int
    kernel: object
    dtype: object
    shape: object
    effect = False

    @property
    def reads(self):
        return self.inputs + self.holes


class Read(NamedTuple):
    """`result = variable's value` at this point of the call."""
    variable: object
    result: int
    effect = False
    reads = ()


class Assign(NamedTuple):
    """`variable.assign(value)`."""
    variable: object
    value: int
    effect = True
    result = None

    @property
    def reads(self):
        return (self.value,)


class Update(NamedTuple):
    """`variable.assign_add(delta)` (ufunc np.add) or `assign_sub` (np.subtract): one step
    that reads, updates and writes under the variable's lock."""
    variable: object
    ufunc: object
    delta: int
    effect = True
    result = None

    @property
    def reads(self):
        return (self.delta,)


class Check(NamedTuple):
    """`check(array)` raises if the value is bad (tk.debugging.check_numerics)."""
    check: object
    value: int
    effect = True
    result = None

    @property
    def reads(self):
        return (self.value,)


class Guard(NamedTuple):
    """Python read `kind` of the value ("bool", "int", "index", "float", "numpy") and got
    `outcome` (trace.outcome_of) at `site` (file, line); a call that reads otherwise takes
    another path."""
    kind: str
    value: int
    outcome: object
    site: tuple
    effect = True
    result = None

    @property
    def reads(self):
        return (self.value,)


class Print(NamedTuple):
    """tk.print: `template` is one (is_slot, item) per printed item: (True, k) is the k-th of
    `values` (slots), (False, x) the Python value x as traced."""
    printer: object
    values: tuple
    template: tuple
    effect = True
    result = None

    @property
    def reads(self):
        return self.values
