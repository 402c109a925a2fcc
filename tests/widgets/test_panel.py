"""The editor widgets, driven as a user drives them: change the inputs, press Apply, and look at the kernel.

Every test runs in a real IPython shell with the extension loaded (fixture `ip`), so `%envset` and `%envdiff` are the
magics a user types in the next cell.
"""

from __future__ import annotations

import gc
import importlib
import os
import subprocess
import sys
import threading

import ipywidgets
import pytest
from ipywidgets.widgets.widget import _instances

import mgenv_jupyter
from mgenv_jupyter import AllocatorWidget, ConfigWidget, DTRWidget, InvalidValueError
from mgenv_jupyter.catalog import Catalog, Entry, ReadWhen, catalog
from mgenv_jupyter.catalog.values import GiB, MiB, Size
from mgenv_jupyter.runtime import EnvSession, ImportWatcher, Status
from mgenv_jupyter.text import Text, set_language
from mgenv_jupyter.widgets._link import SessionLink
from mgenv_jupyter.widgets.editors import (
    ChoiceEditor,
    FractionEditor,
    NumberEditor,
    PresenceEditor,
    SizeEditor,
    SwitchEditor,
    TextEditor,
)

THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"


@pytest.fixture
def closing():
    """Widgets made in a test are closed at its end, so they stop observing the session."""
    made: list[ipywidgets.Widget] = []
    yield made.append
    for widget in made:
        widget.close()


@pytest.fixture
def fake_framework(probe_module, monkeypatch):
    """A module named like a framework that reads variables at import; it leaves sys.modules with the test."""

    def make(name: str, reads: list[str]) -> str:
        probe_module(name, reads)
        monkeypatch.setitem(sys.modules, name, None)  # remembers that it was absent...
        del sys.modules[name]  # ...so that the real import below is undone at teardown
        return name

    return make


def set_size(widget, name: str, number: float, unit: str) -> None:
    editor = widget.rows[name].editor
    editor.number.value = number
    editor.unit.value = unit


# ---- package face --------------------------------------------------------------------------------------------------

def test_importing_the_package_does_not_import_ipywidgets():
    code = "import sys, mgenv_jupyter; assert 'ipywidgets' not in sys.modules; mgenv_jupyter.DTRWidget; " \
           "assert 'ipywidgets' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
    with pytest.raises(AttributeError):
        mgenv_jupyter.NoSuchWidget  # noqa: B018


# ---- editors generated from the value types ------------------------------------------------------------------------

@pytest.mark.parametrize("name, kind", [
    ("FLAGS_allocator_strategy", ChoiceEditor),  # enum
    ("MEGENGINE_INPLACE_UPDATE", SwitchEditor),  # 0/1
    ("MEGENGINE_LOGGING_LEVEL", ChoiceEditor),
    ("FLAGS_fraction_of_gpu_memory_to_use", FractionEditor),  # bounded float
    ("MXNET_GPU_MEM_POOL_RESERVE", NumberEditor),  # int with a range
    (THRESHOLD, SizeEditor),
    ("CUDA_VISIBLE_DEVICES", TextEditor),  # devices
    ("MGB_CUDA_RESERVE_MEMORY", TextEditor),  # reserve: "b:<bytes>" or all
    ("session_device_id", TextEditor),  # optional int
    ("precision_mode", ChoiceEditor),  # optional enum: None is a choice
], ids=lambda v: v if isinstance(v, str) else v.__name__)
def test_each_value_kind_gets_its_editor(ip, closing, name, kind):
    widget = ConfigWidget(names=[name])
    closing(widget)
    assert isinstance(widget.rows[name].editor, kind)


def test_presence_flags_are_checkboxes_whose_off_state_unsets(ip, closing):
    name = next(e.name for e in catalog() if e.type.kind == "presence")
    widget = ConfigWidget(names=[name])
    closing(widget)
    row = widget.rows[name]
    assert isinstance(row.editor, PresenceEditor)
    assert "unchecked unsets it" in row.details.value
    row.editor.checkbox.value = True
    widget.apply_button.click()
    assert os.environ[name] == "1"
    row.editor.checkbox.value = False
    widget.apply_button.click()
    assert name not in os.environ
    assert mgenv_jupyter.session().history[-1].new is None


def test_optional_enum_offers_none(ip, closing):
    widget = ConfigWidget(names=["precision_mode"])
    closing(widget)
    dropdown = widget.rows["precision_mode"].editor.dropdown
    assert dropdown.options[0] == "None" and dropdown.value == "None"


