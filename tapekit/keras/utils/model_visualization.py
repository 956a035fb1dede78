"""`plot_model` and `model_to_dot`: a model's layers and how they connect, as a Graphviz picture.

    tk.utils.plot_model(model, show_shapes=True)      # model.png, shown with its text alternative

Keras 3's names and arguments (`keras.utils.plot_model`). One node per layer, in the order
the model runs them, an arrow from each layer to every layer that reads its output. A node
says the layer's class, and on request its name, input and output shapes, dtype, activation
and whether it trains. What differs from Keras: `model_to_dot` returns a `graphviz.Digraph`
(tapekit draws with the graphviz package, not pydot), and `plot_model` returns a picture that
carries its text alternative (the layers in run order, in words) in every notebook reader, as
every picture tapekit draws does (tapekit/display/picture.py).

Layer names are data: each one reaches Graphviz escaped (display/format.py's dot_text), and
node ids are generated ("layer0", "layer1", ...), never made from a name.
"""
import os

import graphviz

from ...display.describe import Description
from ...display.dot import FONT, without_links
from ...display.format import dot_text, plain
from ...display.picture import Picture
from .summary_utils import format_shape, output_shape

__all__ = ["model_to_dot", "plot_model"]

RANKDIRS = ("TB", "LR", "BT", "RL")
SPLINES = ("ortho", "polyline", "line", "spline", "curved", "true", "false", "none")


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True, rankdir="TB",
                 expand_nested=False, dpi=200, subgraph=False, show_layer_activations=False,
                 show_trainable=False, splines="ortho", **kwargs):
    """The model's layers as a `graphviz.Digraph` (Keras returns a pydot.Dot: here its DOT text
    is `str(...)` of the result, and `.pipe(format="png")` draws it).

    >>> tk.layers.clear_session()
    >>> model = tk.Sequential([tk.Input((4,)), tk.layers.Dense(3, name="hidden"),
    ...                        tk.layers.Dense(1, name="out")])
    >>> dot = tk.utils.model_to_dot(model, show_shapes=True)
    >>> [line.strip().split(" ")[0] for line in str(dot).splitlines() if "->" in line]
    ['layer0']
    """
    return _Drawing(model, show_shapes, show_dtype, show_layer_names, rankdir, expand_nested,
                    dpi, subgraph, show_layer_activations, show_trainable, splines, kwargs,
                    "model_to_dot").digraph()


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False,
               show_layer_names=False, rankdir="TB", expand_nested=False, dpi=200,
               show_layer_activations=False, show_trainable=False, splines="ortho", **kwargs):
    """Draw the model to `to_file` (its extension is the format: png, svg, pdf, jpg, ...) and
    return the picture, which a notebook shows with its text alternative. Needs Graphviz's
    `dot` program (Debian: apt-get install graphviz).

    >>> tk.layers.clear_session()
    >>> model = tk.Sequential([tk.Input((4,)), tk.layers.Dense(3, name="hidden"),
    ...                        tk.layers.Dense(1, name="out")])
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "model.png")
    >>> picture = tk.utils.plot_model(model, to_file=path, show_shapes=True)   # needs dot
    >>> open(path, "rb").read(4) == b"\\x89PNG"
    True
    >>> picture.alt
    "The layers of model 'sequential' in the order they run: hidden (Dense), then out (Dense)."
    """
    drawing = _Drawing(model, show_shapes, show_dtype, show_layer_names, rankdir, expand_nested,
                       dpi, False, show_layer_activations, show_trainable, splines, kwargs,
                       "plot_model")
    digraph = drawing.digraph()
    to_file = os.fspath(to_file)
    extension = os.path.splitext(to_file)[1][1:].lower() or "png"
    try:
        data = digraph.pipe(format=extension, quiet=True)
        png = data if extension == "png" else digraph.pipe(format="png", quiet=True)
    except graphviz.ExecutableNotFound:
        raise ImportError("plot_model: Graphviz's `dot` program is not installed, and it draws "
                          "the picture (the graphviz Python package is). Install it: on Debian "
                          "or Ubuntu `apt-get install graphviz`, with conda `conda install "
                          "graphviz`; model.summary() shows the layers as text") from None
    except graphviz.CalledProcessError as e:
        raise ValueError(f"plot_model: Graphviz cannot write the format {extension!r} of "
                         f"to_file={to_file!r}; use .png, .svg, .pdf or .jpg") from e
    if extension == "svg":
        data = without_links(data.decode("utf-8")).encode("utf-8")
    tmp = f"{to_file}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:      # the whole file or none of it
        f.write(data)
    os.replace(tmp, to_file)
    return Picture(png, drawing.describe())   # shown with its words, as every tapekit picture


