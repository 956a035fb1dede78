# tapekit developer tasks. Nothing needs an activated venv: every command runs through $(PY).
#
#   make lab        run the lessons in JupyterLab (installs graphviz + the [lab] extra first)
#   make test       what CI runs: its pieces, two at a time on two cores or more (TEST_JOBS):
#                   test-unit (tests/ but the browser), test-ui (tests/ui), test-nbval
#                   (notebooks/), test-python-3.10 and -3.13 (the unit tests on those Pythons)
#   make test-pythons  the unit tests on Python 3.10 and 3.13 (.venv-3.10, .venv-3.13)
#   make dist       the sdist and wheel in dist/, checked by twine
#   make notebooks  sync the lessons' .md text into their .ipynb, re-execute them for nbval
#   make docs       the documentation site in docs/_build/html (lessons not re-executed)
#   make assignments  the lessons' exercises as an nbgrader course in build/course (source/
#                   and release/; installs the [teach] extra: nbgrader). LESSON_URL= for no
#                   link back to the lessons, LESSON_URL='https://.../{file}' for your copies
#   make bench      benchmarks against NumPy and PyTorch (torch's CPU wheel: TORCH_WHEELS=DIR for a local one)
#   make sysdeps    apt-get install graphviz + chromium if missing (root only)
#   make clean      caches and build artefacts; `make distclean` also removes the venvs
#
# pip installs are cached: .venv/.stamp-<extra> is rebuilt only when pyproject.toml is newer.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
TORCH_WHEELS ?=
# pytest-timeout: per test item. UI tests set their own (longer) limit with a marker.
PYTEST_TIMEOUT ?= 300
# nbval: per notebook cell; the pytest-timeout limit below must stay above it.
NBVAL_CELL_TIMEOUT ?= 120
NBVAL_TIMEOUT ?= 300
PYTEST_ARGS ?=
# The Pythons besides $(PYTHON) that requires-python and the classifiers claim: the oldest and
# the newest. Each is found as pyenv's newest X.Y.* ($(PYENV_ROOT)/versions), else pythonX.Y
# on PATH. Missing: a failure under CI (CI=true), otherwise a loud skip.
OTHER_PYTHONS ?= 3.10 3.13
PYENV_ROOT ?= $(HOME)/.pyenv
# What those runs leave out: the browser tests, the release test (one Python is enough) and
# the slow tests (the main suite runs them).
UNIT_PYTEST_ARGS ?= --ignore=tests/ui --ignore=tests/release -m "not slow and not ui and not release"
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

.PHONY: help lab test test-pythons dist docs assignments sysdeps sysdeps-graphviz bench notebooks clean distclean

help:
	@sed -n '3,17s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

sysdeps:
	$(call ensure_apt,graphviz:dot chromium:chromium)

sysdeps-graphviz:
	$(call ensure_apt,graphviz:dot)

$(PY):
	@t0=$$(date +%s); \
	$(PYTHON) -m venv $(VENV); \
	$(PIP) install -q --upgrade pip 2>&1 | { grep -v "$(PIP_NOISE)" || true; }; \
	echo "venv: created $(VENV) ($$($(PY) -V)) in $$(( $$(date +%s) - t0 ))s"

# One stamp per extra: .venv/.stamp-test, .venv/.stamp-lab, .venv/.stamp-teach, .venv/.stamp-bench, ...
$(VENV)/.stamp-%: pyproject.toml | $(PY)
	@t0=$$(date +%s); \
	echo "pip: install -e '.[$*]' $(PIP_FLAGS) ..."; \
	$(PIP) install -q -e '.[$*]' $(PIP_FLAGS) 2>&1 | { grep -v "$(PIP_NOISE)" || true; }; \
	touch $@; \
	echo "pip: .[$*] installed in $$(( $$(date +%s) - t0 ))s"

# torch==2.13.0 resolves to the local CPU wheel; from PyPI alone it is the CUDA build (GBs).
$(VENV)/.stamp-bench: PIP_FLAGS = $(if $(wildcard $(TORCH_WHEELS)/torch-*.whl),--find-links $(TORCH_WHEELS),$(info no torch wheel in TORCH_WHEELS: pip takes torch from PyPI))

# The lessons open untrusted on purpose, as a downloaded copy or Binder would: every stored
# graph and widget output carries a PNG, which JupyterLab shows untrusted. Trusting them would
# make JupyterLab pick the widget views, whose state is not stored ("model not found").
lab: sysdeps-graphviz $(VENV)/.stamp-lab
	$(VENV)/bin/jupyter lab --ip=127.0.0.1 $(if $(IS_ROOT),--allow-root) notebooks/

