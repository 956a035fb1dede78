"""tapekit.display: the graph model, DOT / HTML / text renderings, notebook display, escaping."""
import re
import shutil

import numpy as np
import pytest

import tapekit as tk
from tapekit.display import graph
from tapekit.display.tape_log import log_of

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")


@pytest.fixture
def record():
    """Display recording on (as in a notebook) for one test."""
    with tk.display.option_context(record=True):
        yield


def small_tape(persistent=True):
    x = tk.Variable(3.0, name="x")
    c = tk.constant([1.0, 2.0])
    with tk.GradientTape(persistent=persistent) as tape:
        y = x ** 2
        z = y * c + 1.0
        w = tk.reduce_sum(tk.stop_gradient(z) * x + z)
    return tape, x, c, w


# --- the graph model ---------------------------------------------------------------------

def test_model_nodes_ids_kinds_values_and_gradients(record):
    tape, x, c, w = small_tape()
    tape.gradient(w, x)
    m = graph.build(tape)
    assert [n.id for n in m.nodes] == ["s0", "s1", "n0", "n1", "n2", "n3", "n4", "n5", "n6"]
    kinds = {n.id: n.kind for n in m.nodes}
    assert kinds["s0"] == "variable" and kinds["s1"] == "constant" and kinds["n3"] == "stop_gradient"
    n0 = m.node("n0")
    assert (n0.label, n0.args, n0.shape, n0.dtype) == ("pow", ("s0", "2"), (), "float32")
    assert float(n0.value) == 9.0 and n0.grad.tolist() == 3.0          # dw/dy = sum(c) = 3
    assert m.node("n2").args == ("n1", "1.0")
    assert m.node("n6").grad.tolist() == 1.0 and m.has_grads
    edges = {(e.src, e.dst): e for e in m.edges}
    assert edges[("n2", "n3")].is_stop_gradient and not edges[("n2", "n3")].differentiable
    assert not edges[("s0", "n0")].is_stop_gradient


def test_model_shows_the_gradient_of_a_source(record):
    tape, x, c, w = small_tape()
    g = tape.gradient(w, x)
    assert graph.build(tape).node("s0").grad.tolist() == g.numpy().tolist()


def test_path_highlight_and_dimming(record):
    tape, x, c, w = small_tape()
    m = graph.build(tape, w, x)
    on = {n.id for n in m.nodes if n.on_path}
    assert on == {"s0", "n0", "n1", "n2", "n4", "n5", "n6"}       # not the stop_gradient n3
    assert m.node("n3").dimmed and m.node("s1").dimmed and not m.node("s0").dimmed
    assert m.node("n6").is_target and m.node("s0").is_source
    path_edges = {(e.src, e.dst) for e in m.edges if e.on_path}
    assert ("s0", "n0") in path_edges and ("n2", "n3") not in path_edges


def tapekit_logs():
    from tapekit.display import tape_log as recording
    return recording._logs


def test_without_recording_values_are_what_rules_saved_and_hot_path_is_unchanged():
    assert not tk.display.recording()                   # pytest is not an IPython kernel
    x = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        y = tk.tanh(x + 1.0)
    assert tape not in tapekit_logs()           # display kept nothing about this tape
    assert not hasattr(tape.records[0], "value")
    m = graph.build(tape)
    assert m.node("n0").value is None and m.node("n0").shape == (2,)   # add saves nothing
    assert m.node("n1").value is not None                              # tanh saves its output
    assert any("record=True" in note for note in m.notes)


def test_recording_changes_no_gradient(record):
    x = tk.Variable([0.5, -1.5])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.sigmoid(x * x) * 3.0)
    g_on = tape.gradient(y, x).numpy()
    with tk.display.option_context(record=False):
        with tk.GradientTape() as tape2:
            y2 = tk.reduce_sum(tk.sigmoid(x * x) * 3.0)
        g_off = tape2.gradient(y2, x).numpy()
    np.testing.assert_array_equal(g_on, g_off)


def test_non_persistent_tape_is_shown_after_gradient(record):
    tape, x, c, w = small_tape(persistent=False)
    tape.gradient(w, x)
    assert tape._records == []                          # gradient released them ...
    assert len(graph.build(tape).nodes) == 9            # ... the display still has them
    tape.reset()
    assert graph.build(tape).nodes == []


