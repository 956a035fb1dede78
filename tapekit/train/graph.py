"""The dependency graph a tk.train.Checkpoint saves: objects joined by names.

The checkpoint's keyword names (`model`, `optimizer`), then each object's attributes by name (a
tk.Module's or a Keras layer's `dense`, `kernel`, ...; a list's items by index, a dict's values
by key; a Sequential's or functional model's layers as `layers/0`, `layers/1`, ... without
InputLayers), down to the variables. Walked breadth first, each object at its shortest route
(ties: the route whose names sort first), as TensorFlow's.
"""
from ..keras.layers.input_layer import InputLayer
from ..keras.optimizers.base_optimizer import Optimizer
from ..module import Module
from ..tensor import Variable


def trackable(value):
    return (isinstance(value, (Variable, Module)) or hasattr(value, "_checkpoint_children")
            or isinstance(value, Optimizer))


def _holds_trackable(value, depth=0):
    if depth > 20:
        return False
    items = value.values() if isinstance(value, dict) else value
    return any(trackable(v) or (isinstance(v, (list, tuple, dict)) and _holds_trackable(v, depth + 1))
               for v in items)


def children(obj):
    """[(name, child)] that the checkpoint's graph has below `obj`, sorted by name."""
    if isinstance(obj, Variable):
        return []
    if isinstance(obj, (list, tuple)):
        found = [(str(i), v) for i, v in enumerate(obj)]
    elif isinstance(obj, dict):
        found = [(str(k), v) for k, v in obj.items()]
    elif hasattr(obj, "_checkpoint_children"):
        found = list(obj._checkpoint_children())
    elif isinstance(obj, Optimizer):     # its own variables; the slots go with theirs
        found = [(k, v) for k, v in vars(obj).items() if isinstance(v, Variable)]
    else:
        found = list(vars(obj).items())
        if "_layers" in vars(obj) and isinstance(obj, Module):
            # a Sequential's or functional model's layers, by their place among the layers
            # (InputLayers, which hold nothing, left out: a Sequential given tk.Input and
            # one built later name their Dense alike)
            found = [(k, v) for k, v in found if k != "_layers"]
            found.append(("layers", [v for v in obj._layers if not isinstance(v, InputLayer)]))
    return sorted(((k, v) for k, v in found if trackable(v) or (
        isinstance(v, (list, tuple, dict)) and _holds_trackable(v))), key=lambda kv: kv[0])


def walk(root):
    """Walk breadth first from `root`: ({id(variable): (route, variable)},
    [(route, optimizer)]), each object at its shortest route (a list of names)."""
    variables, optimizers, seen = {}, [], {id(root)}
    level = [([], root)]
    while level:
        following = []
        for route, obj in level:
            for name, child in children(obj):
                if id(child) in seen:
                    continue
                seen.add(id(child))
                where = route + [name]
                if isinstance(child, Variable):
                    variables[id(child)] = (where, child)
                else:
                    if isinstance(child, Optimizer):
                        optimizers.append((where, child))
                    following.append((where, child))
        level = following
    return variables, optimizers


def resolve(root, route):
    """(object, None) at `route` below `root`, or (None, the last object reached that can hold
    attributes) where a name is missing."""
    obj, holder = root, root
    for name in route:
        nxt = dict(children(obj)).get(name)
        if nxt is None:
            return None, holder
        obj = nxt
        if hasattr(obj, "__dict__"):
            holder = obj
    return obj, None


def show(route):
    """A route as TensorFlow shows one, `(root).model.dense.kernel`; a name that is not a
    Python identifier or a number is quoted: `(root)['my model']`."""
    return "(root)" + "".join(f".{n}" if n.isidentifier() or n.isdigit() else f"[{n!r}]"
                              for n in route)


def key(route):
    """TensorFlow's name for a route in a checkpoint's reader: '/' joins, '.' is '..', '/' '.S'."""
    return "/".join(n.replace(".", "..").replace("/", ".S") for n in route)


def entry_key(entry):
    if entry.get("slot") is None:
        return key(entry["route"]) + "/.ATTRIBUTES/VARIABLE_VALUE"
    return (f"{key(entry['variable'])}/.OPTIMIZER_SLOT/{key(entry['route'])}/"
            f"{key([entry['slot']])}/.ATTRIBUTES/VARIABLE_VALUE")


def entry_shown(entry):
    if entry.get("slot") is None:
        return show(entry["route"])
    return f"the {entry['slot']!r} slot of {show(entry['variable'])} in {show(entry['route'])}"
