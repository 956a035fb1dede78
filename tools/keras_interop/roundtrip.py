#!/usr/bin/env python3
"""Weights files both ways between tapekit and Keras 3 (issue 32), dev only.

For three models built by the same code on both sides (`import tapekit as keras` against
`import keras`): a Sequential, a functional model with two outputs, and a subclassed model
with a nested layer, batch normalization and a list of layers:
1. tapekit trains a step, writes `<name>.weights.h5` and its predictions;
2. Keras 3 builds the same architecture, loads tapekit's file, and predicts;
3. Keras 3 writes its own file from another initialisation; tapekit loads it and predicts.
Each side's predictions must agree to float32 rounding. TensorFlow runs in its own venv and is
never a dependency of tapekit.

    PYTHONPATH=. .venv/bin/python tools/keras_interop/roundtrip.py [--tf-python /work/tfvenv/bin/python]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

X = np.linspace(-1, 1, 24, dtype="float32").reshape(6, 4)


def build(keras, kind):
    """The same architecture from either library."""
    layers = keras.layers
    if kind == "sequential":
        return keras.Sequential([keras.Input(shape=(4,)), layers.Dense(8, activation="relu"),
                                 layers.Dense(3), layers.Dense(2, name="out")])
    if kind == "functional":
        inputs = keras.Input(shape=(4,), name="x")
        hidden = layers.Dense(5, activation="tanh", name="h")(inputs)
        return keras.Model(inputs, [layers.Dense(1, name="o1")(hidden), layers.Dense(2)(hidden)])

    class Block(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.d1 = layers.Dense(3)
            self.bn = layers.BatchNormalization()
            self.scale = self.add_weight(shape=(), initializer="ones", name="scale")

        def call(self, x, training=None):
            return self.bn(self.d1(x), training=training) * self.scale

    class Subclassed(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.block = Block()
            self.head = layers.Dense(1)
            self.extra = [layers.Dense(2), layers.Dense(2)]

        def call(self, x, training=None):
            return self.head(self.extra[1](self.extra[0](self.block(x, training=training))))

    model = Subclassed()
    model(X)
    return model


def predict(model):
    out = model(X, training=False)
    outs = out if isinstance(out, (list, tuple)) else [out]
    return [np.asarray(o).tolist() for o in outs]


def side(lib, step, folder):
    """One side of the round trip: write (step 'write') or read (step 'read') every model."""
    if lib == "keras":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import keras
        keras.utils.set_random_seed(7)
    else:
        import tapekit as keras
        keras.random.set_seed(0)
    results = {}
    for kind in ("sequential", "functional", "subclassed"):
        model = build(keras, kind)
        if step == "write":
            if kind == "subclassed":
                model(X, training=True)               # moves batch norm's statistics
            model.save_weights(str(Path(folder) / f"{lib}_{kind}.weights.h5"))
        else:
            other = "tapekit" if lib == "keras" else "keras"
            model.load_weights(str(Path(folder) / f"{other}_{kind}.weights.h5"))
        results[kind] = predict(model)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tf-python", default="/work/tfvenv/bin/python")
    parser.add_argument("--side", help=argparse.SUPPRESS)     # lib:step:folder, in a subprocess
    args = parser.parse_args(argv)
    if args.side:
        lib, step, folder = args.side.split(":", 2)
        print(json.dumps(side(lib, step, folder)))
        return 0

    def run(python, lib, step, folder):
        env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
        out = subprocess.run([python, __file__, "--side", f"{lib}:{step}:{folder}"], env=env,
                             capture_output=True, text=True, check=True).stdout
        return json.loads(out.strip().splitlines()[-1])

    failures = 0
    with tempfile.TemporaryDirectory() as folder:
        written = {"tapekit": run(sys.executable, "tapekit", "write", folder),
                   "keras": run(args.tf_python, "keras", "write", folder)}
        read = {"keras": run(args.tf_python, "keras", "read", folder),       # tapekit's files
                "tapekit": run(sys.executable, "tapekit", "read", folder)}   # Keras's files
        print(f"{'model':12} {'direction':22} {'largest difference':>20}")
        for kind in ("sequential", "functional", "subclassed"):
            for src, dst in (("tapekit", "keras"), ("keras", "tapekit")):
                diff = max(float(np.max(np.abs(np.subtract(a, b))))
                           for a, b in zip(written[src][kind], read[dst][kind]))
                ok = diff <= 1e-5
                failures += not ok
                print(f"{kind:12} {src + ' -> ' + dst:22} {diff:20.3g} {'ok' if ok else 'DIFFERS'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
