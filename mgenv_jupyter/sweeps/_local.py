"""The point runner: one point in a fresh kernel, through jupyter_client: start it with the point's variables in its
environment, attach the probe (`StartedPoint`, perhaps while an earlier point measures), then run the setup cells
and the measured cell as the kernel's own cells, read the probe's report, end the kernel (`StartedPoint.measure`).
It runs on this machine (`_schedule.py` places points on its GPUs) or on a Ray node (`_ray.py` places the point
there, and this same runner starts the kernel on that node): the rules are the same wherever a point runs.

The measured cell and the setup cells go to the kernel exactly as the user wrote them (`execute_request`s, as a
notebook sends them); the probe's three calls are fixed code sent as silent requests. The point's parameters travel
in its environment, never as code.

Whatever the point does, reading it is bounded: each tick takes at most COLLECT_MOST messages before the deadline and
the sweep's cancel are checked; its sockets queue at most QUEUED messages of at most MESSAGE_MOST bytes (more is
dropped, never held); its kernel's own output is a pipe of which a thread keeps the last LOG_TAIL bytes.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import threading
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..catalog._secrets import redact
from ._child import NAMES_ENV, REPORT_ENV, WARM_ENV
from ._kernels import KernelChoice, exit_signal, point_kernel_manager, stop_point
from ._point import MAX_PRINTED, Failure, Outcome, Phase, PointResult, failed_point, from_report
from ._replay import SetupPlan

START_SECONDS = 120.0  # a kernel that has not answered by then counts as not started
_ATTACH = "import mgenv_jupyter.sweeps._child as _mgenv_sweep_probe\n_mgenv_sweep_probe.attach()"
_BEGIN = "_mgenv_sweep_probe.begin()"
_END = "_mgenv_sweep_probe.end()"
_TICK = 0.05
# The point's kernel keeps no history file: its replayed cells are not the user's to find in %history later.
_KERNEL_ARGUMENTS = ["--HistoryManager.hist_file=:memory:"]
_INHERITED_OUT = ("JPY_PARENT_PID", "JPY_SESSION_NAME", REPORT_ENV, NAMES_ENV, WARM_ENV)


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
        if len(text) > MAX_PRINTED:
            text, self.cut = text[-MAX_PRINTED:], True
        self.text += text
        if len(self.text) > MAX_PRINTED:
            self.text, self.cut = self.text[-MAX_PRINTED:], True


def point_environment(job: Job, report: Path, names: list[str], warm: list[str] | None = None) -> dict[str, str]:
    """The point kernel's environment: the sweeping kernel's, as the session left it, with the point's values, the
    probe's parameters and, for a GPU slot, CUDA_VISIBLE_DEVICES."""
    env = {name: value for name, value in os.environ.items() if name not in _INHERITED_OUT}
    env.update(job.environment)
    env[REPORT_ENV] = str(report)
    env[NAMES_ENV] = ",".join(names)
    if warm:
        env[WARM_ENV] = ",".join(warm)
    if job.gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = str(job.gpu)
    return env


class _LogTail:
    """The point kernel's own output (its start-up warnings, a fatal error's trace), read from a pipe by a thread
    that keeps its last LOG_TAIL bytes: nothing of it is written to disk, and a kernel that floods its stdout costs
    the sweep a fixed few kilobytes (a pipe holds what the thread has not read yet; a full pipe stalls the writer,
    which the deadline then ends)."""

    def __init__(self) -> None:
        self._read, self.write = os.pipe()
        self._tail = b""
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._follow, name="mgenv-sweep-point-log", daemon=True)
        self._thread.start()

    def _follow(self) -> None:
        try:
            while chunk := os.read(self._read, 65536):
                with self._lock:
                    self._tail = (self._tail + chunk)[-LOG_TAIL:]
        except OSError:
            pass
        finally:
            os.close(self._read)

    def started(self) -> None:
        """The kernel has its copy of the pipe's end: ours is closed, so the thread ends when the kernel's does."""
        if self.write >= 0:
            os.close(self.write)
            self.write = -1

    def text(self, wait: float = 1.0) -> str | None:
        """The end of what the kernel wrote, credentials masked (after its end, waited for up to `wait` s)."""
        self.started()
        self._thread.join(wait)
        with self._lock:
            text = self._tail.decode("utf-8", "replace")
        return redact(text.strip()) or None


