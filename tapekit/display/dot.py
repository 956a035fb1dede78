"""GraphModel -> Graphviz: a `graphviz.Digraph` (DOT text), and SVG when `dot` is installed.

How the picture reads (the legend):
- blue ellipse: a watched Variable ("variable, watched"); grey dashed ellipse: a Variable
  the tape does not watch ("variable, not watched", and why); green ellipse: another
  watched tensor;
  grey dashed box: a constant (a tensor the tape does not watch);
- white rounded box: a recorded op, with its arguments, shape, dtype, value and,
  in red, the gradient that flowed into it during the last `gradient` call (the line
  starts with "grad": colour is never the only carrier of a meaning);
- grey octagon: stop_gradient; its input edge is dashed (no gradient flows back);
  a dotted edge is an input without a gradient (comparisons, ...);
- yellow 3-D box: collapsed records (summarised graphs);
- red and thicker: the path from the target to the sources; grey: nodes off that path;
  pink with a double border and the words "path breaks": where the gradient path breaks
  (`tape.explain`); a thick orange border and the word "current step" (or "selected"):
  the node a stepper or inspector is on.
Text has a contrast of at least 4.5:1 with its node's fill (WCAG 2.1 AA; the test of this
module checks every pair), also in a dimmed node; only borders and arrows are pale there.
This module is the one place where user strings (tensor, variable, scope and layer names,
op attributes) reach Graphviz, and every one is escaped here, once: labels are HTML-like
labels built from escaped text (format.dot_text), a long name's tooltip is a quoted string
(format.dot_quoted), node ids are generated ("n3", "s0", "b12", "g0"), and `_checked` refuses
any other attribute value that is not one of this module's own constants. The SVG from `dot`
is checked once more (`to_svg`): it never carries a link (<a>, href, URL), since a page
would follow one on a click. Names are clipped to NAME_WIDTH characters (the whole name is the node's tooltip), the
caption's notes are wrapped, and a picture wider than MAX_WIDTH_INCHES is scaled down to it.
"""
import base64
import re
import textwrap
from dataclasses import replace

import graphviz

from .format import (args_text, clip, clip_words, dot_quoted, dot_text, plain, shape_text,
                     summary)

FONT = "Helvetica"
RED, GREY, DIM = "#d62728", "#555555", "#b0b0b0"   # lines: path, small text, dimmed lines
DIM_TEXT, GRAD_TEXT, BROKEN_TEXT = "#666666", "#a61b1b", "#c00000"   # text colours (>= 4.5:1)
DIM_FILL = "#fafafa"
STYLES = {
    "variable": dict(shape="ellipse", style="filled", fillcolor="#cfe2ff", color="#1f4e99"),
    "unwatched": dict(shape="ellipse", style="filled,dashed", fillcolor="#f4f4f4", color="#1f4e99"),
    "watched": dict(shape="ellipse", style="filled", fillcolor="#d9f2d9", color="#2d7a2d"),
    "constant": dict(shape="box", style="filled,dashed", fillcolor="#f4f4f4", color="#808080"),
    "op": dict(shape="box", style="rounded,filled", fillcolor="#ffffff", color="#333333"),
    "stop_gradient": dict(shape="octagon", style="filled", fillcolor="#e6e6e6", color="#555555"),
    "block": dict(shape="box3d", style="filled", fillcolor="#fff6d5", color="#8a6d00"),
}
KIND_WORDS = {"variable": "variable, watched", "unwatched": "variable, not watched",
              "watched": "watched tensor", "constant": "constant",
              "stop_gradient": "no gradient flows back", "block": "collapsed"}
HIGHLIGHT = {"color": "#ff7f0e", "penwidth": "3", "fillcolor": "#fff1d6", "class": "current"}
WIDTH = 40  # longest argument list in a label
VALUE_WIDTH = 48  # longest value/gradient text in a label (min/mean/max of 4 significant digits fit)
NAME_WIDTH = 40  # longest name in a label; the full name is the node's tooltip (hover)
TOOLTIP_WIDTH = 1000
NOTE_WIDTH = 90  # the caption's notes are wrapped to lines of at most this many characters
# Pictures wider than the output column of JupyterLab / nbconvert (about 960 px) are scaled
# down to this width (inches; 96 px each in the browser and in the PNG); taller ones scroll.
MAX_WIDTH_INCHES = 9.5
# Space around a node's text, in inches (Graphviz's default is 0.11,0.055): browsers draw
# "Helvetica,sans-Serif" with whatever sans font they have, which can be wider than the font
# dot measured the text with; with the default margin the longest line touched or crossed the
# node's border in JupyterLab (Chromium).
NODE_MARGIN = "0.2,0.06"


