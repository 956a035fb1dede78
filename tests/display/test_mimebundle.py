"""tapekit.display.mimebundle: tk.show and a tape's notebook display (SVG and PNG with `dot`;
an HTML table and how to install Graphviz without it, never a traceback)."""
import base64
import io
import shutil

import graphviz
import pytest

import tapekit as tk

from .tapes import small_tape, wide_tape

pytestmark = pytest.mark.usefixtures("record")   # display recording on for every test


def test_mimebundle_keys_without_dot(monkeypatch, record):
    tape, x, c, w = small_tape()
    monkeypatch.setenv("PATH", "/nonexistent")                # graphviz cannot find `dot`
    bundle = tape._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert "apt-get install graphviz" in bundle["text/html"] and "<table" in bundle["text/html"]


def test_mimebundle_when_graphviz_raises(monkeypatch, record):
    import graphviz
    tape, x, c, w = small_tape()

    def missing(*args, **kwargs):
        raise graphviz.ExecutableNotFound(("dot",))
    monkeypatch.setattr(graphviz.Digraph, "pipe", missing)
    assert set(tape._repr_mimebundle_()) == {"text/plain", "text/html"}
    assert set(tape._repr_mimebundle_(include=["text/plain"])) == {"text/plain"}


def test_ipython_formatter_uses_the_bundle(monkeypatch, record):
    formatters = pytest.importorskip("IPython.core.formatters")
    monkeypatch.setenv("PATH", "/nonexistent")
    tape, x, c, w = small_tape()
    data, _ = formatters.DisplayFormatter().format(tape)
    assert data["text/plain"] == tk.show(tape).text and "text/html" in data


def test_showing_inside_the_tape_records_nothing(record):
    x = tk.Variable(2.0)
    with tk.GradientTape() as tape:
        y = x * x
        n = len(tape._records)
        tk.show(tape, y, x)._repr_mimebundle_()
        tape.explain(y, x)
        assert len(tape._records) == n


def test_a_failing_dot_is_named_above_the_table(monkeypatch):
    tape, x, c, w = small_tape()

    def crash(*args, **kwargs):
        raise graphviz.CalledProcessError(1, ["dot"])
    monkeypatch.setattr(graphviz.Digraph, "pipe", crash)
    bundle = tk.show(tape)._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    assert "Graphviz&#x27;s dot failed (CalledProcessError" in bundle["text/html"]
    assert "apt-get install" not in bundle["text/html"]


def test_include_and_exclude_pick_the_types(monkeypatch):
    tape, x, c, w = small_tape()
    monkeypatch.setenv("PATH", "/nonexistent")
    assert set(tk.show(tape)._repr_mimebundle_(exclude=["text/html"])) == {"text/plain"}
    assert set(tk.show(tape)._repr_mimebundle_(include=["text/html"])) == {"text/html"}


def test_show_options_override_the_defaults_for_one_view():
    tape, x, c, w = small_tape()
    previous = tk.display.set_options(rankdir="LR", precision=1)
    try:
        assert "rankdir=LR" in tk.show(tape).source
        view = tk.show(tape, rankdir="TB")
        assert view.options["rankdir"] == "TB" and view.options["precision"] == 1
        assert "rankdir=TB" in view.source
    finally:
        tk.display.set_options(**previous)
    assert tk.show(tape).options["rankdir"] == previous["rankdir"]


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")
def test_the_picture_of_an_op_over_5000_variables_is_small_and_not_empty():
    # Its PNG was empty (and its SVG 6.7 MB, 25 s of dot): the 5,001 nodes did not fit
    Image = pytest.importorskip("PIL.Image")
    tape, loss, xs = wide_tape(5000)
    bundle = tape._repr_mimebundle_()
    assert len(bundle["image/svg+xml"]) < 50_000 and "5,000 inputs: v0:0 ... v4999:0" in bundle["image/svg+xml"]
    png = Image.open(io.BytesIO(base64.b64decode(bundle["image/png"]))).convert("L")
    width, height = png.size
    assert 200 < width <= 9.5 * 96 + 1 and 200 < height < 3000
    dark = sum(png.histogram()[:128])                 # pixels of text and lines
    assert dark > 0.01 * width * height


needs_dot = pytest.mark.skipif(__import__("shutil").which("dot") is None,
                               reason="Graphviz dot not installed")


@needs_dot
def test_the_picture_is_html_with_its_alt_text_and_description():
    """Issue 46: JupyterLab draws image/png and image/svg+xml as an <img> with no alt; HTML
    ranks above both, so it carries the picture (the same PNG) with the words."""
    tape, x, c, w = small_tape()
    tape.gradient(w, x)
    view = tk.show(tape, w, x)
    bundle = view._repr_mimebundle_()
    words = view.describe()
    assert set(bundle) == {"text/plain", "text/html", "image/svg+xml", "image/png"}
    html = bundle["text/html"]
    assert html.startswith('<figure class="tapekit-figure"')
    assert f'alt="{words.name}"' in html and f'base64,{bundle["image/png"]}"' in html
    assert "<summary>Text description</summary>" in html
    assert "s0: the variable x:0, watched; scalar, float32; value 3.0; gradient 47.0; a source." in html
    assert tape._repr_mimebundle_()["text/html"].count("<li>") == len(tape.describe().items)
    assert view._repr_mimebundle_(exclude=["image/png"])["text/html"] == html   # needs the PNG
