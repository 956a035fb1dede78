"""Input signatures (signature.py): which calls share a trace. A tensor counts by its
shape and dtype, a NumPy array as a tensor, any other argument by its value (-0.0 and 0.0
apart, NaN as one); an input_signature fixes what a call may be.
"""
import numpy as np
import pytest

import tapekit as tk


def test_python_values_are_part_of_the_signature_and_side_effects_run_once():
    calls = []

    @tk.function
    def scale(x, factor, training=False):
        calls.append(factor)                                  # Python: only while tracing
        return x * factor if training else x
    x = tk.constant([1.0, 2.0])
    assert scale(x, 3.0, training=True).numpy().tolist() == [3.0, 6.0]
    assert scale(tk.constant([5.0, 5.0]), 3.0, training=True).numpy().tolist() == [15.0, 15.0]
    assert scale(x, 4.0, training=True).numpy().tolist() == [4.0, 8.0]
    assert scale(x, 4.0).numpy().tolist() == [1.0, 2.0]
    assert calls == [3.0, 4.0, 4.0] and scale.trace_count == 3


def test_numpy_arguments_count_as_tensors():
    @tk.function
    def f(a):
        return tk.reduce_sum(a)
    assert f(np.ones(3, np.float32)).numpy() == 3.0
    assert f(np.full(3, 2.0, np.float32)).numpy() == 6.0 and f.trace_count == 1


def test_signed_zeros_are_two_signatures_and_nan_is_one():
    @tk.function
    def f(x, s):
        return x / s
    with np.errstate(divide="ignore", invalid="ignore"):
        assert float(f(tk.constant(1.0), 0.0)) == np.inf
        assert float(f(tk.constant(1.0), -0.0)) == -np.inf
        for _ in range(3):
            assert np.isnan(float(f(tk.constant(1.0), float("nan"))))
    assert f.experimental_get_tracing_count() == 3


def test_input_signature_fixes_what_a_call_may_be():
    @tk.function(input_signature=[tk.TensorSpec(shape=[None], dtype=tk.float32)])
    def f(x):
        return tk.reduce_sum(x * x)
    assert float(f([1.0, 2.0])) == 5.0
    assert float(f(tk.constant([3.0]))) == 9.0
    with pytest.raises(TypeError, match=r"argument 0 has shape \(1, 1\)"):   # TF 2.21: TypeError
        f(tk.constant([[1.0]]))
    with pytest.raises(TypeError, match="int32"):
        f(tk.constant([1, 2]))
    with pytest.raises(TypeError, match="lists 1 argument"):
        f(tk.constant([1.0]), tk.constant([1.0]))


# --- counting traces as TF counts them (function.Function._count_trace) --------------------

def test_an_input_signature_is_one_trace_for_every_shape_it_admits():
    # TF 2.21: experimental_get_tracing_count() == 1 after shapes (1,) and (2,).
    @tk.function(input_signature=[tk.TensorSpec([None], tk.float32)])
    def f(x):
        return x * 2.0
    for n in (1, 2, 3):
        assert f(tk.constant([1.0] * n)).numpy().tolist() == [2.0] * n
    assert f.experimental_get_tracing_count() == 1
    assert f.traces_run == 3        # tapekit's programs have concrete shapes: one per shape


def test_reduce_retracing_generalises_after_the_second_shape_as_tf_does():
    # TF 2.21's counts, call by call: (1,) 1; (2,) 2, traced as (None,); (3,) 2; (1, 1) 3,
    # traced at unknown rank; (1, 2) and (2, 2) 3; an int32 (2,) 4; a float scalar and (5,) 4.
    f = tk.function(lambda x: x * 2, reduce_retracing=True)
    calls = [([1.0], 1), ([1.0, 2.0], 2), ([1.0] * 3, 2), ([[1.0]], 3), ([[1.0, 2.0]], 3),
             ([[1.0, 2.0], [3.0, 4.0]], 3), (np.array([1, 2], np.int32), 4), (1.0, 4),
             ([1.0] * 5, 4)]
    for value, count in calls:
        x = tk.constant(value)
        np.testing.assert_array_equal(f(x).numpy(), x.numpy() * 2)
        assert f.experimental_get_tracing_count() == count, value
    # Python values are not generalised: TF counts 3 for x * n with n = 1, 2, 3.
    g = tk.function(lambda x, n: x * n, reduce_retracing=True)
    for n in (1, 2, 3):
        g(tk.constant([1.0]), n)
    assert g.experimental_get_tracing_count() == 3


