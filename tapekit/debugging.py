"""Debugging gradients: find the first op that makes a NaN or an Inf (`tf.debugging`).

    tk.debugging.enable_check_numerics()
    ...                        # the first op whose output, or whose gradient, holds NaN
    tk.debugging.disable_check_numerics()      # or Inf raises NumericsError naming it

    with tk.debugging.check_numerics_enabled():    # the same, for one block
        ...

The error names the op, its record index on the tape, its inputs' shapes and
value ranges, and the line of your code that called it. For a gradient that goes
bad, that is the line of the *forward* pass that created the op (as PyTorch's
detect_anomaly does): while checking is on, each recorded op notes where it was
called from, keyed by its output's tape id.

Why it costs nothing while off: when enabled, a `NumericsChecker` is appended to
`state.accumulators`, the list Op.run already walks after every op (the
ForwardAccumulator hook; an emptiness test that was there before), and is put in
`state.check_numerics`, which a tape reads once per gradient call to add the checker's
`backward_step` to the observers of its backward walk (record.py). Disabled,
the list is empty again and the attribute is None.

While on, a backward pass runs in "tensor mode" (backprop sees a non-empty
accumulators list): same results, a few times slower. A NaN that appears inside
a derivative rule is not reported by itself; the gradient the rule returns is.
What failed, and where (index, phase, op, reason), is noted per tape in
`_failures` (tape -> dict), without touching the tape. Not seen: ops run inside a
custom_gradient function (tapes and accumulators are paused there).
"""
import contextlib
import functools
import sys
import weakref

import numpy as np

from . import backprop
from .context import push_accumulator, remove_accumulator, state
from .forward import jvp_rule_running
from .numerics_report import (describe, format_site, has_nonfinite, input_names, inside,
                              nonfinite_kinds, op_text, record_text, user_site)
from .observers import TapeObserver
from .record import Record
from .tape import GradientTape
from .convert import convert_to_tensor
from .tensor import Tensor
from .traceback_utils import (disable_traceback_filtering, enable_traceback_filtering,
                              is_traceback_filtering_enabled)
from .namespaces import missing, public_dir

__all__ = ["NumericsChecker", "NumericsError", "check_numerics", "check_numerics_enabled",
           "disable_check_numerics", "enable_check_numerics", "is_check_numerics_enabled",
           # tracebacks without tapekit's frames (traceback_utils.py), as tf.debugging's
           "disable_traceback_filtering", "enable_traceback_filtering",
           "is_traceback_filtering_enabled"]


class NumericsError(ValueError):
    """A NaN or Inf where check_numerics looks (TensorFlow raises InvalidArgumentError).

    Attributes: `op` (its name), `phase` ("forward", "backward" or "check"), `index`
    (record index on the tape, or None), `input` (backward: the input whose gradient
    went bad), `filename`, `lineno` (the user line that called the op).

    >>> x = tk.Variable(0.0)
    >>> try:
    ...     with tk.debugging.check_numerics_enabled(), tk.GradientTape() as tape:
    ...         y = tk.sqrt(x)                   # fine forward: sqrt(0) = 0
    ...         g = tape.gradient(y, x)          # 1 / (2 sqrt(0)) = inf in the backward pass
    ... except tk.debugging.NumericsError as e:
    ...     print(e.op, e.phase)
    sqrt backward
    """

    def __init__(self, message, *, op=None, phase="check", index=None, input=None,
                 filename=None, lineno=None):
        super().__init__(message)
        self.op = op
        self.phase = phase
        self.index = index
        self.input = input
        self.filename = filename
        self.lineno = lineno


# --- switching it on and off ------------------------------------------------------------

def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """Raise NumericsError at the first op whose output or gradient holds NaN or Inf.

    As `tf.debugging.enable_check_numerics` (its two arguments are accepted and not
    needed: the error shows one user line); per thread. The return value also works
    as a context manager that restores the previous setting:
    `with tk.debugging.enable_check_numerics(): ...`

    >>> _ = tk.debugging.enable_check_numerics()
    >>> try:
    ...     y = tk.sqrt(tk.constant([4.0, -1.0]))
    ... except tk.debugging.NumericsError as e:
    ...     print(str(e).splitlines()[0])
    check_numerics: op 'sqrt' produced NaN in its output (forward pass)
    >>> tk.debugging.disable_check_numerics()
    """
    was_on = state.check_numerics is not None
    if not was_on:
        checker = NumericsChecker()
        state.check_numerics = checker
        push_accumulator(checker)
    return _Restore(was_on)


