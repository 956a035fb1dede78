"""Objects to and from Keras 3's config dicts (`keras.saving.serialize_keras_object` /
`deserialize_keras_object`), the JSON that a `.keras` file's config.json holds.

A Keras object becomes

    {"module": "keras.layers", "class_name": "Dense", "config": {...layer.get_config()...},
     "registered_name": None, "build_config": {"input_shape": [None, 4]}}

a built-in function (an activation, a loss) `{"module": "builtins", "class_name": "function",
"config": "relu", "registered_name": "function"}`, and a registered custom class carries its
"package>name" in "registered_name".

Reading a config never imports a module and never runs code named by the file: a class is
found in `custom_objects=`, the registry (`register_keras_serializable`), or tapekit's own
tables of Keras's public names (lookup.py), else the error says how to provide it. A Python lambda
(Keras writes its bytecode) is refused unless `safe_mode=False`, as in Keras 3. What a config
declares (input shapes, weights) is checked against files.MAX_DECLARED_BYTES before it is made.
"""
import base64
import builtins
import contextlib
import inspect
import marshal
import sys
import threading
import types
import warnings

import numpy as np

from ... import dtypes
from ...convert import convert_to_tensor
from ...tensor import Tensor
from . import files, registration
from .lookup import NotRebuilt, builtin_function_name, builtin_tables, retrieve

# The flag Lambda.from_config reads when called inside deserialize_keras_object.
_scope = threading.local()


def in_safe_mode():
    """True/False inside a deserialize_keras_object(safe_mode=...) call, else None."""
    return getattr(_scope, "safe_mode", None)


@contextlib.contextmanager
def _safe_mode_scope(safe_mode, custom_objects):
    saved = (getattr(_scope, "safe_mode", None), getattr(_scope, "custom_objects", None))
    _scope.safe_mode = safe_mode
    _scope.custom_objects = custom_objects
    try:
        yield
    finally:
        _scope.safe_mode, _scope.custom_objects = saved


@contextlib.contextmanager
def custom_object_scope(*scopes):
    """Within `with custom_object_scope({"Name": obj, ...}):`, loading finds those objects by
    name, as if passed as custom_objects= (Keras 3's `keras.saving.custom_object_scope`).

    >>> class Twice(tk.layers.Layer):
    ...     def call(self, x):
    ...         return 2.0 * x
    >>> config = {"module": None, "class_name": "Twice", "config": {}, "registered_name": "Twice"}
    >>> with tk.saving.custom_object_scope({"Twice": Twice}):
    ...     layer = tk.saving.deserialize_keras_object(config)
    >>> type(layer).__name__
    'Twice'
    """
    added = {}
    for scope in scopes:
        if not isinstance(scope, dict):
            raise TypeError(f"custom_object_scope takes dicts of {{name: class or function}}, "
                            f"got {type(scope).__name__}")
        added.update(scope)
    saved = getattr(_scope, "custom_objects", None)
    _scope.custom_objects = {**(saved or {}), **added}
    try:
        yield
    finally:
        _scope.custom_objects = saved


def get_custom_objects():
    """The registry as a dict {"package>name": object}: what register_keras_serializable
    added; entries added here are found by name when loading, as in Keras 3.

    >>> "course>NoSuchThing" in tk.saving.get_custom_objects()
    False
    """
    return registration.OBJECTS


LAMBDA_REFUSED = (
    "Requested the deserialization of a Lambda layer whose function is a Python lambda. Its "
    "code comes from the file, and running it could do anything, so it is refused by default "
    "(Keras 3's rule). If you trust the source of the file, pass safe_mode=False to the "
    "loading function (tk.models.load_model(path, safe_mode=False)).")


