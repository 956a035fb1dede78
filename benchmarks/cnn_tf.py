"""W5 (the CNN step of cnn_step.py) under TensorFlow's tf.function, timed in TensorFlow's own interpreter.

`run.py CNN --tf-python PATH` runs it right after its own timing, as W1 runs w1_tf.py. It times
cnn_step's hand-written NumPy step (the floor) and the same step under tf.function interleaved,
one thread each, as harness.interleaved times the contenders of `run.py CNN`, and prints one
JSON object with the medians and the ratio tf.function / NumPy; the CNN table's target compares
it with the "tapekit tk.function" row's ratio to NumPy (only ratios cross interpreters).

The tf.function step: tf.nn.conv2d (HWIO, VALID) + bias, relu, tf.nn.max_pool2d (2, 2, VALID),
dense, mean sparse softmax cross-entropy, the gradient of the four weights by a GradientTape,
SGD in place (`assign_sub`), the same function and update as the NumPy floor. Verified before
timing: the loss and every gradient against the NumPy step (rtol 1e-4). glibc's malloc
thresholds are set as `import tapekit` sets them (fit_tf.tune_malloc), as for the Keras comparison.

    $TF_PYTHON benchmarks/cnn_tf.py --reps 300 --budget 30
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

from cnn_step import make_inputs, numpy_grads  # noqa: E402
from fit_tf import tune_malloc  # noqa: E402
from harness import assert_close, interleaved  # noqa: E402
from train_common import LR, numpy_sgd  # noqa: E402


def tf_loss(tf, p, x, y):
    h = tf.nn.relu(tf.nn.conv2d(x, p["kernel"], strides=1, padding="VALID") + p["bias"])
    h = tf.nn.max_pool2d(h, ksize=2, strides=2, padding="VALID")
    logits = tf.matmul(tf.reshape(h, (h.shape[0], -1)), p["W"]) + p["b"]
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--budget", type=float, default=30.0)
    args = ap.parse_args(argv)
    malloc = tune_malloc()   # as `import tapekit` does in run.py's process: the same allocator settings
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    init, x, y = make_inputs()
    tx, ty = tf.constant(x), tf.constant(y)
    names = list(init)

    def make(params):
        @tf.function
        def grads(x, y):
            with tf.GradientTape() as tape:
                loss = tf_loss(tf, params, x, y)
            return loss, tape.gradient(loss, [params[k] for k in names])

        @tf.function
        def step(x, y):
            loss, g = grads.python_function(x, y)
            for k, gk in zip(names, g):
                params[k].assign_sub(LR * gk)
            return loss
        return grads, step

    check_params = {k: tf.Variable(v) for k, v in init.items()}
    grads, _ = make(check_params)
    loss, g = grads(tx, ty)
    ref_loss, ref = numpy_grads({k: v.copy() for k, v in init.items()}, x, y)
    assert_close("W5 tf.function loss vs NumPy", float(loss), ref_loss, rtol=1e-4, atol=1e-6)
    for k, gk in zip(names, g):
        assert_close(f"W5 tf.function d{k} vs NumPy", gk.numpy(), ref[k], rtol=1e-4, atol=1e-6)
    tf_params = {k: tf.Variable(v) for k, v in init.items()}
    _, tf_step = make(tf_params)
    np_params = {k: v.copy() for k, v in init.items()}
    contenders = {"NumPy by hand": lambda: numpy_sgd(np_params, numpy_grads(np_params, x, y)[1]),
                  "tf.function": lambda: tf_step(tx, ty)}
    stats = interleaved(contenders, reps=args.reps, time_budget=args.budget)
    out = {"tensorflow": tf.__version__, "numpy": np.__version__, "python": sys.version.split()[0],
           "malloc_tuning": malloc, "stats": stats, "ratio": stats["tf.function"]["median"] / stats["NumPy by hand"]["median"]}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
