"""Real browser: lesson 10 in JupyterLab; the BackpropStepper renders and its next button works."""
import shutil
import time
import urllib.parse
from pathlib import Path

import pytest

from lab_page import open_and_run_all  # tests/ui is on sys.path

pytestmark = [pytest.mark.ui, pytest.mark.timeout(240)]
NOTEBOOK = "10_under_the_hood.ipynb"
REPO = Path(__file__).resolve().parents[2]

STEPPER = ".tk-backprop-stepper"


def _current_node(page):
    """The highlighted node id, read from the graph's SVG (rendered as <img src=data:...>)."""
    img = page.locator(f"{STEPPER} .jp-RenderedSVG img").first
    img.wait_for()
    assert img.evaluate("e => e.complete && e.naturalWidth > 0")   # the browser decoded it
    svg = urllib.parse.unquote(img.get_attribute("src"))
    k = svg.index('class="node current"')
    return svg[svg.index("<title>", k) + 7: svg.index("</title>", k)]


def test_stepper_renders_and_next_moves_the_highlight(lab_server, page, screenshot_dir):
    base, token, _ = lab_server
    t0 = time.monotonic()
    open_and_run_all(page, base, token, NOTEBOOK)

    # the graph of section 1 (tk.show) renders too (cells far below may be virtualised)
    first = page.locator(".jp-OutputArea-output .jp-RenderedSVG img").first
    first.wait_for()
    assert "<title>n2</title>" in urllib.parse.unquote(first.get_attribute("src"))

    stepper = page.locator(STEPPER).first
    stepper.wait_for()
    stepper.scroll_into_view_if_needed()
    chain = stepper.locator(".tk-chain-rule")
    page.wait_for_function(   # widget views render asynchronously after the cell ran
        "() => document.querySelector('.tk-chain-rule')?.innerText.includes('step 0 of 3')")
    assert _current_node(page) == "n2"

    next_button = stepper.locator("button", has_text="next")
    next_button.click()                               # browser -> comm -> kernel -> views
    page.wait_for_function(
        "() => document.querySelector('.tk-chain-rule')?.innerText.includes('step 1 of 3')")
    assert "n2 = add(n1, s0)" in chain.inner_text()
    next_button.click()
    page.wait_for_function(
        "() => document.querySelector('.tk-chain-rule')?.innerText.includes('step 2 of 3')")
    assert "n1 = sin(n0)" in chain.inner_text()
    page.wait_for_function("""() => {
        const img = document.querySelector('.tk-backprop-stepper .jp-RenderedSVG img');
        return img && decodeURIComponent(img.src).includes('<title>n1</title>') &&
               /class="node current"[^]*?<title>n1<\\/title>/.test(decodeURIComponent(img.src));
    }""")
    assert _current_node(page) == "n1"
    slider = stepper.locator(".widget-slider .noUi-handle[role='slider']").first
    assert float(slider.get_attribute("aria-valuenow")) == 2

    shot = screenshot_dir / "stepper.png"
    stepper.screenshot(path=str(shot))
    page.screenshot(path=str(screenshot_dir / "stepper-page.png"))
    docs_png = REPO / "docs" / "stepper.png"
    if not docs_png.exists():                         # keep one good picture for the README
        shutil.copy(shot, docs_png)
    print(f"stepper UI test body {time.monotonic() - t0:.1f}s, screenshot {shot}")
