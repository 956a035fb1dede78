"""Where the class or function a config names is found: `custom_objects=`, then the registry
(`register_keras_serializable`), then tapekit's tables of Keras's public names (keras.layers,
keras.losses, ...). Nothing named by a file is ever imported.

Each namespace fills its own table as it loads, by one call beside its names:
`register_builtins("keras.layers", ...)` at the end of layers/__init__.py, and so
losses/__init__.py, metrics/__init__.py, optimizers/__init__.py, optimizers/schedules.py,
models/__init__.py, activations.py, initializers.py, regularizers.py and constraints.py. They import saving for
their own get_config, so saving imports none of them, and they may load in any order.
"""
from . import registration
from .dtype_policy import DTypePolicy

# Keras's modules in the order their tables are searched (a name in two, such as
# MeanSquaredError of keras.losses and of keras.metrics, is the first one's).
KERAS_MODULES = ("keras.layers", "keras.initializers", "keras.optimizers",
                 "keras.optimizers.schedules", "keras.losses", "keras.metrics",
                 "keras.regularizers", "keras.constraints", "keras.models")
# The kinds of function a config may name by itself ({"module": "builtins", "class_name":
# "function", "config": "relu"}), in the order they are searched.
FUNCTION_KINDS = ("activations", "losses", "metrics")

_NAMES = {}        # Keras module -> {public name: class or function}: each namespace's table
_FUNCTIONS = {}    # kind -> {name: function}: the functions of that kind a config may name
_TABLES = None     # builtin_tables(), made again after each registration


def register_builtins(module, names, functions=None):
    """Called by a namespace as it loads: `names` ({public name: object}) are Keras's public
    names of `module` ("keras.losses"), whose classes a config may name; `functions` (a kind
    of FUNCTION_KINDS and {name: function}) are the only functions of that kind it may name.

    >>> sorted(tk.saving.lookup.builtin_tables()["keras.optimizers"])
    ['Adagrad', 'Adam', 'AdamW', 'Nadam', 'Optimizer', 'RMSprop', 'SGD']
    """
    global _TABLES
    if module not in KERAS_MODULES + ("keras.activations",):
        raise ValueError(f"register_builtins: {module!r} is not one of Keras's modules "
                         f"{KERAS_MODULES}")
    _NAMES[module] = dict(names)
    if functions is not None:
        kind, table = functions
        _FUNCTIONS[kind] = dict(table)
    _TABLES = None


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
            return builtin_tables()["keras.models"]["Model"]
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
    for kind in FUNCTION_KINDS:
        table = _FUNCTIONS.get(kind, {})
        if isinstance(name, str) and name in table:
            return table[name]
    return None


def builtin_function_name(fn):
    """The name a built-in function is written under ("relu"), or None for any other: an
    activation of the table by identity (ops have no __name__), else one of Keras's functions
    by its own name (tk.keras.activations.relu, tk.losses.huber)."""
    for key, value in _FUNCTIONS.get("activations", {}).items():
        if value is fn:
            return key
    name = getattr(fn, "__name__", None)
    if name is not None and fn in (_NAMES.get("keras.activations", {}).get(name),
                                   builtin_function(name)):
        return name
    return None


def known_functions():
    """The function names a config may use, by kind (for error messages)."""
    return "Known functions: " + "; ".join(f"{kind}: {', '.join(sorted(_FUNCTIONS.get(kind, {})))}"
                                           for kind in FUNCTION_KINDS)


# Modules that tapekit wrote before it wrote Keras's own names (files saved then still load).
LEGACY_MODULES = {"tapekit.keras.regularizers": "keras.regularizers"}


class NotRebuilt(TypeError):
    """A config names a class or function that cannot be found or called (the message says
    which and how to provide it); raised once, not re-wrapped by each enclosing config."""


def builtin_tables():
    """{Keras module: {public name: tapekit class}} for the classes a config may name, in the
    order of KERAS_MODULES, then "keras" (Keras's top level: Model, Sequential, DTypePolicy)."""
    global _TABLES
    if _TABLES is None:
        tables = {module: {k: v for k, v in _NAMES.get(module, {}).items() if isinstance(v, type)}
                  for module in KERAS_MODULES}
        models = tables["keras.models"]
        tables["keras"] = {**models, "DTypePolicy": DTypePolicy}
        _TABLES = tables
    return _TABLES
