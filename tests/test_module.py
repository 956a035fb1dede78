"""tk.Module: finding variables and sub-modules, in tf.Module's order; its names."""
import re

import pytest

import tapekit as tk


class LinearModel(tk.Module):
    # As in seed 002: __init__ never calls super().__init__().
    def __init__(self):
        self.w = tk.Variable(2.0)
        self.b = tk.Variable(1.0)

    def __call__(self, x):
        return self.w * x + self.b


def test_module_without_super_init_finds_its_variables():
    model = LinearModel()
    # tf.Module walks attributes in sorted name order: b before w.
    assert model.trainable_variables == (model.b, model.w)
    assert model.variables == (model.b, model.w)
    assert model.submodules == ()
    assert model.name == "linear_model"
    assert model(tk.constant(3.0)).numpy() == 7.0


def test_repr_is_readable_and_has_no_address():
    assert repr(LinearModel()) == "<LinearModel 'linear_model': 2 variables (2 trainable), 2 parameters>"
    assert repr(tk.Module(name="empty")) == "<Module 'empty': 0 variables (0 trainable), 0 parameters>"


class Block(tk.Module):
    def __init__(self, name, n):
        super().__init__(name=name)
        self.weights = [tk.Variable(float(i), name=f"{name}_w{i}") for i in range(n)]


def test_variables_in_nested_containers_are_found_in_order():
    root = tk.Module(name="root")
    root.z = tk.Variable(0.0, name="z")
    root.a_list = [tk.Variable(1.0, name="l0"), (tk.Variable(2.0, name="l1"),)]
    root.d = {"y": tk.Variable(3.0, name="dy"), "x": tk.Variable(4.0, name="dx")}
    root.frozen = tk.Variable(5.0, trainable=False, name="frozen")
    root.blocks = {"second": Block("second", 1), "first": Block("first", 2)}
    names = [v.name for v in root.variables]
    # Own variables first (attributes a_list, d, frozen, z; dict keys sorted),
    # then each sub-module's, in the order the walk found them.
    assert names == ["l0:0", "l1:0", "dx:0", "dy:0", "frozen:0", "z:0",
                     "first_w0:0", "first_w1:0", "second_w0:0"]
    assert "frozen:0" not in [v.name for v in root.trainable_variables]
    assert [m.name for m in root.submodules] == ["first", "second"]
    assert root.count_params() == 9


def test_shared_variables_and_modules_are_listed_once_and_cycles_end():
    shared = tk.Variable(1.0, name="shared")
    a, b = tk.Module(name="a"), tk.Module(name="b")
    a.v, b.v = shared, shared
    a.peer, b.peer = b, a          # a cycle
    root = tk.Module(name="root")
    root.children = [a, b, a]
    assert root.variables == (shared,)
    assert [m.name for m in root.submodules] == ["a", "b"]


def test_submodules_follow_tf_module_order():
    # tf.Module yields a level's modules, then walks into each one in turn.
    root = tk.Module(name="root")
    root.a, root.b = tk.Module(name="a"), tk.Module(name="b")
    root.a.child = tk.Module(name="a_child")
    root.a.child.leaf = tk.Module(name="a_leaf")
    root.b.child = tk.Module(name="b_child")
    assert [m.name for m in root.submodules] == ["a", "b", "a_child", "a_leaf", "b_child"]


def test_layers_list_weights_in_creation_order():
    # Keras order (kernel, then bias), not sorted attribute names.
    layer = tk.layers.Dense(2, input_shape=(3,))
    assert [v.name for v in layer.variables] == ["kernel", "bias"]
    holder = tk.Module(name="holder")
    holder.layer = layer
    assert holder.variables == (layer.kernel, layer.bias)


def test_layers_list_a_dicts_layers_in_insertion_order_as_keras():
    # Keras 3.15 tracks a dict's values as they were inserted: for {"b": ..., "a": ...} its
    # model.layers and trainable_variables list b's before a's (tf.Module sorts the keys)
    class Heads(tk.Model):
        def __init__(self):
            super().__init__()
            self.table = {"b": tk.layers.Dense(2, name="b"), "a": tk.layers.Dense(3, name="a")}

        def call(self, x):
            return self.table["b"](x) + self.table["a"](x)[:, :2]
    model = Heads()
    model(tk.ones((1, 4)))
    assert [layer.name for layer in model.layers] == ["b", "a"]
    assert [v.path for v in model.trainable_variables] == ["b/kernel", "b/bias", "a/kernel",
                                                          "a/bias"]


def test_module_names_follow_tf_modules_rule():
    """tf.Module's rule (TF 2.21, measured): an ASCII Python identifier. Keras layers take
    any name without "/" instead (tests/keras/layers/test_naming.py)."""
    for good in ("dense", "Dense", "_", "__init__", "class", "x" * 300, "dense\n"):   # TF 2.21
        assert tk.Module(name=good).name == good      # (its pattern's `$` lets a final \n by)
    for bad in ("", "密集层", "w\u00b5", "a b", "a/b", "a\x00b", "a\nb", "x:0", ".", "-", "a.b",
                "a-b", "1st", "<x>", "\u202e"):
        with pytest.raises(ValueError, match=rf"^{re.escape(repr(bad))} is "
                                             r"not a valid module name\. Module names must be valid "
                                             r"Python identifiers \(e\.g\. a valid class name\)\.$"):
            tk.Module(name=bad)
    for bad in (3, b"x"):                               # TF: a TypeError from its regex
        with pytest.raises(TypeError, match="Module: name must be a string"):
            tk.Module(name=bad)
    assert tk.Module(name=None).name == "module" and LinearModel().name == "linear_model"
