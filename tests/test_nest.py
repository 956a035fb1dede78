"""tapekit/nest.py: tk.nest, TensorFlow's tf.nest (values and errors checked against TF 2.21),
and the flatten / pack_like pair the core uses for sources and targets."""
import collections

import pytest

import tapekit as tk

P = collections.namedtuple("P", "a b")


def test_flatten_matches_tensorflow():
    assert tk.nest.flatten({"b": [1, 2], "a": (3, {"z": 4, "y": 5})}) == [3, 5, 4, 1, 2]   # sorted keys
    assert tk.nest.flatten(None) == [None] and tk.nest.flatten("ab") == ["ab"]
    assert tk.nest.flatten(P(1, [2, 3])) == [1, 2, 3]
    x = tk.constant([1.0, 2.0])
    assert tk.nest.flatten(x)[0] is x and tk.nest.flatten([x], expand_composites=True)[0] is x


def test_map_structure_matches_tensorflow():
    assert tk.nest.map_structure(lambda v: v * 2, {"b": [1, 2], "a": (3,)}) == {"b": [2, 4], "a": (6,)}
    assert tk.nest.map_structure(lambda v, w: v + w, [1, (2, 3)], [10, (20, 30)]) == [11, (22, 33)]
    assert tk.nest.map_structure(lambda v: v + 1, P(1, 2)) == P(2, 3)
    assert tk.nest.map_structure(lambda v: v, None) is None
    assert list(tk.nest.map_structure(lambda v: v, {"b": 1, "a": 2})) == ["b", "a"]   # own key order
    assert tk.nest.map_structure(lambda v, w: v + w, [1, 2], (10, 20), check_types=False) == [11, 22]
    doubled = tk.nest.map_structure(lambda t: t * 2, [tk.constant(1.0), tk.constant(2.0)])
    assert [float(t) for t in doubled] == [2.0, 4.0]


def test_map_structure_refuses_what_tensorflow_refuses():
    with pytest.raises(ValueError, match="2 entries where the other has 1"):
        tk.nest.map_structure(lambda v, w: v + w, [1, 2], [10])
    with pytest.raises(TypeError, match="a list where the other has a tuple"):
        tk.nest.map_structure(lambda v, w: v + w, [1, 2], (10, 20))
    with pytest.raises(ValueError, match="at least one structure"):
        tk.nest.map_structure(lambda v: v)
    with pytest.raises(ValueError, match="not foo"):
        tk.nest.map_structure(lambda v: v, [1], foo=1)


def test_pack_sequence_as_and_assert_same_structure():
    assert tk.nest.pack_sequence_as({"b": [0, 0], "a": 0}, [1, 2, 3]) == {"b": [2, 3], "a": 1}
    assert tk.nest.pack_sequence_as(0, [7]) == 7
    with pytest.raises(ValueError, match="has 2 leaves, but flat_sequence has 1"):
        tk.nest.pack_sequence_as([0, 0], [1])
    assert (tk.nest.is_nested([1]), tk.nest.is_nested(1), tk.nest.is_nested({})) == (True, False, True)
    tk.nest.assert_same_structure([1, [2]], [3, [4]])
    with pytest.raises(ValueError, match=r"list \[2\] is a structure where the other has int 4"):
        tk.nest.assert_same_structure([1, [2]], [3, 4])
    with pytest.raises(ValueError, match="dict keys"):
        tk.nest.assert_same_structure({"a": 1}, {"b": 1})


def test_nest_is_a_namespace_that_refuses_what_it_lacks():
    assert "nest" in dir(tk)
    assert set(tk.nest.__all__) <= set(dir(tk.nest))
    with pytest.raises(AttributeError):
        tk.nest.no_such_function