def test_without_reduce_retracing_each_shape_counts():
    f = tk.function(lambda x: x * 2)
    for n in (1, 2, 3):
        f(tk.constant([1.0] * n))
    assert f.experimental_get_tracing_count() == 3


def test_variables_on_the_first_call_count_two_with_an_input_signature():
    box = []

    @tk.function(input_signature=[tk.TensorSpec([None], tk.float32)])
    def f(x):
        if not box:
            box.append(tk.Variable(2.0))
        return box[0] * x
    assert f(tk.constant([1.0])).numpy().tolist() == [2.0]
    assert f(tk.constant([1.0, 3.0])).numpy().tolist() == [2.0, 6.0]
    assert f.experimental_get_tracing_count() == 2


def test_an_argument_with_a_trace_type_shares_traces_by_that_type():
    # TF's guide (guide/function, "Custom tracing types"): Apple and Mango trace by their
    # classes; TF 2.21 prints 3 three times and counts 2 traces.
    class KindType(tk.types.experimental.TraceType):
        def __init__(self, fruit):
            self.kind = type(fruit)

        def is_subtype_of(self, other):
            return self == other

        def most_specific_common_supertype(self, others):
            return self if all(self == o for o in others) else None

        def placeholder_value(self, placeholder_context=None):
            return None

        def __eq__(self, other):
            return type(other) is KindType and self.kind == other.kind

        def __hash__(self):
            return hash(self.kind)

    class Fruit:
        def __tf_tracing_type__(self, context):
            return KindType(self)

    class Apple(Fruit):
        flavor = 1

    class Mango(Fruit):
        flavor = 2

    mixed = tk.function(lambda a, b: a.flavor + b.flavor)
    assert [int(mixed(*p)) for p in [(Apple(), Mango()), (Apple(), Mango()), (Mango(), Apple())]] == [3, 3, 3]
    assert mixed.experimental_get_tracing_count() == 2
    with pytest.raises(TypeError):
        tk.types.experimental.TraceType()      # abstract, as TF's


def test_an_input_signature_refuses_with_tfs_type_errors_and_binds_keywords():
    # TF 2.21: TypeError for too many or too few arguments, a string, None or an object, a
    # wrong rank or dtype, and a non-list input_signature; a keyword binds by name; a
    # Python list of ints converts to the spec's float32.
    @tk.function(input_signature=[tk.TensorSpec([None], tk.float32)])
    def h(x):
        return x * 2.0
    assert h(x=tk.constant([1.0])).numpy().tolist() == [2.0]
    assert h([1, 2]).numpy().tolist() == [2.0, 4.0]
    for args in [(tk.constant([1.0]), tk.constant([1.0])), (), ("abc",), (None,), (object(),),
                 (tk.constant([[1.0]]),), (tk.constant([1.0], tk.float64),)]:
        with pytest.raises(TypeError):
            h(*args)
    with pytest.raises(TypeError, match="keyword argument 'y'"):
        h(y=tk.constant([1.0]))
    with pytest.raises(TypeError, match="must be a list or tuple"):
        tk.function(lambda x: x, input_signature=tk.TensorSpec([None]))
    concrete = tk.function(lambda x: x * 2.0).get_concrete_function(tk.TensorSpec([None], tk.float32))
    with pytest.raises(TypeError, match="missing argument 'x'"):
        concrete()
    with pytest.raises(TypeError, match="positional"):
        concrete(tk.constant([1.0]), tk.constant([1.0]))
