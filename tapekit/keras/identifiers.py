"""One rule for the `get(identifier)` of initializers, losses, metrics, optimizers and
regularizers: what `Dense(kernel_initializer="he_normal")` or `compile(loss="mse")` turns into
an object, and the error that names what was not understood.

    resolve("he_normal", INITIALIZERS, "initializer", base=Initializer, accepts="...")

An identifier is, in this order:
- None, returned as is when the kind allows it (`none=True`: "no regularizer");
- an instance of `base`, returned as is; a subclass of `base`, made with no arguments;
- a name: looked up as written, then as the name of a class in the table
  ("GlorotUniform" for "glorot_uniform"), then in lower case ("Adam", "ADAM" for "adam");
  a class found is made with no arguments, a function returned as is;
- a config dict, made into an object by `configs` when the kind reads them;
- a function (any callable but a class), returned as is when `functions=True`.
Anything else raises a ValueError naming the identifier, the kind and every known name.

And `exported`, the rule for a namespace package's public names (`__all__`): what its
__init__ imports or defines under a public name is its table, so no second list is kept.
"""
from types import ModuleType


def exported(namespace, modules=()):
    """The public names of a namespace package, `__all__`, from its own __init__ (`namespace`
    is its globals()): every name it binds that does not start with `_`, except modules (the
    import system binds each submodule there) other than those named in `modules`. A namespace
    keeps its tools out by importing them as modules (`from ..saving import lookup`) or under a
    `_` name.

    >>> from tapekit.keras.identifiers import exported
    >>> tk.optimizers.__all__ == exported(vars(tk.optimizers), modules=("schedules",))
    True
    """
    return sorted(name for name, value in namespace.items() if not name.startswith("_")
                  and (not isinstance(value, ModuleType) or name in modules))


def resolve(identifier, table, kind, *, base, accepts, none=False, functions=True, configs=None):
    """The object `identifier` names, by the rule of this module's docstring.

    `table` maps names to classes or functions; `kind` ("loss") and `accepts` ("a tk.losses.Loss
    or a function loss(y_true, y_pred)") make the error message.

    >>> from tapekit.keras.identifiers import resolve
    >>> table = {"sgd": tk.optimizers.SGD}
    >>> resolve("SGD", table, "optimizer", base=tk.optimizers.Optimizer, accepts="an optimizer")
    <SGD learning_rate=0.01, iterations=0>
    >>> resolve("adam", table, "optimizer", base=tk.optimizers.Optimizer, accepts="an optimizer")
    Traceback (most recent call last):
    ...
    ValueError: Could not interpret optimizer identifier: 'adam'. Known names: 'sgd'; or pass an optimizer
    """
    if identifier is None and none:
        return None
    if isinstance(identifier, base):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, base):
        return identifier()
    if isinstance(identifier, str):
        found = _lookup(identifier, table)
        if found is not None:
            return found() if isinstance(found, type) else found
    elif isinstance(identifier, dict) and configs is not None:
        made = configs(identifier)
        if not isinstance(made, dict):
            return resolve(made, table, kind, base=base, accepts=accepts, none=none,
                           functions=functions)
    elif functions and callable(identifier) and not isinstance(identifier, type):
        return identifier
    names = ", ".join(repr(name) for name in sorted(table))
    raise ValueError(f"Could not interpret {kind} identifier: {identifier!r}. Known names: "
                     f"{names}; or pass {accepts}")


def _lookup(name, table):
    if name in table:
        return table[name]
    for found in table.values():
        if isinstance(found, type) and found.__name__ == name:
            return found
    return table.get(name.lower())
