"""The inline MemoryChart widget and %memchart in a real shell: batching, the snapshot for late views, no leaks."""

from __future__ import annotations

import gc
import threading
import time
import tracemalloc

import pytest
from IPython.core.error import UsageError
from waiting import wait_until

from mgenv_jupyter.oom._recorder import RECORDER_INTERVAL
from mgenv_jupyter.widgets import MemoryChart


@pytest.fixture(autouse=True)
def simulated_gpu(monkeypatch):
    monkeypatch.setenv("MGENV_SIMULATE_GPU", "a100-40gb")


def recording(chart: MemoryChart) -> list[dict]:
    sent: list[dict] = []
    chart.send = sent.append  # type: ignore[method-assign]  # what would go to the browser
    return sent


def test_memchart_magic_charts_the_simulated_gpu(ip):
    chart = ip.run_line_magic("memchart", "--interval 0.05")
    try:
        sent = recording(chart)
        time.sleep(1.2)  # the window the batches are counted over: how many a second the chart sends is the check
        # Counted before reading the history: its first read imports pandas, which on a busy machine takes seconds
        # while the chart keeps sending.
        batches = [m for m in sent if m["type"] == "memory.batch"]
        frame = chart.history
        assert len(frame) >= 10 and any("simulated" in c for c in frame.columns)
        assert 2 <= len(batches) <= 8  # ~24 samples in 1.2 s went out in a few batches, not one per sample
        assert sum(len(b["t"]) for b in batches) >= 10
    finally:
        chart.close()
    # The out-of-memory recorder %load_ext started keeps the kernel's sampler going, at its own slow rate only.
    assert chart.sampler.running and chart.sampler.interval == RECORDER_INTERVAL
    ip.run_line_magic("unload_ext", "mgenv_jupyter")
    assert not chart.sampler.running


def test_a_late_view_gets_the_snapshot():
    chart = MemoryChart(interval=0.05)
    try:
        wait_until(lambda: chart.sampler.history.count >= 5, what="five samples")
        sent = recording(chart)
        chart._on_front_end_message(chart, {"type": "memory.hello"}, [])
        [snapshot] = [m for m in sent if m["type"] == "memory.snapshot"]
        assert len(snapshot["t"]) >= 5 and snapshot["series"] and snapshot["sources"]
        assert all(s["simulated"] for s in snapshot["series"] if s["device"] != "host")
        assert [s["quantity"] for s in snapshot["series"] if s["device"] == "host"] == ["process"]
    finally:
        chart.close()


def test_memchart_rejects_bad_arguments(ip):
    with pytest.raises(UsageError):
        ip.run_line_magic("memchart", "--interval 0")
    with pytest.raises(UsageError):
        ip.run_line_magic("memchart", "--interval fast")


@pytest.mark.slow  # several seconds
def test_closing_and_recreating_1000_charts_leaves_nothing_behind():
    threads_before = threading.active_count()
    for _ in range(20):  # warm-up: first imports and caches
        MemoryChart(interval=1.0).close()
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    for _ in range(1000):
        chart = MemoryChart(interval=1.0)
        chart.close()
    gc.collect()
    grown, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert threading.active_count() == threads_before
    assert grown - base < 2 * 1024**2, f"{(grown - base) / 1024:.0f} KiB left behind by 1,000 charts"


def test_a_missing_front_end_file_reads_as_empty_so_the_module_still_imports():
    from mgenv_jupyter.widgets._memory_chart import _read_static

    assert _read_static("no_such_file.js") == ""
    assert _read_static("memory_chart.js")  # the built one this checkout has


def test_without_its_front_end_the_chart_says_what_is_missing_and_the_rest_works(ip, monkeypatch):
    """A copy installed without the built front end: the chart and %memchart say what is missing and how to get it;
    the other widgets, which do not need it, still construct."""
    from mgenv_jupyter.widgets import DTRWidget
    from mgenv_jupyter.widgets._memory_chart import FrontEndMissing

    monkeypatch.setattr(MemoryChart, "_esm", "")
    with pytest.raises(FrontEndMissing, match=r"memory_chart\.js\) is missing.*Node\.js 18\+.*other widgets work"):
        MemoryChart()
    with pytest.raises(UsageError, match=r"memory_chart\.js\) is missing"):
        ip.run_line_magic("memchart", "")
    DTRWidget().close()
