"""`SweepResult.apply()`: the best point's values through the session, all or nothing; a value the running framework
already read goes to every open Framework Env sidebar for the notebook profile (Restart and apply), and the result
says so; with no sidebar open, it says how to get there. Real modules read the variables at import."""

from __future__ import annotations

import importlib
import json

import pytest

from mgenv_jupyter import AlreadyReadWarning
from mgenv_jupyter._text import Text
from mgenv_jupyter.catalog import Catalog, Entry, ReadWhen
from mgenv_jupyter.catalog._values import Size
from mgenv_jupyter.presentation.sweep import AppliedView
from mgenv_jupyter.runtime import EnvSession, ImportWatcher, Status
from mgenv_jupyter.tuner._grid import Grid, Variable
from mgenv_jupyter.tuner._offers import profile_offers
from mgenv_jupyter.tuner._point import Outcome, PointResult
from mgenv_jupyter.tuner._replay import SetupPlan
from mgenv_jupyter.tuner._result import Budget, BudgetOf, SweepResult

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
                          peak_host_bytes=100),
              PointResult(1, {"PROBE_THRESHOLD": "2GB"}, {"PROBE_THRESHOLD": str(2 * 1024**3)}, Outcome.OK,
                          runs=(1.0,), peak_host_bytes=200)]
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
    profile_offers.observe(offered.append)
    try:
        with pytest.warns(AlreadyReadWarning):
            applied = swept(session).apply()
    finally:
        profile_offers.unobserve(offered.append)
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
    from mgenv_jupyter._comm import SidebarComm
    from mgenv_jupyter.tuner._offers import ProfileOffer

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
    profile_offers.remember(ProfileOffer({"MEGENGINE_DTR_EVICTION_THRESHOLD": "4294967296"}))
    assert comm.sent[-1] == {"type": "profile_offer", "assignments": {"MEGENGINE_DTR_EVICTION_THRESHOLD": "4294967296"}}
    comm.on_closed()
    before = len(comm.sent)
    profile_offers.remember(ProfileOffer({"X": "1"}))
    assert len(comm.sent) == before  # a closed sidebar hears nothing more
