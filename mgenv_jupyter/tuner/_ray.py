"""Points as Ray tasks, when the user's code has connected Ray: each point a task with a GPU of its own (a CPU where the
cluster has no GPU) and, in its `runtime_env`, what the session has changed now (as a local point inherits this
kernel's environment: a variable set after `ray.init`, whose job-wide runtime_env was fixed then, included) with the
point's own variables over it, so Ray starts a fresh worker process for it with them in its environment;
`max_calls=1` ends that worker with the task, so no point shares a process. The task runs the setup and the measured
cell in an IPython shell inside the worker (`run_point_in_process`), with the same probe as a local kernel, and
returns the same report: the result has the same shape, and says which node and GPU each used.

A point that runs past the timeout, or an interrupted sweep, is cancelled with `force=True` (Ray kills the worker);
a worker that dies by itself (a segfault, the OOM killer) is a crashed point.
"""

from __future__ import annotations

import io
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._imported import imported
from ._local import Job, Measure
from ._point import MAX_PRINTED, Failure, Outcome, Phase, PointResult, failed_point, from_report

_TICK = 0.1


def ray_connected() -> bool:
    """Whether this kernel's code has connected Ray (`ray.init` ran); asking never imports Ray."""
    ray = imported("ray")
    if ray is None:
        return False
    try:
        return bool(ray.is_initialized())
    except Exception:  # a half-broken Ray is not one to run points on
        return False


def ray_slots(parallel: int | None) -> tuple[list[int | None], list[int], bool]:
    """How many points run at once on the cluster: one per GPU it has (a CPU each where it has none), at most
    `parallel`. GPU totals are the nodes' own business: the budget is the host's unless given."""
    ray = sys.modules["ray"]
    resources = ray.cluster_resources()
    count = int(resources.get("GPU", 0)) or int(resources.get("CPU", 1)) or 1
    return [None] * min(count, parallel or count), [], False


def _resources() -> dict[str, Any]:
    ray = sys.modules["ray"]
    return {"num_gpus": 1} if ray.cluster_resources().get("GPU", 0) else {"num_cpus": 1}


def run_ray_points(jobs: Sequence[Job], measure: Measure, slots: Sequence[int | None],
                   finished: Callable[[PointResult], None],
                   session_env: Mapping[str, str] | None = None) -> tuple[list[PointResult], bool]:
    """Run every job as a Ray task (Ray queues them on the cluster's resources), with `session_env` (the session's
    variables as they are now) under each point's own; the points in order, and whether the sweep was
    interrupted."""
    ray = sys.modules["ray"]
    task = ray.remote(max_calls=1, max_retries=0, **_resources())(run_point_in_process)
    setup = measure.setup.code()
    pending: dict[Any, Job] = {}
    started: dict[Any, float] = {}
    for job in jobs:
        env_vars = {**dict(session_env or {}), **job.environment}
        ref = task.options(runtime_env={"env_vars": env_vars}).remote(
            setup, measure.code, measure.repeat, list(job.environment))
        pending[ref] = job
    results: dict[int, PointResult] = {}
    interrupted = False
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=_TICK)
            for ref in ready:
                job = pending.pop(ref)
                point = _collect(ray, ref, job, measure)
                results[job.index] = point
                finished(point)
            now = time.monotonic()
            # Ray runs queued tasks as resources free up, in about the order given: the first `len(slots)` still
            # pending are the ones running, and a point's clock starts when it enters that window.
            for ref, job in list(pending.items())[:len(slots)]:
                if measure.timeout is None:
                    continue
                began = started.setdefault(ref, now)
                if now - began > measure.timeout + _setup_allowance(measure):
                    ray.cancel(ref, force=True)
                    pending.pop(ref)
                    results[job.index] = failed_point(job.index, job.values, job.environment, Outcome.TIMEOUT,
                                                      Phase.CELL)
                    finished(results[job.index])
    except KeyboardInterrupt:
        interrupted = True
        for ref in pending:
            ray.cancel(ref, force=True)
    points = [results.get(job.index) or failed_point(job.index, job.values, job.environment, Outcome.NOT_RUN, None)
              for job in jobs]
    return points, interrupted


def _setup_allowance(measure: Measure) -> float:
    """A Ray task's clock starts when its worker runs it: the setup is inside it. Its own limit, or no more than the
    cell's again (a task cannot say when its setup ended)."""
    return measure.setup_timeout if measure.setup_timeout is not None else (measure.timeout or 0.0)


def _collect(ray: Any, ref: Any, job: Job, measure: Measure) -> PointResult:
    try:
        report = ray.get(ref)
    except ray.exceptions.WorkerCrashedError as exc:
        return failed_point(job.index, job.values, job.environment, Outcome.CRASHED, Phase.CELL,
                            failure=Failure(kind=type(exc).__name__))
    except ray.exceptions.TaskCancelledError:
        return failed_point(job.index, job.values, job.environment, Outcome.TIMEOUT, Phase.CELL)
    except ray.exceptions.RayError as exc:  # the worker could not start (its runtime_env), or the harness failed
        return failed_point(job.index, job.values, job.environment, Outcome.CRASHED, Phase.START,
                            failure=Failure(kind=type(exc).__name__, message=str(exc)[:300]))
    return from_report(job.index, job.values, job.environment, report, repeat=measure.repeat,
                       printed=report.get("printed", ""), printed_cut=bool(report.get("printed_cut")),
                       gpu=report.get("gpu"), node=report.get("node"))


class _Tee(io.TextIOBase):
    """The worker's stdout while the measured cell runs: written through, and its last MAX_PRINTED characters kept."""

    def __init__(self, through: Any) -> None:
        self.through = through
        self.kept = ""
        self.cut = False

    def write(self, text: str) -> int:
        self.kept += text
        if len(self.kept) > MAX_PRINTED:
            self.kept, self.cut = self.kept[-MAX_PRINTED:], True
        return self.through.write(text)

    def flush(self) -> None:
        self.through.flush()


def run_point_in_process(setup: list[str], code: str, repeat: int, names: list[str]) -> dict[str, Any]:
    """One point inside a fresh process (a Ray worker started with the point's variables): an IPython shell runs the
    setup and the measured cell under the probe, as a point's kernel would; the probe's report, with what the cell
    printed, the GPU Ray gave the task and the node."""
    from IPython.core.interactiveshell import InteractiveShell

    from . import _child

    shell = InteractiveShell.instance()
    os.environ[_child.NAMES_ENV] = ",".join(names)
    _child.attach(shell)
    for cell in setup:
        if not shell.run_cell(cell, store_history=True).success:
            break
    else:
        _child.begin()
        tee = _Tee(sys.stdout)
        sys.stdout = tee
        try:
            for _ in range(repeat):
                if not shell.run_cell(code, store_history=True).success:
                    break
        finally:
            sys.stdout = tee.through
        report = _child.end()
        report.update(_where(), printed=tee.kept, printed_cut=tee.cut)
        return report
    _child.begin()
    report = _child.end()
    report.update(_where())
    return report


def _where() -> dict[str, Any]:
    ray = sys.modules.get("ray")
    if ray is None:
        return {"gpu": None, "node": None}
    context = ray.get_runtime_context()
    gpus = ray.get_gpu_ids()
    return {"gpu": int(gpus[0]) if gpus else None, "node": str(context.get_node_id())[:8]}
