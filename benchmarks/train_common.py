"""What the two training-step workloads (MLP, CNN) share: SGD steps in tapekit and torch,
verification of one step against the hand-written NumPy step, and the timing table.

A workload supplies:
- `init`: {name: float32 array}, the parameters (in tapekit's / TensorFlow's layout);
- a hand-written NumPy `grads(params, x, y) -> (loss, {name: grad})`;
- `tk_loss(tk, params, x, y)`: the forward pass and mean loss in tapekit (inside a tape);
- `torch_loss(torch, params, x, y)` plus layout converters, when torch's layout differs.
"""
import warnings

import numpy as np

from harness import (VerificationError, assert_close, check, interleaved, na, optional_attr, row,
                     to_numpy)

LR = 0.01


def numpy_sgd(params, grads, lr=LR):
    """The update of the hand-written step: in place, as a NumPy programmer writes it."""
    for k, g in grads.items():
        p = params[k]
        p -= lr * g


# --- tapekit steps ---------------------------------------------------------------------------

GUARD_LABEL = "tapekit tk.function, one guard"


def tapekit_variants(tk, tk_loss, init, lr=LR, guard=False):
    """[(label, make_step or None, why)]: eager with assign_sub, eager with optimizers.SGD,
    and tk.function, each when tapekit has it; with `guard`, also the tk.function step with a
    Python `if` on the loss (one guard, checked at every replay). make_step() -> (step(x, y),
    variables)."""
    names = list(init)
    SGD = optional_attr(tk, "optimizers.SGD")
    function = optional_attr(tk, "function")
    fn_note = ""
    if function is None:  # written but not exported from tapekit/__init__.py yet?
        function = optional_attr(tk, "function.function")
        fn_note = " (tapekit.function.function: not exported as tk.function yet)" if function else ""

    def fresh():
        return [tk.Variable(init[k].copy(), name=k) for k in names]

    def eager_assign():
        vs = fresh()
        params = dict(zip(names, vs))

        def step(x, y):
            with tk.GradientTape() as tape:
                loss = tk_loss(tk, params, x, y)
            grads = tape.gradient(loss, vs)
            for v, g in zip(vs, grads):
                v.assign_sub(lr * g)
            return loss
        return step, vs

    def eager_sgd():
        vs = fresh()
        params = dict(zip(names, vs))
        opt = SGD(learning_rate=lr)

        def step(x, y):
            with tk.GradientTape() as tape:
                loss = tk_loss(tk, params, x, y)
            grads = tape.gradient(loss, vs)
            opt.apply_gradients(zip(grads, vs))
            return loss
        return step, vs

    def traced(with_guard=False):
        vs = fresh()
        params = dict(zip(names, vs))
        opt = SGD(learning_rate=lr) if SGD is not None else None

        @function
        def step(x, y):
            with tk.GradientTape() as tape:
                loss = tk_loss(tk, params, x, y)
            grads = tape.gradient(loss, vs)
            # A cross-entropy is never negative: the branch below is never taken, but tk.function
            # cannot know that and checks the decision at every replay (a guard).
            if with_guard and loss < 0:
                raise ValueError("a negative cross-entropy")
            if opt is not None:
                opt.apply_gradients(zip(grads, vs))
            else:
                for v, g in zip(vs, grads):
                    v.assign_sub(lr * g)
            return loss
        return step, vs

    fn_label = "tapekit tk.function" + (" + optimizers.SGD" if SGD is not None else " + assign_sub") + fn_note
    guarded = [(GUARD_LABEL, (lambda: traced(True)) if function is not None else None,
                "tk.function not importable")] if guard else []
    return [
        ("tapekit eager (assign_sub)", eager_assign, None),
        ("tapekit eager + optimizers.SGD", eager_sgd if SGD is not None else None,
         "tk.optimizers.SGD not importable yet (being written)"),
        (fn_label, traced if function is not None else None, "tk.function not importable yet (being written)"),
    ] + guarded


# --- torch step ---------------------------------------------------------------------------------

def torch_step_factory(torch, torch_loss, init_torch, lr=LR):
    """A PyTorch eager step: forward, backward, in-place SGD under no_grad, grads reset to None."""
    names = list(init_torch)
    ps = [torch.from_numpy(init_torch[k].copy()).requires_grad_(True) for k in names]
    params = dict(zip(names, ps))

    def step(x, y):
        loss = torch_loss(torch, params, x, y)
        loss.backward()
        with torch.no_grad():
            for p in ps:
                p.add_(p.grad, alpha=-lr)
                p.grad = None
        return loss
    return step, params


