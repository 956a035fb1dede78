"""KCNN / KMLP: tapekit's `fit` against Keras 3's `fit` on TensorFlow, one epoch (issue 33).

The models, data and hand-written NumPy epoch are fit_floor.py's (CNN: 2 Conv2D + 2
MaxPooling2D + Dense, 2048 images of 28x28, batch 64; MLP: 784-256-128-10, 4096 rows,
batch 64; Adam, accuracy metric, shuffle=False). TensorFlow runs in its own interpreter
(fit_tf.py, started when run.py has --tf-python), so two ratios are compared, each
framework's fit epoch over the NumPy epoch timed beside it in its own process; absolute times
of two interpreters are not. Both processes stay up and take turns: each repetition runs this
process's contenders and the Keras process's (fit_tf.py answers one repetition per request),
in a shuffled order, so a burst of load from a neighbour hits both ratios alike.

Verified before timing, in each process: one epoch of fit from the same weights on the same
data against one NumPy epoch (the epoch's loss, accuracy and every weight; fit_floor.verify_fit),
and the two frameworks' epoch losses against each other.

KCNN also reports the physical limit: the epoch's matmul FLOPs (forward + backward) at the
rate of one large sgemm on one core, timed here as a third contender beside the epochs, and
each epoch as a multiple of it.
"""
import json
import os
import random
import subprocess
import time

import numpy as np

from fit_floor import (CNN_N, FILTERS, LOSS_RTOL, MLP_N, MLP_SIZES, NumpyEpoch, build_model,
                       cnn_epoch_flops, fit_epoch, make_problem, verify_fit)
from harness import CPU, VerificationError, check, na, one_repetition, row, summary

NAME = "KCNN"
TITLES = {"KCNN": f"KCNN fit epoch vs Keras 3 on TensorFlow: CNN conv{FILTERS[0]}-pool-conv{FILTERS[1]}-pool-"
                  f"dense10 on {CNN_N} images 28x28, batch 64, Adam, accuracy",
          "KMLP": f"KMLP fit epoch vs Keras 3 on TensorFlow: MLP {'-'.join(map(str, MLP_SIZES))}, "
                  f"{MLP_N} rows, batch 64, Adam, accuracy"}
TITLE = TITLES["KCNN"]
TARGETS = {"CNN": 1.0, "MLP": 0.5}   # tapekit's ratio at most this many times Keras's (issue 33)
UNIT = "ms"


