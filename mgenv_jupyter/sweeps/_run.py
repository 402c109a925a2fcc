"""A sweep from start to end: check everything, choose where points run, run them, keep the result.

Everything the user gave is checked before the first kernel starts (the values as `%envset` checks them, the
repeat, the timeouts, the budget); bad input raises `InvalidValueError` and nothing starts. Points run in fresh local
kernels, one per GPU at a time (`_schedule.py`), or placed by Ray on the cluster's nodes when the user's code connected
Ray (`_ray.py`); wherever a point runs, the same point runner (`_local.StartedPoint`) runs it.
"""

from __future__ import annotations

import math
import os
import shutil
import threading
import time
from collections.abc import Callable, Mapping

from ..base._errors import CodeLoadingWarning, InvalidValueError
from ..base._text import Text
from ..base._user_warning import warn_at_user
from ..catalog._values import parse_size
from ..memory.simulated import ENV as SIMULATION_ENV
from ..runtime._session import EnvSession
from ._grid import checked_grid, code_loading_warnings
from ._kernels import kernel_for_points, sweep_directory
from ._local import Job, Measure, StartedPoint
from ._point import Outcome, PointResult, failed_point
from ._replay import SetupPlan
from ._result import SweepResult, default_budget, given_budget, last_sweeps
from ._schedule import run_on_slots

MAX_REPEAT = 100
DEFAULT_TIMEOUT = 600.0

NO_CODE = Text("the cell to measure is empty: put the code to run under the %%envsweep line",
               "要测量的单元为空:请把要运行的代码写在 %%envsweep 行下面")
BAD_REPEAT = Text("repeat must be a whole number from 1 to {most}, not {value!r}",
                  "repeat 必须是 1 到 {most} 之间的整数,而不是 {value!r}")
BAD_SECONDS = Text("{what} must be a number of seconds above 0 (or None for no limit), not {value!r}",
                   "{what} 必须是大于 0 的秒数(或 None 表示不限),而不是 {value!r}")
BAD_BUDGET = Text("budget must be a size such as 10GB or a number of bytes, not {value!r}",
                  "budget 必须是 10GB 这样的大小或字节数,而不是 {value!r}")
BAD_PARALLEL = Text("parallel must be a whole number from 1 up, not {value!r}",
                    "parallel 必须是从 1 起的整数,而不是 {value!r}")

OnPoint = Callable[[SweepResult, PointResult], None]


def checked_code(code: object) -> str:
    """The cell to measure: code with at least one line that is not a comment."""
    if not isinstance(code, str) or not any(line.strip() and not line.lstrip().startswith("#")
                                            for line in code.splitlines()):
        raise InvalidValueError(NO_CODE.get())
    return code