def test_showing_inside_the_tape_records_nothing(record):
    x = tk.Variable(2.0)
    with tk.GradientTape() as tape:
        y = x * x
        n = len(tape._records)
        tk.show(tape, y, x)._repr_mimebundle_()
        tape.explain(y, x)
        assert len(tape._records) == n


def test_layer_weights_are_labelled_by_their_path(record):
    # Keras 3 names every Dense weight "kernel" or "bias"; two layers in one picture would
    # show two "kernel" boxes, so the picture labels a layer weight by its path.
    first, second = tk.layers.Dense(2, name="first"), tk.layers.Dense(1, name="second")
    w = tk.Variable([[1.0, 2.0]], name="w")
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(second(first(tk.matmul(w, tk.ones((2, 3))))))
    sources = [first.kernel, first.bias, second.kernel, w]
    m = graph.build(tape, y, sources)
    labels = {n.label for n in m.nodes if n.kind == "variable"}
    assert {"first/kernel", "first/bias", "second/kernel", "w:0"} <= labels
    assert first.kernel.name == "kernel" and w.name == "w:0" and w.path == "w"
    assert repr(first.kernel).startswith("<tk.Variable 'first/kernel' shape=(3, 2)")


def test_watched_intermediate_and_unused_source(record):
    x = tk.constant(1.0)
    unused = tk.Variable(5.0, name="unused")
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
        tape.watch(y)
        z = y + 1.0
    m = graph.build(tape, z, [y, unused])
    assert m.node("s0").kind == "watched" and m.node("n0").note == "watched"
    assert m.node("s1").label == "unused:0" and m.node("s1").kind == "unwatched"
    assert m.node("s1").note == "no recorded op read it"
    assert m.node("n0").is_source and m.node("n0").on_path


# --- DOT, HTML and text (no `dot` needed) -----------------------------------------------

def test_dot_source_styles_and_options(record):
    tape, x, c, w = small_tape()
    tape.gradient(w, x)
    src = tk.show(tape, w, x).source
    assert "rankdir=TB" in src
    assert 'n2 -> n3 [color="#b0b0b0" style=dashed]' in src           # stop_gradient edge
    assert 's0 -> n0 [color="#d62728" penwidth=2]' in src             # on the path
    assert "<B>pow</B>" in src and "value 9.0" in src and "grad 3.0" in src
    assert "0x" not in src
    lr = tk.show(tape, rankdir="LR", show_values=False, precision=2).source
    assert "rankdir=LR" in lr and "value " not in lr and "grad 3.0" in lr
    with pytest.raises(ValueError, match="rankdir"):
        tk.show(tape, rankdir="XY").source
    with pytest.raises(TypeError, match="unknown option"):
        tk.show(tape, colour="red")


def test_text_table(record):
    tape, x, c, w = small_tape()
    tape.gradient(w, x)
    text = tk.show(tape, w, x).text
    lines = text.splitlines()
    assert lines[0] == "GradientTape (persistent): 7 records, 1 watched; gradients of the last gradient() call"
    assert lines[1].split() == ["node", "kind", "op", "/", "name", "inputs", "shape", "dtype",
                                "value", "gradient", "note"]
    row = next(line for line in lines if line.startswith("* n0 "))
    assert row.split() == ["*", "n0", "op", "pow", "s0,", "2", "()", "float32", "9.0", "3.0"]
    assert "0x" not in text and "object at" not in text
    assert repr(tk.show(tape)) == tk.show(tape).text


def test_html_table(record):
    tape, x, c, w = small_tape()
    html = tk.show(tape, w, x).to_html("install Graphviz")
    assert html.startswith('<div class="tapekit-tape"') and html.endswith("</div>")
    assert "<td" in html and "pow" in html and "install Graphviz" in html


def test_empty_tape_says_what_to_do():
    tape = tk.GradientTape()
    view = tk.show(tape)
    assert "Nothing was recorded" in view.text and "empty" in view.source


# --- notebook display ------------------------------------------------------------------

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


@needs_dot
def test_svg_has_labels_values_gradients_and_path(record):
    tape, x, c, w = small_tape()
    tape.gradient(w, x)
    bundle = tk.show(tape, w, x)._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "image/svg+xml", "image/png"}
    svg = bundle["image/svg+xml"]
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    for text in ("x:0", "pow", "stop_gradient", "value 9.0", "grad 3.0", "#d62728"):
        assert text in svg
    assert svg.count('stroke-dasharray="5,2"') >= 1                    # the dashed edge


