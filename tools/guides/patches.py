"""What run_guides.py changes in the guides' cells before running them, and why (issue 23).

The contract (docs: API.md) leaves out downloads, tf.data, SavedModel, checkpoints,
TensorBoard and GPUs. For each guide, this table says per cell (the cell numbers of
extract.py):
- SKIP[cell] = reason: the cell is out of scope and not run;
- SUB[cell] = [(old, new), ...]: literal replacements in the guide's own code (each `old`
  must still occur, or the runner says the patch no longer applies), written in
  TensorFlow's vocabulary, so the same patched cell runs under TensorFlow for --compare;
- REPLACE[cell] = code: the cell is replaced by a stand-in of the same shapes and dtypes;
- PRELUDE: code run before the guide's first cell (stand-in helpers, NumPy only);
- SCOPE: if given, only these cells are in scope (function.ipynb: Setup + AutoGraph);
- RANDOM: cells whose printed numbers depend on random initial weights or data, which
  --compare cannot hold against TensorFlow's (different random streams), or on versions.
Stand-in data is made with NumPy from a fixed seed, so both runs see the same numbers.
"""

_STAND_INS = '''
import numpy as np


def _mnist_like(n_train, n_test, seed=0):
    """Shaped like keras.datasets.mnist.load_data(): uint8 images (N, 28, 28), uint8 labels.

    Ten random prototype images plus noise, so a model can learn something."""
    rng = np.random.default_rng(seed)
    protos = rng.uniform(0, 255, size=(10, 28, 28))

    def make(n):
        y = rng.integers(0, 10, size=n).astype("uint8")
        x = np.clip(protos[y] + rng.normal(0, 80, size=(n, 28, 28)), 0, 255)
        return x.astype("uint8"), y

    return make(n_train), make(n_test)


def _batches(arrays, batch_size, shuffle=False, seed=0):
    """A list of NumPy batches in place of tf.data's from_tensor_slices(...).batch(...)."""
    single = not isinstance(arrays, tuple)
    arrays = (arrays,) if single else arrays
    order = np.arange(len(arrays[0]))
    if shuffle:
        np.random.default_rng(seed).shuffle(order)
    out = []
    for i in range(0, len(order), batch_size):
        part = tuple(a[order[i:i + batch_size]] for a in arrays)
        out.append(part[0] if single else part)
    return out
'''

# penguins/processed: 334 rows of 4 float32 features in [0, 1], int64 labels 0..2; the
# tutorial splits train[:20%] (67 rows) for test and train[20%:] (267 rows) for training.
_PENGUINS = '''
_rng = np.random.default_rng(23)
_features = _rng.uniform(0.0, 1.0, size=(334, 4)).astype("float32")
_mix = np.array([[4., -2., 0.], [-3., 3., 0.], [0., -1., 3.], [1., 0., -2.]], "float32")
_labels = np.argmax(_features @ _mix, axis=1).astype("int64")
ds_test = (_features[:67], _labels[:67])
ds_train = (_features[67:], _labels[67:])
ds_train_batch = _batches(ds_train, 32)
'''

# issue 32: a stand-in for tf.data that runs under both frameworks: a PyDataset subclass of
# the framework's own `keras.utils.PyDataset` (passed in by the cell, which is translated),
# over arrays or (nested dicts/tuples of) arrays, shuffled once with a fixed seed.
_PYDATASET = '''

def _pydataset(base, arrays, batch_size, shuffle=False, seed=0):
    """A `base` (keras.utils.PyDataset) of batches of `arrays` (a tuple, possibly of dicts)."""
    def leaves(a):
        return [v for k in sorted(a) for v in leaves(a[k])] if isinstance(a, dict) else \\
            [v for x in a for v in leaves(x)] if isinstance(a, tuple) else [a]
    n = len(leaves(arrays)[0])
    order = np.arange(n)
    if shuffle:
        np.random.default_rng(seed).shuffle(order)

    def take(a, idx):
        if isinstance(a, dict):
            return {k: take(v, idx) for k, v in a.items()}
        if isinstance(a, tuple):
            return tuple(take(v, idx) for v in a)
        return a[idx]

    class _Batches(base):
        def __len__(self):
            return -(-n // batch_size)

        def __getitem__(self, i):
            return take(arrays, order[i * batch_size:(i + 1) * batch_size])

    return _Batches()
'''


def _tfdata(name, arrays, batch, shuffle):
    """The guide's two tf.data lines -> the PyDataset stand-in (same batch size)."""
    return f"{name} = _pydataset(keras.utils.PyDataset, {arrays}, {batch}, shuffle={shuffle})"


