"""The Random* augmentation layers (layers/image_augmentation.py). Their draws come from
tapekit's generator, not TensorFlow's, so what is tested is what Keras 3.15 defines: the
inference identity, the shapes, the ranges and the geometry of each transform, determinism
under a seed, gradients, configs and saving."""
import json

import numpy as np
import pytest

import tapekit as tk

RNG = np.random.default_rng(0)
IMAGES = RNG.uniform(0, 255, size=(3, 6, 8, 2)).astype("float32")
POLICY = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
          "registered_name": None}


def layers():
    return [tk.layers.RandomFlip(), tk.layers.RandomRotation(0.2),
            tk.layers.RandomZoom(0.2), tk.layers.RandomTranslation(0.1, 0.2),
            tk.layers.RandomContrast(0.3), tk.layers.RandomCrop(4, 5)]


@pytest.mark.parametrize("layer", layers(), ids=lambda layer: type(layer).__name__)
def test_inference_returns_the_input(layer):
    # Keras 3.15: training=False gives the input unchanged (RandomCrop too, whatever its size)
    np.testing.assert_array_equal(layer(IMAGES, training=False).numpy(), IMAGES)
    model = tk.Sequential([tk.Input((6, 8, 2)), layer])
    np.testing.assert_array_equal(model.predict(IMAGES, verbose=0), IMAGES)


@pytest.mark.parametrize("index", range(6))
def test_training_is_seeded_and_repeats_under_a_seed(index):
    def run():
        tk.random.set_seed(7)
        return layers()[index](IMAGES).numpy()       # training defaults to True, as Keras 3
    first, second = run(), run()
    np.testing.assert_array_equal(first, second)
    tk.random.set_seed(8)
    assert not np.array_equal(first, layers()[index](IMAGES).numpy())
    expected = (3, 4, 5, 2) if index == 5 else IMAGES.shape
    assert first.shape == expected


def test_random_flip_flips_whole_images_only():
    tk.random.set_seed(0)
    out = tk.layers.RandomFlip("horizontal")(IMAGES).numpy()
    for image, flipped in zip(IMAGES, out):
        assert np.array_equal(flipped, image) or np.array_equal(flipped, image[:, ::-1])
    seen = set()
    for _ in range(10):
        out = tk.layers.RandomFlip("vertical")(IMAGES).numpy()
        for image, flipped in zip(IMAGES, out):
            up_down = np.array_equal(flipped, image[::-1])
            assert up_down or np.array_equal(flipped, image)
            seen.add(up_down)
    assert seen == {True, False}


def test_rotation_by_a_quarter_turn_is_rot90_counter_clockwise():
    square = IMAGES[:, :6, :6]
    out = tk.layers.RandomRotation((0.25, 0.25))(square).numpy()
    np.testing.assert_allclose(out, np.rot90(square, 1, axes=(1, 2)), rtol=1e-6)
    half = tk.layers.RandomRotation((0.5, 0.5), interpolation="nearest")(square).numpy()
    np.testing.assert_array_equal(half, square[:, ::-1, ::-1])


@pytest.mark.parametrize("fill_mode, column", [
    # a shift right by 2 of the row 1 2 3 4: what fills the two columns on the left
    ("reflect", [2, 1, 1, 2]), ("wrap", [3, 4, 1, 2]), ("nearest", [1, 1, 1, 2]),
    ("constant", [-1, -1, 1, 2])])
def test_translation_fill_modes(fill_mode, column):
    row = np.array([1., 2., 3., 4.], "float32").reshape(1, 1, 4, 1)
    layer = tk.layers.RandomTranslation(0.0, (0.5, 0.5), fill_mode=fill_mode, fill_value=-1)
    assert layer(row).numpy().ravel().tolist() == column


def test_zoom_out_and_in_keep_the_centre():
    image = np.arange(25, dtype="float32").reshape(1, 5, 5, 1)
    zoom_in = tk.layers.RandomZoom((-0.5, -0.5), interpolation="nearest")(image).numpy()
    zoom_out = tk.layers.RandomZoom((1.0, 1.0), fill_mode="constant")(image).numpy()
    assert zoom_in[0, 2, 2, 0] == 12 and zoom_out[0, 2, 2, 0] == 12
    # zoom in 2x: the 3x3 centre fills the picture; zoom out 2x: every other pixel, zeros around
    assert zoom_in[0, 1:4, 1:4, 0].tolist() == [[12] * 3] * 3
    assert zoom_out[0, 1:4, 1:4, 0].tolist() == [[0, 2, 4], [10, 12, 14], [20, 22, 24]]
    assert zoom_out[0, 0].ravel().tolist() == [0] * 5


def test_draws_stay_within_the_documented_ranges():
    tk.random.set_seed(1)
    layer = tk.layers.RandomRotation(0.1)
    for _ in range(5):
        angles = layer._uniform((200, 1, 1), *layer.factor)
        assert angles.min() >= -0.1 and angles.max() <= 0.1
    contrast = tk.layers.RandomContrast(0.5, value_range=(0, 255))
    out = contrast(IMAGES).numpy()
    assert out.min() >= 0 and out.max() <= 255
    # each image's per-channel mean is kept where nothing is clipped
    mid = tk.layers.RandomContrast(0.5, value_range=(-1e9, 1e9))(IMAGES).numpy()
    np.testing.assert_allclose(mid.mean(axis=(1, 2)), IMAGES.mean(axis=(1, 2)), rtol=1e-5)
    spread = mid.std(axis=(1, 2)) / IMAGES.std(axis=(1, 2))
    # Keras 3.15 draws the contrast factor from [1 - 0, 1 + 0.5] for factor=0.5
    assert (spread >= 1 - 1e-5).all() and (spread <= 1.5 + 1e-5).all()


