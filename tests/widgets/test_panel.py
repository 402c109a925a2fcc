"""What every editor widget shares (widgets/_panel.py), driven as a user drives it: change the inputs, press Apply or
Reset, and look at the kernel; the panel follows the session both ways and closes cleanly.

Every test runs in a real IPython shell with the extension loaded (fixture `ip`), so `%envset` and `%envdiff` are the
magics a user types in the next cell.
"""

from __future__ import annotations

import importlib
import os
import threading

import ipywidgets
from ipywidgets.widgets.widget import _instances

import mgenv_jupyter
from mgenv_jupyter import AllocatorWidget, ConfigWidget, DTRWidget
from mgenv_jupyter.base._kernel_state import kernel_state
from mgenv_jupyter.base._text import Text
from mgenv_jupyter.catalog import Catalog, Entry, ReadWhen
from mgenv_jupyter.catalog._values import GiB, MiB, Size
from mgenv_jupyter.memory._cell_events import cell_follower
from mgenv_jupyter.runtime import SESSION, EnvSession, ImportWatcher
from mgenv_jupyter.sweeps._offers import cell_offers

THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"


# ---- Apply, Reset, invalid input -----------------------------------------------------------------------------------

def test_apply_sets_one_batch_through_the_session_with_source_widget(ip, closing, set_size):
    widget = ConfigWidget(names=[THRESHOLD, "MGE_DEFAULT_DEVICE", "FLAGS_allocator_strategy"])
    closing(widget)
    set_size(widget, THRESHOLD, 5, "GiB")
    widget.rows["MGE_DEFAULT_DEVICE"].editor.text.value = "GPU0"
    widget.rows["FLAGS_allocator_strategy"].editor.dropdown.value = "naive_best_fit"
    assert "edited" in widget.rows[THRESHOLD].edit_mark.value
    before = len(mgenv_jupyter.session().history)
    widget.apply_button.click()
    assert os.environ[THRESHOLD] == str(5 * GiB)  # bytes: MegEngine reads "5GB" as 5
    assert os.environ["MGE_DEFAULT_DEVICE"] == "gpu0"
    assert os.environ["FLAGS_allocator_strategy"] == "naive_best_fit"
    changes = mgenv_jupyter.session().history[before:]
    assert {c.name for c in changes} == {THRESHOLD, "MGE_DEFAULT_DEVICE", "FLAGS_allocator_strategy"}
    assert {c.source for c in changes} == {"widget"}
    assert len({c.time for c in changes}) <= 3 and widget.pending() == []
    assert "takes effect at import" in widget.message.value and "normalised" in widget.message.value
    diff = ip.run_line_magic("envdiff", "")  # indexed by name
    assert diff.loc[THRESHOLD, "source"] == "widget" and diff.loc[THRESHOLD, "now"] == str(5 * GiB)


def test_invalid_input_shows_the_message_inline_and_applies_nothing(ip, closing, set_size):
    widget = ConfigWidget(names=["MXNET_GPU_MEM_POOL_RESERVE", "MGE_DEFAULT_DEVICE", THRESHOLD])
    closing(widget)
    environ, history = dict(os.environ), len(mgenv_jupyter.session().history)
    set_size(widget, THRESHOLD, 2, "GiB")  # valid, but in the same batch as invalid ones
    widget.rows["MXNET_GPU_MEM_POOL_RESERVE"].editor.box.value = 150
    widget.rows["MGE_DEFAULT_DEVICE"].editor.text.value = "tpu0"
    reserve_error = widget.rows["MXNET_GPU_MEM_POOL_RESERVE"].error.value
    assert "150" in reserve_error and "from 0 to 100" in reserve_error  # the InvalidValueError text, as typed
    assert "tpu0" in widget.rows["MGE_DEFAULT_DEVICE"].error.value
    widget.apply_button.click()
    assert dict(os.environ) == environ and len(mgenv_jupyter.session().history) == history
    assert "Nothing was applied" in widget.message.value and "MXNET_GPU_MEM_POOL_RESERVE" in widget.message.value
    # the edits stay, so the user can fix them
    widget.rows["MXNET_GPU_MEM_POOL_RESERVE"].editor.box.value = 10
    widget.rows["MGE_DEFAULT_DEVICE"].editor.text.value = "cpu0"
    assert widget.rows["MXNET_GPU_MEM_POOL_RESERVE"].error.value == ""
    widget.apply_button.click()
    assert os.environ["MXNET_GPU_MEM_POOL_RESERVE"] == "10" and os.environ[THRESHOLD] == str(2 * GiB)


