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
    "tapekit_a11y",            # docs/_ext: WCAG fixes of the theme's HTML (axe: tests/ui/test_site.py)
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
    wanted["LICENSE"] = REPO / "notebooks" / "LICENSE"      # copied by _sync_project_files
    for name, src in wanted.items():
        out = dst / name
        if not out.exists() or out.read_bytes() != src.read_bytes():
            shutil.copyfile(src, out)
    for old in dst.iterdir():
        if old.name not in wanted:
            old.unlink() if old.is_file() else shutil.rmtree(old)


# The README's links to the license, citation and changelog files resolve on the site too:
# copies beside index.md (generated, like docs/notebooks/). Sphinx serves LICENSE,
# notebooks/LICENSE and CITATION.cff as downloads; CHANGELOG.md is a page.
PROJECT_FILES = {"LICENSE": "LICENSE", "CITATION.cff": "CITATION.cff",
                 "CHANGELOG.md": "CHANGELOG.md", "notebooks/LICENSE": "notebooks/LICENSE"}


def _sync_project_files():
    for src, dst in PROJECT_FILES.items():
        data = (REPO / src).read_bytes()
        out = DOCS / dst
        if not out.exists() or out.read_bytes() != data:
            out.write_bytes(data)


_sync_lessons()
_sync_project_files()
tapekit_api.write_pages(DOCS / "api")

root_doc = "index"
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "notebooks/*.md", "notebooks/.ipynb_checkpoints", "_ext"]

# --- lessons (myst-nb) -----------------------------------------------------------------------
nb_execution_mode = "off"          # show the stored outputs; nbval keeps them honest
nb_merge_streams = True            # consecutive prints are one output area, as in Jupyter
nb_ipywidgets_js = {}              # no widget JavaScript (it would come from a CDN)
# HTML first: a tapekit picture (a graph, a widget's stored state, a lesson's plot through
# tk.display.figure) is stored as HTML that carries its PNG with its alt text and long
# description (tapekit/display/picture.py); image/png and image/svg+xml would be an <img>
# with no text alternative. A widget view is never rendered (it needs that JavaScript): a
# widget output shows its HTML picture, else its image, else its text/plain.
nb_mime_priority_overrides = [
    ("html", "text/html", 5),
    ("html", "image/svg+xml", 10),
    ("html", "image/png", 20),
    ("html", "image/jpeg", 30),
    ("html", "image/gif", 40),
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

# --- math, offline ---------------------------------------------------------------------------
# Formulas (lesson 10) are typeset by a local copy of MathJax 2 from the jupyter-server-mathjax
# wheel, copied to _static/mathjax/ after the build: no page loads anything from a CDN.
import jupyter_server_mathjax  # noqa: E402

MATHJAX_SRC = Path(jupyter_server_mathjax.__file__).parent / "static"
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
mathjax2_config = {
    # that wheel ships the STIX-Web fonts only (the classic notebook's setting)
    "HTML-CSS": {"availableFonts": [], "imageFont": None, "preferredFont": None, "webFont": "STIX-Web"},
    # myst-nb marks notebook pages tex2jax_ignore (a $ in an output is not math); Sphinx's
    # math spans (class "math") are typeset all the same
    "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]],
                "processEscapes": True, "ignoreClass": "tex2jax_ignore|mathjax_ignore",
                "processClass": "tex2jax_process|mathjax_process|math|output_area"},
}


def _copy_mathjax(app, exception):
    if exception is None and app.builder.format == "html":
        dst = Path(app.outdir) / "_static" / "mathjax"
        if not (dst / "MathJax.js").exists():
            shutil.copytree(MATHJAX_SRC, dst, dirs_exist_ok=True)


def setup(app):
    app.connect("build-finished", _copy_mathjax)


# --- HTML ----------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"tapekit {release}"
html_static_path = []
html_show_sourcelink = False
default_role = "code"   # `x` in a docstring shows as code, as on GitHub
