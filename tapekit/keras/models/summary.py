"""`model.summary()`: a table of layers, output shapes and parameter counts."""


def output_shape(model, layer):
    """The output shape of `layer` in `model`, as Keras's summary finds it: from the model's
    graph (functional), else from the shape the layer was built for; "?" when unknown."""
    graph = getattr(model, "_graph", None)
    if graph is not None:
        shapes = graph.output_shapes(layer)
        if shapes:
            return str(shapes[0]) if len(shapes) == 1 else str(shapes)
    if layer.built and layer.input_shape is not None:
        try:
            return str(layer.compute_output_shape(layer.input_shape))
        except (ValueError, TypeError, NotImplementedError):   # a layer whose shape cannot be inferred: Keras prints "?" too
            return "?"
    return "?"


def summary(model, rows, print_fn=print):
    """Print `rows` [(layer, output shape text)] in the table of `tf.keras` Model.summary."""
    cells = [(f"{layer.name} ({type(layer).__name__})", shape,
              f"{layer.count_params():,}" if layer.built else "0 (unbuilt)")
             for layer, shape in rows]
    widths = (max(28, *(len(r[0]) + 2 for r in cells)) if cells else 28,
              max(26, *(len(r[1]) + 2 for r in cells)) if cells else 26)
    line = "_" * (sum(widths) + 10)
    table = [f'Model: "{model.name}"', line,
             f"{'Layer (type)':<{widths[0]}}{'Output Shape':<{widths[1]}}Param #",
             "=" * len(line)]
    table += [f"{a:<{widths[0]}}{b:<{widths[1]}}{c}" for a, b, c in cells]
    trainable = sum(int(v.size) for v in model.trainable_weights)
    total = sum(int(v.size) for v in model.weights)
    table += ["=" * len(line), f"Total params: {total:,}", f"Trainable params: {trainable:,}",
              f"Non-trainable params: {total - trainable:,}", line]
    print_fn("\n".join(table))