# --- the workload body ---------------------------------------------------------------------------

def run_training_workload(ctx, *, init, x, y, numpy_grads, tk_loss, torch_loss=None,
                          to_torch=None, from_torch=None, torch_xy=None, extra_numpy=None,
                          tapekit_missing=None, reps=50, budget=20.0, rtol=1e-4, atol=1e-6,
                          targets=(1.0, 1.1), guard=False):
    """Verify every contender's gradients/one SGD step against the hand-written NumPy step,
    then time the steps interleaved. Returns the workload result dict.

    to_torch/from_torch convert a {name: array} between tapekit's and torch's layouts.
    extra_numpy: {label: callable} timed alongside (e.g. the matmuls alone).
    tapekit_missing: a reason when a tapekit op the model needs does not exist yet.
    """
    tk, torch = ctx.tk, ctx.torch
    UNIT = "ms"
    to_torch = to_torch or (lambda d: d)
    from_torch = from_torch or (lambda d: d)
    rows, notes, failures = [], [], []

    # The floor: the hand-written step, and two steps of it from `init` as the reference: the
    # first on (x, y), the second on another batch (x2, y2) of the same shapes, so that a
    # traced step (tk.function) is checked when it replays, not only when it traces.
    ref_loss, ref_grads = numpy_grads({k: v.copy() for k, v in init.items()}, x, y)
    ref_after = {k: v.copy() for k, v in init.items()}
    numpy_sgd(ref_after, ref_grads)
    x2, y2 = np.ascontiguousarray(np.roll(x, 1, axis=0)), np.ascontiguousarray(np.roll(y, 3))
    ref_after2 = {k: v.copy() for k, v in ref_after.items()}
    numpy_sgd(ref_after2, numpy_grads({k: v.copy() for k, v in ref_after.items()}, x2, y2)[1])

    np_params = {k: v.copy() for k, v in init.items()}

    def numpy_step():
        loss, grads = numpy_grads(np_params, x, y)
        numpy_sgd(np_params, grads)
        return loss

    contenders = {"NumPy by hand": numpy_step}
    contenders.update(extra_numpy or {})

    # PyTorch: its gradients must equal the hand-written ones (this checks the NumPy code too).
    if torch is not None:
        px, py = torch_xy(torch, x, y)
        torch_step, tparams = torch_step_factory(torch, torch_loss, to_torch(init))
        loss = torch_loss(torch, tparams, px, py)
        loss.backward()
        tgrads = from_torch({k: to_numpy(p.grad) for k, p in tparams.items()})
        assert_close("PyTorch loss vs NumPy by hand", to_numpy(loss), ref_loss, rtol=rtol, atol=atol)
        for k in init:
            assert_close(f"PyTorch d{k} vs NumPy by hand", tgrads[k], ref_grads[k], rtol=rtol, atol=atol)
        for p in tparams.values():
            p.grad = None
        contenders["PyTorch eager"] = lambda: torch_step(px, py)

    # tapekit: the tape's gradients, then one step of every variant, against the reference.
    tx, ty = tk.constant(x), tk.constant(y)
    tk_rows, tk_notes = {}, {}
    if tapekit_missing is None:
        try:
            vs = {k: tk.Variable(v.copy()) for k, v in init.items()}
            with tk.GradientTape() as tape:
                loss = tk_loss(tk, vs, tx, ty)
            grads = tape.gradient(loss, list(vs.values()))
            assert_close("tapekit loss vs NumPy by hand", to_numpy(loss), ref_loss, rtol=rtol, atol=atol)
            for (k, _), g in zip(vs.items(), grads):
                if g is None:
                    raise VerificationError(f"tapekit gradient of {k} is None")
                assert_close(f"tapekit d{k} vs NumPy by hand", to_numpy(g), ref_grads[k], rtol=rtol, atol=atol)
        except VerificationError as e:
            failures.append(str(e))
            tapekit_missing = f"VERIFY FAILED, not timed: {e}"
    for label, make, why in tapekit_variants(tk, tk_loss, init, guard=guard):
        if tapekit_missing is not None:
            tk_rows[label] = na(label, UNIT, tapekit_missing)
            continue
        if make is None:
            tk_rows[label] = na(label, UNIT, why)
            continue
        try:
            step, vs = make()
            before, refs = init, ref_after
            for n, (bx, by) in enumerate([(tx, ty), (tk.constant(x2), tk.constant(y2))], start=1):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    step(bx, by)
                if caught:   # e.g. tk.function falling back to eager: say so in the table
                    tk_notes[label] = "warned: " + "; ".join(sorted({str(w.message) for w in caught}))
                now = {k: to_numpy(v).astype(np.float64) for k, v in zip(init, vs)}
                for k in init:  # compare the updates, not the (much larger) weights
                    want = refs[k].astype(np.float64) - before[k]
                    assert_close(f"{label}: the SGD update of {k} at step {n} vs NumPy by hand",
                                 now[k] - before[k], want, rtol=1e-3, atol=1e-3 * float(np.abs(want).max()))
                before, refs = now, ref_after2
            for v, k in zip(vs, init):   # start the timed runs from the same weights as the others
                v.assign(init[k])
        except VerificationError as e:
            failures.append(str(e))
            tk_rows[label] = na(label, UNIT, f"VERIFY FAILED, not timed: {e}")
            continue
        except Exception as e:  # a feature still being written may crash: report, keep going
            failures.append(f"{label}: {type(e).__name__}: {e}")
            tk_rows[label] = na(label, UNIT, f"ERROR, not timed: {type(e).__name__}: {e}")
            continue
        contenders[label] = (lambda s: lambda: s(tx, ty))(step)  # bind this variant's step now

    with warnings.catch_warnings():   # already recorded above, once, in the row notes
        warnings.simplefilter("ignore")
        stats = interleaved(contenders, reps=ctx.reps(reps), time_budget=ctx.budget(budget))

    def timed(label, note=None):
        s = stats[label]
        return row(label, s["median"] * 1e3, UNIT, note=note,
                   stats={k: (v * 1e3 if k in ("median", "p25", "p75", "min") else v) for k, v in s.items()})

    rows.append(timed("NumPy by hand"))
    for label in (extra_numpy or {}):
        rows.append(timed(label))
    tk_labels = [label for label, _, _ in tapekit_variants(tk, tk_loss, init, guard=guard)]
    for label in tk_labels:
        rows.append(timed(label, tk_notes.get(label)) if label in stats else tk_rows[label])
    rows.append(timed("PyTorch eager") if "PyTorch eager" in stats else na("PyTorch eager", UNIT, ctx.torch_missing))

    # Issue 15's targets: eager steps ahead of PyTorch eager in the same run; tk.function
    # within fn_target of the hand-written NumPy floor.
    eager_target, fn_target = targets
    checks = [check("tapekit eager / PyTorch eager", tk_labels[0], "PyTorch eager", eager_target, rows)]
    if tk_rows.get(tk_labels[1]) is None:
        checks.append(check("tapekit eager+SGD / PyTorch eager", tk_labels[1], "PyTorch eager",
                            eager_target, rows))
    if fn_target is not None:
        checks.append(check("tapekit tk.function / NumPy", tk_labels[2], "NumPy by hand", fn_target, rows))
    if guard:   # issue 24: a guard costs at most 5% of the step
        checks.append(check("tk.function with a guard / without", GUARD_LABEL, tk_labels[2], 1.05, rows))
    cpu = {label: st["cpu_median"] for label, st in stats.items()}
    in_cpu = [f"{c['what']} {cpu[c['numerator']] / cpu[c['denominator']]:.3f}" for c in checks
              if c["numerator"] in cpu and c["denominator"] in cpu]
    if in_cpu:   # the same blocks in process CPU time (harness.CPU): steadier on a busy machine
        notes.append("In CPU time (medians of the same blocks): " + "; ".join(in_cpu) + ".")
    verified = ["PyTorch"] if torch is not None else []
    verified += [lb for lb in tk_labels if lb in stats]
    notes.append("Verified before timing: loss and every parameter gradient of PyTorch and the tape, and "
                 "the weight updates of two SGD steps (two batches) of each tapekit variant (rtol 1e-3), equal the "
                 f"hand-written NumPy step's (rtol {rtol:g}, atol {atol:g}); checked: {', '.join(verified) or 'NumPy only'}.")
    return {"rows": rows, "checks": checks, "notes": notes, "baseline": "NumPy by hand",
            "failures": failures}
