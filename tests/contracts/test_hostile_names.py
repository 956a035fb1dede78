"""Untrusted names never become markup, links or scripts (issue 22).

A name that starts with "<" and ends with ">" used to reach Graphviz as an HTML string and
could end the attribute list early, adding a node and URL=/href attributes to the picture.
Each hostile name here is used as a tensor name, a Variable name, a name_scope and a layer
name; for each, the picture keeps the shape of the program (node and edge counts counted by
hand), carries no link or script, and still shows the name (escaped) where a normal name
shows: in the label (clipped to 40 characters) and, for a longer one, the tooltip (the whole
name, clipped to 1,000 characters). The table (no `dot`), tape.explain, the GraphView's
traits and the BackpropStepper escape it too.
"""
import html
import re
from html.parser import HTMLParser
import shutil
import xml.etree.ElementTree as ET

import graphviz
import numpy as np
import pytest

import tapekit as tk
from tapekit.display import dot as dotmod
from tapekit.display.format import clip, plain

pytest.importorskip("anywidget")
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")

PROBE = '<a>] evil [URL="javascript:window.__pwned=1" label="CLICK ME"] x [tooltip=<b>'
NAMES = {
    "probe": PROBE,
    "short_html_string": "<x>",                   # starts with < and ends with >: the trigger
    "quotes": "it's \"quoted\" 'twice'",
    "brackets": "a] [b=c] [d",
    "angles": "<b>bold</b> <script>window.__pwned=1</script>",
    "ampersand": "a & b &amp; &lt; &#45; &",
    "record_syntax": "{a|b} | {c} |",
    "backslashes": "back\\slash \\N \\G \\l \\E \\",
    "long_escapes": '\\N \\G \\" <b> ' * 6 + "\\",      # over 40: in the tooltip too
    "long_entities": "a &lt; &amp; &#92; & b " * 3,
    "javascript_url": "javascript:window.__pwned=1",
    "event_attr": '" onmouseover="window.__pwned=1" x="',
    "control": "line1\nline2\r\t" + "".join(map(chr, range(32))),
    "rtl": "abc\u202edcba\u200f\u2066x\u2069",
    "long": "w" * 5000 + PROBE + "v" * (5000 - len(PROBE)),
    "long_word": "w" * 10_000,
    # names of Keras's kind (issue 43): a layer or weight named in a student's language
    "cjk": "密集层",
    "micro": "w\u00b5",
    "space": "a b",
    "nul": "a\x00b",
    "surrogate": "x\ud800y",
}
assert len(NAMES["long"]) == len(NAMES["long_word"]) == 10_000
KINDS = ("tensor", "variable", "scope", "layer")
# Counted by hand from the programs below: (nodes, edges) of each picture.
COUNTS = {"tensor": (4, 3),     # x -> sin -> multiply -> reduce_sum
          "variable": (4, 3),   # the same, x a Variable
          "scope": (3, 2),      # x -> [the scope's 3 ops, one box] -> reduce_sum
          "layer": (6, 5)}      # kernel, bias, x; matmul(x, kernel) -> add(., bias) -> reduce_sum
LINK_ELEMENTS = {"a", "script", "foreignObject", "image", "use", "set", "animate", "iframe"}


def program(kind, name):
    """(tape, target, sources, label, max_nodes): a small program with `name` in it, and
    the label its node shows (a Variable's name ends in ":0")."""
    with tk.display.option_context(record=True):
        if kind == "layer":
            layer = tk.layers.Dense(2, name=name, kernel_initializer="ones")
            x = tk.constant([[1.0, 2.0]])
            with tk.GradientTape(persistent=True) as tape:
                y = tk.reduce_sum(layer(x))
            sources = [layer.kernel, layer.bias]
            tape.gradient(y, sources)
            return tape, y, sources, layer.kernel.path, None    # display labels weights by path
        if kind == "tensor":
            x = tk.constant([1.0, 2.0], name=name)
        else:
            x = tk.Variable([1.0, 2.0], name=name if kind == "variable" else "x")
        with tk.GradientTape(persistent=True) as tape:
            tape.watch(x)
            if kind == "scope":
                with tk.display.name_scope(name):
                    h = tk.exp(tk.sin(x) * 2.0)
            else:
                h = tk.sin(x) * 2.0
            y = tk.reduce_sum(h)
        tape.gradient(y, x)
    label = name if kind in ("tensor", "scope") else x.name
    return tape, y, [x], label, 3 if kind == "scope" else None


def _cases():
    for kind in KINDS:
        for key, name in NAMES.items():
            yield pytest.param(kind, name, id=f"{kind}-{key}")


CASES = list(_cases())


def markup(text):
    """Only the markup of an SVG/HTML document: tags and attributes, no text between them."""
    return re.sub(r">[^<]*<", "><", text)


class _Tags(HTMLParser):
    """Every start tag of an HTML document with its attributes, as a browser reads them
    (entities decoded): names may reach attribute values (alt, aria-label), as text."""

    def __init__(self, doc):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.feed(doc)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    handle_startendtag = handle_starttag


