"""tapekit.display.dot: GraphModel -> Graphviz DOT text and SVG: styles, options, the escaped
names in the DOT text and the picture, and pictures that fit the page (issues 13 and 14)."""
import base64
import re
import shutil
import struct

import numpy as np
import pytest

import tapekit as tk
from tapekit.display import dot

from .tapes import evil_tape, small_tape

pytestmark = pytest.mark.usefixtures("record")   # display recording on for every test

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")


def _svg_size_pt(svg):
    w, h = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups()
    return float(w), float(h)


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


@needs_dot
def test_svg_has_labels_values_gradients_and_path(record):
    tape, x, c, w = small_tape()
    tape.gradient(w, x)
    bundle = tk.show(tape, w, x)._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "image/svg+xml", "image/png", "text/html"}
    svg = bundle["image/svg+xml"]
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    for text in ("x:0", "pow", "stop_gradient", "value 9.0", "grad 3.0", "#d62728"):
        assert text in svg
    assert svg.count('stroke-dasharray="5,2"') >= 1                    # the dashed edge


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


def _node_line(source, node_id):
    return next(line for line in source.splitlines() if line.strip().startswith(f"{node_id} ["))


def test_highlight_and_grads_change_the_picture_not_the_model():
    x = tk.Variable(3.0, name="x")
    with tk.GradientTape() as tape:
        y = tk.sin(x) * x
    model = tk.display.build(tape, y, x)
    src = dot.to_digraph(model, highlight="n0", grads={"n0": np.array(5.0)}).source
    n0, n1, s0 = (_node_line(src, i) for i in ("n0", "n1", "s0"))
    assert "class=current" in n0 and "penwidth=3" in n0 and 'color="#ff7f0e"' in n0
    assert "class=current" not in n1 and "class=current" not in s0
    assert "grad 5.0" in n0 and "grad" not in n1 and "grad" not in s0   # only the given ones
    assert model.node("n0").grad is None                                  # the model is as it was
    assert "class=current" not in dot.to_digraph(model).source


def test_a_long_name_is_clipped_in_the_label_and_quoted_whole_in_the_tooltip():
    name = 'q"' * 30                        # 60 characters with quotes: over NAME_WIDTH
    v = tk.Variable(1.0, name=name)
    with tk.GradientTape() as tape:
        v * v
    s0 = _node_line(tk.show(tape).source, "s0")
    assert "<B>" + "q&quot;" * 18 + "q...</B>" in s0       # 37 characters and "..." (40)
    assert 'tooltip="' + 'q\\"' * 30 + ':0"' in s0         # graphviz quotes it: \" inside
    short = tk.Variable(1.0, name="short")
    with tk.GradientTape() as tape:
        short * short
    assert "tooltip" not in tk.show(tape).source


def test_svg_without_a_link_passes_through_unchanged():
    svg = '<svg><g class="node"><title>s0</title><text>x</text></g></svg>'
    assert dot.without_links(svg) is svg
    linked = '<svg><a xlink:title="t"><text>x</text></a></svg>'
    assert dot.without_links(linked) == "<svg><g><title>t</title><text>x</text></g></svg>"


def test_a_long_value_or_gradient_is_cut_between_numbers_never_inside_one():
    """The browser review found 'grad [[4.04e-04 -0.3741] [8.08e-04 -0...' and 'max 0....':
    the cut number was the one a student wanted to read."""
    w = tk.Variable([[0.5, -1.25], [2.0, 0.3333], [1.5, -0.75]], name="weights")
    x = tk.constant([[1.0, 2.0, 3.0]])
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(tk.tanh(tk.matmul(x, w)) * 0.0123456)
    tape.gradient(y, w)
    src = tk.show(tape, y, [w]).source
    shown = re.findall(r'(?:BR/>|">)(?:value|grad) ([^<>]*)', src)
    assert len(shown) >= 8
    assert any(text.endswith(" ...") for text in shown)              # something was cut
    for text in shown:
        assert len(text) + len("grad ") <= dot.VALUE_WIDTH
        body = text[:-len(" ...")] if text.endswith(" ...") else text
        for token in body.replace("[", " ").replace("]", " ").split():
            if token not in ("min", "mean", "max"):
                float(token.replace("&#45;", "-"))                   # a whole number, not '0.'


