"""Shared benchmark machinery: interleaved timing, result rows, verification, optional torch.

The machine is shared and noisy, so every workload is timed the same way:
- every contender runs in the same process, one thread each (run.py pins the BLAS
  and torch thread counts before anything imports NumPy);
- repetitions are interleaved: repetition r runs every contender once, in an order
  rotated by r, so a burst of load from a neighbour hits all of them alike;
- a repetition times a block of `inner` back-to-back calls (calibrated so a block
  lasts a few milliseconds) and records the time per call;
- we report the MEDIAN over repetitions, and ratios of medians.
The garbage collector stays on: its cost is part of what a user pays.
"""
import gc
import json
import os
import random
import statistics
import subprocess
import time

import numpy as np

# --- optional contenders --------------------------------------------------------------


def import_torch():
    """(torch, None) or (None, why it is missing)."""
    try:
        import torch
    except Exception as e:  # ImportError, or a broken wheel
        return None, (f"PyTorch not importable ({type(e).__name__}: {e}); its columns are skipped. "
                      f"Install the CPU wheel: pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu (or --find-links DIR with a local wheel)")
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass  # already set (interop threads can only be set once, before parallel work)
    return torch, None


def optional_attr(obj, dotted):
    """obj.a.b.c if it exists, else None. For features other engineers are still writing.

    Intermediate parts may be submodules not imported by the package yet (like
    `from tapekit import optimizers`); the last part must be a real attribute, not a module.
    """
    import importlib
    import types
    cur = obj
    parts = dotted.split(".")
    for k, part in enumerate(parts):
        last = k == len(parts) - 1
        try:
            cur = getattr(cur, part)
        except AttributeError:
            if last or not isinstance(cur, types.ModuleType):
                return None
            try:
                cur = importlib.import_module(f"{cur.__name__}.{part}")
            except Exception:
                return None
        except Exception:
            return None
    return None if isinstance(cur, types.ModuleType) else cur


# --- timing -----------------------------------------------------------------------------


MAX_CALLS = 16  # calls per block at most (the NumPy closed forms of W3/W4 take 12 us a call)


def _calibrate(fn, block_seconds):
    t0 = time.perf_counter()
    fn()
    dt = max(time.perf_counter() - t0, 1e-7)
    return max(1, int(round(block_seconds / dt)))


def interleaved(contenders, *, reps, warmup=2, block_seconds=0.004, time_budget=None):
    """Median seconds per call of each contender, timed in interleaved repetitions.

    contenders: {label: zero-argument callable}. Returns {label: stats dict} with
    median, p25, p75, min (seconds per call), reps and inner (calls per block), and
    cpu_median: the median of the same blocks in process CPU time (see CPU below).
    `time_budget` (seconds) stops early, after at least 5 repetitions, if exceeded.
    """
    labels = list(contenders)
    for label in labels:          # warm-up: first-call costs (tracing, caches, allocators)
        for _ in range(warmup):
            contenders[label]()
    # Every contender gets the same number of calls per block, as many as the fastest one needs
    # for about block_seconds (at most MAX_CALLS). The first call of a block runs in the caches
    # the block before left behind and the rest run as in a loop of steps. With blocks of
    # equal length in time, a faster contender made more calls and spread that first call
    # thinner (NumPy's MLP step at 3 calls against tapekit's at 2 added about 0.02 to their
    # ratio); with one call per block, every call measured would be a first call.
    n = min(max(_calibrate(contenders[label], block_seconds) for label in labels), MAX_CALLS)
    inner = {label: n for label in labels}
    samples = {label: [] for label in labels}
    cpu = {label: [] for label in labels}
    start = time.perf_counter()
    # A new order each repetition (seeded): a block that follows another pays for the caches
    # and heap that one left behind, and a rotation would always put the same contender
    # right after the same neighbour.
    rng = random.Random(0)
    for r in range(reps):
        order = rng.sample(labels, len(labels))
        for label in order:
            fn, n = contenders[label], inner[label]
            c0, t0 = time.process_time(), time.perf_counter()
            for _ in range(n):
                fn()
            samples[label].append((time.perf_counter() - t0) / n)
            cpu[label].append((time.process_time() - c0) / n)
        if time_budget is not None and r >= 4 and time.perf_counter() - start > time_budget:
            break
    gc.collect()
    return {label: dict(summary(s, inner[label]), cpu_median=statistics.median(cpu[label]))
            for label, s in samples.items()}