def assert_no_html_links(doc):
    """No element or attribute of `doc` (HTML) that links, loads or runs anything, whatever
    text its attributes carry: the only address is the picture's own data:image/png."""
    for tag, attrs in _Tags(doc).tags:
        assert tag not in ("a", "script", "iframe", "object", "embed", "form", "base", "link",
                           "foreignobject", "meta"), tag
        for attr, value in attrs:
            assert not attr.startswith("on"), attr
            assert attr not in ("href", "xlink:href", "url", "action", "formaction", "target",
                                "srcdoc", "srcset", "background", "poster"), attr
            if attr == "src":
                assert (value or "").startswith("data:image/png;base64,"), value[:60]
            if attr == "style":
                assert "url(" not in value.lower() and "javascript:" not in value.lower(), value


def assert_no_links(doc, svg=True):
    if not svg:       # HTML: names may be attribute text (alt), so read it as a browser does
        assert_no_html_links(doc)
        doc = re.sub(r'="[^"]*"', '=""', doc)        # then the markup alone, values emptied
    tags = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]*", "PNG", markup(doc)).lower()
    assert not re.search(r"<a[\s>/]", tags), "a link element"
    for bad in ("href", "javascript:", "<script", "<foreignobject", "xlink:title"):
        assert bad not in tags, bad
    assert not re.search(r"\burl\s*=", tags), "a URL attribute"
    assert not re.search(r"\son\w+\s*=", tags), "an event handler attribute"
    if not svg:
        return
    root = ET.fromstring(doc.encode("utf-8"))
    for el in root.iter():
        tag = el.tag.rsplit("}", 1)[-1]
        assert tag not in LINK_ELEMENTS, tag
        for attr, value in el.attrib.items():
            attr = attr.rsplit("}", 1)[-1]
            assert attr.lower() not in ("href", "url", "target") and not attr.lower().startswith("on")
            assert "javascript" not in value.lower()


def svg_nodes(svg):
    """{node id: (texts shown, tooltips)} read from the SVG as a browser would parse it."""
    root = ET.fromstring(svg.encode("utf-8"))
    out = {}
    for g in root.iter("{http://www.w3.org/2000/svg}g"):
        if g.get("class") != "node":
            continue
        titles = [t.text or "" for t in g.iter("{http://www.w3.org/2000/svg}title")]
        texts = "".join(t.text or "" for t in g.iter("{http://www.w3.org/2000/svg}text"))
        out[titles[0]] = (texts, titles[1:])
    return out


def named_node(model, kind, label):
    kinds = ("block",) if kind == "scope" else ("variable", "watched")
    [node] = [n for n in model.nodes if n.label == label and n.kind in kinds]
    return node


def build_or_refuse(kind, name):
    """A layer takes any name Keras 3 takes, so every name but one with `/` is drawn (and
    escaped); a `/` is refused when the layer is made, clearly, as Keras refuses it."""
    if kind == "layer" and "/" in name:
        with pytest.raises(ValueError, match="cannot contain character `/`"):
            tk.layers.Dense(2, name=name)
        return None   # Keras 3's rule: a "/" would make the weights' paths ambiguous
    return program(kind, name)


@needs_dot
@pytest.mark.parametrize("kind,name", CASES)
def test_the_picture_keeps_its_shape_has_no_link_and_shows_the_name(kind, name):
    case = build_or_refuse(kind, name)
    if case is None:
        return
    tape, y, sources, label, max_nodes = case
    view = tk.show(tape, y, sources, max_nodes=max_nodes)
    nodes, edges = COUNTS[kind]
    assert (len(view.model.nodes), len(view.model.edges)) == (nodes, edges)
    bundle = view._repr_mimebundle_()
    svg = bundle["image/svg+xml"]
    assert len(re.findall(r'<g id="node\d+" class="node"', svg)) == nodes     # no extra node
    assert len(re.findall(r'<g id="edge\d+" class="edge"', svg)) == edges
    assert_no_links(svg)
    assert_no_links(tape._repr_mimebundle_()["image/svg+xml"])              # the bare tape
    node = named_node(view.model, kind, label)
    assert re.fullmatch(r"[nsb]\d+", node.id)                               # never from a name
    texts, tooltips = svg_nodes(svg)[node.id]
    assert clip(plain(label), dotmod.NAME_WIDTH) in texts                   # the label, clipped
    if len(label) > dotmod.NAME_WIDTH:                                      # hover: all of it
        # (a zero-width space keeps Graphviz from expanding a backslash-capital: \\N, \\G)
        assert [t.replace("\u200b", "") for t in tooltips] == [clip(plain(label), dotmod.TOOLTIP_WIDTH)]
    else:
        assert tooltips == []
    assert bundle["image/png"]


