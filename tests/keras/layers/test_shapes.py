"""The shapes a layer is called on (layers/shapes.py): the InputSpec check and lists of shapes."""
import pytest

import tapekit as tk
from tapekit import layers
from tapekit.keras.layers import shapes


@pytest.fixture(autouse=True)
def fresh_names():
    layers.clear_session()


def test_dense_fed_another_last_dimension_says_what_it_was_built_for():
    dense = layers.Dense(2)
    dense(tk.ones((2, 3)))
    with pytest.raises(ValueError, match=r'Input 0 of layer "dense" is incompatible with the layer: '
                                         r'expected axis -1 of input shape to have value 3, but '
                                         r'received input with shape \(2, 4\)'):
        dense(tk.ones((2, 4)))
    model = tk.Sequential([layers.Dense(2, input_shape=(3,))])
    with pytest.raises(ValueError, match=r"expected axis -1 of input shape to have value 3.*\(5, 7\)"):
        model(tk.ones((5, 7)))


def test_shape_list_flattens_one_shape_or_a_structure_in_key_order():
    assert shapes.shape_list((None, 3)) == [(None, 3)]
    assert shapes.shape_list([(2, 3), (2, 4)]) == [(2, 3), (2, 4)]
    assert shapes.shape_list({"b": (1, 2), "a": [(3,), (4, 5)]}) == [(3,), (4, 5), (1, 2)]
    assert shapes.shape_list([2, 3]) == [(2, 3)]          # a list of ints: one shape


def test_batchless_replaces_the_batch_size():
    assert shapes.batchless((32, 4)) == (None, 4)
    assert shapes.batchless(()) == ()
    assert shapes.batchless([(8, 2), (8, 5, 1)]) == [(None, 2), (None, 5, 1)]


def test_shape_structure_keeps_the_nesting_with_placeholder_leaves():
    assert shapes.shape_structure({"x": (2, 3), "y": [(1,), (4,)]}) == {"x": 0, "y": [0, 0]}
    assert shapes.shape_structure(((2,), (3,))) == (0, 0)
    assert shapes.shape_structure((2, 3)) == 0


def test_check_input_names_the_rank_expected_and_hints_at_a_batch_axis():
    dense = layers.Dense(2)                # min_ndim=2
    with pytest.raises(ValueError, match=r'Input 0 of layer "dense" is incompatible with the layer: '
                                         r'expected min_ndim=2, found ndim=1\. Full shape received: '
                                         r'\(3,\) \(a Dense layer\)\. Add a batch axis'):
        shapes.check_input(dense, (3,))
    conv = layers.Conv2D(1, 2)             # ndim=4
    with pytest.raises(ValueError, match=r"Input 1 .* expected ndim=4, found ndim=2\. Full shape "
                                         r"received: \(5, 5\) \(a Conv2D layer\)$"):
        shapes.check_input(conv, (5, 5), index=1)
    shapes.check_input(conv, (None, 5, 5, 1))                  # fits: no error


@pytest.mark.parametrize("shape, message", [
    (("a", 3), r"InputLayer 'x': shape is \['a', 3\]: entry 0 is 'a' \(a str\); each entry of "
               r"a shape must be an int \(a size\) or None"),
    ((-1, 3), r"InputLayer 'x': shape is \[-1, 3\]: entry 0 is -1; a size cannot be negative"),
    ("abc", r"InputLayer 'x': shape is 'abc' \(a str\); a shape must be a list"),
])
def test_input_refuses_a_shape_keras_refuses_naming_the_entry(shape, message):
    # Keras 3.15: "Cannot convert '('a', 3)' to a shape. Found invalid dimension 'a'"; before,
    # tapekit made a KerasTensor of shape ('a', 3) (or ('a', 'b', 'c') from "abc")
    with pytest.raises(ValueError, match=message):
        tk.Input(shape=shape, name="x")


def test_input_refuses_a_batch_shape_entry_that_is_not_a_size():
    with pytest.raises(ValueError, match=r"InputLayer 'x': batch_shape is \[None, '4'\]: "
                                         r"entry 1 is '4'"):
        tk.Input(batch_shape=(None, "4"), name="x")
    with pytest.raises(ValueError, match=r"InputLayer 'y': \[batch_size\] is \[2.5\]"):
        tk.Input(shape=(3,), batch_size=2.5, name="y")
    assert tk.Input(shape=(None, 3), batch_size=2).shape == (2, None, 3)
