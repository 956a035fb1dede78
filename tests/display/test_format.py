"""tapekit.display.format: numbers as short text, and the escaping of every user string for
HTML, Graphviz HTML-like labels and quoted Graphviz attributes."""
import graphviz
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tapekit as tk
from tapekit.display import format as fmt

from .tapes import EVIL, evil_tape


def test_user_strings_are_escaped_in_dot_html_and_text(record):
    tape, y, x = evil_tape()
    view = tk.show(tape, y, x)
    for out in (view.source, view.to_html()):
        assert EVIL not in out and "<b>bold" not in out
        assert "&lt;script&gt;alert(1)&lt;/script&gt;:0" in out
        assert "&quot;&amp;&#x27;:0" in out
    assert EVIL + ":0" in view.text and "custom_gradient(<b>bold</b>)" in view.text  # as is
    small = tk.show(tape, max_nodes=1)                                  # the scope: one box
    assert "<i>scope" not in small.source and "&lt;i&gt;scope&lt;/i&gt;" in small.source
    assert "<i>scope" not in small.to_html() and "&lt;i&gt;scope" in small.to_html()


@pytest.mark.parametrize("value, text", [
    (3.0, "3.0"), (0.123456, "0.1235"), (1.5e-7, "1.5e-07"), (2.5e7, "2.5e+07"), (True, "True"),
    (np.int32(7), "7"), (float("nan"), "nan"), (-np.inf, "-inf"), (0.0, "0.0")])
def test_number(value, text):
    assert fmt.number(value) == text


@given(st.floats(1e-3, 1e6, exclude_max=True), st.booleans())
def test_number_keeps_four_significant_digits(x, negative):
    """A number under 0.1 keeps as many significant digits as one above it, so the stepper's
    'g x local = sent' multiplies out by hand (a fixed four decimals showed
    0.0099 x -2.0 = -0.0197)."""
    x = -x if negative else x
    assert abs(float(fmt.number(x)) - x) <= 0.5e-3 * abs(x) * (1 + 1e-9)


def test_a_chain_rule_product_multiplies_out_to_the_digits_shown():
    g, local = 0.0098663, -2.0
    assert (fmt.number(g), fmt.number(local), fmt.number(g * local)) == ("0.009866", "-2.0", "-0.01973")


def test_summary_lists_small_arrays_and_summarises_large_ones():
    assert fmt.summary(None) == ""
    assert fmt.summary(np.array([[1.0, 2.5], [3.0, 4.0]])) == "[[1.0 2.5] [3.0 4.0]]"
    assert fmt.summary(np.arange(10.0)) == "min 0.0 mean 4.5 max 9.0"
    assert fmt.summary(np.array([1.0, np.nan, 3.0, 5.0, np.inf, 7.0, 9.0])) == \
        "min 1.0 mean 5.0 max 9.0 (2 nan/inf)"
    assert fmt.summary(np.array([True, False, True] * 3)) == "6 True / 3 False"
    assert fmt.summary(np.full(8, np.nan)) == "all 8 values nan/inf"
    assert fmt.summary(np.array(1 / 3), precision=2) == "0.33"


def test_clip_plain_and_shape_text():
    assert fmt.clip("abcdef", 6) == "abcdef" and fmt.clip("abcdefg", 6) == "abc..."
    assert fmt.plain("a\nb\x00c\u2028") == "a\\x0ab\\x00c\\u2028"    # one name, one line
    assert fmt.shape_text((2, np.int64(3))) == "(2, 3)" and fmt.shape_text(()) == "()"
    assert fmt.shape_text(None) == ""


def test_escaping_for_html_labels_and_quoted_attributes():
    assert fmt.html_text("<b a='1'>&") == "&lt;b a=&#x27;1&#x27;&gt;&amp;"
    assert fmt.dot_text("a\\N<") == "a\\\\N&lt;"           # Graphviz would expand \N
    quoted = fmt.dot_quoted('say "\\N" & \\x')
    assert isinstance(quoted, graphviz.quoting.NoHtml)      # graphviz always quotes it
    assert quoted == 'say "\\\\\u200bN" &amp; \\\\x'         # \N broken by a zero-width space