def test_every_catalog_variable_shows_its_default_without_an_edit(ip, closing):
    widget = ConfigWidget()
    closing(widget)
    assert len(widget.rows) == len(catalog())
    assert widget.pending() == []
    assert not any(row.error.value for row in widget.rows.values())


def test_size_editor_offers_only_units_the_framework_can_hold(ip, closing):
    widget = ConfigWidget(names=["FLAGS_initial_gpu_memory_in_mb", THRESHOLD])
    closing(widget)
    assert widget.rows["FLAGS_initial_gpu_memory_in_mb"].editor.unit.options == ("MB", "GB", "TB")
    assert widget.rows[THRESHOLD].editor.unit.options == ("B", "KB", "MB", "GB", "TB")


def test_rows_show_status_default_and_description_in_the_chosen_language(ip, closing):
    widget = ConfigWidget(names=["FLAGS_allocator_strategy"])
    closing(widget)
    row = widget.rows["FLAGS_allocator_strategy"]
    assert "takes effect at import" in row.badge.value
    assert "<code>auto_growth</code>" in row.details.value and "Which memory allocator" in row.details.value
    set_language("zh")
    try:
        chinese = ConfigWidget(names=["FLAGS_allocator_strategy"])
        closing(chinese)
        assert "选择 Paddle 的内存分配器" in chinese.rows["FLAGS_allocator_strategy"].details.value
    finally:
        set_language(None)


# ---- Apply, Reset, invalid input -----------------------------------------------------------------------------------

def test_apply_sets_one_batch_through_the_session_with_source_widget(ip, closing):
    widget = ConfigWidget(names=[THRESHOLD, "MGE_DEFAULT_DEVICE", "FLAGS_allocator_strategy"])
    closing(widget)
    set_size(widget, THRESHOLD, 5, "GB")
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
    diff = ip.run_line_magic("envdiff", "").set_index("name")
    assert diff.loc[THRESHOLD, "source"] == "widget" and diff.loc[THRESHOLD, "now"] == str(5 * GiB)


def test_invalid_input_shows_the_message_inline_and_applies_nothing(ip, closing):
    widget = ConfigWidget(names=["MXNET_GPU_MEM_POOL_RESERVE", "MGE_DEFAULT_DEVICE", THRESHOLD])
    closing(widget)
    environ, history = dict(os.environ), len(mgenv_jupyter.session().history)
    set_size(widget, THRESHOLD, 2, "GB")  # valid, but in the same batch as invalid ones
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


def test_a_size_that_is_not_a_whole_number_of_units_is_refused(ip, closing):
    widget = ConfigWidget(names=["FLAGS_initial_gpu_memory_in_mb"])
    closing(widget)
    set_size(widget, "FLAGS_initial_gpu_memory_in_mb", 0.3, "MB")
    assert "whole number" in widget.rows["FLAGS_initial_gpu_memory_in_mb"].error.value
    assert widget.apply() is None and "FLAGS_initial_gpu_memory_in_mb" not in os.environ


def test_reset_discards_edits(ip, closing):
    widget = ConfigWidget(names=[THRESHOLD, "MGE_DEFAULT_DEVICE"])
    closing(widget)
    set_size(widget, THRESHOLD, 1, "GB")
    widget.rows["MGE_DEFAULT_DEVICE"].editor.text.value = "nonsense"
    widget.reset_button.click()
    assert widget.pending() == [] and widget.rows["MGE_DEFAULT_DEVICE"].error.value == ""
    assert widget.rows[THRESHOLD].editor.raw() == "0B"
    widget.apply_button.click()
    assert "Nothing to apply" in widget.message.value and THRESHOLD not in os.environ


def test_default_button_unsets_a_variable(ip, closing):
    ip.run_line_magic("envset", "MGE_DEFAULT_DEVICE=cpu0")
    widget = ConfigWidget(names=["MGE_DEFAULT_DEVICE"])
    closing(widget)
    row = widget.rows["MGE_DEFAULT_DEVICE"]
    assert not row.unset_button.disabled
    row.unset_button.click()
    assert row.editor.raw() == "xpux" and "will be unset" in row.edit_mark.value
    widget.apply_button.click()
    assert "MGE_DEFAULT_DEVICE" not in os.environ and row.unset_button.disabled


