"""tk.display: see the tape. Pictures of the recorded graph, and why a gradient is None.

    tape                                   # last line of a notebook cell: the graph
    tk.show(tape, loss, [w, b])            # highlight the paths from loss to w and b
    tape.explain(loss, b)                  # plain words: why d loss / d b is None
    print(tape.describe())                 # the picture in words (what a screen reader reads)
    tk.display.figure(fig, "The loss falls from 2.3 to 0.1.")   # a plot with its alt text
    tk.display.set_options(record=True)    # keep every value and gradient (default in IPython)

One way, never back (STYLE.md 2.5): snapshot.py reads the tape once (tape -> TapeSnapshot),
graph.py builds the picture's model from that snapshot (-> GraphModel), dot.py
(GraphModel -> Graphviz DOT/SVG; every user string is escaped there, once) and html.py
(GraphModel -> HTML / text table) draw it; mimebundle.py puts them together for IPython,
explain.py answers "why is my gradient None?" from a snapshot too, and describe.py says
in words what a picture shows (picture.py: the HTML that carries a picture with that text).
"""
from ..tape import GradientTape
from .describe import Description
from .dot import to_digraph, to_svg
from .explain import Explanation, explain
from .graph import Edge, GraphModel, Node, build
from .html import to_html, to_text
from .mimebundle import TapeView, describe, show, tape_mimebundle
from .picture import Figure, figure
from .options import in_ipython, option_context, recording, set_options
from .scopes import name_scope
from .snapshot import TapeSnapshot, snapshot
from ..namespaces import public_dir

__all__ = ["Edge", "Explanation", "GraphModel", "Node", "TapeView", "build", "explain",
           "name_scope", "option_context", "recording", "set_options", "show", "snapshot",
           "TapeSnapshot", "to_digraph", "to_html", "to_svg", "to_text"]


def _explain_method(self, target, source):
    """Why `self.gradient(target, source)` is None, in plain words (or the path it takes).

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.GradientTape() as tape:
    ...     y = tk.constant(3.0) * 2.0         # x is never used
    >>> print(tape.explain(y, x).message)      # in a notebook it also shows the marked graph
    s0 (Variable 'x:0') is a trainable Variable, but no op read it while this tape was recording, so nothing on the tape depends on it. If the target does not use it, None is the right answer (unconnected_gradients="zero" gives zeros instead). If it should, use it inside the `with` block, as a tensor: x.numpy(), float(x) or a NumPy call on np.asarray(x) give plain numbers that no tape follows.
    """
    return explain(self, target, source)


def _describe_method(self, target=None, sources=None, **options):
    """The tape's picture in words: what a screen reader reads for it (its alt text and long
    description), and a text any student may print. Nodes in the order the forward pass made
    them, each with its op, inputs, shape, value and gradient (once gradient() has run); with
    a target, the gradient path to `sources` (default: the watched tensors). Options as
    `tk.show`'s (precision, max_nodes, ...).

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.display.option_context(record=True):   # on by default in Jupyter
    ...     with tk.GradientTape() as tape:
    ...         y = x * 3.0
    >>> print(tape.describe().items[1])
    n0: multiply of s0 (x:0) and 3.0; scalar, float32; value 6.0.
    """
    return describe(self, target, sources, **options)


# The core tape stays free of display code: its notebook display, `explain` and `describe`
# live here (noted at GradientTape, tape.py).
for _method, _name in ((_explain_method, "explain"), (_describe_method, "describe")):
    _method.__name__, _method.__qualname__ = _name, f"GradientTape.{_name}"
del _method, _name
GradientTape._repr_mimebundle_ = tape_mimebundle
GradientTape.explain = _explain_method
GradientTape.describe = _describe_method

if in_ipython():
    set_options(record=True)


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
