"""Keras utilities (`tk.utils`, `keras.utils`): PyDataset, the base class of Python datasets;
`to_categorical` and `normalize`. naming.py, beside them, is the naming helper of the layers,
optimizers and saving, not one of tk.utils's names."""
from .numerical_utils import normalize, to_categorical
from .py_dataset import PyDataset, Sequence
from ...namespaces import public_dir

__all__ = ["PyDataset", "Sequence", "normalize", "to_categorical"]


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
