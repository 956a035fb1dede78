"""Seeded random programs over tapekit's Keras-3 surface: losses, metrics, optimizers, layers, fit.

A program is data: {"family": name, "code": [lines of Python]}. The lines name the library as
`T` (tensorflow or tapekit) and its Keras as `K` (keras or tapekit.keras), and record results
with `out(value)`; keras_interp.py runs them with either library, keras_diff.py compares.
`code(prog)` is the program as tapekit code, a repro to paste. Only names tapekit exports are
drawn (API.md's contract), with their Keras 3 arguments; a few Keras-only arguments now and
then (`GAPS`) show what tapekit refuses.
"""
import numpy as np

F32 = "float32"


def arr(a, dtype=F32):
    """An array literal: np.array([...], dtype).reshape(shape)."""
    a = np.asarray(a)
    vals = [float(x) if dtype.startswith("float") else int(x) for x in a.ravel()]
    vals = [v if not isinstance(v, float) or v != int(v) or abs(v) > 1e15 else float(int(v)) for v in vals]
    return f"np.array({vals}, '{dtype}').reshape({tuple(a.shape)})"


# --- losses ----------------------------------------------------------------------------------
LOSSES = ["MeanSquaredError", "MeanAbsoluteError", "Huber", "BinaryCrossentropy",
          "CategoricalCrossentropy", "SparseCategoricalCrossentropy"]
LOSS_FNS = {"MeanSquaredError": "mean_squared_error", "MeanAbsoluteError": "mean_absolute_error",
            "Huber": "huber", "BinaryCrossentropy": "binary_crossentropy",
            "CategoricalCrossentropy": "categorical_crossentropy",
            "SparseCategoricalCrossentropy": "sparse_categorical_crossentropy"}


def _shape(r):
    rank = int(r.integers(1, 4))
    batch = int(r.choice([1, 1, 2, 3, 4]))
    return tuple([batch] + [int(r.integers(1, 5)) for _ in range(rank - 1)])


def _probs(r, shape, labels=None):
    p = r.uniform(0, 1, shape)
    edge = r.random()
    if edge < 0.15:
        p = np.where(r.random(shape) < 0.4, r.choice([0.0, 1.0], shape), p)
    elif edge < 0.25 and labels is not None:
        p = labels.astype(float).copy()
    return np.round(p, 4)


def _logits(r, shape):
    z = r.normal(0, 3, shape)
    if r.random() < 0.2:
        z = np.where(r.random(shape) < 0.5, r.choice([-120.0, 90.0, 0.0], shape), z)
    return np.round(z, 4)


def _one_hot(r, shape):
    ids = r.integers(0, shape[-1], shape[:-1])
    return np.eye(shape[-1])[ids], ids


def _loss_data(r, cls, kw):
    shape = _shape(r)
    if cls == "CategoricalCrossentropy" or cls == "SparseCategoricalCrossentropy":
        if len(shape) == 1 and r.random() < 0.7:
            shape = shape + (int(r.integers(2, 5)),)
    logits = kw.get("from_logits", False)
    if cls in ("MeanSquaredError", "MeanAbsoluteError", "Huber"):
        y = np.round(r.normal(0, 1, shape), 4)
        p = y.copy() if r.random() < 0.15 else np.round(r.normal(0, 1.5, shape), 4)
        if r.random() < 0.1:
            p = p * 1e4
        return arr(y), arr(p), shape
    if cls == "BinaryCrossentropy":
        y = r.integers(0, 2, shape).astype(float)
        if r.random() < 0.2:
            y = np.round(r.uniform(0, 1, shape), 3)
        p = _logits(r, shape) if logits else _probs(r, shape, y)
        ydt = "int32" if r.random() < 0.1 and y.max() <= 1 and np.all(y == np.round(y)) else F32
        return arr(y, ydt), arr(p), shape
    oh, ids = _one_hot(r, shape)
    p = _logits(r, shape) if logits else _probs(r, shape, oh)
    if not logits and r.random() < 0.6:   # rows of a softmax, as a model gives them
        e = np.exp(r.normal(0, 2, shape))
        p = np.round(e / e.sum(-1, keepdims=True), 5)
    if cls == "CategoricalCrossentropy":
        return arr(oh), arr(p), shape
    choice = r.random()
    if choice < 0.2 and len(shape) >= 2:
        return arr(ids[..., None], "int32"), arr(p), shape
    if choice < 0.35:
        return arr(ids, F32), arr(p), shape
    if choice < 0.4:   # a label out of range: Keras's TF backend raises or gives nan
        ids = ids.copy()
        ids.flat[0] = shape[-1]
    return arr(ids, "int32"), arr(p), shape


