"""The report's timeline as the memory chart's own snapshot (presentation/oom/_timeline.py)."""

from __future__ import annotations

from oom_reports import GiB, gpu_timeline, report

from mgenv_jupyter.presentation.oom import CHART_MIN_POINTS, CHART_PEAK_LINES, OomView
from mgenv_jupyter.protocol import Snapshot
from mgenv_jupyter.protocol._oom import OomReportData

from wire_check import check


def test_the_timeline_is_the_charts_own_snapshot_with_the_earlier_peaks_as_lines():
    """What the chart component draws: the failing device's samples, the failing cell's marker (failed), and overlay
    lines for the total, held + asked, and each earlier peak, labelled in binary units as the chart writes them."""
    data = OomView(report(), "en").data()
    check(data, OomReportData)
    chart = data["timeline"]["chart"]
    assert chart is not None
    check(chart, Snapshot)
    assert chart["t"] == [1.0, 2.0, 3.0]
    assert chart["columns"] == {"gpu0 (simulated) process": [2 * GiB, 20 * GiB, 38 * GiB]}
    [series] = chart["series"]
    assert series["key"] == "gpu0 (simulated) process" and series["simulated"] and series["quantity"] == "process"
    [cell] = chart["cells"]
    assert (cell["cell"], cell["start"], cell["end"], cell["ok"]) == (7, 2.0, 3.0, False)
    assert cell["peak"] == {"gpu0 (simulated) process": 38 * GiB}
    overlays = {o["kind"] + ":" + o["short"]: (o["bytes"], o["label"]) for o in chart["overlays"]}
    assert overlays == {
        "total:total": (40 * GiB, "gpu0 (simulated) total (40 GiB)"),
        "oom_request:+ asked": (40 * GiB, "held at the failure + the 2 GiB asked for (40 GiB)"),
        "cell_peak:[6] peak": (3 * GiB, "cell [6] peak (3 GiB)"),
        "cell_peak:[5] peak": (2 * GiB, "cell [5] peak (2 GiB)"),
    }
    assert isinstance(chart.get("started"), float)  # the time axis counts from the kernel's start, as elsewhere

def test_equal_earlier_peaks_share_a_line_and_only_the_highest_are_drawn():
    peaks = ((1, 2 * GiB), (2, 2 * GiB), (3, 2 * GiB), (4, 2 * GiB), (5, 5 * GiB), (6, 6 * GiB), (7, 7 * GiB),
             (8, 8 * GiB))
    timeline = gpu_timeline((1.0, 2.0, 3.0), (2 * GiB, 20 * GiB, 38 * GiB), 9, 2.0, peaks)
    view = OomView(report(timeline), "en")
    chart = view.timeline_chart()
    assert chart is not None
    lines = [o for o in chart["overlays"] if o["kind"] == "cell_peak"]
    assert len(lines) == CHART_PEAK_LINES
    assert [o["short"] for o in lines] == ["[8] peak", "[7] peak", "[6] peak", "[5] peak"]
    few = OomView(report(gpu_timeline(timeline.times, timeline.values, 9, 2.0, peaks[:4])), "en")
    [shared] = [o for o in few.timeline_chart()["overlays"] if o["kind"] == "cell_peak"]  # type: ignore[index]
    assert shared["short"] == "[1, 2, 3, …] peak" and shared["label"] == "cells [1], [2], [3], [4] peak (2 GiB)"
    assert "[1] 2 GiB, [2] 2 GiB, [3] 2 GiB, [4] 2 GiB" in repr(few)  # the text still lists every one

def test_the_chart_shows_the_failing_cell_and_its_lead_up_not_the_whole_history():
    """Five minutes at 1 Hz, a cell that failed 1.5 s after it started (one sample of its own, plus the one taken at
    the failure): the chart shows the 10 s before the cell and the cell, not five minutes squeezed."""
    times = tuple(float(t) for t in range(1000, 1300)) + (1300.2,)
    values = tuple(2 * GiB for _ in range(298)) + (30 * GiB, 38 * GiB, 38 * GiB)
    timeline = gpu_timeline(times, values, 4, 1298.7, ((3, 2 * GiB),))
    view = OomView(report(timeline, failed_at=1300.2), "en")
    chart = view.timeline_chart()
    assert chart is not None
    assert chart["t"][0] >= 1298.7 - 10 and chart["t"][-1] == 1300.2
    assert len(chart["t"]) >= CHART_MIN_POINTS
    assert "samples while the cell ran: 1 (about 1 s apart), and one at the failure" in repr(view)
    # A cell the recorder saw nothing of (paused while it imported a framework) says so.
    paused = gpu_timeline(times[:-2] + (1300.2, 1300.201), values[:-2] + (38 * GiB, 38 * GiB), 4,
                      1298.7, ())
    said = repr(OomView(report(paused, failed_at=1300.2), "en"))
    assert ("no sample while the cell ran (the recorder takes one a second, and pauses while a cell imports a "
            "framework for the first time), and one at the failure") in said
    # However short the history, a few samples: the chart never draws a lone dot when more was recorded.
    short = gpu_timeline(times[-3:], values[-3:], 4, 1300.1, ())
    assert len(OomView(report(short, failed_at=1300.2)).timeline_chart()["t"]) == 3  # type: ignore[index]
