"""Real browser: hostile names (issue 22) cannot make a picture navigate or run a script.

The issue's probe closes a label early and adds URL="javascript:..." to every later node;
in JupyterLab a click on a GraphView node ran it. Here a notebook names a tensor, a
Variable and a name scope with it; after Run All, every node of the tape's pictures, of a
live GraphView and of a BackpropStepper is clicked: no navigation, no dialog, no
window.__pwned, no <a> in any SVG. The same notebook exported by `jupyter nbconvert` (SVG
inline in the page) is opened and clicked too. The widget's SVG sanitizer is also tested
on its own, in a blank page, with markup Graphviz never makes (<script>, <set>, href, ...).
"""
import base64
import json
import os
import re
import subprocess
import sys
import urllib.parse
from pathlib import Path

import nbformat
import pytest

from lab_page import open_and_run_all, write_notebook  # tests/ui is on sys.path

pytestmark = [pytest.mark.ui, pytest.mark.timeout(300)]
REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = "hostile_names_ui.ipynb"
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"
PROBE = '<a>] evil [URL="javascript:window.__pwned=1" label="CLICK ME"] x [tooltip=<b>'
CELLS = [
    "import tapekit as tk\n"
    "tk.display.set_options(record=True)\n"
    f"PROBE = {PROBE!r}\n"
    "x = tk.constant([1.0, 2.0], name=PROBE)\n"
    "v = tk.Variable([0.5, 1.5], name=PROBE + '\" onmouseover=\"window.__pwned=1')\n"
    "with tk.GradientTape(persistent=True) as tape:\n"
    "    tape.watch(x)\n"
    "    with tk.display.name_scope(PROBE):\n"
    "        h = tk.sin(x * v)\n"
    "    y = tk.reduce_sum(h * 2.0)\n"
    "grads = tape.gradient(y, [x, v])",
    "tape",
    "tk.show(tape, y, [x, v], max_nodes=4)      # the scope as one box",
    "tk.widgets.GraphView.from_tape(tape, y, [x, v])",
    "tk.widgets.BackpropStepper(tape, y, [x, v])",
]
# Every node group of every picture in the page (GraphViews, and SVG shown inline).
NODES = "svg g.node"
SVG_LINKS = """() => [...document.querySelectorAll('svg')].reduce((n, svg) =>
  n + svg.querySelectorAll('a, [href], script, foreignObject').length +
  [...svg.querySelectorAll('*')].filter(e => [...e.attributes].some(a =>
    /^on|href$|^url$/i.test(a.name) || /javascript:/i.test(a.value))).length, 0)"""


def _links_in(doc):
    """Links in the markup of `doc` (tags and attributes; the names' escaped text aside)."""
    tags = re.sub(r">[^<]*<", "><", doc)
    return re.findall(r"<a[\s>/]|href\s*=|\bURL\s*=|javascript:|<script|\son\w+\s*=", tags)


def _watch(page):
    """Record dialogs (and dismiss them) and main-frame navigations after the first load."""
    seen = {"dialogs": [], "navigations": []}

    def on_dialog(d):
        seen["dialogs"].append(d.message)
        d.dismiss()

    page.on("dialog", on_dialog)
    page.on("framenavigated", lambda f: f == page.main_frame and seen["navigations"].append(f.url))
    return seen


def _click_every_node(page, scope=""):
    """Click the middle of every node (a real mouse click); return how many were clicked."""
    nodes = page.locator(f"{scope} {NODES}".strip())
    count = nodes.count()
    for i in range(count):
        node = nodes.nth(i)
        node.scroll_into_view_if_needed()
        node.click(force=True, timeout=5_000)
    return count


