"""Browser tests: a real JupyterLab server + system Chromium driven by Playwright.

Recipe: shared/recipes/jupyter-testing.md §3. Fixtures:
- `lab_server` (session): `jupyter lab` on 127.0.0.1 with a random token, serving a temporary
  copy of notebooks/ with outputs cleared; yields (base_url, token, root_dir).
- `browser` (session): Playwright driving the system Chromium (`apt-get install chromium`, or
  CHROMIUM_PATH). Missing Chromium or Playwright: a skip on a developer machine, a FAILURE
  when the CI environment variable is set, so CI can never pass without running these tests.
- `page`: a fresh browser context per test; on failure a full-page screenshot is saved.
- `screenshot_dir`: tests/ui/output/ (gitignored), or $UI_SCREENSHOT_DIR.
The server's root holds the lessons with outputs cleared, and under shipped/ the lessons as
stored in the repository (outputs kept; untrusted, as a downloaded notebook is). JupyterLab
runs with windowingMode "none": every cell is in the page, none is virtualised away.
TAPEKIT_NOTEBOOKS points the tests at another lessons directory (e.g. freshly executed copies).
"""
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

try:
    import playwright.sync_api as playwright_sync
except ImportError:  # reported by the `browser` fixture: skip locally, fail in CI
    playwright_sync = None

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = Path(os.environ.get("TAPEKIT_NOTEBOOKS") or REPO / "notebooks")
OUTPUT = Path(os.environ.get("UI_SCREENSHOT_DIR") or Path(__file__).resolve().parent / "output")
CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")

# Chromium flags for this closed network (no background fetches, no sandbox-hostile /dev/shm).
CHROMIUM_ARGS = [
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-gpu",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _copy_clean(src: Path, dst: Path) -> None:
    """Copy a notebook without stored outputs/widget state, so the test only sees live output."""
    nb = nbformat.read(src, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, dst)


def _missing_browser(reason: str):
    """No browser: fail loudly under CI, skip loudly elsewhere."""
    if IN_CI:
        pytest.fail(f"UI tests cannot run in CI (CI={os.environ['CI']!r}): {reason}. "
                    "CI must not pass without the browser tests.", pytrace=False)
    pytest.skip(f"UI TESTS SKIPPED: {reason}")


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    return OUTPUT


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory):
    """Start `jupyter lab` on loopback with a random token; yield (base_url, token, root_dir)."""
    tmp = tmp_path_factory.mktemp("lab")
    root = tmp / "root"
    root.mkdir()
    (root / "shipped").mkdir()
    for nb in NOTEBOOKS.glob("*.ipynb"):
        _copy_clean(nb, root / nb.name)
        shutil.copyfile(nb, root / "shipped" / nb.name)   # as shipped: outputs, untrusted

    # Isolate Jupyter config/state from the developer's home directory.
    settings = tmp / "settings"
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    # No "Would you like to get notified about official Jupyter news?" toast over the notebook.
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    # Every cell in the page (JupyterLab 4 virtualises cells far off screen by default).
    (settings / "@jupyterlab" / "notebook-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"})
    )
    env = dict(
        os.environ,
        JUPYTER_DATA_DIR=str(tmp / "data"),  # its own notebook-trust database: nothing trusted
        JUPYTER_CONFIG_DIR=str(tmp / "config"),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"),
        PYTHONHASHSEED="0",  # same kernel environment as nbval and tools/execute_notebooks.py
    )
    port, token = _free_port(), secrets.token_hex(16)
    log_path = tmp / "server.log"
    log = open(log_path, "w")
    cmd = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser", "--allow-root",           # --allow-root: containers/CI often run as root
        "--ip=127.0.0.1", f"--port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",      # jupyter_server>=2 (older: --ServerApp.token)
        f"--ServerApp.root_dir={root}",
    ]
    proc = subprocess.Popen(cmd, env=env, cwd=root, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL,
                            start_new_session=True)  # own process group: kernels die with it
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            log.close()
            pytest.fail(f"jupyter lab exited early ({proc.returncode}):\n{log_path.read_text()}")
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            log.close()
            pytest.fail(f"jupyter lab did not answer /api/status within 60 s:\n{log_path.read_text()}")
        time.sleep(0.2)
    try:
        yield base, token, root
    finally:
        proc.send_signal(signal.SIGTERM)          # server shuts its kernels down on SIGTERM
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


@pytest.fixture(scope="session")
def browser():
    if playwright_sync is None:
        _missing_browser("the Python package `playwright` is not installed (pip install -e '.[test]')")
    if not CHROMIUM:
        _missing_browser("no system Chromium (`make sysdeps` as root installs Debian's chromium; "
                         "or set CHROMIUM_PATH)")
    with playwright_sync.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _api(base, token, path, method="GET"):
    req = urllib.request.Request(f"{base}{path}", method=method,
                                 headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        body = r.read()
    return json.loads(body) if body else None


@pytest.fixture
def page(browser, lab_server, request, screenshot_dir):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        shot = screenshot_dir / (re.sub(r"[^\w.-]+", "_", request.node.name) + "-failure.png")
        pg.screenshot(path=str(shot), full_page=True)
        print("failure screenshot:", shot)
    ctx.close()
    # Each test gets fresh kernels: shut down every session the test opened.
    base, token, _ = lab_server
    for s in _api(base, token, "/api/sessions"):
        _api(base, token, f"/api/sessions/{s['id']}", method="DELETE")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


# Per-lesson numbers recorded by test_lessons_ui.py, printed as a table at the end of the run.
LESSON_STATS = {}


def pytest_terminal_summary(terminalreporter):
    if not LESSON_STATS:
        return
    cols = ("lesson", "run all (s)", "pictures shipped", "pictures after run",
            "explain words shown", "static blank outputs", "axe shipped", "axe after run")
    keys = ("run_all_s", "shipped", "after_run", "explain", "static_blank", "axe_shipped",
            "axe_run")
    rows = [cols] + [(name,) + tuple(str(LESSON_STATS[name].get(k, "-")) for k in keys)
                     for name in sorted(LESSON_STATS)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(cols))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    terminalreporter.write_sep("-", "lessons in the browser")
    for line in lines:
        terminalreporter.write_line(line)
    OUTPUT.mkdir(parents=True, exist_ok=True)
    (OUTPUT / "lessons.txt").write_text("\n".join(lines) + "\n")
