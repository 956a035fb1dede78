"""Every lesson in a real browser, as students see it (issue 13).

For each notebooks/*.ipynb, in JupyterLab (one shared server, windowingMode "none"):
1. as shipped: the stored outputs of an untrusted notebook, before any cell runs. Every graph
   output shows as a picture (not the text table), every explain() output shows its words;
2. Run All: no error outside cells tagged `raises-exception`, no "Error displaying widget",
   every graph output a picture that fits the output column (no sideways scrolling), every
   explain() output's words on the page;
and, for the static page `jupyter nbconvert --to html` makes of the stored notebook, opened in
Chromium: no blank output area (one whose rendered content is empty), and no picture without
a text alternative.
Accessibility (issue 46): as shipped and after Run All, axe-core (WCAG 2.0/2.1 A and AA rules)
over the notebook's outputs (what tapekit and the lessons draw) finds no serious or critical
violation, and every image in an output has alt text.

Numbers per lesson (Run All time, pictures, blank static outputs) are printed as a table at
the end of the run and written to tests/ui/output/lessons.txt; screenshots go there too.
"""
import json
import subprocess
import sys
import time
import urllib.request

import nbformat
import pytest

import axe  # tests/ui/axe.py
from conftest import LESSON_STATS, NOTEBOOKS  # tests/ui/conftest.py (no package)
from lab_page import ALL_PROMPTS_NUMBERED, KERNEL_READY

pytestmark = [pytest.mark.ui, pytest.mark.timeout(300)]

LESSONS = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))

NO_PROMPT_NUMBERED = """() => {
  const p = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputArea-prompt')]
    .map(e => e.textContent.trim());
  return p.length > 0 && p.every(s => !/\\d/.test(s));
}"""
# What each cell's top-level outputs show: pictures the browser decoded, text, explain words,
# and whether the output is wider than its column.
OUTPUTS = """() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')]
  .map(cell => {
    const area = cell.querySelector('.jp-Cell-outputArea');
    const kids = area ? [...area.querySelectorAll(':scope > .jp-OutputArea-child')] : [];
    return kids.map(o => {
      const out = o.querySelector('.jp-OutputArea-output');
      const pics = [...o.querySelectorAll('.jp-RenderedImage img, .jp-RenderedSVG img, .jp-RenderedSVG svg, ' +
                                          '.jp-RenderedHTMLCommon img.tapekit-picture')]
        .filter(i => i.tagName !== 'IMG' || (i.complete && i.naturalWidth > 0));
      const widest = Math.max(0, ...pics.map(i => i.getBoundingClientRect().width));
      return {mime: out?.dataset.mimeType || '', pictures: pics.length,
              png: o.querySelectorAll('.jp-RenderedImage img').length,
              text: (o.innerText || '').slice(0, 4000),
              widest: widest, column: out ? out.clientWidth : 0,
              scrolls: out ? out.scrollWidth > out.clientWidth + 2 : false};
    });
  })"""
BLANK_STATIC = """() => [...document.querySelectorAll('.jp-OutputArea-output')].map((o, k) => {
    const seen = [...o.querySelectorAll('img, svg, canvas, video, iframe')]
      .some(e => e.getBoundingClientRect().width > 0 && e.getBoundingClientRect().height > 0);
    const cell = o.closest('.jp-Cell');
    const idx = [...document.querySelectorAll('.jp-Cell')].indexOf(cell);
    return {blank: !seen && (o.innerText || '').trim() === '', cell: idx,
            html: o.outerHTML.slice(0, 300)};
  }).filter(x => x.blank)"""
TABLE_HEADER = "node  kind"   # the first line of a tape's text table (html.to_text)
# Every image in the outputs, and whether it has a text alternative (alt, or a name by aria).
IMAGES_WITHOUT_ALT = """(scope) => [...document.querySelectorAll(scope + ' img')]
  .filter(i => !(i.getAttribute('alt') || i.getAttribute('aria-label') || '').trim()
               && i.getAttribute('role') !== 'presentation')
  .map(i => i.outerHTML.slice(0, 120))"""


def _accessibility(page, when):
    """axe's serious and critical violations in the outputs, and images without alt text."""
    found = axe.severe(axe.run(page, axe.OUTPUTS))
    bare = page.evaluate(IMAGES_WITHOUT_ALT, axe.OUTPUTS)
    problems = []
    if found:
        problems.append(f"{when}: axe finds {axe.count(found)[1]} serious/critical nodes in the "
                        f"outputs:\n{axe.report(found)}")
    if bare:
        problems.append(f"{when}: {len(bare)} images without alt text: {bare[:3]}")
    return problems, axe.count(found)[1]