def test_a_framework_rejecting_a_live_change_leaves_everything_as_it_was(ip, closing, fake_framework):
    widget = DTRWidget()
    closing(widget)
    importlib.import_module(fake_framework("megengine", [THRESHOLD]))  # a "megengine" without megengine.dtr
    environ = dict(os.environ)
    set_size(widget, THRESHOLD, 3, "GB")
    widget.minimum_row.editor.number.value = 2
    widget.minimum_row.editor.unit.value = "MB"
    assert widget.apply() is None
    assert "rejected" in widget.message.value and "nothing was changed" in widget.message.value
    assert dict(os.environ) == environ


def test_already_read_warnings_are_shown_in_the_widget(monkeypatch, probe_module, closing):
    import mgenv_jupyter.runtime as runtime

    reader = probe_module("mgenv_probe_widget_reader", ["PROBE_SIZE"])
    text = Text("probe", "探针")
    known = Catalog((Entry(name="PROBE_SIZE", framework="probe", category=text, type=Size(), default="0",
                           when=ReadWhen.IMPORT, readers=(reader,), read_at="probe", description=text),))
    watcher = ImportWatcher([reader])
    watcher.install()
    monkeypatch.setattr(runtime, "_session", EnvSession(watcher, known=known))
    try:
        widget = ConfigWidget(framework="probe")
        closing(widget)
        importlib.import_module(reader)
        widget.refresh()  # what happens after each cell in a notebook
        assert "effective" in widget.rows["PROBE_SIZE"].badge.value
        set_size(widget, "PROBE_SIZE", 1, "MB")
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
        assert (editor.number.value, editor.unit.value) == (3.0, "GB")
        assert f"<code>{3 * GiB}</code>" in shown.rows[THRESHOLD].details.value
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
    observers, callbacks = len(session._observers), len(ip.events.callbacks["post_run_cell"])
    instances = len(_instances)
    widget = DTRWidget()
    assert len(session._observers) == observers + 1
    assert len(ip.events.callbacks["post_run_cell"]) == callbacks + 1
    widget.close()
    assert len(session._observers) == observers
    assert len(ip.events.callbacks["post_run_cell"]) == callbacks
    assert len(_instances) == instances
    ip.run_line_magic("envset", "MEGENGINE_DTR_EVICTION_THRESHOLD=1GB")  # reaches no closed widget
    assert widget.rows[THRESHOLD].editor.raw() == "0B"


def test_the_session_link_does_not_keep_its_widget_alive(fresh_session):
    class Owner:
        calls = 0

        def changed(self, report) -> None:
            self.calls += 1

        def cell(self) -> None:
            pass

    owner = Owner()
    link = SessionLink(fresh_session, owner.changed, owner.cell)
    fresh_session.set({"MGE_DEFAULT_DEVICE": "cpu0"})
    assert owner.calls == 1
    del owner
    gc.collect()
    fresh_session.set({"MGE_DEFAULT_DEVICE": "cpu1"})  # the dead owner's link removes itself
    assert link.closed and link not in fresh_session._observers


def test_statuses_follow_a_framework_import_after_the_cell(ip, closing, fake_framework):
    widget = AllocatorWidget("mxnet")
    closing(widget)
    assert "takes effect at first use" in widget.rows["MXNET_GPU_MEM_POOL_TYPE"].badge.value
    ip.run_cell(f"import {fake_framework('mxnet', ['MXNET_GPU_MEM_POOL_TYPE'])}")
    assert "effective" in widget.rows["MXNET_GPU_MEM_POOL_TYPE"].badge.value
    widget.rows["MXNET_GPU_MEM_POOL_TYPE"].editor.dropdown.value = "Round"
    widget.apply_button.click()
    assert "may already be latched" in widget.rows["MXNET_GPU_MEM_POOL_TYPE"].badge.value


# ---- DTRWidget -----------------------------------------------------------------------------------------------------

def test_dtr_before_import_sets_bytes_and_enables_as_dtr_enable_does(ip, closing):
    widget = DTRWidget(gpu_total_bytes=16 * GiB)
    closing(widget)
    assert "not imported yet" in widget.effect.value
    assert any("trigger, not a memory cap" in getattr(child, "value", "") for child in widget.children)
    widget.switch_row.checkbox.value = True
    set_size(widget, THRESHOLD, 4, "GB")
    assert "25%" in widget.share.value and "16 GB" in widget.share.value
    widget.minimum_row.editor.number.value = 2
    widget.minimum_row.editor.unit.value = "MB"
    widget.sqrt_row.editor.checkbox.value = True
    report = widget.apply()
    assert report is not None and {c.outcome for c in report} == {Status.PENDING_IMPORT}
    assert os.environ[THRESHOLD] == str(4 * GiB)
    assert os.environ["MEGENGINE_DTR_EVICTEE_MINIMUM_SIZE"] == str(2 * MiB)
    assert os.environ["MEGENGINE_DTR_SQRT_SAMPLING"] == "1"
    for name in ("MEGENGINE_ENABLE_DROP", "MEGENGINE_DTR_AUTO_DROP", "MEGENGINE_RECORD_COMPUTING_PATH"):
        assert os.environ[name] == "1"
    widget.switch_row.checkbox.value = False
    widget.apply_button.click()
    assert os.environ["MEGENGINE_ENABLE_DROP"] == "0" and os.environ["MEGENGINE_DTR_AUTO_DROP"] == "0"


