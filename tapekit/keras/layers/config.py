"""A layer's config, as Keras 3 writes it: `get_config` / `from_config`, and the build config
(`get_build_config` / `build_from_config`) that rebuilds its weights before they are loaded.

`LayerConfig` is a mixin of `Layer`: a custom layer that writes no get_config gets its
constructor's plain arguments (numbers, strings, lists, dicts) as Keras 3's auto-config does;
keys Keras 3 writes that tapekit takes only at their defaults are dropped at those values and
refused at others.
"""
import inspect

from ..saving.dtype_policy import dtype_from_config, dtype_policy_config
from ..saving.files import check_declared
from ..saving.serialization_lib import serialize_keras_object
from .shapes import checked_shape

ALLOWED_KWARGS = {"input_shape", "input_dim", "batch_input_shape", "batch_size", "autocast"}


class LayerConfig:
    """get_config / from_config / get_build_config / build_from_config of every Layer."""

    # Keys Keras 3 writes in a layer's config that tapekit takes only at these values (a
    # regularizer, a quantization): from_config drops them at these values, refuses others.
    _keras_only = {}

    def __new__(cls, *args, **kwargs):
        """Keep the arguments of a layer's constructor when they are plain values (numbers,
        strings, lists, dicts) and the class writes no get_config of its own, so that
        get_config works without an override, as Keras 3's auto-config does."""
        obj = super().__new__(cls)
        if args or kwargs:
            if not _defines_no_get_config(cls) or _base_init(cls):
                return obj          # its own get_config says what to keep; or no arguments
            try:
                signature = inspect.signature(cls.__init__)
                bound = signature.bind(None, *args, **kwargs)
            except (TypeError, ValueError):
                return obj                      # __init__ will say what is wrong
            bound.apply_defaults()
            config = {}
            for name, value in list(bound.arguments.items())[1:]:
                kind = signature.parameters[name].kind
                if kind is inspect.Parameter.VAR_KEYWORD:
                    config.update(value)
                elif kind is not inspect.Parameter.VAR_POSITIONAL:
                    config[name] = value
            if _plain(config):
                obj.__dict__["_auto_config"] = config
        return obj

    def get_config(self):
        """The arguments that make this layer again, with Keras 3's keys: `from_config(config)`
        rebuilds it (without its weights), and Keras 3's `from_config` accepts it. A custom
        layer that does not override it gets its constructor's arguments when they were plain
        values (Keras 3's auto-config).

        >>> tk.layers.Dropout(0.25, name="drop").get_config()["rate"]
        0.25
        >>> class Scale(tk.layers.Layer):
        ...     def __init__(self, factor, **kwargs):
        ...         super().__init__(**kwargs)
        ...         self.factor = factor
        >>> Scale(2.5, name="s").get_config()["factor"]
        2.5
        """
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": dtype_policy_config(self.dtype)}
        if self.__dict__.get("activity_regularizer") is not None:     # Keras: only when set
            config["activity_regularizer"] = serialize_keras_object(self.activity_regularizer)
        auto = self.__dict__.get("_auto_config")
        if auto is not None and _defines_no_get_config(type(self)):
            config.update({k: v for k, v in auto.items()
                           if k not in ("name", "trainable", "dtype") and k not in ALLOWED_KWARGS})
        return config

    @classmethod
    def from_config(cls, config):
        """A new layer from `get_config()`'s dict, or from the config Keras 3 writes.

        >>> layer = tk.layers.Dense.from_config(tk.layers.Dense(3, name="d").get_config())
        >>> layer.name, layer.units
        ('d', 3)
        """
        if not isinstance(config, dict):
            raise TypeError(f"{cls.__name__}.from_config: expected a dict, got "
                            f"{type(config).__name__}")
        config = dict(config)
        if "dtype" in config:
            config["dtype"] = dtype_from_config(config["dtype"])
        takes = _arguments(cls)
        for key, default in {**_KERAS_ONLY, **cls._keras_only}.items():
            if key in config and key not in takes:
                value = config.pop(key)
                if _jsonish(value) != _jsonish(default):
                    raise ValueError(
                        f"{cls.__name__}.from_config: the config has {key}={value!r}; tapekit's "
                        f"{cls.__name__} supports only {key}={default!r}. Build the layer without "
                        f"it, or load the model in Keras.")
        return cls(**config)

    def get_build_config(self):
        """{"input_shape": ...} of a built layer (Keras 3 writes it to rebuild the weights)."""
        shape = getattr(self, "input_shape", None)       # (a Sequential's may raise)
        if self.built and shape is not None:
            return {"input_shape": _jsonish(shape)}
        return None

    def build_from_config(self, config):
        """Build the weights from `get_build_config()`'s dict (before weights are loaded)."""
        shape = (config or {}).get("input_shape")
        if shape is not None:
            self._maybe_build(as_shapes(shape, build_config_key(self), self.dtype))
            self.built = True