def summary(s, inner=1):
    """The stats dict of one contender's samples (seconds per call)."""
    q = statistics.quantiles(s, n=4) if len(s) >= 2 else [s[0]] * 3
    return {"median": statistics.median(s), "p25": q[0], "p75": q[2], "min": min(s),
            "reps": len(s), "inner": inner}


# --- verification ------------------------------------------------------------------------


class VerificationError(AssertionError):
    pass


def assert_close(name, got, want, *, rtol=1e-4, atol=1e-5):
    """allclose with a message that names the quantity and the worst element."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise VerificationError(f"{name}: shape {got.shape} != expected {want.shape}")
    if not np.allclose(got, want, rtol=rtol, atol=atol):
        err = np.abs(got - want)
        k = np.unravel_index(np.argmax(err - rtol * np.abs(want)), err.shape)
        raise VerificationError(
            f"{name}: not allclose (rtol={rtol}, atol={atol}); worst at {tuple(int(i) for i in k)}: "
            f"got {got[k]:.6g}, expected {want[k]:.6g}; max abs err {err.max():.3g}")


def to_numpy(x):
    """A NumPy array from a tapekit Tensor, a torch tensor or an array."""
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    if hasattr(x, "numpy"):
        return np.asarray(x.numpy())
    return np.asarray(x)


# --- results --------------------------------------------------------------------------------


def row(label, value, unit, *, stats=None, note=None, kind="time"):
    """One line of a workload's table. value None means N/A (say why in `note`)."""
    return {"label": label, "value": value, "unit": unit, "stats": stats, "note": note, "kind": kind}


def check(what, num, den, target, rows):
    """A target such as 'tapekit / PyTorch <= 0.7'; ratio None when either side is N/A."""
    by = {r["label"]: r["value"] for r in rows}
    a, b = by.get(num), by.get(den)
    ratio = None if a is None or b is None or b == 0 else a / b
    return {"what": what, "numerator": num, "denominator": den, "target": target, "ratio": ratio,
            "ok": None if ratio is None else ratio <= target}


def na(label, unit, why):
    return row(label, None, unit, note=f"N/A: {why}")


# --- TensorFlow, in its own interpreter ---------------------------------------------------------

def tf_ratio(tf_python, script, reps, budget):
    """tf.function / NumPy floor, timed by `script` (w1_tf.py, cnn_tf.py) in TensorFlow's
    interpreter: (result, None) or (None, why). Only the ratio crosses processes: each side
    times its own NumPy floor. Run it after this process's timing, never during it."""
    if not tf_python:
        return None, ("no TensorFlow interpreter given: run.py --tf-python PATH "
                      "(or TAPEKIT_BENCH_TF_PYTHON=PATH) adds tf.function, timed in that Python")
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        proc = subprocess.run([tf_python, os.path.join(here, script), "--reps", str(reps),
                               "--budget", str(budget)], capture_output=True, text=True, timeout=900,
                              check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"{tf_python} {script} could not run: {type(e).__name__}: {e}"
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return None, f"{tf_python} {script} failed (exit {proc.returncode}): {proc.stderr.strip()[-600:]}"
    return json.loads(lines[-1]), None


def tf_row(label, tf_res, floor_median, unit):
    """TensorFlow's row, shown at its ratio to its own NumPy floor times this process's floor
    (`floor_median`, in `unit`), so the "vs NumPy" column is the ratio measured over there."""
    scale = floor_median / tf_res["stats"]["NumPy by hand"]["median"]
    st = {k: (v * scale if k in ("median", "p25", "p75", "min") else v)
          for k, v in tf_res["stats"]["tf.function"].items()}
    return row(label, st["median"], unit, stats=st,
               note=f"timed in another interpreter (TensorFlow {tf_res['tensorflow']}) against its own "
                    f"NumPy floor: ratio {tf_res['ratio']:.3f}; shown scaled to this process's NumPy floor")


# one_repetition's second reading of each call: the CPU time of the whole process (every
# thread), labelled "<label> (CPU)". On a shared machine a neighbour's burst stretches the wall
# clock of whichever process it meets; CPU time counts only the work done.
CPU = " (CPU)"


def one_repetition(contenders, rng):
    """One call of each contender, in an order drawn from `rng`: {label: seconds}, wall clock,
    and {label + CPU: seconds} of process CPU time. For
    contenders long enough to time one call at a time, driven from outside (see fit_keras.py,
    which interleaves the repetitions of two processes)."""
    out = {}
    for label in rng.sample(list(contenders), len(contenders)):
        c0, t0 = time.process_time(), time.perf_counter()
        contenders[label]()
        out[label] = time.perf_counter() - t0
        out[label + CPU] = time.process_time() - c0
    return out

