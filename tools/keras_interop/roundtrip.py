#!/usr/bin/env python3
"""Weights files and whole .keras models both ways between tapekit and Keras 3 (issue 32), dev only.

For models built by the same code on both sides (`import tapekit as keras` against
`import keras`): a Sequential, a functional model with two outputs, and a subclassed model
with a nested layer, batch normalization and a list of layers (registered, with get_config),
and for weights files one holding its layers in private attributes, dicts and nested lists;
also a model of two nested models (a functional encoder, a Sequential decoder), an image
model with every layer class tapekit writes a config for, and a model with kernel, bias and
activity regularizers (compiled with a loss and a metric given as functions), a model of
LSTM, GRU and SimpleRNN layers with regularizers and seeded initializers, a masked sequence
model (Embedding(mask_zero=True), LSTM, GlobalAveragePooling1D) and a model whose layers,
weights and model are named in other languages and with spaces (`密集层`, `wµ`, `a b`):

weights (`.weights.h5`):
1. tapekit trains a step, writes `<name>.weights.h5` and its predictions;
2. Keras 3 builds the same architecture, loads tapekit's file, and predicts;
3. Keras 3 writes its own file from another initialisation; tapekit loads it and predicts.

whole models (`.keras`):
4. each side compiles (Adam, or SGD with momentum for the subclassed model; mse), trains two steps (the Sequential and the subclassed model;
   the two-output model is compiled only), `model.save`s, predicts, then trains one more
   step and predicts again;
5. the other side `load_model`s the file (config, weights, optimizer state, compile
   settings), predicts, trains the same step and predicts again.
Each side's predictions must agree to float32 rounding, before and after the extra step (the
second shows the optimizer's state came across), and so must each layer's regularizer configs
and the penalties in `model.losses` after a call.

optimizer state (issue 43), for every optimizer setting tapekit has (SGD plain, with momentum,
Nesterov, clipnorm and weight decay; Adam plain, amsgrad, with a schedule; RMSprop plain, with
momentum, centered, both), on a model whose variables share one shape and on one of mixed shapes:
6. each side trains three steps, saves `.keras` and `.weights.h5`, and takes one more step;
7. the other side loads the `.keras` file (and, into a built optimizer, the `.weights.h5`) and
   takes the same step: its weights must equal the first side's own continuation.
TensorFlow runs in its own venv and is never a dependency of tapekit.

    PYTHONPATH=. .venv/bin/python tools/keras_interop/roundtrip.py [--tf-python $TF_PYTHON]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

X = np.linspace(-1, 1, 24, dtype="float32").reshape(6, 4)


def build(keras, kind):
    """The same architecture from either library."""
    layers = keras.layers
    if kind == "sequential":
        return keras.Sequential([keras.Input(shape=(4,)), layers.Dense(8, activation="relu"),
                                 layers.Dense(3), layers.Dense(2, name="out")])
    if kind == "every_layer":
        return every_layer(keras)
    if kind == "recurrent":       # the three recurrent layers, with nested configs of each kind
        reg, init = keras.regularizers, keras.initializers
        return keras.Sequential([
            keras.Input(shape=(3, 2)),
            layers.LSTM(4, return_sequences=True, kernel_regularizer=reg.L2(0.0625),
                        recurrent_initializer="orthogonal"),
            layers.GRU(3, return_sequences=True, recurrent_regularizer=reg.L1(0.125),
                       activity_regularizer=reg.L2(0.25), recurrent_activation="tanh"),
            layers.SimpleRNN(2, bias_regularizer=reg.L1L2(l1=0.0625, l2=0.125),
                             kernel_initializer=init.HeNormal(seed=2))])
    if kind == "regularized":     # weight and activity penalties, in the loss both sides train
        reg = keras.regularizers
        return keras.Sequential([
            keras.Input(shape=(4,)),
            layers.Dense(8, activation="relu", kernel_regularizer=reg.L2(0.0625),
                         bias_regularizer=reg.L1(0.125), activity_regularizer=reg.L2(0.25)),
            layers.Dense(3, activity_regularizer=reg.L1L2(l1=0.0625, l2=0.125)),
            layers.Dense(2, kernel_regularizer="l2", name="out")])
    if kind == "nested":       # models as layers: a functional encoder, a Sequential decoder
        enc_in = keras.Input(shape=(4,), name="enc_in")
        encoder = keras.Model(enc_in, layers.Dense(2, activation="tanh")(enc_in), name="encoder")
        decoder = keras.Sequential([keras.Input(shape=(2,)), layers.Dense(4)], name="decoder")
        inputs = keras.Input(shape=(4,), name="x")
        return keras.Model(inputs, decoder(encoder(inputs)), name="autoencoder")
    if kind == "attributes":
        return holders(keras)
    if kind == "masked":          # padding id 0: the LSTM and the pooling skip those steps
        tokens = keras.Input(shape=(4,), dtype="int32")
        h = layers.Embedding(6, 3, mask_zero=True)(tokens)
        h = layers.LSTM(3, return_sequences=True)(h)
        return keras.Model(tokens, layers.Dense(2)(layers.GlobalAveragePooling1D()(h)))
    if kind == "functional":
        inputs = keras.Input(shape=(4,), name="x")
        hidden = layers.Dense(5, activation="tanh", name="h")(inputs)
        return keras.Model(inputs, [layers.Dense(1, name="o1")(hidden), layers.Dense(2)(hidden)])

    @keras.saving.register_keras_serializable(package="roundtrip")
    class Block(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.d1 = layers.Dense(3)
            self.bn = layers.BatchNormalization()
            self.scale = self.add_weight(shape=(), initializer="ones", name="scale")

        def call(self, x, training=None):
            return self.bn(self.d1(x), training=training) * self.scale

    @keras.saving.register_keras_serializable(package="roundtrip")
    class Subclassed(keras.Model):
        def __init__(self, width=2, **kwargs):
            super().__init__(**kwargs)
            self.width = width
            self.block = Block()
            self.head = layers.Dense(1)
            self.extra = [layers.Dense(width), layers.Dense(width)]

        def get_config(self):
            return {**super().get_config(), "width": self.width}

        def call(self, x, training=None):
            return self.head(self.extra[1](self.extra[0](self.block(x, training=training))))

    @keras.saving.register_keras_serializable(package="roundtrip")
    class NamedScale(layers.Layer):
        def build(self, input_shape):
            self.s = self.add_weight(shape=input_shape[-1:], initializer="ones", name="尺度 s")

        def call(self, x):
            return x * self.s

    if kind == "named":           # names are data (issue 43); Keras on TF cannot fit this one
        inputs = keras.Input(shape=(4,), name="in put")
        h = layers.Dense(3, activation="tanh", name="密集层")(inputs)
        h = layers.Dense(2, name="w\u00b5")(h)
        return keras.Model(inputs, NamedScale(name="a b")(h), name="模型 1")
    if kind == "subclassed-class":
        return Subclassed
    model = Subclassed(width=2)
    model(X)
    return model


Y = np.tanh(X[:, :1] - X[:, 1:2])
IMAGES = np.linspace(0, 1, 6 * 8 * 8, dtype="float32").reshape(6, 8, 8, 1)
LABELS = np.array([0, 1, 2, 0, 1, 2])
SEQUENCES = np.linspace(-1, 1, 36, dtype="float32").reshape(6, 3, 2)   # (batch, time, features)
TOKENS = np.array([[1, 2, 0, 0], [3, 1, 4, 0], [0, 2, 2, 1], [5, 5, 0, 0], [1, 0, 0, 0],
                   [2, 3, 4, 5]], dtype="int32")                  # 0: padding (masked)
TRAINED = ("sequential", "subclassed", "nested", "regularized", "recurrent", "masked")
KINDS = ("sequential", "functional", "subclassed", "nested", "every_layer", "regularized",
         "recurrent", "masked", "named")
WEIGHT_KINDS = KINDS + ("attributes",)        # weights files only
REGULARIZERS = ("kernel_regularizer", "bias_regularizer", "activity_regularizer")


def holders(keras):
    """A subclassed model holding layers every way Keras 3's weights walk treats differently:
    uppercase and private attributes, a list, a dict inserted b before a, a list in a list,
    attributes sorted after `layers`, and a weight of its own (issue 43)."""
    layers = keras.layers

    class Inner(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.d1 = layers.Dense(3)
            self._hidden = layers.Dense(3)
            self.scale = self.add_weight(shape=(), initializer="ones", name="scale")

        def call(self, x):
            return self._hidden(self.d1(x)) * self.scale

    class Holders(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.Zeta, self._private, self.block = layers.Dense(2), layers.Dense(2), Inner()
            self.alpha = layers.Dense(2)
            self.stack = [layers.Dense(2), layers.Dense(2, use_bias=False)]
            self.table = {"b": layers.Dense(2), "a": layers.Dense(2)}
            self.nested = [[layers.Dense(2)], layers.Dense(2)]
            self.w = self.add_weight(shape=(2,), initializer="ones", name="w")

        def call(self, x):
            h = self.block(x)
            h = self.Zeta(h) + self._private(h) + self.alpha(h)
            for layer in self.stack:
                h = layer(h)
            h = self.table["b"](h) + self.table["a"](h)
            return (self.nested[0][0](h) + self.nested[1](h)) * self.w

    model = Holders()
    model(X)
    return model


def every_layer(keras):
    """A functional image model with every layer class tapekit has a config for."""
    layers = keras.layers
    inputs = keras.Input(shape=(8, 8, 1), name="img")
    h = layers.Conv2D(4, 3, padding="same", activation="relu")(inputs)
    h = layers.BatchNormalization(momentum=0.5)(h)
    h = layers.MaxPooling2D()(h)
    h = layers.Conv2DTranspose(2, 3, strides=2, padding="same")(h)
    h = layers.LayerNormalization(axis=[1, 2], epsilon=1e-4)(h)   # gamma, beta: (8, 8)
    h = layers.AveragePooling2D(2)(h)
    pooled = layers.Add()([layers.GlobalAveragePooling2D()(h), layers.GlobalMaxPooling2D()(h)])
    h = layers.Dropout(0.3)(layers.Flatten()(h))
    h = layers.Concatenate()([h, pooled, layers.Subtract()([pooled, pooled])])
    h = layers.Activation("tanh")(layers.LayerNormalization()(layers.Dense(6)(h)))
    h = layers.Multiply()([layers.LeakyReLU()(h), layers.ReLU(max_value=2.0)(h)])
    h = layers.Average()([layers.Maximum()([h, h]), layers.Minimum()([h, h])])
    h = layers.Flatten()(layers.Reshape((2, 3))(h))
    scores = layers.Dot(axes=1)([h, h])
    return keras.Model(inputs, layers.Dense(3, activation="softmax")(
        layers.Concatenate()([h, scores])))


def compile_and_train(keras, model, kind):
    # The subclassed model's first Dense feeds batch normalization, which removes its bias's
    # effect: that gradient is 0 up to rounding, and Adam scales rounding noise up to a full
    # step (the libraries' steps then differ by ~1e-3, though each library's own save, load
    # and step agree exactly). SGD with momentum keeps noise as noise and still has a slot.
    if kind == "every_layer":       # a loss object and metrics in the compile config
        model.compile(optimizer=keras.optimizers.RMSprop(0.01),
                      loss=keras.losses.SparseCategoricalCrossentropy(),
                      metrics=["accuracy", keras.metrics.SparseCategoricalAccuracy(name="acc")])
        model.fit(IMAGES, LABELS, batch_size=6, epochs=2, shuffle=False, verbose=0)
        return
    # The masked model's Embedding: Keras 3 on TensorFlow gives it a sparse gradient and Adam
    # then counts a row used twice in a batch as two squared gradients (tapekit's dense Adam:
    # one, of the sum), so only an optimizer linear in the gradient steps alike there.
    optimizer = (keras.optimizers.SGD(0.1, momentum=0.9) if kind in ("subclassed", "masked")
                 else keras.optimizers.Adam(0.01))
    if kind == "regularized":     # a loss and a metric function in the compile config
        model.compile(optimizer=optimizer, loss=keras.losses.huber,
                      metrics=[keras.metrics.binary_accuracy])
    else:
        model.compile(optimizer=optimizer, loss="mse")
    if kind in TRAINED:
        model.fit(inputs(kind), _targets(model, kind), batch_size=6, epochs=2, shuffle=False,
                  verbose=0)


def train_one_more(model, kind):
    if kind in TRAINED:
        model.fit(inputs(kind), _targets(model, kind), batch_size=6, epochs=1, shuffle=False,
                  verbose=0)
    return predict(model, kind)


def inputs(kind):
    return {"every_layer": IMAGES, "recurrent": SEQUENCES, "masked": TOKENS}.get(kind, X)


def _targets(model, kind):
    width = np.asarray(model(inputs(kind)[:1], training=False)).shape[-1]
    return np.repeat(Y, width, axis=1)


def predict(model, kind):
    out = model(inputs(kind), training=False)
    outs = out if isinstance(out, (list, tuple)) else [out]
    return [np.asarray(o).tolist() for o in outs]


def penalties(model, kind):
    """model.losses after a call on the inputs: the weights' and the outputs' penalties."""
    model(inputs(kind), training=False)
    return sorted(float(np.asarray(v)) for v in model.losses)


def regularizer_configs(keras, model):
    """Each layer's regularizers as its config holds them (what the other side wrote)."""
    return [[keras.saving.serialize_keras_object(getattr(layer, key, None))
             for key in REGULARIZERS] for layer in model.layers]