def _weight(r, value_shape, pred_shape):
    """sample_weight of several forms for per-example losses of value_shape."""
    c = r.random()
    if c < 0.35:
        return None
    if c < 0.55:
        return arr(np.round(r.uniform(0, 2, value_shape[:1]), 3))          # per sample
    if c < 0.7:
        return arr(np.round(r.uniform(0, 2, value_shape), 3))              # per element
    if c < 0.8 and len(value_shape) >= 2:
        return arr(np.round(r.uniform(0, 2, value_shape[:1] + (1,) * (len(value_shape) - 1)), 3))
    if c < 0.85:
        return str(round(float(r.uniform(0, 2)), 3))                      # a Python scalar
    if c < 0.9:
        return arr(np.zeros(value_shape[:1]))                             # all weights zero
    return arr(np.round(r.uniform(0, 2, pred_shape), 3))                   # the predictions' shape


def gen_loss(r):
    cls = str(r.choice(LOSSES))
    kw = {}
    if cls == "Huber":
        kw["delta"] = float(r.choice([1.0, 0.5, 2.0, 0.1]))
    if "Crossentropy" in cls:
        kw["from_logits"] = bool(r.random() < 0.5)
    if cls in ("BinaryCrossentropy", "CategoricalCrossentropy") and r.random() < 0.3:
        kw["label_smoothing"] = float(r.choice([0.1, 0.2, 1.0]))
    red = str(r.choice(["sum_over_batch_size", "sum_over_batch_size", "sum", "none",
                        "mean_with_sample_weight"]))
    y, p, shape = _loss_data(r, cls, kw)
    value_shape = shape[:-1] if len(shape) > 1 else ()
    w = _weight(r, value_shape, shape) if value_shape else None
    functional = r.random() < 0.2
    lines = [f"y = {y}", f"p = T.constant({p})"]
    if r.random() < 0.1:
        lines[-1] = f"p = T.constant({p.replace(F32, 'float64')})"
    lines.append("with T.GradientTape() as tape:")
    lines.append("    tape.watch(p)")
    if functional:
        fkw = "".join(f", {k}={v!r}" for k, v in kw.items())
        lines.append(f"    loss = K.losses.{LOSS_FNS[cls]}(y, p{fkw})")
    else:
        ckw = ", ".join(f"{k}={v!r}" for k, v in kw.items())
        ckw += (", " if ckw else "") + f"reduction={red!r}"
        sw = "" if w is None else f", sample_weight={w}"
        lines.append(f"    loss = K.losses.{cls}({ckw})(y, p{sw})")
    lines += ["out(loss)", "out(tape.gradient(loss, p))"]
    return {"family": "loss", "code": lines}


# --- metrics ---------------------------------------------------------------------------------
def _metric_batch(r, kind, batch, classes):
    if kind == "regression":
        y = np.round(r.normal(0, 1, (batch, classes)), 3)
        if r.random() < 0.2:
            y[0, 0] = 0.0          # MAPE's division by zero
        return arr(y), arr(np.round(r.normal(0, 1, (batch, classes)), 3))
    if kind == "binary":
        y = r.integers(0, 2, (batch, classes))
        return arr(y, r.choice([F32, "int32"])), arr(_probs(r, (batch, classes), y))
    oh, ids = _one_hot(r, (batch, classes))
    p = np.round(r.uniform(0, 1, (batch, classes)), 2)
    if r.random() < 0.2:
        p[:, :] = np.round(p * 2) / 2   # ties
    if kind == "categorical":
        return arr(oh), arr(p)
    if kind == "logits_cat":
        return arr(oh), arr(_logits(r, (batch, classes)))
    if kind == "sparse_col":
        return arr(ids[:, None], "int32"), arr(p)
    if kind == "sparse_float":
        return arr(ids, F32), arr(p)
    if kind == "equal":
        y = r.integers(0, 3, (batch, classes))
        pred = np.where(r.random((batch, classes)) < 0.5, y, r.integers(0, 3, (batch, classes)))
        return arr(y, "int32"), arr(pred, F32)
    return arr(ids, "int32"), arr(p)


