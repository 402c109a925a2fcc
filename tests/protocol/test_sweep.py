"""The sweep's wire: the figure the kernel sends is exactly the SweepFigure the front end is typed against, and the
sidebar's notices and the cell request are in the generated unions."""

from __future__ import annotations

from typing import get_type_hints

from mgenv_jupyter.protocol import _messages as messages
from mgenv_jupyter.protocol._sweep import (
    CellOfferNotice,
    ProfileOfferNotice,
    SweepCellReply,
    SweepCellRequest,
    SweepFigure,
    SweepPointInfo,
    SweepTimeline,
)
from mgenv_jupyter.sweeps._grid import Grid, Variable
from mgenv_jupyter.sweeps._point import Outcome, PointResult, Timeline
from mgenv_jupyter.sweeps._replay import SetupPlan
from mgenv_jupyter.sweeps._result import SweepResult, default_budget


def test_the_figure_has_exactly_the_wire_fields():
    from mgenv_jupyter.presentation.sweep._figure import figure

    point = PointResult(0, {"X": "1"}, {"X": "1"}, Outcome.OK, runs=(1.0,), peak_host_bytes=10,
                        timeline=Timeline((0.0, 0.1), (None, None), (5, 10)))
    swept = SweepResult("run()", Grid((Variable("X", ("1",), ("1",)),)), SetupPlan((), True), [point],
                        default_budget([], False, 100))
    data = figure(swept, "en")
    assert set(data) == set(get_type_hints(SweepFigure))
    assert all(set(point) == set(get_type_hints(SweepPointInfo)) for point in data["points"])
    assert all(set(line) == set(get_type_hints(SweepTimeline)) for line in data["timelines"])


def test_the_messages_are_in_the_unions():
    assert ProfileOfferNotice in messages.NOTICES and CellOfferNotice in messages.NOTICES
    assert SweepCellRequest in messages.REQUESTS and SweepCellReply in messages.REPLIES
    assert {"profile_offer", "cell_offer", "sweep_cell"} <= set(messages.message_types())
