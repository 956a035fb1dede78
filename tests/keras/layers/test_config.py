"""Layers' get_config / from_config with Keras 3's keys (issue 32).

The expected dicts are the keys and values Keras 3.15's get_config returns for the same
layers (read off its output); from_config must take them back, extra Keras keys included,
and refuse what tapekit's layers cannot do. No TensorFlow here.
"""
import re

import numpy as np
import pytest

import tapekit as tk

L = tk.layers
POLICY = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
          "registered_name": None}
GLOROT = {"module": "keras.initializers", "class_name": "GlorotUniform",
          "config": {"seed": None, "input_axes": None, "output_axes": None},
          "registered_name": None}
ZEROS = {"module": "keras.initializers", "class_name": "Zeros", "config": {},
         "registered_name": None}
ONES = {"module": "keras.initializers", "class_name": "Ones", "config": {},
        "registered_name": None}

KERAS_L2 = {"module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.25},
            "registered_name": None}
KERAS_L1 = {"module": "keras.regularizers", "class_name": "L1", "config": {"l1": 0.5},
            "registered_name": None}
KERAS_L1L2 = {"module": "keras.regularizers", "class_name": "L1L2",
              "config": {"l1": 0.125, "l2": 0.5}, "registered_name": None}


def base(name):
    return {"name": name, "trainable": True, "dtype": POLICY}


def rnn(units, return_sequences=False):
    """The keys Keras 3's SimpleRNN, LSTM and GRU write alike, at their defaults."""
    return {"return_sequences": return_sequences, "return_state": False, "go_backwards": False,
            "stateful": False, "unroll": False, "zero_output_for_mask": False, "units": units,
            "activation": "tanh", "use_bias": True, "kernel_initializer": GLOROT,
            "recurrent_initializer": {"module": "keras.initializers", "class_name": "Orthogonal",
                                      "config": {"seed": None, "gain": 1.0},
                                      "registered_name": None},
            "bias_initializer": ZEROS, "kernel_regularizer": None, "recurrent_regularizer": None,
            "bias_regularizer": None, "activity_regularizer": None, "kernel_constraint": None,
            "recurrent_constraint": None, "bias_constraint": None, "dropout": 0.0,
            "recurrent_dropout": 0.0}


