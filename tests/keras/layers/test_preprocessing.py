"""Rescaling, Normalization, Resizing and CenterCrop (layers/preprocessing.py): Keras 3.15's
numbers and configs, adapt, gradients, saving."""
import json

import numpy as np
import pytest

import tapekit as tk

X = np.arange(2 * 4 * 5 * 2, dtype="float32").reshape(2, 4, 5, 2) / 7.0
DATA = np.array([[1., 2.], [3., 5.], [6., 10.]], "float32")
POLICY = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
          "registered_name": None}


def test_rescaling_as_keras():
    y = tk.layers.Rescaling(1 / 255., offset=-1)(X).numpy()
    # Keras 3.15 gives -1.0, -0.9994397759437561, ... and the sum -78.22969055175781
    np.testing.assert_allclose(y.ravel()[:3], [-1.0, -0.9994397759437561, -0.9988795518875122],
                               rtol=1e-7)
    assert float(y.sum()) == pytest.approx(-78.22969055175781, rel=1e-6)
    ints = tk.layers.Rescaling(0.5)(np.arange(6, dtype="int32").reshape(2, 3))
    assert ints.dtype == tk.float32 and ints.numpy().ravel().tolist() == [0, .5, 1, 1.5, 2, 2.5]


def test_normalization_adapt_as_keras():
    norm = tk.layers.Normalization()
    norm.adapt(DATA)
    # Keras 3.15 gives mean [[3.3333333, 5.6666665]], variance [[4.2222223, 10.888889]]
    np.testing.assert_allclose(norm.mean.numpy(), [[3.3333332538604736, 5.666666507720947]])
    np.testing.assert_allclose(norm.variance.numpy(), [[4.222222328186035, 10.88888931274414]])
    # Keras 3.15 gives these outputs
    np.testing.assert_allclose(norm(DATA).numpy().ravel(), [
        -1.135549783706665, -1.1111677885055542, -0.16222137212753296, -0.2020304650068283,
        1.2977713346481323, 1.3131983280181885], rtol=1e-6)
    assert [(w.name, w.shape, w.dtype, w.trainable) for w in norm.weights] == [
        ("mean", (2,), tk.float32, False), ("variance", (2,), tk.float32, False),
        ("count", (), tk.int64, False)]


def test_normalization_axis_none_and_images():
    norm = tk.layers.Normalization(axis=None)
    norm.adapt(DATA)
    # Keras 3.15 gives mean 4.5, variance 8.916667 and these outputs
    assert norm.mean.shape == (1, 1) and float(norm.mean.numpy()[0, 0]) == pytest.approx(4.5)
    np.testing.assert_allclose(norm(DATA).numpy().ravel()[:3],
                               [-1.1721056699752808, -0.8372182846069336, -0.5023309588432312],
                               rtol=1e-6)
    per_channel = tk.layers.Normalization()
    per_channel.adapt(X)
    # Keras 3.15 gives mean [[[[5.5714288, 5.7142859]]]] of shape (1, 1, 1, 2)
    assert per_channel.mean.shape == (1, 1, 1, 2)
    np.testing.assert_allclose(per_channel.mean.numpy().ravel(),
                               [5.5714287757873535, 5.714285850524902], rtol=1e-6)


