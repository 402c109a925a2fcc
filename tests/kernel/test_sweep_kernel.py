"""%%envsweep in a real Jupyter kernel: every kind of failure is one point's outcome while the others complete, and
nothing of a point outlives the sweep — after it ends, after an interrupt, after `kill -9` of the sweeping kernel
(checked in the process table)."""

from __future__ import annotations

import json
import os
import signal
import time

import nbformat
import pytest
import sweep_processes
from jupyter_client.manager import start_new_kernel
from nbclient import NotebookClient
from sweep_processes import new_owner

FAILURES_CELL = """%%envsweep -o SWEEP_CASE=ok,oom,raise,hang,segfault --timeout 6 --repeat 2
case = os.environ["SWEEP_CASE"]
print("case", case, "base", base)
if case == "oom":
    np.empty(2**50)  # NumPy's MemoryError ("Unable to allocate 8 PiB"): out of memory as the report sees it
elif case == "raise":
    raise RuntimeError("broken on purpose")
elif case == "hang":
    time.sleep(120)
elif case == "segfault":
    os.kill(os.getpid(), signal.SIGSEGV)
x = np.ones(10**6)
"""

FACTS_CELL = """import json as _json
_result = mgenv_jupyter.last_sweep()
print("FACTS", _json.dumps({
    "frame": _result.frame().astype(object).where(_result.frame().notna(), None).to_dict("records"),
    "points": [{"outcome": p.outcome.value, "phase": p.phase and p.phase.value, "runs": len(p.runs),
                "printed": p.printed, "held": dict(p.kernel_values), "pid": p.pid,
                "failure": p.failure and {"kind": p.failure.kind, "signal": p.failure.signal_name,
                                          "framework": p.failure.framework, "message": p.failure.message}}
               for p in _result.points],
    "setup": _result.setup.code(), "left_out": [[n, r.value] for n, r in _result.setup.left_out],
    "best": _result.best and _result.best.index, "choice": _result.choice.value,
}))"""


# Every sweeping kernel of this module runs with this variable: the process table is searched for this module's
# sweeps only (tests/sweep_processes.py).
OWNER = new_owner("test-sweep-kernel")


def owned_environment() -> dict[str, str]:
    return sweep_processes.owned_environment(OWNER)


def point_processes() -> list[int]:
    return sweep_processes.point_processes(OWNER)


@pytest.fixture(scope="module")
def failures(tmp_path_factory) -> dict:
    cells = ["%load_ext mgenv_jupyter", "import os, signal, time\nimport numpy as np\nimport mgenv_jupyter",
             "base = 7", "raise KeyError('an earlier failed cell')", FAILURES_CELL, FACTS_CELL]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    workdir = tmp_path_factory.mktemp("sweep")
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(workdir)}}).execute(env=owned_environment())
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    assert "FACTS" in text, nb.cells[-2].outputs
    facts = json.loads(text.split("FACTS", 1)[1])
    facts["left_behind"] = point_processes()
    facts["outputs"] = nb.cells[-2].outputs
    return facts


def test_each_failure_is_its_points_outcome_and_the_others_complete(failures):
    outcomes = {row["SWEEP_CASE"]: row["outcome"] for row in failures["frame"]}
    assert outcomes == {"ok": "ok", "oom": "oom", "raise": "error", "hang": "timeout", "segfault": "crashed"}
    points = dict(zip(outcomes, failures["points"], strict=True))
    assert points["ok"]["runs"] == 2 and points["oom"]["failure"]["framework"] == "python"
    assert points["raise"]["failure"]["kind"] == "builtins.RuntimeError"
    assert points["raise"]["failure"]["message"] == "broken on purpose"
    assert points["segfault"]["failure"]["signal"] == "SIGSEGV"
    assert points["hang"]["phase"] == "cell"
    assert failures["best"] == 0 and failures["choice"] == "fastest_within_budget"


def test_each_point_had_its_value_and_the_replayed_state(failures):
    for row, point in zip(failures["frame"], failures["points"], strict=True):
        assert point["held"] == {"SWEEP_CASE": row["SWEEP_CASE"]}
        if row["SWEEP_CASE"] != "segfault":  # a crashed kernel's output is its log's
            assert f"case {row['SWEEP_CASE']} base 7" in point["printed"]
    assert len({point["pid"] for point in failures["points"] if point["pid"]}) == 5  # a fresh process each


