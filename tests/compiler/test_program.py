"""Program (program.py): a trace made runnable. Its source is printable; the compiled program
on NumPy arrays gives eager's bits, never writes into an array someone else can see, runs
again without donation when the shapes differ from the trace's, and holds the locks an eager
step holds; optimizer steps and an outer tape keep eager's bits though repeated steps run
once. A replay that stops at a guard after a write, a draw or a print undoes them (a
transaction): each call writes, draws and prints exactly as the eager call does. A replay on
tensors is recorded by outer tapes and accumulators as they record eager code.
"""
import threading

import numpy as np
import pytest

import tapekit as tk
from tapekit import optimizers


def test_the_program_is_printable():
    v = tk.Variable(1.0, name="v")

    @tk.function
    def f(x):
        v.assign_add(x)
        return v * 2.0
    f(tk.constant(1.0))
    ((program,),) = f.programs.values()   # one signature, one path
    # Straight-line Python, one line per step; the update is one step under v's lock; the
    # Python number 2.0 beside a float32 array is a float32 constant (codegen.typed_number).
    assert [line.split("#")[0].rstrip() for line in str(program).splitlines()] == [
        "def f(s0):", "    assign_add(v, s0)", "    del s0", "    s1 = v._value",
        "    s3 = multiply(s1, f32_2)", "    del s1", "    return s3"]


# --- the replay on NumPy arrays ---------------------------------------------------------------

def _donations(f):
    return sum(p.code.count("written into") for ps in f.programs.values() for p in ps)


def test_a_tape_inside_gives_the_eager_gradients_bitwise():
    w = tk.Variable(np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32))

    def grads(x, y):
        with tk.GradientTape() as tape:
            loss = tk.reduce_mean(tk.square(tk.tanh(x @ w) - y)) + tk.reduce_sum(tk.exp(-w * w))
        return loss, tape.gradient(loss, w)
    traced = tk.function(grads)
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = tk.constant(rng.normal(size=(5, 4)).astype(np.float32))
        y = tk.constant(rng.normal(size=(5, 3)).astype(np.float32))
        (l1, g1), (l2, g2) = grads(x, y), traced(x, y)
        np.testing.assert_array_equal(l1.numpy(), l2.numpy())
        np.testing.assert_array_equal(g1.numpy(), g2.numpy())
    assert traced.trace_count == 1


def test_a_replayed_update_never_changes_an_array_someone_holds():
    # (Fused in-place updates were removed: under 1% on the MLP step; docs/PERFORMANCE.md.
    # The new value may go into an array this call made, d * 0.5's, never into v's own.)
    v = tk.Variable(np.ones(1000, np.float32))

    @tk.function
    def step(d):
        v.assign_sub(d * 0.5)
    d = tk.constant(np.full(1000, 2.0, np.float32))
    step(d)                                   # trace
    step(d)                                   # replay: v = v - d * 0.5
    assert v.numpy()[0] == -1.0
    held = np.asarray(v)                      # the user keeps the current array ...
    step(d)
    assert held[0] == -1.0                    # ... which keeps its numbers,
    assert v.numpy()[0] == -2.0 and v._value is not held   # and v gets a new array
    ((program,),) = step.programs.values()
    assert "assign_sub(Variable, s" in str(program)
    assert "written into" in str(program)     # the new value went into d * 0.5's array


def test_a_replay_never_overwrites_a_buffer_still_held():
    # The numbers must equal eager ones, and a buffer the caller gets back, an argument or
    # one read again later must never be overwritten. (Buffer donation, which wrote results
    # into dead inputs, was removed: about 2% on the MLP step; docs/PERFORMANCE.md.)
    rng = np.random.default_rng(5)
    w = tk.Variable(rng.standard_normal((64, 128)).astype(np.float32))
    b = tk.Variable(rng.standard_normal(128).astype(np.float32))

    def layer(x):
        h = tk.matmul(x, w) + b
        return tk.nn.relu(h), h * 2.0          # h is read again after the add: keep it

    traced = tk.function(layer)
    x = tk.constant(rng.standard_normal((64, 64)).astype(np.float32))
    x_before = x.numpy()
    for _ in range(3):                          # trace, then replays
        got, twice = traced(x)
        want, want_twice = layer(x)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(twice.numpy(), want_twice.numpy())
    np.testing.assert_array_equal(x.numpy(), x_before)


