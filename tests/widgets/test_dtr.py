"""`DTRWidget` (widgets/_dtr.py): bytes in the environment before `import megengine`, the switch that does what
`megengine.dtr.enable()` does, the threshold as a share of the GPU, and a live change the framework rejects."""

from __future__ import annotations

import importlib
import os

from mgenv_jupyter import DTRWidget
from mgenv_jupyter.catalog._values import GiB, MiB
from mgenv_jupyter.runtime import Status

THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"


def test_dtr_before_import_sets_bytes_and_enables_as_dtr_enable_does(ip, closing, set_size):
    widget = DTRWidget(gpu_total_bytes=16 * GiB)
    closing(widget)
    assert "not imported yet" in widget.effect.value
    assert any("trigger, not a memory cap" in getattr(child, "value", "") for child in widget.children)
    widget.switch_row.checkbox.value = True
    set_size(widget, THRESHOLD, 4, "GiB")
    assert "25%" in widget.share.value and "16 GiB" in widget.share.value
    widget.minimum_row.editor.number.value = 2
    widget.minimum_row.editor.unit.value = "MiB"
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


def test_dtr_threshold_near_or_above_the_gpu_is_flagged(ip, closing, set_size):
    widget = DTRWidget(gpu_total_bytes=lambda: 8 * GiB)
    closing(widget)
    set_size(widget, THRESHOLD, 7.5, "GiB")
    assert "94%" in widget.share.value and "slows down" in widget.share.value
    set_size(widget, THRESHOLD, 8, "GiB")
    assert "out-of-memory" in widget.share.value


def test_dtr_gpu_total_comes_from_the_memory_package_when_not_given(ip, closing, monkeypatch, set_size):
    sources = importlib.import_module("mgenv_jupyter.memory._sources")
    monkeypatch.setattr(sources, "gpu_total_bytes", lambda: None)
    unknown = DTRWidget()
    closing(unknown)
    set_size(unknown, THRESHOLD, 1, "GiB")
    assert "gpu_total_bytes" in unknown.share.value and unknown.gpu_total() is None
    monkeypatch.setattr(sources, "gpu_total_bytes", lambda: 4 * GiB)
    known = DTRWidget()
    closing(known)
    set_size(known, THRESHOLD, 1, "GiB")
    assert "25%" in known.share.value and "4 GiB" in known.share.value


def test_dtr_partly_enabled_is_said(ip, closing):
    ip.run_line_magic("envset", "MEGENGINE_ENABLE_DROP=1")
    widget = DTRWidget()
    closing(widget)
    assert not widget.switch_row.checkbox.value
    assert "partly on" in widget.switch_row.partly.value


def test_a_framework_rejecting_a_live_change_leaves_everything_as_it_was(ip, closing, fake_framework, set_size):
    widget = DTRWidget()
    closing(widget)
    importlib.import_module(fake_framework("megengine", [THRESHOLD]))  # a "megengine" without megengine.dtr
    environ = dict(os.environ)
    set_size(widget, THRESHOLD, 3, "GiB")
    widget.minimum_row.editor.number.value = 2
    widget.minimum_row.editor.unit.value = "MiB"
    assert widget.apply() is None
    assert "rejected" in widget.message.value and "nothing was changed" in widget.message.value
    assert dict(os.environ) == environ
