"""The largest-fit search (issue 37) against accelerate's `find_executable_batch_size`, on the same cell, side by side
in one run on this machine's host memory (no GPU here):

    held = torch.ones(batch * 2**18)   # `batch` MiB of float32

- ours: `run_largest_fit` over 1..1024 with a 600 MiB budget and a 10% margin (a probe fits when its kernel's peak
  resident memory stays within 540 MiB), each probe a fresh kernel;
- accelerate: the cell decorated with `find_executable_batch_size(starting_batch_size=1024)` in one process whose data
  limit (RLIMIT_DATA) leaves it the same 540 MiB of resident memory, so the cell raises PyTorch's
  "DefaultCPUAllocator: can't allocate memory" above it (the one CPU failure accelerate recognises); it retries at 0.9
  of the last batch in the same process.

For each: what it finds, in how many tries, its wall time, and what the searching process still holds afterwards
(its resident memory after the search against before it).

    PYTHONPATH=<torch's site-packages>:<accelerate's> python bench/largest_fit_bench.py   # prints RESULT {json}

accelerate is not a dependency: install it anywhere on PYTHONPATH (`pip install --target DIR --no-deps accelerate`
and its small dependencies: packaging, safetensors, pyyaml, psutil).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

MIB = 2**20
BUDGET = 600 * MIB
MARGIN = 0.10
HIGH = 1024
CELL = "import os, torch\nheld = torch.ones(int(os.environ['FIT_MB']) * 2**18)\n"

ACCELERATE = textwrap.dedent("""
    import json, resource, time
    import torch
    from accelerate.utils import find_executable_batch_size

    def resident():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024

    def data():
        for line in open("/proc/self/status"):
            if line.startswith("VmData:"):
                return int(line.split()[1]) * 1024

    LIMIT = {limit}
    torch.ones(1)  # the allocator's first use, before the limit is measured
    before = resident()
    resource.setrlimit(resource.RLIMIT_DATA, (data() + (LIMIT - before), resource.RLIM_INFINITY))
    tries = []

    @find_executable_batch_size(starting_batch_size={high})
    def step(batch):
        tries.append(batch)
        held = torch.ones(batch * 2**18)
        return batch

    began = time.perf_counter()
    found = step()
    seconds = time.perf_counter() - began
    print("RESULT", json.dumps({{"found": found, "tries": tries, "seconds": seconds, "before": before,
                               "after": resident()}}))
""")


def resident() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def ours() -> dict[str, Any]:
    import jupyter_client.manager  # noqa: F401 - imported before 'before': its own size is not what the search holds

    from mgenv_jupyter.runtime import session
    from mgenv_jupyter.sweeps import given_setup
    from mgenv_jupyter.sweeps._fit import run_largest_fit

    before = resident()
    began = time.perf_counter()
    result = run_largest_fit(CELL, "FIT_MB", range(1, HIGH + 1), given_setup(""), session=session(),
                             budget=BUDGET, margin=MARGIN, timeout=120)
    seconds = time.perf_counter() - began
    best = result.best
    return {"found": None if best is None else int(best.values["FIT_MB"]),
            "tries": [int(point.values["FIT_MB"]) for point in result.points],
            "peaks": [point.peak_host_bytes for point in result.points], "seconds": seconds, "before": before,
            "after": resident(), "choice": result.choice.value,
            "kernel_itself": None if best is None else (best.peak_host_bytes or 0) - int(best.values["FIT_MB"]) * MIB}


def accelerate() -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", ACCELERATE.format(limit=int(BUDGET * (1 - MARGIN)), high=HIGH)],
                          capture_output=True, text=True, timeout=600, check=False)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return dict(json.loads(line[7:]))
    return {"error": done.stderr[-2000:]}


def main() -> None:
    result = {"accelerate": accelerate(), "ours": ours()}
    print("RESULT", json.dumps(result))


if __name__ == "__main__":
    main()