def test_a_replay_never_writes_into_a_buffer_a_view_still_reads():
    w = tk.Variable(np.random.default_rng(6).standard_normal((64, 128)).astype(np.float32))

    def f(x):
        a = tk.matmul(x, w)
        view = tk.reshape(a, (128, 64))      # shares a's buffer
        b = a + 1.0                          # the last read of a itself ...
        return b, view * 2.0                 # ... but the view is read after it

    traced = tk.function(f)
    x = tk.constant(np.ones((64, 64), np.float32))
    for _ in range(3):
        (b, v), (wb, wv) = traced(x), f(x)
        np.testing.assert_array_equal(b.numpy(), wb.numpy())
        np.testing.assert_array_equal(v.numpy(), wv.numpy())


def test_a_step_writes_into_a_dead_input_only_when_nothing_else_can_see_it():
    # y is read by a reshape (its result may be a view of y) and returned: never written into.
    # Only the array made by the first multiply and read by nothing but ufuncs is reused.
    def g(x):
        y = tk.sin(x * 2.0)
        z = tk.reshape(y, (2, 2))
        return tk.tanh(y) + 1.0, z, x
    f = tk.function(g)
    x = tk.constant([0.1, 0.2, 0.3, 0.4])
    out = f(x)
    for _ in range(2):
        again = f(x)
        for a, b in zip(again, g(x)):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert _donations(f) == 2   # sin into x * 2.0's array; add into tanh's
    np.testing.assert_array_equal(out[1].numpy(), np.sin(np.float32([0.2, 0.4, 0.6, 0.8])).reshape(2, 2))
    np.testing.assert_array_equal(x.numpy(), np.float32([0.1, 0.2, 0.3, 0.4]))   # the argument untouched
    arrays = [np.asarray(t) for t in again] + [np.asarray(t) for t in out]
    for i, a in enumerate(arrays):        # every call's results are arrays of their own
        for b in arrays[i + 1:]:
            assert a is b or not np.shares_memory(a, b) or (a.base is b or b.base is a)


def test_programs_that_write_variables_donate_only_into_arrays_this_call_made():
    # sin writes into x * 2.0's array, add into sin's, and v is assigned that array: it was
    # made by this call and nothing else reads it. v * 3.0 reads v's array and makes a new one,
    # which exp and the subtraction reuse: v's array itself is never written into.
    v = tk.Variable([1.0, 2.0])

    @tk.function
    def f(x):
        v.assign(tk.sin(x * 2.0) + 1.0)
        return tk.exp(v * 3.0) - 1.0
    x = tk.constant([0.5, 0.25])
    want_v = np.sin(np.float32([1.0, 0.5])) + np.float32(1)
    want = np.exp(want_v * np.float32(3)) - np.float32(1)
    earlier = []
    for _ in range(3):
        got = f(x).numpy()
        np.testing.assert_array_equal(v.numpy(), want_v)
        np.testing.assert_array_equal(got, want)
        earlier.append((np.asarray(v), got))
        for held_v, held_out in earlier:     # arrays a user kept from earlier calls
            np.testing.assert_array_equal(held_v, want_v)
            np.testing.assert_array_equal(held_out, want)
            assert not np.shares_memory(held_out, np.asarray(v))
    assert _donations(f) == 4
    np.testing.assert_array_equal(x.numpy(), np.float32([0.5, 0.25]))