class StartedPoint:
    """A point whose kernel is started and its probe attached (and the setup's leading imports done), ready for its
    turn: `measure()` runs the setup and the measured cell and ends the kernel; `discard()` ends it unused. The
    scheduler starts the next point's this way while the current one measures (`_schedule.py`)."""

    def __init__(self, job: Job, measure: Measure, choice: KernelChoice, workdir: Path,
                 cancelled: threading.Event, session_changed: Collection[str] | None = None) -> None:
        self.job, self.plan, self.cancelled = job, measure, cancelled
        # Everything of the point lives in its own directory (its connection file with the key, its sockets, its
        # report): the guard removes it when the point ends, however the sweep ends (kill -9 included).
        self.directory = workdir / f"p{job.index}"
        self.report_path = self.directory / "report.json"
        self.printed = _Printed()
        self.phase = Phase.START
        self.result: PointResult | None = None  # set once the point has ended, early or not
        self.client: Any = None
        self.context: Any = None
        self.log = _LogTail()
        # The point's own names, never the spec's: the swept ones, and CUDA_VISIBLE_DEVICES on a pinned GPU.
        overrides = {*job.environment, *(["CUDA_VISIBLE_DEVICES"] if job.gpu is not None else [])}
        # On a Ray node (`session_changed`: the names the session changed, in the worker's environment), the
        # notebook's own spec's `env` applies as it did when this kernel started (`_kernels.point_spec`).
        self.manager = point_kernel_manager(choice, self.directory, overrides=overrides,
                                            session_changed=session_changed)
        self._step(self._start)

    def _start(self) -> None:
        self.directory.mkdir(mode=0o700)
        environment = point_environment(self.job, self.report_path, list(self.job.environment),
                                        warm_imports(self.plan.setup))
        try:
            self.manager.start_kernel(env=environment, extra_arguments=_KERNEL_ARGUMENTS, stdout=self.log.write,
                                      stderr=self.log.write)
        finally:
            self.log.started()
        self.client = bounded_client(self.manager)
        self.context = self.client.context
        self.client.start_channels()
        _wait_ready(self.client, self.manager, self.cancelled)
        self._run(_ATTACH, None, silent=True)

    def measure(self) -> PointResult:
        """Run the setup and the measured cell; every way the point can end becomes its outcome. Ends the kernel."""
        try:
            self._step(self._measure)
            assert self.result is not None
            return self.result
        finally:
            self.discard()

    def _measure(self) -> None:
        job, plan = self.job, self.plan
        self.phase = Phase.SETUP
        deadline = _deadline(plan.setup_timeout)
        for cell in plan.setup.cells:
            if self._run(cell.code, deadline)["status"] != "ok":
                break
        else:
            self._run(_BEGIN, None, silent=True)
            self.phase = Phase.CELL
            deadline = _deadline(plan.timeout)
            for _ in range(plan.repeat):
                if self._run(plan.code, deadline, printed=self.printed)["status"] != "ok":
                    break
        if self.phase is not Phase.CELL:
            self._run(_BEGIN, None, silent=True)  # so the report has a measured phase
        self._run(_END, None, silent=True)
        report = json.loads(self.report_path.read_text(encoding="utf-8"))
        self.result = from_report(job.index, job.values, job.environment, report, repeat=plan.repeat,
                                  printed=self.printed.text, printed_cut=self.printed.cut, gpu=job.gpu)

    def _step(self, step: Any) -> None:
        """Run one stage of the point unless it has ended; how it ends becomes the point's result."""
        if self.result is not None:
            return
        job = self.job
        try:
            step()
        except _Ended as ended:
            failure = (Failure(signal=exit_signal(self.manager), message=self.log.text())
                       if ended.outcome is Outcome.CRASHED else None)
            self.result = failed_point(job.index, job.values, job.environment, ended.outcome,
                                       None if ended.outcome is Outcome.NOT_RUN else self.phase, failure=failure,
                                       report=_partial(self.report_path) if self.phase is Phase.CELL else None,
                                       printed=self.printed.text, printed_cut=self.printed.cut, gpu=job.gpu)
        except (OSError, RuntimeError, ValueError) as exc:  # the kernel's command failed, or its report is unreadable
            self.result = failed_point(job.index, job.values, job.environment, Outcome.CRASHED, self.phase,
                                       failure=Failure(kind=type(exc).__name__, message=redact(str(exc)[:300]),
                                                       signal=exit_signal(self.manager)), gpu=job.gpu)

    def _run(self, code: str, deadline: float | None, silent: bool = False,
             printed: _Printed | None = None) -> dict[str, Any]:
        return _run(self.client, self.manager, code, deadline, self.cancelled, silent=silent, printed=printed)

    def discard(self) -> None:
        """End the point's kernel and free what the sweep held of it (its guard removes its directory)."""
        if self.client is not None:
            self.client.stop_channels()
            self.client = None
        stop_point(self.manager)
        if self.context is not None:
            self.context.destroy(linger=0)
            self.context = None
        self.log.started()
        shutil.rmtree(self.directory, ignore_errors=True)  # a kernel that ended by itself left its guard's to us


