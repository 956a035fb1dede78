"""tapekit.display.summary: a large graph collapsed to about max_nodes nodes (name scopes and
repeated op sequences become boxes; the rest is cut in the middle), and the notes say so."""
import numpy as np
import pytest

import tapekit as tk

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
