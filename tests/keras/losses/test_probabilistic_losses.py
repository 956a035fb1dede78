"""KLDivergence and Poisson against Keras 3.15 (TF 2.21) and by hand, and their gradients."""
import numpy as np
import pytest

import tapekit as tk
from tapekit import losses

EPS = 1e-7
Y = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
P = [[0.2, 0.7, 0.1], [0.3, 0.3, 0.4]]
COUNTS = [[1.0, 2.0, 0.0], [3.0, -1.0, 0.5]]
RATES = [[1.5, 1.0, 0.3], [2.0, 0.5, 0.5]]
W = [0.5, 2.0]


def close(t, expected, rtol=1e-6):
    t = t.numpy() if hasattr(t, "numpy") else t
    np.testing.assert_allclose(np.asarray(t, np.float64), expected, rtol=rtol, atol=1e-7)


def kld_by_hand(y, p):
    y, p = np.clip(np.asarray(y, np.float64), EPS, 1), np.clip(np.asarray(p, np.float64), EPS, 1)
    return (y * np.log(y / p)).sum(-1)


def poisson_by_hand(y, p):
    y, p = np.asarray(y, np.float64), np.asarray(p, np.float64)
    return (p - y * np.log(p + EPS)).mean(-1)


# Keras 3.15 on TF 2.21: [default, reduction="sum", sample_weight=W, per example]
@pytest.mark.parametrize("cls, y, p, by_hand, keras", [
    (losses.KLDivergence, Y, P, kld_by_hand, (0.78032094, 1.5606419, 1.2931378, [0.35667214, 1.2039697])),
    (losses.Poisson, COUNTS, RATES, poisson_by_hand, (0.49475327, 0.98950654, 0.3908729, [0.7981782, 0.19132833])),
])
def test_values_match_keras(cls, y, p, by_hand, keras):
    default, summed, weighted, per_example = keras
    close(by_hand(y, p), per_example, rtol=1e-5)
    close(cls()(y, p), default)
    close(cls(reduction="sum")(y, p), summed)
    close(cls()(y, p, sample_weight=W), weighted)
    close(cls(reduction="none")(y, p), per_example)
    close(cls.fn(tk.constant(y), tk.constant(p)), per_example)


def test_kl_divergence_clips_both_sides_as_keras():
    # zeros in y_true count as 1e-7 (Keras 3.15: the 0.35667214 of [0, 1, 0] above), and a 1-D
    # pair is one example (Keras 3.15: 0.14384106)
    close(losses.KLDivergence()([0.5, 0.5], [0.25, 0.75]), 0.14384106)
    assert np.isfinite(losses.kl_divergence([[1.0, 0.0]], [[0.0, 1.0]]).numpy()).all()


def test_poisson_of_a_zero_rate_stays_finite():
    close(losses.Poisson()([[1.0, 2.0]], [[0.0, 1.0]]), 8.559048)   # Keras 3.15: 8.55904769897461


@pytest.mark.parametrize("fn, y, p", [
    (losses.kl_divergence, [[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]], [[0.25, 0.5, 0.25], [0.4, 0.3, 0.3]]),
    (losses.poisson, COUNTS, RATES)])
def test_gradients_match_finite_differences(fn, y, p):
    y = tk.constant(np.array(y))
    theoretical, numerical = tk.test.compute_gradient(lambda q: fn(y, q), [np.array(p)])
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-4, atol=1e-6)   # step 1/1024
    assert np.abs(theoretical[0]).sum() > 0


def test_compile_takes_them_by_name():
    for name in ("kl_divergence", "kld", "KLD", "KLDivergence"):
        found = losses.get(name)
        assert found is losses.kl_divergence or type(found) is losses.KLDivergence
    assert losses.get("poisson") is losses.poisson and type(losses.get("Poisson")) is losses.Poisson
    model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(3, activation="softmax")])
    model.compile(optimizer="sgd", loss="kld")
    x = np.array([[1.0, 0.0, 2.0], [0.5, -1.0, 0.0]], "float32")
    y = np.array(Y, "float32")
    expected = float(losses.KLDivergence()(y, model(x)))
    assert model.evaluate(x, y, verbose=0) == pytest.approx(expected, rel=1e-6)


def test_a_model_compiled_with_kl_divergence_saves_and_loads(tmp_path):
    model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(3, activation="softmax")])
    model.compile(optimizer="sgd", loss=losses.KLDivergence())
    model.save(tmp_path / "m.keras")
    loaded = tk.models.load_model(tmp_path / "m.keras")
    assert type(loaded.loss) is losses.KLDivergence and loaded.loss.name == "kl_divergence"
    model.compile(optimizer="sgd", loss="poisson")
    model.save(tmp_path / "p.keras")
    assert tk.models.load_model(tmp_path / "p.keras").loss == "poisson"
