"""Where the class or function a config names is found: `custom_objects=`, then the registry
(`register_keras_serializable`), then tapekit's tables of Keras's public names (keras.layers,
keras.losses, ...). Nothing named by a file is ever imported.

The tables are made from tapekit.keras's own modules, which tapekit/keras/__init__.py hands
over with `use_builtins` once all are loaded (they import serialization_lib for their own
get_config, so the saving modules never import them).
"""
import types

from . import registration
from .dtype_policy import DTypePolicy


def retrieve(name, registered_name, module, kind, custom_objects=None):
    """The class or function a config names: custom_objects, then the registry, then
    tapekit's tables of Keras's public names. Nothing is imported."""
    custom_objects = custom_objects or {}
    for key in (registered_name, name):
        if key and key in custom_objects:
            return custom_objects[key]
    for key in (registered_name, name):
        if key and key in registration.OBJECTS:
            return registration.OBJECTS[key]
    tables = builtin_tables()
    module = LEGACY_MODULES.get(module, module)
    if kind == "function":
        found = builtin_function(name)
        if found is not None:
            return found
        if module in (None, "builtins"):      # Keras's own function by name: none of tapekit's
            raise NotRebuilt(f"Could not locate function {name!r}: it is not one of Keras's "
                             f"functions that tapekit has. {known_functions()}. A function of "
                             f"your own loads when passed as custom_objects={{{name!r}: "
                             f"{name if str(name).isidentifier() else 'fn'}}} or registered with "
                             f"@tk.saving.register_keras_serializable().")
    elif module in tables and name in tables[module]:
        return tables[module][name]
    elif module in ("keras.src.models.functional", "keras.src.models.model") \
            or name == "Functional":
        if name in ("Functional", "Model"):
            return builtin_modules().models.Model
    elif module is None or module == "keras" or module.startswith("keras."):
        for table in tables.values():
            if name in table:
                return table[name]
    what = "function" if kind == "function" else "class"
    raise NotRebuilt(
        f"Could not locate {what} {name!r}" + (f" (registered as {registered_name!r})"
                                               if registered_name not in (None, name, "function")
                                               else "")
        + (f" from module {module!r}" if module else "")
        + f". tapekit does not import modules named in a file: pass the {what} to the loading "
        f"function as custom_objects={{{(registered_name if registered_name not in (None, 'function') else name)!r}: "
        f"{name if name and name.isidentifier() else 'obj'}}}, or decorate it with "
        f"@tk.saving.register_keras_serializable() and import it before loading.")


def builtin_function(name):
    """The activation, loss or metric function Keras 3 writes as `{"module": "builtins",
    "class_name": "function", "config": name}`: only names in the activations' table and in
    the losses' and metrics' FUNCTIONS, never any other function those modules define."""
    b = builtin_modules()
    for table in (b.activations.ACTIVATIONS, b.losses.FUNCTIONS, b.metrics.FUNCTIONS):
        if isinstance(name, str) and name in table:
            return table[name]
    return None


def known_functions():
    """The function names a config may use, by kind (for error messages)."""
    b = builtin_modules()
    tables = (("activations", b.activations.ACTIVATIONS), ("losses", b.losses.FUNCTIONS),
              ("metrics", b.metrics.FUNCTIONS))
    return "Known functions: " + "; ".join(f"{kind}: {', '.join(sorted(table))}"
                                           for kind, table in tables)


# Modules that tapekit wrote before it wrote Keras's own names (files saved then still load).
LEGACY_MODULES = {"tapekit.keras.regularizers": "keras.regularizers"}


class NotRebuilt(TypeError):
    """A config names a class or function that cannot be found or called (the message says
    which and how to provide it); raised once, not re-wrapped by each enclosing config."""


_PACKAGE = __name__.rsplit(".", 2)[0] + "."     # "tapekit.keras."
_BUILTINS = None   # tapekit.keras's modules, handed over by tapekit/keras/__init__.py
_TABLES = None


def use_builtins(**modules):
    """tapekit/keras/__init__.py hands over its modules (layers, losses, models, ...) once all
    of them are imported; a config names their classes and functions. They import this module
    for their own get_config, so this module never imports them."""
    global _BUILTINS, _TABLES
    _BUILTINS, _TABLES = types.SimpleNamespace(**modules), None


def builtin_modules():
    """tapekit.keras's modules (layers, losses, ...), as tapekit/keras/__init__.py handed them over."""
    if _BUILTINS is None:
        raise RuntimeError("tapekit.keras.saving: use it through `import tapekit` (the Keras "
                           "names a config may use are registered when tapekit.keras loads)")
    return _BUILTINS


def builtin_tables():
    """{Keras module: {public name: tapekit class}} for the classes a config may name."""
    global _TABLES
    if _TABLES is None:
        b = builtin_modules()

        def classes(module):      # Keras's classes, not what the module imports (Tensor)
            return {k: v for k, v in vars(module).items() if isinstance(v, type)
                    and not k.startswith("_") and v.__module__.startswith(_PACKAGE)}
        _TABLES = {"keras.layers": classes(b.layers),
                   "keras.initializers": {**classes(b.initializers), **{
                       v.__name__: v for v in b.initializers.INITIALIZERS.values()
                       if isinstance(v, type)}},     # Orthogonal, defined by the RNN layers
                   "keras.optimizers": classes(b.optimizers),
                   "keras.optimizers.schedules": classes(b.schedules),
                   "keras.losses": classes(b.losses),
                   "keras.metrics": classes(b.metrics),
                   "keras.regularizers": classes(b.regularizers),
                   "keras.models": {"Sequential": b.models.Sequential, "Model": b.models.Model},
                   "keras": {"Sequential": b.models.Sequential, "Model": b.models.Model,
                             "DTypePolicy": DTypePolicy}}
    return _TABLES
