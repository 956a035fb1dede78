"""Run keras_generate's programs with one library: `tf` (TensorFlow + Keras 3) or `tk` (tapekit).

Each program's lines run with T = the library, K = its Keras, np, `out` and `fill` in scope.
The result is {"outs": [summary of each out(value)], "error": None or "Type: message"}; a
summary is {"dt", "sh", "v"} (interp.summary), a list of them, or {"keys": [...], "vals": [...]}
for a dict (a Python number counts as a float32 scalar). As a script: `python keras_interp.py tf|tk programs.json` prints the results as JSON.
"""
import json
import sys
import warnings

import numpy as np

from interp import summary


def fill(obj, seed):
    """Give a built layer or model seeded weights, by shape (the same on both sides): uniform in
    [-1, 1], a moving variance in [0.5, 1.5]."""
    r = np.random.default_rng(seed)
    names = [getattr(w, "path", None) or w.name for w in obj.weights]
    values = []
    for name, w in zip(names, obj.get_weights()):
        if "variance" in name:
            values.append(r.uniform(0.5, 1.5, w.shape).astype(w.dtype))
        else:
            values.append(r.uniform(-1, 1, w.shape).astype(w.dtype))
    obj.set_weights(values)


def summarise(x):
    if isinstance(x, dict):
        keys = sorted(x)
        return {"keys": keys, "vals": [summarise(x[k]) for k in keys]}
    if isinstance(x, (list, tuple)):
        return [summarise(y) for y in x]
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return {"dt": "float32", "sh": [], "v": [float(x)]}   # history, evaluate: float32 numbers
    return summary(x)


def run_one(T, K, prog):
    outs = []
    clear = getattr(getattr(K, "backend", None), "clear_session", None)
    if clear is not None and prog["family"] == "fit":
        clear()   # Keras numbers metric names (precision_37) across a process; slow (gc)
    scope = {"T": T, "K": K, "np": np, "fill": fill,
             "out": lambda v: outs.append(summarise(v))}
    try:
        exec("\n".join(prog["code"]), scope)   # noqa: S102 - our own generated programs
        return {"outs": outs, "error": None}
    except Exception as e:  # noqa: BLE001 - a raise is a result to compare too
        msg = str(e).splitlines()[0][:150] if str(e) else ""
        return {"outs": outs, "error": f"{type(e).__name__}: {msg}"}


def main():
    which, path = sys.argv[1], sys.argv[2]
    if which == "tf":
        import keras as K
        import tensorflow as T
        T.get_logger().setLevel("ERROR")
    else:
        import tapekit as T
        K = T.keras
    with open(path) as fh:
        programs = json.load(fh)
    results = []
    for prog in programs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results.append(run_one(T, K, prog))
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