# Per cell of the open notebook: is its source shown (an editor with height), and does
# JupyterLab show the collapsed-input placeholder ("…") in its place?
INPUTS = """() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')]
  .map(cell => {
    const editor = cell.querySelector('.jp-InputArea-editor');
    return {shown: !!editor && editor.getBoundingClientRect().height > 0,
            placeholder: !!cell.querySelector('.jp-InputPlaceholder')};
  })"""


def _check_inputs(page, nb):
    """Check and solution cells render collapsed (issue 30: students saw our test cells);
    every other code cell shows its source."""
    seen = page.evaluate(INPUTS)
    assert len(seen) == len(nb.cells), f"{len(seen)} cells on the page, {len(nb.cells)} in the file"
    problems = []
    for k, (cell, dom) in enumerate(zip(nb.cells, seen)):
        tags = cell.metadata.get("tags", [])
        if "check" in tags or "solution" in tags:
            if dom["shown"] or not dom["placeholder"]:
                problems.append(f"cell {k} ({'check' if 'check' in tags else 'solution'}) "
                                f"shows its source: {cell.source[:80]!r}")
        elif cell.cell_type == "code" and not dom["shown"]:
            problems.append(f"cell {k} hides its source: {cell.source[:80]!r}")
    return problems


def _is_graph(output):
    """A tape picture (a graph, or explain's marked graph); widgets are not counted here."""
    data = output.get("data", {})
    return output.get("output_type") in ("display_data", "execute_result") and (
        "image/svg+xml" in data or "image/png" in data) and \
        "application/vnd.jupyter.widget-view+json" not in data


def _plain(data):
    text = data.get("text/plain", "")
    return "".join(text) if isinstance(text, list) else text


def _explain_words(output):
    """The message of an explain() words output (its text/plain), or None."""
    data = output.get("data", {})
    html = data.get("text/html", "")
    html = "".join(html) if isinstance(html, list) else html
    return _plain(data) if "tapekit-explain" in html else None


def _expected(nb):
    """Per cell: (number of graph outputs, [explain messages]) of a notebook's stored outputs.
    A cell whose outputs are collapsed (a solution: `jupyter.outputs_hidden`) shows none."""
    return [(0, []) if c.metadata.get("jupyter", {}).get("outputs_hidden") else
            (sum(_is_graph(o) for o in c.get("outputs", [])),
             [w for w in map(_explain_words, c.get("outputs", [])) if w])
            for c in nb.cells]


def _check_page(page, nb, when):
    """Graph outputs are pictures that fit, explain words are page text; returns counts."""
    cells = page.evaluate(OUTPUTS)
    assert len(cells) == len(nb.cells), f"{when}: {len(cells)} cells in the page, {len(nb.cells)} in the notebook"
    problems, pictures, words = [], 0, 0
    for k, ((graphs, messages), outs) in enumerate(zip(_expected(nb), cells)):
        shown = sum(1 for o in outs if o["pictures"] and TABLE_HEADER not in o["text"])
        tables = [o for o in outs if TABLE_HEADER in o["text"]]
        pictures += min(shown, graphs)
        if graphs and (shown < graphs or tables):
            problems.append(f"cell {k}: {graphs} graph output(s), {shown} shown as pictures, "
                            f"{len(tables)} as the text table")
        for o in outs:
            if o["pictures"] and o["scrolls"]:
                problems.append(f"cell {k}: a picture {o['widest']:.0f} px wide does not fit its "
                                f"{o['column']} px column (sideways scrolling)")
        page_text = "\n".join(o["text"] for o in outs)
        page_words = " ".join(page_text.split())     # the page wraps lines its own way
        for m in messages:
            if " ".join(m.split())[:60] in page_words:
                words += 1
            else:
                problems.append(f"cell {k}: explain's words not on the page: {m[:60]!r}")
        if "Error displaying widget" in page_text:
            problems.append(f"cell {k}: Error displaying widget")
    return problems, pictures, words


