"""What every view shares: its display (the live widget, a PNG of its last state with its
text alternative, and text), and small output helpers. The views live one per module
(stepper, inspector, explorer, monitor); `views.py` says what a notebook stores for each and
re-exports them.
"""
import html

import ipywidgets as w

from ..display.describe import Description
from ..display.picture import figure_html
from . import plots


def esc(text):
    """`text` safe inside HTML (the views' readouts and tables)."""
    return html.escape(str(text), quote=True)


def error_html(message):
    """A view's error message, escaped, in a red box (instead of a traceback)."""
    return ('<div class="tk-widget-error" style="color:#a00000;border:1px solid #d08080;'
            'background:#fff0f0;padding:6px;font-family:sans-serif">'
            f'<b>tapekit:</b> {esc(message)}</div>')


def text_output(text):
    """One stdout stream output (for an Output widget's .outputs), ending in a newline."""
    return {"output_type": "stream", "name": "stdout", "text": text if text.endswith("\n") else text + "\n"}


class Pictured:
    """Shared display: the widget where a front end runs, a PNG and text elsewhere; the PNG
    also as HTML with its alt text and long description (`describe()`), the form in which a
    picture keeps its words in JupyterLab, nbconvert and the docs site (display/picture.py)."""

    widget = None       # the ipywidgets object shown (the view itself for a View)
    # The stored picture's HTML changes when code moves the view (its display is updated):
    # notebooks/nbval_sanitize.cfg compares these figures by their class, not their words.
    FIGURE_CLASS = "tapekit-view"

    def text(self):
        raise NotImplementedError

    def describe(self):
        """What the view's picture shows now, in words (a Description: `.name` is its alt
        text). Views say more than their first line of text."""
        lines = self.text().splitlines() or [type(self).__name__]
        return Description(lines[0], intro=tuple(line.strip() for line in lines[1:]))

    def bundle_text(self):
        """The bundle's text/plain (the monitor's stays the same from first to last draw)."""
        return self.text()

    def picture(self):
        """PNG bytes of the current state (None: no picture, e.g. the view failed)."""
        return None

    def _state_key(self):
        """What the picture depends on (None: do not cache)."""
        return None

    def _png(self):
        """The picture, cached per state; a view that failed pictures its error message, so
        every stored bundle has an image/png (the docs site's contract)."""
        key = self._state_key()
        cache = self.__dict__.setdefault("_png_cache", {})
        if key is not None and key in cache:
            return cache[key]
        png = self.picture()
        if png is None and getattr(self, "error", None):
            png = plots.text_panel_png(plots.wrap(self.text()))
        if key is not None:
            if len(cache) > 64:
                cache.clear()
            cache[key] = png
        return png

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {}
        if self.widget is not None:
            data = w.Widget._repr_mimebundle_(self.widget, include=include, exclude=exclude)
            if isinstance(data, tuple):
                data = data[0]
            bundle.update(data or {})
        bundle["text/plain"] = self.bundle_text()
        try:
            png = self._png()
        except Exception:  # noqa: BLE001 - the picture is a fallback: text/plain still says it
            png = None
        if png:
            bundle["image/png"] = plots.png_base64(png)
            try:
                words = self.describe()
            except Exception:  # noqa: BLE001 - a view that cannot say more says its text
                words = Pictured.describe(self)
            bundle["text/html"] = figure_html(bundle["image/png"], words,
                                              css_class=self.FIGURE_CLASS)
        return bundle

    # --- the stored picture follows the view ------------------------------------------
    _displays = ()      # [(IPython DisplayHandle, text/plain first shown)]

    def _ipython_display_(self):
        """Display with a display id, so later changes made from code can update the stored
        picture (`explorer.set_point(2.0)` in the next cell: a static page shows x = 2.0).

        IPython calls this for a bare `view` at the end of a cell and for `display(view)`;
        the output is display_data (not execute_result) because only it carries an id.
        """
        from IPython.core.interactiveshell import InteractiveShell
        if not InteractiveShell.initialized():
            print(self.text())
            return
        from IPython.display import display
        bundle = self._repr_mimebundle_()
        handle = display(bundle, raw=True, display_id=True)
        if handle is not None:
            self._displays = list(self._displays) + [(handle, bundle["text/plain"])]

    def _refresh_displays(self):
        """Update every display of this view with its current bundle (image/png above all).

        text/plain stays as it was first shown: nbval compares it and never sees updates
        (it ignores update_display_data), while nbclient and JupyterLab apply them. Only
        changes made from code refresh: a browser drag re-rendering its own output would
        interrupt itself, and JupyterLab does not save widget state anyway.
        """
        if not self._displays:
            return
        bundle = self._repr_mimebundle_()
        for handle, text in self._displays:
            handle.update({**bundle, "text/plain": text}, raw=True)

    def __repr__(self):
        return self.text()


class View(Pictured, w.VBox):
    """A view that is an ipywidgets VBox: it goes into HBox/VBox/Tab like any widget."""

    @property
    def widget(self):
        return self

    def close(self):
        """Close the view and every widget inside it (their comms, in a kernel)."""
        for child in list(self.children):
            for c in walk_widgets(child):
                c.close()
        super().close()


def walk_widgets(widget):
    """The widget and every widget inside it, depth first (to close them all)."""
    yield widget
    for c in getattr(widget, "children", ()):
        yield from walk_widgets(c)