def test_reset_discards_edits(ip, closing, set_size):
    widget = ConfigWidget(names=[THRESHOLD, "MGE_DEFAULT_DEVICE"])
    closing(widget)
    set_size(widget, THRESHOLD, 1, "GiB")
    widget.rows["MGE_DEFAULT_DEVICE"].editor.text.value = "nonsense"
    widget.reset_button.click()
    assert widget.pending() == [] and widget.rows["MGE_DEFAULT_DEVICE"].error.value == ""
    assert widget.rows[THRESHOLD].editor.raw() == "0B"
    widget.apply_button.click()
    assert "Nothing to apply" in widget.message.value and THRESHOLD not in os.environ


def test_already_read_warnings_are_shown_in_the_widget(monkeypatch, probe_module, closing, set_size):
    reader = probe_module("mgenv_probe_widget_reader", ["PROBE_SIZE"])
    text = Text("probe", "探针")
    known = Catalog((Entry(name="PROBE_SIZE", framework="probe", category=text, type=Size(), default="0",
                           when=ReadWhen.IMPORT, readers=(reader,), read_at="probe", description=text),))
    watcher = ImportWatcher([reader])
    watcher.install()
    monkeypatch.setitem(kernel_state().values, SESSION, EnvSession(watcher, known=known))
    try:
        widget = ConfigWidget(framework="probe")
        closing(widget)
        importlib.import_module(reader)
        widget.refresh()  # what happens after each cell in a notebook
        assert "effective" in widget.rows["PROBE_SIZE"].badge.value
        set_size(widget, "PROBE_SIZE", 1, "MiB")
        widget.apply_button.click()
        assert os.environ["PROBE_SIZE"] == str(MiB)
        assert "already read, restart needed" in widget.rows["PROBE_SIZE"].badge.value
        assert "restart the kernel" in widget.message.value and reader in widget.message.value
    finally:
        watcher.uninstall()


# ---- two-way sync --------------------------------------------------------------------------------------------------

def test_envset_in_a_later_cell_updates_an_open_widget(ip, closing):
    widget = ConfigWidget(names=[THRESHOLD, "MGE_DEFAULT_DEVICE"])
    other = DTRWidget()
    closing(widget)
    closing(other)
    widget.rows["MGE_DEFAULT_DEVICE"].editor.text.value = "cpu1"  # an edit of another variable survives
    ip.run_cell("%envset MEGENGINE_DTR_EVICTION_THRESHOLD=3GB")
    for shown in (widget, other):
        editor = shown.rows[THRESHOLD].editor
        assert (editor.number.value, editor.unit.value) == (3.0, "GiB")
        assert f"<code title='{3 * GiB}'>3 GiB</code>" in shown.rows[THRESHOLD].details.value  # the bytes on hover
    assert widget.rows["MGE_DEFAULT_DEVICE"].editor.text.value == "cpu1"
    assert widget.pending() == [("MGE_DEFAULT_DEVICE", "cpu1")]
    ip.run_cell("%envunset MEGENGINE_DTR_EVICTION_THRESHOLD")
    assert widget.rows[THRESHOLD].editor.raw() == "0B"


def test_a_widget_edit_updates_the_other_widgets(ip, closing):
    first, second = AllocatorWidget("paddle"), ConfigWidget(framework="paddle", category="memory")
    closing(first)
    closing(second)
    first.rows["FLAGS_allocator_strategy"].editor.dropdown.value = "naive_best_fit"
    first.apply_button.click()
    assert second.rows["FLAGS_allocator_strategy"].editor.dropdown.value == "naive_best_fit"


def test_session_changes_from_other_threads_reach_the_widget(ip, closing):
    widget = ConfigWidget(names=["MXNET_GPU_MEM_POOL_RESERVE"])
    closing(widget)
    errors: list[BaseException] = []

    def worker(value: int) -> None:
        try:
            mgenv_jupyter.session().set({"MXNET_GPU_MEM_POOL_RESERVE": value})
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(1, 9)]
    for thread in threads:
        thread.start()
    for _ in range(20):
        widget.refresh()
    for thread in threads:
        thread.join()
    assert not errors
    assert widget.rows["MXNET_GPU_MEM_POOL_RESERVE"].editor.box.value == int(os.environ["MXNET_GPU_MEM_POOL_RESERVE"])
    assert widget.pending() == []