METRICS = {   # class: (constructor arguments to draw, data kinds)
    "Accuracy": ([{}], ["equal"]),
    "BinaryAccuracy": ([{}, {"threshold": 0.3}, {"threshold": 0.7}], ["binary"]),
    "CategoricalAccuracy": ([{}], ["categorical"]),
    "SparseCategoricalAccuracy": ([{}], ["sparse", "sparse_col", "sparse_float"]),
    "TopKCategoricalAccuracy": ([{"k": 1}, {"k": 2}, {}], ["categorical"]),
    "SparseTopKCategoricalAccuracy": ([{"k": 1}, {"k": 2}, {}], ["sparse", "sparse_col"]),
    "MeanSquaredError": ([{}], ["regression"]),
    "MeanAbsoluteError": ([{}], ["regression"]),
    "RootMeanSquaredError": ([{}], ["regression"]),
    "MeanAbsolutePercentageError": ([{}], ["regression"]),
    "BinaryCrossentropy": ([{}, {"from_logits": True}, {"label_smoothing": 0.2}], ["binary"]),
    "CategoricalCrossentropy": ([{}, {"label_smoothing": 0.1}], ["categorical"]),
    "SparseCategoricalCrossentropy": ([{}, {"from_logits": True}], ["sparse", "sparse_col"]),
    "Precision": ([{}, {"thresholds": 0.3}, {"thresholds": [0.2, 0.5, 0.8]}, {"top_k": 2},
                   {"class_id": 1}, {"top_k": 1, "class_id": 0}], ["binary"]),
    "Recall": ([{}, {"thresholds": 0.7}, {"thresholds": [0.1, 0.9]}, {"top_k": 2},
                {"class_id": 1}], ["binary"]),
    "AUC": ([{}, {"num_thresholds": 5}, {"curve": "PR"}, {"summation_method": "minoring"},
             {"summation_method": "majoring", "num_thresholds": 11},
             {"curve": "PR", "summation_method": "careful_interpolation"}], ["binary"]),
    "Mean": ([{}], ["values"]),
    "Sum": ([{}], ["values"]),
}


def gen_metric(r):
    cls = str(r.choice(sorted(METRICS)))
    kws, kinds = METRICS[cls]
    kw = kws[int(r.integers(len(kws)))]
    if cls == "CategoricalCrossentropy" and r.random() < 0.3:
        kw = {"from_logits": True}
    kind = str(r.choice(kinds))
    if kw.get("from_logits") and cls == "CategoricalCrossentropy":
        kind = "logits_cat"
    classes = int(r.integers(2, 5))
    ckw = ", ".join(f"{k}={v!r}" for k, v in kw.items())
    lines = [f"m = K.metrics.{cls}({ckw})"]
    for call in range(int(r.integers(1, 4))):
        batch = int(r.integers(1, 5))
        if kind == "values":
            vals = arr(np.round(r.normal(0, 2, (batch,) + ((classes,) if r.random() < 0.3 else ())), 3))
            w = r.random()
            sw = "" if w < 0.5 else f", sample_weight={arr(np.round(r.uniform(0, 2, (batch,)), 3))}"
            lines.append(f"m.update_state({vals}{sw})")
        else:
            y, p = _metric_batch(r, kind, batch, classes)
            w = r.random()
            sw = ""
            if w < 0.3:
                sw = f", sample_weight={arr(np.round(r.uniform(0, 2, (batch,)), 3))}"
            elif w < 0.4 and kind in ("binary", "regression"):
                sw = f", sample_weight={arr(np.round(r.uniform(0, 2, (batch, classes)), 3))}"
            elif w < 0.45:
                sw = f", sample_weight={arr(np.zeros(batch))}"
            lines.append(f"m.update_state({y}, {p}{sw})")
        lines.append("out(m.result())")
    if r.random() < 0.5:
        lines += ["m.reset_state()", "out(m.result())"]
        if kind != "values":
            y, p = _metric_batch(r, kind, 2, classes)
            lines += [f"m.update_state({y}, {p})", "out(m.result())"]
    return {"family": "metric", "code": lines}


