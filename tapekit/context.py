"""Per-thread recording state: the active tapes, forward accumulators, and raw mode.

Every op looks here once. `tapes` lists the tapes that are recording now, innermost
last; `accumulators` the active ForwardAccumulators; `raw` is True only while a
backward pass that nothing records runs its derivative rules on plain NumPy
arrays (see backprop.py), which is what makes an unrecorded backward pass cheap.
`check_numerics` is tk.debugging's NaN/Inf checker while it is enabled, else None
(backprop reads it once per backward pass). `undo` is the list of (variable, value before
the write) that variable writes append to inside `writes.all_or_nothing()`, else None.

Reaching the per-thread state costs a thread-local look-up, about as much as the rest
of a small op's bookkeeping. `hints` lets the per-op path skip three of them: how many
accumulators are pushed in any thread (`hints[ACCUMULATORS]`), how many threads run
rules in raw mode (`hints[RAW]`), and how many keep an undo log (`hints[UNDO]`). 0 means
no thread does. Change `accumulators`, `raw` and `undo` through the functions below so the
hints stay true; they may over-count (a list swapped out for a moment), never under-count.
"""
import threading


class _State(threading.local):
    def __init__(self):
        self.tapes = []
        self.accumulators = []
        self.raw = False
        self.check_numerics = None
        self.undo = None
        # ids of the ForwardAccumulators a running tk.function call was entered under: inside
        # that call they take a custom_gradient's tangent from its grad_fn (custom.py)
        self.accumulators_outside_function = frozenset()


state = _State()

ACCUMULATORS, RAW, UNDO = 0, 1, 2
hints = [0, 0, 0]
_lock = threading.Lock()


def recording():
    """True when what this thread computes now is itself recorded: a tape (or tk.function's
    tracer) or a forward accumulator is active. The one place that decides it: a backward
    pass then runs its rules on tensors, so that they are recorded (backprop.py), and a
    tk.function call replays its program as ops (compiler/function.py); otherwise both run
    on plain NumPy arrays."""
    return bool(state.tapes or state.accumulators)


def push_accumulator(acc):
    """Make `acc` see every op of this thread (a ForwardAccumulator, the NaN checker)."""
    with _lock:
        hints[ACCUMULATORS] += 1
    state.accumulators.append(acc)


def remove_accumulator(acc):
    """Undo push_accumulator; nothing happens if `acc` is not active in this thread."""
    if acc in state.accumulators:
        state.accumulators.remove(acc)
        with _lock:
            hints[ACCUMULATORS] -= 1


def enter_raw(on):
    """Set this thread's raw mode to `on`; returns the previous setting for leave_raw."""
    saved = state.raw
    if on and not saved:
        with _lock:
            hints[RAW] += 1
    state.raw = on
    return saved


def leave_raw(on, saved):
    """Restore the raw mode enter_raw(on) replaced by `saved`."""
    state.raw = saved
    if on and not saved:
        with _lock:
            hints[RAW] -= 1


def open_undo(log):
    """Make `log` the list this thread's variable writes append to (writes.all_or_nothing);
    returns the list it replaces, for close_undo."""
    outer = state.undo
    if outer is None:
        with _lock:
            hints[UNDO] += 1
    state.undo = log
    return outer


def close_undo(outer):
    """Undo open_undo: `outer` (its result) is the thread's log again."""
    state.undo = outer
    if outer is None:
        with _lock:
            hints[UNDO] -= 1
