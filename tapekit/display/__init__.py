"""tk.display: see the tape. Pictures of the recorded graph, and why a gradient is None.

    tape                                   # last line of a notebook cell: the graph
    tk.show(tape, loss, [w, b])            # highlight the paths from loss to w and b
    tape.explain(loss, b)                  # plain words: why d loss / d b is None
    tk.display.set_options(record=True)    # keep every value and gradient (default in IPython)

One way, never back (STYLE.md 2.5): snapshot.py reads the tape once (tape -> TapeSnapshot),
graph.py builds the picture's model from that snapshot (-> GraphModel), dot.py
(GraphModel -> Graphviz DOT/SVG; every user string is escaped there, once) and html.py
(GraphModel -> HTML / text table) draw it; mimebundle.py puts them together for IPython,
explain.py answers "why is my gradient None?" from a snapshot too.
"""
from ..tape import GradientTape
from .dot import to_digraph, to_svg
from .explain import Explanation, explain
from .graph import Edge, GraphModel, Node, build
from .html import to_html, to_text
from .mimebundle import TapeView, show, tape_mimebundle
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


# The core tape stays free of display code: its notebook display and `explain` live here
# (noted at GradientTape, tape.py).
_explain_method.__name__, _explain_method.__qualname__ = "explain", "GradientTape.explain"
GradientTape._repr_mimebundle_ = tape_mimebundle
GradientTape.explain = _explain_method

if in_ipython():
    set_options(record=True)


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
