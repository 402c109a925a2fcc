"""The recommendation within a budget and the frame, from points as the probe reports them."""

from __future__ import annotations

import pytest

from mgenv_jupyter import InvalidValueError
from mgenv_jupyter.tuner._grid import Grid, Variable
from mgenv_jupyter.tuner._point import Failure, Outcome, Phase, PointResult
from mgenv_jupyter.tuner._replay import SetupPlan
from mgenv_jupyter.tuner._result import Budget, BudgetOf, Choice, SweepResult, default_budget

GiB = 1024**3
NAME = "MEGENGINE_DTR_EVICTION_THRESHOLD"


def point(index: int, outcome: Outcome = Outcome.OK, seconds: float | None = 1.0, peak: int | None = GiB,
          host: int | None = 2 * GiB) -> PointResult:
    value = f"{index + 1}GB"
    return PointResult(index, {NAME: value}, {NAME: str((index + 1) * GiB)}, outcome,
                       phase=None if outcome is Outcome.OK else Phase.CELL,
                       failure=None if outcome is Outcome.OK else Failure(kind="builtins.MemoryError"),
                       runs=() if seconds is None else (seconds,), peak_device_bytes=peak, peak_host_bytes=host)


def result(points: list[PointResult], budget: Budget) -> SweepResult:
    grid = Grid((Variable(NAME, tuple(p.values[NAME] for p in points), tuple(p.environment[NAME] for p in points)),))
    return SweepResult("train()", grid, SetupPlan((), True), points, budget)


DEVICE_BUDGET = Budget(10 * GiB, BudgetOf.DEVICE, total=11 * GiB)


def test_the_fastest_point_within_the_budget_is_best():
    swept = result([point(0, seconds=3.0, peak=8 * GiB), point(1, seconds=2.0, peak=9 * GiB),
                    point(2, seconds=1.0, peak=11 * GiB)], DEVICE_BUDGET)
    assert swept.best is not None and swept.best.index == 1 and swept.choice is Choice.FASTEST_WITHIN_BUDGET


def test_a_failed_point_is_never_best_however_fast():
    swept = result([point(0, seconds=3.0), point(1, Outcome.OUT_OF_MEMORY, seconds=None, peak=None)], DEVICE_BUDGET)
    assert swept.best is not None and swept.best.index == 0


def test_ties_go_to_the_lower_peak():
    swept = result([point(0, seconds=2.0, peak=9 * GiB), point(1, seconds=2.01, peak=6 * GiB),
                    point(2, seconds=2.5, peak=1 * GiB)], DEVICE_BUDGET)
    assert swept.best is not None and swept.best.index == 1


@pytest.mark.parametrize("points, choice", [
    ([point(0, Outcome.ERROR, seconds=None), point(1, Outcome.TIMEOUT, seconds=None)], Choice.NOTHING_FINISHED),
    ([point(0, peak=12 * GiB), point(1, peak=13 * GiB)], Choice.NONE_WITHIN_BUDGET),
    ([point(0, peak=None), point(1, peak=None)], Choice.NO_PEAK),
])
def test_no_best_says_why(points, choice):
    swept = result(points, DEVICE_BUDGET)
    assert swept.best is None and swept.choice is choice
    with pytest.raises(InvalidValueError, match=choice.value):
        swept.apply()


def test_without_a_device_the_budget_is_of_host_memory():
    budget = default_budget([], simulated=False, host_total=16 * GiB)
    assert budget.of is BudgetOf.HOST and budget.bytes == int(16 * GiB * 0.95)
    swept = result([point(0, seconds=1.0, peak=None, host=20 * GiB), point(1, seconds=2.0, peak=None, host=GiB)],
                   budget)
    assert swept.best is not None and swept.best.index == 1


def test_the_default_device_budget_is_the_smallest_device_less_the_margin():
    budget = default_budget([40 * GiB, 16 * GiB], simulated=True, host_total=None)
    assert (budget.of, budget.total, budget.bytes, budget.simulated) == (BudgetOf.DEVICE, 16 * GiB,
                                                                         int(16 * GiB * 0.95), True)


def test_the_frame_has_a_row_a_point_and_the_promised_columns():
    swept = result([point(0, seconds=3.0, peak=8 * GiB), point(1, Outcome.OUT_OF_MEMORY, seconds=None, peak=None)],
                   DEVICE_BUDGET)
    frame = swept.frame()
    assert list(frame.columns[:5]) == [NAME, "outcome", "seconds", "peak_device_bytes", "peak_host_bytes"]
    assert frame[NAME].tolist() == ["1GB", "2GB"] and frame["outcome"].tolist() == ["ok", "oom"]
    assert frame["seconds"].iloc[0] == 3.0 and frame["seconds"].isna().iloc[1]
    assert str(frame["peak_device_bytes"].dtype) == "Int64" and frame["peak_device_bytes"].iloc[0] == 8 * GiB
    assert frame["failure"].isna().iloc[0] and frame["failure"].iloc[1] == "builtins.MemoryError"


def test_the_median_of_the_runs_is_the_points_time():
    runs = PointResult(0, {NAME: "1GB"}, {NAME: str(GiB)}, Outcome.OK, runs=(5.0, 1.0, 2.0))
    assert runs.seconds == 2.0
