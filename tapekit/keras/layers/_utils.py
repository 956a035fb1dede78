"""Helpers every layer shares: Keras's default names, argument checks, the input checks."""
import itertools
import re
import unicodedata
from collections import defaultdict

import numpy as np

_name_counters = defaultdict(itertools.count)


def unique_name(base):
    n = next(_name_counters[base])
    return base if n == 0 else f"{base}_{n}"


def snake_name(cls_name):
    """Keras's default layer name: Dense -> dense, Conv2D -> conv2d, MaxPooling2D -> max_pooling2d."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", cls_name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


def check_name(name, what):
    """A layer's or weight's name, checked with the ASCII rule TensorFlow applies to op and scope names:
    a letter or `_`, then letters, digits, `_`, `.` and `-`. Python reads identifiers in NFKC
    form, so two Unicode names that look different (`aµ`, `aμ`) can be one name to code
    that uses them; and a `/` would make the weight's path (`dense/kernel`) ambiguous."""
    if name is None or name == "":
        return name           # the default name
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"{what}: {name!r} is not a valid module name: it must start with an "
                         f"ASCII letter or _ and hold only ASCII letters, digits, _ . and - "
                         f"(TensorFlow's rule for op and scope names). Use e.g. {_suggest(name)!r}")
    return name


def _suggest(name):
    s = re.sub(r"[^A-Za-z0-9_.\-]+", "_", unicodedata.normalize("NFKC", str(name))).strip("_")
    s = s if s and (s[0].isalpha() or s[0] == "_") else "layer_" + s
    return s[:40]


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _pair(value, what, layer):
    """A positive int or a pair of them, as a pair: kernel_size=3 -> (3, 3).

    0, negative and fractional sizes raise here, naming the layer and the argument, rather
    than as a ZeroDivisionError in the initializer or a truncated 2.5 -> 2.
    """
    items = [value, value] if _is_int(value) else (list(value) if isinstance(value, (list, tuple)) else None)
    if items is None or len(items) != 2 or not all(_is_int(v) and v > 0 for v in items):
        raise ValueError(f"{layer}: {what} must be a positive integer or a pair of positive "
                         f"integers, got {value!r}")
    return tuple(int(v) for v in items)


def _positive_int(value, what, layer):
    if not _is_int(value) or value <= 0:
        raise ValueError(f"{layer}: {what} must be a positive integer, got {value!r}")
    return int(value)


def check_input(layer, shape, index=0):
    """Keras's InputSpec check: the rank (`ndim`, `min_ndim`) and the sizes fixed at build time
    (`layer._input_axes`, e.g. {-1: 3} for a Dense built on 3 features)."""
    n = len(shape)
    head = f'Input {index} of layer "{layer.name}" is incompatible with the layer'
    if (layer.ndim is not None and n != layer.ndim) or (layer.min_ndim is not None and n < layer.min_ndim):
        expected = f"ndim={layer.ndim}" if layer.ndim is not None else f"min_ndim={layer.min_ndim}"
        hint = (". Add a batch axis, e.g. x[None] or tk.reshape(x, (1, -1))"
                if n == (layer.ndim or layer.min_ndim) - 1 else "")
        raise ValueError(f"{head}: expected {expected}, found ndim={n}. Full shape received: "
                         f"{tuple(shape)} (a {type(layer).__name__} layer){hint}")
    for axis, size in getattr(layer, "_input_axes", {}).items():
        got = shape[axis] if -n <= axis < n else None
        if got is not None and size is not None and got != size:
            built = getattr(layer, "input_shape", None)
            raise ValueError(
                f"{head}: expected axis {axis} of input shape to have value {size}, but received "
                f"input with shape {tuple(shape)}. The layer was built for inputs of shape {built} "
                f"on its first call, and its weights have that size: feed inputs with {size} on "
                f"axis {axis}, or use a new {type(layer).__name__} layer for the new shape")


# --- shapes of one input or of several (a list or dict of shapes) ---------------------
def _is_shape(shapes):
    return isinstance(shapes, tuple) and all(d is None or isinstance(d, (int, np.integer)) for d in shapes)


def _shape_list(shapes):
    """A list of shapes for one shape (a tuple of ints/None) or a structure of shapes."""
    return [shapes] if _is_shape(shapes) else _tuples(shapes)


def _tuples(shapes):
    if isinstance(shapes, dict):
        return [s for k in sorted(shapes) for s in _tuples(shapes[k])]
    if isinstance(shapes, (list, tuple)) and shapes and isinstance(shapes[0], (list, tuple, dict)):
        return [s for item in shapes for s in _tuples(item)]
    return [tuple(shapes)]


def _batchless(shapes):
    if _is_shape(shapes):
        return (None,) + tuple(shapes[1:]) if shapes else ()
    return [(None,) + tuple(s[1:]) for s in _tuples(shapes)]


def _shape_structure(shapes):
    """`shapes` with each shape replaced by a placeholder leaf, for nest.pack_like."""
    if isinstance(shapes, dict):
        return {k: _shape_structure(v) for k, v in shapes.items()}
    if isinstance(shapes, (list, tuple)) and shapes and isinstance(shapes[0], (list, tuple, dict)):
        return type(shapes)(_shape_structure(s) for s in shapes)
    return 0
