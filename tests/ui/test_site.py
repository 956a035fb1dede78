"""Real browser: the documentation site that `make docs` builds (docs/_build/html).

- every lesson page loads, and each stored output of its notebook is on the page: a picture
  where the notebook stores one (graphs: image/svg+xml or image/png), never a blank area;
- widget outputs show a static picture (the image/png stored beside the widget view);
- no page fetches anything from another host (formulas use the site's own MathJax), except
  the README's Binder badge;
- the API pages have an entry (an element with the qualified name as its id) for every public
  name, as computed from the package by docs/_ext/tapekit_api.py;
- axe-core (WCAG 2.0/2.1 A and AA rules) finds no serious or critical violation on any page,
  the module-source pages included, and every picture has alt text (issue 46).

The site is built by the `site` fixture when docs/_build/html is missing or older than any of
its sources (README.md, docs/, notebooks/, tapekit/): the same command as `make docs`
(docs/build.py), about 15-25 s. Otherwise the existing build is tested as it is.
Screenshots: tests/ui/output/site/ (or $UI_SCREENSHOT_DIR/site).
"""
import functools
import http.server
import importlib.util
import os
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest

import axe  # tests/ui/axe.py

pytestmark = [pytest.mark.ui, pytest.mark.timeout(300)]

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))
WIDGET = "application/vnd.jupyter.widget-view+json"
PICTURES = ("image/png", "image/svg+xml")
# The README's Binder badge is an image on mybinder.org (a link decoration, not content).
OFF_SITE_ALLOWED = {"https://mybinder.org/badge_logo.svg"}
IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


docs_build = _load("docs_build", REPO / "docs" / "build.py")
sys.path.insert(0, str(REPO / "docs" / "_ext"))
import tapekit_api  # noqa: E402


@pytest.fixture(scope="session")
def site():
    """docs/_build/html, built first when missing or stale; yields the directory."""
    if docs_build.is_stale():
        if importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_nb") is None:
            msg = "Sphinx/myst-nb not installed (pip install -e '.[docs]'), cannot build the site"
            pytest.fail(msg) if IN_CI else pytest.skip(msg)
        seconds = docs_build.build()
        print(f"site: built docs/_build/html in {seconds:.1f}s")
    return docs_build.OUT