def test_dtr_threshold_near_or_above_the_gpu_is_flagged(ip, closing):
    widget = DTRWidget(gpu_total_bytes=lambda: 8 * GiB)
    closing(widget)
    set_size(widget, THRESHOLD, 7.5, "GB")
    assert "94%" in widget.share.value and "slows down" in widget.share.value
    set_size(widget, THRESHOLD, 8, "GB")
    assert "out-of-memory" in widget.share.value


def test_dtr_gpu_total_comes_from_the_memory_package_when_not_given(ip, closing, monkeypatch):
    memory = importlib.import_module("mgenv_jupyter.memory")
    monkeypatch.setattr(memory, "gpu_total_bytes", lambda: None, raising=False)
    unknown = DTRWidget()
    closing(unknown)
    set_size(unknown, THRESHOLD, 1, "GB")
    assert "gpu_total_bytes" in unknown.share.value and unknown.gpu_total() is None
    monkeypatch.setattr(memory, "gpu_total_bytes", lambda: 4 * GiB)
    known = DTRWidget()
    closing(known)
    set_size(known, THRESHOLD, 1, "GB")
    assert "25%" in known.share.value and "4 GB" in known.share.value


def test_dtr_partly_enabled_is_said(ip, closing):
    ip.run_line_magic("envset", "MEGENGINE_ENABLE_DROP=1")
    widget = DTRWidget()
    closing(widget)
    assert not widget.switch_row.checkbox.value
    assert "partly on" in widget.switch_row.partly.value


# ---- AllocatorWidget -----------------------------------------------------------------------------------------------

def test_paddle_pool_rows_are_marked_not_hidden_outside_naive_best_fit(ip, closing):
    widget = AllocatorWidget(framework="paddle")
    closing(widget)
    fraction = widget.rows["FLAGS_fraction_of_gpu_memory_to_use"]
    assert widget.strategy() == "auto_growth"
    assert "only matters under naive_best_fit" in fraction.note.value and "auto_growth" in fraction.note.value
    assert "mgenv-inactive" in fraction.widget._dom_classes and fraction.widget in widget.children
    widget.rows["FLAGS_allocator_strategy"].editor.dropdown.value = "naive_best_fit"  # not applied yet
    assert "mgenv-inactive" not in fraction.widget._dom_classes
    fraction.editor.slider.value = 0.5
    set_size(widget, "FLAGS_initial_gpu_memory_in_mb", 1, "GB")
    widget.apply_button.click()
    assert os.environ["FLAGS_allocator_strategy"] == "naive_best_fit"
    assert os.environ["FLAGS_fraction_of_gpu_memory_to_use"] == "0.5"
    assert os.environ["FLAGS_initial_gpu_memory_in_mb"] == "1024"


@pytest.mark.parametrize("framework, names", [
    ("megengine", {"MGB_CUDA_RESERVE_MEMORY", "MEGENGINE_INPLACE_UPDATE"}),
    ("mxnet", {"MXNET_GPU_MEM_POOL_RESERVE", "MXNET_GPU_MEM_POOL_TYPE"}),
])
def test_allocator_rows_per_framework(ip, closing, framework, names):
    widget = AllocatorWidget(framework=framework)
    closing(widget)
    assert set(widget.rows) == names


def test_megengine_reserve_takes_sizes_and_explains_latching(ip, closing):
    widget = AllocatorWidget(framework="megengine")
    closing(widget)
    assert "first use of each GPU" in widget.rows["MGB_CUDA_RESERVE_MEMORY"].details.value
    widget.rows["MGB_CUDA_RESERVE_MEMORY"].editor.text.value = "2GB"
    widget.rows["MEGENGINE_INPLACE_UPDATE"].editor.checkbox.value = True
    widget.apply_button.click()
    assert os.environ["MGB_CUDA_RESERVE_MEMORY"] == f"b:{2 * GiB}" and os.environ["MEGENGINE_INPLACE_UPDATE"] == "1"


