"""Tracing for tk.function: record one call of a Python function as a flat program.

The first call with a new signature runs the function for real while a `Tracer` sits
among the active tapes. Every op goes through `Op.run`, which shows it to every
active tape, so the tracer sees them all: the forward pass, the derivative rules of any
`tape.gradient` inside (a tracer counts as a tape, so backward passes run on tensors
and are recorded too), the optimizer's arithmetic and random draws. Variables and tensors
show it the rest through hooks (tensor.py, printing.py, debugging.py). The result is a
flat list of steps over numbered slots, one record per kind (steps.py):

    Op      slot = op(slots..., **attrs)          Read    slot = variable's value now
    Assign  variable = slot                       Update  variable = ufunc(variable, slot)
    Check   check(slot)  (check_numerics)         Guard   kind(slot) must give outcome
    Print   tk.print at every call

A Guard is a Python decision the traced call made on a traced value: `if x > 0`
(bool), `range(n)` (index), `float(x)`, `x.numpy()` in user code. The program is only
valid for calls that decide the same way; a replay checks each guard when it reaches
it and, on a different outcome, gives up (steps.GuardFailed) so function.py can trace that
path too. Why guards rather than converting the source (AutoGraph): see docs/DESIGN.md.

`program.Program` turns the steps into something to run (passes.py, the steps' `emit`
and `run`); function.py ties the two.
"""
import sys
import weakref

import numpy as np

from .. import nest
from ..callsite import user_frame
from ..context import state
from ..convert import convert_to_tensor
from ..record import Recorder
from ..tensor import Tensor, Variable, wrap_array
from .steps import Assign, Call, Check, Guard, Hole, Op, Print, Read, Update, outcome_of

_SCALARS = (int, float, bool)


