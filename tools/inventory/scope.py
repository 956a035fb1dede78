"""Which public TensorFlow / Keras names are in tapekit's scope, and why the others are not.

Pure Python (no TensorFlow): walk.py calls `classify(path)` on every alias of every name it
finds, and the self-checks at the bottom run anywhere (`python tools/inventory/scope.py`).

tapekit's scope (issue 45): dense CPU numerics, autodiff, `tf.function`, Keras models, layers,
losses, metrics, optimizers, callbacks, utils, saving. A rule below is a regular expression
over a dotted name (`tf.strings.length`, `keras.layers.TextVectorization`), tried in order;
the first that matches gives the reason a name is out of scope. A name no rule matches is in
scope. A name with several aliases is out of scope only when every alias is (walk.py).
"""
import re

# reason -> what it means; docs/names.md prints this table.
REASONS = {
    "strings": "string tensors: tf.strings, the tf.string dtype, text layers and utilities",
    "ragged": "ragged tensors: tf.ragged, RaggedTensor and its specs",
    "sparse": "sparse tensors: tf.sparse, SparseTensor, tf.sets",
    "tf.data": "tf.data pipelines and the dataset utilities built on them",
    "distribute": "tf.distribute, DTensor, Keras distribution, variable synchronization",
    "device": "TPU/GPU and device APIs: tf.device, tf.config's devices, tf.tpu, XLA",
    "tensorboard": "TensorBoard: tf.summary, the profiler, the TensorBoard callback, debug dumps",
    "savedmodel": "SavedModel and export: tf.saved_model, Keras export, TFSMLayer",
    "queue": "tf.queue",
    "io-formats": "tf.io and file formats: file systems, protobuf records, image/audio decoding",
    "compat": "tf.compat: the TensorFlow 1 API and version shims",
    "raw-ops": "tf.raw_ops: the kernels behind the public functions",
    "graph-mode": "TensorFlow 1 graph building: tf.Graph, graph_util, control dependencies",
    "tflite": "TensorFlow Lite and its converters",
    "quantization": "quantization: tf.quantization, Keras quantizers, int4/int8 modes",
    "lookup-tables": "tf.lookup hash tables (string vocabularies)",
    "feature-columns": "tf.feature_column (deprecated, string and sparse inputs)",
    "other-backends": "JAX and PyTorch interop: JaxLayer, FlaxLayer, TorchModuleWrapper",
    "downloads": "needs the network: Keras datasets, pretrained applications, get_file",
    "custom-ops": "C++ op libraries and build configuration: load_op_library, tf.sysconfig",
    "compiler": "TensorFlow's compiler internals: MLIR, grappler options, tf.tools",
    "extension-types": "tf.experimental extension types, StructuredTensor, dispatch registration",
    "tf-numpy": "tf.experimental.numpy, TensorFlow's copy of NumPy's API (use NumPy itself)",
    "legacy": "keras.legacy and Keras 2's removed preprocessing (keras.preprocessing.text)",
    "low-precision": "8-bit and smaller float/int dtypes (float8, int4, ...), mixed precision on GPUs",
    "fuzzing": "tf.security.fuzzing: fuzz-testing helpers of TensorFlow's own",
}

