"""What a release says about itself agrees in every place (fast: reads files, builds nothing).

- one version: tapekit.__version__ (pyproject reads it), CITATION.cff and a CHANGELOG section;
- the license: an SPDX expression that the build backend can read (setuptools >= 77), the
  license files exist, and no `License ::` classifier beside it (setuptools rejects both);
- the Pythons: the classifiers list every minor version from requires-python's minimum to the
  newest claimed, and `make test-pythons` tests the oldest and the newest of them.
"""
import re
from pathlib import Path

import pytest

import tapekit

tomllib = pytest.importorskip("tomllib")   # Python 3.11+ (the main suite's Python)
REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]


def test_one_version_everywhere():
    version = tapekit.__version__
    assert PROJECT["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "tapekit.__version__"}
    cff = (REPO / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(rf'^version: "?{re.escape(version)}"?$', cff, re.M), (
        f"CITATION.cff's version is not {version} (tapekit/__init__.py)")
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## [{version}]" in changelog, f"CHANGELOG.md has no '## [{version}]' section"
    assert "\n## [Unreleased]" in changelog


def test_citation_has_the_required_cff_keys():
    cff = (REPO / "CITATION.cff").read_text(encoding="utf-8")
    for key in ("cff-version: 1.2.0", "message:", "title:", "authors:", "license: MIT"):
        assert re.search(rf"^{re.escape(key)}", cff, re.M), f"CITATION.cff lacks {key!r}"


def test_license_metadata_is_spdx_and_the_files_exist():
    assert PROJECT["license"] == "MIT"
    for path in PROJECT["license-files"]:
        assert (REPO / path).is_file(), path
    assert "MIT License" in (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "https://creativecommons.org/licenses/by/4.0/" in (REPO / "notebooks" / "LICENSE").read_text()
    assert not [c for c in PROJECT["classifiers"] if c.startswith("License ::")]
    requires = PYPROJECT["build-system"]["requires"]
    backend = next(r for r in requires if r.startswith("setuptools"))
    minimum = re.search(r">=\s*(\d+)", backend)
    assert minimum and int(minimum.group(1)) >= 77, f"{backend}: SPDX `license` needs setuptools>=77"


def test_readme_and_urls_are_set():
    assert PROJECT["readme"] == "README.md"
    assert PROJECT["authors"] and PROJECT["keywords"]
    assert {"Homepage", "Documentation", "Source", "Issues"} <= set(PROJECT["urls"])


def test_every_claimed_python_is_tested():
    minimum = re.fullmatch(r">=\s*3\.(\d+)", PROJECT["requires-python"])
    assert minimum, PROJECT["requires-python"]
    claimed = sorted(int(m) for c in PROJECT["classifiers"]
                     for m in re.findall(r"^Programming Language :: Python :: 3\.(\d+)$", c))
    assert claimed == list(range(int(minimum.group(1)), claimed[-1] + 1)), (
        f"classifiers {claimed} should list every 3.x from requires-python's minimum up")
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    others = re.search(r"^OTHER_PYTHONS \?= (.+)$", makefile, re.M).group(1).split()
    tested = {f"3.{claimed[0]}", f"3.{claimed[-1]}"}
    assert tested <= set(others), f"make test-pythons runs {others}, not the oldest and newest {tested}"