class Tracer(Recorder):
    """A pseudo-tape: turns every op, variable read and write, Python decision on a traced
    value and tk.print it sees into a program step.

    `dry=True` (get_concrete_function): the trace must leave no trace; the tracer keeps each
    written variable's first value (`undo`) and tk.print stays silent.
    """

    records_writes = True   # variable writes are program steps (record.Recorder)

    def __init__(self, arg_tensors, dry=False):
        self.n_args = len(arg_tensors)
        self.n_slots = self.n_args
        self.slot_of = {t._tid: k for k, t in enumerate(arg_tensors)}  # tid -> slot
        self.consts = {}       # slot -> (value, the original Tensor or None)
        self._const_ids = {}   # id(array) -> slot (each captured array once)
        self.steps = []        # steps.py's records, in the order the call ran them
        self._read_slot = {}   # id(variable) -> slot of its value since the last write
        self._values = {id(t._value): (k, t._value) for k, t in enumerate(arg_tensors)}
        self.unsupported = None
        self.created = []      # variables created while tracing
        self.dry = dry
        self.create_error = None   # set: creating a variable raises ValueError(create_error)
        self.undo = {}         # id(variable) -> (variable, value before the first write)
        self.locks = {}        # id(lock) -> lock: held through every replay (hold_in_traces)
        self.made_by = {}      # tid -> (op name, input tids, input arrays, attrs): producer()
        self.made = []         # a weak reference to each op's result: seal() finds the leaked

    def _new_slot(self, value):
        self.n_slots += 1
        self._values[id(value)] = (self.n_slots - 1, value)
        return self.n_slots - 1

    # --- called by Op.run for every op ------------------------------------------------
    def _record(self, op, args, values, tids, result, attrs):
        # An op with no forward of its own (custom_gradient: its value comes from user Python)
        # cannot be replayed; the program then runs eagerly.
        if op.forward is None:
            self.unsupported = self.unsupported or op.name
            return
        ins = tuple([self._ref(a, v, tid) for a, v, tid in zip(args, values, tids)])
        attrs, holes = self._attrs(attrs)
        out = self._new_slot(result._value)
        specialize = getattr(op.forward, "specialize", None)
        kernel = specialize(*values) if specialize is not None and not attrs else op.forward
        v = result._value
        self.steps.append(Op(op, ins, attrs, holes, out, kernel, getattr(v, "dtype", None),
                             v.shape if type(v) is np.ndarray else None))
        self.slot_of[result._tid] = out
        self.made_by[result._tid] = (op.name, tids, values, attrs)
        self.made.append(weakref.ref(result))

    def producer(self, tensor):
        """(op name, inputs, attrs) of the op that computed `tensor` in this trace, else None:
        what a TF graph tells of a tensor (`t.op.type`, `t.op.inputs`), which Keras's
        TensorFlow backend reads. Each input is a tensor of the input's tape id and array,
        so ops on it are traced and taped as ops on the input itself."""
        made = self.made_by.get(tensor._tid) if isinstance(tensor, Tensor) else None
        if made is None:
            return None
        name, tids, values, attrs = made
        return name, [None if tid is None else wrap_array(value, tid)
                      for tid, value in zip(tids, values)], attrs

    # --- called by Variable (tensor.py) -------------------------------------------------
    def record_assign(self, variable, value, new):
        """`variable.assign(value)`, before the write; `new` is the checked array it stores."""
        src = self._ref(value, value._value, value._tid) if isinstance(value, Tensor) \
            else self._const(new, None)
        self._before_write(variable)
        self.steps.append(Assign(variable, src))

    def record_update(self, variable, ufunc, delta):
        """assign_add / assign_sub: one step that reads, updates and writes under the lock."""
        src = self._ref(delta, delta._value, delta._tid) if isinstance(delta, Tensor) \
            else self._const(delta, None)
        self._before_write(variable)
        self.steps.append(Update(variable, ufunc, src))

    def record_lock(self, lock):
        self.locks.setdefault(id(lock), lock)

    def record_create(self, variable):
        if self.create_error is not None:
            raise ValueError(self.create_error)
        self.created.append(variable)

    # --- Python decisions on values, prints, checks -------------------------------------
    def record_guard(self, tensor, kind, value):
        """Python read `kind` of `tensor` (bool(x), float(x), x.numpy()) and got `value`."""
        slot = self._traced_slot(tensor)
        if slot is None:
            return   # a constant: the same at every call
        site = _user_site(sys._getframe(2))
        self.steps.append(Guard(kind, slot, outcome_of(kind, tensor._value), site))

    def record_print(self, printer, items):
        """tk.print: `items` are tensors or Python values; tensors become slots."""
        ins, template = [], []
        for item in items:
            slot = self._traced_slot(item) if isinstance(item, Tensor) else None
            if slot is None:
                template.append((False, item))
            else:
                template.append((True, len(ins)))
                ins.append(slot)
        self.steps.append(Print(printer, tuple(ins), tuple(template)))

    def record_check(self, tensor, check):
        """A value check outside any op (tk.debugging.check_numerics): `check(array)` raises
        if the value is bad. Every replay runs it, as every eager call does."""
        src = self._ref(tensor, tensor._value, tensor._tid)
        self.steps.append(Check(check, src))

    def record_call(self, call, inputs, outputs, taped):
        """A tk.py_function ran `call` on `inputs` with this tracer hidden (pycall.py): one
        Call step, whose results are the slots of `outputs`. `taped`: a tape started inside
        the traced function recorded func's ops, which the program cannot replay."""
        if taped:
            self.unsupported = self.unsupported or "tk.py_function under a GradientTape inside it"
        ins = tuple([self._ref(t, t._value, t._tid) for t in inputs])
        results = tuple([self._new_slot(t._value) for t in outputs])
        for t, slot in zip(outputs, results):
            self.slot_of[t._tid] = slot
        self.steps.append(Call(call, ins, results, call.__name__))
        self._read_slot.clear()     # func may have written any variable: read them again

    # --- what the hooks share ------------------------------------------------------------
    def _before_write(self, variable):
        self.undo.setdefault(id(variable), (variable, variable._value))
        self._read_slot.pop(id(variable), None)  # later uses read the new value

    def _traced_slot(self, tensor):
        if isinstance(tensor, Variable):
            return self._read(tensor)
        slot = self.slot_of.get(tensor._tid)
        if slot is None:
            known = self._values.get(id(tensor._value))
            if known is not None and known[1] is tensor._value:
                slot = known[0]
        return slot

    # --- where an input comes from -------------------------------------------------------
    def _ref(self, a, value, tid):
        if isinstance(a, Variable):
            return self._read(a)
        slot = self.slot_of.get(tid) if tid is not None else None
        if slot is not None:
            return slot
        # The very array of a traced value (a backward pass re-wrapping a saved input or a
        # variable's read, np.asarray(x), tk.constant(x)): follow that value.
        known = self._values.get(id(value))
        if known is not None and known[1] is value:
            return known[0]
        if type(a) in _SCALARS:
            return self._const(a, None)
        if isinstance(a, Tensor):
            return self._const(value, a)
        # A NumPy array or list from the caller: copy it, the caller may change it later.
        return self._const(np.array(value, copy=True) if value is a else value, None)

    def _read(self, var):
        slot = self._read_slot.get(id(var))
        if slot is None:
            slot = self._new_slot(var._value)
            self.steps.append(Read(var, slot))
            self._read_slot[id(var)] = slot
        self._values[id(var._value)] = (slot, var._value)
        return slot

    def _const(self, value, tensor):
        if isinstance(value, np.ndarray) and id(value) in self._const_ids:
            return self._const_ids[id(value)]
        self.n_slots += 1
        slot = self.n_slots - 1
        self.consts[slot] = (value, tensor)
        if isinstance(value, np.ndarray):
            self._const_ids[id(value)] = slot
        return slot

    def _attrs(self, attrs):
        """Attributes, with any array that IS a traced tensor's value made a hole.

        tk.gather's gradient and x[index_tensor] pass the index tensor's own array as an
        attribute; following it keeps a replay right when the indices change.
        """
        holes = []

        def scan(v):
            if isinstance(v, np.ndarray):
                known = self._values.get(id(v))
                if known is not None and known[1] is v:
                    holes.append(known[0])
                    return Hole(len(holes) - 1)
            elif isinstance(v, tuple) and v:
                return tuple([scan(x) for x in v])
            return v

        if not any(isinstance(v, (np.ndarray, tuple)) for v in attrs.values()):
            return attrs, ()
        scanned = {k: scan(v) for k, v in attrs.items()}
        return (scanned, tuple(holes)) if holes else (attrs, ())

    def finish(self, result, name="function"):
        """What the function returned, as slots: (outputs, skeleton, result).

        `outputs` is [(is_slot, slot or None)] per leaf and the skeleton the result's nesting
        (None for a single value); program.Program packs its leaves back into it. As
        tf.function does, every leaf becomes a tensor: a Python or NumPy number (3 is an
        int32 tensor, 2.5 a float32 one) a constant, a Variable its value at the end of the
        call (`return v.assign_add(1.0)` gives the new value as a tensor); None stays None,
        and anything else is TF's TypeError. `result` is the traced call's own return with
        those leaves converted. Called after the tracer left the tapes: an outer tape
        records the variable reads of the result as eager code's.
        """
        flat = nest.flatten(result) if nest.is_nested(result) else [result]
        outputs, leaves = [], []
        for leaf in flat:
            if leaf is None:
                outputs.append((False, None))
            elif isinstance(leaf, Variable):
                outputs.append((True, self._read(leaf)))
                leaf = leaf.read_value()
            elif isinstance(leaf, Tensor):
                outputs.append((True, self._ref(leaf, leaf._value, leaf._tid)))
            elif isinstance(leaf, (bool, int, float, complex, np.generic, np.ndarray)):
                leaf = convert_to_tensor(leaf)    # TF's dtypes: 3 -> int32, 2**40 -> int64
                outputs.append((True, self._const(leaf._value, leaf)))
            else:
                raise TypeError(_not_a_tensor(name, leaf))
            leaves.append(leaf)
        if nest.is_nested(result):
            return outputs, nest.pack_like(result, [None] * len(flat)), nest.pack_like(result, leaves)
        return outputs, None, leaves[0]


    def seal(self, result, name):
        """After the trace: every tensor an op made during it that is still alive and not
        part of `result` was kept by the Python outside the function (appended to a list, set
        on an object). A replay would never update it, so, as TF's graph tensors out of
        scope, using it from now on raises TF's TypeError (`LeakedTensor`)."""
        leaves = nest.flatten(result) if nest.is_nested(result) else [result]
        # What the call returned, and the Keras masks those carry (`_keras_mask`).
        returned = {id(leaf) for leaf in leaves} | \
            {id(getattr(leaf, "_keras_mask", None)) for leaf in leaves if isinstance(leaf, Tensor)}
        # The tangents an active ForwardAccumulator computed during the trace are the call's
        # eager forward-mode result (acc.jvp(y) after the first call), not the Python's leaks.
        returned |= {id(t) for acc in state.accumulators
                     for t in getattr(acc, "_tangents", {}).values()}
        for ref in self.made:
            t = ref()
            if t is not None and type(t) is Tensor and id(t) not in returned:
                t.__class__ = LeakedTensor
                t._value = t._value.view(_LeakedArray) if type(t._value) is np.ndarray \
                    else np.asarray(t._value).view(_LeakedArray)
                t._value.message = _leaked(t, name)


