"""Models to and from Keras 3's configs: a functional model's graph as "layers" (each with its
"inbound_nodes"), "input_layers" and "output_layers"; compile's arguments as Keras's
compile config. Used by Model.get_config/from_config and the .keras file.
"""
import inspect
import warnings

from ... import nest
from ..keras_tensor import KerasTensor
from ..layers.input_layer import InputLayer
from ..saving import serialization_lib as lib


def functional_config(model):
    """{"name", "trainable", "layers", "input_layers", "output_layers"} as Keras 3 writes a
    functional model's config; a node is numbered among the layer's calls in this model."""
    graph = model._graph
    in_graph = {id(n) for n in graph.nodes}
    names = [layer.name for layer in graph.layers]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"get_config: model {model.name!r} has several layers named {twice}; a "
                         f"config refers to layers by name, so give them distinct names")
    index = {}
    for layer in graph.layers:
        k = 0
        for node in layer._inbound_nodes:
            if id(node) in in_graph:
                index[id(node)] = k
                k += 1

    def ref(t):
        layer, node, i = t._keras_history
        return [layer.name, index[id(node)], i]

    def arg(x):
        if isinstance(x, KerasTensor):
            return {"class_name": "__keras_tensor__",
                    "config": {"shape": list(x.shape), "dtype": x.dtype.name,
                               "keras_history": ref(x)}}
        if isinstance(x, (list, tuple)):
            return [arg(v) for v in x]
        if isinstance(x, dict):
            return {k: arg(v) for k, v in x.items()}
        return lib.serialize_keras_object(x)

    layers = []
    for layer in graph.layers:
        config = lib.serialize_keras_object(layer)
        config["name"] = layer.name
        nodes = [n for n in layer._inbound_nodes if id(n) in in_graph and n.input_tensors]
        config["inbound_nodes"] = [
            {"args": [arg(n.inputs)] + [arg(a) for a in n.kwargs.get("_args", ())],
             "kwargs": {k: arg(v) for k, v in n.kwargs.items() if k != "_args"}}
            for n in nodes]
        layers.append(config)

    def structure(x):
        if isinstance(x, KerasTensor):
            return ref(x)
        if isinstance(x, dict):
            return {k: structure(v) for k, v in x.items()}
        return [structure(v) for v in x]

    return {"name": model.name, "trainable": model.trainable, "layers": layers,
            "input_layers": structure(model._graph.inputs),      # as given: one, a list, a dict
            "output_layers": structure(model._graph.outputs)}


def functional_from_config(cls, config, custom_objects=None):
    """A functional model from its config: each layer made from its config, then called on
    the tensors its "inbound_nodes" name, in an order where every input already exists."""
    for key in ("layers", "input_layers", "output_layers"):
        if key not in config:
            raise ValueError(f"{cls.__name__}.from_config: a functional model's config needs "
                             f"{key!r}; it has {sorted(config)}")
    made, outputs, todo = {}, {}, []
    for entry in config["layers"]:
        if not isinstance(entry, dict):
            raise ValueError(f"{cls.__name__}.from_config: each entry of 'layers' must be a "
                             f"layer config, got {entry!r:.80}")
    ops = _mask_ops(cls, config)
    for entry in config["layers"]:
        if entry.get("name") in ops:
            continue
        entry = dict(entry)
        name = entry.pop("name", None)
        inbound = [_without_mask_ops(node, ops) for node in entry.pop("inbound_nodes", [])]
        layer = lib.deserialize_keras_object(entry, custom_objects=custom_objects)
        name = name or layer.name
        if name in made:
            raise ValueError(f"{cls.__name__}.from_config: two layers are named {name!r}")
        made[name] = layer
        outputs[name] = [[layer.output]] if isinstance(layer, InputLayer) else []
        todo.append((name, layer, list(inbound)))

    def resolve(x):
        """x with each __keras_tensor__ replaced by its tensor; KeyError while not made yet."""
        if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
            name, node, i = x["config"]["keras_history"]
            return outputs[name][node][i]
        if isinstance(x, list):
            return [resolve(v) for v in x]
        if isinstance(x, dict):
            return {k: resolve(v) for k, v in x.items()}
        return lib.deserialize_keras_object(x, custom_objects=custom_objects)

    while any(nodes for _, _, nodes in todo):
        progress = False
        for name, layer, nodes in todo:
            while nodes:
                node = nodes[0]
                if isinstance(node, list):        # Keras 2's [[name, node, index, kwargs], ...]
                    raise ValueError(f"{cls.__name__}.from_config: layer {name!r} has inbound "
                                     f"nodes in Keras 2's format; tapekit reads Keras 3's files")
                try:
                    args = resolve(node.get("args", []))
                    kwargs = resolve(node.get("kwargs", {}))
                except (KeyError, IndexError):
                    break
                if not args:
                    raise ValueError(f"{cls.__name__}.from_config: a node of layer {name!r} "
                                     f"has no inputs")
                out = layer(args[0], *args[1:], **kwargs)
                outputs[name].append(nest.flatten(out))
                nodes.pop(0)
                progress = True
        if not progress:
            stuck = [name for name, _, nodes in todo if nodes]
            raise ValueError(f"{cls.__name__}.from_config: the inbound nodes of layers {stuck} "
                             f"refer to tensors no layer makes (a damaged config)")

    def tensors(spec):
        if isinstance(spec, list) and len(spec) == 3 and isinstance(spec[0], str) \
                and isinstance(spec[1], int):
            try:
                return outputs[spec[0]][spec[1]][spec[2]]
            except (KeyError, IndexError):
                raise ValueError(f"{cls.__name__}.from_config: the model's inputs or outputs "
                                 f"name {spec}, which no layer makes") from None
        if isinstance(spec, dict):
            return {k: tensors(v) for k, v in spec.items()}
        if isinstance(spec, list):
            return [tensors(v) for v in spec]
        raise ValueError(f"{cls.__name__}.from_config: cannot read {spec!r:.80} as the model's "
                         f"inputs or outputs")

    inputs, outs = tensors(config["input_layers"]), tensors(config["output_layers"])
    model = cls(inputs=inputs, outputs=outs, name=config.get("name"))
    if config.get("trainable") is False:
        model.trainable = False
    return model


