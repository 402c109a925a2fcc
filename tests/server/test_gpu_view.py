"""The server's one GPU reader: reads run on its own thread, never on the event loop; concurrent requests share one
read and a fresh view is answered as it is; the simulated GPU lists the server's kernels (real processes here); a bad
MGENV_SIMULATE_GPU is the view's error, not a crash. The kernel and session managers are small in-memory stand-ins
holding data (the real server is tests/server/test_handlers.py)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from types import SimpleNamespace
from typing import Any

import pytest

from mgenv_jupyter.memory.simulated import _fake_nvml as fake_nvml
from mgenv_jupyter.server import _attribution as attribution
from mgenv_jupyter.server._gpu_view import GpuView

GiB = 1024**3


class Kernels:
    def __init__(self, pids: dict[str, int]) -> None:
        self.kernels = {kid: SimpleNamespace(provisioner=SimpleNamespace(pid=pid), kernel_name="python3",
                                             execution_state="idle", last_activity=datetime.now(timezone.utc))
                        for kid, pid in pids.items()}

    def list_kernel_ids(self) -> list[str]:
        return list(self.kernels)

    def get_kernel(self, kernel_id: str) -> Any:
        return self.kernels[kernel_id]


class Sessions:
    def __init__(self, paths: dict[str, str]) -> None:
        self.paths = paths

    async def list_sessions(self) -> list[dict[str, Any]]:
        return [{"path": path, "kernel": {"id": kid}} for kid, path in self.paths.items()]


@pytest.fixture
def kernel_processes() -> Iterator[list[int]]:
    procs = [subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
             for _ in range(2)]
    yield [p.pid for p in procs]
    for p in procs:
        assert p.stdin is not None
        p.stdin.close()
        p.wait(timeout=10)


def make_view(monkeypatch, pids: list[int], spec: str) -> GpuView:
    monkeypatch.setenv("MGENV_SIMULATE_GPU", spec)
    return GpuView(Kernels({"ka": pids[0], "kb": pids[1]}), Sessions({"ka": "a.ipynb", "kb": "b.ipynb"}), min_age=60)


def test_the_simulated_gpu_lists_the_servers_kernels_read_off_the_event_loop(monkeypatch, kernel_processes):
    view = make_view(monkeypatch, kernel_processes, "a100-40gb")
    threads: list[str] = []
    real_attribute = attribution.attribute

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real_attribute(*args, **kwargs)

    monkeypatch.setattr("mgenv_jupyter.server._gpu_view.attribute", spy)
    try:
        result = asyncio.run(view.view())
        assert fake_nvml.installed() is not None
    finally:
        view.close()
    assert threads and all(name.startswith("mgenv-gpus") for name in threads)
    assert result["simulated"] and result["simulation"] == "a100-40gb"
    (device,) = result["devices"]
    used = {s["kernel_id"]: s["used"] for s in device["shares"]}
    # Every kernel holds some simulated memory, the later one a little more.
    assert set(used) == {"ka", "kb"} and 0 < used["ka"] < used["kb"]  # type: ignore[operator]


def test_concurrent_requests_share_one_read_and_a_fresh_view_is_not_read_again(monkeypatch, kernel_processes):
    view = make_view(monkeypatch, kernel_processes, "a100-40gb")
    reads = []
    real_read = view._read

    def counted(kernels: Any, culling: Any) -> Any:
        reads.append(1)
        return real_read(kernels, culling)

    monkeypatch.setattr(view, "_read", counted)

    async def many() -> list[Any]:
        first = await asyncio.gather(*(view.view() for _ in range(5)))
        return [*first, await view.view()]

    try:
        results = asyncio.run(many())
    finally:
        view.close()
    assert len(reads) == 1 and all(r is results[0] for r in results)


def test_a_bad_simulation_spec_is_the_views_error(monkeypatch, kernel_processes, tmp_path):
    view = make_view(monkeypatch, kernel_processes, str(tmp_path / "missing.json"))
    try:
        result = asyncio.run(view.view())
    finally:
        view.close()
    assert result["state"] == "error" and result["devices"] == []
    assert result["detail"] is not None and "MGENV_SIMULATE_GPU" in result["detail"]
    assert [k["notebooks"] for k in result["kernels"]] == [["a.ipynb"], ["b.ipynb"]]
    assert os.environ["MGENV_SIMULATE_GPU"].endswith("missing.json")


def test_a_fifo_or_a_hostile_kernel_report_never_holds_or_breaks_a_request(monkeypatch, kernel_processes, tmp_path):
    """Issue 28, finding 10. In a container (NVML's pids are another namespace's) the view reads each kernel's own
    report from the runtime directory: a FIFO in place of one kernel's report leaves it without a figure, a device
    key '²' in the other's is left out and its gpu0 figure kept; the view and the owners request both answer."""
    monkeypatch.setenv("MGENV_SIMULATE_GPU", "container")
    fifo = tmp_path / f"mgenv-kernel-{kernel_processes[0]}.json"
    os.mkfifo(fifo, 0o600)
    report = tmp_path / f"mgenv-kernel-{kernel_processes[1]}.json"
    report.write_text(json.dumps({"v": 1, "pid": kernel_processes[1], "time": time.time(),
                                  "devices": {"²": {"bytes": GiB}, "0": {"bytes": 3 * GiB}}}))
    report.chmod(0o600)
    view = GpuView(Kernels({"ka": kernel_processes[0], "kb": kernel_processes[1]}),
                   Sessions({"ka": "a.ipynb", "kb": "b.ipynb"}), min_age=0, runtime_dir=str(tmp_path))

    async def both() -> tuple[Any, Any]:
        return (await asyncio.wait_for(view.view(), 10),
                await asyncio.wait_for(view.owners(kernel_processes), 10))

    try:
        result, owners = asyncio.run(both())
    finally:  # a reader still waiting on the FIFO (the code as it was) gets an end of file and leaves
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        view.close()
    assert result["namespace"] == "foreign" and result["state"] == "ok"
    (device,) = result["devices"]
    assert {s["kernel_id"]: (s["used"], s["figure"]) for s in device["shares"]} == {
        "ka": (None, "unknown"), "kb": (3 * GiB, "kernel_report")}
    assert [o["kernel"]["id"] for o in owners["owners"]] == ["ka", "kb"]
