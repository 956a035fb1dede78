"""The passes (passes.py), through tk.function and directly on steps: a dead step goes, a
step on constants folds, a guard after an effect makes a transaction, a ufunc step writes
into a dead array only when nothing else can see it."""
import numpy as np

import tapekit as tk
from tapekit import layers
from tapekit.compiler import passes
from tapekit.compiler.steps import Assign, Guard, Op, Print, Update


def test_building_inside_the_first_call_does_not_draw_again():
    # The initializer's draw is dead code after tracing: replays must not consume randomness.
    def run(traced):
        tk.random.set_seed(1)
        layer = layers.Dense(3)
        fn = tk.function(lambda x: layers.Dropout(0.5)(layer(x), training=True)) if traced else \
            (lambda x: layers.Dropout(0.5)(layer(x), training=True))
        return [fn(tk.ones((2, 4))).numpy() for _ in range(3)]
    np.testing.assert_array_equal(run(False), run(True))


def test_steps_on_constants_are_computed_once():
    w = tk.Variable([1.0, -2.0, 3.0])

    @tk.function
    def grad(x):
        with tk.GradientTape() as tape:
            loss = tk.reduce_mean(w * x)
        return tape.gradient(loss, w)
    x = tk.constant([2.0, 4.0, 8.0])
    np.testing.assert_allclose(grad(x).numpy(), [2 / 3, 4 / 3, 8 / 3], rtol=1e-6)
    np.testing.assert_allclose(grad(x * 2).numpy(), [4 / 3, 8 / 3, 16 / 3], rtol=1e-6)  # replayed
    ((program,),) = grad.programs.values()
    # The seed (ones) spread over the mean's 3 inputs and divided by 3 is a constant, and
    # the loss itself is not returned: what is left is g * x.
    names = [line.split("= ")[-1].split("(")[0] for line in str(program).splitlines()[1:]
             if " = " in line]
    assert names == ["multiply"], str(program)


# --- directly on steps ----------------------------------------------------------------------

class FakeOp:
    """An op as the passes see it: a name, a forward; calling it is the op on tensors."""

    def __init__(self, name, forward):
        self.name, self.forward = name, forward


SIN = FakeOp("sin", np.sin)
EXP = FakeOp("exp", np.exp)
RESHAPE = FakeOp("reshape", np.reshape)
F32 = np.dtype("float32")


def ufunc_step(op, inputs, result, shape=(3,), dtype=F32, attrs=None):
    return Op(op, tuple(inputs), attrs or {}, (), result, op.forward, dtype, shape)


def test_a_step_nothing_reads_is_dropped_and_effects_stay():
    v = tk.Variable(0.0)
    steps = [ufunc_step(SIN, [0], 1),          # read by nothing: dead
             ufunc_step(EXP, [0], 2),          # returned
             ufunc_step(SIN, [2], 3),          # read only by the assign: live
             Assign(v, 3),
             Guard("bool", 0, True, ("f.py", 1))]
    kept = passes.drop_dead(steps, keep={2})
    assert kept == steps[1:]
    live, last_reads = passes.liveness(steps, keep={2})
    assert live == [False, True, True, True, True]
    # s0 is read last by the guard; s2 is kept (an output); s3 dies after the assign.
    assert last_reads == [(), (), (), (3,), (0,)]


def test_a_checking_op_stays_though_nothing_reads_its_result():
    [checking] = [op for op in passes.CHECKING_OPS if op.name == "check_class_ids"]
    step = Op(checking, (0,), {}, (), 1, checking.forward, None, None)
    assert passes.drop_dead([step], keep=set()) == [step]


def test_a_slot_read_twice_dies_after_its_last_reader():
    steps = [ufunc_step(SIN, [0], 1), ufunc_step(EXP, [1], 2), ufunc_step(SIN, [1], 3)]
    _, last_reads = passes.liveness(steps, keep={2, 3})
    assert last_reads == [(0,), (), (1,)]


