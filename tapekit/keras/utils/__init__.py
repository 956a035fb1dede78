"""Keras utilities (`tk.utils`, `keras.utils`): PyDataset, the base class of Python datasets;
`to_categorical` and `normalize`."""
from .numerical_utils import normalize, to_categorical
from .py_dataset import PyDataset, Sequence

__all__ = ["PyDataset", "Sequence", "normalize", "to_categorical"]
