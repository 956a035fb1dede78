#!/usr/bin/env python3
"""Number the lessons 01, 02, ... in course order, after lessons were added or split.

A new lesson is written with a letter after the number of the lesson it follows
(`notebooks/12b_residual_connections.md`, titled "Lesson 12b: ...") and refers to the others
by their current numbers. This tool sorts the lessons by (number, letter), gives them
consecutive two-digit numbers, and rewrites in one pass, so no reference is renumbered twice:
- the file names of each `.md`/`.ipynb` pair (with `git mv` when the file is tracked);
- "Lesson N" titles and every "lesson N", "lessons N and M", "lessons N, M and K", "lessons N-M"
  in the lessons, README.md, CONTRIBUTING.md, docs/*.md and tests/ (a number that names no
  lesson is an error: the text points at nothing);
- every old file stem anywhere in those files (links, Binder URLs, tests).
The `.ipynb` files then need `make notebooks` (their cells come from the `.md`).

    python tools/renumber_lessons.py --dry-run     # print the mapping and the changes
    python tools/renumber_lessons.py
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LESSON = re.compile(r"^(\d{2})([a-z]?)_(.+)\.md$")
NUMBER = r"\d{1,2}[a-z]?"
# "lesson 4", "Lessons 4 and 7", "lessons 4, 7 and 12", "lessons 10-12" / "10–12"
REFERENCE = re.compile(rf"\b([Ll]essons?)(\s+)({NUMBER}(?:(?:,\s*|\s+and\s+|\s+or\s+|\s*[-–]\s*){NUMBER})*)\b")


def lessons():
    found = []
    for path in (REPO / "notebooks").glob("*.md"):
        m = LESSON.match(path.name)
        if m:
            found.append((int(m.group(1)), m.group(2), m.group(3), path.stem))
    return sorted(found)


def mapping():
    """{old label ('12b', '7'): new number}, {old stem: new stem}."""
    labels, stems = {}, {}
    for new, (num, letter, slug, stem) in enumerate(lessons(), start=1):
        labels[f"{num}{letter}"] = new
        stems[stem] = f"{new:02d}_{slug}"
    return labels, stems


def rewrite(text, labels, stems, where):
    def one(label):
        key = str(int(re.match(r"\d+", label).group())) + re.sub(r"\d", "", label)
        if key not in labels:
            raise SystemExit(f"{where}: 'lesson {label}' names no lesson")
        return f"{labels[key]:02d}" if label[0] == "0" else str(labels[key])   # keeps "lesson 01"

    def reference(m):
        numbers = re.sub(NUMBER, lambda n: one(n.group()), m.group(3))
        return f"{m.group(1)}{m.group(2)}{numbers}"

    text = REFERENCE.sub(reference, text)
    if stems:
        old = re.compile("|".join(re.escape(s) for s in sorted(stems, key=len, reverse=True)))
        text = old.sub(lambda m: stems[m.group()], text)
    return text


def files():
    out = [REPO / "README.md", REPO / "CONTRIBUTING.md"]
    out += sorted((REPO / "notebooks").glob("*.md")) + sorted((REPO / "docs").glob("*.md"))
    out += sorted(p for p in (REPO / "tests").rglob("*.py") if "output" not in p.parts)
    return [p for p in out if p.exists()]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(argv)
    labels, stems = mapping()
    changed_stems = {o: n for o, n in stems.items() if o != n}
    for old, new in stems.items():
        print(f"{old} -> {new}" if old != new else f"{old} (unchanged)")
    for path in files():
        text = path.read_text(encoding="utf-8")
        new = rewrite(text, labels, changed_stems, path.relative_to(REPO))
        if new != text:
            print(f"rewrote references in {path.relative_to(REPO)}")
            if not args.dry_run:
                path.write_text(new, encoding="utf-8")
    if args.dry_run:
        return 0
    tracked = set(subprocess.run(["git", "ls-files", "notebooks"], cwd=REPO, capture_output=True,
                                 text=True, check=True).stdout.split())
    # Two passes through temporary names, so 12 -> 13 never overwrites the old 13.
    moves = [(REPO / "notebooks" / f"{o}{ext}", REPO / "notebooks" / f"{n}{ext}")
             for o, n in changed_stems.items() for ext in (".md", ".ipynb")]
    moves = [(src, dst) for src, dst in moves if src.exists()]
    for step in ("to-temp", "to-final"):
        for src, dst in moves:
            a, b = (src, dst.with_name("_renumber_" + dst.name)) if step == "to-temp" \
                else (dst.with_name("_renumber_" + dst.name), dst)
            if f"notebooks/{src.name}" in tracked:
                subprocess.run(["git", "mv", str(a), str(b)], cwd=REPO, check=True)
            else:
                a.rename(b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
