"""serialize_keras_object / deserialize_keras_object in Keras 3's layout (issue 32).

The expected dicts are the ones Keras 3.15 writes for the same objects. Reading a config never
imports a module and never runs code from it. No TensorFlow here.
"""
import numpy as np
import pytest

import tapekit as tk
from tapekit.keras.saving import serialization_lib as lib

ser, de = tk.saving.serialize_keras_object, tk.saving.deserialize_keras_object


@pytest.mark.parametrize("init, config", [
    (tk.initializers.Zeros(), {}),
    (tk.initializers.Ones(), {}),
    (tk.initializers.Constant(0.5), {"value": 0.5}),
    (tk.initializers.RandomUniform(), {"seed": None, "minval": -0.05, "maxval": 0.05}),
    (tk.initializers.RandomNormal(seed=3), {"seed": 3, "mean": 0.0, "stddev": 0.05}),
    (tk.initializers.TruncatedNormal(), {"seed": None, "mean": 0.0, "stddev": 0.05}),
    (tk.initializers.GlorotUniform(), {"seed": None, "input_axes": None, "output_axes": None}),
    (tk.initializers.GlorotNormal(), {"seed": None, "input_axes": None, "output_axes": None}),
    (tk.initializers.HeUniform(seed=1), {"seed": 1, "input_axes": None, "output_axes": None}),
    (tk.initializers.HeNormal(), {"seed": None, "input_axes": None, "output_axes": None}),
])
def test_initializers_as_keras_3_writes_them(init, config):
    written = ser(init)
    assert written == {"module": "keras.initializers", "class_name": type(init).__name__,
                       "config": config, "registered_name": None}
    again = de(written)
    assert type(again) is type(init) and vars(again) == vars(init)


def test_a_seeded_initializer_draws_the_same_after_a_round_trip():
    init = tk.initializers.HeNormal(seed=5)
    np.testing.assert_array_equal(de(ser(init))((3, 4)), init((3, 4)))


def test_initializer_variance_axes_other_than_none_are_refused():
    with pytest.raises(ValueError, match="does not support input_axes"):
        tk.initializers.GlorotUniform.from_config({"seed": None, "input_axes": [0],
                                                   "output_axes": None})


@pytest.mark.parametrize("name", ["relu", "sigmoid", "tanh", "softmax", "linear", "elu", "selu",
                                  "softplus", "gelu", "silu"])
def test_built_in_activations_are_functions_of_builtins(name):
    fn = tk.keras.activations.get(name)
    assert ser(fn) == {"module": "builtins", "class_name": "function", "config": name,
                       "registered_name": "function"}
    assert de(ser(fn)) is fn
    assert tk.keras.activations.serialize(fn) == name


@pytest.mark.parametrize("fn", [tk.losses.mean_squared_error, tk.losses.huber,
                                tk.metrics.binary_accuracy, tk.metrics.sparse_categorical_accuracy,
                                tk.metrics.mean_absolute_percentage_error],
                         ids=lambda fn: fn.__name__)
def test_loss_and_metric_functions_are_functions_of_builtins(fn):
    # Keras 3.15.1's serialize_keras_object(keras.metrics.binary_accuracy) (TF venv):
    # {'module': 'builtins', 'class_name': 'function', 'config': 'binary_accuracy',
    #  'registered_name': 'function'}; the same form for the loss functions
    assert ser(fn) == {"module": "builtins", "class_name": "function", "config": fn.__name__,
                       "registered_name": "function"}
    assert de(ser(fn)) is fn


def test_swish_is_written_as_silu_as_keras_does():
    assert tk.keras.activations.serialize("swish") == "silu"


def test_plain_values_numpy_and_nesting():
    value = {"a": (1, 2.5, None, "s", True), "b": [np.float32(1.5), np.int64(3)],
             "c": np.arange(3, dtype="int32")}
    written = ser(value)
    assert written == {"a": [1, 2.5, None, "s", True], "b": [1.5, 3],
                       "c": {"class_name": "__numpy__",
                             "config": {"value": [0, 1, 2], "dtype": "int32"}}}
    back = de(written)
    assert back["c"].dtype == np.int32 and back["c"].tolist() == [0, 1, 2]


def test_a_registered_custom_class_round_trips_by_its_registered_name():
    @tk.saving.register_keras_serializable(package="tests", name="Scale")
    class Scale(tk.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}

    written = ser(Scale(3.0, name="s"))
    assert written["class_name"] == "Scale" and written["registered_name"] == "tests>Scale"
    assert written["config"]["factor"] == 3.0
    again = de(written)
    assert type(again) is Scale and again.factor == 3.0 and again.name == "s"


def test_a_python_lambda_is_refused_in_safe_mode_anywhere():
    with pytest.warns(UserWarning, match="lambda"):
        written = ser(lambda x: x + 1)
    assert written["class_name"] == "__lambda__"
    with pytest.raises(ValueError, match="safe_mode=False"):
        de(written)
    assert de(written, safe_mode=False)(1) == 2


