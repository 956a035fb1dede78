"""The shapes a layer is called on: Keras's InputSpec check, and the shapes of one input or of
several (a list or dict of shapes) as one flat list."""
import numpy as np

from ...display.format import plain


def check_input(layer, shape, index=0):
    """Keras's InputSpec check: the rank (`ndim`, `min_ndim`) and the sizes fixed at build time
    (`layer._input_axes`, e.g. {-1: 3} for a Dense built on 3 features)."""
    n = len(shape)
    head = f'Input {index} of layer "{plain(layer.name)}" is incompatible with the layer'
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


def checked_shape(shape, where):
    """`shape` (a list or tuple of ints and None: a config's, or tk.Input's) as a tuple, or a
    ValueError that names `where` (the layer and the key it came from), the shape and the
    entry that is not a size. Keras 3 refuses the same shapes ("Cannot convert ... to a shape").

    >>> check = tk.keras.layers.shapes.checked_shape
    >>> check([None, 3], "here")
    (None, 3)
    >>> check(["a", 3], "Dense 'dense': build_config['input_shape']")
    Traceback (most recent call last):
    ValueError: Dense 'dense': build_config['input_shape'] is ['a', 3]: entry 0 is 'a' (a str); each entry of a shape must be an int (a size) or None (not known yet)
    """
    if not isinstance(shape, (list, tuple)):
        raise ValueError(f"{where} is {shape!r:.80} (a {type(shape).__name__}); a shape must be a "
                         f"list of ints and None, e.g. [None, 4]")
    out = []
    for i, d in enumerate(shape):
        if d is not None and not isinstance(d, (int, np.integer)):
            raise ValueError(f"{where} is {list(shape)!r:.80}: entry {i} is {d!r:.40} (a "
                             f"{type(d).__name__}); each entry of a shape must be an int (a "
                             f"size) or None (not known yet)")
        if d is not None and d < 0:
            raise ValueError(f"{where} is {list(shape)!r:.80}: entry {i} is {d}; a size cannot be "
                             f"negative (None stands for a size not known yet)")
        out.append(None if d is None else int(d))
    return tuple(out)


def _is_shape(shapes):
    return isinstance(shapes, tuple) and all(d is None or isinstance(d, (int, np.integer)) for d in shapes)


def shape_list(shapes):
    """A list of shapes for one shape (a tuple of ints/None) or a structure of shapes."""
    return [shapes] if _is_shape(shapes) else _tuples(shapes)


def _tuples(shapes):
    if isinstance(shapes, dict):
        return [s for k in sorted(shapes) for s in _tuples(shapes[k])]
    if isinstance(shapes, (list, tuple)) and shapes and isinstance(shapes[0], (list, tuple, dict)):
        return [s for item in shapes for s in _tuples(item)]
    return [tuple(shapes)]


def batchless(shapes):
    """The shape(s) with the batch size replaced by None: (32, 4) -> (None, 4)."""
    if _is_shape(shapes):
        return (None,) + tuple(shapes[1:]) if shapes else ()
    return [(None,) + tuple(s[1:]) for s in _tuples(shapes)]


def shape_structure(shapes):
    """`shapes` with each shape replaced by a placeholder leaf, for nest.pack_like."""
    if isinstance(shapes, dict):
        return {k: shape_structure(v) for k, v in shapes.items()}
    if isinstance(shapes, (list, tuple)) and shapes and isinstance(shapes[0], (list, tuple, dict)):
        return type(shapes)(shape_structure(s) for s in shapes)
    return 0
