"""Module: a container that finds the Variables and sub-Modules held in its attributes.

    class LinearModel(tk.Module):
        def __init__(self):
            self.w = tk.Variable(2.0)
            self.b = tk.Variable(1.0)

    LinearModel().trainable_variables   # (<tk.Variable 'Variable:0' ...>, ...)  b, then w

As in `tf.Module`, attributes are walked in sorted name order, lists and tuples in
order, dicts by sorted key. A module's own variables come before those of its
sub-modules, and a variable reachable twice is listed once. Nothing is registered
at assignment time, so a subclass that never calls `super().__init__()` (as the
seed tutorials do) still works. Layers walk their attributes in assignment order
instead (kernel before bias), as Keras lists weights in creation order.
"""
import re

from . import nest
from .namespaces import no_attribute
from .tensor import Variable

_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")    # tf.Module's


def snake_case(name):
    """CamelCase -> snake_case, as tf.Module names its instances (LinearModel -> linear_model)."""
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


class Module:
    """Base class for models: `variables`, `trainable_variables`, `submodules` (`tf.Module`).

    >>> class Line(tk.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = tk.Variable(2.0, name="w")
    ...         self.b = tk.Variable(1.0, name="b")
    ...     def __call__(self, x):
    ...         return self.w * x + self.b
    >>> line = Line()
    >>> [v.name for v in line.trainable_variables]
    ['b:0', 'w:0']
    >>> line(3.0)
    tk.Tensor(7.0, shape=(), dtype=float32)
    """

    # Asked only for a name ordinary look-up did not find: TF's members tapekit lacks say so.
    __getattr__ = no_attribute   # (namespaces.py; tapekit/not_in_tapekit.json lists them)

    def __init__(self, name=None):
        self._module_name = self._valid_name(name)

    def _valid_name(self, name):
        """tf.Module's rule: a Python identifier in ASCII (TF 2.21's pattern, which also lets
        one trailing newline through). Keras layers take any name without `/` instead
        (keras/layers/naming.py)."""
        if name is None:
            return None
        if not isinstance(name, str):
            raise TypeError(f"Module: name must be a string, got {type(name).__name__} {name!r}")
        if not _VALID_IDENTIFIER.match(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid "
                             f"Python identifiers (e.g. a valid class name).")
        return name

    @property
    def name(self):
        name = getattr(self, "_module_name", None)
        return snake_case(type(self).__name__) if name is None else name

    @property
    def variables(self):
        """Every Variable of this module and its sub-modules, each once."""
        return tuple(_walk(self, _is_variable))

    @property
    def trainable_variables(self):
        """The variables with `trainable=True`: what an optimizer updates."""
        return tuple(v for v in _walk(self, _is_variable) if v.trainable)

    @property
    def non_trainable_variables(self):
        return tuple(v for v in _walk(self, _is_variable) if not v.trainable)

    @property
    def submodules(self):
        """Every Module below this one, each once (`tf.Module.submodules` order)."""
        return tuple(_walk(self, _is_module))

    def count_params(self):
        """Number of scalars held in all variables."""
        return sum(int(v.size) for v in self.variables)

    # Layers override this with False: Keras lists weights in creation order.
    _sorted_attributes = True

    def __repr__(self):
        n_vars = len(self.variables)
        n_train = len(self.trainable_variables)
        return (f"<{type(self).__name__} {self.name!r}: {n_vars} variable{'s' * (n_vars != 1)} "
                f"({n_train} trainable), {self.count_params()} parameters>")


def _is_variable(x):
    return isinstance(x, Variable)


def _is_module(x):
    return isinstance(x, Module)


def module_leaves(module):
    """Values held in the module's attributes, containers flattened: by sorted attribute and
    dict key (tf.Module's order), or for a Keras layer (`_sorted_attributes = False`) in the
    order they were assigned, a dict's values in insertion order, as Keras 3 tracks them."""
    attrs = vars(module)
    out = []
    if module._sorted_attributes:
        for key in sorted(attrs):
            out.extend(nest.flatten(attrs[key]))
    else:
        _in_assignment_order(list(attrs.values()), out)
    return out


def _in_assignment_order(value, out):
    if isinstance(value, (list, tuple)):
        for item in value:
            _in_assignment_order(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            _in_assignment_order(item, out)
    else:
        out.append(value)


def _walk(module, predicate, seen=None, stack=()):
    """tf.Module's walk: this level's matches first, then each sub-module's, depth first.

    `seen` makes every object count once; `stack` (the modules being walked) cuts cycles.
    """
    seen = {id(module)} if seen is None else seen
    children = []
    for leaf in module_leaves(module):
        if id(leaf) in seen:
            continue
        seen.add(id(leaf))
        if predicate(leaf):
            yield leaf
        if isinstance(leaf, Module):
            children.append(leaf)
    stack = stack + (id(module),)
    for child in children:
        if id(child) not in stack:
            yield from _walk(child, predicate, seen, stack)