# make test runs its pieces TEST_JOBS at a time (-k: every piece runs, whatever fails), the
# longest first so that two lanes end close together. Each piece's output shows when it ends
# (make -O) and is written meanwhile to build/test-logs/<piece>.log (tail -f it). The run ends
# with each piece's seconds, and exits with the status of the first piece (in this order) that
# failed. TEST_JOBS=1: one piece after another; TEST_PIECES='test-unit test-nbval': only those.
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ "$$n" -ge 2 ] && echo 2 || echo 1)
TEST_LOGS := build/test-logs
PYTHON_PIECES := $(addprefix test-python-,$(OTHER_PYTHONS))
TEST_PIECES := test-ui test-unit test-nbval $(PYTHON_PIECES)

.PHONY: $(TEST_PIECES)

test: sysdeps $(VENV)/.stamp-test
	@rm -rf $(TEST_LOGS); mkdir -p $(TEST_LOGS); date +%s > $(TEST_LOGS)/start; \
	echo "== make test: $(TEST_PIECES:test-%=%), $(TEST_JOBS) at a time; each piece's output shows when it ends (meanwhile: tail -f $(TEST_LOGS)/*.log)"
	@$(MAKE) --no-print-directory -k -j$(TEST_JOBS) $(if $(filter-out 1,$(TEST_JOBS)),-Otarget) $(TEST_PIECES) || true
	@t0=$$(cat $(TEST_LOGS)/start); rc=0; echo "== make test: pieces, seconds"; \
	for p in $(TEST_PIECES); do \
	  if [ -f $(TEST_LOGS)/$$p.status ]; then read r s < $(TEST_LOGS)/$$p.status; else r=2; s=-; fi; \
	  printf '   %-18s %6s  %s\n' "$$p" "$$s" "$$( [ "$$r" -eq 0 ] && echo ok || echo "FAILED (exit $$r)")"; \
	  [ "$$r" -eq 0 ] || [ $$rc -ne 0 ] || rc=$$r; \
	done; \
	echo "== make test: $$(( $$(date +%s) - t0 ))s in all"; \
	if [ $$rc -ne 0 ]; then echo "make test: FAILED (exit $$rc)" >&2; fi; \
	exit $$rc

# One piece of make test: runs $(PIECE) for $@, its output also in $(TEST_LOGS)/$@.log, then
# writes "<exit status> <seconds>" to $(TEST_LOGS)/$@.status.
define run_piece
@mkdir -p $(TEST_LOGS); t0=$$(date +%s); r=0; \
echo "== $@"; \
{ $(PIECE); } 2>&1 | tee $(TEST_LOGS)/$@.log || r=$$?; \
s=$$(( $$(date +%s) - t0 )); echo "$$r $$s" > $(TEST_LOGS)/$@.status; \
if [ $$r -eq 0 ]; then echo "== $@: ok in $${s}s"; else echo "== $@: FAILED (exit $$r) in $${s}s"; fi; \
exit $$r
endef

# Everything in tests/ but the browser tests: the unit tests, the slow ones (the nbgrader
# course, the tiny lesson's walk-through) and the release test.
test-unit: PIECE = $(PY) -m pytest --timeout=$(PYTEST_TIMEOUT) $(PYTEST_ARGS) --ignore=tests/ui tests
test-unit: $(VENV)/.stamp-test
	$(run_piece)

# The browser tests (JupyterLab + Chromium; tests/ui/conftest.py fails them under CI without a browser).
test-ui: PIECE = $(PY) -m pytest --timeout=$(PYTEST_TIMEOUT) $(PYTEST_ARGS) tests/ui
test-ui: $(VENV)/.stamp-test
	$(run_piece)

test-nbval: PIECE = \
	if compgen -G 'notebooks/*.ipynb' >/dev/null; then \
	  PYTHONHASHSEED=0 $(PY) -m pytest --nbval --nbval-current-env \
	    --nbval-sanitize-with notebooks/nbval_sanitize.cfg \
	    --nbval-cell-timeout=$(NBVAL_CELL_TIMEOUT) --timeout=$(NBVAL_TIMEOUT) \
	    $(PYTEST_ARGS) notebooks/; \
	else \
	  echo "== no notebooks/*.ipynb: nbval not run"; \
	fi
test-nbval: $(VENV)/.stamp-test
	$(run_piece)

# Each of $(OTHER_PYTHONS), one after another; every version runs even if one fails.
test-pythons:
	@$(MAKE) --no-print-directory -k $(PYTHON_PIECES)

