"""Models (`tk.models`, `tk.keras.models`): Model (subclassed or functional) and Sequential."""
from . import functional  # noqa: F401  (tk.models.functional.Graph)
from .model import Model
from .sequential import Sequential
from ..saving.saving_lib import load_model, model_from_json, save_model
from ...namespaces import public_dir

__all__ = ["Model", "Sequential", "load_model", "model_from_json", "save_model"]


__dir__ = public_dir(globals())   # dir() and tab completion: the public names only
