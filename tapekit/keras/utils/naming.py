"""Names of layers, models, weights and optimizers: Keras's default names (`dense`,
`dense_1`, ...), the rule a name given by hand must follow (Keras 3's: no `/`) and the paths
of weights. Keras 3 keeps these in keras/src/utils/naming.py too: layers, models, optimizers
and saving (a weights file's group names) all import them from here, below each of them."""
import itertools
import re
from collections import defaultdict

_name_counters = defaultdict(itertools.count)


def unique_name(base):
    """`base` the first time, then `base_1`, `base_2`, ... (one counter per base)."""
    n = next(_name_counters[base])
    return base if n == 0 else f"{base}_{n}"


def clear_session():
    """Restart layer naming at `dense`, `dense_1`, ... (`tf.keras.backend.clear_session`):
    every counter of unique_name starts again.

    >>> tk.layers.clear_session()
    >>> tk.layers.Dense(1).name, tk.layers.Dense(1).name
    ('dense', 'dense_1')
    """
    _name_counters.clear()


def snake_name(cls_name):
    """Keras's default layer name: Dense -> dense, Conv2D -> conv2d, MaxPooling2D -> max_pooling2d."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", cls_name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def check_name(name, what):
    """A name given by hand to a layer, a model, a weight or an optimizer, checked with Keras 3's
    rule: any string without `/` (`密集层`, `wµ`, `a b` are names), or None for the default.
    A `/` would make a weight's path (`dense/kernel`) ambiguous. Names are data: nothing
    pastes them into code (tk.function makes its own identifiers) and every display escapes
    them, so no other character is refused.

    >>> from tapekit.keras.utils.naming import check_name
    >>> check_name("密集层", "Dense(name=...)")
    '密集层'
    """
    if name is None or (isinstance(name, str) and "/" not in name):
        return name
    hint = (f"; a `/` separates a layer's name from its weights' in their paths (dense/kernel): "
            f"use e.g. {name.replace('/', '_')!r}" if isinstance(name, str) else "")
    raise ValueError(f"{what}: Argument `name` must be a string and cannot contain character "
                     f"`/`. Received: name={name!r} (of type {type(name).__name__}){hint}")


def join_path(*parts):
    """A weight's path, Keras 3's: the names joined with `/`, an empty name leaving no part
    (a layer named "" holds "kernel", as a Keras layer built outside any scope).

    >>> from tapekit.keras.utils.naming import join_path
    >>> join_path("dense", "kernel"), join_path("", "kernel")
    ('dense/kernel', 'kernel')
    """
    return "/".join(p for p in parts if p)
