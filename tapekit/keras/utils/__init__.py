"""Utilities (`keras.utils`): `to_categorical`, `normalize`."""
from .numerical_utils import normalize, to_categorical

__all__ = ["normalize", "to_categorical"]
