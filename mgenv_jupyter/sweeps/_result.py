"""`SweepResult`: the points of a sweep, the recommendation within a budget, and applying it.

`.frame()` is one row a point; `.best` the fastest point whose peak fits the budget (ties, within `TIE` of the
fastest, go to the lower peak), never a failed one, or None, and `.choice` then says why; `.apply()` sets the best
point's values through the session. Its words are presentation's; here are codes and figures.
"""

from __future__ import annotations

import enum
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, ClassVar

from ..base._display import Shown, view_for
from ..base._kernel_state import LastResultSlot
from ..base._last_result import LastResult
from ..catalog._secrets import shown
from ._grid import Grid
from ._offers import ProfileOffer, profile_offers
from ._point import Outcome, PointResult
from ._replay import SetupPlan

if TYPE_CHECKING:
    import pandas

    from ..runtime._outcome import SetReport
    from ..runtime._session import EnvSession

TIE = 0.01  # points within 1% of the fastest time count as equally fast: the machine's noise is larger
MARGIN = 0.05  # the default budget leaves this share of the device (or the host's memory) free


class BudgetOf(str, enum.Enum):
    DEVICE = "device"  # the point's GPU memory (the process tree's, on its GPU)
    HOST = "host"  # the point's resident host memory (no GPU)


@dataclass(frozen=True)
class Budget:
    """The most memory a point may peak at to be recommended: `bytes` of `of`; `total` and `margin` when it is the
    default (the device's, or the host's, total less the margin); `given` when the user chose it."""

    bytes: int | None
    of: BudgetOf
    total: int | None = None
    margin: float = MARGIN
    given: bool = False
    simulated: bool = False

    def peak(self, point: PointResult) -> int | None:
        return point.peak_device_bytes if self.of is BudgetOf.DEVICE else point.peak_host_bytes


class Choice(str, enum.Enum):
    """Why `.best` is what it is."""

    FASTEST_WITHIN_BUDGET = "fastest_within_budget"
    NOTHING_FINISHED = "nothing_finished"  # no point ran to the end without failing
    VALUES_NOT_HELD = "values_not_held"  # every finished point's kernel had other values than the ones it swept
    NONE_WITHIN_BUDGET = "none_within_budget"  # every finished point peaked above the budget
    NO_PEAK = "no_peak"  # the finished points have no peak of the budget's kind to compare
    LARGEST_FIT = "largest_fit"  # a largest-fit search: the largest value that fit (`_fit.py`)
    NOTHING_FITS = "nothing_fits"  # a largest-fit search: not even the smallest value fit
    FIT_SO_FAR = "fit_so_far"  # a largest-fit search that stopped early: the largest that fit until then, or None

    def __str__(self) -> str:  # print(r.choice), and r.choice shown, read as the view says it, not Choice.NO_PEAK
        view = view_for("sweep_choice", self)
        return "\n".join(view.lines()) if view is not None else self.value

    __repr__ = __str__


@dataclass(frozen=True, repr=False)
class Applied(Shown):
    """What `.apply()` did: the session's report (each variable's status), the variables that need a restart to
    take effect, and whether they were handed to the notebook profile (an open Framework Env sidebar keeps them,
    and its "Restart and apply" brings them into a new kernel). Shown as presentation's `AppliedView`."""

    display_kind: ClassVar[str] = "sweep_applied"

    point: PointResult
    report: SetReport
    restart: tuple[str, ...]
    profile_offered: int  # sidebars told; 0: none is open


