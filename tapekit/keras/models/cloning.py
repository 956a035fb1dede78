"""keras.models.clone_model: a new model with the same layers and wiring and fresh weights.

Each layer is made again from its config (`layer.__class__.from_config(layer.get_config())`,
or your `clone_function(layer)`), so the clone's weights are initialized anew, not copied
(copy them with `clone.set_weights(model.get_weights())`). A layer used twice is cloned once
and used twice. A compiled model's clone is compiled with the same compile config (a new
optimizer of the same kind), as in Keras 3.15.
"""
from ... import nest
from ..keras_tensor import KerasTensor
from ..layers.input_layer import Input, InputLayer
from ..saving.serialization_lib import deserialize_keras_object, serialize_keras_object
from .model import Model
from .sequential import Sequential


def clone_model(model, input_tensors=None, clone_function=None, call_function=None,
                recursive=False, **kwargs):
    """A model of the same architecture as `model`, with newly initialized weights.

    Sequential and functional models are rebuilt layer by layer (`clone_function(layer)` makes
    each one; `call_function(layer, *args, **kwargs)` calls it, functional models only; with
    `recursive=True` a nested Sequential or functional model is cloned the same way). Any other
    model is made again from its config, as Keras does, which needs its get_config and
    from_config to describe it.

    >>> tk.layers.clear_session()
    >>> model = tk.Sequential([tk.Input(shape=(3,)), tk.layers.Dense(2, name="hidden")])
    >>> clone = tk.models.clone_model(model)
    >>> [layer.name for layer in clone.layers], clone.layers[0] is model.layers[0]
    (['hidden'], False)
    >>> bool((clone.layers[0].kernel.numpy() == model.layers[0].kernel.numpy()).all())
    False
    """
    cache = kwargs.pop("cache", None)
    if kwargs:
        raise ValueError(f"Unexpected keyword argument(s): {tuple(kwargs.keys())}")
    cache = {} if cache is None else cache
    if isinstance(model, Sequential):
        if call_function is not None:
            raise ValueError(
                "clone_model: `call_function` argument is not supported with Sequential models. "
                "In a Sequential model, layers aren't called at model-construction time "
                "(they're merely listed). Use `call_function` with Functional models only. "
                f"Received model of type '{type(model).__name__}'")
        clone = _clone_sequential(model, _cloner(clone_function, None, recursive, cache),
                                  input_tensors)
    elif isinstance(model, Model) and model.__dict__.get("_graph") is not None:
        clone = _clone_functional(model, _cloner(clone_function, call_function, recursive, cache),
                                  input_tensors, call_function)
    else:
        if clone_function is not None or input_tensors is not None:
            raise ValueError(
                "clone_model: arguments `clone_function` and `input_tensors` are only supported "
                "for Sequential models or Functional models. Received model of type "
                f"'{type(model).__name__}', with clone_function={clone_function} and "
                f"input_tensors={input_tensors}")
        if call_function is not None:
            raise ValueError("clone_model: argument `call_function` is only supported for "
                             f"Functional models. Received model of type '{type(model).__name__}'")
        config = serialize_keras_object(model)
        try:
            return deserialize_keras_object(config, custom_objects={type(model).__name__: type(model)})
        except TypeError as err:
            raise TypeError(
                f"clone_model: {type(model).__name__} could not be made again from its config "
                f"({err}). A subclassed model is cloned as Keras clones it, "
                f"`{type(model).__name__}.from_config(model.get_config())`: give the class a "
                f"get_config() that returns its constructor's arguments (and from_config if "
                f"they hold layers), or build the model again by calling its class.") from None
    if model.compiled:
        clone.compile_from_config(model.get_compile_config())
    return clone


def _cloner(clone_function, call_function, recursive, cache):
    """clone_function (default: from the layer's config), each layer cloned once (`cache`),
    nested Sequential and functional models cloned whole with `recursive`."""
    if clone_function is None:
        def clone_function(layer):
            return type(layer).from_config(layer.get_config())
    if not callable(clone_function):
        raise ValueError(f"Expected `clone_function` argument to be a callable. Received: "
                         f"clone_function={clone_function}")

    def clone(layer):
        if id(layer) not in cache:
            nested = isinstance(layer, Sequential) or (
                isinstance(layer, Model) and layer.__dict__.get("_graph") is not None)
            if recursive and nested:
                cache[id(layer)] = clone_model(
                    layer, clone_function=clone_function, recursive=True, cache=cache,
                    call_function=None if isinstance(layer, Sequential) else call_function)
            else:
                cache[id(layer)] = clone_function(layer)
        return cache[id(layer)]
    return clone


def _input_layer_of(tensor, what):
    history = getattr(tensor, "_keras_history", None)
    if not isinstance(tensor, KerasTensor) or history is None or not isinstance(history[0], InputLayer):
        raise ValueError(f"clone_model: {what} must be KerasTensors made by tk.Input(...); "
                         f"received {tensor!r}")
    return history[0]


def _clone_sequential(model, clone, input_tensors):
    layers = [clone(layer) for layer in model.layers]
    first = model._layers[0] if model._layers else None
    if input_tensors is not None:
        if isinstance(input_tensors, (list, tuple)):
            if len(input_tensors) != 1:
                raise ValueError("clone_model: argument `input_tensors` must contain a single "
                                 "tensor for a Sequential model")
            input_tensors = input_tensors[0]
        _input_layer_of(input_tensors, "input_tensors")
        layers = [input_tensors] + layers
    elif isinstance(first, InputLayer):
        layers = [Input(batch_shape=first.batch_shape, dtype=first.dtype, name=first.name)] + layers
    return Sequential(layers, name=model.name, trainable=model.trainable)


def _clone_functional(model, clone, input_tensors, call_function):
    graph = model._graph
    if input_tensors is None:
        new_inputs = nest.pack_like(graph.inputs, [
            Input(batch_shape=t.shape, dtype=t.dtype, name=t.name) for t in graph.flat_inputs])
    else:
        flat = nest.flatten(input_tensors)
        for t in flat:
            _input_layer_of(t, "all entries in `input_tensors`")
        if len(flat) != len(graph.flat_inputs):
            raise ValueError(f"clone_model: `input_tensors` must have the same structure as "
                             f"model.input: {len(graph.flat_inputs)} inputs "
                             f"({[t.name for t in graph.flat_inputs]}), received {len(flat)}")
        new_inputs = input_tensors
    new = {id(old): t for old, t in zip(graph.flat_inputs, nest.flatten(new_inputs))}

    def mapped(structure):
        return nest.pack_like(structure, [new[id(t)] if isinstance(t, KerasTensor) else t
                                          for t in nest.flatten(structure)])

    for node in graph.nodes:
        if not node.input_tensors:            # an Input: given above
            continue
        layer = clone(node.layer)
        kwargs = {k: mapped(v) for k, v in node.kwargs.items()}
        args = kwargs.pop("_args", ())
        inputs = mapped(node.inputs)
        out = (call_function(layer, inputs, *args, **kwargs) if call_function is not None
               else layer(inputs, *args, **kwargs))
        for old, t in zip(nest.flatten(node.outputs), nest.flatten(out)):
            new[id(old)] = t
    outputs = nest.pack_like(graph.outputs, [new[id(t)] for t in graph.flat_outputs])
    return Model(new_inputs, outputs, name=model.name)
