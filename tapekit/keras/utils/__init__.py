"""Keras utilities (`tk.utils`, `keras.utils`): PyDataset, the base class of Python datasets;
`to_categorical` and `normalize`; `pad_sequences`; `set_random_seed`; `img_to_array` and
`array_to_img` (Pillow, if installed); `Progbar`. naming.py, beside them, is the naming helper of the layers,
optimizers and saving, not one of tk.utils's names."""
from ... import namespaces
from .. import identifiers
from .image_utils import array_to_img, img_to_array
from .numerical_utils import normalize, to_categorical
from .progbar import Progbar
from .py_dataset import PyDataset, Sequence
from .rng_utils import set_random_seed
from .sequence_utils import pad_sequences

__all__ = identifiers.exported(globals())   # the names imported above

__dir__ = namespaces.public_dir(globals())   # dir() and tab completion: the public names only
