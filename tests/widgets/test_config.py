"""`ConfigWidget` (widgets/_config.py): any catalog variables chosen by framework, category or name, and the
NPURunConfig keyword arguments for Ascend."""

from __future__ import annotations

import os

import pytest

import mgenv_jupyter
from mgenv_jupyter import ConfigWidget, InvalidValueError
from mgenv_jupyter.catalog import catalog


def test_every_catalog_variable_shows_its_default_without_an_edit(ip, closing):
    widget = ConfigWidget()
    closing(widget)
    assert len(widget.rows) == len(catalog())
    assert widget.pending() == []
    assert not any(row.error.value for row in widget.rows.values())


def test_unknown_framework_or_name_is_refused(ip):
    with pytest.raises(InvalidValueError, match="did you mean MGE_DEFAULT_DEVICE"):
        ConfigWidget(names=["MGE_DEFAULT_DEVICEE"])
    with pytest.raises(InvalidValueError, match="unknown framework"):
        ConfigWidget(framework="caffe")


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


def test_a_key_value_config_is_edited_key_by_key_here_as_in_the_allocator_widget_and_the_sidebar(ip, closing):
    """The editor kind is the presentation layer's ("key_value"), so every front end edits PyTorch's allocator config
    key by key, not only AllocatorWidget; the joined value is what the session sets."""
    from mgenv_jupyter.widgets._editors import KeyValueEditor

    widget = ConfigWidget(framework="torch")
    closing(widget)
    editor = widget.rows["PYTORCH_ALLOC_CONF"].editor
    assert isinstance(editor, KeyValueEditor) and isinstance(widget.rows["PYTORCH_CUDA_ALLOC_CONF"].editor,
                                                             KeyValueEditor)
    editor.controls["expandable_segments"].value = True
    editor.controls["max_split_size_mb"].value = 128
    widget.apply()
    assert os.environ["PYTORCH_ALLOC_CONF"] == "expandable_segments:True,max_split_size_mb:128"
