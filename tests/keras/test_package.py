"""tapekit.keras as a package (issue 44): its namespaces show their own names only, each made
from the one table its __init__ imports, and the module paths of tapekit before issue 44 that
pickles and imports name still resolve to the same classes and functions."""
import importlib
import pickle
import types

import pytest

import tapekit as tk
from tapekit.keras.identifiers import exported

KERAS_NAMESPACES = ["tapekit.keras", "tapekit.keras.layers", "tapekit.keras.losses",
                    "tapekit.keras.metrics", "tapekit.keras.optimizers", "tapekit.keras.callbacks",
                    "tapekit.keras.utils", "tapekit.keras.saving", "tapekit.keras.models",
                    "tapekit.keras.ops"]
# The modules a namespace hands on as namespaces of their own; no other module is shown.
SUB_NAMESPACES = {"tapekit.keras": {"activations", "backend", "callbacks", "initializers",
                                    "layers", "losses", "metrics", "models", "ops",
                                    "optimizers", "regularizers", "saving", "utils", "constraints"},
                  "tapekit.keras.optimizers": {"schedules"},
                  # as Keras 3's keras.ops (its core and math functions only at keras.ops)
                  "tapekit.keras.ops": {"image", "linalg", "nn", "numpy"}}


@pytest.mark.parametrize("name", KERAS_NAMESPACES)
def test_a_keras_namespace_shows_no_module_of_its_own(name):
    # tk.metrics listed its submodules base, confusion and regression (its __all__ was dir())
    module = importlib.import_module(name)
    shown = [n for n in dir(module) if not n.startswith("_")]
    modules = {n for n in shown if isinstance(getattr(module, n), types.ModuleType)}
    assert modules == SUB_NAMESPACES.get(name, set())
    assert sorted(module.__all__) == shown


def test_a_namespace_exports_what_its_init_binds_and_nothing_private():
    table = {"Dense": tk.layers.Dense, "get": tk.losses.get, "_BY_NAME": {}, "np": None,
             "lookup": tk.saving.lookup, "schedules": tk.optimizers.schedules}
    assert exported(table) == ["Dense", "get", "np"]
    assert exported(table, modules=("schedules",)) == ["Dense", "get", "np", "schedules"]


def test_every_keras_namespace_s_classes_are_the_ones_a_config_may_name():
    tables = tk.saving.lookup.builtin_tables()
    for namespace, module in [(tk.layers, "keras.layers"), (tk.losses, "keras.losses"),
                              (tk.metrics, "keras.metrics"), (tk.optimizers, "keras.optimizers"),
                              (tk.optimizers.schedules, "keras.optimizers.schedules"),
                              (tk.initializers, "keras.initializers"),
                              (tk.regularizers, "keras.regularizers")]:
        classes = {n: getattr(namespace, n) for n in namespace.__all__
                   if isinstance(getattr(namespace, n), type)}
        assert tables[module] == classes, module
    assert tables["keras.models"] == {"Model": tk.Model, "Sequential": tk.Sequential}


# tapekit 0.2.0 before issue 44 (commit 5338122): every class and public function that these
# modules defined, by the module a pickle (or an import) names it with.
OLD_PATHS = {
    "tapekit.keras.loss_base": "Loss mask_weights",
    "tapekit.keras.targets": "as_float prepare squeeze_or_expand",
    "tapekit.keras.hinge_losses": "CategoricalHinge Hinge SquaredHinge binary_labels_to_hinge "
                                  "categorical_hinge hinge squared_hinge",
    "tapekit.keras.probabilistic_losses": "KLDivergence Poisson kl_divergence poisson",
    "tapekit.keras.losses": "BinaryCrossentropy CategoricalCrossentropy CosineSimilarity Huber "
                            "LogCosh MAE MSE MeanAbsoluteError MeanAbsolutePercentageError "
                            "MeanSquaredError MeanSquaredLogarithmicError "
                            "SparseCategoricalCrossentropy binary_crossentropy "
                            "categorical_crossentropy cosine_similarity get huber log_cosh mae "
                            "mean_absolute_error mean_absolute_percentage_error "
                            "mean_squared_error mean_squared_logarithmic_error mse "
                            "sparse_categorical_crossentropy",
    "tapekit.keras.trainer": "Trainer",
    "tapekit.keras.data_adapter": "check_data_tuple class_weight_to_sample_weight is_arrays "
                                  "is_batch_list train_validation_split unpack_x_y_sample_weight",
    "tapekit.keras.loss_and_metrics": "_FunctionLoss samples_in",
    "tapekit.keras.schedules": "ExponentialDecay LearningRateSchedule PiecewiseConstantDecay",
    "tapekit.keras.layers.naming": "check_name join_path snake_name unique_name",
    "tapekit.keras.layers.conv": "Conv1D Conv2D Conv2DTranspose MaxPooling2D",
    "tapekit.keras.layers.pooling": "AveragePooling2D GlobalAveragePooling1D "
                                    "GlobalAveragePooling2D GlobalMaxPooling1D GlobalMaxPooling2D",
}
# Not kept: LossAndMetrics (compile_utils's CompileLoss and CompileMetrics replace the mixin),
# data_adapter's EpochIterator and single_batch (trainers/epoch_iterator.py), conv.nn_op (the
# layers call tk.nn's ops), naming.reset_names (clear_session, beside it, is what it was), losses.check_label_smoothing and sigmoid_cross_entropy_with_logits
# (tapekit.keras.losses.losses's, never in tk.losses's names), and private helpers.


@pytest.mark.parametrize("module", sorted(OLD_PATHS))
def test_the_module_paths_of_before_issue_44_still_resolve(module):
    found = importlib.import_module(module)
    for name in OLD_PATHS[module].split():
        obj = getattr(found, name)
        assert callable(obj), (module, name)
        # the very object of its module of today: a pickle naming the old path gets it
        assert vars(importlib.import_module(obj.__module__))[obj.__name__] is obj


def test_a_pickle_naming_an_old_path_loads_the_class_of_today():
    # A pickle of tk.losses.Hinge() made before issue 44 named its class by the module of then
    # (protocol 2 writes it as a line of text: "ctapekit.keras.hinge_losses\nHinge\n").
    new = pickle.dumps(tk.losses.Hinge(reduction="sum"), protocol=2)
    assert b"ctapekit.keras.losses.hinge_losses\nHinge\n" in new
    old = new.replace(b"ctapekit.keras.losses.hinge_losses\n", b"ctapekit.keras.hinge_losses\n")
    loss = pickle.loads(old)
    assert type(loss) is tk.losses.Hinge and loss.reduction == "sum"


def test_the_old_modules_are_the_new_ones():
    import tapekit.keras.loss_and_metrics as loss_and_metrics
    import tapekit.keras.schedules as schedules
    from tapekit.keras.losses.loss import LossFunctionWrapper
    assert schedules is tk.optimizers.schedules is tk.keras.schedules
    assert loss_and_metrics._FunctionLoss is LossFunctionWrapper