# --- optimizers ------------------------------------------------------------------------------
def _schedule(r):
    c = r.random()
    if c < 0.6:
        return repr(float(r.choice([0.1, 0.01, 0.5, 1e-3])))
    if c < 0.8:
        return (f"K.optimizers.schedules.ExponentialDecay({float(r.choice([0.1, 0.5]))!r}, "
                f"decay_steps={int(r.integers(1, 4))}, decay_rate={float(r.choice([0.5, 0.9]))!r}, "
                f"staircase={bool(r.random() < 0.5)})")
    return "K.optimizers.schedules.PiecewiseConstantDecay([1, 3], [0.5, 0.1, 0.01])"


GAPS = [{"weight_decay": 0.01}, {"clipnorm": 1.0}, {"clipvalue": 0.5}, {"global_clipnorm": 1.0},
        {"amsgrad": True}]


def gen_optimizer(r):
    cls = str(r.choice(["SGD", "SGD", "Adam", "RMSprop"]))
    kw = {}
    if cls == "SGD":
        kw["momentum"] = float(r.choice([0.0, 0.9, 0.5]))
        if kw["momentum"] and r.random() < 0.5:
            kw["nesterov"] = True
    elif cls == "Adam":
        if r.random() < 0.3:
            kw["beta_1"], kw["beta_2"] = 0.5, 0.9
        if r.random() < 0.2:
            kw["epsilon"] = 1e-3
    else:
        if r.random() < 0.3:
            kw["rho"] = 0.5
        if r.random() < 0.3:
            kw["momentum"] = 0.9
        if r.random() < 0.3:
            kw["centered"] = True
    if r.random() < 0.12:
        gap = GAPS[int(r.integers(len(GAPS)))]
        if "amsgrad" not in gap or cls == "Adam":
            kw.update(gap)
    lr = _schedule(r)
    ckw = "".join(f", {k}={v!r}" for k, v in kw.items())
    shapes = [tuple(int(s) for s in r.integers(1, 4, int(r.integers(0, 3)))) for _ in range(2)]
    lines = [f"opt = K.optimizers.{cls}(learning_rate={lr}{ckw})"]
    for i, s in enumerate(shapes):
        lines.append(f"v{i} = T.Variable({arr(np.round(r.normal(0, 1, s), 3))})")
    for step in range(int(r.integers(2, 5))):
        grads = []
        for i, s in enumerate(shapes):
            if r.random() < 0.1 and step > 0 and i == 1:
                grads.append("None")
            else:
                g = np.round(r.normal(0, 1, s) * r.choice([1.0, 1.0, 10.0]), 3)
                grads.append(f"T.constant({arr(g)})")
        lines.append(f"opt.apply_gradients([({grads[0]}, v0), ({grads[1]}, v1)])")
        lines += ["out(v0)", "out(v1)", "out(opt.iterations)"]
    lines.append("out(opt.learning_rate)")
    return {"family": "optimizer", "code": lines}


# --- layers ----------------------------------------------------------------------------------
ACTS = ["None", "'relu'", "'sigmoid'", "'tanh'", "'softmax'", "'linear'", "'elu'", "'gelu'",
        "'leaky_relu'", "'softplus'", "'swish'", "'selu'", "'relu6'", "'exponential'",
        "'hard_sigmoid'", "'softsign'", "'silu'", "'log_softmax'", "'mish'"]