def disable_check_numerics():
    """Stop checking (`tf.debugging.disable_check_numerics`); nothing is left in the op path.

    >>> _ = tk.debugging.enable_check_numerics()
    >>> tk.debugging.disable_check_numerics()
    >>> tk.debugging.is_check_numerics_enabled()
    False
    """
    checker = state.check_numerics
    state.check_numerics = None
    if checker is not None:
        remove_accumulator(checker)


@contextlib.contextmanager
def check_numerics_enabled():
    """Context manager: check numerics inside the block only.

    >>> try:
    ...     with tk.debugging.check_numerics_enabled():
    ...         y = tk.log(tk.constant([1.0, -1.0]))
    ... except tk.debugging.NumericsError as e:
    ...     print(str(e).splitlines()[0])
    check_numerics: op 'log' produced NaN in its output (forward pass)
    >>> tk.debugging.is_check_numerics_enabled()    # off again after the block
    False
    """
    with enable_check_numerics():
        yield


def is_check_numerics_enabled():
    """True while check_numerics is on in this thread.

    >>> with tk.debugging.check_numerics_enabled():
    ...     tk.debugging.is_check_numerics_enabled()
    True
    >>> tk.debugging.is_check_numerics_enabled()
    False
    """
    return state.check_numerics is not None


class _Restore:
    """What enable_check_numerics returns: leaving its `with` block restores the old setting."""

    def __init__(self, was_on):
        self._was_on = was_on

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self._was_on:
            disable_check_numerics()
        return False


# --- one tensor ---------------------------------------------------------------------------

def check_numerics(tensor, message, name=None):
    """Return `tensor` if it holds no NaN or Inf, else raise NumericsError (`tf.debugging.check_numerics`).

    >>> tk.debugging.check_numerics(tk.constant([1.0, 2.0]), "after layer 2")
    tk.Tensor([1. 2.], shape=(2,), dtype=float32)
    >>> try:
    ...     tk.debugging.check_numerics(tk.constant([1.0, float("nan")]), "after layer 2")
    ... except tk.debugging.NumericsError as e:
    ...     print(str(e).splitlines()[0])
    after layer 2 : Tensor had NaN values
    """
    t = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor)
    value = t._value
    if value.dtype.kind not in "fc":
        raise TypeError(f"check_numerics: {message}: needs a floating tensor, got dtype "
                        f"{value.dtype.name}")
    site = user_site(sys._getframe(1))
    _check_value(value, message, site)
    if state.tapes:   # a tk.function being traced: its replays check the value too
        check = functools.partial(_check_value, message=message, site=site)
        for recorder in state.tapes:
            recorder.record_check(t, check)
    return t


def _check_value(value, message, site):
    if not has_nonfinite(value):
        return
    nan, inf = int(np.isnan(value).sum()), int(np.isinf(value).sum())
    kinds = " and ".join(k for k, n in (("Inf", inf), ("NaN", nan)) if n)
    raise NumericsError(f"{message} : Tensor had {kinds} values\n"
                        f"  value: {describe(value)}\n"
                        f"  {format_site(site, 'checked')}",
                        phase="check", filename=site[0], lineno=site[1])


# --- the checker ----------------------------------------------------------------------------

# Where each recorded op was called from, noted only while checking is on:
# tape -> {output tape id: (record index, (filename, lineno, function))}.
# Weak in the tape, so the notes go when the tape goes.
_SITES = weakref.WeakKeyDictionary()
_failures = weakref.WeakKeyDictionary()   # tape -> {"index", "phase", "op", "reason"}


class NumericsChecker(TapeObserver):
    """Sits in state.accumulators (forward check) and state.check_numerics (backward check).

    >>> checker = tk.debugging.NumericsChecker()   # enable_check_numerics installs one: use that
    >>> type(checker).__name__
    'NumericsChecker'
    """

    reports_by_raising = True    # its NumericsError is the report: it reaches the user

    # --- forward: called by Op.run after every op, like a ForwardAccumulator ---
    def _propagate(self, op, args, values, tids, result, attrs):
        recorded = _recorded_on(result._tid)
        if has_nonfinite(result._value):
            if inside(backprop.backward):
                # An intermediate value inside a derivative rule (tensor mode): what counts
                # is the gradient the rule returns, which backward_step checks.
                return
            raise _forward_error(op, values, result._value, attrs, recorded)
        if recorded:
            site = user_site(sys._getframe(1))
            for tape, index in recorded:
                _SITES.setdefault(tape, {})[result._tid] = (index, site)

    # --- backward: a tape's observer in its backward walk, after each record's chain rule ---
    def backward_step(self, tape, rec, g, sent, grads):
        for i, _, gi in sent:
            value = gi._value if isinstance(gi, Tensor) else np.asarray(gi)
            if has_nonfinite(value):
                raise _backward_error(tape, rec, g, i, value)


