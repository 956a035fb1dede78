"""The graph of a functional model: the recorded layer calls from its inputs to its outputs.

`Model(inputs, outputs)` walks back from the output KerasTensors through the Nodes that
made them (`tensor._keras_history`) to the Inputs, orders the nodes so that every node
comes after the nodes feeding it, and replays them on real tensors (Keras 3's
keras/src/ops/function.py: `tensor_dict[id(x)] = y`, node by node).
"""
import numpy as np

from ... import nest
from ...convert import convert_to_tensor
from ...ops import cast
from ...tensor import Tensor
from ..keras_tensor import KerasTensor
from .. import masking
from ..layers.base import call_training


class Graph:
    """The nodes between `inputs` and `outputs` (structures of KerasTensors), in run order.

    >>> x = tk.Input(shape=(2,))
    >>> graph = tk.keras.models.functional.Graph(x, tk.layers.Dense(3)(x))
    >>> [type(layer).__name__ for layer in graph.layers]
    ['InputLayer', 'Dense']
    """

    def __init__(self, inputs, outputs):
        self.inputs, self.outputs = inputs, outputs
        self.flat_inputs = _keras_tensors(inputs, "inputs")
        self.flat_outputs = _keras_tensors(outputs, "outputs")
        self.nodes = self._order()
        self.layers = _keras_layer_order(self.flat_inputs, self.flat_outputs)
        for node in self.nodes:        # anything Keras's walk leaves out, in run order
            if node.layer not in self.layers:
                self.layers.append(node.layer)

    def _order(self):
        """Post-order walk from the outputs: each node after the nodes it reads."""
        input_ids = {id(t) for t in self.flat_inputs}
        order, done, active = [], set(), set()

        def visit(tensor, path):
            if id(tensor) in input_ids:
                node = tensor._keras_history[1]
                if id(node) not in done:
                    done.add(id(node))
                    order.append(node)
                return
            history = tensor._keras_history
            if history is None or not history[1].input_tensors:
                raise ValueError(
                    f"Graph disconnected: cannot obtain the value of {tensor!r} (made by "
                    f"{_describe(history)}), needed by {path or 'the outputs'}. Every Input the "
                    f"outputs depend on must be in Model(inputs=...); the model's inputs are "
                    f"{[t.name for t in self.flat_inputs]}")
            node = history[1]
            if id(node) in done:
                return
            if id(node) in active:
                raise ValueError(f"Model: the graph has a cycle through layer {node.layer.name!r}")
            active.add(id(node))
            for t in node.input_tensors:
                visit(t, f"layer {node.layer.name!r}")
            active.discard(id(node))
            done.add(id(node))
            order.append(node)

        for t in self.flat_inputs:
            visit(t, None)
        for t in self.flat_outputs:
            visit(t, None)
        return order

    def output_shapes(self, layer):
        """The output shapes of `layer`'s calls in this graph (for summary)."""
        return [t.shape for node in self.nodes if node.layer is layer
                for t in nest.flatten(node.outputs)]

    def run(self, flat_inputs, mask=None):
        """Replay the nodes on real tensors (`flat_inputs` from `convert`); `training` travels
        in the layers' call context. `mask` (one per input, or None) goes with the inputs, as
        their `_keras_mask`, to the layers they feed (Keras 3's Functional.call)."""
        given = [None] * len(flat_inputs) if mask is None else nest.flatten(mask)
        if len(given) != len(flat_inputs):
            raise ValueError(f"Model: mask= needs one mask (or None) per input "
                             f"({[t.name for t in self.flat_inputs]}), got {len(given)}")
        values = {id(t): v if m is None else masking.with_mask(v, m)
                  for t, v, m in zip(self.flat_inputs, flat_inputs, given)}

        def value(x):
            return values[id(x)] if isinstance(x, KerasTensor) else x

        for node in self.nodes:
            if not node.input_tensors:      # an Input: its value is given
                continue
            args = nest.pack_like(node.inputs, [value(t) for t in nest.flatten(node.inputs)])
            kwargs = {k: nest.pack_like(v, [value(t) for t in nest.flatten(v)])
                      for k, v in node.kwargs.items()}       # a symbolic mask= too
            if kwargs.get("training") is not None and call_training() is not None:
                kwargs["training"] = call_training()   # Keras 3: the model call's training wins
            out = node.layer(args, *kwargs.pop("_args", ()), **kwargs)
            for t, v in zip(nest.flatten(node.outputs), nest.flatten(out)):
                values[id(t)] = v
        return nest.pack_like(self.outputs, [values[id(t)] for t in self.flat_outputs])

    def convert(self, inputs):
        """The model's inputs, flat, in the order of Model(inputs=...), each converted to its
        Input's dtype (Keras's functional models do: uint8 pixels into a float32 Input)."""
        if isinstance(inputs, dict) and not isinstance(self.inputs, dict):
            names = [t.name for t in self.flat_inputs]
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError(f"Model: inputs given as a dict need the keys {names} (the "
                                 f"names of the model's Inputs), missing {missing}")
            flat = [inputs[n] for n in names]
        elif len(self.flat_inputs) == 1:
            one = isinstance(inputs, (list, tuple)) and len(inputs) == 1 and \
                isinstance(inputs[0], (Tensor, np.ndarray))
            flat = [inputs[0] if one else inputs]
        else:
            flat = nest.flatten(inputs)
        if len(flat) != len(self.flat_inputs):
            raise ValueError(f"Model: expected {len(self.flat_inputs)} inputs "
                             f"({[t.name for t in self.flat_inputs]}), got {len(flat)}")
        return [_as_dtype(x, t.dtype) for x, t in zip(flat, self.flat_inputs)]


