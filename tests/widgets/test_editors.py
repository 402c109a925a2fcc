"""The editors generated from the value types (widgets/_editors.py): which input each kind of variable gets, its
choices and units, and what an input refuses.

Every test runs in a real IPython shell with the extension loaded (fixture `ip`).
"""

from __future__ import annotations

import os

import pytest

import mgenv_jupyter
from mgenv_jupyter import ConfigWidget
from mgenv_jupyter.catalog import catalog
from mgenv_jupyter.widgets._editors import (
    ChoiceEditor,
    FractionEditor,
    NumberEditor,
    PresenceEditor,
    SizeEditor,
    SwitchEditor,
    TextEditor,
)

THRESHOLD = "MEGENGINE_DTR_EVICTION_THRESHOLD"


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


def test_size_editor_offers_only_units_the_framework_can_hold(ip, closing):
    widget = ConfigWidget(names=["FLAGS_initial_gpu_memory_in_mb", THRESHOLD])
    closing(widget)
    assert widget.rows["FLAGS_initial_gpu_memory_in_mb"].editor.unit.options == ("MiB", "GiB", "TiB")
    assert widget.rows[THRESHOLD].editor.unit.options == ("B", "KiB", "MiB", "GiB", "TiB")


def test_a_size_that_is_not_a_whole_number_of_units_is_refused(ip, closing, set_size):
    widget = ConfigWidget(names=["FLAGS_initial_gpu_memory_in_mb"])
    closing(widget)
    set_size(widget, "FLAGS_initial_gpu_memory_in_mb", 0.3, "MiB")
    assert "whole number" in widget.rows["FLAGS_initial_gpu_memory_in_mb"].error.value
    assert widget.apply() is None and "FLAGS_initial_gpu_memory_in_mb" not in os.environ


def test_key_value_editor_leaves_default_keys_out_and_keeps_an_explicit_false(ip):
    from mgenv_jupyter.widgets._editors import key_value_editor

    editor = key_value_editor(catalog().get("PYTORCH_ALLOC_CONF"))
    assert editor.raw() is None and "every key at its default" in editor.joined.value
    editor.show("expandable_segments:true,max_split_size_mb:64")
    assert editor.controls["expandable_segments"].value is True and editor.controls["max_split_size_mb"].value == 64
    editor.controls["expandable_segments"].value = False  # unticking a given key writes False (a live change needs it)
    assert editor.raw() == "expandable_segments:False,max_split_size_mb:64"
    editor.reset_key("max_split_size_mb")
    assert editor.raw() == "expandable_segments:False" and not editor.is_set["max_split_size_mb"]
    with pytest.raises(mgenv_jupyter.InvalidValueError, match="not a key:value config"):
        key_value_editor(catalog().get("FLAGS_allocator_strategy"))
    editor.widget.close()