class _Drawing:
    """The layers of one model, their connections, and what each node says."""

    def __init__(self, model, show_shapes, show_dtype, show_layer_names, rankdir, expand_nested,
                 dpi, subgraph, show_layer_activations, show_trainable, splines, kwargs, what):
        # a Model, asked by what it has (the models import utils: utils cannot import them)
        if not (hasattr(model, "layers") and hasattr(model, "built")):
            raise TypeError(f"{what}: model must be a tk.keras.Model (Sequential or functional), "
                            f"got {type(model).__name__}")
        if kwargs:
            raise TypeError(f"{what}: unexpected keyword argument(s) {sorted(kwargs)}")
        if rankdir not in RANKDIRS:
            raise ValueError(f"{what}: rankdir must be one of {RANKDIRS}, got {rankdir!r}")
        if splines not in SPLINES:
            raise ValueError(f"{what}: splines must be one of {SPLINES}, got {splines!r}")
        if expand_nested or subgraph:
            raise NotImplementedError(f"{what}: expand_nested and subgraph are not built in "
                                      f"tapekit yet: a nested model is drawn as one node")
        if not model.built:
            raise ValueError(f"{what}: this model has not yet been built. Build the model first "
                             f"by calling it on a batch of data, or start a Sequential with "
                             f"tk.Input(shape=...)")
        self.model, self.what = model, what
        self.show = dict(shapes=show_shapes, dtype=show_dtype, names=show_layer_names,
                         activations=show_layer_activations, trainable=show_trainable)
        self.graph_attr = {"rankdir": rankdir, "dpi": str(int(dpi)), "splines": splines,
                           "concentrate": "true"}
        self.layers, self.edges, self.inputs_of = self._structure()

    def _structure(self):
        """(layers in run order, [(from, to)], {id(layer): its input shapes, as text})."""
        graph = self.model.__dict__.get("_graph")
        if graph is not None:               # functional: the recorded layer calls
            edges, inputs_of, seen = [], {}, set()
            for node in graph.nodes:
                inputs_of.setdefault(id(node.layer), [format_shape(t.shape) for t in node.input_tensors])
                for t in node.input_tensors:
                    source = t._keras_history[0]
                    if (id(source), id(node.layer)) not in seen:
                        seen.add((id(source), id(node.layer)))
                        edges.append((source, node.layer))
            return list(graph.layers), edges, inputs_of
        layers = list(self.model.layers)    # a Sequential: a chain, each reading the one before
        first = layers[0].__dict__.get("_build_shape") if layers else None
        inputs_of = {id(layers[0]): [format_shape(first)]} if first is not None else {}
        for before, layer in zip(layers, layers[1:]):
            inputs_of[id(layer)] = [output_shape(before)]
        return layers, list(zip(layers, layers[1:])), inputs_of

    def _lines(self, layer):
        """What the node of `layer` says, line by line (plain text; escaped in `_label`)."""
        kind = type(layer).__name__
        lines = [(f"{layer.name} ({kind})" if self.show["names"] else kind, True)]
        if self.show["shapes"]:
            shapes = self.inputs_of.get(id(layer))
            if shapes is not None and kind != "InputLayer":
                text = ", ".join(shapes)
                lines.append((f"input shape {text}", False))
            lines.append((f"output shape {output_shape(layer)}", False))
        if self.show["dtype"]:
            lines.append((f"dtype {getattr(layer, 'dtype', None) or '?'}", False))
        if self.show["activations"]:
            activation = getattr(layer, "activation", None)
            if activation is not None:
                name = getattr(activation, "__name__", None) or getattr(activation, "name", activation)
                lines.append((f"activation {name}", False))
        if self.show["trainable"]:
            lines.append((f"trainable {'yes' if layer.trainable else 'no'}", False))
        return lines

    def _label(self, layer):
        rows = "".join(f'<TR><TD>{"<B>" if bold else ""}{dot_text(text)}{"</B>" if bold else ""}'
                       f"</TD></TR>" for text, bold in self._lines(layer))
        return f'<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0">{rows}</TABLE>>'

    def digraph(self):
        dot = graphviz.Digraph(graph_attr=self.graph_attr,
                               node_attr={"shape": "box", "style": "rounded,filled",
                                          "fillcolor": "#ffffff", "color": "#333333",
                                          "fontname": FONT, "fontsize": "11"},
                               edge_attr={"color": "#333333"})
        ids = {id(layer): f"layer{i}" for i, layer in enumerate(self.layers)}
        for layer in self.layers:
            dot.node(ids[id(layer)], label=self._label(layer))
        for source, target in self.edges:
            if id(source) in ids and id(target) in ids:
                dot.edge(ids[id(source)], ids[id(target)])
        return dot

    def describe(self):
        """The picture in words: the layers in run order, each with what it reads."""
        model, names = self.model, {id(layer): plain(layer.name) for layer in self.layers}
        shown = [layer for layer in self.layers if type(layer).__name__ != "InputLayer"] \
            or self.layers
        chain = ", then ".join(f"{names[id(layer)]} ({type(layer).__name__})" for layer in shown[:8])
        more = f", and {len(shown) - 8} more" if len(shown) > 8 else ""
        name = f"The layers of model {plain(model.name)!r} in the order they run: {chain}{more}."
        reads = {}
        for source, target in self.edges:
            reads.setdefault(id(target), []).append(names.get(id(source), "?"))
        items = []
        for layer in self.layers:
            parts = [f"{names[id(layer)]} ({type(layer).__name__})"]
            if id(layer) in reads:
                parts.append("reads " + " and ".join(reads[id(layer)]))
            parts.append(f"output shape {output_shape(layer)}")
            items.append(", ".join(parts) + ".")
        return Description(name, intro=(f"{len(self.layers)} layers, an arrow from each layer "
                                        f"to the layers that read its output.",), items=tuple(items))
