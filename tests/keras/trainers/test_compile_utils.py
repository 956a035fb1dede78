"""compile's losses and metrics per output (tapekit/keras/trainers/compile_utils.py): lists and
dicts keyed by the output layers' names, Keras 3's log names and order, an output without a
loss, and the errors that name the outputs. Numbers are checked against the predictions by
hand."""
import numpy as np
import pytest

import tapekit as tk

XS = np.arange(40, dtype="float32").reshape(20, 2) / 40
YS = XS.sum(1, keepdims=True)


def two_outputs(seed=0):
    tk.random.set_seed(seed)
    tk.layers.clear_session()
    i = tk.Input((2,), name="a")
    o1 = tk.layers.Dense(1, name="o1")(i)
    o2 = tk.layers.Dense(2, name="o2")(i)
    return tk.Model(i, [o1, o2])


def test_compile_per_output_lists_and_dicts_with_keras_log_names():
    y2 = np.ones((20, 2), "float32")
    m = two_outputs()
    m.compile(optimizer=tk.optimizers.SGD(0.0), loss=["mse", "mae"],
              metrics=[["mae"], ["mse", "mae"]], loss_weights=[1.0, 0.5])
    p1, p2 = m.predict(XS, verbose=0)
    l1, l2 = ((p1 - YS) ** 2).mean(), np.abs(p2 - y2).mean()
    h = m.fit(XS, [YS, y2], batch_size=20, epochs=1, verbose=0).history
    assert list(h) == ["loss", "o1_loss", "o1_mae", "o2_loss", "o2_mae", "o2_mse"]
    assert h["o1_loss"][0] == pytest.approx(l1, rel=1e-5)
    assert h["o2_loss"][0] == pytest.approx(l2, rel=1e-5)        # unweighted, as Keras logs it
    assert h["loss"][0] == pytest.approx(l1 + 0.5 * l2, rel=1e-5)
    assert h["o2_mse"][0] == pytest.approx(((p2 - y2) ** 2).mean(), rel=1e-5)
    assert m.metrics_names == ["loss", "compile_metrics", "o1_loss", "o2_loss"]
    # evaluate's list: loss, each output's loss, then the rest sorted (Keras 3's order)
    ev = m.evaluate(XS, [YS, y2], verbose=0)
    assert ev == pytest.approx([l1 + 0.5 * l2, l1, l2, np.abs(p1 - YS).mean(), l2,
                                ((p2 - y2) ** 2).mean()], rel=1e-5)
    # dicts keyed by the output layers' names, for compile and for y
    m.compile(optimizer=tk.optimizers.SGD(0.0), loss={"o2": "mse", "o1": "mae"},
              metrics={"o1": "mae"}, loss_weights={"o1": 2.0, "o2": 1.0})
    h = m.fit(XS, {"o1": YS, "o2": y2}, batch_size=20, verbose=0).history
    a1, s2 = np.abs(p1 - YS).mean(), ((p2 - y2) ** 2).mean()
    assert list(h) == ["loss", "o1_loss", "o1_mae", "o2_loss"]
    assert h["loss"][0] == pytest.approx(2 * a1 + s2, rel=1e-5)


def test_an_output_without_a_loss_is_not_trained():
    m = two_outputs()
    m.compile(optimizer=tk.optimizers.SGD(0.1), loss=[None, "mse"])
    before = m.get_layer("o1").kernel.numpy().copy()
    with pytest.warns(UserWarning, match="Gradients do not exist"):
        h = m.fit(XS, [YS, np.ones((20, 2))], batch_size=20, verbose=0).history
    assert list(h) == ["loss"]
    np.testing.assert_array_equal(m.get_layer("o1").kernel.numpy(), before)


def test_compile_errors_name_the_outputs():
    m = two_outputs()
    m.compile(optimizer="sgd", loss={"o3": "mse"})
    with pytest.raises(ValueError, match=r"keys \['o3'\] are not names .*\['o1', 'o2'\]"):
        m.fit(XS, [YS, YS], verbose=0)
    with pytest.raises(ValueError, match="Expected `metrics` argument to be a list"):
        m.compile(optimizer="sgd", loss="mse", metrics="mae")
    with pytest.raises(ValueError, match="Could not interpret metric identifier: 'maee'"):
        m.compile(optimizer="sgd", loss="mse", metrics=["maee"])


def test_metrics_for_several_outputs_are_one_item_per_output_as_keras_3():
    # Keras 3.15: ["mae", "mse"] on outputs o1, o2 logs o1_mae and o2_mse; ["mae"] is an error
    m = two_outputs()
    m.compile(optimizer="sgd", loss="mse", metrics=["mae", "mse"])
    h = m.fit(XS, [YS, np.ones((20, 2))], verbose=0).history
    assert list(h) == ["loss", "o1_loss", "o1_mae", "o2_loss", "o2_mse"]
    m.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    with pytest.raises(ValueError, match=r"Invalid `metrics`.* 2 outputs \['o1', 'o2'\]"):
        m.fit(XS, [YS, np.ones((20, 2))], verbose=0)


def _identity_model(loss, metrics=()):
    model = tk.Sequential([tk.Input((1,)), tk.layers.Dense(1, use_bias=False)])
    model.set_weights([np.ones((1, 1), np.float32)])     # y_pred = x
    model.compile(optimizer="sgd", loss=loss, metrics=list(metrics))
    return model


def test_a_loss_function_gets_labels_of_the_predictions_rank_and_float32():
    # Keras 3.15 gives 0.33333334 for both: labels (3,) are one column against predictions
    # (3, 1), and int labels reach the function as float32. By hand: (1-1)^2, (2-2)^2, (3-4)^2
    # over 3 = 1/3. tapekit broadcast (3,) against (3, 1) to a 3x3 grid: 21/9 = 2.3333, and
    # raised for int labels (int64 - float32).
    model = _identity_model(lambda a, b: tk.reduce_mean((a - b) ** 2))
    x = np.array([[1.0], [2.0], [3.0]], np.float32)
    assert model.evaluate(x, np.array([1.0, 2.0, 4.0]), verbose=0) == pytest.approx(1 / 3)
    assert model.evaluate(x, np.array([1, 2, 4]), verbose=0) == pytest.approx(1 / 3)


def test_a_metric_function_is_named_in_snake_case_as_keras():
    # Keras 3.15's logs: "lambda" for a lambda, "mean_diff" for meanDiff (tapekit: "<lambda>",
    # "meanDiff"); values by hand: mean of y_pred = 2, mean(y_pred - y) = 2 - 7/3
    def meanDiff(a, b):   # noqa: N802 - a user's camelCase name, as Keras renames it
        return tk.reduce_mean(b - a)
    model = _identity_model("mse", [lambda a, b: tk.reduce_mean(b), meanDiff])
    logs = model.evaluate(np.array([[1.0], [2.0], [3.0]], np.float32),
                          np.array([[1.0], [2.0], [4.0]], np.float32), verbose=0, return_dict=True)
    assert set(logs) == {"loss", "lambda", "mean_diff"}
    assert logs["lambda"] == pytest.approx(2.0) and logs["mean_diff"] == pytest.approx(-1 / 3)
