"""Checks of the sizes a layer is given (units, kernel_size, strides, padding): a wrong one
raises when the layer is made, naming the layer and the argument; and the output length a
window of those sizes makes (convolutions and pooling share it)."""
import numpy as np


def is_int(value):
    """An int or a NumPy integer, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def pair(value, what, layer):
    """A positive int or a pair of them, as a pair: kernel_size=3 -> (3, 3).

    0, negative and fractional sizes raise here, naming the layer and the argument, rather
    than as a ZeroDivisionError in the initializer or a truncated 2.5 -> 2.
    """
    items = [value, value] if is_int(value) else (list(value) if isinstance(value, (list, tuple)) else None)
    if items is None or len(items) != 2 or not all(is_int(v) and v > 0 for v in items):
        raise ValueError(f"{layer}: {what} must be a positive integer or a pair of positive "
                         f"integers, got {value!r}")
    return tuple(int(v) for v in items)


def positive_int(value, what, layer):
    """`value` as an int, when it is an integer > 0."""
    if not is_int(value) or value <= 0:
        raise ValueError(f"{layer}: {what} must be a positive integer, got {value!r}")
    return int(value)


def check_padding(padding):
    """"valid" or "same" (in any case), as the lower-case name Keras's configs hold."""
    padding = str(padding).lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"padding must be 'valid' or 'same', got {padding!r}")
    return padding


def conv_length(n, k, stride, padding):
    """The output length of windows of size k, every `stride`, over n steps (None: unknown)."""
    if n is None:
        return None
    return -(-n // stride) if padding == "same" else (n - k) // stride + 1