def test_closing_a_widget_stops_observing_and_frees_its_parts(ip):
    session = mgenv_jupyter.session()
    follower = cell_follower(ip)
    observers, callbacks = len(session._observers), len(follower.subscriptions())
    instances = len(_instances)
    widget = DTRWidget()
    assert len(session._observers) == observers + 1
    assert len(follower.subscriptions()) == callbacks + 1
    widget.close()
    assert len(session._observers) == observers
    assert len(follower.subscriptions()) == callbacks
    assert len(_instances) == instances
    ip.run_line_magic("envset", "MEGENGINE_DTR_EVICTION_THRESHOLD=1GB")  # reaches no closed widget
    assert widget.rows[THRESHOLD].editor.raw() == "0B"


def test_statuses_follow_a_framework_import_after_the_cell(ip, closing, fake_framework):
    widget = AllocatorWidget("mxnet")
    closing(widget)
    assert "not set" in widget.rows["MXNET_GPU_MEM_POOL_TYPE"].badge.value  # MXNet will use its default
    ip.run_cell(f"import {fake_framework('mxnet', ['MXNET_GPU_MEM_POOL_TYPE'])}")
    assert "effective" in widget.rows["MXNET_GPU_MEM_POOL_TYPE"].badge.value
    widget.rows["MXNET_GPU_MEM_POOL_TYPE"].editor.dropdown.value = "Round"
    widget.apply_button.click()
    assert "may already be latched" in widget.rows["MXNET_GPU_MEM_POOL_TYPE"].badge.value


# ---- styling -----------------------------------------------------------------------------------------------------

def test_styling_is_by_class_not_inline(ip, closing, set_size):
    widget = DTRWidget(gpu_total_bytes=16 * GiB)
    other = ConfigWidget(framework="ascend")
    closing(widget)
    closing(other)
    set_size(widget, THRESHOLD, 15, "GiB")  # near the capacity: styled as a warning, by class
    texts = [part.value for panel in (widget, other) for part in _all_parts(panel) if isinstance(part, ipywidgets.HTML)]
    assert not [text for text in texts if "style=" in text]
    assert "mgenv-near" in widget.share._dom_classes
    assert sum("<style>" in text for text in texts) == 2  # one style sheet per panel


def _all_parts(widget):
    for child in getattr(widget, "children", ()):
        yield child
        yield from _all_parts(child)


# ---- "Try several values…" -----------------------------------------------------------------------------------------

THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"


def test_dtr_offers_thresholds_at_shares_of_the_gpu(fresh_session, closing, monkeypatch):
    monkeypatch.setenv("MGENV_SIMULATE_GPU", "a100-40gb")
    widget = DTRWidget()
    closing(widget)
    offered: list = []
    cell_offers().observe(offered.append)
    try:
        widget.try_button.click()
    finally:
        cell_offers().unobserve(offered.append)
    code = offered[0].code
    assert code.splitlines()[0] == f"%%envsweep {THRESHOLD}=0,10GiB,20GiB,30GiB,36GiB"
    assert "Framework Env panel inserts this cell" in widget.message.value and "%%envsweep" in widget.message.value
    assert fresh_session.get(THRESHOLD) is None and fresh_session.history == []  # nothing set, nothing run


def test_an_edited_value_is_where_the_suggestion_starts(fresh_session, closing):
    widget = DTRWidget(gpu_total_bytes=16 * 1024**3)
    closing(widget)
    widget.threshold_row.editor.number.value = 4
    widget.threshold_row.editor.unit.value = "GiB"
    code = widget.try_several()
    assert code.splitlines()[0] == f"%%envsweep {THRESHOLD}=2GiB,4GiB,8GiB,16GiB"  # a half, it, twice, four times
    assert "Copy this into a new cell" in widget.message.value  # no Framework Env panel is open here


def test_the_allocator_widget_sweeps_its_first_setting(fresh_session, closing):
    widget = AllocatorWidget(framework="paddle")
    closing(widget)
    assert widget.try_several().splitlines()[0] == (
        "%%envsweep FLAGS_allocator_strategy=auto_growth,naive_best_fit,thread_local")