EXPECTED = [
    (lambda: L.Dense(3, name="d"), {
        **base("d"), "units": 3, "activation": "linear", "use_bias": True,
        "kernel_initializer": GLOROT, "bias_initializer": ZEROS, "kernel_regularizer": None,
        "bias_regularizer": None, "kernel_constraint": None, "bias_constraint": None,
        "quantization_config": None}),
    (lambda: L.Conv2D(4, 3, name="c"), {
        **base("c"), "filters": 4, "kernel_size": [3, 3], "strides": [1, 1], "padding": "valid",
        "data_format": "channels_last", "dilation_rate": [1, 1], "groups": 1,
        "activation": "linear", "use_bias": True, "kernel_initializer": GLOROT,
        "bias_initializer": ZEROS, "kernel_regularizer": None, "bias_regularizer": None,
        "activity_regularizer": None, "kernel_constraint": None, "bias_constraint": None}),
    (lambda: L.Conv2DTranspose(4, 3, strides=2, padding="same", name="t"), {
        **base("t"), "filters": 4, "kernel_size": [3, 3], "strides": [2, 2], "padding": "same",
        "data_format": "channels_last", "dilation_rate": [1, 1], "activation": "linear",
        "use_bias": True, "kernel_initializer": GLOROT, "bias_initializer": ZEROS,
        "kernel_regularizer": None, "bias_regularizer": None, "activity_regularizer": None,
        "kernel_constraint": None, "bias_constraint": None, "output_padding": None}),
    (lambda: L.MaxPooling2D(name="m"), {
        **base("m"), "pool_size": [2, 2], "padding": "valid", "strides": [2, 2],
        "data_format": "channels_last"}),
    (lambda: L.AveragePooling2D(2, name="a"), {
        **base("a"), "pool_size": [2, 2], "padding": "valid", "strides": [2, 2],
        "data_format": "channels_last"}),
    (lambda: L.GlobalAveragePooling2D(name="g"), {
        **base("g"), "data_format": "channels_last", "keepdims": False}),
    (lambda: L.GlobalMaxPooling2D(keepdims=True, name="g"), {
        **base("g"), "data_format": "channels_last", "keepdims": True}),
    (lambda: L.Dropout(0.2, name="p"), {**base("p"), "rate": 0.2, "seed": None,
                                        "noise_shape": None}),
    (lambda: L.Embedding(10, 3, name="e"), {
        **base("e"), "input_dim": 10, "output_dim": 3,
        "embeddings_initializer": {"module": "keras.initializers", "class_name": "RandomUniform",
                                   "config": {"seed": None, "minval": -0.05, "maxval": 0.05},
                                   "registered_name": None},
        "embeddings_regularizer": None, "activity_regularizer": None,
        "embeddings_constraint": None, "mask_zero": False, "quantization_config": None}),
    (lambda: L.Embedding(10, 3, mask_zero=True, name="e"), {
        **base("e"), "input_dim": 10, "output_dim": 3,
        "embeddings_initializer": {"module": "keras.initializers", "class_name": "RandomUniform",
                                   "config": {"seed": None, "minval": -0.05, "maxval": 0.05},
                                   "registered_name": None},
        "embeddings_regularizer": None, "activity_regularizer": None,
        "embeddings_constraint": None, "mask_zero": True, "quantization_config": None}),
    (lambda: L.Masking(mask_value=1.5, name="m"), {**base("m"), "mask_value": 1.5}),
    (lambda: L.Flatten(name="f"), {**base("f"), "data_format": "channels_last"}),
    (lambda: L.Reshape((2, -1), name="r"), {**base("r"), "target_shape": [2, -1]}),
    (lambda: L.Add(name="x"), base("x")),
    (lambda: L.Subtract(name="x"), base("x")),
    (lambda: L.Multiply(name="x"), base("x")),
    (lambda: L.Average(name="x"), base("x")),
    (lambda: L.Maximum(name="x"), base("x")),
    (lambda: L.Minimum(name="x"), base("x")),
    (lambda: L.Concatenate(name="x"), {**base("x"), "axis": -1}),
    (lambda: L.Dot(axes=1, name="x"), {**base("x"), "axes": 1, "normalize": False}),
    (lambda: L.Activation("relu", name="x"), {**base("x"), "activation": "relu"}),
    (lambda: L.ReLU(name="x"), {**base("x"), "max_value": None, "negative_slope": 0.0,
                                "threshold": 0.0}),
    (lambda: L.LeakyReLU(name="x"), {**base("x"), "negative_slope": 0.3}),
    (lambda: L.BatchNormalization(name="b"), {
        **base("b"), "axis": -1, "momentum": 0.99, "epsilon": 0.001, "center": True,
        "scale": True, "beta_initializer": ZEROS, "gamma_initializer": ONES,
        "moving_mean_initializer": ZEROS, "moving_variance_initializer": ONES,
        "beta_regularizer": None, "gamma_regularizer": None, "beta_constraint": None,
        "gamma_constraint": None, "synchronized": False, "renorm": False,
        "renorm_clipping": None, "renorm_momentum": 0.99}),
    # Regularizers: Keras 3.15.1's keras.layers.Dense(3, activation="relu",
    # kernel_regularizer=keras.regularizers.L2(0.25), bias_regularizer=L1(0.5),
    # activity_regularizer=L1L2(l1=0.125, l2=0.5), name="rd").get_config(), and the same
    # regularizers on Embedding, Conv2D and BatchNormalization, printed in the TF venv.
    (lambda: L.Dense(3, activation="relu", kernel_regularizer=tk.regularizers.L2(0.25),
                     bias_regularizer=tk.regularizers.L1(0.5),
                     activity_regularizer=tk.regularizers.L1L2(l1=0.125, l2=0.5), name="rd"), {
        **base("rd"), "activity_regularizer": KERAS_L1L2, "units": 3, "activation": "relu",
        "use_bias": True, "kernel_initializer": GLOROT, "bias_initializer": ZEROS,
        "kernel_regularizer": KERAS_L2, "bias_regularizer": KERAS_L1, "kernel_constraint": None,
        "bias_constraint": None, "quantization_config": None}),
    (lambda: L.Embedding(5, 2, embeddings_regularizer=tk.regularizers.L1(0.5),
                         activity_regularizer=tk.regularizers.L2(0.25), name="re"), {
        **base("re"), "activity_regularizer": KERAS_L2, "input_dim": 5, "output_dim": 2,
        "embeddings_initializer": {"module": "keras.initializers", "class_name": "RandomUniform",
                                   "config": {"seed": None, "minval": -0.05, "maxval": 0.05},
                                   "registered_name": None},
        "embeddings_regularizer": KERAS_L1, "embeddings_constraint": None, "mask_zero": False,
        "quantization_config": None}),
    (lambda: L.Conv2D(4, 3, kernel_regularizer=tk.regularizers.L2(0.25),
                      activity_regularizer=tk.regularizers.L1(0.5), name="rc"), {
        **base("rc"), "activity_regularizer": KERAS_L1, "filters": 4, "kernel_size": [3, 3],
        "strides": [1, 1], "padding": "valid", "data_format": "channels_last",
        "dilation_rate": [1, 1], "groups": 1, "activation": "linear", "use_bias": True,
        "kernel_initializer": GLOROT, "bias_initializer": ZEROS, "kernel_regularizer": KERAS_L2,
        "bias_regularizer": None, "kernel_constraint": None, "bias_constraint": None}),
    (lambda: L.BatchNormalization(gamma_regularizer=tk.regularizers.L2(0.25),
                                  beta_regularizer=tk.regularizers.L1(0.5), name="rb"), {
        **base("rb"), "axis": -1, "momentum": 0.99, "epsilon": 0.001, "center": True,
        "scale": True, "beta_initializer": ZEROS, "gamma_initializer": ONES,
        "moving_mean_initializer": ZEROS, "moving_variance_initializer": ONES,
        "beta_regularizer": KERAS_L1, "gamma_regularizer": KERAS_L2, "beta_constraint": None,
        "gamma_constraint": None, "synchronized": False, "renorm": False,
        "renorm_clipping": None, "renorm_momentum": 0.99}),
    # Recurrent layers: Keras 3.15.1's SimpleRNN(2, name="s"), LSTM(3, kernel_regularizer=
    # L2(0.25), recurrent_regularizer=L1(0.5), activity_regularizer=L2(0.25),
    # return_sequences=True, name="l") and GRU(2, recurrent_activation="tanh", name="g")
    # .get_config(), printed in the TF venv. SimpleRNN's "seed" is tapekit's (Keras 3 takes it
    # as an argument but does not write it; its from_config accepts it).
    (lambda: L.SimpleRNN(2, name="s"), {**base("s"), **rnn(2), "seed": None}),
    (lambda: L.LSTM(3, kernel_regularizer=tk.regularizers.L2(0.25),
                    recurrent_regularizer=tk.regularizers.L1(0.5),
                    activity_regularizer=tk.regularizers.L2(0.25), return_sequences=True,
                    name="l"), {
        **base("l"), **rnn(3, return_sequences=True), "activity_regularizer": KERAS_L2,
        "recurrent_activation": "sigmoid", "unit_forget_bias": True,
        "kernel_regularizer": KERAS_L2, "recurrent_regularizer": KERAS_L1, "seed": None}),
    (lambda: L.GRU(2, recurrent_activation="tanh", name="g"), {
        **base("g"), **rnn(2), "recurrent_activation": "tanh", "reset_after": True,
        "seed": None}),
    (lambda: L.InputLayer(shape=(3,), name="i"), {
        "batch_shape": [None, 3], "dtype": "float32", "sparse": False, "ragged": False,
        "name": "i", "optional": False}),
]


