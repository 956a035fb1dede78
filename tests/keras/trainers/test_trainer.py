"""compile/fit/evaluate/predict (Keras 3's training surface) against hand-written tape loops,
callbacks and their order, optimizer.apply and schedules, and the losses compile takes."""
import traceback
import warnings

import numpy as np
import pytest

import tapekit as tk


def make_model(seed=0, units=(5, 3)):
    tk.random.set_seed(seed)
    model = tk.Sequential([tk.layers.Dense(units[0], activation="relu", input_shape=(4,)),
                           tk.layers.Dense(units[1])])
    return model


def data(n=20, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0)
    return x, y


def hand_loop(model, x, y, optimizer, loss_fn, batch_size, epochs, sample_weight=None):
    """The guide's loop: batches in order, tape, gradient, optimizer step."""
    for _ in range(epochs):
        for start in range(0, len(x), batch_size):
            xb, yb = tk.constant(x[start:start + batch_size]), tk.constant(y[start:start + batch_size])
            sw = None if sample_weight is None else tk.constant(sample_weight[start:start + batch_size])
            with tk.GradientTape() as tape:
                loss = loss_fn(yb, model(xb, training=True), sample_weight=sw)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply(grads, model.trainable_variables)


def weights(model):
    return [v.numpy().copy() for v in model.trainable_variables]


@pytest.mark.parametrize("run_eagerly", [True, False])
@pytest.mark.parametrize("make_opt", [lambda: tk.optimizers.SGD(0.1, momentum=0.9),
                                      lambda: tk.optimizers.Adam(0.01)])
def test_fit_equals_the_hand_written_loop(run_eagerly, make_opt):
    x, y = data(22)
    loss = tk.losses.SparseCategoricalCrossentropy(from_logits=True)
    a, b = make_model(), make_model()
    np.testing.assert_array_equal(weights(a)[0], weights(b)[0])
    a.compile(optimizer=make_opt(), loss=loss, run_eagerly=run_eagerly)
    a.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    hand_loop(b, x, y, make_opt(), loss, batch_size=8, epochs=3)
    for wa, wb in zip(weights(a), weights(b)):
        np.testing.assert_allclose(wa, wb, rtol=1e-6, atol=1e-6)
    assert int(a.optimizer.iterations) == 9


def test_fit_with_sample_weight_equals_the_weighted_loop():
    x, y = data(16)
    w = np.linspace(0.0, 2.0, 16).astype(np.float32)
    loss = tk.losses.SparseCategoricalCrossentropy(from_logits=True)
    a, b = make_model(), make_model()
    a.compile(optimizer=tk.optimizers.SGD(0.5), loss=loss)
    a.fit(x, y, sample_weight=w, batch_size=5, epochs=2, shuffle=False, verbose=0)
    hand_loop(b, x, y, tk.optimizers.SGD(0.5), loss, 5, 2, sample_weight=w)
    for wa, wb in zip(weights(a), weights(b)):
        np.testing.assert_allclose(wa, wb, rtol=1e-6, atol=1e-6)


def test_a_list_of_batches_trains_like_the_arrays():
    x, y = data(12)
    batches = [(x[i:i + 4], y[i:i + 4]) for i in range(0, 12, 4)]
    a, b = make_model(), make_model()
    for m in (a, b):
        m.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    # outputs are logits, but both train the same way: only equality matters here
    a.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    b.fit(batches, epochs=2, verbose=0)
    for wa, wb in zip(weights(a), weights(b)):
        np.testing.assert_array_equal(wa, wb)


def test_epoch_loss_is_the_batch_size_weighted_mean_and_history_keys():
    x, y = data(10)
    model = make_model()
    model.compile(optimizer=tk.optimizers.SGD(0.0), loss=tk.losses.SparseCategoricalCrossentropy(
        from_logits=True), metrics=["accuracy"])
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0,
                        validation_data=(x[:3], y[:3]))
    assert history is model.history and history.epoch == [0, 1]
    # Keras 3 hands callbacks (and so History) the logs sorted by name
    assert list(history.history) == ["accuracy", "loss", "val_accuracy", "val_loss"]
    logits = model.predict(x, verbose=0).astype(np.float64)
    per_sample = np.log(np.exp(logits).sum(1)) - logits[np.arange(10), y]
    assert history.history["loss"][1] == pytest.approx(per_sample.mean(), rel=1e-5)
    acc = np.mean(logits.argmax(1) == y)
    assert history.history["accuracy"] == [pytest.approx(acc)] * 2
    assert history.history["val_loss"][0] == pytest.approx(per_sample[:3].mean(), rel=1e-5)
    assert all(isinstance(v, float) for vs in history.history.values() for v in vs)


def test_validation_split_takes_the_last_fraction():
    x, y = data(10)
    model = make_model()
    model.compile(optimizer=tk.optimizers.SGD(0.0), loss=tk.losses.SparseCategoricalCrossentropy(
        from_logits=True))
    history = model.fit(x, y, validation_split=0.3, epochs=1, verbose=0)   # floor(10 * 0.7) = 7
    assert history.history["val_loss"][0] == pytest.approx(model.evaluate(x[7:], y[7:], verbose=0))
    assert history.history["loss"][0] == pytest.approx(model.evaluate(x[:7], y[:7], verbose=0))
    with pytest.raises(ValueError, match="validation_split"):
        model.fit(x[:1], y[:1], validation_split=0.5, verbose=0)