# --- writing -----------------------------------------------------------------------------------
def serialize_keras_object(obj):
    """The JSON-ready config of `obj`, in Keras 3's layout.

    >>> tk.saving.serialize_keras_object(tk.initializers.Constant(0.5))
    {'module': 'keras.initializers', 'class_name': 'Constant', 'config': {'value': 0.5}, 'registered_name': None}
    >>> tk.saving.serialize_keras_object(tk.keras.activations.relu)
    {'module': 'builtins', 'class_name': 'function', 'config': 'relu', 'registered_name': 'function'}
    """
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(x) for x in obj]
    if isinstance(obj, dict):
        return {k: serialize_keras_object(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray) and obj.ndim > 0:
        return {"class_name": "__numpy__",
                "config": {"value": obj.tolist(), "dtype": obj.dtype.name}}
    if isinstance(obj, (np.generic, np.ndarray)):
        return obj.item()
    if isinstance(obj, Tensor):            # a tensor or a variable: its value, as Keras 3 writes it
        return {"class_name": "__tensor__",
                "config": {"value": obj.numpy().tolist(), "dtype": obj.dtype.name}}
    if isinstance(obj, np.dtype):
        return obj.name
    if isinstance(obj, types.FunctionType) and obj.__name__ == "<lambda>":
        warnings.warn("The object being serialized includes a lambda: to load it again, pass "
                      "safe_mode=False to the loading function. A named function, registered "
                      "with @tk.saving.register_keras_serializable(), loads safely.", stacklevel=2)
        return {"class_name": "__lambda__", "config": func_dump(obj)}
    if callable(obj) and not isinstance(obj, type) and not hasattr(obj, "get_config") \
            and not _built_in_class(type(obj)):
        return _serialize_function(obj)
    inner = _config_of(obj)
    if not isinstance(inner, dict):
        raise TypeError(f"{type(obj).__name__}.get_config() must return a dict, got "
                        f"{type(inner).__name__}")
    names = _public_name(obj)
    config = {"module": names["module"], "class_name": names["class_name"],
              "config": serialize_keras_object(inner), "registered_name": names["registered_name"]}
    build = getattr(obj, "get_build_config", None)
    if build is not None and build() is not None:
        config["build_config"] = serialize_keras_object(build())
    compile_config = getattr(obj, "get_compile_config", None)
    if compile_config is not None and compile_config() is not None:
        config["compile_config"] = serialize_keras_object(compile_config())
    return config


def _config_of(obj):
    """obj.get_config(); for tapekit's built-in losses and metrics, which keep their
    arguments as attributes, the constructor's arguments read back."""
    if hasattr(obj, "get_config"):
        return obj.get_config()
    cls = type(obj)
    if _built_in_class(cls):
        config = {}
        kwargs = getattr(obj, "_fn_kwargs", None) or getattr(obj, "_kwargs", None) or {}
        for p in inspect.signature(cls.__init__).parameters.values():
            if p.name in ("self", "fn") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            value = kwargs[p.name] if p.name in kwargs else getattr(obj, p.name, p.default)
            if value is inspect.Parameter.empty:
                continue
            config[p.name] = value.name if isinstance(value, np.dtype) else value
        return config
    raise TypeError(f"serialize_keras_object: cannot serialize {cls.__name__} {obj!r:.80}: a "
                    f"class must implement get_config() (and from_config) to be saved")


def _built_in_class(cls):
    return any(cls is c for table in builtin_tables().values() for c in table.values())


def _generic_from_config(cls, config):
    """A built-in loss or metric from its config; Keras's keys tapekit does not take are
    dropped only at their defaults (None, axis -1)."""
    params = inspect.signature(cls.__init__).parameters
    config = dict(config)
    for key in [k for k in config if k not in params]:
        value = config.pop(key)
        if value is not None and not (key == "axis" and value == -1):
            raise ValueError(f"{cls.__name__}: tapekit does not support {key}={value!r} (from "
                             f"the file); load with compile=False and compile again")
    return cls(**config)


def _public_name(obj):
    """Keras's module and class name of a tapekit object (a Keras public name), else the
    registered name of a custom class."""
    cls = type(obj)
    if getattr(obj, "_functional", False) and cls.__name__ == "Model":
        return {"module": "keras.src.models.functional", "class_name": "Functional",
                "registered_name": "Functional"}
    for module, table in builtin_tables().items():
        for name, known in table.items():
            if known is cls and name == cls.__name__:
                return {"module": module, "class_name": name, "registered_name": None}
    registered = registration.NAMES.get(cls)
    module = None if cls.__module__ == "__main__" else cls.__module__
    return {"module": module, "class_name": cls.__name__,
            "registered_name": registered or cls.__name__}


def _serialize_function(fn):
    name = getattr(fn, "__name__", None)
    registered = registration.NAMES.get(fn)
    if registered is not None:
        return {"module": fn.__module__, "class_name": "function", "config": registered,
                "registered_name": registered}
    builtin = builtin_function_name(fn)
    if builtin is not None:
        return {"module": "builtins", "class_name": "function", "config": builtin,
                "registered_name": "function"}
    module = getattr(fn, "__module__", None)
    return {"module": None if module == "__main__" else module, "class_name": "function",
            "config": name, "registered_name": name}


def func_dump(fn):
    """A lambda's code, defaults and closure values, as Keras 3 writes them (marshal, base64).

    Only `func_load` under safe_mode=False turns this back into a function."""
    code = base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii")
    closure = None if fn.__closure__ is None else [c.cell_contents for c in fn.__closure__]
    return {"code": code, "defaults": fn.__defaults__, "closure": closure}


def func_load(config):
    """The function `func_dump` wrote: runs bytecode from the file, so only with
    safe_mode=False (Lambda.from_config and deserialize_keras_object check it). Its global
    names are Python's builtins, `np`, and tapekit as `tk`, `tf` and `keras`."""
    if in_safe_mode() is not False:
        raise ValueError(LAMBDA_REFUSED)
    code = marshal.loads(base64.b64decode(config["code"].encode("ascii")))
    closure = config.get("closure")
    cells = None if closure is None else tuple(types.CellType(v) for v in closure)
    defaults = config.get("defaults")
    tapekit = sys.modules[__name__.split(".")[0]]   # the package running this code (loaded)
    names = {"__builtins__": builtins, "np": np, "tk": tapekit, "tf": tapekit, "keras": tapekit}
    return types.FunctionType(code, names, None,
                              None if defaults is None else tuple(defaults), cells)


# --- reading -----------------------------------------------------------------------------------
def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """The object a config describes (the inverse of serialize_keras_object).

    >>> init = tk.saving.deserialize_keras_object(
    ...     {"module": "keras.initializers", "class_name": "RandomNormal",
    ...      "config": {"mean": 1.0, "stddev": 0.5, "seed": 3}, "registered_name": None})
    >>> init
    RandomNormal(mean=1.0, stddev=0.5, seed=3)
    """
    outer = in_safe_mode()
    safe_mode = outer if outer is not None else safe_mode
    custom_objects = {**(getattr(_scope, "custom_objects", None) or {}), **(custom_objects or {})}
    with _safe_mode_scope(safe_mode, custom_objects), files.reading_config():
        return _deserialize(config, custom_objects, safe_mode)


def _deserialize(config, custom_objects, safe_mode):
    if config is None or isinstance(config, (bool, int, float)):
        return config
    if isinstance(config, str):
        return custom_objects.get(config, config)
    if isinstance(config, (list, tuple)):
        return [_deserialize(x, custom_objects, safe_mode) for x in config]
    if not isinstance(config, dict):
        raise TypeError(f"deserialize_keras_object: cannot read a config of type "
                        f"{type(config).__name__}: {config!r:.80}")
    if "class_name" not in config or "config" not in config:
        return {k: _deserialize(v, custom_objects, safe_mode) for k, v in config.items()}
    class_name, inner = config["class_name"], config["config"]
    inner = {} if inner is None else inner
    if class_name == "__numpy__":
        return np.array(inner["value"], dtype=dtypes.as_dtype(inner["dtype"]))
    if class_name == "__tensor__":
        return convert_to_tensor(np.array(inner["value"], dtype=dtypes.as_dtype(inner["dtype"])))
    if class_name == "__lambda__":
        if safe_mode:
            raise ValueError(LAMBDA_REFUSED)
        value = inner.get("value", inner)
        if isinstance(value, (list, tuple)):    # Keras's generic form: [code, defaults, closure]
            value = dict(zip(("code", "defaults", "closure"), value))
        return func_load(value)
    if class_name in ("__bytes__", "__slice__", "__ellipsis__", "__typespec__"):
        raise ValueError(f"deserialize_keras_object: tapekit does not read Keras's "
                         f"{class_name} configs (in {config!r:.120})")
    if class_name == "function":
        if not isinstance(inner, str):
            raise TypeError(f"deserialize_keras_object: a function's config must be its name, "
                            f"got {inner!r:.80}")
        return retrieve(inner, config.get("registered_name"), config.get("module"), "function",
                        custom_objects)
    if not isinstance(inner, dict):
        raise TypeError(f"deserialize_keras_object: the config of {class_name!r} must be a "
                        f"dict, got {type(inner).__name__}")
    cls = retrieve(class_name, config.get("registered_name"), config.get("module"), "class",
                   custom_objects)
    if isinstance(cls, types.FunctionType):
        return cls
    from_config = getattr(cls, "from_config", None)
    if from_config is None:
        if not _built_in_class(cls):
            raise TypeError(f"Unable to reconstruct an instance of {class_name!r}: the class "
                            f"has no from_config() method")
        from_config = lambda c: _generic_from_config(cls, c)  # noqa: E731
    try:
        obj = from_config(inner)
    except NotRebuilt:
        raise
    except TypeError as err:
        raise NotRebuilt(f"{cls.__name__} could not be rebuilt from its config ({err}). A class "
                        f"whose __init__ takes other arguments than its get_config() returns "
                        f"needs a from_config() classmethod that turns the config back into "
                        f"them.\nconfig={inner!r:.300}") from err
    build = config.get("build_config")
    if build and not getattr(obj, "built", True) and hasattr(obj, "build_from_config"):
        obj.build_from_config(build)
    compile_config = config.get("compile_config")
    if compile_config and hasattr(obj, "compile_from_config"):
        obj.compile_from_config(compile_config)
    return obj


__all__ = ["custom_object_scope", "deserialize_keras_object", "get_custom_objects",
           "serialize_keras_object"]