@dataclass(repr=False)
class SweepResult(Shown):
    """A sweep: the measured `code`, the swept `grid`, what ran before it (`setup`), every point in order, the
    budget, how points ran (`runner`: "local" or "ray"; `kernel`: the kernelspec's name; `slots`: the GPUs used, or
    [None]), and whether it was `interrupted`. Shown as `%%envsweep` shows it: its figure (live where widgets draw),
    with the static picture, HTML and text."""

    display_kind: ClassVar[str] = "sweep_result"

    code: str
    grid: Grid
    setup: SetupPlan
    points: list[PointResult]
    budget: Budget
    repeat: int = 1
    timeout: float | None = None
    runner: str = "local"
    kernel: str | None = None
    kernel_how: str = "same_python"
    slots: Sequence[int | None] = (None,)
    interrupted: bool = False
    started: float = 0.0
    finished: float = 0.0
    simulated_devices: bool = False
    search: FitSearch | None = None  # a largest-fit search: `.best` is its answer, the points its probes
    force: bool = False  # the sweep ran with --force: `.apply()` sets its values as `%envset --force` would
    _session: Callable[[], EnvSession] | None = field(default=None, repr=False)

    @property
    def variables(self) -> tuple[str, ...]:
        return self.grid.names

    def frame(self) -> pandas.DataFrame:
        """One row a point: a column per variable (the value as given; a secret's masked), `outcome` (a code: ok,
        oom, error, timeout, crashed, not_run), `seconds` (the median of the runs, for finished points),
        `peak_device_bytes` (None without a device), `peak_host_bytes`, then `gpu`, `node`, `fits_budget`, `failure`
        (the exception's class or the signal, or "over_total": it peaked above its whole device) and `values_held`
        (whether the point's kernel had exactly the values it swept: a point that did not is never recommended).
        Sizes are integer bytes."""
        import pandas

        rows = []
        for point in self.points:
            row: dict[str, Any] = dict(point.values)
            peak = self.budget.peak(point)
            row.update({
                "outcome": point.outcome.value, "seconds": point.seconds,
                "peak_device_bytes": point.peak_device_bytes, "peak_host_bytes": point.peak_host_bytes,
                "gpu": point.gpu, "node": point.node,
                "fits_budget": None if peak is None or self.budget.bytes is None else peak <= self.budget.bytes,
                "failure": _failure_code(point),
                "values_held": point.values_held if point.kernel_values else None,
            })
            rows.append(row)
        columns = [*self.variables, "outcome", "seconds", "peak_device_bytes", "peak_host_bytes", "gpu", "node",
                   "fits_budget", "failure", "values_held"]
        frame = pandas.DataFrame(rows, columns=columns)
        for column in ("peak_device_bytes", "peak_host_bytes", "gpu"):
            frame[column] = pandas.array([None if v is None or v != v else int(v) for v in frame[column].tolist()],
                                         dtype="Int64")
        frame["fits_budget"] = frame["fits_budget"].astype("boolean")
        frame["values_held"] = frame["values_held"].astype("boolean")
        frame.attrs["bytes"] = ["peak_device_bytes", "peak_host_bytes"]
        return frame

    @property
    def choice(self) -> Choice:
        return self._choose()[1]

    @property
    def best(self) -> PointResult | None:
        """The fastest finished point whose kernel had exactly its swept values and whose peak fits the budget (ties
        go to the lower peak); None when there is none, and `.choice` says why."""
        return self._choose()[0]

    def _choose(self) -> tuple[PointResult | None, Choice]:
        if self.search is not None:
            return self.search.choose(self.points, self.budget)
        finished = [point for point in self.points if point.outcome is Outcome.OK and point.seconds is not None]
        if not finished:
            return None, Choice.NOTHING_FINISHED
        # A point whose kernel had other values (a kernelspec's env, a launcher) measured something else.
        finished = [point for point in finished if point.values_held]
        if not finished:
            return None, Choice.VALUES_NOT_HELD
        measured = [point for point in finished if self.budget.peak(point) is not None]
        if self.budget.bytes is not None:
            if not measured:
                return None, Choice.NO_PEAK
            finished = [point for point in measured if (self.budget.peak(point) or 0) <= self.budget.bytes]
            if not finished:
                return None, Choice.NONE_WITHIN_BUDGET
        fastest = min(point.seconds or 0.0 for point in finished)
        tied = [point for point in finished if (point.seconds or 0.0) <= fastest * (1 + TIE)]
        best = min(tied, key=lambda point: (self.budget.peak(point) or 0, point.seconds or 0.0, point.index))
        return best, Choice.FASTEST_WITHIN_BUDGET

    def apply(self) -> Applied:
        """Set the best point's values in this kernel through the session (all or nothing, as `%envset`). A value the
        running framework already read takes effect only in a new kernel: it is handed to the notebook profile (an
        open Framework Env sidebar keeps it, and its "Restart and apply" starts a kernel with it), and the result
        says so; `%envdiff` gives "sweep" as the source. A sweep run with `force` applies with it, as
        `%envset --force` would. Raises `InvalidValueError` when there is no best point, saying why."""
        from ..base._errors import InvalidValueError

        best = self.best
        if best is None:
            raise InvalidValueError(str(self.choice))  # "no recommendation: …", the view's words
        from ..runtime import session as kernel_session

        session = (self._session or kernel_session)()
        report = session.set(list(best.environment.items()), source="sweep", force=self.force)
        restart = tuple(change.name for change in report.changes if change.outcome.needs_restart)
        # A profile keeps catalog variables only and never a secret: the kernel refuses both from one anyway.
        kept = {name: best.environment[name] for name in restart
                if session.catalog.get(name) is not None and not change_is_secret(report, name)}
        offered = 0
        if kept:
            offered = profile_offers().observers()
            profile_offers().remember(ProfileOffer(kept))
        return Applied(best, report, restart, offered)

    def to_json(self) -> dict[str, Any]:
        """The result as plain data (the figure's, the static view's and a saved notebook's)."""
        best = self.best
        return {
            "variables": list(self.variables), "code": self.code, "setup": self.setup.code(),
            "replayed": self.setup.replayed, "repeat": self.repeat, "timeout": self.timeout,
            "runner": self.runner, "kernel": self.kernel, "slots": list(self.slots), "interrupted": self.interrupted,
            "budget": {"bytes": self.budget.bytes, "of": self.budget.of.value, "total": self.budget.total,
                       "margin": self.budget.margin, "given": self.budget.given},
            "best": None if best is None else best.index, "choice": self.choice.value,
            "points": [_point_json(point) for point in self.points],
        }