OUT = {
    "download": "downloads a data set (out of scope)",
    "pip": "installs packages (out of scope)",
    "saved_model": "SavedModel (out of scope)",
    "checkpoint": "checkpoint files (out of scope)",
    "tensorboard": "TensorBoard (out of scope)",
    "keras_saving": "saves/loads a .keras file (out of scope, like SavedModel)",
    "not_autograph": "outside function.ipynb's AutoGraph section (issue 24: tk.function)",
    "keras2": "Keras 2 only (add_metric / keras.backend.std): Keras 3 removed them, and the "
              "cell fails under TensorFlow 2.21 / Keras 3.15 too",
    "plot_model": "plot_model writes a PNG through pydot (file output, out of scope)",
    "model_checkpoint": "ModelCheckpoint: saving files during fit (issue 32's saving part, "
                        "not the training loop)",
}

_TRAIN_DS = ("train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train))\n"
             "train_dataset = train_dataset.shuffle(buffer_size=1024).batch(64)")
_TRAIN_DS_COMMENTED = ("train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train))\n"
                       "# Shuffle and slice the dataset.\n"
                       "train_dataset = train_dataset.shuffle(buffer_size=1024).batch(64)")
_VAL_DS = ("val_dataset = tf.data.Dataset.from_tensor_slices((x_val, y_val))\n"
           "val_dataset = val_dataset.batch(64)")
_TRAIN_SUB = (_TRAIN_DS, _tfdata("train_dataset", "(x_train, y_train)", 64, True))
_VAL_SUB = (_VAL_DS, _tfdata("val_dataset", "(x_val, y_val)", 64, False))