def test_a_step_on_constants_folds_and_a_guard_on_a_constant_goes():
    consts = {0: (np.float32([0.0, 1.0]), None)}
    steps = [ufunc_step(EXP, [0], 1, shape=(2,)),            # folds: exp of a constant
             ufunc_step(SIN, [1], 2, shape=(2,)),            # then this folds too
             Guard("bool", 2, True, ("f.py", 1)),            # on a constant: goes
             ufunc_step(SIN, [5], 3, shape=(2,))]            # on an argument: stays
    kept = passes.fold_constants(steps, consts)
    assert kept == [steps[3]]
    np.testing.assert_array_equal(consts[2][0], np.sin(np.exp(np.float32([0.0, 1.0]))))


def test_draws_holes_and_failing_ops_are_not_folded():
    draw = Op(FakeOp("uniform", lambda: 1.0), (), {}, (), 1, None, None, None)
    holed = Op(SIN, (0,), {}, (0,), 2, np.sin, F32, ())

    def fails(x):
        raise ValueError("at the call, as eager")
    failing = Op(FakeOp("fails", fails), (0,), {}, (), 3, fails, F32, ())
    consts = {0: (np.float32(1.0), None)}
    assert passes.fold_constants([draw, holed, failing], consts) == [draw, holed, failing]
    assert set(consts) == {0}


def test_a_guard_is_late_after_a_write_a_draw_or_a_print():
    v = tk.Variable(0.0)
    guard = Guard("bool", 0, True, ("f.py", 1))
    draw = Op(_random_op(), (), {}, (), 1, None, None, None)
    assert not passes.has_late_guard([guard, Assign(v, 0)])          # the guard came first
    assert passes.has_late_guard([Assign(v, 0), guard])
    assert passes.has_late_guard([Update(v, np.add, 0), guard])
    assert passes.has_late_guard([Print(None, (), ()), guard])
    assert passes.has_late_guard([draw, guard])
    assert not passes.has_late_guard([ufunc_step(SIN, [0], 1), guard])


def _random_op():
    """The op a random draw records (trace it to find it)."""
    f = tk.function(lambda: tk.random.uniform([2]))
    f()
    ((program,),) = f.programs.values()
    [step] = program.steps
    assert passes.is_random(step.op)
    return step.op


def test_a_ufunc_step_writes_into_a_dead_array_only_its_own_program_made():
    steps = [ufunc_step(SIN, [0], 1),     # s0 is an argument: never written into
             ufunc_step(EXP, [1], 2),     # s1 made by sin, dead after this: donor
             ufunc_step(SIN, [2], 3)]     # s2 likewise
    _, last_reads = passes.liveness(steps, keep={3})
    assert passes.donors(steps, last_reads, keep={3}) == {1: 1, 2: 2}


def test_no_donation_to_a_view_a_kept_slot_or_another_dtype():
    viewed = [ufunc_step(SIN, [0], 1),
              Op(RESHAPE, (1,), {"newshape": (3, 1)}, (), 2, np.reshape, F32, (3, 1)),
              ufunc_step(EXP, [1], 3)]                       # s1 also read by a reshape
    _, last = passes.liveness(viewed, keep={2, 3})
    assert passes.donors(viewed, last, keep={2, 3}) == {}
    kept = [ufunc_step(SIN, [0], 1), ufunc_step(EXP, [1], 2)]
    _, last = passes.liveness(kept, keep={1, 2})             # s1 is returned
    assert passes.donors(kept, last, keep={1, 2}) == {}
    other = [ufunc_step(SIN, [0], 1, dtype=np.dtype("float64")), ufunc_step(EXP, [1], 2)]
    _, last = passes.liveness(other, keep={2})
    assert passes.donors(other, last, keep={2}) == {}
    scalar = [ufunc_step(SIN, [0], 1, shape=None), ufunc_step(EXP, [1], 2, shape=None)]
    _, last = passes.liveness(scalar, keep={2})
    assert passes.donors(scalar, last, keep={2}) == {}