def test_evaluate_and_predict_shapes_and_forms():
    x, y = data(9)
    model = make_model()
    model.compile(optimizer="adam", loss=tk.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy", tk.metrics.SparseTopKCategoricalAccuracy(k=2)])
    out = model.predict(x, batch_size=4, verbose=0)
    assert isinstance(out, np.ndarray) and out.shape == (9, 3)
    np.testing.assert_allclose(out, model(x).numpy(), rtol=1e-6)
    result = model.evaluate(x, y, batch_size=4, verbose=0)
    assert isinstance(result, list) and len(result) == 3
    d = model.evaluate(x, y, verbose=0, return_dict=True)
    assert list(d) == ["accuracy", "loss", "sparse_top_k_categorical_accuracy"]   # sorted
    assert d["accuracy"] == pytest.approx(np.mean(out.argmax(1) == y))
    assert model.metrics_names == ["loss", "compile_metrics"]       # Keras 3's names


def test_accuracy_resolves_from_shapes():
    x, _ = data(8)
    binary = tk.Sequential([tk.layers.Dense(1, activation="sigmoid", input_shape=(4,))])
    binary.compile(optimizer="sgd", loss="binary_crossentropy", metrics=["accuracy"])
    binary.fit(x, (x[:, :1] > 0).astype(np.float32), verbose=0)
    assert type(binary.metrics[1]).__name__ == "BinaryAccuracy" and binary.metrics[1].name == "accuracy"
    cat = make_model()
    cat.compile(optimizer="sgd", loss="categorical_crossentropy", metrics=["acc"])
    cat.fit(x, np.eye(3, dtype=np.float32)[np.arange(8) % 3], verbose=0)
    assert type(cat.metrics[1]).__name__ == "CategoricalAccuracy"


def test_custom_train_step_is_used_by_fit():
    calls = []

    class Custom(tk.Sequential):
        def train_step(self, data):
            x, y = data
            calls.append(x.shape)
            with tk.GradientTape() as tape:
                loss = tk.reduce_mean(tk.square(self(x, training=True) - y))
            self.optimizer.apply(tape.gradient(loss, self.trainable_variables),
                                 self.trainable_variables)
            return {"my_loss": loss}

    model = Custom([tk.layers.Dense(1, input_shape=(4,))])
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    x, _ = data(10)
    history = model.fit(x, np.ones((10, 1), np.float32), batch_size=4, epochs=2, verbose=0)
    assert calls == [(4, 4), (4, 4), (2, 4)] * 2
    assert int(model.optimizer.iterations) == 6
    # names other than model.metrics': the epoch's logs are the last batch's (as Keras)
    assert list(history.history) == ["my_loss"]


def test_extra_losses_are_added():
    class WithPenalty(tk.Sequential):
        @property
        def losses(self):
            return [tk.reduce_sum(tk.square(self.layers[0].kernel))]

    a, b = WithPenalty([tk.layers.Dense(1, input_shape=(4,))]), tk.Sequential(
        [tk.layers.Dense(1, input_shape=(4,))])
    b.layers[0].kernel.assign(a.layers[0].kernel)
    b.layers[0].bias.assign(a.layers[0].bias)
    x, _ = data(8)
    y = np.ones((8, 1), np.float32)
    a.compile(optimizer=tk.optimizers.SGD(0.1), loss="mse")
    a.fit(x, y, batch_size=8, verbose=0)
    opt = tk.optimizers.SGD(0.1)
    with tk.GradientTape() as tape:
        loss = tk.losses.MeanSquaredError()(y, b(x)) + tk.reduce_sum(tk.square(b.layers[0].kernel))
    opt.apply(tape.gradient(loss, b.trainable_variables), b.trainable_variables)
    np.testing.assert_allclose(a.layers[0].kernel.numpy(), b.layers[0].kernel.numpy(), rtol=1e-6)


def test_lambda_callback_and_call_order():
    events = []
    cb = tk.callbacks.LambdaCallback(
        on_train_begin=lambda logs=None: events.append("begin"),
        on_epoch_end=lambda epoch, logs: events.append(("epoch", epoch, sorted(logs))),
        on_train_batch_end=lambda batch, logs: events.append(("batch", batch)),
        on_train_end=lambda logs=None: events.append("end"))
    x, y = data(6)
    model = make_model()
    model.compile(optimizer="sgd", loss=tk.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, batch_size=4, epochs=1, verbose=0, callbacks=[cb])
    assert events == ["begin", ("batch", 0), ("batch", 1), ("epoch", 0, ["loss"]), "end"]
    with pytest.raises(TypeError, match="unknown hook 'on_epoch_ends'"):
        tk.callbacks.LambdaCallback(on_epoch_ends=print)


def test_errors_name_the_fix():
    model = make_model()
    with pytest.raises(ValueError, match="compile"):
        model.fit(*data(4), verbose=0)
    with pytest.raises(ValueError, match="Could not interpret loss identifier: 'mse2'"):
        model.compile(loss="mse2")
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="x has 4 samples but y has 3"):
        model.fit(np.ones((4, 4)), np.ones((3, 3)), verbose=0)


def test_optimizer_apply_build_and_schedules():
    w = tk.Variable([1.0, 2.0])
    opt = tk.optimizers.SGD(learning_rate=tk.optimizers.schedules.PiecewiseConstantDecay(
        [1], [0.5, 0.1]))
    opt.build([w])
    for _ in range(3):     # steps 0 and 1 use 0.5, step 2 uses 0.1
        opt.apply([tk.constant([1.0, 1.0])])
    np.testing.assert_allclose(w.numpy(), [1.0 - 1.1, 2.0 - 1.1], rtol=1e-6)
    with pytest.raises(ValueError, match="2 gradients for 1 variables"):
        opt.apply([tk.constant(1.0), tk.constant(1.0)], [w])
    decay = tk.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    adam = tk.optimizers.Adam(learning_rate=decay)
    assert float(adam.learning_rate) == pytest.approx(0.1)
    adam.iterations.assign(20)
    assert float(adam.learning_rate) == pytest.approx(0.025)


