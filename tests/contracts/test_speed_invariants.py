"""What docs/DESIGN.md's "Speed" section says the code does, stated as tests that time nothing.

Each of these was a measured gain (docs/PERFORMANCE.md); a change that undoes one still gives
the right numbers, so only a test that counts what runs can see it: the Python calls an op
makes, how the backward walk calls a rule, what a tk.function replay skips.
"""
import dis
import sys

import numpy as np
import pytest

import tapekit as tk
from tapekit.ops import registry
from tapekit.ops.registry import defop


@pytest.fixture(autouse=True)
def _ops_defined_here_are_forgotten(monkeypatch):
    # The throwaway ops below must not reach the op table the contracts suite walks.
    monkeypatch.setattr(registry, "OPS", dict(registry.OPS))


def python_calls(fn):
    """The Python functions `fn()` calls, in order, as 'file:function' (tapekit's files by
    their path in the package); `fn` itself is left out."""
    names = []

    def profile(frame, event, arg):
        if event == "call":
            path = frame.f_code.co_filename
            names.append(f"{path.rsplit('tapekit/', 1)[-1]}:{frame.f_code.co_name}")
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return names[1:]


def caller_instruction():
    """The instruction that called the function calling this one: CALL for positional
    arguments, CALL_FUNCTION_EX for *args or **kwargs."""
    frame = sys._getframe(2)
    return [i.opname for i in dis.get_instructions(frame.f_code) if i.offset <= frame.f_lasti][-1]


X = np.array([1.0, 2.0, 3.0, 4.0], np.float32)


# --- per-op Python (W1: 1,000 ops on 4 numbers) --------------------------------------------------

def test_an_op_on_tensors_makes_two_python_calls_without_a_tape():
    x, y = tk.constant(X), tk.constant(X + 1)
    # The operator, then Op.run (no Op.__call__: operators call Op.run directly).
    assert python_calls(lambda: x * y) == ["ops/operators.py:operator", "ops/registry.py:run"]
    assert python_calls(lambda: tk.sin(x)) == ["ops/registry.py:__call__", "ops/registry.py:run"]
    assert python_calls(lambda: x * 2.0) == ["ops/operators.py:operator", "ops/registry.py:run"]


def test_an_op_under_one_tape_makes_four_python_calls():
    x, y, w = tk.constant(X), tk.constant(X + 1), tk.Variable(X)
    with tk.GradientTape() as tape:
        tape.watch(x)
        w * 1.0      # the tape watches w from its first read on (one call more, that once)
        w * 1.0      # every Meta the records below keep is in the cache now
        tk.sin(x)
        shown = {"x * y": python_calls(lambda: x * y), "x * w": python_calls(lambda: x * w),
                 "tk.sin(x)": python_calls(lambda: tk.sin(x)),
                 "x + 1.0": python_calls(lambda: x + 1.0)}
    # Op.run, GradientTape._record, and op.keep (what the tape keeps: registry._keeper);
    # add's forward is a Python function (it tiles a short broadcast vector).
    record = ["ops/registry.py:run", "tape.py:_record", "ops/registry.py:keep"]
    assert shown["x * y"] == ["ops/operators.py:operator"] + record
    assert shown["x * w"] == ["ops/operators.py:operator"] + record
    assert shown["tk.sin(x)"] == ["ops/registry.py:__call__"] + record
    assert shown["x + 1.0"] == ["ops/operators.py:operator", "ops/registry.py:run",
                                "ops/arithmetic.py:forward", "tape.py:_record", "ops/registry.py:keep"]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="the bytecode names read here (CALL) are Python 3.11's and later's")
def test_the_forward_of_a_one_or_two_input_op_is_called_without_star_args():
    seen = []

    def forward(*values):
        seen.append(caller_instruction())
        return np.add(*values) if len(values) == 2 else np.negative(values[0])
    one = defop("test_speed_one", forward)
    two = defop("test_speed_two", forward, args="x y")
    x = tk.constant(X)
    one(x)
    two(x, x)
    x * 1.0
    assert seen == ["CALL", "CALL"]


def test_a_tape_passes_tuples_and_keeps_what_the_rules_read():
    # No lists are made per op: the tape keeps the input values as Op.run passed them (a
    # tuple), or the Metas op.keep made, and the ids as a tuple.
    x, c = tk.constant(X), tk.constant(X + 1)
    with tk.GradientTape() as tape:
        tape.watch(x)
        y = tk.tanh(x * c + c)                 # multiply keeps x and c, add nothing, tanh ans
    mul, add, tanh = tape.record_list
    assert type(mul[1]) is tuple and type(mul[2]) is tuple
    assert all(type(v) is np.ndarray for v in mul[2]) and type(mul[3]) is registry.Meta
    assert all(type(v) is registry.Meta for v in add[2]) and type(add[3]) is registry.Meta
    assert type(tanh[2][0]) is registry.Meta and tanh[3] is y._value


