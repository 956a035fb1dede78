"""dir() and tab completion of tapekit's namespaces list their public names, not what each
module imported for its own use (tk.optimizers listed `np`, `threading`, `convert_to_tensor`)."""
import ast
import importlib
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

import tapekit as tk

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
