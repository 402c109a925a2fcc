""""Will it fit": the largest value of one variable whose point ends without running out of memory and peaks within
the budget less a margin, found by bisection, each probe a fresh kernel (`%%envsweep NAME=LOW..HIGH --largest-fit`,
`sweep(code, {"NAME": range(LOW, HIGH + 1)}, search="largest_fit")`).

The search assumes what a batch size, a DTR threshold, an allocator's split size or a memory fraction have in common:
memory grows with the value, so when one value does not fit, no larger one does. Then ⌈log2(n + 1)⌉ probes find the
largest of n candidates. A probe does not fit when it ran out of memory, when its kernel was killed by SIGKILL (the
kernel's OOM killer on the host), or when it peaked above the limit; a probe that failed for another reason (an
error, a time-out, another crash) stops the search, since it says nothing about memory, and the largest value that
fit so far is kept with the reason.

Each probe runs in a fresh local kernel through the sweep's own point machinery (`_local.py`, `_schedule.py`), one
at a time: the next probe depends on the last. The result is a `SweepResult` whose points are the probes in the
order they ran and whose `search` is a `FitSearch`; its `.best` is the answer and `.apply()` sets it.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from pathlib import Path

from ..base._errors import InvalidValueError
from ..base._text import Text
from ..runtime._session import EnvSession
from ._grid import Grid, Variable
from ._kernels import kernel_for_points, sweep_directory
from ._local import Job, Measure, StartedPoint
from ._point import Outcome, PointResult, failed_point
from ._replay import SetupPlan
from ._result import Budget, BudgetOf, Candidates, FitSearch, SweepResult, Verdict, last_sweeps
from ._run import DEFAULT_TIMEOUT, _host_total, checked_budget, checked_code, checked_repeat, checked_seconds, gpu_slots
from ._schedule import run_on_slots

DEFAULT_MARGIN = 0.10
MAX_TEXT = 1000  # a value's text on the magic line; longer is a mistake, and keeps every scan short
_NUMBER = "0123456789."

NOT_ONE = Text("--largest-fit searches one variable: give one NAME=LOW..HIGH (got {count})",
               "--largest-fit 只搜索一个变量:请给出一个 NAME=LOW..HIGH(实际给了 {count} 个)")
NO_RANGE = Text("{name}: give the values to search as LOW..HIGH (such as 1..1024 or 0.50..0.95; inside a value: "
                "max_split_size_mb:64..1024), a range(LOW, HIGH + 1) or a list in increasing order",
                "{name}:请把要搜索的取值写成 LOW..HIGH(如 1..1024 或 0.50..0.95;写在取值中间:"
                "max_split_size_mb:64..1024)、range(LOW, HIGH + 1) 或递增的列表")
NOT_NUMBERS = Text("{name}: LOW and HIGH must be numbers without a sign (such as 1..1024 or 0.50..0.95), not {given!r}",
                   "{name}:LOW 和 HIGH 必须是不带符号的数(如 1..1024 或 0.50..0.95),而不是 {given!r}")
LOW_ABOVE_HIGH = Text("{name}: LOW ({low}) is above HIGH ({high}): write the smaller value first",
                      "{name}:LOW({low})大于 HIGH({high}):请把较小的值写在前面")
NOT_INCREASING = Text("{name}: the values to search must be numbers in increasing order (the search assumes larger "
                      "values use more memory)",
                      "{name}:要搜索的取值必须是递增的数(搜索假设取值越大占用内存越多)")
BAD_MARGIN = Text("margin must be a share of the budget from 0 up to but not including 100%, such as 10% or 0.1, "
                  "not {value!r}",
                  "margin 必须是预算的比例,从 0 到 100%(不含 100%),如 10% 或 0.1,而不是 {value!r}")
NO_BUDGET = Text("no budget is known (no GPU, and this machine's memory could not be read): give one, such as "
                 "--budget 10GB or budget='10GB'",
                 "预算未知(没有 GPU,也读不到本机内存):请给出预算,如 --budget 10GB 或 budget='10GB'")
NOTHING_CHANGED = Text(" (nothing was started)", "(没有启动任何内核)")


def candidates(name: str, raw: object) -> Candidates:
    """The candidates `raw` describes: a text holding one LOW..HIGH, a `range`, or a list of numbers in increasing
    order. Raises `InvalidValueError` saying what is allowed."""
    shown = name if len(name) <= 100 else "the name"
    if isinstance(raw, range):
        if len(raw) == 0 or raw.step <= 0:
            raise InvalidValueError(LOW_ABOVE_HIGH.get().format(name=shown, low=raw.start, high=raw.stop - 1))
        if raw.start < 0:
            raise InvalidValueError(NOT_NUMBERS.get().format(name=shown, given=str(raw)))
        return Candidates(name, f"{raw[0]}..{raw[-1]}", numbers=raw)
    if isinstance(raw, str):
        return _range_text(shown, name, raw)
    if isinstance(raw, (list, tuple)) and raw:
        numbers: list[Decimal] = []
        for value in raw:
            if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise InvalidValueError(NOT_INCREASING.get().format(name=shown))
            number = _decimal(str(value))
            if number is None or (numbers and number <= numbers[-1]):
                raise InvalidValueError(NOT_INCREASING.get().format(name=shown))
            numbers.append(number)
        texts = tuple(value if isinstance(value, str) else str(value) for value in raw)
        return Candidates(name, ",".join(texts) if len(texts) <= 8 else f"{texts[0]}…{texts[-1]}", texts=texts)
    raise InvalidValueError(NO_RANGE.get().format(name=shown))


def _range_text(shown: str, name: str, text: str) -> Candidates:
    """`LOW..HIGH` inside `text`: the digits and dots just before and just after the one `..`."""
    if len(text) > MAX_TEXT or text.count("..") != 1:
        raise InvalidValueError(NO_RANGE.get().format(name=shown))
    left, _, right = text.partition("..")
    after = right[len(right) - len(right.lstrip(_NUMBER)):].split(",")[0]
    if after and left.endswith(after) and left[:-len(after)][-1:].isdigit():  # a unit on both ends: 1GB..8GB
        left = left[:-len(after)]
    low_text = left[len(left.rstrip(_NUMBER)):]
    high_text = right[:len(right) - len(right.lstrip(_NUMBER))]
    low, high = _decimal(low_text), _decimal(high_text)
    signed = left[:len(left) - len(low_text)].endswith(("-", "+")) or right[len(high_text):].startswith(("e", "E"))
    if low is None or high is None or signed or right.startswith(("-", "+")):
        raise InvalidValueError(NOT_NUMBERS.get().format(name=shown, given=text[:60]))
    if low > high:
        raise InvalidValueError(LOW_ABOVE_HIGH.get().format(name=shown, low=low_text, high=high_text))
    places = max(_places(low_text), _places(high_text))
    unit = Decimal(1).scaleb(-places)
    numbers = range(int(low / unit), int(high / unit) + 1)
    return Candidates(name, text, numbers=numbers, places=places, prefix=left[:len(left) - len(low_text)],
                      suffix=right[len(high_text):])


def _decimal(text: str) -> Decimal | None:
    """A number without a sign or an exponent, or None."""
    if not text or text.count(".") > 1 or text.startswith(".") or text.endswith("."):
        return None
    if not all(char in _NUMBER for char in text):
        return None
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def _places(text: str) -> int:
    return len(text.partition(".")[2])


def checked_margin(value: object) -> float:
    """A share of the budget: a number from 0 up to 1 (0.1), or a text in percent ("10%")."""
    if value is None:
        return DEFAULT_MARGIN
    share: float | None = None
    if isinstance(value, str) and value.strip().endswith("%"):
        number = _decimal(value.strip()[:-1].strip())
        share = None if number is None else float(number) / 100
    elif isinstance(value, str):
        number = _decimal(value.strip())
        share = None if number is None else float(number)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        share = float(value)
    if share is None or not 0 <= share < 1:
        raise InvalidValueError(BAD_MARGIN.get().format(value=value if not isinstance(value, str) else value[:40]))
    return share


Observer = Callable[[SweepResult], None]
OnProbe = Callable[[SweepResult, PointResult], None]


def run_largest_fit(code: str, name: str, raw: object, setup: SetupPlan, *, session: EnvSession,
                    repeat: object = 1, timeout: object = DEFAULT_TIMEOUT, setup_timeout: object = None,
                    budget: object = None, margin: object = None, kernel: str | None = None, force: bool = False,
                    source: str = "api", on_start: Observer | None = None,
                    on_point: OnProbe | None = None) -> SweepResult:
    """Find the largest of `raw`'s values (see `candidates`) whose point fits; see the module help."""
    checked_code(code)
    repeats = checked_repeat(repeat)
    limit = checked_seconds(timeout, "timeout")
    setup_limit = checked_seconds(setup_timeout, "setup_timeout")
    given = checked_budget(budget)
    share = checked_margin(margin)
    if not isinstance(name, str) or not name:
        raise InvalidValueError(NO_RANGE.get().format(name="the name"))
    values = candidates(name, raw)
    # A catalog type's valid numbers form one interval (a minimum, a maximum): both ends checked, every value is.
    _normalised(session, name, values.text(0), source, force)
    _normalised(session, name, values.text(len(values) - 1), source, force)
    slots, totals, simulated = gpu_slots(1)
    total = given if given is not None else (min(totals) if totals else _host_total())
    if total is None:
        raise InvalidValueError(NO_BUDGET.get() + NOTHING_CHANGED.get())
    choice = kernel_for_points(kernel)
    fit_budget = Budget(int(total * (1 - share)), BudgetOf.DEVICE if totals else BudgetOf.HOST, total=total,
                        margin=share, given=given is not None, simulated=simulated)
    search = FitSearch(values)
    result = SweepResult(code, Grid((Variable(name, (), ()),)), setup, [], fit_budget, repeat=repeats, timeout=limit,
                         runner="local", kernel=choice.name, kernel_how=choice.how, slots=tuple(slots),
                         started=time.time(), simulated_devices=simulated, search=search)
    # Before anything is shown: a TMPDIR too long for the points' sockets is said here (_kernels.sweep_directory).
    workdir = sweep_directory(len(values))
    if on_start is not None:
        on_start(result)
    measure = Measure(code, setup, repeats, limit, setup_limit)
    low, high = 0, len(values) - 1
    try:
        while low <= high:
            middle = (low + high) // 2
            point, interrupted = _probe(result, search, middle, measure, choice, workdir, session, source, force)
            if on_point is not None:
                on_point(result, point)
            if interrupted:
                result.interrupted = True
                break
            verdict = search.verdict(point, fit_budget)
            if verdict == Verdict.STOPS:
                break
            if verdict == Verdict.FITS:
                low = middle + 1
            else:
                high = middle - 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    result.finished = time.time()
    last_sweeps().remember(result)
    return result


