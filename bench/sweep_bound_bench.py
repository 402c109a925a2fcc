"""The tuner bounded and fast (issue 37), measured side by side in one run on this machine:

- hidden starts: a 4-point sweep of a cell that sleeps 2 s (no setup), its wall time against the cells' own 8 s plus
  one bare kernel start (jupyter_client's start_new_kernel, ready to answer; the median of 12, two before each
  sweep); median of 2 sweeps for each number of points a slot starts ahead (0: each point starts when the one before
  it ended, as before issue 37; 1; 2, shipped), the sweeps alternating. Target: at most 1.25×. Also how long each next
  point's kernel was ready before the point ahead of it finished (negative: the measured point waited for it), and
  whether two measured cells ever overlapped;
- the flooding point: the finding's case, 4 points writing 1 MB lines without pause over IOPub and straight to their
  stdout, `timeout=10`, on the simulated mirror-4x1gb (4 at a time): the sweep's wall time against its deadline, the
  sweeping process's resident memory above where it started (sampled every 20 ms), and the largest size of the
  sweep's files on disk (its TMPDIR walked every 20 ms).

    python bench/sweep_bound_bench.py            # prints RESULT {json}
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from sweep_processes import bytes_under, resident_bytes  # noqa: E402

from bench.sweep_bench import bare_kernel_start  # noqa: E402

CELL_SECONDS = 2.0
POINTS = 4
TARGET = 1.25
FLOOD = """import os
line = "x" * 2**20
while True:
    print(line)
    os.write(1, line.encode())
"""
MIB = 2**20


def _sweep(code: str, points: int, **options: Any) -> Any:
    from mgenv_jupyter.runtime import session
    from mgenv_jupyter.sweeps import given_setup, run_sweep

    return run_sweep(code, {"SWEEP_BENCH": [str(n) for n in range(points)]}, given_setup(""), session=session(),
                     **options)


def hidden_starts() -> dict[str, Any]:
    """The sweep with a slot's AHEAD at 0 (each point starts when the one before it has ended: main's way), 1 and
    2 (shipped), alternating with bare kernel starts."""
    from mgenv_jupyter.sweeps import _schedule

    shipped = _schedule.AHEAD
    starts: list[float] = []
    runs: dict[int, dict[str, Any]] = {}
    try:
        for _ in range(2):
            for ahead in (1, 2, 0):
                starts.extend(bare_kernel_start() for _ in range(2))
                _schedule.AHEAD = ahead
                seen = runs.setdefault(ahead, {"walls": [], "ready_ahead_s": [], "measured_overlaps": 0})
                began = time.perf_counter()
                result = _sweep(f"import time\ntime.sleep({CELL_SECONDS})", POINTS, timeout=60)
                seen["walls"].append(time.perf_counter() - began)
                assert all(p.outcome.value == "ok" for p in result.points), [p.outcome for p in result.points]
                for earlier, later in zip(result.points, result.points[1:], strict=False):
                    seen["ready_ahead_s"].append(round(earlier.finished - later.attached, 2))
                    seen["measured_overlaps"] += later.started < earlier.finished
    finally:
        _schedule.AHEAD = shipped
    start = statistics.median(starts)
    baseline = POINTS * CELL_SECONDS + start
    for seen in runs.values():
        seen["sweep_s"] = round(statistics.median(seen["walls"]), 2)
        seen["ratio"] = round(seen["sweep_s"] / baseline, 3)
        seen["walls"] = [round(w, 2) for w in seen["walls"]]
    return {"bare_start_s": round(start, 3), "bare_starts": [round(s, 3) for s in starts],
            "baseline_s": round(baseline, 2), "target": TARGET, "shipped_ahead": shipped,
            "by_ahead": {str(ahead): seen for ahead, seen in sorted(runs.items())}}


def flooding(timeout: float = 10.0) -> dict[str, Any]:
    scratch = tempfile.mkdtemp(prefix="flood-")
    before_tmp = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = scratch
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    os.environ["MGENV_SIMULATE_GPU"] = "mirror-4x1gb"
    most = {"rss": 0, "disk": 0}
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            most["rss"] = max(most["rss"], resident_bytes())
            most["disk"] = max(most["disk"], bytes_under(scratch))
            time.sleep(0.02)

    before = resident_bytes()
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        began = time.perf_counter()
        result = _sweep(FLOOD, 4, timeout=timeout, parallel=4)
        wall = time.perf_counter() - began
    finally:
        stop.set()
        watcher.join()
        os.environ.pop("MGENV_SIMULATE_GPU", None)
        from mgenv_jupyter.memory.simulated._simulation import stop_environment

        stop_environment()
        if before_tmp is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before_tmp
        tempfile.tempdir = None
    left = os.listdir(scratch)
    os.rmdir(scratch)
    return {"points": 4, "timeout_s": timeout, "wall_s": round(wall, 2),
            "outcomes": [p.outcome.value for p in result.points],
            "printed_chars": [len(p.printed) for p in result.points],
            "sweeping_rss_growth_mib": round((most["rss"] - before) / MIB, 1),
            "largest_on_disk_mib": round(most["disk"] / MIB, 3), "files_left": left}


def main() -> None:
    result = {"load_before": os.getloadavg(), "hidden_starts": hidden_starts(), "flooding": flooding(),
              "load_after": os.getloadavg()}
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
