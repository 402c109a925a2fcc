"""A sweep on a real local Ray cluster gives the same frame as the same sweep run locally: the same points, values
and outcomes (an out-of-memory point and a raising one among them), each point in a process of its own with its
values in its environment (the task's runtime_env), and peaks that agree within what the two process kinds hold
besides the cell (an ipykernel against a Ray worker)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from mgenv_jupyter.runtime import session
from mgenv_jupyter.sweeps import given_setup, run_sweep

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
                               json.dumps({"after_init": {"SWEEP_AFTER_INIT": "set-later"}}))
    assert [r["outcome"] for r in remote["frame"]] == ["ok", "ok"], remote
    assert [text.split() for text in remote["printed"]] == [["after", "set-later", "1"], ["after", "set-later", "2"]]


def _alive(pid: int | None) -> bool:
    import psutil

    try:
        return pid is not None and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _left_children(marks: Path) -> list[int]:
    """The pids the points' cells wrote of the children they started, still running."""
    return [pid for pid in (int(path.read_text()) for path in marks.glob("child-*")) if _alive(pid)]


# The point starts a process of its own (a DataLoader worker, say), then prints 1 MB lines without pause.
FLOOD = """import os, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
open({marks!r} + "/child-" + os.environ["SWEEP_CASE"], "w").write(str(child.pid))
line = "x" * 2**20
while True:
    print(line, flush=True)
"""


def test_a_ray_point_that_floods_its_output_ends_at_its_deadline_as_a_local_one_does(local_cluster, tmp_path):
    """Before, a Ray point ran in the Ray worker itself with a clock of its own (its timeout and as much again for a
    setup it could not tell apart), was killed with its worker, and its row kept nothing of what it printed; the
    process its cell started outlived it. Now the same point runner runs it on the node: its deadline, its printed
    tail, and its guard, which kills the point's whole tree."""
    marks = tmp_path / "flood"
    marks.mkdir()
    cell = FLOOD.format(marks=str(marks))
    values = {"SWEEP_CASE": ["1", "2"]}
    remote = local_cluster.run(HERE / "sweep_driver.py", cell, "", json.dumps(values), json.dumps({"timeout": 4}))
    local = run_sweep(cell.replace("child-", "local-child-"), values, given_setup(""), session=session(), timeout=4,
                      ray=False)
    assert remote["runner"] == "ray" and local.runner == "local"
    assert [r["outcome"] for r in remote["frame"]] == [p.outcome.value for p in local.points] == ["timeout"] * 2
    assert remote["phases"] == [p.phase.value for p in local.points] == ["cell", "cell"]
    # What the cell printed, its last 4,000 characters, on Ray as here; and the kernel's own pid from its probe.
    assert remote["printed_cut"] == [p.printed_cut for p in local.points] == [True, True]
    assert all(text.endswith("x" * 100 + "\n") for text in remote["printed"]), remote["printed"]
    assert all(remote["pids"]) and all(remote["nodes"])
    assert not [pid for pid in remote["pids"] if _alive(pid)]  # each point's kernel ended with it
    assert len(list(marks.glob("child-*"))) == 2 and _left_children(marks) == []  # and what it started
    print(f"two flooding Ray points, timeout 4 s: the sweep took {remote['seconds']:.1f} s")


# The point starts a process that starts one of its own (a DataLoader worker's helper, say) and waits: the point's
# guard is their subreaper, and kills them all.
SLEEPER = """import os, subprocess, sys, time
mark = {marks!r} + "/child-" + os.environ["SWEEP_CASE"]
starter = '''import os, subprocess, sys, time
helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
open(sys.argv[1] + ".part", "w").write(str(helper.pid))
os.replace(sys.argv[1] + ".part", sys.argv[1])
time.sleep(600)'''
open({marks!r} + "/kernel-" + os.environ["SWEEP_CASE"], "w").write(str(os.getpid()))
subprocess.Popen([sys.executable, "-c", starter, mark])
time.sleep(600)
"""


def test_interrupting_a_ray_sweep_ends_each_points_kernel_and_what_it_started(local_cluster, tmp_path):
    """Ctrl-C while two Ray points run: the sweep returns with both "not run" and interrupted, as a local sweep does,
    and nothing of the point is left on its node: its kernel, what its cell started and what that started in turn.
    (Before, the worker that ran the cell was killed, and Ray 2.60 killed its tree too: this test passed then as
    well; it holds the point runner on the node to the same.)"""
    marks = tmp_path / "interrupt"
    marks.mkdir()
    values = {"SWEEP_CASE": ["1", "2"]}
    options = {"interrupt_when": [str(marks / f"child-{case}") for case in values["SWEEP_CASE"]]}
    remote = local_cluster.run(HERE / "sweep_driver.py", SLEEPER.format(marks=str(marks)), "", json.dumps(values),
                               json.dumps(options))
    assert remote["interrupted"] is True
    assert [r["outcome"] for r in remote["frame"]] == ["not_run", "not_run"]
    began = time.monotonic()
    kernels = [int(path.read_text()) for path in marks.glob("kernel-*")]
    while (_left_children(marks) or any(map(_alive, kernels))) and time.monotonic() - began < 10:
        time.sleep(0.1)  # a killed worker's guard notices within a tenth of a second
    assert len(list(marks.glob("child-*"))) == 2 and _left_children(marks) == []
    assert len(kernels) == 2 and not [pid for pid in kernels if _alive(pid)]
    print(f"an interrupted Ray sweep returned {remote['after_interrupt']:.1f} s after Ctrl-C")


def test_a_ray_point_runs_the_notebooks_kernelspec_and_its_swept_values_win_over_its_env(local_cluster, tmp_path):
    """The notebook's own kernelspec (the one this kernel was started from: its env is in this process's) runs on the
    node, with its `env` applied there as it was here (a Ray worker never had it), and the swept value over it.
    Before, a Ray point ran in the worker, with neither the spec nor its env."""
    spec = tmp_path / "jupyter" / "kernels" / "sweepspec"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": ["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"], "language": "python",
        "display_name": "sweep spec", "env": {"SWEEP_CASE": "from-spec", "SPEC_ONLY": "spec-value"}}))
    cell = "import os\nprint('case', os.environ['SWEEP_CASE'], os.environ.get('SPEC_ONLY'))"
    remote = local_cluster.run(HERE / "sweep_driver.py", cell, "", json.dumps({"SWEEP_CASE": ["1", "2"]}),
                               env={"JUPYTER_PATH": str(tmp_path / "jupyter"), "SWEEP_CASE": "from-spec",
                                    "SPEC_ONLY": "spec-value"})
    assert (remote["kernel"], remote["kernel_how"]) == ("sweepspec", "same_python"), remote
    assert [r["outcome"] for r in remote["frame"]] == ["ok", "ok"], remote
    assert [text.split() for text in remote["printed"]] == [["case", "1", "spec-value"], ["case", "2", "spec-value"]]
    assert remote["held"] == [{"SWEEP_CASE": "1"}, {"SWEEP_CASE": "2"}]
    assert "Each point: a fresh kernel of sweepspec; placed by Ray on the cluster's nodes" in remote["text"]