class KerasProcess:
    """fit_tf.py in TensorFlow's interpreter, verified and warmed up, answering one repetition
    (its NumPy epoch and Keras's fit epoch) per `rep()`."""

    def __init__(self, tf_python, shape):
        here = os.path.dirname(os.path.abspath(__file__))
        self.proc = subprocess.Popen([tf_python, os.path.join(here, "fit_tf.py"), shape],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.info = self._read()

    def _read(self):
        for line in self.proc.stdout:
            if line.startswith("FITTF "):
                return json.loads(line[len("FITTF "):])
        err = self.proc.stderr.read()
        self.proc.wait()
        raise RuntimeError(f"fit_tf.py stopped (exit {self.proc.returncode}): {err.strip()[-600:]}")

    def rep(self):
        self.proc.stdin.write("rep\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)


def start_keras(tf_python, shape):
    """(KerasProcess, None) or (None, why)."""
    if not tf_python:
        return None, ("no TensorFlow interpreter given: run.py --tf-python PATH "
                      "(or TAPEKIT_BENCH_TF_PYTHON=PATH) adds Keras's fit, timed in that Python")
    try:
        return KerasProcess(tf_python, shape), None
    except (OSError, RuntimeError) as e:
        if "VerificationError" in str(e):
            raise VerificationError(f"Keras's fit in {tf_python}: {e}") from None
        return None, f"{tf_python} fit_tf.py could not run: {type(e).__name__}: {e}"


def sgemm(size=2048):
    """One size^3 float32 matmul into a kept output: timed beside the epochs for the BLAS rate."""
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((size, size)).astype(np.float32) for _ in range(2))
    out = np.empty_like(a)
    return lambda: np.matmul(a, b, out=out)


def timed_together(own, keras, reps, budget, seed=0):
    """Repetitions of this process's contenders and of the Keras process's, interleaved in time
    (which process goes first in a repetition is drawn too): {label: samples}, Keras's labelled
    as fit_tf.py labels them."""
    for fn in own.values():           # warm-up, as harness.interleaved (fit_tf.py warms its own)
        fn()
        fn()
    rng = random.Random(seed)
    samples = {}
    start = time.perf_counter()
    for r in range(reps):
        sides = [lambda: one_repetition(own, rng)] + ([keras.rep] if keras else [])
        for side in rng.sample(sides, len(sides)):
            for label, t in side().items():
                samples.setdefault(label, []).append(t)
        if r >= 4 and time.perf_counter() - start > budget:
            break
    return samples


def run_shape(ctx, shape):
    tk = ctx.tk
    weights, x, y = make_problem(shape)
    checked = verify_fit("tapekit", shape, build_model(tk, shape, weights), weights, x, y)
    model = build_model(tk, shape, weights)
    labels = {"floor": "NumPy epoch by hand", "tk": "tapekit fit (tk.function step)",
              "tf": "Keras 3 fit (TensorFlow, tf.function step)", "gemm": "one 2048^3 sgemm"}
    own = {labels["floor"]: NumpyEpoch(shape, weights, x, y), labels["tk"]: lambda: fit_epoch(model, x, y)}
    if shape == "CNN":
        own[labels["gemm"]] = sgemm()
    notes = [f"Verified before timing: one epoch of tapekit's fit from the NumPy epoch's weights gives "
             f"loss {checked['loss']:.7g} (NumPy {checked['floor_loss']:.7g}, relative "
             f"{checked['loss_rel']:.1e}), accuracy {checked['accuracy']:.4f} "
             f"(NumPy {checked['floor_accuracy']:.4f}); weights {checked['weights_rel']:.1e} of "
             f"their update apart at most."]
    keras, why_tf = start_keras(getattr(ctx, "tf_python", None), shape)
    try:
        samples = timed_together(own, keras, ctx.reps(15), ctx.budget(120))
    finally:
        if keras is not None:
            keras.close()
    stats = {label: summary(s) for label, s in samples.items()}
    floor_ms = stats[labels["floor"]]["median"] * 1e3
    rows = [row(labels[k], stats[labels[k]]["median"] * 1e3, UNIT, stats=_scaled(stats[labels[k]], 1e3))
            for k in ("floor", "tk")]
    checks = []
    tf_res = None
    if keras is None:
        rows.append(na(labels["tf"], UNIT, why_tf))
        notes.append(f"Keras N/A: {why_tf}")
    else:
        info = keras.info
        ratio = stats["Keras fit"]["median"] / stats["NumPy epoch"]["median"]
        tf_res = dict(info, ratio=ratio, stats={k: stats[k] for k in ("NumPy epoch", "Keras fit")})
        scale = floor_ms / (stats["NumPy epoch"]["median"] * 1e3)
        scaled = {k: (v * 1e3 * scale if k in ("median", "p25", "p75", "min") else v)
                  for k, v in stats["Keras fit"].items()}
        rows.append(row(labels["tf"], scaled["median"], UNIT, stats=scaled,
                        note=f"timed in another interpreter (TensorFlow {info['tensorflow']}, Keras "
                             f"{info['keras']}), repetitions interleaved with this process's, against its own "
                             f"NumPy epoch: ratio {ratio:.3f}; shown scaled to this process's NumPy epoch"))
        rel = abs(info["checked"]["loss"] - checked["loss"]) / checked["loss"]
        if rel > LOSS_RTOL:
            raise VerificationError(f"{shape}: Keras's epoch loss {info['checked']['loss']:.7g} != "
                                    f"tapekit's {checked['loss']:.7g} (relative {rel:.2g} > {LOSS_RTOL})")
        notes.append(f"Keras's fit, verified the same way in its interpreter: loss {info['checked']['loss']:.7g} "
                     f"(relative to tapekit's: {rel:.1e}), accuracy {info['checked']['accuracy']:.4f}; "
                     f"jit_compile {info['jit_compile']}, oneDNN {info['onednn']}, malloc tuning "
                     f"{info['malloc_tuning']}. Its NumPy epoch took {stats['NumPy epoch']['median'] * 1e3:.1f} ms "
                     f"there (here {floor_ms:.1f} ms); tapekit fit / Keras fit, each over its own NumPy "
                     f"epoch: {stats[labels['tk']]['median'] / stats[labels['floor']]['median'] / ratio:.3f}.")
        target = round(TARGETS[shape] * ratio, 3)
        what = "fit / NumPy, at most Keras's" if TARGETS[shape] == 1 else \
            f"fit / NumPy, at most {TARGETS[shape]}x Keras's"
        checks.append(check(what, labels["tk"], labels["floor"], target, rows))
        # The same comparison in CPU time (harness.CPU): what each process spent, whoever else
        # ran on the machine meanwhile. Wall clock stays the target above; both are printed.
        cpu = {k: stats[k + CPU]["median"] for k in (labels["floor"], labels["tk"], "NumPy epoch", "Keras fit")}
        tk_cpu, tf_cpu = cpu[labels["tk"]] / cpu[labels["floor"]], cpu["Keras fit"] / cpu["NumPy epoch"]
        cpu_target = round(TARGETS[shape] * tf_cpu, 3)
        cpu_rows = [row("floor (CPU)", cpu[labels["floor"]] * 1e3, UNIT), row("tk (CPU)", cpu[labels["tk"]] * 1e3, UNIT)]
        checks.append(check(what + ", CPU time", "tk (CPU)", "floor (CPU)", cpu_target, cpu_rows))
        notes.append(f"CPU time of each process (every thread), medians: tapekit fit / NumPy epoch {tk_cpu:.3f}, "
                     f"Keras fit / NumPy epoch {tf_cpu:.3f}; tapekit / Keras {tk_cpu / tf_cpu:.3f} "
                     f"(wall clock: {stats[labels['tk']]['median'] / stats[labels['floor']]['median'] / ratio:.3f}).")
    if shape == "CNN":
        flops = cnn_epoch_flops()
        rate = 2 * 2048 ** 3 / stats[labels["gemm"]]["median"]
        limit_ms = flops["total"] / rate * 1e3
        rows.append(row("FLOPs at one core's sgemm rate (the limit)", limit_ms, UNIT,
                        note=f"{flops['total'] / 1e9:.2f} GFLOP (forward {flops['forward'] / 1e9:.2f}) "
                             f"at {rate / 1e9:.1f} GFLOP/s (2048^3 sgemms, timed beside the epochs)"))
        by = {r["label"]: r["value"] for r in rows}
        short = {"floor": "NumPy epoch", "tk": "tapekit fit", "tf": "Keras fit"}
        multiples = ", ".join(f"{short[k]} {by[labels[k]] / limit_ms:.1f}x"
                              for k in ("floor", "tk", "tf") if by.get(labels[k]))
        notes.append(f"The limit: {flops['total'] / 1e9:.2f} GFLOP of matmuls per epoch at {rate / 1e9:.1f} "
                     f"GFLOP/s = {limit_ms:.1f} ms; each epoch as a multiple of it: {multiples}.")
    return {"rows": rows, "checks": checks, "notes": notes, "baseline": labels["floor"],
            "tf": tf_res, "verified": checked}


def run_kcnn(ctx):
    return run_shape(ctx, "CNN")


def run_kmlp(ctx):
    return run_shape(ctx, "MLP")


run = run_kcnn


def _scaled(s, k):
    return {key: (v * k if key in ("median", "p25", "p75", "min") else v) for key, v in s.items()}
