"""Issue 22 item 4: the every-tape registry and the display options under threads;
issue 29 row 12: compiled optimizer steps are atomic under threads."""
import threading
import time

import numpy as np
import pytest

import tapekit as tk
from tapekit import observers as observing
from tapekit.display.options import OPTIONS
from tapekit.display.tape_log import VALUES

N = 8


def _run(target, n=N):
    errors = []

    def guarded(k):
        try:
            target(k)
        except BaseException as e:   # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors


def test_observe_all_tapes_from_eight_threads_keeps_every_observer():
    per_thread = 400
    made = [[tk.TapeObserver() for _ in range(per_thread)] for _ in range(N)]
    start = threading.Barrier(N)

    def attach(k):
        start.wait()
        for obs in made[k]:
            tk.observe_all_tapes(obs)

    try:
        _run(attach)
        kept = set(map(id, observing.every_tape.all))
        assert sum(id(o) in kept for group in made for o in group) == N * per_thread
    finally:
        start2 = threading.Barrier(N)

        def detach(k):
            start2.wait()
            for obs in made[k]:
                tk.stop_observing_all_tapes(obs)
        _run(detach)
    kept = set(map(id, observing.every_tape.all))
    assert not any(id(o) in kept for group in made for o in group)


def test_option_contexts_in_eight_threads_leave_each_other_alone():
    before = (dict(OPTIONS), tk.display.recording())
    inside = threading.Barrier(N)
    done = threading.Barrier(N)
    seen = {}

    def use(k):
        mine = {"rankdir": "LR" if k % 2 else "TB", "precision": k, "record": bool(k % 2)}
        with tk.display.option_context(**mine):
            inside.wait()          # every thread is inside its own block now
            x = tk.Variable(float(k))
            with tk.GradientTape() as tape:
                y = x * 2.0
            seen[k] = (OPTIONS["rankdir"], OPTIONS["precision"], tk.display.recording(),
                       VALUES in tape._observers.all)
            done.wait()            # nobody leaves before everyone has looked
        seen[k, "after"] = (dict(OPTIONS), tk.display.recording())

    _run(use)
    for k in range(N):
        odd = bool(k % 2)
        assert seen[k] == ("LR" if odd else "TB", k, odd, odd)
        assert seen[k, "after"] == before
    assert (dict(OPTIONS), tk.display.recording()) == before


def test_a_new_thread_sees_the_process_defaults_not_another_threads_context():
    previous = tk.display.set_options(precision=7)
    try:
        entered, release = threading.Event(), threading.Event()
        seen = {}

        def holder():
            with tk.display.option_context(rankdir="LR", precision=2, record=True):
                entered.set()
                release.wait(30)

        def newcomer():
            seen["options"] = dict(OPTIONS)
            seen["record"] = tk.display.recording()
            seen["tape"] = VALUES in tk.GradientTape()._observers.all

        h = threading.Thread(target=holder)
        h.start()
        entered.wait(30)
        n = threading.Thread(target=newcomer)
        n.start()
        n.join(30)
        release.set()
        h.join(30)
        assert seen["options"]["precision"] == 7 and seen["options"]["rankdir"] == previous["rankdir"]
        assert seen["record"] == previous["record"] == seen["tape"]
    finally:
        tk.display.set_options(**previous)


# --- issue 29 row 12: compiled optimizer steps from four threads --------------------------

class _PreemptedLock:
    """A variable's lock that lets the other threads run first at every write: the
    preemption a busy machine makes somewhere in a step, made to happen at each write."""

    def __init__(self):
        self._lock = threading.Lock()

    def acquire(self, *args):
        time.sleep(2e-5)
        return self._lock.acquire(*args)

    def release(self):
        self._lock.release()

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()


def _compiled_step(opt, w):
    @tk.function
    def train_step(g):
        opt.apply_gradients([(g, w)])
        return tk.identity(opt.iterations)   # the number this step got, read after it
    return train_step


@pytest.mark.parametrize("make", [lambda: tk.optimizers.Adam(0.05),
                                  lambda: tk.optimizers.RMSprop(0.05, momentum=0.5)],
                         ids=["Adam", "RMSprop"])
def test_compiled_optimizer_steps_from_four_threads_equal_their_serial_order(make):
    """4 threads x 200 replayed steps of one optimizer: each step is atomic (as eager
    apply_gradients is), so each returns its own iteration number 1..800 and the variable,
    replayed serially in that recorded order from the same start, ends bit for bit equal.
    A torn step (one thread's slots read between another's read and write) breaks both."""
    start = np.array([0.5, -0.25, 1.0, 2.0], np.float32)
    grads = [tk.constant(np.array([1.0, -2.0, 0.5, 3.0], np.float32) * (k + 1) - k)
             for k in range(4)]
    zero = tk.constant(np.zeros(4, np.float32))
    opt, w = make(), tk.Variable(start, name="w")
    step = _compiled_step(opt, w)
    warm = [int(step(zero)) for _ in range(2)]    # traces (and traces again: slots created)
    for v in [w] + list(opt.variables):
        v._lock = _PreemptedLock()
    got = {}
    barrier = threading.Barrier(4)

    def work(k):
        barrier.wait()
        got[k] = [int(step(grads[k])) for _ in range(200)]
    _run(work, 4)
    numbers = sorted((n, k) for k, ns in got.items() for n in ns)
    assert [n for n, _ in numbers] == list(range(3, 803)), "a step saw another's iteration"
    # The serial order the threads took, replayed one step at a time from the same start.
    opt2, w2 = make(), tk.Variable(start, name="w")
    serial = _compiled_step(opt2, w2)
    assert [int(serial(zero)) for _ in range(2)] == warm
    for n, k in numbers:
        assert int(serial(grads[k])) == n
    assert w.numpy().tobytes() == w2.numpy().tobytes(), (w.numpy(), w2.numpy())
    for a, b in zip(opt.variables, opt2.variables):
        assert a.numpy().tobytes() == b.numpy().tobytes(), a.name
