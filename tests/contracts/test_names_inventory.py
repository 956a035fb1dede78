"""The inventory of TensorFlow's and Keras's names (issue 45) holds for this tree.

tools/inventory/ walks TF 2.21's and Keras 3.15's public API (in a TensorFlow venv, never here),
counts each name's uses in public learning material, and compares each name with tapekit
(`compare.py`, which needs no TensorFlow). Its data is committed. Here, without TensorFlow:
- the comparison run now gives the statuses the data records: every name marked built exists
  with TF's signature (and TF's output on its sample), and a name built since is not left
  marked missing (re-run `tools/inventory/compare.py` after building or refusing names);
- every name tapekit lacks (tapekit/not_in_tapekit.json, from the same data) raises
  NotInTapekit, with the message that says tapekit does not have it, never a bare
  AttributeError;
- every one of the 500 most used names is built, or refused with that message; a member of
  a class tapekit has (tf.Variable.device) is refused by its class's `__getattr__`
  (namespaces.no_attribute; tests/test_namespaces.py asks each one).
"""
import importlib
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tapekit import namespaces

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "inventory"


def _compare():
    spec = importlib.util.spec_from_file_location("inventory_compare", TOOL / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)       # puts tools/inventory on sys.path for its helpers
    return module


@pytest.fixture(scope="module")
def compare():
    return _compare()


@pytest.fixture(scope="module")
def recorded():
    with open(TOOL / "data" / "inventory.json", encoding="utf-8") as f:
        return {r["name"]: r for r in json.load(f)["names"]}


@pytest.fixture(scope="module")
def compared(compare):
    rows, _, _, tk = compare.compare_all(with_tapekit=True)
    return rows, tk


@pytest.fixture(scope="module")
def computed(compared):
    return compared[0]


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the data was compared on Python 3.11; "
                    "other Pythons show some signatures (an Enum's) otherwise")
def test_the_recorded_statuses_are_this_trees(computed, recorded):
    stale = [(r["name"], recorded[r["name"]]["status"], r["status"]) for r in computed
             if recorded[r["name"]]["status"] != r["status"]]
    assert not stale, (f"{len(stale)} names changed status (recorded, now), e.g. {stale[:8]}: "
                       f"re-run `python tools/inventory/compare.py` and commit its data")


def test_the_refused_names_are_the_inventorys(compare, compared):
    rows, tk = compared
    data = json.loads((REPO / "tapekit" / "not_in_tapekit.json").read_text(encoding="utf-8"))
    assert data["namespaces"] == compare.refusals(rows), (
        "tapekit/not_in_tapekit.json is stale: re-run `python tools/inventory/compare.py`")
    assert data["members"] == compare.member_refusals(rows, tk), (
        "tapekit/not_in_tapekit.json's members are stale: re-run `python tools/inventory/compare.py`")


def test_every_name_tapekit_lacks_says_so():
    unanswered = []
    for namespace, names in namespaces.not_in_tapekit().items():
        module = importlib.import_module("tapekit")
        try:
            for part in namespace.split(".")[1:]:  # tk.autograph is an attribute, not a file
                module = getattr(module, part)
        except AttributeError:    # keras.random is tk.random; tk.keras.random is not there
            continue
        for name, entry in names.items():
            if name not in dir(module) and isinstance(getattr(module, name, None), ModuleType):
                continue    # tapekit's own module of that name (tapekit.ops, tapekit.nest)
            try:
                getattr(module, name)
            except namespaces.NotInTapekit as e:
                # under its own name or another module's name for it (tf.initializers is
                # keras.initializers)
                assert str(e).startswith("tapekit does not have ") and f".{name}: " in str(e), str(e)
                assert "names.md" in str(e)
            else:
                unanswered.append(f"{namespace}.{name}")
    assert not unanswered, f"present although listed as missing: {unanswered[:10]}"


def test_the_500_most_used_names_are_built_or_refused(computed):
    refused = namespaces.not_in_tapekit()
    members = ("method", "property", "attribute")
    lacking = []
    for r in computed:
        if not r["rank"] or r["rank"] > 500 or r["status"] in ("built", "built-differs"):
            continue
        if r["kind"] in members:
            continue   # refused by its class (test_namespaces), or its class is refused here
        spots = [spot for alias in [r["name"]] + r["aliases"] for spot in
                 _compare_namespaces(alias)]
        if not any(name in refused.get(module, {}) or _refused_above(refused, module)
                   for module, name in spots):
            lacking.append(r["name"])
    assert not lacking, f"neither built nor refused by message: {lacking}"


def _compare_namespaces(alias):
    return sys.modules["inventory_compare"].namespaces_of(alias) if "inventory_compare" in \
        sys.modules else _compare().namespaces_of(alias)


def _refused_above(refused, module):
    """A namespace tapekit refuses as a whole (tk.data) refuses every name in it."""
    parts = module.split(".")
    return any(parts[i] in refused.get(".".join(parts[:i]), {}) for i in range(1, len(parts)))
