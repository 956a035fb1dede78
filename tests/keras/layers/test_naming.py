"""Layer and weight names (layers/naming.py): Keras's default names and the ASCII rule."""
import pytest

import tapekit as tk
from tapekit import layers
from tapekit.keras.layers import naming


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


@pytest.mark.parametrize("name", ["a\u00b5", "a\u03bc", "w b", "x\nprint(1)", "1st", "a/b", "", "\ufb01"])
def test_layer_and_weight_names_follow_the_ascii_rule(name):
    """Issue 29: names are checked with an ASCII rule (letters, digits, _ . -), as TensorFlow
    checks op and scope names: `aµ` and `aμ` are one identifier to Python (NFKC)."""
    if name:
        with pytest.raises(ValueError, match=r"Dense\(name=...\).*not a valid module name.*"
                                             r"ASCII letters, digits, _ \. and -.*Use e\.g\."):
            tk.layers.Dense(1, name=name)
    layer = tk.layers.Layer(name="ok")
    with pytest.raises(ValueError, match=r"add_weight\(name=...\).*ASCII"):
        layer.add_weight(shape=(1,), name=name or "a b")
    for good in ("dense_1", "Block.2-a", "_private"):
        assert tk.layers.Dense(1, name=good).name == good
        assert layer.add_weight(shape=(1,), name=good).path == f"ok/{good}"


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


def test_check_name_passes_good_names_and_suggests_one_for_a_bad_name():
    for good in ("dense", "_x", "block-1.conv", None, ""):
        assert naming.check_name(good, "here") == good
    with pytest.raises(ValueError, match=r"^here: 'my layer!' is not a valid .*Use e\.g\. 'my_layer'$"):
        naming.check_name("my layer!", "here")
    with pytest.raises(ValueError, match=r"Use e\.g\. 'layer_1st'$"):
        naming.check_name("1st", "here")
    with pytest.raises(ValueError, match=r"here: 3 is not a valid"):
        naming.check_name(3, "here")
