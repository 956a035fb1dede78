"""UpSampling2D (np.repeat), RepeatVector and ZeroPadding2D: values, shapes, gradients, configs."""
import numpy as np
import pytest

import tapekit as tk


def test_upsampling_repeats_rows_and_columns():
    x = np.random.default_rng(0).normal(size=(2, 3, 4, 2)).astype(np.float32)
    layer = tk.layers.UpSampling2D((2, 3))
    want = np.repeat(np.repeat(x, 2, axis=1), 3, axis=2)
    np.testing.assert_array_equal(layer(x).numpy(), want)
    assert layer.compute_output_shape((None, 3, 4, 2)) == (None, 6, 12, 2)
    assert tk.layers.UpSampling2D()(tk.Input(shape=(7, 7, 16))).shape == (None, 14, 14, 16)


def test_upsampling_gradient_sums_each_block():
    x = tk.constant(np.arange(4.0).reshape(1, 2, 2, 1))
    w = np.arange(16.0).reshape(1, 4, 4, 1)
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.reduce_sum(tk.layers.UpSampling2D(2)(x) * w)
    want = w.reshape(1, 2, 2, 2, 2, 1).sum(axis=(2, 4))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), want)


def test_upsampling_bad_arguments():
    with pytest.raises(NotImplementedError, match="interpolation='bilinear'"):
        tk.layers.UpSampling2D(interpolation="bilinear")
    with pytest.raises(ValueError, match="UpSampling2D: size must be a positive integer"):
        tk.layers.UpSampling2D(0)


def test_repeat_vector_as_keras():
    x = np.linspace(-1, 2, 12).reshape(2, 6).astype("float32")
    y = tk.layers.RepeatVector(3)(x)
    assert y.shape == (2, 3, 6) and float(tk.reduce_sum(y)) == pytest.approx(18.0)   # Keras 3.15
    np.testing.assert_array_equal(y.numpy()[:, 2], x)
    with tk.GradientTape() as tape:
        v = tk.constant(x)
        tape.watch(v)
        total = tk.reduce_sum(tk.layers.RepeatVector(3)(v) * 2.0)
    np.testing.assert_array_equal(tape.gradient(total, v).numpy(), np.full((2, 6), 6.0))
    layer = tk.layers.RepeatVector(3, name="repeat_vector")
    assert {k: v for k, v in layer.get_config().items() if k != "dtype"} == {
        "name": "repeat_vector", "trainable": True, "n": 3}
    with pytest.raises(ValueError, match="Argument `n` should be a positive integer. Received: n=0"):
        tk.layers.RepeatVector(0)
    with pytest.raises(ValueError, match="expected ndim=2, found ndim=3"):
        tk.layers.RepeatVector(2)(np.ones((2, 3, 4)))


@pytest.mark.parametrize("padding, shape, config", [
    # Keras 3.15's output shapes and configs; the sum stays 1128
    ((1, 1), (2, 5, 6, 2), [[1, 1], [1, 1]]),
    (((1, 0), (2, 3)), (2, 4, 9, 2), [[1, 0], [2, 3]]),
    (2, (2, 7, 8, 2), [[2, 2], [2, 2]]),
])
def test_zero_padding2d_as_keras(padding, shape, config):
    img = np.arange(2 * 3 * 4 * 2, dtype="float32").reshape(2, 3, 4, 2)
    layer = tk.layers.ZeroPadding2D(padding)
    y = layer(img).numpy()
    assert y.shape == shape and y.sum() == 1128.0
    assert layer.compute_output_shape((None, 3, 4, 2)) == (None, *shape[1:])
    assert layer.get_config()["padding"] == config
    again = tk.layers.ZeroPadding2D.from_config(layer.get_config())
    np.testing.assert_array_equal(again(img).numpy(), y)


def test_zero_padding2d_gradient_and_bad_padding():
    x = tk.constant(np.ones((1, 2, 2, 1), "float32"))
    theoretical, numerical = tk.test.compute_gradient(
        lambda v: tk.reduce_sum(tk.layers.ZeroPadding2D(1)(v) ** 2), [x])
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-3)
    with pytest.raises(ValueError, match=r"`padding` should have two elements. Received: "
                                         r"padding=\(1, 2, 3\)"):
        tk.layers.ZeroPadding2D((1, 2, 3))


def test_a_model_of_the_new_shape_layers_saves_and_loads(tmp_path):
    model = tk.Sequential([tk.Input((7, 3)), tk.layers.MaxPool1D(2), tk.layers.Flatten(),
                           tk.layers.RepeatVector(2), tk.layers.Softmax(),
                           tk.layers.Reshape((2, 9, 1)), tk.layers.ZeroPadding2D(1)])
    x = np.sin(np.arange(2 * 7 * 3, dtype="float32")).reshape(2, 7, 3)
    model.save(tmp_path / "m.keras")
    loaded = tk.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    assert [type(layer).__name__ for layer in loaded.layers] == [
        "MaxPooling1D", "Flatten", "RepeatVector", "Softmax", "Reshape", "ZeroPadding2D"]