def test_normalization_adapt_over_batches_merges_them():
    whole = tk.layers.Normalization()
    whole.adapt(X.reshape(-1, 2))
    batched = tk.layers.Normalization()
    batched.adapt([X[0].reshape(-1, 2), X[1].reshape(-1, 2)])
    np.testing.assert_allclose(batched.mean.numpy(), whole.mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(batched.variance.numpy(), whole.variance.numpy(), rtol=1e-5)


def test_normalization_given_statistics_and_invert():
    norm = tk.layers.Normalization(mean=[1., 2.], variance=[4., 9.], invert=True)
    # Keras 3.15 gives [3, 8, 7, 17, 13, 32]
    assert norm(DATA).numpy().ravel().tolist() == [3., 8., 7., 17., 13., 32.]
    assert norm.weights == []


def test_normalization_gradient_matches_finite_differences():
    norm = tk.layers.Normalization(mean=[1., 2.], variance=[4., 9.])
    x = tk.constant(DATA)
    theoretical, numerical = tk.test.compute_gradient(lambda v: norm(v) * norm(v), [x])
    np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("kwargs, message", [
    (dict(mean=[1.]), "both `mean` and `variance` must be set"),
    (dict(mean=[1., 2.], variance=[1.]), "must have the same shape"),
    (dict(mean=[[1.]], variance=[[1.]]), "The rank of `mean` must be less than or equal"),
])
def test_normalization_bad_statistics_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tk.layers.Normalization(**kwargs)


def test_normalization_adapt_refuses_an_incompatible_shape():
    norm = tk.layers.Normalization()
    norm.adapt(DATA)
    with pytest.raises(ValueError, match=r"built with input_shape=\(3, 2\).*data.shape=\(3, 3\)"):
        norm.adapt(np.ones((3, 3)))
    with pytest.raises(ValueError, match="empty iterable"):
        tk.layers.Normalization().adapt([])


def test_an_adapted_normalization_saves_and_loads(tmp_path):
    norm = tk.layers.Normalization()
    model = tk.Sequential([tk.Input((2,)), norm, tk.layers.Dense(1)])
    norm.adapt(DATA)
    model.save(tmp_path / "m.keras")
    loaded = tk.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded.predict(DATA, verbose=0), model.predict(DATA, verbose=0))
    np.testing.assert_allclose(loaded.layers[0].mean.numpy(), norm.mean.numpy())


@pytest.mark.parametrize("layer, first, total", [
    # Keras 3.15 gives these first values and sums
    (tk.layers.Resizing(3, 7), [0.2380952686071396, 0.3809524178504944, 0.40136057138442993],
     473.9999694824219),
    (tk.layers.Resizing(3, 7, interpolation="nearest"),
     [0.0, 0.1428571492433548, 0.2857142984867096], 494.0),
    (tk.layers.Resizing(3, 3, crop_to_aspect_ratio=True),
     [0.285714328289032, 0.4285714626312256, 0.6666667461395264], 197.99998474121094),
    (tk.layers.CenterCrop(2, 3), [1.7142857313156128, 1.8571428060531616, 2.0],
     135.42855834960938),
    (tk.layers.CenterCrop(6, 3), [0.2857142984867096, 0.4285714328289032, 0.4285714626312256],
     396.0),
])
def test_resizing_and_center_crop_as_keras(layer, first, total):
    y = layer(X).numpy()
    assert y.shape == (2, layer.height, layer.width, 2)
    assert layer.compute_output_shape((None, 4, 5, 2)) == (None, layer.height, layer.width, 2)
    np.testing.assert_allclose(y.ravel()[:3], first, rtol=1e-6)
    assert float(y.sum()) == pytest.approx(total, rel=1e-6)


def test_resizing_and_center_crop_pass_gradients():
    w = np.cos(np.arange(2 * 3 * 3 * 2)).reshape(2, 3, 3, 2)
    for layer in (tk.layers.Resizing(3, 3), tk.layers.CenterCrop(3, 3)):
        theoretical, numerical = tk.test.compute_gradient(
            lambda v: tk.reduce_sum(layer(v) * w), [tk.constant(X)])
        np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-3, atol=1e-3)


# Keras 3.15's get_config of each layer (as its .keras file's config.json holds it)
KERAS_CONFIGS = {
    "Rescaling": {"name": "rescaling", "trainable": True, "dtype": POLICY,
                  "scale": 0.00392156862745098, "offset": -1},
    "Normalization": {"name": "normalization_1", "trainable": True, "dtype": POLICY,
                      "axis": [-1], "invert": True, "mean": [1.0, 2.0],
                      "variance": [4.0, 9.0]},
    "Resizing": {"name": "resizing", "trainable": True, "dtype": POLICY,
                 "data_format": "channels_last", "height": 3, "width": 7,
                 "interpolation": "bilinear", "crop_to_aspect_ratio": False,
                 "pad_to_aspect_ratio": False, "fill_mode": "constant", "fill_value": 0.0,
                 "antialias": False},
    "CenterCrop": {"name": "center_crop", "trainable": True, "dtype": POLICY,
                   "data_format": "channels_last", "height": 2, "width": 3},
}


@pytest.mark.parametrize("name", sorted(KERAS_CONFIGS))
def test_keras_3s_configs_load_and_come_back_the_same(name):
    config = KERAS_CONFIGS[name]
    layer = getattr(tk.layers, name).from_config(json.loads(json.dumps(config)))
    assert layer.get_config() == config


