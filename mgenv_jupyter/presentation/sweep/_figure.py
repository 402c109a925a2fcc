"""A sweep result as the figure's data (`protocol._sweep.SweepFigure`), in the view's language: what the live chart
draws and the static picture shows."""

from __future__ import annotations

from ...catalog._values import format_size
from ...protocol._sweep import SweepFigure, SweepPointInfo, SweepTimeline
from ...sweeps._fit import Verdict
from ...sweeps._point import Outcome, PointResult
from ...sweeps._result import BudgetOf, Choice, SweepResult
from . import _words as words


def point_label(result: SweepResult, point: PointResult) -> str:
    """The point on the setting axis: its value as given, or its values joined for a grid."""
    if len(result.variables) == 1:
        return next(iter(point.values.values()), "")
    return " · ".join(f"{name}={value}" for name, value in point.values.items())


def axis_label(result: SweepResult, point: PointResult) -> str:
    """The point on the figure's setting axis and in its legend: a grid's values only, in the order of the axis's
    names ("1 · auto_growth" under "OMP_NUM_THREADS × FLAGS_allocator_strategy"), so two points never read alike
    when the names would have filled the room."""
    return " · ".join(point.values.values())


def axis_name(result: SweepResult) -> str:
    return " × ".join(result.variables)


def seconds_text(seconds: float) -> str:
    return f"{seconds:.3g}" if seconds < 100 else f"{seconds:.0f}"


def failure_note(point: PointResult, language: str, timeout: float | None = None) -> str:
    """Why a point failed, in a few words: the signal, or the exception's class and the first line of its message;
    the time limit it ran past; and where."""
    if not point.failed:
        return ""
    failure = point.failure
    parts = []
    if point.outcome is Outcome.TIMEOUT and timeout is not None:
        parts.append(words.OVER_LIMIT.get(language).format(seconds=seconds_text(timeout)))
    if failure is not None and failure.signal is not None:
        parts.append(words.SIGNAL.get(language).format(signal=failure.signal_name))
    elif failure is not None and failure.kind:
        kind = failure.kind.rpartition(".")[2]
        reason = _first_line(failure.message)
        parts.append(f"{kind}: {reason}" if reason else kind)
    elif failure is not None and failure.over_total and point.device_total_bytes:
        parts.append(words.OVER_TOTAL.get(language).format(total=format_size(point.device_total_bytes)))
    if point.phase is not None:
        phase = words.PHASES[point.phase.value].get(language)
        cell = failure.setup_cell + 1 if failure is not None and failure.setup_cell is not None else 0
        parts.append(phase.format(cell=cell))
    return ", ".join(parts)


MAX_REASON = 80  # characters of an exception's message beside a point: its first line, enough to say why


def _first_line(message: str | None) -> str:
    """The message's first non-empty line, cut to MAX_REASON characters (already masked and bounded by the probe)."""
    if not message:
        return ""
    line = next((line.strip() for line in message[:4 * MAX_REASON].splitlines() if line.strip()), "")
    return line if len(line) <= MAX_REASON else line[:MAX_REASON - 1] + "…"


def budget_label(result: SweepResult, language: str) -> str:
    budget = result.budget
    if budget.bytes is None:
        return words.NO_BUDGET.get(language)
    if budget.total is None or not budget.margin:
        return words.BUDGET_GIVEN.get(language).format(size=format_size(budget.bytes))
    return words.BUDGET_DEFAULT.get(language).format(size=format_size(budget.bytes), total=format_size(budget.total),
                                                      margin=budget.margin * 100)


def _after(head: str, sentence: str) -> str:
    """`sentence` as the second of two: capitalised after the first's full stop."""
    return f"{head} {sentence[:1].upper()}{sentence[1:]}" if head else sentence


def status_text(result: SweepResult, language: str, running: bool) -> str:
    if result.search is not None:
        return _fit_status(result, language, running)
    done = sum(point.outcome is not Outcome.NOT_RUN for point in result.points)
    count = len(result.points)
    if running:
        return words.RUNNING.get(language).format(done=done, count=count)
    head = words.INTERRUPTED.get(language).format(done=done, count=count) if result.interrupted else ""
    best = result.best
    if best is None:
        return _after(head, words.CHOICES[result.choice.value].get(language))
    peak = result.budget.peak(best)
    values = ", ".join(f"{name}={value}" for name, value in best.values.items())
    if peak is None:
        return _after(head, words.BEST_NO_PEAK.get(language).format(values=values,
                                                                    seconds=seconds_text(best.seconds or 0)))
    return _after(head, words.BEST.get(language).format(values=values, seconds=seconds_text(best.seconds or 0),
                                                        peak=format_size(peak)))


