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

OUT = {
    "download": "downloads a data set (out of scope)",
    "pip": "installs packages (out of scope)",
    "saved_model": "SavedModel (out of scope)",
    "checkpoint": "checkpoint files (out of scope)",
    "tensorboard": "TensorBoard (out of scope)",
    "keras_saving": "saves/loads a .keras file (out of scope, like SavedModel)",
    "not_autograph": "outside function.ipynb's AutoGraph section (issue 24: tk.function)",
}

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
