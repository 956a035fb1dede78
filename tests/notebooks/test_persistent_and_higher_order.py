"""Lesson 05's claims that need tapekit's internals to check (the tape's records, an
observer of the backward walk, the BackpropModel's steps); the lesson's own check cells use
only public API. Each test re-states the lesson's computation."""
import tapekit as tk


class _CountSteps(tk.TapeObserver):
    def __init__(self):
        self.steps = 0

    def backward_step(self, tape, record, g, sent, grads):
        self.steps += 1


def test_one_call_with_a_list_is_one_backward_pass():
    # "pass them all in one call, which does less work (one backward pass instead of one
    # per source)": z = x² + y²; one pass visits each of the 3 records once, two passes
    # visit the shared add twice (each walk skips the square that does not lead to its
    # source): 2 + 2 steps.
    x = tk.Variable(3.0, name="x")
    y = tk.Variable(4.0, name="y")
    counter = _CountSteps()
    with tk.GradientTape(persistent=True) as tape:
        tape.add_observer(counter)
        z = x ** 2 + y ** 2
    separate = [float(tape.gradient(z, x)), float(tape.gradient(z, y))]
    steps_separate, counter.steps = counter.steps, 0
    together = [float(g) for g in tape.gradient(z, [x, y])]
    assert separate == together == [6.0, 8.0]
    assert counter.steps == len(tape.records) == 3 and steps_separate == 4


def test_the_graph_of_a_gradient():
    # "The graph of a gradient", y = x³ at x = 1.5: two forward multiplies (n0 = x*x,
    # n1 = n0*x), then the backward pass from the seed s1 = 1.0: four multiplies and two adds
    # summing three contributions, one from each place x was used. x's gradient is the
    # second derivative 9, and the multiply that made y (n1) gets no gradient.
    x = tk.Variable(1.5, name="x")
    with tk.display.option_context(record=True):
        with tk.GradientTape(persistent=True) as outer:
            with tk.GradientTape() as inner:
                y = x * x * x
            dy_dx = inner.gradient(y, x)
    assert float(dy_dx) == 6.75
    assert [r.op.name for r in outer.records] == ["multiply"] * 6 + ["add"] * 2
    adds = outer.records[6:]
    assert adds[1].in_tids[0] == adds[0].out_tid            # n7 = (n3 + n4) + n5
    walk = tk.widgets.BackpropModel(outer, dy_dx, x)
    assert [float(g) for g in walk.gradients()] == [9.0]
    reached = {s.node for s in walk.steps} | {c.node for s in walk.steps for c in s.contributions}
    assert "n1" not in reached and {"n0", "n2", "n3", "n4", "n5", "n6", "n7", "s0"} <= reached
    # s1 is the seed: the constant 1.0 the inner backward pass starts from
    # (no record made it; the first two backward multiplies read it)
    first_back = outer.records[2]
    seed_tid = first_back.in_tids[0]
    assert seed_tid not in {r.out_tid for r in outer.records} and seed_tid != x_tid(outer)
    assert outer.records[3].in_tids[0] == seed_tid and float(first_back.inputs[0]) == 1.0


def x_tid(tape):
    return tape.records[0].in_tids[0]          # n0 = x * x reads x twice
