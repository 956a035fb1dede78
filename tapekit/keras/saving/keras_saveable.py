"""KerasSaveable: the objects a Keras file gives a group of their own (Keras 3's class of the
same name, keras/src/saving/keras_saveable.py).

`Layer` inherits it (layers/base.py), and so every layer and model does. The walk of a model
that writes and reads its weights (weights_h5.layer_paths) asks `isinstance(x, KerasSaveable)`
of what each attribute holds: a KerasSaveable gets its group (`layers/dense/vars`), and its
own attributes are walked in turn. So saving knows what it walks without importing the layers,
which sit above it (they import saving for their configs).

>>> isinstance(tk.layers.Dense(1), tk.saving.keras_saveable.KerasSaveable)
True
"""


class KerasSaveable:
    """A base class without behaviour: its subclasses are what a weights file walks into."""

    __slots__ = ()
