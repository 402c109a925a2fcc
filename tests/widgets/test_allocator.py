"""`AllocatorWidget` (widgets/_allocator.py): each framework's allocator settings, Paddle's pool sizes greyed (not
hidden) outside naive_best_fit, MegEngine's reserve given as a size, PyTorch's allocator config edited key by key
and applied as one value, JAX's and TensorFlow's GPU memory rows from the catalog."""

from __future__ import annotations

import os

import pytest

from mgenv_jupyter import AllocatorWidget, InvalidValueError
from mgenv_jupyter.catalog._values import GiB
from mgenv_jupyter.runtime import session

TORCH_CONF = "PYTORCH_ALLOC_CONF"


def test_paddle_pool_rows_are_marked_not_hidden_outside_naive_best_fit(ip, closing, set_size):
    widget = AllocatorWidget(framework="paddle")
    closing(widget)
    fraction = widget.rows["FLAGS_fraction_of_gpu_memory_to_use"]
    assert widget.strategy() == "auto_growth"
    assert "only matters under naive_best_fit" in fraction.note.value and "auto_growth" in fraction.note.value
    assert "mgenv-inactive" in fraction.widget._dom_classes and fraction.widget in widget.children
    widget.rows["FLAGS_allocator_strategy"].editor.dropdown.value = "naive_best_fit"  # not applied yet
    assert "mgenv-inactive" not in fraction.widget._dom_classes
    fraction.editor.slider.value = 0.5
    set_size(widget, "FLAGS_initial_gpu_memory_in_mb", 1, "GiB")
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


def test_unknown_framework_is_refused(ip):
    with pytest.raises(InvalidValueError, match="unknown framework 'ascend'"):
        AllocatorWidget(framework="ascend")


def test_torch_config_keys_are_typed_controls_and_apply_as_one_joined_value(ip, closing):
    widget = AllocatorWidget(framework="torch")
    closing(widget)
    editor = widget.config_editor()
    controls = editor.controls
    assert type(controls["expandable_segments"]).__name__ == "Checkbox"
    assert type(controls["max_split_size_mb"]).__name__ == "IntText"
    assert type(controls["garbage_collection_threshold"]).__name__ == "FloatText"
    assert type(controls["backend"]).__name__ == "Dropdown"
    assert not any(editor.is_set.values()) and "default: False" in editor.marks["expandable_segments"].value
    controls["expandable_segments"].value = True
    controls["max_split_size_mb"].value = 128
    joined = "expandable_segments:True,max_split_size_mb:128"
    assert f"<code>{joined}</code>" in editor.joined.value and widget.rows[TORCH_CONF].value == joined
    assert "default" in editor.marks["backend"].value and editor.marks["max_split_size_mb"].value == ""
    widget.apply_button.click()
    assert session().get(TORCH_CONF) == joined and os.environ[TORCH_CONF] == joined
    assert "mgenv-failure" not in widget.message.value


def test_envset_of_the_torch_config_updates_each_key(ip, closing):
    widget = AllocatorWidget(framework="torch")
    closing(widget)
    editor = widget.config_editor()
    ip.run_cell(f"%envset {TORCH_CONF}=garbage_collection_threshold:0.6,backend:cudaMallocAsync,"
                "roundup_power2_divisions:[256:1,>:4]")
    assert editor.controls["garbage_collection_threshold"].value == 0.6
    assert editor.controls["backend"].value == "cudaMallocAsync"
    assert editor.controls["roundup_power2_divisions"].value == "[256:1,>:4]"
    assert editor.is_set["backend"] and not editor.is_set["expandable_segments"]
    assert "<code>backend:cudaMallocAsync,roundup_power2_divisions:[256:1,&gt;:4],garbage_collection_threshold:0.6" \
           "</code>" in editor.joined.value
    assert not widget.rows[TORCH_CONF].is_edited()
    editor.reset_key("backend")  # back to default: left out of the config
    widget.apply_button.click()
    assert os.environ[TORCH_CONF] == "roundup_power2_divisions:[256:1,>:4],garbage_collection_threshold:0.6"
    ip.run_cell(f"%envunset {TORCH_CONF}")
    assert not any(editor.is_set.values()) and editor.controls["backend"].value == "native"