def optimizer_settings(keras):
    O, schedules = keras.optimizers, keras.optimizers.schedules
    return {"sgd": lambda: O.SGD(0.1), "sgd_momentum": lambda: O.SGD(0.1, momentum=0.9),
            "sgd_nesterov": lambda: O.SGD(0.1, momentum=0.9, nesterov=True),
            "sgd_clip_decay": lambda: O.SGD(0.1, momentum=0.9, clipnorm=1.0, weight_decay=0.01),
            "adam": lambda: O.Adam(0.05), "adam_amsgrad": lambda: O.Adam(0.05, amsgrad=True),
            "adam_schedule": lambda: O.Adam(schedules.ExponentialDecay(0.05, 10, 0.5)),
            "rmsprop": lambda: O.RMSprop(0.01),
            "rmsprop_momentum": lambda: O.RMSprop(0.01, momentum=0.5),
            "rmsprop_centered": lambda: O.RMSprop(0.01, centered=True),
            "rmsprop_centered_momentum": lambda: O.RMSprop(0.01, centered=True, momentum=0.5)}


def slot_model(keras, shapes):
    """Three (4, 4) kernels ("same": a slot in another's place goes unnoticed by shape), or
    kernels and biases of mixed shapes; the same start on both sides."""
    L = keras.layers
    if shapes == "same":
        layers = [L.Dense(4, use_bias=False, activation="tanh"),
                  L.Dense(4, use_bias=False, activation="tanh"), L.Dense(4, use_bias=False)]
    else:
        layers = [L.Dense(3, activation="tanh"), L.Dense(2)]
    model = keras.Sequential([keras.Input(shape=(4,))] + layers)
    rng = np.random.default_rng(7)
    model.set_weights([rng.normal(size=w.shape).astype("float32") * 0.5
                       for w in model.get_weights()])
    return model


