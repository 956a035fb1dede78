"""Notebook display: `tk.show(...)` and the rich display of a GradientTape.

IPython asks an object for `_repr_mimebundle_(include, exclude)` and shows the
richest type it can. A tape answers with the picture as HTML (the PNG with its alt text
and the long description, picture.figure_html), an SVG picture (Graphviz's `dot`), the
same picture as a PNG, and a plain-text table; when `dot` is missing, an HTML table
and one line saying how to install Graphviz instead of the picture, never a traceback.

Why HTML first: JupyterLab, Notebook 7, nbconvert and the docs site all rank text/html
above pictures and show it (sanitized, when the notebook is untrusted, as a downloaded
lesson is), and only an <img> inside HTML carries a text alternative there: the image/png
and image/svg+xml renderers draw an <img> with no alt. So the HTML carries the picture (the
PNG: an untrusted notebook shows no SVG) and its description (`describe`, describe.py); the
SVG and PNG stay for readers that show no HTML.
"""
import graphviz

from . import dot, html, why
from .describe import describe_model
from .graph import build
from .options import OPTIONS
from .picture import figure_html
from .snapshot import snapshot

class TapeView:
    """A snapshot of a tape's graph that displays itself; see `show`.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> view = tk.display.TapeView(tape, y, [x])
    >>> print(view.source.splitlines()[0])          # DOT text; view.digraph renders it
    digraph tape {
    """

    def __init__(self, tape, target=None, sources=None, *, breaks=None, **options):
        unknown = set(options) - set(OPTIONS)
        if unknown:
            raise TypeError(f"tk.show: unknown option(s) {sorted(unknown)}; known: {', '.join(OPTIONS)}")
        self.options = {**OPTIONS, **options}
        snap = snapshot(tape)   # the one read of the tape: tape -> snapshot -> model -> output
        if breaks is None:  # {node id: why the path breaks there}; explain passes its answer
            breaks = why.breaks(snap, target, sources)
        self.model = build(snap, target, sources, breaks=breaks,
                           max_nodes=self.options["max_nodes"])

    @property
    def digraph(self):
        """The picture as a `graphviz.Digraph` (`.render("tape", format="png")` saves it)."""
        o = self.options
        return dot.to_digraph(self.model, rankdir=o["rankdir"], show_values=o["show_values"],
                              precision=o["precision"])

    @property
    def source(self):
        """The DOT text of the picture."""
        return self.digraph.source

    @property
    def text(self):
        """The plain-text table of nodes, values and gradients."""
        return html.to_text(self.model, show_values=self.options["show_values"],
                            precision=self.options["precision"])

    def to_html(self, message=None):
        """The HTML table of nodes, values and gradients (what shows when `dot` is missing)."""
        return html.to_html(self.model, show_values=self.options["show_values"],
                            precision=self.options["precision"], message=message)

    def describe(self):
        """What the picture shows, in words (a Description: `print` it; `.name` is its alt
        text): every node in the order the forward pass made it, with its op, inputs,
        value and gradient, and what is highlighted."""
        return describe_model(self.model, precision=self.options["precision"],
                              show_values=self.options["show_values"])

    def svg(self):
        """The picture as SVG text (needs Graphviz's `dot`)."""
        return dot.to_svg(self.digraph)

    def png(self):
        """The picture as a PNG, base64 text (needs Graphviz's `dot`)."""
        return dot.to_png(self.digraph)

    def _repr_mimebundle_(self, include=None, exclude=None):
        def wanted(mime):
            return (not include or mime in include) and not (exclude and mime in exclude)

        bundle = {}
        if wanted("text/plain"):
            bundle["text/plain"] = self.text
        message = None
        if wanted("image/svg+xml") or wanted("image/png"):
            try:
                digraph = self.digraph
                if wanted("image/svg+xml"):
                    bundle["image/svg+xml"] = dot.to_svg(digraph)
                png = dot.to_png(digraph) if wanted("image/png") or wanted("text/html") else None
                if wanted("image/png"):
                    bundle["image/png"] = png
                if wanted("text/html"):   # the picture with its text alternative
                    bundle["text/html"] = figure_html(png, self.describe())
                return bundle
            except graphviz.ExecutableNotFound:
                message = html.INSTALL_GRAPHVIZ
            except (graphviz.CalledProcessError, OSError) as e:
                message = f"Graphviz's dot failed ({type(e).__name__}: {e}); showing a table instead."
        if wanted("text/html"):
            bundle["text/html"] = self.to_html(message)
        return bundle

    def __repr__(self):
        return self.text


def show(tape, target=None, sources=None, **options):
    """Display a tape's recorded graph: values, gradients and the path from target to sources.

    Options (defaults from `tk.display.set_options`): rankdir="TB" or "LR",
    show_values=True, precision=4, max_nodes=100 (larger graphs are summarised;
    None draws everything). With a target and sources, nodes on the gradient path
    are highlighted, the rest dimmed, and a break in the path is marked.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> view = tk.show(tape, y, [x], rankdir="LR")   # last line of a notebook cell: the picture
    >>> print(view.text)
    GradientTape: 2 records, 1 watched
      node  kind      op / name  inputs  shape  dtype    value   gradient  note
    * s0    variable  x:0                ()     float32  2.0               source
    * n0    op        sin        s0      ()     float32  0.9093
    * n1    op        multiply   n0, s0  ()     float32  1.8186            target
    (* on a gradient path from the target to the sources; ! the gradient path breaks here)
    """
    return TapeView(tape, target, sources, **options)


def tape_mimebundle(tape, include=None, exclude=None):
    """GradientTape._repr_mimebundle_: a bare `tape` at the end of a cell shows its graph."""
    return TapeView(tape)._repr_mimebundle_(include, exclude)


def describe(tape, target=None, sources=None, **options):
    """What `tk.show(tape, target, sources, **options)` shows, in words (GradientTape.describe).

    The text a screen reader reads for the picture, and a student may print: the nodes in
    the order the forward pass made them, each with its op and inputs, shape, value and
    gradient (once gradient() has run), then the gradient path and what is dimmed or broken.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = tk.sin(x) * x
    >>> print(tk.display.describe(tape, y, [x]))
    Graph of a GradientTape: 2 ops (sin and multiply) recorded from 1 watched tensor (x:0); the target is n1 (multiply).
    Its 1 input and 2 ops, in the order the forward pass made them:
      s0: the variable x:0, watched; scalar, float32; value 2.0; a source.
      n0: sin of s0 (x:0); scalar, float32; value 0.9093.
      n1: multiply of n0 (sin) and s0 (x:0); scalar, float32; value 1.8186; the target.
    Highlighted with thick red lines: the gradient path from the target n1 to s0, through s0, n0 and n1.
    """
    return TapeView(tape, target, sources, **options).describe()
