"""tapekit keeps freed array memory between steps (tapekit/_malloc.py): checked by counting
page faults in fresh processes, with the tuning on (the default) and switched off."""
import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc tuning is Linux-only")

# Eight 2 MB arrays made, written and freed, five times: a training step's pattern.
# Faults are counted over rounds 2-5, after the first round has taken the memory.
STEP = r"""
import json, resource, numpy as np, tapekit._malloc as m
import tapekit
def round_():
    arrays = [np.ones(512 * 1024, np.float32) for _ in range(8)]
    del arrays
round_()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(4):
    round_()
print(json.dumps({"faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before,
                  "status": m.status}))
"""


def run_step(**env):
    full = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", STEP], env=full, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_freed_arrays_are_reused_without_page_faults():
    tuned = run_step()
    if tuned["status"] != "on":
        pytest.skip(f"tuning not active here: {tuned['status']}")
    plain = run_step(TAPEKIT_MALLOC_TUNING="0")
    assert plain["status"] == "off: TAPEKIT_MALLOC_TUNING=0"
    # Without it glibc gives the 16 MB back each round: about 4096 faults per round.
    assert plain["faults"] > 4 * 2000, plain
    assert tuned["faults"] < 200, tuned


def test_user_malloc_settings_are_respected():
    result = run_step(MALLOC_TRIM_THRESHOLD_="1000000")
    assert result["status"] == "off: the environment already sets MALLOC_TRIM_THRESHOLD_"