def slot_targets(shapes):
    return np.tanh(X * 1.5 - 0.2) if shapes == "same" else np.tanh(X[:, :2] - X[:, 2:])


def optimizer_side(keras, step, folder, lib):
    """Step 6 (save) or 7 (load) for every optimizer setting and both models."""
    results = {}
    other = "tapekit" if lib == "keras" else "keras"
    for name, make in optimizer_settings(keras).items():
        for shapes in ("same", "mixed"):
            tag, y = f"{name}/{shapes}", slot_targets(shapes)
            path = str(Path(folder) / f"{{}}_{name}_{shapes}")

            def next_step(model):
                model.train_on_batch(X[:2], y[:2])
                return [w.tolist() for w in model.get_weights()]
            if step == "save":
                model = slot_model(keras, shapes)
                model.compile(optimizer=make(), loss="mse")
                model.fit(X, y, batch_size=2, epochs=1, shuffle=False, verbose=0)
                model.save(path.format(lib) + ".keras")
                model.save_weights(path.format(lib) + ".weights.h5")
                results[tag] = next_step(model)
                continue
            model = keras.models.load_model(path.format(other) + ".keras")
            iterations = int(np.asarray(model.optimizer.iterations))
            results[tag] = {"keras": next_step(model), "iterations": iterations}
            model = slot_model(keras, shapes)
            model.compile(optimizer=make(), loss="mse")
            model.optimizer.build(model.trainable_variables)
            model.load_weights(path.format(other) + ".weights.h5")
            results[tag]["weights"] = next_step(model)
    return results


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
    if step in ("optimizers-save", "optimizers-load"):
        return optimizer_side(keras, step.split("-")[1], folder, lib)
    if step in ("save", "load"):
        build(keras, "subclassed-class")             # registers the custom classes
        for kind in KINDS:
            if step == "save":
                model = build(keras, kind)
                compile_and_train(keras, model, kind)
                model.save(str(Path(folder) / f"{lib}_{kind}.keras"))
            else:
                other = "tapekit" if lib == "keras" else "keras"
                model = keras.models.load_model(str(Path(folder) / f"{other}_{kind}.keras"))
            before = predict(model, kind)
            results[kind] = {"before": before, "penalties": penalties(model, kind),
                             "regularizers": regularizer_configs(keras, model),
                             "after": train_one_more(model, kind),
                             "iterations": int(np.asarray(model.optimizer.iterations))}
        return results
    for kind in WEIGHT_KINDS:
        model = build(keras, kind)
        if step == "write":
            if kind == "subclassed":
                model(X, training=True)               # moves batch norm's statistics
            model.save_weights(str(Path(folder) / f"{lib}_{kind}.weights.h5"))
        else:
            other = "tapekit" if lib == "keras" else "keras"
            model.load_weights(str(Path(folder) / f"{other}_{kind}.weights.h5"))
        results[kind] = predict(model, kind)
    return results