# --- the backward walk ---------------------------------------------------------------------------

@pytest.mark.skipif(sys.version_info < (3, 11), reason="the bytecode names read here (CALL) are Python 3.11's and later's")
def test_backward_calls_one_and_two_input_rules_without_star_args():
    seen = []

    def rule(g, ans, x):
        seen.append((caller_instruction(), type(x).__name__))
        return g * 2.0

    def rule_y(g, ans, x, y):
        seen.append((caller_instruction(), type(y).__name__))
        return g

    one = defop("test_speed_double", lambda x: x * 2.0, save="x", vjp=[rule])
    two = defop("test_speed_add", np.add, args="x y", save="x y", vjp=[rule_y, rule_y])
    x = tk.Variable(X)
    with tk.GradientTape() as tape:
        y = two(one(x), x)
    tape.gradient(y, x)
    # Unrecorded, the rules see plain arrays (state.raw), called through op.call_vjp, built
    # once per op by defop.
    assert seen == [("CALL", "ndarray"), ("CALL", "ndarray"), ("CALL", "ndarray")]


def test_an_unrecorded_backward_walk_calls_only_the_rules_and_their_callers():
    # W1's four ops: each record costs its rule caller and its rule's own functions, and
    # undoing a broadcast (x has shape (4,), m (3, 4)) calls sum_to's forward, not the op.
    x, m, c = tk.Variable(X), tk.constant(np.ones((3, 4), np.float32)), tk.constant([1.0])
    with tk.GradientTape() as tape:
        y = tk.tanh(tk.sin(m * x + c))
    names = python_calls(lambda: tape.gradient(y, x))
    walk = names[names.index("backprop.py:backward"):]
    assert "ops/registry.py:run" not in walk             # nothing in a raw walk dispatches
    assert walk.count("ops/registry.py:call") == 4        # one rule caller per record
    assert "ops/shapes.py:_sum_to" in walk and "backprop.py:_sum_to" not in walk


def test_a_walk_with_nobody_watching_calls_no_observer_hook():
    x = tk.Variable(X)
    with tk.GradientTape() as tape:
        y = tk.sin(x)
    names = python_calls(lambda: tape.gradient(y, x))
    assert "observers.py:backward_observer" not in names and "observers.py:observe" not in names


# --- cold code: a training step -------------------------------------------------------------------

def test_an_mlp_training_step_makes_at_most_its_count_of_python_calls():
    # benchmarks/mlp_step.py's step, eager: forward, gradient, six assign_sub. Fewer calls per
    # step is what pays when each block starts with cold caches (DESIGN.md, "Cold code").
    rng = np.random.default_rng(0)
    sizes = (16, 8, 4, 3)
    params = []
    for m, n in zip(sizes[:-1], sizes[1:]):
        params += [tk.Variable(rng.standard_normal((m, n)).astype(np.float32)),
                   tk.Variable(np.zeros(n, np.float32))]
    x = tk.constant(rng.standard_normal((5, sizes[0])).astype(np.float32))
    y = tk.constant(np.array([0, 1, 2, 1, 0], np.int32))

    def step():
        with tk.GradientTape() as tape:
            h = tk.nn.relu(tk.matmul(x, params[0]) + params[1])
            h = tk.nn.relu(tk.matmul(h, params[2]) + params[3])
            logits = tk.matmul(h, params[4]) + params[5]
            loss = tk.reduce_mean(tk.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, params)
        for v, g in zip(params, grads):
            v.assign_sub(0.01 * g)
    step()
    assert len(python_calls(step)) <= 220     # 259 before Op.run was the one way into an op, 237
    # before matmul's shape check read its operands' array shapes (benchmarks/calls_per_op.py)


# --- tk.function ------------------------------------------------------------------------------

def test_a_replay_finds_its_program_without_flattening_the_call():
    f = tk.function(lambda a, b: a * b + 1.0)
    a, b = tk.constant(X), tk.constant(X + 1)
    f(a, b)      # the trace
    f(a, b)      # the first replay: the program is compiled, its fast key remembered
    names = python_calls(lambda: f(a, b))
    assert "compiler/signature.py:fast_key" in names
    assert not any(n.startswith(("nest.py:", "compiler/signature.py:signature")) for n in names)
    assert "ops/registry.py:run" not in names         # the program calls NumPy, not the ops
