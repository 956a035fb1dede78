"""KCNN / KMLP: Keras 3's `fit` on TensorFlow, timed in TensorFlow's own interpreter.

TensorFlow is never a tapekit dependency, so this file runs in another Python (a venv with
tensorflow-cpu and keras): `fit_keras.py` starts it as a subprocess when run.py is given
`--tf-python PATH` (or TAPEKIT_BENCH_TF_PYTHON). It builds the model of fit_floor.py in Keras
from the same weights, checks one epoch of fit against one hand-written NumPy epoch (loss,
accuracy, weights), then times the NumPy epoch and Keras's fit epoch interleaved, one thread
each, as harness.interleaved times the contenders in the main process, and prints one JSON
object: the medians, the ratio fit / NumPy epoch, and the verified loss. Only that ratio (and
the loss, to compare with tapekit's) crosses processes.

glibc's malloc thresholds are set as `import tapekit` sets them in the main process (the
same file, tapekit/_malloc.py, loaded on its own), so the two NumPy floors run on the same
allocator settings.

    /work/tfvenv/bin/python benchmarks/fit_tf.py CNN --reps 7 --budget 60
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

from fit_floor import SHAPES, NumpyEpoch, build_model, fit_epoch, make_problem, verify_fit  # noqa: E402
from harness import interleaved  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tune_malloc():
    """tapekit/_malloc.py's tune(), without importing tapekit (not installed in this venv)."""
    spec = importlib.util.spec_from_file_location("tapekit_malloc", os.path.join(ROOT, "tapekit", "_malloc.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.tune()
    return mod.status


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("shape", choices=SHAPES)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--budget", type=float, default=60.0)
    args = ap.parse_args(argv)
    malloc = tune_malloc()
    import keras
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    weights, x, y = make_problem(args.shape)
    checked = verify_fit("Keras", args.shape, build_model(keras, args.shape, weights), weights, x, y)
    model = build_model(keras, args.shape, weights)
    floor = NumpyEpoch(args.shape, weights, x, y)
    stats = interleaved({"NumPy epoch": floor, "Keras fit": lambda: fit_epoch(model, x, y)},
                        reps=args.reps, time_budget=args.budget)
    out = {"tensorflow": tf.__version__, "keras": keras.__version__, "numpy": np.__version__,
           "python": sys.version.split()[0], "malloc_tuning": malloc, "jit_compile": bool(model.jit_compile),
           "onednn": os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default (on)"), "checked": checked,
           "stats": stats, "ratio": stats["Keras fit"]["median"] / stats["NumPy epoch"]["median"]}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