def test_an_update_writes_into_its_delta_only_when_nobody_else_can_see_it():
    # An update writes the new value into the delta's array when this call made it and
    # nothing else reads it (an SGD step's lr * g); a delta that is returned, an argument,
    # another variable's value or assigned to a variable keeps its numbers.
    a, b, c, d, m = (tk.Variable(np.full(4, 10.0, np.float32)) for _ in range(5))
    w = tk.Variable(np.full(4, 3.0, np.float32))

    @tk.function
    def step(g):
        a.assign_sub(g * 0.5)              # written into: g * 0.5 is this call's, read by nobody else
        shown = g * 0.25
        b.assign_sub(shown)                # returned below: never written into
        c.assign_add(g)                    # the argument
        d.assign_add(w)                    # another variable's value
        both = g * 2.0
        m.assign(both)                     # a variable holds it ...
        d.assign_sub(both)                 # ... so this update makes a new array
        return shown
    gv = np.float32([1.0, 2.0, 3.0, 4.0])
    g = tk.constant(gv)
    outs, ms = [], []
    for n in range(1, 4):
        outs.append(step(g))
        ms.append(np.asarray(m))
        np.testing.assert_array_equal(a.numpy(), 10 - n * (gv * np.float32(0.5)))
        np.testing.assert_array_equal(b.numpy(), 10 - n * (gv * np.float32(0.25)))
        np.testing.assert_array_equal(c.numpy(), 10 + n * gv)
        np.testing.assert_array_equal(w.numpy(), np.full(4, 3.0, np.float32))
        np.testing.assert_array_equal(g.numpy(), gv)
        for out, held_m in zip(outs, ms):
            np.testing.assert_array_equal(out.numpy(), gv * np.float32(0.25))
            np.testing.assert_array_equal(held_m, gv * np.float32(2))
    ((program,),) = step.programs.values()
    donated = [line for line in str(program).splitlines() if "written into" in line]
    assert len(donated) == 1 and "assign_sub(" in donated[0], str(program)


def test_a_donating_step_that_writes_is_undone_before_it_runs_again_without_donation():
    # Traced with shapes (3,): x * 2.0 + y writes into x * 2.0's array. Given an x of shape
    # (1,) at a replay, that array is too small: NumPy refuses the write after count was
    # incremented. The replay undoes the increment and runs without donation: every write
    # happens once, as in eager code.
    count = tk.Variable(0.0)
    v = tk.Variable(np.zeros(3, np.float32))

    @tk.function
    def f(x, y):
        count.assign_add(1.0)
        v.assign_add(tk.sin(x * 2.0 + y))
    three = np.float32([1.0, 2.0, 3.0])
    f(three, three)
    f(three, three)
    ((program,),) = f.programs.values()
    assert program.undo and _donations(f) >= 1
    assert count.numpy() == 2.0
    before = v.numpy()
    program.run_fast([np.float32([0.5]), three])
    assert count.numpy() == 3.0
    np.testing.assert_array_equal(v.numpy(), before + np.sin(np.float32([1.0]) + three))


def test_a_program_that_calls_a_py_function_and_writes_never_donates():
    # A transaction cannot undo what a py_function's Python did: such a program never
    # donates, so it never needs to run twice.
    calls = []
    v = tk.Variable(np.zeros(3, np.float32))

    def seen(x):
        calls.append(1)
        return x

    @tk.function
    def f(x):
        y = tk.py_function(seen, [x * 2.0], tk.float32)
        v.assign_add(tk.sin(x * 2.0) + y)
    x = np.float32([1.0, 2.0, 3.0])
    for _ in range(3):
        f(x)
    ((program,),) = f.programs.values()
    assert _donations(f) == 0 and not program.undo
    assert len(calls) == 3


