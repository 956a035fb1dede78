"""Each kind of step in one place (steps.py): its record answers `reads`, `result` and
`effect` the same way (all the passes ask of a step), its line of the program (emit) and its
run on tensors (run)."""
import io

import numpy as np
import pytest

import tapekit as tk
from tapekit.compiler import steps
from tapekit.compiler.program import Source, TensorEnv
from tapekit.compiler.steps import (Assign, Call, Check, Guard, GuardFailed, Op, Print, Read, Update,
                                    held_prints, hold_prints)

KINDS = [Op, Read, Assign, Update, Check, Guard, Print, Call]


def test_each_kind_reads_its_slots_and_says_what_it_writes():
    v = tk.Variable(1.0)
    op = Op("op", (0, 1), {"axis": 0}, (2,), 3, np.add, np.dtype("float32"), (2,))
    assert (op.reads, op.result, op.effect) == ((0, 1, 2), 3, False)   # holes are read too
    assert (Read(v, 4).reads, Read(v, 4).result, Read(v, 4).effect) == ((), 4, False)
    assert (Assign(v, 5).reads, Assign(v, 5).result, Assign(v, 5).effect) == ((5,), None, True)
    update = Update(v, np.subtract, 6)
    assert (update.reads, update.result, update.effect) == ((6,), None, True)
    assert (Check(print, 7).reads, Check(print, 7).result) == ((7,), None)
    guard = Guard("bool", 8, True, ("f.py", 3))
    assert (guard.reads, guard.result, guard.effect) == ((8,), None, True)
    printed = Print(None, (9, 10), ((False, "x"), (True, 0), (True, 1)))
    assert (printed.reads, printed.result, printed.effect) == ((9, 10), None, True)
    call = Call(print, (11, 12), (13, 14), "func")     # a py_function: always runs
    assert (call.reads, call.result, call.effect) == ((11, 12), None, True)


def test_fields_are_named_for_what_they_hold():
    # No generic fields shared across kinds: each names its own content.
    assert Op._fields == ("op", "inputs", "attrs", "holes", "result", "kernel", "dtype", "shape")
    assert Update._fields == ("variable", "ufunc", "delta")
    assert Guard._fields == ("kind", "value", "outcome", "site")
    assert Print._fields == ("printer", "values", "template")
    assert Call._fields == ("call", "inputs", "results", "name")
    for kind in KINDS[1:]:
        assert "out" not in kind._fields and "attrs" not in kind._fields


def test_the_module_defines_exactly_these_kinds():
    defined = {v for v in vars(steps).values() if isinstance(v, type) and hasattr(v, "_fields")}
    assert defined == set(KINDS)


# --- each kind: its line (emit) and its run on tensors (run), on steps a trace recorded -----

def traced_steps(fn, *args):
    """The steps of `fn`'s one program, and the program."""
    f = tk.function(fn)
    f(*args)
    ((p,),) = f.programs.values()
    return p.steps, p


def emit(step, k=0, transactional=False, consts=None, donors=None):
    source = Source(consts or {}, donors or {}, transactional)
    line, comment = step.emit(k, source)
    return line, comment, source


def env_of(values):
    env = TensorEnv()
    env.update(enumerate(values))
    return env


def test_every_kind_of_step_has_its_emit_and_its_run():
    kinds = {v for v in vars(steps).values() if isinstance(v, type) and hasattr(v, "_fields")}
    assert set(steps.KINDS) == kinds
    assert all(callable(k.emit) and callable(k.run) for k in steps.KINDS)


def test_an_op_is_a_call_of_its_kernel_and_runs_as_the_op():
    [step], _ = traced_steps(lambda x, y: x * y, tk.constant([2.0]), tk.constant([3.0]))
    line, comment, source = emit(step)
    assert (line, comment) == ("s2 = multiply(s0, s1)", "")
    assert source.g["multiply"] is step.kernel
    env = env_of([tk.constant([2.0]), tk.constant([3.0])])
    step.run(env)
    np.testing.assert_array_equal(env[2].numpy(), [6.0])
    # a Python number beside a float32 array: a float32 constant named for its value
    line, _, source = emit(step, consts={1: (2.5, None)})
    assert line == "s2 = multiply(s0, f32_2_5)" and source.g["f32_2_5"].dtype == np.float32
    # written into a dead input's array: the input is passed as `out`
    line, comment, _ = emit(step, donors={0: 0})
    assert line == "s2 = multiply(s0, s1, s0)" and "written into s0's array" in comment


