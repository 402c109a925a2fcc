"""A sweep on a real local Ray cluster gives the same frame as the same sweep run locally: the same points, values
and outcomes (an out-of-memory point and a raising one among them), each point in a process of its own with its
values in its environment (the task's runtime_env), and peaks that agree within what the two process kinds hold
besides the cell (an ipykernel against a Ray worker)."""

from __future__ import annotations

import json

from mgenv_jupyter.runtime import session
from mgenv_jupyter.tuner import given_setup, run_sweep

from .conftest import HERE

SETUP = "import os\nimport numpy as np"
CELL = """case = os.environ["SWEEP_CASE"]
print("case", case)
if case == "oom":
    np.empty(2**50)
if case == "raise":
    raise RuntimeError("broken on purpose")
x = np.ones(int(case) * 2**17)
"""
VALUES = {"SWEEP_CASE": ["100", "300", "oom", "raise"]}
MiB = 1024**2


def test_a_ray_sweep_gives_the_same_frame_as_a_local_one(local_cluster):
    remote = local_cluster.run(HERE / "sweep_driver.py", CELL, SETUP, json.dumps(VALUES))
    local = run_sweep(CELL, VALUES, given_setup(SETUP), session=session(), timeout=60, ray=False)
    frame = local.frame()
    rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    assert remote["runner"] == "ray" and remote["columns"] == list(frame.columns)
    assert [r["SWEEP_CASE"] for r in remote["frame"]] == [r["SWEEP_CASE"] for r in rows] == VALUES["SWEEP_CASE"]
    assert [r["outcome"] for r in remote["frame"]] == [r["outcome"] for r in rows] == ["ok", "ok", "oom", "error"]
    assert [r["failure"] for r in remote["frame"]] == [r["failure"] for r in rows]
    assert remote["held"] == [{"SWEEP_CASE": value} for value in VALUES["SWEEP_CASE"]]
    assert len(set(remote["pids"])) == 4 and remote["driver"] not in remote["pids"]  # a fresh worker each
    assert all(remote["nodes"]) and all("case" in text for text in remote["printed"][:3])
    # The cell's own memory is the same: the 300 MiB point holds 200 MiB more than the 100 MiB one, on Ray as here.
    for side in (remote["frame"], rows):
        grown = side[1]["peak_host_bytes"] - side[0]["peak_host_bytes"]
        assert abs(grown - 200 * MiB) < 40 * MiB, side
    assert remote["frame"][2]["peak_device_bytes"] is None and rows[2]["peak_device_bytes"] is None


def test_ray_points_get_the_variables_the_session_set_after_ray_init(local_cluster):
    """Issue 37, finding 3: set after `ray.init(runtime_env=cluster.runtime_env())`, a variable reached local points
    but not Ray's (they printed None)."""
    cell = "import os\nprint('after', os.environ.get('SWEEP_AFTER_INIT'), os.environ['SWEEP_CASE'])"
    remote = local_cluster.run(HERE / "sweep_driver.py", cell, "", json.dumps({"SWEEP_CASE": ["1", "2"]}),
                               json.dumps({"SWEEP_AFTER_INIT": "set-later"}))
    assert [r["outcome"] for r in remote["frame"]] == ["ok", "ok"], remote
    assert [text.split() for text in remote["printed"]] == [["after", "set-later", "1"], ["after", "set-later", "2"]]