# --- escaping ----------------------------------------------------------------------------

EVIL = "<script>alert(1)</script>"


def evil_tape():
    x = tk.Variable(1.0, name=EVIL)
    q = tk.Variable(2.0, name="\"&'")

    @tk.custom_gradient
    def f(t):
        return tk.identity(t), lambda dy: dy
    f.__wrapped__.__name__ = "<b>bold</b>"
    with tk.GradientTape(persistent=True) as tape:
        with tk.display.name_scope("<i>scope</i>"):
            y = f(x) * q
    return tape, y, x


def test_user_strings_are_escaped_in_dot_html_and_text(record):
    tape, y, x = evil_tape()
    view = tk.show(tape, y, x)
    for out in (view.source, view.to_html()):
        assert EVIL not in out and "<b>bold" not in out
        assert "&lt;script&gt;alert(1)&lt;/script&gt;:0" in out
        assert "&quot;&amp;&#x27;:0" in out
    assert EVIL + ":0" in view.text and "custom_gradient(<b>bold</b>)" in view.text  # as is
    small = tk.show(tape, max_nodes=1)                                  # the scope: one box
    assert "<i>scope" not in small.source and "&lt;i&gt;scope&lt;/i&gt;" in small.source
    assert "<i>scope" not in small.to_html() and "&lt;i&gt;scope" in small.to_html()


@needs_dot
def test_user_strings_are_escaped_in_svg(record):
    tape, y, x = evil_tape()
    svg = tk.show(tape, y, x).svg()
    assert "<script" not in svg and "&lt;script&gt;" in svg
    assert "<b>" not in svg
    v = tk.Variable(1.0, name="a\\Nb")          # Graphviz would print \N as the node id
    with tk.GradientTape() as tape:
        v * v
    assert "a\\\\Nb:0" in tk.show(tape).source                   # doubled in the DOT text
    assert ">a\\Nb:0<" in tk.show(tape).svg()


# --- large tapes ----------------------------------------------------------------------------

def test_5000_op_tape_is_summarised(record):
    w = tk.Variable(np.full(4, 0.5, np.float32), name="w")
    h = tk.constant(np.ones(4, np.float32))
    with tk.GradientTape() as tape:
        for _ in range(2500):
            h = h * w + 0.1
        loss = tk.reduce_sum(h)
    tape.gradient(loss, w)
    view = tk.show(tape, loss, w)
    assert len(view.model.nodes) <= 100 and view.model.summarised
    assert "multiply -&gt; add x2500" in view.source and "multiply -> add x2500" in view.text
    assert any(note.startswith("Summarised: 5003 nodes") for note in view.model.notes)
    full = tk.show(tape, max_nodes=None).model
    assert len(full.nodes) == 5003                      # 5001 records, w and the constant h


def test_irregular_tape_is_cut_to_max_nodes(record):
    x = tk.Variable([0.3, 0.7])
    fns = [tk.sin, tk.cos, tk.tanh, tk.sigmoid, tk.abs]
    with tk.GradientTape() as tape:
        h = x
        for k in np.random.default_rng(0).integers(5, size=600):
            h = fns[k](h)
    m = tk.show(tape, h, x, max_nodes=30).model
    assert len(m.nodes) <= 31 and any(n.label.startswith("... ") for n in m.nodes)
    assert m.node("s0").on_path and any(n.is_target for n in m.nodes)


def test_name_scopes_collapse_into_boxes(record):
    x = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        h = x
        for k in range(40):
            with tk.display.name_scope("layer"):
                h = tk.tanh(h * 0.5 + 1.0)
    m = tk.show(tape, max_nodes=10).model
    blocks = [n for n in m.nodes if n.kind == "block"]
    assert [b.label for b in blocks] == ["layer x40"] and len(blocks[0].records) == 120


# --- pictures that fit the page (issues 13 and 14) -----------------------------------------

def _svg_size_pt(svg):
    import re
    w, h = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups()
    return float(w), float(h)


