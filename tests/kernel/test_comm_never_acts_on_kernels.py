"""No comm request shuts down, interrupts or restarts a kernel (issue 28, a case that held and stays tested).

A real `jupyter server` with the extension and two real kernels on the simulated GPU: kernel B holds 30 GiB and runs
a long cell; kernel A runs out of memory, so its report names B's notebook and offers (in the front end, after
asking) to shut B down, and A now knows its server's token; a second error's report offers a remedy. Over A's comm,
as the sidebar talks to it, every request type of the protocol is sent, each also with fields that name kernel
actions and B's id, then requests named after the kernel API's own actions, then the remedy of A's last report.
Afterwards: A is the same process with its variables, B's cell ran to its end uninterrupted, both kernels are still
the server's, and the server's log shows no shutdown, interrupt or restart."""

from __future__ import annotations

import json
import time
import uuid
from functools import partial
from pathlib import Path
from typing import Any

from server_kernels import api, kernel_client, kernel_pid, run

from mgenv_jupyter.protocol import PROTOCOL_VERSION, REQUEST_TYPES

from lab_server import OOM_MESSAGE, running_lab

MESSAGE = (
    "CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 40.00 GiB of which 512.00 MiB is "
    "free. Including non-PyTorch memory, this process has 9.00 GiB memory in use. Of the allocated memory 8.80 GiB is "
    "allocated by PyTorch, and 100.00 MiB is reserved by PyTorch but unallocated.")
CONFIG = {"ServerApp": {"jpserver_extensions": {"mgenv_jupyter.server": True}}}
ACTIONS = ("shutdown", "shutdown_request", "interrupt", "interrupt_request", "restart", "restart_request", "kill",
           "exit", "delete")


def scenario(holders: list[tuple[int, str]]) -> str:
    return json.dumps({"name": "comm-actions", "step_seconds": 0.05, "devices": [{
        "name": "NVIDIA A100-SXM4-40GB", "total": "40GB", "reserved": "512MB",
        "kernel": {"start": "1GB", "step": "1GB", "max": "9GB"},
        "other_processes": [{"pid": pid, "bytes": size} for pid, size in holders]}]})


# What a cell prints and displays, as text; the cells that fail on purpose are read too.
printed = partial(run, displays=True, ok=False)


def requests_naming_actions(holder_id: str) -> list[dict[str, Any]]:
    """A valid request of every type the protocol has, each with fields that name kernel actions and the holder."""
    valid: dict[str, dict[str, Any]] = {
        "hello": {"language": "en"},
        "set": {"assignments": {"MGE_DEFAULT_DEVICE": "cpu0"}, "source": "sidebar", "force": False, "env_only": False},
        "unset": {"names": ["MGE_DEFAULT_DEVICE"], "source": "sidebar"},
        "refresh": {}, "verify": {}, "free": {},
        "memory": {"on": True, "interval": 0.5},
        "history": {"before": None, "limit": 10},
        "profile": {"profile": {"MGE_DEFAULT_DEVICE": "cpu0"}, "approve": True, "apply": True},
        "remedy": {"report_id": holder_id, "remedy_id": holder_id},
        "memtrace": {"on": True},
        "sweep_cell": {"name": "MGE_DEFAULT_DEVICE"},
    }
    assert set(valid) == set(REQUEST_TYPES), "a new request type: add it here"
    naming = {**{action: True for action in ACTIONS}, "kernel_id": holder_id, "kernel": holder_id}
    messages = []
    for kind, fields in valid.items():
        messages.append({**fields, "type": kind})
        messages.append({**fields, **naming, "type": kind})
    messages.append({"type": "memory", "on": False, "interval": 0.5})
    messages += [{"type": action, "kernel_id": holder_id} for action in ACTIONS]
    return [{"v": PROTOCOL_VERSION, "id": uuid.uuid4().hex, **m} for m in messages]


