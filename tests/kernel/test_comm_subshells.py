"""Our comms answer a front end on whichever subshell it asks, in a real ipykernel 7 kernel driven through
jupyter_client as JupyterLab 4.4+ and Notebook 7 drive it (issue 36, point 3; mgenv_jupyter/comms/_routing.py).

A front end sends a comm's messages on a subshell of its own, and deletes it when its last comm of that target goes
(a page loaded again makes new ones). A comm answered on subshell A; A is deleted; a message on a new subshell B, and
one on the main shell, must each be answered. Before the fix ipykernel handled every message to the comm on A, the
subshell of the last request the comm had sent under, and dropped both ("Cannot handle comm_msg …: Unknown
subshell_id A"): the reloaded chart in the browser had no history (tests/browser/test_browser_chart_reload.py), and
the sidebar's requests went unanswered the same way."""

from __future__ import annotations

import queue
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

from mgenv_jupyter.protocol import COMM_TARGET, PROTOCOL_VERSION

CHART_CELL = "%load_ext mgenv_jupyter\nchart = %memchart\nchart"
HELLO = {"method": "custom", "content": {"type": "memory.hello", "hosted": True}}  # as a widget's custom message


class Kernel:
    def __init__(self, client: Any) -> None:
        self.client = client

    def control(self, msg_type: str, content: dict) -> dict:
        msg = self.client.session.msg(msg_type, content)
        self.client.control_channel.send(msg)
        reply = self.reply(self.client.control_channel, msg)
        assert reply["content"]["status"] == "ok", reply["content"]
        return reply["content"]

    @staticmethod
    def reply(channel: Any, request: dict, seconds: float = 30) -> dict:
        deadline = time.monotonic() + seconds
        while True:
            message = channel.get_msg(timeout=max(deadline - time.monotonic(), 0.01))
            if message["parent_header"].get("msg_id") == request["header"]["msg_id"]:
                return message

    def chart_comm(self) -> str:
        """Run the chart's cell to its end (a front end draws the chart, and says hello, once the cell shows it); the
        comm id of the chart it shows."""
        found = []

        def opened(message: dict) -> None:
            state = message["content"].get("data", {}).get("state", {})
            if message["msg_type"] == "comm_open" and str(state.get("_anywidget_id", "")).endswith("MemoryChart"):
                found.append(str(message["content"]["comm_id"]))

        reply = self.client.execute_interactive(CHART_CELL, timeout=60, output_hook=opened)
        assert reply["content"]["status"] == "ok" and found, reply["content"]
        return found[0]

    def ask(self, comm_id: str, data: dict, subshell_id: str | None, answer: str) -> str:
        """Send `data` to a comm on a subshell (None: the main shell); `answer` when the comm answered with a message
        of that type, else the kernel's error reply."""
        msg = self.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        if subshell_id is not None:
            msg["header"]["subshell_id"] = subshell_id
        self.client.shell_channel.send(msg)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:  # the kernel's refusal comes as a reply on the shell channel; the comm's answer on IOPub
                refused = self.client.shell_channel.get_msg(timeout=0.05)
            except queue.Empty:
                refused = None
            if refused and refused["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                return f"{refused['content'].get('ename')}: {refused['content'].get('evalue')}"
            try:
                reply = self.client.get_iopub_msg(timeout=0.05)
            except queue.Empty:
                continue
            sent = reply["content"].get("data", {})
            sent = sent.get("content", sent) if sent.get("method") == "custom" else sent  # a widget's custom message
            if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"] and sent.get("type") == answer:
                return answer
        return "no answer in 30 s"

    def open_sidebar(self) -> str:
        """Open a comm to the sidebar's target, as the Framework Env panel does; its id."""
        comm_id = uuid.uuid4().hex
        msg = self.client.session.msg("comm_open", {"comm_id": comm_id, "target_name": COMM_TARGET, "data": {}})
        self.client.shell_channel.send(msg)
        deadline = time.monotonic() + 30
        while True:  # until the kernel is idle again after it: the comm exists then (a subshell does not wait for it)
            status = self.reply(self.client.iopub_channel, msg, deadline - time.monotonic())
            if status["content"].get("execution_state") == "idle":
                return comm_id

    def answers_after_a_subshell_goes(self, comm_id: str, data: dict, answer: str) -> dict[str, str]:
        """A front end asks on its subshell A, A is deleted (the page goes), and another asks on a new subshell B
        and on the main shell: what each of these two asks got."""
        first = self.control("create_subshell_request", {})["subshell_id"]
        assert self.ask(comm_id, data, first, answer) == answer
        self.control("delete_subshell_request", {"subshell_id": first})
        second = self.control("create_subshell_request", {})["subshell_id"]
        return {"new subshell": self.ask(comm_id, data, second, answer),
                "main shell": self.ask(comm_id, data, None, answer)}


@pytest.fixture(scope="module")
def kernel() -> Iterator[Kernel]:
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        yield Kernel(client)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_a_chart_answers_its_hello_on_a_new_subshell_after_the_one_it_answered_on_is_gone(kernel):
    answers = kernel.answers_after_a_subshell_goes(kernel.chart_comm(), HELLO, "memory.snapshot")
    assert answers == {"new subshell": "memory.snapshot", "main shell": "memory.snapshot"}


def test_the_sidebar_answers_on_a_new_subshell_after_the_one_it_answered_on_is_gone(kernel):
    hello = {"v": PROTOCOL_VERSION, "id": "1", "type": "hello", "language": "en"}
    answers = kernel.answers_after_a_subshell_goes(kernel.open_sidebar(), hello, "catalog")
    assert answers == {"new subshell": "catalog", "main shell": "catalog"}
