"""Layer and weight names (keras/utils/naming.py): Keras's default names, Keras 3's rule for a name
given by hand (any string without `/`), and the paths of weights (issue 43)."""
import re

import pytest

import tapekit as tk
from tapekit import layers
from tapekit.keras.utils import naming


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


# Keras 3.15.1 in the TF venv: keras.layers.Dense(1, name=n).name == n for each of these (a
# layer's, a model's, an Input's, an optimizer's and add_weight's rule alike) ...
ACCEPTED = ["密集层", "w\u00b5", "a\u03bc", "a b", "x\nprint(1)", "a\x00b", "x:0", ".", "-", " ",
            "1st", "a\\b", "<x>", "\u202e", "\ufb01", "__init__", "class", "x" * 10_000]
# ... and these raise ValueError("Argument `name` must be a string and cannot contain
# character `/`. Received: name=... (of type <class ...>)")
REFUSED = ["a/b", "/", 3, 1.5, b"x"]


@pytest.mark.parametrize("name", ACCEPTED)
def test_every_name_keras_3_accepts_names_a_layer_a_model_a_weight_and_an_optimizer(name):
    """Issue 43: `密集层`, `wµ` and `a b` raised "is not a valid module name" (an ASCII rule
    that is TensorFlow's for tf.Module, not Keras's)."""
    assert tk.layers.Dense(1, name=name).name == name
    assert tk.layers.Layer(name=name).name == name
    assert tk.Sequential(name=name).name == name
    i = tk.Input((2,), name=name)
    assert i.name == name
    assert tk.Model(i, tk.layers.Dense(1)(i), name=name).name == name
    assert tk.optimizers.Adam(name=name).name == name
    assert tk.metrics.Mean(name=name).name == name
    holder = tk.layers.Layer(name="lyr")
    w = holder.add_weight(shape=(1,), name=name)
    assert (w.name, w.path) == (name, f"lyr/{name}")              # Keras 3.15: the same


@pytest.mark.parametrize("name", REFUSED)
def test_a_slash_or_a_name_that_is_no_string_is_refused_as_keras_3_refuses_it(name):
    pattern = (r"Argument `name` must be a string and cannot contain character `/`\. "
               rf"Received: name={re.escape(repr(name))} "
               rf"\(of type {type(name).__name__}\)")
    for make, what in ((lambda: tk.layers.Dense(1, name=name), r"Dense\(name=\.\.\.\)"),
                       (lambda: tk.Sequential(name=name), r"Sequential\(name=\.\.\.\)"),
                       (lambda: tk.Input((2,), name=name), r"InputLayer\(name=\.\.\.\)"),
                       (lambda: tk.optimizers.SGD(name=name), r"SGD\(name=\.\.\.\)"),
                       (lambda: tk.layers.Layer(name="l").add_weight(shape=(1,), name=name),
                        r"Layer\.add_weight\(name=\.\.\.\)")):
        with pytest.raises(ValueError, match=rf"^{what}: {pattern}"):
            make()
    if isinstance(name, str):
        with pytest.raises(ValueError, match=rf"paths \(dense/kernel\): use e\.g\. "
                                             rf"{re.escape(repr(name.replace('/', '_')))}$"):
            tk.layers.Dense(1, name=name)
        assert tk.metrics.Mean(name=name).name == name        # Keras 3.15's metrics take "/"
    else:
        with pytest.raises(TypeError, match="Mean: name must be a string"):
            tk.metrics.Mean(name=name)                         # Keras 3.15 fails on one too


def test_the_empty_name_and_none():
    """Keras 3.15: Dense(name="") is named "" (its weights' paths then start at the weight:
    "kernel"), Sequential, Model and optimizers too; None gives the default; add_weight,
    Input and metrics take "" as the default."""
    dense = tk.layers.Dense(1, name="")
    dense.build((None, 2))
    assert dense.name == "" and [w.path for w in dense.weights] == ["kernel", "bias"]
    assert tk.Sequential(name="").name == "" and tk.optimizers.SGD(name="").name == ""
    assert tk.layers.Dense(1, name=None).name == "dense"
    assert tk.layers.Layer(name="l").add_weight(shape=(1,), name="").name == "variable"
    assert tk.Input((1,), name="").name == "input_layer"
    assert tk.metrics.Mean(name="").name == "mean"
    lstm = tk.layers.LSTM(2, name="")
    lstm.build((None, 3, 1))
    assert lstm.kernel.path == "lstm_cell/kernel"


def test_names_are_data_in_the_layer_and_keras_tensor_reprs():
    assert repr(tk.layers.Dense(1, name="a\nb")) == "<Dense name=a\\x0ab, built=False>"
    assert repr(tk.layers.Dense(1, name="密集层")) == "<Dense name=密集层, built=False>"
    assert repr(tk.Input((2,), name="x\x00")) == "<KerasTensor shape=(None, 2), dtype=float32, name=x\\x00>"


def test_snake_name_is_keras_default_name():
    from_cls = naming.snake_name
    assert [from_cls(n) for n in ("Dense", "Conv2D", "MaxPooling2D", "GRU", "LeakyReLU",
                                  "GlobalAveragePooling1D", "SimpleRNNCell")] == [
        "dense", "conv2d", "max_pooling2d", "gru", "leaky_re_lu", "global_average_pooling1d",
        "simple_rnn_cell"]


def test_unique_names_count_per_base_and_restart_with_clear_session():
    assert [naming.unique_name("blob") for _ in range(3)] == ["blob", "blob_1", "blob_2"]
    assert naming.unique_name("other") == "other"
    assert [layers.Dense(1).name, layers.Dense(1).name, layers.ReLU().name] == [
        "dense", "dense_1", "re_lu"]
    layers.clear_session()
    assert naming.unique_name("blob") == "blob" and layers.Dense(1).name == "dense"


def test_check_name_and_join_path():
    for good in ("dense", "密集层", "a b", "", None):
        assert naming.check_name(good, "here") == good
    with pytest.raises(ValueError, match=r"^here: Argument `name` .* Received: name='my/layer' "
                                         r"\(of type str\); .* use e\.g\. 'my_layer'$"):
        naming.check_name("my/layer", "here")
    assert naming.join_path("a b", "密集层", "kernel") == "a b/密集层/kernel"
    assert naming.join_path("", "kernel") == "kernel"
