"""Hinge, SquaredHinge, CategoricalHinge against Keras 3.15 (TF 2.21) and by hand, and their gradients."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import losses
from tapekit.keras.losses.hinge_losses import binary_labels_to_hinge

Y = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]            # 0/1 labels: read as -1/1
P = [[0.2, 0.7, 0.1], [0.3, 0.3, 0.4]]
W = [0.5, 2.0]


def close(t, expected, rtol=1e-6):
    t = t.numpy() if hasattr(t, "numpy") else t
    np.testing.assert_allclose(np.asarray(t, np.float64), expected, rtol=rtol, atol=1e-7)


def by_hand(name, y, p):
    y, p = np.asarray(y, np.float64), np.asarray(p, np.float64)
    if name == "categorical_hinge":
        return np.maximum(((1 - y) * p).max(-1) - (y * p).sum(-1) + 1, 0)
    if np.isin(y, (0, 1)).all():
        y = 2 * y - 1
    margin = np.maximum(1 - y * p, 0)
    return (margin if name == "hinge" else margin ** 2).mean(-1)


# Keras 3.15 on TF 2.21, on Y and P above: [default, reduction="sum", sample_weight=W, per example]
KERAS = {
    losses.Hinge: (1.0, 2.0, 1.35, [0.8666666, 1.1333333]),
    losses.SquaredHinge: (1.1466668, 2.2933335, 1.6083333, [0.9133334, 1.38]),
    losses.CategoricalHinge: (0.8, 1.6, 1.225, [0.5, 1.1]),
}


@pytest.mark.parametrize("cls", list(KERAS))
def test_values_match_keras(cls):
    default, summed, weighted, per_example = KERAS[cls]
    hand = by_hand(cls().name, Y, P)
    close(hand, per_example)                                   # the formula is Keras's
    close(cls()(Y, P), default)
    close(cls(reduction="sum")(Y, P), summed)
    close(cls()(Y, P, sample_weight=W), weighted)
    close(cls(reduction="none")(Y, P), per_example)
    close(cls.fn(tk.constant(Y), tk.constant(P)), per_example)  # keras.losses.hinge, ...


def test_labels_already_minus_one_or_one_are_kept():
    y, p = [[1.0, -1.0], [-1.0, 1.0]], [[0.3, -2.0], [0.8, 0.4]]
    close(losses.Hinge()(y, p), 0.775)          # Keras 3.15: 0.7750000357627869
    close(losses.SquaredHinge()(y, p), 1.0225)  # Keras 3.15: 1.022499918937683
    close(binary_labels_to_hinge(tk.constant([0.0, 1.0, 1.0])), [-1.0, 1.0, 1.0])
    close(binary_labels_to_hinge(tk.constant([0.0, 1.0, 0.5])), [0.0, 1.0, 0.5])   # not all 0/1


def test_the_label_conversion_is_replayed_by_tk_function():
    f = tk.function(lambda y, p: losses.hinge(y, p))
    close(f(tk.constant([[0.0, 1.0]]), tk.constant([[0.5, 0.5]])), [1.0])    # labels -1, 1
    close(f(tk.constant([[-1.0, 1.0]]), tk.constant([[0.5, 0.5]])), [1.0])
    close(f(tk.constant([[2.0, 1.0]]), tk.constant([[0.25, 0.5]])), [0.5])   # kept: (0.5 + 0.5) / 2


@pytest.mark.parametrize("fn", [losses.hinge, losses.squared_hinge, losses.categorical_hinge])
def test_gradients_match_finite_differences(fn):
    y = tk.constant(np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]))
    p = np.array([[0.2, 0.7, 0.1], [0.3, 0.35, 0.45]])       # away from every kink
    theoretical, numerical = tk.test.compute_gradient(lambda q: fn(y, q), [p])
    np.testing.assert_allclose(theoretical[0], numerical[0], atol=1e-6)
    assert np.abs(theoretical[0]).sum() > 0


def test_compile_takes_them_by_name():
    assert losses.get("hinge") is losses.hinge and losses.get("squared_hinge") is losses.squared_hinge
    assert losses.get("categorical_hinge") is losses.categorical_hinge
    assert type(losses.get("CategoricalHinge")) is losses.CategoricalHinge
    model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(3)])
    model.compile(optimizer="sgd", loss="categorical_hinge")
    x = np.array([[1.0, 0.0, 2.0], [0.5, -1.0, 0.0]], "float32")
    y = np.array(Y, "float32")
    expected = float(losses.CategoricalHinge()(y, model(x)))
    assert model.evaluate(x, y, verbose=0) == pytest.approx(expected, rel=1e-6)


def test_a_model_compiled_with_a_hinge_loss_saves_and_loads(tmp_path):
    model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(3)])
    model.compile(optimizer="sgd", loss=losses.SquaredHinge(reduction="sum"))
    model.save(tmp_path / "m.keras")
    loaded = tk.models.load_model(tmp_path / "m.keras")
    assert type(loaded.loss) is losses.SquaredHinge and loaded.loss.reduction == "sum"
    x = np.array([[1.0, 0.0, 2.0]], "float32")
    assert float(loaded.loss([[0.0, 1.0, 0.0]], loaded(x))) == float(model.loss([[0.0, 1.0, 0.0]], model(x)))
