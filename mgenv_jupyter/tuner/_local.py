"""One point in a fresh local kernel, through jupyter_client: start it with the point's variables in its environment,
attach the probe, run the setup cells and the measured cell as the kernel's own cells, read the probe's report, end
the kernel.

The measured cell and the setup cells go to the kernel exactly as the user wrote them (`execute_request`s, as a
notebook sends them); the probe's three calls are fixed code sent as silent requests. The point's parameters travel
in its environment, never as code.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..catalog._secrets import redact
from ._child import NAMES_ENV, REPORT_ENV
from ._kernels import KernelChoice, exit_signal, point_kernel_manager, stop_point
from ._point import MAX_PRINTED, Failure, Outcome, Phase, PointResult, failed_point, from_report
from ._replay import SetupPlan

START_SECONDS = 120.0  # a kernel that has not answered by then counts as not started
_ATTACH = "import mgenv_jupyter.tuner._child as _mgenv_sweep_probe\n_mgenv_sweep_probe.attach()"
_BEGIN = "_mgenv_sweep_probe.begin()"
_END = "_mgenv_sweep_probe.end()"
_TICK = 0.05
# The point's kernel keeps no history file: its replayed cells are not the user's to find in %history later.
_KERNEL_ARGUMENTS = ["--HistoryManager.hist_file=:memory:"]
_INHERITED_OUT = ("JPY_PARENT_PID", "JPY_SESSION_NAME", "MGENV_SWEEP_REPORT", "MGENV_SWEEP_VARIABLES")


@dataclass(frozen=True)
class Job:
    """A point to run: its number, its values as given and as its environment gets them, and its GPU (None: not
    pinned)."""

    index: int
    values: Mapping[str, str]
    environment: Mapping[str, str]
    gpu: int | None = None


@dataclass(frozen=True)
class Measure:
    """What every point runs and how long it may take."""

    code: str
    setup: SetupPlan
    repeat: int
    timeout: float | None
    setup_timeout: float | None


class _Ended(Exception):
    """The point's kernel stopped answering: `outcome` says why (timeout, crashed, not run)."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.value)
        self.outcome = outcome


class _Printed:
    """What the measured cell printed: its last MAX_PRINTED characters."""

    def __init__(self) -> None:
        self.text = ""
        self.cut = False

    def add(self, text: str) -> None:
        self.text += text
        if len(self.text) > MAX_PRINTED:
            self.text, self.cut = self.text[-MAX_PRINTED:], True


def point_environment(job: Job, report: Path, names: list[str]) -> dict[str, str]:
    """The point kernel's environment: the sweeping kernel's, as the session left it, with the point's values, the
    probe's two parameters and, for a GPU slot, CUDA_VISIBLE_DEVICES."""
    env = {name: value for name, value in os.environ.items() if name not in _INHERITED_OUT}
    env.update(job.environment)
    env[REPORT_ENV] = str(report)
    env[NAMES_ENV] = ",".join(names)
    if job.gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = str(job.gpu)
    return env


def run_local_point(job: Job, measure: Measure, choice: KernelChoice, workdir: Path,
                    cancelled: threading.Event) -> PointResult:
    """Run `job` in a fresh kernel of `choice`; every way it can end becomes the point's outcome."""
    report_path = workdir / f"point-{job.index}.json"
    log_path = workdir / f"point-{job.index}.log"
    names = list(job.environment)
    overrides = {*names, *(["CUDA_VISIBLE_DEVICES"] if job.gpu is not None else [])}  # the point's, not the spec's
    manager = point_kernel_manager(choice, ipc=workdir / f"p{job.index}", overrides=overrides)
    printed = _Printed()
    client = None
    phase = Phase.START
    # The kernel's own output (its start-up warnings, a fatal error's trace) goes to a file of its own, not into the
    # sweeping kernel's cell: a crashed point's failure quotes its end.
    log = open(log_path, "wb")  # noqa: SIM115 - closed in the finally below, after the kernel is gone
    try:
        manager.start_kernel(env=point_environment(job, report_path, names), extra_arguments=_KERNEL_ARGUMENTS,
                             stdout=log, stderr=log)
        client = manager.blocking_client()
        client.start_channels()
        _wait_ready(client, manager, cancelled)
        _run(client, manager, _ATTACH, None, cancelled, silent=True)
        phase = Phase.SETUP
        deadline = _deadline(measure.setup_timeout)
        for cell in measure.setup.cells:
            if _run(client, manager, cell.code, deadline, cancelled)["status"] != "ok":
                break
        else:
            _run(client, manager, _BEGIN, None, cancelled, silent=True)
            phase = Phase.CELL
            deadline = _deadline(measure.timeout)
            for _ in range(measure.repeat):
                if _run(client, manager, measure.code, deadline, cancelled, printed=printed)["status"] != "ok":
                    break
        if phase is not Phase.CELL:
            _run(client, manager, _BEGIN, None, cancelled, silent=True)  # so the report has a measured phase
        _run(client, manager, _END, None, cancelled, silent=True)
        report = json.loads(report_path.read_text(encoding="utf-8"))
        return from_report(job.index, job.values, job.environment, report, repeat=measure.repeat,
                           printed=printed.text, printed_cut=printed.cut, gpu=job.gpu)
    except _Ended as ended:
        failure = (Failure(signal=exit_signal(manager), message=_log_tail(log_path))
                   if ended.outcome is Outcome.CRASHED else None)
        return failed_point(job.index, job.values, job.environment, ended.outcome,
                            None if ended.outcome is Outcome.NOT_RUN else phase, failure=failure,
                            report=_partial(report_path) if phase is Phase.CELL else None,
                            printed=printed.text, printed_cut=printed.cut, gpu=job.gpu)
    except (OSError, RuntimeError, ValueError) as exc:  # the kernel's command failed, or its report is unreadable
        return failed_point(job.index, job.values, job.environment, Outcome.CRASHED, phase,
                            failure=Failure(kind=type(exc).__name__, message=redact(str(exc)[:300]),
                                            signal=exit_signal(manager)), gpu=job.gpu)
    finally:
        if client is not None:
            client.stop_channels()
        stop_point(manager)
        log.close()


