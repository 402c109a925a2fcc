"""Attributing each GPU process to the server kernel whose process tree holds it: real processes (a kernel stand-in
with a child and a grandchild, and a stranger), the wire's shape, "other" processes shown by pid, user and name only,
unknown shares never shown as 0, and a container's foreign pids."""

from __future__ import annotations

import getpass
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from mgenv_jupyter.base._source_state import NO_LIBRARY, STATE_OK, State
from mgenv_jupyter.memory._gpu_processes import DeviceReading, GpuProcess, GpuReading
from mgenv_jupyter.protocol._gpus import GpuServerView
from mgenv_jupyter.server._activity import Activity
from mgenv_jupyter.server._attribution import KernelEntry, LiveProcessTable, attribute, owner

from wire_check import check

GiB = 1024**3
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


@pytest.fixture
def kernel_tree() -> Iterator[tuple[int, int, int]]:
    """A real process standing in for a kernel, its child and its grandchild: (kernel, child, grandchild) pids."""
    code = ("import subprocess, sys; c = subprocess.Popen([sys.executable, '-c', \"import subprocess, sys; "
            "g = subprocess.Popen([sys.executable, '-c', 'import sys; sys.stdin.read()'], stdin=subprocess.PIPE); "
            "print(g.pid, flush=True); sys.stdin.read(); g.stdin.close(); g.wait()\"], stdin=subprocess.PIPE, "
            "stdout=subprocess.PIPE); g = c.stdout.readline().decode().strip(); print(c.pid, g, flush=True); "
            "sys.stdin.read(); c.stdin.close(); c.wait()")
    kernel = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert kernel.stdout is not None and kernel.stdin is not None
    child, grandchild = (int(x) for x in kernel.stdout.readline().split())
    yield kernel.pid, child, grandchild
    kernel.stdin.close()
    kernel.wait(timeout=10)


def entry(kernel_id: str, pid: int | None, notebooks: tuple[str, ...] = (), state: str = "idle",
          idle: float | None = 60.0) -> KernelEntry:
    """A kernel whose last cell ended `idle` seconds ago (and so its last message, as the server saw it)."""
    last = None if idle is None else NOW - timedelta(seconds=idle)
    activity = Activity(NOW - timedelta(hours=1), "start", last_cell_end=last)
    return KernelEntry(kernel_id, "python3", pid, notebooks, state, last, activity)


def reading(*devices: DeviceReading, simulated: bool = False) -> GpuReading:
    return GpuReading(NOW.timestamp(), devices, STATE_OK, simulated, "s" if simulated else None)


def test_each_process_counts_for_the_kernel_whose_tree_holds_it_and_strangers_are_other(kernel_tree):
    kernel, child, grandchild = kernel_tree
    me = os.getpid()  # this test process is no kernel's: an "other" process with its user and name
    device = DeviceReading(0, "NVIDIA A100-SXM4-40GB", 40 * GiB, 20 * GiB, (
        GpuProcess(kernel, 2 * GiB), GpuProcess(grandchild, 3 * GiB), GpuProcess(child, GiB),
        GpuProcess(me, 4 * GiB)))
    kernels = [entry("k-train", kernel, ("train.ipynb",)), entry("k-idle", None, ("remote.ipynb",))]
    view = attribute(reading(device), kernels, NOW)
    check(view, GpuServerView)
    assert view["namespace"] == "same" and view["state"] == "ok"
    (gpu,) = view["devices"]
    assert gpu["shares"] == [{"kernel_id": "k-train", "used": 6 * GiB, "figure": "nvml"}]
    assert gpu["others"] == [{"pid": me, "user": getpass.getuser(), "name": LiveProcessTable().user_and_name(me)[1],
                              "used": 4 * GiB}]
    assert set(gpu["others"][0]) == {"pid", "user", "name", "used"}  # never more: no command line, no kernel, no action
    assert gpu["unlisted"] == 10 * GiB and gpu["label"] == "gpu0"
    assert [k["notebooks"] for k in view["kernels"]] == [["train.ipynb"], ["remote.ipynb"]]
    assert [k["pid_known"] for k in view["kernels"]] == [True, False]
    assert view["kernels"][0]["idle_seconds"] == 60.0 and view["kernels"][0]["last_activity"].startswith("2026-01-02")
    assert view["kernels"][0]["idle_since"] == "cell" and not view["kernels"][0]["running_cell"]