GUIDES = {
    "autodiff": {"RANDOM": {13, 15, 19, 21}},  # 22 prints names: compared
    "advanced_autodiff": {
        "SKIP": {19: OUT["saved_model"], 20: OUT["saved_model"]},
        "RANDOM": {30, 31, 32, 44, 48, 50, 53, 56, 63, 67, 69, 74, 76, 77, 79, 82},
    },
    "basic_training_loops": {
        "SUB": {30: [('keras_model.save_weights("my_checkpoint")',
                      '# keras_model.save_weights: checkpoint, out of scope')]},
        "RANDOM": {9, 18, 22, 24, 28, 30, 34},
    },
    "intro_to_modules": {
        "SUB": {5: [("%load_ext tensorboard", "# %load_ext tensorboard: out of scope")]},
        "SKIP": {22: OUT["checkpoint"], 24: OUT["checkpoint"], 26: OUT["checkpoint"],
                 28: OUT["checkpoint"], 35: OUT["tensorboard"], 37: OUT["tensorboard"],
                 40: OUT["saved_model"], 41: OUT["saved_model"], 42: OUT["saved_model"],
                 44: OUT["saved_model"], 46: OUT["saved_model"],
                 75: OUT["keras_saving"], 77: OUT["keras_saving"], 79: OUT["keras_saving"]},
        "RANDOM": {13, 16, 19, 33, 48, 55, 61, 62, 66, 68, 72},
    },
    "custom_training_walkthrough": {
        "PRELUDE": _STAND_INS,
        "SKIP": {7: OUT["pip"], 13: OUT["download"]},
        "SUB": {
            10: [("import tensorflow_datasets as tfds\n", ""),
                 ('print("TensorFlow Datasets version: ",tfds.__version__)', "")],
            54: [("ds_test_batch = ds_test.batch(10)",
                  "ds_test_batch = _batches(ds_test, 10)")],
        },
        "REPLACE": {19: _PENGUINS},
        "RANDOM": {10, 29, 31, 33, 37, 44, 46, 54, 57, 59},  # 10 prints the version
    },
    "custom_training_loop_keras": {
        "PRELUDE": _STAND_INS,
        "SUB": {
            2: [("keras.datasets.mnist.load_data()", "_mnist_like(2500, 500)"),
                ("10000", "500"),
                ("train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train))\n"
                 "train_dataset = train_dataset.shuffle(buffer_size=1024).batch(batch_size)",
                 "train_dataset = _batches((x_train, y_train), batch_size, shuffle=True)"),
                ("val_dataset = tf.data.Dataset.from_tensor_slices((x_val, y_val))\n"
                 "val_dataset = val_dataset.batch(batch_size)",
                 "val_dataset = _batches((x_val, y_val), batch_size)")],
            15: [("keras.datasets.mnist.load_data()", "_mnist_like(700, 100)"),
                 ("dataset = tf.data.Dataset.from_tensor_slices(all_digits)\n"
                  "dataset = dataset.shuffle(buffer_size=1024).batch(batch_size)",
                  "dataset = _batches(all_digits, batch_size, shuffle=True)"),
                 ("img = keras.utils.array_to_img(generated_images[0] * 255.0, scale=False)",
                  "pass  # saving a PNG of a generated image: file output, left out"),
                 ('img.save(os.path.join(save_dir, f"generated_img_{step}.png"))', "")],
        },
        "RANDOM": {3, 5, 8, 12, 15},
    },
    # issue 32 (keras-io, tf.keras era copies): MNIST -> _mnist_like (2000 train of which 400
    # for validation, 400 test), tf.data -> the PyDataset stand-in. Training starts from
    # random weights in both frameworks, so those cells compare their printed text with the
    # numbers masked (run_guides.layout): the epoch lines, log keys and callback output.
    "training_with_built_in_methods": {
        "PRELUDE": _STAND_INS + _PYDATASET,
        "SUB": {
            2: [("keras.datasets.mnist.load_data()", "_mnist_like(2000, 400)"),
                ("60000", "2000"), ("10000", "400")],
            19: [(_TRAIN_DS_COMMENTED, _tfdata("train_dataset", "(x_train, y_train)", 64, True)),
                 ("test_dataset = tf.data.Dataset.from_tensor_slices((x_test, y_test))\n"
                  "test_dataset = test_dataset.batch(64)",
                  _tfdata("test_dataset", "(x_test, y_test)", 64, False))],
            # 1600 training samples are 25 batches of 64: 5 steps x 3 epochs fit in one pass
            20: [_TRAIN_SUB, ("steps_per_epoch=100", "steps_per_epoch=5")],
            21: [_TRAIN_SUB, _VAL_SUB],
            22: [_TRAIN_SUB, _VAL_SUB, ("validation_steps=10", "validation_steps=3")],
            25: [("train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train, "
                  "sample_weight))\n\n# Shuffle and slice the dataset.\n"
                  "train_dataset = train_dataset.shuffle(buffer_size=1024).batch(64)",
                  _tfdata("train_dataset", "(x_train, y_train, sample_weight)", 64, True))],
            34: [("train_dataset = tf.data.Dataset.from_tensor_slices(\n    (\n"
                  "        {\"img_input\": img_data, \"ts_input\": ts_data},\n"
                  "        {\"score_output\": score_targets, \"class_output\": class_targets},\n"
                  "    )\n)\ntrain_dataset = train_dataset.shuffle(buffer_size=1024).batch(64)",
                  _tfdata("train_dataset", "({\"img_input\": img_data, \"ts_input\": ts_data}, "
                          "{\"score_output\": score_targets, \"class_output\": class_targets})",
                          64, True))],
        },
        "SKIP": {14: OUT["keras2"], 15: OUT["keras2"], 17: OUT["keras2"],
                 27: OUT["plot_model"], 37: OUT["model_checkpoint"],
                 38: OUT["model_checkpoint"], 40: OUT["tensorboard"]},
        "RANDOM": {4, 5, 6, 10, 11, 12, 13, 18, 19, 20, 21, 22, 23, 24, 25, 33, 34, 35},
    },
    "writing_your_own_callbacks": {
        "PRELUDE": _STAND_INS,
        "SUB": {2: [("tf.keras.datasets.mnist.load_data()", "_mnist_like(1000, 1000)")],
                # the copy predates NumPy 2 (np.Inf) and Keras 3 (optimizer.lr): as written,
                # both cells fail under TensorFlow 2.21 too; these are the Keras 3 spellings
                6: [("np.Inf", "np.inf")],
                7: [('hasattr(self.model.optimizer, "lr")',
                     'hasattr(self.model.optimizer, "learning_rate")'),
                    # Keras 3.15's legacy tf.keras.backend.set_value fails on a Keras 3
                    # variable ('str' object has no attribute 'name'): assign directly
                    ("tf.keras.backend.set_value(self.model.optimizer.lr, scheduled_lr)",
                     "self.model.optimizer.learning_rate = scheduled_lr")]},
        "RANDOM": {5, 6, 7},
    },
    "function": {
        "SCOPE": {5, 7} | set(range(58, 71)),
        "SCOPE_REASON": OUT["not_autograph"],
        "SKIP": {67: "prints the node counts of TensorFlow's graphs (concrete_function.graph"
                     ".as_graph_def().node; and tf.data in its second half): tapekit's trace is a "
                     "Python program, not a GraphDef, so no count would match TensorFlow's (print "
                     "f.get_concrete_function(...) to see it grow with the data). The loop's "
                     "result: tests/guides/test_function_autograph_guide.py::"
                     "test_loop_over_python_data"},
        "RANDOM": {59, 70},
    },
}