def config_differences(mine, theirs):
    """Where the layers' configs in two .keras files differ ([] if nowhere), their names aside
    and the `shared_object_id` Keras adds to an object it writes twice (a memory address)."""
    def plain(value):
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items() if k != "shared_object_id"}
        return [plain(v) for v in value] if isinstance(value, list) else value

    def layers(path):
        with zipfile.ZipFile(path) as archive:
            config = json.loads(archive.read("config.json"))
        return [{k: plain(v) for k, v in layer["config"].items() if k != "name"}
                for layer in config["config"]["layers"]]
    out = []
    for i, (a, b) in enumerate(zip(layers(mine), layers(theirs))):
        out += [f"layer {i} {key}: {a.get(key)!r} != {b.get(key)!r}"
                for key in sorted(set(a) | set(b)) if a.get(key) != b.get(key)]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tf-python", default=os.environ.get("TF_PYTHON", "tf-venv/bin/python"))
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
        for kind in WEIGHT_KINDS:
            for src, dst in (("tapekit", "keras"), ("keras", "tapekit")):
                diff = max(float(np.max(np.abs(np.subtract(a, b))))
                           for a, b in zip(written[src][kind], read[dst][kind]))
                ok = diff <= 1e-5
                failures += not ok
                print(f"{kind:12} {src + ' -> ' + dst:22} {diff:20.3g} {'ok' if ok else 'DIFFERS'}")
        saved = {"tapekit": run(sys.executable, "tapekit", "save", folder),
                 "keras": run(args.tf_python, "keras", "save", folder)}
        loaded = {"keras": run(args.tf_python, "keras", "load", folder),
                  "tapekit": run(sys.executable, "tapekit", "load", folder)}
        for kind in ("regularized", "recurrent"):
            differ = config_differences(*(Path(folder) / f"{lib}_{kind}.keras"
                                          for lib in ("tapekit", "keras")))
            failures += bool(differ)
            print(f"config.json of the {kind} model, tapekit's against Keras's (layer names "
                  f"aside): {'the same' if not differ else differ}")
        print(f"\n{'.keras model':12} {'direction':22} {'after load':>12} {'after a step':>14} "
              f"{'iterations':>12} {'penalties':>10}")
        for kind in KINDS:
            for src, dst in (("tapekit", "keras"), ("keras", "tapekit")):
                a, b = saved[src][kind], loaded[dst][kind]
                diffs = [max(float(np.max(np.abs(np.subtract(p, q)))) for p, q in zip(a[w], b[w]))
                         for w in ("before", "after")]
                same = a["regularizers"] == b["regularizers"] and len(a["penalties"]) == \
                    len(b["penalties"]) and np.allclose(a["penalties"], b["penalties"], atol=1e-5)
                ok = max(diffs) <= 1e-5 and a["iterations"] == b["iterations"] and same
                failures += not ok
                its = f"{a['iterations']}->{b['iterations']}"
                step = f"{diffs[1]:14.3g}" if kind in TRAINED else f"{'-':>14}"
                print(f"{kind:12} {src + ' -> ' + dst:22} {diffs[0]:12.3g} {step} "
                      f"{its:>12} {len(b['penalties']):>10} {'ok' if ok else 'DIFFERS'}")
        failures += compare_optimizers(run, args.tf_python, folder)
    return 1 if failures else 0


