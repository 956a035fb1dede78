"""A layer's dtype in a config: Keras 3 writes a DTypePolicy dict
`{"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, ...}`; tapekit
reads it (or a plain dtype name) back as a dtype name, and refuses mixed precision.
"""
from ... import dtypes


class DTypePolicy:
    """Keras 3's dtype policy, as a layer's config holds it: only its name is used here
    (a tapekit layer computes and stores in one dtype)."""

    def __init__(self, name="float32"):
        self.name = name

    def get_config(self):
        return {"name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def dtype_policy_config(dtype):
    """The dict Keras 3 writes for a layer's dtype."""
    return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": dtypes.as_dtype(dtype).name},
            "registered_name": None}


def dtype_from_config(value):
    """A layer config's dtype (a DTypePolicy dict, a name, or None) as a dtype name or None."""
    if value is None or isinstance(value, str):
        if isinstance(value, str) and value.startswith("mixed_"):
            raise ValueError(f"dtype policy {value!r}: tapekit layers compute in one dtype; "
                             f"mixed precision is not supported")
        return value
    if isinstance(value, DTypePolicy):
        return dtype_from_config(value.name)
    if isinstance(value, dict) and isinstance(value.get("config"), dict):
        if value.get("class_name") not in ("DTypePolicy", "FloatDTypePolicy"):
            raise ValueError(f"dtype policy {value.get('class_name')!r}: tapekit reads only "
                             f"Keras's DTypePolicy (a float dtype by name)")
        return dtype_from_config(value["config"].get("name"))
    raise TypeError(f"a layer's dtype must be a dtype name or a DTypePolicy config, got {value!r:.80}")
