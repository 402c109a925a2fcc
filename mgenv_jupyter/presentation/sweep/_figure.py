"""A sweep result as the figure's data (`protocol._sweep.SweepFigure`), in the view's language: what the live chart
draws and the static picture shows."""

from __future__ import annotations

from ...catalog._values import format_size
from ...protocol._sweep import SweepFigure, SweepPointInfo, SweepTimeline
from ...tuner._point import Outcome, PointResult
from ...tuner._result import BudgetOf, SweepResult
from . import _words as words


def point_label(result: SweepResult, point: PointResult) -> str:
    """The point on the setting axis: its value as given, or its values joined for a grid."""
    if len(result.variables) == 1:
        return next(iter(point.values.values()), "")
    return " · ".join(f"{name}={value}" for name, value in point.values.items())


def axis_name(result: SweepResult) -> str:
    return " × ".join(result.variables)


def seconds_text(seconds: float) -> str:
    return f"{seconds:.3g}" if seconds < 100 else f"{seconds:.0f}"


def failure_note(point: PointResult, language: str) -> str:
    """Why a point failed, in a few words: the outcome's, the exception's class or the signal, and where."""
    if not point.failed:
        return ""
    failure = point.failure
    parts = []
    if failure is not None and failure.signal is not None:
        parts.append(words.SIGNAL.get(language).format(signal=failure.signal_name))
    elif failure is not None and failure.kind:
        parts.append(failure.kind.rpartition(".")[2])
    elif failure is not None and failure.over_total and point.device_total_bytes:
        parts.append(words.OVER_TOTAL.get(language).format(total=format_size(point.device_total_bytes)))
    if point.phase is not None:
        phase = words.PHASES[point.phase.value].get(language)
        cell = failure.setup_cell + 1 if failure is not None and failure.setup_cell is not None else 0
        parts.append(phase.format(cell=cell))
    return ", ".join(parts)


def budget_label(result: SweepResult, language: str) -> str:
    budget = result.budget
    if budget.bytes is None:
        return words.NO_BUDGET.get(language)
    if budget.given or budget.total is None:
        return words.BUDGET_GIVEN.get(language).format(size=format_size(budget.bytes))
    return words.BUDGET_DEFAULT.get(language).format(size=format_size(budget.bytes), total=format_size(budget.total),
                                                      margin=budget.margin * 100)


def status_text(result: SweepResult, language: str, running: bool) -> str:
    done = sum(point.outcome is not Outcome.NOT_RUN for point in result.points)
    count = len(result.points)
    if running:
        return words.RUNNING.get(language).format(done=done, count=count)
    head = words.INTERRUPTED.get(language).format(done=done, count=count) + " " if result.interrupted else ""
    best = result.best
    if best is None:
        return head + words.CHOICES[result.choice.value].get(language)
    peak = result.budget.peak(best)
    values = ", ".join(f"{name}={value}" for name, value in best.values.items())
    if peak is None:
        return head + words.BEST_NO_PEAK.get(language).format(values=values, seconds=seconds_text(best.seconds or 0))
    return head + words.BEST.get(language).format(values=values, seconds=seconds_text(best.seconds or 0),
                                                  peak=format_size(peak))


def figure(result: SweepResult, language: str, running: bool = False) -> SweepFigure:
    device = result.budget.of is BudgetOf.DEVICE
    best = None if running else result.best
    points: list[SweepPointInfo] = []
    timelines: list[SweepTimeline] = []
    for point in result.points:
        label = point_label(result, point)
        peak = result.budget.peak(point)
        points.append({
            "index": point.index, "label": label, "outcome": point.outcome.value,
            "outcome_label": words.OUTCOMES[point.outcome.value].get(language), "seconds": point.seconds,
            "peak": peak, "best": best is not None and best.index == point.index, "failed": point.failed,
            "note": failure_note(point, language), "gpu": point.gpu,
        })
        series = point.timeline.device if device else point.timeline.host
        if point.timeline.t:
            timelines.append({"index": point.index, "label": label, "t": list(point.timeline.t),
                              "bytes": list(series)})
    if device:
        peak_title = (words.PEAK_TITLE_DEVICE_SIMULATED if result.simulated_devices else words.PEAK_TITLE_DEVICE)
        timeline_title = words.TIMELINE_TITLE_DEVICE
    else:
        peak_title, timeline_title = words.PEAK_TITLE_HOST, words.TIMELINE_TITLE_HOST
    time_title = (words.TIME_TITLE.get(language).format(repeat=result.repeat) if result.repeat > 1
                  else words.TIME_TITLE_ONCE.get(language))
    return {
        "title": words.TITLE.get(language).format(axis=axis_name(result)), "axis": axis_name(result),
        "time_title": time_title, "peak_title": peak_title.get(language),
        "timeline_title": timeline_title.get(language), "seconds_label": words.SECONDS.get(language),
        "bytes_label": words.BYTES.get(language), "elapsed_label": words.ELAPSED.get(language),
        "peak_kind": result.budget.of.value, "budget": result.budget.bytes,
        "budget_label": budget_label(result, language), "simulated": result.simulated_devices,
        "points": points, "timelines": timelines, "status": status_text(result, language, running),
        "running": running,
    }