def _failure_code(point: PointResult) -> str | None:
    """The frame's `failure`: the exception's class, the signal, or "over_total" (peaked above its whole device)."""
    failure = point.failure
    if failure is None:
        return None
    return failure.kind or failure.signal_name or ("over_total" if failure.over_total else None)


def change_is_secret(report: SetReport, name: str) -> bool:
    return any(change.secret for change in report.changes if change.name == name)


def _point_json(point: PointResult) -> dict[str, Any]:
    return {
        "index": point.index, "values": dict(point.values), "outcome": point.outcome.value,
        "phase": None if point.phase is None else point.phase.value, "seconds": point.seconds,
        "runs": list(point.runs), "peak_device_bytes": point.peak_device_bytes,
        "device_total_bytes": point.device_total_bytes, "peak_host_bytes": point.peak_host_bytes,
        "framework_peaks": dict(point.framework_peaks), "gpu": point.gpu, "node": point.node,
        "simulated": point.simulated,
        "kernel_values": {name: shown(name, value) for name, value in point.kernel_values.items()},
        "failure": None if point.failure is None else {
            "kind": point.failure.kind, "message": point.failure.message, "framework": point.failure.framework,
            "signal": point.failure.signal_name, "setup_cell": point.failure.setup_cell,
            "over_total": point.failure.over_total},
        "timeline": {"t": list(point.timeline.t), "device": list(point.timeline.device),
                     "host": list(point.timeline.host)},
    }


def last_sweeps() -> LastResult[SweepResult]:
    """The kernel's last sweep, kept in the kernel's state."""
    return _SWEEPS.last()