@pytest.mark.parametrize("kind,name", CASES)
def test_the_table_without_dot_escapes_the_name(kind, name, monkeypatch):
    case = build_or_refuse(kind, name)
    if case is None:
        return
    tape, y, sources, label, max_nodes = case

    def missing(*args, **kwargs):
        raise graphviz.ExecutableNotFound(("dot",))

    monkeypatch.setattr(dotmod, "to_svg", missing)
    bundle = tk.show(tape, y, sources, max_nodes=max_nodes)._repr_mimebundle_()
    page = bundle["text/html"]
    assert "Graphviz" in page and "image/svg+xml" not in bundle
    assert_no_links(page, svg=False)
    assert html.escape(plain(label), quote=True) in page
    assert page.count("<tr") == 1 + COUNTS[kind][0]                        # header + one per node
    text = bundle["text/plain"]
    assert all(line.isprintable() for line in text.splitlines())           # one name, one line
    assert clip(plain(label), 30) in text


@pytest.mark.parametrize("kind", ["tensor", "variable"])
@pytest.mark.parametrize("key", list(NAMES))
def test_explain_escapes_the_name(kind, key):
    name = NAMES[key]
    tape, y, sources, label, _ = program(kind, name)
    e = tape.explain(y, sources[0])
    assert e.reason == "connected" and repr(label) in e.message
    words = e.words_html()
    assert html.escape(e.message, quote=True) in words
    assert_no_links(words, svg=False)
    if shutil.which("dot"):
        bundle = e._repr_mimebundle_()
        assert_no_links(bundle["text/html"], svg=False)
        assert_no_links(bundle["image/svg+xml"])


@needs_dot
@pytest.mark.parametrize("kind,name", CASES)
def test_graph_view_and_stepper_traits_carry_no_link(kind, name):
    case = build_or_refuse(kind, name)
    if case is None:
        return
    tape, y, sources, label, max_nodes = case
    view = tk.widgets.GraphView.from_tape(tape, y, sources, max_nodes=max_nodes)
    assert_no_links(view.svg)
    ids = set(view.nodes)
    assert len(ids) == COUNTS[kind][0] and all(re.fullmatch(r"[nsb]\d+", i) for i in ids)
    assert set(tk.widgets.graph_view.svg_node_ids(view.svg)) == ids
    node = named_node(view.graph_model, kind, label)
    assert view.nodes[node.id]["op"] == label      # plain data: the browser sets it as text
    assert view.select(node.id)["op"] == label
    data, _ = view._repr_mimebundle_()
    assert_no_links(data["image/svg+xml"])
    assert all(line.isprintable() for line in data["text/plain"].splitlines())

    stepper = tk.widgets.BackpropStepper(tape, y, sources, max_nodes=max_nodes)
    assert stepper.error is None and stepper.view is not None
    assert_no_links(stepper.view.svg)
    for _ in range(len(stepper.model)):
        stepper.step()
        assert_no_links(stepper.chain.value, svg=False)
    grads = stepper.model.gradients()
    np.testing.assert_allclose(grads[0], tape.gradient(y, sources)[0].numpy(), rtol=1e-6)

    if kind == "scope":          # the inspector lists every record: no scope box there
        return
    inspector = tk.widgets.NodeInspector(tape, y, sources)
    assert inspector.select(node.id).op == label
    assert html.escape(label, quote=True) in inspector.details.value
    assert_no_links(inspector.details.value, svg=False)


def test_dot_refuses_an_id_or_attribute_that_is_not_its_own():
    model = tk.display.GraphModel("t", [tk.display.Node("x]; evil [URL=1", "op", "add")], [])
    with pytest.raises(ValueError, match="not a generated id"):
        tk.display.to_digraph(model)
    with pytest.raises(ValueError, match="neither escaped text nor a constant"):
        dotmod._checked({"tooltip": "<a>"})


def test_a_link_from_dot_is_stripped_from_the_svg():
    # the final defence: what `dot` might emit for a URL/href attribute never reaches a page
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
           '<g id="node1" class="node"><title>s0</title>'
           '<g id="a_node1"><a xlink:href="javascript:window.__pwned=1" xlink:title="&lt;x&gt;" '
           'target="_top"><text>x</text></a></g></g>'
           '<a href="javascript:1" URL="javascript:2"><text>y</text></a></svg>')
    clean = dotmod.without_links(svg)
    assert_no_links(clean)
    assert svg_nodes(clean)["s0"] == ("x", ["<x>"])        # the tooltip is kept, as a title
    assert "<text>y</text>" in clean


def test_display_reads_the_tape_log_once_per_picture(monkeypatch):
    import importlib
    snapshot = importlib.import_module("tapekit.display.snapshot")
    tape, y, sources, _, _ = program("variable", "x")
    calls = []
    real = snapshot.log_of
    monkeypatch.setattr(snapshot, "log_of", lambda t: calls.append(t) or real(t))
    view = tk.show(tape, y, sources)
    assert calls == [tape]
    view.model.nodes[0].label = "changed"          # the model is the picture's own copy
    assert tk.show(tape, y, sources).model.nodes[0].label == "x:0"
