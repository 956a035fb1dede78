"""The package as a user gets it: the sdist and wheel built from this tree, installed NOT
editable into a fresh virtual environment, used from a directory with no repository in sight.

- the wheel's RECORD lists every module of tapekit/ and the GraphView's static files
  (tapekit/widgets/static/*.js, *.css), and the license; the sdist carries the same plus
  README, CHANGELOG and CITATION.cff (a file missing from package-data fails here first);
- `twine check --strict` passes on both, and `pip show` prints the summary, license, project
  URLs and requirements;
- in the fresh venv (dependencies from PyPI through pip's cache, as a user installs), a script
  run from an empty directory imports the installed tapekit (its __file__ is in the venv's
  site-packages), draws a tape as SVG and as PNG, builds a GraphView and reads its static
  files, and lesson 01 runs top to bottom in a kernel of that venv (nbclient).

Runs in `make test` (marked release and slow: about 30-60 s here; most of it is pip). Needs
the [release] extra (build, twine): a skip on a developer machine without it, a failure in CI.
"""
import base64
import os
import shutil
import subprocess
import sys
import tarfile
import textwrap
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

pytestmark = [pytest.mark.release, pytest.mark.slow, pytest.mark.timeout(600)]

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "tapekit"
LESSON = REPO / "notebooks" / "01_first_gradients.ipynb"
IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
HAS_DOT = shutil.which("dot") is not None


def _need(module):
    import importlib.util
    if importlib.util.find_spec(module) is None:
        msg = f"{module} is not installed (pip install -e '.[release]'), cannot test the release"
        pytest.fail(msg) if IN_CI else pytest.skip(msg)


def _run(cmd, *, cwd=None, env=None, timeout=300):
    """Run a command; on failure show its whole output (what a maintainer needs to fix it)."""
    t0 = time.monotonic()
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    seconds = time.monotonic() - t0
    assert proc.returncode == 0, (f"{' '.join(map(str, cmd))} failed (exit {proc.returncode}) "
                                  f"after {seconds:.1f}s\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}")
    return proc.stdout, seconds


def _clean_env(**extra):
    """The environment without anything that would put the repository on sys.path."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTHONSAFEPATH")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", **extra)
    return env


def _expected_files():
    """Files of the package in this tree that the wheel must ship (relative to the repo)."""
    files = {p.relative_to(REPO).as_posix() for p in PACKAGE.rglob("*.py")
             if "__pycache__" not in p.parts}
    static = {p.relative_to(REPO).as_posix() for pattern in ("*.js", "*.css")
              for p in (PACKAGE / "widgets" / "static").glob(pattern)}
    assert static, "tapekit/widgets/static has no .js/.css: the GraphView cannot load"
    return files | static


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The sdist and wheel, built from this tree into a temporary dist/ (what `make dist` does)."""
    _need("build")
    out = tmp_path_factory.mktemp("dist")
    _, seconds = _run([sys.executable, "-m", "build", "--outdir", out, REPO], env=_clean_env())
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, f"expected one wheel and one sdist in {out}"
    print(f"release: built {wheels[0].name} and {sdists[0].name} in {seconds:.1f}s")
    return {"wheel": wheels[0], "sdist": sdists[0]}


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory):
    """A fresh venv with the wheel (not editable) and a kernel to run a lesson in."""
    root = tmp_path_factory.mktemp("venv")
    env = _clean_env()
    _, made = _run([sys.executable, "-m", "venv", "--upgrade-deps", root / "env"], env=env)
    py = root / "env" / "bin" / "python"
    # pip's cache stays on: the dependencies (numpy, matplotlib, ...) come from it, not PyPI
    _, installed = _run([py, "-m", "pip", "install", "-q", dist["wheel"],
                         "ipykernel", "nbclient", "nbformat"], env=env, timeout=600)
    print(f"release: fresh venv in {made:.1f}s, wheel + dependencies + kernel in {installed:.1f}s")
    return py


