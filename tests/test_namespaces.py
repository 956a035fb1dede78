"""dir() and tab completion of tapekit's namespaces list their public names, not what each
module imported for its own use (tk.optimizers listed `np`, `threading`, `convert_to_tensor`)."""
import ast
import functools
import importlib
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

import numpy as np

import tapekit as tk
from tapekit import namespaces

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs" / "_ext"))
import tapekit_api  # noqa: E402 - the docs' definition of "public"

NAMESPACES = [m for m, _, _ in tapekit_api.NAMESPACES if m != "tapekit"] + [
    "tapekit.autodiff", "tapekit.dtypes", "tapekit.compiler.autograph", "tapekit.keras",
    "tapekit.keras.metrics", "tapekit.keras.callbacks", "tapekit.keras.activations",
    "tapekit.keras.initializers", "tapekit.keras.regularizers", "tapekit.keras.utils",
    "tapekit.keras.backend", "tapekit.keras.optimizers.schedules"]


def shown(module):
    return [n for n in dir(module) if not n.startswith("_")]


@pytest.mark.parametrize("name", NAMESPACES)
def test_a_namespace_shows_its_public_names_only(name):
    module = importlib.import_module(name)
    names = shown(module)
    assert names, name
    for imported in ("np", "numpy", "threading", "warnings", "math" if name != "tapekit" else "-"):
        assert imported not in names or imported in getattr(module, "__all__", ()), (name, imported)
    modules = [n for n in names if isinstance(getattr(module, n), types.ModuleType)]
    assert set(modules) <= set(getattr(module, "__all__", ())), (name, modules)
    for n in names:                                   # every name shown is there
        getattr(module, n)
    if name in dict((m, t) for m, t, _ in tapekit_api.NAMESPACES):
        assert names == tapekit_api.public_names(name)   # what the API reference documents


def test_tk_shows_the_api_and_its_namespaces_not_its_own_modules():
    names = shown(tk)
    assert {"GradientTape", "Variable", "nn", "optimizers", "layers", "display", "backprop"} <= set(names)
    assert not {"tape", "callsite", "context", "gradient_args", "writes", "namespaces"} & set(names)
    assert tk.tape.GradientTape is tk.GradientTape      # hidden from dir(), still reachable
    assert "__version__" in dir(tk) and "GradientDtypeWarning" in names
    assert [n for n in tapekit_api.public_names("tapekit")
            if not isinstance(getattr(tk, n), types.ModuleType)] == [
        n for n in names if not isinstance(getattr(tk, n), types.ModuleType)]


