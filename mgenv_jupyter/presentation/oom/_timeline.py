"""The report's timeline for the memory chart component: its title, and the chart's own snapshot
(protocol/_memory.py) of the failing device's series before the failure, with the failing cell's marker and lines for
the device's total, what was held plus what was asked, and the earlier cells' peaks."""

from __future__ import annotations

import statistics

from ...catalog._values import format_size
from ...memory._proc_figures import kernel_started
from ...memory._sample import DeviceId
from ...memory._series_words import series_name
from ...protocol import CellInfo, OverlayInfo, Snapshot
from ._text import OomText
from ._words import (
    ASKED_LINE,
    ASKED_NOTE,
    ASKED_SHORT,
    CHART_TITLE,
    CHART_TITLE_NO_CELL,
    MANY_CELLS,
    NO_TIMELINE,
    ONE_CELL,
    PEAK_LINE,
    PEAK_NOTE,
    PEAK_SHORT,
    TOTAL_LINE,
    TOTAL_NOTE,
    TOTAL_SHORT,
)

CHART_CONTEXT = 10.0  # seconds of history before the failing cell shown with it (more when the cell ran longer)
CHART_MIN_POINTS = 6  # however short the cell, at least these many samples are drawn (1 Hz: the cell's lead-up)
CHART_PEAK_LINES = 4  # earlier cells' peaks drawn as lines, the highest ones (the text lists them all)


def timeline_title(view: OomText) -> str:
    timeline = view.report.timeline
    if not timeline.values:
        return NO_TIMELINE.get(view.lang)
    if timeline.cell is not None and timeline.cell_start is not None:
        return view.say(CHART_TITLE, series=series_name(timeline.series or "", view.lang), cell=timeline.cell)
    seconds = round(max(timeline.times[-1], view.report.time) - chart_window(view)[0])
    return view.say(CHART_TITLE_NO_CELL, series=series_name(timeline.series or "", view.lang), seconds=seconds)


def chart_window(view: OomText) -> tuple[float, int]:
    """(from when, from which sample) the chart shows: CHART_CONTEXT seconds before the failing cell, or as long
    before it as the cell ran, and at least CHART_MIN_POINTS samples."""
    timeline = view.report.timeline
    end = max(timeline.times[-1], view.report.time)
    if timeline.cell_start is None:
        start = end - 60.0
    else:
        start = timeline.cell_start - max(CHART_CONTEXT, end - timeline.cell_start)
    first = next((i for i, t in enumerate(timeline.times) if t >= start), len(timeline.times) - 1)
    first = max(0, min(first, len(timeline.times) - CHART_MIN_POINTS))
    return min(start, timeline.times[first]), first


def timeline_chart(view: OomText) -> Snapshot | None:
    """The timeline as the memory chart's own snapshot (protocol/_memory.py), for the chart component: the failing
    device's series (the samples the recorder kept, the last one taken at the failure), the failing cell's
    marker, and overlay lines for the device's total, the earlier cells' peaks and what was held plus what was
    asked. None when nothing was recorded."""
    timeline, report = view.report.timeline, view.report
    if not timeline.values or timeline.series is None or timeline.info is None:
        return None
    series, info = timeline.series, timeline.info  # as the sampler recorded it: nothing parsed from the key
    device = DeviceId(info["device"], info["framework"], info["node"], info["simulated"]).label
    _, first = chart_window(view)
    times, values = timeline.times[first:], timeline.values[first:]
    overlays: list[OverlayInfo] = []
    figures = next((d for d in report.state.devices if d.device == device), None)
    total = figures.total if figures is not None else (report.state.host_total if device == "host" else None)
    if total:
        overlays.append({"key": f"total:{device}", "kind": "total", "device": device, "bytes": int(total),
                         "label": view.say(TOTAL_LINE, device=series_name(device, view.lang), size=format_size(total)),
                         "short": TOTAL_SHORT.get(view.lang), "note": TOTAL_NOTE.get(view.lang), "series": None,
                         "node": None})
    event = report.event
    same_device = (event.device == "host") == (device == "host") and (
        event.gpu is None or figures is None or figures.gpu == event.gpu)
    if event.requested and same_device:
        needed = values[-1] + event.requested
        overlays.append({"key": f"oom_request:{device}", "kind": "oom_request", "device": device,
                         "bytes": int(needed),
                         "label": view.say(ASKED_LINE, asked=format_size(event.requested), size=format_size(needed)),
                         "short": ASKED_SHORT.get(view.lang), "note": view.say(ASKED_NOTE, series=series),
                         "series": None, "node": None})
    overlays.extend(_peak_overlays(view, device, series))
    cells: list[CellInfo] = []
    if timeline.cell is not None and timeline.cell_start is not None:
        end = max(times[-1], report.time)
        during = timeline.during_cell()
        cells.append({"cell": timeline.cell, "start": round(timeline.cell_start, 3), "end": round(end, 3),
                      "duration": round(end - timeline.cell_start, 3), "ok": False,
                      "peak": {series: float(max(during))} if during else {}})
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    chart: Snapshot = {"type": "memory.snapshot", "seq": 0,
                       "interval": round(statistics.median(gaps), 3) if gaps else 1.0,
                       "t": [round(t, 3) for t in times], "columns": {series: [int(v) for v in values]},
                       "cells": cells, "series": [info], "sources": [], "overlays": overlays}
    started = _kernel_started()
    if started is not None:
        chart["started"] = started
    return chart


def _peak_overlays(view: OomText, device: str, series: str) -> list[OverlayInfo]:
    """The earlier cells' peaks as lines: cells whose peaks read the same share one line; the highest
    CHART_PEAK_LINES lines."""
    by_size: dict[str, list[tuple[int, int]]] = {}
    for cell, peak in view.report.timeline.earlier_peaks:
        by_size.setdefault(format_size(peak), []).append((cell, peak))
    groups = sorted(by_size.values(), key=lambda group: -max(peak for _, peak in group))[:CHART_PEAK_LINES]
    lines: list[OverlayInfo] = []
    for group in groups:
        numbers = [str(cell) for cell, _ in group]
        peak = max(peak for _, peak in group)
        named = view.say(ONE_CELL if len(numbers) == 1 else MANY_CELLS, cells="], [".join(numbers))
        short = ", ".join(numbers[:3]) + (", …" if len(numbers) > 3 else "")
        lines.append({"key": f"cell_peak:{'+'.join(numbers)}", "kind": "cell_peak", "device": device,
                      "bytes": int(peak), "label": view.say(PEAK_LINE, cells=named, size=format_size(peak)),
                      "short": view.say(PEAK_SHORT, cells=short), "note": view.say(PEAK_NOTE, series=series),
                      "series": None, "node": None})
    return lines


def _kernel_started() -> float | None:
    """When this process (the kernel, which made the report) started: the chart counts time from it, as elsewhere.
    From /proc where it answers (a kernel's first report then does not import psutil), else from psutil."""
    started = kernel_started()  # None: the chart counts from its first sample
    return round(started, 3) if started is not None else None
