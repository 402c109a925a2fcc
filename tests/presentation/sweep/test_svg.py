"""The static picture: three charts in one SVG, the failed point crossed and named, the budget line and its label,
the best point ringed; every text escaped (a value is the user's)."""

from __future__ import annotations

import xml.dom.minidom
from dataclasses import replace

from mgenv_jupyter.presentation.sweep._figure import figure
from mgenv_jupyter.presentation.sweep._svg import BEST, FAIL, sweep_svg


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
