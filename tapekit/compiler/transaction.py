"""A replay that may stop at a guard after it has changed something: run it as a transaction.

Guards (trace.py) make a replay stop with `GuardFailed` when a Python decision would go
another way; function.py then traces that path. Whatever the replay did before the guard
must not happen twice: ops are pure and the fallback simply starts again, but variable
writes, random draws and tk.print are not. A program with a guard after one of those
(passes.has_late_guard) runs as a transaction: it holds the locks of the variables it
writes, holds back its prints, and on a failed guard puts the variables' values and the
random streams back as they were before the replay began, so the fallback starts from
exactly the state the call found. Programs without such a guard (every training step
without data-dependent Python) run with no locking beyond each write's own.
"""
from ..random import restore_state, save_state
from .program import held_prints, hold_prints, show_print
from .trace import GuardFailed


def run_as_transaction(fn, arg_values, written, draws):
    """`fn(*arg_values)` (a transactional program's compiled function): all of it, or, if a
    guard fails, none of it. `written`: the variables it writes, in lock order; `draws`:
    whether it draws random numbers."""
    locks = [v._lock for v in written]
    for lock in locks:
        lock.acquire()
    saved = [(v, v._value) for v in written]
    rng = save_state() if draws else None
    hold_prints()
    try:
        out = fn(*arg_values)
    except GuardFailed:
        for v, old in saved:
            v._value = old
        if rng is not None:
            restore_state(rng)
        raise
    finally:
        for lock in reversed(locks):
            lock.release()
        prints = held_prints()
    for printer, template, values in prints:
        show_print(printer, template, *values)
    return out
