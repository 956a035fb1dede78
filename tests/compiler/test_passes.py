"""The passes (passes.py), through tk.function and directly on steps: a dead step goes, a
step on constants folds, a repeated step is computed once (never a draw, a check or a
read), a guard after an effect makes a transaction, a ufunc step writes into a dead array
only when nothing else can see it."""
import warnings

import numpy as np
import pytest

import tapekit as tk
from tapekit import layers
from tapekit.compiler import passes
from tapekit.compiler.steps import Assign, Guard, Op, Print, Read, Update


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


# --- merge_common ---------------------------------------------------------------------------

ADD = FakeOp("add", np.add)


def test_a_repeated_step_goes_and_every_later_read_follows_the_first():
    v = tk.Variable([1.0, 2.0, 3.0])
    steps = [ufunc_step(SIN, [0], 1),
             ufunc_step(SIN, [0], 2),             # repeats s1
             ufunc_step(EXP, [2], 3),             # reads s2: now s1
             ufunc_step(EXP, [1], 4),             # repeats s3 once s2 is s1
             Op(RESHAPE, (4,), {"newshape": (3, 1)}, (2,), 5, np.reshape, F32, (3, 1)),
             Assign(v, 2), Update(v, np.add, 4), Guard("bool", 2, True, ("f.py", 1)),
             Print(None, (2, 4), ((True, 0), (True, 1)))]
    kept, merged = passes.merge_common(steps, {})
    assert merged == {2: 1, 4: 3}
    assert kept == [steps[0], steps[2]._replace(inputs=(1,)), steps[4]._replace(inputs=(3,), holes=(1,)),
                    Assign(v, 1), Update(v, np.add, 3), Guard("bool", 1, True, ("f.py", 1)),
                    Print(None, (1, 3), ((True, 0), (True, 1)))]


def test_only_steps_alike_in_op_kernel_inputs_and_attributes_merge():
    a = Op(RESHAPE, (0,), {"newshape": (3, 1)}, (), 1, np.reshape, F32, (3, 1))
    unlike = [a._replace(result=2, attrs={"newshape": (1, 3)}, shape=(1, 3)),   # other attrs
              a._replace(result=3, inputs=(9,)),                                 # other input
              a._replace(result=4, kernel=np.ravel),                             # other kernel
              a._replace(result=5, op=FakeOp("reshape", np.reshape)),            # other op
              a._replace(result=6, holes=(9,))]                                  # other holes
    assert passes.merge_common([a] + unlike, {})[1] == {}
    assert passes.merge_common([a, a._replace(result=2, attrs={"newshape": (3, 1)})], {})[1] == {2: 1}


def test_constants_merge_by_equal_small_values_only():
    consts = {10: (1.0, None), 11: (1.0, None), 12: (2.0, None), 13: (1, None), 14: (True, None),
              15: (-0.0, None), 16: (0.0, None), 17: (np.float32(1.0), None),
              18: (np.float64(1.0), None), 19: (np.ones(3, F32), None), 20: (np.ones(3, F32), None),
              21: (np.ones(17, F32), None), 22: (np.ones(17, F32), None)}
    steps = [ufunc_step(ADD, [0, c], 30 + c) for c in consts]
    kept, merged = passes.merge_common(steps, consts)
    # 1.0 twice, the two small arrays: one step each. 1, True, -0.0, 0.0, float32 and float64
    # scalars all stay apart (each gives other bits or another dtype); big arrays go by slot.
    assert merged == {41: 40, 50: 49}
    assert len(kept) == len(steps) - 2