# Keys of Keras 3's layer configs that tapekit's layers take only at Keras's defaults.
_KERAS_ONLY = {"quantization_config": None, "kernel_regularizer": None, "bias_regularizer": None,
               "kernel_constraint": None, "bias_constraint": None,
               "data_format": "channels_last", "lora_rank": None, "lora_alpha": None}


def _arguments(cls):
    """The argument names cls's constructor takes, with those its **kwargs hand on to the
    classes above it (LSTM's kernel_regularizer, taken by the recurrent base class)."""
    names = set()
    for klass in cls.__mro__:
        if "__init__" not in vars(klass):
            continue
        params = inspect.signature(klass.__init__).parameters
        names.update(params)
        if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            break
    return names


def _plain(value):
    """True for values a JSON config holds as they are."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def _base_init(cls):
    """True when cls's __init__ is Layer's or Model's own (their arguments are no config)."""
    for klass in cls.__mro__:
        if "__init__" in vars(klass):
            return klass.__name__ in ("Layer", "Model") and \
                klass.__module__ in ("tapekit.keras.layers.base", "tapekit.keras.models.model")
    return True


def _defines_no_get_config(cls):
    """True when get_config comes from Layer or Model themselves (a custom layer or model
    that does not write its own, nor inherits one from a built-in layer)."""
    for klass in cls.__mro__:
        if "get_config" in vars(klass):
            return klass.__name__ in ("LayerConfig", "Model") and \
                klass.__module__ in (__name__, "tapekit.keras.models.model")
    return True


def _jsonish(value):
    """Tuples as lists, all the way down (JSON's view of a value)."""
    if isinstance(value, (list, tuple)):
        return [_jsonish(v) for v in value]
    return value


def as_shapes(shape, where, dtype="float32"):
    """A shape from JSON: [None, 4] -> (None, 4); [[None, 1], [None, 2]] -> a list of tuples.
    An entry that is not an int or None raises, naming `where` (the layer and the config key),
    the shape and the entry; while a config is read, so does a shape whose `dtype` array at
    batch size 1 passes files.MAX_DECLARED_BYTES.

    >>> tk.keras.layers.config.as_shapes([[None, 1], {"b": [None, 2]}], "here")
    [(None, 1), {'b': (None, 2)}]
    """
    if isinstance(shape, dict):
        return {k: as_shapes(v, f"{where}[{k!r}]", dtype) for k, v in shape.items()}
    if isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple, dict)):
        return [as_shapes(s, f"{where}[{i}]", dtype) for i, s in enumerate(shape)]
    shape = checked_shape(shape, where)
    check_declared(where, shape, dtype)
    return shape


def build_config_key(layer, key="input_shape"):
    """Where a build config's shape comes from, for as_shapes' errors."""
    return f"{type(layer).__name__} {layer.name!r}: build_config[{key!r}]"
