"""KCNN / KMLP: tapekit's `fit` against Keras 3's `fit` on TensorFlow, one epoch (issue 33).

The models, data and hand-written NumPy epoch are fit_floor.py's (CNN: 2 Conv2D + 2
MaxPooling2D + Dense, 2048 images of 28x28, batch 64; MLP: 784-256-128-10, 4096 rows,
batch 64; Adam, accuracy metric, shuffle=False). TensorFlow runs in its own interpreter
(fit_tf.py, started right after this process's timing when run.py has --tf-python), so two
ratios are compared, each framework's fit epoch over the NumPy epoch timed beside it in its
own process; absolute times of two interpreters are not.

Verified before timing, in each process: one epoch of fit from the same weights on the same
data against one NumPy epoch (the epoch's loss, accuracy and every weight; fit_floor.verify_fit),
and the two frameworks' epoch losses against each other.

KCNN also reports the physical limit: the epoch's matmul FLOPs (forward + backward) at the
rate of one large sgemm on one core, measured here, and each epoch as a multiple of it.
"""
import json
import os
import subprocess

from fit_floor import (CNN_N, FILTERS, LOSS_RTOL, MLP_N, MLP_SIZES, NumpyEpoch, build_model,
                       cnn_epoch_flops, fit_epoch, make_problem, sgemm_rate, verify_fit)
from harness import VerificationError, check, interleaved, na, row

NAME = "KCNN"
TITLES = {"KCNN": f"KCNN fit epoch vs Keras 3 on TensorFlow: CNN conv{FILTERS[0]}-pool-conv{FILTERS[1]}-pool-"
                  f"dense10 on {CNN_N} images 28x28, batch 64, Adam, accuracy",
          "KMLP": f"KMLP fit epoch vs Keras 3 on TensorFlow: MLP {'-'.join(map(str, MLP_SIZES))}, "
                  f"{MLP_N} rows, batch 64, Adam, accuracy"}
TITLE = TITLES["KCNN"]
TARGETS = {"CNN": 1.0, "MLP": 0.5}   # tapekit's ratio at most this many times Keras's (issue 33)
UNIT = "ms"


def tf_fit(tf_python, shape, reps, budget):
    """Keras's fit / NumPy epoch, timed by fit_tf.py in TensorFlow's interpreter: (result, None)
    or (None, why)."""
    if not tf_python:
        return None, ("no TensorFlow interpreter given: run.py --tf-python PATH "
                      "(or TAPEKIT_BENCH_TF_PYTHON=PATH) adds Keras's fit, timed in that Python")
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        proc = subprocess.run([tf_python, os.path.join(here, "fit_tf.py"), shape, "--reps", str(reps),
                               "--budget", str(budget)], capture_output=True, text=True, timeout=1800,
                              check=False)
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"{tf_python} fit_tf.py could not run: {type(e).__name__}: {e}"
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return None, f"{tf_python} fit_tf.py failed (exit {proc.returncode}): {proc.stderr.strip()[-600:]}"
    return json.loads(lines[-1]), None


def run_shape(ctx, shape):
    tk = ctx.tk
    weights, x, y = make_problem(shape)
    checked = verify_fit("tapekit", shape, build_model(tk, shape, weights), weights, x, y)
    model = build_model(tk, shape, weights)
    floor = NumpyEpoch(shape, weights, x, y)
    notes = [f"Verified before timing: one epoch of tapekit's fit from the NumPy epoch's weights gives "
             f"loss {checked['loss']:.7g} (NumPy {checked['floor_loss']:.7g}, relative "
             f"{checked['loss_rel']:.1e}), accuracy {checked['accuracy']:.4f} "
             f"(NumPy {checked['floor_accuracy']:.4f}); weights {checked['weights_rel']:.1e} of "
             f"their update apart at most."]
    rate = sgemm_rate() if shape == "CNN" else None    # before the timing: a quiet moment for BLAS
    labels = {"floor": "NumPy epoch by hand", "tk": "tapekit fit (tk.function step)",
              "tf": "Keras 3 fit (TensorFlow, tf.function step)"}
    stats = interleaved({labels["floor"]: floor, labels["tk"]: lambda: fit_epoch(model, x, y)},
                        reps=ctx.reps(9), time_budget=ctx.budget(90))
    tf_res, why_tf = tf_fit(getattr(ctx, "tf_python", None), shape, ctx.reps(9), ctx.budget(90))
    floor_ms = stats[labels["floor"]]["median"] * 1e3
    rows = [row(labels[k], stats[labels[k]]["median"] * 1e3, UNIT, stats=_scaled(stats[labels[k]], 1e3))
            for k in ("floor", "tk")]
    checks = []
    if tf_res is None:
        rows.append(na(labels["tf"], UNIT, why_tf))
        notes.append(f"Keras N/A: {why_tf}")
    else:
        scale = floor_ms / (tf_res["stats"]["NumPy epoch"]["median"] * 1e3)
        scaled = {k: (v * 1e3 * scale if k in ("median", "p25", "p75", "min") else v)
                  for k, v in tf_res["stats"]["Keras fit"].items()}
        rows.append(row(labels["tf"], scaled["median"], UNIT, stats=scaled,
                        note=f"timed in another interpreter (TensorFlow {tf_res['tensorflow']}, Keras "
                             f"{tf_res['keras']}) against its own NumPy epoch: ratio {tf_res['ratio']:.3f}; "
                             f"shown scaled to this process's NumPy epoch"))
        rel = abs(tf_res["checked"]["loss"] - checked["loss"]) / checked["loss"]
        if rel > LOSS_RTOL:
            raise VerificationError(f"{shape}: Keras's epoch loss {tf_res['checked']['loss']:.7g} != "
                                    f"tapekit's {checked['loss']:.7g} (relative {rel:.2g} > {LOSS_RTOL})")
        notes.append(f"Keras's fit, verified the same way in its interpreter: loss {tf_res['checked']['loss']:.7g} "
                     f"(relative to tapekit's: {rel:.1e}), accuracy {tf_res['checked']['accuracy']:.4f}; "
                     f"jit_compile {tf_res['jit_compile']}, oneDNN {tf_res['onednn']}, malloc tuning "
                     f"{tf_res['malloc_tuning']}. Its NumPy epoch took "
                     f"{tf_res['stats']['NumPy epoch']['median'] * 1e3:.1f} ms there (here {floor_ms:.1f} ms).")
        target = round(TARGETS[shape] * tf_res["ratio"], 3)
        what = "fit / NumPy, at most Keras's" if TARGETS[shape] == 1 else \
            f"fit / NumPy, at most {TARGETS[shape]}x Keras's"
        checks.append(check(what, labels["tk"], labels["floor"], target, rows))
    if rate is not None:
        flops = cnn_epoch_flops()
        limit_ms = flops["total"] / rate * 1e3
        rows.append(row("FLOPs at one core's sgemm rate (the limit)", limit_ms, UNIT,
                        note=f"{flops['total'] / 1e9:.2f} GFLOP (forward {flops['forward'] / 1e9:.2f}) "
                             f"at {rate / 1e9:.1f} GFLOP/s (2048^3 sgemm)"))
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
