"""The sweep view: the recommendation, one line (or row) a point, exactly what ran before the cell, and the static
picture, in English and Chinese."""

from __future__ import annotations

import re

from mgenv_jupyter.presentation.sweep import SVG_MIME, SweepView

HAN = re.compile("[\u4e00-\u9fff]")


def test_the_text_says_what_was_recommended_what_ran_before_and_each_point(swept):
    lines = SweepView(swept, "en").lines()
    assert lines[0] == "Sweep of SWEEP_MB" and lines[1] == "recommended: SWEEP_MB=100 — 0.4 s, peak 174 MiB"
    assert "a fresh kernel of python3" in lines[2] and "gpu0 (simulated)" in lines[2]
    assert lines[3] == "Before the cell each point ran 2 cell(s) of this kernel: [1], [2]"
    assert lines[4] == "Left out: [3] failed"
    assert lines[7] == "  oom: out of memory; peak host 102 MiB; gpu0; _ArrayMemoryError, in the measured cell"


def test_chinese_throughout(swept):
    text = repr(SweepView(swept, "zh"))
    assert "推荐" in text and "内存不足" in text and "recommended" not in text and "Before the cell" not in text


def test_html_holds_the_picture_and_a_row_a_point_and_the_bundle_an_svg_image(swept):
    view = SweepView(swept, "en")
    html = view._repr_html_()
    assert html.count("<tr>") == 1 + len(swept.points) and "★ best" in html and "<svg" in html
    assert view._repr_mimebundle_()[SVG_MIME].startswith("<svg") and "#333333" in view._repr_mimebundle_()[SVG_MIME]


def test_a_running_sweep_says_how_far_it_is_and_recommends_nothing_yet(swept):
    view = SweepView(swept, "en", running=True)
    assert view.lines()[1] == "running: 5 of 5 points done" and "(best)" not in repr(view)
