"""tk.autograph.to_code: the Python a tk.function runs (`tf.autograph.to_code`).

TensorFlow's to_code returns AutoGraph's conversion of the function's source (Python
control flow rewritten into graph ops). tapekit converts nothing: it traces the real
Python and records each decision on a traced value as a guard (see function.py). What it
runs is the generated program of a trace: straight-line Python, one line per op, a guard
per decision. to_code returns that source for the function's most recent trace.
"""
from .function import Function


def to_code(entity, recursive=True, experimental_optional_features=None):
    """The generated source of `entity`'s last trace (a tk.function that has been called or
    asked for get_concrete_function)."""
    if not isinstance(entity, Function):
        raise TypeError(f"tk.autograph.to_code: expected a tk.function, got "
                        f"{type(entity).__name__}; tapekit does not rewrite plain Python "
                        f"source. Wrap it: tk.autograph.to_code(tk.function(fn)) after a call")
    if entity._last_program is None:
        raise ValueError(f"tk.autograph.to_code: tk.function {entity._name} has not been traced "
                         f"yet; call it, or f.get_concrete_function(tk.TensorSpec(...)), first")
    return entity._last_program.code
