"""FIT: one epoch of `model.fit` against the same epoch as a hand-written tape loop.

Model: Sequential Dense 784-256 relu, 256-128 relu, 128-10 (logits), SGD lr 0.01, sparse
softmax cross-entropy from logits; 1024 samples, batch 128 (8 steps), shuffle=False,
verbose=0, no metrics besides fit's own loss tracker.

- hand-written loop (eager): per batch, slice the arrays, `tk.GradientTape`, loss,
  `tape.gradient`, `optimizer.apply` (the Keras guide's loop);
- fit(run_eagerly=True): the same steps inside fit's loop (callbacks, loss tracker, logs);
- hand-written loop with the step under `tk.function`, and fit's default (train_step
  compiled with tk.function): the same comparison for compiled steps.

Verified before timing: one epoch of each fit equals one epoch of the matching loop
from the same weights (allclose 1e-6).
"""
import numpy as np

from harness import assert_close, check, interleaved, row

NAME = "FIT"
TITLE = "FIT one epoch of model.fit vs a hand-written tape loop: MLP 784-256-128-10, 8 batches of 128"
SIZES, N, BATCH = (784, 256, 128, 10), 1024, 128
UNIT = "ms"


def make_data(seed=23):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], N).astype(np.int64)
    return x, y


def make_model(tk, weights=None):
    tk.random.set_seed(0)
    model = tk.Sequential([tk.layers.Dense(SIZES[1], activation="relu", input_shape=(SIZES[0],)),
                           tk.layers.Dense(SIZES[2], activation="relu"),
                           tk.layers.Dense(SIZES[3])])
    if weights is not None:
        for v, w in zip(model.trainable_variables, weights):
            v.assign(w)
    return model


def hand_epoch(tk, step, x, y):
    """The loop a learner writes; `step` is the per-batch function (eager or tk.function)."""
    for start in range(0, len(x), BATCH):
        step(tk.constant(x[start:start + BATCH]), tk.constant(y[start:start + BATCH]))


def make_step(tk, model, optimizer, loss_fn):
    def train_step(xb, yb):
        with tk.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply(grads, model.trainable_variables)
        return loss
    return train_step


def contenders(tk, x, y, weights):
    loss_fn = tk.losses.SparseCategoricalCrossentropy(from_logits=True)
    out = {}
    for compiled in (False, True):
        hand_model, fit_model = make_model(tk, weights), make_model(tk, weights)
        step = make_step(tk, hand_model, tk.optimizers.SGD(0.01), loss_fn)
        step = tk.function(step) if compiled else step
        fit_model.compile(optimizer=tk.optimizers.SGD(0.01), loss=loss_fn, run_eagerly=not compiled)
        kind = "tk.function" if compiled else "eager"
        out[f"hand-written loop ({kind})"] = (
            hand_model, lambda step=step: hand_epoch(tk, step, x, y))
        out[f"fit ({kind})"] = (fit_model, lambda m=fit_model: m.fit(
            x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0))
    return out


def run(ctx):
    tk = ctx.tk
    x, y = make_data()
    weights = [v.numpy().copy() for v in make_model(tk).trainable_variables]
    runs = contenders(tk, x, y, weights)
    for label, (model, epoch) in runs.items():      # verify: one epoch each, same weights
        epoch()
    for kind in ("eager", "tk.function"):
        hand, fit = runs[f"hand-written loop ({kind})"][0], runs[f"fit ({kind})"][0]
        for k, (a, b) in enumerate(zip(fit.trainable_variables, hand.trainable_variables)):
            assert_close(f"FIT {kind}: weight {k} after one epoch, fit vs loop", a.numpy(), b.numpy(),
                         rtol=1e-6, atol=1e-6)
    stats = interleaved({label: epoch for label, (_, epoch) in runs.items()},
                        reps=ctx.reps(40), time_budget=ctx.budget(40))
    rows = [row(label, s["median"] * 1e3, UNIT, stats=_scaled(s, 1e3)) for label, s in stats.items()]
    checks = [check("fit / hand-written loop, eager", "fit (eager)", "hand-written loop (eager)",
                    1.1, rows),
              check("fit / hand-written loop, tk.function", "fit (tk.function)",
                    "hand-written loop (tk.function)", 1.1, rows)]
    notes = ["Verified before timing: one epoch of fit equals one epoch of the loop from the same "
             "weights (allclose 1e-6), eager and compiled.",
             "fit also keeps its loss tracker (a Mean in Variables), runs callbacks (History) and "
             "converts the epoch's logs to floats; the loop does none of that."]
    return {"rows": rows, "checks": checks, "notes": notes, "baseline": "hand-written loop (eager)"}


def _scaled(s, k):
    return {key: (v * k if key in ("median", "p25", "p75", "min") else v) for key, v in s.items()}
