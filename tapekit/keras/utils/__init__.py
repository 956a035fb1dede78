"""Keras utilities (`tk.utils`, `keras.utils`): PyDataset, the base class of Python datasets;
`to_categorical` and `normalize`. naming.py, beside them, is the naming helper of the layers,
optimizers and saving, not one of tk.utils's names."""
from ... import namespaces
from .. import identifiers
from .numerical_utils import normalize, to_categorical
from .py_dataset import PyDataset, Sequence

__all__ = identifiers.exported(globals())   # the names imported above

__dir__ = namespaces.public_dir(globals())   # dir() and tab completion: the public names only
