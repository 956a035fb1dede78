"""tapekit.display in fresh processes: byte-identical output, no `dot` on PATH, IPython default."""
import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tapekit as tk

ROOT = str(Path(tk.__file__).resolve().parent.parent)

PROGRAM = r"""
import json, sys
import numpy as np
import tapekit as tk
tk.display.set_options(record=True)
for _ in range(int(sys.argv[1])):        # earlier notebook cells: other tape ids, same output
    tk.constant(1.0)
w = tk.Variable(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), name="w")
b = tk.Variable([0.5, -0.5, 0.25], name="b<&>")
x = tk.constant(np.arange(4, dtype=np.float32).reshape(2, 2) / 7)
with tk.GradientTape(persistent=True) as tape:
    h = tk.tanh(x @ w + b)
    loss = tk.reduce_mean(h * h) + tk.reduce_sum(tk.stop_gradient(h))
tape.gradient(loss, [w, b])
view = tk.show(tape, loss, [w, b])
out = {"dot": view.source, "text": view.text, "explain": str(tape.explain(loss, x)),
       "bundle": view._repr_mimebundle_(),
       "explain_bundle": tape.explain(loss, [w, b][1])._repr_mimebundle_()}
print(json.dumps(out))
"""


def run(*args, env=None):
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", *args], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_same_program_gives_byte_identical_output_in_new_processes():
    a = json.loads(run(PROGRAM, "0", env={**os.environ, "PYTHONHASHSEED": "1"}).stdout)
    b = json.loads(run(PROGRAM, "17", env={**os.environ, "PYTHONHASHSEED": "2"}).stdout)
    assert a["dot"] == b["dot"] and a["text"] == b["text"] and a["explain"] == b["explain"]
    assert a["bundle"] == b["bundle"]                     # the SVG and PNG too, when `dot` exists
    assert a["explain_bundle"] == b["explain_bundle"]     # nbval compares it (PNG inside HTML)
    assert "b&lt;&amp;&gt;:0" in a["dot"] and "0x" not in a["text"]


def test_without_dot_on_path_the_notebook_gets_a_table_and_no_traceback():
    path = os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep)
                           if d and not os.path.exists(os.path.join(d, "dot")))
    proc = run(PROGRAM, "0", env={**os.environ, "PATH": path})
    bundle = json.loads(proc.stdout)["bundle"]
    assert set(bundle) == {"text/plain", "text/html"}
    assert "apt-get install graphviz" in bundle["text/html"]
    assert "Traceback" not in proc.stderr


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")
def test_with_dot_the_notebook_gets_svg_and_png():
    bundle = json.loads(run(PROGRAM, "0").stdout)["bundle"]
    # SVG for JupyterLab; the PNG and an HTML figure carrying it with its alt text and text
    # description for untrusted notebooks and pages without a kernel (issue 46)
    assert set(bundle) == {"text/plain", "image/svg+xml", "image/png", "text/html"}
    assert base64.b64decode(bundle["image/png"]).startswith(b"\x89PNG\r\n")
    assert 'alt="Graph of a GradientTape' in bundle["text/html"]


def test_recording_is_on_by_default_inside_ipython_only():
    pytest.importorskip("IPython")
    plain = run("import tapekit as tk; print(tk.display.recording())").stdout.strip()
    shell = run(
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        "import tapekit as tk\n"
        "x = tk.Variable(3.0)\n"
        "with tk.GradientTape() as tape:\n"
        "    y = x * x + 1.0\n"
        "tape.gradient(y, x)\n"
        "data, _ = shell.display_formatter.format(tape)\n"
        "print(tk.display.recording()); print(data['text/plain'])").stdout
    assert plain == "False"
    first, *table = shell.splitlines()
    assert first == "True"
    assert any(line.split()[:2] == ["n1", "op"] and "10.0" in line for line in table)