def checked_repeat(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_REPEAT:
        raise InvalidValueError(BAD_REPEAT.get().format(most=MAX_REPEAT, value=value))
    return value


def checked_seconds(value: object, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        raise InvalidValueError(BAD_SECONDS.get().format(what=what, value=value))
    return float(value)


def checked_budget(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InvalidValueError(BAD_BUDGET.get().format(value=value))
    try:
        nbytes = parse_size(value)
    except (InvalidValueError, ValueError, OverflowError):
        raise InvalidValueError(BAD_BUDGET.get().format(value=value)) from None
    if nbytes <= 0:
        raise InvalidValueError(BAD_BUDGET.get().format(value=value))
    return nbytes


def checked_parallel(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidValueError(BAD_PARALLEL.get().format(value=value))
    return value


def gpu_slots(parallel: int | None) -> tuple[list[int | None], list[int], bool]:
    """The GPUs points may be pinned to (NVML indexes, those CUDA_VISIBLE_DEVICES shows this kernel), their totals,
    and whether they are simulated; [None] (one unpinned slot) without a GPU."""
    from ..memory._sources import gpu_devices

    devices = gpu_devices()
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip():
        wanted = [int(word) for word in visible.split(",") if word.strip().isdigit()]
        devices = [(index, total) for index, total in devices if index in wanted]
    simulated = bool(os.environ.get(SIMULATION_ENV, "").strip())
    if not devices:
        return [None] * min(parallel or 1, 1), [], False
    chosen = devices[:parallel] if parallel else devices
    return [index for index, _ in chosen], [total for _, total in chosen], simulated


def run_sweep(code: str, values: Mapping[str, object], setup: SetupPlan, *, session: EnvSession,
              repeat: object = 1, timeout: object = DEFAULT_TIMEOUT, setup_timeout: object = None,
              budget: object = None, kernel: str | None = None, parallel: object = None, force: bool = False,
              source: str = "api", zipped: bool = False, on_start: Callable[[SweepResult], None] | None = None,
              on_point: OnPoint | None = None, ray: bool | None = None) -> SweepResult:
    """Run `code` once per point of `values` (name → values) in fresh processes; see the package's help."""
    checked_code(code)
    repeats = checked_repeat(repeat)
    limit = checked_seconds(timeout, "timeout")
    setup_limit = checked_seconds(setup_timeout, "setup_timeout")
    budget_bytes = checked_budget(budget)
    slots_wanted = checked_parallel(parallel)
    grid = checked_grid(values, session, source=source, force=force, zipped=zipped)
    for said in code_loading_warnings(grid, session):  # as `%envset` warns when it sets one
        warn_at_user(said, CodeLoadingWarning, source)
    measure = Measure(code, setup, repeats, limit, setup_limit)
    jobs = [Job(index, given, environment)
            for index, (given, environment) in enumerate(zip(grid.given(), grid.points(), strict=True))]
    from ._ray import ray_connected

    # Local or on Ray, every point runs the same point runner in a fresh kernel of the notebook's own kernelspec (or
    # the one named); Ray only decides where.
    choice = kernel_for_points(kernel)
    if ray is not False and ray_connected():
        from ._ray import ray_slots, run_ray_points

        slots, totals, simulated = ray_slots(slots_wanted)
        runner = "ray"
    else:
        slots, totals, simulated = gpu_slots(slots_wanted)
        runner = "local"
        workdir = sweep_directory(len(jobs))  # before anything is shown: a TMPDIR too long is said here
    chosen = (given_budget(budget_bytes, bool(totals)) if budget_bytes is not None
              else default_budget(totals, simulated, _host_total()))
    result = SweepResult(code, grid, setup, [_pending(job) for job in jobs], chosen, repeat=repeats,
                         timeout=limit, runner=runner, kernel=choice.name, kernel_how=choice.how, slots=tuple(slots),
                         started=time.time(), simulated_devices=simulated, force=force)
    points: list[PointResult] | None = None
    interrupted = True  # unless the points' runner returns: an interrupt, or anything else, ended the sweep early
    try:
        if on_start is not None:
            on_start(result)

        def finished(point: PointResult) -> None:
            result.points[point.index] = point
            if on_point is not None:
                on_point(result, point)

        if runner == "ray":
            points, interrupted = run_ray_points(jobs, measure, choice, finished, _session_env(session))
        else:
            def start_point(index: int, gpu: int | None, cancelled: threading.Event) -> StartedPoint:
                job = jobs[index]
                return StartedPoint(Job(job.index, job.values, job.environment, gpu), measure, choice, workdir,
                                    cancelled)

            points, interrupted = run_on_slots(len(jobs), slots, start_point,
                                               lambda index, gpu: result.points[index], finished)
    finally:
        if runner == "local":
            shutil.rmtree(workdir, ignore_errors=True)
        # Kept whatever ended the sweep (a second interrupt included): the view and last_sweep() show this sweep,
        # never the one before it.
        if points is not None:
            result.points = points
        result.interrupted = interrupted
        result.finished = time.time()
        last_sweeps().remember(result)
    return result


def _session_env(session: EnvSession) -> dict[str, str]:
    """What the session has changed, as Ray's env_vars: a local point inherits it with this kernel's environment,
    a Ray point gets it here (Ray passes no driver's environment on, and a runtime_env given to `ray.init` was fixed
    then). Every changed variable, as a local point has it; what Ray cannot carry is warned of by name."""
    from ..cluster._runtime_env import runtime_env

    return dict(runtime_env(session, include=session.changed_through_session())["env_vars"])


def _pending(job: Job) -> PointResult:
    return failed_point(job.index, job.values, job.environment, Outcome.NOT_RUN, None)


def _host_total() -> int | None:
    from ..memory._proc_figures import host_memory

    figures = host_memory()
    return figures[0] if figures is not None else None