@needs_dot
def test_a_10000_character_name_is_clipped_and_kept_in_the_tooltip(record):
    """dot failed with "Edge length > 65535" on a 10,000-character name; the label is clipped."""
    name = "w" * 5000 + "<&>" + "v" * 5000
    x = tk.Variable(2.0, name=name)
    with tk.GradientTape() as tape:
        y = x * x
    view = tk.show(tape, y, x)
    bundle = view._repr_mimebundle_()
    assert {"image/svg+xml", "image/png"} <= set(bundle)
    svg = bundle["image/svg+xml"]
    texts = "".join(re.findall(r"<text[^>]*>[^<]*</text>", svg))   # what the picture shows
    assert "w" * 37 + "..." in texts and "w" * 41 not in texts
    assert "w" * 990 in svg                                    # the tooltip holds the name
    assert "<a" not in svg and "xlink:title" not in svg        # as a <title>, not a link
    assert _svg_size_pt(svg)[0] < 9.5 * 72
    assert name in view.text.replace("\n", "") or "wwww..." in view.text   # the table clips too


@needs_dot
def test_a_wide_graph_is_scaled_to_the_output_width(record):
    xs = [tk.Variable(float(i), name=f"parameter_number_{i}") for i in range(30)]
    with tk.GradientTape() as tape:
        y = xs[0] * xs[0]
        for x in xs[1:]:
            y = y + x * x
    bundle = tk.show(tape, y, xs)._repr_mimebundle_()
    width, height = _svg_size_pt(bundle["image/svg+xml"])
    assert width <= 9.5 * 72 + 1                       # 912 CSS px: JupyterLab's column is 968
    import base64
    import struct
    png = base64.b64decode(bundle["image/png"])
    png_width = struct.unpack(">I", png[16:20])[0]
    assert 800 < png_width <= 9.5 * 96 + 1


@needs_dot
def test_long_notes_are_wrapped_not_cut_off(record):
    x = tk.constant(3.0)
    with tk.GradientTape() as tape:
        y = x * x
    tape.gradient(y, x)
    src = tk.show(tape).source
    assert "Nothing was recorded" in src
    label = src[src.index("label=<"):]
    lines = label[:label.index("> labeljust")].split('<BR ALIGN="LEFT"/>')
    assert len(lines) >= 2 and max(len(s) for s in lines) <= 100


def test_unwatched_variables_say_so_and_why(record):
    """Lesson 06 cell 9 called a trainable Variable "constant, source, not watched"."""
    x = tk.Variable(1.0)
    frozen = tk.Variable(1.0, trainable=False)
    with tk.GradientTape() as tape:
        s = tk.constant(np.sin(x.numpy()))
        y = s * 2.0 + frozen
    m = graph.build(tape, y, [x, frozen])
    assert (m.node("s0").kind, m.node("s0").note) == ("unwatched", "no recorded op read it")
    assert "variable, not watched" in tk.show(tape, y, [x, frozen]).source
    assert "constant, source" not in tk.show(tape, y, [x, frozen]).source
    with tk.GradientTape(watch_accessed_variables=False) as tape:
        y = x * 2.0
    assert graph.build(tape, y, x).node("s0").note == "watch_accessed_variables=False"
    w = tk.Variable(1.0)
    with tk.GradientTape() as tape:
        y = w * 2.0
    assert graph.build(tape, y, w).node("s0").kind == "variable"
    assert "variable, watched" in tk.show(tape, y, w).source


def test_a_huge_tape_is_drawn_as_its_ends_the_break_and_boxes(record):
    w = tk.Variable(2.0)
    with tk.GradientTape(persistent=True) as tape:
        y = w
        for i in range(graph.HUGE_TAPE + 5000):
            y = y * 1.0
            if i == 12345:
                y = tk.stop_gradient(y)
    view = tape.explain(y, w).view()
    m = view.model
    ids = [n.id for n in m.nodes]
    assert len(m.nodes) <= 110 and "n0" in ids and f"n{graph.HUGE_TAPE + 5000}" in ids
    assert m.node("n12346").broken == "stop_gradient"                # the break is shown
    boxes = [n for n in m.nodes if n.kind == "block"]
    assert len(boxes) == 2 and sum(len(b.records) for b in boxes) == len(tape._records) - (len(m.nodes) - 3)
    by_id = {n.id: n for n in m.nodes}
    assert all(e.src in by_id and e.dst in by_id for e in m.edges)   # no edge to a hidden node
    assert any(e.src == boxes[0].id and e.dst == "n12346" for e in m.edges)
    assert "records in between are the boxes" in view.text
