"""tk.widgets.explore: a click in the GraphView opens the node in the NodeInspector, and the
inspector's choice selects it in the graph; the view composes and keeps a static picture."""
import base64
import shutil

import ipywidgets
import pytest

import tapekit as tk

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")


@pytest.fixture
def view():
    x = tk.Variable(2.0, name="x")
    w = tk.Variable(3.0, name="w")
    with tk.display.option_context(record=True):
        with tk.GradientTape(persistent=True) as tape:
            y = tk.sin(x * w) + x
    v = tk.widgets.explore(tape, y, [x, w])
    yield v
    ipywidgets.Widget.close_all()


def test_explore_is_the_package_function_not_a_module():
    assert callable(tk.widgets.explore) and tk.widgets.explore.__name__ == "explore"


def test_a_click_in_the_graph_opens_the_node_in_the_inspector(view):
    assert isinstance(view, ipywidgets.HBox) and view.children == (view.graph, view.inspector)
    view.graph.selected = "n1"                   # what a click on the sin node sends back
    assert view.inspector.selected == "n1"
    info = view.inspector.node()
    assert info.op == "sin" and float(info.grad) == pytest.approx(1.0)   # d(sin u + x)/d(sin u)
    view.graph.selected = "s0"
    assert view.inspector.node().op.startswith("x")


def test_the_inspector_selects_in_the_graph(view):
    view.inspector.select("n0")
    assert view.graph.selected == "n0"


def test_the_static_bundle_pictures_the_inspected_node(view):
    view.graph.selected = "n1"
    bundle = view._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG")
    assert bundle["text/plain"].startswith(view.inspector.text().splitlines()[0])
