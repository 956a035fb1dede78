#!/usr/bin/env python3
"""Keras 3's answers to the keras.ops cases of tests/keras/ops/ (issue 45), dev only.

Each test file there holds CASES, Keras 3 code as text (`ops` is keras.ops, `np` NumPy,
`keras` Keras), between the lines `# --- cases` and `# --- end of cases` (that block only
makes strings: it is run here as it is written). Run with the
TensorFlow venv (Keras 3 on TensorFlow) from the root of a tapekit tree:

    python tools/keras_interop/ops_values.py            # rewrites each file's KERAS block
    python tools/keras_interop/ops_values.py --check    # says which answers changed

This runs every case with Keras and writes what it answers (the kind of result, dtype, shape,
values; ["raises"] when Keras refuses the call) between `# --- Keras's answers` and
`# --- end of Keras's answers`, which tests/keras/ops/conftest.py compares tapekit's with.
"""
import os
import pprint
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests" / "keras" / "ops"
CASES = ("# --- cases", "# --- end of cases")
ANSWERS = ("# --- Keras's answers", "# --- end of Keras's answers")


def encode(value):
    if isinstance(value, (tuple, list)):
        return ["list" if type(value) is list else "tuple", [encode(v) for v in value]]
    if isinstance(value, np.ndarray):
        return ["ndarray", value.dtype.name, list(value.shape), value.tolist()]
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        arr = np.asarray(value)
        return ["tensor", keras.backend.standardize_dtype(value.dtype), list(arr.shape), arr.tolist()]
    return ["py", value]


def between(text, marks):
    start, end = text.index(marks[0]), text.index(marks[1])
    return start, end


def answers(path):
    text = path.read_text()
    start, end = between(text, CASES)
    block = {"np": np}
    exec(text[start:end], block)      # the cases' text: strings (f-strings of shared inputs)
    cases = block["CASES"]
    out = {}
    for label, code in cases.items():
        try:
            out[label] = encode(eval(code, {"ops": keras.ops, "np": np, "keras": keras}))
        except Exception:   # noqa: BLE001 - Keras refuses the call: so must tapekit
            out[label] = ["raises"]
    return out


def main(check=False):
    changed = []
    for path in sorted(TESTS.glob("test_*.py")):
        text = path.read_text()
        if CASES[0] not in text:
            continue
        block = (f"{ANSWERS[0]} (Keras {keras.__version__}, tools/keras_interop/ops_values.py)\n"
                 f"KERAS = {pprint.pformat(answers(path), width=100, compact=True)}\n")
        start, end = between(text, ANSWERS)
        new = text[:start] + block + text[end:]
        if new != text:
            changed.append(path.name)
            if not check:
                path.write_text(new)
    print(("changed: " if changed else "unchanged") + ", ".join(changed))
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(check="--check" in sys.argv))
