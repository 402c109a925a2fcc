"""The static picture: three charts in one SVG, the failed point crossed and named, the budget line and its label,
the best point ringed; every text escaped (a value is the user's). And readable for every sweep (issue 37, findings
11-13): a grid's labels fit and differ, a host budget far above the points is a label rather than the axis's top,
failures are drawn as what they are with their reason (a time-out at the top, an interrupted point hollow), and every
axis speaks one unit."""

from __future__ import annotations

import re
import xml.dom.minidom
from dataclasses import replace

from mgenv_jupyter.presentation.sweep import SweepView
from mgenv_jupyter.presentation.sweep._figure import figure
from mgenv_jupyter.presentation.sweep._svg import BEST, FAIL, PANEL_WIDTH, sweep_svg
from mgenv_jupyter.sweeps._grid import Grid, Variable
from mgenv_jupyter.sweeps._point import Failure, Outcome, Phase, PointResult, Timeline
from mgenv_jupyter.sweeps._replay import SetupPlan
from mgenv_jupyter.sweeps._result import SweepResult, default_budget


def test_the_picture_is_well_formed_and_marks_what_the_figure_says(swept):
    svg = sweep_svg(figure(swept, "en"))
    xml.dom.minidom.parseString(svg)  # well-formed: a saved notebook's renderer gets valid SVG
    assert svg.count(f'stroke="{BEST}"') == 2  # the best point ringed on the time and the peak chart
    assert "budget 973 MiB (1 GiB less 5%)" in svg and svg.count(f'fill="{FAIL}" font-size="9">out of') == 2
    assert "✕ oom: out of memory — _ArrayMemoryError, in the measured cell" in svg  # the reason, under the panels
    assert svg.count("<polyline") == 2 + 2 + 5  # each category chart broken at the failed point; five timelines


def test_a_value_that_looks_like_markup_is_text(swept):
    point = replace(swept.points[0], values={"SWEEP_MB": "<script>x</script>"})
    svg = sweep_svg(figure(replace(swept, points=[point, *swept.points[1:]]), "en"))
    assert "<script>" not in svg and "&lt;script&gt;" in svg


MiB, GiB = 2**20, 2**30


def _point(index, values, outcome="ok", seconds=0.5, peak=100 * MiB, failure=None):
    failed = outcome not in ("ok", "not_run")
    return PointResult(index, values, values, Outcome(outcome), phase=Phase.CELL if failed else None,
                       failure=failure, runs=(seconds,) if outcome == "ok" else (), peak_host_bytes=peak,
                       kernel_values=dict(values), timeline=Timeline((0.0, 0.1), (None, None), (peak, peak)))


def _result(points, variables, host_total=int(22.4 * GiB), **options):
    grid = Grid(tuple(Variable(name, (), ()) for name in variables))
    return SweepResult("pass", grid, SetupPlan((), False), points, default_budget([], False, host_total), **options)


def _texts(svg):
    return [node.firstChild.data for node in xml.dom.minidom.parseString(svg).getElementsByTagName("text")
            if node.firstChild is not None and node.firstChild.nodeType == node.TEXT_NODE]


def _x_labels(svg):
    """The setting axis's labels: the texts on the line just under the plots."""
    return [(float(x), text) for x, text in re.findall(r'<text x="([\d.]+)" y="208" text-anchor="middle">([^<]*)', svg)]


def test_a_two_variable_grid_has_labels_that_fit_and_differ():
    points = [_point(i, {"OMP_NUM_THREADS": threads, "MALLOC_ARENA_MAX": arenas})
              for i, (threads, arenas) in enumerate((t, a) for t in ("1", "2", "4") for a in ("1", "8"))]
    data = figure(_result(points, ("OMP_NUM_THREADS", "MALLOC_ARENA_MAX")), "en")
    assert [p["label"] for p in data["points"]][:2] == ["1 · 1", "1 · 8"] and data["axis"] == (
        "OMP_NUM_THREADS × MALLOC_ARENA_MAX")
    svg = sweep_svg(data)
    labels = [(x, text) for x, text in _x_labels(svg) if x < PANEL_WIDTH and text]
    assert len(labels) == 6 and len({text for _, text in labels}) == 6  # every point named, no two alike
    for (x1, t1), (x2, t2) in zip(labels, labels[1:], strict=False):  # ~5.6 px a character: no two overlap
        assert x2 - x1 >= 5.6 * (len(t1) + len(t2)) / 2
    legend = [t for t in _texts(svg) if t in {p["label"] for p in data["points"]}]
    assert len(set(legend)) == 6  # the timelines' legend: six entries, six texts


def test_a_host_budget_far_above_the_points_is_a_label_and_the_axis_fits_the_points():
    points = [_point(i, {"SWEEP_MB": str(mb)}, peak=mb * MiB) for i, mb in enumerate((50, 200, 600))]
    svg = sweep_svg(figure(_result(points, ("SWEEP_MB",)), "en"))
    texts = _texts(svg)
    assert "↑ budget 21.3 GiB (22.4 GiB less 5%)" in texts
    ticks = [t for t in texts if t == "0" or re.fullmatch(r"[\d.]+ (MiB|GiB)", t)]
    assert "600 MiB" in ticks and not any(t.endswith("GiB") for t in ticks)  # the axis ends near 600 MiB


def test_every_size_axis_speaks_one_unit():
    points = [_point(i, {"SWEEP_MB": str(mb)}, peak=mb * MiB) for i, mb in enumerate((100, 700, 1500))]
    svg = sweep_svg(figure(_result(points, ("SWEEP_MB",), host_total=2 * GiB), "en"))
    ticks = [t for t in _texts(svg) if re.fullmatch(r"[\d.]+ [KMGT]?i?B", t)]
    assert ticks and {t.split()[1] for t in ticks} == {"GiB"}, ticks


def test_failures_are_drawn_as_what_they_are_with_their_reason():
    points = [_point(0, {"N": "1"}),
              _point(1, {"N": "2"}, "error", failure=Failure(kind="builtins.ValueError",
                                                               message="the data loader is empty\nmore")),
              _point(2, {"N": "3"}, "timeout", peak=300 * MiB),
              _point(3, {"N": "4"}, "not_run", peak=200 * MiB)]
    result = _result(points, ("N",), timeout=6.0, interrupted=True)
    svg = sweep_svg(figure(result, "en"))
    texts = _texts(svg)
    assert "✕ 2: error — ValueError: the data loader is empty, in the measured cell" in texts
    assert "✕ 3: timed out — past the 6 s limit, in the measured cell" in texts
    assert "✕ 4: not run" in texts
    # the time-out drawn at the top of the time chart under an arrow, not on 0 s
    assert re.search(rf'<text x="[\d.]+" y="33" text-anchor="middle" fill="{FAIL}">↑</text>', svg)
    assert svg.count('stroke-dasharray="2 2"') == 2  # the interrupted point: hollow and dashed on both charts
    status = SweepView(result, language="en").lines()[1]
    assert status.startswith("Interrupted: 3 of 4 points finished; the rest did not run. Recommended: N=1")


def test_the_figure_speaks_chinese_too():
    points = [_point(0, {"N": "1"}), _point(1, {"N": "2"}, "timeout")]
    svg = sweep_svg(figure(_result(points, ("N",), timeout=6.0, interrupted=True), "zh"))
    assert "超过 6 秒的限制" in svg
