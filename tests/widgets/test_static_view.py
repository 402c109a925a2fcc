"""What a saved notebook keeps of a chart or widget (widgets/_static_view.py), in a real shell: one output whose bundle
holds the widget's view and its static view (text, HTML, the chart's picture) and the output host's type, under a
display id of its own; after later cells the kernel updates that output in place, so what is saved is current; a view
outside the output host stops the updates (they would draw it again)."""

from __future__ import annotations

import time

import pytest
from IPython.utils.capture import capture_output

from mgenv_jupyter.protocol._output import OUTPUT_MIME, OUTPUT_VERSION
from mgenv_jupyter.widgets import _static_view
from mgenv_jupyter.widgets._static_view import REFRESH_SECONDS

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(autouse=True)
def simulated_gpu(monkeypatch):
    monkeypatch.setenv("MGENV_SIMULATE_GPU", "a100-40gb")


@pytest.fixture
def no_wait(monkeypatch):
    """Updates as soon as a cell ends (the rate limit is tested on its own)."""
    monkeypatch.setattr(_static_view, "REFRESH_SECONDS", 0.0)


def shown(ip, code: str) -> list:
    with capture_output() as captured:
        ip.run_cell(code)
    return captured.outputs


def test_a_chart_is_one_output_with_its_picture_and_a_display_id_and_each_cell_updates_it(ip, no_wait):
    output, *updates = shown(ip, "chart = %memchart\nchart")  # its cell's own end may update it already
    assert all(update.update for update in updates)
    chart = ip.user_ns["chart"]
    try:
        assert {WIDGET_VIEW, OUTPUT_MIME, "text/html", "image/svg+xml", "text/plain"} <= set(output.data)
        assert output.data[OUTPUT_MIME] == {"v": OUTPUT_VERSION}
        assert output.data[WIDGET_VIEW]["model_id"] == chart.model_id  # the live view is still the widget's
        assert output.data["text/plain"].startswith("Memory of this kernel")  # words, not the widget's repr
        display_id = output.transient["display_id"]
        time.sleep(1.1)
        [update] = shown(ip, "x = 1")  # a cell ends: the output is brought up to date, in place
        assert update.update and update.transient["display_id"] == display_id
        assert update.data[WIDGET_VIEW] == output.data[WIDGET_VIEW]
        assert update.data["image/svg+xml"] != output.data["image/svg+xml"]  # more of the session
        chart._on_front_end_message(chart, {"type": "memory.hello", "language": "en", "hosted": False}, [])
        assert shown(ip, "y = 2") == []  # a view outside the output host: its static view stays as displayed
    finally:
        chart.close()
    assert shown(ip, "z = 3") == []  # closed: nothing more
    del ip.user_ns["chart"]


def test_a_burst_of_cells_is_one_update_after_the_gap(ip):
    [output] = shown(ip, "chart = %memchart\nchart")
    chart = ip.user_ns["chart"]
    try:
        burst = [o for _ in range(5) for o in shown(ip, "x = 1")]
        assert burst == []  # within REFRESH_SECONDS of the display: one update, later
        time.sleep(REFRESH_SECONDS + 1.0)
        assert chart._static_published != output.data  # the timer caught up with the last cell
    finally:
        chart.close()
        del ip.user_ns["chart"]


def test_an_editor_widget_keeps_a_summary_of_its_values(ip, no_wait):
    output, *updates = shown(ip, "import mgenv_jupyter\nw = mgenv_jupyter.DTRWidget()\nw")
    assert not updates  # its cell's end changed nothing
    widget = ip.user_ns["w"]
    try:
        text = output.data["text/plain"]
        assert text.startswith("MegEngine DTR")
        assert "MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE: not set (default 1 MiB)" in text
        assert OUTPUT_MIME in output.data and "not set (default 1 MiB)" in output.data["text/html"]
        [update] = [o for o in shown(ip, "%envset MEGENGINE_DTR_EVICTION_THRESHOLD=3GB") if o.update]
        assert update.update and "MEGENGINE_DTR_EVICTION_THRESHOLD: 3 GiB (3221225472) — takes effect at import" in (
            update.data["text/plain"])
        assert shown(ip, "x = 1") == []  # nothing changed: no update
    finally:
        widget.close()
        del ip.user_ns["w"]  # the shell is shared: a later test's %memfree walks its variables


def test_a_failing_static_view_leaves_the_live_widget(ip, monkeypatch):
    from mgenv_jupyter.widgets import MemoryChart

    def broken(self):
        raise RuntimeError("drawing failed")

    monkeypatch.setattr(MemoryChart, "_static_view", broken)
    [output] = shown(ip, "chart = %memchart\nchart")
    try:
        assert WIDGET_VIEW in output.data and OUTPUT_MIME not in output.data
    finally:
        ip.user_ns.pop("chart").close()
