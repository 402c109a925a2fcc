"""One point of a sweep: what it was given, and what became of it.

A point's figures come from its own process: its seconds from the probe's cell hooks (`_child.py`), its peaks from
the probe's sampler, its values from its own environment. Outcomes are codes; their words are presentation's.
"""

from __future__ import annotations

import enum
import signal
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..base._display import Shown
from ..catalog._secrets import is_secret, redact


class Outcome(str, enum.Enum):
    """What became of a point."""

    OK = "ok"  # every run of the measured cell finished
    OUT_OF_MEMORY = "oom"  # it ran out of memory, as the out-of-memory report recognises it
    ERROR = "error"  # it raised something else
    TIMEOUT = "timeout"  # it ran past the sweep's timeout and was ended
    CRASHED = "crashed"  # its kernel died (a segfault, the OOM killer, a signal)
    NOT_RUN = "not_run"  # the sweep was interrupted before it ran


class Phase(str, enum.Enum):
    """Where a failed point failed."""

    START = "start"  # its kernel did not start
    SETUP = "setup"  # a setup cell (a replayed one, or the user's)
    CELL = "cell"  # the measured cell


FAILED = (Outcome.OUT_OF_MEMORY, Outcome.ERROR, Outcome.TIMEOUT, Outcome.CRASHED)


@dataclass(frozen=True)
class Failure:
    """Why a point failed: the exception's class and message (credentials masked, bounded), the out-of-memory
    report's framework and device where it recognised one, the signal that ended a crashed kernel, the setup cell
    that failed (its position in the setup, from 0); `over_total` when the point peaked above its whole device
    (`peak_device_bytes` > `device_total_bytes`): a real device of that size would have run out of memory."""

    kind: str | None = None
    message: str | None = None
    framework: str | None = None
    device: str | None = None
    signal: int | None = None
    setup_cell: int | None = None
    over_total: bool = False

    @property
    def signal_name(self) -> str | None:
        if self.signal is None:
            return None
        try:
            return signal.Signals(self.signal).name
        except ValueError:
            return f"signal {self.signal}"


@dataclass(frozen=True)
class Timeline:
    """The point's memory while its measured cell ran: seconds since it began, the process tree's GPU memory (None
    without a device) and its resident host memory, in bytes (bucket maxima when long)."""

    t: tuple[float, ...] = ()
    device: tuple[int | None, ...] = ()
    host: tuple[int | None, ...] = ()


@dataclass(frozen=True, repr=False)
class PointResult(Shown):
    """A point: its values (as given, and as its environment had them), its outcome, and its figures.

    `seconds` is the median of the measured cell's runs (`runs`); `peak_device_bytes` the highest GPU memory of the
    point's process tree (None without a device), `device_total_bytes` that device's size; `peak_host_bytes` the
    highest resident memory of the tree; `framework_peaks` the frameworks' own counters ("torch gpu0 max_reserved");
    `printed` what the measured cell printed (at most its last `MAX_PRINTED` characters); `kernel_values` what each
    swept variable was in the point's environment when the cell ran, `kernel_statuses` what the session said of it;
    `gpu` the GPU it was pinned to (CUDA_VISIBLE_DEVICES), `node` the Ray node it ran on; `started` / `finished`
    (seconds since the epoch) bound its measured cell, `attached` is when its kernel was ready (perhaps while an
    earlier point ran). Printed, it is one line in words (its values, a secret's masked; its outcome and figures), as
    the sweep's table shows it."""

    display_kind: ClassVar[str] = "sweep_point"

    index: int
    values: Mapping[str, str]
    environment: Mapping[str, str]
    outcome: Outcome
    phase: Phase | None = None
    failure: Failure | None = None
    runs: tuple[float, ...] = ()
    peak_device_bytes: int | None = None
    device_total_bytes: int | None = None
    peak_host_bytes: int | None = None
    framework_peaks: Mapping[str, int] = field(default_factory=dict)
    printed: str = ""
    printed_cut: bool = False
    kernel_values: Mapping[str, str | None] = field(default_factory=dict)
    kernel_statuses: Mapping[str, str] = field(default_factory=dict)
    gpu: int | None = None
    simulated: bool = False
    node: str | None = None
    pid: int | None = None
    started: float | None = None
    finished: float | None = None
    attached: float | None = None
    timeline: Timeline = field(default_factory=Timeline)

    @property
    def seconds(self) -> float | None:
        return statistics.median(self.runs) if self.runs and self.outcome is Outcome.OK else None

    @property
    def failed(self) -> bool:
        return self.outcome in FAILED

    @property
    def values_held(self) -> bool:
        """Whether the point's kernel really had each swept value in its environment when the cell ran."""
        return all(self.kernel_values.get(name) == value for name, value in self.environment.items())