def test_keras_lambda_value_form_loads_with_safe_mode_false():
    # Keras's generic form: {"value": [code, defaults, closure]}
    dumped = lib.func_dump(lambda x, k=2: x * k)
    config = {"class_name": "__lambda__",
              "config": {"value": [dumped["code"], dumped["defaults"], dumped["closure"]]}}
    assert de(config, safe_mode=False)(5) == 10


def test_optimizer_configs_have_keras_3s_keys():
    written = ser(tk.optimizers.Adam(0.01))
    assert written["module"] == "keras.optimizers" and written["class_name"] == "Adam"
    assert written["config"] == {
        "name": "adam", "learning_rate": pytest.approx(0.01), "weight_decay": None,
        "clipnorm": None, "global_clipnorm": None, "clipvalue": None, "use_ema": False,
        "ema_momentum": 0.99, "ema_overwrite_frequency": None, "loss_scale_factor": None,
        "gradient_accumulation_steps": None, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-07,
        "amsgrad": False}
    again = de(written)
    assert type(again) is tk.optimizers.Adam and again.name == "Adam" and not again.amsgrad
    assert de({**written, "config": {**written["config"], "amsgrad": True}}).amsgrad
    assert float(again.learning_rate) == pytest.approx(0.01)
    with pytest.raises(ValueError, match="does not support use_ema"):
        de({**written, "config": {**written["config"], "use_ema": True}})
    clipped = de({**written, "config": {**written["config"], "clipnorm": 1.0}})
    assert clipped.clipnorm == 1.0 and ser(clipped)["config"]["clipnorm"] == 1.0


def test_losses_and_metrics_without_get_config_are_written_from_their_arguments():
    loss = tk.losses.SparseCategoricalCrossentropy(from_logits=True)
    written = ser(loss)
    assert written["module"] == "keras.losses"
    assert written["config"]["from_logits"] is True
    assert written["config"]["reduction"] == "sum_over_batch_size"
    again = de({**written, "config": {**written["config"], "ignore_class": None, "axis": -1}})
    assert type(again) is type(loss) and again._fn_kwargs == {"from_logits": True}
    metric = de({"module": "keras.metrics", "class_name": "MeanAbsoluteError",
                 "config": {"name": "mean_absolute_error", "dtype": "float32"},
                 "registered_name": None})
    assert type(metric) is tk.metrics.MeanAbsoluteError


def test_a_learning_rate_schedule_travels_in_the_optimizers_config():
    schedule = tk.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    written = ser(tk.optimizers.SGD(schedule))
    assert written["config"]["learning_rate"] == {
        "module": "keras.optimizers.schedules", "class_name": "ExponentialDecay",
        "config": {"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5,
                   "staircase": False, "name": "ExponentialDecay"},
        "registered_name": None}
    again = de(written)
    assert float(again.learning_rate) == pytest.approx(0.1)
    again.iterations.assign(10)
    assert float(again.learning_rate) == pytest.approx(0.05)


def test_a_loaded_lambda_sees_tapekit_under_its_usual_names():
    import tapekit as tf
    with pytest.warns(UserWarning):
        written = ser(lambda x: tf.square(x) + np.float32(1.0))
    fn = de(written, safe_mode=False)
    assert fn(tk.constant([2.0])).numpy().tolist() == [5.0]


def test_custom_object_scope_and_get_custom_objects():
    class Halve(tk.layers.Layer):
        def call(self, x):
            return x / 2.0
    config = {"module": None, "class_name": "Halve", "config": {}, "registered_name": "Halve"}
    with tk.saving.custom_object_scope({"Halve": Halve}):
        assert type(de(config)) is Halve
    with pytest.raises(TypeError, match="Could not locate class 'Halve'"):
        de(config)                                   # the scope has ended
    tk.saving.get_custom_objects()["Halve"] = Halve
    try:
        assert type(de(config)) is Halve
    finally:
        del tk.saving.get_custom_objects()["Halve"]


def test_tensors_and_variables_are_written_by_value_as_keras_does():
    # Keras 3.15.1: serialize_keras_object(keras.ops.convert_to_tensor([1.0, 2.0])) and of
    # keras.Variable([1.0, 2.0]) both gave {'class_name': '__tensor__', 'config':
    # {'value': [1.0, 2.0], 'dtype': 'float32'}} (TF venv)
    want = {"class_name": "__tensor__", "config": {"value": [1.0, 2.0], "dtype": "float32"}}
    assert ser(tk.constant([1.0, 2.0])) == want
    assert ser(tk.Variable([1.0, 2.0])) == want
    assert ser(tk.Variable([[1, 2]])) == {"class_name": "__tensor__",
                                          "config": {"value": [[1, 2]], "dtype": "int32"}}
    back = de(want)
    assert back.dtype == tk.float32 and back.numpy().tolist() == [1.0, 2.0]


def test_classes_a_keras_module_only_imports_are_not_in_its_table():
    # regularizers.py imports Tensor, base_optimizer.py Variable: no config may name them
    for module, name in (("keras.regularizers", "Tensor"), ("keras.optimizers", "Variable")):
        with pytest.raises(TypeError, match=f"Could not locate class '{name}'"):
            de({"module": module, "class_name": name,
                "config": {"initial_value": 3.0}, "registered_name": None})
