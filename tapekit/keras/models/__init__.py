"""Models (`tk.models`, `tk.keras.models`): Model (subclassed or functional) and Sequential."""
from ... import namespaces
from .. import identifiers
from . import functional  # noqa: F401  (tk.models.functional.Graph)
from .model import Model
from .sequential import Sequential
from .cloning import clone_model
from ..saving.saving_lib import load_model, model_from_json, save_model
from ..saving import lookup

__all__ = identifiers.exported(globals())   # the names imported above
# A Keras config names these as keras.models (saving/lookup.py finds them in this table).
lookup.register_builtins("keras.models", {name: globals()[name] for name in __all__})

__dir__ = namespaces.public_dir(globals())   # dir() and tab completion: the public names only