@pytest.mark.parametrize("make, expected", EXPECTED,
                         ids=[e[1].get("name", "?") + str(i) for i, e in enumerate(EXPECTED)])
def test_get_config_has_keras_3s_keys_and_values(make, expected):
    assert make().get_config() == expected


@pytest.mark.parametrize("make, expected", EXPECTED,
                         ids=[e[1].get("name", "?") + str(i) for i, e in enumerate(EXPECTED)])
def test_from_config_takes_keras_3s_config_back(make, expected):
    layer = make()
    again = type(layer).from_config(expected)
    assert type(again) is type(layer) and again.get_config() == expected


def test_a_rebuilt_layer_computes_what_the_original_does():
    tk.random.set_seed(0)
    conv = L.Conv2D(2, 3, strides=2, padding="same", activation="relu",
                    kernel_initializer=tk.initializers.RandomNormal(stddev=0.3, seed=4))
    x = np.linspace(-1, 1, 2 * 6 * 6 * 3, dtype="float32").reshape(2, 6, 6, 3)
    y = conv(x).numpy()
    again = L.Conv2D.from_config(conv.get_config())
    again.build((None, 6, 6, 3))
    again.set_weights(conv.get_weights())
    np.testing.assert_array_equal(again(x).numpy(), y)
    # the seeded initializer is part of the config: the fresh kernel is the same draw
    assert again.get_config()["kernel_initializer"]["config"] == {"seed": 4, "mean": 0.0,
                                                                  "stddev": 0.3}
    fresh = L.Conv2D.from_config(conv.get_config())
    fresh.build((None, 6, 6, 3))
    np.testing.assert_array_equal(fresh.kernel.numpy(), conv.kernel.numpy())