def test_random_crop_windows_come_from_the_image():
    tk.random.set_seed(3)
    out = tk.layers.RandomCrop(4, 5)(IMAGES).numpy()
    windows = [IMAGES[:, t:t + 4, l:l + 5] for t in range(3) for l in range(4)]
    assert any(np.array_equal(out, w) for w in windows)
    small = tk.layers.RandomCrop(8, 8)(IMAGES).numpy()    # not larger: crop to 1:1 and resize
    assert small.shape == (3, 8, 8, 2)


def test_gradients_flow_to_the_pixels_read():
    x = tk.constant(IMAGES[:1, :4, :4, :1] / 255)
    w = np.cos(np.arange(16)).reshape(1, 4, 4, 1)
    def seeded(layer):          # the same draw at every evaluation of the finite differences
        def f(v):
            tk.random.set_seed(0)
            return tk.reduce_sum(layer(v) * w)
        return f
    for layer in (tk.layers.RandomRotation(0.1), tk.layers.RandomZoom(0.3),
                  tk.layers.RandomTranslation(0.2, 0.2),
                  tk.layers.RandomContrast(0.5, value_range=(-10, 10))):
        theoretical, numerical = tk.test.compute_gradient(seeded(layer), [x])
        np.testing.assert_allclose(theoretical[0], numerical[0], rtol=1e-3, atol=1e-3)


# Keras 3.15's get_config of each layer (seed as given; RandomCrop(2, 3, seed=5))
KERAS_CONFIGS = {
    "RandomFlip": {"name": "random_flip", "trainable": True, "dtype": POLICY,
                   "data_format": "channels_last", "seed": None,
                   "mode": "horizontal_and_vertical"},
    "RandomRotation": {"name": "random_rotation", "trainable": True, "dtype": POLICY,
                       "data_format": "channels_last", "factor": [-0.2, 0.2],
                       "fill_mode": "reflect", "fill_value": 0.0, "interpolation": "bilinear",
                       "seed": None},
    "RandomZoom": {"name": "random_zoom", "trainable": True, "dtype": POLICY,
                   "data_format": "channels_last", "height_factor": 0.2, "width_factor": None,
                   "fill_mode": "reflect", "interpolation": "bilinear", "seed": None,
                   "fill_value": 0.0},
    "RandomTranslation": {"name": "random_translation", "trainable": True, "dtype": POLICY,
                          "data_format": "channels_last", "height_factor": 0.1,
                          "width_factor": 0.2, "fill_mode": "reflect",
                          "interpolation": "bilinear", "seed": None, "fill_value": 0.0},
    "RandomContrast": {"name": "random_contrast", "trainable": True, "dtype": POLICY,
                       "data_format": "channels_last", "factor": [0, 0.3],
                       "value_range": [0, 255], "seed": None},
    "RandomCrop": {"name": "random_crop", "trainable": True, "dtype": POLICY,
                   "data_format": "channels_last", "height": 2, "width": 3, "seed": 5},
}


@pytest.mark.parametrize("name", sorted(KERAS_CONFIGS))
def test_keras_3s_configs_load_and_come_back_the_same(name):
    config = KERAS_CONFIGS[name]
    layer = getattr(tk.layers, name).from_config(json.loads(json.dumps(config)))
    assert layer.get_config() == config


def test_an_augmenting_model_saves_loads_and_trains(tmp_path):
    model = tk.Sequential([tk.Input((6, 8, 2)), tk.layers.RandomFlip("horizontal"),
                           tk.layers.RandomRotation(0.1), tk.layers.Flatten(),
                           tk.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(IMAGES / 255, np.ones((3, 1)), epochs=1, verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = tk.models.load_model(tmp_path / "m.keras")
    np.testing.assert_allclose(loaded.predict(IMAGES, verbose=0), model.predict(IMAGES, verbose=0),
                               rtol=1e-6)


@pytest.mark.parametrize("make, error, message", [
    # Keras 3.15's messages
    (lambda: tk.layers.RandomContrast(1.5), ValueError, r"in the range \[0, 1\]"),
    (lambda: tk.layers.RandomRotation(0.2, fill_mode="x"), NotImplementedError,
     "Unknown `fill_mode` x"),
    (lambda: tk.layers.RandomZoom(-1.5), ValueError, r"in the range \(-1.0, 1.0\]"),
    (lambda: tk.layers.RandomTranslation(1.5, 0.1), ValueError, r"in the range \[-1.0, 1.0\]"),
    (lambda: tk.layers.RandomFlip("diagonal"), ValueError, "unknown mode"),    # Keras accepts it
])
def test_bad_arguments_are_refused(make, error, message):
    with pytest.raises(error, match=message):
        make()
