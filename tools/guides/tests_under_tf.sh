#!/usr/bin/env bash
# Check tests/guides' expected values against TensorFlow itself (dev only; issue 23):
# runs each tests/guides/test_*.py with `import tapekit as tk` -> `import tensorflow as tk`
# (and `import tapekit as keras` -> `import keras`) in a TensorFlow venv that has pytest.
# Expected: every plain test passes and every xfail XPASSes (strict -> reported as failed),
# except the tapekit-only ones (tk.Sequential alias; np.mean on a tensor, which tapekit records on purpose).
# usage: tools/guides/tests_under_tf.sh [$TF_PYTHON]
set -euo pipefail
PY=${1:-${TF_PYTHON:?give the TensorFlow venv's python, or set TF_PYTHON}}
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$here"/tests/guides/test_*.py; do
  sed 's/^import tapekit as tk$/import tensorflow as tk/; s/^import tapekit as keras$/import keras/; s/@tk\.saving\./@__import__("keras").saving./' \
    "$f" > "$tmp/$(basename "$f")"
done
cd "$tmp" && TF_CPP_MIN_LOG_LEVEL=3 "$PY" -m pytest -q -p no:cacheprovider -rX . || true
