"""The memory chart's static picture (presentation/_chart_picture.py), what a saved notebook keeps of it: drawn from the
chart's own snapshot, its y-axis fitted to the data as the live chart fits it, a far total as a label at the top, a
busy stretch of cells one marker, a gap where there was no reading, every text escaped."""

from __future__ import annotations

import re
from xml.etree import ElementTree

from mgenv_jupyter.base._source_state import STATE_OK
from mgenv_jupyter.memory._history import History
from mgenv_jupyter.memory._sample import Sample
from mgenv_jupyter.memory._sampler import Sampler
from mgenv_jupyter.presentation._chart_picture import MARKER_GAP, SVG_MIME, MemoryPicture, elapsed
from mgenv_jupyter.protocol import Snapshot

GiB = 1024**3


class Curve:
    """A simulated-looking GPU whose kernel holds 2 GiB and climbs to 2.5 GiB half way; 40 GiB in all."""

    name, state, simulated = "nvml (simulated)", STATE_OK, True

    def __init__(self, clock: list[float]) -> None:
        self.clock = clock

    def sample(self) -> list[Sample]:
        process = 2 * GiB + (GiB // 2 if self.clock[0] > 1450 else 0)
        return [Sample(self.clock[0], self.name, "gpu0", used=process + GiB, total=40 * GiB, process=process,
                       simulated=True)]

    def close(self) -> None:
        pass


def fifteen_minutes() -> Snapshot:
    """Fifteen minutes at 1 Hz through a real sampler, a cell every 3 s (300 of them)."""
    clock = [1000.0]
    sampler = Sampler([Curve(clock)], history=History(recent=600), clock=lambda: clock[0], started=990.0)
    try:
        for step in range(900):
            clock[0] += 1
            if step % 3 == 0:
                sampler.cells.start(step // 3 + 1)
            sampler.sample_once()
            if step % 3 == 1:
                sampler.cells.finish()
        return sampler.snapshot()
    finally:
        sampler.close()


def test_the_y_axis_fits_the_data_and_the_far_total_is_a_label_at_the_top():
    picture = MemoryPicture(fifteen_minutes(), "Memory of this kernel", "en")
    svg = picture.svg()
    ElementTree.fromstring(svg)  # well-formed
    ticks = re.findall(r'<text x="58" y="[\d.]+" text-anchor="end">([^<]+)</text>', svg)  # the y-axis' labels
    assert ticks == ["0", "1 GiB", "2 GiB", "3 GiB"]  # 0 … the data's top (3.5 GiB used), not the device's 40
    assert "↑ total 40 GiB" in svg  # the total, labelled above the data
    assert "gpu0 (simulated) process: now 2.5 GiB, peak 2.5 GiB" in svg and "10s" in svg and "15m10s" in svg


def test_a_busy_stretch_of_cells_is_one_marker_not_a_band():
    svg = MemoryPicture(fifteen_minutes(), "chart", "en").svg()
    xs = sorted(float(x) for x in re.findall(r'<line x1="([\d.]+)" x2="\1" y1="14" y2="184"', svg))
    assert 10 < len(xs) < 300  # 300 cells ran
    assert all(b - a >= MARKER_GAP for a, b in zip(xs, xs[1:], strict=False))


def test_no_reading_is_a_gap_in_the_line():
    snapshot: Snapshot = {"type": "memory.snapshot", "seq": 1, "interval": 1.0, "t": [1.0, 2.0, 3.0, 4.0, 5.0],
                          "columns": {"gpu0 process": [GiB, GiB, None, 2 * GiB, 2 * GiB]},
                          "cells": [], "series": [{"key": "gpu0 process", "device": "gpu0", "framework": None,
                                                   "quantity": "process", "source": "nvml", "simulated": False,
                                                   "node": None}], "started": 0.0}
    svg = MemoryPicture(snapshot, "chart", "en").svg()
    assert svg.count("<polyline") == 2


def test_words_in_the_language_titles_escaped_and_a_standalone_image():
    picture = MemoryPicture(fifteen_minutes(), "<script>alert(1)</script>", "zh")
    bundle = picture._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html", SVG_MIME}
    assert "<script>" not in bundle["text/html"] and "&lt;script&gt;" in bundle[SVG_MIME]
    assert "gpu0 (模拟) 进程:当前 2.5 GiB,峰值 2.5 GiB" in bundle["text/plain"] and "自内核启动" in bundle["text/html"]
    assert 'fill="#212121"' in bundle[SVG_MIME] and 'fill="currentColor"' in bundle["text/html"]
    assert len(bundle[SVG_MIME]) < 40_000  # 900 samples of two series, drawn as 360 columns


def test_before_any_sample_it_says_so():
    empty: Snapshot = {"type": "memory.snapshot", "seq": 0, "interval": 1.0, "t": [], "columns": {}, "cells": []}
    bundle = MemoryPicture(empty, "chart", "en")._repr_mimebundle_()
    assert "No memory was sampled yet." in bundle["text/plain"] and SVG_MIME not in bundle


def test_elapsed_is_written_as_the_time_axis_writes_it():
    assert [elapsed(s) for s in (0, 45, 720, 750, 3900)] == ["0s", "45s", "12m", "12m30s", "1h05m"]