# --- compile ---------------------------------------------------------------------------------
def _history_names(x):
    """The names of the layers whose outputs `x` (a node's args or kwargs) refers to."""
    if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
        return {x["config"]["keras_history"][0]}
    if isinstance(x, (list, tuple)):
        return set().union(*(_history_names(v) for v in x)) if x else set()
    if isinstance(x, dict):
        return set().union(*(_history_names(v) for v in x.values())) if x else set()
    return set()


def _mask_ops(cls, config):
    """The names of the keras.ops nodes of a Keras 3 config that only compute masks. Keras 3
    records the masks it made on symbolic tensors (Embedding(mask_zero=True)'s not_equal,
    Masking's any, the merge layers' logical_or, ...) as nodes of keras.ops that feed the
    layers' mask= arguments; tapekit's layers make those masks again from their inputs when
    the model runs, so these nodes and the mask= they feed are left out. An op whose output
    a layer reads as data is refused: tapekit runs no keras.ops on symbolic tensors."""
    ops = {e.get("name") for e in config["layers"]
           if isinstance(e, dict) and str(e.get("module", "")).startswith("keras.src.ops")}
    if not ops:
        return ops
    for entry in config["layers"]:
        if entry.get("name") in ops:
            continue
        for node in entry.get("inbound_nodes", []):
            data = {k: v for k, v in node.get("kwargs", {}).items() if k != "mask"} \
                if isinstance(node, dict) else node
            used = _history_names([node.get("args", []), data] if isinstance(node, dict) else data)
            if used & ops:
                raise ValueError(
                    f"{cls.__name__}.from_config: layer {entry.get('name')!r} reads the output "
                    f"of the keras.ops call(s) {sorted(used & ops)} as data; tapekit's functional "
                    f"models run layers only. Put the computation in a layer (e.g. "
                    f"tk.layers.Lambda), or load the model in Keras")
    if _history_names([config.get("output_layers")]) & ops:
        raise ValueError(f"{cls.__name__}.from_config: the model's outputs come from keras.ops "
                         f"calls {sorted(_history_names([config['output_layers']]) & ops)}; "
                         f"tapekit's functional models run layers only")
    return ops


def _without_mask_ops(node, ops):
    """A node without its mask= when Keras computed that mask with keras.ops (_mask_ops)."""
    if not isinstance(node, dict) or not ops or "mask" not in node.get("kwargs", {}):
        return node
    if not _history_names(node["kwargs"]["mask"]) & ops:
        return node
    return {**node, "kwargs": {k: v for k, v in node["kwargs"].items() if k != "mask"}}


def compile_arguments(trainer_compile, args, kwargs):
    """compile's arguments by name (with its defaults), as the compile config keeps them."""
    bound = inspect.signature(trainer_compile).bind(None, *args, **kwargs)
    bound.apply_defaults()
    out = dict(bound.arguments)
    out.pop("self", None)
    out.update(out.pop("kwargs", {}) or {})
    return out


def compile_config(model):
    """Keras 3's compile config of a compiled model, or None (with a warning) when a part
    cannot be written (a loss or metric without get_config)."""
    given = model.__dict__.get("_compile_arguments")
    if not getattr(model, "compiled", False) or given is None:
        return None
    try:
        return {"optimizer": lib.serialize_keras_object(model.optimizer),
                "loss": lib.serialize_keras_object(given.get("loss")),
                "loss_weights": lib.serialize_keras_object(given.get("loss_weights")),
                "metrics": lib.serialize_keras_object(given.get("metrics")),
                "weighted_metrics": lib.serialize_keras_object(given.get("weighted_metrics")),
                "run_eagerly": bool(given.get("run_eagerly", False)),
                "steps_per_execution": given.get("steps_per_execution", 1),
                "jit_compile": False}
    except TypeError as err:
        warnings.warn(f"save: model {model.name!r} is saved without its compile settings ({err}); "
                      f"compile it again after loading", stacklevel=4)
        return None


def compile_from_config(model, config):
    """compile(**config) with the optimizer, loss and metrics the config describes. When
    tapekit cannot compile them (a setting it lacks), the model loads uncompiled, with a
    warning that says why: its architecture and weights are still of use."""
    try:
        _compile_from_config(model, config)
    except (ValueError, NotImplementedError) as err:
        model.compiled = False
        warnings.warn(f"load_model: model {model.name!r} was loaded without compiling it, as "
                      f"its compile settings could not be used: {err}. Call model.compile(...) "
                      f"before fit or evaluate.", stacklevel=4)


def _compile_from_config(model, config):
    config = lib.deserialize_keras_object(config)
    if not isinstance(config, dict):
        raise ValueError(f"compile_config must be a dict, got {type(config).__name__}")
    accepted = inspect.signature(type(model).compile).parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in accepted.values())
    kwargs = {k: v for k, v in config.items() if takes_any or k in accepted}
    for key in ("jit_compile", "steps_per_execution"):
        if key in kwargs and key not in accepted and not takes_any:
            kwargs.pop(key)
    if kwargs.get("weighted_metrics") is None:
        kwargs.pop("weighted_metrics", None)
    model.compile(**kwargs)
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and model.built and optimizer._slot_names:
        optimizer.build(model.trainable_variables)