def _partial(path: Path) -> dict[str, Any] | None:
    """What the probe wrote before the point ended (its values, its memory up to its last second)."""
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


LOG_TAIL = 1500


def _log_tail(path: Path) -> str | None:
    """The end of a crashed kernel's own output (a fatal error's trace says where), credentials masked."""
    try:
        with open(path, "rb") as log:
            log.seek(0, os.SEEK_END)
            log.seek(max(0, log.tell() - LOG_TAIL))
            text = log.read().decode("utf-8", "replace")
    except OSError:
        return None
    return redact(text.strip()) or None


def _deadline(seconds: float | None) -> float | None:
    return None if seconds is None else time.monotonic() + seconds


def _wait_ready(client: Any, manager: Any, cancelled: threading.Event) -> None:
    """Wait for the kernel's first answer (kernel_info), watching its process and the sweep."""
    message_id = client.kernel_info()
    deadline = time.monotonic() + START_SECONDS
    while True:
        reply = _reply(client, message_id, manager, deadline, cancelled, None)
        if reply is not None:
            return


def _run(client: Any, manager: Any, code: str, deadline: float | None, cancelled: threading.Event,
         silent: bool = False, printed: _Printed | None = None) -> dict[str, Any]:
    """Execute `code` in the point's kernel and wait for its reply (its content), watching the kernel's process,
    the deadline and the sweep; raises `_Ended` when the point cannot go on."""
    message_id = client.execute(code, silent=silent, store_history=not silent, allow_stdin=False,
                                stop_on_error=False)
    while True:
        reply = _reply(client, message_id, manager, deadline, cancelled, printed)
        if reply is not None:
            _drain(client, message_id, printed)
            return dict(reply["content"])


def _reply(client: Any, message_id: str, manager: Any, deadline: float | None, cancelled: threading.Event,
           printed: _Printed | None) -> dict[str, Any] | None:
    """The reply to `message_id` if it came within one tick; None otherwise. Output on the way is collected."""
    _collect(client, message_id, printed)
    try:
        reply = client.get_shell_msg(timeout=_TICK)
    except queue.Empty:
        reply = None
    if reply is not None and reply.get("parent_header", {}).get("msg_id") == message_id:
        return dict(reply)
    if cancelled.is_set():
        raise _Ended(Outcome.NOT_RUN)
    if not manager.is_alive():
        raise _Ended(Outcome.CRASHED)
    if deadline is not None and time.monotonic() > deadline:
        raise _Ended(Outcome.TIMEOUT)
    return None


def _collect(client: Any, message_id: str, printed: _Printed | None) -> bool:
    """Take the kernel's output messages waiting now; what the measured cell printed is kept. True once the
    kernel said it is idle after `message_id`."""
    idle = False
    while True:
        try:
            message = client.get_iopub_msg(timeout=0)
        except queue.Empty:
            return idle
        if message.get("parent_header", {}).get("msg_id") != message_id:
            continue
        kind = message.get("msg_type")
        content = message.get("content", {})
        if kind == "stream" and printed is not None:
            printed.add(str(content.get("text", "")))
        elif kind == "status" and content.get("execution_state") == "idle":
            idle = True


def _drain(client: Any, message_id: str, printed: _Printed | None) -> None:
    """After the reply: the rest of the request's output, up to the kernel's idle (at most a second)."""
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        if _collect(client, message_id, printed):
            return
        time.sleep(0.01)
