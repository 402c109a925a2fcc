"""When each of the server's kernels last ran a cell that a user sent: the idleness the GPU view shows.

The server's own `last_activity` moves with every message a kernel publishes, and its execution state turns busy for
every request, a comm message included: a notebook that shows a live chart (its batches are comm messages, several a
second) or is followed by the sidebar would always read "idle for 0 s", and the view is for finding the notebook left
open since yesterday. Here only a user's request counts: an `execute_request` that is not silent, which the kernel
announces on its IOPub channel as `execute_input` before it runs it and ends with a `status: idle` whose parent is
that request. That is what a kernel says of every cell it runs, whatever front end sent it and whether or not our
extension is loaded in it; silent requests (a front end's own, such as the sidebar's `%load_ext`), comm messages,
completions and kernel info requests never announce themselves so. The messages are signed with the kernel's key,
so only the kernel (and this server) can send them, as for the server's own activity tracking.

Each kernel gets one IOPub subscription of its own from its start (the server's kernel action events), or from the
moment the view first lists it where the server emits no such events; its record says which ("start" or "watch").
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal

log = logging.getLogger(__name__)

KERNEL_ACTIONS = "https://events.jupyter.org/jupyter_server/kernel_actions/v1"

# What an idle time counts from: the end of the kernel's last cell, its start (no cell run since), or the moment the
# server began watching it (no cell seen since; a kernel started before this extension could listen).
IdleSince = Literal["cell", "start", "watch"]


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Activity:
    """One kernel's cells as its IOPub channel told them: the request running now (its message id and since when) and
    when the last one ended; `since` is when watching began and `origin` whether that was the kernel's start."""

    since: datetime
    origin: Literal["start", "watch"]
    running: str | None = None
    running_since: datetime | None = None
    last_cell_end: datetime | None = None

    def idle(self, now: datetime) -> tuple[float | None, IdleSince | None]:
        """Seconds since the last cell ended (or since watching began, with no cell seen), and what they count from;
        (None, None) while a cell runs."""
        if self.running is not None:
            return None, None
        if self.last_cell_end is not None:
            return max(0.0, (now - self.last_cell_end).total_seconds()), "cell"
        return max(0.0, (now - self.since).total_seconds()), "start" if self.origin == "start" else "watch"

    def running_seconds(self, now: datetime) -> float | None:
        if self.running_since is None:
            return None
        return max(0.0, (now - self.running_since).total_seconds())

    def observe(self, msg_type: str, parent_type: str | None, parent_id: str | None, state: str | None,
                now: datetime) -> None:
        """Take one IOPub message into account (its type, its parent request's type and id, and a status message's
        execution state)."""
        if msg_type == "execute_input" and parent_type == "execute_request" and parent_id:
            self.running, self.running_since = parent_id, now
        elif msg_type == "status":
            if state == "idle" and parent_id is not None and parent_id == self.running:
                self.running, self.running_since, self.last_cell_end = None, None, now
            elif state in ("starting", "restarting", "dead"):
                self.running, self.running_since = None, None


class KernelActivity:
    """Every kernel's `Activity`, kept from the IOPub messages of a subscription of our own per kernel."""

    def __init__(self, kernel_manager: Any, clock: Callable[[], datetime] = utcnow) -> None:
        self.kernel_manager = kernel_manager
        self.clock = clock
        self._records: dict[str, Activity] = {}
        self._streams: dict[str, Any] = {}
        self._unwatchable: set[str] = set()  # kernels without an IOPub channel to subscribe to (not local ones)

    def get(self, kernel_id: str) -> Activity | None:
        return self._records.get(kernel_id)

    def watch(self, kernel_id: str, origin: Literal["start", "watch"] = "watch") -> None:
        """Subscribe to the kernel's IOPub messages (once; a restarted kernel starts its record over)."""
        if kernel_id in self._streams:
            if origin == "start":
                self._records[kernel_id] = Activity(self.clock(), "start")
            return
        if kernel_id in self._unwatchable:
            return
        try:
            kernel = self.kernel_manager.get_kernel(kernel_id)
            stream = kernel.connect_iopub()
        except Exception:  # gone meanwhile, or not a kernel with channels here: its idleness stays unknown
            log.debug("mgenv_jupyter: cannot watch kernel %s", kernel_id, exc_info=True)
            self._unwatchable.add(kernel_id)
            return
        self._records[kernel_id] = Activity(self.clock(), origin)
        self._streams[kernel_id] = stream
        # A session of our own, as the server's activity tracking has: the signatures it remembers are not the
        # kernel's session's, which the server's channels check for replays.
        from jupyter_client.session import Session

        session = Session(config=kernel.session.config, key=kernel.session.key)
        stream.on_recv(lambda parts: self._receive(kernel_id, session, parts))

    def forget(self, kernel_id: str) -> None:
        self._records.pop(kernel_id, None)
        self._unwatchable.discard(kernel_id)
        stream = self._streams.pop(kernel_id, None)
        if stream is not None:
            try:
                stream.close()
            except Exception:
                log.debug("mgenv_jupyter: closing the watch of kernel %s failed", kernel_id, exc_info=True)

    def close(self) -> None:
        for kernel_id in list(self._streams):
            self.forget(kernel_id)

    async def on_kernel_action(self, logger: Any, schema_id: str, data: dict[str, Any]) -> None:
        """The server's kernel action events: watch a kernel from its start, start over at a restart, forget it when
        it is shut down."""
        kernel_id, action = data.get("kernel_id"), data.get("action")
        if not isinstance(kernel_id, str) or data.get("status", "success") != "success":
            return
        if action in ("start", "restart"):
            self.watch(kernel_id, "start")
        elif action == "shutdown":
            self.forget(kernel_id)

    def _receive(self, kernel_id: str, session: Any, parts: list[Any]) -> None:
        record = self._records.get(kernel_id)
        if record is None:
            return
        try:
            _, fed = session.feed_identities(parts)
            message = session.deserialize(fed, content=False)
            msg_type = message["header"]["msg_type"]
            if msg_type not in ("execute_input", "status"):
                return
            parent = message.get("parent_header") or {}
            state = None
            if msg_type == "status":
                state = session.deserialize(fed)["content"].get("execution_state")
            record.observe(msg_type, parent.get("msg_type"), parent.get("msg_id"), state, self.clock())
        except Exception:  # a message we cannot read changes nothing
            log.debug("mgenv_jupyter: an IOPub message of kernel %s was not read", kernel_id, exc_info=True)