def test_unknown_framework_or_name_is_refused(ip):
    with pytest.raises(InvalidValueError, match="unknown framework"):
        AllocatorWidget(framework="tensorflow")
    with pytest.raises(InvalidValueError, match="did you mean MGE_DEFAULT_DEVICE"):
        ConfigWidget(names=["MGE_DEFAULT_DEVICEE"])
    with pytest.raises(InvalidValueError, match="unknown framework"):
        ConfigWidget(framework="torch")


# ---- Ascend: NPURunConfig keyword arguments ------------------------------------------------------------------------

def test_ascend_widget_gives_validated_npu_run_config_kwargs(ip, closing):
    widget = ConfigWidget(framework="ascend")
    closing(widget)
    assert "NPURunConfig() uses its defaults" in widget.npu_output.value
    assert "ASCEND_DEVICE_ID" in widget.npu_output.value
    widget.rows["graph_run_mode"].editor.box.value = 0
    widget.rows["session_device_id"].editor.text.value = "1"
    widget.rows["precision_mode"].editor.dropdown.value = "allow_mix_precision"
    widget.rows["ASCEND_DEVICE_ID"].editor.box.value = 3
    widget.apply_button.click()
    kwargs = widget.npu_run_config_kwargs()
    assert kwargs == {"graph_run_mode": 0, "session_device_id": 1, "precision_mode": "allow_mix_precision"}
    assert kwargs == mgenv_jupyter.session().npu_run_config_kwargs()
    assert "NPURunConfig(graph_run_mode=0, session_device_id=1, precision_mode=&#x27;allow_mix_precision&#x27;)" \
        in widget.npu_output.value
    assert os.environ["ASCEND_DEVICE_ID"] == "3" and "<code>3</code>" in widget.npu_output.value
    widget.rows["session_device_id"].editor.text.value = "None"
    widget.apply_button.click()
    assert "session_device_id" not in widget.npu_run_config_kwargs()


# ---- the ipywidgets idiom ------------------------------------------------------------------------------------------

def test_rows_are_traits_that_observe_and_link(ip, closing):
    """`value`, `status` and `applies` are traits: Python code can observe a row and link it to other widgets."""
    widget = AllocatorWidget(framework="paddle")
    closing(widget)
    strategy, pool = widget.rows["FLAGS_allocator_strategy"], widget.rows["FLAGS_initial_gpu_memory_in_mb"]
    seen = []
    strategy.observe(lambda change: seen.append(change["new"]), names="value")
    strategy.editor.dropdown.value = "naive_best_fit"
    assert seen == ["naive_best_fit"] and pool.applies
    mirror = ipywidgets.Text()
    ipywidgets.link((pool, "value"), (mirror, "value"))
    mirror.value = "2GB"  # typed elsewhere: the row's editor follows, normalised to what Paddle reads (MB)
    assert (pool.editor.number.value, pool.editor.unit.value) == (2.0, "GB") and pool.value == "2048"
    strategy.value = "auto_growth"  # set from code: the editor follows, and the rules are evaluated again
    assert strategy.editor.dropdown.value == "auto_growth" and not pool.applies
    assert strategy.status == "pending_import"


def test_styling_is_by_class_not_inline(ip, closing):
    widget = DTRWidget(gpu_total_bytes=16 * GiB)
    other = ConfigWidget(framework="ascend")
    closing(widget)
    closing(other)
    set_size(widget, THRESHOLD, 15, "GB")  # near the capacity: styled as a warning, by class
    texts = [part.value for panel in (widget, other) for part in _all_parts(panel) if isinstance(part, ipywidgets.HTML)]
    assert not [text for text in texts if "style=" in text]
    assert "mgenv-near" in widget.share._dom_classes
    assert sum("<style>" in text for text in texts) == 2  # one style sheet per panel


def test_every_row_names_its_variable_on_its_own_line_with_the_full_name_as_tooltip(ip, closing):
    widget = ConfigWidget(framework="paddle")
    closing(widget)
    row = widget.rows["FLAGS_fraction_of_cuda_pinned_memory_to_use"]
    assert row.name_label.tooltip == row.entry.name and "mgenv-name" in row.name_label._dom_classes
    assert row.editor.widget not in row.children[0].children  # the input is below the name, not squeezed beside it


def _all_parts(widget):
    for child in getattr(widget, "children", ()):
        yield child
        yield from _all_parts(child)
