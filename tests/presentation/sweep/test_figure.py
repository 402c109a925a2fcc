"""The figure's data, in the view's language: each point's label, outcome, time, peak of the budget's kind, the best
one and the failed ones, the budget line and the timelines."""

from __future__ import annotations

from mgenv_jupyter.presentation.sweep._figure import figure


def test_the_figure_marks_the_best_and_the_failed_points_and_the_budget(swept):
    data = figure(swept, "en")
    assert [p["label"] for p in data["points"]] == ["100", "300", "oom", "600", "1200"]
    assert [p["best"] for p in data["points"]] == [True, False, False, False, False]
    assert [p["failed"] for p in data["points"]] == [False, False, True, False, False]
    assert data["points"][2]["outcome_label"] == "out of memory" and data["points"][2]["seconds"] is None
    assert data["peak_kind"] == "device" and data["simulated"] and data["budget"] == int(1024**3 * 0.95)
    assert data["budget_label"] == "budget 973 MiB (1 GiB less 5%)"
    assert data["peak_title"] == "Peak GPU memory (simulated GPU)" and len(data["timelines"]) == 5


def test_while_running_no_point_is_best_yet(swept):
    assert not any(p["best"] for p in figure(swept, "en", running=True)["points"])


def test_in_chinese(swept):
    data = figure(swept, "zh")
    assert data["points"][2]["outcome_label"] == "内存不足" and data["budget_label"].startswith("预算")
