"""Flatten and rebuild nested lists, tuples and dicts of tensors (sources, targets, watch), and
`tk.nest`, TensorFlow's `tf.nest`: flatten, map_structure, pack_sequence_as, is_nested,
assert_same_structure. A structure is a list, tuple (namedtuples too) or dict, nested in any
way; anything else is a leaf. Dicts are read in the order of their sorted keys, as in
TensorFlow, and rebuilt with their own order of keys.

>>> tk.nest.flatten({"b": [1, 2], "a": (3, {"z": 4, "y": 5})})
[3, 5, 4, 1, 2]
>>> tk.nest.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)])
[11, (22, 33)]
"""
from .namespaces import missing, public_dir

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


_SEQUENCES = (list, tuple)
_NESTED = (list, tuple, dict)


def _is_flat_sequence(structure):
    """A plain list or tuple of leaves (a model's variables: the common case)."""
    if type(structure) not in _SEQUENCES:
        return False
    for s in structure:
        if isinstance(s, _NESTED):
            return False
    return True


def flatten(structure, expand_composites=False):
    """Leaves of `structure` in a fixed order (dicts by sorted key), as `tf.nest.flatten`; a
    leaf alone gives [leaf]. `expand_composites` is accepted: tapekit has no composite
    tensors (ragged, sparse) to expand."""
    if not isinstance(structure, _NESTED):
        return [structure]       # one tensor
    if _is_flat_sequence(structure):
        return list(structure)
    out = []
    _flatten(structure, out)
    return out


def _flatten(s, out):
    if isinstance(s, (list, tuple)):
        for item in s:
            _flatten(item, out)
    elif isinstance(s, dict):
        for key in _keys(s):
            _flatten(s[key], out)
    else:
        out.append(s)


def _keys(d):
    try:
        return sorted(d)
    except TypeError:  # keys of mixed types: keep insertion order
        return list(d)


def pack_like(structure, leaves):
    """Rebuild `structure` with `leaves` (as produced by flatten) in place of its leaves."""
    if _is_flat_sequence(structure) and len(leaves) == len(structure):
        return type(structure)(leaves)
    it = iter(leaves)
    result = _pack(structure, it)
    return result


def _pack(s, it):
    if isinstance(s, tuple) and hasattr(s, "_fields"):
        return type(s)(*(_pack(item, it) for item in s))
    if isinstance(s, (list, tuple)):
        return type(s)(_pack(item, it) for item in s)
    if isinstance(s, dict):
        packed = {key: _pack(s[key], it) for key in _keys(s)}
        return type(s)((key, packed[key]) for key in s)
    return next(it)


def is_nested(seq):
    """True for a list, tuple or dict (a structure), False for a leaf (`tf.nest.is_nested`)."""
    return isinstance(seq, _NESTED)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """`structure` rebuilt with the leaves of `flat_sequence`, in flatten's order
    (`tf.nest.pack_sequence_as`).

    >>> tk.nest.pack_sequence_as({"b": [0, 0], "a": 0}, [1, 2, 3])
    {'b': [2, 3], 'a': 1}
    """
    leaves = list(flat_sequence)
    n = len(flatten(structure))
    if len(leaves) != n:
        raise ValueError(f"pack_sequence_as: the structure has {n} leaves, but flat_sequence "
                         f"has {len(leaves)} items")
    return pack_like(structure, leaves) if is_nested(structure) else leaves[0]


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raise ValueError when the two structures differ in nesting or number of leaves (or in
    a dict's keys), and, with `check_types`, TypeError when one has a list where the other
    has a tuple (`tf.nest.assert_same_structure`)."""
    _same(nest1, nest2, check_types, nest1, nest2)


def _same(a, b, check_types, top1, top2):
    def differ(why, error=ValueError):
        return error(f"The two structures don't have the same nested structure: {why}. First "
                     f"structure: {_brief(top1)}; second structure: {_brief(top2)}")
    if is_nested(a) != is_nested(b):
        raise differ(f"{_brief(a)} is a {'structure' if is_nested(a) else 'leaf'} where the other "
                     f"has {_brief(b)}")
    if not is_nested(a):
        return
    if check_types and type(a) is not type(b) and not (isinstance(a, dict) and isinstance(b, dict)):
        raise differ(f"a {type(a).__name__} where the other has a {type(b).__name__} "
                     f"(check_types=False to allow it)", TypeError)
    if isinstance(a, dict) != isinstance(b, dict):
        raise differ(f"a {type(a).__name__} where the other has a {type(b).__name__}")
    if isinstance(a, dict):
        if set(a) != set(b):
            raise differ(f"dict keys {sorted(map(str, a))} and {sorted(map(str, b))}")
        for key in _keys(a):
            _same(a[key], b[key], check_types, top1, top2)
        return
    if len(a) != len(b):
        raise differ(f"{len(a)} entries where the other has {len(b)}")
    for x, y in zip(a, b):
        _same(x, y, check_types, top1, top2)


def _brief(s):
    text = repr(s)
    return f"{type(s).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def map_structure(func, *structure, **kwargs):
    """`func` applied to the leaves of `structure` (several structures: their leaves side by
    side, `func(leaf1, leaf2, ...)`), the results in the first one's structure
    (`tf.nest.map_structure`). Keywords: `check_types` (True: a list and a tuple differ) and
    `expand_composites` (accepted; tapekit has no composite tensors).

    >>> tk.nest.map_structure(lambda x: x * 2, {"b": [1, 2], "a": (3,)})
    {'b': [2, 4], 'a': (6,)}
    """
    if not callable(func):
        raise TypeError(f"map_structure: func must be callable, got {type(func).__name__}")
    if not structure:
        raise ValueError("map_structure: give at least one structure")
    unknown = set(kwargs) - {"check_types", "expand_composites"}
    if unknown:
        raise ValueError(f"map_structure: the only keywords are check_types and "
                         f"expand_composites, not {', '.join(sorted(unknown))}")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=kwargs.get("check_types", True))
    leaves = [flatten(s) for s in structure]
    results = [func(*xs) for xs in zip(*leaves)]
    return pack_sequence_as(structure[0], results)


__dir__ = public_dir(globals())
__getattr__ = missing(__name__)
