"""The guard between a sweep and each point's kernel, with real processes: whatever way the sweep's process dies
(`kill -9` included), every process of the point dies with it, orphans included; a kernel killed by a signal is
reported by the guard's status."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mgenv_jupyter.sweeps._guard import descendants
from mgenv_jupyter.sweeps._kernels import GUARD

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the guard's subreaper is Linux's")

# A "kernel" that starts a child, and an orphan (its parent exits at once, as a double-forked daemon's does), then
# writes every pid it made and waits to be killed.
KERNEL = """
import json, os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(600)
    os._exit(0)
time.sleep(0.5)
def below(pid):
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        found += [int(p) for p in open(f"/proc/{pid}/task/{task}/children").read().split()]
    return found
json.dump({"kernel": os.getpid(), "below": below(os.getppid())}, open(sys.argv[1], "w"))
time.sleep(600)
"""

# The sweep's process: starts the guard (as jupyter_client would, in a new session) and waits forever.
SWEEPER = """
import subprocess, sys, time
subprocess.Popen([sys.executable, "-I", "-S", sys.argv[1], str(__import__("os").getpid()), "--", sys.executable,
                  "-c", sys.argv[2], sys.argv[3]], start_new_session=True)
time.sleep(600)
"""


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def wait_for(path: Path, seconds: float = 30.0) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text():
            return json.loads(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"{path} never written")


def test_kill_9_of_the_sweeping_process_leaves_no_process_of_the_point(tmp_path):
    pids_file = tmp_path / "pids.json"
    sweeper = subprocess.Popen([sys.executable, "-c", SWEEPER, str(GUARD), KERNEL, str(pids_file)])
    try:
        pids = wait_for(pids_file)
        guard = next(pid for pid in descendants(sweeper.pid) if pid != pids["kernel"])
        point = [guard, pids["kernel"], *pids["below"]]
        assert len(point) >= 4 and all(alive(pid) for pid in point)  # guard, kernel, child, orphan (adopted)
        os.kill(sweeper.pid, signal.SIGKILL)
        sweeper.wait()
        deadline = time.monotonic() + 5
        while any(alive(pid) for pid in point) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [pid for pid in point if alive(pid)] == []
    finally:
        sweeper.kill()


def test_sigterm_to_the_guard_ends_everything_below_it(tmp_path):
    pids_file = tmp_path / "pids.json"
    guard = subprocess.Popen([sys.executable, "-I", "-S", str(GUARD), str(os.getpid()), "--", sys.executable, "-c",
                              KERNEL, str(pids_file)], start_new_session=True)
    pids = wait_for(pids_file)
    point = [pids["kernel"], *pids["below"]]
    guard.send_signal(signal.SIGTERM)
    assert guard.wait(10) == 1  # ended by the sweep: not the kernel's own status
    assert [pid for pid in point if alive(pid)] == []


@pytest.mark.parametrize("signum", [signal.SIGSEGV, signal.SIGKILL])
def test_a_kernel_killed_by_a_signal_is_the_guards_status(signum):
    guard = subprocess.run([sys.executable, "-I", "-S", str(GUARD), str(os.getpid()), "--", sys.executable, "-c",
                            f"import os; os.kill(os.getpid(), {int(signum)})"], timeout=30)
    assert guard.returncode == 128 + signum


def test_a_kernel_that_exits_passes_its_status_on():
    guard = subprocess.run([sys.executable, "-I", "-S", str(GUARD), str(os.getpid()), "--", sys.executable, "-c",
                            "raise SystemExit(3)"], timeout=30)
    assert guard.returncode == 3


def test_the_guard_removes_the_points_files_when_the_sweep_ends_it_and_the_sweeps_once_it_died(tmp_path):
    sweep = tmp_path / "mgenv-sweep-x"
    ended, orphaned = sweep / "p0", sweep / "p1"
    for point in (ended, orphaned):
        point.mkdir(parents=True)
        (point / "connection.json").write_text('{"key": "a point\'s key"}')
    # ended by the sweep (SIGTERM): its own directory goes, the sweep's stays for the sweep's other points
    guard = subprocess.Popen([sys.executable, "-I", "-S", str(GUARD), str(os.getpid()), "--files", str(ended), "--",
                              sys.executable, "-c", KERNEL, str(tmp_path / "pids0.json")], start_new_session=True)
    wait_for(tmp_path / "pids0.json")
    guard.send_signal(signal.SIGTERM)
    assert guard.wait(10) == 1
    assert not ended.exists() and orphaned.exists()
    # the sweeping process killed: the last point's directory goes, and the sweep's, empty now
    sweeper = subprocess.Popen([sys.executable, "-c", SWEEPER.replace('"--", ', '"--files", sys.argv[4], "--", '),
                                str(GUARD), KERNEL, str(tmp_path / "pids1.json"), str(orphaned)])
    try:
        wait_for(tmp_path / "pids1.json")
        os.kill(sweeper.pid, signal.SIGKILL)
        sweeper.wait()
        deadline = time.monotonic() + 10
        while sweep.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not sweep.exists()
    finally:
        sweeper.kill()
