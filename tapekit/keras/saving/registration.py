"""keras.saving's registry of custom objects (Keras 3's names): a class or function is
registered under "package>name" so that code decorated for Keras runs unchanged.
"""

OBJECTS = {}   # "package>name" -> the registered class or function
NAMES = {}     # the registered class or function -> "package>name"


def register_keras_serializable(package="Custom", name=None):
    """Decorator: register a class or function under "package>name" and return it unchanged.

    `name` defaults to the object's `__name__`. Registering the same name again replaces the
    earlier entry (as in Keras 3).

    >>> @tk.saving.register_keras_serializable(package="course", name="Twice")
    ... class Twice(tk.layers.Layer):
    ...     def call(self, x):
    ...         return 2.0 * x
    >>> tk.saving.get_registered_name(Twice)
    'course>Twice'
    >>> tk.saving.get_registered_object("course>Twice") is Twice
    True
    """
    if callable(package):
        raise TypeError(f"register_keras_serializable: write @register_keras_serializable() "
                        f"with parentheses (it takes package= and name=, and returns the "
                        f"decorator); it was given {package!r} as its package")
    if not isinstance(package, str) or not package:
        raise TypeError(f"register_keras_serializable: package must be a non-empty string, "
                        f"got {package!r}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"register_keras_serializable: name must be a string or None, got {name!r}")

    def register(obj):
        if not callable(obj):
            raise TypeError(f"register_keras_serializable decorates a class or a function, got "
                            f"{type(obj).__name__} {obj!r}")
        key = f"{package}>{name if name is not None else obj.__name__}"
        old = OBJECTS.get(key)
        if old is not None and NAMES.get(old) == key:
            del NAMES[old]
        OBJECTS[key] = obj
        NAMES[obj] = key
        return obj
    return register


def get_registered_name(obj):
    """The "package>name" `obj` was registered under, or its plain `__name__` if it was not.

    >>> tk.saving.get_registered_name(tk.layers.Dense)     # not registered
    'Dense'
    """
    return NAMES.get(obj, getattr(obj, "__name__", None))


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object registered as `name`, looked up in `custom_objects`, then the registry, then
    `module_objects` (dicts); None when none of them has it.

    >>> tk.saving.get_registered_object("nobody>Nothing") is None
    True
    >>> tk.saving.get_registered_object("Mine", custom_objects={"Mine": abs})
    <built-in function abs>
    """
    for table in (custom_objects, OBJECTS, module_objects):
        if table and name in table:
            return table[name]
    return None


__all__ = ["get_registered_name", "get_registered_object", "register_keras_serializable"]
