"""Names of layers and weights: Keras's default names (`dense`, `dense_1`, ...) and the rule
a name given by hand must follow."""
import itertools
import re
import unicodedata
from collections import defaultdict

_name_counters = defaultdict(itertools.count)


def unique_name(base):
    """`base` the first time, then `base_1`, `base_2`, ... (one counter per base)."""
    n = next(_name_counters[base])
    return base if n == 0 else f"{base}_{n}"


def reset_names():
    """Start every counter of unique_name again (what clear_session does)."""
    _name_counters.clear()


def snake_name(cls_name):
    """Keras's default layer name: Dense -> dense, Conv2D -> conv2d, MaxPooling2D -> max_pooling2d."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", cls_name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


def check_name(name, what):
    """A layer's or weight's name, checked with tapekit's ASCII rule (stricter than Keras 3, which
    refuses only `/`): a letter or `_`, then letters, digits, `_`, `.` and `-`. Python reads identifiers in NFKC
    form, so two Unicode names that look different (`aµ`, `aμ`) can be one name to code
    that uses them; and a `/` would make the weight's path (`dense/kernel`) ambiguous."""
    if name is None or name == "":
        return name           # the default name
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"{what}: {name!r} is not a valid module name: it must start with an "
                         f"ASCII letter or _ and hold only ASCII letters, digits, _ . and - "
                         f"(tapekit's rule; Keras 3 refuses only /). Use e.g. {_suggest(name)!r}")
    return name


def _suggest(name):
    s = re.sub(r"[^A-Za-z0-9_.\-]+", "_", unicodedata.normalize("NFKC", str(name))).strip("_")
    s = s if s and (s[0].isalpha() or s[0] == "_") else "layer_" + s
    return s[:40]
