"""What a traced program is worth knowing before it runs: the analyses over its steps.

program.Program applies them once, in this order:

    drop_dead        a step nothing needs goes (a layer's initializer draw while building)
    fold_constants   a step on constants only is computed now and becomes a constant
                     (the seed of tape.gradient, what the mean's derivative makes of it);
                     a guard on a constant decides alike at every call and goes
    merge_common     a step that repeats an earlier one (the same op and kernel on the
                     same inputs, equal attributes) goes, its readers read the first's
                     result: Keras's Adam traces its bias correction once per variable,
                     the program runs it once (a replay on tensors runs every step as
                     traced, so an outer tape sums gradients as eager mode does)
    has_late_guard   does a guard follow a write, a draw or a print? Then the program runs
                     as a transaction (program.py)

and program.generate asks two more while writing the source:

    liveness         the slots each step reads for the last time (freed with `del` after it)
    donors           the ufunc steps and updates that write their result into a dead
                     input's array

`liveness` is the one backward walk behind both `drop_dead` and the `del` lines. See
docs/PERFORMANCE.md for what folding and donation are worth.
"""
import struct

import numpy as np

from .. import random
from ..ops.cross_entropy import check_class_ids, sparse_softmax_cross_entropy_op
from .steps import Assign, Call, Check, Guard, Hole, Op, Print, Read, Update

# Ops whose forward checks its inputs' values (and raises) as an eager call does: a replay
# keeps them even when nothing reads their result, so the check still runs at every call.
CHECKING_OPS = frozenset([sparse_softmax_cross_entropy_op, check_class_ids])


def is_random(op):
    """True for a random draw (tapekit/random.py's ops): it differs at every call."""
    return getattr(op.forward, "__module__", "") == random.__name__


def _always_runs(step):
    return step.effect or (type(step) is Op and step.op in CHECKING_OPS)


def liveness(steps, keep):
    """(live, last_reads), one entry per step, by one walk from the end.

    A step is live when it must run (a write, check, guard, print or checking op) or a
    live step after it reads its result; `keep` (the outputs, the constants) counts as read
    after the last step. last_reads[k]: the slots, sorted, that live step k reads and no
    later live step does, outside `keep`: dead once step k has run.
    """
    needed, live, last_reads = set(keep), [False] * len(steps), [()] * len(steps)
    for k in range(len(steps) - 1, -1, -1):
        step = steps[k]
        if not (_always_runs(step) or step.result in needed):
            continue
        live[k] = True
        reads = step.reads
        last_reads[k] = tuple(sorted({s for s in reads if s not in needed}))
        needed.update(reads)
    return live, last_reads


def drop_dead(steps, keep):
    """The steps that are live (see `liveness`), in order."""
    live, _ = liveness(steps, keep)
    return [step for step, is_live in zip(steps, live) if is_live]


def fold_constants(steps, consts):
    """Compute once the steps whose inputs are all constants; they become constants too.

    Ops without inputs (random draws) and ops with holes are never folded; an op that
    raises is kept, to fail at the call as in eager mode. `consts` (slot -> (value,
    tensor)) receives the folded values. Returns the steps that remain.
    """
    kept = []
    for step in steps:
        if type(step) is Guard and step.value in consts:
            continue
        if type(step) is Op and step.inputs and not step.holes \
                and all(i in consts for i in step.inputs):
            try:
                value = step.op.forward(*[consts[i][0] for i in step.inputs], **step.attrs)
            except Exception:  # noqa: BLE001 - left to fail at the call, as in eager mode
                kept.append(step)
                continue
            consts[step.result] = (value, None)
            continue
        kept.append(step)
    return kept


def merge_common(steps, consts):
    """(steps, merged): each Op step that repeats an earlier one is dropped, and every later
    read of its result reads the earlier step's result instead; merged: {dropped slot: kept}.

    Two steps repeat each other when they have the same op and kernel, the same input slots
    (after the merges before them), the same holes and equal attributes; a small constant
    (at most _SMALL elements) counts by its value, so the `1` of two `add(s60, 1)` is one
    input. Same ops on the same values: the results are bit-equal to the program's without
    this pass. Never merged: random draws (they differ at every call), checking ops (each
    check runs), steps with an effect, Reads (a write may lie between two reads), and any
    step whose attributes have no safe key (`_value_key`).
    """
    merged, first, kept = {}, {}, []
    for step in steps:
        if merged:
            step = _renamed(step, merged)
        key = _op_key(step, consts)
        if key is not None:
            try:
                earlier = first.setdefault(key, step.result)
            except TypeError:      # an unhashable part the key let through: leave it alone
                earlier = step.result
            if earlier != step.result:
                merged[step.result] = earlier
                continue
        kept.append(step)
    return kept, merged


_SMALL = 16   # constants and attribute arrays of at most this many elements count by value

# The fields of each kind of step that hold slots it reads (steps.py): what a merge renames.
_READ_FIELDS = {Op: ("inputs", "holes"), Read: (), Assign: ("value",), Update: ("delta",),
                Check: ("value",), Guard: ("value",), Print: ("values",), Call: ("inputs",)}