_RULES = [(re.compile(p), r) for p, r in [
    # whole modules
    (r"^tf\.compat(\.|$)", "compat"),
    (r"^tf\.raw_ops(\.|$)", "raw-ops"),
    (r"^tf\.(strings)(\.|$)", "strings"),
    (r"^tf\.ragged(\.|$)", "ragged"),
    (r"^tf\.(sparse|sets)(\.|$)", "sparse"),
    (r"^tf\.data(\.|$)", "tf.data"),
    (r"^tf\.(distribute|dtensor)(\.|$)|^tf\.experimental\.dtensor(\.|$)", "distribute"),
    (r"^keras\.distribution(\.|$)|^tf\.keras\.distribution(\.|$)", "distribute"),
    (r"^tf\.(tpu|xla)(\.|$)|^tf\.config(\.|$)(?!.*(run_functions_eagerly|functions_run_eagerly"
     r"|enable_op_determinism|set_soft_device_placement))|^tf\.experimental\.tensorrt", "device"),
    (r"^tf\.(summary|profiler)(\.|$)|^tf\.debugging\.experimental(\.|$)", "tensorboard"),
    (r"\.callbacks\.TensorBoard$", "tensorboard"),
    (r"^tf\.saved_model(\.|$)|^(tf\.)?keras\.export(\.|$)|\.TFSMLayer$", "savedmodel"),
    (r"^tf\.queue(\.|$)", "queue"),
    (r"^tf\.io(\.|$)|^tf\.audio(\.|$)", "io-formats"),
    (r"^tf\.train\.(BytesList|Example|Feature|FeatureList|FeatureLists|Features|FloatList"
     r"|Int64List|SequenceExample)$", "io-formats"),
    (r"^tf\.train\.(ClusterDef|ClusterSpec|JobDef|ServerDef|Coordinator|Server)$", "distribute"),
    (r"^tf\.lite(\.|$)", "tflite"),
    (r"^tf\.quantization(\.|$)|^(tf\.)?keras\.quantizers(\.|$)", "quantization"),
    (r"^tf\.lookup(\.|$)", "lookup-tables"),
    (r"^tf\.feature_column(\.|$)", "feature-columns"),
    (r"^tf\.(mlir|tools|graph_util)(\.|$)|^tf\.config\.optimizer", "compiler"),
    (r"^tf\.sysconfig(\.|$)|^tf\.(load_op_library|load_library|load_pluggable_device_library)$",
     "custom-ops"),
    (r"^tf\.experimental\.numpy(\.|$)", "tf-numpy"),
    (r"^tf\.experimental\.(ExtensionType|BatchableExtensionType|ExtensionTypeBatchEncoder"
     r"|ExtensionTypeSpec|StructuredTensor|DynamicRaggedShape|RowPartition|extension_type"
     r"|dispatch_for_\w+|unregister_dispatch_for|dlpack|async_\w+|function_executor_type"
     r"|register_filesystem_plugin|enable_strict_mode)(\.|$)", "extension-types"),
    (r"^tf\.experimental\.Optional$", "tf.data"),
    (r"^tf\.(dtypes\.)?experimental\.(float8_\w+|float4_\w+|int2|int4|uint2|uint4)$", "low-precision"),
    (r"^tf\.(float8_\w+|int4|uint4|int2|uint2)$", "low-precision"),
    (r"^(tf\.)?keras\.(datasets|applications)(\.|$)", "downloads"),
    (r"^(tf\.)?keras\.utils\.get_file$", "downloads"),
    (r"^(tf\.)?keras\.legacy(\.|$)|^(tf\.)?keras\.utils\.legacy(\.|$)", "legacy"),
    (r"^(tf\.)?keras\.preprocessing\.text(\.|$)", "legacy"),
    # names: strings, ragged, sparse, tf.data, devices, files anywhere else
    (r"^tf\.(dtypes\.)?(string|as_string|string_split|substr|reduce_join|fingerprint|unicode_\w+)$",
     "strings"),
    (r"^tf\.(dtypes\.)?(qint\d+|quint\d+)$", "quantization"),
    (r"^tf\.(dtypes\.)?(variant|resource)$", "graph-mode"),
    (r"^tf\.ragged_\w+$", "ragged"),
    (r"^tf\.security(\.|$)", "fuzzing"),
    (r"^(tf\.)?keras\.device$", "device"),
    (r"\.(TextVectorization|StringLookup|Hashing|HashedCrossing)$", "strings"),
    (r"^(tf\.)?keras\.utils\.(text_dataset_from_directory)$", "strings"),
    (r"^tf\.(RaggedTensor|RaggedTensorSpec)$", "ragged"),
    (r"^tf\.(SparseTensor|SparseTensorSpec|IndexedSlicesSpec|edit_distance)$",
     "sparse"),
    (r"^tf\.nn\.(embedding_lookup_sparse|safe_embedding_lookup_sparse|ctc_\w+"
     r"|collapse_repeated|sampled_softmax_loss|nce_loss|fixed_unigram_candidate_sampler"
     r"|learned_unigram_candidate_sampler|log_uniform_candidate_sampler"
     r"|uniform_candidate_sampler|all_candidate_sampler|compute_accidental_hits)$", "sparse"),
    (r"^tf\.(OptionalSpec|DatasetSpec)$", "tf.data"),
    (r"^(tf\.)?keras\.utils\.(image_dataset_from_directory|audio_dataset_from_directory"
     r"|timeseries_dataset_from_array|split_dataset|FeatureSpace)$", "tf.data"),
    (r"^(tf\.)?keras\.preprocessing\.(image_dataset_from_directory|text_dataset_from_directory"
     r"|timeseries_dataset_from_array)$", "tf.data"),
    (r"^tf\.(device|DeviceSpec)$|^tf\.test\.(is_gpu_available|gpu_device_name|is_built_with_\w+"
     r"|experimental\.sync_devices)$", "device"),
    (r"^tf\.(VariableSynchronization|VariableAggregation|CriticalSection)$", "distribute"),
    (r"^tf\.(Graph|Operation|GraphDef|control_dependencies|group|import_graph_def"
     r"|get_current_name_scope|no_gradient|RegisterGradient|NoGradient)$", "graph-mode"),
    (r"^tf\.image\.(decode_\w+|encode_\w+|extract_jpeg_shape|is_jpeg|adjust_jpeg_quality"
     r"|random_jpeg_quality|stateless_random_jpeg_quality)$", "io-formats"),
    (r"^(tf\.)?keras\.(utils|preprocessing\.image)\.(load_img|save_img)$", "io-formats"),
    (r"^(tf\.)?keras\.layers\.(JaxLayer|FlaxLayer|TorchModuleWrapper)$", "other-backends"),
    (r"^(tf\.)?keras\.config\.(set_backend)$", "other-backends"),
    (r"^(tf\.)?keras\.callbacks\.RemoteMonitor$", "downloads"),
    (r"^(tf\.)?keras\.(dtype_policies|mixed_precision)(\.|$)", "low-precision"),
    (r"\.(quantize|quantized_call|quantized_build|enable_lora|int8_call|int4_call|float8_call"
     r"|_int8_build|_float8_build)$", "quantization"),
]]


def classify(path):
    """The reason `path` is out of scope, or None when it is in scope.

    >>> classify("tf.strings.length"), classify("tf.math.add"), classify("tf.io.gfile.GFile")
    ('strings', None, 'io-formats')
    >>> classify("keras.layers.TextVectorization"), classify("tf.keras.layers.Dense")
    ('strings', None)
    >>> classify("tf.config.run_functions_eagerly"), classify("tf.config.list_physical_devices")
    (None, 'device')
    >>> classify("tf.image.decode_png"), classify("tf.image.resize")
    ('io-formats', None)
    >>> classify("keras.callbacks.TensorBoard"), classify("keras.callbacks.EarlyStopping")
    ('tensorboard', None)
    """
    for rule, reason in _RULES:
        if rule.search(path):
            return reason
    return None


if __name__ == "__main__":
    import doctest
    failed, tried = doctest.testmod()
    print(f"scope.py: {tried - failed}/{tried} self-checks passed")
    raise SystemExit(1 if failed else 0)
