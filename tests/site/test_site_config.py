"""docs/conf.py choices that the browser test cannot see until other branches store new outputs:
which MIME type of a notebook output the HTML site shows."""
import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
render = pytest.importorskip("myst_nb.core.render")


def _conf_value(name):
    tree = ast.parse((REPO / "docs" / "conf.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(name)


def _shown(bundle):
    """The MIME type myst-nb's HTML builder renders for an output with these types."""
    priority = render.get_mime_priority("html", _conf_value("nb_mime_priority_overrides"))
    return next((m for m in priority if m in bundle), None)


WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.mark.parametrize("bundle, shown", [
    ({WIDGET, "image/png", "text/plain"}, "image/png"),                 # widget + its picture
    # a tapekit widget or graph: its picture as HTML, with alt text (display/picture.py)
    ({WIDGET, "image/png", "text/html", "text/plain"}, "text/html"),
    ({"image/svg+xml", "image/png", "text/html", "text/plain"}, "text/html"),
    ({WIDGET, "text/plain"}, "text/plain"),       # no picture yet: text, never a blank widget
    ({"image/svg+xml", "image/png", "text/plain"}, "image/svg+xml"),   # a graph stays sharp
    ({"text/html", "text/plain"}, "text/html"),
])
def test_static_pictures_win_and_widget_views_never_render(bundle, shown):
    assert _shown(bundle) == shown


def test_site_is_offline_and_does_not_execute():
    assert _conf_value("nb_execution_mode") == "off"
    assert _conf_value("nb_ipywidgets_js") == {}
    assert not _conf_value("mathjax_path").startswith(("http:", "https:", "//"))
    assert "sphinx.ext.intersphinx" not in _conf_value("extensions")
