"""What a public namespace shows to `dir()` and to tab completion in Jupyter.

`tk.optimizers.<Tab>` listed what the module imported for its own use (`np`, `threading`,
`convert_to_tensor`, its submodules `base`, `conv`, ...) beside the API. Each namespace
module ends with `__dir__ = public_dir(globals())` (a module-level `__dir__`, PEP 562):
`dir()` then lists its public names only. Nothing is hidden from code: every name stays
reachable as an attribute, as before.

A namespace's public names are the ones docs/_ext/tapekit_api.py documents: its `__all__`
when it has one, otherwise the names defined in the module itself. `tk` itself shows every
name it imports on purpose (none is a module) and its namespaces, named in its `__init__`.
"""
from types import ModuleType


def public_names(namespace, namespaces=None):
    """The public names of a module whose globals are `namespace`, sorted. With `namespaces`
    (the package `tk`): every public name that is not a module, and those modules."""
    names = namespace.get("__all__")
    if namespaces is not None:
        names = [n for n, v in namespace.items() if not n.startswith("_")
                 and (not isinstance(v, ModuleType) or n in namespaces)]
    elif names is None:
        here = namespace["__name__"]
        names = [n for n, v in namespace.items() if not n.startswith("_")
                 and not isinstance(v, ModuleType) and getattr(v, "__module__", None) == here]
    return sorted(set(names))


def public_dir(namespace, namespaces=None):
    """A module-level `__dir__` for the module whose globals are `namespace`: its public names
    (`public_names`) and its dunder attributes (`__doc__`, `__name__`, ...)."""
    def __dir__():
        return (public_names(namespace, namespaces)
                + sorted(n for n in namespace if n.startswith("__")))
    return __dir__
