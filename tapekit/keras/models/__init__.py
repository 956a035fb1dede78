"""Models (`tk.models`, `tk.keras.models`): stacks and graphs of layers."""
from .sequential import Sequential

__all__ = ["Sequential"]
