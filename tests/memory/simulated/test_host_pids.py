"""The simulated machine's pids are the host's (memory/simulated/_host_pids.py): a process in a pid namespace of its
own (a real one: `unshare --pid --fork --mount`, as root) given the host's /proc learns its own host pid, its
parent's, the host pid of a process of its namespace, and whether a host pid runs; on the host they are the pids."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mgenv_jupyter.memory.simulated import _host_pids

ROOT = Path(__file__).resolve().parents[3]
PROBE = """
import json, os, subprocess, sys
from mgenv_jupyter.memory.simulated import _host_pids as h
child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
mapped = h.host_pids((os.getpid(), child.pid, 99999))
print(json.dumps({"pid": os.getpid(), "me": h.my_pid(), "parent": h.parent_pid(), "child": child.pid,
                  "mapped": {str(k): v for k, v in mapped.items()}, "me_alive": h.alive(h.my_pid()),
                  "gone_alive": h.alive(2**22 + 5)}))
child.stdin.close(); child.wait()
"""


def test_on_the_host_the_pids_are_the_processes_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(_host_pids.HOST_PROC_ENV, raising=False)
    assert (_host_pids.my_pid(), _host_pids.parent_pid()) == (os.getpid(), os.getppid())
    assert _host_pids.host_pids((os.getpid(), 1)) == {os.getpid(): os.getpid(), 1: 1}
    assert _host_pids.alive(os.getpid()) is None  # the system is asked


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="a pid namespace needs root")
def test_in_a_pid_namespace_of_its_own_the_host_pids_are_found_through_the_hosts_proc(tmp_path: Path) -> None:
    host_proc = tmp_path / "host-proc"
    host_proc.mkdir()
    inside = 'mount --bind /proc "$0" && mount -t proc proc /proc && exec "$@"'
    done = subprocess.run(
        ["unshare", "--pid", "--fork", "--mount", "--propagation", "private", "--kill-child", "sh", "-c", inside,
         str(host_proc), sys.executable, "-c", PROBE],
        env={**os.environ, _host_pids.HOST_PROC_ENV: str(host_proc), "PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)
    assert seen["pid"] == 1 and seen["me"] != 1  # the namespace's first process, which the host knows otherwise
    assert seen["parent"] > 1 and seen["me_alive"] is True and seen["gone_alive"] is False
    # Its child: the host pid whose status names it last in NSpid, in this namespace; a pid nobody has: no entry.
    assert seen["mapped"] == {"1": seen["me"], str(seen["child"]): seen["mapped"][str(seen["child"])]}
    assert seen["mapped"][str(seen["child"])] not in (seen["child"], seen["me"])
    assert not any(host_proc.iterdir())  # the host's /proc was mounted in the namespace only