def last_sweep() -> SweepResult | None:
    """The latest sweep of this kernel (an interrupted one included), or None."""
    return last_sweeps().get()


def default_budget(device_totals: Sequence[int], simulated: bool, host_total: int | None) -> Budget:
    """The device's total less the margin (the smallest device a point may get), or, without a device, the host's."""
    if device_totals:
        total = min(device_totals)
        return Budget(int(total * (1 - MARGIN)), BudgetOf.DEVICE, total=total, simulated=simulated)
    if host_total:
        return Budget(int(host_total * (1 - MARGIN)), BudgetOf.HOST, total=host_total)
    return Budget(None, BudgetOf.HOST)


def given_budget(nbytes: int, has_device: bool) -> Budget:
    return Budget(nbytes, BudgetOf.DEVICE if has_device else BudgetOf.HOST, given=True, margin=0.0)


# A largest-fit search's candidates and choice (`_fit.py` runs it): here, beside the result whose `.best` it
# chooses, so that the result needs nothing of the search's runner.


class Verdict:
    """What one probe says of its value (codes)."""

    FITS = "fits"
    TOO_BIG = "too_big"  # out of memory, killed by the OOM killer, or above the limit
    STOPS = "stops"  # failed for another reason, or interrupted: says nothing about memory


@dataclass(frozen=True)
class Candidates:
    """The values a search may try, in order: `prefix` + each number + `suffix` (a number inside a value, such as
    `max_split_size_mb:64..1024` in an allocator config), or `texts` given one by one; `given` is how the user wrote
    them (shown in the view)."""

    name: str
    given: str
    numbers: range | None = None
    places: int = 0  # decimal places of a decimal range (its numbers are counted in units of 10**-places)
    texts: tuple[str, ...] = ()
    prefix: str = ""
    suffix: str = ""

    def __len__(self) -> int:
        return len(self.numbers) if self.numbers is not None else len(self.texts)

    def text(self, position: int) -> str:
        if self.numbers is None:
            return self.texts[position]
        number = self.numbers[position]
        shown = str(Decimal(number).scaleb(-self.places)) if self.places else str(number)
        return f"{self.prefix}{shown}{self.suffix}"


@dataclass
class FitSearch:
    """A largest-fit search: the candidates, the limit a probe's peak must stay within (the budget less the margin,
    `SweepResult.budget.bytes`), and where each probe sits among the candidates (`positions`, by point index)."""

    candidates: Candidates
    positions: list[int] = field(default_factory=list)

    def verdict(self, point: PointResult, budget: Budget) -> str:
        if point.outcome is Outcome.OUT_OF_MEMORY:
            return Verdict.TOO_BIG
        if point.outcome is Outcome.CRASHED and point.failure is not None and point.failure.signal == signal.SIGKILL:
            return Verdict.TOO_BIG
        if point.outcome is not Outcome.OK:
            return Verdict.STOPS
        peak = budget.peak(point)
        if peak is None or budget.bytes is None:
            return Verdict.STOPS
        return Verdict.FITS if peak <= budget.bytes else Verdict.TOO_BIG

    def choose(self, points: Sequence[PointResult], budget: Budget) -> tuple[PointResult | None, Choice]:
        """The largest probe that fit, and why the answer is what it is."""
        fitting = [point for point in points if self.verdict(point, budget) == Verdict.FITS]
        stopped = any(self.verdict(point, budget) == Verdict.STOPS for point in points)
        best = max(fitting, key=lambda point: self.positions[point.index], default=None)
        if stopped:
            return best, Choice.FIT_SO_FAR
        if best is None:
            return None, Choice.NOTHING_FITS
        return best, Choice.LARGEST_FIT

    def position(self, point: PointResult) -> int:
        return self.positions[point.index]


_SWEEPS: LastResultSlot[SweepResult] = LastResultSlot("sweep")
