"""`tk.constant` and `tk.convert_to_tensor`, for the modules above the ops (tape, keras, ...).

Defined in ops/conversion.py: they run ops (a Variable's recorded read, stacking a list of
tensors) and the ops convert their inputs with them, so they belong to the ops' layer.
"""
from .ops.conversion import constant, convert_to_tensor  # noqa: F401
