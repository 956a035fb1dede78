"""python -m tapekit.teach: build an nbgrader course from lessons; print the nbval rules' path."""
import argparse
import sys
from pathlib import Path

from . import sanitize_path


def _build(args):
    from .assignments import build_course, default_lesson_url, find_lessons
    from .exercise import ExerciseError
    from .grading import generate_release

    try:
        lessons = []
        for given in args.lessons or ["notebooks"]:
            p = Path(given)
            if p.is_dir():
                marked, unmarked = find_lessons(p)
                for u in unmarked:
                    print(f"skipped {u}: no cell tagged 'exercise' or 'grade'", file=sys.stderr)
                lessons += marked
            elif p.is_file():
                lessons.append(p)        # named explicitly: its markers must be there
            else:
                sys.exit(f"tapekit.teach build: no such lesson file or folder: {p}")
        if not lessons:
            sys.exit("tapekit.teach build: no lesson with exercise markers found in "
                     f"{', '.join(args.lessons or ['notebooks'])}")
        url = args.lesson_url
        if url is None:
            dirs = {p.parent.resolve() for p in lessons}
            url = default_lesson_url(dirs.pop()) if len(dirs) == 1 else None
        exercises = build_course(lessons, args.course, course_id=args.course_id,
                                 lesson_url=url or None, run=not args.no_run,
                                 timeout=args.timeout)
    except ExerciseError as e:
        sys.exit(f"tapekit.teach build: a lesson needs fixing (nothing was written):\n{e}")
    except ValueError as e:            # --course-id, --lesson-url, --course
        sys.exit(f"tapekit.teach build: {e} (nothing was written)")
    if args.release:
        generate_release(args.course, [ex.name for ex in exercises])
    total = sum(ex.points for ex in exercises)
    print(f"{len(exercises)} assignment(s), {total} points, in {args.course}")


def _table(args):
    from .assignments import assignments_table, find_lessons

    print(assignments_table(find_lessons(args.lessons)[0]))


def _minutes(args):
    from .exercise import ExerciseError, read_exercise
    from .minutes import table

    def points(path):
        try:
            return read_exercise(path).points
        except ExerciseError:
            return 0

    paths = []
    for given in args.lessons or ["notebooks"]:
        p = Path(given)
        paths += sorted(p.glob("[0-9]*.md")) if p.is_dir() else [p]
    print("\n".join(table(paths, points)))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tapekit.teach", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="lessons' exercises -> an nbgrader course directory")
    b.add_argument("lessons", nargs="*",
                   help="lesson .md files or folders of them (default: notebooks)")
    b.add_argument("--course", default="build/course", type=Path,
                   help="the course directory to write (default: build/course)")
    b.add_argument("--course-id", default="tapekit",
                   help="nbgrader's course_id: ASCII letters, digits, '.', '_', '-' "
                        "(default: tapekit)")
    b.add_argument("--release", action="store_true",
                   help="then run `nbgrader generate_assignment` for each (release/)")
    b.add_argument("--no-run", action="store_true",
                   help="do not run the checks against the skeleton and the solution (the "
                        "runs execute the lessons' code: read a lesson from elsewhere first)")
    b.add_argument("--timeout", default=120, type=float, metavar="SECONDS",
                   help="the seconds each lesson's two runs may take in all (default: 120)")
    b.add_argument("--lesson-url", default=None,
                   help="link from each assignment to its lesson, e.g. "
                        "'https://example.org/lessons/{file}' ({file}: NN_slug.ipynb, "
                        "{name}: NN_slug; http:// or https:// only); '' for none. Default: "
                        "tapekit's repository for "
                        "its own lessons, none otherwise")
    b.set_defaults(func=_build)
    t = sub.add_parser("table", help="print the Markdown table of assignments, points, minutes")
    t.add_argument("lessons", nargs="?", default="notebooks", help="folder of lessons")
    t.set_defaults(func=_table)
    m = sub.add_parser("minutes", help="each lesson's stated minutes against the reading "
                                        "and exercise models")
    m.add_argument("lessons", nargs="*", help="lesson .md files or folders (default: notebooks)")
    m.set_defaults(func=_minutes)
    s = sub.add_parser("sanitize-path", help="print the path of tapekit's nbval sanitize rules")
    s.set_defaults(func=lambda args: print(sanitize_path()))
    args = parser.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