def _probe(result: SweepResult, search: FitSearch, position: int, measure: Measure, choice: object, workdir: Path,
           session: EnvSession, source: str, force: bool) -> tuple[PointResult, bool]:
    """Run the candidate at `position` as the result's next point; the point, and whether it was interrupted."""
    name, text = search.candidates.name, search.candidates.text(position)
    environment = {name: _normalised(session, name, text, source, force)}
    index = len(result.points)
    job = Job(index, {name: text}, environment, result.slots[0])
    variable = result.grid.variables[0]
    result.grid = Grid((Variable(name, (*variable.given, text), (*variable.values, environment[name])),))
    search.positions.append(position)
    result.points.append(failed_point(index, job.values, environment, Outcome.NOT_RUN, None))

    def start_point(_: int, gpu: int | None, cancelled: threading.Event) -> StartedPoint:
        return StartedPoint(job, measure, choice, workdir, cancelled)  # type: ignore[arg-type]

    points, interrupted = run_on_slots(1, [job.gpu], start_point, lambda *_: result.points[index])
    result.points[index] = points[0]
    return points[0], interrupted


def _normalised(session: EnvSession, name: str, text: str, source: str, force: bool) -> str:
    """The value as the point's environment gets it, checked as `%envset` checks it."""
    try:
        return session.check([(name, text)], source=source, force=force)[name] or ""
    except InvalidValueError as exc:
        raise InvalidValueError(str(exc) + NOTHING_CHANGED.get()) from None
