"""The registry of custom objects (saving/registration.py)."""
import pytest

import tapekit as tk
from tapekit import layers


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_register_keras_serializable_returns_the_object_and_names_it():
    import tapekit as keras

    @keras.saving.register_keras_serializable(package="course", name="Doubler")
    class Doubler(keras.layers.Layer):
        def call(self, x):
            return 2.0 * x

    @tk.saving.register_keras_serializable(package="course")
    def halve(x):
        return x / 2.0

    assert keras.saving is tk.saving is tk.keras.saving
    assert Doubler()(tk.constant([1.5])).numpy().tolist() == [3.0]   # unchanged class
    assert tk.saving.get_registered_name(Doubler) == "course>Doubler"
    assert tk.saving.get_registered_name(halve) == "course>halve"
    assert tk.saving.get_registered_object("course>Doubler") is Doubler
    assert tk.saving.get_registered_object("course>halve") is halve
    # not registered: its plain name, and None for an unknown key
    assert tk.saving.get_registered_name(tk.layers.Dense) == "Dense"
    assert tk.saving.get_registered_object("course>nothing") is None
    # custom_objects comes first, module_objects last
    assert tk.saving.get_registered_object("course>halve", custom_objects={"course>halve": abs}) is abs
    assert tk.saving.get_registered_object("x", module_objects={"x": min}) is min


def test_registering_a_name_again_replaces_it():
    @tk.saving.register_keras_serializable(package="course", name="Same")
    class First:
        pass

    @tk.saving.register_keras_serializable(package="course", name="Same")
    class Second:
        pass

    assert tk.saving.get_registered_object("course>Same") is Second
    assert tk.saving.get_registered_name(First) == "First"


def test_register_keras_serializable_without_parentheses_says_so():
    with pytest.raises(TypeError, match=r"parentheses"):
        @tk.saving.register_keras_serializable
        class Forgot:
            pass
    with pytest.raises(TypeError, match="package must be a non-empty string"):
        tk.saving.register_keras_serializable(package=3)
