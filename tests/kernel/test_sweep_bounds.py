"""%%envsweep bounded by construction, in a real sweeping kernel with real point kernels (issue 37): a point that
prints without pause still ends at its deadline and at an interrupt, and costs the sweeping kernel a bounded few
megabytes in memory and on disk; a TMPDIR too long for a Unix socket's path changes nothing; `kill -9` of the
sweeping kernel leaves no file of the sweep (no connection file, which holds a point's key); a second interrupt
keeps this sweep's result, not the previous one's; the next point's kernel starts (and imports what the setup
imports first) while the current point measures, and two measured cells never overlap."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
import sweep_processes
from jupyter_client.manager import start_new_kernel
from sweep_processes import bytes_under, new_owner, resident_bytes

OWNER = new_owner("test-sweep-bounds")

# Points at once (on simulated GPUs) that print 1 MB lines without pause, over IOPub and straight to the
# process's stdout (the point kernel's own log, which the sweep keeps the end of).
FLOOD_CELL = """%%envsweep SWEEP_FLOOD={values} --timeout {timeout} --setup none --parallel 4
import os
line = "x" * 2**20
while True:
    print(line, flush=True)
    os.write(1, line.encode())
"""

MIB = 2**20


def point_processes() -> list[int]:
    return sweep_processes.point_processes(OWNER)


class Sweeper:
    """A sweeping kernel of its own, with its own TMPDIR and Jupyter runtime directory (where a point's connection
    file would land by default)."""

    def __init__(self, tmpdir: Path, runtime: Path, **extra: str) -> None:
        tmpdir.mkdir(parents=True, exist_ok=True)
        runtime.mkdir(parents=True, exist_ok=True)
        env = {**sweep_processes.owned_environment(OWNER), "TMPDIR": str(tmpdir), "JUPYTER_RUNTIME_DIR": str(runtime),
               **extra}
        self.manager, self.client = start_new_kernel(kernel_name="python3", env=env)
        self.run("%load_ext mgenv_jupyter\nimport mgenv_jupyter")

    @property
    def pid(self) -> int:
        return int(self.manager.provisioner.process.pid)

    def run(self, code: str, seconds: float = 120.0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Execute `code`; its reply's content and its output messages."""
        message_id = self.client.execute(code)
        return self.reply(message_id, seconds)

    def reply(self, message_id: str, seconds: float = 120.0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        deadline = time.monotonic() + seconds
        reply = None
        while reply is None:
            message = self.client.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
            if message["parent_header"].get("msg_id") == message_id:
                reply = message["content"]
        outputs = []
        while True:
            message = self.client.get_iopub_msg(timeout=30)
            if message["parent_header"].get("msg_id") != message_id:
                continue
            if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
                return reply, outputs
            outputs.append(message)

    def facts(self) -> dict[str, Any]:
        _, outputs = self.run("import json as _j\n_r = mgenv_jupyter.last_sweep()\nprint('FACTS', _j.dumps({"
                              "'names': list(_r.points[0].values), 'interrupted': _r.interrupted,"
                              "'outcomes': [p.outcome.value for p in _r.points],"
                              "'printed': [len(p.printed) for p in _r.points]}))")
        text = "".join(m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream")
        return dict(json.loads(text.split("FACTS", 1)[1]))

    def close(self) -> None:
        self.manager.shutdown_kernel(now=True)
        self.client.stop_channels()


def _wait_for_points(count: int, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while len(point_processes()) < count:
        assert time.monotonic() < deadline, f"fewer than {count} point processes appeared"
        time.sleep(0.1)


def _gone(seconds: float = 15.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while point_processes() and time.monotonic() < deadline:
        time.sleep(0.1)
    return point_processes()


@pytest.fixture
def sweeper(tmp_path):
    made = Sweeper(tmp_path / "tmp", tmp_path / "runtime")
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def two_gpu_sweeper(tmp_path):
    made = Sweeper(tmp_path / "tmp", tmp_path / "runtime", MGENV_SIMULATE_GPU="mirror-4x1gb")
    try:
        yield made
    finally:
        made.close()


def test_a_flooding_point_ends_at_its_deadline_and_costs_the_sweep_a_bounded_few_megabytes(two_gpu_sweeper,
                                                                                            tmp_path):
    sweeper = two_gpu_sweeper
    before = resident_bytes(sweeper.pid)
    message_id = sweeper.client.execute(FLOOD_CELL.format(values="a,b", timeout=3))
    most_rss = most_disk = 0
    deadline = time.monotonic() + 60  # a 3 s deadline and two kernel starts, with room for a loaded machine
    reply = None
    while reply is None and time.monotonic() < deadline:
        most_rss = max(most_rss, resident_bytes(sweeper.pid))
        most_disk = max(most_disk, bytes_under(tmp_path / "tmp"))
        try:
            message = sweeper.client.get_shell_msg(timeout=0.2)
        except Exception:  # queue.Empty: still running
            continue
        if message["parent_header"].get("msg_id") == message_id:
            reply = message["content"]
    assert reply is not None, "the flooding sweep ran past its points' deadlines"
    assert reply["status"] == "ok"
    facts = sweeper.facts()
    assert facts["outcomes"] == ["timeout", "timeout"] and all(n <= 4000 for n in facts["printed"])
    assert most_rss - before < 200 * MIB, f"the sweeping kernel grew by {(most_rss - before) / MIB:.0f} MiB"
    assert most_disk < 4 * MIB, f"the sweep's files reached {most_disk / MIB:.0f} MiB"
    assert _gone() == []


def test_an_interrupt_ends_a_flooding_point(two_gpu_sweeper):
    sweeper = two_gpu_sweeper
    message_id = sweeper.client.execute(FLOOD_CELL.format(values="a,b,c,d", timeout=300))
    _wait_for_points(8)  # four guards and four kernels
    time.sleep(1.5)  # the point floods by now
    sweeper.manager.interrupt_kernel()
    reply, _ = sweeper.reply(message_id, seconds=30)
    assert reply["status"] == "ok"
    facts = sweeper.facts()
    assert facts["interrupted"] and facts["outcomes"] == ["not_run"] * 4
    assert _gone() == []


def test_a_tmpdir_too_long_for_a_socket_path_changes_nothing(tmp_path):
    long_tmp = tmp_path / ("scratch-of-a-cluster-job-" + "x" * 60) / ("per-task-" + "y" * 40)
    assert len(str(long_tmp)) > 110
    made = Sweeper(long_tmp, tmp_path / "runtime")
    try:
        reply, outputs = made.run("%%envsweep SWEEP_LONG=a,b --setup none --timeout 60\nprint('fine')")
        facts = made.facts()
    finally:
        made.close()
    assert reply["status"] == "ok" and facts["outcomes"] == ["ok", "ok"]
    assert not [m for m in outputs if m["msg_type"] == "error"]
    assert not any("Traceback" in m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream")


def test_kill_9_of_the_sweeping_kernel_leaves_no_file_of_the_sweep(tmp_path):
    made = Sweeper(tmp_path / "tmp", tmp_path / "runtime")
    try:
        made.client.execute("%%envsweep SWEEP_SLEEP=60,61 --timeout 300 --setup none\n"
                            "import os, time\ntime.sleep(float(os.environ['SWEEP_SLEEP']))")
        _wait_for_points(2)  # the first point's guard and kernel
        assert os.listdir(tmp_path / "tmp")  # the sweep's directory, with its points'
        os.kill(made.pid, signal.SIGKILL)
        assert _gone() == []
        deadline = time.monotonic() + 10
        while (os.listdir(tmp_path / "tmp") or os.listdir(tmp_path / "runtime")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert os.listdir(tmp_path / "tmp") == [] and os.listdir(tmp_path / "runtime") == []
    finally:
        made.close()


def test_a_second_interrupt_keeps_this_sweeps_result(sweeper):
    reply, _ = sweeper.run("%%envsweep SWEEP_BEFORE=a --setup none\npass")
    assert reply["status"] == "ok"
    message_id = sweeper.client.execute("%%envsweep SWEEP_NOW=60,61 --timeout 300 --setup none\n"
                                        "import os, time\ntime.sleep(float(os.environ['SWEEP_NOW']))")
    _wait_for_points(2)
    for _ in range(4):  # again and again while the points end
        sweeper.manager.interrupt_kernel()
        time.sleep(0.1)
    _, outputs = sweeper.reply(message_id, seconds=60)
    shown = json.dumps([m["content"] for m in outputs])
    assert "SWEEP_NOW" in shown and "SWEEP_BEFORE" not in shown
    facts = sweeper.facts()
    assert facts["names"] == ["SWEEP_NOW"] and facts["interrupted"]
    assert _gone() == []


# Imported by the setup's first line: says when, by a file of its own.
WARM_MODULE = """import os, pathlib
pathlib.Path(os.environ["SWEEP_MARKS"], "imported-" + os.environ["SWEEP_WARM"]).touch()
"""

# Each point but the last waits (30 s at most) for the next point's kernel to have imported the setup's module: it
# sees it only if that kernel started, and imported, while this point measured.
WAITING_CELL = """import os, pathlib, time
following = {"a": "b", "b": "c"}.get(os.environ["SWEEP_WARM"])
seen = following is None
deadline = time.monotonic() + 30
while not seen and time.monotonic() < deadline:
    seen = pathlib.Path(os.environ["SWEEP_MARKS"], "imported-" + following).exists()
    time.sleep(0.05)
print("SAW", seen)
"""


def test_the_next_point_starts_and_imports_while_the_current_one_measures(tmp_path):
    (tmp_path / "modules").mkdir()
    (tmp_path / "marks").mkdir()
    (tmp_path / "modules" / "sweep_warm_probe.py").write_text(WARM_MODULE)
    made = Sweeper(tmp_path / "tmp", tmp_path / "runtime", SWEEP_MARKS=str(tmp_path / "marks"),
                   PYTHONPATH=os.pathsep.join([str(tmp_path / "modules"), os.environ.get("PYTHONPATH", "")]))
    try:
        made.run(f"CELL = {WAITING_CELL!r}")
        reply, outputs = made.run(
            "r = mgenv_jupyter.sweep(CELL, {'SWEEP_WARM': ['a', 'b', 'c']}, setup='import sweep_warm_probe', "
            "timeout=60)\nimport json as _j\n"
            "print('POINTS', _j.dumps([[p.outcome.value, p.printed.split(), p.started, p.finished] "
            "for p in r.points]))", seconds=240)
    finally:
        made.close()
    assert reply["status"] == "ok", reply
    text = "".join(m["content"].get("text", "") for m in outputs if m["msg_type"] == "stream")
    points = json.loads(text.split("POINTS", 1)[1])
    assert [p[0] for p in points] == ["ok", "ok", "ok"]
    assert [p[1] for p in points] == [["SAW", "True"]] * 3  # each next kernel had imported the setup's module
    for earlier, later in zip(points, points[1:], strict=False):
        assert later[2] >= earlier[3]  # but measured only after the point ahead: never two measured cells at once
