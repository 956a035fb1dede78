"""tapekit's public namespaces, each from one table: the names it shows, written once.

    tk                 TK below; tapekit/__init__.py binds its names (`bind_tk`)
    tk.math, tk.nn, tk.linalg, tk.image, tk.config, tk.autodiff, tk.test
                       made here from their tables (MADE): they only hand on names that
                       other modules define, so they are no files. `import tapekit.math`
                       and `from tapekit import nn` work as for any module (`make`)
    tk.random, tk.debugging, tk.errors, tk.dtypes, tk.testing, tk.autograph, tk.backprop,
    tk.record, tk.nest, tk.train, tk.display, tk.widgets
                       modules with code of their own: their table is their `__all__` (or,
                       without one, the names they define), and they end with
                       `__dir__ = public_dir(globals())` and, but for tk.display and
                       tk.widgets (which load their views lazily), `__getattr__ =
                       missing(__name__)`
    tk.layers, tk.losses, ... (Keras)
                       tapekit.keras's modules, also named tapekit.layers, ... (KERAS:
                       the one place those names are made, `alias_keras`); each one's
                       table is what its __init__ imports (keras/identifiers.exported)
    tk.ops             tapekit.keras.ops, keras.ops after `import tapekit as keras`: Keras's
                       functions by Keras's signatures; the package tapekit.ops, tapekit's
                       op table, stays what `from tapekit.ops import ...` imports

What a namespace gets from its table:
- its names, and `__all__`, which the API reference documents (docs/_ext/tapekit_api.py);
- `__dir__` (PEP 562): dir() and tab completion show the public names, not what a module
  imported for its own use (`tk.optimizers.<Tab>` listed np, threading, convert_to_tensor);
  nothing is hidden from code, every name stays reachable as an attribute;
- `__getattr__` (PEP 562), asked only for a name the namespace does not have: a TensorFlow
  or Keras name that tapekit lacks raises NotInTapekit, an AttributeError whose message says
  so, whether the name is in tapekit's scope (not built yet) or outside it (and why), what to
  use instead where there is something, and where the table of names is; any other name
  raises AttributeError as Python does. The names are tapekit/not_in_tapekit.json, which
  tools/inventory/compare.py writes from the inventory (docs/names.md), read at the first
  miss; the Keras namespaces and tapekit.ops get the same `__getattr__` (`alias_keras`).
"""
import importlib
import inspect
import json
import sys
from pathlib import Path
from types import ModuleType


class NotInTapekit(AttributeError):
    """A TensorFlow or Keras name that tapekit does not have: the message says whether it is in
    tapekit's scope, what to use instead, and where the table of names is."""


_NOT_IN_TAPEKIT = {}     # {namespace: {name: entry}}, from not_in_tapekit.json at the first miss
_TABLE = ("The table \"TensorFlow's names in tapekit\" in the docs (names.md) lists what "
          "tapekit has")


def not_in_tapekit():
    """{namespace ("tapekit.math"): {TensorFlow's name in it: {tf, status, reason?, instead?}}}."""
    if not _NOT_IN_TAPEKIT:
        path = Path(__file__).with_name("not_in_tapekit.json")
        _NOT_IN_TAPEKIT.update(json.loads(path.read_text(encoding="utf-8"))["namespaces"])
    return _NOT_IN_TAPEKIT


def refusal(namespace, name):
    """The NotInTapekit error for `name` in the module `namespace` (under any of its names:
    tapekit.losses is tapekit.keras.losses), or None when the inventory does not list it."""
    module = sys.modules.get(namespace)
    spellings = [namespace] + [n for n, m in list(sys.modules.items())
                               if m is module and n != namespace and module is not None]
    table = not_in_tapekit()
    entry = next((table[n][name] for n in spellings if name in table.get(n, {})), None)
    if entry is None:
        return None
    return NotInTapekit(_message(entry), name=name, obj=module)


_MEMBERS = {}            # {tapekit class "module.qualname": {member: entry}}, at the first miss


def member_refusals():
    """{tapekit class ("tapekit.tensor.Variable"): {TF's member it lacks: {tf, status, reason?}}}."""
    if not _MEMBERS:
        path = Path(__file__).with_name("not_in_tapekit.json")
        _MEMBERS.update(json.loads(path.read_text(encoding="utf-8")).get("members", {}))
    return _MEMBERS


