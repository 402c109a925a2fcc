"""The notebook side of a sweep on a real Ray cluster, run with .venvs/ray's Python: the user's code connects Ray, and
`run_sweep` then runs each point as a Ray task (a CPU each here, in place of a GPU) with its variables in the task's
runtime_env. With a fourth argument (JSON: name → value), it connects as the README says
(`ray.init(runtime_env=cluster.runtime_env())`) and then sets those through the session, after `ray.init`. Prints
`RESULT {json}`: the frame and each point's process, node and values."""

from __future__ import annotations

import json
import os
import sys

import ray

from mgenv_jupyter import cluster
from mgenv_jupyter.runtime import session
from mgenv_jupyter.tuner import given_setup, run_sweep

CELL = sys.argv[1]
SETUP = sys.argv[2]
VALUES = json.loads(sys.argv[3])
AFTER_INIT = json.loads(sys.argv[4]) if len(sys.argv) > 4 else None

if AFTER_INIT is None:
    ray.init(address=os.environ["RAY_ADDRESS"], logging_level="ERROR")
else:
    ray.init(address=os.environ["RAY_ADDRESS"], logging_level="ERROR", runtime_env=cluster.runtime_env())
    session().set(list(AFTER_INIT.items()))
result = run_sweep(CELL, VALUES, given_setup(SETUP), session=session(), timeout=60)
frame = result.frame()
print("RESULT " + json.dumps({
    "runner": result.runner, "columns": list(frame.columns),
    "frame": frame.astype(object).where(frame.notna(), None).to_dict("records"),
    "pids": [p.pid for p in result.points], "driver": os.getpid(), "nodes": [p.node for p in result.points],
    "held": [dict(p.kernel_values) for p in result.points], "printed": [p.printed for p in result.points],
}))
