"""The one rule behind initializers/losses/metrics/optimizers/regularizers.get (identifiers.py)."""
import numpy as np
import pytest

import tapekit as tk
from tapekit.keras.identifiers import resolve


class Base:
    pass


class Child(Base):
    pass


def double(x):
    return 2 * x


TABLE = {"child": Child, "double": double}


def test_a_name_as_written_as_its_class_or_in_lower_case():
    assert type(resolve("child", TABLE, "thing", base=Base, accepts="a Base")) is Child
    assert type(resolve("Child", TABLE, "thing", base=Base, accepts="a Base")) is Child
    assert type(resolve("CHILD", TABLE, "thing", base=Base, accepts="a Base")) is Child
    assert resolve("double", TABLE, "thing", base=Base, accepts="a Base") is double
    assert resolve("DOUBLE", TABLE, "thing", base=Base, accepts="a Base") is double


def test_each_name_makes_a_new_object():
    a = resolve("child", TABLE, "thing", base=Base, accepts="a Base")
    b = resolve("child", TABLE, "thing", base=Base, accepts="a Base")
    assert a is not b


def test_objects_classes_and_functions():
    c = Child()
    assert resolve(c, TABLE, "thing", base=Base, accepts="a Base") is c
    assert type(resolve(Child, TABLE, "thing", base=Base, accepts="a Base")) is Child
    f = lambda x: x      # noqa: E731
    assert resolve(f, TABLE, "thing", base=Base, accepts="a Base") is f
    with pytest.raises(ValueError, match="Could not interpret thing identifier: <function"):
        resolve(f, TABLE, "thing", base=Base, accepts="a Base", functions=False)
    with pytest.raises(ValueError, match="thing identifier: <class 'int'>"):
        resolve(int, TABLE, "thing", base=Base, accepts="a Base")      # a class, not a Base


def test_none_only_where_the_kind_allows_it():
    assert resolve(None, TABLE, "thing", base=Base, accepts="a Base", none=True) is None
    with pytest.raises(ValueError, match="thing identifier: None"):
        resolve(None, TABLE, "thing", base=Base, accepts="a Base")


def test_configs_go_through_the_kinds_reader():
    made = resolve({"name": "child"}, TABLE, "thing", base=Base, accepts="a Base",
                   configs=lambda config: config["name"])
    assert type(made) is Child
    with pytest.raises(ValueError, match=r"thing identifier: \{'name': 'child'\}"):
        resolve({"name": "child"}, TABLE, "thing", base=Base, accepts="a Base")
    with pytest.raises(ValueError, match=r"thing identifier: \{'x': 1\}"):    # the reader gave
        resolve({"x": 1}, TABLE, "thing", base=Base, accepts="a Base",      # a dict back
                configs=lambda config: config)


def test_the_error_names_the_identifier_the_kind_and_every_known_name():
    with pytest.raises(ValueError) as err:
        resolve("chlid", TABLE, "thing", base=Base, accepts="a Base or a function")
    assert str(err.value) == ("Could not interpret thing identifier: 'chlid'. Known names: "
                              "'child', 'double'; or pass a Base or a function")


# --- the five modules' get, each a call of resolve --------------------------------------------
def test_initializers_get():
    assert type(tk.initializers.get("he_normal")) is tk.initializers.HeNormal
    assert type(tk.initializers.get("HeNormal")) is tk.initializers.HeNormal
    assert type(tk.initializers.get("orthogonal")) is tk.initializers.Orthogonal
    config = tk.initializers.serialize(tk.initializers.Constant(0.5))
    np.testing.assert_array_equal(tk.initializers.get(config)((2,)), [0.5, 0.5])
    with pytest.raises(ValueError, match="initializer identifier: None"):
        tk.initializers.get(None)
    with pytest.raises(ValueError, match=r"Known names: .*'orthogonal'.*; or pass an object "
                                         r"such as tk.initializers.RandomNormal"):
        tk.initializers.get("gloro")


def test_losses_get():
    assert tk.losses.get("mse") is tk.losses.mean_squared_error
    assert tk.losses.get(None) is None
    assert type(tk.losses.get(tk.losses.Huber)) is tk.losses.Huber
    with pytest.raises(ValueError, match="loss identifier: 'mse2'. Known names: .*'huber'"):
        tk.losses.get("mse2")


def test_metrics_get():
    assert tk.metrics.get("mae") is tk.metrics.mean_absolute_error
    assert type(tk.metrics.get("Precision")) is tk.metrics.Precision
    assert "resolve" not in tk.metrics.__all__       # the helper is no metric
    with pytest.raises(ValueError, match="metric identifier: None"):
        tk.metrics.get(None)


def test_optimizers_get():
    for name in ("adam", "Adam", "ADAM"):
        assert type(tk.optimizers.get(name)) is tk.optimizers.Adam
    opt = tk.optimizers.SGD(0.5)
    assert tk.optimizers.get(opt) is opt
    with pytest.raises(ValueError, match=r"optimizer identifier: <function double.*Known "
                                         r"names: 'adagrad', 'adam', 'adamw', 'nadam', "
                                         r"'rmsprop', 'sgd'; or pass an optimizer"):
        tk.optimizers.get(double)


def test_regularizers_get():
    assert tk.regularizers.get(None) is None
    reg = tk.regularizers.get({"module": "keras.regularizers", "class_name": "L2",
                               "config": {"l2": 0.25}, "registered_name": None})
    assert type(reg) is tk.regularizers.L2 and reg.l2 == 0.25
    assert float(reg(tk.constant([2.0]))) == 1.0          # 0.25 * 2**2
    assert type(tk.regularizers.get({"class_name": "l1"})) is tk.regularizers.L1
    with pytest.raises(ValueError, match=r"regularizer identifier: \{'class_name': 'L3'\}"):
        tk.regularizers.get({"class_name": "L3"})


def test_get_by_name():
    assert tk.metrics.get("mae") is tk.metrics.mean_absolute_error
    assert isinstance(tk.metrics.get("Precision"), tk.metrics.Precision)
    with pytest.raises(ValueError, match="Could not interpret metric identifier: 'acuracy'"):
        tk.metrics.get("acuracy")
