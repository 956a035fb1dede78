"""The site's accessibility fixes (WCAG 2.1 AA, checked page by page with axe-core in
tests/ui/test_site.py). Two things the theme and Sphinx leave out:

- toctree captions ("Lessons", "Teaching", "Reference" in the sidebar) are written by Sphinx
  as <p class="caption" role="heading"> with no aria-level, which the heading role requires
  (axe: aria-required-attr, critical, on every page): here they get aria-level="2";
- sphinx.ext.viewcode's module index (_modules/index) nests a submodule's <ul> directly in
  its parent <ul>, not in an <li> (axe: list, serious): here the nested list goes inside the
  item before it;
- code and output blocks that scroll sideways take no keyboard focus, so a keyboard user
  cannot scroll them (axe: scrollable-region-focusable, serious). a11y_static/
  tapekit_a11y.js makes each block that scrolls a named region in the Tab order
  (tabindex="0", role="region", aria-label "code, scrolls sideways"), when the page is
  laid out and again when it is resized: only blocks that do scroll become tab stops.
"""
import re
from pathlib import Path

from sphinx.writers.html5 import HTML5Translator

STATIC = Path(__file__).resolve().parent / "a11y_static"


class AccessibleTranslator(HTML5Translator):
    """Sphinx's HTML5 translator; a toctree caption is a level-2 heading."""

    def visit_title(self, node):
        before = len(self.body)
        super().visit_title(node)
        opened = self.body[before] if len(self.body) > before else ""
        if 'class="caption" role="heading"' in opened and "aria-level" not in opened:
            self.body[before] = opened.replace('role="heading"', 'role="heading" aria-level="2"', 1)


def nest_lists(body):
    """viewcode's `<ul><li>a</li><ul><li>a.b</li></ul><li>c</li></ul>` as valid HTML: each
    nested <ul> inside the <li> before it.

    >>> nest_lists("<ul><li>a</li>\\n<ul><li>a.b</li>\\n</ul><li>c</li>\\n</ul>")
    '<ul><li>a<ul><li>a.b</li>\\n</ul></li>\\n<li>c</li>\\n</ul>'
    """
    start, end = body.find("<ul>"), body.rfind("</ul>") + len("</ul>")
    if start < 0:
        return body
    out, in_item = [], []          # per open list: was it opened inside an item?
    for token in re.findall(r"<ul>|</ul>|<li>.*?</li>\n?", body[start:end], re.S):
        if token == "<ul>":
            nested = bool(out) and out[-1].startswith("<li>")
            if nested:             # reopen the item before it
                out[-1] = out[-1].rstrip("\n")[:-len("</li>")]
            in_item.append(nested)
            out.append(token)
        elif token == "</ul>":
            out.append("</ul></li>\n" if in_item.pop() else token)
        else:
            out.append(token)
    return body[:start] + "".join(out) + body[end:]


def _module_index(app, pagename, templatename, context, doctree):
    if pagename == "_modules/index" and "body" in context:
        context["body"] = nest_lists(context["body"])


def _static_path(app, config):
    config.html_static_path.append(str(STATIC))


def setup(app):
    app.set_translator("html", AccessibleTranslator, override=True)
    app.set_translator("dirhtml", AccessibleTranslator, override=True)
    app.connect("config-inited", _static_path)
    app.connect("html-page-context", _module_index)
    app.add_js_file("tapekit_a11y.js", loading_method="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
