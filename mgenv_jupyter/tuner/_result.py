"""`SweepResult`: the points of a sweep, the recommendation within a budget, and applying it.

`.frame()` is one row a point; `.best` the fastest point whose peak fits the budget (ties, within `TIE` of the
fastest, go to the lower peak), never a failed one, or None, and `.choice` then says why; `.apply()` sets the best
point's values through the session. Its words are presentation's; here are codes and figures.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from .._display import Shown
from .._kernel_state import kernel_state
from .._last_result import LastResult
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
    NONE_WITHIN_BUDGET = "none_within_budget"  # every finished point peaked above the budget
    NO_PEAK = "no_peak"  # the finished points have no peak of the budget's kind to compare


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
    _session: Callable[[], EnvSession] | None = field(default=None, repr=False)

    @property
    def variables(self) -> tuple[str, ...]:
        return self.grid.names

    def frame(self) -> pandas.DataFrame:
        """One row a point: a column per variable (the value as given), `outcome` (a code: ok, oom, error, timeout,
        crashed, not_run), `seconds` (the median of the runs, for finished points), `peak_device_bytes` (None without
        a device), `peak_host_bytes`, then `gpu`, `node`, `fits_budget` and `failure` (the exception's class or the
        signal). Sizes are integer bytes."""
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
                "failure": None if point.failure is None else (point.failure.kind or point.failure.signal_name),
            })
            rows.append(row)
        columns = [*self.variables, "outcome", "seconds", "peak_device_bytes", "peak_host_bytes", "gpu", "node",
                   "fits_budget", "failure"]
        frame = pandas.DataFrame(rows, columns=columns)
        for column in ("peak_device_bytes", "peak_host_bytes", "gpu"):
            frame[column] = pandas.array([None if v is None or v != v else int(v) for v in frame[column].tolist()],
                                         dtype="Int64")
        frame["fits_budget"] = frame["fits_budget"].astype("boolean")
        frame.attrs["bytes"] = ["peak_device_bytes", "peak_host_bytes"]
        return frame

    @property
    def choice(self) -> Choice:
        return self._choose()[1]

    @property
    def best(self) -> PointResult | None:
        """The fastest finished point whose peak fits the budget (ties go to the lower peak); None when there is
        none, and `.choice` says why."""
        return self._choose()[0]

    def _choose(self) -> tuple[PointResult | None, Choice]:
        finished = [point for point in self.points if point.outcome is Outcome.OK and point.seconds is not None]
        if not finished:
            return None, Choice.NOTHING_FINISHED
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
        says so. Raises `InvalidValueError` when there is no best point, saying why."""
        from .._errors import InvalidValueError

        best = self.best
        if best is None:
            raise InvalidValueError(f"no point to apply: {self.choice.value}")
        from ..runtime import session as kernel_session

        session = (self._session or kernel_session)()
        report = session.set(list(best.environment.items()), source="api")
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


def change_is_secret(report: SetReport, name: str) -> bool:
    return any(change.secret for change in report.changes if change.name == name)


def _point_json(point: PointResult) -> dict[str, Any]:
    return {
        "index": point.index, "values": dict(point.values), "outcome": point.outcome.value,
        "phase": None if point.phase is None else point.phase.value, "seconds": point.seconds,
        "runs": list(point.runs), "peak_device_bytes": point.peak_device_bytes,
        "device_total_bytes": point.device_total_bytes, "peak_host_bytes": point.peak_host_bytes,
        "framework_peaks": dict(point.framework_peaks), "gpu": point.gpu, "node": point.node,
        "simulated": point.simulated, "kernel_values": dict(point.kernel_values),
        "failure": None if point.failure is None else {
            "kind": point.failure.kind, "message": point.failure.message, "framework": point.failure.framework,
            "signal": point.failure.signal_name, "setup_cell": point.failure.setup_cell},
        "timeline": {"t": list(point.timeline.t), "device": list(point.timeline.device),
                     "host": list(point.timeline.host)},
    }


def last_sweeps() -> LastResult[SweepResult]:
    """The kernel's last sweep, kept in the kernel's state."""
    return kernel_state().sweeps


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