def _recorded_on(tid):
    """[(tape, record index)] for each active tape whose last record made `tid`."""
    found = []
    for tape in state.tapes:
        records = tape.record_list if isinstance(tape, GradientTape) else ()
        if records and Record._make(records[-1]).out_tid == tid:
            found.append((tape, len(records) - 1))
    return found


def _forward_error(op, values, out, attrs, recorded):
    bad = nonfinite_kinds(out)
    site = user_site(sys._getframe(1))
    reason = f"output holds {bad}"
    lines = [f"check_numerics: op '{op.name}' produced {bad} in its output (forward pass)",
             f"  output:   {describe(out)}",
             f"  op:       {op_text(op, attrs)}, {record_text(recorded)}"]
    lines += [f"  input {name}: {describe(v)}" for name, v in zip(input_names(op, len(values)), values)]
    if any(has_nonfinite(v) for v in values if isinstance(v, (np.ndarray, np.generic))):
        lines.append("  an input already holds NaN/Inf: it was made before checking was on, "
                     "or outside tapekit ops")
    jvp_of = jvp_rule_running()
    if jvp_of is not None:
        lines.append(f"  while computing the forward-mode tangent (JVP rule) of op '{jvp_of.name}'")
    lines.append(f"  {format_site(site, 'called')}")
    for tape, index in recorded:
        _failures[tape] = {"index": index, "phase": "forward", "op": op.name, "reason": reason}
    return NumericsError("\n".join(lines), op=op.name, phase="forward",
                         index=recorded[-1][1] if recorded else None,
                         filename=site[0], lineno=site[1])


def _backward_error(tape, rec, g, i, grad):
    op = rec.op
    name = input_names(op, len(rec.in_tids))[i]
    bad = nonfinite_kinds(grad)
    reason = f"gradient for input {name} holds {bad}"
    tapes, site, index = _forward_site(tape, rec)
    now = user_site(sys._getframe(1))
    g_value = g._value if isinstance(g, Tensor) else g
    lines = [f"check_numerics: the gradient op '{op.name}' passes to its input {name} holds "
             f"{bad} (backward pass)",
             f"  gradient: {describe(grad)}",
             f"  op:       {op_text(op, rec.attrs)}, "
             + (f"record #{index} on the tape" if index is not None else "recorded on the tape"),
             f"  incoming gradient g: {describe(g_value)}"]
    lines += [f"  input {n}: {describe(v)}"
              for n, v in zip(input_names(op, len(rec.inputs)), rec.inputs)]
    lines.append(f"  output: {describe(rec.ans)}")
    if site is not None:
        lines.append(f"  {format_site(site, 'the op was created (forward pass)')}")
    else:
        lines.append("  its forward line is unknown: the op was recorded before check_numerics "
                     "was on, or is a custom_gradient op (those bypass the checker)")
    lines.append(f"  {format_site(now, 'backward pass started')}")
    for t in tapes:
        _failures[t] = {"index": index, "phase": "backward", "op": op.name, "reason": reason}
    return NumericsError("\n".join(lines), op=op.name, phase="backward", index=index,
                         input=name, filename=site[0] if site else None,
                         lineno=site[1] if site else None)


def _forward_site(tape, rec):
    """(tapes that recorded `rec`, the user line that created it, its index on `tape`), from
    the notes in _SITES; a record made before checking was on has no note (index from a
    persistent tape's list, else None)."""
    tapes, site, index = [tape], None, None
    for other, sites in list(_SITES.items()):
        entry = sites.get(rec.out_tid)
        if entry is not None:
            if other is not tape:
                tapes.append(other)
            else:
                index = entry[0]
            site = entry[1]
    if index is None:
        index = next((k for k, r in enumerate(map(Record._make, tape.record_list))
                      if r.out_tid == rec.out_tid), None)
    return tapes, site, index


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
__getattr__ = missing(__name__)   # a TensorFlow name tapekit refuses says what to use instead
