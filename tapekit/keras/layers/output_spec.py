"""A layer's output shapes and dtypes without data: `call` run once on zeros of the input's
shapes (unknown sizes as 1), on no tape: tapekit's way to Keras's compute_output_spec (which
traces `call` on symbolic tensors, with no values). `Layer` uses it for
`compute_output_shape` and for calls on symbolic inputs (`tk.Input`).
"""
from ... import nest
from ...context import state as _tape_state
from ...ops import zeros
from ..saving.files import check_declared
from .shapes import shape_list, shape_structure


def run_on_zeros(layer, shapes, dtype_list, args=(), kwargs=None, with_structure=False,
                 masks=None):
    """Run `layer.call` on zeros of `shapes` (unknown sizes as 1), recording on no tape, and
    return the output shapes (batch axis as None) and dtypes, what Keras's compute_output_spec gives.
    `masks` (a masking.ZeroMasks) gives the zeros the symbolic inputs' masks, all True, and
    keeps the masks of the outputs."""
    in_shapes = shape_list(shapes)
    for s, dt in zip(in_shapes, dtype_list):      # a loaded config's shapes: checked first
        check_declared(f"{type(layer).__name__} {layer.name!r}: zeros of its input shape", s, dt)
    zero = [zeros([1 if d is None else d for d in s], dtype=dt) for s, dt in zip(in_shapes, dtype_list)]
    feed = zero[0] if len(zero) == 1 and isinstance(shapes, tuple) and in_shapes[0] == shapes \
        else nest.pack_like(shape_structure(shapes), zero)
    # no training, and no mask unless masks= says which: a symbolic mask= has no values
    kwargs = {k: v for k, v in (kwargs or {}).items() if k not in ("training", "mask")}
    previous = masks.attach(zero, feed, kwargs) if masks is not None else None
    saved = (_tape_state.tapes, _tape_state.accumulators, dict(_losses_of(layer)))
    _tape_state.tapes, _tape_state.accumulators = [], []
    try:
        out = layer.call(feed, *args, **kwargs)
        if masks is not None and out is not None:
            masks.read_outputs(layer, feed, out, previous)
    finally:
        _tape_state.tapes, _tape_state.accumulators = saved[0], saved[1]
        for lyr, losses in saved[2].items():
            lyr.__dict__["_losses"] = losses
    if out is None:
        raise returned_none(layer)
    flat = nest.flatten(out)
    out_shapes = [(None,) + tuple(t.shape[1:]) if in_shapes[0] and in_shapes[0][0] is None
                  else tuple(t.shape) for t in flat]
    out_dtypes = [t.dtype for t in flat]
    if with_structure:
        return out_shapes, out_dtypes, (out if nest.is_nested(out) else None)
    return (out_shapes[0] if len(out_shapes) == 1 and not nest.is_nested(out) else out_shapes), out_dtypes


def returned_none(layer):
    return ValueError(f"Layer {layer.name!r} ({type(layer).__name__}) returned None from "
                      f"call(): a layer must return its output tensor(s). Add the missing "
                      f"`return` at the end of {type(layer).__name__}.call")


def _losses_of(layer):
    return {lyr: list(lyr.__dict__.get("_losses", []))
            for lyr in [layer] + layer._flatten_layers(recursive=True)}
