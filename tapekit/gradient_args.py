"""What GradientTape.gradient and jacobian check in what they are given, and the warnings
they give: which `unconnected_gradients` values exist, that targets and sources are
tensors, that they are floating (else a GradientDtypeWarning at the user's line), and
that `output_gradients` match their targets, batch_jacobian's shapes, and why a used
non-persistent tape refuses a second call; and how a result is given back (as_result).
"""
import enum

import numpy as np

from .callsite import warn_at_user
from .context import state
from .ops.shapes import reshape
from .tensor import Tensor, Variable, wrap_array


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on.

    >>> x, y = tk.Variable(1.0), tk.Variable(2.0)
    >>> with tk.GradientTape(persistent=True) as tape:
    ...     z = x * 3.0                    # y is not used
    >>> print(tape.gradient(z, y))
    None
    >>> tape.gradient(z, y, unconnected_gradients=tk.UnconnectedGradients.ZERO)
    tk.Tensor(0.0, shape=(), dtype=float32)
    """

    NONE = "none"
    ZERO = "zero"


def refuse_second_call(what, failed):
    """A non-persistent tape's second gradient/jacobian call: say why it cannot run. `failed`
    is what the first call raised, if it raised."""
    if failed is not None:
        first = str(failed).splitlines()[0] if str(failed) else ""
        raise RuntimeError(
            f"GradientTape.{what}: this non-persistent tape's first gradient call raised "
            f"{type(failed).__name__}: {first}. That call already released the tape's records, so "
            f"nothing is left to differentiate. Fix what it raised and record again, or use "
            f"tk.GradientTape(persistent=True) to keep the records across gradient calls")
    raise RuntimeError(
        f"GradientTape.{what}: a non-persistent GradientTape can only be used to compute one set "
        f"of gradients (or jacobians). Create it with tk.GradientTape(persistent=True) to call "
        f"gradient() more than once.")


def check_batch_shapes(target, source):
    """batch_jacobian's target and source: rank 2 or more, one batch dimension."""
    if target.ndim < 2 or source.ndim < 2:
        raise ValueError(f"GradientTape.batch_jacobian: target and source must have rank 2 or "
                         f"more (batch, ...), as in TensorFlow; got shapes {target.shape} and "
                         f"{source.shape}. For a vector, use tape.jacobian (or reshape to (b, 1))")
    if target.shape[0] != source.shape[0]:
        raise ValueError(f"GradientTape.batch_jacobian: target and source need the same first "
                         f"(batch) dimension, got shapes {target.shape} and {source.shape}")


def unconnected(value):
    if isinstance(value, UnconnectedGradients):
        return value
    if isinstance(value, str) and value.lower() in ("none", "zero"):
        return UnconnectedGradients(value.lower())
    raise ValueError(f"GradientTape: unconnected_gradients must be UnconnectedGradients.NONE, "
                     f"UnconnectedGradients.ZERO, 'none' or 'zero', got {value!r}")


def check_tensors(role, items):
    for k, t in enumerate(items):
        if not isinstance(t, Tensor):
            where = f"{role} #{k}" if len(items) > 1 else role
            hint = (" (a gradient that came back None?)" if t is None else "")
            raise TypeError(f"GradientTape: the {where} must be a tk.Tensor or tk.Variable, got "
                            f"{type(t).__name__}{hint}. Compute it from watched tensors inside "
                            f"the tape, or convert it with tk.constant(...) and tape.watch(...)")


def warn_if_not_floating(t, role, k):
    if t._value.dtype.kind in "fc":
        return True
    if role == "target":
        fix = "Compute it from floating tensors (dtype=tk.float32)."
    else:
        kind = "tk.Variable" if isinstance(t, Variable) else "tk.constant"
        example = (f"{kind}({float(t._value.item())!r})" if t.ndim == 0 and t.dtype.kind in "iu"
                   else f"{kind}(..., dtype=tk.float32)")
        fix = f"Create it as a float, e.g. dtype=tk.float32 ({example})."
    _warn(f"GradientTape: the {role} tensor{'' if k == 0 else f' #{k}'} has dtype "
          f"{t.dtype.name}; gradients are defined only for floating dtypes, so its "
          f"gradient is None. {fix}")
    return False


def warn_watch_dtype(t):
    kind = "tk.Variable" if isinstance(t, Variable) else "tk.constant"
    _warn(f"GradientTape.watch: the tensor has dtype {t.dtype.name}; gradients are defined only "
          f"for floating dtypes, so its gradient will be None. Create it as a float, e.g. "
          f"{kind}(..., dtype=tk.float32)")


class GradientDtypeWarning(UserWarning):
    """An integer or bool target or source: its gradient is None.

    >>> import warnings
    >>> x = tk.constant(3)                 # an int32 tensor
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with tk.GradientTape() as tape:
    ...         tape.watch(x)
    ...         y = x * x
    ...     print(tape.gradient(y, x))
    None
    >>> caught[0].category.__name__
    'GradientDtypeWarning'
    """


def _warn(message):
    # Shown every time (TensorFlow warns only a few times per process), at the user's line.
    warn_at_user(message, GradientDtypeWarning)


def output_gradient(t, og):
    given = og._value.dtype if isinstance(og, Tensor) else getattr(og, "dtype", None)
    if given is not None and given != t.dtype:
        # TensorFlow raises on this mismatch; a silent cast would hide a float64 or int
        # array where the gradient of a float32 target belongs. Python numbers and lists
        # take the target's dtype, as everywhere in tapekit.
        raise TypeError(f"GradientTape.gradient: output_gradients has dtype {np.dtype(given).name}, "
                        f"but its target has dtype {t.dtype.name}; they must match. Cast it: "
                        f"tk.cast(output_gradients, tk.{t.dtype.name})")
    arr = og._value if isinstance(og, Tensor) else np.asarray(og, dtype=t.dtype)
    if arr.shape != t.shape:
        raise ValueError(f"GradientTape.gradient: output_gradients has shape {arr.shape}, "
                         f"but its target has shape {t.shape}; they must match")
    if isinstance(og, Tensor) and (state.tapes or state.accumulators):
        return og  # keep it recorded: d(gradient)/d(output_gradients) works in an outer tape
    return arr


def reshape_result(g, shape):
    """A gradient `g` (an array, or a tensor when the backward pass was recorded) in `shape`."""
    if g.shape == shape:
        return g
    if isinstance(g, Tensor):
        return reshape(g, shape)
    return g.reshape(shape)


def as_result(g):
    """What gradient() returns for `g`: None, or a Tensor (an array is wrapped)."""
    if g is None or isinstance(g, Tensor):
        return g
    return wrap_array(np.asarray(g) if not isinstance(g, np.ndarray) else g)
