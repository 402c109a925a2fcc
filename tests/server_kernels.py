"""Talking to a real Jupyter server's kernels from a test, the way a front end does: its REST API with the test token,
a session for a notebook, and a client on a kernel's own connection file (tests/lab_server.py starts the server).

One home for what the server and kernel tiers' tests did each in their own copy: the calls differ only in what they
collect from a cell, so that is a parameter here.
"""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import psutil
from jupyter_client import BlockingKernelClient

from lab_server import TOKEN, Lab


def api(lab: Lab, method: str, path: str, body: dict | None = None, token: bool = True, timeout: float = 60) -> Any:
    """The server's JSON answer to `method path` (None for an empty answer); without `token`, as a stranger asks."""
    url = f"{lab.url}/{path}" + (f"?token={TOKEN}" if token else "")
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        text = response.read()
    return json.loads(text) if text else None


def start_session(lab: Lab, path: str) -> str:
    """A session for the notebook `path` (written empty if it is not there) on the python3 kernel: its kernel's id."""
    notebook = lab.root / path
    if not notebook.exists():
        notebook.parent.mkdir(parents=True, exist_ok=True)
        notebook.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    session = api(lab, "POST", "api/sessions", {"path": path, "type": "notebook", "name": path,
                                                "kernel": {"name": "python3"}})
    return str(session["kernel"]["id"])


def kernel_id_of(lab: Lab, notebook: str) -> str:
    """The id of the kernel of `notebook`'s session."""
    return str(next(s["kernel"]["id"] for s in api(lab, "GET", "api/sessions") if s["path"] == notebook))


def kernel_client(lab: Lab, kernel_id: str) -> BlockingKernelClient:
    """A client on the kernel's connection file, ready."""
    kc = BlockingKernelClient()
    kc.load_connection_file(str(lab.root.parent / "runtime" / f"kernel-{kernel_id}.json"))
    kc.start_channels(hb=False)  # the server watches the heartbeat; without one here wait_for_ready trusts replies
    kc.wait_for_ready(timeout=60)
    return kc


def kernel_pid(kernel_id: str) -> int:
    """The pid of the process started with the kernel's connection file."""
    deadline = time.time() + 60
    while time.time() < deadline:
        for process in psutil.process_iter(["cmdline"]):
            if any(f"kernel-{kernel_id}.json" in part for part in process.info["cmdline"] or ()):
                return int(process.pid)
        time.sleep(0.2)
    raise AssertionError(f"no process for kernel {kernel_id}")


def run(kc: BlockingKernelClient, code: str, displays: bool = False, sep: str = "", ok: bool = True) -> str:
    """What a cell prints (with `displays`, what it displays too, as text), joined by `sep`; with `ok`, the cell must
    have ended without an error."""
    texts: list[str] = []

    def hook(message: dict[str, Any]) -> None:
        content = message["content"]
        if displays and message["msg_type"] in ("display_data", "execute_result"):
            texts.append(content["data"].get("text/plain", ""))
        elif message["msg_type"] == "stream":
            texts.append(content["text"])

    reply = kc.execute_interactive(code, timeout=120, output_hook=hook)
    if ok:
        assert reply["content"]["status"] == "ok", reply["content"]
    return sep.join(texts)