@pytest.fixture(scope="session")
def site_url(site):
    """A static HTTP server on loopback for the built site (a thread of this process)."""

    handler = type("QuietHandler", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *a: None})
    handler = functools.partial(handler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.fixture(scope="session")
def site_shots(screenshot_dir):
    d = screenshot_dir / "site"
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.fixture
def site_page(browser, request, site_shots):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    pg.set_default_timeout(15_000)
    failed_requests, external = [], []
    # A request the browser itself cancelled, because the test went on to the next page while
    # MathJax was still fetching a font, is no missing file (a 404 is, below)
    pg.on("requestfailed", lambda r: r.failure != "net::ERR_ABORTED"
          and failed_requests.append(f"{r.url} ({r.failure})"))
    pg.on("request", lambda r: r.url.startswith("http") and "//127.0.0.1:" not in r.url
          and external.append(r.url))
    pg.external_requests = external
    pg.on("response", lambda r: r.status >= 400 and failed_requests.append(f"{r.status} {r.url}"))
    pg.failed_requests = failed_requests
    yield pg
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        pg.screenshot(path=str(site_shots / f"{request.node.name}-failure.png"), full_page=True)
    ctx.close()


def _open(page, url):
    resp = page.goto(url)
    assert resp is not None and resp.status == 200, f"{url}: HTTP {resp and resp.status}"
    page.wait_for_load_state("load")
    local = [u for u in page.failed_requests if "127.0.0.1" in u]
    assert local == [], f"{url}: missing files {local}"
    off_site = set(page.external_requests) - OFF_SITE_ALLOWED
    assert off_site == set(), f"{url}: the site must work offline, but it fetched {off_site}"


def _stored_outputs(path):
    """[[mime types or output_type of each output] for each shown code cell with outputs].
    A cell's prints to one stream are one output area on the site, where the first of them is
    (nb_merge_streams in docs/conf.py: myst-nb joins them even with a picture between, as a
    solution that prints, displays a tape, then prints its checks' verdict has them)."""
    nb = nbformat.read(path, as_version=4)
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code" or not cell.outputs:
            continue
        if "remove-cell" in cell.metadata.get("tags", []):
            continue   # a lesson's hidden check cell: not on the site, by design
        outs, streams = [], set()
        for o in cell.outputs:
            stream = o.get("name") if o.output_type == "stream" else None
            if stream is None or stream not in streams:
                outs.append(sorted(o.get("data", {})) or [o.output_type])
            if stream is not None:
                streams.add(stream)
        cells.append(outs)
    return cells


# Each `.cell_output` child, as the browser shows it: an image that decoded, or its text.
RENDERED_OUTPUTS = """() => [...document.querySelectorAll('.cell_output')].map(cell =>
  [...cell.children].map(el => {
    const imgs = [...(el.tagName === 'IMG' ? [el] : el.querySelectorAll('img'))];
    return {
      tag: el.tagName, cls: el.className,
      pictures: imgs.filter(i => i.complete && i.naturalWidth > 0).length,
      text: el.innerText.trim().slice(0, 80),
      height: el.getBoundingClientRect().height,
    };
  }))"""


def test_landing_page(site_url, site_page, site_shots):
    _open(site_page, f"{site_url}/index.html")
    assert site_page.locator("h1").first.inner_text().startswith("tapekit")
    # the README's lesson links lead to the lesson pages of the site, not to .ipynb files
    hrefs = site_page.eval_on_selector_all("article a[href*='notebooks/']", "els => els.map(e => e.getAttribute('href'))")
    assert {f"notebooks/{nb.stem}.html" for nb in NOTEBOOKS} <= set(hrefs)
    img = site_page.locator("article img[src*='stepper']")
    assert img.evaluate("e => e.complete && e.naturalWidth > 0")
    site_page.screenshot(path=str(site_shots / "index.png"), full_page=True)


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_lesson_page(site_url, site_page, site_shots, nb):
    t0 = time.monotonic()
    _open(site_page, f"{site_url}/notebooks/{nb.stem}.html")
    stored = _stored_outputs(nb)
    # Sphinx writes each formula as span/div.math.notranslate; MathJax's HTML-CSS output puts a
    # span.math of its own inside every formula it typesets, so a bare `span.math` counted 57 on
    # lesson 24's page before MathJax ran and 114 after (in CI the page was half typeset when counted).
    formulas = site_page.locator("span.math.notranslate, div.math.notranslate").count()
    if formulas:   # typeset by the site's own MathJax (docs/conf.py), not a CDN
        # MathJax 2's "End" start-up hook runs once its first typeset is done (at once if it is).
        site_page.wait_for_function("window.MathJax && window.MathJax.Hub")
        site_page.evaluate("() => MathJax.Hub.Register.StartupHook('End', () => { window.typesetDone = true })")
        site_page.wait_for_function("window.typesetDone === true", timeout=60_000)
        typeset = site_page.evaluate("document.querySelectorAll('.MathJax').length")
        errors = site_page.evaluate("document.querySelectorAll('.MathJax_Error, .MathJax .merror, .MathJax .noError').length")
        assert (typeset, errors) == (formulas, 0), \
            f"{nb.stem}: {formulas} formulas, {typeset} typeset by MathJax, {errors} shown as errors"
    shown = site_page.evaluate(RENDERED_OUTPUTS)
    assert len(shown) == len(stored), "one output area per code cell with outputs"
    for k, (outs, els) in enumerate(zip(stored, shown)):
        assert len(els) == len(outs), f"cell output {k}: {outs} shown as {els}"
        for mimes, el in zip(outs, els):
            where = f"{nb.name}, output area {k}: {mimes}"
            if any(m in PICTURES for m in mimes):
                assert el["pictures"] >= 1, f"{where} has a picture that is not shown: {el}"
            else:
                assert el["text"] and el["height"] > 0, f"{where} is blank on the page: {el}"
    pictures = site_page.locator(".cell_output img")
    if pictures.count():                                  # the screenshot shows the first graph
        pictures.first.scroll_into_view_if_needed()
    site_page.screenshot(path=str(site_shots / f"{nb.stem}.png"), full_page=False)
    assert time.monotonic() - t0 < 30


WIDGET_LESSONS = [p for p in NOTEBOOKS if any(WIDGET in m for outs in _stored_outputs(p) for m in outs)]


@pytest.mark.parametrize("nb", WIDGET_LESSONS, ids=[p.stem for p in WIDGET_LESSONS])
def test_widget_outputs_are_pictures(site_url, site_page, nb):
    """A widget cannot run on a static page: each widget output must show its stored picture."""
    _open(site_page, f"{site_url}/notebooks/{nb.stem}.html")
    shown = site_page.evaluate(RENDERED_OUTPUTS)
    for k, (outs, els) in enumerate(zip(_stored_outputs(nb), shown)):
        for mimes, el in zip(outs, els):
            if WIDGET in mimes:
                assert el["pictures"] >= 1, f"{nb.name}, output area {k}: widget shown as text {el['text']!r}"


def test_api_pages_list_every_public_name(site_url, site_page, site_shots):
    expected = {}
    for qualname, _ in tapekit_api.all_public():
        modname = qualname.rsplit(".", 1)[0]
        expected.setdefault(modname, set()).add(qualname)
    assert len(expected) == len(tapekit_api.NAMESPACES)
    missing = {}
    for modname, names in expected.items():
        page_name = modname.replace("tapekit", "tk")
        _open(site_page, f"{site_url}/api/{page_name}.html")
        ids = set(site_page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
        if names - ids:
            missing[modname] = sorted(names - ids)
        if page_name in ("tk", "tk.widgets"):
            site_page.screenshot(path=str(site_shots / f"api-{page_name}.png"), full_page=False)
    assert missing == {}, "public names without an entry on their API page"
    # and the index of the reference links every namespace page
    _open(site_page, f"{site_url}/api/index.html")
    links = set(site_page.eval_on_selector_all("article a", "els => els.map(e => e.getAttribute('href'))"))
    assert {f"{m.replace('tapekit', 'tk')}.html" for m in expected} <= links


def test_design_page(site_url, site_page):
    _open(site_page, f"{site_url}/DESIGN.html")
    assert "How tapekit works" in site_page.locator("h1").first.inner_text()


IMAGES_WITHOUT_ALT = """() => [...document.querySelectorAll('article img, .cell_output img')]
  .filter(i => !(i.getAttribute('alt') || '').trim()).map(i => i.outerHTML.slice(0, 120))"""


@pytest.mark.timeout(3600)
def test_every_page_has_no_serious_or_critical_accessibility_violation(site, site_url, site_page,
                                                                        site_shots):
    """Issue 46: the theme's toctree captions (aria-required-attr) and code/output blocks that
    scroll without taking focus (scrollable-region-focusable) were on every page."""
    pages = sorted(str(p.relative_to(site)) for p in Path(site).rglob("*.html")
                   if "_static" not in p.parts and "_sources" not in p.parts)
    assert len(pages) > 50
    problems, counts = [], {}
    for name in pages:
        _open(site_page, f"{site_url}/{name}")
        found = axe.severe(axe.run(site_page))
        bare = site_page.evaluate(IMAGES_WITHOUT_ALT)
        counts[name] = axe.count(found)[1]
        if found:
            problems.append(f"{name}:\n{axe.report(found, limit=3)}")
        if bare:
            problems.append(f"{name}: images without alt text: {bare[:3]}")
    lines = [f"{n}  {c}" for n, c in counts.items()]
    (site_shots / "axe.txt").write_text("\n".join(lines) + "\n")
    print(f"axe: {len(pages)} pages, {sum(counts.values())} serious/critical nodes")
    assert not problems, "\n".join(problems)


def test_a_scrolling_code_block_takes_focus_and_a_fitting_one_does_not(site_url, site_page):
    """docs/_ext/a11y_static/tapekit_a11y.js: only a block that scrolls becomes a tab stop."""
    _open(site_page, f"{site_url}/notebooks/02_the_chain_rule_on_a_graph.html")
    marks = site_page.evaluate("""() => [...document.querySelectorAll('div.highlight pre')].map(p => ({
        scrolls: p.scrollWidth > p.clientWidth + 1, tab: p.getAttribute('tabindex'),
        role: p.getAttribute('role'), name: p.getAttribute('aria-label')}))""")
    scrolling = [m for m in marks if m["scrolls"]]
    assert scrolling, "no code block scrolls on this page: nothing to test"
    assert all(m["tab"] == "0" and m["role"] == "region" and m["name"] == "code, scrolls sideways"
               for m in scrolling)
    assert all(m["tab"] is None for m in marks if not m["scrolls"])
    level = site_page.evaluate("""() => [...document.querySelectorAll('[role="heading"]')]
        .map(e => e.getAttribute('aria-level'))""")
    assert level and all(v == "2" for v in level)
