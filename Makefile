# tapekit developer tasks. Nothing needs an activated venv: every command runs through $(PY).
#
#   make lab        run the lessons in JupyterLab (installs graphviz + the [lab] extra first)
#   make test       unit + browser tests, then the notebooks under nbval (what CI runs)
#   make notebooks  sync the lessons' .md text into their .ipynb, re-execute them for nbval
#   make docs       the documentation site in docs/_build/html (lessons not re-executed)
#   make bench      benchmarks against NumPy and PyTorch (torch's CPU wheel from /opt/wheels)
#   make sysdeps    apt-get install graphviz + chromium if missing (root only)
#   make clean      caches and build artefacts; `make distclean` also removes .venv
#
# pip installs are cached: .venv/.stamp-<extra> is rebuilt only when pyproject.toml is newer.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
TORCH_WHEELS ?= /opt/wheels
# pytest-timeout: per test item. UI tests set their own (longer) limit with a marker.
PYTEST_TIMEOUT ?= 300
# nbval: per notebook cell; the pytest-timeout limit below must stay above it.
NBVAL_CELL_TIMEOUT ?= 120
NBVAL_TIMEOUT ?= 300
PYTEST_ARGS ?=
# e.g. make bench BENCH_ARGS='--quick W1' (see benchmarks/run.py --help)
BENCH_ARGS ?=

export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PIP_NO_INPUT := 1

# This machine's pip config lists local file:// indexes that lack most packages; pip warns
# once per package. Only that warning is dropped; errors still show, and pipefail keeps status.
PIP_NOISE := ^WARNING: Location 'file:///.*' is ignored: it is neither a file nor a directory

IS_ROOT := $(shell [ "$$(id -u)" -eq 0 ] && echo yes)