def gen_layer(r):
    kind = str(r.choice(["Dense", "Conv1D", "Conv2D", "MaxPooling2D", "AveragePooling2D",
                         "GlobalAveragePooling2D", "GlobalMaxPooling1D", "BatchNormalization",
                         "LayerNormalization", "Dropout", "Embedding", "Activation"]))
    b = int(r.choice([1, 2, 3]))
    training = None
    calls = 1
    if kind == "Dense":
        shape = (b,) + tuple(int(s) for s in r.integers(1, 4, int(r.integers(1, 3))))
        args = f"{int(r.integers(1, 4))}, activation={r.choice(ACTS)}, use_bias={bool(r.random() < 0.8)}"
    elif kind in ("Conv1D", "Conv2D"):
        nd = 1 if kind == "Conv1D" else 2
        ks = int(r.integers(1, 4))
        shape = (b,) + tuple(int(r.integers(ks, 6)) for _ in range(nd)) + (int(r.integers(1, 3)),)
        args = (f"{int(r.integers(1, 3))}, {ks}, strides={int(r.integers(1, 3))}, "
                f"padding={r.choice(['valid', 'same'])!r}, activation={r.choice(ACTS[:4])}")
        if r.random() < 0.2:
            args += ", use_bias=False"
    elif kind in ("MaxPooling2D", "AveragePooling2D"):
        shape = (b, int(r.integers(2, 6)), int(r.integers(2, 6)), int(r.integers(1, 3)))
        ps = int(r.integers(1, 3))
        st = r.choice(["None", "1", "2", "(1, 2)"])
        args = f"pool_size={ps}, strides={st}, padding={r.choice(['valid', 'same'])!r}"
    elif kind == "GlobalAveragePooling2D":
        shape = (b, int(r.integers(1, 4)), int(r.integers(1, 4)), 2)
        args = f"keepdims={bool(r.random() < 0.3)}"
    elif kind == "GlobalMaxPooling1D":
        shape = (b, int(r.integers(1, 4)), 2)
        args = ""
    elif kind == "BatchNormalization":
        shape = (b + 1,) + tuple(int(s) for s in r.integers(1, 4, int(r.integers(1, 3))))
        args = f"momentum={float(r.choice([0.99, 0.5, 0.0]))!r}"
        if r.random() < 0.3:
            args += f", axis={int(r.choice([1, -1]))}"
        if r.random() < 0.2:
            args += ", center=False"
        if r.random() < 0.2:
            args += ", scale=False"
        training = bool(r.random() < 0.6)
        calls = int(r.integers(1, 4))
    elif kind == "LayerNormalization":
        shape = (b,) + tuple(int(s) for s in r.integers(1, 5, int(r.integers(1, 3))))
        args = f"epsilon={float(r.choice([1e-3, 1e-6]))!r}"
        if r.random() < 0.3 and len(shape) == 3:
            args += ", axis=[1, 2]"
        if r.random() < 0.2:
            args += ", center=False"
        if r.random() < 0.2:
            args += ", scale=False"
    elif kind == "Dropout":
        shape = (b, int(r.integers(1, 5)))
        args = f"{float(r.choice([0.5, 0.2]))!r}"
        training = False
    elif kind == "Embedding":
        ids = r.integers(0, 5, (b, int(r.integers(1, 4))))
        args = f"5, {int(r.integers(1, 4))}"
        lines = [f"layer = K.layers.Embedding({args})", f"x = T.constant({arr(ids, 'int32')})",
                 "layer(x)", f"fill(layer, {int(r.integers(1000))})", "out(layer(x))"]
        return {"family": "layer", "code": lines}
    else:
        shape = (b, int(r.integers(1, 5)))
        args = str(r.choice(ACTS[1:]))
    x = np.round(r.normal(0, 1.5, shape), 3)
    lines = [f"layer = K.layers.{kind}({args})", f"x = T.constant({arr(x)})", "layer(x)",
             f"fill(layer, {int(r.integers(1000))})"]
    tr = "" if training is None else f", training={training}"
    for c in range(calls):
        if c == calls - 1:
            lines += ["with T.GradientTape() as tape:", "    tape.watch(x)",
                      f"    y = layer(x{tr})", "out(y)", "out(tape.gradient(T.reduce_sum(y * y), x))"]
        else:
            lines.append(f"out(layer(x{tr}))")
    lines.append("out(layer.get_weights())")
    return {"family": "layer", "code": lines}