def test_the_result_says_exactly_what_ran_before_the_cell(failures):
    assert failures["setup"] == ["%load_ext mgenv_jupyter", "import os, signal, time\nimport numpy as np\n"
                                 "import mgenv_jupyter", "base = 7"]
    assert [reason for _, reason in failures["left_out"]] == ["failed"]


def test_the_view_is_shown_with_a_static_picture(failures):
    bundles = [o.get("data", {}) for o in failures["outputs"] if o.output_type in ("display_data", "execute_result")]
    assert any("image/svg+xml" in b and "<svg" in b["image/svg+xml"] for b in bundles)
    assert any("timed out" in b.get("text/plain", "") and "crashed" in b.get("text/plain", "") for b in bundles)


def test_no_process_of_any_point_is_left(failures):
    assert failures["left_behind"] == []


# ---- interrupting the sweep, and killing the sweeping kernel ---------------------------------------------------

SLOW_CELL = """%%envsweep SWEEP_SLEEP=0,60,61 --timeout 300 --setup none
import os, time, subprocess, sys
worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])  # a point's own child process
time.sleep(float(os.environ["SWEEP_SLEEP"]))
"""


def _start_sweeping_kernel():
    manager, client = start_new_kernel(kernel_name="python3", env=owned_environment())
    client.execute_interactive("%load_ext mgenv_jupyter\nimport mgenv_jupyter", timeout=60)
    return manager, client


def _wait_for_points(count: int, seconds: float = 120.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = point_processes()
        if len(found) >= count:
            return found
        time.sleep(0.2)
    raise AssertionError(f"fewer than {count} point processes appeared")


def _wait_for_worker(value: bytes, seconds: float = 120.0) -> None:
    """Wait until the worker process that the point whose environment holds `value` started is running."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for pid in point_processes():
            try:
                with open(f"/proc/{pid}/environ", "rb") as environ:
                    held = value in environ.read().split(b"\0")
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    worker = b"time.sleep(600)" in cmdline.read()
            except OSError:
                continue
            if held and worker:
                return
        time.sleep(0.1)
    raise AssertionError(f"no worker of the point with {value!r} appeared")


def _gone(seconds: float = 10.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while point_processes() and time.monotonic() < deadline:
        time.sleep(0.1)
    return point_processes()


def test_interrupting_keeps_what_finished_and_ends_every_point():
    manager, client = _start_sweeping_kernel()
    try:
        message_id = client.execute(SLOW_CELL)
        # the first point (0 s) finishes; the second one sleeps, with its own child process running (the next
        # point's kernel starts meanwhile): that worker in the process table says the second point measures
        _wait_for_worker(b"SWEEP_SLEEP=60")
        time.sleep(1)
        manager.interrupt_kernel()
        reply = client.get_shell_msg(timeout=60)
        while reply["parent_header"].get("msg_id") != message_id:
            reply = client.get_shell_msg(timeout=60)
        assert reply["content"]["status"] == "ok"  # the sweep kept what finished: the cell did not fail
        left = _gone()
        outcomes = []
        client.execute("import json\n_r = mgenv_jupyter.last_sweep()\n"
                       "print('OUTCOMES', json.dumps([p.outcome.value for p in _r.points], separators=(',', ':')), "
                       "_r.interrupted)")
        while not outcomes:
            message = client.get_iopub_msg(timeout=30)
            if message["msg_type"] == "stream" and "OUTCOMES" in message["content"]["text"]:
                outcomes = message["content"]["text"].split("OUTCOMES", 1)[1].split()
    finally:
        manager.shutdown_kernel(now=True)
    assert left == []
    assert json.loads(outcomes[0]) == ["ok", "not_run", "not_run"] and outcomes[1] == "True"


def test_kill_9_of_the_sweeping_kernel_leaves_no_process_of_any_point():
    manager, client = _start_sweeping_kernel()
    try:
        client.execute(SLOW_CELL.replace("SWEEP_SLEEP=0,60,61", "SWEEP_SLEEP=60,61"))
        points = _wait_for_points(3)  # guard, point kernel, and the worker it started
        os.kill(manager.provisioner.process.pid, signal.SIGKILL)
        left = _gone()
    finally:
        manager.shutdown_kernel(now=True)
        client.stop_channels()
    assert points and left == []