def test_attributes_are_compared_by_type_and_bits_and_unknown_ones_never_merge():
    def twice(**attrs):
        a = Op(RESHAPE, (0,), attrs, (), 1, np.reshape, F32, (3,))
        return passes.merge_common([a, a._replace(result=2, attrs=dict(attrs))], {})[1]
    assert twice(x=(1, 2.5, None, slice(1, None)), d=np.dtype("float32"), t=np.float32) == {2: 1}
    assert twice(a=np.arange(4), s=np.int64(3), c=1j, k={"u": [1, 2]}) == {2: 1}
    assert twice(x=float("nan")) == {2: 1}                  # the same bits: the same value
    assert twice(a=np.arange(100)) == {}                    # big array: not compared
    assert twice(f=lambda v: v) == {}                       # unknown: never merged
    assert twice(o=np.array([object()])) == {}
    a = Op(RESHAPE, (0,), {"x": 1}, (), 1, np.reshape, F32, (3,))
    for other in (1.0, True, np.int64(1), (1,)):
        assert passes.merge_common([a, a._replace(result=2, attrs={"x": other})], {})[1] == {}
    zero = Op(RESHAPE, (0,), {"x": 0.0}, (), 1, np.reshape, F32, (3,))
    assert passes.merge_common([zero, zero._replace(result=2, attrs={"x": -0.0})], {})[1] == {}


def test_draws_checks_and_reads_are_never_merged():
    v = tk.Variable([1.0])
    draw = Op(_random_op(), (), {"shape": (2,)}, (), 1, None, F32, (2,))
    check = Op(next(iter(passes.CHECKING_OPS)), (0,), {}, (), 3, None, F32, (3,))
    steps = [draw, draw._replace(result=2), check, check._replace(result=4), Read(v, 5), Read(v, 6)]
    assert passes.merge_common(steps, {}) == (steps, {})


def test_a_traced_step_computes_each_value_once_and_draws_stay_apart():
    @tk.function
    def f(x):
        a = tk.exp(x) * 2.0 + tk.sin(x)
        b = tk.exp(x) * 2.0 - tk.sin(x)
        return a * b, tk.random.uniform([3]), tk.random.uniform([3])
    x = tk.constant([0.5, 1.0, 2.0])
    expected = ((np.exp(x.numpy()) * np.float32(2.0) + np.sin(x.numpy()))
                * (np.exp(x.numpy()) * np.float32(2.0) - np.sin(x.numpy())))
    for _ in range(2):
        y, r1, r2 = f(x)
        np.testing.assert_array_equal(y.numpy(), expected)
        assert not np.array_equal(r1.numpy(), r2.numpy())   # two draws, not one
    code = str(next(iter(f.programs.values()))[0])
    assert [code.count(f"{op}(") for op in ("exp", "sin", "uniform")] == [1, 1, 2], code


def test_two_reads_around_a_write_stay_two():
    v = tk.Variable([1.0, 2.0])

    @tk.function
    def f():
        before = v * 3.0
        v.assign_add([1.0, 1.0])
        return before, v * 3.0
    for k in range(3):
        before, after = f()
        np.testing.assert_array_equal(before.numpy(), np.float32([1.0 + k, 2.0 + k]) * 3)
        np.testing.assert_array_equal(after.numpy(), np.float32([2.0 + k, 3.0 + k]) * 3)
    assert str(next(iter(f.programs.values()))[0]).count("multiply(") == 2


def test_a_guard_on_a_merged_value_still_decides_and_traces_again():
    @tk.function
    def f(x):
        a = tk.reduce_sum(tk.exp(x))
        if tk.reduce_sum(tk.exp(x)) > 3.0:   # the guard reads the first exp's sum
            return a + 1.0
        return a - 1.0
    for values, sign in (([0.0, 0.0], -1), ([1.0, 1.0], 1), ([0.0, 0.0], -1), ([1.0, 2.0], 1)):
        x = tk.constant(values)
        assert f(x).numpy() == np.sum(np.exp(np.float32(values))) + np.float32(sign)
    assert f.trace_count == 2
    for program in [p for ps in f.programs.values() for p in ps]:
        assert str(program).count("exp(") == 1, program


