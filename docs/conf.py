"""Sphinx configuration of tapekit's documentation site: `make docs` -> docs/_build/html.

Offline by design: no intersphinx, no widget JavaScript from a CDN, and the lessons are not
re-executed (their stored outputs are shown, as nbval checks them).
"""
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(REPO))

import tapekit  # noqa: E402
import tapekit_api  # noqa: E402

project = "tapekit"
author = "the tapekit developers"
copyright = "the tapekit developers"
release = version = tapekit.__version__

extensions = [
    "myst_nb",                 # Markdown pages and the lessons (.ipynb) with their outputs
    "sphinx.ext.autodoc",      # the API reference from the docstrings
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
]

# --- sources -------------------------------------------------------------------------------
# The lessons live in notebooks/ (outside this folder): each build copies the .ipynb files
# (never their jupytext .md twins) to docs/notebooks/, so the README's links
# `notebooks/01_....ipynb` work unchanged from docs/index.md. docs/notebooks/ and
# docs/api/ are generated (see docs/.gitignore).


def _sync_lessons():
    dst = DOCS / "notebooks"
    dst.mkdir(exist_ok=True)
    wanted = {p.name: p for p in (REPO / "notebooks").glob("*.ipynb")}
    for name, src in wanted.items():
        out = dst / name
        if not out.exists() or out.read_bytes() != src.read_bytes():
            shutil.copyfile(src, out)
    for old in dst.iterdir():
        if old.name not in wanted:
            old.unlink() if old.is_file() else shutil.rmtree(old)


_sync_lessons()
tapekit_api.write_pages(DOCS / "api")

root_doc = "index"
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "notebooks/*.md", "notebooks/.ipynb_checkpoints", "_ext"]

# --- lessons (myst-nb) -----------------------------------------------------------------------
nb_execution_mode = "off"          # show the stored outputs; nbval keeps them honest
nb_merge_streams = True            # consecutive prints are one output area, as in Jupyter
nb_ipywidgets_js = {}              # no widget JavaScript (it would come from a CDN)
# HTML prefers a static picture over everything else; a widget view is never rendered (it
# needs that JavaScript): a widget output shows its picture (image/png or image/svg+xml, when
# the notebook stores one) and otherwise its text/plain.
nb_mime_priority_overrides = [
    ("html", "image/png", 10),
    ("html", "image/svg+xml", 20),
    ("html", "image/jpeg", 30),
    ("html", "image/gif", 40),
    ("html", "text/html", 50),
    ("html", "text/markdown", 60),
    ("html", "text/latex", 70),
    ("html", "text/plain", 80),
    ("html", "application/vnd.jupyter.widget-view+json", None),
    ("html", "application/javascript", None),
]
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

# --- API reference -------------------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_default_options = {"undoc-members": False}
autodoc_typehints = "none"           # tapekit has no annotations; signatures say enough
add_module_names = True
autosummary_generate = False         # docs/api/*.rst come from tapekit_api.write_pages

# --- HTML ----------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"tapekit {release}"
html_static_path = []
html_show_sourcelink = False
default_role = "code"   # `x` in a docstring shows as code, as on GitHub
