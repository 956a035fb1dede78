"""The docstring examples of tapekit run as doctests, and every public name has one.

Each docstring with `>>>` examples anywhere in the package is one test item
(`test_docstring_examples[tapekit.tape.GradientTape.gradient]`). The examples see `tk`
(tapekit) and `np` (NumPy), and their output must match exactly, as a reader would see it.
The public names come from docs/_ext/tapekit_api.py, the same list the API reference
is generated from.
"""
import doctest
import importlib
import pkgutil
import sys
from pathlib import Path

import numpy as np
import pytest

import tapekit

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "docs" / "_ext"))
import tapekit_api  # noqa: E402


def _doctests():
    finder = doctest.DocTestFinder(exclude_empty=True)
    modules = [tapekit] + [importlib.import_module(m.name) for m in
                           pkgutil.walk_packages(tapekit.__path__, "tapekit.")]
    seen, tests = set(), []
    for mod in modules:
        for t in finder.find(mod, mod.__name__, globs={}):
            key = (t.filename, t.lineno, t.name)
            if t.examples and key not in seen:
                seen.add(key)
                tests.append(t)
    return sorted(tests, key=lambda t: t.name)


DOCTESTS = _doctests()


@pytest.mark.parametrize("test", DOCTESTS, ids=[t.name for t in DOCTESTS])
def test_docstring_examples(test):
    test.globs = {"tk": tapekit, "np": np}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)   # exact, but `...` may elide
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, f"{test.filename}:{test.lineno}\n" + "".join(out)


def test_examples_are_found():
    """The collection above finds the examples (a broken finder would pass vacuously)."""
    names = {t.name for t in DOCTESTS}
    assert "tapekit.testing.jacobians.compute_gradient" in names   # tk.test.compute_gradient
    assert len(DOCTESTS) >= 20


# Public names allowed to lack a `>>>` example: none. A new public name without one fails
# the test below; list it here only as a visible, temporary debt.
MISSING_EXAMPLES = set()


def test_every_public_name_has_an_example():
    lacking = {q for q, obj in tapekit_api.all_public()
               if tapekit_api.home(q, obj) == q and not tapekit_api.has_example(q, obj)}
    assert sorted(lacking - MISSING_EXAMPLES) == [], "public names without a >>> example"
    assert sorted(MISSING_EXAMPLES - lacking) == [], "have an example now: remove from MISSING_EXAMPLES"


def test_public_names_come_from_the_package():
    """The list is computed, not typed: it follows what tapekit exports."""
    public = {q for q, _ in tapekit_api.all_public()}
    assert {"tapekit.GradientTape", "tapekit.sin", "tapekit.float32", "tapekit.widgets.BackpropStepper",
            "tapekit.display.show", "tapekit.debugging.check_numerics",
            "tapekit.test.compute_gradient"} <= public
    assert "tapekit.debugging.np" not in public          # an import, not a name of tk.debugging
    assert "tapekit.tape" not in public                   # implementation modules are not listed


def test_a_class_page_lists_what_its_own_mixins_give_it():
    """Model's fit is Trainer's and Layer's add_weight LayerWeights's (mixins the reference does
    not document apart): their pages list them. Nothing comes from the documented bases
    (Dense's page does not repeat Layer's), from outside tapekit, or from the tape's recorder
    protocol."""
    def inherited(cls):
        lines = [ln for ln in tapekit_api._entry("x", cls) if "inherited-members" in ln]
        return lines[0].split(":inherited-members:")[1].strip().split(", ") if lines else None
    assert inherited(tapekit.Model)[0] == "Layer"          # Trainer's fit and compute_loss
    assert inherited(tapekit.keras.layers.Layer)[0] == "Module"   # LayerConfig, LayerWeights
    assert inherited(tapekit.keras.layers.Dense) is None
    assert inherited(tapekit.GradientTape) is None         # Recorder's record_* hooks stay out
    assert inherited(tapekit.debugging.NumericsError) is None
