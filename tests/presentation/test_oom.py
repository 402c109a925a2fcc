"""The report as users read it: plain text (the fallback, with the %envset lines to copy) and HTML, in English and
Chinese."""

from __future__ import annotations

from mgenv_jupyter.oom.causes import Cause, Finding
from mgenv_jupyter.oom.recognise import OutOfMemory
from mgenv_jupyter.oom.remedies import Remedy
from mgenv_jupyter.oom.report import OomReport, Timeline
from mgenv_jupyter.oom.state import DeviceFigures, MemoryState, OtherProcess
from mgenv_jupyter.presentation.oom import CHART_MIN_POINTS, CHART_PEAK_LINES, OomView, sparkline
from mgenv_jupyter.protocol import SeriesInfo, Snapshot
from mgenv_jupyter.protocol.oom import OomReportData
from mgenv_jupyter.text import Text

from wire_check import check

GiB = 1024**3
# The series as the sampler records it when the simulated GPU's NVML source first reports it (Sampler.series_info):
# the report carries it, so the view never parses the key.
SERIES: SeriesInfo = {"key": "gpu0 (simulated) process", "device": "gpu0 (simulated)", "quantity": "process",
                      "source": "nvml (simulated)", "simulated": True, "node": None}


def gpu_timeline(*fields) -> Timeline:
    return Timeline(SERIES["key"], *fields, info=SERIES)


def report(timeline: Timeline | None = None, failed_at: float = 3.0) -> OomReport:
    event = OutOfMemory("torch", "gpu", "torch.OutOfMemoryError", "...", 0, 2 * GiB,
                        {"allocated": 21 * GiB, "cached_free": 16 * GiB})
    state = MemoryState((DeviceFigures("gpu0 (simulated)", 0, 40 * GiB, 39 * GiB, 38 * GiB, simulated=True),),
                        (OtherProcess(0, 77, GiB, None, None),))
    if timeline is None:
        timeline = gpu_timeline((1.0, 2.0, 3.0), (2 * GiB, 20 * GiB, 38 * GiB), 7, 2.0,
                            ((5, 2 * GiB), (6, 3 * GiB)))
    finding = Finding(Cause.FRAGMENTATION, 0.9, Text("16 GiB reserved <unallocated>", "预留 16 GiB"))
    remedy = Remedy(Cause.FRAGMENTATION, (("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"),),
                    Text("growable segments", "可增长的显存段"), restart=False, caveat=Text("a caveat", "注意事项"))
    return OomReport(event, failed_at, state, timeline, (finding,), (remedy,), 0.012)


def test_text_in_english_with_the_line_to_copy():
    text = repr(OomView(report(), "en"))
    assert text.splitlines()[0] == "Out of memory on gpu0 (torch.OutOfMemoryError): 2 GiB asked for"
    assert "Verdict: fragmentation — 16 GiB reserved <unallocated>" in text
    assert "gpu0 (simulated): total 40 GiB; this kernel 38 GiB (NVML); other processes 1 GiB" in text
    assert "reserved but unallocated 16 GiB (8.0× the request)" in text
    assert "gpu0: pid 77 (not visible here) 1 GiB" in text
    assert "cell [7] went from 20 GiB to 38 GiB" in text and "[5] 2 GiB, [6] 3 GiB" in text
    assert "Timeline (gpu0 (simulated) process, last 1 min): ▁▄█" in text  # the text fallback keeps its sparkline
    assert "samples while the cell ran: 1 (about 1 s apart), and one at the failure" in text
    assert ("1. %envset PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True   — once set: applied live; growable segments"
            in text)
    assert "caveat: a caveat" in text and "Report made in 12 ms" in text


def test_a_remedy_says_the_status_the_session_will_give_it_or_that_it_needs_a_restart():
    """The words %envdiff and the sidebar use: never "applies live" for a value that waits for the first use."""
    import dataclasses

    from mgenv_jupyter.runtime.status import Status

    base = report()
    pending = dataclasses.replace(base.remedies[0], statuses=(("PYTORCH_CUDA_ALLOC_CONF", Status.PENDING_FIRST_USE),))
    restart = dataclasses.replace(base.remedies[0], restart=True)
    for remedy, english in ((pending, "once set: takes effect at first use"),
                            (restart, "needs a restart (Framework Env sidebar: Restart and apply)")):
        view = OomView(dataclasses.replace(base, remedies=(remedy,)), "en")
        assert f"   — {english};" in repr(view) and view.data()["remedies"][0]["when"] == english


def test_text_in_chinese():
    text = repr(OomView(report(), "zh"))
    assert "结论: 显存碎片 — 预留 16 GiB" in text and "设置后:已实时应用" in text and "gpu0(模拟)" in text


def test_html_escapes_and_lists_the_remedies():
    page = OomView(report(), "en")._repr_html_()
    assert "&lt;unallocated&gt;" in page and "<unallocated>" not in page
    assert "<ol><li><code>%envset PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True</code>" in page


def test_the_labextension_gets_the_report_as_data_beside_text_and_html():
    """IPython merges _repr_mimebundle_ with _repr_html_ and repr: the renderer's OOM_MIME, the fallbacks beside it."""
    from IPython.core.formatters import DisplayFormatter

    from mgenv_jupyter.protocol.oom import OOM_MIME, OOM_VERSION

    bundle, _ = DisplayFormatter().format(OomView(report(), "zh"))
    assert set(bundle) == {OOM_MIME, "text/html", "text/plain"}
    data = bundle[OOM_MIME]
    assert data["v"] == OOM_VERSION and data["language"] == "zh"
    assert data["headline"] == bundle["text/plain"].splitlines()[0]
    assert data["sections"][0][0].startswith("结论: 显存碎片")
    assert data["sections"][-1][0].startswith("GPU 上的其他进程")
    timeline = data["timeline"]
    assert timeline["title"] == "gpu0 (模拟) 进程 的时间线:单元 [7] 直到失败,对比之前各单元的峰值"
    assert timeline["lines"][0] == "单元 [7] 从 20 GiB 升至 38 GiB(峰值 38 GiB)"  # no sparkline beside the chart
    assert not any(bar in line for line in timeline["lines"] for bar in "▁▂▃▄▅▆▇█")
    assert [o["label"] for o in timeline["chart"]["overlays"]] == [
        "gpu0 (simulated) 总量(40 GiB)", "失败时占用 + 申请的 2 GiB(40 GiB)", "单元 [6] 峰值(3 GiB)",
        "单元 [5] 峰值(2 GiB)"]
    [remedy] = data["remedies"]
    assert remedy["assignments"] == [["PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"]]
    assert remedy["restart"] is False and remedy["when"] == "设置后:已实时应用" and remedy["caveat"] == "注意事项"
    assert data["no_remedy"] is None and data["footer"].startswith("报告生成用时 12 毫秒")


def test_sparkline_spans_the_range_and_fits_its_width():
    assert sparkline([0, 5, 10]) == "▁▄█"
    assert len(sparkline(list(range(1000)), 48)) <= 48 and sparkline([]) == ""


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


def test_no_samples_no_chart():
    data = OomView(report(Timeline()), "en").data()
    assert data["timeline"] == {"title": "no samples recorded before the failure", "chart": None,
                                "lines": ["no samples recorded before the failure"]}