def to_digraph(model, *, rankdir="TB", show_values=True, precision=4, highlight=None, grads=None,
               highlight_word="current step"):
    """The picture as a `graphviz.Digraph`: `.source` is the DOT text, `.render()` saves it.

    highlight: a node id drawn as the current one (thick orange border, class "current"
    in the SVG, and `highlight_word` in its label); grads: {node id: gradient} to show
    instead of the model's gradients (only those nodes show one). Both only change the
    picture, never the model.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> dot = tk.display.to_digraph(tk.display.build(tape, y, [x]), rankdir="LR")
    >>> print(dot.source.splitlines()[1].strip())
    graph [fontname=Helvetica fontsize=10 rankdir=LR size="9.5,1000"]
    """
    if rankdir not in ("TB", "LR", "BT", "RL"):
        raise ValueError(f"rankdir must be 'TB' (top-down) or 'LR' (left-right), got {rankdir!r}")
    g = graphviz.Digraph("tape", graph_attr=dict(rankdir=rankdir, fontname=FONT, fontsize="10",
                                                 size=f"{MAX_WIDTH_INCHES},1000"),
                         node_attr=dict(fontname=FONT, fontsize="10", margin=NODE_MARGIN),
                         edge_attr=dict(arrowsize="0.7"))
    if model.notes:
        lines = [dot_text(line) for n in model.notes for line in textwrap.wrap(plain(n), NOTE_WIDTH)]
        g.attr(label="<" + '<BR ALIGN="LEFT"/>'.join(lines) + '<BR ALIGN="LEFT"/>>',
               labelloc="b", labeljust="l")
    for node in model.nodes:
        if grads is not None:  # a copy with the given gradient (the model stays as it is)
            node = replace(node, grad=grads.get(node.id))
        style = _node_style(node)
        word = None
        if highlight is not None and node.id == highlight:
            style.update(HIGHLIGHT)
            word = highlight_word
        name = plain(node.label)   # one line: control characters as \x.. escapes
        if len(name) > NAME_WIDTH:  # the picture shows the name clipped; hover shows it all
            style["tooltip"] = dot_quoted(clip(name, TOOLTIP_WIDTH))
        g.node(_node_id(node.id), _label(node, show_values, precision, word), **_checked(style))
    for e in model.edges:
        g.edge(_node_id(e.src), _node_id(e.dst), **_checked(_edge_style(e)))
    if not model.nodes:
        g.node("empty", "<" + dot_text(model.title) + ">", shape="plaintext")  # our own id
    return g


def to_svg(digraph):
    """SVG text from Graphviz's `dot`; raises graphviz.ExecutableNotFound when it is missing.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> svg = tk.display.to_svg(tk.display.to_digraph(tk.display.build(tape)))  # needs Graphviz's dot
    >>> svg.lstrip().startswith("<?xml") or svg.lstrip().startswith("<svg")
    True
    """
    return without_links(digraph.pipe(format="svg", encoding="utf-8", quiet=True))


_NODE_ID = re.compile(r"[nsbg][0-9]+")
_CONSTANT = re.compile(r"[A-Za-z0-9_#.,]*")   # colours, shapes, styles, numbers, "current"


def _node_id(node_id):
    """Node ids are generated from record order, never from a name: refuse anything else."""
    if not _NODE_ID.fullmatch(node_id):
        raise ValueError(f"tapekit.display: node id {node_id!r} is not a generated id "
                         f"(n<i>, s<k>, b<i> or g<k>); ids never come from names")
    return node_id