MAX_PRINTED = 4000


def from_report(index: int, values: Mapping[str, str], environment: Mapping[str, str], report: Mapping[str, Any],
                *, repeat: int, printed: str = "", printed_cut: bool = False, gpu: int | None = None,
                node: str | None = None) -> PointResult:
    """A point from its probe's report (`_child.end()`): the setup's and the runs' outcomes decide the point's."""
    setup = list(report.get("setup", ()))
    runs = list(report.get("runs", ()))
    outcome, phase, failure = Outcome.OK, None, None
    for position, cell in enumerate(setup):
        if cell.get("outcome") != "ok":
            outcome, phase = Outcome(cell["outcome"]), Phase.SETUP
            failure = _failure(cell.get("failure"), setup_cell=position)
            break
    else:
        for run in runs:
            if run.get("outcome") != "ok":
                outcome, phase, failure = Outcome(run["outcome"]), Phase.CELL, _failure(run.get("failure"))
                break
        else:
            if len(runs) < repeat:  # the kernel answered, but a run never finished: not ok
                outcome, phase = Outcome.ERROR, Phase.CELL
    peak, total = report.get("peak_device_bytes"), report.get("device_total_bytes")
    if outcome is Outcome.OK and peak is not None and total and peak > total:
        # More than the device holds: on that device it could not have finished (a simulated one lets it).
        outcome, phase, failure = Outcome.OUT_OF_MEMORY, Phase.CELL, Failure(over_total=True)
    timeline = report.get("timeline") or {}
    return _masked(PointResult(
        index=index, values=dict(values), environment=dict(environment), outcome=outcome, phase=phase,
        failure=failure,
        runs=tuple(float(run["seconds"]) for run in runs if run.get("seconds") is not None),
        peak_device_bytes=report.get("peak_device_bytes"), device_total_bytes=report.get("device_total_bytes"),
        peak_host_bytes=report.get("peak_host_bytes"), framework_peaks=dict(report.get("framework_peaks") or {}),
        printed=printed, printed_cut=printed_cut, kernel_values=dict(report.get("values") or {}),
        kernel_statuses=dict(report.get("statuses") or {}), gpu=gpu, simulated=bool(report.get("simulated")),
        node=node, pid=report.get("pid"), started=report.get("started"), finished=report.get("finished"),
        attached=report.get("attached"),
        timeline=Timeline(tuple(timeline.get("t", ())), tuple(timeline.get("device", ())),
                          tuple(timeline.get("host", ()))),
    ))


def _masked(point: PointResult) -> PointResult:
    """`point` with its swept secrets' values masked wherever its cell's own words may quote them (an exception's
    message, what it printed): the probe masks credential shapes, only the sweep knows a secret by its name."""
    known = [value for name, value in point.environment.items() if is_secret(name, value)]
    if not known:
        return point
    failure = point.failure
    if failure is not None and failure.message:
        failure = _replace(failure, message=redact(failure.message, known))
    return _replace(point, failure=failure, printed=redact(point.printed, known))


def _failure(data: Mapping[str, Any] | None, setup_cell: int | None = None) -> Failure:
    data = data or {}
    return Failure(kind=data.get("type"), message=data.get("message"), framework=data.get("framework"),
                   device=data.get("device"), setup_cell=setup_cell)


def failed_point(index: int, values: Mapping[str, str], environment: Mapping[str, str], outcome: Outcome,
                 phase: Phase | None, *, report: Mapping[str, Any] | None = None, failure: Failure | None = None,
                 printed: str = "", printed_cut: bool = False, gpu: int | None = None,
                 node: str | None = None) -> PointResult:
    """A point that ended without a report of its own (timed out, crashed, never started, not run), with what its
    probe had measured so far when there is a report."""
    if report is not None:
        partial = from_report(index, values, environment, report, repeat=0, printed=printed,
                              printed_cut=printed_cut, gpu=gpu, node=node)
        return _masked(_replace(partial, outcome=outcome, phase=phase, failure=failure))
    return _masked(PointResult(index=index, values=dict(values), environment=dict(environment), outcome=outcome,
                               phase=phase, failure=failure, printed=printed, printed_cut=printed_cut, gpu=gpu,
                               node=node))


def _replace(value: Any, **changes: Any) -> Any:
    from dataclasses import replace

    return replace(value, **changes)
