"""The recommendation within a budget and the frame, from points as the probe reports them."""

from __future__ import annotations

import importlib
import json
import re

import pytest

from mgenv_jupyter import AlreadyReadWarning, InvalidValueError
from mgenv_jupyter.base._text import Text
from mgenv_jupyter.catalog import Catalog, Entry, ReadWhen
from mgenv_jupyter.catalog._values import Size
from mgenv_jupyter.presentation.sweep import AppliedView
from mgenv_jupyter.runtime import EnvSession, ImportWatcher, Status
from mgenv_jupyter.sweeps._grid import Grid, Variable
from mgenv_jupyter.sweeps._offers import profile_offers
from mgenv_jupyter.sweeps._point import Failure, Outcome, Phase, PointResult
from mgenv_jupyter.sweeps._replay import SetupPlan
from mgenv_jupyter.sweeps._result import Budget, BudgetOf, Choice, SweepResult, default_budget

GiB = 1024**3
NAME = "MEGENGINE_DTR_EVICTION_THRESHOLD"


def point(index: int, outcome: Outcome = Outcome.OK, seconds: float | None = 1.0, peak: int | None = GiB,
          host: int | None = 2 * GiB) -> PointResult:
    value = f"{index + 1}GB"
    return PointResult(index, {NAME: value}, {NAME: str((index + 1) * GiB)}, outcome,
                       phase=None if outcome is Outcome.OK else Phase.CELL,
                       failure=None if outcome is Outcome.OK else Failure(kind="builtins.MemoryError"),
                       runs=() if seconds is None else (seconds,), peak_device_bytes=peak, peak_host_bytes=host,
                       kernel_values={NAME: str((index + 1) * GiB)})


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
    with pytest.raises(InvalidValueError, match=re.escape(str(choice))):
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

# ---- apply() ----------------------------------------------------------------------------------------------------

T = Text("probe", "探针")


@pytest.fixture
def probe(probe_module):
    reader = probe_module("mgenv_sweep_reader", ["PROBE_THRESHOLD"])
    known = Catalog((Entry(name="PROBE_THRESHOLD", framework="probe", category=T, default=None, type=Size(),
                           when=ReadWhen.IMPORT, readers=(reader,), read_at="probe", description=T),))
    watcher = ImportWatcher([reader])
    watcher.install()
    session = EnvSession(watcher, known=known)
    yield session, reader
    watcher.uninstall()


def swept(session: EnvSession) -> SweepResult:
    points = [PointResult(0, {"PROBE_THRESHOLD": "1GB"}, {"PROBE_THRESHOLD": str(1024**3)}, Outcome.OK, runs=(2.0,),
                          peak_host_bytes=100, kernel_values={"PROBE_THRESHOLD": str(1024**3)}),
              PointResult(1, {"PROBE_THRESHOLD": "2GB"}, {"PROBE_THRESHOLD": str(2 * 1024**3)}, Outcome.OK,
                          runs=(1.0,), peak_host_bytes=200, kernel_values={"PROBE_THRESHOLD": str(2 * 1024**3)})]
    grid = Grid((Variable("PROBE_THRESHOLD", ("1GB", "2GB"), (str(1024**3), str(2 * 1024**3))),))
    return SweepResult("run()", grid, SetupPlan((), True), points, Budget(1000, BudgetOf.HOST),
                       _session=lambda: session)


def test_before_the_import_the_best_value_is_set_and_nothing_needs_a_restart(probe):
    session, reader = probe
    applied = swept(session).apply()
    assert applied.point.index == 1 and applied.restart == ()
    assert applied.report["PROBE_THRESHOLD"].outcome is Status.PENDING_IMPORT
    assert importlib.import_module(reader).SEEN["PROBE_THRESHOLD"] == str(2 * 1024**3)
    assert AppliedView(applied, "en").lines() == ["Set PROBE_THRESHOLD in this kernel."]


def test_after_the_import_the_value_goes_to_every_open_sidebar_for_the_profile(probe):
    session, reader = probe
    importlib.import_module(reader)
    offered: list = []
    profile_offers().observe(offered.append)
    try:
        with pytest.warns(AlreadyReadWarning):
            applied = swept(session).apply()
    finally:
        profile_offers().unobserve(offered.append)
    assert applied.restart == ("PROBE_THRESHOLD",) and applied.profile_offered == 1
    assert [dict(offer.assignments) for offer in offered] == [{"PROBE_THRESHOLD": str(2 * 1024**3)}]
    text = " ".join(AppliedView(applied, "en").lines())
    assert "take effect in a new kernel" in text and "Restart and apply" in text
    assert "重启并应用" in " ".join(AppliedView(applied, "zh").lines())


def test_with_no_sidebar_open_the_result_says_how_to_apply_it_after_a_restart(probe):
    session, reader = probe
    importlib.import_module(reader)
    with pytest.warns(AlreadyReadWarning):
        applied = swept(session).apply()
    assert applied.profile_offered == 0
    text = " ".join(AppliedView(applied, "en").lines())
    assert "No Framework Env panel is open" in text and f"%envset PROBE_THRESHOLD={2 * 1024**3}" in text


def test_an_open_sidebar_is_sent_the_offer_as_a_notice(fresh_session):
    from mgenv_jupyter.comms._requests import SidebarComm
    from mgenv_jupyter.sweeps._offers import ProfileOffer

    class RecordingComm:
        def __init__(self) -> None:
            self.sent: list[dict] = []
            self.on_closed = None

        def send(self, data: dict) -> None:
            self.sent.append(json.loads(json.dumps(data)))

        def on_msg(self, callback) -> None:
            pass

        def on_close(self, callback) -> None:
            self.on_closed = callback

    comm = RecordingComm()
    SidebarComm(comm, fresh_session)
    profile_offers().remember(ProfileOffer({"MEGENGINE_DTR_EVICTION_THRESHOLD": "4294967296"}))
    assert comm.sent[-1] == {"type": "profile_offer", "assignments": {"MEGENGINE_DTR_EVICTION_THRESHOLD": "4294967296"}}
    comm.on_closed()
    before = len(comm.sent)
    profile_offers().remember(ProfileOffer({"X": "1"}))
    assert len(comm.sent) == before  # a closed sidebar hears nothing more