def test_wheel_ships_every_module_static_file_and_the_license(dist):
    with zipfile.ZipFile(dist["wheel"]) as whl:
        names = set(whl.namelist())
        record_name = next(n for n in names if n.endswith(".dist-info/RECORD"))
        record = {line.split(",")[0] for line in whl.read(record_name).decode().splitlines() if line}
        metadata = whl.read(record_name.replace("RECORD", "METADATA")).decode()
    missing = {f for f in _expected_files() if f not in record}
    assert not missing, f"files of tapekit/ missing from the wheel's RECORD: {sorted(missing)}"
    assert record <= names, f"RECORD lists files the wheel lacks: {sorted(record - names)}"
    licenses = [n for n in record if "/licenses/" in n]
    assert any(n.endswith("/LICENSE") for n in licenses), f"no LICENSE in the wheel: {licenses}"
    assert not any(n.startswith(("tests/", "notebooks/", "docs/", "benchmarks/")) for n in record)
    import tapekit
    assert f"\nVersion: {tapekit.__version__}\n" in metadata
    assert "\nLicense-Expression: MIT\n" in metadata


def test_sdist_ships_the_sources_and_the_project_files(dist):
    with tarfile.open(dist["sdist"]) as tar:
        top = tar.getnames()[0].split("/")[0]
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    wanted = _expected_files() | {"LICENSE", "README.md", "CHANGELOG.md", "CITATION.cff",
                                  "pyproject.toml"}
    missing = wanted - names
    assert not missing, f"{top}.tar.gz lacks {sorted(missing)}"


def test_twine_check_passes(dist):
    _need("twine")
    out, _ = _run([sys.executable, "-m", "twine", "check", "--strict",
                   dist["wheel"], dist["sdist"]], env=_clean_env())
    assert out.count("PASSED") == 2, out


def test_pip_show_lists_the_metadata(venv):
    out, _ = _run([venv, "-m", "pip", "show", "--verbose", "tapekit"], env=_clean_env())
    fields = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    assert fields["Summary"].startswith("A small NumPy autodiff library"), out
    assert fields.get("License-Expression", fields.get("License")) == "MIT", out
    assert fields["Home-page"].endswith("/tapekit"), out   # pip shows the Homepage URL here
    for label in ("Documentation", "Source", "Issues", "Changelog"):
        assert f"  {label}, https://" in out, f"no {label} URL in pip show:\n{out}"
    requires = set(fields["Requires"].split(", "))
    assert {"numpy", "graphviz", "ipywidgets", "anywidget"} <= requires, out
    assert "Programming Language :: Python :: 3.10" in out and "Framework :: Jupyter" in out


# Run by the fresh venv's Python from an empty directory: only the installed package exists.
USE_THE_PACKAGE = textwrap.dedent("""
    import base64, importlib.resources, json, pathlib, sys, sysconfig
    import tapekit as tk

    site = pathlib.Path(sysconfig.get_paths()["purelib"]).resolve()
    here = pathlib.Path(tk.__file__).resolve()
    assert site in here.parents, f"tapekit imported from {here}, not from {site}"
    assert not any(pathlib.Path(p, "pyproject.toml").exists() for p in sys.path if p), sys.path

    x = tk.Variable(3.0, name="x")
    with tk.display.option_context(record=True):
        with tk.GradientTape() as tape:
            y = x ** 3
    grad = float(tape.gradient(y, x).numpy())
    bundle = tk.show(tape, y, [x])._repr_mimebundle_()

    static = importlib.resources.files("tapekit.widgets") / "static"
    files = {f.name: len(f.read_text()) for f in static.iterdir() if f.name.endswith((".js", ".css"))}
    view = tk.widgets.GraphView.from_tape(tape, y, [x]) if HAS_DOT else None
    print(json.dumps({
        "version": tk.__version__, "grad": grad, "mimes": sorted(bundle),
        "svg_head": bundle.get("image/svg+xml", "")[:400],
        "png_head": base64.b64encode(base64.b64decode(bundle.get("image/png", ""))[:8]).decode(),
        "static": files,
        "esm": len(view._esm) if view else None, "css": len(view._css) if view else None,
        "order": view.order if view else None,
    }))
""")


