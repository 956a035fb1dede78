#!/usr/bin/env python
"""Build the documentation site: docs/_build/html (what `make docs` runs).

usage: python docs/build.py [--out DIR]

A fresh build every time (-E: Sphinx then reports every warning again, and -W turns
them into errors); about 15 s. The lessons are not executed (docs/conf.py). The browser
test of the site (tests/ui/test_site.py) calls `build()` when the site is missing or
older than its sources (`is_stale()`).
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
OUT = DOCS / "_build" / "html"
SOURCES = ["README.md", "LICENSE", "CITATION.cff", "CHANGELOG.md", "docs", "notebooks",
           "tapekit"]   # what the site is made from


def command(out=OUT):
    return [sys.executable, "-m", "sphinx", "-E", "-W", "--keep-going", "-q", "-b", "html",
            str(DOCS), str(out)]


def is_stale(out=OUT):
    """True when out/index.html is missing or older than any source file of the site."""
    index = Path(out) / "index.html"
    if not index.exists():
        return True
    built = index.stat().st_mtime
    for src in SOURCES:
        p = REPO / src
        files = [p] if p.is_file() else (f for f in p.rglob("*") if f.is_file()
                                          and "_build" not in f.parts and f.suffix in
                                          (".py", ".md", ".ipynb", ".rst", ".png", ".svg",
                                                         ".js", ".css"))
        if any(f.stat().st_mtime > built for f in files):
            return True
    return False


def build(out=OUT):
    """Run the build; return its wall time in seconds. Raises CalledProcessError on failure."""
    t0 = time.monotonic()
    subprocess.run(command(out), cwd=REPO, check=True)
    return time.monotonic() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    try:
        seconds = build(args.out)
    except subprocess.CalledProcessError as e:
        print(f"docs: build FAILED (exit {e.returncode}); warnings count as errors (-W)", file=sys.stderr)
        return 1
    print(f"docs: built {args.out.relative_to(REPO) if args.out.is_relative_to(REPO) else args.out} "
          f"in {seconds:.1f}s; open {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