def test_a_donating_replay_with_other_shapes_runs_again_without_donation():
    # Traced with shapes (1,) and (1,): add writes into x * 2's array. Programs are kept per
    # shape, but should a value's shape differ from the trace's at a replay (a data-dependent
    # shape), that array may be too small for the result: NumPy refuses the write and the
    # program runs again with new arrays, giving eager's numbers or eager's error.
    f = tk.function(lambda x, y: tk.sin(x * 2.0 + y))
    one = np.float32([0.5])
    np.testing.assert_array_equal(f(one, one).numpy(), np.sin(np.float32([1.5])))
    ((program,),) = f.programs.values()
    assert _donations(f) == 2
    three = np.float32([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(program.run_fast([one, three]).numpy(), np.sin(np.float32([2.0, 3.0, 4.0])))
    np.testing.assert_array_equal(program.run_fast([three, one]).numpy(), np.sin(np.float32([2.5, 4.5, 6.5])))
    with pytest.raises(ValueError, match="could not be broadcast together with shapes"):
        program.run_fast([np.float32([1.0, 2.0]), three])


def test_a_failed_guard_in_a_donating_program_traces_the_other_branch():
    @tk.function
    def f(x):
        y = tk.sin(x * 2.0)
        if tk.reduce_sum(y) > 0:
            return tk.tanh(y) * 3.0
        return tk.cos(y) * 3.0
    pos, neg = tk.constant([0.5, 0.25]), tk.constant([-0.5, -0.25])
    s = np.sin(np.float32([1.0, 0.5]))
    np.testing.assert_allclose(f(pos).numpy(), np.tanh(s) * 3, rtol=1e-6)
    np.testing.assert_allclose(f(neg).numpy(), np.cos(-s) * 3, rtol=1e-6)
    np.testing.assert_allclose(f(pos).numpy(), np.tanh(s) * 3, rtol=1e-6)
    assert _donations(f) > 0


def test_a_training_step_from_8_threads_makes_every_update():
    w = tk.Variable(0.0)
    count = tk.Variable(0, dtype=tk.int64)
    opt = optimizers.SGD(0.5)

    @tk.function
    def step(x):
        with tk.GradientTape() as tape:
            loss = w * x                  # d loss / dw = x = 1: each step moves w by -0.5
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        count.assign_add(1)
        return loss
    step(tk.constant(1.0))
    step(tk.constant(1.0))                # traced, checked, then replayed below
    w.assign(0.0)
    count.assign(0)
    start = int(opt.iterations)

    def worker():
        for _ in range(100):
            step(tk.constant(1.0))
    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int(count) == 800 and int(opt.iterations) - start == 800
    assert float(w) == -400.0


def _optimizer_steps(make_optimizer, traced, n=4):
    rng = np.random.default_rng(3)
    ws = [tk.Variable(rng.standard_normal(shape).astype(np.float32), name=f"w{k}")
          for k, shape in enumerate([(4, 3), (3,), (3, 2)])]
    opt = make_optimizer()

    def step(x):
        with tk.GradientTape() as tape:
            loss = tk.reduce_sum(tk.square(tk.tanh(x @ ws[0] + ws[1]) @ ws[2]))
        opt.apply_gradients(zip(tape.gradient(loss, ws), ws))
        return loss
    fn = tk.function(step) if traced else step
    losses = [fn(tk.constant(rng.standard_normal((5, 4)).astype(np.float32))).numpy()
              for _ in range(n)]
    return losses, [w.numpy() for w in ws], fn


@pytest.mark.parametrize("make", [lambda: optimizers.SGD(0.1, momentum=0.9),
                                  lambda: optimizers.Adam(0.01),
                                  lambda: optimizers.RMSprop(0.01)], ids=["SGD", "Adam", "RMSprop"])
def test_optimizer_steps_replayed_give_eager_bits(make):
    (eager_losses, eager_ws, _), (losses, ws, fn) = _optimizer_steps(make, False), \
        _optimizer_steps(make, True)
    np.testing.assert_array_equal(losses, eager_losses)
    for w, e in zip(ws, eager_ws):
        np.testing.assert_array_equal(w, e)
    # TF counts 2: the slots are made in the first call, which traces twice; then replays
    assert fn.trace_count == 2 and len(fn.programs) == 1


def test_adam_computes_its_bias_correction_once_per_step():
    # Keras's Adam computes lr * sqrt(1 - beta_2^t) / (1 - beta_1^t) for each variable: the
    # traced program does it once for all three (two pow_, one per beta).
    _, _, fn = _optimizer_steps(lambda: optimizers.Adam(0.01), True, n=1)
    ((program,),) = fn.programs.values()
    def pows(steps):
        return sum(1 for s in steps if getattr(s, "op", None) and s.op.name == "pow")
    assert (pows(program.traced[0]), pows(program.steps)) == (6, 2)
    assert str(program).count("pow_(") == 2, program


def test_an_outer_tape_through_a_replay_gets_the_eager_gradient_bitwise():
    # Replayed op by op on tensors (a tape records the call), every traced step runs: the
    # gradient of sin(x), read twice, is summed as eager mode sums it.
    def f(x):
        return tk.reduce_sum(tk.sin(x) * 0.3 + tk.sin(x) * 0.7)
    traced = tk.function(f)
    x = tk.constant(np.random.default_rng(2).standard_normal(50).astype(np.float32))
    traced(x)
    grads = []
    for fn in (f, traced):
        with tk.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        grads.append(tape.gradient(y, x).numpy())
    np.testing.assert_array_equal(grads[1], grads[0])
    ((program,),) = traced.programs.values()
    assert str(program).count("sin(") == 1


# --- all or nothing: a guard after a write, a draw or a print -------------------------------------

def both(fn):
    return fn, tk.function(fn)


def test_tk_print_prints_at_every_call_and_never_twice(capsys):
    @tk.function
    def f(x):
        tk.print("x:", x)
        if x > 0:
            return x
        return -x
    for x in (1.0, -2.0, 3.0, -4.0):
        f(tk.constant(x))
    assert capsys.readouterr().err.splitlines()   # stderr, as tf.print == ["x: 1", "x: -2", "x: 3", "x: -4"]


def test_a_guard_after_a_write_neither_repeats_nor_loses_the_write():
    v = tk.Variable(0.0)

    def f(x):
        v.assign_add(1.0)
        if v > 2.0:                         # decided on the value just written
            return x * 2.0
        return x
    eager, traced = both(f)
    got = [float(traced(tk.constant(1.0))) for _ in range(5)]
    assert float(v) == 5.0                  # every call added exactly 1
    v.assign(0.0)
    assert got == [float(eager(tk.constant(1.0))) for _ in range(5)] == [1, 1, 2, 2, 2]


def test_random_draws_before_a_guard_are_drawn_once_per_call():
    def f(x):
        r = tk.random.uniform([])
        if x > 0:
            return x + r
        return x - r
    eager, traced = both(f)
    xs = (1.0, -1.0, 2.0, -2.0, 3.0)
    tk.random.set_seed(3)
    want = [float(eager(tk.constant(x))) for x in xs]
    tk.random.set_seed(3)
    assert [float(traced(tk.constant(x))) for x in xs] == want


# --- the replay on tensors ------------------------------------------------------------------------

def test_an_outer_tape_differentiates_through_a_replay_to_second_order():
    w = tk.Variable([1.0, -2.0, 0.5])

    def f(x):
        return tk.reduce_sum(tk.tanh(w * x) ** 2)
    traced = tk.function(f)
    x = tk.constant([0.3, 0.1, -0.7])
    traced(x)                                                   # trace; the next calls replay
    results = []
    for fn in (f, traced):
        with tk.GradientTape() as outer:
            outer.watch(x)
            with tk.GradientTape() as inner:
                inner.watch(x)
                y = fn(x)
            dx, dw = inner.gradient(y, [x, w])
            s = tk.reduce_sum(dx)
        results.append([y, dx, dw, outer.gradient(s, x)])
    for eager, replayed in zip(*results):
        np.testing.assert_array_equal(eager.numpy(), replayed.numpy())
    with tk.ForwardAccumulator(x, tk.constant([1.0, 0.0, 0.0])) as acc:
        y = traced(x)
    with tk.ForwardAccumulator(x, tk.constant([1.0, 0.0, 0.0])) as acc2:
        y2 = f(x)
    np.testing.assert_array_equal(acc.jvp(y).numpy(), acc2.jvp(y2).numpy())
    assert traced.trace_count == 1


def test_a_step_merged_into_an_output_is_never_written_into():
    # b = sin(x) is merged into a = sin(x), so the program returns a's slot: exp(a) must not
    # write into it, though exp is a's last reader inside the program. (The donors once read
    # the outputs before merge_common renamed them, and b came back holding exp(a) * 2.)
    @tk.function
    def f(x):
        a = tk.sin(x)
        y = tk.exp(a) * 2.0
        b = tk.sin(x)
        return y, b
    x = tk.constant([0.5, 1.0])
    want_b = np.sin(np.float32([0.5, 1.0]))
    for _ in range(3):
        y, b = f(x)
        np.testing.assert_array_equal(b.numpy(), want_b)
        np.testing.assert_array_equal(y.numpy(), np.exp(want_b) * np.float32(2))
