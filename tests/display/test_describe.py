"""tapekit.display.describe: the tape's picture in words (issue 46): the nodes in the order
the forward pass made them, each with its op, inputs, value and gradient as the picture prints
them, what is highlighted, dimmed or broken, long tapes summarised, names escaped in HTML."""
import pytest

import tapekit as tk
from tapekit.display.describe import MAX_ITEMS, Description, describe_model

from .tapes import EVIL, evil_tape, small_tape

pytestmark = pytest.mark.usefixtures("record")   # display recording on for every test


def test_every_node_in_forward_order_with_op_inputs_and_values():
    tape, x, c, w = small_tape()
    d = tape.describe()
    assert isinstance(d, Description) and str(d) == repr(d)
    assert d.name == ("Graph of a GradientTape (persistent): 7 ops (pow, multiply, add, "
                      "stop_gradient, multiply, add and 1 more) recorded from 1 watched tensor (x:0).")
    ids = [item.split(":")[0] for item in d.items]
    assert ids == ["s0", "s1", "n0", "n1", "n2", "n3", "n4", "n5", "n6"]   # leaves, then records
    assert d.items[0] == "s0: the variable x:0, watched; scalar, float32; value 3.0."
    assert d.items[1] == "s1: a constant; shape (2,), float32; value [1.0 2.0]."
    assert d.items[2] == "n0: pow of s0 (x:0) and 2; scalar, float32; value 9.0."      # 3 ** 2
    assert d.items[3].startswith("n1: multiply of n0 (pow) and s1 (constant); shape (2,)")
    assert "value [9.0 18.0]" in d.items[3]                                           # 9 * [1 2]
    assert "which passes the value forward and no gradient back" in d.items[5]
    assert d.items[8] == "n6: reduce_sum of n5 (add); scalar, float32; value 116.0."   # 40 + 76
    assert not any("gradient" in line.lower() for line in d.lines if "stop_gradient" not in line)


def test_gradients_once_gradient_has_run_and_the_highlighted_path():
    tape, x, c, w = small_tape()
    tape.gradient(w, x)
    d = tape.describe(w, x)
    assert d.name.endswith("; the target is n6 (reduce_sum).")
    assert d.intro[0].startswith("Gradients shown: those of the last gradient() call")
    # d w / d x = sum(z) + sum(2 x c) = 29 + 18 = 47 (z = x^2 c + 1 is held by stop_gradient
    # in its first use); d w / d n0 = sum(c) = 3
    assert d.items[0] == "s0: the variable x:0, watched; scalar, float32; value 3.0; gradient 47.0; a source."
    assert d.items[2].endswith("value 9.0; gradient 3.0.")
    assert d.items[8].endswith("value 116.0; gradient 1.0; the target.")
    assert d.outro == ("Highlighted with thick red lines: the gradient path from the target n6 to "
                       "s0, through s0, n0, n1, n2, n4, n5 and n6.",
                       "Drawn in grey, off every gradient path: s1 and n3.")
    # the words match the picture's numbers: the same text as the DOT label prints
    src = tk.show(tape, w, x).source
    assert "grad 47.0" in src and "value 116.0" in src


def test_where_the_path_breaks_and_a_marked_node():
    x = tk.Variable(2.0, name="x")
    with tk.GradientTape(persistent=True) as tape:
        y = tk.stop_gradient(x) * 2.0
    d = tape.explain(y, x).describe()
    assert d.intro[0].startswith("The path from s0 (Variable 'x:0') to n1 (multiply) passes through n0")
    assert "the gradient path breaks here (stop_gradient)" in d.items[1]
    assert "No gradient path joins the target n1 to s0." in d.outro
    assert any(line.startswith("Marked with a double border and the words 'path breaks': n0")
               for line in d.outro)
    marked = describe_model(tk.show(tape, y, x).model, highlight="n1")
    assert marked.items[2].endswith("the target and marked 'current step'.")
    assert "Marked with a thick orange border and the words 'current step': n1 (multiply)." in marked.outro


def test_a_long_tape_is_summarised_as_its_picture_and_the_list_is_bounded():
    x = tk.Variable(0.5, name="x")
    with tk.GradientTape() as tape:
        y = x
        for _ in range(400):
            y = tk.sin(y)
    d = tape.describe(y, x)                           # max_nodes=100, as the picture
    assert "sin x400" in d.name
    assert any(line.startswith("Note: Summarised:") for line in d.outro)
    assert len(d.items) <= 100
    full = tape.describe(y, x, max_nodes=None)        # every record: the list stops at MAX_ITEMS
    assert len(full.items) == MAX_ITEMS + 1
    assert full.items[-1] == (f"... and {401 - MAX_ITEMS} more nodes, not listed here (the last "
                              f"is n399, sin).")


def test_names_are_text_and_escaped_in_html():
    tape, y, x = evil_tape()
    d = tape.describe(y, x)
    assert EVIL + ":0" in str(d)                       # the name as it is, in the text
    html = d.html()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;:0" in html
    assert html.count("<li>") == len(d.items)


def test_nothing_recorded():
    x = tk.Variable(1.0)
    with tk.GradientTape() as tape:
        pass
    d = tape.describe()
    assert d.name == "Graph of a GradientTape: nothing was recorded." and d.items == ()
    assert "Nothing was recorded" in str(d)
