"""Keras utilities (`tk.utils`, `keras.utils`): PyDataset, the base class of Python datasets;
`to_categorical` and `normalize`; `pad_sequences`; `set_random_seed`; `img_to_array` and
`array_to_img` (Pillow, if installed); `Progbar`; `plot_model` and `model_to_dot` (Graphviz).
Beside them, and not among tk.utils's names: naming.py, the naming helper of the layers,
optimizers and saving, and summary_utils.py, a layer's shapes as summary and plot_model print
them."""
from ... import namespaces
from .. import identifiers
from .image_utils import array_to_img, img_to_array
from .model_visualization import model_to_dot, plot_model
from .numerical_utils import normalize, to_categorical
from .progbar import Progbar
from .py_dataset import PyDataset, Sequence
from .rng_utils import set_random_seed
from .sequence_utils import pad_sequences

__all__ = identifiers.exported(globals())   # the names imported above

__dir__ = namespaces.public_dir(globals())   # dir() and tab completion: the public names only
