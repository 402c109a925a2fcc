"""The notebook side of a sweep on a real Ray cluster, run with .venvs/ray's Python: the user's code connects Ray, and
`run_sweep` then places each point with Ray (a CPU each here, in place of a GPU), where the point runner starts a
fresh kernel of the notebook's kernelspec, with the point's variables in the task's runtime_env. A fourth argument
(JSON) says more:
- "after_init" (name → value): connect as the README says (`ray.init(runtime_env=cluster.runtime_env())`) and then
  set those through the session, after `ray.init`;
- "timeout": the points' timeout (60 s unless given);
- "interrupt_when" (a list of paths): press Ctrl-C (SIGINT to this process) once every one of these files exists.
Prints `RESULT {json}`: the frame and each point's process, node and values, and the result's kernel."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

import ray

from mgenv_jupyter import cluster
from mgenv_jupyter.runtime import session
from mgenv_jupyter.sweeps import given_setup, run_sweep

CELL = sys.argv[1]
SETUP = sys.argv[2]
VALUES = json.loads(sys.argv[3])
OPTIONS = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
AFTER_INIT = OPTIONS.get("after_init")


def interrupt_when(paths: list[str]) -> None:
    """Ctrl-C, as a notebook's interrupt sends it to the kernel, once each point has said it runs."""
    while not all(os.path.exists(path) for path in paths):
        time.sleep(0.05)
    PRESSED.append(time.monotonic())
    os.kill(os.getpid(), signal.SIGINT)


PRESSED: list[float] = []


if AFTER_INIT is None:
    ray.init(address=os.environ["RAY_ADDRESS"], logging_level="ERROR")
else:
    ray.init(address=os.environ["RAY_ADDRESS"], logging_level="ERROR", runtime_env=cluster.runtime_env())
    session().set(list(AFTER_INIT.items()))
if OPTIONS.get("interrupt_when"):
    threading.Thread(target=interrupt_when, args=(OPTIONS["interrupt_when"],), daemon=True).start()
began = time.monotonic()
result = run_sweep(CELL, VALUES, given_setup(SETUP), session=session(), timeout=OPTIONS.get("timeout", 60))
ended = time.monotonic()
seconds = ended - began
frame = result.frame()
print("RESULT " + json.dumps({
    "runner": result.runner, "columns": list(frame.columns),
    "frame": frame.astype(object).where(frame.notna(), None).to_dict("records"),
    "pids": [p.pid for p in result.points], "driver": os.getpid(), "nodes": [p.node for p in result.points],
    "held": [dict(p.kernel_values) for p in result.points], "printed": [p.printed for p in result.points],
    "printed_cut": [p.printed_cut for p in result.points], "phases": [p.phase for p in result.points],
    "kernel": result.kernel, "kernel_how": result.kernel_how, "interrupted": result.interrupted,
    "text": repr(result), "seconds": seconds, "after_interrupt": ended - PRESSED[0] if PRESSED else None,
}))
