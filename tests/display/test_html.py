"""tapekit.display.html: GraphModel -> the plain-text table (what a terminal and nbval read) and
the HTML table (what a notebook shows without Graphviz)."""
import pytest

import tapekit as tk
from tapekit.display import html

from .tapes import small_tape

pytestmark = pytest.mark.usefixtures("record")   # display recording on for every test


def test_text_table(record):
    tape, x, c, w = small_tape()
    tape.gradient(w, x)
    text = tk.show(tape, w, x).text
    lines = text.splitlines()
    assert lines[0] == "GradientTape (persistent): 7 records, 1 watched; gradients of the last gradient() call"
    assert lines[1].split() == ["node", "kind", "op", "/", "name", "inputs", "shape", "dtype",
                                "value", "gradient", "note"]
    row = next(line for line in lines if line.startswith("* n0 "))
    assert row.split() == ["*", "n0", "op", "pow", "s0,", "2", "()", "float32", "9.0", "3.0"]
    assert "0x" not in text and "object at" not in text
    assert repr(tk.show(tape)) == tk.show(tape).text


def test_html_table(record):
    tape, x, c, w = small_tape()
    html = tk.show(tape, w, x).to_html("install Graphviz")
    assert html.startswith('<div class="tapekit-tape"') and html.endswith("</div>")
    assert "<td" in html and "pow" in html and "install Graphviz" in html


def test_empty_tape_says_what_to_do():
    tape = tk.GradientTape()
    view = tk.show(tape)
    assert "Nothing was recorded" in view.text and "empty" in view.source


def test_values_and_precision_options_change_the_rows():
    x = tk.Variable(2.0, name="x")
    with tk.GradientTape() as tape:
        y = tk.sin(x) * x                      # sin(2) = 0.9092974...
    model = tk.display.build(tape, y, x)
    assert [r[6] for r in html.rows(model)] == ["2.0", "0.9093", "1.8186"]
    assert [r[6] for r in html.rows(model, precision=2)] == ["2.0", "0.91", "1.82"]
    assert [r[6] for r in html.rows(model, show_values=False)] == ["", "", ""]
    assert "0.9093" not in html.to_text(model, show_values=False)
    assert "0.909297" in html.to_html(model, precision=6)


def test_the_path_column_shows_only_with_a_target():
    x = tk.Variable(2.0, name="x")
    with tk.GradientTape() as tape:
        y = tk.stop_gradient(x * 3.0) * x
    marked = html.to_text(tk.display.build(tape, y, x, breaks={"n1": "stop_gradient"}))
    marks = {line[2:].split()[0]: line[0] for line in marked.splitlines()[2:6]}
    assert marks == {"s0": "*", "n0": " ", "n1": "!", "n2": "*"}   # n0 only feeds the break
    assert marked.splitlines()[-1].startswith("(* on a gradient path")
    plain = html.to_text(tk.display.build(tape))
    assert "(* on a gradient path" not in plain
    assert plain.splitlines()[1].split()[0] == "node"      # no mark column before the header


def test_the_message_above_the_html_table_is_escaped():
    x = tk.Variable(2.0, name="x")
    with tk.GradientTape() as tape:
        x * x
    out = html.to_html(tk.display.build(tape), message="install <dot> & retry")
    assert '<p style="color:#8a6d00">install &lt;dot&gt; &amp; retry</p>' in out
    assert out.count("<tr") == 3                          # the header and two nodes


def test_the_title_counts_one_record_in_the_singular():
    x = tk.Variable(2.0)
    with tk.GradientTape() as tape:
        y = x * x
    assert tk.display.to_text(tk.display.build(tape, y, [x])).splitlines()[0] == "GradientTape: 1 record, 1 watched"
    assert repr(tape) == "<GradientTape (1 record, 1 watched)>"