def compare_optimizers(run, tf_python, folder):
    """Steps 6 and 7: each side's next step from the other side's file against its own."""
    own = {"tapekit": run(sys.executable, "tapekit", "optimizers-save", folder),
           "keras": run(tf_python, "keras", "optimizers-save", folder)}
    resumed = {"keras": run(tf_python, "keras", "optimizers-load", folder),
               "tapekit": run(sys.executable, "tapekit", "optimizers-load", folder)}
    print(f"\n{'optimizer state':34} {'direction':18} {'.keras step':>12} "
          f"{'.weights.h5 step':>17} {'iterations':>10}")
    failures = 0
    for tag in own["tapekit"]:
        for src, dst in (("tapekit", "keras"), ("keras", "tapekit")):
            got = resumed[dst][tag]
            diffs = [max(float(np.max(np.abs(np.subtract(a, b))))
                         for a, b in zip(own[src][tag], got[how])) for how in ("keras", "weights")]
            ok = max(diffs) <= 1e-5 and got["iterations"] == 3
            failures += not ok
            print(f"{tag:34} {src + ' -> ' + dst:18} {diffs[0]:12.3g} {diffs[1]:17.3g} "
                  f"{got['iterations']:>10} {'ok' if ok else 'DIFFERS'}")
    return failures


if __name__ == "__main__":
    sys.exit(main())
