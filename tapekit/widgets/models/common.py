"""What the widgets' models share: turning values into arrays and short text, and the message
for a tape whose values were not kept.
"""
import numpy as np

from ...display.format import summary
from ...tensor import Tensor

NOT_RECORDED = ("This tape did not keep its values, so the backward pass cannot be shown "
                "with numbers. Turn display recording on BEFORE recording: "
                "tk.display.set_options(record=True) (on by default in Jupyter), then run the "
                "`with tk.GradientTape() as tape:` block again.")


def as_array(v):
    """A value as a NumPy array (a Tensor's own array; None stays None)."""
    if v is None:
        return None
    return v._value if isinstance(v, Tensor) else np.asarray(v)


def summary_text(v, precision=4):
    """A value as the short text display uses (format.summary); "None" for None."""
    return "None" if v is None else summary(v, precision)