def _keras_layer_order(flat_inputs, flat_outputs):
    """The layers in Keras 3's order (keras/src/ops/function.py, map_graph): deepest first,
    a layer's depth being the most layer calls between it and an output, and at one depth in
    the order a depth-first walk from the outputs first meets them. model.layers, weights and
    get_weights follow it, so a branched model's weights line up with Keras's."""
    input_ids = {id(t) for t in flat_inputs}
    walked, first_seen, done = [], {}, set()

    def walk(tensor):
        layer, node = tensor._keras_history[0], tensor._keras_history[1]
        if id(node) in done:
            return
        if id(tensor) in input_ids and node.input_tensors:   # an inner tensor given as an input
            done.add(id(node))
            return
        first_seen.setdefault(id(layer), len(first_seen))
        for t in node.input_tensors:
            walk(t)
        done.add(id(node))
        walked.append(node)

    for t in flat_outputs:
        walk(t)
    in_graph = {id(n) for n in walked}
    node_depth, layer_depth, layers = {}, {}, {}
    for node in reversed(walked):              # each node after every node that reads it
        depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
        node_depth[id(node)] = layer_depth[id(node.layer)] = depth
        layers[id(node.layer)] = node.layer
        for t in node.input_tensors:
            parent = t._keras_history[1]
            if id(parent) in in_graph:
                node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
    for t in flat_inputs:                      # an Input no output depends on: depth 0
        layer, node = t._keras_history[0], t._keras_history[1]
        if id(layer) not in layer_depth and not node.input_tensors:
            layer_depth[id(layer)], first_seen[id(layer)], layers[id(layer)] = 0, -1, layer
    return sorted(layers.values(), key=lambda l: (-layer_depth[id(l)], first_seen[id(l)]))


def _as_dtype(x, dtype):
    if isinstance(x, Tensor):
        return x if x.dtype == dtype else cast(x, dtype)
    return convert_to_tensor(x, dtype=dtype)


def _keras_tensors(structure, what):
    flat = nest.flatten(structure)
    bad = [x for x in flat if not isinstance(x, KerasTensor)]
    if bad or not flat:
        raise TypeError(f"Model({what}=...): expected KerasTensors (from tk.Input(...) and layers "
                        f"called on them), got {type(bad[0]).__name__ if bad else 'nothing'}. "
                        f"For a model on real tensors, subclass tk.Model and write call()")
    return flat


def _describe(history):
    return "no layer" if history is None else f"layer {history[0].name!r}"