def run_local_point(job: Job, measure: Measure, choice: KernelChoice, workdir: Path,
                    cancelled: threading.Event) -> PointResult:
    """Run `job` in a fresh kernel of `choice`; every way it can end becomes the point's outcome."""
    return StartedPoint(job, measure, choice, workdir, cancelled).measure()


def _partial(path: Path) -> dict[str, Any] | None:
    """What the probe wrote before the point ended (its values, its memory up to its last second)."""
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


LOG_TAIL = 1500


def bounded_client(manager: Any) -> Any:
    """A blocking client of the point's kernel whose IOPub socket queues at most QUEUED messages of at most
    MESSAGE_MOST bytes: a point that prints faster than the sweep reads loses output (only the last MAX_PRINTED
    characters are kept anyway), never grows the sweeping kernel; a larger message drops the connection, which
    ZeroMQ remakes. Its shell socket is left as it is: a reply is never dropped."""
    import zmq
    from jupyter_client.blocking import BlockingKernelClient

    class BoundedClient(BlockingKernelClient):  # type: ignore[misc]
        def connect_iopub(self, identity: bytes | None = None) -> Any:
            # A context's options are its new sockets' defaults: this client's own context, set for this one socket.
            self.context.setsockopt(zmq.RCVHWM, QUEUED)
            self.context.setsockopt(zmq.MAXMSGSIZE, MESSAGE_MOST)
            try:
                return super().connect_iopub(identity)
            finally:
                self.context.setsockopt(zmq.RCVHWM, 1000)  # ZeroMQ's defaults
                self.context.setsockopt(zmq.MAXMSGSIZE, -1)

    manager.client_factory = BoundedClient
    return manager.client(context=zmq.Context())


QUEUED = 8
MESSAGE_MOST = 4 * 1024 * 1024


def warm_imports(setup: SetupPlan) -> list[str]:
    """The modules the setup imports before it does anything else: a point started ahead of its turn imports them
    while earlier points run (what the setup does after its first other statement may change how an import
    behaves, an environment variable set by hand, so nothing after it is imported early). Read statically, never
    run; a name is handed over only as a dotted name of identifiers."""
    import ast

    from IPython.core.inputtransformer2 import TransformerManager

    names: list[str] = []
    transform = TransformerManager()
    for cell in setup.cells:
        try:
            tree = ast.parse(transform.transform_cell(cell.code))
        except (SyntaxError, ValueError):
            return names
        for statement in tree.body:
            if isinstance(statement, ast.Import):
                found = [alias.name for alias in statement.names]
            elif isinstance(statement, ast.ImportFrom) and statement.level == 0 and statement.module:
                found = [] if statement.module == "__future__" else [statement.module]
            else:
                return names
            names.extend(name for name in found
                         if name not in names and all(part.isidentifier() for part in name.split(".")))
    return names


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
    """Take at most COLLECT_MOST of the kernel's output messages waiting now (a point that prints without pause
    must not keep its caller from its deadline); what the measured cell printed is kept. True once the kernel said
    it is idle after `message_id`."""
    idle = False
    for _ in range(COLLECT_MOST):
        try:
            message = client.get_iopub_msg(timeout=0)
        except queue.Empty:
            break
        if message.get("parent_header", {}).get("msg_id") != message_id:
            continue
        kind = message.get("msg_type")
        content = message.get("content", {})
        if kind == "stream" and printed is not None:
            printed.add(str(content.get("text", "")))
        elif kind == "status" and content.get("execution_state") == "idle":
            idle = True
    return idle


COLLECT_MOST = 32


def _drain(client: Any, message_id: str, printed: _Printed | None) -> None:
    """After the reply: the rest of the request's output, up to the kernel's idle (at most a second)."""
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        if _collect(client, message_id, printed):
            return
        time.sleep(0.01)
