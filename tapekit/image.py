"""tapekit.image: the tf.image functions tapekit has (see ops/image.py)."""
from .ops.image import adjust_contrast

__all__ = ["adjust_contrast"]
