"""A layer's shapes as Keras prints them: `model.summary()`'s "Output Shape" column and the
shapes `plot_model` writes in each node (Keras 3's keras/src/utils/summary_utils.py has both).

>>> tk.layers.clear_session()
>>> x = tk.Input(shape=(3,))
>>> y = tk.layers.Dense(2)(x)
>>> tk.keras.utils.summary_utils.output_shape(y._keras_history[0])
'(None, 2)'
"""
from ..keras_tensor import KerasTensor


def format_shape(shape):
    """(None, 3), as Keras prints a shape."""
    return "(" + ", ".join(str(d) for d in shape) + ")"


def output_shape(layer):
    """The output shape of `layer` as Keras's summary prints it: from the layer's calls on
    symbolic inputs (functional models), else from the shape it was built for; "?" when unknown."""
    nodes = [n for n in layer._inbound_nodes if n.outputs is not None]
    if nodes:
        outs = nodes[-1].outputs
        flat = outs if isinstance(outs, (list, tuple)) else [outs]
        shapes = [format_shape(t.shape) for t in flat if isinstance(t, KerasTensor)]
        if len(shapes) == 1 and not isinstance(outs, (list, tuple)):
            return shapes[0]
        if shapes:
            return "[" + ", ".join(shapes) + "]" if isinstance(outs, list) else \
                "(" + ", ".join(shapes) + ")"
    shape = layer.__dict__.get("_build_shape", getattr(layer, "input_shape", None))
    if layer.built and shape is not None:
        try:
            out = layer.compute_output_shape(shape)
        except (ValueError, TypeError, NotImplementedError):   # Keras prints "?" too
            return "?"
        if isinstance(out, list):
            return "[" + ", ".join(format_shape(s) for s in out) + "]"
        return format_shape(out)
    return "?"
