"""Differential test: random programs (generate.py) run in TensorFlow and tapekit, compared.

    python tools/tf_diff/diff.py [--seed S] [-n N] [--tf-python PY] [--tapekit-python PY]
                                 [--only ID,...] [--show ID] [--out mismatches.json]

Run from the tapekit tree to test (tapekit's side runs through a wrapper script (--wtpy), or with
PYTHONPATH set to the tree when --wtpy is ''). Both sides run in subprocesses, each over the
whole batch. Compares every step's value, dtype and shape, every gradient (or None), or that
both raise. Prints one line per mismatching program and a summary; exit status 1 on mismatches.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402
import interp  # noqa: E402

RTOL = {"float32": 2e-5, "float64": 1e-9}   # float32: the brief's tolerance (TF's kernels round differently)


def side(cmd, path, env):
    """Run one side over the programs in `path`. A process killed by a signal (TensorFlow 2.21
    dies of SIGFPE on some 0-size gradients) is run again without the program that kills it,
    found by halving; that program's result is the string "crashed: signal N"."""
    done = subprocess.run(cmd + [path], env=env, capture_output=True, text=True)
    if done.returncode >= 0:
        if done.returncode:
            sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr[-3000:]}")
        return json.loads(done.stdout)
    with open(path) as fh:
        progs = json.load(fh)
    if len(progs) == 1:
        crashed = f"crashed: signal {-done.returncode}"
        return [{mode: crashed for mode in ("eager", "function")}]
    half = len(progs) // 2
    results = []
    for part in (progs[:half], progs[half:]):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            json.dump(part, fh)
        try:
            results += side(cmd, fh.name, env)
        finally:
            os.unlink(fh.name)
    return results


def same_value(a, b, dtype, f32):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape:
        return False
    rtol = RTOL["float32"] if f32 and dtype == "float64" else RTOL.get(dtype, 0)
    both_nan = np.isnan(a) & np.isnan(b)
    close = np.isclose(a, b, rtol=rtol, atol=rtol * 0.05 if rtol else 0) | (a == b)
    return bool(np.all(both_nan | close))


def compare(t, k, where="out", f32=False):
    """Differences between TensorFlow's summary t and tapekit's k: [(where, tf, tk)]."""
    if isinstance(t, str) or isinstance(k, str):
        if isinstance(t, str) and isinstance(k, str):
            return []   # both raise
        return [(where, short(t), short(k))]
    if t is None or k is None:
        if k is None and isinstance(t, dict) and t.get("dt", "").startswith(("int", "bool")):
            return []   # kept on purpose (API.md): an integer/bool source's gradient is None
        return [] if t is k else [(where, short(t), short(k))]
    if isinstance(t, list) or isinstance(k, list):
        if not (isinstance(t, list) and isinstance(k, list)) or len(t) != len(k):
            return [(where, short(t), short(k))]
        return [d for i, (a, b) in enumerate(zip(t, k)) for d in compare(a, b, f"{where}[{i}]", f32)]
    if isinstance(t, dict) and "steps" in t:
        return compare(t["steps"], k["steps"], where + ".steps", f32) + \
            compare(t["grads"], k["grads"], where + ".grads", f32)
    if t["dt"] != k["dt"] or t["sh"] != k["sh"]:
        return [(where, short(t), short(k))]
    if not same_value(t["v"], k["v"], t["dt"], f32):
        return [(where, short(t), short(k))]
    return []


def short(x):
    if isinstance(x, dict) and "dt" in x:
        v = np.round(np.asarray(x["v"]), 6).tolist()
        return f"{x['dt']}{tuple(x['sh'])} {v if len(v) <= 6 else str(v[:6])[:-1] + ', ...]'}"
    return str(x)[:110]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("-n", type=int, default=500)
    p.add_argument("--tf-python", default=os.environ.get("TF_PYTHON", "tf-venv/bin/python"))
    p.add_argument("--tapekit-python", default=os.environ.get("TAPEKIT_PYTHON", sys.executable))
    p.add_argument("--wtpy", default=os.environ.get("TAPEKIT_WTPY", ""))
    p.add_argument("--only", default="", help="program indices to run, comma separated")
    p.add_argument("--show", type=int, default=None, help="print this program and both results")
    p.add_argument("--out", default=None, help="write the mismatches (programs and results) here")
    args = p.parse_args()
    progs = generate.programs(args.seed, args.n)
    ids = [int(i) for i in args.only.split(",") if i] or list(range(len(progs)))
    if args.show is not None:
        ids = [args.show]
    batch = [progs[i] for i in ids]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    script = os.path.join(HERE, "interp.py")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(batch, fh)
    tk_cmd = [args.tapekit_python] + ([args.wtpy] if args.wtpy else []) + [script, "tk"]
    if not args.wtpy:
        env["PYTHONPATH"] = os.getcwd()
    try:
        theirs = side([args.tf_python, script, "tf"], fh.name, env)
        ours = side(tk_cmd, fh.name, env)
    finally:
        os.unlink(fh.name)
    bad = []
    for i, prog, t, k in zip(ids, batch, theirs, ours):
        # float32 anywhere: float64 results cast from it carry float32's rounding
        f32 = "float32" in json.dumps(prog) or "one_hot" in json.dumps(prog)
        diffs = [d for mode in t for d in compare(t[mode], k.get(mode, "missing"), mode, f32)]
        if args.show is not None:
            print(interp.code(prog))
            print("tensorflow:", json.dumps(t)[:3000])
            print("tapekit:   ", json.dumps(k)[:3000])
        if diffs:
            bad.append({"id": i, "program": prog, "diffs": diffs})
            print(f"#{i}: " + " | ".join(f"{w}: tf {a} / tk {b}" for w, a, b in diffs[:3]))
    raises = sum(1 for t in theirs if isinstance(t["eager"], str))
    print(f"programs {len(batch)} (seed {args.seed}), TensorFlow raised on {raises}, "
          f"in tk.function too: {sum(1 for p in batch if p.get('function'))}, mismatching programs {len(bad)}")
    return finish(bad, args.out)


def finish(bad, out):
    """Write the mismatches to `out` (when given); the exit status: 1 when any is left."""
    if out:
        with open(out, "w") as fh:
            json.dump(bad, fh, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