def test_no_comm_request_shuts_down_interrupts_or_restarts_a_kernel(tmp_path: Path):
    gpu = tmp_path / "gpu.json"
    gpu.write_text(scenario([]))
    flag = tmp_path / "b-may-finish"
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "jupyter_server_config.json").write_text(json.dumps(CONFIG))
    with running_lab(tmp_path, env={"MGENV_SIMULATE_GPU": str(gpu)}, app="server") as lab:
        for name in ("holder.ipynb", "a.ipynb"):
            (lab.root / name).write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4,
                                                     "nbformat_minor": 5}))
        ids = {name: api(lab, "POST", "api/sessions", {"path": name, "type": "notebook", "name": name,
                                                       "kernel": {"name": "python3"}})["kernel"]["id"]
               for name in ("holder.ipynb", "a.ipynb")}
        holder, failing = ids["holder.ipynb"], ids["a.ipynb"]
        pids = {kernel: kernel_pid(kernel) for kernel in ids.values()}
        gpu.write_text(scenario([(pids[holder], "30GB")]))

        b = kernel_client(lab, holder)
        long_cell = b.execute(f"import os, time\nwhile not os.path.exists({str(flag)!r}):\n    time.sleep(0.05)\n"
                              "print('B ran to its end')")
        a = kernel_client(lab, failing)
        printed(a, "%load_ext mgenv_jupyter\nkept = object()\nkept_id = id(kept)\n"
                   "OutOfMemoryError = type('OutOfMemoryError', (RuntimeError,), {'__module__': 'torch'})")
        report = printed(a, f"raise OutOfMemoryError({MESSAGE!r})")
        assert "is the kernel of notebook holder.ipynb on this server" in report, report
        # A second error whose report offers remedies (fragmentation): the comm's hello brings it, with their ids.
        printed(a, f"raise OutOfMemoryError({OOM_MESSAGE!r})")

        comm_id = uuid.uuid4().hex
        a.session.send(a.shell_channel.socket, a.session.msg(
            "comm_open", {"comm_id": comm_id, "target_name": "mgenv_jupyter", "data": {}}))
        sent = requests_naming_actions(holder)
        for message in sent:
            a.session.send(a.shell_channel.socket, a.session.msg("comm_msg", {"comm_id": comm_id, "data": message}))
        # Then the remedies of A's own report, each with the holder's id beside it, and a last request: the comm
        # answers in order, so its reply comes after every other.
        replies: dict[str, dict[str, Any]] = {}
        last = {"v": PROTOCOL_VERSION, "id": "last", "type": "refresh"}
        remedies_sent = False
        deadline = time.time() + 120
        while "last" not in replies:
            assert time.time() < deadline, f"answered {len(replies)} of {len(sent)} requests"
            msg = a.get_iopub_msg(timeout=deadline - time.time())
            data = msg["content"].get("data", {})
            if msg["msg_type"] != "comm_msg" or msg["content"].get("comm_id") != comm_id:
                continue
            if isinstance(data.get("reply_to"), str):
                replies[data["reply_to"]] = data
            if data.get("type") == "oom" and not remedies_sent:
                remedies_sent = True
                for remedy in data["report"]["remedies"]:
                    a.session.send(a.shell_channel.socket, a.session.msg("comm_msg", {"comm_id": comm_id, "data": {
                        "v": PROTOCOL_VERSION, "id": uuid.uuid4().hex, "type": "remedy", "kernel_id": holder,
                        "shutdown": True, "report_id": data["report"]["id"], "remedy_id": remedy["id"]}}))
                a.session.send(a.shell_channel.socket, a.session.msg("comm_msg", {"comm_id": comm_id,
                                                                                  "data": last}))
        assert remedies_sent, "the sidebar's hello did not bring A's out-of-memory report"
        assert len(replies) > len(sent) + 1, "the report's remedies were sent and answered too"
        # Every request was answered with its id.
        assert [m["type"] for m in sent if m["id"] not in replies] == []
        for message in sent[-len(ACTIONS):]:
            assert replies[message["id"]]["type"] == "error", message

        # A is the same process, with its variables: not restarted, not shut down.
        assert kernel_pid(failing) == pids[failing]
        assert printed(a, "print(id(kept) == kept_id)").strip() == "True"
        # B's long cell was not interrupted: it ends when told to, and ends well.
        flag.touch()
        reply = b.get_shell_msg(timeout=60)
        while reply["parent_header"].get("msg_id") != long_cell:
            reply = b.get_shell_msg(timeout=60)
        assert reply["content"]["status"] == "ok", reply["content"]
        assert kernel_pid(holder) == pids[holder]
        assert {k["id"] for k in api(lab, "GET", "api/kernels")} == set(ids.values())
        a.stop_channels()
        b.stop_channels()
        log = lab.log.read_text()
    for word in ("Kernel shutdown", "Kernel interrupted", "Kernel restarted"):
        assert word not in log, word