def test_hostile_names_in_jupyterlab_click_every_node(lab_server, page, screenshot_dir):
    base, token, root = lab_server
    write_notebook(root / NOTEBOOK, CELLS)
    seen = _watch(page)
    open_and_run_all(page, base, token, NOTEBOOK)
    page.locator(f"{PANEL} .tk-backprop-stepper .tk-gv g.node").first.wait_for()
    page.locator(f"{PANEL} .tk-chain-rule").first.wait_for()
    url = page.url
    loaded = len(seen["navigations"])
    assert "Error" not in page.locator(PANEL).inner_text()[-3000:]
    # the tape's pictures (JupyterLab shows their HTML: the PNG as an <img> with alt text, its
    # description as text; display/picture.py): no link, no script in them
    pictures = page.evaluate(f"""() => [...document.querySelectorAll('{PANEL} figure.tapekit-figure')]
        .map(f => f.querySelectorAll('a, [href], script, svg').length)""")
    assert len(pictures) >= 2, "the tape's pictures did not render"
    assert not any(pictures), pictures
    gv = page.locator(f"{PANEL} .tk-gv").count()
    assert gv == 2                                      # the GraphView and the stepper's
    assert page.evaluate(SVG_LINKS) == 0
    n_gv = page.locator(f"{PANEL} .tk-gv {NODES}").count()
    assert n_gv == 6 + 6, n_gv          # x, v, multiply, sin, multiply, reduce_sum: in each view
    page.screenshot(path=str(screenshot_dir / "hostile_names_lab.png"), full_page=True)

    clicked = _click_every_node(page, PANEL)
    page.wait_for_timeout(500)
    assert clicked >= n_gv
    assert seen["dialogs"] == [], seen["dialogs"]
    assert len(seen["navigations"]) == loaded and page.url == url, seen["navigations"]
    assert page.evaluate("() => window.__pwned") is None
    assert page.evaluate(SVG_LINKS) == 0
    # the widget still works: the last click selected a node of the stepper's view
    assert page.locator(f"{PANEL} .tk-gv g.node.tk-gv-selected").count() >= 1
    page.locator(f"{PANEL} .tk-gv").first.screenshot(path=str(screenshot_dir / "hostile_names_gv.png"))


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The notebook executed and exported by nbconvert (`--execute --to html`)."""
    out = tmp_path_factory.mktemp("hostile")
    nb_path = out / NOTEBOOK
    write_notebook(nb_path, CELLS)
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONHASHSEED="0")
    proc = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook",
                           "--execute", "--inplace", str(nb_path)],
                          capture_output=True, text=True, timeout=240, env=env, cwd=out)
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html",
                           str(nb_path)], capture_output=True, text=True, timeout=240, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return nb_path, nb_path.with_suffix(".html")


def _stored_svgs(nb_path):
    nb = nbformat.read(nb_path, as_version=4)
    data = [o.get("data", {}) for c in nb.cells for o in c.get("outputs", ())]
    return [d["image/svg+xml"] for d in data if "image/svg+xml" in d], data


def test_the_stored_outputs_carry_no_link(exported):
    svgs, data = _stored_svgs(exported[0])
    assert len(svgs) == 3                               # the tape, tk.show, the GraphView
    assert "image/png" in data[-1] and "image/svg+xml" not in data[-1]   # the stepper: a PNG
    for svg in svgs:
        assert not _links_in(svg) and "xlink:title" not in svg


def _open_and_click(browser, uri, screenshot):
    """Open a static page offline, click every picture node (and every picture); return what
    the page saw: dialogs, navigations after the load, window.__pwned, links in its SVGs."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = ctx.new_page()
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                   else route.abort())                 # offline: CDN scripts fail fast
        seen = _watch(page)
        page.goto(uri, wait_until="load")
        page.wait_for_timeout(500)
        loaded, url = len(seen["navigations"]), page.url
        page.screenshot(path=screenshot, full_page=True)
        svg_imgs = page.evaluate("""() => [...document.querySelectorAll('img')]
            .map(i => i.src).filter(s => s.startsWith('data:image/svg+xml'))""")
        png_imgs = page.evaluate("""() => [...document.querySelectorAll('img')]
            .filter(i => i.src.startsWith('data:image/png')).length""")
        clicked = _click_every_node(page)
        pictures = page.locator("img")
        for i in range(pictures.count()):
            pictures.nth(i).scroll_into_view_if_needed()
            pictures.nth(i).click(force=True, timeout=5_000)
        page.wait_for_timeout(500)
        return {"dialogs": seen["dialogs"], "navigated": len(seen["navigations"]) - loaded,
                "same_url": page.url == url, "pwned": page.evaluate("() => window.__pwned"),
                "links": page.evaluate(SVG_LINKS), "clicked": clicked, "svg_imgs": svg_imgs,
                "png_imgs": png_imgs}
    finally:
        ctx.close()


