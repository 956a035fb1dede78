"""Keras utilities (`tk.utils`, `keras.utils`): PyDataset, the base class of Python datasets."""
from .py_dataset import PyDataset, Sequence

__all__ = ["PyDataset", "Sequence"]