def no_attribute(obj, name):
    """The `__getattr__` of tapekit's classes that stand for TensorFlow's and Keras's (Tensor,
    Variable, Layer, Model, Optimizer, ...), asked only for what ordinary look-up did not find:
    a member of TF's class that tapekit's lacks raises NotInTapekit saying so (never a bare
    AttributeError); anything else AttributeError as Python does. A property whose getter
    raised AttributeError is asked again, so that its own error shows, not "no attribute".

    >>> tk.Variable(1.0).graph
    Traceback (most recent call last):
    ...
    tapekit.namespaces.NotInTapekit: tapekit does not have tf.Variable.graph: ...
    >>> hasattr(tk.Variable(1.0), "graph")      # NotInTapekit is an AttributeError
    False
    """
    cls = type(obj)
    if not name.startswith("_"):
        descriptor = inspect.getattr_static(cls, name, None)
        if descriptor is not None and hasattr(type(descriptor), "__get__"):
            return descriptor.__get__(obj, cls)       # raises its own AttributeError again
        table = member_refusals()
        for k in cls.__mro__:
            entry = table.get(f"{k.__module__}.{k.__qualname__}", {}).get(name)
            if entry is not None:
                raise NotInTapekit(_message(entry), name=name, obj=obj)
    raise AttributeError(f"{cls.__name__!r} object has no attribute {name!r}", name=name, obj=obj)


def _message(entry):
    why = (f"it is outside tapekit's scope ({entry['reason']})" if entry["status"] == "out-of-scope"
           else "it is in tapekit's scope but not built yet")
    instead = f" Instead: {entry['instead']}." if entry.get("instead") else ""
    return f"tapekit does not have {entry['tf']}: {why}.{instead} {_TABLE}."


def missing(namespace):
    """The module-level `__getattr__` of `namespace`: only asked for a name it does not have."""
    def __getattr__(name):
        error = refusal(namespace, name) if not name.startswith("__") else None
        if error is not None:
            raise error
        raise AttributeError(f"module {namespace!r} has no attribute {name!r}", name=name,
                             obj=sys.modules.get(namespace))
    return __getattr__


def public_names(namespace, namespaces=None):
    """The public names of a module whose globals are `namespace`, sorted: its `__all__` when it
    has one, otherwise the names defined in the module itself. With `namespaces` (the package
    `tk`): every public name that is not a module, and those modules."""
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


# --- the tables ------------------------------------------------------------------------------
# Each: {the module that holds the names: "the names", or {shown name: its name there}}.

TK = {   # `import tapekit as tk`, besides the namespaces (TK_NAMESPACES)
    "tapekit.tensor": "Tensor Variable",
    "tapekit.ops.conversion": "constant convert_to_tensor",
    "tapekit.tape": "GradientTape",
    "tapekit.backprop": "GradientDtypeWarning UnconnectedGradients",
    "tapekit.forward": "ForwardAccumulator",
    "tapekit.custom": "custom_gradient",
    "tapekit.record": "Record",
    "tapekit.observers": "TapeObserver observe_all_tapes stop_observing_all_tapes",
    "tapekit.dtypes": "bool complex64 complex128 double float16 float32 float64 half int8 int16 "
                      "int32 int64 uint8 uint16 uint32 uint64",
    # The ops TensorFlow has at its top level (tf.asin, tf.atan2, tf.tile, tf.add_n,
    # tf.cumsum ...; lgamma, xlogy, cumprod only in tf.math): the others are in tk.math,
    # tk.nn and tk.linalg.
    "tapekit.ops": "abs acos add add_n argmax argmin asin atan2 boolean_mask cast ceil "
                   "clip_by_global_norm clip_by_norm clip_by_value concat cos count_nonzero cumsum "
                   "divide einsum equal erf exp expand_dims expm1 eye fill floor floordiv floormod "
                   "gather gather_nd global_norm greater greater_equal identity is_finite is_nan "
                   "less less_equal linspace log log1p logical_and logical_not logical_or matmul "
                   "maximum minimum mod multiply negative newaxis norm not_equal one_hot ones "
                   "ones_like pad pow range rank reciprocal reduce_all reduce_any reduce_logsumexp "
                   "reduce_max reduce_mean reduce_min reduce_prod reduce_std reduce_sum "
                   "reduce_variance repeat reshape roll round rsqrt saturate_cast scatter_nd shape "
                   "sigmoid sign sin size split sqrt square squared_difference squeeze stack "
                   "stop_gradient subtract tanh tensor_scatter_nd_add tensor_scatter_nd_sub "
                   "tensor_scatter_nd_update tensordot TensorShape tile "
                   "transpose where zeros zeros_like",
    "tapekit.ops.shapes": {"broadcast_to": "broadcast_to_shape"},   # tf.broadcast_to(input, shape)
    "tapekit.ops.gather_scatter": {"slice": "slice_"},               # tf.slice (slice is Python's)
    "tapekit.printing": "print",                                     # tf.print
    "tapekit.compiler": "TensorSpec autograph function init_scope py_function",   # tk.autograph: the module
    "tapekit.tensor_array": "TensorArray",
    "tapekit.indexed_slices": "IndexedSlices",
    "tapekit.module": "Module",
    "tapekit.keras": "Input Model Sequential",
    "tapekit.keras.initializers": {"zeros_initializer": "ZerosInitializer",       # TF's own,
                                   "random_normal_initializer": "RandomNormalInitializer"},  # tensors
    "tapekit.display": "show",
    "tapekit.display.scopes": {"name_scope": "NameScope"},           # tf.name_scope, a class
    "tapekit.control_flow": "map_fn while_loop",
}