def test_the_nbconvert_page_has_no_link_and_no_dialog(browser, exported, screenshot_dir, tmp_path):
    nb_path, page_path = exported
    # nbconvert's page: each picture an <img> data: URI (a picture that cannot act): the PNG
    # inside the output's HTML (display/picture.py), or an SVG where no HTML was stored
    seen = _open_and_click(browser, page_path.as_uri(), str(screenshot_dir / "hostile_names_static.png"))
    assert len(seen["svg_imgs"]) + seen["png_imgs"] >= 2   # the tape and tk.show (widgets: their own)
    for src in seen["svg_imgs"]:
        head, _, body = src.partition(",")
        svg = base64.b64decode(body).decode() if ";base64" in head else urllib.parse.unquote(body)
        assert not _links_in(svg)
    assert seen["dialogs"] == [] and seen["pwned"] is None
    assert seen["navigated"] == 0 and seen["same_url"] and seen["links"] == 0
    # a page that puts the stored SVG inline (a docs site, other exporters): live SVG
    svgs, _ = _stored_svgs(nb_path)
    inline = tmp_path / "inline.html"
    inline.write_text("<!DOCTYPE html><html><body>" + "".join(
        re.sub(r"^.*?(?=<svg)", "", s, flags=re.S) for s in svgs) + "</body></html>")
    seen = _open_and_click(browser, inline.as_uri(), str(screenshot_dir / "hostile_names_inline.png"))
    assert seen["clicked"] == 6 + 5 + 6          # the tape; tk.show's summary (scope box); GraphView
    assert seen["dialogs"] == [] and seen["pwned"] is None
    assert seen["navigated"] == 0 and seen["same_url"] and seen["links"] == 0


HOSTILE_SVG = """<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
  width="100pt" height="50pt" viewBox="0 0 100 50" onload="window.__pwned=1">
<script>window.__pwned=2</script>
<g id="node1" class="node" onclick="window.__pwned=3"><title>s0</title>
<g id="a_node1"><a xlink:href="javascript:window.__pwned=4" href="javascript:window.__pwned=5"
   target="_top" xlink:title="tip"><ellipse cx="5" cy="5" rx="4" ry="4" fill="red"/>
<text x="1" y="1" style="fill:blue">CLICK</text></a></g></g>
<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>
<set attributeName="href" to="javascript:window.__pwned=6"/>
<animate attributeName="href" values="javascript:window.__pwned=7"/>
<image href="javascript:window.__pwned=8"/><use href="#node1"/>
<polygon points="0,0 1,1" style="fill:url(javascript:window.__pwned=9)" stroke="black"/>
<path d="M0 0" fill="java&#10;script:x" transform="scale(1)"/>
</svg>"""


def test_the_widget_sanitizer_keeps_a_picture_and_nothing_else(browser):
    js = (REPO / "tapekit" / "widgets" / "static" / "graph_view.js").read_text()
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.set_content("<html><body></body></html>")
        out = page.evaluate("""async ([js, text]) => {
          const url = 'data:text/javascript;charset=utf-8,' + encodeURIComponent(js);
          const m = await import(url);
          const svg = m.sanitizeSvg(text);
          document.body.appendChild(document.importNode(svg, true));
          return {html: svg.outerHTML, pwned: window.__pwned ?? null,
                  bad: m.sanitizeSvg('<html><a href="x">y</a></html>') === null};
        }""", [js, HOSTILE_SVG])
    finally:
        ctx.close()
    html = out["html"]
    assert out["pwned"] is None and out["bad"]
    for gone in ("<a", "href", "script", "foreignObject", "<set", "<animate", "<image", "<use",
                 "onload", "onclick", "target=", "url(", "java"):
        assert gone not in html, (gone, html)
    # what a picture needs stays: the node, its title, the shapes and the text of the link
    for kept in ('class="node"', "<title>s0</title>", "<ellipse", ">CLICK</text>",
                 'style="fill:blue"', 'viewBox="0 0 100 50"', 'stroke="black"', "<polygon"):
        assert kept in html, (kept, html)
    print("sanitized:", json.dumps(html)[:400])
