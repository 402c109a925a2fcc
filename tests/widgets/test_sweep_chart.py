"""The sweep's live chart (an anywidget): its data is the figure, updated as points end; its output carries the
static picture, HTML and text beside the widget for a saved notebook; without its built script the static view."""

from __future__ import annotations

from mgenv_jupyter.sweeps._grid import Grid, Variable
from mgenv_jupyter.sweeps._point import Outcome, PointResult
from mgenv_jupyter.sweeps._replay import SetupPlan
from mgenv_jupyter.sweeps._result import SweepResult, default_budget
from mgenv_jupyter.widgets._sweep_chart import SweepChart, sweep_display


def result(outcomes: list[Outcome]) -> SweepResult:
    points = [PointResult(i, {"X": str(i)}, {"X": str(i)}, outcome, runs=(1.0,) if outcome is Outcome.OK else (),
                          peak_host_bytes=10 + i) for i, outcome in enumerate(outcomes)]
    grid = Grid((Variable("X", tuple(p.values["X"] for p in points), tuple(p.values["X"] for p in points)),))
    return SweepResult("run()", grid, SetupPlan((), True), points, default_budget([], False, 1000))


def test_the_chart_follows_the_sweep_and_carries_its_static_view(fresh_session):
    chart = sweep_display(result([Outcome.OK, Outcome.NOT_RUN]))
    try:
        assert isinstance(chart, SweepChart) and chart.data["running"] is True
        chart.update(result([Outcome.OK, Outcome.ERROR]), running=False)
        assert chart.data["running"] is False and [p["outcome"] for p in chart.data["points"]] == ["ok", "error"]
        data, _ = chart._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in data
        assert data["image/svg+xml"].startswith("<svg") and "<svg" in data["text/html"]
        assert data["text/plain"].startswith("Sweep of X")
    finally:
        chart.close()


def test_without_the_built_script_the_static_view(monkeypatch):
    monkeypatch.setattr(SweepChart, "_esm", "")
    view = sweep_display(result([Outcome.OK]), running=False)
    assert not isinstance(view, SweepChart) and view.live is False and "<svg" in view._repr_html_()