class LeakedTensor(Tensor):
    """A tensor made while a tk.function traced and kept outside it (see Tracer.seal): any
    use raises TF's TypeError, naming the fix."""

    __slots__ = ()

    def numpy(self):
        raise TypeError(self._value.message)

    def __array__(self, dtype=None, copy=None):
        raise TypeError(self._value.message)

    def __float__(self):
        raise TypeError(self._value.message)

    def __bool__(self):
        raise TypeError(self._value.message)

    def __repr__(self):
        return f"<tk.Tensor shape={self._value.shape} dtype={self._value.dtype.name}, out of scope>"


class _LeakedArray(np.ndarray):
    """A leaked tensor's array: NumPy's functions on it (what an op runs) raise."""

    message = "a tensor out of scope"

    def __array_ufunc__(self, *args, **kwargs):
        raise TypeError(self.message)

    def __array_function__(self, *args, **kwargs):
        raise TypeError(self.message)

    def __array_finalize__(self, obj):
        self.message = getattr(obj, "message", _LeakedArray.message)


def _leaked(tensor, name):
    return (f"a tensor (shape {tensor._value.shape}, {tensor._value.dtype.name}) made inside "
            f"tk.function {name!r} while it traced is out of scope and cannot be used here: "
            f"the Python kept it outside the function (appended to a list, set on an object), "
            f"and a replay never updates it. Return it from the function instead, or keep "
            f"it in a tk.Variable (v.assign(t)); as in tf.function, all outputs must be "
            f"return values")


def _not_a_tensor(name, leaf):
    what = type(leaf).__name__
    if isinstance(leaf, (str, bytes)):
        fix = ("tapekit has no string tensors (tf.function would return a tf.string tensor); "
               "return numbers, and build the text outside the function")
    else:
        fix = ("return tensors, Python numbers, nests of them (lists, tuples, dicts) or None; "
               "keep other objects outside the function (or in an attribute it sets)")
    return (f"tk.function {name!r} returned a value of type {what}, which is not a tensor: "
            f"as in tf.function, a tk.function must return zero or more tensors or None "
            f"values. {fix}")


def hold_in_traces(lock):
    """Called with `lock` held by code that must run as one step for other threads (an
    optimizer's apply_gradients: slots, variables and iterations together). A tk.function
    tracing it then holds `lock` through each replay of its program, so a replayed step is
    as atomic as the eager one."""
    for recorder in state.tapes:
        recorder.record_lock(lock)


def _user_site(frame):
    """(file, line) of the innermost frame outside tapekit: where the decision was made."""
    frame = user_frame(frame)
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else ("?", 0)
