"""The tuner (issue 31), measured side by side in one run on this machine:

- the harness's cost per point: a sweep of N points of a cell that does nothing (`pass`, no setup), its wall time per
  point, against a bare kernel's start (jupyter_client's start_new_kernel, ready to answer, then shut down) measured
  alternately in the same run; the difference is what a point costs beyond its kernel and its cell (the guard, the
  extension and the probe in the point, the report, ending the kernel). Target: at most 1.5 s;
- rounds: N points of a cell that sleeps S seconds on K simulated GPUs (mirror-4x1gb, parallel=K): the measured cells'
  most at once (K), how many rounds their intervals make, and the sweep's wall time against ⌈N/K⌉ × a point's.

    python bench/sweep_bench.py            # prints RESULT {json}
"""

from __future__ import annotations

import json
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

POINTS = 6
STARTS = 6
SLEEP = 4.0
TARGET_OVERHEAD = 1.5  # seconds a point costs beyond a bare kernel's start and its cell


def bare_kernel_start() -> float:
    from jupyter_client.manager import start_new_kernel

    began = time.perf_counter()
    manager, client = start_new_kernel(kernel_name="python3")
    ready = time.perf_counter() - began
    client.stop_channels()
    manager.shutdown_kernel(now=True)
    return ready


def sweep(points: int, code: str, **options: Any) -> Any:
    from mgenv_jupyter.runtime import session
    from mgenv_jupyter.sweeps import given_setup, run_sweep

    return run_sweep(code, {"SWEEP_BENCH": [str(n) for n in range(points)]}, given_setup(""), session=session(),
                     timeout=300, **options)


def harness_cost() -> dict[str, Any]:
    starts: list[float] = []
    per_point: list[float] = []
    cells: list[float] = []
    for _ in range(2):  # alternate: bare starts, a sweep, bare starts, a sweep
        starts.extend(bare_kernel_start() for _ in range(STARTS // 2))
        began = time.perf_counter()
        result = sweep(POINTS // 2, "pass", parallel=1)
        per_point.append((time.perf_counter() - began) / (POINTS // 2))
        cells.extend(point.seconds or 0.0 for point in result.points)
    start = statistics.median(starts)
    point = statistics.median(per_point)
    cell = statistics.median(cells)
    return {"bare_start_s": round(start, 3), "bare_starts": [round(s, 3) for s in starts],
            "per_point_s": round(point, 3), "per_point_runs": [round(p, 3) for p in per_point],
            "cell_s": round(cell, 4), "overhead_s": round(point - start - cell, 3), "target_s": TARGET_OVERHEAD}


def rounds(points: int, devices: int) -> dict[str, Any]:
    os.environ["MGENV_SIMULATE_GPU"] = "mirror-4x1gb"
    try:
        began = time.perf_counter()
        result = sweep(points, f"import time\ntime.sleep({SLEEP})", parallel=devices)
        wall = time.perf_counter() - began
    finally:
        os.environ.pop("MGENV_SIMULATE_GPU", None)
        from mgenv_jupyter.memory.simulated._simulation import stop_environment

        stop_environment()
    moments = sorted([(p.started, 1) for p in result.points] + [(p.finished, -1) for p in result.points])
    running = most = 0
    for _, change in moments:
        running += change
        most = max(most, running)
    # rounds: how many cells ran one after another on the busiest GPU
    per_gpu: dict[int, int] = {}
    for point in result.points:
        per_gpu[point.gpu] = per_gpu.get(point.gpu, 0) + 1
    solo = statistics.median((p.finished - p.started) for p in result.points)
    return {"points": points, "devices": devices, "wall_s": round(wall, 2), "most_at_once": most,
            "rounds": max(per_gpu.values()), "expected_rounds": math.ceil(points / devices),
            "cell_s": round(solo, 2), "gpus": sorted(per_gpu), "outcomes": [p.outcome.value for p in result.points]}


def main() -> None:
    result = {"load_before": os.getloadavg(), "harness": harness_cost(),
              "rounds": [rounds(POINTS, 1), rounds(POINTS, 2), rounds(POINTS, 3)], "load_after": os.getloadavg()}
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