def _renamed(step, merged):
    new = {}
    for field in _READ_FIELDS[type(step)]:
        slots = getattr(step, field)
        new[field] = tuple(merged.get(s, s) for s in slots) if type(slots) is tuple \
            else merged.get(slots, slots)
    return step._replace(**new) if new else step


def _op_key(step, consts):
    """What an Op step computes, as a hashable key; None when it must not be merged."""
    if type(step) is not Op or step.effect or is_random(step.op) or step.op in CHECKING_OPS:
        return None
    attrs = _value_key(step.attrs)
    if attrs is None:
        return None
    inputs = []
    for s in step.inputs:
        value = _value_key(consts[s][0]) if s in consts else None
        inputs.append(("slot", s) if value is None else ("const", value))
    return (id(step.op), id(step.kernel), tuple(inputs), step.holes, attrs,
            _value_key(step.dtype), step.shape)


def _value_key(v):
    """A hashable key, equal only for values every op treats alike (the same type, the same
    bits: 0.0 and -0.0 differ, as do 1, 1.0 and True); None for a value without one."""
    t = type(v)
    if v is None or v is Ellipsis or t in (bool, int, str, bytes):
        return (t, v)
    if t is float:
        return (t, struct.pack("<d", v))
    if t is complex:
        return (t, struct.pack("<dd", v.real, v.imag))
    if t is Hole:
        return (t, v.k)
    if isinstance(v, np.dtype):
        return ("dtype", v)
    if isinstance(v, type):
        return ("type", v)
    if isinstance(v, np.generic):
        return None if v.dtype.hasobject else ("scalar", v.dtype, v.tobytes())
    if isinstance(v, np.ndarray):
        if v.dtype.hasobject or v.size > _SMALL:
            return None
        return ("array", v.dtype, v.shape, v.tobytes())
    if t in (tuple, list):
        items = [_value_key(x) for x in v]
        return None if None in items else (t, tuple(items))
    if t is slice:
        parts = [_value_key(x) for x in (v.start, v.stop, v.step)]
        return None if None in parts else (t, tuple(parts))
    if t is dict and all(type(k) is str for k in v):
        items = [(k, _value_key(x)) for k, x in sorted(v.items())]
        return None if any(x is None for _, x in items) else (t, tuple(items))
    return None


def has_late_guard(steps):
    """True when a guard follows a variable write, a random draw, a print or a
    tk.py_function (whose Python may do any of them)."""
    effect = False
    for step in steps:
        if type(step) is Guard and effect:
            return True
        if type(step) in (Assign, Update, Print, Call) or (type(step) is Op and is_random(step.op)):
            effect = True
    return False


def _is_ufunc_step(step):
    """An Op whose program line calls a one-result NumPy ufunc on its inputs alone, so it
    can take one more argument, `out`."""
    if type(step) is not Op:
        return False
    kernel = step.kernel
    return isinstance(kernel, np.ufunc) and kernel.nout == 1 and kernel.nin == len(step.inputs) \
        and not step.attrs and not step.holes


def donors(steps, last_reads, keep):
    """{step index: slot}: the steps that write their result into a dead input's array.

    A ufunc step writes into a dead input (W1 under tk.function: 10%); a variable update
    (`assign_sub`) writes the variable's new value into its dead delta's array, which the
    variable then holds (an SGD step's `lr * g`: 2%, PERFORMANCE.md). The input must be an
    array this call made and nobody else can hold: the result of an earlier ufunc step of
    this program (a ufunc's result is a new array, never a view), read only by ufunc steps
    and updates (no view of it lives on, no variable is assigned it), not in `keep` (an
    output, a constant), and of the result's dtype and (traced) shape; a variable's own
    array is never written into. When the shapes at a call differ from the trace's, NumPy
    refuses the write (the result must fill the input exactly) and the program runs again
    without donation (program.py; one that writes runs as a transaction, undone first)."""
    other_readers = set()
    for step in steps:
        if not _is_ufunc_step(step) and type(step) is not Update:
            other_readers.update(step.reads)
    owned, found = {}, {}     # owned: slot made by a ufunc step -> its (dtype, shape)
    for k, step in enumerate(steps):
        if type(step) is Update:
            d, value = step.delta, step.variable._value
            if d in owned and d in last_reads[k] and d not in keep and d not in other_readers \
                    and owned[d] == (value.dtype, value.shape):
                found[k] = d
            continue
        if not _is_ufunc_step(step) or step.shape is None:
            continue   # shape None: a NumPy scalar (0-d inputs), nothing to write into
        for i in step.inputs if step.kernel not in _NO_POSITIONAL_OUT else ():
            if i in owned and i in last_reads[k] and i not in keep and i not in other_readers \
                    and owned[i] == (step.dtype, step.shape):
                found[k] = i
                break
        owned[step.result] = (step.dtype, step.shape)
    return found


# NumPy 2.4 deprecates a third positional argument (the output) of these two: they never write
# into a donor (their results still may be donated into).
_NO_POSITIONAL_OUT = (np.maximum, np.minimum)