def test_a_custom_activation_function_is_written_as_a_function_config():
    @tk.saving.register_keras_serializable(package="tests")
    def cube(x):
        return x * x * x
    config = L.Dense(2, activation=cube).get_config()
    assert config["activation"] == {"module": __name__, "class_name": "function",
                                    "config": "tests>cube", "registered_name": "tests>cube"}
    again = L.Dense.from_config(config)
    assert again.activation is cube


def test_build_config_rebuilds_the_weights():
    layer = L.Dense(2)
    layer(np.ones((1, 5), "float32"))
    assert layer.get_build_config() == {"input_shape": [None, 5]}
    again = L.Dense.from_config(layer.get_config())
    again.build_from_config(layer.get_build_config())
    assert [w.shape for w in again.weights] == [(5, 2), (2,)]


def test_merge_build_config_takes_a_list_of_shapes():
    add = L.Concatenate()
    add.build_from_config({"input_shape": [[None, 1], [None, 2]]})
    assert add.built


@pytest.mark.parametrize("shape, entry", [
    (["a", 3], "entry 0 is 'a' (a str)"), ([None, 2.5], "entry 1 is 2.5 (a float)"),
    ([None, -4], "entry 1 is -4; a size cannot be negative"), ("ab", "is 'ab' (a str)"),
    ([[None, 1], [None, "x"]], "[1] is [None, 'x']: entry 1 is 'x'")])
def test_a_build_config_shape_that_is_not_sizes_names_the_layer_the_key_and_the_value(
        shape, entry):
    # before: "invalid literal for int() with base 10: 'a'", naming neither layer nor key
    layer = L.Dense(2, name="hidden") if not isinstance(shape[0], list) else L.Concatenate(
        name="hidden")
    with pytest.raises(ValueError, match=rf"{type(layer).__name__} 'hidden': "
                                         rf"build_config\['input_shape'\].*{re.escape(entry)}"):
        layer.build_from_config({"input_shape": shape})
    assert not layer.built and layer.weights == []


