"""get_concrete_function (concrete.py): one trace, printed, that runs nothing until called.
"""
import numpy as np
import pytest

import tapekit as tk


def test_get_concrete_function_prints_the_program_and_runs_nothing():
    v = tk.Variable(1.0)

    @tk.function
    def f(x):
        v.assign_add(1.0)
        return x * 3.0 + v
    concrete = f.get_concrete_function(tk.TensorSpec([None], tk.float32))
    assert float(v) == 1.0                                      # traced, not run
    text = str(concrete)
    assert text.startswith("ConcreteFunction f(x: TensorSpec(shape=(None,)")
    assert "multiply(s0, f32_3)" in text and "assign_add(" in text   # 3.0 as a float32 constant
    assert concrete.code == tk.autograph.to_code(f)
    np.testing.assert_array_equal(concrete(tk.constant([1.0])).numpy(), [5.0])
    assert float(v) == 2.0
    # TF 2.21: a value of another dtype is InvalidArgumentError (a ValueError in tapekit),
    # and the call changes nothing.
    with pytest.raises(tk.errors.InvalidArgumentError, match="traced for float32"):
        concrete(tk.constant([1]))
    assert float(v) == 2.0


def test_unknown_rank_and_the_same_object_for_the_same_specs():
    # TF 2.21: TensorSpec(None) is accepted; asking again (with these specs, or specs the
    # first takes: [None], a tensor) gives the same ConcreteFunction, and one trace.
    f = tk.function(lambda x: x * 2.0)
    any_rank = f.get_concrete_function(tk.TensorSpec(None, tk.float32))
    assert any_rank is f.get_concrete_function(tk.TensorSpec(None, tk.float32))
    assert any_rank is f.get_concrete_function(tk.TensorSpec([None], tk.float32))
    assert any_rank is f.get_concrete_function(tk.constant([1.0]))
    assert f.experimental_get_tracing_count() == 1
    assert any_rank(tk.constant([[1.0, 2.0]])).numpy().tolist() == [[2.0, 4.0]]
    assert any_rank([1.0, 2.0]).numpy().tolist() == [2.0, 4.0]    # a list becomes a tensor, as in TF
    g = tk.function(lambda x: x * 2.0)
    assert g.get_concrete_function(tk.TensorSpec([None], tk.float32)) is \
        g.get_concrete_function(tk.TensorSpec([None], tk.float32))
    # An unknown rank the Python cannot take at rank 0 is traced at the first rank it takes.
    h = tk.function(lambda x: tk.reduce_sum(x, axis=1))
    assert h.get_concrete_function(tk.TensorSpec(None, tk.float32))(tk.ones([2, 3])).numpy().tolist() == [3.0, 3.0]


def test_the_graph_view_lists_the_programs_steps_as_tfs_operations():
    # The operations TF 2.21 lists for `v * x + 1.0` (x a [] float32 placeholder):
    # Placeholder, ReadVariableOp, Mul, Const, AddV2, Identity.
    v = tk.Variable(2.0)
    f = tk.function(lambda x: v * x + 1.0)
    concrete = f.get_concrete_function(tk.TensorSpec([], tk.float32))
    ops = concrete.graph.get_operations()
    assert [op.type for op in ops] == ["Placeholder", "ReadVariableOp", "Mul", "Const", "AddV2",
                                       "Identity"]
    mul = concrete.graph.get_operation_by_name("multiply")
    assert [t.name for t in mul.inputs] == ["ReadVariableOp:0", "x:0"]     # v * x
    assert [t.name for t in mul.outputs] == ["multiply:0"]
    assert [t.name for t in concrete.inputs] == ["x:0"]
    assert [t.name for t in concrete.outputs] == ["Identity:0"]
    assert concrete.structured_outputs is concrete.outputs[0]
    nodes = {n.name: n.input for n in concrete.graph.as_graph_def().node}
    assert nodes["add"] == ["multiply", "Const"] and nodes["Identity"] == ["add"]
    pair = tk.function(lambda x: {"y": x * 2.0, "n": None}).get_concrete_function(tk.constant(1.0))
    assert pair.structured_outputs["n"] is None and pair.structured_outputs["y"].op.type == "Identity"


def test_pretty_printed_concrete_signatures_lists_each_trace_tf_counts():
    # TF 2.21 prints one block per trace: "Input Parameters:", each parameter with its
    # TensorSpec, "Output Type:", "Captures:" (None without variables).
    f = tk.function(lambda x: x * 2.0)
    f(tk.constant(1.0))
    f(tk.constant([1.0, 2.0]))
    blocks = f.pretty_printed_concrete_signatures().split("\n\n")
    assert len(blocks) == 2 == f.experimental_get_tracing_count()
    assert blocks[0].splitlines() == [
        "Input Parameters:",
        "  x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=tk.float32, name=None)",
        "Output Type:",
        "  TensorSpec(shape=(), dtype=tk.float32, name=None)",
        "Captures:",
        "  None"]
    assert "shape=(2,)" in blocks[1]
    v = tk.Variable(2.0, name="scale")
    g = tk.function(lambda x, n: {"a": x * v * n, "b": None},
                    input_signature=None)
    g(tk.constant([1.0]), 3)
    text = g.pretty_printed_concrete_signatures()
    assert "n (POSITIONAL_OR_KEYWORD): Literal[3]" in text
    assert "{'a': TensorSpec(shape=(1,), dtype=tk.float32, name=None), 'b': None}" in text
    assert text.endswith("Captures:\n  scale:0")
