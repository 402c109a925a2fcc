"""A kernel's idleness is the user's (server/_activity.py): time since the last cell a user ran, read from the
kernel's IOPub messages as the kernel signs them. Comm messages (a live chart's batches, the sidebar's requests),
silent requests and kernel info never count; a running cell has no idle time; a restart starts over. The messages
here are real Jupyter messages signed with a session key and fed through the same path a subscription feeds."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

from jupyter_client.session import Session

from mgenv_jupyter.server._activity import KERNEL_ACTIONS, Activity, KernelActivity

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def tick(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


class Stream:
    """Stands in for the ZMQ stream of a kernel's IOPub channel: what it is given to call back with messages."""

    def __init__(self) -> None:
        self.receive: Any = None
        self.closed = False

    def on_recv(self, callback: Any) -> None:
        self.receive = callback

    def close(self) -> None:
        self.closed = True


class Kernels:
    def __init__(self, key: bytes) -> None:
        self.streams: dict[str, Stream] = {}
        self.session = Session(key=key)

    def get_kernel(self, kernel_id: str) -> Any:
        def connect_iopub() -> Stream:
            self.streams[kernel_id] = Stream()
            return self.streams[kernel_id]

        return SimpleNamespace(connect_iopub=connect_iopub, session=self.session)


def publish(kernels: Kernels, kernel_id: str, msg_type: str, content: dict[str, Any], parent: dict[str, Any]) -> None:
    """The kernel publishes one IOPub message (signed with its session's key) to the server's subscription."""
    message = kernels.session.msg(msg_type, content, parent=parent)
    parts = kernels.session.serialize(message, ident=[msg_type.encode()])
    kernels.streams[kernel_id].receive(parts)


def request(kernels: Kernels, msg_type: str) -> dict[str, Any]:
    return kernels.session.msg(msg_type, {})


def run_cell(kernels: Kernels, kernel_id: str, clock: Clock, seconds: float) -> None:
    cell = request(kernels, "execute_request")
    publish(kernels, kernel_id, "status", {"execution_state": "busy"}, cell)
    publish(kernels, kernel_id, "execute_input", {"code": "x = 1", "execution_count": 1}, cell)
    clock.tick(seconds)
    publish(kernels, kernel_id, "status", {"execution_state": "idle"}, cell)


def chart_batch(kernels: Kernels, kernel_id: str) -> None:
    """A live chart's batch: the kernel handles the front end's comm message (busy, comm_msg, idle) and sends data."""
    comm = request(kernels, "comm_msg")
    publish(kernels, kernel_id, "status", {"execution_state": "busy"}, comm)
    publish(kernels, kernel_id, "comm_msg", {"comm_id": "c", "data": {"type": "memory.batch"}}, comm)
    publish(kernels, kernel_id, "status", {"execution_state": "idle"}, comm)


def make(key: bytes = b"secret") -> tuple[KernelActivity, Kernels, Clock]:
    kernels = Kernels(key)
    clock = Clock()
    return KernelActivity(kernels, clock=clock), kernels, clock


def test_a_charts_messages_never_count_and_idle_counts_from_the_last_cell():
    activity, kernels, clock = make()
    activity.watch("k", "start")
    run_cell(kernels, "k", clock, 2.0)
    ended = clock.now
    for _ in range(120):  # a minute of a chart's batches, two a second
        clock.tick(0.5)
        chart_batch(kernels, "k")
    record = activity.get("k")
    assert record is not None and record.last_cell_end == ended
    assert record.idle(clock.now) == (60.0, "cell")


def test_a_running_cell_has_no_idle_time_and_says_for_how_long():
    activity, kernels, clock = make()
    activity.watch("k", "start")
    cell = request(kernels, "execute_request")
    publish(kernels, "k", "execute_input", {"code": "train()", "execution_count": 3}, cell)
    clock.tick(30)
    chart_batch(kernels, "k")  # comm traffic meanwhile ends nothing
    record = activity.get("k")
    assert record is not None and record.idle(clock.now) == (None, None)
    assert record.running_seconds(clock.now) == 30.0
    publish(kernels, "k", "status", {"execution_state": "idle"}, cell)
    assert record.idle(clock.now) == (0.0, "cell") and record.running is None


def test_silent_requests_and_kernel_info_are_not_a_users_cell():
    """The sidebar's `%load_ext` is a silent execute request: the kernel announces no execute_input for it."""
    activity, kernels, clock = make()
    activity.watch("k", "start")
    clock.tick(90)
    for kind in ("execute_request", "kernel_info_request", "complete_request"):
        silent = request(kernels, kind)
        publish(kernels, "k", "status", {"execution_state": "busy"}, silent)
        publish(kernels, "k", "status", {"execution_state": "idle"}, silent)
    record = activity.get("k")
    assert record is not None and record.idle(clock.now) == (90.0, "start")


def test_a_message_signed_with_another_key_changes_nothing():
    activity, kernels, clock = make(b"the kernel's key")
    activity.watch("k", "start")
    forger = Session(key=b"not the key")
    cell = forger.msg("execute_request", {})
    kernels.streams["k"].receive(forger.serialize(forger.msg("execute_input", {"code": ""}, parent=cell)))
    record = activity.get("k")
    assert record is not None and record.running is None


def test_a_restart_starts_over_a_shutdown_forgets_and_a_kernel_seen_late_says_so():
    activity, kernels, clock = make()
    activity.watch("k", "start")
    run_cell(kernels, "k", clock, 1.0)
    clock.tick(10)
    import asyncio

    asyncio.run(activity.on_kernel_action(None, KERNEL_ACTIONS, {"action": "restart", "kernel_id": "k",
                                                                 "status": "success"}))
    record = activity.get("k")
    assert record is not None and record.last_cell_end is None and record.idle(clock.now) == (0.0, "start")
    asyncio.run(activity.on_kernel_action(None, KERNEL_ACTIONS, {"action": "shutdown", "kernel_id": "k",
                                                                 "status": "success"}))
    assert activity.get("k") is None and kernels.streams["k"].closed
    activity.watch("late")  # listed by the view before any event named it
    clock.tick(5)
    late = activity.get("late")
    assert late is not None and late.idle(clock.now) == (5.0, "watch")


def test_a_kernel_without_channels_is_not_watched_and_not_asked_again():
    asked: list[str] = []

    class Remote:
        def get_kernel(self, kernel_id: str) -> Any:
            asked.append(kernel_id)
            raise KeyError(kernel_id)

    activity = KernelActivity(Remote())
    activity.watch("r")
    activity.watch("r")
    assert activity.get("r") is None and asked == ["r"]


def test_activity_from_a_status_of_a_restarting_kernel_ends_a_running_cell():
    record = Activity(T0, "start")
    record.observe("execute_input", "execute_request", "m", None, T0)
    record.observe("status", None, None, "restarting", T0 + timedelta(seconds=3))
    assert record.running is None