# ensure_apt: "pkg:command ..." pairs. Installs the packages whose command is missing, as root
# via apt-get; otherwise only says what is missing (tests that need it skip, or fail under CI).
define ensure_apt
	@missing=""; \
	for pair in $(1); do \
	  pkg=$${pair%%:*}; cmd=$${pair##*:}; \
	  if [ "$$cmd" = chromium ] && [ -n "$${CHROMIUM_PATH:-}" ] && [ -x "$${CHROMIUM_PATH}" ]; then continue; fi; \
	  command -v "$$cmd" >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	done; \
	if [ -z "$$missing" ]; then echo "sysdeps: ok ($(1))"; exit 0; fi; \
	if [ "$$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then \
	  echo "sysdeps: WARNING missing system packages:$$missing" >&2; \
	  echo "sysdeps: not root (or no apt-get); install them yourself, e.g. sudo apt-get install -y --no-install-recommends$$missing" >&2; \
	  exit 0; \
	fi; \
	t0=$$(date +%s); log=$$(mktemp); \
	echo "sysdeps: apt-get install$$missing ..."; \
	export DEBIAN_FRONTEND=noninteractive; \
	if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; } >"$$log" 2>&1; then \
	  cat "$$log" >&2; rm -f "$$log"; echo "sysdeps: apt-get failed" >&2; exit 1; \
	fi; \
	grep -E '^(E|W):' "$$log" >&2 || true; rm -f "$$log"; \
	echo "sysdeps: installed$$missing in $$(( $$(date +%s) - t0 ))s"
endef

.PHONY: help lab test docs sysdeps sysdeps-graphviz bench notebooks clean distclean

help:
	@sed -n '3,10s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

sysdeps:
	$(call ensure_apt,graphviz:dot chromium:chromium)

sysdeps-graphviz:
	$(call ensure_apt,graphviz:dot)

$(PY):
	@t0=$$(date +%s); \
	$(PYTHON) -m venv $(VENV); \
	$(PIP) install -q --upgrade pip 2>&1 | { grep -v "$(PIP_NOISE)" || true; }; \
	echo "venv: created $(VENV) ($$($(PY) -V)) in $$(( $$(date +%s) - t0 ))s"

# One stamp per extra: .venv/.stamp-test, .venv/.stamp-lab, .venv/.stamp-bench, .venv/.stamp-dev
$(VENV)/.stamp-%: pyproject.toml | $(PY)
	@t0=$$(date +%s); \
	echo "pip: install -e '.[$*]' $(PIP_FLAGS) ..."; \
	$(PIP) install -q -e '.[$*]' $(PIP_FLAGS) 2>&1 | { grep -v "$(PIP_NOISE)" || true; }; \
	touch $@; \
	echo "pip: .[$*] installed in $$(( $$(date +%s) - t0 ))s"

# torch==2.13.0 resolves to the local CPU wheel; from PyPI alone it is the CUDA build (GBs).
$(VENV)/.stamp-bench: PIP_FLAGS = $(if $(wildcard $(TORCH_WHEELS)/torch-*.whl),--find-links $(TORCH_WHEELS),$(warning no torch wheel in $(TORCH_WHEELS): pip will take torch from PyPI))

# The lessons open untrusted on purpose, as a downloaded copy or Binder would: every stored
# graph and widget output carries a PNG, which JupyterLab shows untrusted. Trusting them would
# make JupyterLab pick the widget views, whose state is not stored ("model not found").
lab: sysdeps-graphviz $(VENV)/.stamp-lab
	$(VENV)/bin/jupyter lab --ip=127.0.0.1 $(if $(IS_ROOT),--allow-root) notebooks/

# Runs both suites even if the first fails, and exits with the first non-zero status.
test: sysdeps $(VENV)/.stamp-test
	@rc=0; \
	echo "== pytest tests (unit + ui)"; \
	$(PY) -m pytest --timeout=$(PYTEST_TIMEOUT) $(PYTEST_ARGS) tests || rc=$$?; \
	if compgen -G 'notebooks/*.ipynb' >/dev/null; then \
	  echo "== pytest --nbval notebooks/"; \
	  PYTHONHASHSEED=0 $(PY) -m pytest --nbval --nbval-current-env \
	    --nbval-sanitize-with notebooks/nbval_sanitize.cfg \
	    --nbval-cell-timeout=$(NBVAL_CELL_TIMEOUT) --timeout=$(NBVAL_TIMEOUT) \
	    $(PYTEST_ARGS) notebooks/ || { r=$$?; [ $$rc -ne 0 ] || rc=$$r; }; \
	else \
	  echo "== no notebooks/*.ipynb: nbval not run"; \
	fi; \
	if [ $$rc -ne 0 ]; then echo "make test: FAILED (exit $$rc)" >&2; fi; \
	exit $$rc

# Sphinx + myst-nb, offline, warnings are errors; the command lives in docs/build.py, which the
# site's browser test (tests/ui/test_site.py) also runs when docs/_build/html is missing or stale.
docs: $(VENV)/.stamp-docs
	$(PY) docs/build.py

bench: $(VENV)/.stamp-bench
	$(PY) benchmarks/run.py $(BENCH_ARGS)

# The lessons' text (notebooks/*.md) is the source: copy its cells into each .ipynb (keeping
# outputs), run the notebooks, then check that every pair still agrees. Execution writes only
# the .ipynb files; the .md files are never rewritten here.
# One lesson: make notebooks LESSONS=notebooks/01_first_gradients.md
LESSONS ?=
notebooks: sysdeps-graphviz $(VENV)/.stamp-test
	$(PY) tools/sync_lessons.py $(LESSONS)
	PYTHONHASHSEED=0 $(PY) tools/execute_notebooks.py $(LESSONS:.md=.ipynb)
	$(PY) tools/sync_lessons.py --check $(LESSONS)

clean:
	rm -rf build dist *.egg-info .pytest_cache .hypothesis .ruff_cache tests/ui/output
	rm -rf docs/_build docs/api docs/notebooks docs/jupyter_execute
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +
	find notebooks -name .ipynb_checkpoints -type d -exec rm -rf {} + 2>/dev/null || true

distclean: clean
	rm -rf $(VENV)