def test_torch_cross_key_violation_shows_the_kernels_message_and_changes_nothing(ip, closing):
    ip.run_line_magic("envset", f"{TORCH_CONF}=expandable_segments:True")
    widget = AllocatorWidget(framework="torch")
    closing(widget)
    editor = widget.config_editor()
    editor.controls["large_segment_size_mb"].value = 64
    editor.controls["max_split_size_mb"].value = 32  # must be at least large_segment_size_mb
    with pytest.raises(InvalidValueError) as refused:
        session().set([(TORCH_CONF, editor.raw())])
    kernel = str(refused.value)
    assert "max_split_size_mb: 32 is not allowed: expected at least large_segment_size_mb (64)" in kernel
    assert widget.apply() is None
    row = widget.rows[TORCH_CONF]
    assert kernel.split(": ", 1)[1] in row.error.value.replace("&gt;", ">")
    assert "Nothing was applied" in widget.message.value
    assert os.environ[TORCH_CONF] == "expandable_segments:True" == session().get(TORCH_CONF)
    assert row.is_edited()  # the edit stays for the user to fix


def test_torch_names_refused_together(ip, closing):
    ip.run_line_magic("envset", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True")
    widget = AllocatorWidget(framework="torch")
    closing(widget)
    assert widget.config_editor("PYTORCH_CUDA_ALLOC_CONF").is_set["expandable_segments"]
    widget.config_editor().controls["max_split_size_mb"].value = 128
    assert widget.apply() is None and "PYTORCH_CUDA_ALLOC_CONF" in widget.message.value
    assert TORCH_CONF not in os.environ


@pytest.mark.parametrize("framework, kinds", [
    ("torch", {"PYTORCH_ALLOC_CONF": "KeyValueEditor", "PYTORCH_CUDA_ALLOC_CONF": "KeyValueEditor",
               "PYTORCH_HIP_ALLOC_CONF": "KeyValueEditor",
               "PYTORCH_NO_CUDA_MEMORY_CACHING": "PresenceEditor"}),
    ("jax", {"XLA_PYTHON_CLIENT_PREALLOCATE": "SwitchEditor", "XLA_CLIENT_MEM_FRACTION": "FractionEditor",
             "XLA_PYTHON_CLIENT_MEM_FRACTION": "FractionEditor", "XLA_PYTHON_CLIENT_ALLOCATOR": "ChoiceEditor"}),
    ("tensorflow", {"TF_FORCE_GPU_ALLOW_GROWTH": "ChoiceEditor", "TF_GPU_ALLOCATOR": "ChoiceEditor",
                    "TF_GPU_HOST_MEM_LIMIT_IN_MB": "TextEditor"}),
])
def test_torch_jax_tensorflow_rows_come_from_the_catalog_with_their_editor_kinds(ip, closing, framework, kinds):
    widget = AllocatorWidget(framework=framework)
    closing(widget)
    assert {name: type(row.editor).__name__ for name, row in widget.rows.items()} == kinds


def test_jax_and_tensorflow_rows_sync_both_ways(ip, closing):
    jax = AllocatorWidget(framework="jax")
    tensorflow = AllocatorWidget(framework="tensorflow")
    closing(jax)
    closing(tensorflow)
    jax.rows["XLA_PYTHON_CLIENT_PREALLOCATE"].editor.checkbox.value = False
    jax.rows["XLA_PYTHON_CLIENT_ALLOCATOR"].editor.dropdown.value = "platform"
    jax.apply_button.click()
    assert os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false" and os.environ["XLA_PYTHON_CLIENT_ALLOCATOR"] == \
        "platform"
    ip.run_cell("%envset XLA_PYTHON_CLIENT_MEM_FRACTION=0.5")
    assert jax.rows["XLA_PYTHON_CLIENT_MEM_FRACTION"].editor.slider.value == 0.5
    ip.run_cell("%envset TF_GPU_ALLOCATOR=cuda_malloc_async")
    assert tensorflow.rows["TF_GPU_ALLOCATOR"].editor.dropdown.value == "cuda_malloc_async"
    tensorflow.rows["TF_FORCE_GPU_ALLOW_GROWTH"].editor.dropdown.value = "true"
    tensorflow.apply_button.click()
    assert os.environ["TF_FORCE_GPU_ALLOW_GROWTH"] == "true"