def test_installed_package_draws_a_tape_and_loads_its_widget_files(venv, tmp_path):
    if not HAS_DOT and IN_CI:
        pytest.fail("Graphviz's dot is missing: `make test` installs it (make sysdeps)")
    import json

    import tapekit
    script = tmp_path / "use_tapekit.py"
    script.write_text(f"HAS_DOT = {HAS_DOT}\n" + USE_THE_PACKAGE)
    out, seconds = _run([venv, "-I", script], cwd=tmp_path, env=_clean_env())
    got = json.loads(out.strip().splitlines()[-1])
    assert got["version"] == tapekit.__version__
    assert got["grad"] == 27.0                      # d(x**3)/dx = 3 x**2 at x = 3
    assert set(got["static"]) == {p.name for p in (PACKAGE / "widgets" / "static").iterdir()
                                  if p.suffix in (".js", ".css")}
    assert all(n > 0 for n in got["static"].values()), got["static"]
    if HAS_DOT:
        assert {"image/svg+xml", "image/png", "text/plain"} <= set(got["mimes"]), got["mimes"]
        assert "<svg" in got["svg_head"]
        assert base64.b64decode(got["png_head"]) == b"\x89PNG\r\n\x1a\n"
        # anywidget read the ESM and CSS from the installed files (a missing file raises)
        assert got["esm"] == got["static"]["graph_view.js"] and got["css"] == got["static"]["graph_view.css"]
        assert got["order"], "GraphView has no ops to step through"
    print(f"release: installed package used in {seconds:.1f}s (dot: {HAS_DOT})")


RUN_LESSON = textwrap.dedent("""
    import sys, nbformat
    from nbclient import NotebookClient
    nb = nbformat.read(sys.argv[1], as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(
        "import sys, tapekit\\nprint('KERNEL', sys.executable)\\nprint('TAPEKIT', tapekit.__file__)"))
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": sys.argv[2]}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    graphs = sum(any("image/svg+xml" in o.get("data", {}) for o in c.outputs) for c in code)
    print("CELLS", len(code), "GRAPHS", graphs)
    print(nb.cells[-1].outputs[0]["text"])
""")


def test_lesson_01_runs_in_a_kernel_of_the_fresh_venv(venv, tmp_path):
    script = tmp_path / "run_lesson.py"
    script.write_text(RUN_LESSON)
    out, seconds = _run([venv, "-I", script, LESSON, tmp_path], cwd=tmp_path,
                        env=_clean_env(), timeout=300)
    lines = dict(line.split(" ", 1) for line in out.splitlines() if line.startswith(("KERNEL", "TAPEKIT")))
    cells, graphs = next(line.split()[1::2] for line in out.splitlines() if line.startswith("CELLS"))
    stored = nbformat.read(LESSON, as_version=4)
    assert int(cells) == 1 + sum(c.cell_type == "code" for c in stored.cells)
    if HAS_DOT:   # the lesson's graphs were drawn in that kernel, as the stored notebook has them
        assert int(graphs) == sum(any("image/svg+xml" in o.get("data", {}) for o in c.outputs)
                                  for c in stored.cells if c.cell_type == "code") > 0
    env_dir = venv.parent.parent
    assert Path(lines["KERNEL"]).parent.parent == env_dir, f"the kernel ran {lines['KERNEL']}"
    assert Path(lines["TAPEKIT"]).resolve().is_relative_to(env_dir.resolve()), lines["TAPEKIT"]
    print(f"release: lesson 01 executed in {seconds:.1f}s")
