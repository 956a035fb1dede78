"""Issue 22 item 4: the every-tape registry and the display options under threads."""
import threading

import tapekit as tk
from tapekit import record as observing
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