# test-python-X.Y: .venv-X.Y with the [unit] extra (editable; reinstalled when pyproject.toml is
# newer than .venv-X.Y/.stamp-unit), then the unit tests. Python X.Y is pyenv's newest X.Y.*
# ($(PYENV_ROOT)/versions), else pythonX.Y on PATH; missing, a failure under CI (CI=true),
# otherwise a loud skip. Two pieces may run at once: their editable installs of this tree take
# turns (flock, where there is one).
$(PYTHON_PIECES): test-python-%:
	$(run_piece)
$(PYTHON_PIECES): PIECE = \
	v=$*; ci=$$(echo "$${CI:-}" | tr A-Z a-z); \
	py=$$(ls -d $(PYENV_ROOT)/versions/$$v.*/bin/python$$v 2>/dev/null | sort -V | tail -n 1 || true); \
	if [ -z "$$py" ] && python$$v -c 'import sys' >/dev/null 2>&1; then py=$$(command -v python$$v); fi; \
	if [ -z "$$py" ]; then \
	  echo "== Python $$v: NOT FOUND (no $(PYENV_ROOT)/versions/$$v.*, no working python$$v on PATH)" >&2; \
	  if [ -n "$$ci" ] && [ "$$ci" != 0 ] && [ "$$ci" != false ]; then \
	    echo "   CI: failing, the package claims Python $$v (pyproject.toml)" >&2; exit 1; \
	  fi; \
	  echo "   SKIPPED: its unit tests did not run; install it (e.g. pyenv install $$v)" >&2; exit 0; \
	fi; \
	venv=.venv-$$v; t0=$$(date +%s); \
	lock=$$(command -v flock >/dev/null 2>&1 && echo "flock build/.pip-install.lock" || true); \
	mkdir -p build; \
	if [ ! -x $$venv/bin/python ]; then \
	  { $$py -m venv $$venv && $$venv/bin/python -m pip install -q --upgrade pip 2>&1 | { grep -v "$(PIP_NOISE)" || true; }; } \
	    || { echo "== Python $$v: could not create $$venv with $$py" >&2; exit 1; }; \
	fi; \
	if [ ! -f $$venv/.stamp-unit ] || [ pyproject.toml -nt $$venv/.stamp-unit ]; then \
	  $$lock $$venv/bin/python -m pip install -q -e '.[unit]' 2>&1 | { grep -v "$(PIP_NOISE)" || true; } \
	    && touch $$venv/.stamp-unit || { echo "== Python $$v: pip install -e '.[unit]' FAILED" >&2; exit 1; }; \
	  echo "pip: $$venv (.[unit], $$($$venv/bin/python -V)) ready in $$(( $$(date +%s) - t0 ))s"; \
	fi; \
	echo "== pytest tests on $$($$venv/bin/python -V) (unit tests only)"; \
	$$venv/bin/python -m pytest --timeout=$(PYTEST_TIMEOUT) $(UNIT_PYTEST_ARGS) $(PYTEST_ARGS) tests

# The sdist and wheel in dist/ (built afresh), checked by twine. tests/release/test_wheel.py
# builds its own copy and installs it into a fresh venv.
dist: $(VENV)/.stamp-release
	rm -rf dist
	$(PY) -m build --outdir dist .
	$(PY) -m twine check --strict dist/*

# Sphinx + myst-nb, offline, warnings are errors; the command lives in docs/build.py, which the
# site's browser test (tests/ui/test_site.py) also runs when docs/_build/html is missing or stale.
docs: $(VENV)/.stamp-docs
	$(PY) docs/build.py

# Every lesson with exercise markers (docs/write_your_own_lesson.md) becomes
# build/course/source/NN_slug/NN_slug.ipynb, checked against its skeleton and its solution,
# then nbgrader generate_assignment writes build/course/release/. Rebuilt from scratch each
# time; docs/instructors.md says how to take the folder to a JupyterHub.
assignments: $(VENV)/.stamp-teach
	rm -rf build/course
	$(PY) -m tapekit.teach build notebooks --course build/course --release \
	    $(if $(filter undefined,$(origin LESSON_URL)),,--lesson-url '$(LESSON_URL)')

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
	find . \( -path ./$(VENV) -o -path './$(VENV)-*' \) -prune -o -name __pycache__ -type d -exec rm -rf {} +
	find notebooks -name .ipynb_checkpoints -type d -exec rm -rf {} + 2>/dev/null || true

distclean: clean
	rm -rf $(VENV) $(addprefix .venv-,$(OTHER_PYTHONS))
