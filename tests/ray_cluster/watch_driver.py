"""A driver of the Ray tier's lifetime checks, run with .venvs/ray's Python against a LocalCluster (RAY_ADDRESS; see
LocalCluster.spawn). The last argument is the file its result goes to, as JSON.

    watch_driver.py exit RESULT    watch() every node, report the actors, wait for RESULT + ".go" to exist (the test
                                   has checked them), then exit without closing the watch
    watch_driver.py hold RESULT    the same, then wait (to be killed with SIGKILL)
    watch_driver.py join RESULT    watch() looking for new nodes every second, report; wait until a node_d joins and
                                   streams, report again (in RESULT's stem + ".joined"), close the watch
    watch_driver.py check NAME... RESULT
                                   wait up to 30 s until none of the named watch actors is alive; say how long it took
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import ray

from mgenv_jupyter import cluster


def write(path: Path, result: dict) -> None:
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(result))
    partial.replace(path)  # whole or absent: the test polls for it
    print("RESULT " + json.dumps(result), flush=True)  # what LocalCluster.run reads


def watched() -> dict:
    watch = cluster.watch(0.2)
    began = time.monotonic()
    while not all(source.batches for source in watch.sources.values()):
        if time.monotonic() - began > 90:
            raise RuntimeError(f"the nodes did not stream: {watch.states()}")
        time.sleep(0.1)
    return {"names": watch.actor_names(), "live": cluster.live_watch_actors(),
            "pids": [ray.get(watch.actor(label).pid.remote()) for label in watch.sources], "driver": os.getpid()}


def joined(out: Path) -> None:
    from mgenv_jupyter.memory._shared import kernel_sampler

    watch = cluster.watch(0.2, rescan_seconds=1.0)
    write(out, {"labels": sorted(watch.sources)})
    began = time.monotonic()
    streaming = None
    while time.monotonic() - began < 150:
        source = watch.sources.get("node_d")
        if source is not None and source.batches:
            streaming = time.monotonic() - began
            break
        time.sleep(0.1)
    while time.monotonic() - began < 150:  # until node_d's batches reach the kernel's history
        if any(key.startswith("node_d ") for key in kernel_sampler().history.series):
            break
        time.sleep(0.1)
    names = watch.actor_names()
    result = {"labels": sorted(watch.sources), "states": watch.states(), "streaming_after": streaming,
              "names": names, "live": cluster.live_watch_actors(),
              "series": [key for key in kernel_sampler().history.series if key.startswith("node_d ")]}
    watch.close()
    result.update(gone(names))
    write(out.with_suffix(".joined"), result)


def gone(names: list[str]) -> dict:
    began = time.monotonic()
    while time.monotonic() - began < 30:
        left = sorted(set(names) & set(cluster.live_watch_actors()))
        if not left:
            return {"gone_after": time.monotonic() - began, "left": []}
        time.sleep(0.2)
    return {"gone_after": None, "left": left}


def main() -> None:
    mode, *names, out = sys.argv[1:]
    ray.init(address=os.environ["RAY_ADDRESS"], log_to_driver=False)
    if mode == "check":
        write(Path(out), gone(names))
        ray.shutdown()
        return
    if mode == "join":
        joined(Path(out))
        return
    write(Path(out), watched())
    if mode == "hold":
        time.sleep(600)  # a driver that stays until the test kills it
    else:  # "exit": once the test has seen the actors alive (it may still be waiting for another driver's)
        go = Path(str(out) + ".go")
        began = time.monotonic()
        while not go.exists() and time.monotonic() - began < 120:
            time.sleep(0.05)
    # "exit": the interpreter ends with the watch still open, as a kernel that is shut down does.


if __name__ == "__main__":
    main()