def test_shares_and_others_come_largest_first_and_kernels_holding_nothing_are_left_out(kernel_tree):
    kernel, child, grandchild = kernel_tree
    device = DeviceReading(1, "V100", 16 * GiB, 8 * GiB, (
        GpuProcess(kernel, GiB), GpuProcess(child, 0), GpuProcess(grandchild, 0), GpuProcess(os.getpid(), GiB // 2),
        GpuProcess(os.getppid(), 2 * GiB)))
    view = attribute(reading(device, simulated=True), [entry("a", kernel), entry("b", 999_999_999)], NOW)
    (gpu,) = view["devices"]
    assert [s["kernel_id"] for s in gpu["shares"]] == ["a"]
    assert [o["used"] for o in gpu["others"]] == [2 * GiB, GiB // 2]
    assert gpu["label"] == "gpu1 (simulated)" and view["simulated"]


def test_memory_the_driver_does_not_report_is_unknown_not_zero(kernel_tree):
    kernel, child, _ = kernel_tree
    device = DeviceReading(0, "RTX 4090", 24 * GiB, 5 * GiB, (GpuProcess(kernel, None), GpuProcess(child, GiB)))
    (gpu,) = attribute(reading(device), [entry("a", kernel)], NOW)["devices"]
    assert gpu["shares"] == [{"kernel_id": "a", "used": None, "figure": "unknown"}]


def test_foreign_pids_say_so_and_no_kernel_is_shown_at_zero(kernel_tree):
    kernel, _, _ = kernel_tree
    foreign = [(1 << 22) + 17, (1 << 22) + 18]  # above pid_max: they cannot exist here, as a container sees host pids
    device = DeviceReading(0, "A100", 40 * GiB, 9 * GiB, tuple(GpuProcess(pid, 4 * GiB) for pid in foreign))
    view = attribute(reading(device), [entry("a", kernel), entry("b", None)], NOW)
    assert view["namespace"] == "foreign"
    (gpu,) = view["devices"]
    assert gpu["shares"] == [{"kernel_id": "a", "used": None, "figure": "unknown"}]
    assert gpu["others"] == [{"pid": pid, "user": None, "name": None, "used": 4 * GiB} for pid in foreign]


def test_states_without_devices_and_a_kernel_running_a_cell_has_no_idle_time():
    running = entry("a", None, state="busy")
    assert running.activity is not None
    running.activity.observe("execute_input", "execute_request", "m1", None, NOW - timedelta(seconds=30))
    # The server calls it busy for a comm message (a chart's): no cell runs, so its idle time stands.
    chart = entry("b", None, state="busy", idle=600.0)
    none = attribute(GpuReading(0.0, (), State(NO_LIBRARY), False, None),
                     [running, chart], NOW)
    check(none, GpuServerView)
    assert (none["state"], none["namespace"], none["devices"]) == ("no_driver", "unknown", [])
    assert none["kernels"][0]["idle_seconds"] is None and none["kernels"][0]["running_cell"]
    assert none["kernels"][0]["running_seconds"] == 30.0
    assert (none["kernels"][1]["idle_seconds"], none["kernels"][1]["idle_since"]) == (600.0, "cell")
    failed = GpuReading(0.0, (), State("nvml_error", error="Unknown Error"), False, None)
    assert attribute(failed, [], NOW)["state"] == "error"
    assert attribute(GpuReading(0.0, (), STATE_OK, False, None), [], NOW)["state"] == "no_gpu"


def test_the_ancestor_walk_stops_at_init_and_for_processes_that_do_not_exist(kernel_tree):
    kernel, child, grandchild = kernel_tree
    table = LiveProcessTable()
    assert owner(grandchild, {kernel: "k"}, table) == "k"
    assert owner(os.getpid(), {kernel: "k"}, table) is None
    assert owner((1 << 22) + 5, {kernel: "k"}, table) is None
    assert table.user_and_name((1 << 22) + 5) == (None, None)


def test_in_a_foreign_namespace_a_kernels_own_report_stands_in_labelled_as_such(kernel_tree):
    kernel, _, _ = kernel_tree
    foreign = (1 << 22) + 21
    devices = [DeviceReading(i, "A100", 40 * GiB, 9 * GiB, (GpuProcess(foreign, 4 * GiB),)) for i in (0, 1)]
    reports = {kernel: {0: 3 * GiB}}
    view = attribute(reading(*devices), [entry("a", kernel), entry("b", None)], NOW, reports=reports.get)
    assert view["namespace"] == "foreign"
    assert view["devices"][0]["shares"] == [{"kernel_id": "a", "used": 3 * GiB, "figure": "kernel_report"}]
    assert view["devices"][1]["shares"] == [{"kernel_id": "a", "used": None, "figure": "unknown"}]
    # In the same namespace NVML's figure is used and a report is never asked for.
    same = DeviceReading(0, "A100", 40 * GiB, 9 * GiB, (GpuProcess(kernel, 2 * GiB),))
    asked: list[int] = []
    view = attribute(reading(same), [entry("a", kernel)], NOW, reports=lambda pid: asked.append(pid) or None)
    assert view["devices"][0]["shares"] == [{"kernel_id": "a", "used": 2 * GiB, "figure": "nvml"}] and asked == []
