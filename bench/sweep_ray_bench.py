"""One point runner, placed locally or by Ray (issue 36), measured side by side in one run on this machine: the
flooding point of issue 37 (points writing 1 MB lines without pause over IOPub and straight to their stdout,
`timeout=10`), two at a time, as local kernels and as Ray points on a local three-node cluster (tests/local_ray.py,
one CPU a node): each sweep's wall time against its deadline, the sweeping process's resident memory above where
it started (sampled every 20 ms), and, on Ray, the resident memory of the tasks' workers on the nodes (the point
runner's home there, its kernel apart); then Ctrl-C during a Ray sweep of two sleeping points: how long the sweep
took to return after it, and whether any point's kernel was left.

    python bench/sweep_ray_bench.py            # prints RESULT {json}; the Ray half runs with .venvs/ray's Python
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from bench.sweep_bound_bench import FLOOD, MIB  # noqa: E402  (the same flooding cell, 1 MB lines to IOPub and fd 1)

SLEEP = """import os, time
open(os.environ["BENCH_MARKS"] + "/kernel-" + os.environ["SWEEP_BENCH"], "w").write(str(os.getpid()))
time.sleep(600)
"""
TIMEOUT = 10.0
POINTS = 2


def _rss(pid: int | None = None) -> int:
    try:
        with open(f"/proc/{pid or 'self'}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _workers() -> list[int]:
    """The Ray workers running a point (their process title names the task)."""
    import psutil

    found = []
    for process in psutil.process_iter(["cmdline"]):
        try:
            if any("run_placed_point" in word for word in process.info["cmdline"] or []):
                found.append(process.pid)
        except psutil.Error:
            continue
    return found


class _Peaks:
    """While open: the highest resident memory of this process, and of the Ray workers running a point."""

    def __init__(self, workers: bool) -> None:
        self.before = _rss()
        self.most = {"self": self.before, "workers": 0}
        self._workers = workers
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, daemon=True)

    def _follow(self) -> None:
        while not self._stop.wait(0.02):
            self.most["self"] = max(self.most["self"], _rss())
            if self._workers:
                self.most["workers"] = max([self.most["workers"], *(_rss(pid) for pid in _workers())])

    def __enter__(self) -> _Peaks:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _flood(ray: bool) -> dict[str, Any]:
    import jupyter_client.blocking
    import jupyter_client.manager  # noqa: F401  (imported before `before`: the growth is the sweep's, not imports')

    from mgenv_jupyter.runtime import session
    from mgenv_jupyter.sweeps import given_setup, run_sweep
    from mgenv_jupyter.sweeps._kernels import kernel_for_points

    kernel_for_points()
    with _Peaks(workers=ray) as peaks:
        began = time.perf_counter()
        result = run_sweep(FLOOD, {"SWEEP_BENCH": [str(n) for n in range(POINTS)]}, given_setup(""),
                           session=session(), timeout=TIMEOUT, ray=ray)
        wall = time.perf_counter() - began
    seen = {"runner": result.runner, "wall_s": round(wall, 2), "outcomes": [p.outcome.value for p in result.points],
            "printed_chars": [len(p.printed) for p in result.points],
            "sweeping_rss_growth_mib": round((peaks.most["self"] - peaks.before) / MIB, 1)}
    if ray:
        seen["worker_rss_most_mib"] = round(peaks.most["workers"] / MIB, 1)
        seen["nodes"] = [p.node for p in result.points]
    return seen


def _interrupt() -> dict[str, Any]:
    import psutil

    from mgenv_jupyter.runtime import session
    from mgenv_jupyter.sweeps import given_setup, run_sweep

    marks = tempfile.mkdtemp(prefix="ray-int-")
    os.environ["BENCH_MARKS"] = marks
    session().set([("BENCH_MARKS", marks)])  # as a Ray point gets what the session changed
    pressed: list[float] = []

    def press() -> None:
        while len(os.listdir(marks)) < POINTS:
            time.sleep(0.02)
        pressed.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=press, daemon=True).start()
    result = run_sweep(SLEEP, {"SWEEP_BENCH": [str(n) for n in range(POINTS)]}, given_setup(""), session=session(),
                       timeout=120)
    returned = time.monotonic() - pressed[0]
    kernels = [int(Path(marks, name).read_text()) for name in os.listdir(marks)]
    time.sleep(1.0)
    left = [pid for pid in kernels if psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie"]
    return {"interrupted": result.interrupted, "outcomes": [p.outcome.value for p in result.points],
            "returned_after_ctrl_c_s": round(returned, 2), "kernels_left_1s_after": left}


def driver() -> dict[str, Any]:
    """Run with .venvs/ray's Python against RAY_ADDRESS."""
    import ray

    ray.init(address=os.environ["RAY_ADDRESS"], logging_level="ERROR", log_to_driver=False)
    return {"flooding": _flood(ray=True), "interrupt": _interrupt()}


def main() -> None:
    import local_ray

    load_before = os.getloadavg()
    local = _flood(ray=False)
    with local_ray.LocalCluster(["node_a", "node_b", "node_c"]) as cluster:
        remote = cluster.run(Path(__file__), "--driver", timeout=600)
    print("RESULT " + json.dumps({"load_before": load_before, "local": local, "ray": remote,
                                  "load_after": os.getloadavg()}))


if __name__ == "__main__":
    if sys.argv[1:] == ["--driver"]:
        print("RESULT " + json.dumps(driver()), flush=True)
    else:
        main()