def test_losses_mae_huber_weights_and_reductions():
    y, p = np.array([[0.0], [0.0], [0.0]]), np.array([[0.5], [3.0], [-1.0]])
    assert float(tk.losses.MeanAbsoluteError()(y, p)) == pytest.approx(4.5 / 3)
    huber = [0.125, 2.5, 0.5]
    assert float(tk.losses.Huber()(y, p)) == pytest.approx(sum(huber) / 3)
    w = np.array([1.0, 0.0, 2.0])
    mse = [0.25, 9.0, 1.0]
    weighted = sum(a * b for a, b in zip(mse, w))
    assert float(tk.losses.MeanSquaredError()(y, p, sample_weight=w)) == pytest.approx(weighted / 3)
    assert float(tk.losses.MeanSquaredError(reduction="sum")(y, p, sample_weight=w)) == \
        pytest.approx(weighted)
    assert float(tk.losses.MeanSquaredError(reduction="mean_with_sample_weight")(
        y, p, sample_weight=w)) == pytest.approx(weighted / 3.0)
    assert tk.losses.get("mae") is tk.losses.mean_absolute_error
    assert isinstance(tk.losses.get("Huber"), tk.losses.Huber)
    with pytest.raises(ValueError, match="reduction must be one of"):
        tk.losses.MeanSquaredError(reduction="avg")


def test_compile_takes_a_loss_function_like_the_guide():
    """basic_training_loops: compile(loss=tf.keras.losses.mean_squared_error), fit(x, y)."""
    tk.random.set_seed(0)
    x = tk.random.normal([200]).numpy()
    y = 3.0 * x + 2.0

    class Linear(tk.Sequential):
        def __init__(self):
            super().__init__()
            self.w, self.b = tk.Variable(5.0), tk.Variable(0.0)

        def call(self, x, training=None):
            return self.w * x + self.b

    model = Linear()
    model.compile(run_eagerly=False, optimizer=tk.optimizers.SGD(learning_rate=0.1),
                  loss=tk.losses.mean_squared_error)
    model.fit(x, y, epochs=10, batch_size=200, verbose=0)
    w, b = tk.Variable(5.0), tk.Variable(0.0)      # the guide's hand loop
    for _ in range(10):
        with tk.GradientTape() as tape:
            loss = tk.reduce_mean(tk.square(y - (w * x + b)))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * dw)
        b.assign_sub(0.1 * db)
    assert float(model.w) == pytest.approx(float(w), rel=1e-5)
    assert float(model.b) == pytest.approx(float(b), rel=1e-5)