def test_a_preprocessing_model_saves_and_loads(tmp_path):
    model = tk.Sequential([tk.Input((4, 5, 2)), tk.layers.Rescaling(2.0),
                           tk.layers.Resizing(3, 3), tk.layers.CenterCrop(2, 2)])
    model.save(tmp_path / "m.keras")
    loaded = tk.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    assert [type(layer).__name__ for layer in loaded.layers] == [
        "Rescaling", "Resizing", "CenterCrop"]


@pytest.mark.parametrize("make, error, message", [
    (lambda: tk.layers.Resizing(0, 3), ValueError, "height must be a positive integer"),
    (lambda: tk.layers.Resizing(2, 3, interpolation="bicubic"), ValueError, "interpolation"),
    (lambda: tk.layers.Resizing(2, 3, antialias=True), NotImplementedError, "antialias"),
    (lambda: tk.layers.CenterCrop(2, 3, data_format="channels_first"), ValueError,
     "channels_last"),
])
def test_bad_arguments_are_refused(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_a_non_image_input_is_refused():
    with pytest.raises(ValueError, match=r"Resizing 'resizing.*': expected images .* \(2, 5\)"):
        tk.layers.Resizing(2, 2)(np.ones((2, 5)))


IDS = np.array([[0, 1], [0, 0], [1, 2], [3, 1]])


@pytest.mark.parametrize("mode, expected", [
    # Keras 3.15 gives these
    ("multi_hot", [[1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 1, 0], [0, 1, 0, 1]]),
    ("count", [[1, 1, 0, 0], [2, 0, 0, 0], [0, 1, 1, 0], [0, 1, 0, 1]]),
    ("one_hot", [[[1, 0, 0, 0], [0, 1, 0, 0]], [[1, 0, 0, 0], [1, 0, 0, 0]],
                 [[0, 1, 0, 0], [0, 0, 1, 0]], [[0, 0, 0, 1], [0, 1, 0, 0]]]),
])
def test_category_encoding_as_keras(mode, expected):
    layer = tk.layers.CategoryEncoding(num_tokens=4, output_mode=mode)
    y = layer(IDS)
    assert y.dtype == tk.float32 and y.numpy().tolist() == expected
    assert layer.compute_output_shape((None, 2)) == tuple(
        [None, 2, 4] if mode == "one_hot" else [None, 4])


def test_category_encoding_rank_one_count_weights_and_a_trailing_one():
    # Keras 3.15: a rank-1 input is one sample (multi_hot), one id a row (one_hot)
    assert tk.layers.CategoryEncoding(num_tokens=4)(np.array([3, 2, 0, 1])).numpy().tolist() == [
        1, 1, 1, 1]
    counts = tk.layers.CategoryEncoding(num_tokens=4, output_mode="count")(
        np.array([[0, 1], [0, 0]]), count_weights=np.array([[0.5, 2.0], [1.0, 1.0]]))
    assert counts.numpy().tolist() == [[0.5, 2.0, 0, 0], [2.0, 0, 0, 0]]    # Keras 3.15's
    one = tk.layers.CategoryEncoding(num_tokens=3, output_mode="one_hot")(np.array([[0], [2]]))
    assert one.numpy().tolist() == [[1, 0, 0], [0, 0, 1]]


def test_category_encoding_config_saving_and_errors(tmp_path):
    config = {"name": "category_encoding", "trainable": True, "dtype": POLICY,
              "num_tokens": 4, "output_mode": "multi_hot"}          # Keras 3.15's config
    assert tk.layers.CategoryEncoding.from_config(config).get_config() == config
    model = tk.Sequential([tk.Input((2,), dtype="int64"),
                           tk.layers.CategoryEncoding(num_tokens=4, output_mode="count")])
    model.save(tmp_path / "m.keras")
    loaded = tk.models.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(loaded.predict(IDS, verbose=0), model.predict(IDS, verbose=0))
    with pytest.raises(ValueError, match=r"ids must be in 0 .. 3 \(num_tokens=4\), got \[5\]"):
        tk.layers.CategoryEncoding(num_tokens=4)(np.array([[5, 1]]))       # Keras drops it
    with pytest.raises(ValueError, match="num_tokens must be set to use this layer"):
        tk.layers.CategoryEncoding()
    with pytest.raises(ValueError, match="Unknown arg for output_mode: x"):
        tk.layers.CategoryEncoding(num_tokens=4, output_mode="x")