def test_a_merged_value_read_again_later_is_never_written_into():
    # exp(x) is merged; its first copy dies at `* 2` without the merge, so donation would
    # write into it there, but the second copy's readers still read it after.
    @tk.function
    def f(x):
        doubled = tk.exp(x) * 2.0
        return doubled + tk.sin(tk.exp(x))
    x = tk.constant(np.linspace(0, 1, 5, dtype=np.float32))
    expected = np.exp(x.numpy()) * np.float32(2) + np.sin(np.exp(x.numpy()))
    for _ in range(3):
        np.testing.assert_array_equal(f(x).numpy(), expected)
    assert str(next(iter(f.programs.values()))[0]).count("exp(") == 1


@pytest.mark.parametrize("seed", range(12))
def test_small_random_programs_give_eager_bits(seed):
    # Expressions over two arguments and a few constants, each built twice from the same
    # recipe (so many steps repeat), traced and replayed: the bits of eager mode.
    rng = np.random.default_rng(seed)
    recipe = [(int(rng.integers(5)), int(rng.integers(k + 2)), int(rng.integers(k + 2)),
               float(rng.choice([0.5, 1.0, 2.0]))) for k in range(8)]
    ops = [tk.add, tk.multiply, lambda a, b: tk.sin(a), lambda a, b: a - b * 0.5,
           lambda a, b: tk.exp(-tk.abs(a))]

    def build(x, y, c):
        values = [x, y]
        for op, i, j, _ in recipe:
            values.append(ops[op](values[i], values[j]) + c[len(values) % len(c)])
        return values[-1]

    def g(x, y):
        c = [r[3] for r in recipe]
        return build(x, y, c) * build(x, y, c) + build(y, x, c)
    f = tk.function(g)
    for _ in range(2):
        x = tk.constant(rng.standard_normal(4).astype(np.float32))
        y = tk.constant(rng.standard_normal(4).astype(np.float32))
        np.testing.assert_array_equal(f(x, y).numpy(), g(x, y).numpy())
    ((program,),) = f.programs.values()
    assert len(program.steps) < len(program.traced[0])     # something was merged


def test_maximum_and_minimum_never_write_into_a_donor():
    # NumPy 2.4 deprecates np.maximum(a, b, out) with out positional (a DeprecationWarning at
    # every replay of a program that donated to it, e.g. the hinge losses under tk.function)
    f = tk.function(lambda x: tk.maximum(tk.sin(x), 0.0) + 1.0)
    x = tk.constant([0.5, -0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        f(x)
        np.testing.assert_allclose(f(x).numpy(), np.maximum(np.sin([0.5, -0.5]), 0.0) + 1.0, rtol=1e-6)
    code = tk.autograph.to_code(f)
    assert "maximum(s" in code and not any("maximum(" in line and line.count(",") >= 2
                                           for line in code.splitlines())
    assert "add(" in code and "written into" in code      # its result is still donated into


def test_an_update_writes_into_its_dead_delta_of_the_variables_dtype_and_shape():
    v = tk.Variable(np.zeros(3, np.float32))
    made = [ufunc_step(SIN, [0], 1), Update(v, np.subtract, 1)]      # s1: sin's, read once
    _, last = passes.liveness(made, keep=set())
    assert passes.donors(made, last, keep=set()) == {1: 1}
    argument = [Update(v, np.subtract, 0)]                           # s0: an argument
    _, last = passes.liveness(argument, keep=set())
    assert passes.donors(argument, last, keep=set()) == {}
    held = [ufunc_step(SIN, [0], 1), Assign(v, 1), Update(v, np.add, 1)]   # a variable holds s1
    _, last = passes.liveness(held, keep=set())
    assert passes.donors(held, last, keep=set()) == {}
    wide = tk.Variable(np.zeros(3, np.float64))                      # the new value is float64
    other = [ufunc_step(SIN, [0], 1), Update(wide, np.add, 1)]
    _, last = passes.liveness(other, keep=set())
    assert passes.donors(other, last, keep=set()) == {}
