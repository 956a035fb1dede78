"""tapekit.display.picture: a picture with its text alternative as HTML (the PNG as an <img>
with alt, the long description in a closed <details>), and tk.display.figure for a lesson's
matplotlib plot (issue 46)."""
import base64
import html.parser

import pytest

import tapekit as tk
from tapekit.display.describe import Description
from tapekit.display.picture import figure_html

from .tapes import EVIL


class _Tags(html.parser.HTMLParser):
    def __init__(self, text):
        super().__init__()
        self.tags = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_figure_html_carries_the_png_its_alt_and_the_description():
    png = b"\x89PNG\r\n\x1a\nfake"
    words = Description(f"A graph named {EVIL}.", intro=("First.",), items=("s0: x.", "n0: sin."),
                        outro=("Last.",))
    out = figure_html(png, words, css_class="tapekit-view")
    tags = _Tags(out).tags
    assert [t for t, _ in tags] == ["figure", "img", "details", "summary", "p", "ol", "li", "li", "p"]
    figure, img = tags[0][1], tags[1][1]
    assert figure["class"] == "tapekit-figure tapekit-view"
    assert img["alt"] == f"A graph named {EVIL}."                # unescaped by the parser: text
    assert img["src"] == "data:image/png;base64," + base64.b64encode(png).decode()
    assert "<script>" not in out
    assert "open" not in tags[2][1]                              # closed: opened on request
    bare = figure_html(png, Description("Only a name."))
    assert "<details" not in bare and 'alt="Only a name."' in bare


@pytest.fixture
def plt():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    yield plt
    plt.close("all")


def test_figure_shows_a_plot_with_its_alt_text_and_closes_it(plt):
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1, 2], [2.3, 0.8, 0.1])
    shown = tk.display.figure(fig, "The loss falls  from 2.3 to 0.1.", ["It halves", "each step."])
    assert shown.alt == "The loss falls from 2.3 to 0.1."          # whitespace made one line
    assert shown.describe().intro == ("It halves", "each step.")
    bundle = shown._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/png", "text/plain"}
    assert bundle["text/plain"] == "The loss falls from 2.3 to 0.1.\nIt halves\neach step."
    assert f'src="data:image/png;base64,{bundle["image/png"]}"' in bundle["text/html"]
    assert 'alt="The loss falls from 2.3 to 0.1."' in bundle["text/html"]
    assert base64.b64decode(bundle["image/png"])[:4] == b"\x89PNG"
    assert not plt.get_fignums()              # closed: the inline backend shows it no second time
    assert set(shown._repr_mimebundle_(include=["text/html"])) == {"text/html"}


def test_the_same_figure_gives_the_same_bytes(plt):
    def draw():
        fig, ax = plt.subplots(figsize=(3, 2))
        ax.plot([0, 1, 2], [1, 4, 9], label="f")
        ax.legend()
        return tk.display.figure(fig, "f grows as x squared.").png
    first, second = draw(), draw()
    assert first == second and b"Software" not in first       # no version stamp


@pytest.mark.parametrize("alt", ["", "   ", None, 3])
def test_a_figure_needs_alt_text_that_says_something(plt, alt):
    fig, _ = plt.subplots()
    with pytest.raises(ValueError, match="alt must say what the figure shows"):
        tk.display.figure(fig, alt)