def _api(base, token, path):
    req = urllib.request.Request(f"{base}{path}", headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def _stale(nb):
    """Stored outputs made before graphs carried a PNG (the repository's notebooks until the
    integrator runs `make notebooks` on the merged branches)."""
    outs = [o for c in nb.cells for o in c.get("outputs", [])]
    return any(_is_graph(o) for o in outs) and not any("image/png" in o.get("data", {}) for o in outs)


def _screenshot(page, path):
    """The whole notebook: the page is made as tall as the notebook's content for the shot."""
    height = page.evaluate("""() => {
        const outer = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer');
        if (!outer) return 0;
        outer.scrollTop = 0;
        return outer.scrollHeight;
    }""")
    page.set_viewport_size({"width": 1400, "height": min(max(1000, height + 200), 16000)})
    page.wait_for_timeout(300)
    page.screenshot(path=str(path))
    page.set_viewport_size({"width": 1400, "height": 1000})


def _save(page, base, token, lesson, done):
    """Save the notebook until the server's copy passes `done(execution counts)`; return it."""
    deadline = time.monotonic() + 30
    while True:
        page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook").focus()
        page.keyboard.press("Control+s")
        page.wait_for_timeout(500)
        nb = nbformat.reads(json.dumps(_api(base, token, f"/api/contents/shipped/{lesson}")["content"]),
                            as_version=4)
        if done([c.get("execution_count") for c in nb.cells if c.cell_type == "code"]):
            return nb
        assert time.monotonic() < deadline, "JupyterLab did not save the notebook"


def _menu(page, menu, item):
    page.click(f".lm-MenuBar-itemLabel:text-is('{menu}')")
    page.click(f".lm-Menu-itemLabel:text-is('{item}')")


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_as_shipped_and_after_run_all(lab_server, page, screenshot_dir, lesson):
    base, token, root = lab_server
    stem = lesson.removesuffix(".ipynb")
    stats = LESSON_STATS.setdefault(stem, {})
    shipped_nb = nbformat.read(root / "shipped" / lesson, as_version=4)

    # 1. As shipped: untrusted, stored outputs, nothing run yet.
    page.goto(f"{base}/lab/tree/shipped/{lesson}?reset&token={token}")   # reset: no old tabs
    page.wait_for_function(KERNEL_READY, timeout=90_000, polling=100)
    page.wait_for_timeout(500)                       # outputs render after the cells
    problems, pictures, words = _check_page(page, shipped_nb, "as shipped")
    problems += _check_inputs(page, shipped_nb)
    graphs = sum(g for g, _ in _expected(shipped_nb))
    stats["shipped"] = f"{pictures}/{graphs}"
    found, stats["axe_shipped"] = _accessibility(page, "as shipped")
    problems += found
    _screenshot(page, screenshot_dir / f"{stem}-shipped.png")
    shipped_problems = problems

    # 2. Run All in the browser (outputs cleared first, so the prompts tell when it is done).
    _menu(page, "Edit", "Clear Outputs of All Cells")
    page.wait_for_function(NO_PROMPT_NUMBERED, timeout=30_000)
    _save(page, base, token, lesson, lambda counts: not any(counts))   # the file is cleared too
    page.wait_for_function(KERNEL_READY, timeout=90_000, polling=100)
    t0 = time.monotonic()
    _menu(page, "Run", "Run All Cells")
    page.wait_for_function(ALL_PROMPTS_NUMBERED, timeout=240_000, polling=200)
    page.wait_for_function(KERNEL_READY, timeout=120_000, polling=100)
    stats["run_all_s"] = f"{time.monotonic() - t0:.1f}"
    page.wait_for_timeout(1000)                      # widget views render asynchronously
    saved = _save(page, base, token, lesson, all)  # the run's outputs, as the server has them
    _screenshot(page, screenshot_dir / f"{stem}-run.png")

    errors = [f"cell {k}: {o.get('ename')}: {o.get('evalue')}"
              for k, c in enumerate(saved.cells) if c.cell_type == "code"
              and "raises-exception" not in c.metadata.get("tags", [])
              for o in c.outputs if o.get("output_type") == "error"]
    problems, pictures, words = _check_page(page, saved, "after Run All")
    found, stats["axe_run"] = _accessibility(page, "after Run All")
    problems += found
    graphs = sum(g for g, _ in _expected(saved))
    explains = sum(len(m) for _, m in _expected(saved))
    stats["after_run"] = f"{pictures}/{graphs}"
    stats["explain"] = f"{words}/{explains}"
    assert not errors, f"{lesson}: error outputs after Run All:\n" + "\n".join(errors)
    assert not problems, f"{lesson} after Run All:\n" + "\n".join(problems)

    if shipped_problems and _stale(shipped_nb):
        shipped_problems.insert(0, "the stored outputs predate the PNG pictures: run `make notebooks`")
    assert not shipped_problems, f"{lesson} as shipped:\n" + "\n".join(shipped_problems)


@pytest.fixture(scope="session")
def static_pages(tmp_path_factory):
    """`jupyter nbconvert --to html` (default template) of every stored lesson, in one run."""
    out = tmp_path_factory.mktemp("static")
    proc = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html",
                           "--output-dir", str(out), *[str(NOTEBOOKS / n) for n in LESSONS]],
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.mark.parametrize("lesson", LESSONS)
def test_static_html_has_no_blank_output(browser, static_pages, screenshot_dir, lesson):
    stem = lesson.removesuffix(".ipynb")
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = ctx.new_page()
        # offline: the template's CDN scripts (require.js, MathJax, the widget manager) fail fast
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                   else route.abort())
        page.goto((static_pages / f"{stem}.html").as_uri(), wait_until="load")
        page.wait_for_timeout(500)
        blank = page.evaluate(BLANK_STATIC)
        bare = page.evaluate(IMAGES_WITHOUT_ALT, ".jp-OutputArea-output")
        LESSON_STATS.setdefault(stem, {})["static_blank"] = len(blank)
        page.screenshot(path=str(screenshot_dir / f"{stem}-static.png"), full_page=True)
    finally:
        ctx.close()
    assert not blank, f"{lesson}: blank output areas in the nbconvert page:\n" + "\n".join(
        f"cell {b['cell']}: {b['html']}" for b in blank)
    assert not bare, f"{lesson}: pictures without alt text in the nbconvert page: {bare[:3]}"


