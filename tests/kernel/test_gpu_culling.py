"""GPU-aware culling on a real `jupyter server` (server/_culler.py), configured on its command line as a hub's
single-user arguments would be: three notebooks share the server's simulated GPU; the one idle since its last cell and
holding 30 GiB is told on the server's event bus, shown in the GPU view with the moment of its shutdown, then shut
down, and the server's log says why; the one running a cell and the one holding little are spared."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from tornado.websocket import websocket_connect

from mgenv_jupyter.protocol._culling import CULLING_EVENTS
from mgenv_jupyter.protocol._gpus import GPUS_PATH

from lab_server import TOKEN, Lab, running_lab

CONFIG = {"ServerApp": {"jpserver_extensions": {"mgenv_jupyter.server": True}}}
GIB = 2**30


def scenario(notebooks: dict[str, str]) -> dict[str, Any]:
    # Each kernel holds the scenario's start (1 GiB) unless its notebook has a share of its own.
    return {"name": "culling", "step_seconds": 0.05, "devices": [{
        "name": "NVIDIA A100-SXM4-40GB", "total": "80GB", "reserved": "512MB",
        "kernel": {"start": "1GB", "step": "0GB", "max": "1GB"}, "notebooks": notebooks, "other_processes": []}]}


def get(lab: Lab, path: str) -> Any:
    with urllib.request.urlopen(f"{lab.url}/{path}?token={TOKEN}", timeout=30) as response:
        return json.load(response)


def start_session(lab: Lab, path: str) -> str:
    body = json.dumps({"path": path, "type": "notebook", "name": path, "kernel": {"name": "python3"}}).encode()
    request = urllib.request.Request(f"{lab.url}/api/sessions?token={TOKEN}", data=body, method="POST")
    with urllib.request.urlopen(request, timeout=60) as response:
        return str(json.load(response)["kernel"]["id"])


def execute(lab: Lab, kernel_id: str, code: str, wait: bool = True) -> None:
    """A cell a user runs (a non-silent execute request) through the server's kernel websocket, as a front end
    sends it; with `wait`, until the kernel says it is idle again."""

    async def run() -> None:
        ws = await websocket_connect(f"{lab.url.replace('http', 'ws')}/api/kernels/{kernel_id}/channels"
                                     f"?token={TOKEN}")
        msg_id = f"cell-{time.monotonic_ns()}"
        ws.write_message(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "", "session": "test",
                       "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "channel": "shell",
            "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}))
        deadline = time.monotonic() + 60
        while wait and time.monotonic() < deadline:
            message = json.loads(await asyncio.wait_for(ws.read_message(), 60))
            if (message.get("msg_type") == "status" and message["content"].get("execution_state") == "idle"
                    and message.get("parent_header", {}).get("msg_id") == msg_id):
                break
        if not wait:  # the request must reach the kernel before the socket closes
            while time.monotonic() < deadline:
                message = json.loads(await asyncio.wait_for(ws.read_message(), 60))
                if message.get("msg_type") == "execute_input":
                    break
        ws.close()

    asyncio.run(run())


class Events:
    """The server's event bus as a front end hears it (`/api/events/subscribe`), collected on a thread of its own."""

    def __init__(self, lab: Lab) -> None:
        self.url = f"{lab.url.replace('http', 'ws')}/api/events/subscribe?token={TOKEN}"
        self.heard: list[dict[str, Any]] = []
        self.listening = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=lambda: asyncio.run(self._listen()), daemon=True)
        self.thread.start()
        assert self.listening.wait(30), "the event stream did not open"

    async def _listen(self) -> None:
        ws = await websocket_connect(self.url)
        self.listening.set()
        while not self.stop.is_set():
            try:
                message = await asyncio.wait_for(ws.read_message(), 0.2)
            except asyncio.TimeoutError:
                continue
            if message is None:
                break
            self.heard.append(json.loads(message))
        ws.close()

    def culling(self) -> list[tuple[str, str]]:
        return [(e["action"], e["notebooks"][0]) for e in self.heard if e.get("schema_id") == CULLING_EVENTS]

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)


def wait_until(check: Any, what: str, seconds: float = 60) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"waited {seconds} s for {what}")


def test_an_idle_kernel_holding_gpu_memory_is_told_then_shut_down_and_the_others_are_spared(tmp_path: Path):
    gpu = tmp_path / "gpu.json"
    gpu.write_text(json.dumps(scenario({"big.ipynb": "30GB", "busy.ipynb": "20GB"})))
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "jupyter_server_config.json").write_text(json.dumps(CONFIG))
    culling = ("--GpuCuller.idle_after=3", "--GpuCuller.notice=3", "--GpuCuller.interval=0.5",
               f"--GpuCuller.min_bytes={4 * GIB}")
    with running_lab(tmp_path, env={"MGENV_SIMULATE_GPU": str(gpu)}, app="server", args=culling) as lab:
        events = Events(lab)
        try:
            big, busy, small = (start_session(lab, f"{name}.ipynb") for name in ("big", "busy", "small"))
            execute(lab, busy, "import time\ntime.sleep(60)", wait=False)  # running a cell through it all
            execute(lab, small, "x = 1")
            execute(lab, big, "x = 1")  # its last cell: idleness counts from its end
            told = wait_until(lambda: [k for k in get(lab, GPUS_PATH)["kernels"] if k["id"] == big and k["cull_at"]],
                              "the GPU view to show when big.ipynb's kernel will be shut down")
            wait_until(lambda: big not in {k["id"] for k in get(lab, "api/kernels")}, "big.ipynb's kernel to go")
            view = get(lab, GPUS_PATH)
            time.sleep(2)  # the scenario: more looks of the culler, which must spare the other two
            alive = {k["id"] for k in get(lab, "api/kernels")}
        finally:
            events.close()
        log = lab.log.read_text()
    assert told[0]["notebooks"] == ["big.ipynb"]
    assert view["culling"] == {"idle_after": 3.0, "notice": 3.0, "min_bytes": 4 * GIB}
    assert {busy, small} <= alive, "a kernel running a cell, or holding less than min_bytes, was shut down"
    assert events.culling() == [("notice", "big.ipynb"), ("culled", "big.ipynb")], events.heard
    culled = [e for e in events.heard if e.get("action") == "culled"][0]
    assert culled["kernel_id"] == big and culled["held_bytes"] == 30 * GIB and culled["idle_seconds"] >= 3
    assert f"shut down kernel {big} (big.ipynb): it held 30 GiB of GPU memory and had run no cell for" in log
    assert "GpuCuller.idle_after = 3 s" in log