def test_an_op_with_holes_fills_them_from_slots_at_every_call():
    def f(x, idx):
        return x[idx]
    [step], _ = traced_steps(f, tk.constant([1.0, 2.0, 3.0]), tk.constant([2, 0]))
    assert step.holes == (1,)
    line, comment, source = emit(step)
    assert line == f"s2 = getitem_2(s0, s1)" and comment == "attributes filled from s1"
    np.testing.assert_array_equal(source.g["getitem_2"](np.float32([5, 6, 7]), np.array([1, 1])), [6, 6])
    env = env_of([tk.constant([5.0, 6.0, 7.0]), tk.constant([0, 2])])
    step.run(env)
    np.testing.assert_array_equal(env[2].numpy(), [5.0, 7.0])


def test_read_assign_and_update_name_the_variable():
    v = tk.Variable([1.0, 2.0], name="w")

    def f(x):
        before = v * 1.0
        v.assign(x)
        v.assign_sub(x * 0.5)
        return before
    (read, first, assign, half, update), _ = traced_steps(f, tk.constant([4.0, 8.0]))
    assert (type(read), type(assign), type(update)) == (Read, Assign, Update)
    assert emit(read)[:2] == ("s1 = w._value", "read w:0")
    assert emit(assign)[:2] == ("assign(w, s0)", "w:0 = s0")
    assert emit(update)[:2] == (f"assign_sub(w, s{half.result})", f"w:0 -= s{half.result}")
    # The functions the lines call store the value in the variable's dtype.
    _, _, source = emit(assign)
    source.g["assign"](v, np.float64([3.0, 5.0]))
    assert v.numpy().dtype == np.float32 and v.numpy().tolist() == [3.0, 5.0]
    _, _, source = emit(update, transactional=True)
    source.g["assign_sub"](v, np.float32([1.0, 1.0]))
    assert v.numpy().tolist() == [2.0, 4.0]
    # On tensors: an earlier read keeps the value it read when the variable is written.
    env = env_of([tk.constant([10.0, 20.0])])
    read.run(env)
    assert env[1] is v
    assign.run(env)
    assert env[1].numpy().tolist() == [2.0, 4.0] and v.numpy().tolist() == [10.0, 20.0]
    env[half.result] = tk.constant([1.0, 2.0])
    update.run(env)
    assert v.numpy().tolist() == [9.0, 18.0]


def test_a_check_runs_at_every_call():
    def f(x):
        return tk.debugging.check_numerics(x, "x is bad") * 2.0
    steps_, _ = traced_steps(f, tk.constant([1.0]))
    [check] = [s for s in steps_ if type(s) is Check]
    line, comment, source = emit(check, k=3)
    assert (line, comment) == ("check_3(s0)", "tk.debugging.check_numerics")
    source.g["check_3"](np.float32([1.0]))
    with pytest.raises(Exception, match="x is bad"):
        source.g["check_3"](np.float32([np.nan]))
    with pytest.raises(Exception, match="x is bad"):
        check.run(env_of([tk.constant([np.inf])]))


def test_a_guard_passes_on_its_outcome_and_fails_with_its_number():
    def f(x):
        return x * 2.0 if x > 0 else x
    steps_, _ = traced_steps(f, tk.constant(1.0))
    [guard] = [s for s in steps_ if type(s) is Guard]
    line, comment, source = emit(guard)
    s = f"s{guard.value}"                          # x > 0: the comparison's result
    assert line == f"guard_0({s})" and comment.startswith(f"bool({s}) is True at test_steps.py:")
    source.g["guard_0"](np.bool_(True))
    with pytest.raises(GuardFailed) as failed:
        source.g["guard_0"](np.bool_(False))
    assert (failed.value.k, failed.value.outcome) == (0, False)
    env = env_of([tk.constant(1.0)])
    env[guard.value] = tk.constant(True)
    guard.run(env)
    assert env.guards_passed == 1
    env[guard.value] = tk.constant(False)
    with pytest.raises(GuardFailed) as failed:
        guard.run(env)
    assert failed.value.k == 1                      # the second guard of this run failed


def test_a_print_shows_now_or_once_the_transaction_succeeds():
    out = io.StringIO()

    def f(x):
        tk.print("x is", x, output_stream=out)
        return x
    [printed], _ = traced_steps(f, tk.constant(2.0))
    out.truncate(0), out.seek(0)
    line, comment, source = emit(printed, k=4)
    assert (line, comment) == ("print_4(s0)", "tk.print('x is', s0)")
    source.g["print_4"](np.float32(3.0))
    assert out.getvalue() == "x is 3\n"
    _, _, held = emit(printed, k=4, transactional=True)
    hold_prints()
    held.g["print_4"](np.float32(5.0))
    assert out.getvalue() == "x is 3\n"             # held back ...
    [(printer, template, values)] = held_prints()
    assert values == (np.float32(5.0),)             # ... until the transaction shows it
    printed.run(env_of([tk.constant(7.0)]))
    assert out.getvalue() == "x is 3\nx is 7\n"
