"""The generated sample a function is run on, shared by walk.py (TensorFlow) and compare.py
(tapekit); NumPy only.

A sample is data, so that both sides build the very same arguments: `make_sample(signature)`
looks at the function's required parameters and gives a spec, or says why it cannot. Kept
simple and honest on purpose: a parameter is filled only when its name says plainly what it
takes (`x`, `y`, `logits` a float32 array; `axis` an int; `shape` a list); any other required
parameter means "no sample", never a guess. Optional parameters keep their defaults.

>>> spec, why = make_sample([["x", "POSITIONAL_OR_KEYWORD", None], ["name", "POSITIONAL_OR_KEYWORD", "None"]])
>>> spec
{'args': [{'float': [2, 3], 'seed': 0}], 'kwargs': {}}
>>> make_sample([["x", "POSITIONAL_OR_KEYWORD", None], ["fn", "POSITIONAL_OR_KEYWORD", None]])
(None, 'no sample: parameter fn')
>>> args, _ = build({'args': [{'float': [2], 'seed': 0}, {'int': 1}], 'kwargs': {}}, {})
>>> args[0].dtype, args[0].shape, args[1]
(dtype('float32'), (2,), 1)
>>> encode(np.array([1.5, np.nan], "float32"))
{'dtype': 'float32', 'shape': [2], 'values': [1.5, 'nan']}
>>> close(encode(np.float32(1.0)), encode(np.float32(1.0 + 1e-7)))
(True, '')
>>> close(encode(np.float64(1.0)), encode(np.float32(1.0)))
(False, 'dtype float64, TensorFlow float32')
"""
import math

import numpy as np

# Required parameters filled by name: a float32 array of the sample's shape...
FLOAT_ARRAYS = {
    "x", "y", "a", "b", "input", "input_tensor", "tensor", "features", "logits", "t", "z",
    "x1", "x2", "y_true", "y_pred", "labels", "predictions", "params", "data", "value",
    "matrix", "image", "images", "input_a", "input_b", "tensor_a", "tensor_b", "target",
    "targets", "inputs_x", "arr", "pred", "true",
}
# ...a list of two of them...
FLOAT_LISTS = {"values", "tensors", "inputs", "xs", "arrays"}
# ...a Python int or list of ints...
INTS = {"axis": 1, "depth": 3, "k": 1, "num_rows": 2, "num_classes": 3, "num": 3, "n": 2}
INT_LISTS = {"shape": [2, 3], "dims": [2, 3], "multiples": [1, 2], "perm": [1, 0],
             "indices": [1, 0], "segment_ids": [0, 1], "paddings": [[1, 1], [0, 1]],
             "begin": [0, 1], "size": [1, 2], "new_shape": [3, 2]}
# ...or a dtype by name.
DTYPES = {"dtype": "float32"}
REQUIRED_KINDS = ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY")


def make_sample(signature, shape=(2, 3)):
    """(spec, None), or (None, why there is no sample)."""
    args, kwargs, n_arrays = [], {}, 0
    for name, kind, default in signature:
        if kind not in REQUIRED_KINDS or default is not None:
            continue              # optional: TensorFlow's default
        if name in FLOAT_ARRAYS:
            item = {"float": list(shape), "seed": n_arrays}
            n_arrays += 1
        elif name in FLOAT_LISTS:
            item = {"list": [{"float": list(shape), "seed": n_arrays + i} for i in range(2)]}
            n_arrays += 2
        elif name in INTS:
            item = {"int": INTS[name]}
        elif name in INT_LISTS:
            item = {"ints": INT_LISTS[name]}
        elif name in DTYPES:
            item = {"dtype": DTYPES[name]}
        else:
            return None, f"no sample: parameter {name}"
        if kind == "KEYWORD_ONLY":
            kwargs[name] = item
        else:
            args.append(item)
    return {"args": args, "kwargs": kwargs}, None


def _value(item, dtypes):
    if "float" in item:
        rng = np.random.default_rng(item["seed"])
        return rng.uniform(0.1, 0.9, size=item["float"]).astype("float32")
    if "list" in item:
        return [_value(i, dtypes) for i in item["list"]]
    if "int" in item:
        return item["int"]
    if "ints" in item:
        return list(item["ints"])
    return dtypes.get(item["dtype"], item["dtype"])


def build(spec, dtypes):
    """The call's (args, kwargs); `dtypes` maps a dtype name to the library's dtype object."""
    return ([_value(i, dtypes) for i in spec["args"]],
            {k: _value(v, dtypes) for k, v in spec["kwargs"].items()})


def _number(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def encode(result, to_numpy=lambda v: v):
    """A result as JSON data (arrays, numbers, tuples/lists of them, None), or None when
    it is something else (an object, a string)."""
    if result is None:
        return {"none": True}
    if isinstance(result, (tuple, list)):
        items = [encode(r, to_numpy) for r in result]
        return None if any(i is None for i in items) else {"list": items}
    try:
        arr = np.asarray(to_numpy(result))
    except Exception:   # noqa: BLE001 - not array-like
        return None
    if arr.dtype.kind not in "biufc":
        return None
    flat = arr.ravel().tolist()
    if arr.dtype.kind == "c":
        values = [[_number(v.real), _number(v.imag)] for v in flat]
    elif arr.dtype.kind == "f":
        values = [_number(v) for v in flat]
    else:
        values = flat
    return {"dtype": arr.dtype.name, "shape": list(arr.shape), "values": values}


def close(got, want, rtol=1e-5, atol=1e-6):
    """(same?, what differs): tapekit's encoded output against TensorFlow's."""
    if "none" in want or "none" in got:
        return ("none" in want and "none" in got), "" if "none" in got else "returns None"
    if "list" in want or "list" in got:
        if "list" not in want or "list" not in got or len(want["list"]) != len(got["list"]):
            return False, "a different structure"
        for i, (g, w) in enumerate(zip(got["list"], want["list"])):
            ok, why = close(g, w, rtol, atol)
            if not ok:
                return False, f"item {i}: {why}"
        return True, ""
    if got["shape"] != want["shape"]:
        return False, f"shape {tuple(got['shape'])}, TensorFlow {tuple(want['shape'])}"
    if got["dtype"] != want["dtype"]:
        return False, f"dtype {got['dtype']}, TensorFlow {want['dtype']}"

    def arr(values):
        return np.array([[float(x) for x in v] if isinstance(v, list) else float(v)
                         for v in values], "float64")
    g, w = arr(got["values"]), arr(want["values"])
    if np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
        return True, ""
    worst = np.nanmax(np.abs(g - w)) if g.size else 0.0
    return False, f"values differ (largest difference {worst:.3g})"


if __name__ == "__main__":
    import doctest
    failed, tried = doctest.testmod()
    print(f"samples.py: {tried - failed}/{tried} self-checks passed")
    raise SystemExit(1 if failed else 0)
