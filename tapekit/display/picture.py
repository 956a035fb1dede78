"""A picture with its text alternative, in the one output form every notebook reader keeps.

Every image tapekit shows (the tape's graph, each widget's stored picture, a lesson's plot
through `tk.display.figure`) is an HTML figure: the PNG as an <img> whose `alt` is the
picture's one-sentence name, and below it a closed <details> with the long description (a
screen reader announces it as a button to open; a sighted reader may open it too):

    <figure class="tapekit-figure"><img alt="..." src="data:image/png;base64,...">
      <details class="tapekit-description"><summary>Text description</summary>...</details>
    </figure>

Why HTML: JupyterLab and Notebook 7 draw image/png and image/svg+xml outputs as an <img>
with no alt (they ignore an `alt` in the output's metadata), so a screen reader hears only
"image". HTML they show in every case, also untrusted (their sanitizer keeps <figure>,
<img alt src="data:...">, <details> and <summary>; not aria-* or role), and so do nbconvert,
the docs site and VS Code. As HTML ranks above pictures, the HTML carries the picture: the
same PNG bytes the bundle keeps under image/png for any reader that shows no HTML. Nothing
in it varies from run to run but the PNG, which notebooks/nbval_sanitize.cfg masks.
"""
import base64
import io
import sys

from .describe import Description
from .format import html_text

SUMMARY = "Text description"


def figure_html(png, description, *, css_class=""):
    """The <figure> of a PNG (base64 text or bytes) and its Description (describe.py).

    >>> words = tk.display.Description("A line rising from 0 to 1.", ("Why.",))
    >>> html = tk.display.picture.figure_html(b"\\x89PNG", words)
    >>> html.split("src=")[0]
    '<figure class="tapekit-figure" style="margin:0 0 4px 0"><img class="tapekit-picture" alt="A line rising from 0 to 1." style="max-width:100%;height:auto" '
    """
    if isinstance(png, bytes):
        png = base64.b64encode(png).decode("ascii")
    extra = f" {css_class}" if css_class else ""
    body = description.html()
    details = (f'<details class="tapekit-description" style="margin:2px 0 0 0;font-size:13px">'
               f"<summary>{html_text(description.heading)}</summary>{body}</details>"
               if body else "")
    return (f'<figure class="tapekit-figure{extra}" style="margin:0 0 4px 0">'
            f'<img class="tapekit-picture" alt="{html_text(description.name)}" '
            f'style="max-width:100%;height:auto" src="data:image/png;base64,{png}">'
            f"{details}</figure>")


def figure_png(fig, **savefig):
    """A matplotlib figure as PNG bytes, the same bytes for the same figure on every run:
    no "Software" stamp (it names matplotlib's version). `savefig` options pass through."""
    buf = io.BytesIO()
    savefig.setdefault("format", "png")
    savefig["metadata"] = {"Software": None, **savefig.get("metadata", {})}
    fig.savefig(buf, **savefig)
    return buf.getvalue()


class Picture:
    """A PNG and its Description, shown as the described HTML figure (the module docstring),
    the same PNG as image/png, and the words as text/plain. `tk.display.figure`'s Figure and
    `tk.utils.plot_model`'s picture are ones.

    >>> words = tk.display.Description("Two boxes joined by an arrow.")
    >>> shown = tk.display.picture.Picture(b"\\x89PNG", words)
    >>> shown.alt, sorted(shown._repr_mimebundle_())
    ('Two boxes joined by an arrow.', ['image/png', 'text/html', 'text/plain'])
    """

    def __init__(self, png, description):
        self.png, self.description = png, description

    @property
    def alt(self):
        return self.description.name

    def describe(self):
        """The picture's alt text and long description (a Description)."""
        return self.description

    def _repr_mimebundle_(self, include=None, exclude=None):
        data = base64.b64encode(self.png).decode("ascii")
        bundle = {"text/html": figure_html(data, self.description), "image/png": data,
                  "text/plain": str(self.description)}
        return {k: v for k, v in bundle.items()
                if (not include or k in include) and not (exclude and k in exclude)}

    def __repr__(self):
        return str(self.description)


class Figure(Picture):
    """A matplotlib figure shown with its alt text (what `tk.display.figure` returns)."""

    def __init__(self, fig, alt, description=(), *, dpi=None):
        if not isinstance(alt, str) or not alt.strip():
            raise ValueError("tk.display.figure: alt must say what the figure shows, in a "
                             "sentence (the finding, e.g. 'The loss falls from 2.3 to 0.1 in "
                             f"50 steps'), got {alt!r}")
        if isinstance(description, str):
            description = (description,)
        options = {"bbox_inches": "tight"}   # what IPython's inline backend does
        if dpi is not None:
            options["dpi"] = dpi
        super().__init__(figure_png(fig, **options),
                         Description(" ".join(alt.split()),
                                     tuple(" ".join(s.split()) for s in description)))


def figure(fig, alt, description=(), *, dpi=None, close=True):
    """Show a matplotlib figure with alt text: what it shows, in the lesson's words.

    alt: one sentence, the finding ("The loss falls from 2.3 to 0.1; the curve flattens after
    step 20"), not "a plot". description: more sentences (a string or a list of them), read
    after it on request (a closed "Text description" under the picture). The figure is
    closed (close=False keeps it open in pyplot), so the inline backend does not show it a
    second time without its alt text. The last line of a cell, or `display(...)`, shows it.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(3, 2))
    >>> _ = ax.plot([0, 1, 2], [2.3, 0.8, 0.1])
    >>> shown = tk.display.figure(fig, "The loss falls from 2.3 to 0.1 in two steps.")
    >>> shown.alt
    'The loss falls from 2.3 to 0.1 in two steps.'
    >>> sorted(shown._repr_mimebundle_())
    ['image/png', 'text/html', 'text/plain']
    """
    shown = Figure(fig, alt, description, dpi=dpi)
    if close:   # only if pyplot is in use: it is never imported here
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is not None:
            pyplot.close(fig)
    return shown