def _checked(attrs):
    """The attributes, if each value is escaped text (a tooltip) or one of our constants."""
    for key, value in attrs.items():
        if not (isinstance(value, graphviz.quoting.NoHtml) or _CONSTANT.fullmatch(value)):
            raise ValueError(f"tapekit.display: attribute {key}={value!r} is neither escaped "
                             f"text nor a constant; escape user strings with format.dot_quoted")
    return attrs


_LINK_OPEN = re.compile(r"<a\b([^>]*)>")
_TOOLTIP = re.compile(r'\bxlink:title="([^"]*)"')
_LINK_ATTR = re.compile(r'\s(?:xlink:href|href|URL|target)="[^"]*"', re.IGNORECASE)


def without_links(svg):
    """The SVG with no link in it: Graphviz wraps a node with a tooltip in
    <a xlink:title="...">, which a page treats as a link; here that becomes a group with a
    <title> (the same hover text), and any other <a> (never made by this module) loses its
    link. The final defence: whatever reaches `dot`, no stored picture can navigate."""
    if "<a" not in svg and "href" not in svg:
        return svg

    def group(m):
        title = _TOOLTIP.search(m.group(1))
        return f"<g><title>{title.group(1)}</title>" if title else "<g>"

    svg = _LINK_OPEN.sub(group, svg).replace("</a>", "</g>")
    return _LINK_ATTR.sub("", svg)


def to_png(digraph):
    """The picture as a PNG, base64 text as notebooks store it (the same bytes on every run).

    JupyterLab shows an untrusted notebook's (a downloaded lesson's) SVG outputs only as
    text; a PNG beside the SVG is what it shows instead."""
    data = digraph.pipe(format="png", quiet=True, renderer="cairo", formatter="cairo")
    return base64.b64encode(data).decode("ascii")


def _label(node, show_values, precision, word=None):
    dim = node.dimmed
    small = f'<FONT POINT-SIZE="9" COLOR="{DIM_TEXT if dim else GREY}">'
    head = f"<B>{dot_text(clip(plain(node.label), NAME_WIDTH))}</B> {small}{node.id}</FONT>"
    lines = [f"<B>{dot_text(word)}</B>", head] if word else [head]
    if node.args:  # the op's inputs, in argument order
        lines.append(small + dot_text(clip("(" + args_text(node.args) + ")", WIDTH)) + "</FONT>")
    kind = KIND_WORDS.get(node.kind, node.label)
    words = [kind] if kind != node.label else []  # an unnamed constant is already "constant"
    words += ["target"] * node.is_target + ["source"] * node.is_source
    words += [node.note] if node.note else []
    if words:
        lines.append(small + dot_text(", ".join(words)) + "</FONT>")
    if node.shape is not None:
        lines.append(small + dot_text(f"{shape_text(node.shape)} {node.dtype}") + "</FONT>")
    if show_values and node.value is not None:
        lines.append(dot_text(clip_words("value " + summary(node.value, precision), VALUE_WIDTH)))
    if node.grad is not None:
        text = summary(node.grad, precision)
        if node.shape is not None and node.grad.shape != node.shape:
            text = f"{shape_text(node.grad.shape)} {text}"
        color = DIM_TEXT if dim else GRAD_TEXT
        lines.append(f'<FONT COLOR="{color}">{dot_text(clip_words("grad " + text, VALUE_WIDTH))}</FONT>')
    if node.broken:
        lines.append(f'<FONT COLOR="{BROKEN_TEXT}"><B>{dot_text("path breaks: " + node.broken)}</B></FONT>')
    return "<" + "<BR/>".join(lines) + ">"


def _node_style(node):
    style = dict(STYLES[node.kind])
    if node.dimmed:
        style.update(color=DIM, fontcolor=DIM_TEXT, fillcolor=DIM_FILL)
    if node.on_path:
        style.update(color=RED, penwidth="2")
    if node.is_target:
        style.update(peripheries="2")
    if node.broken:
        style.update(color="#c00000", fillcolor="#ffd9d9", penwidth="2", peripheries="2")
    return style


def _edge_style(edge):
    style = {}
    if edge.is_stop_gradient:
        style.update(style="dashed", color=GREY)
    elif not edge.differentiable:
        style.update(style="dotted", color=GREY)
    if edge.dimmed:
        style.update(color=DIM)
    if edge.on_path:
        style.update(color=RED, penwidth="2")
    return style
