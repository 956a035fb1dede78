"""Per-thread recording state: the active tapes, forward accumulators, and raw mode.

Every op looks here once. `tapes` lists the tapes that are recording now, innermost
last; `accumulators` the active ForwardAccumulators; `raw` is True only while a
backward pass that nothing records runs its derivative rules on plain NumPy
arrays (see backprop.py), which is what makes an unrecorded backward pass cheap.
`check_numerics` is tk.debugging's NaN/Inf checker while it is enabled, else None
(backprop reads it once per backward pass).

Reaching the per-thread state costs a thread-local look-up, about as much as the rest
of a small op's bookkeeping. `hints` lets the per-op path skip two of them: how many
accumulators are pushed in any thread (`hints[ACCUMULATORS]`), and how many threads run
rules in raw mode (`hints[RAW]`). 0 means no thread does. Change `accumulators` and `raw`
through the functions below so the hints stay true; they may over-count (a list swapped
out for a moment), never under-count.
"""
import threading


class _State(threading.local):
    def __init__(self):
        self.tapes = []
        self.accumulators = []
        self.raw = False
        self.check_numerics = None


state = _State()

ACCUMULATORS, RAW = 0, 1
hints = [0, 0]
_lock = threading.Lock()


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
