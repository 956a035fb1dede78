"""Flatten and rebuild nested lists, tuples and dicts of tensors (sources, targets, watch)."""


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


def flatten(structure):
    """Leaves of `structure` in a fixed order (dicts by sorted key, as TensorFlow's nest)."""
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


def is_nested(s):
    return isinstance(s, _NESTED)