def fit_limit(result: SweepResult, language: str) -> str:
    budget = result.budget
    limit = format_size(budget.bytes or 0)
    if not budget.margin or budget.total is None:
        return limit
    return words.FIT_LIMIT.get(language).format(limit=limit, budget=format_size(budget.total),
                                                margin=round(budget.margin * 100, 2))


def _fit_status(result: SweepResult, language: str, running: bool) -> str:
    """A largest-fit search in one or two sentences: searching, found, nothing fits, or where it stopped and why."""
    search, budget = result.search, result.budget
    assert search is not None
    name = search.candidates.name
    probes = [point for point in result.points if point.outcome is not Outcome.NOT_RUN]
    done, limit = len(probes), fit_limit(result, language)
    if running:
        return words.FIT_RUNNING.get(language).format(name=name, given=search.candidates.given, limit=limit,
                                                     done=done)
    best, choice = result.best, result.choice
    if choice is Choice.LARGEST_FIT and best is not None:
        text = words.FIT_FOUND.get(language).format(name=name, value=best.values[name],
                                                   peak=format_size(budget.peak(best) or 0), limit=limit, done=done)
        above = [point for point in probes if search.position(point) == search.position(best) + 1]
        if above:
            text += words.FIT_FOUND_ABOVE.get(language).format(above=above[0].values[name])
        return text
    if choice is Choice.NOTHING_FITS:
        smallest = min(probes, key=search.position)
        return words.FIT_NOTHING.get(language).format(name=name, value=smallest.values[name], done=done,
                                                     why=_why(result, smallest, language))
    head = words.FIT_INTERRUPTED.get(language).format(done=done) if result.interrupted else ""
    last = next((point for point in reversed(probes) if search.verdict(point, budget) == Verdict.STOPS), None)
    if last is not None and not result.interrupted:
        head = words.FIT_STOPPED.get(language).format(name=name, value=last.values[name],
                                                      why=_why(result, last, language)) + "."
    tail = (words.FIT_NONE_SO_FAR.get(language) if best is None else words.FIT_SO_FAR.get(language).format(
        name=name, value=best.values[name], peak=format_size(budget.peak(best) or 0)))
    return _after(head, tail)


def _why(result: SweepResult, point: PointResult, language: str) -> str:
    """Why a probe did not fit or stopped the search: its outcome and reason, or its peak above the limit."""
    if point.outcome is Outcome.OK:
        return words.FIT_OVER.get(language).format(peak=format_size(result.budget.peak(point) or 0),
                                                   limit=format_size(result.budget.bytes or 0))
    note = failure_note(point, language, result.timeout)
    outcome = words.OUTCOMES[point.outcome.value].get(language)
    return f"{outcome} ({note})" if note else outcome


def title(result: SweepResult, language: str) -> str:
    if result.search is not None:
        return words.FIT_TITLE.get(language).format(name=result.search.candidates.name,
                                                    given=result.search.candidates.given)
    return words.TITLE.get(language).format(axis=axis_name(result))


def figure(result: SweepResult, language: str, running: bool = False) -> SweepFigure:
    device = result.budget.of is BudgetOf.DEVICE
    best = None if running else result.best
    points: list[SweepPointInfo] = []
    timelines: list[SweepTimeline] = []
    shown = result.points
    if result.search is not None:  # probes in the order of their values, not the order they ran
        shown = sorted(result.points, key=result.search.position)
    for point in shown:
        label = axis_label(result, point)
        peak = result.budget.peak(point)
        points.append({
            "index": point.index, "label": label, "outcome": point.outcome.value,
            "outcome_label": words.OUTCOMES[point.outcome.value].get(language), "seconds": point.seconds,
            "peak": peak, "best": best is not None and best.index == point.index, "failed": point.failed,
            "note": failure_note(point, language, result.timeout), "gpu": point.gpu,
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
        "title": title(result, language), "axis": axis_name(result),
        "time_title": time_title, "peak_title": peak_title.get(language),
        "timeline_title": timeline_title.get(language), "seconds_label": words.SECONDS.get(language),
        "bytes_label": words.BYTES.get(language), "elapsed_label": words.ELAPSED.get(language),
        "peak_kind": result.budget.of.value, "budget": result.budget.bytes,
        "budget_label": budget_label(result, language), "simulated": result.simulated_devices,
        "points": points, "timelines": timelines, "status": status_text(result, language, running),
        "running": running,
    }
