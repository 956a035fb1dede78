"""tapekit.image: the tf.image functions tapekit has (see ops/image.py)."""
from .ops.image import adjust_contrast, resize
from .namespaces import public_dir

__all__ = ["adjust_contrast", "resize"]


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