def test_a_loaded_sequentials_build_shapes_are_checked_by_name():
    config = tk.Sequential([tk.layers.Dense(2)], name="seq").get_config()
    with pytest.raises(ValueError, match=r"Sequential 'seq': config\['build_input_shape'\] is "
                                         r"\[None, 'a', 3\]: entry 1 is 'a'"):
        tk.Sequential.from_config({**config, "build_input_shape": [None, "a", 3]})
    model = tk.Sequential([tk.layers.Dense(2)], name="seq2")
    with pytest.raises(ValueError, match=r"Sequential 'seq2': build_config\['input_shape'\]"):
        model.build_from_config({"input_shape": [None, "a"]})


@pytest.mark.parametrize("cls, key, value", [
    (L.Dense, "quantization_config", {"mode": "int8"}),
    (L.Conv2D, "dilation_rate", [2, 2]),
    (L.Flatten, "data_format", "channels_first"),
    (L.BatchNormalization, "renorm", True),
])
def test_a_keras_setting_tapekit_lacks_is_refused_by_name(cls, key, value):
    config = {"Dense": {"units": 2}, "Conv2D": {"filters": 2, "kernel_size": 3}}.get(
        cls.__name__, {})
    config = {**config, key: value}
    with pytest.raises(ValueError, match=f"{cls.__name__}.from_config: the config has {key}="):
        cls.from_config(config)


def test_an_unknown_key_is_refused_by_the_layer():
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to Dense"):
        L.Dense.from_config({"units": 2, "colour": "red"})


def test_dtype_policies():
    layer = L.Dense.from_config({"units": 2, "dtype": {**POLICY, "config": {"name": "float64"}}})
    assert layer.dtype == tk.float64
    assert L.Dense.from_config({"units": 2, "dtype": "float64"}).dtype == tk.float64
    with pytest.raises(ValueError, match="mixed precision is not supported"):
        L.Dense.from_config({"units": 2, "dtype": {**POLICY, "config": {"name": "mixed_float16"}}})


def test_lambda_named_function_and_arguments():
    @tk.saving.register_keras_serializable(package="tests")
    def shift(x, by=0.0):
        return x + by
    layer = L.Lambda(shift, arguments={"by": 2.0}, name="lam")
    config = layer.get_config()
    assert config == {**base("lam"), "function": {"module": __name__, "class_name": "function",
                                                  "config": "tests>shift",
                                                  "registered_name": "tests>shift"},
                      "arguments": {"by": 2.0}}
    again = L.Lambda.from_config(config)
    assert again(tk.constant([[1.0]])).numpy().tolist() == [[3.0]]


def test_lambda_with_a_python_lambda_is_refused_unless_safe_mode_is_false():
    with pytest.warns(UserWarning, match="includes a lambda"):
        config = L.Lambda(lambda x: x * 3.0, output_shape=(2,)).get_config()
    assert config["function"]["class_name"] == "__lambda__"
    assert config["output_shape"] == [2]
    with pytest.raises(ValueError, match="pass safe_mode=False"):
        L.Lambda.from_config(config)
    layer = L.Lambda.from_config(config, safe_mode=False)
    assert layer(tk.constant([[1.0, 2.0]])).numpy().tolist() == [[3.0, 6.0]]


def test_a_layer_class_without_get_config_keeps_its_plain_arguments():
    class Pool(tk.layers.Layer):                     # as a new built-in layer might be written
        def __init__(self, pool_size=2, keepdims=False, **kwargs):
            super().__init__(**kwargs)
            self.pool_size, self.keepdims = pool_size, keepdims
    config = Pool(3, name="p").get_config()
    assert config == {**base("p"), "pool_size": 3, "keepdims": False}
    again = Pool.from_config(config)
    assert (again.pool_size, again.keepdims, again.name) == (3, False, "p")
    # a non-plain argument (an object) leaves only the base keys: from_config then says so
    assert "pool_size" not in Pool(pool_size=object()).get_config()
