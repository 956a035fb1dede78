"""tapekit.display.summary: a large graph collapsed to about max_nodes nodes (name scopes and
repeated op sequences become boxes; the rest is cut in the middle), and the notes say so."""
import numpy as np
import pytest

import tapekit as tk

from .tapes import wide_tape

pytestmark = pytest.mark.usefixtures("record")   # display recording on for every test


def test_5000_op_tape_is_summarised(record):
    w = tk.Variable(np.full(4, 0.5, np.float32), name="w")
    h = tk.constant(np.ones(4, np.float32))
    with tk.GradientTape() as tape:
        for _ in range(2500):
            h = h * w + 0.1
        loss = tk.reduce_sum(h)
    tape.gradient(loss, w)
    view = tk.show(tape, loss, w)
    assert len(view.model.nodes) <= 100 and view.model.summarised
    assert "multiply -&gt; add x2500" in view.source and "multiply -> add x2500" in view.text
    assert any(note.startswith("Summarised: 5003 nodes") for note in view.model.notes)
    full = tk.show(tape, max_nodes=None).model
    assert len(full.nodes) == 5003                      # 5001 records, w and the constant h


def test_irregular_tape_is_cut_to_max_nodes(record):
    x = tk.Variable([0.3, 0.7])
    fns = [tk.sin, tk.cos, tk.tanh, tk.sigmoid, tk.abs]
    with tk.GradientTape() as tape:
        h = x
        for k in np.random.default_rng(0).integers(5, size=600):
            h = fns[k](h)
    m = tk.show(tape, h, x, max_nodes=30).model
    assert len(m.nodes) <= 31 and any(n.label.startswith("... ") for n in m.nodes)
    assert m.node("s0").on_path and any(n.is_target for n in m.nodes)


def test_name_scopes_collapse_into_boxes(record):
    x = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        h = x
        for k in range(40):
            with tk.display.name_scope("layer"):
                h = tk.tanh(h * 0.5 + 1.0)
    m = tk.show(tape, max_nodes=10).model
    blocks = [n for n in m.nodes if n.kind == "block"]
    assert [b.label for b in blocks] == ["layer x40"] and len(blocks[0].records) == 120


def test_each_scope_is_one_box_joined_in_order_and_the_notes_stop_at_eight():
    x = tk.Variable([1.0, 2.0])
    with tk.GradientTape() as tape:
        h = x
        for k in range(12):                    # 12 different scopes: no repetition to fold
            with tk.display.name_scope(f"block{k}"):
                h = tk.tanh(h * 0.5 + 1.0)
    m = tk.show(tape, max_nodes=20).model
    assert [n.label for n in m.nodes] == ["Variable:0"] + [f"block{k}" for k in range(12)]
    assert [len(n.records) for n in m.nodes[1:]] == [3] * 12
    boxes = [n.id for n in m.nodes[1:]]
    assert {(e.src, e.dst) for e in m.edges} == {("s0", "b0")} | set(zip(boxes, boxes[1:]))
    assert m.notes[0].startswith("Summarised: 37 nodes are more than max_nodes=20; 24 of them")
    assert m.notes[1:3] == ["b0: block0 (3 records, n0-n2)", "b3: block1 (3 records, n3-n5)"]
    assert len(m.notes) == 1 + 8 + 1 and m.notes[-1] == "... and 4 more boxes"
    assert not tk.show(tape, max_nodes=None).model.summarised


@pytest.mark.parametrize("join", ["add_n", "stack", "concat"])
def test_an_op_over_5000_variables_draws_its_inputs_as_one_box(join):
    # add_n over 5,000 Variables was not summarised: 5,001 nodes, dot ran 25 s for 6.7 MB of SVG
    tape, loss, xs = wide_tape(5000, join)
    m = tk.show(tape, loss, xs).model
    assert m.summarised and len(m.nodes) <= 100
    (box,) = [n for n in m.nodes if n.id.startswith("g")]
    assert box.id == "g0" and box.label == "5,000 inputs: v0:0 ... v4999:0"
    assert box.kind == "block" and box.members == tuple(f"s{k}" for k in range(5000))
    assert box.is_source and box.on_path and box.shape == (2,)
    assert "g0: 5,000 inputs: v0:0 ... v4999:0 (5,000 leaves, s0 ... s4999)" in m.notes
    assert {(e.src, e.dst) for e in m.edges if e.src == "g0"} == {("g0", "n0")}
    view = tk.show(tape, loss, xs)
    assert len(view.source) < 20_000                         # was 6.7 MB of SVG from 4 MB of DOT
    assert "(5,000 inputs: s0 ... s4999)" in view.source    # the wide op's arguments, summarised
    assert "5,000 inputs: s0 ... s4999" in view.to_html() and len(view.to_html()) < 20_000


def test_a_leaf_where_the_path_breaks_stays_out_of_the_box():
    tape, loss, xs = wide_tape(300)
    m = tk.show(tape, loss, xs, breaks={"s7": "stop_gradient"}).model
    assert m.node("s7").broken == "stop_gradient" and m.node("s7").kind == "variable"
    box = next(n for n in m.nodes if n.kind == "block" and n.members)
    assert "s7" not in box.members and len(box.members) == 299
    assert len(tk.show(tape, loss, xs, max_nodes=None).model.nodes) == 303   # all of them


def test_a_gap_in_a_huge_tape_is_named_by_what_repeats_there():
    from tapekit.display.summary import periodic_label
    assert periodic_label(["multiply", "add", "tanh"] * 1000 + ["multiply"]) == (
        "multiply -> add -> tanh x1000 + 1 op")
    assert periodic_label(["sin", "cos", "tanh", "sin"]) is None
