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
`state.accumulators`, the list registry.apply already walks after every op (the
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
import linecache
import sys
import weakref

import numpy as np

from . import backprop
from .context import push_accumulator, remove_accumulator, state
from .forward import jvp_rule_running
from .ops.registry import Meta
from .record import TapeObserver
from .tape import GradientTape
from .tensor import Tensor, convert_to_tensor


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
    site = _user_site(sys._getframe(1))
    _check_value(value, message, site)
    for tape in state.tapes:   # a tk.function being traced: its replays check the value too
        record_check = getattr(tape, "_record_check", None)
        if record_check is not None:
            record_check(t, functools.partial(_check_value, message=message, site=site))
    return t


def _check_value(value, message, site):
    if not _has_nonfinite(value):
        return
    nan, inf = int(np.isnan(value).sum()), int(np.isinf(value).sum())
    kinds = " and ".join(k for k, n in (("Inf", inf), ("NaN", nan)) if n)
    raise NumericsError(f"{message} : Tensor had {kinds} values\n"
                        f"  value: {_describe(value)}\n"
                        f"  {_format_site(site, 'checked')}",
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

    # --- forward: called by registry.apply after every op, like a ForwardAccumulator ---
    def _propagate(self, op, args, values, tids, result, attrs):
        recorded = _recorded_on(result._tid)
        if _has_nonfinite(result._value):
            if _inside(backprop.backward):
                # An intermediate value inside a derivative rule (tensor mode): what counts
                # is the gradient the rule returns, which backward_step checks.
                return
            raise _forward_error(op, values, result._value, attrs, recorded)
        if recorded:
            site = _user_site(sys._getframe(1))
            for tape, index in recorded:
                _SITES.setdefault(tape, {})[result._tid] = (index, site)

    # --- backward: a tape's observer in its backward walk, after each record's chain rule ---
    def backward_step(self, tape, rec, g, sent, grads):
        for i, _, gi in sent:
            value = gi._value if isinstance(gi, Tensor) else np.asarray(gi)
            if _has_nonfinite(value):
                raise _backward_error(tape, rec, g, i, value)


def _recorded_on(tid):
    """[(tape, record index)] for each active tape whose last record made `tid`."""
    found = []
    for tape in state.tapes:
        if isinstance(tape, GradientTape) and tape._records and tape._records[-1].out_tid == tid:
            found.append((tape, len(tape._records) - 1))
    return found


def _forward_error(op, values, out, attrs, recorded):
    bad = _nonfinite_kinds(out)
    site = _user_site(sys._getframe(1))
    reason = f"output holds {bad}"
    lines = [f"check_numerics: op '{op.name}' produced {bad} in its output (forward pass)",
             f"  output:   {_describe(out)}",
             f"  op:       {_op_text(op, attrs)}, {_record_text(recorded)}"]
    lines += [f"  input {name}: {_describe(v)}" for name, v in zip(_input_names(op, len(values)), values)]
    if any(_has_nonfinite(v) for v in values if isinstance(v, (np.ndarray, np.generic))):
        lines.append("  an input already holds NaN/Inf: it was made before checking was on, "
                     "or outside tapekit ops")
    jvp_of = jvp_rule_running()
    if jvp_of is not None:
        lines.append(f"  while computing the forward-mode tangent (JVP rule) of op '{jvp_of.name}'")
    lines.append(f"  {_format_site(site, 'called')}")
    for tape, index in recorded:
        _failures[tape] = {"index": index, "phase": "forward", "op": op.name, "reason": reason}
    return NumericsError("\n".join(lines), op=op.name, phase="forward",
                         index=recorded[-1][1] if recorded else None,
                         filename=site[0], lineno=site[1])


def _backward_error(tape, rec, g, i, grad):
    op = rec.op
    name = _input_names(op, len(rec.in_tids))[i]
    bad = _nonfinite_kinds(grad)
    reason = f"gradient for input {name} holds {bad}"
    tapes, site, index = _forward_site(tape, rec)
    now = _user_site(sys._getframe(1))
    g_value = g._value if isinstance(g, Tensor) else g
    lines = [f"check_numerics: the gradient op '{op.name}' passes to its input {name} holds "
             f"{bad} (backward pass)",
             f"  gradient: {_describe(grad)}",
             f"  op:       {_op_text(op, rec.attrs)}, "
             + (f"record #{index} on the tape" if index is not None else "recorded on the tape"),
             f"  incoming gradient g: {_describe(g_value)}"]
    saved = list(zip(_input_names(op, len(rec.inputs)), rec.inputs)) + [("ans (output)", rec.ans)]
    lines += [f"  saved {n}: {_describe(v)}" for n, v in saved]
    if site is not None:
        lines.append(f"  {_format_site(site, 'the op was created (forward pass)')}")
    else:
        lines.append("  its forward line is unknown: the op was recorded before check_numerics "
                     "was on, or is a custom_gradient op (those bypass the checker)")
    lines.append(f"  {_format_site(now, 'backward pass started')}")
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
        index = next((k for k, r in enumerate(tape._records) if r is rec), None)
    return tapes, site, index


# --- finding the user's line ------------------------------------------------------------------

_LIBRARY = ("tapekit", "numpy")


def _user_site(frame):
    """(filename, lineno, function) of the innermost frame outside tapekit and NumPy."""
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] in _LIBRARY:
        frame = frame.f_back
    if frame is None:
        return ("<unknown>", 0, "<unknown>")
    return (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)


def _format_site(site, what):
    filename, lineno, function = site
    text = f"{what} at {filename}:{lineno}, in {function}"
    code = linecache.getline(filename, lineno).strip()
    return f"{text}\n      {code}" if code else text


def _inside(function):
    """True if `function` is running further up the stack (used only on failure)."""
    code = function.__code__
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


# --- describing values ------------------------------------------------------------------------

def _has_nonfinite(value):
    """True if a float array holds NaN or Inf."""
    return value.dtype.kind in "fc" and not np.isfinite(value).all()


def _nonfinite_kinds(value):
    nan, inf = int(np.isnan(value).sum()), int(np.isinf(value).sum())
    return " and ".join(k for k, n in (("NaN", nan), ("Inf", inf)) if n) or "no NaN/Inf"


def _describe(value):
    """'shape (3,) float32: min -1, max 2', with NaN/Inf counts and where the first are."""
    if isinstance(value, Meta):
        return f"shape {value.shape} {value.dtype.name} (not saved on the tape)"
    if isinstance(value, Tensor):
        value = value._value
    if not isinstance(value, (np.ndarray, np.generic)):
        return repr(value)  # a Python scalar
    value = np.asarray(value)
    head = f"shape {value.shape} {value.dtype.name}"
    if value.size == 0:
        return f"{head}: empty"
    if value.dtype.kind not in "fc":
        if value.dtype.kind in "iub":
            return f"{head}: min {value.min()}, max {value.max()}"
        return head
    finite = np.isfinite(value)
    if finite.all():
        return f"{head}: min {_num(value.real.min())}, max {_num(value.real.max())}"
    counts = [(int(np.isnan(value).sum()), "NaN")]
    if value.dtype.kind == "f":
        counts += [(int((value == np.inf).sum()), "+Inf"), (int((value == -np.inf).sum()), "-Inf")]
    else:
        counts.append((int(np.isinf(value).sum()), "Inf"))
    text = f"{head}: " + ", ".join(f"{n} {kind}" for n, kind in counts if n)
    if value.ndim:
        where = [str(tuple(int(i) for i in idx)) for idx in np.argwhere(~finite)[:3]]
        text += " at " + ", ".join(where) + (", ..." if (~finite).sum() > 3 else "")
    if finite.any():
        text += (f"; finite values in [{_num(value[finite].real.min())}, "
                 f"{_num(value[finite].real.max())}]")
    return text


def _num(x):
    return f"{float(x):.4g}"


def _input_names(op, n):
    if not op.variadic and len(op.args) == n:
        return list(op.args)
    base = op.args[0] if op.args else "input"
    return [f"{base}[{k}]" for k in range(n)]


def _op_text(op, attrs):
    shown = [f"{k}={v!r}" for k, v in attrs.items() if not isinstance(v, np.ndarray)]
    return f"{op.name}({', '.join(shown)})" if shown else op.name


def _record_text(recorded):
    if not recorded:
        return "not recorded on a tape"
    if len(recorded) == 1:
        return f"record #{recorded[0][1]} on the tape"
    return "records " + ", ".join(f"#{i}" for _, i in recorded) + " on the active tapes (outermost first)"