# --- contrast (WCAG 2.1 AA: text at least 4.5:1 against what it is drawn on) ---------------

def _luminance(hex_colour):
    """WCAG 2.1's relative luminance of an sRGB colour '#rrggbb'."""
    rgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a, b):
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_formula_against_known_pairs():
    assert _contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert _contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)   # the AA edge grey
    assert _contrast("#b0b0b0", "#fafafa") < 4.5      # the dimmed text of old: it failed


def _label_texts(src):
    """{(node id, text colour)} of every node's label in the DOT text, with its fill."""
    out = []
    for line in src.splitlines():
        m = re.match(r"\s*([nsb]\d+) \[label=<(.*)>(.*)\]$", line)
        if not m:
            continue
        node_id, label, attrs = m.groups()
        fill = re.search(r'fillcolor="(#[0-9a-f]{6})"', attrs).group(1)
        base = re.search(r'fontcolor="(#[0-9a-f]{6})"', attrs)
        colours = set(re.findall(r'COLOR="(#[0-9a-f]{6})"', label))
        colours.add(base.group(1) if base else "#000000")
        out += [(node_id, c, fill) for c in colours]
    return out


def test_every_text_colour_on_every_node_fill_has_4_5_to_1():
    """Every kind of node, on the path, dimmed, broken and highlighted as current: the
    text colours of the DOT labels against the node's fill (issue 46)."""
    x = tk.Variable(2.0, name="x")
    u = tk.Variable(1.0, name="u", trainable=False)
    c = tk.constant(3.0, name="c")
    with tk.GradientTape(persistent=True) as tape:
        tape.watch(c)
        a = x * c + u
        b = tk.stop_gradient(a) * x
        d = tk.reduce_sum(tk.square(x) + c)
        for _ in range(3):
            d = tk.sin(d)
    tape.gradient(b, [x, c])
    sources = {}
    for target in (b, d, a):
        view = tk.show(tape, target, [x, u])     # u: a Variable the tape does not watch
        for node in view.model.nodes:
            sources[node.id] = node
        model = view.model
        for highlight in [None] + [n.id for n in model.nodes]:
            src = dot.to_digraph(model, highlight=highlight).source
            for node_id, colour, fill in _label_texts(src):
                assert _contrast(colour, fill) >= 4.5, (node_id, colour, fill, _contrast(colour, fill))
    kinds = {n.kind for n in sources.values()}
    assert {"variable", "unwatched", "watched", "op", "stop_gradient"} <= kinds
    broken = tk.show(tape, b, [x], breaks={"n2": "stop_gradient"}).source
    assert all(_contrast(colour, fill) >= 4.5 for _, colour, fill in _label_texts(broken))
    big = tk.show(tape, d, [x], max_nodes=3)       # summarised: a collapsed box
    assert any(n.kind == "block" for n in big.model.nodes)
    assert all(_contrast(colour, fill) >= 4.5 for _, colour, fill in _label_texts(big.source))


def test_the_current_node_says_so_in_words_not_only_in_orange(record):
    tape, x, c, w = small_tape()
    model = tk.show(tape, w, x).model
    src = dot.to_digraph(model, highlight="n1").source
    line = next(l for l in src.splitlines() if l.strip().startswith("n1 "))
    assert "<B>current step</B>" in line and "#ff7f0e" in line
    picked = dot.to_digraph(model, highlight="n1", highlight_word="selected").source
    assert "<B>selected</B>" in picked and "current step" not in picked
    assert "current step" not in dot.to_digraph(model).source