def test_what_an_untrusted_notebook_shows(lab_server, page):
    """Why tape pictures carry a PNG and no HTML: in an untrusted notebook JupyterLab shows
    only safe types, never SVG (the text table shows instead), and ranks (sanitized) HTML
    above any picture; a data: PNG inside that HTML survives the sanitizer."""
    import tapekit as tk
    base, token, root = lab_server
    with tk.display.option_context(record=True):
        x = tk.Variable(3.0, name="x")
        with tk.GradientTape() as tape:
            x * x
        view = tk.show(tape)
        picture = view._repr_mimebundle_(exclude=["text/html"])   # the picture types alone
    if "image/png" not in picture:
        pytest.skip("Graphviz dot not installed")
    img = f'<img src="data:image/png;base64,{picture["image/png"]}">'
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}})
    for data in ({**picture, "text/html": "<p>the HTML</p>" + img},   # all four types
                 picture,                                               # PNG + SVG + text
                 {k: v for k, v in picture.items() if k != "image/png"}):  # SVG + text
        cell = nbformat.v4.new_code_cell("tape", execution_count=1)
        cell.outputs = [nbformat.v4.new_output("display_data", data=data)]
        nb.cells.append(cell)
    nbformat.write(nb, root / "shipped" / "untrusted_probe.ipynb")
    page.goto(f"{base}/lab/tree/shipped/untrusted_probe.ipynb?reset&token={token}")
    page.wait_for_function("""() => document.querySelectorAll(
        '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell-outputArea .jp-OutputArea-output').length === 3""")
    page.wait_for_timeout(500)
    shown = page.evaluate("""() => [...document.querySelectorAll(
        '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell-outputArea .jp-OutputArea-output')].map(o => ({
        mime: o.dataset.mimeType, text: o.innerText.slice(0, 200),
        imgs: [...o.querySelectorAll('img')].map(i => (i.getAttribute('src') || '').slice(0, 22)),
        decoded: [...o.querySelectorAll('img')].map(i => i.complete && i.naturalWidth > 0)}))""")
    html, png, svg_only = shown
    assert html["mime"] == "text/html" and "the HTML" in html["text"]   # HTML wins, sanitized
    assert html["decoded"] == [True]        # JupyterLab 4.6 keeps a data: PNG inside it
    assert png["mime"] == "image/png" and png["imgs"] == ["data:image/png;base64,"]
    assert svg_only["mime"] == "text/plain" and TABLE_HEADER in svg_only["text"]   # no SVG