# The namespaces dir(tk) shows (tk.backprop and tk.record for what a tape keeps and how it
# walks). tapekit's other modules (tk.tape, tk.callsite, ...) stay reachable as attributes but
# are not namespaces: TensorFlow has none such.
TK_NAMESPACES = ("activations autodiff autograph backend backprop callbacks config debugging display "
                 "dtypes errors image initializers keras layers linalg losses math metrics models "
                 "nest nn optimizers random record regularizers saving test testing train types "
                 "utils widgets").split()

MADE = {   # namespace -> (its docstring, its table)
    "tapekit.math": ("tapekit.math: every math function of tapekit (tk.math.log and tk.log are the same).", {
        "tapekit.ops": "abs acos add add_n argmax argmin asin atan2 cast ceil clip_by_global_norm "
                       "clip_by_norm clip_by_value concat confusion_matrix cos count_nonzero cumprod "
                       "cumsum digamma "
                       "divide divide_no_nan equal erf exp expand_dims expm1 floor floordiv floormod "
                       "gather global_norm greater greater_equal is_finite is_nan l2_normalize less "
                       "less_equal lgamma linspace log log1p log_sigmoid logical_and logical_not "
                       "logical_or matmul maximum minimum mod multiply negative not_equal one_hot "
                       "ones ones_like pow range reciprocal reduce_all reduce_any reduce_logsumexp "
                       "reduce_max reduce_mean reduce_min reduce_prod reduce_std reduce_sum "
                       "reduce_variance reshape round rsqrt sigmoid sign sin softplus sqrt square "
                       "squared_difference squeeze stack subtract tanh top_k transpose where xdivy "
                       "xlogy zeros zeros_like"}),
    "tapekit.nn": ("tapekit.nn: activations, convolution and pooling, cross-entropy from logits, "
                   "moments, bias_add, embedding_lookup.", {
        "tapekit.ops": "avg_pool avg_pool2d bias_add compute_average_loss conv2d conv2d_transpose "
                       "elu embedding_lookup gelu l2_normalize leaky_relu log_softmax max_pool "
                       "max_pool2d moments relu relu6 scale_regularization_loss selu sigmoid "
                       "sigmoid_cross_entropy_with_logits silu softmax "
                       "softmax_cross_entropy_with_logits softplus softsign "
                       "sparse_softmax_cross_entropy_with_logits swish tanh top_k"}),
    "tapekit.linalg": ("tapekit.linalg: matrices (tf.linalg). tk.linalg.matmul and tk.matmul are the "
                       "same function.", {
        "tapekit.ops": "det diag diag_part einsum eye global_norm inv l2_normalize matmul matvec norm "
                       "slogdet solve svd tensordot trace",
        "tapekit.ops.matrix": "adjoint matrix_transpose"}),
    "tapekit.image": ("tapekit.image: the tf.image functions tapekit has (ops/image.py; the random "
                      "ones image_augmentation.py).", {
        "tapekit.ops.image": "adjust_brightness adjust_contrast central_crop convert_image_dtype "
                             "crop_to_bounding_box flip_left_right flip_up_down grayscale_to_rgb "
                             "pad_to_bounding_box per_image_standardization psnr resize "
                             "rgb_to_grayscale rot90 total_variation transpose ResizeMethod",
        "tapekit.image_augmentation": "random_brightness random_crop random_flip_left_right "
                                      "random_flip_up_down"}),
    "tapekit.config": ("tk.config, as tf.config: run tk.function's Python eagerly (for debugging).", {
        "tapekit.compiler.function": "functions_run_eagerly run_functions_eagerly"}),
    "tapekit.autodiff": ("tk.autodiff, as tf.autodiff: the same ForwardAccumulator and GradientTape "
                         "as tk.", {
        "tapekit.forward": "ForwardAccumulator",
        "tapekit.tape": "GradientTape"}),
    "tapekit.types": ("tk.types, as tf.types: its `experimental` namespace (made after it).", {}),
    "tapekit.types.experimental": ("tk.types.experimental: TraceType, how an argument of your "
                                   "own class decides which calls of a tk.function share a trace.", {
        "tapekit.compiler.signature": "TraceType"}),
    "tapekit.test": ("tk.test: is the tape's derivative right? Compare it with finite differences.\n\n"
                     "    theoretical, numerical = tk.test.compute_gradient(f, [x])   # as tf.test.compute_gradient\n"
                     "    tk.test.check_gradients(f, x, order=2)                       # a readable report\n\n"
                     "TensorFlow's names for the one gradient checker, tapekit/testing/ (tk.testing), which "
                     "tapekit's own op table is tested with: the same objects.", {
        "tapekit.testing": "GradientCheck GradientCheckError GradientReport check_gradients",
        "tapekit.testing.jacobians": "compute_gradient"}),
}

