"""Models (`tk.models`, `tk.keras.models`): Model (subclassed or functional) and Sequential."""
from . import functional  # noqa: F401  (tk.models.functional.Graph)
from .model import Model
from .sequential import Sequential

__all__ = ["Model", "Sequential"]
