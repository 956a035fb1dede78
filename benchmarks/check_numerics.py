"""Contenders for timing a workload with tk.debugging's check_numerics off and on.

Moved here from tapekit/debugging.py: it is a benchmark helper, not part of the
library a learner reads. For harness.interleaved:

    interleaved(check_numerics_contenders(tk, w1), reps=...)

"off" is the normal path: with checking off nothing of tapekit/debugging.py runs per op.
"""


def check_numerics_contenders(tk, workload):
    """{label: zero-argument callable}: `workload()` with check_numerics off, and on."""
    def on():
        with tk.debugging.enable_check_numerics():
            return workload()

    def off():
        if tk.debugging.is_check_numerics_enabled():
            raise RuntimeError("check_numerics is on; the 'off' contender needs it off")
        return workload()

    return {"check_numerics off": off, "check_numerics on": on}
