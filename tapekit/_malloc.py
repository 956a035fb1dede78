"""Keep freed array memory inside the process between training steps (Linux, glibc).

A training step allocates the same large arrays every time (activations the tape
keeps, cotangents, im2col matrices) and frees them all when the tape goes. glibc
returns memory at the top of its heap to the system once more than the "trim
threshold" is free there, and that threshold adapts to the largest array freed so far
(twice its size). A step whose freed arrays add up to more than that gives its pages
back at the end, and the next step takes every one of them again as a page fault that
the kernel zero-fills. Measured on the CNN benchmark step in a fresh process: 644
faults per step, half of a 2.9 ms step; 1.3 ms once memory stays.

So at import tapekit sets the two thresholds to the ceiling glibc's own adaptation
stops at (arrays up to 32 MB come from the heap, up to 64 MB of free heap is kept),
once, for the whole process. The cost is that a process keeps up to 64 MB of freed
memory for reuse instead of returning it at once.

Not done when the user has set glibc's own malloc variables, nor with
TAPEKIT_MALLOC_TUNING=0 in the environment, nor on other C libraries and systems.
"""
import ctypes
import os
import sys

M_TRIM_THRESHOLD = -1   # mallopt parameter numbers, from glibc's <malloc.h>
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 * 1024 * 1024   # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit systems
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD  # what glibc sets with it when it adapts

_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
                  "GLIBC_TUNABLES", "LD_PRELOAD")

# Why the tuning is on or off in this process; read by the benchmarks and the docs' example.
status = "not tried"


def tune():
    """Set the thresholds if it is safe and wanted; returns True when they were set."""
    global status
    if os.environ.get("TAPEKIT_MALLOC_TUNING", "1").strip().lower() in ("0", "false", "no", "off"):
        status = "off: TAPEKIT_MALLOC_TUNING=0"
        return False
    user = [name for name in _USER_SETTINGS if os.environ.get(name)]
    if user:
        status = f"off: the environment already sets {', '.join(user)}"
        return False
    if not sys.platform.startswith("linux"):
        status = f"off: not Linux ({sys.platform})"
        return False
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 - present in glibc only (not musl)
        done = (libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
                and libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1)
    except (OSError, AttributeError):
        status = "off: the C library is not glibc"
        return False
    status = "on" if done else "off: mallopt refused the values"
    return done