# tapekit.keras's modules, also tk.layers, ... and `import tapekit.layers` (and, after
# `import tapekit as keras`, keras.layers): the same module objects.
KERAS = ("activations backend callbacks constraints initializers layers losses metrics models optimizers "
         "regularizers saving utils").split()


# --- making them ---------------------------------------------------------------------------

def names_of(table):
    """{shown name: object} for a table (its modules are imported if they are not yet)."""
    out = {}
    for module, names in table.items():
        source = importlib.import_module(module)
        pairs = names.items() if isinstance(names, dict) else ((n, n) for n in names.split())
        for shown, name in pairs:
            if not hasattr(source, name):   # a submodule not imported yet (tk.autograph)
                importlib.import_module(f"{module}.{name}")
            out[shown] = getattr(source, name)
    return out


def make(name):
    """The namespace `name` of MADE: a module holding its table's names, importable by its name
    (sys.modules) and an attribute of its package. Made once; later calls return it."""
    if name in sys.modules:
        return sys.modules[name]
    doc, table = MADE[name]
    module = ModuleType(name, doc)
    names = names_of(table)
    vars(module).update(names)
    module.__all__ = sorted(names)
    module.__dir__ = public_dir(vars(module))
    module.__getattr__ = missing(name)
    sys.modules[name] = module
    parent, _, attr = name.rpartition(".")
    setattr(sys.modules[parent], attr, module)
    if parent in MADE:     # tk.types.experimental: its parent, made before it, shows it
        sys.modules[parent].__all__ = sorted(sys.modules[parent].__all__ + [attr])
    return module


def bind_tk(tk):
    """Bind tk's names (TK) in `tk`, the package's globals, and give it `__dir__` and `__getattr__`."""
    tk.update(names_of(TK))
    tk["__dir__"] = public_dir(tk, namespaces=TK_NAMESPACES)
    tk["__getattr__"] = missing("tapekit")


def alias_keras(tk):
    """tk.layers, ... and tapekit.layers, ... (KERAS) for tapekit.keras's modules; tk.ops for
    tapekit.keras.ops."""
    keras = tk["keras"]
    for name in KERAS:
        module = tk[name] = getattr(keras, name)
        sys.modules[f"{tk['__name__']}.{name}"] = module
    # `import tapekit as keras; keras.ops.mean`: tk.ops is keras.ops, Keras's names and
    # signatures. Only the attribute: the package tapekit.ops (sys.modules) stays tapekit's op
    # table, which `from tapekit.ops import ...` and tapekit's own modules import.
    tk["ops"] = keras.ops
    # A name they lack says so (`missing`), as tk's own namespaces do; the op table too.
    modules = [keras, sys.modules[f"{tk['__name__']}.ops"], keras.optimizers.schedules]
    for module in modules + [getattr(keras, name) for name in KERAS]:
        if "__getattr__" not in vars(module):
            module.__getattr__ = missing(module.__name__)
