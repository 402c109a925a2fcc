"""Ray as a way of placing points, when the user's code has connected Ray: Ray decides WHERE a point runs (a node, a
GPU of its own there, a CPU where the cluster has no GPU); what runs there is the same point runner as on this
machine (`_local.StartedPoint`): a fresh kernel of the notebook's kernelspec, started through jupyter_client on that
node under the guard, the same bounded reads, deadlines, probe, memtrace replay, masking and result.

Each point is a task (`run_placed_point`) whose `runtime_env` holds what the session has changed now (as a local
point inherits this kernel's environment: a variable set after `ray.init`, whose job-wide runtime_env was fixed then,
included) with the point's own variables over it; the task's worker holds them, and the point's kernel inherits them
as a local point's inherits this kernel's. `max_calls=1` ends that worker with the task, so no point shares one.

The deadlines are the point runner's own, kept on the node (a point that prints without pause included). An
interrupt cancels every task (`ray.cancel`): a running one gets a KeyboardInterrupt, and its point runner ends its
kernel through the guard as a local point's does; a task still running a few seconds later is killed with its
worker (`force=True`), and the guard, seeing its parent gone, kills the kernel's whole tree and removes its files. A
worker that dies by itself (a segfault, the OOM killer) is a crashed point.
"""

from __future__ import annotations

import logging
import shutil
import sys
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..base._imported import imported
from ..catalog._secrets import is_secret, redact
from ._kernels import STOP_SECONDS, KernelChoice, sweep_directory
from ._local import Job, Measure, StartedPoint
from ._point import Failure, Outcome, Phase, PointResult, failed_point

log = logging.getLogger(__name__)
_TICK = 0.1
# After an interrupt, how long the tasks are given to end their kernels themselves (the guard's own stop, and a
# little for Ray to say so) before they are killed with their workers.
_CANCEL_SECONDS = STOP_SECONDS + 2.0


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


def run_placed_point(job: Job, measure: Measure, choice: KernelChoice, session_changed: list[str]) -> PointResult:
    """On the node Ray chose: the point runner, as on the sweeping kernel's machine, with the GPU Ray gave the task
    (its CUDA_VISIBLE_DEVICES) as the point's, in a sweep directory of the node's own; the result says the node."""
    ray = sys.modules["ray"]
    gpus = [str(gpu) for gpu in ray.get_gpu_ids()]
    gpu = int(gpus[0]) if gpus and gpus[0].isdigit() else None
    node = str(ray.get_runtime_context().get_node_id())[:8]
    workdir = sweep_directory(1)
    point: StartedPoint | None = None
    try:
        point = StartedPoint(replace(job, gpu=gpu), measure, choice, workdir, threading.Event(),
                             session_changed=session_changed)
        return replace(point.measure(), node=node)
    finally:
        # Interrupted (ray.cancel): the kernel ends here; interrupted while it started, its guard ends it when this
        # worker exits (max_calls=1).
        if point is not None:
            point.discard()
        shutil.rmtree(workdir, ignore_errors=True)


def run_ray_points(jobs: Sequence[Job], measure: Measure, choice: KernelChoice,
                   finished: Callable[[PointResult], None], session_env: Mapping[str, str] | None = None
                   ) -> tuple[list[PointResult], bool]:
    """Place every job as a Ray task (Ray queues them on the cluster's resources), with `session_env` (the session's
    variables as they are now) under each point's own; the points in order, and whether the sweep was
    interrupted."""
    ray = sys.modules["ray"]
    task = ray.remote(max_calls=1, max_retries=0, **_resources())(run_placed_point)
    changed = sorted(session_env or {})
    secrets = [value for name, value in (session_env or {}).items() if is_secret(name, value)]
    pending: dict[Any, Job] = {}
    for job in jobs:
        env_vars = {**dict(session_env or {}), **job.environment}
        pending[task.options(runtime_env={"env_vars": env_vars}).remote(job, measure, choice, changed)] = job
    results: dict[int, PointResult] = {}

    def collect(ready: Collection[Any]) -> None:
        for ref in ready:
            job = pending.pop(ref)
            results[job.index] = _collect(ray, ref, job, secrets)
            try:
                finished(results[job.index])
            except Exception:  # a figure that cannot update must not stop the sweep (as _schedule.py)
                log.exception("a sweep observer failed")

    interrupted = False
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=_TICK)
            collect(ready)
    except KeyboardInterrupt:
        interrupted = True
        while True:  # a second Ctrl-C while the tasks are being cancelled must not leave one running
            try:
                _cancel(ray, pending, collect)
                break
            except KeyboardInterrupt:
                continue
    points = [results.get(job.index) or failed_point(job.index, job.values, job.environment, Outcome.NOT_RUN, None)
              for job in jobs]
    return points, interrupted


def _cancel(ray: Any, pending: dict[Any, Job], collect: Callable[[Collection[Any]], None]) -> None:
    """End every task still pending: each ends its kernel as an interrupted local point does; what has not ended
    within _CANCEL_SECONDS is killed with its worker (the guard then ends the kernel). Further interrupts wait: the
    sweep already stops, and leaving now would lose its result."""
    for ref in pending:
        ray.cancel(ref)
    deadline = time.monotonic() + _CANCEL_SECONDS
    while pending and time.monotonic() < deadline:
        try:
            ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=_TICK)
            collect(ready)
        except KeyboardInterrupt:
            continue
    for ref in pending:
        ray.cancel(ref, force=True)
    pending.clear()


def _collect(ray: Any, ref: Any, job: Job, secrets: list[str]) -> PointResult:
    try:
        return ray.get(ref)  # type: ignore[no-any-return]
    except ray.exceptions.TaskCancelledError:  # the sweep was interrupted
        return failed_point(job.index, job.values, job.environment, Outcome.NOT_RUN, None)
    except ray.exceptions.WorkerCrashedError as exc:
        return failed_point(job.index, job.values, job.environment, Outcome.CRASHED, None,
                            failure=Failure(kind=type(exc).__name__))
    except ray.exceptions.RayError as exc:  # the worker could not start (its runtime_env), or the harness failed
        # A task's own exception (a node without jupyter_client, say) by its name and words, not Ray's wrapping.
        cause = getattr(exc, "cause", None)
        said = cause if isinstance(cause, Exception) else exc
        # Ray's words may quote the runtime_env: the session's secrets are masked by value, before the cut.
        message = redact(str(said)[:_MESSAGE_READ], secrets)[:_MESSAGE_KEPT]
        return failed_point(job.index, job.values, job.environment, Outcome.CRASHED, Phase.START,
                            failure=Failure(kind=type(said).__name__, message=message))


_MESSAGE_READ = 20_000
_MESSAGE_KEPT = 300