def test_compiled_metrics_exist_for_a_custom_train_step():
    """Keras's "customizing fit" guide: a train_step that updates self.metrics itself."""
    class Custom(tk.Sequential):
        def train_step(self, data):
            x, y = data
            with tk.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply(grads, self.trainable_variables)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    x, y = data(12)
    model = Custom([tk.layers.Dense(3, input_shape=(4,))])
    model.compile(optimizer="sgd", loss=tk.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    history = model.fit(x, y, batch_size=4, epochs=2, verbose=0)
    assert list(history.history) == ["accuracy", "loss"]
    assert type(model.metrics[1]).__name__ == "SparseCategoricalAccuracy"


# --- issue 32: Keras 3's fit/evaluate/predict/compile surface ---------------------------------
def ones_model(n_in=2):
    """y = sum(x) exactly: Dense(1) with a kernel of ones and no bias error."""
    return tk.Sequential([tk.Input((n_in,)), tk.layers.Dense(1, kernel_initializer="ones")])


XS = np.arange(40, dtype="float32").reshape(20, 2) / 40
YS = XS.sum(1, keepdims=True)


def test_metrics_are_unweighted_and_weighted_metrics_take_sample_weight():
    # Keras 3.15 on these numbers: loss 0.49140626, mae 0.48750001, weighted_mae 0.66250002
    w = np.linspace(0, 2, 20).astype("float32")
    m = ones_model()
    m.compile(optimizer="sgd", loss="mse", metrics=["mae"], weighted_metrics=["mae"])
    d = m.evaluate(XS, YS * 0.5, sample_weight=w, verbose=0, return_dict=True)
    err = (YS - YS * 0.5)[:, 0]
    assert list(d) == ["loss", "mae", "weighted_mae"]
    assert d["mae"] == pytest.approx(np.abs(err).mean(), rel=1e-6)
    assert d["weighted_mae"] == pytest.approx((w * np.abs(err)).sum() / w.sum(), rel=1e-6)
    assert d["loss"] == pytest.approx((w * err ** 2).mean(), rel=1e-6)   # sum(w l) / n
    assert (d["mae"], d["weighted_mae"]) == (pytest.approx(0.4875), pytest.approx(0.6625))


def test_generators_pydatasets_and_dict_inputs_train_like_the_arrays():
    x, y = data(12)
    loss = tk.losses.SparseCategoricalCrossentropy(from_logits=True)

    def trained(make_data, **kw):
        model = make_model()
        model.compile(optimizer="sgd", loss=loss)
        model.fit(make_data(), epochs=2, verbose=0, **kw)
        return weights(model)

    class Batches(tk.utils.PyDataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return x[4 * i:4 * i + 4], y[4 * i:4 * i + 4]

    def forever():
        while True:
            for i in range(3):
                yield x[4 * i:4 * i + 4], y[4 * i:4 * i + 4]

    arrays = make_model()
    arrays.compile(optimizer="sgd", loss=loss)
    arrays.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    for got in (trained(Batches, shuffle=False), trained(forever, steps_per_epoch=3)):
        for wa, wb in zip(weights(arrays), got):
            np.testing.assert_array_equal(wa, wb)


def test_a_dict_keyed_by_input_names_feeds_a_two_input_model():
    tk.layers.clear_session()
    a, b = tk.Input((1,), name="left"), tk.Input((1,), name="right")
    out = tk.layers.Dense(1, kernel_initializer="ones", use_bias=False)(
        tk.layers.concatenate([a, b]))
    model = tk.Model([a, b], out)
    model.compile(optimizer="sgd", loss="mse")
    xa, xb = XS[:, :1], XS[:, 1:]
    np.testing.assert_allclose(model.predict({"right": xb, "left": xa}, verbose=0), YS, rtol=1e-6)
    assert model.evaluate({"left": xa, "right": xb}, YS, verbose=0) == pytest.approx(0.0)


def test_steps_per_epoch_on_arrays_continues_the_pass_as_keras():
    # 8 samples in batches of 2 (4 per pass), 3 steps per epoch: epoch 1 trains batches 0-2,
    # epoch 2 only batch 3 (then the pass ends), epoch 3 batches 0-2 again: 7 steps, not 9.
    x, y = data(8)
    loss = tk.losses.SparseCategoricalCrossentropy(from_logits=True)
    a, b = make_model(), make_model()
    a.compile(optimizer="sgd", loss=loss)
    with pytest.warns(UserWarning, match="ran out of data"):
        a.fit(x, y, batch_size=2, epochs=3, steps_per_epoch=3, shuffle=False, verbose=0)
    assert int(a.optimizer.iterations) == 7
    opt = tk.optimizers.SGD()
    for idx in [0, 1, 2, 3, 0, 1, 2]:
        xb, yb = x[2 * idx:2 * idx + 2], y[2 * idx:2 * idx + 2]
        with tk.GradientTape() as tape:
            value = loss(yb, b(xb, training=True))
        opt.apply(tape.gradient(value, b.trainable_variables), b.trainable_variables)
    for wa, wb in zip(weights(a), weights(b)):
        np.testing.assert_allclose(wa, wb, rtol=1e-6, atol=1e-7)


def test_validation_steps_list_validation_data_and_class_weight():
    m = ones_model()
    m.compile(optimizer=tk.optimizers.SGD(0.0), loss="mse")
    yv = YS + np.arange(20, dtype="float32")[:, None]          # error i on sample i
    h = m.fit(XS, YS, batch_size=8, epochs=3, verbose=0, validation_data=[XS, yv],
              validation_steps=1)
    # each epoch's validation restarts: the first batch, samples 0-7 (Keras 3.15: 28.5 for
    # 2 steps of 5 in every epoch; it resets the validation data after each use)
    assert h.history["val_loss"] == [pytest.approx(np.mean(np.arange(8) ** 2))] * 3
    labels = (np.arange(20) % 2).astype("float32")[:, None]
    cls = tk.Sequential([tk.Input((2,)), tk.layers.Dense(1, kernel_initializer="zeros")])
    cls.compile(optimizer=tk.optimizers.SGD(0.0), loss="mse")
    h = cls.fit(XS, labels, batch_size=20, verbose=0, class_weight={1: 3.0}).history
    assert h["loss"][0] == pytest.approx((3.0 * 10) / 20)      # errors 1 on class 1 only


def test_arguments_are_checked_before_any_training_step():
    m = ones_model()
    m.compile(optimizer=tk.optimizers.SGD(0.1), loss="mse")
    kernel = m.layers[0].kernel.numpy().copy()
    with pytest.raises(ValueError, match="validation_data must be .* 4 items"):
        m.fit(XS, YS * 2, epochs=2, verbose=0, validation_data=(XS, YS, None, None))
    with pytest.raises(ValueError, match="monitor=foo.*mode='max'"):
        m.fit(XS, YS * 2, epochs=3, verbose=0,
              callbacks=[tk.callbacks.EarlyStopping(monitor="foo")])
    with pytest.raises(ValueError, match="verbose must be"):
        m.fit(XS, YS * 2, verbose=3)
    assert int(m.optimizer.iterations) == 0
    np.testing.assert_array_equal(m.layers[0].kernel.numpy(), kernel)
    # with a mode, an unknown name is Keras's warning at each epoch's end, and training runs
    with pytest.warns(UserWarning, match="`foo` which is not available"):
        m.fit(XS, YS * 2, epochs=1, verbose=0,
              callbacks=[tk.callbacks.EarlyStopping(monitor="foo", mode="min")])


def test_predict_before_compile_and_evaluate_asks_for_compile():
    m = ones_model()
    np.testing.assert_allclose(m.predict(XS, verbose=0), YS, rtol=1e-6)
    with pytest.raises(ValueError, match=r"You must call `compile\(\)` before using the model"):
        m.evaluate(XS, YS, verbose=0)
    i = tk.Input((2,))
    two = tk.Model(i, [tk.layers.Dense(1)(i), tk.layers.Dense(2)(i)])
    p1, p2 = two.predict(XS, batch_size=7, verbose=0)
    assert p1.shape == (20, 1) and p2.shape == (20, 2)


def test_a_layer_returning_none_is_named():
    class Nothing(tk.layers.Layer):
        def call(self, x):
            x * 2

    with pytest.raises(ValueError, match=r"Layer 'forgot' \(Nothing\) returned None.*`return`"):
        tk.Sequential([Nothing(name="forgot")])(XS)
    with pytest.raises(ValueError, match="Layer 'forgot2'"):
        Nothing(name="forgot2")(tk.Input((2,)))


def test_a_model_without_trainable_weights_still_fits():
    # Keras 3: a warning, and the loss is logged: mean((2x - 1)^2)
    m = tk.Sequential([tk.Input((2,)), tk.layers.Lambda(lambda t: t * 2)])
    m.compile(optimizer="sgd", loss="mse")
    with pytest.warns(UserWarning, match="does not have any trainable weights"):
        h = m.fit(XS, np.ones((20, 2)), batch_size=20, verbose=0)
    assert h.history["loss"][0] == pytest.approx(((2 * XS - 1) ** 2).mean(), rel=1e-6)


def test_callbacks_get_logs_dicts_and_the_on_batch_end_alias():
    seen = []

    class Keys(tk.callbacks.Callback):
        def on_train_begin(self, logs=None):
            seen.append(("train_begin", list(logs.keys())))

        def on_batch_end(self, batch, logs=None):         # Keras's older name
            seen.append(("batch", batch, sorted(logs)))

        def on_predict_batch_end(self, batch, logs=None):
            seen.append(("predict", batch, list(logs)))

    m = ones_model()
    m.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    m.fit(XS, YS, batch_size=10, verbose=0, callbacks=[Keys()])
    m.predict(XS, batch_size=20, verbose=0, callbacks=[Keys()])
    assert seen == [("train_begin", []), ("batch", 0, ["loss", "mae"]),
                    ("batch", 1, ["loss", "mae"]), ("predict", 0, ["outputs"])]


def test_a_recompile_without_loss_or_metrics_keeps_the_previous_ones():
    # Keras 3's compile replaces the loss only when loss= is given, the metrics only when
    # metrics= (or weighted_metrics=) is (the built-in-methods guide recompiles this way)
    m = ones_model()
    m.compile(optimizer="sgd", loss="mae", metrics=["mse"])
    m.compile(optimizer="adam")
    assert m.loss == "mae" and type(m.optimizer).__name__ == "Adam"
    d = m.evaluate(XS, YS + 1.0, verbose=0, return_dict=True)
    assert d == {"loss": pytest.approx(1.0), "mse": pytest.approx(1.0)}
    m.compile(optimizer="sgd", loss="mse")
    assert list(m.evaluate(XS, YS + 2.0, verbose=0, return_dict=True)) == ["loss", "mse"]


def test_a_generator_that_runs_out_stops_training_at_the_empty_epoch(capsys):
    # Keras 3.15 warns "Your input ran out of data; interrupting training" at epoch 2 of this
    # fit, then trains epochs 2 and 3 on the two batches it peeked at (losses 0.797, 0.776 on
    # another model: numbers of data the generator never gave again). tapekit interrupts, as
    # the warning says: epoch 2 has no batch, so it has no loss (it reported 0.0), and no
    # later epoch runs.
    def gen():
        for i in range(0, 20, 4):
            yield XS[i:i + 4], YS[i:i + 4] + i      # a different loss in every batch
    m = ones_model()
    m.compile(optimizer=tk.optimizers.SGD(0.0), loss="mse")
    with pytest.warns(UserWarning, match="ran out of data; interrupting training"):
        history = m.fit(gen(), epochs=3, verbose=2)
    assert history.history["loss"] == [pytest.approx((0 + 16 + 64 + 144 + 256) / 5)]
    assert history.epoch == [0] and int(m.optimizer.iterations) == 5
    assert capsys.readouterr().out == "Epoch 1/3\n5/5 - loss: 96.0000\nEpoch 2/3\n"


def test_train_test_and_predict_on_batch_as_keras():
    # Keras 3.15 gives these numbers for the same calls: 1.0986123, 0.33333334 (the metrics are
    # reset before each call: this batch's alone), then with class_weight {0: 2} 1.4614892,
    # 0.6666667, and test_on_batch with sample weights [1, 0, 1]: 0.7301913, 0.6666667.
    model = tk.Sequential([tk.Input((2,)), tk.layers.Dense(3, kernel_initializer="ones")])
    model.compile(optimizer="sgd", loss=tk.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    x, y = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), np.array([0, 1, 2])
    np.testing.assert_allclose(model.train_on_batch(x, y), [np.log(3.0), 1 / 3], rtol=1e-6)
    np.testing.assert_allclose(model.train_on_batch(x, y, class_weight={0: 2.0}),
                               [1.4614892, 2 / 3], rtol=1e-6)
    logs = model.test_on_batch(x, y, sample_weight=np.array([1.0, 0.0, 1.0]), return_dict=True)
    assert list(logs) == ["accuracy", "loss"]                 # Keras 3.15 orders them so too
    np.testing.assert_allclose([logs["loss"], logs["accuracy"]], [0.7301913, 2 / 3], rtol=1e-6)
    assert model.optimizer.iterations.numpy() == 2            # test_on_batch took no step
    out = model.predict_on_batch(x)
    assert isinstance(out, np.ndarray) and out.shape == (3, 3)
    np.testing.assert_allclose(out, model.predict(x, verbose=0), rtol=1e-6)


def test_on_batch_takes_one_batch_of_arrays():
    model = tk.Sequential([tk.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="train_on_batch: x must be one batch of arrays"):
        model.train_on_batch(iter([(np.ones((2, 1)), np.ones((2, 1)))]))
    with pytest.raises(ValueError, match="test_on_batch: the batch has no samples"):
        model.test_on_batch(np.ones((0, 1)), np.ones((0, 1)))
    with pytest.raises(ValueError, match="You must call `compile\\(\\)`"):
        tk.Sequential([tk.layers.Dense(1)]).train_on_batch(np.ones((2, 1)), np.ones((2, 1)))


# --- issue 43: validation generators, errors in the data, empty data --------------------------
def counting(stop=None, error=None, drawn=None):
    """Batches x = [[i, 0]], y = 0, i = 1, 2, ...: with ones_model a batch's loss is i**2."""
    i = 0
    while stop is None or i < stop:
        i += 1
        if drawn is not None:
            drawn.append(i)
        yield np.array([[float(i), 0.0]], np.float32), np.zeros((1, 1), np.float32)
    if error is not None:
        raise error


def frozen_ones_model():
    model = ones_model()
    model.compile(optimizer=tk.optimizers.SGD(0.0), loss="mse")
    return model


def test_an_endless_validation_generator_serves_every_epoch():
    # It was closed after epoch 1: only 1 of 3 epochs got val_loss, with a warning. Keras 3
    # promises that with validation_steps "the evaluation will start from the beginning of the
    # dataset at each epoch", so that every epoch is scored on the same samples: Keras 3.15
    # gives 2.5 = (1 + 4) / 2 at every epoch (it serves the two batches it peeked at again).
    # tapekit keeps the first validation's batches and reads them again: the same numbers, and
    # the generator is drawn from twice in all.
    drawn = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        history = frozen_ones_model().fit(XS, YS, epochs=3, verbose=0,
                                          validation_data=counting(drawn=drawn),
                                          validation_steps=2).history
    assert history["val_loss"] == [2.5, 2.5, 2.5] and drawn == [1, 2]


def test_validation_steps_over_a_generator_score_every_epoch_on_the_same_batches():
    # With validation_freq=2 and 4 epochs, validations 1 and 2 both read batches 1-3
    # ((1 + 4 + 9) / 3); a second fit makes a new validation pass from the generator's rest.
    gen = counting()
    model = frozen_ones_model()
    history = model.fit(XS, YS, epochs=4, verbose=0, validation_data=gen, validation_steps=3,
                        validation_freq=2).history
    assert history["val_loss"] == [pytest.approx(14 / 3)] * 2
    history = model.fit(XS, YS, epochs=2, verbose=0, validation_data=gen,
                        validation_steps=1).history
    assert history["val_loss"] == [16.0, 16.0]      # batch 4, twice


def test_an_error_raised_by_validation_data_propagates_unchanged():
    # The generator gives one batch, then raises while the first validation draws its second:
    # the exception was swallowed (the closed generator never ran on), fit returned as if all
    # was well.
    error = RuntimeError("the validation files are gone")
    model = frozen_ones_model()
    with pytest.raises(RuntimeError) as caught:
        model.fit(XS, YS, epochs=3, verbose=0, validation_data=counting(1, error),
                  validation_steps=2)
    assert caught.value is error and "val_loss" not in model.history.history
    # Keras's traceback: the call, the one frame of the wrapper, the generator's line
    frames = traceback.extract_tb(caught.value.__traceback__)
    assert [f.name for f in frames] == ["test_an_error_raised_by_validation_data_propagates_"
                                        "unchanged", "error_handler", "counting"]


@pytest.mark.parametrize("where", ["x", "validation_data", "evaluate", "predict"])
def test_an_error_raised_by_a_pydataset_or_generator_propagates_unchanged(where):
    error = KeyError("batch 1")

    class Broken(tk.utils.PyDataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            if i == 1:
                raise error
            return XS[:4], YS[:4]
    model = frozen_ones_model()
    with pytest.raises(KeyError) as caught:
        if where == "x":
            model.fit(counting(1, error), verbose=0)
        elif where == "validation_data":
            model.fit(XS, YS, verbose=0, validation_data=Broken())
        else:
            getattr(model, where)(Broken(), verbose=0)
    assert caught.value is error
    assert traceback.extract_tb(caught.value.__traceback__)[-1].name in ("counting", "__getitem__")


def test_a_validation_generator_that_runs_out_does_what_keras_does_then_says_so():
    # 3 batches, validation_steps=5: epoch 1 validates on the 3 with Keras's warning ((1 + 4 +
    # 9) / 3, Keras 3.15: 4.6666665). Every later validation reads the same 3 batches again
    # (Keras 3.15 reads only the two it peeked at, 2.5: its promise of the same samples at
    # every epoch holds here for all three).
    model = frozen_ones_model()
    with pytest.warns(UserWarning, match="ran out of data"):
        model.fit(XS, YS, epochs=3, verbose=0, validation_data=counting(3), validation_steps=5)
    assert model.history.history["val_loss"] == [pytest.approx(14 / 3)] * 3


def test_a_validation_generator_without_validation_steps_is_refused_before_training():
    # The first validation uses it up (or never ends): the others would have nothing
    model = frozen_ones_model()
    with pytest.raises(ValueError, match=r"validation_steps is None.*nothing for the other 2"):
        model.fit(XS, YS, epochs=3, verbose=0, validation_data=counting(3))
    assert int(model.optimizer.iterations) == 0
    history = frozen_ones_model().fit(XS, YS, epochs=1, verbose=0, validation_data=counting(3))
    assert history.history["val_loss"] == [pytest.approx(14 / 3)]     # one validation: fine
    history = frozen_ones_model().fit(XS, YS, epochs=3, validation_freq=3, verbose=0,
                                      validation_data=counting(3))
    assert history.history["val_loss"] == [pytest.approx(14 / 3)]


class EmptyData(tk.utils.PyDataset):
    def __len__(self):
        return 0

    def __getitem__(self, i):
        raise IndexError(i)


def no_batches():
    return
    yield


@pytest.mark.parametrize("kind", ["PyDataset", "generator", "arrays"])
@pytest.mark.parametrize("call", ["fit", "evaluate", "predict", "validation_data"])
def test_empty_data_raises_keras_error_naming_what_was_empty(kind, call):
    # Keras 3.15 raises ValueError for an empty PyDataset ('The PyDataset has length 0') and an
    # empty generator in fit, evaluate and predict (fit and evaluate returned empty results
    # here, with no error); arrays of 0 samples only warn in Keras: tapekit refuses them too.
    data = {"PyDataset": EmptyData, "generator": no_batches,
            "arrays": lambda: (XS[:0], YS[:0])}[kind]()
    model = frozen_ones_model()
    what = "validation_data" if call == "validation_data" else "x"
    message = {"PyDataset": f"^The PyDataset has length 0: {what} \\(EmptyData\\)",
               "generator": f"^When passing a Python generator .* empty generator: {what} ",
               "arrays": f"^{what} has 0 samples"}[kind]
    with pytest.raises(ValueError, match=message):
        if call == "validation_data":
            model.fit(XS, YS, verbose=0, validation_data=data)
        elif kind == "arrays":
            getattr(model, call)(*data[:1 if call == "predict" else 2], verbose=0)
        else:
            getattr(model, call)(data, verbose=0)
    assert int(model.optimizer.iterations) == 0


# --- issue 43: a training step is all or nothing ----------------------------------------------
def training_state(model):
    """Every variable a step may write: weights, the optimizer's (iterations, slots), metrics'."""
    return ([v.numpy().copy() for v in model.variables],
            [v.numpy().copy() for v in model.optimizer.variables],
            [v.numpy().copy() for m in model.metrics for v in m.variables])


def assert_same_state(a, b):
    for xs, ys in zip(a, b):
        assert len(xs) == len(ys)
        for x, y in zip(xs, ys):
            np.testing.assert_array_equal(x, y)


def adam_model(run_eagerly, metrics=None):
    tk.random.set_seed(0)
    model = tk.Sequential([tk.Input((2,)), tk.layers.Dense(3), tk.layers.Dense(1)])
    model.compile(optimizer=tk.optimizers.Adam(0.1), loss="mse", metrics=metrics,
                  run_eagerly=run_eagerly)
    return model


def failing_metric(from_call):
    calls = []

    def metric(y_true, y_pred):
        calls.append(1)
        if len(calls) >= from_call:
            raise RuntimeError("the metric failed")
        return tk.reduce_mean(y_pred)
    return metric


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_a_metric_that_raises_on_the_first_step_leaves_the_model_untouched(run_eagerly):
    # The step was left applied (iterations 1, weights changed). Keras 3.15 compiled: iterations
    # 0, kernel and loss tracker unchanged (its traced step ran nothing); eagerly Keras keeps
    # the step (iterations 1): here both leave everything as it was.
    model = adam_model(run_eagerly, metrics=[failing_metric(1)])
    model.make_train_function()                  # the optimizer's slots, made before any step
    before = training_state(model)
    with pytest.raises(RuntimeError, match="the metric failed"):
        model.fit(XS, YS, batch_size=4, verbose=0, shuffle=False)
    assert int(model.optimizer.iterations) == 0
    after = training_state(model)
    assert_same_state(before[:2], after[:2])
    assert len(after[2]) == 4 and not any(after[2])      # the loss tracker's and the metric's


def test_a_step_that_raises_later_keeps_the_steps_before_it():
    # Eagerly the metric's Python runs at every step: the third step fails after its update
    model = adam_model(True, metrics=[failing_metric(3)])
    reference = adam_model(True)
    reference.fit(XS[:8], YS[:8], batch_size=4, verbose=0, shuffle=False)    # the two steps
    with pytest.raises(RuntimeError, match="the metric failed"):
        model.fit(XS, YS, batch_size=4, verbose=0, shuffle=False)
    assert int(model.optimizer.iterations) == 2
    assert_same_state(training_state(reference)[:2], training_state(model)[:2])


class CheckedModel(tk.Model):
    """A custom train_step that checks its weights after the update: a replay that raises
    after its writes."""

    def __init__(self):
        super().__init__()
        self.dense = tk.layers.Dense(1, kernel_initializer="ones")

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tk.GradientTape() as tape:
            loss = tk.reduce_mean(tk.square(self(x, training=True) - y))
        self.optimizer.apply(tape.gradient(loss, self.trainable_variables), self.trainable_variables)
        self._loss_tracker.update_state(loss)
        tk.debugging.check_numerics(self.dense.kernel, "kernel after the update")
        return {"loss": self._loss_tracker.result()}


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_a_compiled_replay_that_raises_after_its_writes_undoes_them(run_eagerly):
    model = CheckedModel()
    model.compile(optimizer=tk.optimizers.Adam(0.1), run_eagerly=run_eagerly)
    x = np.ones((12, 2), np.float32)
    y = np.zeros((12, 1), np.float32)
    model.fit(x, y, batch_size=4, verbose=0)                   # traced, then replayed
    y[9] = np.nan                                              # batch 3 makes the kernel NaN
    model.fit(x[:8], y[:8], batch_size=4, verbose=0)           # the 2 good batches of 3
    before = training_state(model)
    with pytest.raises(tk.debugging.NumericsError, match="kernel after the update"):
        model.fit(x[8:], y[8:], batch_size=4, verbose=0)
    assert int(model.optimizer.iterations) == 5
    after = training_state(model)
    assert_same_state(before[:2], after[:2])
    assert np.isfinite(model.dense.kernel.numpy()).all() and not any(after[2])


class FailingAdam(tk.optimizers.Adam):
    """Updates the first variable, then raises: an optimizer that fails half-way."""

    def _update(self, g, var, slots, lr):
        if self.iterations.numpy() == 1 and var is not self._first:
            raise FloatingPointError("the update failed half-way")
        super()._update(g, var, slots, lr)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_an_optimizer_that_fails_half_way_changes_nothing(run_eagerly):
    model = adam_model(run_eagerly)
    model.optimizer = FailingAdam(0.1)
    model.optimizer._first = model.trainable_variables[0]
    model.fit(XS[:4], YS[:4], batch_size=4, verbose=0)              # step 1 works
    before = training_state(model)
    for fails in (lambda: model.fit(XS[:4], YS[:4], batch_size=4, verbose=0),   # step 2
                  lambda: model.train_on_batch(XS[:4], YS[:4])):
        with pytest.raises(FloatingPointError, match="half-way"):
            fails()
        after = training_state(model)
        assert_same_state(before[:2], after[:2])
        assert not any(after[2])        # reset when the epoch (the batch) began, then untouched


def test_a_callback_that_raises_after_a_step_keeps_that_step():
    # The step is done when on_train_batch_end runs (Keras 3.15 keeps it too)
    model = adam_model(False)

    class Stop(tk.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        model.fit(XS, YS, batch_size=4, verbose=0, callbacks=[Stop()])
    assert int(model.optimizer.iterations) == 1


def test_the_optimizer_is_built_before_the_first_step_so_fit_traces_once_per_shape():
    # Keras 3's symbolic build makes the optimizer's slots before the first step; inside a
    # traced step they would make tk.function trace that first call twice (as TF does)
    model = adam_model(False)
    model.fit(XS, YS, batch_size=8, epochs=2, verbose=0)     # batches of 8, 8 and 4
    assert model.train_function.experimental_get_tracing_count() == 2
    assert len(model.optimizer.variables) == 2 + 2 * 4


# --- a masked output in compile / fit / evaluate (issue 43) -------------------------------------
def sine(shape, k):
    """Fixed test data: 0.5 * sin(0.37 n + k) over the entries, in float32."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.37 + k) * 0.5).astype(np.float32).reshape(shape)


TOKENS = np.array([[1, 2, 0, 0], [3, 1, 4, 0], [0, 2, 2, 1], [4, 4, 0, 0]], np.int32)
TARGETS = sine((4, 4, 1), 5.0)


def masked_sequence_model():
    """Input(int) -> Embedding(5, 3, mask_zero=True) -> SimpleRNN(2, return_sequences) ->
    Dense(1): the prediction carries the embedding's mask; weights sine(shape, k + 1)."""
    tk.layers.clear_session()
    model = tk.Sequential([tk.Input((4,), dtype="int32"), tk.layers.Embedding(5, 3, mask_zero=True),
                           tk.layers.SimpleRNN(2, return_sequences=True), tk.layers.Dense(1)])
    model.set_weights([sine(v.shape, k + 1.0) for k, v in enumerate(model.weights)])
    return model


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_losses_and_metrics_of_a_masked_output_count_its_steps_with_data(run_eagerly):
    """Keras 3.15's numbers for this model, SGD(0.1), loss="mse", metrics=["mae"],
    weighted_metrics=["mse"]: the padded steps count in neither."""
    model = masked_sequence_model()
    model.compile(optimizer=tk.optimizers.SGD(0.1), loss="mse", metrics=["mae"],
                  weighted_metrics=["mse"], run_eagerly=run_eagerly)
    keras = {"loss": 0.1105116456747055, "mae": 0.30606013536453247, "mse": 0.11051163822412491}
    for batch_size in (4, 2):
        got = model.evaluate(TOKENS, TARGETS, batch_size=batch_size, verbose=0, return_dict=True)
        assert got == pytest.approx(keras, rel=1e-6)
    weights = np.array([1.0, 2.0, 0.5, 0.0], np.float32)
    got = model.evaluate(TOKENS, TARGETS, sample_weight=weights, batch_size=4, verbose=0,
                         return_dict=True)
    # Keras 3.15: the (4,) weights meet the (4, 4) mask from the right, one per step (so here,
    # where steps == samples, weight j goes to step j)
    assert got == pytest.approx({"loss": 0.15936210751533508, "mae": 0.30606013536453247,
                                 "mse": 0.13280175626277924}, rel=1e-6)
    assert model.train_on_batch(TOKENS, TARGETS, return_dict=True) == pytest.approx(keras, rel=1e-6)
    np.testing.assert_allclose(model.get_weights()[1], [[0.4525395, 0.3455884], [0.1939397, 0.012966],
                                                        [-0.1666854, -0.3275347]], atol=2e-7)
    np.testing.assert_allclose(model.get_weights()[3], [-0.3726574, -0.4660249], atol=2e-7)
    np.testing.assert_allclose(model.get_weights()[4], [[-0.4715206], [-0.3878325]], atol=2e-7)
    # every step padded: 0 (Keras's divide_no_nan), not NaN
    model = masked_sequence_model()
    model.compile(optimizer=tk.optimizers.SGD(0.1), loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
    assert model.evaluate(np.zeros((2, 4), np.int32), TARGETS[:2], verbose=0,
                          return_dict=True) == {"loss": 0.0, "mae": 0.0}


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_on_a_masked_output_follows_keras_3(run_eagerly):
    model = masked_sequence_model()
    model.compile(optimizer=tk.optimizers.SGD(0.1), loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
    history = model.fit(TOKENS, TARGETS, batch_size=2, epochs=2, shuffle=False, verbose=0).history
    # Keras 3.15.1
    np.testing.assert_allclose(history["loss"], [0.11139453947544098, 0.10644610971212387], rtol=1e-6)
    np.testing.assert_allclose(history["mae"], [0.3104310631752014, 0.3067483603954315], rtol=1e-6)
    np.testing.assert_allclose(model.predict(TOKENS, verbose=0)[:, :, 0], [
        [0.0226997, 0.0234566, 0.0234566, 0.0234566], [0.2306167, -0.0969415, 0.2262401, 0.2262401],
        [-0.1726527, 0.1148175, 0.0242166, -0.0240366], [0.253317, 0.1320789, 0.1320789, 0.1320789]],
        atol=2e-7)


def test_sparse_crossentropy_and_accuracy_on_a_masked_lstm_sequence():
    tk.layers.clear_session()
    model = tk.Sequential([tk.Input((4,), dtype="int32"), tk.layers.Embedding(5, 3, mask_zero=True),
                           tk.layers.LSTM(3, return_sequences=True), tk.layers.Dense(3)])
    model.set_weights([sine(v.shape, k + 2.0) for k, v in enumerate(model.weights)])
    labels = np.array([[0, 1, 2, 0], [1, 1, 2, 2], [2, 0, 1, 0], [1, 2, 0, 1]])
    model.compile(optimizer="sgd", loss=tk.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    # Keras 3.15.1: 2 of the 10 steps with data right
    assert model.evaluate(TOKENS, labels, verbose=0, return_dict=True) == pytest.approx(
        {"accuracy": 0.2, "loss": 1.102036952972412}, rel=1e-6)