def test_tab_completion_in_ipython_offers_the_public_names():
    # In a child process: an InteractiveShell made here would make every later test run
    # "inside IPython" (display records values there).
    pytest.importorskip("IPython")
    script = textwrap.dedent("""
        from IPython.core.completer import provisionalcompleter
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        shell.run_cell("import tapekit as tk")
        with provisionalcompleter():
            print(sorted({c.text for c in shell.Completer.completions("tk.optimizers.", 14)}))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    offered = set(ast.literal_eval(done.stdout.strip().splitlines()[-1]))
    assert {"SGD", "Adam", "Optimizer"} <= offered
    assert not {"np", "threading", "convert_to_tensor", "hold_in_traces"} & offered


# --- the tables (tapekit/namespaces.py) -------------------------------------------------------

PUBLIC = ["tapekit"] + [f"tapekit.{n}" for n in namespaces.TK_NAMESPACES]
LEAKED = {"np", "numpy", "state", "enter_raw", "leave_raw", "namedtuple", "enum", "sys",
          "importlib", "ModuleType", "public_dir", "missing"}


@pytest.mark.parametrize("name", PUBLIC)
def test_no_public_namespace_shows_a_tool_it_imported(name):
    # tk.backprop showed np, state, enter_raw; tk.record namedtuple, Sequence (issue 44).
    module = tk if name == "tapekit" else getattr(tk, name.split(".")[1])
    names = shown(module)
    assert not LEAKED & set(names), (name, sorted(LEAKED & set(names)))
    for n in names:
        value = getattr(module, n)
        home = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
        if isinstance(home, str) and not isinstance(value, np.dtype):
            assert home.split(".")[0] == "tapekit" or home == "builtins", (name, n, home)


def test_backprop_and_record_show_their_api_only():
    assert shown(tk.backprop) == ["GradientDtypeWarning", "UnconnectedGradients", "backward",
                                  "batch_jacobian", "gradient", "jacobian", "reachable"]
    assert shown(tk.record) == ["Record", "RecordList", "Recorder"]
    assert tk.backprop.np is np                  # hidden from dir(), still reachable


@pytest.mark.parametrize("name", sorted(namespaces.MADE))
def test_a_made_namespace_is_its_table_and_imports_as_a_module(name):
    module = importlib.import_module(name)
    assert sys.modules[name] is module is functools.reduce(getattr, name.split(".")[1:], tk)
    _, table = namespaces.MADE[name]
    # A made namespace inside another (tk.types.experimental) is shown by its parent too.
    inside = [n.rpartition(".")[2] for n in namespaces.MADE if n.rpartition(".")[0] == name]
    assert module.__all__ == sorted([*namespaces.names_of(table), *inside]) == shown(module)
    for shown_name, value in namespaces.names_of(table).items():
        assert getattr(module, shown_name) is value
    assert module.__doc__


def test_made_namespaces_hand_on_the_same_objects():
    from tapekit import nn
    import tapekit.math
    assert tapekit.math.log is tk.log and nn.relu is tk.nn.relu
    assert tk.test.check_gradients is tk.testing.check_gradients
    assert tk.linalg.adjoint is tk.ops.matrix.adjoint and tk.broadcast_to is tk.ops.shapes.broadcast_to_shape


def test_keras_namespaces_are_one_module_under_every_name():
    for name in namespaces.KERAS:
        module = getattr(tk.keras, name)
        assert getattr(tk, name) is module
        assert sys.modules[f"tapekit.{name}"] is module
        assert importlib.import_module(f"tapekit.{name}") is module


def test_keras_ops_is_tk_ops_and_the_op_table_stays_the_package():
    # `import tapekit as keras; keras.ops.mean` is Keras's mean (issue 45); the package
    # tapekit.ops, tapekit's op table by TensorFlow's names, is what imports reach
    import tapekit.keras.ops
    assert tk.ops is tk.keras.ops is tapekit.keras.ops and "ops" in dir(tk.keras)
    table = sys.modules["tapekit.ops"]
    assert table is not tk.ops and importlib.import_module("tapekit.ops") is table
    from tapekit.ops import argmax
    assert argmax is table.argmax is tk.argmax and tk.ops.argmax is not tk.argmax
    # the table's modules and registry, which tk.ops named before, are still reached from it
    assert tk.ops.registry is table.registry and tk.ops.OPS is table.OPS
    assert tk.ops.matrix.adjoint is tk.linalg.adjoint
    assert "registry" not in dir(tk.ops) and "OPS" not in dir(tk.ops)   # not keras.ops's names
    with pytest.raises(AttributeError) as plain:      # a name neither has: Python's own error
        tk.ops.reduce_sum
    assert not isinstance(plain.value, namespaces.NotInTapekit)


def test_a_missing_name_is_an_attribute_error_and_a_refused_one_says_what_instead(monkeypatch):
    with pytest.raises(AttributeError, match="module 'tapekit.math' has no attribute 'no_such_op'"):
        tk.math.no_such_op
    assert not hasattr(tk, "no_such_name") and not hasattr(tk.backprop, "no_such_name")
    monkeypatch.setitem(namespaces.not_in_tapekit(), "tapekit.math", {"bessel_i0": {
        "tf": "tf.math.bessel_i0", "status": "missing", "instead": "tk.math.exp ..."}})
    with pytest.raises(namespaces.NotInTapekit, match=r"tapekit does not have tf\.math\.bessel_i0: "
                                                      r"it is in tapekit's scope but not built "
                                                      r"yet\. Instead: tk\.math\.exp \.\.\.\. "
                                                      r"The table .*names\.md"):
        tk.math.bessel_i0
    assert issubclass(namespaces.NotInTapekit, AttributeError)
    assert not hasattr(tk.math, "bessel_i0")     # getattr(..., default) and hasattr still work


def test_the_names_tapekit_lacks_say_so_in_every_namespace():
    # from tapekit/not_in_tapekit.json (tools/inventory): out of scope with its reason, or not
    # built yet; under every name of a Keras namespace; and keras.ops after import tapekit as keras
    with pytest.raises(namespaces.NotInTapekit, match=r"tapekit does not have tf\.data: it is "
                                                      r"outside tapekit's scope \("):
        tk.data
    with pytest.raises(namespaces.NotInTapekit, match=r"tapekit does not have keras\.layers\."
                                                      r"MultiHeadAttention: it is in tapekit's scope"):
        tk.layers.MultiHeadAttention
    with pytest.raises(namespaces.NotInTapekit, match=r"MultiHeadAttention"):
        tk.keras.layers.MultiHeadAttention
    with pytest.raises(namespaces.NotInTapekit, match=r"tapekit does not have keras\.ops\.argsort: "
                                                      r"it is in tapekit's scope"):
        tk.ops.argsort                # keras.ops after import tapekit as keras (issue 45)
    with pytest.raises(namespaces.NotInTapekit, match=r"keras\.ops\.argsort"):
        tk.keras.ops.argsort
    with pytest.raises(AttributeError) as plain:       # a name no one has: Python's own error
        tk.layers.Dnese
    assert not isinstance(plain.value, namespaces.NotInTapekit)
    assert plain.value.name == "Dnese" and plain.value.obj is tk.layers   # "Did you mean: 'Dense'?"


# --- a class's members: tk.Variable(...).device says tapekit lacks it, not a bare AttributeError ---
def test_a_member_tapekit_lacks_says_so_and_a_typo_is_pythons_own_error(monkeypatch):
    v = tk.Variable(1.0)
    with pytest.raises(namespaces.NotInTapekit, match=r"^tapekit does not have tf\.Variable\.graph: "
                                                      r".*names\.md"):
        v.graph
    assert not hasattr(v, "graph")               # an AttributeError: hasattr and getattr(default)
    assert getattr(v, "graph", "none") == "none"
    with pytest.raises(AttributeError) as typo:
        v.nupmy
    assert not isinstance(typo.value, namespaces.NotInTapekit)
    assert typo.value.name == "nupmy" and typo.value.obj is v     # so Python says "Did you mean"
    assert "'Variable' object has no attribute 'nupmy'" in str(typo.value)
    # a Model's member, looked up along its classes (keras.Model.x is listed under Model)
    model = tk.keras.Sequential([tk.keras.layers.Dense(1)])
    monkeypatch.setitem(namespaces.member_refusals(), "tapekit.keras.layers.base.Layer", {
        "made_up_member": {"tf": "keras.layers.Layer.made_up_member", "status": "out-of-scope",
                           "reason": "device"}})
    with pytest.raises(namespaces.NotInTapekit, match=r"keras\.layers\.Layer\.made_up_member: it "
                                                      r"is outside tapekit's scope \(device\)"):
        model.made_up_member


def test_a_property_that_raises_attribute_error_shows_its_own_error():
    class Odd(tk.keras.layers.Layer):
        @property
        def broken(self):
            return self.no_such_field + 1

    with pytest.raises(AttributeError, match="'Odd' object has no attribute 'no_such_field'"):
        Odd().broken


def test_every_class_with_refused_members_refuses_them_by_message():
    import importlib
    for key, members in namespaces.member_refusals().items():
        module, _, qualname = key.rpartition(".")
        cls = getattr(importlib.import_module(module), qualname)
        assert cls.__getattr__ is namespaces.no_attribute, key
        for name in members:
            assert name not in dir(cls), f"{key}.{name} is refused but the class has it"
    made = {"tapekit.tensor.Variable": tk.Variable(1.0), "tapekit.tensor.Tensor": tk.constant(1.0),
            "tapekit.tensor_shape.TensorShape": tk.TensorShape([2]),
            "tapekit.keras.optimizers.base_optimizer.Optimizer": tk.keras.optimizers.SGD(0.1),
            "tapekit.keras.metrics.base.Metric": tk.keras.metrics.Mean(),
            "tapekit.keras.models.model.Model": tk.keras.Sequential([tk.keras.layers.Dense(1)])}
    for key, obj in made.items():
        for name in namespaces.member_refusals().get(key, {}):
            # under the class's own TF name or a base's (Sequential's, then Model's, Layer's)
            with pytest.raises(namespaces.NotInTapekit, match=rf"^tapekit does not have [\w.]+\.{name}: "):
                getattr(obj, name)