# --- fit -------------------------------------------------------------------------------------
def gen_fit(r):
    n, d = int(r.integers(3, 9)), int(r.integers(1, 4))
    task = str(r.choice(["regression", "binary", "categorical", "sparse", "binary_logits"]))
    classes = int(r.integers(2, 4))
    x = np.round(r.normal(0, 1, (n, d)), 3)
    h = int(r.integers(1, 4))
    hidden = f"K.layers.Dense({h}, activation={r.choice(ACTS[:4])})"
    if task == "regression":
        y, out_layer = arr(np.round(r.normal(0, 1, (n, 1)), 3)), "K.layers.Dense(1)"
        loss = str(r.choice(["'mse'", "'mae'", "K.losses.Huber()", "'mean_squared_error'"]))
        metrics = str(r.choice(["['mae']", "['mse', 'mae']", "[K.metrics.RootMeanSquaredError()]", "None"]))
    elif task in ("binary", "binary_logits"):
        y = arr(r.integers(0, 2, (n, 1) if r.random() < 0.7 else (n,)), F32)
        if task == "binary":
            out_layer, loss = "K.layers.Dense(1, activation='sigmoid')", "'binary_crossentropy'"
        else:
            out_layer, loss = "K.layers.Dense(1)", "K.losses.BinaryCrossentropy(from_logits=True)"
        metrics = str(r.choice(["['accuracy']", "['accuracy', K.metrics.AUC()]", "[K.metrics.Precision()]"]))
    else:
        oh, ids = _one_hot(r, (n, classes))
        logits = r.random() < 0.4
        act = "" if logits else ", activation='softmax'"
        out_layer = f"K.layers.Dense({classes}{act})"
        if task == "categorical":
            y = arr(oh)
            loss = ("K.losses.CategoricalCrossentropy(from_logits=True)" if logits
                    else "'categorical_crossentropy'")
        else:
            y = arr(ids[:, None] if r.random() < 0.3 else ids, "int32")   # (n,) or (n, 1)
            loss = ("K.losses.SparseCategoricalCrossentropy(from_logits=True)" if logits
                    else "'sparse_categorical_crossentropy'")
        metrics = str(r.choice(["['accuracy']", "['acc']",
                                "[K.metrics.TopKCategoricalAccuracy(k=1)]" if task == "categorical"
                                else "[K.metrics.SparseTopKCategoricalAccuracy(k=1)]"]))
    opt = str(r.choice(["K.optimizers.SGD(0.1)", "K.optimizers.SGD(0.05, momentum=0.9)",
                        "K.optimizers.Adam(0.01)", "K.optimizers.RMSprop(0.01)", "'sgd'"]))
    bs = int(r.choice([1, 2, 3, n]))
    sw = ""
    if r.random() < 0.2:
        sw = f", sample_weight={arr(np.round(r.uniform(0, 2, n), 2))}"
    lines = [f"model = K.Sequential([K.Input(shape=({d},)), {hidden}, {out_layer}])",
             f"fill(model, {int(r.integers(1000))})",
             f"model.compile(optimizer={opt}, loss={loss}, metrics={metrics})",
             f"x = {arr(x)}", f"y = {y}",
             f"h = model.fit(x, y, batch_size={bs}, epochs=2, shuffle=False, verbose=0{sw})",
             "out(h.history)", "out(model.get_weights())",
             "out(model.evaluate(x, y, verbose=0, return_dict=True))"]
    return {"family": "fit", "code": lines}


FAMILIES = {"loss": gen_loss, "metric": gen_metric, "optimizer": gen_optimizer, "layer": gen_layer,
            "fit": gen_fit}
WEIGHTS = {"loss": 0.34, "metric": 0.26, "optimizer": 0.16, "layer": 0.18, "fit": 0.06}


def programs(seed, n, families=None):
    r = np.random.default_rng(seed)
    names = families or list(WEIGHTS)
    p = np.array([WEIGHTS[f] for f in names])
    out = []
    for _ in range(n):
        fam = str(r.choice(names, p=p / p.sum()))
        out.append(FAMILIES[fam](r))
    return out


def code(prog):
    """The program as tapekit code (a repro to paste)."""
    head = ["import numpy as np, tapekit as tk",
            "out = print"]
    if any("fill(" in line for line in prog["code"]):
        head.append("from keras_interp import fill   # tools/tf_diff: seeded weights by shape")
    body = [line.replace("K.", "tk.keras.").replace("T.", "tk.") for line in prog["code"]]
    return "\n".join(head + body)
