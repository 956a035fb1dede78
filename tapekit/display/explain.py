"""tape.explain(target, source): why d target / d source is None, in plain words.

The checks run in the order a learner's mistakes usually happen, and the first
that applies is the answer. Each answer names the node where the gradient path
breaks (ids as in the picture), and `tk.show(tape, target, source)` marks it.
Like the picture, this only reads the tape.

Reasons (`Explanation.reason`): connected (with the path), not_a_tensor,
integer_dtype (source, target, or a value on the path), not_trainable,
watch_accessed_variables_false, unwatched_constant (never watched, never read
by a recorded op), records_freed (non-persistent tape after gradient, with
display recording off), left_tape (.numpy(), a NumPy call on a plain array,
or computed outside the `with` block), stop_gradient, not_differentiable
(comparisons and other ops without a gradient), no_path.
"""
import textwrap
from dataclasses import dataclass, field

from .describe import Description
from .format import html_text
from .mimebundle import TapeView
from .why import REASONS, SHORT, why

__all__ = ["REASONS", "Explanation", "explain"]

TEXT_WIDTH = 88   # characters per line of a printed explanation


@dataclass
class Explanation:
    """Why a gradient is None (or the path it takes): `reason`, `message`, `node` where it breaks.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.GradientTape() as tape:
    ...     y = x * 3.0
    >>> e = tape.explain(y, x)
    >>> e.reason, e.path
    ('connected', ('s0', 'n0'))
    """

    reason: str
    message: str
    node: str = None                     # node id where the path breaks, if there is one
    path: tuple = ()                     # connected: node ids from the source to the target
    tape: object = field(default=None, repr=False, compare=False)
    target: object = field(default=None, repr=False, compare=False)
    source: object = field(default=None, repr=False, compare=False)

    @property
    def connected(self):
        return self.reason == "connected"

    def describe(self):
        """The marked picture in words (a Description), after the answer itself: what a
        screen reader reads for the picture `tape.explain` shows."""
        if self.reason == "not_a_tensor":
            return Description(str(self.message))
        return self.view().describe().with_lines(intro=[self.message])

    def view(self):
        """The marked picture (a tk.show view) of this answer's tape, target and source."""
        breaks = {self.node: SHORT.get(self.reason, self.reason)} if (
            self.node is not None and not self.connected) else {}
        return TapeView(self.tape, self.target, self.source, breaks=breaks)

    def __str__(self):
        """The message in lines of at most 88 characters, broken between words: printed in a
        notebook, one long line is wrapped by the page wherever the column ends ("throu|gh")."""
        return textwrap.fill(self.message, TEXT_WIDTH, break_long_words=False, break_on_hyphens=False)

    def words_html(self):
        """The answer as HTML text (escaped): what the page shows above the picture."""
        head = "Connected" if self.connected else "Why the gradient is None"
        return (f'<div class="tapekit-explain" style="font-size:13px;line-height:1.4;'
                f'max-width:60em;margin:2px 0 6px 0;overflow-wrap:anywhere"><p><b>{head}:</b> '
                f"{html_text(self.message)}</p></div>")

    def _ipython_display_(self):
        """In a notebook: two outputs, the words (HTML, so they are page text, also in an
        untrusted notebook, whose sanitizer keeps text) and then the marked picture, the
        same output as `tk.show` gives (its PNG with alt text and description, as HTML)."""
        from IPython.display import display  # lazy: only IPython calls this, and IPython is slow to import
        display({"text/html": self.words_html(), "text/plain": str(self)}, raw=True)
        if self.reason != "not_a_tensor":
            display(self.view())

    def _repr_mimebundle_(self, include=None, exclude=None):
        """One bundle, for callers that take one (an ipywidgets Output, a trusted page): the
        words, then the marked picture as HTML (its PNG with its alt text and description, or
        the table when `dot` is missing), beside the picture's SVG and PNG; text/plain is the
        message. IPython's display uses `_ipython_display_`."""
        words = {"text/html": self.words_html(), "text/plain": str(self)}
        if self.reason == "not_a_tensor":
            return words
        bundle = self.view()._repr_mimebundle_(include, exclude)
        picture = bundle.get("text/html", "")
        bundle.update(words)
        bundle["text/html"] = words["text/html"] + picture
        return bundle


def explain(tape, target, source):
    """Why `tape.gradient(target, source)` is None, or the path the gradient takes.

    >>> x = tk.Variable(2.0, name="x")
    >>> with tk.GradientTape() as tape:
    ...     y = tk.stop_gradient(x * x)
    >>> print(tk.display.explain(tape, y, x).message)
    The path from s0 (Variable 'x:0') to n1 (stop_gradient) passes through n1 (stop_gradient), which passes the value forward but no gradient backward. Remove the stop_gradient if the gradient should flow.
    """
    reason, message, node, path = why(tape, target, source)
    return Explanation(reason, message, node, path, tape, target, source)
