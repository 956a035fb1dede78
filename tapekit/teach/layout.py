"""The exercise block's layout, shared by exercise.py (which reads and checks it) and
solution.py (which runs the solution apart in a lesson's kernel): importing it needs nothing
but the standard library, as a kernel without the [lab] extra has."""
import re

SOLUTION_FIRST_LINE = re.compile(r"^#\s*Solution\b")   # the cell that runs apart
