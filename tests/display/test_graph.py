"""tapekit.display.graph: the picture's model (nodes, edges, the path from target to sources,
what is dimmed, where the path breaks), built from a tape."""
import numpy as np

import tapekit as tk
from tapekit.display import graph

from .tapes import small_tape


def test_model_nodes_ids_kinds_values_and_gradients(record):
    tape, x, c, w = small_tape()
    tape.gradient(w, x)
    m = graph.build(tape)
    assert [n.id for n in m.nodes] == ["s0", "s1", "n0", "n1", "n2", "n3", "n4", "n5", "n6"]
    kinds = {n.id: n.kind for n in m.nodes}
    assert kinds["s0"] == "variable" and kinds["s1"] == "constant" and kinds["n3"] == "stop_gradient"
    n0 = m.node("n0")
    assert (n0.label, n0.args, n0.shape, n0.dtype) == ("pow", ("s0", "2"), (), "float32")
    assert float(n0.value) == 9.0 and n0.grad.tolist() == 3.0          # dw/dy = sum(c) = 3
    assert m.node("n2").args == ("n1", "1.0")
    assert m.node("n6").grad.tolist() == 1.0 and m.has_grads
    edges = {(e.src, e.dst): e for e in m.edges}
    assert edges[("n2", "n3")].is_stop_gradient and not edges[("n2", "n3")].differentiable
    assert not edges[("s0", "n0")].is_stop_gradient


def test_model_shows_the_gradient_of_a_source(record):
    tape, x, c, w = small_tape()
    g = tape.gradient(w, x)
    assert graph.build(tape).node("s0").grad.tolist() == g.numpy().tolist()


def test_path_highlight_and_dimming(record):
    tape, x, c, w = small_tape()
    m = graph.build(tape, w, x)
    on = {n.id for n in m.nodes if n.on_path}
    assert on == {"s0", "n0", "n1", "n2", "n4", "n5", "n6"}       # not the stop_gradient n3
    assert m.node("n3").dimmed and m.node("s1").dimmed and not m.node("s0").dimmed
    assert m.node("n6").is_target and m.node("s0").is_source
    path_edges = {(e.src, e.dst) for e in m.edges if e.on_path}
    assert ("s0", "n0") in path_edges and ("n2", "n3") not in path_edges


def test_layer_weights_are_labelled_by_their_path(record):
    # Keras 3 names every Dense weight "kernel" or "bias"; two layers in one picture would
    # show two "kernel" boxes, so the picture labels a layer weight by its path.
    first, second = tk.layers.Dense(2, name="first"), tk.layers.Dense(1, name="second")
    w = tk.Variable([[1.0, 2.0]], name="w")
    with tk.GradientTape() as tape:
        y = tk.reduce_sum(second(first(tk.matmul(w, tk.ones((2, 3))))))
    sources = [first.kernel, first.bias, second.kernel, w]
    m = graph.build(tape, y, sources)
    labels = {n.label for n in m.nodes if n.kind == "variable"}
    assert {"first/kernel", "first/bias", "second/kernel", "w:0"} <= labels
    assert first.kernel.name == "kernel" and w.name == "w:0" and w.path == "w"
    assert repr(first.kernel).startswith("<tk.Variable 'first/kernel' shape=(3, 2)")


def test_watched_intermediate_and_unused_source(record):
    x = tk.constant(1.0)
    unused = tk.Variable(5.0, name="unused")
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
        tape.watch(y)
        z = y + 1.0
    m = graph.build(tape, z, [y, unused])
    assert m.node("s0").kind == "watched" and m.node("n0").note == "watched"
    assert m.node("s1").label == "unused:0" and m.node("s1").kind == "unwatched"
    assert m.node("s1").note == "no recorded op read it"
    assert m.node("n0").is_source and m.node("n0").on_path


def test_unwatched_variables_say_so_and_why(record):
    """Lesson 06 cell 9 called a trainable Variable "constant, source, not watched"."""
    x = tk.Variable(1.0)
    frozen = tk.Variable(1.0, trainable=False)
    with tk.GradientTape() as tape:
        s = tk.constant(np.sin(x.numpy()))
        y = s * 2.0 + frozen
    m = graph.build(tape, y, [x, frozen])
    assert (m.node("s0").kind, m.node("s0").note) == ("unwatched", "no recorded op read it")
    assert "variable, not watched" in tk.show(tape, y, [x, frozen]).source
    assert "constant, source" not in tk.show(tape, y, [x, frozen]).source
    with tk.GradientTape(watch_accessed_variables=False) as tape:
        y = x * 2.0
    assert graph.build(tape, y, x).node("s0").note == "watch_accessed_variables=False"
    w = tk.Variable(1.0)
    with tk.GradientTape() as tape:
        y = w * 2.0
    assert graph.build(tape, y, w).node("s0").kind == "variable"
    assert "variable, watched" in tk.show(tape, y, w).source


def test_a_huge_tape_is_drawn_as_its_ends_the_break_and_boxes(record):
    w = tk.Variable(2.0)
    with tk.GradientTape(persistent=True) as tape:
        y = w
        for i in range(graph.HUGE_TAPE + 5000):
            y = y * 1.0
            if i == 12345:
                y = tk.stop_gradient(y)
    view = tape.explain(y, w).view()
    m = view.model
    assert m.node("n12346").broken == "stop_gradient"                # the break is shown
    # The ends are summarised too (90 records drawn one by one took dot seconds), and the
    # records left out in between are named by what repeats there
    assert [(n.id, n.label) for n in m.nodes] == [
        ("s0", "Variable:0"), ("b0", "multiply x45"), ("b45", "multiply x12301"),
        ("n12346", "stop_gradient"), ("b12347", "multiply x12609"), ("b24956", "multiply x45")]
    covered = sorted(r for n in m.nodes for r in n.records)
    assert covered == list(range(len(tape._records)))    # each record in exactly one node
    by_id = {n.id: n for n in m.nodes}
    assert all(e.src in by_id and e.dst in by_id for e in m.edges)   # no edge to a hidden node
    assert ("b45", "n12346") in {(e.src, e.dst) for e in m.edges}
    assert any(note.startswith("Summarised: 25002 nodes are more than max_nodes=100")
               for note in m.notes)
    assert "records in between are the boxes" in view.text
